#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/clock.h"
#include "core/counters.h"
#include "hooks/held.h"
#include "hotspot/objhash.h"
#include "hotspot/vmstructs.h"
#include "hotspot/walk.h"
#include "stacks/methods.h"
#include "stacks/objclass.h"

// What is hooked (inplace.c, pair 2: an EXIT call before each return, no
// entry call; ret: tryLock's result goes to the hook): an acquire is a
// normal return of lock or lockInterruptibly, or a tryLock that returns
// true; a release is unlock's entry (one that throws held nothing). The
// public methods of the three classes, not AbstractQueuedSynchronizer's:
// ReentrantLock.Sync.lock() takes a free lock by a CAS without calling
// AQS.acquire, and only the public ones say which lock of a read-write
// lock a thread takes.
enum { TAG_ACQUIRE = 0, TAG_TRY = 1, TAG_RELEASE = 2 };
static const wrap_spec lock_specs[] = {
    {"lock", "()V", 2, TAG_ACQUIRE, 0, 0},
    {"lockInterruptibly", "()V", 2, TAG_ACQUIRE, 0, 0},
    {"tryLock", "()Z", 2, TAG_TRY, 0, 1},
    {"tryLock", "(JLjava/util/concurrent/TimeUnit;)Z", 2, TAG_TRY, 0, 1},
    {"unlock", "()V", 0, TAG_RELEASE, 0, 0},
};

// The classes, their mode and the field holding the synchronizer (the
// object a park in their acquire names: one node for both locks of a
// read-write lock, and the same as the park's blocker).
enum { C_REENTRANT, C_READ, C_WRITE, NCLASSES };
static const struct {
  const char *name, *sync_sig;
  int mode;
} classes[NCLASSES] = {
    {"java/util/concurrent/locks/ReentrantLock", "Ljava/util/concurrent/locks/ReentrantLock$Sync;", ORCA_MODE_EXCLUSIVE},
    {"java/util/concurrent/locks/ReentrantReadWriteLock$ReadLock", "Ljava/util/concurrent/locks/ReentrantReadWriteLock$Sync;",
     ORCA_MODE_SHARED},
    {"java/util/concurrent/locks/ReentrantReadWriteLock$WriteLock", "Ljava/util/concurrent/locks/ReentrantReadWriteLock$Sync;",
     ORCA_MODE_EXCLUSIVE},
};
static jfieldID f_sync[NCLASSES];
static jclass syncs[2];   // ReentrantLock$Sync, ReentrantReadWriteLock$Sync (global references)
static atomic_int bound, rewritten;

// A thread's locks held, in the order taken (a reentry counts on its
// entry). JUC_HELD of them; more are counted (held_locks_lost) and left out.
enum { JUC_HELD = 16 };
typedef struct juc_tstate {
  int n;
  struct {
    uint32_t obj;    // the synchronizer's identity hash
    uint32_t site;   // the compact id of the method that called lock (0: not known)
    uint32_t count;  // reentries
    int mode;        // ORCA_MODE_*
  } e[JUC_HELD];
} juc_tstate;

int held_specs(const char *name, const wrap_spec **specs, int *n) {
  if (opt.lock_order != ORCA_LOCK_ORDER_ALL || opt.seed_only) return 0;
  for (int i = 0; i < NCLASSES; i++)
    if (!strcmp(name, classes[i].name)) {
      *specs = lock_specs;
      *n = (int)(sizeof lock_specs / sizeof lock_specs[0]);
      atomic_store(&rewritten, 1);
      return 1;
    }
  return 0;
}

// The monitors' capability, and what held_read found (one thread reads
// then writes, with nothing between but its enter's or park's line).
static int capable;
static __thread jint read_n;
static __thread jvmtiMonitorStackDepthInfo *read_info;

void held_capability(int on) { capable = on; }

int held_on(void) { return capable && opt.lock_order != ORCA_LOCK_ORDER_NO && !opt.seed_only; }

int held_locks_on(void) { return held_on() && opt.lock_order == ORCA_LOCK_ORDER_ALL; }

