// inplace.c: rewrite every method (constructors aside) of big JDK classes —
// switches, loops, handlers, stack map frames of every kind — and have a
// JVM verify and run them (InplaceCheck.java, the JDK's classes patched with
// --patch-module, their hooks jdk.internal.misc.OrcaTestHooks); and the
// natives-only hook class, loaded beside them.
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../hooks/inplace.h"
#include "check.h"

unsigned char *slurp_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = n > 0 ? malloc((size_t)n) : NULL;
  *len = b && fread(b, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
  fclose(f);
  if (!*len) { free(b); return NULL; }
  return b;
}

static int write_file(const char *path, const unsigned char *b, size_t n) {
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(b, 1, n, f) == n;
  if (f) ok &= fclose(f) == 0;
  return ok;
}

static const char *const classes[] = {
    "java/util/regex/Pattern", "java/math/BigDecimal", "java/util/Formatter", "java/util/concurrent/ConcurrentHashMap",
    "java/lang/Thread", "java/util/concurrent/Semaphore", "java/util/concurrent/locks/AbstractQueuedSynchronizer",
    "java/lang/Character", "java/lang/Integer", "java/lang/Long",
};
#define NCLASSES (int)(sizeof classes / sizeof classes[0])

void test_inplace(const char *dir, const char *java_home) {
  test_name = "inplace";
  char cmd[20000], path[4400], patch[4200];
  snprintf(patch, sizeof patch, "%s/inplace", dir);
  char re[2000] = "";
  for (int i = 0; i < NCLASSES; i++) {
    size_t l = strlen(re);
    snprintf(re + l, sizeof re - l, "%s%s", i ? "|" : "", classes[i]);
  }
  snprintf(cmd, sizeof cmd, "rm -rf '%s/jdk' && '%s/bin/jimage' extract --dir '%s/jdk' --include 'regex:/java.base/(%s)\\.class' '%s/lib/modules'",
           patch, java_home, patch, re, java_home);
  mkdir(patch, 0755);
  CHECK(system(cmd) == 0, "%s", cmd);
  // The specs: join(long) with its argument (orca$hookJ), release() once,
  // and every other method in pairs.
  static const wrap_spec specs[] = {{"join", "(J)V", 1, 1, 1, 0}, {"release", "()V", 0, 2, 0, 0}, {NULL, NULL, 1, 3, 0, 0}};
  static const inplace_hook hook = {"jdk/internal/misc/OrcaTestHooks", "hook", "hookJ"};
  char list[4000] = "";
  int total = 0;
  for (int i = 0; i < NCLASSES; i++) {
    size_t len = 0, out_len = 0;
    snprintf(path, sizeof path, "%s/jdk/java.base/%s.class", patch, classes[i]);
    unsigned char *in = slurp_file(path, &len), *out = NULL;
    CHECK(in != NULL, "cannot read %s", path);
    if (!in) continue;
    int wrapped = 0, skipped = 0;
    const char *err = classfile_inplace(in, len, specs, 3, &hook, &out, &out_len, &wrapped, &skipped);
    CHECK(!err && out && wrapped > 5 && skipped == 0, "%s: %s, %d methods rewritten, %d left", classes[i],
          err ? err : "ok", wrapped, skipped);
    total += wrapped;
    // Written over the extracted file: the patch directory holds the rewritten ones.
    if (out) {
      CHECK(write_file(path, out, out_len), "cannot write %s", path);
      // A rewritten class is not rewritten again.
      unsigned char *again = NULL;
      size_t again_len = 0;
      int w2 = 0, s2 = 0;
      err = classfile_inplace(out, out_len, specs, 3, &hook, &again, &again_len, &w2, &s2);
      CHECK(err && !again, "%s rewritten twice: %s", classes[i], err ? err : "accepted");
      free(again);
      // Truncated: refused, never a crash (ASan watches).
      for (size_t cut = 9; cut < len; cut += len / 5 + 1) {
        again = NULL;
        err = classfile_inplace(in, cut, specs, 3, &hook, &again, &again_len, &w2, &s2);
        CHECK(err && !again, "%s cut at %zu: %s", classes[i], cut, err ? err : "accepted");
        free(again);
      }
    }
    size_t l = strlen(list);
    snprintf(list + l, sizeof list - l, " %s", classes[i]);
    for (char *p = list + l; *p; p++)
      if (*p == '/') *p = '.';
    free(in);
    free(out);
  }
  CHECK(total > 600, "%d methods rewritten in %d classes", total, NCLASSES);

  // The natives-only hook class: loaded beside them (the JVM parses it; its
  // natives are never called here).
  static const char *const natives[] = {"thread", "(ILjava/lang/Object;)V", "vthreadJ", "(ILjava/lang/Object;J)V", NULL};
  unsigned char *hc = NULL;
  size_t hc_len = 0;
  CHECK(classfile_hook_class("jdk/internal/misc/OrcaHooksCheck", natives, &hc, &hc_len) == NULL && hc, "hook class");
  snprintf(path, sizeof path, "%s/jdk/java.base/jdk/internal/misc", patch);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp -r '%s/patch/jdk' '%s/jdk/java.base/'", path, dir, patch);
  CHECK(system(cmd) == 0, "%s", cmd);
  snprintf(path, sizeof path, "%s/jdk/java.base/jdk/internal/misc/OrcaHooksCheck.class", patch);
  CHECK(hc && write_file(path, hc, hc_len), "cannot write %s", path);
  free(hc);
  size_t l = strlen(list);
  snprintf(list + l, sizeof list - l, " jdk.internal.misc.OrcaHooksCheck");

  snprintf(cmd, sizeof cmd,
           "'%s/bin/java' -Xshare:off -XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal --patch-module 'java.base=%s/jdk/java.base' "
           "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp '%s/classes' InplaceCheck%s 2>&1",
           java_home, patch, dir, list);
  int oks, lines, status = run_java_checks(cmd, &oks, &lines);
  CHECK(status == 0 && oks == 5 + NCLASSES + 1, "%s: exit status %d, %d checks passed of %d lines, want %d", cmd, status,
        oks, lines, 5 + NCLASSES + 1);
}
