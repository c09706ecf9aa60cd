// Object.wait (its native, then JVMTI MonitorWaited) and contended monitor
// entry (JVMTI MonitorContendedEnter/Entered).
#ifndef ORCA_MONITOR_H
#define ORCA_MONITOR_H
#include <jvmti.h>
#include <stdint.h>
#include "record/rec.h"
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
// monitor_lock_order: unless lockorder=no, the locks a thread holds at its
// contended enter (hooks/held.h: the jvm module passes held_on, held_async,
// held_read, held_write and the timing aid's held_time_*). With async (a
// platform thread's, by default) the monitors are asked by the held thread
// (threads/pending.h: pending_held_queue after the enter's line) and write
// adds the j.u.c. locks alone; else read runs before the enter's time is
// taken, write after its line (with s NULL: the enter was dropped, forget
// them).
typedef struct {
  int (*on)(void), (*async)(void), (*locks_on)(void), (*virtual_async)(void);
  int (*own)(JNIEnv *, jobject, int);
  void (*asked)(int virt);
  void (*time_own)(int freed);
  int (*waited)(void);
  void (*read)(void);
  void (*write)(JNIEnv *, struct tstate *, int64_t, const orca_frame *, int, uint32_t);
  void (*time_enter)(void);
  void (*time_call)(int64_t ns, int freed, int kept, int64_t lag);
} monitor_held;
void monitor_lock_order(const monitor_held *h);
void JNICALL monitor_on_waited(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o, jboolean timed_out);
void JNICALL monitor_on_contended_enter(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o);
void JNICALL monitor_on_contended_entered(jvmtiEnv *j, JNIEnv *env, jthread t, jobject o);
#endif
