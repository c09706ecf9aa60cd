// What the threads were doing when the agent attached (docs/attach.md,
// "What is true at the attach"). A JVM that hurts is often stuck already:
// a deadlock or a hang that began before the attach makes no event after
// it. So an attach writes, at its time and before any other event, for
// every thread blocked entering a monitor, waiting in Object.wait, parked
// or sleeping, the event that begins that state (jvm/snapshot.c, the
// attach's start-up phase), and keeps it open here until the thread leaves
// it:
//   - a contended enter ends with its MonitorContendedEntered callback, a
//     wait with its MonitorWaited (both posted by HotSpot whenever the
//     events are on at the end: threads.h's EV_ENDS);
//   - a park or a sleep ends in the native the thread was in when the
//     agent rebound it, so no wrapper sees its end: the thread's own next
//     blocking event ends it (attached_own, through threads.h's EV_OWN), or
//     else the walker's round that finds it in another state
//     (attached_poll, each flush period), written with "how" unknown; so
//     does an enter or a wait that ended before the events were on (no
//     callback comes for it).
// No hook names these: every event comes in through event_begin
// (threads.h), which settles them.
#ifndef ORCA_ATTACHED_H
#define ORCA_ATTACHED_H
#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>
#include "record/rec.h"

// attached_lock and attached_unlock hold the table while the attach's
// snapshot writes a state and keeps it (attached_keep), so that no event of
// the thread's own comes between the two.
void attached_lock(void);
void attached_unlock(void);
// attached_keep keeps open the state of kind (the event that began it,
// written at the attach) of thread (its hash; shard: where its end is
// written), on object, t its thread (a global reference is made for the
// polls), fr its stack (n frames, copied); in: the JVMTI states in which it
// is still in it (0: those of kind). Under attached_lock; 0 when there is
// no memory for it.
int attached_keep(JNIEnv *env, uint32_t thread, int shard, int kind, uint32_t object, jthread t, jint in,
                  const orca_frame *fr, int n);
// attached_open: some state of the attach is still open (one load).
int attached_open(void);
// attached_end ends the thread's open state of kind (the event that began
// it) at ts, if it has one: 1 when it wrote its end.
int attached_end(uint32_t thread, int kind, int64_t ts);
// attached_own: the thread (its hash) has an event of its own at ts (0:
// now, before any event it writes after), or ends: whatever it was doing
// at the attach is over, by then.
void attached_own(uint32_t thread, int64_t ts);
// attached_runs: attached_own for a thread (its hash) that has an event of
// its own at ts (0: now), and for its carrier (0: none) when it is a
// virtual thread: a carrier parked at the attach runs again when a virtual
// thread it carries has an event.
void attached_runs(uint32_t thread, uint32_t carrier, int64_t ts);
// Inline in event_begin (threads.h): every park and unpark asks (one load when nothing is
// open).
extern atomic_int attached_any;   // a state of the attach is open (attached_open)
// attached_poll ends the parks and sleeps that are over (the walker, each
// round).
void attached_poll(JNIEnv *env);
// attached_forget drops what is still open (the recording stops).
void attached_forget(JNIEnv *env);
#endif
