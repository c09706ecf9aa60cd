#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/clock.h"
#include "core/counters.h"
#include "core/fmt.h"
#include "core/orca.h"
#include "record/compact.h"
#include "record/ring.h"
#include "record/sink.h"
#include "record/text.h"
#include "record/writer.h"

static pthread_t thread;
static atomic_int stopping;

// Events taken from the rings but not written (not formatted by the end of
// the exit budget, or after a failed write) count as dropped of their kind
// (counters.h, KC_DROPPED), not as events; why in one of these counters.
enum { LOST_NONE = -1, LOST_AT_EXIT = CNT_DROPPED_AT_EXIT, LOST_AFTER_CUT = CNT_DROPPED_AFTER_CUT };
// ORCA_VERIFY_COMPACT=1 (a test aid): with format=compact, every event
// written is also written as the seed's text line to PREFIX.verify, so a
// test compares the two encodings of one run event for event.
static int fd_verify = -1;
static size_t carry_budget;
// format=compact: the encoder's tables (record/compact.h).
static compact_enc enc;
// ORCA_TIME_WRITER=1 (a measurement aid): at exit, the writer thread's CPU,
// the part of it in flush_events (take, sort, encode, write; the methods'
// naming apart) and the bytes of .orca an event.
static int time_writer;
static int64_t cpu_flush, cpu_thread, cpu_tcpu;   // cpu_tcpu: in tcpu_poll
static long flushes, carried;   // flushes with records, records carried to the next (shown with time_writer)

static int64_t thread_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// put writes n bytes at fd's offset and returns how many it wrote: n, or
// Lines later than the cutoff wait for the next flush in carry, so a
// deferred record (pending.c) still finds its place in time order.
static char *carry[2];
static size_t carry_len[2], carry_cap[2];
static int carry_cur;
// Of each carry: its records not samples, and its earliest sample's time
// (INT64_MAX: none); samples_since: when the writer last drained the
// samples' slots (flush_batch: the samples still in them are later).
static size_t carry_events[2];
static int64_t carry_first[2], samples_since;
// written_max: the latest time of an event line written (samples and
// ThreadCPU lines apart: docs/format.md lets them come out of order). A
// line of an earlier time written in a later flush was put into its buffer
// after the writer had written past it (its time taken, then its thread
// kept from its put for longer than IN_FLIGHT_NS): counted written_late,
// as the file is then out of order there (an unpark after the park it
// ended, as ActiveMQ's on 17 at load 14 before its record was put first).
static int64_t written_max;

static writer_sources src;

void writer_set_sources(const writer_sources *s) { src = *s; }

const char *writer_open(void) {
  // From the start: a JVM may make more than one recording (an attach
  // after an earlier one); the last one's files are closed.
  fd_verify = -1;
  cpu_flush = cpu_thread = cpu_tcpu = 0;
  carry_len[0] = carry_len[1] = 0;
  carry_events[0] = carry_events[1] = 0;
  carry_first[0] = carry_first[1] = INT64_MAX;
  samples_since = clock_now();
  carry_cur = 0;
  written_max = INT64_MIN;
  memset(&enc, 0, sizeof enc);
  atomic_store(&stopping, 0);
  const char *err = sink_open(opt.compact ? COMPACT_HEADER : NULL, opt.compact ? COMPACT_HEADER_LEN : 0);
  if (err) return err;
  // Lines held back for a deferred record: at most a quarter of the buffer
  // in each of the two carry buffers (docs/agent.md, "Memory").
  carry_budget = ((size_t)opt.buffer_mb << 20) / 4;
  if (carry_budget < (1 << 20)) carry_budget = 1 << 20;
  if (opt.compact) {
    const char *e = compact_init(&enc);
    if (e) return e;
    enc.forget = src.forget_class;
    sink_chunk_bounds(&enc.chunk_max, &enc.span_max);
    // A snapshot (orca threads) is one chunk: read only once it is whole,
    // it gains nothing from more, and each new chunk would restate every
    // thread alive (100 000 parked virtual threads: half its bytes), from
    // a copy of each thread's state kept meanwhile.
    if (opt.snapshot) enc.chunk_max = (size_t)1 << 40, enc.one_chunk = 1;
  }
  char why[4600];
  if (opt.compact && switches.verify_compact) fd_verify = writer_create_file(".verify", why, sizeof why);
  return NULL;
}