const char *held_monitors_fact(void) {
  if (opt.seed_only) return "no: kinds=seed";
  if (opt.lock_order == ORCA_LOCK_ORDER_NO) return "no: off (orca record --lock-order=off)";
  if (!capable) return "no: this JVM offers no owned-monitor capability to the agent (an attach)";
  return "yes";
}

// The same conditions, and lockorder=yes: the classes are rewritten at the
// JVM's start (a failure is a warning); an attach neither rewrites them nor
// has the monitors' capability.
const char *held_locks_fact(void) {
  if (opt.lock_order == ORCA_LOCK_ORDER_MONITORS && !opt.seed_only) return "no: off (orca record --lock-order turns it on)";
  return held_monitors_fact();
}

// waited: the calling thread's last held_own or held_read may have waited
// (held_waited): a JVMTI call, the test's sleep.
static __thread int waited;

int held_waited(void) { return waited; }

// A test aid: a call as slow as a loaded JVM's 99th percentile and more,
// whose time must not be recorded as blocked (TestHeldNotBlocked): the
// thread waits, as in a JVMTI call stopped at a safepoint.
static void test_slow(void) {
  if (switches.test_slow_held_ms) {
    waited = 1;
    struct timespec d = {switches.test_slow_held_ms / 1000, (long)(switches.test_slow_held_ms % 1000) * 1000000};
    while (nanosleep(&d, &d) && errno == EINTR) {   // the samplers' signals
    }
  }
}

// A test aid: a read from the frames that lasts long but never waits for
// anything but a CPU, as one the OS preempts on a loaded machine: it
// yields the CPU, runnable, until MS have passed (TestEnterTiming).
static void test_preempt(void) {
  if (!switches.test_preempt_held_ms) return;
  int64_t end = clock_now() + (int64_t)switches.test_preempt_held_ms * 1000000;
  while (clock_now() < end) sched_yield();
}

int held_async(void) { return !switches.held_in_thread; }

// ORCA_TIME_HELD=1 (a measurement aid): the calls' times (power-of-two
// buckets of nanoseconds), and those during which the thread got the
// monitor it wanted — the time it may have waited for the call holding
// what it holds, an upper bound: in the thread, the wanted monitor free at
// the call's end; on the held thread, the monitor in the answer (the
// thread owned it before the handshake's end), and apart those who left the
// enter between the checks before and after the call without it in the
// answer (an over-count: most got it after the call). Printed at exit.
enum { THIST = 40 };
static _Atomic long t_hist[THIST], t_n, t_ns, t_freed, t_freed_ns, t_enters, t_lag_ns, t_kept, t_left, t_left_ns;
static _Atomic long t_own, t_own_ns, t_own_max, t_own_tried, t_own_hist[THIST], t_own_freed, t_own_freed_ns;
static atomic_int t_registered;

