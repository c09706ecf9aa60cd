// Per-thread state of the agent (in C thread-local storage, allocated once
// per thread, listed in a registry the writer walks) and the thread
// life-cycle events.
#ifndef ORCA_THREADS_H
#define ORCA_THREADS_H
#include <jvmti.h>
#include "hsstat.h"
#include "ring.h"
#include "orca.h"

// States of a deferred record (pending.c). SLOT_TIMED: an Enter that
// HotSpot times (hsstat.h), its Entered not seen yet.
enum { SLOT_EMPTY, SLOT_PENDING, SLOT_BUSY, SLOT_WRITTEN, SLOT_TIMED };

typedef struct tstate {
  uint32_t hash;        // System.identityHashCode of the java.lang.Thread
  int shard;            // event ring shard
  int join_depth;       // >0 inside Thread.join: its waits are suppressed
  int sem_depth;        // >0 inside a Semaphore acquire: nested calls suppressed
  int may_host_virtual; // a carrier (or virtual): each event checks vthread_is
  int ended;            // made after the thread's ThreadEnd: HotSpot's own enter of its
                        // Thread object (ensure_join); not timed (monitor.c)
  // Deferred records (pending.c): MonitorContendedEntered and ObjectWait
  // are observed while the thread owns the monitor; their callbacks only
  // fill these, and the thread or the writer writes the record later.
  _Atomic int entered_state;
  _Atomic int64_t entered_ticks;   // clock_ticks at MonitorContendedEntered
  int64_t enter_ns, enter_ticks;   // the Enter's time, in both (clock.h)
  hs_enter enter_hs;               // HotSpot's timing of the Enter
  _Atomic int64_t entered_lb;      // not later than the Entered being written
  _Atomic int entered_by_timer;    // written from the timer, before its callback
  int needs_entered;               // its Entered must come from the callback (monitor.c)
  uint32_t enter_obj;   // monitor of the last MonitorContendedEnter
  _Atomic int wait_state;
  _Atomic int64_t wait_ts;
  uint32_t wait_obj;
  jobject wait_arg;     // the wait native's argument: the walker names the object from it (waitobj.h)
  jthread ref;          // global reference: the writer walks a long wait's stack
  // Stacks saved at the start of a pair and reused at its end: the thread
  // has not moved, and the end often runs while holding a monitor.
  int wait_n, enter_n, sem_n, join_n;
  orca_frame wait_frames[ORCA_MAX_DEPTH];
  orca_frame join_frames[ORCA_MAX_DEPTH];
  orca_frame enter_frames[ORCA_MAX_DEPTH];
  orca_frame sem_frames[ORCA_MAX_DEPTH];
  struct tstate *prev, *next;   // registry, under its mutex
} tstate;

// thread_self returns the calling thread's state, creating it on first use;
// NULL on the agent's own threads. t may be NULL (then the current thread
// is asked from JVMTI).
tstate *thread_self(jthread t);

// thread_of returns the calling thread's state for an event of kind, or
// NULL when it is an agent thread or a virtual thread (then the event is
// counted as unattributed: vthread.h). t is the current thread or NULL.
tstate *thread_of(JNIEnv *env, jthread t, int kind);
// thread_virtual: s is the calling thread's state and it runs a virtual
// thread now (t as above).
int thread_virtual(JNIEnv *env, tstate *s, jthread t);

// threads_internal marks the calling thread as the agent's own: no events.
void threads_internal(void);

// threads_each calls fn on every thread's state, holding the registry's
// mutex (states are neither created nor freed meanwhile).
void threads_each(void (*fn)(tstate *, void *), void *arg);

// emit writes an event of the calling thread with a timestamp taken now.
void emit(tstate *self, int kind, uint32_t object, uint32_t owner, const orca_frame *fr, int n);

void JNICALL threads_on_start(jvmtiEnv *j, JNIEnv *env, jthread t);
void JNICALL threads_on_end(jvmtiEnv *j, JNIEnv *env, jthread t);
// threads_existing writes ThreadStarted for threads that started before
// the agent could see them (called at VMInit).
void threads_existing(JNIEnv *env);
#endif
