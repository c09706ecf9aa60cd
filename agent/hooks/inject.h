// Thread.join and Semaphore.acquire/release are plain Java methods: we
// rewrite them in place (inplace.c) when their class is loaded
// (ClassFileLoadHook) or when the agent attaches (RetransformClasses), so
// each call reports its entry and exit through a native hook. No breakpoints, no
// MethodEntry: the rewritten methods stay JIT-compiled.
#ifndef ORCA_INJECT_H
#define ORCA_INJECT_H
#include <jvmti.h>
#include "core/orca.h"
#include "hooks/classfile.h"
#include "record/ring.h"

// A thread's part: the depth suppresses nested overloads (join() calls
// join(0)) and the stacks saved at the start of a pair are reused at its
// end (the thread has not moved).
typedef struct inject_tstate {
  int sem_depth;    // >0 inside a Semaphore acquire: nested calls suppressed
  int join_n, sem_n;
  int join_rec, sem_rec;   // the recording whose pair the outermost call began (threads_recording), 0: none
  orca_frame join_frames[ORCA_MAX_DEPTH];
  orca_frame sem_frames[ORCA_MAX_DEPTH];
} inject_tstate;

// The depth of Thread.join calls is the thread's own (threads.h:
// join_depth), read by the monitor module.
// inject_add hooks the methods specs gives of the boot class class_name
// too (one class: java/lang/VirtualThread's, the park module's), registered
// by the jvm module before the class loads; hook and hookJ are its natives
// (the start-up form's orca$hook and orca$hookJ), which the live form binds.
void inject_add(const char *class_name, const wrap_spec *(*specs)(int *n), void *hook, void *hookJ);
// inject_add_at_load hooks, at their first load only (never in the live
// form: an attach leaves them), the boot classes for which specs returns 1
// (and their methods' specs), with their own orca$hook and orca$hookJ
// natives, bound by name (hooks/held.h: the locks of lockorder=yes).
void inject_add_at_load(int (*specs)(const char *name, const wrap_spec **specs, int *n));

// The live form (issue 24: the classes are loaded already when the agent
// attaches; docs/agent.md, "Rewriting Java methods of classes already
// loaded"). inject_live_capabilities adds what it needs to the
// capabilities an attach asks for (to retransform classes). inject_live,
// once the capabilities, the callbacks (inject_on_class_file_load among
// them, its event enabled) and the recording are set up, on a Java thread
// (the Attach Listener's Agent_OnAttach, VMInit): defines the hooks' class,
// and retransforms Thread, Semaphore and VirtualThread so that their
// methods call it; classes loaded later are rewritten as they load. NULL,
// or a warning (those events are then missing). It runs once per JVM: a
// second call, and a JVM that started with the agent (the start-up form
// is in), do nothing.
void inject_live_capabilities(jvmtiCapabilities *want, const jvmtiCapabilities *have);
const char *inject_live(JNIEnv *env);
// inject_class_prepared (ClassPrepare, while a recording runs): a class
// inject_live found loaded but not linked (VirtualThread before the first
// virtual thread) is linked: it is rewritten now, before its first instance
// (inject_live leaves it: a retransformation links it, which deoptimises
// the compiled code that assumed it unlinked). A second inject_live
// rewrites one linked between two recordings.
void inject_class_prepared(JNIEnv *env, jclass c);
// inject_bind_own (VMInit): the start-up form's orca$hook natives of Thread
// and Semaphore bound now, by a call of each that does nothing (HOOK_BIND),
// so that the JVM does not look them up by name, running Java code, inside
// the application's first join or acquire.
void inject_bind_own(JNIEnv *env);
// inject_live_test: ORCA_VERIFY_LIVE_HOOKS in the environment (a test
// aid): 1, the agent started with the JVM leaves the classes alone at load
// and applies the live form at VMInit instead (twice: the second, as a
// second attach, must do nothing); 2, it wraps them at load and calls
// inject_live at VMInit all the same (as an attach to a JVM that started
// with the agent: it must do nothing); 0 (or unset), neither.
int inject_live_test(void);
// inject_attaching: an attach starts (before its events are on): in a JVM
// that did not start with the agent a class that loads from now on gets the
// live form or nothing, never the start-up form.
// inject_dependencies_recorded: the JVM's agent took can_retransform_classes
// while the JVM loaded (standby=yes, the test switch): HotSpot 17-22 then
// deoptimises only a rewritten class's dependents, and inject_live rewrites
// Semaphore and VirtualThread there too (on 23+ always; never Thread:
// inject_join_wait).
void inject_attaching(void);
void inject_dependencies_recorded(void);

// inject_join_wait: in Object.wait's wrapper (monitor.c), before the wait,
// on a platform thread s: 1 when Thread is not rewritten (an attach) and
// this wait on o is Thread.join's (o a Thread, the caller Thread.join):
// its ThreadJoin is written (a recording running) and s->join_depth is 1
// until inject_join_waited, after the wait, writes its ThreadJoined.
struct tstate;
int inject_join_wait(JNIEnv *env, struct tstate *s, jobject o);
void inject_join_waited(struct tstate *s, jobject o);

// The natives of the injected methods (start-up form: `orca$hook`, found by
// name; live form: bound to the hooks' class).
JNIEXPORT void JNICALL Java_java_lang_Thread_orca_00024hook(JNIEnv *env, jclass c, jint op, jobject o);
JNIEXPORT void JNICALL Java_java_util_concurrent_Semaphore_orca_00024hook(JNIEnv *env, jclass c, jint op, jobject o);
void JNICALL inject_on_class_file_load(jvmtiEnv *j, JNIEnv *env, jclass redefined, jobject loader, const char *name,
                                       jobject pd, jint len, const unsigned char *data, jint *new_len,
                                       unsigned char **new_data);
#endif
