#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include "counters.h"
#include "clock.h"
#include "hsstat.h"
#include "methods.h"
#include "objhash.h"
#include "pending.h"
#include "waitobj.h"

#define ACQ memory_order_acquire
#define REL memory_order_release
#define RLX memory_order_relaxed

static int claim(_Atomic int *state, int from, int to) {
  return atomic_compare_exchange_strong_explicit(state, &from, to, memory_order_acq_rel, RLX);
}

// await spins while the other side writes the record (a copy, or one
// stack walk); returns the state it left.
static int await(_Atomic int *state) {
  int st;
  while ((st = atomic_load_explicit(state, ACQ)) == SLOT_BUSY) sched_yield();
  return st;
}

static void put_entered_at(tstate *s, int64_t ts) {
  ring_put(s->shard, ORCA_EV_MONITOR_CONTENDED_ENTERED, ts, s->hash, s->enter_obj, 0, s->enter_frames, s->enter_n, NULL, 0);
  s->enter_obj = 0;
}

static int64_t ticks_ns(tstate *s) {
  return clock_ticks_ns(atomic_load_explicit(&s->entered_ticks, RLX), s->enter_ns, s->enter_ticks);
}

// timed_ns returns the Entered time of an Enter HotSpot timed, once it has
// ended: from the timer, or, if the timer was reset meanwhile
// (ThreadMXBean), the time it is found ended (counted).
static int64_t timed_ns(tstate *s, int r, int64_t ns) {
  int64_t now = clock_now();
  if (r != 1) {
    counter_add(CNT_ENTERED_LATE, 1);
    return now;
  }
  return ns < s->enter_ns ? s->enter_ns : ns > now ? now : ns;
}

static void put_wait(tstate *s) {
  ring_put(s->shard, ORCA_EV_OBJECT_WAIT, atomic_load_explicit(&s->wait_ts, RLX), s->hash, s->wait_obj, 0,
           s->wait_frames, s->wait_n, NULL, 0);
}

void pending_enter(tstate *s, int timed) {
  atomic_store_explicit(&s->entered_by_timer, 0, RLX);
  if (timed) atomic_store_explicit(&s->entered_state, SLOT_TIMED, REL);
}

void pending_entered(tstate *s, int64_t ticks, jobject o) {
  for (;;) {
    int st = atomic_load_explicit(&s->entered_state, ACQ);
    if (st == SLOT_BUSY) {   // the writer looks at the timer
      await(&s->entered_state);
      continue;
    }
    if (st == SLOT_TIMED) {   // the timer is being checked, or was just turned off
      hsstat_check(&s->enter_hs, clock_ticks_ns(ticks, s->enter_ns, s->enter_ticks));
      atomic_store_explicit(&s->entered_ticks, ticks, RLX);
      if (claim(&s->entered_state, SLOT_TIMED, SLOT_PENDING)) return;
      continue;
    }
    if (st != SLOT_EMPTY || atomic_load_explicit(&s->entered_by_timer, ACQ)) return;
    break;
  }
  if (!s->enter_obj) {   // its Enter came before the agent started
    s->enter_obj = objhash_of(o);
    s->enter_n = 0;
    clock_pair(&s->enter_ns, &s->enter_ticks);
    ticks = s->enter_ticks;
  }
  atomic_store_explicit(&s->entered_ticks, ticks, RLX);
  atomic_store_explicit(&s->entered_state, SLOT_PENDING, REL);
}

// settle_entered: the thread writes its own deferred Entered (it runs, so
// the enter has ended).
static void settle_entered(tstate *s) {
  if (s->needs_entered) {
    // The enter needed its Entered callback and none came: never silent,
    // and the pair stays a pair.
    pending_entered_done(s);
    if (atomic_load_explicit(&s->entered_state, ACQ) == SLOT_EMPTY &&
        !atomic_load_explicit(&s->entered_by_timer, ACQ)) {
      counter_add(CNT_ENTERED_LOST, 1);
      put_entered_at(s, clock_now());
      return;
    }
  }
  for (;;) {
    int st = atomic_load_explicit(&s->entered_state, ACQ);
    if (st == SLOT_EMPTY) return;
    if (st == SLOT_BUSY) {
      await(&s->entered_state);
      continue;
    }
    int64_t ns = 0;
    if (st == SLOT_TIMED) {
      int r = hsstat_end(&s->enter_hs, &ns);
      ns = timed_ns(s, r, ns);
    } else {
      ns = ticks_ns(s);
    }
    atomic_store_explicit(&s->entered_lb, ns, RLX);   // for the writer, before BUSY
    if (claim(&s->entered_state, st, SLOT_BUSY)) {
      put_entered_at(s, ns);
      if (st == SLOT_TIMED) {
        atomic_store_explicit(&s->entered_by_timer, 1, RLX);
        counter_add(CNT_ENTERED_BY_TIMER, 1);
      }
      atomic_store_explicit(&s->entered_state, SLOT_EMPTY, REL);
      return;
    }
  }
}

