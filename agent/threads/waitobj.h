// Naming the object a waiting thread waits on, for the walker (pending.c),
// which writes the waits that outlive a flush period.
#ifndef ORCA_WAITOBJ_H
#define ORCA_WAITOBJ_H
#include <jvmti.h>
#include <stdint.h>

// waitobj_later tells whether a wait's object can be named after the wait
// began (by waitobj_hash); if not, it is named at the wait's start.
int waitobj_later(void);
// waitobj_hash returns the identity hash of the object thread t waits on in
// Object.wait, or 0 when it cannot tell. o is the waiting thread's own
// reference to it (its wait native's argument). The thread must stay
// inside that native meanwhile (the walker has claimed the wait: the
// thread's MonitorWaited, or its wrapper's end, waits for the walker).
// Any Java thread of the agent.
uint32_t waitobj_hash(JNIEnv *env, jthread t, jobject o);
// waitobj_class_safe: the class of a waited object may be taken from its
// wait native's argument (objclass_write, by pending.c), under the same
// conditions as waitobj_hash; never under -Xcheck:jni.
int waitobj_class_safe(void);
#endif