static void time_print(void) {
  long n = atomic_load(&t_n), seen = 0;
  int p[3] = {-1, -1, -1};
  for (int b = 0; b < THIST; b++) {
    seen += atomic_load(&t_hist[b]);
    if (p[0] < 0 && 2 * seen >= n) p[0] = b;
    if (p[1] < 0 && 10 * seen >= 9 * n) p[1] = b;
    if (p[2] < 0 && 100 * seen >= 99 * n) p[2] = b;
  }
  long e = atomic_load(&t_enters);
  fprintf(stderr,
          "orca: held (%s): contended enters %ld, calls %ld, kept %ld, p50 %.1f-%.1f us, p90 %.1f-%.1f us, p99 %.1f-%.1f us, "
          "mean %.1f us, lag %.1f us; monitor got during the call %ld, %.3f ms, %.2f us a contended enter; "
          "left between the checks without it %ld, %.3f ms\n",
          held_async() ? "held thread" : "in thread", e, n, atomic_load(&t_kept), p[0] < 0 ? 0 : (1L << p[0]) / 1e3,
          p[0] < 0 ? 0 : (2L << p[0]) / 1e3, p[1] < 0 ? 0 : (1L << p[1]) / 1e3, p[1] < 0 ? 0 : (2L << p[1]) / 1e3,
          p[2] < 0 ? 0 : (1L << p[2]) / 1e3, p[2] < 0 ? 0 : (2L << p[2]) / 1e3, n ? atomic_load(&t_ns) / 1e3 / n : 0.0,
          n ? atomic_load(&t_lag_ns) / 1e3 / n : 0.0, atomic_load(&t_freed), atomic_load(&t_freed_ns) / 1e6,
          e ? atomic_load(&t_freed_ns) / 1e3 / e : 0.0, atomic_load(&t_left), atomic_load(&t_left_ns) / 1e6);
  long o = atomic_load(&t_own_tried);
  int q[3] = {-1, -1, -1};
  seen = 0;
  for (int b = 0; b < THIST; b++) {
    seen += atomic_load(&t_own_hist[b]);
    if (q[0] < 0 && 2 * seen >= o) q[0] = b;
    if (q[1] < 0 && 10 * seen >= 9 * o) q[1] = b;
    if (q[2] < 0 && 100 * seen >= 99 * o) q[2] = b;
  }
  fprintf(stderr,
          "orca: held read from the frames: %ld of %ld tried, p50 %.1f-%.1f us, p90 %.1f-%.1f us, p99 %.1f-%.1f us, mean %.2f us, "
          "max %.1f us; monitor free at the read's end %ld, %.3f ms, %.3f us a contended enter\n",
          atomic_load(&t_own), o, q[0] < 0 ? 0 : (1L << q[0]) / 1e3, q[0] < 0 ? 0 : (2L << q[0]) / 1e3,
          q[1] < 0 ? 0 : (1L << q[1]) / 1e3, q[1] < 0 ? 0 : (2L << q[1]) / 1e3, q[2] < 0 ? 0 : (1L << q[2]) / 1e3,
          q[2] < 0 ? 0 : (2L << q[2]) / 1e3, o ? atomic_load(&t_own_ns) / 1e3 / o : 0.0, atomic_load(&t_own_max) / 1e3,
          atomic_load(&t_own_freed), atomic_load(&t_own_freed_ns) / 1e6, e ? atomic_load(&t_own_freed_ns) / 1e3 / e : 0.0);
}

void held_time_enter(void) {
  if (!switches.time_held) return;
  if (!atomic_exchange(&t_registered, 1)) atexit(time_print);
  atomic_fetch_add(&t_enters, 1);
}

void held_time_call(int64_t ns, int freed, int kept, int64_t lag) {
  if (!switches.time_held) return;
  int b = 0;
  while (b < THIST - 1 && (2L << b) <= ns) b++;
  atomic_fetch_add(&t_hist[b], 1);
  atomic_fetch_add(&t_n, 1);
  atomic_fetch_add(&t_ns, ns);
  atomic_fetch_add(&t_lag_ns, lag);
  if (kept) atomic_fetch_add(&t_kept, 1);
  if (freed == 1) {
    atomic_fetch_add(&t_freed, 1);
    atomic_fetch_add(&t_freed_ns, ns);
  } else if (freed) {
    atomic_fetch_add(&t_left, 1);
    atomic_fetch_add(&t_left_ns, ns);
  }
}

// JVMTI's GetOwnedMonitorStackDepthInfo on the current thread walks its
// frames directly (no handshake, no safepoint) and lists the monitors each
// frame locked, taken with or without contention, and those taken through
// JNI (depth -1), without the one being entered. The thread blocks next:
// the time here delays only it, and the holders of what it holds wait a
// little longer for it only if the lock it wants is free meanwhile.
void held_read(void) {
  // A JVMTI call: the thread's transitions into the VM and back stop at a
  // safepoint or a handshake in progress.
  waited = 1;
  read_n = 0;
  read_info = NULL;
  if ((*jvmti)->GetOwnedMonitorStackDepthInfo(jvmti, NULL, &read_n, &read_info) != JVMTI_ERROR_NONE) {
    counter_add(CNT_HELD_UNREAD, 1);
    read_n = 0;
    read_info = NULL;
  }
  test_slow();
}

// The monitors read from the thread's own frames (walk_held): kept for
// held_write, -1 when none were (JVMTI's answer, or none).
enum { OWN_MAX = 64 };
static __thread int own_n = -1;
static __thread walk_held_t own[OWN_MAX];

