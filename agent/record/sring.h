// A sample slot's ring (issue 33, docs/agent.md "The sample path"): a byte
// ring of variable-length records with one producer — a signal handler on
// the slot's own thread — and one consumer, the writer. The producer never
// locks, allocates or calls out (memcpy aside): it checks the room against
// the consumer's position (acquire), copies the record and publishes it
// with a release store of its head; the consumer reads up to the head
// (acquire) and gives the bytes back with a release store of its tail. A
// record never wraps: at the end of the buffer a padding record fills the
// rest. A leaf.
#ifndef ORCA_SRING_H
#define ORCA_SRING_H
#include <stdatomic.h>
#include <stdint.h>

typedef struct {
  _Atomic uint64_t head;   // bytes put (the producer's)
  char pad_[56];
  _Atomic uint64_t tail;   // bytes taken back (the consumer's)
  char pad2_[56];
  uint32_t cap;            // bytes, a multiple of 8
  char buf[];
} sring;

// sring_new allocates a ring of cap bytes (rounded up to 8); NULL when out
// of memory. Not in a signal handler. sring_free frees it.
sring *sring_new(uint32_t cap);
void sring_free(sring *r);
// sring_put copies the len bytes at rec into the ring as one record;
// 0 when it has no room (the record is lost: the caller counts it).
// Async-signal-safe; the producer's only.
int sring_put(sring *r, const void *rec, uint32_t len);
// sring_held: the bytes the ring holds (records and padding not taken
// back); the producer's, after a put. Async-signal-safe.
static inline uint64_t sring_held(sring *r) {
  return atomic_load_explicit(&r->head, memory_order_relaxed) - atomic_load_explicit(&r->tail, memory_order_relaxed);
}
// sring_peek returns the oldest record not taken (its length in *len),
// NULL when none; sring_pop takes it (the consumer's only).
const void *sring_peek(sring *r, uint32_t *len);
void sring_pop(sring *r);
#endif
