// Per-thread state of the agent (in C thread-local storage, allocated once
// per thread) and the thread life-cycle events.
#ifndef ORCA_THREADS_H
#define ORCA_THREADS_H
#include <jvmti.h>
#include "ring.h"
#include "orca.h"

typedef struct {
  uint32_t hash;        // System.identityHashCode of the java.lang.Thread
  int shard;            // event ring shard
  int join_depth;       // >0 inside Thread.join: its waits are suppressed
  int sem_depth;        // >0 inside a Semaphore acquire: nested calls suppressed
  int in_wait;          // an ObjectWait was written and awaits its ObjectWaited
  uint32_t enter_obj;   // hash of the monitor of the last MonitorContendedEnter
  // Stacks saved at the start of a pair and reused at its end: the thread
  // has not moved, and the end often runs while holding a monitor.
  int wait_n, enter_n, sem_n;   // wait_frames also serve Thread.join
  orca_frame wait_frames[ORCA_MAX_DEPTH];
  orca_frame enter_frames[ORCA_MAX_DEPTH];
  orca_frame sem_frames[ORCA_MAX_DEPTH];
} tstate;

// thread_self returns the calling thread's state, creating it on first use.
// t may be NULL (then the current thread is asked from JVMTI).
tstate *thread_self(jthread t);

// emit writes an event of the calling thread with a timestamp taken now.
void emit(tstate *self, int kind, uint32_t object, uint32_t owner, const orca_frame *fr, int n);

void JNICALL threads_on_start(jvmtiEnv *j, JNIEnv *env, jthread t);
void JNICALL threads_on_end(jvmtiEnv *j, JNIEnv *env, jthread t);
// threads_existing writes ThreadStarted for threads that started before
// the agent could see them (called at VMInit).
void threads_existing(JNIEnv *env);
#endif
