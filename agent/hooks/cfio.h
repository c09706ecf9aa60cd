// Readers and writers of big-endian class-file data, for the class
// rewriter (inplace.c) and its tests. A read past the end or a failed allocation sets
// `bad` and reads 0 / writes nothing from then on.
#ifndef ORCA_CFIO_H
#define ORCA_CFIO_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const unsigned char *p, *end;
  int bad;
} rd_t;

static inline unsigned u1(rd_t *r) {
  if (r->p + 1 > r->end) { r->bad = 1; return 0; }
  return *r->p++;
}
static inline unsigned u2(rd_t *r) {
  if (r->p + 2 > r->end) { r->bad = 1; return 0; }
  unsigned v = (unsigned)r->p[0] << 8 | r->p[1];
  r->p += 2;
  return v;
}
static inline uint32_t u4(rd_t *r) {
  uint32_t hi = u2(r);
  return hi << 16 | u2(r);
}
static inline void skip(rd_t *r, size_t n) {
  if ((size_t)(r->end - r->p) < n) { r->bad = 1; r->p = r->end; return; }
  r->p += n;
}

typedef struct {
  unsigned char *b;
  size_t n, cap;
  int bad;
} wr_t;

static inline void put(wr_t *w, const void *p, size_t n) {
  if (w->bad || !n) return;
  if (w->n + n > w->cap) {
    size_t cap = (w->cap ? w->cap * 2 : 4096) + n;
    unsigned char *nb = realloc(w->b, cap);
    if (!nb) { w->bad = 1; return; }
    w->b = nb;
    w->cap = cap;
  }
  memcpy(w->b + w->n, p, n);
  w->n += n;
}
static inline void w1(wr_t *w, unsigned v) { unsigned char c = (unsigned char)v; put(w, &c, 1); }
static inline void w2(wr_t *w, unsigned v) { w1(w, v >> 8); w1(w, v); }
static inline void w4(wr_t *w, uint32_t v) { w2(w, v >> 16); w2(w, v & 0xFFFF); }
static inline void set2(wr_t *w, size_t at, unsigned v) { if (!w->bad) { w->b[at] = (unsigned char)(v >> 8); w->b[at + 1] = (unsigned char)v; } }
static inline void set4(wr_t *w, size_t at, uint32_t v) { set2(w, at, v >> 16); set2(w, at + 2, v & 0xFFFF); }

// cp_skip reads past one constant pool entry and returns its tag, or 0 for
// a tag it does not know; *i moves past the second slot of a long or double.
static inline unsigned cp_skip(rd_t *r, unsigned *i) {
  unsigned tag = u1(r);
  switch (tag) {
    case 1: skip(r, u2(r)); break;
    case 3: case 4: skip(r, 4); break;
    case 5: case 6: skip(r, 8); (*i)++; break;
    case 7: case 8: case 16: case 19: case 20: skip(r, 2); break;
    case 9: case 10: case 11: case 12: case 17: case 18: skip(r, 4); break;
    case 15: skip(r, 3); break;
    default: return 0;
  }
  return tag;
}

// skip_fields reads from the access flags after the constant pool past the
// fields, to the methods' count, and returns this_class.
static inline unsigned skip_fields(rd_t *r) {
  skip(r, 2);   // access flags
  unsigned this_class = u2(r);
  skip(r, 2);   // super
  skip(r, (size_t)u2(r) * 2);
  unsigned nfields = u2(r);
  for (unsigned i = 0; i < nfields && !r->bad; i++) {
    skip(r, 6);
    unsigned na = u2(r);
    for (unsigned k = 0; k < na && !r->bad; k++) { skip(r, 2); skip(r, u4(r)); }
  }
  return this_class;
}

#endif
