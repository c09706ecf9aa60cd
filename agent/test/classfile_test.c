// inplace.c's start-up form: rewrite a known class (Target.java) with its
// own hooks and check the result by parsing it here (the methods and their
// flags) and by loading it in a JVM (Check.java: the verifier, reflection,
// the methods calling the hooks).
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../hooks/inplace.h"
#include "check.h"

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *b = NULL;
  size_t cap = 0;
  *len = 0;
  for (;;) {
    if (*len == cap) {
      cap = cap ? cap * 2 : 4096;
      unsigned char *nb = realloc(b, cap);
      if (!nb) break;
      b = nb;
    }
    size_t n = fread(b + *len, 1, cap - *len, f);
    if (!n) break;
    *len += n;
  }
  fclose(f);
  return b;
}

// A class file reader just deep enough to list the methods.
typedef struct {
  const unsigned char *p, *end;
  const unsigned char *cp[4096];
} cls_t;

static unsigned g2(cls_t *c) {
  if (c->p + 2 > c->end) { c->p = c->end; return 0; }
  unsigned v = (unsigned)c->p[0] << 8 | c->p[1];
  c->p += 2;
  return v;
}
static unsigned long g4(cls_t *c) { unsigned long hi = g2(c); return hi << 16 | g2(c); }

static void name_of(cls_t *c, unsigned idx, char *out, size_t cap) {
  out[0] = 0;
  if (idx == 0 || idx >= 4096 || !c->cp[idx] || c->cp[idx][0] != 1) return;
  unsigned len = (unsigned)c->cp[idx][1] << 8 | c->cp[idx][2];
  if (len >= cap) len = (unsigned)cap - 1;
  memcpy(out, c->cp[idx] + 3, len);
  out[len] = 0;
}

typedef struct {
  char name[64], desc[64];
  unsigned access;
  int annotations, hidden;   // RuntimeVisibleAnnotations: how many, and whether one is @Hidden
} meth_t;

static void skip_value(cls_t *c);

// skip_annotation skips an annotation and returns its type's name index.
static unsigned skip_annotation(cls_t *c) {
  unsigned type = g2(c), pairs = g2(c);
  for (unsigned i = 0; i < pairs && c->p < c->end; i++) {
    g2(c);
    skip_value(c);
  }
  return type;
}

static void skip_value(cls_t *c) {
  if (c->p >= c->end) return;
  unsigned tag = *c->p++;
  switch (tag) {
    case 'e': g2(c); g2(c); break;
    case '@': skip_annotation(c); break;
    case '[': { unsigned n = g2(c); for (unsigned i = 0; i < n && c->p < c->end; i++) skip_value(c); break; }
    default: g2(c); break;   // const_value_index, class_info_index
  }
}

// methods lists a class file's methods; -1 if it cannot be read.
static int methods(const unsigned char *b, size_t len, meth_t *out, int cap) {
  cls_t *c = calloc(1, sizeof *c);
  c->p = b;
  c->end = b + len;
  int n = -1;
  if (g4(c) != 0xCAFEBABEul) goto done;
  g4(c);
  unsigned count = g2(c);
  for (unsigned i = 1; i < count && i < 4096 && c->p < c->end; i++) {
    unsigned tag = *c->p;
    c->cp[i] = c->p;
    c->p++;
    switch (tag) {
      case 1: { unsigned l = g2(c); c->p += l; break; }
      case 5: case 6: c->p += 8; i++; break;
      case 7: case 8: case 16: case 19: case 20: c->p += 2; break;
      case 15: c->p += 3; break;
      default: c->p += 4; break;   // 3, 4, 9, 10, 11, 12, 17, 18
    }
  }
  g2(c); g2(c); g2(c);
  unsigned ifaces = g2(c);
  c->p += 2 * ifaces;
  for (int pass = 0; pass < 2; pass++) {   // fields, then methods
    unsigned k = g2(c);
    for (unsigned i = 0; i < k && c->p < c->end; i++) {
      unsigned acc = g2(c), nm = g2(c), ds = g2(c), attrs = g2(c);
      int anns = 0, hidden = 0;
      for (unsigned a = 0; a < attrs && c->p < c->end; a++) {
        char an[64];
        name_of(c, g2(c), an, sizeof an);
        unsigned long l = g4(c);
        const unsigned char *next = c->p + l;
        if (!strcmp(an, "RuntimeVisibleAnnotations")) {
          unsigned k = g2(c);
          for (unsigned x = 0; x < k && c->p < next; x++) {
            char type[80];
            name_of(c, skip_annotation(c), type, sizeof type);
            anns++;
            hidden |= !strcmp(type, "Ljdk/internal/vm/annotation/Hidden;");
          }
          if (c->p != next) anns = -1000;   // the attribute's length disagrees with its annotations
        }
        c->p = next;
      }
      if (pass == 1 && (int)i < cap) {
        out[i].annotations = anns;
        out[i].hidden = hidden;
        out[i].access = acc;
        name_of(c, nm, out[i].name, sizeof out[i].name);
        name_of(c, ds, out[i].desc, sizeof out[i].desc);
      }
    }
    if (pass == 1) n = (int)k;
  }
  if (c->p > c->end) n = -1;
done:
  free(c);
  return n;
}

static const meth_t *find(const meth_t *m, int n, const char *name, const char *desc) {
  for (int i = 0; i < n; i++)
    if (!strcmp(m[i].name, name) && !strcmp(m[i].desc, desc)) return &m[i];
  return NULL;
}

