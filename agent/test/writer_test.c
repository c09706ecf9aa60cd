// writer.c: a batch is written in time order across the ring's shards, lines
// at or after the cutoff of a deferred record are held back for the next
// flush, and the held-back lines beyond their budget are written early and
// counted. writer.c is included to drive its flushes directly; the rest of
// the agent is stubbed below.
#include "../record/writer.c"
#include <stdlib.h>
#include "check.h"

// Stubs: the threads and the JVM are not part of these tests (the deferred
// records are pending.c's own, with no thread registered: pending_test.c).
static char *no_meta(int which, size_t *len) { (void)which; *len = 0; return NULL; }
int64_t pending_flush(int64_t cutoff, int64_t stale_before);   // pending.c, linked by pending_test.c

static void put_ev(int shard, int64_t ts, uint32_t thread) {
  orca_frame fr[2] = {{1, 2}, {3, 4}};
  ring_put(shard, ORCA_EV_OBJECT_NOTIFY, ts, thread, 0xAB, 0, fr, 2, NULL, 0);
}

// file_ts reads the timestamps (ns) and threads of the .orca lines from line `from` on.
static int file_ts(int64_t *ts, uint32_t *th, int cap) {
  char path[4300], line[4096];
  snprintf(path, sizeof path, "%s.orca", prefix);
  FILE *f = fopen(path, "r");
  int n = 0;
  while (f && n < cap && fgets(line, sizeof line, f)) {
    long long s = 0, frac = 0;
    unsigned t = 0;
    char name[64];
    if (sscanf(line, "%lld.%10lld,%63[^,],%8x", &s, &frac, name, &t) == 4) {
      ts[n] = s * 1000000000LL + frac / 10;
      th[n++] = t;
    }
  }
  if (f) fclose(f);
  return n;
}

