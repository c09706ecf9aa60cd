// writer.c: a batch is written in time order across the ring's shards, lines
// at or after the cutoff of a deferred record are held back for the next
// flush, and the held-back lines beyond their budget are written early and
// counted. writer.c and its file sink, sink.c, are included to drive the
// flushes directly; the rest of the agent is stubbed below.
#include "../record/writer.c"
#include "../record/sink.c"
#include "record/tkeys.h"
#include <stdlib.h>
#include <sys/stat.h>
#include "check.h"
#include "compact_dec.h"

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
  // Every line so far came in time order (the one written early came
  // before its flush's cutoff, not behind a written line).
  CHECK(counter_get(CNT_WRITTEN_LATE) == 0, "written_late=%ld after lines in order, want 0", counter_get(CNT_WRITTEN_LATE));
  // A line put after the writer wrote later ones (its thread kept from
  // its put past the hold-back): written, behind them, and counted.
  put_ev(2, 15000, 999);
  flush_events(INT64_MAX);
  static int64_t late_ts[17 + ALL];
  static uint32_t late_th[17 + ALL];
  n = file_ts(late_ts, late_th, 17 + ALL);
  CHECK(n == 17 + ALL && late_ts[n - 1] == 15000 && counter_get(CNT_WRITTEN_LATE) == 1,
        "a line behind written ones: %d lines (want %d), last at %lld, written_late=%ld (want 1)", n, 17 + ALL,
        (long long)late_ts[n - 1], counter_get(CNT_WRITTEN_LATE));
}

// ---- the two encodings ----

static size_t read_file(const char *ext, char *buf, size_t cap) {
  char path[4300];
  snprintf(path, sizeof path, "%s%s", prefix, ext);
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(buf, 1, cap, f) : 0;
  if (f) fclose(f);
  return n;
}

// reopen starts a recording NAME in dir as writer_open does at load.
static const char *reopen(const char *dir, const char *name, int compact) {
  close(fd_orca);
  close(fd_methods);
  close(fd_classes);
  compact_free(&enc);
  off_orca = 0;
  first_ts = last_ts = 0;
  opt.compact = compact;
  snprintf(opt.prefix, sizeof opt.prefix, "%s/%s", dir, name);
  return writer_open();
}

// Every field of every kind the hooks fill: a quoted name, a timeout and
// none, how, modes, a class, owners, native frames, no frames.
static const test_ev kind_evs[] = {
    {ORCA_EV_THREAD_STARTED, 1000000000, 0x0A, 0, 0, 0, 0, {{0}}, "main, \"x\" \xC3\xA9", 0},
    {ORCA_EV_OBJECT_WAIT, 1500000000, 0x0A, 0xAB, 0, 0, 2, {{1, 2}, {3, 0xFFFFFFFF}}, "", 0},
    {ORCA_EV_OBJECT_WAIT_TIMEOUT, 1500000000, 0x0A, 0, 0, 0, 0, {{0}}, "1000000", 0},
    {ORCA_EV_THREAD_PARK, 2000000000, 0x0B, 0xCD, 0x0A, ORCA_MODE_EXCLUSIVE, 1, {{5, 6}}, "1500", 0},
    {ORCA_EV_THREAD_PARK, 2000001000, 0x0B, 0xCD, 0, 0, 1, {{5, 6}}, "", 0},
    {ORCA_EV_THREAD_PARK, 2000001001, 0x0D, 0xCD, 0, ORCA_MODE_SHARED, 1, {{5, 6}}, "0", 0},
    {ORCA_EV_THREAD_UNPARKED, 2000002000, 0x0B, 0xCD, 0, 0, 0, {{0}}, "timeout", 0},
    {ORCA_EV_OBJECT_CLASS, 2000002000, 0x0B, 0xCD, 0, 0, 0, {{0}}, "Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;", 0},
    {ORCA_EV_MONITOR_CONTENDED_ENTER, 3000000000, 0x0C, 0xAB, 0x0A, 0, 2, {{1, 2}, {3, 0xFFFFFFFF}}, "", 0},
    {ORCA_EV_THREAD_UNPARK, 3000000001, 0x0C, 0x0B, 0, 0, 0, {{0}}, "", 0},
    {ORCA_EV_THREAD_SLEEP, 3500000000, 0x0A, 0, 0, 0, 1, {{0x12345678, 0}}, "", 0},
    {ORCA_EV_THREAD_C_P_U, 3600000000, 0x0C, 0, 0, 0, 0, {{0}}, "18446744073709551615,250000", 0},
    {ORCA_EV_THREAD_C_P_U, 3700000000, 0x0C, 0, 0, 0, 0, {{0}}, "0,0", 0},
    {ORCA_EV_THREAD_ENDED, 4000000000, 0x0C, 0, 0, 0, 0, {{0}}, "", 0},
};
enum { NKIND = sizeof kind_evs / sizeof kind_evs[0] };

