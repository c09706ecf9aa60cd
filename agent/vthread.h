// Virtual threads (JDK 21+). The agent's per-thread state (threads.c) lives
// in the C thread-local storage of the OS thread, which for a virtual thread
// is its carrier's, and a virtual thread moves between carriers (JDK 24+:
// also while blocked on a monitor and in Object.wait). Until virtual threads
// have an identity of their own in the recording, their events are not
// recorded but counted per kind (.info unattributed.KIND), so nothing is
// paired with the wrong thread.
#ifndef ORCA_VTHREAD_H
#define ORCA_VTHREAD_H
#include <jvmti.h>
#include <stdio.h>

// vthread_may_host tells, when a thread's state is made, whether virtual
// threads may run on it (a carrier, or t itself virtual): only on those is
// each event checked. t is the thread's object (not NULL).
int vthread_may_host(JNIEnv *env, jthread t);
// vthread_is tells whether the current thread of a thread that may host
// virtual threads is virtual; t is the current thread's object or NULL.
int vthread_is(JNIEnv *env, jthread t);
// vthread_unattributed counts an event of kind (orca_event) that happened
// on a virtual thread.
void vthread_unattributed(int kind);
// vthread_capabilities asks for can_support_virtual_threads (JDK 21+) when
// the JVM offers it; vthread_set_callbacks sets the JVMTI callbacks cb plus
// VirtualThreadStart (beyond the JDK 17 jvmtiEventCallbacks the agent is
// built with), and vthread_enable enables that event.
void vthread_capabilities(jvmtiCapabilities *want, const jvmtiCapabilities *have);
jvmtiError vthread_set_callbacks(const jvmtiEventCallbacks *cb);
void vthread_enable(void);
#endif
