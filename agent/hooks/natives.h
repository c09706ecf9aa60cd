// Object.wait/notify/notifyAll, Thread.sleep and Thread.start0 are native: we
// wrap their implementations as the VM binds them (JVMTI NativeMethodBind),
// which costs nothing on other calls and survives JIT compilation.
#ifndef ORCA_NATIVES_H
#define ORCA_NATIVES_H
#include <jvmti.h>
void JNICALL natives_on_bind(jvmtiEnv *j, JNIEnv *env, jthread t, jmethodID m, void *addr, void **new_addr);
// natives_missing lists hooks that never bound (for a warning at VMInit).
void natives_report(void);
#endif
