// The attach's snapshot (its start-up phase: jvm/entry.c's attach_start):
// what every thread alive is doing at the attach, written at its time
// before any event is on, each state kept open in threads/attached.h until
// the thread leaves it. An object whose identity hash was not computed yet
// is named by its monitor: 0x80000000 | (address >> 3), an id no identity
// hash takes (they have 31 bits); the same object hashed later has its
// hash.
#include "core/counters.h"
#include "core/events.h"
#include "core/orca.h"
#include "hotspot/objhash.h"
#include "hotspot/owner.h"
#include "hotspot/vthread.h"
#include "jvm/snapshot.h"
#include "record/ring.h"
#include "record/writer.h"
#include "stacks/methods.h"
#include "stacks/objclass.h"
#include "threads/attached.h"
#include "threads/pending.h"
#include "threads/threads.h"

// now: the stack of the thread being written, read already: a platform
// thread's with every other's at one safepoint (GetAllStackTraces: each
// GetStackTrace of another thread would look it up in HotSpot's list of
// threads, a linear search: 10 000 threads took seconds), a virtual
// thread's once for its state and its sleep; NULL: asked of JVMTI.
static const jvmtiStackInfo *now;

static int stack_of(jthread t, orca_frame *fr) {
  if (now) return stack_of_frames(now->frame_buffer, now->frame_count, fr, opt.depth);
  return stack_capture(t, 0, fr, opt.depth);
}

// monitor_id names the object of a monitor: its identity hash (computed
// now when the object is at hand, with its class written), else by the
// monitor's address (above).
static uint32_t monitor_id(JNIEnv *env, int shard, uint32_t thread, int64_t ts, uint32_t hash, uintptr_t monitor,
                           jobject ref) {
  if (ref) {
    uint32_t h = objhash_of(ref);
    if (h) {
      objclass_write(env, shard, thread, ts, ref, h);
      hash = h;
    }
    (*env)->DeleteLocalRef(env, ref);
  }
  if (hash) return hash;
  uint32_t id = (uint32_t)(monitor >> 3) | 0x80000000u;
  return monitor ? id : 0;
}

// parked_or_sleeping writes the park or sleep that thread t (its hash th,
// its state st) is in at ts, its stack in fr (nf frames) and its blocker in
// *obj; returns its kind, 0 when it is in neither.
static int parked_or_sleeping(JNIEnv *env, jthread t, jint st, uint32_t th, int shard, int64_t ts,
                              snapshot_blocker_fn blocker, orca_frame *fr, int *nf, uint32_t *obj) {
  int timed = (st & JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT) != 0;
  uint32_t owner = 0;
  *obj = 0;
  if ((st & JVMTI_THREAD_STATE_PARKED) && !opt.seed_only) {
    int mode = 0;
    *obj = blocker(env, th, shard, ts, t, &owner, &mode);
    *nf = stack_of(t, fr);
    ring_put_mode(shard, ORCA_EV_THREAD_PARK, ts, th, *obj, owner, fr, *nf, timed ? "1" : NULL, timed, mode);
    return ORCA_EV_THREAD_PARK;
  }
  if (st & JVMTI_THREAD_STATE_SLEEPING) {
    *nf = stack_of(t, fr);
    ring_put(shard, ORCA_EV_THREAD_SLEEP, ts, th, 0, 0, fr, *nf, NULL, 0);
    return ORCA_EV_THREAD_SLEEP;
  }
  return 0;
}

