#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/arch.h"
#include "core/counters.h"
#include "record/ring.h"

typedef struct {
  atomic_int lock;     // 1 while a record is copied in (or the writer swaps)
  char *buf[2];        // active and spare
  int active;
  size_t used, cap;
  char pad[64];        // keep shards on separate cache lines
} shard_t;

static shard_t shards[RING_SHARDS];
static sem_t wake;

const char *ring_init(size_t total) {
  size_t cap = total / RING_SHARDS;
  if (cap < 65536) cap = 65536;
  for (int i = 0; i < RING_SHARDS; i++) {
    shard_t *s = &shards[i];
    atomic_store(&s->lock, 0);
    // Pages are touched only when used, so a large buffer costs little RSS.
    free(s->buf[0]);   // set only when called again (unit tests)
    free(s->buf[1]);
    s->used = 0;
    s->active = 0;
    s->buf[0] = calloc(1, cap);
    s->buf[1] = calloc(1, cap);
    if (!s->buf[0] || !s->buf[1]) return "cannot allocate the event buffer";
    s->cap = cap;
  }
  sem_init(&wake, 0, 0);
  return NULL;
}

// try_lock takes the shard's lock within `spins` pauses (0: one attempt);
// it reads before it writes, so waiting threads do not bounce the line.
static inline int try_lock(shard_t *s, int spins) {
  for (int i = 0;; i++) {
    if (!atomic_load_explicit(&s->lock, memory_order_relaxed) &&
        !atomic_exchange_explicit(&s->lock, 1, memory_order_acquire))
      return 1;
    if (i >= spins) return 0;
    arch_pause();
  }
}

// lock is the writer's: it may wait for a callback's copy, yielding.
static inline void lock(shard_t *s) {
  for (int spins = 0; !try_lock(s, 0); spins++) {
    if (spins < 64) arch_pause();
    else sched_yield();
  }
}

static inline void unlock(shard_t *s) { atomic_store_explicit(&s->lock, 0, memory_order_release); }

// claim locks a shard with room for size bytes, for a callback: its own
// shard within RING_SPINS pauses (the holder only copies a record), else
// the first other shard that is free and has room, at one attempt each. It
// never yields nor sleeps: NULL when none (the caller drops and counts).
static shard_t *claim(int shard, size_t size) {
  unsigned first = (unsigned)shard % RING_SHARDS;
  for (unsigned i = 0; i < RING_SHARDS; i++) {
    shard_t *s = &shards[(first + i) % RING_SHARDS];
    if (!try_lock(s, i == 0 ? RING_SPINS : 0)) continue;
    if (s->used + size <= s->cap) return s;
    unlock(s);
  }
  return NULL;
}

int ring_put(int shard, int kind, int64_t ts, uint32_t thread, uint32_t object, uint32_t owner,
             const orca_frame *frames, int nframes, const char *name, int namelen) {
  return ring_put_mode(shard, kind, ts, thread, object, owner, frames, nframes, name, namelen, 0);
}

int ring_put_mode(int shard, int kind, int64_t ts, uint32_t thread, uint32_t object, uint32_t owner,
                  const orca_frame *frames, int nframes, const char *name, int namelen, int mode) {
  size_t fbytes = (size_t)nframes * sizeof(orca_frame);
  size_t size = (sizeof(orca_rec) + fbytes + (size_t)namelen + 7) & ~(size_t)7;
  shard_t *s = claim(shard, size);
  if (!s) {   // full, or every shard busy: the application does not wait
    counter_kind_add(KC_DROPPED, kind, 1);
    ring_wake();
    return 0;
  }
  orca_rec *r = (orca_rec *)(s->buf[s->active] + s->used);
  r->ts = ts;
  r->thread = thread;
  r->object = object;
  r->owner = owner;
  r->size = (uint16_t)size;
  r->nframes = (uint16_t)nframes;
  r->namelen = (uint16_t)namelen;
  r->kind = (uint8_t)kind;
  r->mode = (uint8_t)mode;
  if (fbytes) memcpy(r + 1, frames, fbytes);
  if (namelen) memcpy((char *)(r + 1) + fbytes, name, (size_t)namelen);
  // Wake the writer early, at a quarter, so bursts find room.
  int half = s->used < s->cap / 4 && s->used + size >= s->cap / 4;
  s->used += size;
  unlock(s);
  if (half) ring_wake();
  return 1;
}

const char *ring_take(int i, size_t *len) {
  shard_t *s = &shards[i];
  lock(s);
  char *full = s->buf[s->active];
  *len = s->used;
  s->active ^= 1;
  s->used = 0;
  unlock(s);
  return full;
}

long ring_clear(void) {
  long n = 0;
  for (int i = 0; i < RING_SHARDS; i++) {
    size_t len;
    const char *buf = ring_take(i, &len);
    for (size_t off = 0; off + sizeof(orca_rec) <= len;) {
      const orca_rec *r = (const orca_rec *)(buf + off);
      if (!r->size) break;
      off += r->size;
      n++;
    }
  }
  return n;
}

void ring_wake(void) {
  int v = 0;
  // One pending wake-up is enough; don't let the count grow unbounded.
  if (sem_getvalue(&wake, &v) == 0 && v == 0) sem_post(&wake);
}

void ring_wait(int ms) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
  while (sem_timedwait(&wake, &ts) == -1 && errno == EINTR) {
  }
}
