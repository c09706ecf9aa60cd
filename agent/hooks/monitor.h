// Object.wait (its native, then JVMTI MonitorWaited) and contended monitor
// entry (JVMTI MonitorContendedEnter/Entered).
#ifndef ORCA_MONITOR_H
#define ORCA_MONITOR_H
#include <jvmti.h>
// monitor_bind wraps Object.wait's native (wait on 17-18, wait0 on 19+; a
// natives_binder, hooks/natives.h); monitor_report warns when it was not.
int monitor_bind(const char *csig, const char *name, const char *sig, void *addr, void **new_addr);
void monitor_report(void);
// monitor_init: Agent_OnLoad.
void monitor_init(void);
// monitor_restart: a recording starts with MonitorContendedEntered enabled.
void monitor_restart(void);
void JNICALL monitor_on_waited(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o, jboolean timed_out);
void JNICALL monitor_on_contended_enter(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o);
void JNICALL monitor_on_contended_entered(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o);
#endif
