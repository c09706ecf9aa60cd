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
// monitor_join_hooks: where Thread.join is seen in its wait (inject.h:
// inject_join_wait, set by the jvm module), begin runs in Object.wait's
// wrapper before the wait of a platform thread s and returns 1 when the wait
// is a join (then no ObjectWait: the join's events), and end after it.
struct tstate;
void monitor_join_hooks(int (*begin)(JNIEnv *, struct tstate *, jobject), void (*end)(struct tstate *, jobject));
// monitor_restart: a recording starts with MonitorContendedEntered enabled.
void monitor_restart(void);
// monitor_held_capability: whether the agent has JVMTI's
// can_get_owned_monitor_stack_depth_info (then each contended enter is
// followed by the MonitorHeld lines of what its thread holds);
// monitor_held_fact is .info held_monitors ("yes", or "no: WHY").
void monitor_held_capability(int on);
const char *monitor_held_fact(void);
void JNICALL monitor_on_waited(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o, jboolean timed_out);
void JNICALL monitor_on_contended_enter(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o);
void JNICALL monitor_on_contended_entered(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o);
#endif
