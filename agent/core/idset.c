#include <stdlib.h>
#include "core/idset.h"

struct idset_word {
  int64_t base;    // id / 64 + 1 (0: a free slot)
  uint64_t bits;   // bit id % 64: the id is in the set
};

static size_t slot_of(int64_t base, size_t cap) { return (size_t)((uint64_t)base * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1); }

static int grow(idset *s) {
  size_t cap = s->cap ? 2 * s->cap : 1024;
  struct idset_word *w = calloc(cap, sizeof *w);
  if (!w) return 0;
  for (size_t i = 0; i < s->cap; i++) {
    if (!s->w[i].base) continue;
    size_t k = slot_of(s->w[i].base, cap);
    while (w[k].base) k = (k + 1) & (cap - 1);
    w[k] = s->w[i];
  }
  free(s->w);
  s->w = w, s->cap = cap;
  return 1;
}

int idset_add(idset *s, int64_t id) {
  if (id <= 0) return 1;
  if (2 * (s->n + 1) > s->cap && !grow(s)) return 1;
  int64_t base = id / 64 + 1;
  uint64_t bit = 1ull << (id % 64);
  size_t k = slot_of(base, s->cap);
  for (; s->w[k].base; k = (k + 1) & (s->cap - 1)) {
    if (s->w[k].base != base) continue;
    if (s->w[k].bits & bit) return 0;
    s->w[k].bits |= bit;
    return 1;
  }
  s->w[k].base = base, s->w[k].bits = bit;
  s->n++;
  return 1;
}

void idset_free(idset *s) {
  free(s->w);
  s->w = NULL;
  s->cap = s->n = 0;
}
