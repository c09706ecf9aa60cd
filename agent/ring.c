#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "arch.h"
#include "ring.h"

typedef struct {
  atomic_flag lock;
  char *buf[2];        // active and spare
  int active;
  size_t used, cap;
  // Counted per shard under its lock: a global atomic counter would bounce
  // a cache line between cores on every event, inside callbacks that run
  // while the thread owns a monitor.
  long events[32], dropped[32];
  char pad[64];        // keep shards on separate cache lines
} shard_t;

static shard_t shards[RING_SHARDS];
static sem_t wake;

long ring_count(int kind, int dropped) {
  long n = 0;
  for (int i = 0; i < RING_SHARDS; i++)
    n += __atomic_load_n(dropped ? &shards[i].dropped[kind] : &shards[i].events[kind], __ATOMIC_RELAXED);
  return n;
}

const char *ring_init(size_t total) {
  size_t cap = total / RING_SHARDS;
  if (cap < 65536) cap = 65536;
  for (int i = 0; i < RING_SHARDS; i++) {
    shard_t *s = &shards[i];
    atomic_flag_clear(&s->lock);
    // Pages are touched only when used, so a large buffer costs little RSS.
    s->buf[0] = calloc(1, cap);
    s->buf[1] = calloc(1, cap);
    if (!s->buf[0] || !s->buf[1]) return "cannot allocate the event buffer";
    s->cap = cap;
  }
  sem_init(&wake, 0, 0);
  return NULL;
}

static inline void lock(shard_t *s) {
  for (int spins = 0; atomic_flag_test_and_set_explicit(&s->lock, memory_order_acquire); spins++) {
    // The holder only copies a record; if it was descheduled, let it run.
    if (spins < 64) arch_pause();
    else sched_yield();
  }
}

static inline void unlock(shard_t *s) { atomic_flag_clear_explicit(&s->lock, memory_order_release); }

int ring_put(int shard, int kind, int64_t ts, uint32_t thread, uint32_t object, uint32_t owner,
             const orca_frame *frames, int nframes, const char *name, int namelen) {
  size_t fbytes = (size_t)nframes * sizeof(orca_frame);
  size_t size = (sizeof(orca_rec) + fbytes + (size_t)namelen + 7) & ~(size_t)7;
  shard_t *s = &shards[(unsigned)shard % RING_SHARDS];
  int half = 0;
  lock(s);
  if (s->used + size > s->cap) {
    __atomic_store_n(&s->dropped[kind], s->dropped[kind] + 1, __ATOMIC_RELAXED);
    unlock(s);
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
  r->pad = 0;
  if (fbytes) memcpy(r + 1, frames, fbytes);
  if (namelen) memcpy((char *)(r + 1) + fbytes, name, (size_t)namelen);
  // Wake the writer early, at a quarter, so bursts find room.
  half = s->used < s->cap / 4 && s->used + size >= s->cap / 4;
  s->used += size;
  __atomic_store_n(&s->events[kind], s->events[kind] + 1, __ATOMIC_RELAXED);
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
