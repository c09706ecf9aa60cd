#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
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

// ---- threads' own buffers ----
//
// head: bytes ever written (the thread's; release), tail: bytes ever given
// back (the writer's; release). A record never wraps: one that does not fit
// before the end starts again at 0 after padding (a record of kind 0 when
// the gap holds a header, else a gap shorter than one, which ring_next
// skips). The thread keeps the tail it last read, so it reads the writer's
// line only when its buffer seems full.
typedef struct tbuf {
  _Atomic size_t head;
  char pad0[56];
  _Atomic size_t tail;
  char pad1[56];
  size_t seen_tail;       // the thread's copy of tail
  size_t taken;           // the writer's: head at its last take
  atomic_int exited;      // its thread exited: freed once drained
  struct tbuf *next;      // every buffer (pushed by its thread, unlinked by the writer)
  char buf[];
} tbuf;

#define TB_NONE ((tbuf *)1)   // this thread has none (no room, no memory, or exiting)
static __thread tbuf *tb_self;
static _Atomic(tbuf *) tb_all;
static atomic_int tb_max, tb_live;
static pthread_key_t tb_key;
static pthread_once_t tb_once = PTHREAD_ONCE_INIT;

// The thread's exit: the writer frees its buffer once drained; a record
// put after this (another key's destructor) goes to the shards.
static void tb_exit(void *p) {
  tb_self = TB_NONE;
  if (p) atomic_store_explicit(&((tbuf *)p)->exited, 1, memory_order_release);
}

static void tb_make_key(void) { pthread_key_create(&tb_key, tb_exit); }

void ring_threads(int count) {
  pthread_once(&tb_once, tb_make_key);
  atomic_store(&tb_max, count);
}

// tb_mine returns the calling thread's buffer, made at its first record;
// NULL when it has none.
static tbuf *tb_mine(void) {
  tbuf *t = tb_self;
  if (t) return t == TB_NONE ? NULL : t;
  tb_self = TB_NONE;
  if (atomic_fetch_add(&tb_live, 1) >= atomic_load(&tb_max)) {
    atomic_fetch_sub(&tb_live, 1);
    return NULL;
  }
  // Pages are touched only as they are used.
  t = calloc(1, sizeof *t + RING_THREAD_BYTES);
  if (!t || pthread_setspecific(tb_key, t) != 0) {
    free(t);
    atomic_fetch_sub(&tb_live, 1);
    return NULL;
  }
  t->next = atomic_load(&tb_all);
  while (!atomic_compare_exchange_weak(&tb_all, &t->next, t)) {
  }
  return tb_self = t;
}

// tb_claim returns where a record of size bytes goes in t (*pos: its
// position, for the head once written), NULL when t has no room.
static orca_rec *tb_claim(tbuf *t, size_t size, size_t *pos) {
  size_t head = atomic_load_explicit(&t->head, memory_order_relaxed);
  size_t at = head % RING_THREAD_BYTES, gap = at + size > RING_THREAD_BYTES ? RING_THREAD_BYTES - at : 0;
  if (head + gap + size - t->seen_tail > RING_THREAD_BYTES) {
    t->seen_tail = atomic_load_explicit(&t->tail, memory_order_acquire);
    if (head + gap + size - t->seen_tail > RING_THREAD_BYTES) return NULL;
  }
  if (gap >= sizeof(orca_rec)) {
    orca_rec *pad = (orca_rec *)(t->buf + at);
    pad->size = (uint16_t)gap;   // less than the record's size
    pad->kind = 0;
  }
  *pos = head + gap;
  return (orca_rec *)(t->buf + (head + gap) % RING_THREAD_BYTES);
}

