#include "clock.h"
#include "methods.h"
#include "monitor.h"
#include "owner.h"
#include "threads.h"
#include "writer.h"

static uint32_t hash_of(jobject o) {
  jint h = 0;
  if (o) (*jvmti)->GetObjectHashCode(jvmti, o, &h);
  return (uint32_t)h;
}

void JNICALL monitor_on_wait(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o, jlong timeout) {
  (void)j; (void)env; (void)timeout;
  if (!orca_recording()) return;
  tstate *s = thread_self(t);
  if (!s) return;
  if (s->join_depth > 0) {   // the wait inside Thread.join is the join itself
    atomic_fetch_add_explicit(&count_suppressed_waits, 1, memory_order_relaxed);
    return;
  }
  int64_t ts = clock_now();
  s->wait_n = stack_capture(0, s->wait_frames, opt.depth);
  s->in_wait = 1;
  ring_put(s->shard, ORCA_EV_OBJECT_WAIT, ts, s->hash, hash_of(o), 0, s->wait_frames, s->wait_n, NULL, 0);
}

void JNICALL monitor_on_waited(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o, jboolean timed_out) {
  (void)j; (void)env; (void)timed_out;
  if (!orca_recording()) return;
  tstate *s = thread_self(t);
  // HotSpot posts MonitorWaited, but not MonitorWait, for the VM's own
  // waits (class initialisation locks), and a wait may have begun before
  // the agent started: write a Waited only after its Wait.
  if (!s || !s->in_wait) return;
  s->in_wait = 0;
  // Same frames as the wait: the thread has not moved.
  emit(s, ORCA_EV_OBJECT_WAITED, hash_of(o), 0, s->wait_frames, s->wait_n);
}

void JNICALL monitor_on_contended_enter(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o) {
  (void)j;
  if (!orca_recording()) return;
  int64_t ts = clock_now();
  // Read the owner first: the longer we wait, the likelier it has left.
  uint32_t owner = owner_of_pending(env, o);
  tstate *s = thread_self(t);
  if (!s) return;
  if (!owner) atomic_fetch_add_explicit(&count_owner_unknown, 1, memory_order_relaxed);
  s->enter_n = stack_capture(0, s->enter_frames, opt.depth);
  s->enter_obj = hash_of(o);
  ring_put(s->shard, ORCA_EV_MONITOR_CONTENDED_ENTER, ts, s->hash, s->enter_obj, owner, s->enter_frames, s->enter_n,
           NULL, 0);
}

void JNICALL monitor_on_contended_entered(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o) {
  (void)j; (void)env;
  if (!orca_recording()) return;
  tstate *s = thread_self(t);
  if (!s) return;
  // We own the monitor now, and every nanosecond here lengthens the
  // critical section: reuse the monitor's hash and the stack from Enter
  // (the same monitor: a thread blocks on one monitor at a time).
  uint32_t h = s->enter_obj ? s->enter_obj : hash_of(o);
  s->enter_obj = 0;
  emit(s, ORCA_EV_MONITOR_CONTENDED_ENTERED, h, 0, s->enter_frames, s->enter_n);
}
