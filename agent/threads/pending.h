// Deferred records. MonitorContendedEntered and ObjectWait are observed in
// callbacks that run while the thread owns the monitor, where any work
// lengthens the critical section and makes other threads block (the
// perturbation measured in docs/perf/2026-11-before-issue-12.md). Those callbacks only store
// a timestamp in the thread's state; the record is written later, with the
// stack, by the first of: the thread itself at a callback where it does not
// hold that monitor (ObjectWaited, its next contended enter, its end); the
// writer at a flush (an Entered: its stack was taken at the Enter); the
// walker, an agent thread that walks the stack of a wait older than a flush
// period. A state word per record (SLOT_*) decides who writes it; the writer
// holds back every line later than the earliest record still deferred, so
// the file stays in time order.
#ifndef ORCA_PENDING_H
#define ORCA_PENDING_H
#include <jvmti.h>
#include <stdatomic.h>
#include "hotspot/hsstat.h"
#include "record/ring.h"
#include "core/orca.h"

// States of a deferred record. SLOT_TIMED: an Enter that HotSpot times
// (hsstat.h), its Entered not seen yet. A wait claimed by the walker is
// SLOT_NAMING while it names the object from the wait native's argument
// (the thread must not leave the native meanwhile), then SLOT_BUSY while it
// walks the stack; SLOT_HANDED: its thread left the wait meanwhile and
// handed its Waited to the walker (pending_waited, below).
enum { SLOT_EMPTY, SLOT_PENDING, SLOT_BUSY, SLOT_WRITTEN, SLOT_TIMED, SLOT_NAMING, SLOT_HANDED };

// A thread's deferred records: its part of the thread's state (threads.h),
// registered here so the writer and the walker find every thread's.
typedef struct pending_tstate {
  uint32_t hash;   // the thread's identity and ring shard (pending_attach)
  int shard;
  // The Entered of the last MonitorContendedEnter, and that Enter's data:
  // its stack is reused (the thread has not moved).
  _Atomic int entered_state;
  _Atomic int64_t entered_ticks;   // clock_ticks at MonitorContendedEntered
  int64_t enter_ns, enter_ticks;   // the Enter's time, in both (clock.h)
  hs_enter enter_hs;               // HotSpot's timing of the Enter
  _Atomic int64_t entered_lb;      // not later than the Entered being written
  _Atomic int entered_by_timer;    // written from the timer, before its callback
  int needs_entered;               // its Entered must come from the callback (monitor.c)
  int enter_dropped;               // this Enter was dropped (its slot was held): no Entered
  uint32_t enter_obj;              // monitor of the last MonitorContendedEnter
  int enter_n;
  orca_frame enter_frames[ORCA_MAX_DEPTH];
  // The open Object.wait.
  _Atomic int wait_state;
  _Atomic int64_t wait_ts;
  _Atomic int64_t waited_ts;       // SLOT_HANDED: the Waited's time
  int wait_dropped;                // this wait was dropped (its slot was held): no Waited
  uint32_t wait_obj;
  int64_t wait_ms;                 // its timeout (wait(ms)), 0 for none: an ObjectWaitTimeout line with the Wait
  // The wait native's argument, a JNI local reference of this thread: the
  // walker names the object from it (waitobj.h). Set only while the native
  // runs (pending_wait_returned takes it back) and never for a virtual
  // thread, whose wait native returns when it unmounts (24+, JEP 491):
  // the reference is then a slot its carrier reuses (issue 19).
  _Atomic(jobject) wait_arg;
  // The wait native returned after the recording stopped (pending_wait_left):
  // the thread is elsewhere when the final walk comes.
  _Atomic int wait_left;
  jthread ref;          // global reference: the walker walks a long wait's stack
  int wait_n;
  orca_frame wait_frames[ORCA_MAX_DEPTH];
  // Registry (under its mutex); pinned: in the walker's round (claim_old),
  // so it is not freed; detached: its thread ended while the walker held its
  // wait or pinned it, and the walker frees `block` when done.
  struct pending_tstate *prev, *next;
  int pinned, detached;
  void *block;
  // The monitors it held at its last contended enter, asked by the held
  // thread (below) while it blocks: held_state (HELD_*) says whose the
  // request is; the thread fills it (held_ts, held_obj, held_hs, held_req)
  // only when it is HELD_EMPTY or, superseding one still queued, its own
  // HELD_FILLING. held_seq counts its contended enters, held_left is the
  // seq of the last whose Entered callback came.
  _Atomic int held_state;
  _Atomic uint32_t held_seq, held_left;
  _Atomic int64_t held_ts;
  uint32_t held_obj, held_req;
  int held_timed;
  hs_enter held_hs;
} pending_tstate;

// The bounds of a thread's wait for the writer or the walker (docs/agent.md,
// "Bounded waits"): PENDING_SPINS pauses, then PENDING_YIELDS yields.
#define PENDING_SPINS 200
#define PENDING_YIELDS 20

