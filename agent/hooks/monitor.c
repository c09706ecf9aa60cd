#include <pthread.h>
#include <string.h>
#include "hooks/clinit.h"
#include "core/counters.h"
#include "core/clock.h"
#include "hotspot/hsstat.h"
#include "stacks/methods.h"
#include "stacks/objclass.h"
#include "hotspot/objhash.h"
#include "hooks/monitor.h"
#include "hotspot/owner.h"
#include "threads/pending.h"
#include "threads/samples.h"
#include "threads/threads.h"
#include "hotspot/vmstructs.h"
#include "threads/waitobj.h"

// Where Thread.join is seen in its wait (monitor.h): set once at the
// agent's load, before any wait is wrapped.
static int (*join_wait)(JNIEnv *env, tstate *s, jobject o);
static void (*join_waited)(tstate *s, jobject o);

void monitor_join_hooks(int (*begin)(JNIEnv *, tstate *, jobject), void (*end)(tstate *, jobject)) {
  join_waited = end;
  join_wait = begin;
}

// monitor_wait_begin runs in the wrapper of the native Object.wait, before
// wait releases the monitor: anything slow here blocks the thread that will
// notify, so only the time is noted (pending.c). JVMTI's MonitorWait event
// is not used: posting it alone (handles, two thread-state transitions)
// held the monitor long enough to double H2's contention on JDK 17. Nor is
// the object's hash taken here: for an object not hashed before (H2's
// transactions) GetObjectHashCode alone took H2's Transaction monitor from
// 1.0 to 1.7 times JFR's contended enters. It is taken when the wait ends
// (MonitorWaited, the monitor released) or by the walker, which writes the
// waits still open after a flush period (pending.c), naming their objects
// with waitobj.c from the wrapper's own argument o. Without a walker, or
// where waitobj.c cannot name it later (ZGC, Shenandoah on JDK 19+), it is
// taken here.
static tstate *monitor_wait_begin(JNIEnv *env, jobject o, jlong ms) {
  event e;
  tstate *s = event_begin(&e, env, NULL, ORCA_EV_OBJECT_WAIT, EV_OWN);
  if (!s) return NULL;
  if (s->join_depth > 0) {   // the wait inside Thread.join is the join itself
    counter_add(CNT_SUPPRESSED_WAITS, 1);
    return s;
  }
  // After an attach Thread is not rewritten: the join is this wait
  // (inject.h), written as the join (s->join_depth 1 until it returns).
  if (!s->is_virtual && join_wait && join_wait(env, s, o)) {
    counter_add(CNT_SUPPRESSED_WAITS, 1);
    s->join_wait = 1;
    return s;
  }
  int64_t ts = clock_now();
  if (s->is_virtual) {
    // A virtual thread's wait native returns when it unmounts (24+, JEP
    // 491), before its wait ends: its argument is then a slot of its
    // carrier's, which the carrier reuses for other threads. Nothing may
    // read it later (issue 19: the walker's GetObjectClass on it crashed
    // the JVM), so the object is named now, hash and class (its class once
    // per object: a table lookup after the first).
    uint32_t h = objhash_of(o);
    objclass_write(env, s->shard, s->hash, ts, o, h);
    pending_wait(&s->pending, env, NULL, h, ts, ms);
  } else {
    int later = hs_has(HS_RELEASE_11) && pending_walker_alive() && waitobj_later();
    pending_wait(&s->pending, env, o, later ? 0 : objhash_of(o), ts, ms);
  }
  thread_blocking(env, s);
  return s;
}

static void monitor_wait_end(tstate *s, jobject o) {
  // First, recording or not: a walker's round may still be naming from it.
  if (s) pending_wait_returned(&s->pending);
  if (s && s->join_wait) {   // Thread.join's wait (monitor_wait_begin)
    s->join_wait = 0;
    join_waited(s, o);
    return;
  }
  if (!orca_recording()) {
    if (s && !s->is_virtual) pending_wait_left(&s->pending, o);   // stopped while it waited
    return;
  }
  // MonitorWaited has written the pair; a wait still open never waited
  // (wait threw: not the owner, a negative timeout): forget it.
  // On 24+ a virtual thread's wait native returns when it unmounts, before
  // its wait ends (its MonitorWaited comes later, when it is resumed): the
  // wait stays open. One that threw is forgotten at its next event.
  if (s && !s->is_virtual && pending_wait_open(&s->pending)) pending_settle(&s->pending, 0);
}