void pending_settle(tstate *s) {
  settle_entered(s);
  // A wait still open here never waited: wait() threw (not the owner, a
  // negative timeout) after JVMTI posted MonitorWait. Forget it if unwritten.
  if (atomic_load_explicit(&s->wait_state, RLX) != SLOT_EMPTY && !claim(&s->wait_state, SLOT_PENDING, SLOT_EMPTY)) {
    await(&s->wait_state);
    atomic_store_explicit(&s->wait_state, SLOT_EMPTY, REL);
  }
}

void pending_wait(tstate *s, JNIEnv *env, jthread t, jobject o, uint32_t obj, int64_t ts) {
  if (atomic_load_explicit(&s->wait_state, RLX) != SLOT_EMPTY) pending_settle(s);
  if (!s->ref && env && t) s->ref = (*env)->NewGlobalRef(env, t);
  s->wait_arg = o;
  s->wait_obj = obj;
  atomic_store_explicit(&s->wait_ts, ts, RLX);
  atomic_store_explicit(&s->wait_state, SLOT_PENDING, REL);
}

void pending_waited(tstate *s, jobject o, int64_t ts) {
  // Before the monitor is re-entered: HotSpot's timer (hsstat.h) times the
  // re-entry too, so an Entered still deferred is written first, also on
  // the VM's own waits.
  settle_entered(s);
  if (atomic_load_explicit(&s->wait_state, ACQ) == SLOT_EMPTY) return;
  if (claim(&s->wait_state, SLOT_PENDING, SLOT_BUSY)) {
    // Not holding the monitor any more: the stack walk and the hash cost
    // nobody else.
    if (!s->wait_obj) s->wait_obj = objhash_of(o);
    s->wait_n = stack_capture(NULL, 0, s->wait_frames, opt.depth);
    put_wait(s);
  } else {
    await(&s->wait_state);   // the writer wrote the Wait, and its frames
  }
  ring_put(s->shard, ORCA_EV_OBJECT_WAITED, ts, s->hash, s->wait_obj, 0, s->wait_frames, s->wait_n, NULL, 0);
  atomic_store_explicit(&s->wait_state, SLOT_EMPTY, REL);
}

// ---- writer and walker ----

typedef struct {
  int64_t cutoff, stale_before;
} flush_t;

static void flush_one(tstate *s, void *arg) {
  flush_t *f = arg;
  int st = atomic_load_explicit(&s->entered_state, ACQ);
  if (st == SLOT_PENDING && claim(&s->entered_state, SLOT_PENDING, SLOT_BUSY)) {
    put_entered_at(s, ticks_ns(s));
    atomic_store_explicit(&s->entered_state, SLOT_EMPTY, REL);
  } else if (st == SLOT_TIMED && claim(&s->entered_state, SLOT_TIMED, SLOT_BUSY)) {
    // Claimed first: the thread cannot begin another enter meanwhile.
    int64_t ns = 0;
    int r = hsstat_end(&s->enter_hs, &ns);
    if (r != 0 && hsstat_trusted_ever()) {
      put_entered_at(s, timed_ns(s, r, ns));
      atomic_store_explicit(&s->entered_by_timer, 1, RLX);
      counter_add(CNT_ENTERED_BY_TIMER, 1);
      atomic_store_explicit(&s->entered_state, SLOT_EMPTY, REL);
    } else {
      // Still blocked: its Entered comes later than now. Ended while the
      // timer is being checked: its callback writes it, not before the Enter.
      if (r != 0 && s->enter_ns < f->cutoff) f->cutoff = s->enter_ns;
      atomic_store_explicit(&s->entered_state, SLOT_TIMED, REL);
    }
  } else if (atomic_load_explicit(&s->entered_state, ACQ) == SLOT_BUSY) {
    // The thread writes it right now; hold back what came after.
    int64_t ts = atomic_load_explicit(&s->entered_lb, RLX);
    if (ts < f->cutoff) f->cutoff = ts;
  }
  st = atomic_load_explicit(&s->wait_state, ACQ);
  if (st == SLOT_EMPTY || st == SLOT_WRITTEN) return;
  int64_t ts = atomic_load_explicit(&s->wait_ts, RLX);
  if (st == SLOT_PENDING && ts < f->stale_before && claim(&s->wait_state, SLOT_PENDING, SLOT_BUSY)) {
    s->wait_n = 0;
    put_wait(s);
    atomic_store_explicit(&s->wait_state, SLOT_WRITTEN, REL);
    return;
  }
  if (ts < f->cutoff) f->cutoff = ts;
}

int64_t pending_flush(int64_t cutoff, int64_t stale_before) {
  flush_t f = {cutoff, stale_before};
  threads_each(flush_one, &f);
  return f.cutoff;
}