// on_monitor writes the contended enter or the wait that thread t (its hash
// th, its state st) is in at ts, its monitor read from the JavaThread of
// jt (t's own, or a virtual thread's carrier), its stack in fr (nf frames)
// and its object in *obj; returns its kind, 0 when it is in neither, -1
// when its monitor could not be read (nothing written: an enter or a wait
// on object 00000000 names no object, and the end the polls wrote for it
// was a second line no reader could place — Tomcat under load, attached,
// had such a wait: the thread between its state and its monitor, in or
// out of the wait since GetAllStackTraces).
static int on_monitor(JNIEnv *env, jthread t, jthread jt, jint st, uint32_t th, int shard, int64_t ts, orca_frame *fr,
                      int *nf, uint32_t *obj) {
  uint32_t owner = 0;
  uintptr_t mon = 0;
  jobject ref = NULL;
  if (st & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) {
    if (!owner_blocked_on(env, jt, 0, obj, &owner, &mon, &ref)) return -1;
    *obj = monitor_id(env, shard, th, ts, *obj, mon, ref);
    *nf = stack_of(t, fr);
    ring_put(shard, ORCA_EV_MONITOR_CONTENDED_ENTER, ts, th, *obj, owner, fr, *nf, NULL, 0);
    return ORCA_EV_MONITOR_CONTENDED_ENTER;
  }
  if (!(st & JVMTI_THREAD_STATE_IN_OBJECT_WAIT)) return 0;
  if (!owner_blocked_on(env, jt, 1, obj, &owner, &mon, &ref)) return -1;
  *obj = monitor_id(env, shard, th, ts, *obj, mon, ref);
  *nf = stack_of(t, fr);
  // Timed (its timeout is not known: 1 ns says only that it has one).
  if ((st & JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT) && !opt.seed_only)
    ring_put(shard, ORCA_EV_OBJECT_WAIT_TIMEOUT, ts, th, 0, 0, NULL, 0, "1", 1);
  ring_put(shard, ORCA_EV_OBJECT_WAIT, ts, th, *obj, 0, fr, *nf, NULL, 0);
  return ORCA_EV_OBJECT_WAIT;
}

// state_at writes the state thread t (its hash th, its JVMTI state st) is
// in at ts, a monitor's read from the JavaThread of jt, and keeps it open
// until it is over (threads/attached.h, under attached_lock; in: as
// attached_keep's); returns 1 when it kept one, 0 when it is in none of
// them, -1 when it is on a monitor that could not be read (on_monitor).
static int state_at(JNIEnv *env, jthread t, jthread jt, jint st, jint in, uint32_t th, int shard, int64_t ts,
                    snapshot_blocker_fn blocker) {
  orca_frame fr[ORCA_MAX_DEPTH];
  int nf = 0, kind = 0;
  uint32_t obj = 0;
  if (st & (JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_IN_OBJECT_WAIT))
    kind = on_monitor(env, t, jt, st, th, shard, ts, fr, &nf, &obj);
  else
    kind = parked_or_sleeping(env, t, st, th, shard, ts, blocker, fr, &nf, &obj);
  // A snapshot (orca threads) keeps none: no event comes to end it, and
  // each kept would hold a global reference and a copy of its stack until
  // attached_forget (100 000 parked virtual threads: 100 000 of each).
  if (kind < 0) return -1;
  return kind && (opt.snapshot || attached_keep(env, th, shard, kind, obj, t, in, fr, nf));
}

// What a recording learns from later events, an `orca threads` snapshot
// (opt.snapshot) writes at once: the stack of a thread in none of the
// states above (running, in native code or I/O) as a Sample of 1 ns — cpu
// when it is in Java, wall when in native code. (The monitors a thread
// holds would want GetOwnedMonitorInfo, whose capability HotSpot 17-25
// offers no attached agent: a monitor's holder is known from the threads
// blocked on it.)
static void stack_now(jthread t, jint st, uint32_t th, int shard, int64_t ts) {
  orca_frame fr[ORCA_MAX_DEPTH];
  int nf = stack_of(t, fr);
  int sampled = (st & JVMTI_THREAD_STATE_IN_NATIVE) ? ORCA_SAMPLED_WALL : ORCA_SAMPLED_CPU;
  ring_put_mode(shard, ORCA_EV_SAMPLE, ts, th, 1, 0, fr, nf, NULL, 0, sampled);
}

// mounted_now marks vt (its hash th) as a virtual thread in a snapshot: a
// VirtualThreadMounted line, its target the carrier it is mounted on now,
// 0 when it is unmounted (no event of a recording follows to tell).
static void mounted_now(JNIEnv *env, jthread vt, uint32_t th, int shard, int64_t ts) {
  jthread c = vthread_carrier(env, vt);
  uint32_t carrier = 0;
  if (c) {
    jint h = 0;
    (*jvmti)->GetObjectHashCode(jvmti, c, &h);
    carrier = thread_key(env, c, (uint32_t)h);
    (*env)->DeleteLocalRef(env, c);
  }
  ring_put(shard, ORCA_EV_VIRTUAL_THREAD_MOUNTED, ts, th, carrier, 0, NULL, 0, NULL, 0);
}

