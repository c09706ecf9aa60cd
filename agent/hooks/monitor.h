// Object.wait (its native, then JVMTI MonitorWaited) and contended monitor
// entry (JVMTI MonitorContendedEnter/Entered).
#ifndef ORCA_MONITOR_H
#define ORCA_MONITOR_H
#include <jvmti.h>
// Object.wait, from the wrapper of its native (natives.c): begin before the
// VM's wait, end after it returns with what begin returned (the thread's
// state; NULL on a virtual thread, which may return on another carrier).
struct tstate;
struct tstate *monitor_wait_begin(JNIEnv *env, jobject o, jlong ms);
void monitor_wait_end(struct tstate *s);
// monitor_init: Agent_OnLoad.
void monitor_init(void);
void JNICALL monitor_on_waited(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o, jboolean timed_out);
void JNICALL monitor_on_contended_enter(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o);
void JNICALL monitor_on_contended_entered(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o);
#endif
