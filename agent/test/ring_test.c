// ring.c: a callback never waits for a busy shard beyond RING_SPINS pauses:
// it takes another shard, and when every shard is busy or full the event is
// dropped and counted (dropped.KIND). ring.c is included to hold its locks.
#include "../record/ring.c"
#include "check.h"
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int put(int shard, int kind) {
  orca_frame fr[4] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
  return ring_put(shard, kind, 1000, 1, 2, 3, fr, 4, NULL, 0);
}

static size_t used(int i) {
  size_t len;
  ring_take(i, &len);
  return len;
}

void test_ring(void) {
  test_name = "ring";
  counters_reset();
  const char *err = ring_init(RING_SHARDS * 65536);
  CHECK(!err, "ring_init: %s", err);
  if (err) return;
  for (int i = 0; i < RING_SHARDS; i++) used(i);

  // Its own shard free: the record goes there.
  CHECK(put(3, ORCA_EV_OBJECT_NOTIFY) == 1 && used(3) > 0, "a free shard did not take the record");

  // Its own shard busy (a holder descheduled): the next one takes it.
  atomic_store(&shards[3].lock, 1);
  CHECK(put(3, ORCA_EV_OBJECT_NOTIFY) == 1, "busy shard: record not taken");
  CHECK(used(4) > 0, "busy shard 3: the record is not in shard 4");
  CHECK(counter_kind_get(KC_DROPPED, ORCA_EV_OBJECT_NOTIFY) == 0, "busy shard: counted a drop");

  // Every shard busy: dropped and counted, without waiting for any.
  for (int i = 0; i < RING_SHARDS; i++) atomic_store(&shards[i].lock, 1);
  CHECK(put(3, ORCA_EV_OBJECT_NOTIFY) == 0, "every shard busy: the record was taken");
  CHECK(counter_kind_get(KC_DROPPED, ORCA_EV_OBJECT_NOTIFY) == 1, "every shard busy: dropped.ObjectNotify %ld, want 1",
        counter_kind_get(KC_DROPPED, ORCA_EV_OBJECT_NOTIFY));
  for (int i = 0; i < RING_SHARDS; i++) atomic_store(&shards[i].lock, 0);

  // Its own shard full: another takes it; every shard full: dropped and counted.
  long taken = 0, dropped = 0;
  for (int i = 0; i < 100000 && !dropped; i++) {
    if (put(0, ORCA_EV_THREAD_SLEEP)) taken++;
    else dropped++;
  }
  size_t rec = (sizeof(orca_rec) + 4 * sizeof(orca_frame) + 7) & ~(size_t)7;
  long want = RING_SHARDS * (long)(65536 / rec);
  CHECK(taken == want, "full shards: %ld records taken, want %ld (every shard filled)", taken, want);
  CHECK(dropped == 1 && counter_kind_get(KC_DROPPED, ORCA_EV_THREAD_SLEEP) == 1, "full: dropped.ThreadSleep %ld",
        counter_kind_get(KC_DROPPED, ORCA_EV_THREAD_SLEEP));
  for (int i = 0; i < RING_SHARDS; i++) CHECK(!atomic_load(&shards[i].lock), "shard %d left locked", i);
  for (int i = 0; i < RING_SHARDS; i++) used(i);
  for (int i = 0; i < RING_SHARDS; i++) used(i);
}

// Threads' own buffers: one thread puts records of every size while this
// one takes and gives back the parts (as the writer), so the buffer wraps
// many times: every record is read once, in order, from the thread's buffer
// or (when it was full) a shard, or counted as dropped; once the thread
// exited and its buffer is drained, the buffer is freed.
enum { TB_RECS = 200000 };

