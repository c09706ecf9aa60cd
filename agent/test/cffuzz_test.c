// inplace.c under mutated class files: the rewriter parses bytes inside the
// target JVM (the ClassFileLoadHook hands it whatever the JVM loads or another
// agent made), so no input may crash it or make it read outside the buffer
// (the unit tests run under ASan and UBSan: each input sits alone in a buffer
// of its exact size), a class it refuses is left as it was (no output), and
// a class it accepts comes out whole: every length field of the output
// agrees with its contents, and the output is not rewritten again.
//
// The inputs: Target.class (agent/test) and the JDK's Semaphore and Thread
// (extracted from lib/modules), each mutated many times: cut short, bits
// flipped, ranges zeroed, a u2 or u4 set to an edge value (counts, lengths,
// offsets), bytes inserted or removed; most mutations land in the methods,
// where the rewriter reads code. The mutations come from a fixed seed, so a
// failure repeats: it prints the seed and the iteration, and
// ORCA_FUZZ_ITERS=N (default 600 per class and hook form) runs longer
// (ORCA_FUZZ_DUMP=DIR writes a failing input and its output there). Inputs
// that found a bug are kept in regression[] below.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../hooks/cfio.h"
#include "../hooks/inplace.h"
#include "check.h"

static uint64_t rng;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static size_t below(size_t n) { return n ? (size_t)(next_rand() % n) : 0; }

// walk_attrs reads an attributes table; a Code attribute's own parts (its
// code, exception table and attributes) must fill it exactly.
static void walk_attrs(rd_t *r, const unsigned char *const *cp, unsigned count, int depth) {
  unsigned na = u2(r);
  for (unsigned k = 0; k < na && !r->bad; k++) {
    unsigned an = u2(r);
    uint32_t al = u4(r);
    if ((size_t)(r->end - r->p) < al) { r->bad = 1; return; }
    rd_t a = {r->p, r->p + al, 0};
    r->p += al;
    int code = an && an < count && cp[an] && cp[an][0] == 1 && ((unsigned)cp[an][1] << 8 | cp[an][2]) == 4 &&
               !memcmp(cp[an] + 3, "Code", 4);
    if (!code || depth) continue;
    skip(&a, 4);
    skip(&a, u4(&a));
    skip(&a, (size_t)u2(&a) * 8);
    walk_attrs(&a, cp, count, 1);
    if (a.bad || a.p != a.end) { r->bad = 1; return; }
  }
}

// whole: b is a class file whose every count and length agrees with what
// follows, to its last byte.
static int whole(const unsigned char *b, size_t len) {
  rd_t r = {b, b + len, 0};
  if (u4(&r) != 0xCAFEBABE) return 0;
  skip(&r, 4);
  unsigned count = u2(&r);
  const unsigned char **cp = calloc(count ? count : 1, sizeof *cp);
  if (!cp) return 0;
  for (unsigned i = 1; i < count && !r.bad; i++) {
    cp[i] = r.p;
    if (!cp_skip(&r, &i)) r.bad = 1;
  }
  skip_fields(&r);
  unsigned nm = u2(&r);
  for (unsigned i = 0; i < nm && !r.bad; i++) {
    skip(&r, 6);
    walk_attrs(&r, cp, count, 0);
  }
  walk_attrs(&r, cp, count, 0);
  free(cp);
  return !r.bad && r.p == r.end;
}

// methods_at returns where the methods of a class file begin (0 if it cannot
// be read): most mutations go there.
static size_t methods_at(const unsigned char *b, size_t len) {
  rd_t r = {b, b + len, 0};
  skip(&r, 8);
  unsigned count = u2(&r);
  for (unsigned i = 1; i < count && !r.bad; i++)
    if (!cp_skip(&r, &i)) r.bad = 1;
  skip_fields(&r);
  return r.bad ? 0 : (size_t)(r.p - b);
}