static void flush_meta(int which) {
  size_t len = 0;
  char *buf = src.meta ? src.meta(which, &len) : NULL;
  sink_meta(which, buf, len);
  // The compact encoding defines them in each chunk whose stacks name them.
  if (opt.compact && buf) compact_meta(&enc, which, buf, len);
  free(buf);
}

// ---- event batch ----
//
// Memory (docs/agent.md, "Memory"): besides the rings (2 x buffer), the
// writer holds the sort index of one batch (16 bytes a record, and as much
// to merge it), the lines
// held back for deferred records (two carry buffers of at most
// carry_budget each) and one chunk of formatted text (OUT_CHUNK plus one
// line): a batch is formatted and written chunk by chunk.

typedef struct {
  int64_t ts;
  const orca_rec *r;
} item_t;

#define OUT_CHUNK (1 << 20)
#define CHUNK_ITEMS 8192
// The longest line (text.h; a compact record is shorter).
#define MAX_LINE TEXT_LINE_MAX

static item_t *items, *scratch;   // a batch's index, and the merge's other half
static size_t items_cap;
static char *out;
static size_t ends[CHUNK_ITEMS];   // end of each line of the chunk in out

// Sorting a batch. Each run (the carry, then each ring shard, then each
// part of a thread's own buffer) holds its records in the order they were
// put, nearly in time order: a thread takes its time, then puts the record,
// so only threads sharing a shard, or one preempted in between, swap. Each run is sorted by insertion (a few moves),
// or by qsort when it has many, then the runs are merged pairwise. Equal
// times keep the order they were put in: within a run by address (records
// are appended), across runs by the run's place (the merge takes the left
// one on equal times). The order is a qsort's of the batch by (time, position), at a
// fraction of its cost (glibc's qsort was 3 % of ParkBench's CPU).
// At one time, the MonitorHeld lines, then the LockHeld ones, come after
// every other line: a contended enter's MonitorHeld lines are put by the
// agent's held thread (threads/pending.h), in a buffer of its own, after
// the enter's line (docs/format.md: they follow it at its time).
static int held_rank(const orca_rec *r) {
  return r->kind == ORCA_EV_MONITOR_HELD ? 1 : r->kind == ORCA_EV_LOCK_HELD ? 2 : 0;
}

static int before(const item_t *x, const item_t *y) {
  if (x->ts != y->ts) return x->ts < y->ts;
  int a = held_rank(x->r), b = held_rank(y->r);
  return a < b || (a == b && (uintptr_t)x->r < (uintptr_t)y->r);
}

// later: x goes after y in the merge (the left run's first on equal
// times and ranks).
static int later(const item_t *x, const item_t *y) {
  if (x->ts != y->ts) return y->ts < x->ts;
  return held_rank(y->r) < held_rank(x->r);
}

static int cmp_item(const void *a, const void *b) {
  return before(a, b) ? -1 : before(b, a);
}

static void sort_run(item_t *a, size_t n) {
  size_t moves = 0, limit = 8 * n + 64;
  for (size_t i = 1; i < n; i++) {
    item_t x = a[i];
    size_t j = i;
    while (j > 0 && before(&x, &a[j - 1])) {
      a[j] = a[j - 1];
      j--;
      if (++moves > limit) {   // far from sorted
        a[j] = x;
        qsort(a, n, sizeof *a, cmp_item);
        return;
      }
    }
    a[j] = x;
  }
}

// sort_batch sorts items[0, count), the runs starting at start[0..runs)
// (start[runs] == count); start is overwritten.
static void sort_batch(size_t *start, int runs, size_t count) {
  for (int r = 0; r < runs; r++) sort_run(items + start[r], start[r + 1] - start[r]);
  item_t *src = items, *dst = scratch;
  while (runs > 1) {
    int out = 0;
    for (int r = 0; r < runs; r += 2) {
      size_t lo = start[r], mid = start[r + 1], hi = r + 2 <= runs ? start[r + 2] : mid;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) dst[k++] = later(&src[i], &src[j]) ? src[j++] : src[i++];
      memcpy(dst + k, src + i, (mid - i) * sizeof *src);
      k += mid - i;
      memcpy(dst + k, src + j, (hi - j) * sizeof *src);
      start[out++] = lo;
    }
    start[out] = count;
    runs = out;
    item_t *t = src;
    src = dst;
    dst = t;
  }
  items = src;   // the sorted half; the other is the next batch's scratch
  scratch = dst;
}

