#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/counters.h"
#include "core/clock.h"
#include "hotspot/hsstat.h"
#include "hotspot/jclass.h"
#include "hotspot/mgmt.h"
#include "core/orca.h"
#include "hotspot/vmstructs.h"

// The states of the timer's use (hsstat.h).
atomic_int hsstat_state = HSSTAT_WAIT;
static atomic_int ever_trusted;
// Where the ThreadStatistics pointer sits in a JavaThread, found by the
// calibration (the timer's place in ThreadStatistics is the layer's:
// vmstructs.h, hs_stats_*).
atomic_long hsstat_at = -1;
// HotSpot's elapsed nanoseconds are CLOCK_MONOTONIC minus an origin taken
// at VM start (os::elapsed_counter on Linux). The origin is estimated as
// the least difference seen between our clock and a timer start read just
// after it: first by the calibration, which watches its contender's timer
// start ORIGIN_ROUNDS times (measure_origin), then at each
// MonitorContendedEnter. A single early sample is as late as the callback
// was slow to run (microseconds when its thread was preempted), and every
// enter timed until a better one came would end that much too late.
_Atomic int64_t hsstat_origin = INT64_MAX;
enum { ORIGIN_ROUNDS = 24 };
// ORCA_VERIFY_ENTERED=1: the callback stays on and every timed enter is
// compared with it (counts in .info; the integration tests use it).
static int verify;

static void give_up(const char *why) {
  int was = atomic_exchange(&hsstat_state, HSSTAT_OFF);
  if (was == HSSTAT_OFF) return;
  counters_prop(ORCA_INFO_ENTERED_TIMER, why);
}

void hsstat_init(void) {}

void hsstat_new_recording(void) { give_up("not used: a second recording in this JVM"); }

// hsstat_faulted: a read of the timer faulted (recovered, hotspot.faults): the
// calibration's place is wrong for some thread, so the timer is not used
// any more (the Entered callback is back on at the next enter: monitor.c).
void hsstat_faulted(void) { give_up("stopped: a read of the timer faulted"); }

void hsstat_enable(JNIEnv *env) {
  verify = switches.verify_entered;
  if (verify)
    for (int c = CNT_VERIFIED_ENTERED; c <= CNT_VERIFIED_ENTERED_SLOW; c++) counters_show(c);
  if (!hs_has(HS_RELEASE_11)) {
    give_up("not used: unknown JDK");
    return;
  }
  const char *missing = hs_stats_missing();
  if (missing || vm_null(vms_thread(env))) {
    char msg[80];
    snprintf(msg, sizeof msg, "not used: %s", missing ? missing : "no JavaThread layout");
    give_up(msg);
    return;
  }
  // Through the VM's management interface, not ThreadMXBean: no Java code
  // of the agent's runs in the target (mgmt.h).
  const char *err = mgmt_contention_monitoring(env);
  if (err) {
    give_up(err);
    return;
  }
  int expect = HSSTAT_WAIT;
  atomic_compare_exchange_strong(&hsstat_state, &expect, HSSTAT_CALIBRATING);
}

// ---- calibration ----
//
// The agent makes one contended enter of its own and watches it: the
// walker holds an object of the agent's (AllocObject: no constructor runs)
// with JNI MonitorEnter, which enters as `synchronized` does and is timed
// alike, and a second agent thread ("orca calibration") enters it too and
// blocks. For every word of the contender's JavaThread that points to
// readable memory, the walker reads the 32 bytes there (the timer's place
// in ThreadStatistics) before the contender blocks, while it is blocked,
// and after it entered. The ThreadStatistics pointer is the one word under
// which the contended-enter count rose by exactly one, the timer was running
// while the contender was blocked with its total unchanged, and stopped
// after with its total up by no more than the time the walker saw the
// contender between its start and its entering, nor less than the time it
// saw it blocked. Exactly one word must qualify: nothing is chosen because
// it looks plausible.

typedef struct {
  hs_stats_copy c;
  int ok;
} snap_t;

static void snapshot(vm_ptr thr, snap_t *out, long words) {
  for (long i = 0; i < words; i++) out[i].ok = hs_probe_stats(thr, 8 * i, &out[i].c);
}

static jobject calib_obj;
static vm_ptr calib_thr;   // written before step 1
// The contender's steps: 1 ready (calib_thr set), 2 go (the walker's),
// 3 entered and left, -1 told to stop.
static atomic_int calib_step;
// Then measure_origin's rounds: the contender enters once more each time
// calib_want passes calib_done; calib_want -1 ends them.
static atomic_int calib_want, calib_done;