static const char seed_golden[] =
    "1.0000000000,ThreadStarted,0000000A,\"main, \"\"x\"\" \xC3\xA9\"\n"
    "1.5000000000,ObjectWait,0000000A,000000AB,2;00000001;00000002;00000003;FFFFFFFF\n"
    "1.5000000000,ObjectWaitTimeout,0000000A,1000000\n"
    "2.0000000000,ThreadPark,0000000B,000000CD,0000000A,1500,exclusive,1;00000005;00000006\n"
    "2.0000010000,ThreadPark,0000000B,000000CD,00000000,,,1;00000005;00000006\n"
    "2.0000010010,ThreadPark,0000000D,000000CD,00000000,0,shared,1;00000005;00000006\n"
    "2.0000020000,ThreadUnparked,0000000B,000000CD,timeout,0\n"
    "2.0000020000,ObjectClass,0000000B,000000CD,Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;\n"
    "3.0000000000,MonitorContendedEnter,0000000C,000000AB,0000000A,2;00000001;00000002;00000003;FFFFFFFF\n"
    "3.0000000010,ThreadUnpark,0000000C,0000000B,0\n"
    "3.5000000000,ThreadSleep,0000000A,1;12345678;00000000\n"
    "3.6000000000,ThreadCPU,0000000C,18446744073709551615,250000\n"
    "3.7000000000,ThreadCPU,0000000C,0,0\n"
    "4.0000000000,ThreadEnded,0000000C\n";

// put_kinds puts ev (shard by index, so the batch is sorted back).
static void put_test_ev(const test_ev *e, int shard, int64_t shift) {
  ring_put_mode(shard, e->kind, e->ts + shift, e->thread, e->object, e->owner, e->fr, e->nf, e->text, (int)strlen(e->text),
                e->mode);
}