const ring_seg *ring_take_threads(size_t *n) {
  static ring_seg *segs;
  static size_t cap;
  *n = 0;
  for (tbuf *t = atomic_load_explicit(&tb_all, memory_order_acquire); t; t = t->next) {
    if (*n + 2 > cap) {
      size_t c = cap ? 2 * cap : 64;
      ring_seg *s = realloc(segs, c * sizeof *s);
      if (!s) break;   // the rest waits for the next take
      segs = s;
      cap = c;
    }
    size_t tail = atomic_load_explicit(&t->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&t->head, memory_order_acquire);
    t->taken = head;
    if (head == tail) continue;
    size_t a = tail % RING_THREAD_BYTES, len = head - tail;
    if (a + len > RING_THREAD_BYTES) {
      segs[(*n)++] = (ring_seg){t->buf + a, RING_THREAD_BYTES - a};
      segs[(*n)++] = (ring_seg){t->buf, len - (RING_THREAD_BYTES - a)};
    } else {
      segs[(*n)++] = (ring_seg){t->buf + a, len};
    }
  }
  return segs;
}

void ring_release_threads(void) {
  tbuf *prev = NULL;
  for (tbuf *t = atomic_load_explicit(&tb_all, memory_order_acquire); t;) {
    // Exited before this read of head: the last take had it all once equal.
    int gone = atomic_load_explicit(&t->exited, memory_order_acquire);
    size_t head = atomic_load_explicit(&t->head, memory_order_acquire);
    atomic_store_explicit(&t->tail, t->taken, memory_order_release);
    tbuf *next = t->next;
    if (!gone || head != t->taken) {
      prev = t;
      t = next;
      continue;
    }
    // Only the writer unlinks; threads push at the head of the list.
    tbuf *p = t;
    if (prev) prev->next = next;
    else if (!atomic_compare_exchange_strong(&tb_all, &p, next)) {   // pushed to meanwhile
      while (p->next != t) p = p->next;
      p->next = next;
    }
    free(t);
    atomic_fetch_sub(&tb_live, 1);
    t = next;
  }
}

int ring_put(int shard, int kind, int64_t ts, uint32_t thread, uint32_t object, uint32_t owner,
             const orca_frame *frames, int nframes, const char *name, int namelen) {
  return ring_put_mode(shard, kind, ts, thread, object, owner, frames, nframes, name, namelen, 0);
}

int ring_put_mode(int shard, int kind, int64_t ts, uint32_t thread, uint32_t object, uint32_t owner,
                  const orca_frame *frames, int nframes, const char *name, int namelen, int mode) {
  size_t fbytes = (size_t)nframes * sizeof(orca_frame);
  size_t size = (sizeof(orca_rec) + fbytes + (size_t)namelen + 7) & ~(size_t)7;
  tbuf *t = tb_mine();
  size_t pos = 0;
  orca_rec *r = t ? tb_claim(t, size, &pos) : NULL;
  shard_t *s = NULL;
  if (!r) {
    s = claim(shard, size);
    if (!s) {   // full, or every shard busy: the application does not wait
      counter_kind_add(KC_DROPPED, kind, 1);
      ring_wake();
      return 0;
    }
    r = (orca_rec *)(s->buf[s->active] + s->used);
  }
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
  if (!s) {
    size_t head = atomic_load_explicit(&t->head, memory_order_relaxed);
    atomic_store_explicit(&t->head, pos + size, memory_order_release);
    // Wake the writer early, at half, so bursts find room (sooner, the
    // flushes come so often that the records held back for those in
    // flight, IN_FLIGHT_NS, are a large part of each).
    // The tail it knows is read again first: it may be old (read when the
    // buffer last seemed full), and each thread's wake-ups would then add up.
    size_t q = RING_THREAD_BYTES / 2;
    if ((head - t->seen_tail) < q && (pos + size - t->seen_tail) >= q) {
      t->seen_tail = atomic_load_explicit(&t->tail, memory_order_acquire);
      if (pos + size - t->seen_tail >= q) ring_wake();
    }
    return 1;
  }
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
    size_t len, off = 0;
    const char *buf = ring_take(i, &len);
    while (ring_next(buf, len, &off)) n++;
  }
  // The threads' buffers too (no writer runs now: this is its part).
  size_t nseg = 0;
  const ring_seg *segs = ring_take_threads(&nseg);
  for (size_t i = 0; i < nseg; i++)
    for (size_t off = 0; ring_next(segs[i].buf, segs[i].len, &off);) n++;
  ring_release_threads();
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