static size_t line_max(const orca_rec *r) {
  size_t text = text_max(r);
  return opt.compact && compact_max(r) > text ? compact_max(r) : text;
}

// lose counts a record that will not be written as dropped of its kind.
static void lose(const orca_rec *r, int why) {
  counter_kind_add(KC_DROPPED, r->kind, 1);
  if (why != LOST_NONE) counter_add(why, 1);
}

static void lose_buf(const char *buf, size_t len, int why) {
  size_t off = 0;
  for (const orca_rec *r; (r = ring_next(buf, len, &off));) lose(r, why);
}

// grow_items makes room for n items in the index (and as many to merge
// them); 0 when out of memory.
static int grow_items(size_t n) {
  if (n <= items_cap) return 1;
  size_t cap = items_cap + items_cap / 2 > n ? items_cap + items_cap / 2 : n;
  item_t *ni = realloc(items, cap * sizeof *items);
  if (!ni) return 0;
  items = ni;
  item_t *ns = realloc(scratch, cap * sizeof *scratch);
  if (!ns) return 0;
  scratch = ns;
  items_cap = cap;
  return 1;
}

// add_items indexes the records of buf: each is read once here (the first
// touch of memory another core wrote), the index grown as they come.
static void add_items(const char *buf, size_t len, size_t *k) {
  size_t off = 0;
  for (const orca_rec *r; (r = ring_next(buf, len, &off));) {
    if (*k == items_cap && !grow_items(*k + 1)) {   // out of memory: dropped, counted
      lose(r, LOST_NONE);
      continue;
    }
    items[*k].ts = r->ts;
    items[*k].r = r;
    (*k)++;
  }
}

// write the file keeps the complete lines and the others count as dropped.
static void write_chunk(size_t a, size_t b, size_t n) {
  if (sink_cut()) {
    for (size_t i = a; i < b; i++) lose(items[i].r, LOST_AFTER_CUT);
    return;
  }
  int err = 0;
  if (opt.compact) compact_sum(&enc, out, n);
  size_t done = sink_events(out, n, &err);
  size_t k = 0;
  while (k < b - a && ends[k] <= done) k++;
  if (k && fd_verify >= 0) {
    static char line[MAX_LINE];
    int verr = 0;
    for (size_t i = a; i < a + k; i++) (void)sink_put(fd_verify, line, text_rec(line, items[i].r), &verr);
  }
  if (k) {
    int64_t last = items[a].ts;
    for (size_t i = a; i < a + k; i++) {
      if (items[i].ts > last) last = items[i].ts;
      counter_kind_add(KC_EVENTS, items[i].r->kind, 1);
    }
    sink_times(items[a].ts, last);
  }
  if (done < n) {
    sink_events_cut(k ? ends[k - 1] : 0, err);
    for (size_t i = a + k; i < b; i++) lose(items[i].r, LOST_AFTER_CUT);
  }
}

// end_chunk writes the trailer of the chunk open, if one is (compact.h);
// start_chunk closes it and begins a chunk at time ts (in a new file when
// bounded) and writes its state records; 0 when out of memory.
static void end_chunk(void) {
  size_t len;
  const char *t = compact_end(&enc, &len);
  if (!t || sink_cut()) return;
  int err = 0;
  if (sink_events(t, len, &err) < len) sink_events_cut(0, err);
}

static int start_chunk(int64_t ts) {
  end_chunk();
  size_t len;
  const char *b = compact_begin(&enc, ts, &len);
  if (!b) return 0;
  sink_chunk(enc.seq, enc.base, enc.chunk_max);
  if (sink_cut()) return 1;
  int err = 0;
  if (sink_events(b, len, &err) < len) sink_events_cut(0, err);
  return 1;
}

// SAMPLES_HOLD_NS: how long samples alone may wait, in their slots or in
// carry, for a flush with something else to write (flush_batch).
#define SAMPLES_HOLD_NS 1000000000LL

// samples_only says whether the first n items of the batch are all samples.
static int samples_only(size_t n) {
  for (size_t i = 0; i < n; i++)
    if (items[i].r->kind != ORCA_EV_SAMPLE) return 0;
  return 1;
}