void test_writer(const char *dir) {
  writer_set_sources(&(writer_sources){.deferred = pending_flush, .meta = no_meta});
  test_name = "writer";
  snprintf(opt.prefix, sizeof opt.prefix, "%s/writer", dir);
  opt.depth = 16;
  opt.flush_ms = 200;
  opt.buffer_mb = 1;
  opt.clobber = 1;
  const char *err = ring_init(1 << 20);
  CHECK(!err, "ring_init: %s", err);
  err = writer_open();
  CHECK(!err, "writer_open: %s", err);
  if (err) return;
  int64_t ts[64];
  uint32_t th[64];

  // One batch over three shards, each in arrival order: out in time order,
  // equal times in arrival order.
  put_ev(0, 5000, 1);
  put_ev(0, 1000, 2);
  put_ev(3, 3000, 3);
  put_ev(3, 2000, 4);
  put_ev(7, 4000, 5);
  put_ev(7, 3000, 6);
  flush_events(INT64_MAX);
  int n = file_ts(ts, th, 64);
  static const int64_t want1[] = {1000, 2000, 3000, 3000, 4000, 5000};
  static const uint32_t thr1[] = {2, 4, 3, 6, 5, 1};
  CHECK(n == 6, "%d lines, want 6", n);
  for (int i = 0; i < n && i < 6; i++)
    CHECK(ts[i] == want1[i] && th[i] == thr1[i], "line %d: %lld ns (thread %u), want %lld (thread %u)", i,
          (long long)ts[i], th[i], (long long)want1[i], thr1[i]);

  // A deferred record at 6500 not written yet: what is at or after the
  // cutoff waits; the record comes at the next flush and goes before them.
  put_ev(1, 7000, 7);
  put_ev(2, 6000, 8);
  put_ev(2, 6500, 9);
  flush_events(6500);
  n = file_ts(ts, th, 64);
  CHECK(n == 7 && ts[6] == 6000, "cutoff 6500: %d lines (last %lld), want 7 (last 6000)", n, (long long)ts[n - 1]);
  put_ev(5, 6400, 10);   // the deferred record, earlier than the cutoff it set
  put_ev(4, 8000, 11);
  flush_events(INT64_MAX);
  n = file_ts(ts, th, 64);
  static const int64_t want2[] = {6000, 6400, 6500, 7000, 8000};
  CHECK(n == 11, "%d lines, want 11", n);
  for (int i = 6; i < n && i < 11; i++)
    CHECK(ts[i] == want2[i - 6], "line %d: %lld ns, want %lld", i, (long long)ts[i], (long long)want2[i - 6]);
  for (int i = 1; i < n; i++) CHECK(ts[i] >= ts[i - 1], "line %d at %lld before line %d at %lld", i, (long long)ts[i], i - 1, (long long)ts[i - 1]);

  // Held back beyond the budget (two records' worth): the earliest of them
  // are written now and counted as written early.
  size_t rec = sizeof(orca_rec) + 2 * sizeof(orca_frame);
  carry_budget = 2 * rec;
  for (int i = 0; i < 5; i++) put_ev(6, 10000 + i, 20 + (uint32_t)i);
  flush_events(9000);
  n = file_ts(ts, th, 64);
  CHECK(n == 14 && counter_get(CNT_WRITTEN_EARLY) == 3, "5 held back, budget 2: %d lines (want 14), written_early=%ld (want 3)", n,
        counter_get(CNT_WRITTEN_EARLY));
  flush_events(INT64_MAX);
  n = file_ts(ts, th, 64);
  CHECK(n == 16 && ts[15] == 10004, "the 2 kept back come at the next flush: %d lines, last %lld", n, (long long)ts[n - 1]);
  CHECK(counter_kind_get(KC_EVENTS, ORCA_EV_OBJECT_NOTIFY) == 16, "written counts %ld notify lines, want 16",
        counter_kind_get(KC_EVENTS, ORCA_EV_OBJECT_NOTIFY));

  // A large batch as the rings hold one: each shard nearly in time order
  // (neighbours swapped now and then, equal times), one shard in no order at
  // all (its insertion sort gives up for qsort). Out: every record, by time,
  // equal times in the order they were put (shard by shard). Threads number
  // the records in that order.
  carry_budget = 1 << 20;
  enum { PER = 300, ALL = 8 * PER };
  static int64_t want_ts[ALL];
  static uint32_t want_th[ALL];
  static int64_t got_ts[16 + ALL];
  static uint32_t got_th[16 + ALL];
  srand(7);
  for (int sh = 0, k = 0; sh < 8; sh++) {
    int64_t t = 20000;
    for (int i = 0; i < PER; i++, k++) {
      int64_t x = sh == 5 ? 20000 + rand() % 3000   // no order
                          : (t += rand() % 4);      // nearly: +0..3 (ties)
      if (sh != 5 && i > 0 && rand() % 10 == 0) {   // swap with the previous
        int64_t y = want_ts[k - 1];
        want_ts[k - 1] = x;
        x = y;
      }
      want_ts[k] = x;
      want_th[k] = 100 + (uint32_t)k;
    }
  }
  for (int sh = 0, k = 0; sh < 8; sh++)
    for (int i = 0; i < PER; i++, k++) put_ev(sh, want_ts[k], want_th[k]);
  flush_events(INT64_MAX);
  // The expected order: a stable insertion sort by time of the put order.
  for (int i = 1; i < ALL; i++) {
    int64_t x = want_ts[i];
    uint32_t y = want_th[i];
    int j = i;
    for (; j > 0 && want_ts[j - 1] > x; j--) {
      want_ts[j] = want_ts[j - 1];
      want_th[j] = want_th[j - 1];
    }
    want_ts[j] = x;
    want_th[j] = y;
  }
  n = file_ts(got_ts, got_th, 16 + ALL);
  CHECK(n == 16 + ALL, "%d lines, want %d", n, 16 + ALL);
  int bad = 0;
  for (int i = 0; i < ALL && 16 + i < n; i++)
    if (got_ts[16 + i] != want_ts[i] || got_th[16 + i] != want_th[i]) {
      if (bad++ < 3)
        CHECK(0, "batch line %d: %lld ns (thread %u), want %lld (thread %u)", i, (long long)got_ts[16 + i], got_th[16 + i],
              (long long)want_ts[i], want_th[i]);
    }
  CHECK(!bad, "%d of %d lines of the large batch out of place", bad, ALL);
}