void test_writer_formats(const char *dir) {
  test_name = "writer formats";
  static char buf[1 << 20];
  static test_ev got[8 * NKIND + 1], want[4 * NKIND];
  dec_stats st;

  // Text (the seed's encoding): these lines, byte for byte.
  const char *err = reopen(dir, "seed", 0);
  CHECK(!err, "writer_open: %s", err);
  if (err) return;
  for (int i = NKIND; i-- > 0;) put_test_ev(&kind_evs[i], i % 3, 0);
  flush_events(INT64_MAX);
  size_t n = read_file(".orca", buf, sizeof buf - 1);
  buf[n] = 0;
  CHECK(n == sizeof seed_golden - 1 && !memcmp(buf, seed_golden, n), "seed .orca differs:\n%s\nwant:\n%s", buf, seed_golden);

  // A thread whose key is an alias (the second of its identity hash:
  // record/tkeys.h) is written as its hash, as the manual says, as the
  // event's thread, a target or an owner; an object named by its monitor's
  // address (8xxxxxxx, attached.h) stays as it is.
  tkeys_reset();
  uint32_t h = 0x5CDA6869, first = tkey_register(h, 6892, NULL), second = tkey_register(h, 9025, NULL);
  CHECK(second == (TKEY_ALIAS | 1), "the second thread of a hash: %08X", second);
  err = reopen(dir, "seed-alias", 0);
  CHECK(!err, "writer_open: %s", err);
  if (err) return;
  ring_put(0, ORCA_EV_THREAD_START, 5000000000, first, second, 0, NULL, 0, NULL, 0);
  ring_put(0, ORCA_EV_THREAD_STARTED, 5000000010, second, 0, 0, NULL, 0, "v", 1);
  ring_put(0, ORCA_EV_MONITOR_CONTENDED_ENTER, 5000000020, first, 0x8000ABCD, second, NULL, 0, NULL, 0);
  flush_events(INT64_MAX);
  n = read_file(".orca", buf, sizeof buf - 1);
  buf[n] = 0;
  static const char alias_golden[] = "5.0000000000,ThreadStart,5CDA6869,5CDA6869,0\n"
                                     "5.0000000100,ThreadStarted,5CDA6869,v\n"
                                     "5.0000000200,MonitorContendedEnter,5CDA6869,8000ABCD,5CDA6869,0\n";
  CHECK(!strcmp(buf, alias_golden), "seed .orca with an alias differs:\n%s\nwant:\n%s", buf, alias_golden);
  tkeys_reset();

  // Compact: the same events decode back, over chunks of ~100 bytes
  // (each chunk defines its threads and stacks again), over flushes that
  // hold lines back for a deferred record (carry).
  long before = counter_kind_get(KC_EVENTS, ORCA_EV_THREAD_PARK);
  err = reopen(dir, "compact", 1);
  CHECK(!err, "writer_open: %s", err);
  if (err) return;
  n = read_file(".orca", buf, sizeof buf);
  CHECK(n == COMPACT_HEADER_LEN && !memcmp(buf, COMPACT_HEADER, n), "a new compact .orca: %zu bytes, want the header line", n);
  enc.chunk_max = 100;
  int nw = 0;
  for (int round = 0; round < 4; round++) {
    int64_t shift = (int64_t)round * 4000000000LL;
    // Shards 0-2 or 3-5: lines of equal times keep their order (by shard).
    for (int i = NKIND; i-- > 0;) put_test_ev(&kind_evs[i], i % 3 + 3 * (round % 2), shift);
    for (int i = 0; i < NKIND; i++) {
      want[nw] = kind_evs[i];
      want[nw++].ts += shift;
    }
    // Rounds 0 and 2: the lines from 3 s on wait for the next flush.
    flush_events(round % 2 ? INT64_MAX : shift + 3000000000LL);
    // A flush writes whole records: what is written decodes, without error.
    n = read_file(".orca", buf, sizeof buf);
    int m = without_carried(got, compact_decode(buf, n, got, 8 * NKIND + 1, &st));
    int held = round % 2 ? 0 : 6;
    CHECK(!st.err[0] && m == nw - held, "round %d: %d events decoded (want %d): %s", round, m, nw - held, st.err);
  }
  int m = without_carried(got, compact_decode(buf, n, got, 8 * NKIND + 1, &st));
  CHECK(!st.err[0], "compact .orca malformed: %s", st.err);
  CHECK(m == nw, "%d events decoded, want %d", m, nw);
  int bad = 0;
  for (int i = 0; i < nw && i < m; i++)
    if (!test_ev_equal(&got[i], &want[i]) && bad++ < 3)
      CHECK(0, "event %d: kind %d at %lld thread %08X object %08X owner %08X mode %d nf %d text '%s'; want kind %d at %lld", i,
            got[i].kind, (long long)got[i].ts, got[i].thread, got[i].object, got[i].owner, got[i].mode, got[i].nf, got[i].text,
            want[i].kind, (long long)want[i].ts);
  CHECK(!bad, "%d of %d events differ", bad, nw);
  // A chunk holds at least 4 times its state records (threads started and
  // not ended, open intervals): chunks of more than 100 bytes.
  CHECK(st.chunks > 2 && st.stack_defs > 3 && st.thread_defs > 4 && st.carried > 0,
        "%d chunks, %d stack and %d thread definitions, %d carried: want more than 2, 3, 4, 0", st.chunks, st.stack_defs,
        st.thread_defs, st.carried);
  CHECK(counter_kind_get(KC_EVENTS, ORCA_EV_THREAD_PARK) - before == 12, "events.ThreadPark counted %ld, want 12",
        counter_kind_get(KC_EVENTS, ORCA_EV_THREAD_PARK) - before);

  // .info says so.
  sink_info(0, enc.unrestated);
  n = read_file(".info", buf, sizeof buf - 1);
  buf[n] = 0;
  CHECK(strstr(buf, "\nencoding=compact\n") && strstr(buf, ",format=compact\n"), ".info lacks encoding=compact:\n%s", buf);
  err = reopen(dir, "seed2", 0);
  CHECK(!err, "writer_open: %s", err);
  sink_info(0, enc.unrestated);
  n = read_file(".info", buf, sizeof buf - 1);
  buf[n] = 0;
  CHECK(!strstr(buf, "encoding="), "a text recording's .info says an encoding:\n%s", buf);
}

// ---- names planted by another user (issue 30) ----
//
// In a shared directory (/tmp) another user may put a symbolic link at a
// name the recording will take, pointing at a file of the JVM's user: the
// writer never writes through it. The file pointed at holds "precious".

static int holds(const char *path, const char *want) {
  char buf[256];
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = 0;
  return f && !strcmp(buf, want);
}

static int is_link(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

// plant puts a link to victim at dir/name, what was there removed.
static void plant(const char *victim, const char *dir, const char *name) {
  char p[4400];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  unlink(p);
  CHECK(symlink(victim, p) == 0, "symlink %s: %s", p, strerror(errno));
}

// fresh closes the last recording's files and removes dir/NAME.* as the
// tests name them.
static void fresh(const char *dir, const char *name) {
  static const char *const exts[] = {".orca", ".methods", ".classtable", ".info", ".info.tmp", ".orca.000001", ".orca.000002",
                                     "-2.orca", "-2.methods", "-2.classtable", "-2.info"};
  if (fd_ev >= 0 && fd_ev != fd_orca) close(fd_ev);
  close(fd_orca);
  close(fd_methods);
  close(fd_classes);
  fd_ev = fd_orca = fd_methods = fd_classes = -1;
  compact_free(&enc);
  for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
    char p[4400];
    snprintf(p, sizeof p, "%s/%s%s", dir, name, exts[i]);
    unlink(p);
  }
  snprintf(opt.prefix, sizeof opt.prefix, "%s/%s", dir, name);
}

