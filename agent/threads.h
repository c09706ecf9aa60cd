// Per-thread state of the agent (allocated once per thread, found through C
// thread-local storage) and the thread life-cycle events.
#ifndef ORCA_THREADS_H
#define ORCA_THREADS_H
#include <jvmti.h>
#include "orca.h"
#include "pending.h"
#include "ring.h"

// A thread's state is composed of the parts of the modules that keep
// per-thread state, each declared in its module's header: pending.h's
// deferred records (which the writer and the walker read, through pending's
// registry), and inject.h's join and semaphore depths and saved stacks
// (made at the thread's first join or acquire; only a pointer here, so this
// header needs nothing of inject's). threads.c only creates, registers and
// frees it.
struct inject_tstate;
typedef struct tstate {
  uint32_t hash;        // System.identityHashCode of the java.lang.Thread
  int shard;            // event ring shard
  int may_host_virtual; // a carrier (or virtual): each event checks vthread_is
  int ended;            // made after the thread's ThreadEnd: HotSpot's own enter of its
                        // Thread object (ensure_join); not timed (monitor.c)
  pending_tstate pending;         // deferred records (pending.h)
  struct inject_tstate *inject;   // joins and semaphores (inject.h), NULL before the first
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

// emit writes an event of the calling thread with a timestamp taken now.
void emit(tstate *self, int kind, uint32_t object, uint32_t owner, const orca_frame *fr, int n);

void JNICALL threads_on_start(jvmtiEnv *j, JNIEnv *env, jthread t);
void JNICALL threads_on_end(jvmtiEnv *j, JNIEnv *env, jthread t);
// threads_existing writes ThreadStarted for threads that started before
// the agent could see them (called at VMInit).
void threads_existing(JNIEnv *env);
#endif