// ORCA_HELD_CHECK=1 (a test and measurement aid): each read compared with
// JVMTI's answer in the thread (hash and depth, in order), printed at exit,
// platform and virtual threads apart (a virtual thread's JVMTI answer is
// its own frames', as the read's). The reasons a read was not made: the
// walk (a frame or value not decoded), a collection, a monitor not hashed,
// its class not named, a virtual thread's frames in its stack chunk,
// monitors entered through JNI.
enum { WHY_WALK, WHY_GC, WHY_HASH, WHY_CLASS, WHY_CHUNK, WHY_JNI, NWHY };
static _Atomic long c_same[2], c_differ[2], c_unread[2], c_why[2][NWHY];
static atomic_int c_registered;

static void check_print(void) {
  for (int v = 0; v < 2; v++)
    fprintf(stderr,
            "orca: held check%s: %ld the same as JVMTI's, %ld different, %ld not read from the frames (walk %ld, collection %ld, "
            "not hashed %ld, class not named %ld, stack chunk %ld, jni %ld)\n",
            v ? " (virtual threads)" : "", atomic_load(&c_same[v]), atomic_load(&c_differ[v]), atomic_load(&c_unread[v]),
            atomic_load(&c_why[v][WHY_WALK]), atomic_load(&c_why[v][WHY_GC]), atomic_load(&c_why[v][WHY_HASH]),
            atomic_load(&c_why[v][WHY_CLASS]), atomic_load(&c_why[v][WHY_CHUNK]), atomic_load(&c_why[v][WHY_JNI]));
}

static void check(JNIEnv *env, jobject o, int n, int virt) {
  if (!atomic_exchange(&c_registered, 1)) atexit(check_print);
  jint k = 0;
  jvmtiMonitorStackDepthInfo *info = NULL;
  if ((*jvmti)->GetOwnedMonitorStackDepthInfo(jvmti, NULL, &k, &info) != JVMTI_ERROR_NONE) return;
  uint32_t wanted = objhash_of(o);
  int same = n >= 0, j = 0;
  char msg[512];
  int ml = snprintf(msg, sizeof msg, "orca: held check%s: jvmti", virt ? " (virtual)" : "");
  for (jint i = 0; i < k; i++) {
    uint32_t h = objhash_of(info[i].monitor);
    (*env)->DeleteLocalRef(env, info[i].monitor);
    if (h == wanted) continue;
    if (ml < (int)sizeof msg - 40) ml += snprintf(msg + ml, sizeof msg - (size_t)ml, " %08x@%d", h, (int)info[i].stack_depth);
    if (n >= 0 && (j >= n || own[j].hash != h || own[j].depth != info[i].stack_depth)) same = 0;
    j++;
  }
  if (info) (*jvmti)->Deallocate(jvmti, (unsigned char *)info);
  if (n < 0) {
    atomic_fetch_add(&c_unread[virt], 1);
    return;
  }
  if (j != n) same = 0;
  if (same) {
    atomic_fetch_add(&c_same[virt], 1);
    return;
  }
  if (atomic_fetch_add(&c_differ[virt], 1) < 10) {
    ml += snprintf(msg + ml, sizeof msg - (size_t)ml, "; frames");
    for (int i = 0; i < n && ml < (int)sizeof msg - 40; i++)
      ml += snprintf(msg + ml, sizeof msg - (size_t)ml, " %08x@%d", own[i].hash, own[i].depth);
    fprintf(stderr, "%s\n", msg);
  }
}

// Monitors entered through JNI (MonitorEnter) are in no frame: JVMTI lists
// them (depth -1) from the VM's monitors. The agent counts each thread's
// own (its wrappers of JNI's MonitorEnter and MonitorExit, set in the JNI
// function table at the start: two entries of a table, no other JNI
// function touched), and a thread that holds any is asked of JVMTI.
// Per OS thread: a virtual thread holding a JNI monitor is pinned to its
// carrier (a native frame while it runs; HotSpot 24+ does not unmount one
// whose JNI monitor count is not 0).
static __thread int jni_held;
static jint(JNICALL *jni_enter)(JNIEnv *, jobject);
static jint(JNICALL *jni_exit)(JNIEnv *, jobject);
static atomic_int jni_wrapped;