typedef struct {
  int64_t old_before;
  tstate **claimed;
  int n, cap;
} walk_t;

static void claim_old(tstate *s, void *arg) {
  walk_t *w = arg;
  if (w->n == w->cap) return;   // the rest at the next round
  if (atomic_load_explicit(&s->wait_state, ACQ) != SLOT_PENDING) return;
  if (atomic_load_explicit(&s->wait_ts, RLX) >= w->old_before) return;
  if (s->ref && claim(&s->wait_state, SLOT_PENDING, SLOT_BUSY)) w->claimed[w->n++] = s;
}

void pending_walk(int64_t old_before) {
  tstate *buf[256];
  walk_t w = {old_before, buf, 0, 256};
  do {
    w.n = 0;
    threads_each(claim_old, &w);
    // Walk outside the registry's mutex: a claimed state stays alive, as
    // its thread waits for SLOT_WRITTEN before it can end. A wait whose
    // object is not known yet gets it named first.
    JNIEnv *env = NULL;
    if ((*orca_vm)->GetEnv(orca_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) env = NULL;
    for (int i = 0; i < w.n; i++) {
      tstate *s = w.claimed[i];
      if (!s->wait_obj && !(s->wait_obj = env ? waitobj_hash(env, s->ref, s->wait_arg) : 0)) {
        atomic_store_explicit(&s->wait_state, SLOT_PENDING, REL);   // its thread writes it
        continue;
      }
      s->wait_n = stack_capture(s->ref, 0, s->wait_frames, opt.depth);
      put_wait(s);
      atomic_store_explicit(&s->wait_state, SLOT_WRITTEN, REL);
    }
  } while (w.n == w.cap);
}

static jthread walker, calibrator;
static atomic_int walker_alive;
// The walker sleeps in a JVMTI raw monitor, not in usleep: HotSpot's exit
// waits for threads that are in native code (up to 0.3 s), not for blocked
// ones, and VM death wakes it.
static jrawMonitorID walker_mon;

int pending_walker_alive(void) { return atomic_load(&walker_alive); }

int pending_is_walker(JNIEnv *env, jthread t) {
  return t && ((walker && (*env)->IsSameObject(env, walker, t)) || (calibrator && (*env)->IsSameObject(env, calibrator, t)));
}

static void JNICALL walker_run(jvmtiEnv *j, JNIEnv *env, void *arg) {
  (void)j; (void)arg;
  threads_internal();
  atomic_store(&walker_alive, 1);
  hsstat_calibrate(env, calibrator);
  (*jvmti)->RawMonitorEnter(jvmti, walker_mon);
  while (orca_recording()) {
    (*jvmti)->RawMonitorWait(jvmti, walker_mon, opt.flush_ms);
    if (!orca_recording()) break;
    (*jvmti)->RawMonitorExit(jvmti, walker_mon);
    pending_walk(clock_now() - (int64_t)opt.flush_ms * 1000000);
    (*jvmti)->RawMonitorEnter(jvmti, walker_mon);
  }
  (*jvmti)->RawMonitorExit(jvmti, walker_mon);
  atomic_store(&walker_alive, 0);
}

void pending_stop_walker(void) {
  if (!walker_mon) return;
  (*jvmti)->RawMonitorEnter(jvmti, walker_mon);
  (*jvmti)->RawMonitorNotifyAll(jvmti, walker_mon);
  (*jvmti)->RawMonitorExit(jvmti, walker_mon);
}

// new_thread makes a java.lang.Thread for JVMTI's RunAgentThread.
static jthread new_thread(JNIEnv *env, const char *name) {
  jclass c = (*env)->FindClass(env, "java/lang/Thread");
  jmethodID init = c ? (*env)->GetMethodID(env, c, "<init>", "(Ljava/lang/String;)V") : NULL;
  jstring s = init ? (*env)->NewStringUTF(env, name) : NULL;
  jthread t = s ? (*env)->NewObject(env, c, init, s) : NULL;
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
  return t;
}

const char *pending_start_walker(JNIEnv *env) {
  if ((*jvmti)->CreateRawMonitor(jvmti, "orca walker", &walker_mon) != JVMTI_ERROR_NONE) {
    walker_mon = NULL;
    return "cannot create the walker's monitor";
  }
  // Both Thread objects are made here, before main runs: their
  // constructors are Java code (ThreadGroup bookkeeping under its monitor).
  jthread cal = new_thread(env, "orca calibration");
  if (cal) calibrator = (*env)->NewGlobalRef(env, cal);
  jthread t = new_thread(env, "orca walker");
  if (!t || !(walker = (*env)->NewGlobalRef(env, t))) return "cannot create the walker thread";
  if ((*jvmti)->RunAgentThread(jvmti, walker, walker_run, NULL, JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE)
    return "cannot start the walker thread";
  return NULL;
}
