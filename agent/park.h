// Parking: every LockSupport.park* is jdk.internal.misc.Unsafe.park(ZJ)V, a
// native the agent wraps at NativeMethodBind like Object.wait (natives.c),
// and every LockSupport.unpark is Unsafe.unpark. A park writes ThreadPark
// (its blocker, the blocker's owner when it is an AbstractOwnableSynchronizer,
// its timeout) and ThreadUnparked (how it ended); an unpark writes
// ThreadUnpark; a blocker's class is written once as ObjectClass. All
// through JNI field reads on the current thread: no Java code, no safepoint.
#ifndef ORCA_PARK_H
#define ORCA_PARK_H
#include <jvmti.h>

// park_bind substitutes the wrappers when the VM binds Unsafe.park or
// unpark (csig, name, sig: the method's); returns 1 when it was one of them.
int park_bind(const char *csig, const char *name, const char *sig, void *addr, void **new_addr);
// park_init caches the JNI field IDs (VMInit). Until then parks are not
// recorded (the VM's own start-up parks).
void park_init(JNIEnv *env);
// park_report warns when the hooks never bound (VMInit, VMDeath).
void park_report(void);
#endif