static void JNICALL calib_run(jvmtiEnv *j, JNIEnv *env, void *arg) {
  (void)j; (void)arg;
  calib_thr = vms_thread(env);
  atomic_store(&calib_step, 1);
  int st;
  while ((st = atomic_load(&calib_step)) == 1) usleep(100);
  if (st == 2) {
    (*env)->MonitorEnter(env, calib_obj);
    (*env)->MonitorExit(env, calib_obj);
    atomic_store(&calib_step, 3);
    for (int r = 1;; r++) {
      int w;
      while ((w = atomic_load(&calib_want)) >= 0 && w < r) usleep(50);
      if (w < 0) break;
      (*env)->MonitorEnter(env, calib_obj);
      (*env)->MonitorExit(env, calib_obj);
      atomic_store(&calib_done, r);
    }
  }
  // It does not end while the program runs: a Java thread's end runs
  // Thread.exit, Java code (under the ThreadGroup's monitor on JDK 17).
  jrawMonitorID m;
  if ((*jvmti)->CreateRawMonitor(jvmti, "orca calibration", &m) == JVMTI_ERROR_NONE) {
    (*jvmti)->RawMonitorEnter(jvmti, m);
    while ((*jvmti)->RawMonitorWait(jvmti, m, 0) == JVMTI_ERROR_INTERRUPT) {
    }
    (*jvmti)->RawMonitorExit(jvmti, m);
  }
}

// wait_step waits up to 2 s for the contender's step.
static int wait_step(int want) {
  for (int i = 0; i < 20000; i++) {
    if (atomic_load(&calib_step) == want) return 1;
    usleep(100);
  }
  return 0;
}

// measure_origin: the walker holds the calibration's object, lets the
// contender enter it and reads the contender's timer (at `at` in thr) as
// fast as it can (the kernel's copies, as the calibration's other reads)
// until it starts. Its start was read by HotSpot after the last read that
// saw the timer stopped and before the first that saw it running:
// our clock then, less the start, brackets the origin from both sides
// (CLOCK_MONOTONIC both). The least upper bound of the rounds becomes the
// origin; a lower bound above it means HotSpot's clock is not the one
// assumed, and the timer is not used.
static const char *measure_origin(JNIEnv *env, vm_ptr thr, long at) {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  const char *why = NULL;
  for (int r = 1; r <= ORIGIN_ROUNDS && !why; r++) {
    hs_stats_copy prev, now;
    (*env)->MonitorEnter(env, calib_obj);
    if (!hs_probe_stats(thr, at, &prev)) why = "its timer cannot be read";
    int64_t stopped_at = clock_now(), give_up_at = stopped_at + 20000000;
    atomic_store(&calib_want, r);
    while (!why) {
      int64_t c0 = clock_now();
      if (!hs_probe_stats(thr, at, &now)) {
        why = "its timer cannot be read";
        break;
      }
      int64_t c1 = clock_now();
      if (now.active && now.start != prev.start) {
        if (c1 - now.start < hi) hi = c1 - now.start;
        if (stopped_at - now.start > lo) lo = stopped_at - now.start;
        break;
      }
      if (!now.active) stopped_at = c0;
      if (c1 > give_up_at) break;   // it did not block (spun, then entered): a round without a bound
    }
    (*env)->MonitorExit(env, calib_obj);
    for (int i = 0; i < 20000 && atomic_load(&calib_done) < r; i++) usleep(100);
    if (!why && atomic_load(&calib_done) < r) why = "the contender did not enter";
  }
  atomic_store(&calib_want, -1);
  if (why) return why;
  if (hi == INT64_MAX) return "no timer start seen";
  if (lo > hi) return "the timer's clock is not CLOCK_MONOTONIC";
  hsstat_note_origin(hi);
  char spread[48];
  snprintf(spread, sizeof spread, "%lld", (long long)(hi - lo));
  counters_prop(ORCA_INFO_ENTERED_TIMER_ORIGIN_NS, spread);
  return NULL;
}

