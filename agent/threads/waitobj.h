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
// waitobj_class_needed: the class of the waited object of hash h (0: not
// named yet) is not written yet and waitobj_class can write it.
int waitobj_class_needed(uint32_t h);
// waitobj_class writes the class of that object (objclass.h), hash h, as
// an ObjectClass line of the waiting thread (shard, thread) at ts, from
// o, its wait native's argument, under the same conditions as
// waitobj_hash; nothing under -Xcheck:jni.
void waitobj_class(JNIEnv *env, int shard, uint32_t thread, int64_t ts, jobject o, uint32_t h);
#endif
