// The attach's snapshot: what the threads alive at an attach are doing
// (threads/attached.h), written at the attach's time before any event is
// on (jvm/entry.c's attach_start, the attach's start-up phase).
#ifndef ORCA_SNAPSHOT_H
#define ORCA_SNAPSHOT_H
#include <jvmti.h>
#include <stdint.h>

// A parked thread's blocker (hooks/park.h's park_blocker for another
// thread t, its hash thread, written on shard; given by entry.c): its hash,
// its owner and the mode of its acquire.
typedef uint32_t (*snapshot_blocker_fn)(JNIEnv *env, uint32_t thread, int shard, int64_t ts, jthread t, uint32_t *owner,
                                        int *mode);
// snapshot_threads writes the states of the platform threads alive now at
// ts (their ThreadStarted lines are written: threads_existing_at) and keeps
// the open ones; returns how many it found blocked, waiting, parked or
// sleeping.
int snapshot_threads(JNIEnv *env, int64_t ts, snapshot_blocker_fn blocker);
// snapshot_virtual is snapshot_threads for vt, a virtual thread at the
// attach (its hash th, its JVMTI state st, its ThreadStarted written on
// shard: JVMTI lists no virtual thread, the caller finds them): 1 when it
// wrote its park or
// sleep, 0 when it is in neither, -1 when it is blocked entering a monitor
// or waiting in Object.wait (JDK 24+, unmounted: its monitor is not read;
// skipped). read: its stack read with st (GetThreadListStackTraces, at
// least SNAPSHOT_VIRTUAL_DEPTH frames), NULL: asked here.
int snapshot_virtual(JNIEnv *env, jthread vt, jint st, uint32_t th, int shard, int64_t ts, snapshot_blocker_fn blocker,
                     const jvmtiStackInfo *read);
// SNAPSHOT_VIRTUAL_DEPTH: the frames a virtual thread's stack is read to
// (opt.depth, and at least the 6 that tell its sleep: vthread_sleeping).
#define SNAPSHOT_VIRTUAL_DEPTH (opt.depth > 6 ? opt.depth : 6)
#endif
