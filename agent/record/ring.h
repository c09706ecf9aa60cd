// Event buffers: callbacks append fixed binary records to one of a few
// sharded, double-buffered rings under a spinlock held for a memcpy; the
// writer thread swaps the buffers out. A callback never waits beyond a few
// pauses: its own shard busy, it takes another; every shard full or busy,
// the event is dropped and counted (.info dropped.KIND).
#ifndef ORCA_RING_H
#define ORCA_RING_H
#include <stdint.h>
#include <stddef.h>
#include <stdatomic.h>
#include "record/rec.h"

#define RING_SHARDS 8

// RING_SPINS: the pauses a callback waits for its own shard's lock (a
// holder copies at most ~2 kB), before it tries the other shards once each.
#define RING_SPINS 64

// ring_init allocates total_bytes split over the shards; NULL or an error.
const char *ring_init(size_t total_bytes);

// ring_put appends an event to shard (or another, see above); returns 0
// and counts a drop (counters.h, KC_DROPPED) when no shard took it.
int ring_put(int shard, int kind, int64_t ts, uint32_t thread, uint32_t object, uint32_t owner,
             const orca_frame *frames, int nframes, const char *name, int namelen);
// ring_put_mode is ring_put with a park's acquire mode (ORCA_MODE_*).
int ring_put_mode(int shard, int kind, int64_t ts, uint32_t thread, uint32_t object, uint32_t owner,
                  const orca_frame *frames, int nframes, const char *name, int namelen, int mode);

// ring_take swaps out shard i's filled buffer (writer thread only). The
// returned buffer stays valid until the next ring_take of the same shard.
const char *ring_take(int i, size_t *len);

// Threads' own buffers (ring_threads): with them on, a thread's records go
// to a buffer of its own OS thread — no lock, no atomic exchange: it alone
// writes, the writer alone reads (release/acquire of the two positions) —
// and to the shards above only when that buffer is full or it has none (at
// most `count` buffers of RING_THREAD_BYTES at once, made at a thread's
// first record, freed by the writer once drained after the thread exited).
#define RING_THREAD_BYTES (2 << 20)
// ring_threads turns them on for up to count threads (0: off, as in the
// unit tests that read the shards).
void ring_threads(int count);
// One filled part of a thread's buffer.
typedef struct {
  const char *buf;
  size_t len;
} ring_seg;
// ring_take_threads returns the filled parts of the threads' buffers (*n
// of them; two a buffer at most: it wraps), valid and kept from their
// threads until ring_release_threads (writer thread only). A part may end
// with padding: ring_next skips it.
const ring_seg *ring_take_threads(size_t *n);
// ring_release_threads gives the parts taken back to their threads, and
// frees the buffers of threads that exited once they are drained.
void ring_release_threads(void);

// ring_next returns the record at *off in buf (len bytes) and moves *off
// past it, skipping padding; NULL at the end.
static inline const orca_rec *ring_next(const char *buf, size_t len, size_t *off) {
  while (len - *off >= sizeof(orca_rec)) {
    const orca_rec *r = (const orca_rec *)(buf + *off);
    *off += r->size;
    if (r->kind) return r;
  }
  *off = len;
  return NULL;
}

// ring_wait blocks the writer until ms elapse or a shard fills past half.
void ring_wait(int ms);
void ring_wake(void);
// ring_clear empties every shard (a new recording in the same JVM: what a
// callback stored after the last recording's final take is not this one's);
// returns the records it dropped.
long ring_clear(void);

#endif
