#include "clock.h"
#include "hsstat.h"
#include "methods.h"
#include "objhash.h"
#include "monitor.h"
#include "owner.h"
#include "pending.h"
#include "threads.h"
#include "writer.h"

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
// with waitobj.c (JDK 19+: through ThreadInfo.getLockInfo; H2/25 went from
// 1.30 to 0.91 times JFR's contended enters). Without a walker it is taken
// here.
void monitor_wait_begin(JNIEnv *env, jobject o) {
  if (!orca_recording()) return;
  tstate *s = thread_self(NULL);
  if (!s) return;
  if (s->join_depth > 0) {   // the wait inside Thread.join is the join itself
    atomic_fetch_add_explicit(&count_suppressed_waits, 1, memory_order_relaxed);
    return;
  }
  int64_t ts = clock_now();
  jthread t = NULL;
  if (!s->ref) (*jvmti)->GetCurrentThread(jvmti, &t);   // once per thread
  int later = orca_feature >= 11 && pending_walker_alive();
  pending_wait(s, env, t, later ? 0 : objhash_of(o), ts);
}

void monitor_wait_end(void) {
  tstate *s = orca_recording() ? thread_self(NULL) : NULL;
  // MonitorWaited has written the pair; a wait still open never waited
  // (wait threw: not the owner, a negative timeout): forget it.
  if (s && atomic_load_explicit(&s->wait_state, memory_order_relaxed) != SLOT_EMPTY) pending_settle(s);
}

// MonitorWaited runs before the monitor is taken again: the stack walk for
// the pair happens here.
void JNICALL monitor_on_waited(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o, jboolean timed_out) {
  (void)j; (void)env; (void)timed_out;
  if (!orca_recording()) return;
  int64_t ts = clock_now();
  tstate *s = thread_self(t);
  // HotSpot posts MonitorWaited, but not MonitorWait, for the VM's own
  // waits (class initialisation locks), and a wait may have begun before
  // the agent started: pending_waited writes a Waited only after a Wait.
  if (s) pending_waited(s, o, ts);
}

// The Entered callback stays on until HotSpot's timer of contended enters
// is trusted (hsstat.h), then goes off; back on for good if an enter is not
// timed after that.
static atomic_int entered_off;

static void entered_switch(int timed) {
  int off = atomic_load_explicit(&entered_off, memory_order_relaxed);
  if (timed && !off && hsstat_trusted() && !hsstat_verifying() && !atomic_exchange(&entered_off, 1)) {
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
  } else if (!timed && off == 1 && atomic_exchange(&entered_off, 2) == 1) {
    hsstat_lost();
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
  }
}

void JNICALL monitor_on_contended_enter(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o) {
  (void)j;
  if (!orca_recording()) return;
  int64_t ts, ticks;
  clock_pair(&ts, &ticks);   // one instant: Entered's ticks convert from it
  // Read the owner first: the longer we wait, the likelier it has left.
  uint32_t owner = owner_of_pending(env, o);
  tstate *s = thread_self(t);
  if (!s) return;
  if (!owner) atomic_fetch_add_explicit(&count_owner_unknown, 1, memory_order_relaxed);
  pending_settle(s);   // the previous Entered still uses enter_frames
  s->enter_ns = ts;
  s->enter_ticks = ticks;
  s->enter_n = stack_capture(NULL, 0, s->enter_frames, opt.depth);
  s->enter_obj = owner_pending_hash(env);
  if (!s->enter_obj) s->enter_obj = objhash_of(o);
  int timed = hsstat_begin(env, t, ts, &s->enter_hs);
  ring_put(s->shard, ORCA_EV_MONITOR_CONTENDED_ENTER, ts, s->hash, s->enter_obj, owner, s->enter_frames, s->enter_n,
           NULL, 0);
  pending_enter(s, timed);
  entered_switch(timed);
}

// MonitorContendedEntered runs once the thread owns the monitor: every
// nanosecond here lengthens the critical section (LockBench/17: this
// callback returning at once, 1.04-1.16 times JFR's contended enters; as
// here, 1.23-1.35; docs/PERFORMANCE.md), so only the time is noted, in
// ticks (clock.h); the record (the Enter's monitor and stack: a thread
// blocks on one monitor at a time) is written later (pending.c). Where
// HotSpot's timer is trusted the callback is off altogether.
void JNICALL monitor_on_contended_entered(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o) {
  (void)j; (void)env;
  if (!orca_recording()) return;
  int64_t ticks = clock_ticks();
  tstate *s = thread_self(t);
  if (s) pending_entered(s, ticks, o);
}