// tb_producer puts TB_RECS records (~190 bytes each: the buffer wraps ~18
// times); when arg is set it waits while its buffer is half full, so that
// none goes elsewhere however slowly this test's taker runs.
static void *tb_producer(void *arg) {
  static orca_frame fr[32];
  static const char name[64] = "0123456789012345678901234567890123456789012345678901234567890123";
  for (int i = 1; i <= TB_RECS; i++) {
    while (arg && tb_self && tb_self != TB_NONE &&
           atomic_load(&tb_self->head) - atomic_load(&tb_self->tail) > RING_THREAD_BYTES / 2)
      usleep(100);
    ring_put(i % RING_SHARDS, ORCA_EV_THREAD_SLEEP, i, 7, (uint32_t)i, 0, fr, i % 32, name, i % 61);
  }
  return NULL;
}

static int tb_check(const orca_rec *r, int64_t *last, int *bad) {
  const orca_frame *fr = (const orca_frame *)(r + 1);
  (void)fr;
  if (r->kind != ORCA_EV_THREAD_SLEEP || r->thread != 7 || r->object != (uint32_t)r->ts || r->nframes != r->ts % 32 ||
      r->namelen != r->ts % 61)
    (*bad)++;
  if (r->ts <= *last) (*bad)++;
  *last = r->ts;
  return 1;
}

static void drain(char *seen, long *got, int *bad, int64_t *last_tb) {
  size_t n;
  const ring_seg *segs = ring_take_threads(&n);
  for (size_t i = 0; i < n; i++) {
    size_t off = 0;
    for (const orca_rec *r; (r = ring_next(segs[i].buf, segs[i].len, &off));) {
      tb_check(r, last_tb, bad);
      if (r->ts >= 1 && r->ts <= TB_RECS) seen[r->ts]++;
      (*got)++;
    }
  }
  ring_release_threads();
  for (int i = 0; i < RING_SHARDS; i++) {
    size_t len, off = 0;
    const char *buf = ring_take(i, &len);
    int64_t last = 0;
    for (const orca_rec *r; (r = ring_next(buf, len, &off));) {
      tb_check(r, &last, bad);
      if (r->ts >= 1 && r->ts <= TB_RECS) seen[r->ts]++;
      (*got)++;
    }
  }
}

void test_ring_threads(void) {
  test_name = "ring threads";
  CHECK(!ring_init(RING_SHARDS * 65536), "ring_init");
  for (int i = 0; i < RING_SHARDS; i++) used(i);
  ring_threads(1);
  // Taken as fast as they come (the buffer wraps ~40 times), then only
  // after the thread is done (its buffer, then the shards fill).
  for (int slow = 0; slow < 2; slow++) {
    counters_reset();
    char *seen = calloc(TB_RECS + 1, 1);
    long got = 0;
    int bad = 0;
    int64_t last_tb = 0;
    pthread_t t;
    pthread_create(&t, NULL, tb_producer, slow ? NULL : (void *)1);
    if (slow) pthread_join(t, NULL);
    else
      while (pthread_tryjoin_np(t, NULL) != 0) drain(seen, &got, &bad, &last_tb);
    for (int i = 0; i < 3; i++) drain(seen, &got, &bad, &last_tb);
    long dropped = counter_kind_get(KC_DROPPED, ORCA_EV_THREAD_SLEEP), twice = 0, missing = 0;
    for (int i = 1; i <= TB_RECS; i++) twice += seen[i] > 1, missing += !seen[i];
    CHECK(bad == 0, "slow %d: %d records wrong or out of their buffer's order", slow, bad);
    CHECK(twice == 0, "slow %d: %ld records read twice", slow, twice);
    CHECK(missing == dropped && got + dropped == TB_RECS, "slow %d: %ld read + %ld dropped, %ld missing, want %d", slow,
          got, dropped, missing, TB_RECS);
    CHECK(slow ? dropped > 0 : dropped == 0, "slow %d: %ld read, %ld dropped", slow, got, dropped);
    CHECK(atomic_load(&tb_live) == 0 && !atomic_load(&tb_all), "slow %d: the exited thread's buffer is not freed (%d live)",
          slow, atomic_load(&tb_live));
    if (getenv("ORCA_TEST_VERBOSE")) printf("ring threads, slow %d: %ld read, %ld dropped\n", slow, got, dropped);
    free(seen);
  }
  ring_threads(0);
}
