// Deferred records. MonitorContendedEntered and ObjectWait are observed in
// callbacks that run while the thread owns the monitor, where any work
// lengthens the critical section and makes other threads block (the
// perturbation measured in docs/PERFORMANCE.md). Those callbacks only store
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
#include "threads.h"

// Thread side.
// pending_enter follows a MonitorContendedEnter (the enter_* fields set):
// timed, HotSpot times it (hsstat.h), and the Entered comes from the timer
// unless its callback comes first.
void pending_enter(tstate *s, int timed);
// pending_entered: MonitorContendedEntered at ticks (clock_ticks), o its
// monitor.
void pending_entered(tstate *s, int64_t ticks, jobject o);
// pending_wait: o is the waited object, the wait native's own argument
// (valid until the native returns: the walker names it from there).
void pending_wait(tstate *s, JNIEnv *env, jthread t, jobject o, uint32_t obj, int64_t ts);
// pending_wait's obj 0: the hash is taken when the wait ends (from o in
// pending_waited) or by the walker. pending_waited writes the Wait (if still
// deferred) and its Waited; nothing when the thread has no recorded wait
// (the VM's own waits).
void pending_waited(tstate *s, jobject o, int64_t ts);
// pending_settle writes the thread's deferred Entered and forgets a wait
// that never waited (wait() threw before waiting).
void pending_settle(tstate *s);
// pending_entered_done: the callback's Entered came (or is no longer
// awaited) for an enter that needed it (monitor.c).
void pending_entered_done(tstate *s);
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

// pending_start_walker starts the walker thread (at VMInit); NULL or an
// error. pending_is_walker tells whether t is it (ThreadStart filters it).
const char *pending_start_walker(JNIEnv *env);
int pending_walker_alive(void);
// pending_stop_walker wakes the walker so it ends (at VM death, after
// recording stopped).
void pending_stop_walker(void);
int pending_is_walker(JNIEnv *env, jthread t);
#endif
