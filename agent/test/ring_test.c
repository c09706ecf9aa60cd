// ring.c: a callback never waits for a busy shard beyond RING_SPINS pauses:
// it takes another shard, and when every shard is busy or full the event is
// dropped and counted (dropped.KIND). ring.c is included to hold its locks.
#include "../record/ring.c"
#include "check.h"

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