void test_classfile(const char *dir, const char *java_home) {
  test_name = "classfile";
  char path[4400];
  snprintf(path, sizeof path, "%s/classes/Target.class", dir);
  size_t len = 0;
  unsigned char *in = slurp(path, &len);
  CHECK(in != NULL, "cannot read %s (make agent-test compiles it)", path);
  if (!in) return;

  static const wrap_spec specs[] = {{"acquire", "()V", 1, 0, 0, 0},
                                     {"acquire", "(I)V", 1, 0, 0, 0},
                                     {"release", "(I)J", 0, 0, 0, 0},
                                     {"park", "(J)V", 1, 1, 1, 0},
                                     {"absent", "()V", 1, 0, 0, 0}};
  enum { NSPECS = 5, NWRAP = 4 };
  // The start-up form (inject.c): the class's own hooks.
  static const inplace_hook own = {NULL, "orca$hook", "orca$hookJ"};
  unsigned char *out = NULL;
  size_t out_len = 0;
  int wrapped = 0, skipped = 0;
  const char *err = classfile_inplace(in, len, specs, NSPECS, &own, &out, &out_len, &wrapped, &skipped);
  CHECK(err == NULL && out != NULL, "classfile_inplace: %s", err ? err : "no output");
  if (!out) { free(in); return; }
  CHECK(wrapped == NWRAP && skipped == 0, "rewrote %d methods (%d left), want %d (absent() is not in the class)", wrapped,
        skipped, NWRAP);

  // The methods stay as they were, with their flags and annotations; the
  // two hooks are added.
  meth_t before[64], after[64];
  int nb = methods(in, len, before, 64), na = methods(out, out_len, after, 64);
  CHECK(nb > 0 && na == nb + 2, "%d methods before, %d after, want the two hooks more", nb, na);
  for (int i = 0; i < nb && i < na; i++)
    CHECK(!strcmp(before[i].name, after[i].name) && !strcmp(before[i].desc, after[i].desc) &&
              before[i].access == after[i].access && before[i].annotations == after[i].annotations && !after[i].hidden,
          "%s%s kept its place, flags and annotations (%04x, was %04x)", before[i].name, before[i].desc, after[i].access,
          before[i].access);
  CHECK(find(before, nb, "acquire", "(I)V") && find(before, nb, "acquire", "(I)V")->annotations == 1,
        "Target.acquire(int) should carry one runtime annotation (Target.java)");
  const meth_t *hook = find(after, na, "orca$hook", "(ILjava/lang/Object;)V");
  CHECK(hook && hook->access == (0x0002 | 0x0008 | 0x0100 | 0x1000), "orca$hook: private static native synthetic (%04x)",
        hook ? hook->access : 0);
  CHECK(hook && hook->hidden && hook->annotations == 1, "orca$hook: @Hidden");
  const meth_t *hookj = find(after, na, "orca$hookJ", "(ILjava/lang/Object;J)V");
  CHECK(hookj && hookj->access == (0x0002 | 0x0008 | 0x0100 | 0x1000) && hookj->hidden,
        "orca$hookJ: private static native synthetic, @Hidden (%04x)", hookj ? hookj->access : 0);
  // Without a spec that wants the argument, no orca$hookJ.
  unsigned char *plain = NULL;
  size_t plain_len = 0;
  int wp = 0, sp = 0;
  err = classfile_inplace(in, len, specs, 3, &own, &plain, &plain_len, &wp, &sp);
  meth_t pm[64];
  int np = plain ? methods(plain, plain_len, pm, 64) : -1;
  CHECK(!err && wp == 3 && np == nb + 1 && !find(pm, np, "orca$hookJ", "(ILjava/lang/Object;J)V"),
        "three specs without an argument: %d methods (want %d), no orca$hookJ", np, nb + 1);
  free(plain);
  // An argument asked of a method whose first parameter is not a long: the
  // method is not rewritten.
  static const wrap_spec bad[] = {{"acquire", "(I)V", 1, 0, 1, 0}};
  plain = NULL;
  err = classfile_inplace(in, len, bad, 1, &own, &plain, &plain_len, &wp, &sp);
  CHECK(err == NULL && plain == NULL && wp == 0, "a hook argument on acquire(int): %s, %d rewritten", err ? err : "accepted",
        wp);
  free(plain);

  // A rewritten class is not rewritten again; a broken one is refused.
  unsigned char *again = NULL;
  size_t again_len = 0;
  int w2 = 0, s2 = 0;
  err = classfile_inplace(out, out_len, specs, NSPECS, &own, &again, &again_len, &w2, &s2);
  CHECK(err != NULL && again == NULL, "rewriting twice: %s", err ? err : "accepted");
  free(again);
  for (size_t cut = 10; cut < len; cut += len / 7) {
    again = NULL;
    err = classfile_inplace(in, cut, specs, NSPECS, &own, &again, &again_len, &w2, &s2);
    CHECK(err != NULL && again == NULL, "a class cut at %zu of %zu bytes: %s", cut, len, err ? err : "accepted");
    free(again);
  }
  CHECK(classfile_inplace((const unsigned char *)"not a class", 11, specs, NSPECS, &own, &again, &again_len, &w2, &s2) != NULL,
        "not a class file");

  // The JVM's verdict: Check.java loads the rewritten class.
  char wdir[4200], cmd[17000];
  snprintf(wdir, sizeof wdir, "%s/wrapped", dir);
  mkdir(wdir, 0755);
  snprintf(path, sizeof path, "%s/Target.class", wdir);
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(out, 1, out_len, f) == out_len, "cannot write %s", path);
  if (f) fclose(f);
  snprintf(cmd, sizeof cmd, "'%s/bin/java' -Xshare:off -cp '%s:%s/classes' Check 2>&1", java_home, wdir, dir);
  int oks, lines, status = run_java_checks(cmd, &oks, &lines);
  CHECK(status == 0 && oks >= 18, "%s: exit status %d, %d checks passed of %d lines, want 18 or more", cmd, status, oks,
        lines);
  free(in);
  free(out);
}
