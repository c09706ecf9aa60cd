// Object.wait/notify/notifyAll, Thread.sleep and Thread.start0 are native: we
// wrap their implementations as the VM binds them (JVMTI NativeMethodBind),
// which costs nothing on other calls and survives JIT compilation.
#ifndef ORCA_NATIVES_H
#define ORCA_NATIVES_H
#include <jvmti.h>
void JNICALL natives_on_bind(jvmtiEnv *j, JNIEnv *env, jthread t, jmethodID m, void *addr, void **new_addr);
// natives_live, at an attach, wraps the natives bound already (HotSpot
// posts no NativeMethodBind for them): each one's function is read from its
// Method and rebound with RegisterNatives; returns how many.
// natives_restore binds every wrapped native back to the JVM's function
// (a recording stops: nothing of the agent stays in their path).
int natives_live(JNIEnv *env);
void natives_restore(JNIEnv *env);
// natives_report warns of hooks that never bound (at VMInit), its own and
// its binders'.
void natives_report(void);
// A binder of other modules' natives (monitor: Object.wait; park: Unsafe),
// registered by the jvm module (hooks do not call each other): bind is
// asked for every native bound, with its class signature, name and
// signature, or in the primordial phase, when methods have no names yet,
// with csig NULL and the VM function it is bound to in name. It returns 1
// when the native is its own (then it set *new_addr, or left the native
// as it is). report warns of its natives not bound by VMInit.
typedef int (*natives_binder)(const char *csig, const char *name, const char *sig, void *addr, void **new_addr);
void natives_add(natives_binder bind, void (*report)(void));
#endif