typedef void(JNICALL *wait_fn)(JNIEnv *, jobject, jlong);
static wait_fn orig_wait;
static int wait_bound;

// The wrapper of Object.wait's native: begin before the VM's wait, end
// after it returns with what begin returned (the thread's state; NULL on a
// virtual thread, which may return on another carrier).
static void JNICALL my_wait(JNIEnv *env, jobject o, jlong ms) {
  tstate *s = monitor_wait_begin(env, o, ms);
  // Waiting (or joining): the wall sampler's ticks skip it. A virtual
  // thread's wait (24+) returns at its unmount, which unmarks its carrier.
  void *mark = samples_blocking();
  orig_wait(env, o, ms);
  samples_unblocked(mark);
  monitor_wait_end(s, o);
}

int monitor_bind(const char *csig, const char *name, const char *sig, void *addr, void **new_addr) {
  if (csig ? strcmp(csig, "Ljava/lang/Object;") || strcmp(sig, "(J)V") || (strcmp(name, "wait") && strcmp(name, "wait0"))
           : wait_bound || strcmp(name, "JVM_MonitorWait"))
    return 0;
  if (addr == (void *)my_wait) return 1;
  orig_wait = (wait_fn)addr;
  *new_addr = (void *)my_wait;
  wait_bound = 1;
  return 1;
}

void monitor_report(void) {
  if (!wait_bound) counters_prop(ORCA_INFO_WARNING, "Object.wait is not intercepted yet; waits may be missing");
}

// MonitorWaited runs before the monitor is taken again: the stack walk for
// the pair happens here. timed_out is dropped: HotSpot passes whether the
// park timed out, not whether a notify took the thread from the wait set
// (a notifier holding the monitor past the timeout lets the park time out):
// beside JFR's notifier it was true for 878 notified waits of 904 on Tomcat
// 25 (docs/agent.md, "How a wait ended").
void JNICALL monitor_on_waited(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o, jboolean timed_out) {
  (void)j; (void)timed_out;
  event e;
  // A wait the thread was in at an attach ends here, and is all (EV_ENDS).
  tstate *s = event_begin(&e, env, t, ORCA_EV_OBJECT_WAITED, EV_FIRST | EV_ENDS);
  if (!s) return;
  int64_t ts = e.ts;
  // HotSpot posts MonitorWaited, but not MonitorWait, for the VM's own
  // waits (class initialisation locks: clinit.c), and a wait may have begun
  // before the agent started: pending_waited writes a Waited only after a Wait.
  if (!pending_wait_open(&s->pending)) clinit_waited(env, s->shard, s->hash, ts, o);
  pending_waited(&s->pending, env, o, ts);
  thread_resumed(env, s);
}

// The Entered callback is off while HotSpot's timer of contended enters is
// trusted (hsstat.h) and no blocked thread needs it: an enter that is not
// timed by the trusted timer (it began before the timer was found, or it is
// HotSpot's enter after the thread's end: tstate.ended, or monitoring is
// off) is counted in
// `needed` from its Enter until its Entered callback, and the callback is
// switched off only while that count is 0. The two sides run a Dekker
// handshake in seq_cst atomics: an Enter increments `needed` then reads
// `off`; the switch sets `off` then reads `needed`. One of them sees the
// other, so either the switch backs off, or the Enter finds the callback
// off and switches it on again, before its thread blocks (its Entered then
// comes). The switch itself (SetEventNotificationMode) runs under a mutex,
// so a late "off" cannot overtake an "on".
static atomic_int entered_off;
static atomic_long needed;
static pthread_mutex_t switch_mu = PTHREAD_MUTEX_INITIALIZER;