static jint JNICALL my_jni_enter(JNIEnv *env, jobject o) {
  jint r = jni_enter(env, o);
  if (r == JNI_OK) jni_held++;
  return r;
}

static jint JNICALL my_jni_exit(JNIEnv *env, jobject o) {
  jint r = jni_exit(env, o);
  if (r == JNI_OK && jni_held > 0) jni_held--;
  return r;
}

static void jni_wrap(void) {
  if (atomic_exchange(&jni_wrapped, 1)) return;
  jniNativeInterface *t = NULL;
  if ((*jvmti)->GetJNIFunctionTable(jvmti, &t) != JVMTI_ERROR_NONE || !t) {
    counters_prop(ORCA_INFO_WARNING, "cannot read the JNI function table: monitors entered through JNI are not listed held");
    return;
  }
  jni_enter = t->MonitorEnter;
  jni_exit = t->MonitorExit;
  t->MonitorEnter = my_jni_enter;
  t->MonitorExit = my_jni_exit;
  if ((*jvmti)->SetJNIFunctionTable(jvmti, t) != JVMTI_ERROR_NONE)
    counters_prop(ORCA_INFO_WARNING, "cannot set the JNI function table: monitors entered through JNI are not listed held");
  (*jvmti)->Deallocate(jvmti, (unsigned char *)t);
}

// held_own reads the monitors the calling thread holds from its own frames
// (walk_held): about a stack walk's time, no JVMTI call, nothing asked of
// the held thread. Used only when every one of them is hashed and its class
// named already (an object's first sight needs a JNI reference, which only
// JVMTI's answer gives) and no collection ran meanwhile (the oops read are
// then the objects'): else 0, and the caller asks JVMTI as before.
static __thread int64_t own_ns;
// own_jni: the last held_own failed for a monitor entered through JNI
// (held_asked counts it).
static __thread int own_jni;

void held_time_own(int freed) {
  if (!switches.time_held) return;
  int64_t d = own_ns;
  int b = 0;
  while (b < THIST - 1 && (2L << b) <= d) b++;
  atomic_fetch_add(&t_own_hist[b], 1);
  atomic_fetch_add(&t_own_tried, 1);
  atomic_fetch_add(&t_own_ns, d);
  if (freed) {
    atomic_fetch_add(&t_own_freed, 1);
    atomic_fetch_add(&t_own_freed_ns, d);
  }
  long m = atomic_load(&t_own_max);
  while (d > m && !atomic_compare_exchange_weak(&t_own_max, &m, d)) {
  }
}

int held_own(JNIEnv *env, jobject o, int virt) {
  own_n = -1;
  waited = 0;   // memory reads under the fault guard: it runs, or is preempted, never waits
  if (switches.held_jvmti || !objhash_stw()) return 0;
  virt = virt != 0;
  int64_t t0 = switches.time_held ? clock_now() : 0;
  unsigned long e = objhash_epoch();
  int n = -1, why = -1;
  if (jni_held > 0) {
    why = WHY_JNI;
  } else {
    n = e & 1 ? -1 : walk_held(env, hs_handle_oop_now(o), virt, own, OWN_MAX);
    why = n == WALK_CHUNK ? WHY_CHUNK : n < 0 ? WHY_WALK : -1;
  }
  if (n >= 0 && objhash_epoch() != e) n = -1, why = WHY_GC;
  for (int i = 0; i < n; i++)
    if (!own[i].hash || !objclass_known(own[i].hash)) why = own[i].hash ? WHY_CLASS : WHY_HASH, n = -1;
  if (switches.held_check && why >= 0) atomic_fetch_add(&c_why[virt][why], 1);
  if (switches.time_held) own_ns = clock_now() - t0;
  if (switches.held_check) check(env, o, n, virt);
  if (n < 0) {
    own_jni = why == WHY_JNI;
    return 0;
  }
  if (switches.time_held) atomic_fetch_add(&t_own, 1);
  counter_add(CNT_HELD_READ, 1);
  if (virt) counter_add(CNT_HELD_VIRTUAL_READ, 1);
  own_n = n;
  test_slow();
  test_preempt();
  return 1;
}

