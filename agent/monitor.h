// Object.wait and contended monitor entry, from JVMTI's monitor events.
#ifndef ORCA_MONITOR_H
#define ORCA_MONITOR_H
#include <jvmti.h>
void JNICALL monitor_on_wait(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o, jlong timeout);
void JNICALL monitor_on_waited(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o, jboolean timed_out);
void JNICALL monitor_on_contended_enter(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o);
void JNICALL monitor_on_contended_entered(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o);
#endif