static void entered_done(void) { atomic_fetch_sub(&needed, 1); }

void monitor_init(void) { pending_on_entered_done(entered_done); }

void monitor_restart(void) { atomic_store(&entered_off, 0); }

static void need_callback(tstate *s) {
  if (!s->pending.needs_entered) {
    s->pending.needs_entered = 1;
    atomic_fetch_add(&needed, 1);
  }
  if (!atomic_load(&entered_off)) return;
  pthread_mutex_lock(&switch_mu);
  if (atomic_load(&entered_off)) {
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
    atomic_store(&entered_off, 0);
  }
  pthread_mutex_unlock(&switch_mu);
}

static void try_switch_off(void) {
  if (atomic_load_explicit(&entered_off, memory_order_relaxed) || atomic_load_explicit(&needed, memory_order_relaxed) ||
      hsstat_verifying() || !hsstat_trusted() || pthread_mutex_trylock(&switch_mu))
    return;
  if (!atomic_load(&entered_off) && hsstat_trusted()) {
    atomic_store(&entered_off, 1);
    if (atomic_load(&needed) == 0)
      (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
    else
      atomic_store(&entered_off, 0);   // an Enter needs it: back off, retried at a later one
  }
  pthread_mutex_unlock(&switch_mu);
}

static void entered_switch(tstate *s, int timed) {
  if (timed && hsstat_reliable(&s->pending.enter_hs)) {
    try_switch_off();
    return;
  }
  // Not timed after the timer was trusted: the application turned
  // monitoring off; stop using the timer (the callback stays on).
  if (!timed && hsstat_trusted() && !s->ended && !s->is_virtual) hsstat_lost();
  need_callback(s);
}

// The locks held at a contended enter (hooks/held.h, set by the jvm
// module: monitor_lock_order): NULL while none is set.
static int (*held_on)(void), (*held_async)(void), (*held_locks_on)(void), (*held_virtual)(void);
static int (*held_own)(JNIEnv *, jobject, int);
static void (*held_asked)(int);
static void (*held_time_own)(int);
static int (*held_waited)(void);
static void (*held_read)(void);
static void (*held_write)(JNIEnv *, struct tstate *, int64_t, const orca_frame *, int, uint32_t);
static void (*held_time_enter)(void);
static void (*held_time_call)(int64_t, int, int, int64_t);

void monitor_lock_order(const monitor_held *h) {
  held_time_call = h->time_call;
  held_time_enter = h->time_enter;
  held_write = h->write;
  held_read = h->read;
  held_own = h->own;
  held_asked = h->asked;
  held_time_own = h->time_own;
  held_waited = h->waited;
  held_async = h->async;
  held_virtual = h->virtual_async;
  held_locks_on = h->locks_on;
  held_on = h->on;
}

void JNICALL monitor_on_contended_enter(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o) {
  (void)j;
  event e;
  // One instant: Entered's ticks convert from it. The pending Entered of
  // the thread's last enter is settled below (pending_settle), not as an
  // own event's.
  tstate *s = event_begin(&e, env, t, ORCA_EV_MONITOR_CONTENDED_ENTER, EV_PAIR | EV_RUNS);
  if (!s) return;
  // The enter's time is the callback's entry (HotSpot shows the thread
  // BLOCKED from before it posts the callback, and JFR times its
  // JavaMonitorEnter from before that), and its owner the one read first,
  // at that instant: the longer we wait, the likelier it has left. An
  // owner read so held the monitor after the enter's time: it had not
  // ended before it.
  int64_t ts = e.ts, ticks = e.ticks;
  int why = 0;
  uint32_t owner = owner_of_pending_why(env, o, &why);
  // Unless lockorder=no, the monitors the thread holds: read from its own
  // frames, else asked by the held thread while this one blocks
  // (threads/pending.h: the request is queued after the Enter's record),
  // so that no JVMTI call runs here, holding them (docs/agent.md, "Held
  // monitors"). A virtual thread's the same on 24+ (held_virtual: JVMTI
  // lists a virtual thread's monitors, mounted or not); before, with
  // lockorder=yes alone, asked here, as all were before (below: the
  // enter's time after such a call).
  // Not when the monitor is free again by now (its owner left since the
  // thread contended: 2/3 of H2Bench's enters): the thread takes it as
  // the callback returns, so a call here would only keep the monitors it
  // holds from their own waiters that much longer, all of it, and the held
  // thread would come too late. Those enters' held monitors are left out,
  // counted.
  int lock_order = held_on && held_on();
  int async = lock_order && (!s->is_virtual || held_virtual()) && !s->ended && held_async();
  if (lock_order) {
    pending_held_enter(&s->pending);
    held_time_enter();
  }
  // First from its own frames, in about a stack walk's time: then nothing
  // is asked of JVMTI or of the held thread (hooks/held.h, held_own). A
  // virtual thread's down to its continuation's entry, when none is left
  // in its stack chunk.
  int own = lock_order && held_own(env, o, s->is_virtual);
  if (lock_order && switches.time_held) held_time_own(owner_pending_free(env));
  if (own) {
    async = 0;
  } else if (lock_order && s->is_virtual && !async && !held_locks_on()) {
    // Before 24 (or with ORCA_HELD_IN_THREAD) a virtual thread's would be
    // asked of JVMTI in the thread, holding its monitors. Only with
    // lockorder=yes (orca record --lock-order), as before the monitors
    // were the default; counted.
    lock_order = 0;
    counter_add(CNT_HELD_SKIPPED, 1);
  } else if (lock_order && owner_pending_free(env)) {
    lock_order = async = 0;
    counter_add(CNT_HELD_SKIPPED, 1);
  }
  if (lock_order && !own) held_asked(s->is_virtual);
  if (lock_order && !async && !own) {
    int64_t c0 = switches.time_held ? clock_now() : 0;
    held_read();
    if (switches.time_held) held_time_call(clock_now() - c0, owner_pending_free(env), 1, 0);
  }
  // The agent's reading ran inside the enter, the thread BLOCKED. The read
  // from the frames only runs (memory reads): however long it took (the OS
  // preempted it on a loaded machine: TestScenarioModel's 6 ms hold once
  // recorded as 37 us without an owner), the thread would have waited for
  // the monitor, and then for a CPU, as long without it; JFR and HotSpot's
  // timer count it so. The time stays the entry's. A reading that may have
  // waited (a JVMTI call in the thread: a safepoint, a handshake; the
  // test's sleep, TestHeldNotBlocked) is the agent's time when the monitor
  // came free or changed owner meanwhile: the enter is then timed after
  // it, with the owner at that time (the one read first may have let the
  // monitor go and ended: TestOwnerLeft; Tomcat 25 with virtual threads,
  // docs/perf/2026-12-02-jfr-servers.md), counted (held_monitors_retimed).
  // Still held by the owner read first, the whole time was the thread's
  // wait. docs/agent.md, "Held monitors": "The enter's time".
  if ((own || (lock_order && !async)) && held_waited()) {
    int why_now = 0;
    uint32_t now = owner_of_pending_why(env, o, &why_now);
    if (!owner || now != owner) {
      clock_pair(&ts, &ticks);
      owner = now;
      why = why_now;
      counter_add(CNT_HELD_RETIMED, 1);
    }
  } else if (!owner && why == CNT_OWNER_RELEASED && (own || lock_order)) {
    // Free at the entry: the monitor was between owners (HotSpot posts
    // the callback after its spin failed). Read again after the agent's
    // work, another thread may hold it now: the one this thread then
    // blocks behind, alive after the enter's time. ActiveMQ 17 at one
    // load: 7.8 % of the enters without an owner before 2026-12-02, 4.2 %
    // with this read (docs/perf/2026-12-02-enter-timing.md).
    int why_now = 0;
    uint32_t now = owner_of_pending_why(env, o, &why_now);
    if (now) owner = now, why = why_now;
  }
  if (!owner) counter_add(CNT_OWNER_UNKNOWN, 1);
  if (why) counter_add(why, 1);   // why unknown, or owner_unlocking
  pending_tstate *p = &s->pending;
  // The previous Entered still uses enter_frames. Still held by the writer
  // past the bound (pending.h): this pair is dropped and counted, not waited
  // for.
  if (!pending_settle(p, ts)) {
    pending_drop_enter(p);
    if (lock_order) held_write(env, NULL, ts, NULL, 0, 0);   // forgets them
    return;
  }
  p->enter_ns = ts;
  p->enter_ticks = ticks;
  p->enter_n = stack_capture(NULL, 0, p->enter_frames, opt.depth);
  p->enter_obj = owner_pending_hash(env);
  if (!p->enter_obj) p->enter_obj = objhash_of(o);
  // The thread owns nothing here (it is about to block): naming the
  // monitor's class costs only its own time, once per monitor. The JVM's
  // lock of a class is named then too (clinit.c names each once): not a
  // JNI call at every enter to ask.
  if (objclass_write(env, s->shard, s->hash, ts, o, p->enter_obj))
    clinit_enter(env, s->shard, s->hash, ts, o, p->enter_obj);
  // After its ThreadEnd (HotSpot's ensure_join) the thread's timer cannot
  // be read when the enter is settled, at its native end: its JavaThread
  // is gone by then. The callback times it.
  // Nor is a virtual thread's: the timer is its carrier's (on 24+ it may
  // unmount while blocked).
  int timed = !s->ended && !s->is_virtual && hsstat_begin(env, t, ts, &p->enter_hs);
  ring_put(s->shard, ORCA_EV_MONITOR_CONTENDED_ENTER, ts, s->hash, p->enter_obj, owner, p->enter_frames, p->enter_n,
           NULL, 0);
  if (lock_order) held_write(env, s, ts, p->enter_frames, p->enter_n, 0);   // async: the j.u.c. locks alone
  pending_enter(p, timed);
  if (async) pending_held_queue(p, env, ts, p->enter_obj, timed);
  entered_switch(s, timed);
  thread_blocking(env, s);   // a virtual thread's; after its own owner lookup
}

// MonitorContendedEntered runs once the thread owns the monitor: every
// nanosecond here lengthens the critical section (LockBench/17: this
// callback returning at once, 1.04-1.16 times JFR's contended enters; as
// here, 1.23-1.35; docs/perf/2026-11-before-issue-12.md), so only the time is noted, in
// ticks (clock.h); the record (the Enter's monitor and stack: a thread
// blocks on one monitor at a time) is written later (pending.c). Where
// HotSpot's timer is trusted the callback is off altogether.
void JNICALL monitor_on_contended_entered(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o) {
  (void)j;
  event e;
  // An enter the thread was blocked in at an attach ends here, and is all
  // (EV_ENDS); else what it did at the attach is over (EV_RUNS: a thread
  // that blocked before the events were on has no Enter: pending_entered
  // writes it, after the state an attach's snapshot saw ends).
  tstate *s = event_begin(&e, env, t, ORCA_EV_MONITOR_CONTENDED_ENTERED, EV_TICKS | EV_ENDS | EV_RUNS);
  if (!s) return;
  int64_t ticks = e.ticks;
  pending_held_left(&s->pending);   // a request for its held monitors is stale
  // 24+: HotSpot posts MonitorContendedEntered, with no MonitorContendedEnter
  // before it, when a virtual thread takes the monitor back after
  // Object.wait (a platform thread's re-entry posts neither): not a
  // contention of its own (its Enter would have named the object). Seen on
  // Tomcat with virtual threads: 1000+ unpaired Entered lines.
  if (s->is_virtual && !s->pending.enter_obj) {
    thread_resumed(env, s);
    return;
  }
  pending_entered(&s->pending, env, ticks, o);
  if (s->pending.needs_entered) pending_entered_done(&s->pending);
  thread_resumed(env, s);
}