void test_writer_planted(const char *dir) {
  test_name = "writer planted names";
  char victim[4300], p[4400];
  snprintf(victim, sizeof victim, "%s/victim", dir);
  unlink(victim);
  int vfd = open(victim, O_WRONLY | O_CREAT | O_EXCL, 0600);
  CHECK(vfd >= 0 && write(vfd, "precious", 8) == 8, "creating %s: %s", victim, strerror(errno));
  if (vfd >= 0) close(vfd);
  opt.compact = 1;
  opt.clobber = 1;
  opt.max_size = 1 << 20;

  // A chunk file's name planted after the recording began: the recording
  // is cut there (said on stderr), the link is left as it is.
  fresh(dir, "planted");
  const char *err = writer_open();
  CHECK(!err, "writer_open: %s", err);
  if (err) return;
  CHECK(next_file(1, enc.chunk_max) == 1 && !cut, "the first chunk file was not created");
  plant(victim, dir, "planted.orca.000002");
  CHECK(next_file(2, enc.chunk_max) == 0 && cut, "a chunk file planted as a link: next_file wrote on (cut %d)", cut);
  CHECK(holds(victim, "precious"), "a chunk file planted as a link to %s was written through", victim);
  snprintf(p, sizeof p, "%s/planted.orca.000002", dir);
  CHECK(is_link(p), "the planted link %s was removed or replaced", p);
  snprintf(p, sizeof p, "%s/planted.orca.000001", dir);
  struct stat st;
  CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0600, "%s: mode %o, want 600", p, (unsigned)(st.st_mode & 0777));

  // .info's temporary file under the name it had (PREFIX.info.tmp), and
  // .info itself, planted: .info is written, neither link through.
  plant(victim, dir, "planted.info.tmp");
  store_info("x=1\n", 4);
  CHECK(holds(victim, "precious"), ".info.tmp planted as a link to %s was written through", victim);
  snprintf(p, sizeof p, "%s/planted.info", dir);
  CHECK(holds(p, "x=1\n") && lstat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
        "%s is not the .info written, a regular file of mode 600", p);
  plant(victim, dir, "planted.info");
  store_info("x=2\n", 4);
  CHECK(holds(victim, "precious") && holds(p, "x=2\n") && !is_link(p), ".info planted as a link: written through, or not replaced");
  snprintf(p, sizeof p, "%s/planted.info.tmp", dir);
  CHECK(is_link(p), "the planted link %s was removed or replaced", p);

  // A chunk file's name planted before the recording begins: refused at
  // once, the link left; so are .methods and .info.
  static const char *const refused[] = {".orca.000001", ".methods", ".info"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    fresh(dir, "planted_start");
    snprintf(p, sizeof p, "planted_start%s", refused[i]);
    plant(victim, dir, p);
    err = writer_open();
    CHECK(err && strstr(err, "symbolic link"), "%s planted as a link: writer_open says %s", refused[i], err ? err : "nothing");
    CHECK(holds(victim, "precious"), "%s planted as a link to %s was written through", refused[i], victim);
    snprintf(p, sizeof p, "%s/planted_start%s", dir, refused[i]);
    CHECK(is_link(p), "the planted link %s was removed or replaced", p);
  }

  // PREFIX.orca planted, with clobber: this recording goes to PREFIX-2.
  fresh(dir, "planted_orca");
  plant(victim, dir, "planted_orca.orca");
  err = writer_open();
  snprintf(p, sizeof p, "%s/planted_orca-2", dir);
  CHECK(!err && !strcmp(writer_prefix(), p), "PREFIX.orca planted as a link: writer_open %s, prefix %s (want %s)", err ? err : "ok",
        writer_prefix(), p);
  CHECK(holds(victim, "precious"), "PREFIX.orca planted as a link to %s was written through", victim);
  // An earlier recording's own files are replaced, with mode 600.
  fresh(dir, "planted_own");
  snprintf(p, sizeof p, "%s/planted_own.methods", dir);
  int ofd = open(p, O_WRONLY | O_CREAT, 0644);
  CHECK(ofd >= 0 && write(ofd, "old\n", 4) == 4, "creating %s", p);
  if (ofd >= 0) close(ofd);
  err = writer_open();
  CHECK(!err && stat(p, &st) == 0 && st.st_size == 0 && (st.st_mode & 0777) == 0600,
        "an earlier recording's .methods: writer_open %s, %lld bytes, mode %o (want ok, 0, 600)", err ? err : "ok",
        (long long)st.st_size, (unsigned)(st.st_mode & 0777));
  fresh(dir, "planted_own");
  opt.max_size = 0;
  opt.compact = 0;
}
