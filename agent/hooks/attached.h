// What the threads were doing when the agent attached (docs/attach.md,
// "What is true at the attach"). A JVM that hurts is often stuck already:
// a deadlock or a hang that began before the attach makes no event after
// it. So an attach writes, at its time and before any other event, for
// every thread blocked entering a monitor, waiting in Object.wait, parked
// or sleeping, the event that begins that state (its monitor and owner,
// its blocker and the blocker's owner, its stack), and keeps it open
// until the thread leaves it:
//   - a contended enter ends with its MonitorContendedEntered callback, a
//     wait with its MonitorWaited (both posted by HotSpot whenever the
//     events are on at the end, monitor.c calls attached_end);
//   - a park or a sleep ends in the native the thread was in when the
//     agent rebound it, so no wrapper sees its end: the thread's own next
//     blocking event ends it (attached_own), or else the walker's round
//     that finds it in another state (attached_poll, each flush period),
//     written with "how" unknown; so does an enter or a wait that ended
//     before the events were on (no callback comes for it).
// An object whose identity hash was not computed yet is named by its
// monitor: 0x80000000 | (address >> 3), an id no identity hash takes (they
// have 31 bits); the same object hashed later has its hash.
#ifndef ORCA_ATTACHED_H
#define ORCA_ATTACHED_H
#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>

// attached_snapshot writes the states of the threads alive now at ts
// (their ThreadStarted lines are written: threads_existing_at) and keeps
// the open ones; returns how many it found blocked, waiting, parked or
// sleeping.
// park_blocker is park.h's (the blocker of a parked thread, its owner and
// acquire mode; given by the jvm module: park.c ends its own states here).
// It writes the blocker's class on the thread's shard.
typedef uint32_t (*attached_blocker_fn)(JNIEnv *env, uint32_t thread, int shard, int64_t ts, jthread t, uint32_t *owner, int *mode);
int attached_snapshot(JNIEnv *env, int64_t ts, attached_blocker_fn park_blocker);
// attached_virtual is attached_snapshot for vt, a virtual thread unmounted
// at the attach (its hash th, its ThreadStarted written on shard: JVMTI
// lists no virtual thread, the jvm module finds them): 1 when it wrote its
// park or sleep, 0 when it is in neither, -1 when it is blocked entering a
// monitor or waiting in Object.wait (JDK 24+, unmounted: its monitor is
// not read; skipped).
int attached_virtual(JNIEnv *env, jthread vt, uint32_t th, int shard, int64_t ts, attached_blocker_fn park_blocker);
// attached_open: some state of the attach is still open (one load).
int attached_open(void);
// attached_end ends the thread's open state of kind (the event that began
// it) at ts, if it has one: 1 when it wrote its end.
int attached_end(uint32_t thread, int shard, int kind, int64_t ts);
// attached_own: the thread (its hash) has an event of its own at ts (0:
// now, before any event it writes after): whatever it was doing at the
// attach is over, by then.
void attached_own(uint32_t thread, int64_t ts);
// attached_runs: attached_own for a thread (its hash) that has an event of
// its own at ts (0: now), and for its carrier (0: none) when it is a
// virtual thread: a carrier parked at the attach runs again when a virtual
// thread it carries has an event. ATTACHED_RUNS(s, ts) for a tstate.
void attached_runs(uint32_t thread, uint32_t carrier, int64_t ts);
// Inline: every park and unpark asks (one load when nothing is open).
extern atomic_int attached_any;   // a state of the attach is open (attached_open)
#define ATTACHED_RUNS(s, ts)                                                         \
  (atomic_load_explicit(&attached_any, memory_order_acquire)                         \
       ? attached_runs((s)->hash, (s)->is_virtual ? (s)->carrier : 0, (ts))          \
       : (void)0)
// OWN_EVENT(s, ts): the thread of tstate s has an event of its own at ts
// (0: now), other than a contended enter's: what it was doing at an attach
// is over, and its last enter's Entered is written (pending_own_event).
#define OWN_EVENT(s, ts) (ATTACHED_RUNS(s, ts), pending_own_event(&(s)->pending))
// attached_poll ends the parks and sleeps that are over (the walker, each
// round).
void attached_poll(JNIEnv *env);
// attached_forget drops what is still open (the recording stops).
void attached_forget(JNIEnv *env);
#endif