// held_virtual: a virtual thread's contended enter not read from its frames
// is asked by the held thread, as a platform thread's (JVMTI lists a
// virtual thread's monitors, mounted or not, its transitions held off for
// the call). On 24+ only (JEP 491, HotSpot's owner a thread id: verified
// on 25); before, such an enter is asked in the thread with lockorder=yes
// alone, else skipped (held_monitors_skipped).
void held_asked(int virt) {
  counter_add(CNT_HELD_ASKED, 1);
  if (virt) counter_add(CNT_HELD_VIRTUAL_ASKED, 1);
  if (own_jni) counter_add(CNT_HELD_JNI, 1);
  own_jni = 0;
}

int held_virtual(void) { return held_async() && hs_has(HS_OWNER_TID); }

// held_ask runs on the held thread (threads/pending.h), for a thread that
// blocked in a contended enter and queued its request: JVMTI lists its
// monitors by a handshake, which HotSpot runs on this side while the
// thread stays blocked (a thread that gets its monitor meanwhile waits
// for the handshake's end before it runs on: that is all it can lose).
// The answer is kept only if the thread was still in that enter after it
// (pending_held_still): then it is exactly the set held while it blocked,
// and perhaps the monitor it wanted, once it got it, which is left out.
static void held_ask(JNIEnv *env, pending_tstate *p, const pending_held_req *r, int (*claim)(pending_tstate *, int)) {
  jint n = 0;
  jvmtiMonitorStackDepthInfo *info = NULL;
  int64_t t0 = switches.time_held ? clock_now() : 0;
  jvmtiError e = (*jvmti)->GetOwnedMonitorStackDepthInfo(jvmti, r->ref, &n, &info);
  int64_t t1 = switches.time_held ? clock_now() : 0;
  // Each request counted once: by whoever gives it up (the writer gives up
  // a stale one, and every one open at the recording's end, counting it).
  if (e != JVMTI_ERROR_NONE) {
    if (claim(p, 0))
      counter_add(e == JVMTI_ERROR_THREAD_NOT_ALIVE || e == JVMTI_ERROR_WRONG_PHASE ? CNT_HELD_DROPPED : CNT_HELD_UNREAD, 1);
    return;
  }
  test_slow();
  // got: 1 when it had its monitor in the answer (it owned it before the
  // handshake's end, and waited for the call's end), 2 when it left the
  // enter between the checks without (it may have had it during the call).
  int still = pending_held_still(p, r), keep = still && claim(p, 1), got = still ? 0 : 2;
  if (!still && claim(p, 0)) counter_add(CNT_HELD_DROPPED, 1);
  for (jint i = 0; i < n; i++) {
    jobject m = info[i].monitor;
    uint32_t h = keep || switches.time_held ? objhash_of(m) : 0;
    if (h == r->obj) got = 1;
    if (keep && h && h != r->obj) {
      objclass_write(env, r->shard, r->hash, r->ts, m, h);
      char d[12];
      int dl = info[i].stack_depth >= 0 ? snprintf(d, sizeof d, "%d", (int)info[i].stack_depth) : 0;
      ring_put(r->shard, ORCA_EV_MONITOR_HELD, r->ts, r->hash, h, 0, NULL, 0, d, dl);
    }
    (*env)->DeleteLocalRef(env, m);
  }
  if (info) (*jvmti)->Deallocate(jvmti, (unsigned char *)info);
  held_time_call(t1 - t0, got, keep, t0 - r->ts);
}

void held_start(JNIEnv *env, jthread cur) {
  if (!held_on()) return;
  walk_held_init();
  jni_wrap();
  if (!held_async()) return;
  pending_on_held(held_ask);
  const char *err = pending_start_held(env, cur);
  if (err) counters_prop(ORCA_INFO_WARNING, err);
}