// pending_attach registers a thread's part (hash, shard: its identity);
// pending_detach forgets it at the thread's end (after pending_settle) and
// deletes its reference; returns 1 when the caller may free block (the
// allocation p is in), 0 when the walker still holds its wait and frees
// block itself.
void pending_attach(pending_tstate *p, uint32_t hash, int shard);
int pending_detach(pending_tstate *p, JNIEnv *env, void *block);

// Thread side.
// pending_enter follows a MonitorContendedEnter (the enter_* fields set):
// timed, HotSpot times it (hsstat.h), and the Entered comes from the timer
// unless its callback comes first.
void pending_enter(pending_tstate *s, int timed);
// pending_own_event: the thread has an event of its own (a park, sleep,
// wait, notify, unpark, join, acquire…): the Entered of its last enter, if
// still deferred, is written now, so it never comes after the thread's
// next event whatever HotSpot's timer says (on Tomcat, JDK 25, a timed
// Entered was once 1.2 ms late, after the thread's next park: its enter
// followed a timed-out wait's on the same monitor).
// at is the event's time, 0 when it is read after this: the Entered is
// written before it, also when HotSpot's timer or the counter's conversion
// says later (issue 33: three virtual threads' Entered, converted after a
// 3.3 s contention, came 165 ns after their next Enter).
// Inline: every park and unpark asks (one load when nothing is deferred).
void pending_own_entered(pending_tstate *s, int64_t at);
static inline void pending_own_event(pending_tstate *s, int64_t at) {
  int st = atomic_load_explicit(&s->entered_state, memory_order_acquire);
  if (st == SLOT_TIMED || st == SLOT_PENDING) pending_own_entered(s, at);
}
// pending_entered: MonitorContendedEntered at ticks (clock_ticks), o its
// monitor. An Entered with no Enter (the thread blocked before the events
// were on) gets its Enter written just before it, owner unknown.
void pending_entered(pending_tstate *s, JNIEnv *env, int64_t ticks, jobject o);
// pending_wait: o is the waited object, the wait native's own argument
// (valid until the native returns: the walker names it from there), or
// NULL (a virtual thread's: obj, its hash, is then known); env NULL: no
// thread reference is made (pending_thread_ref).
void pending_wait(pending_tstate *s, JNIEnv *env, jobject o, uint32_t obj, int64_t ts, int64_t ms);
// pending_wait_returned: the wait native returned; its argument is
// forgotten, after the walker's naming from it if one is under way (a
// single VM call).
void pending_wait_returned(pending_tstate *s);
// pending_wait_left: the wait native returned after the recording stopped
// (its MonitorWaited will not come, events off). The wait is marked left,
// so the final walk (writer_stop) writes its Wait without a stack: a walk
// now would see wherever the thread went next (a Tomcat worker back in its
// pool's queue, named as the place it waited on the monitor). Its object,
// if not named yet, is named now from its argument, so the final flush
// does not write a wait on no object.
void pending_wait_left(pending_tstate *s, jobject o);
// pending_wait's obj 0: the hash is taken when the wait ends (from o in
// pending_waited) or by the walker. pending_waited writes the Wait (if still
// deferred) and its Waited; nothing when the thread has no recorded wait
// (the VM's own waits). It writes o's class too (objclass.h): at the
// Wait's time when it writes the Wait, else with the Waited.
void pending_waited(pending_tstate *s, JNIEnv *env, jobject o, int64_t ts);
// pending_settle writes the thread's deferred Entered, before the time at
// of the thread's event that settles it (0: the event's time is read
// after; as pending_own_event), and forgets a wait that never waited
// (wait() threw before waiting). It returns 1 when the Entered's slot is
// free for a new Enter, 0 when the writer still holds it after the bound
// (then the new Enter is dropped and counted: monitor.c).
int pending_settle(pending_tstate *s, int64_t at);
// pending_drop_enter: the Enter that follows a pending_settle that returned
// 0 is dropped, and counted with its Entered (whose callback is ignored).
void pending_drop_enter(pending_tstate *s);
// pending_wait_open: the thread has a recorded wait not yet settled.
int pending_wait_open(pending_tstate *s);
// pending_waiting writes the keys of the threads with a recorded
// Object.wait open (pending_wait_open; up to max) into out and returns how
// many there are: the walker's look for the JVM's own waits leaves them
// out (hooks/clinit.c).
int pending_waiting(uint32_t *out, int max);
// pending_on_entered_done sets the function called when an enter that
// needed its Entered callback no longer awaits it (monitor.c).
void pending_on_entered_done(void (*fn)(void));
// pending_entered_done: the callback's Entered came (or is no longer
// awaited) for an enter that needed it.
void pending_entered_done(pending_tstate *s);
// Entered that the callback should have given and did not are written when
// the thread is next seen (its next Enter, wait, end), with that time, and
// counted (CNT_ENTERED_LOST).