int snapshot_virtual(JNIEnv *env, jthread vt, jint st, uint32_t th, int shard, int64_t ts, snapshot_blocker_fn blocker,
                     const jvmtiStackInfo *read) {
  // A monitor's is read from the JavaThread it runs on: its carrier's when
  // it is pinned to it (21-23: every such enter or wait; 24+: in a native
  // frame or a class initializer); unmounted (24+) it has none: skipped.
  int on_mon = (st & (JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_IN_OBJECT_WAIT)) != 0;
  jthread c = on_mon ? vthread_carrier(env, vt) : NULL;
  if (on_mon && !c) return -1;
  // Its stack, read once (with its state: read, or asked now): for its
  // state, and whether it sleeps — its sleep parks it: JVMTI says "parked"
  // (21-25).
  jvmtiFrameInfo fr[ORCA_MAX_DEPTH];
  jvmtiStackInfo si = {.frame_buffer = fr};
  if (read) now = read;
  else if (!on_mon && (*jvmti)->GetStackTrace(jvmti, vt, 0, SNAPSHOT_VIRTUAL_DEPTH, fr, &si.frame_count) == JVMTI_ERROR_NONE)
    now = &si;
  int sleeping = now && (st & JVMTI_THREAD_STATE_PARKED) && vthread_sleeping(env, vt, now->frame_buffer, now->frame_count);
  if (sleeping) st = (st & ~(JVMTI_THREAD_STATE_PARKED | JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT)) | JVMTI_THREAD_STATE_SLEEPING;
  attached_lock();
  // A sleeping one is in its sleep while JVMTI says "parked" of it.
  int o = state_at(env, vt, c, st, sleeping ? JVMTI_THREAD_STATE_PARKED : 0, th, shard, ts, blocker);
  if (opt.snapshot) {
    mounted_now(env, vt, th, shard, ts);
    if (!o && !on_mon) stack_now(vt, st, th, shard, ts);
  }
  now = NULL;
  attached_unlock();
  if (c) (*env)->DeleteLocalRef(env, c);
  return o > 0 ? 1 : on_mon ? -1 : 0;
}

int snapshot_threads(JNIEnv *env, int64_t ts, snapshot_blocker_fn blocker) {
  jint n = 0;
  jvmtiStackInfo *all = NULL;
  if ((*jvmti)->GetAllStackTraces(jvmti, opt.depth, &all, &n) != JVMTI_ERROR_NONE) return 0;
  (*env)->EnsureLocalCapacity(env, n + 8);
  int found = 0;
  attached_lock();
  for (int i = 0; i < n; i++) {
    jthread t = all[i].thread;
    jint st = all[i].state, h = 0;
    if (!(st & JVMTI_THREAD_STATE_ALIVE) || pending_is_walker(env, t))   // the agent's own
      continue;
    (*jvmti)->GetObjectHashCode(jvmti, t, &h);
    h = (jint)vthread_key_new(env, t, (uint32_t)h);   // registered by threads_existing_at: its key
    if (opt.snapshot && i % 2048 == 2047) writer_drain();   // no writer thread (jvm/entry.c)
    now = &all[i];
    int in = state_at(env, t, t, st, 0, (uint32_t)h, i, ts, blocker);
    // Its state unknown, counted (.info monitor_unread_at_attach): not
    // written. A snapshot (orca threads) writes the stack it was listed
    // with, as a thread's in none of the states, and says how many.
    if (in < 0) counter_add(CNT_UNREAD_AT_ATTACH, 1);
    found += in > 0;
    if (opt.snapshot && in <= 0) stack_now(t, st, (uint32_t)h, i, ts);
    now = NULL;
  }
  attached_unlock();
  for (int i = 0; i < n; i++) (*env)->DeleteLocalRef(env, all[i].thread);
  (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
  return found;
}