// flush_batch writes the records of the carry, the shards and the threads'
// buffers' parts (segs, nseg) up to cutoff, and carries the rest.
static void flush_batch(int64_t cutoff, const ring_seg *segs, size_t nseg) {
  const char *bufs[RING_SHARDS];
  size_t lens[RING_SHARDS];
  int from = carry_cur, to = carry_cur ^ 1;
  size_t bytes = carry_len[from], events = carry_events[from];
  for (int i = 0; i < RING_SHARDS; i++) {
    bufs[i] = ring_take(i, &lens[i]);
    events += lens[i];
  }
  for (size_t i = 0; i < nseg; i++) events += segs[i].len;
  bytes += events;
  // Samples alone wait in their slots (not drained, indexed and sorted
  // again every period: most of the writer's cost of a wall sample on a
  // JVM at rest), until events come to be written with them or the oldest
  // would pass SAMPLES_HOLD_NS by the next flush (aged: all written now);
  // the slots also ask for a drain when one is half full or a thread
  // ended (samples_drain), and then a batch of samples alone waits in
  // carry. The drain runs the wall ticks due either way.
  int64_t now = clock_now(), oldest = carry_first[from] < samples_since ? carry_first[from] : samples_since;
  int aged = now + (int64_t)opt.flush_ms * 1000000LL - oldest >= SAMPLES_HOLD_NS;
  int must = events || aged || cutoff == INT64_MAX;
  size_t slen = 0;
  const char *sbuf = src.samples ? src.samples(&slen, must) : NULL;
  if (must || slen) samples_since = now;
  bytes += slen;
  // Metadata first, so a method referenced by an event is described by the
  // time the event reaches the disk: every method a line just taken refers
  // to was queued before the line was put.
  if (src.describe) src.describe();
  flush_meta(META_CLASSES);
  flush_meta(META_METHODS);
  // Nothing new and nothing due: the carry (samples alone) waits as it is.
  if (!must && !slen) return;
  carry_len[to] = 0;
  carry_events[to] = 0;
  carry_first[to] = INT64_MAX;
  if (!bytes) return;
  // The index is sized for records of a park's size (add_items grows it).
  (void)grow_items(bytes / 64);
  if (!out) {
    out = malloc(OUT_CHUNK + MAX_LINE);
    if (!out) {   // out of memory: count the batch as dropped
      counter_add(CNT_WRITE_ERRORS, 1);
      lose_buf(carry[from], carry_len[from], LOST_NONE);
      for (int i = 0; i < RING_SHARDS; i++) lose_buf(bufs[i], lens[i], LOST_NONE);
      for (size_t i = 0; i < nseg; i++) lose_buf(segs[i].buf, segs[i].len, LOST_NONE);
      lose_buf(sbuf, slen, LOST_NONE);
      carry_len[from] = 0;
      carry_events[from] = 0;
      carry_first[from] = INT64_MAX;
      return;
    }
  }
  // A run per buffer or part that has records, each nearly in time order
  // (an empty one would add a merge pass); out of memory for their list,
  // the batch as one run (sort_run falls back to qsort).
  static size_t *start, start_cap, whole[2];
  size_t k = 0, *st = start;
  if (RING_SHARDS + 3 + nseg > start_cap) {
    size_t *n = realloc(start, (RING_SHARDS + 3 + nseg) * 2 * sizeof *n);
    if (n) start = n, start_cap = (RING_SHARDS + 3 + nseg) * 2;
    st = n;
  }
  int runs = 0, one = !st;
  if (one) st = whole;
  st[runs++] = k;
  add_items(carry[from], carry_len[from], &k);
  for (int i = 0; i < RING_SHARDS; i++) {
    if (!one && k > st[runs - 1]) st[runs++] = k;
    add_items(bufs[i], lens[i], &k);
  }
  for (size_t i = 0; i < nseg; i++) {
    if (!one && k > st[runs - 1]) st[runs++] = k;
    add_items(segs[i].buf, segs[i].len, &k);
  }
  if (!one && k > st[runs - 1]) st[runs++] = k;
  add_items(sbuf, slen, &k);   // the samples, thread after thread
  st[runs] = k;
  size_t count = k;
  sort_batch(st, runs, count);

  // The lines at or after the cutoff wait in carry, within its budget; when
  // they exceed it the earliest of them are written now (written_early).
  // A batch of samples alone (drained for a full slot), none older than
  // SAMPLES_HOLD_NS, waits whole: a write costs tens of µs, and a server
  // whose threads sit in native code has nothing but the wall sampler's
  // repeats to write every period (its cost per sample was the writer's:
  // docs/agent.md, "Buffers and the writer"). Events are never held so: a
  // batch with one is written.
  int64_t hold = cutoff;
  if (!aged && cutoff != INT64_MAX && count && cutoff - items[0].ts < SAMPLES_HOLD_NS && samples_only(count)) hold = items[0].ts;
  size_t s = count, held = 0;
  while (s > 0 && items[s - 1].ts >= hold && held + items[s - 1].r->size <= carry_budget) {
    held += items[s - 1].r->size;
    s--;
  }
  if (held > carry_cap[to]) {
    size_t cap = carry_cap[to] ? carry_cap[to] * 2 : 1 << 20;
    if (cap < held) cap = held;
    if (cap > carry_budget) cap = carry_budget;
    char *nb = realloc(carry[to], cap);
    if (nb) {
      carry[to] = nb;
      carry_cap[to] = cap;
    } else {
      s = count;   // out of memory: write them now, out of order, rather than lose them
    }
  }
  for (size_t i = s; i < count; i++) {
    memcpy(carry[to] + carry_len[to], items[i].r, items[i].r->size);
    carry_len[to] += items[i].r->size;
    if (items[i].r->kind != ORCA_EV_SAMPLE) carry_events[to]++;
    else if (carry_first[to] == INT64_MAX) carry_first[to] = items[i].ts;
  }
  flushes++;
  if (s) counter_add(CNT_WRITES, 1);
  carried += (long)(count - s);
  for (size_t i = s; i-- > 0 && items[i].ts >= cutoff;) counter_add(CNT_WRITTEN_EARLY, 1);

  // cut: the sink's, read again after each write (only a write cuts).
  size_t a = 0, n = 0, i = 0;
  int cut = sink_cut();
  int64_t before = written_max;
  long late = 0;
  for (; i < s && !cut; i++) {
    const orca_rec *r = items[i].r;
    if (r->kind != ORCA_EV_SAMPLE && r->kind != ORCA_EV_THREAD_C_P_U) {
      late += r->ts < before;
      if (r->ts > written_max) written_max = r->ts;
    }
    if (i - a == CHUNK_ITEMS || n + line_max(r) > OUT_CHUNK) {
      write_chunk(a, i, n);
      cut = sink_cut();
      a = i;
      n = 0;
      if (sink_past_deadline()) break;
    }
    if (opt.compact && compact_due(&enc, r)) {
      write_chunk(a, i, n);
      a = i;
      n = 0;
      if (!start_chunk(r->ts)) {   // out of memory: this record is lost
        cut = sink_cut();
        lose(r, LOST_NONE);
        a = i + 1;
        continue;
      }
      cut = sink_cut();
      if (cut) break;
    }
    n += opt.compact ? compact_rec(&enc, out + n, r) : text_rec(out + n, r);
    ends[i - a] = n;
  }
  if (i == s || cut) write_chunk(a, i, n);
  if (late) counter_add(CNT_WRITTEN_LATE, late);
  // Past the exit deadline, or cut: the rest is counted, not written.
  for (; i < s; i++) lose(items[i].r, cut ? LOST_AFTER_CUT : LOST_AT_EXIT);
  // The encoder's state may refer to the records encoded: copied before
  // the next flush reuses their buffers.
  if (opt.compact) compact_settle(&enc);
  carry_len[from] = 0;
  carry_cur = to;
}

