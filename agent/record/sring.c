#include <stdlib.h>
#include <string.h>
#include "record/sring.h"

// Each record is an 8-byte header (its length with the header, rounded up
// to 8; a flag: 1 a record, 0 padding to the buffer's end) and its bytes.
typedef struct {
  uint32_t size, used;
} shdr;

sring *sring_new(uint32_t cap) {
  cap = (cap + 7u) & ~7u;
  if (cap < 64) cap = 64;
  sring *r = calloc(1, sizeof *r + cap);
  if (r) r->cap = cap;
  return r;
}

void sring_free(sring *r) { free(r); }

int sring_put(sring *r, const void *rec, uint32_t len) {
  uint32_t need = (uint32_t)sizeof(shdr) + ((len + 7u) & ~7u);
  uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
  uint64_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
  uint32_t off = (uint32_t)(h % r->cap), pad = 0;
  if (need > r->cap) return 0;
  if (off + need > r->cap) pad = r->cap - off;   // at least 8: both are multiples of 8
  if (h + pad + need - t > r->cap) return 0;
  if (pad) {
    shdr p = {pad, 0};
    memcpy(r->buf + off, &p, sizeof p);
    off = 0;
  }
  shdr x = {need, 1};
  memcpy(r->buf + off, &x, sizeof x);
  memcpy(r->buf + off + sizeof x, rec, len);
  atomic_store_explicit(&r->head, h + pad + need, memory_order_release);
  return 1;
}

const void *sring_peek(sring *r, uint32_t *len) {
  uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
  uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
  while (t < h) {
    shdr x;
    memcpy(&x, r->buf + t % r->cap, sizeof x);
    if (x.used) {
      *len = x.size - (uint32_t)sizeof x;
      return r->buf + t % r->cap + sizeof x;
    }
    t += x.size;   // padding: given back at once
    atomic_store_explicit(&r->tail, t, memory_order_release);
  }
  return NULL;
}

void sring_pop(sring *r) {
  uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
  shdr x;
  memcpy(&x, r->buf + t % r->cap, sizeof x);
  atomic_store_explicit(&r->tail, t + x.size, memory_order_release);
}
