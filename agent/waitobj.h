// Naming the object a waiting thread waits on, for the walker (pending.c),
// which writes the waits that outlive a flush period.
#ifndef ORCA_WAITOBJ_H
#define ORCA_WAITOBJ_H
#include <jvmti.h>
#include <stdint.h>

// waitobj_hashes sets out[i] to the identity hash of the object threads[i]
// waits on in Object.wait, or 0 when it cannot tell. Each thread must stay
// inside its wait meanwhile (the walker has claimed the wait: its
// MonitorWaited waits for the walker). Any Java thread of the agent.
void waitobj_hashes(JNIEnv *env, jthread *threads, uint32_t *out, int n);
#endif