static void flush_events(int64_t cutoff) {
  size_t nseg;
  const ring_seg *segs = ring_take_threads(&nseg);
  flush_batch(cutoff, segs, nseg);
  ring_release_threads();
}

// Lines this recent may still be preceded by a record in flight (its time
// taken, its stack being walked): hold them back one more flush.
#define IN_FLIGHT_NS 10000000LL


static void flush_all(int final) {
  int64_t now = clock_now(), cutoff = INT64_MAX;
  if (!final) {
    // Waits are walked by the walker after one period; one it has not
    // written within 10 s (or with no walker: 1 s) is written without stack.
    int64_t stale = now - (src.walker_alive && src.walker_alive() ? 10000000000LL : 1000000000LL);
    cutoff = src.deferred ? src.deferred(now - IN_FLIGHT_NS, stale) : now - IN_FLIGHT_NS;
  } else {
    for (int i = 0; i < 200 && src.deferred && (cutoff = src.deferred(INT64_MAX, INT64_MAX)) != INT64_MAX && !sink_past_deadline(); i++)
      usleep(1000);
    cutoff = INT64_MAX;
  }
  int64_t c0 = time_writer ? thread_cpu() : 0;
  flush_events(cutoff);
  if (time_writer) cpu_flush += thread_cpu() - c0;
}