static const char *calibrate(JNIEnv *env, jthread contender) {
  jclass oc = jclass_of(env, contender, "Ljava/lang/Object;");
  jobject o = oc ? (*env)->AllocObject(env, oc) : NULL;
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
  if (!o || !(calib_obj = (*env)->NewGlobalRef(env, o))) return "no object to contend on";
  long words = hs_probe_thread_words();
  snap_t *before = calloc((size_t)words, sizeof *before), *during = calloc((size_t)words, sizeof *during),
         *after = calloc((size_t)words, sizeof *after);
  const char *why = NULL;
  int held = 0;
  if (!before || !during || !after) {
    why = "no memory";
    goto done;
  }
  (*env)->MonitorEnter(env, calib_obj);
  held = 1;
  if ((*jvmti)->RunAgentThread(jvmti, contender, calib_run, NULL, JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE) {
    why = "cannot start the contender";
    goto done;
  }
  if (!wait_step(1) || vm_null(calib_thr)) {
    why = "the contender did not start";
    goto done;
  }
  vm_ptr thr = calib_thr;
  snapshot(thr, before, words);
  int64_t go = clock_now();
  atomic_store(&calib_step, 2);
  // HotSpot sets the thread's state to blocked just before it starts the
  // timer: the snapshot while blocked is retaken until a word qualifies.
  int64_t blocked = 0;
  long found = -1;
  for (int tries = 0; tries < 2000 && found < 0; tries++) {
    jint ts = 0;
    if ((*jvmti)->GetThreadState(jvmti, contender, &ts) == JVMTI_ERROR_NONE &&
        (ts & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER)) {
      if (!blocked) blocked = clock_now();
      snapshot(thr, during, words);
      int n = 0;
      for (long i = 0; i < words; i++)
        if (before[i].ok && during[i].ok && during[i].c.count == before[i].c.count + 1 && !before[i].c.active &&
            during[i].c.active == 1 && during[i].c.total == before[i].c.total &&
            during[i].c.start != before[i].c.start) {
          n++;
          found = i;
        }
      if (n > 1) {
        why = "more than one ThreadStatistics candidate";
        goto done;
      }
    }
    if (found < 0) usleep(500);
  }
  if (found < 0) {
    why = "no timer started with the contended enter";
    goto done;
  }
  usleep(2000);   // blocked a while: its total must show it
  int64_t released = clock_now();
  (*env)->MonitorExit(env, calib_obj);
  held = 0;
  if (!wait_step(3)) {
    why = "the contender did not enter";
    goto done;
  }
  int64_t left = clock_now();
  snapshot(thr, after, words);
  hs_stats_copy *b = &during[found].c, *a = &after[found].c;
  int64_t timed = a->total - b->total;
  if (!after[found].ok || a->active || a->count != b->count || timed < released - blocked || timed > left - go) {
    why = "the timer's total does not match the contended enter";
    goto done;
  }
  if ((why = measure_origin(env, thr, found * 8))) goto done;
  atomic_store(&hsstat_at, found * 8);
  atomic_store(&ever_trusted, 1);
  int expect = HSSTAT_CALIBRATING;
  if (atomic_compare_exchange_strong(&hsstat_state, &expect, HSSTAT_TRUSTED)) counters_prop(ORCA_INFO_ENTERED_TIMER, "hotspot");
done:
  if (held) (*env)->MonitorExit(env, calib_obj);
  if (why) {   // a contender still waiting for go, or for a round, ends
    atomic_store(&calib_step, -1);
    atomic_store(&calib_want, -1);
  }
  free(before);
  free(during);
  free(after);
  return why;
}

void hsstat_calibrate(JNIEnv *env, jthread contender) {
  if (atomic_load(&hsstat_state) != HSSTAT_CALIBRATING) return;
  const char *why = contender ? calibrate(env, contender) : "no contender";
  if (why) {
    char msg[200];
    snprintf(msg, sizeof msg, "not used: calibration: %s", why);
    give_up(msg);
  }
}

// The checks that saw the timer stop after the callback (verify only):
// not_stopped, the timer still running at Entered (d <= 0), and the origins
// an Entered showed more than 5 µs below the estimate, kept (the lowest
// ones, at most EARLY_MAX) to be judged again as the estimate falls.
enum { EARLY_MAX = 64 };
static pthread_mutex_t early_mu = PTHREAD_MUTEX_INITIALIZER;
static long not_stopped;
static int64_t early[EARLY_MAX];
static int nearly;

void hsstat_check(const hs_enter *e, int64_t entered_ns) {
  hs_stats_now now;
  if (!verify || atomic_load_explicit(&hsstat_state, memory_order_relaxed) != HSSTAT_TRUSTED || vm_null(e->stats)) return;
  if (!hs_stats_read(e->stats, &now)) {
    hsstat_faulted();
    return;
  }
  // HotSpot's origin as seen at the Entered callback (after the timer
  // stopped): a little later than the true one, by the callback's latency.
  int64_t d = now.total - e->base, y = entered_ns - (e->start + d);
  // The timer stops before HotSpot posts Entered: never after the callback.
  // The origin is known only from above (the least of the enters' samples,
  // each late by its callback's latency), so an Entered that shows one
  // lower is judged against the estimate as it is at the end: one taken
  // while a loaded JVM preempted every callback falls as better samples
  // come (TestStress/17: 1 Entered of 97 at -5 µs against the early one).
  counter_add(CNT_VERIFIED_ENTERED, 1);
  int64_t origin = atomic_load(&hsstat_origin), late = y - origin;
  pthread_mutex_lock(&early_mu);
  if (d <= 0) not_stopped++;
  else if (late <= -5000) {
    if (nearly < EARLY_MAX) early[nearly++] = y;
    else {   // keep the lowest: they stay early longest
      int hi = 0;
      for (int i = 1; i < EARLY_MAX; i++)
        if (early[i] > early[hi]) hi = i;
      if (y < early[hi]) early[hi] = y;
    }
  } else if (late >= 100000) counter_add(CNT_VERIFIED_ENTERED_SLOW, 1);
  long after = not_stopped;
  for (int i = 0; i < nearly; i++) after += early[i] - origin <= -5000;
  atomic_store_explicit(&orca_counters[CNT_VERIFIED_ENTERED_AFTER], after, memory_order_relaxed);
  pthread_mutex_unlock(&early_mu);
}

int hsstat_verifying(void) { return verify; }

int hsstat_trusted_ever(void) { return atomic_load_explicit(&ever_trusted, memory_order_relaxed); }

void hsstat_lost(void) { give_up("stopped: a contended enter not timed (contention monitoring turned off?)"); }