static void write_monitors(JNIEnv *env, tstate *s, int64_t ts) {
  for (int i = 0; s && i < own_n; i++) {
    char d[12];
    int dl = snprintf(d, sizeof d, "%d", own[i].depth);
    ring_put(s->shard, ORCA_EV_MONITOR_HELD, ts, s->hash, own[i].hash, 0, NULL, 0, d, dl);
  }
  own_n = -1;
  for (jint i = 0; i < read_n; i++) {
    jobject m = read_info[i].monitor;
    if (s) {
      uint32_t h = objhash_of(m);
      // Its class, once per object (the report's lock-order nodes of
      // short-lived locks are their class and site).
      objclass_write(env, s->shard, s->hash, ts, m, h);
      char d[12];
      int dl = read_info[i].stack_depth >= 0 ? snprintf(d, sizeof d, "%d", (int)read_info[i].stack_depth) : 0;
      ring_put(s->shard, ORCA_EV_MONITOR_HELD, ts, s->hash, h, 0, NULL, 0, d, dl);
    }
    (*env)->DeleteLocalRef(env, m);
  }
  if (read_info) (*jvmti)->Deallocate(jvmti, (unsigned char *)read_info);
  read_info = NULL;
  read_n = 0;
}

// The natives are found by name at their first call, which runs Java code
// (ClassLoader.findNative): inside the application's first lock. So each is
// called once here, as inject_bind_own does; the classes are loaded (the
// JDK's start loads ReentrantLock; the two inner ones are small).
void held_bind(JNIEnv *env) {
  if (opt.lock_order != ORCA_LOCK_ORDER_ALL || opt.seed_only || !atomic_load(&rewritten)) return;
  int ok = 1;
  for (int i = 0; i < NCLASSES; i++) {
    jclass c = (*env)->FindClass(env, classes[i].name);
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), c = NULL;
    if (!c) { ok = 0; continue; }
    jmethodID m = (*env)->GetStaticMethodID(env, c, "orca$hook", "(ILjava/lang/Object;)V");
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), m = NULL;
    jmethodID mj = (*env)->GetStaticMethodID(env, c, "orca$hookJ", "(ILjava/lang/Object;J)V");
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), mj = NULL;
    if (m) (*env)->CallStaticVoidMethod(env, c, m, (jint)HOOK_BIND, (jobject)NULL);
    if (mj) (*env)->CallStaticVoidMethod(env, c, mj, (jint)HOOK_BIND, (jobject)NULL, (jlong)0);
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), ok = 0;
    f_sync[i] = (*env)->GetFieldID(env, c, "sync", classes[i].sync_sig);
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), f_sync[i] = NULL;
    if (!m || !mj || !f_sync[i]) ok = 0;
    (*env)->DeleteLocalRef(env, c);
  }
  static const char *const sync_names[2] = {"java/util/concurrent/locks/ReentrantLock$Sync",
                                            "java/util/concurrent/locks/ReentrantReadWriteLock$Sync"};
  for (int i = 0; i < 2; i++) {
    jclass c = (*env)->FindClass(env, sync_names[i]);
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), c = NULL;
    if (c) {
      syncs[i] = (*env)->NewGlobalRef(env, c);
      (*env)->DeleteLocalRef(env, c);
    } else ok = 0;
  }
  if (!ok) {
    counters_prop(ORCA_INFO_WARNING, "cannot hook the java.util.concurrent locks: the locks a thread holds are missing");
    for (int i = 0; i < NCLASSES; i++) f_sync[i] = NULL;
    return;
  }
  atomic_store(&bound, 1);
}

int held_lock(JNIEnv *env, jobject o) {
  if (!o || !atomic_load_explicit(&bound, memory_order_relaxed)) return 0;
  return (*env)->IsInstanceOf(env, o, syncs[0]) || (*env)->IsInstanceOf(env, o, syncs[1]);
}

static juc_tstate *part(tstate *s) {
  if (!s->juc) s->juc = calloc(1, sizeof *s->juc);
  return s->juc;
}