static void *run(void *arg) {
  (void)arg;
  int64_t last_info = 0;
  orca_agent_thread = 1;
  time_writer = switches.time_writer;
  while (!atomic_load(&stopping)) {
    ring_wait(opt.flush_ms);
    clock_calibrate();
    // The threads' scheduler times, once a thread_cpu period (tcpu.h).
    if (src.poll) {
      int64_t c0 = time_writer ? thread_cpu() : 0;
      src.poll(clock_now(), 0);
      if (time_writer) cpu_tcpu += thread_cpu() - c0;
    }
    flush_all(0);
    int64_t now = clock_now();
    sink_prune(now, enc.chunk_max);
    if (now - last_info >= 1000000000LL) {
      sink_info(0, enc.unrestated);
      last_info = now;
    }
  }
  if (time_writer) cpu_thread = thread_cpu();
  if (src.thread_exit) src.thread_exit();
  return NULL;
}

static int running;   // the writer thread runs (writer_start)

const char *writer_start(void) {
  static char why[120];
  sink_info(0, enc.unrestated);
  int e = pthread_create(&thread, NULL, run, NULL);
  if (e != 0) {
    // EAGAIN: the process or its user is at a limit of threads (ulimit -u,
    // kernel.threads-max, a cgroup's pids.max).
    snprintf(why, sizeof why, "cannot start the writer thread: %s", strerror(e));
    return why;
  }
  running = 1;
  return NULL;
}

void writer_drain(void) {
  if (!running) flush_events(INT64_MAX);
}

static int stopped_now;

void writer_stopped_now(void) { stopped_now = 1; }

void writer_stop(void) {
  sink_deadline_start();
  atomic_store(&stopping, 1);
  ring_wake();
  // Not started (an attach that failed after the files were open): only
  // the files are finished.
  if (running) pthread_join(thread, NULL);
  running = 0;
  // The waits still open get their stacks from here (a Java thread).
  if (src.walk_all) src.walk_all(INT64_MAX);
  // The times of the threads alive at the end, as they are at it.
  if (src.poll) src.poll(clock_now(), 1);
  flush_all(1);
  // The last chunk closed: a reader knows it whole (a chunk without its
  // trailer reads as cut).
  if (opt.compact) end_chunk();
  if (stopped_now) {
    int64_t now = clock_now();
    sink_times(0, now);
    stopped_now = 0;
  }
  // Records stored by callbacks that began before VM death but ended after
  // the last flush took the rings: counted, not written.
  for (int i = 0; i < RING_SHARDS; i++) {
    size_t len;
    const char *buf = ring_take(i, &len);
    lose_buf(buf, len, LOST_AT_EXIT);
  }
  size_t nseg;
  const ring_seg *segs = ring_take_threads(&nseg);
  for (size_t i = 0; i < nseg; i++) lose_buf(segs[i].buf, segs[i].len, LOST_AT_EXIT);
  ring_release_threads();
  sink_info(1, enc.unrestated);
  if (time_writer) {
    long events = 0;
    for (int k = 1; k < ORCA_EV_COUNT; k++) events += counter_kind_get(KC_EVENTS, k);
    orca_log("writer (%s): CPU %.6f s, of it %.6f s in flushes (%.0f ns an event); %ld flushes, %ld records carried to the next; %ld events, %lld bytes of .orca (%.1f an event)",
             opt.compact ? "compact" : "seed", cpu_thread / 1e9, cpu_flush / 1e9, events ? (double)cpu_flush / (double)events : 0.0, flushes, carried,
             events, sink_ev_bytes(), events ? (double)sink_ev_bytes() / (double)events : 0.0);
    long reads = src.polled ? src.polled() : 0;
    orca_log("writer: %.3f s in thread CPU polls, %ld threads' times read (%.2f us a read)", cpu_tcpu / 1e9, reads,
             reads ? (double)cpu_tcpu / 1e3 / (double)reads : 0.0);
  }
  compact_free(&enc);
  if (fd_verify >= 0) close(fd_verify);
  fd_verify = -1;
  sink_close();
}