// mutate writes a mutation of in (len bytes) to a new buffer of its exact
// size, *n bytes.
static unsigned char *mutate(const unsigned char *in, size_t len, size_t meth, size_t *n) {
  unsigned char *m = malloc(len + 64);
  memcpy(m, in, len);
  *n = len;
  int rounds = 1 + (int)below(3);
  for (int k = 0; k < rounds && *n > 0; k++) {
    // Three in four land in the methods (code, exception tables, stack maps).
    size_t at = meth && meth < *n && below(4) ? meth + below(*n - meth) : below(*n);
    unsigned kind = (unsigned)below(7);
    switch (kind) {
      case 0:   // cut short
        *n = at;
        break;
      case 1:   // bits flipped
        for (int b = 1 + (int)below(8); b > 0; b--) m[below(*n)] ^= (unsigned char)(1u << below(8));
        break;
      case 2: {   // a range zeroed
        size_t l = 1 + below(64);
        if (at + l > *n) l = *n - at;
        memset(m + at, 0, l);
        break;
      }
      case 3: case 4: {   // a u2 (case 3) or u4 (case 4) set to an edge value: counts, lengths, offsets
        static const uint32_t edge[] = {0, 1, 2, 3, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, 0xFFFFFFFF};
        int w = kind == 4 ? 4 : 2;
        if (at + (size_t)w > *n) break;
        uint32_t v = below(3) ? edge[below(sizeof edge / sizeof edge[0])] : (uint32_t)(m[at] << 8 | m[at + 1]) + (below(2) ? 1u : -1u);
        if (w == 4) { m[at] = (unsigned char)(v >> 24); m[at + 1] = (unsigned char)(v >> 16); at += 2; }
        m[at] = (unsigned char)(v >> 8);
        m[at + 1] = (unsigned char)v;
        break;
      }
      case 5: {   // bytes inserted
        size_t l = 1 + below(8);
        if (*n + l > len + 64) break;
        memmove(m + at + l, m + at, *n - at);
        for (size_t i = 0; i < l; i++) m[at + i] = (unsigned char)next_rand();
        *n += l;
        break;
      }
      default: {   // bytes removed
        size_t l = 1 + below(8);
        if (at + l > *n) l = *n - at;
        memmove(m + at, m + at + l, *n - at - l);
        *n -= l;
        break;
      }
    }
  }
  // Alone in a buffer of its exact size: ASan sees a read past its end.
  unsigned char *exact = malloc(*n ? *n : 1);
  memcpy(exact, m, *n);
  free(m);
  return exact;
}

// The specs: inject.c's (join with its argument, release once) and every
// other method in pairs, so that every method's code is read.
static const wrap_spec specs[] = {{"join", "(J)V", 1, 1, 1, 0}, {"release", "()V", 0, 2, 0, 0}, {NULL, NULL, 1, 3, 0, 0}};
static const inplace_hook hooks[] = {{NULL, "orca$hook", "orca$hookJ"}, {"orca/agent/Hooks", "thread", "threadJ"}};