// Writer side: writes every deferred Entered, and the waits begun before
// stale_before without a stack (no walker, or it is stuck). Returns the
// earliest time of a record still deferred, or cutoff if earlier.
int64_t pending_flush(int64_t cutoff, int64_t stale_before);

// pending_walk writes, with their stacks, the waits begun before
// old_before; any Java thread but the waiting ones may call it.
void pending_walk(int64_t old_before);

// pending_thread_ref returns the global reference to the calling thread,
// whose state s is, made at its first call (or its first wait): it lives
// until the thread's end (pending_detach). Not for a state made after the
// thread's end (tstate.ended): nothing would delete it.
// Inline: every park asks (one load once it is made).
jthread pending_thread_ref_new(pending_tstate *s, JNIEnv *env);
static inline jthread pending_thread_ref(pending_tstate *s, JNIEnv *env) {
  return s->ref ? s->ref : pending_thread_ref_new(s, env);
}

// pending_start_walker starts the walker thread (at VMInit); NULL or an
// error. pending_is_walker tells whether t is it (ThreadStart filters it).
// pending_new_recording forgets what every thread deferred in the last
// recording (a new one begins in this JVM).
void pending_new_recording(void);
// pending_on_round: fn runs on the walker thread after each round.
void pending_on_round(void (*fn)(JNIEnv *env));
const char *pending_start_walker(JNIEnv *env, jthread cur);
int pending_walker_alive(void);
// pending_stop_walker wakes the walker so it ends (at VM death, after
// recording stopped).
void pending_stop_walker(void);
int pending_is_walker(JNIEnv *env, jthread t);

// ---- The held monitors of a contended enter, asked off the thread ----
// (docs/agent.md, "Held monitors"). The contending thread only queues its
// request (pending_held_queue: a few stores, a lock-free queue's slot, a
// raw monitor's notify when the held thread sleeps); the held thread, an
// agent thread of its own (JVMTI RunAgentThread), asks JVMTI for the
// monitors the thread holds while it is still blocked (HotSpot runs the
// handshake for a blocked thread on the asker's side), and keeps the
// answer only if the thread was still in that enter when it was given
// (pending_held_still: HotSpot's timer of the enter still running, no
// Entered callback since): its held set cannot change while it blocks.
// Else, and when the queue is full, dropped and counted
// (held_monitors_dropped). The writer holds back the lines from a
// request's time until it is answered or dropped (pending_flush).
enum { HELD_EMPTY, HELD_QUEUED, HELD_FILLING, HELD_ASKING, HELD_WRITING, HELD_CANCELLED };
// pending_held_enter: the thread begins a contended enter (every one, asked
// or not): a request for its last one is stale from now on.
static inline void pending_held_enter(pending_tstate *s) {
  atomic_store_explicit(&s->held_seq, atomic_load_explicit(&s->held_seq, memory_order_relaxed) + 1,
                        memory_order_release);
}
// pending_held_left: its Entered callback (the enter is over).
static inline void pending_held_left(pending_tstate *s) {
  atomic_store_explicit(&s->held_left, atomic_load_explicit(&s->held_seq, memory_order_relaxed), memory_order_release);
}
// pending_held_queue, after the Enter's record (its time ts, monitor obj;
// s->enter_hs filled when timed): 1 when queued.
int pending_held_queue(pending_tstate *s, JNIEnv *env, int64_t ts, uint32_t obj, int timed);
// The request as the held thread copies it when it claims it.
typedef struct {
  jthread ref;
  int64_t ts;
  uint32_t obj, req, hash;
  int shard, timed;
  hs_enter hs;
} pending_held_req;
// pending_held_still: the thread of s is still in the enter of r (now,
// after the JVMTI call): its answer is the monitors it held then.
int pending_held_still(pending_tstate *s, const pending_held_req *r);
// pending_on_held sets the held thread's work for one request (held.c):
// ask JVMTI, check pending_held_still, and write the lines through
// `claim` (keep 1: 1 when the writer has not given up on it; write now, at
// r->ts). A request not kept (no answer, or the thread past its enter) is
// given up through claim(s, 0): 1 when the held thread gave it up, which
// then counts it (held_monitors_dropped or _unread), 0 when the writer had
// (a stale request, the recording's end), which counted it: once either way.
typedef void (*pending_held_fn)(JNIEnv *env, pending_tstate *s, const pending_held_req *r,
                                int (*claim)(pending_tstate *s, int keep));
void pending_on_held(pending_held_fn fn);
// pending_start_held starts the held thread (at VMInit, after
// pending_start_walker; only when the held monitors are asked): NULL or
// an error. pending_stop_walker stops it too.
const char *pending_start_held(JNIEnv *env, jthread cur);
#endif