// The hooks run on every acquire and release: a thread-local lookup, one
// JNI field read, the synchronizer's identity hash (a per-thread cache by
// address after the first), and at an acquire a walk of two frames (the
// method that called lock). Nothing is written: the list is written when
// the thread contends (held_write).
static void hook(JNIEnv *env, int cls, jint op, jobject o, jlong ret) {
  if (op == HOOK_BIND || !o) return;
  int tag = HOOK_TAG_OF(op);
  if ((tag == TAG_TRY && !ret) || !f_sync[cls]) return;
  event e;
  tstate *s = event_begin(&e, env, NULL, ORCA_EV_LOCK_HELD, EV_PLATFORM | EV_ALWAYS);
  if (!s) return;   // an agent thread, a virtual thread (its stack moves: not kept)
  jobject sync = (*env)->GetObjectField(env, o, f_sync[cls]);
  uint32_t h = objhash_of(sync);
  juc_tstate *p = part(s);
  int mode = classes[cls].mode;
  if (!h || !p) goto out;
  if (tag == TAG_RELEASE) {
    for (int i = p->n - 1; i >= 0; i--)
      if (p->e[i].obj == h && p->e[i].mode == mode) {
        if (--p->e[i].count == 0) {
          memmove(&p->e[i], &p->e[i + 1], (size_t)(p->n - i - 1) * sizeof p->e[0]);
          p->n--;
        }
        break;
      }
    goto out;
  }
  for (int i = p->n - 1; i >= 0; i--)
    if (p->e[i].obj == h && p->e[i].mode == mode) {
      p->e[i].count++;
      goto out;
    }
  if (p->n == JUC_HELD) {
    counter_add(CNT_HELD_LOCKS_LOST, 1);
    goto out;
  }
  orca_frame fr[2];
  int k = stack_capture_own(env, 1, fr, 2);   // the hooked method, its caller
  p->e[p->n].obj = h;
  p->e[p->n].site = k == 2 ? fr[1].method : 0;
  p->e[p->n].count = 1;
  p->e[p->n].mode = mode;
  p->n++;
  // Its class, once per object: a table read after the first; the first
  // (JNI's GetObjectClass, a signature once per class) runs holding this
  // lock, the one place the object is at hand. A lock made per call pays it
  // at every acquire: with --lock-order only.
  if (orca_recording()) objclass_write(env, s->shard, s->hash, -1, sync, h);
out:
  if (sync) (*env)->DeleteLocalRef(env, sync);
}

void held_write(JNIEnv *env, tstate *s, int64_t ts, const orca_frame *fr, int n, uint32_t wanted) {
  write_monitors(env, s, ts);
  juc_tstate *p = s ? s->juc : NULL;
  if (!p) return;
  for (int i = 0; i < p->n; i++) {
    if (p->e[i].obj == wanted) continue;   // a reentry, or a read lock's upgrade
    int d = -1;
    for (int k = 0; k < n && d < 0 && p->e[i].site; k++)
      if (fr[k].method == p->e[i].site) d = k;
    char b[12];
    int dl = d >= 0 ? snprintf(b, sizeof b, "%d", d) : 0;
    ring_put_mode(s->shard, ORCA_EV_LOCK_HELD, ts, s->hash, p->e[i].obj, 0, NULL, 0, b, dl, p->e[i].mode);
  }
}

#define NATIVES(C, I)                                                                                                  \
  JNIEXPORT void JNICALL Java_java_util_concurrent_locks_##C##_orca_00024hook(JNIEnv *env, jclass c, jint op, jobject o) { \
    (void)c;                                                                                                           \
    hook(env, I, op, o, 0);                                                                                            \
  }                                                                                                                    \
  JNIEXPORT void JNICALL Java_java_util_concurrent_locks_##C##_orca_00024hookJ(JNIEnv *env, jclass c, jint op, jobject o, \
                                                                               jlong arg) {                            \
    (void)c;                                                                                                           \
    hook(env, I, op, o, arg);                                                                                          \
  }
NATIVES(ReentrantLock, C_REENTRANT)
NATIVES(ReentrantReadWriteLock_00024ReadLock, C_READ)
NATIVES(ReentrantReadWriteLock_00024WriteLock, C_WRITE)