// one rewrites b (n bytes) with hook and checks the rules above; returns 1
// when it was accepted.
static int one(const unsigned char *b, size_t n, const inplace_hook *hook, const char *what, uint64_t seed, int iter) {
  unsigned char *keep = malloc(n ? n : 1), *out = (unsigned char *)&out;   // not NULL: it must be set
  memcpy(keep, b, n);
  size_t out_len = 0;
  int wrapped = -1, skipped = -1;
  const char *err = classfile_inplace(b, n, specs, 3, hook, &out, &out_len, &wrapped, &skipped);
  int bad = 0;
  if (memcmp(keep, b, n)) { CHECK(0, "%s (seed %llu, %d): the input was written to", what, (unsigned long long)seed, iter); bad = 1; }
  if (err || !out) {
    if (out) { CHECK(0, "%s (seed %llu, %d): refused (%s) with an output", what, (unsigned long long)seed, iter, err); bad = 1; }
    else if (!err && wrapped != 0) { CHECK(0, "%s (seed %llu, %d): no output, %d rewritten", what, (unsigned long long)seed, iter, wrapped); bad = 1; }
    if (!bad) test_passed++;
    free(keep);
    return 0;
  }
  // Accepted: whole if the input was, and rewritten once only.
  if (wrapped <= 0) { CHECK(0, "%s (seed %llu, %d): an output with %d rewritten", what, (unsigned long long)seed, iter, wrapped); bad = 1; }
  if (whole(b, n) && !whole(out, out_len)) {
    CHECK(0, "%s (seed %llu, %d): a whole class (%zu bytes) rewritten into a broken one", what, (unsigned long long)seed, iter, n);
    if (getenv("ORCA_FUZZ_DUMP")) {
      char p[256];
      snprintf(p, sizeof p, "%s/%llu-%d.class", getenv("ORCA_FUZZ_DUMP"), (unsigned long long)seed, iter);
      FILE *f = fopen(p, "wb");
      if (f) { fwrite(b, 1, n, f); fclose(f); }
      strcat(p, ".out");
      f = fopen(p, "wb");
      if (f) { fwrite(out, 1, out_len, f); fclose(f); }
    }
    bad = 1;
  }
  unsigned char *again = NULL;
  size_t again_len = 0;
  int w2 = 0, s2 = 0;
  const char *e2 = classfile_inplace(out, out_len, specs, 3, hook, &again, &again_len, &w2, &s2);
  if (!e2 || again) {
    CHECK(0, "%s (seed %llu, %d): its output rewritten again (%s)", what, (unsigned long long)seed, iter, e2 ? e2 : "accepted");
    bad = 1;
  }
  if (!bad) test_passed++;
  free(again);
  free(out);
  free(keep);
  return 1;
}

// code_attr finds, in class file b, the Code attribute of the method
// name+desc and in it the attribute named sub: *code and *at are the offsets
// of their attribute_name_index. 0 if there is none.
static int code_attr(const unsigned char *b, size_t len, const char *name, const char *desc, const char *sub, size_t *code,
                     size_t *at) {
  rd_t r = {b, b + len, 0};
  skip(&r, 8);
  unsigned count = u2(&r);
  const unsigned char **cp = calloc(count ? count : 1, sizeof *cp);
  int found = 0;
#define IS(i, s) ((i) && (i) < count && cp[i] && cp[i][0] == 1 && ((unsigned)cp[i][1] << 8 | cp[i][2]) == strlen(s) && \
                  !memcmp(cp[i] + 3, s, strlen(s)))
  for (unsigned i = 1; i < count && !r.bad; i++) {
    cp[i] = r.p;
    if (!cp_skip(&r, &i)) r.bad = 1;
  }
  skip_fields(&r);
  unsigned nm = u2(&r);
  for (unsigned i = 0; i < nm && !r.bad && !found; i++) {
    skip(&r, 2);
    unsigned mn = u2(&r), md = u2(&r), na = u2(&r);
    for (unsigned k = 0; k < na && !r.bad; k++) {
      size_t c = (size_t)(r.p - b);
      unsigned an = u2(&r);
      uint32_t al = u4(&r);
      rd_t a = {r.p, r.p + al, 0};
      skip(&r, al);
      if (r.bad || !IS(an, "Code") || !IS(mn, name) || !IS(md, desc)) continue;
      skip(&a, 4);
      skip(&a, u4(&a));
      skip(&a, (size_t)u2(&a) * 8);
      unsigned nsub = u2(&a);
      for (unsigned j = 0; j < nsub && !a.bad; j++) {
        size_t s = (size_t)(a.p - b);
        unsigned sn = u2(&a);
        skip(&a, u4(&a));
        if (!a.bad && IS(sn, sub)) { *code = c; *at = s; found = 1; }
      }
    }
  }
#undef IS
  free(cp);
  return found;
}

static uint32_t get4(const unsigned char *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static void put4(unsigned char *p, uint32_t v) { p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16); p[2] = (unsigned char)(v >> 8); p[3] = (unsigned char)v; }

// lnt_padded: Target.acquire()'s LineNumberTable with two bytes after its
// entries (its length, and its Code attribute's, grown to hold them): every
// length agrees. The rewriter wrote the table's length as it was beside
// only its entries, so the class it gave was cut in the middle of a method
// (found by the fuzzing on Semaphore: a LocalVariableTable renamed
// LineNumberTable).
static unsigned char *lnt_padded(const unsigned char *in, size_t len, size_t *n) {
  size_t code, at;
  if (!code_attr(in, len, "acquire", "()V", "LineNumberTable", &code, &at)) return NULL;
  uint32_t al = get4(in + at + 2);
  size_t end = at + 6 + al;
  unsigned char *b = malloc(len + 2);
  memcpy(b, in, end);
  b[end] = b[end + 1] = 0;
  memcpy(b + end + 2, in + end, len - end);
  put4(b + at + 2, al + 2);
  put4(b + code + 2, get4(in + code + 2) + 2);
  *n = len + 2;
  return b;
}

// Inputs that found a bug, kept as regression cases: made from Target.class,
// so that they hold whatever javac writes.
static const struct {
  const char *what;
  unsigned char *(*make)(const unsigned char *in, size_t len, size_t *n);
} regression[] = {
    {"a LineNumberTable with bytes after its entries", lnt_padded},
};

void test_cffuzz(const char *dir, const char *java_home) {
  test_name = "cffuzz";
  char path[4400], cmd[9000];
  // The JDK's classes, as the JVM hands them to the class-file hook.
  snprintf(cmd, sizeof cmd,
           "rm -rf '%s/fuzz' && '%s/bin/jimage' extract --dir '%s/fuzz' --include "
           "'regex:/java.base/java/(lang/Thread|util/concurrent/Semaphore)\\.class' '%s/lib/modules'",
           dir, java_home, dir, java_home);
  CHECK(system(cmd) == 0, "%s", cmd);
  const char *files[] = {"classes/Target.class", "fuzz/java.base/java/util/concurrent/Semaphore.class",
                         "fuzz/java.base/java/lang/Thread.class"};
  const char *env = getenv("ORCA_FUZZ_ITERS");
  int iters = env && atoi(env) > 0 ? atoi(env) : 600;
  for (int f = 0; f < (int)(sizeof files / sizeof files[0]); f++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[f]);
    size_t len = 0;
    unsigned char *in = slurp_file(path, &len);
    CHECK(in != NULL && whole(in, len), "cannot read %s, or it is not a whole class file", path);
    if (!in) continue;
    size_t meth = methods_at(in, len);
    for (int k = 0; f == 0 && k < (int)(sizeof regression / sizeof regression[0]); k++) {
      size_t n = 0;
      unsigned char *b = regression[k].make(in, len, &n);
      CHECK(b && whole(b, n), "%s: not made from %s", regression[k].what, files[f]);
      for (int h = 0; b && h < 2; h++) CHECK(one(b, n, &hooks[h], regression[k].what, 0, k), "%s: refused", regression[k].what);
      free(b);
    }
    for (int h = 0; h < 2; h++) {
      // The unmutated class is accepted (the fuzzing starts from a class
      // the rewriter takes).
      CHECK(one(in, len, &hooks[h], files[f], 0, -1), "%s: not rewritten", files[f]);
      uint64_t seed = 0x9E3779B97F4A7C15ull * (uint64_t)(f * 2 + h + 1);
      rng = seed;
      int accepted = 0;
      for (int i = 0; i < iters; i++) {
        size_t n = 0;
        unsigned char *m = mutate(in, len, meth, &n);
        accepted += one(m, n, &hooks[h], files[f], seed, i);
        free(m);
      }
      // Some mutations must pass (in a string, a line number): else the
      // fuzzing only ever saw the first refusal.
      CHECK(accepted > 0 && accepted < iters, "%s: %d of %d mutations accepted", files[f], accepted, iters);
      if (getenv("ORCA_TEST_VERBOSE")) printf("cffuzz %s hook %d: %d of %d mutations accepted\n", files[f], h, accepted, iters);
    }
    free(in);
  }
}
