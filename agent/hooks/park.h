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
#include <stdint.h>
#include "hooks/classfile.h"
#include "record/rec.h"

// park_bind substitutes the wrappers when the VM binds Unsafe.park or
// unpark (csig, name, sig: the method's); returns 1 when it was one of them.
int park_bind(const char *csig, const char *name, const char *sig, void *addr, void **new_addr);
// park_lock_order: with lockorder=yes, the locks a thread holds at a park
// in the acquire of a ReentrantLock or a ReentrantReadWriteLock, which
// is_lock tells by its blocker (hooks/held.h: the jvm module passes
// held_on, held_read, held_write and held_lock); read runs before the
// park's time is taken, write after its line. The park's mode is then found
// whether it names an owner or not.
struct tstate;
void park_lock_order(int (*on)(void), void (*read)(void),
                     void (*write)(JNIEnv *, struct tstate *, int64_t, const orca_frame *, int, uint32_t),
                     int (*is_lock)(JNIEnv *, jobject));
// park_init caches the JNI field IDs (VMInit). Until then parks are not
// recorded (the VM's own start-up parks).
void park_init(JNIEnv *env, jthread cur);
// park_blocker returns the identity hash of thread t's Thread.parkBlocker
// (0: none), writes its class once (ObjectClass, on s's shard at ts), sets
// *owner to its exclusive owner's hash when it is an
// AbstractOwnableSynchronizer (else 0) and, when it names no owner, *mode
// to how t acquires it when it parks in the acquire of an
// AbstractQueuedSynchronizer (ORCA_MODE_*, else 0). t is the calling thread. Used for virtual threads' parks too
// (vpark.h). ts: of the blocker's ObjectClass line (-1: read when one is
// written). It leaves the blocker's and its owner's local references to the
// calling native's return. park_interrupted: t's interrupt flag is set.
struct tstate;
uint32_t park_blocker(JNIEnv *env, struct tstate *s, int64_t ts, jthread t, uint32_t *owner, int *mode);
int park_interrupted(JNIEnv *env, jthread t);
// park_ready: the field IDs are taken (parks are recorded).
int park_ready(void);
// vpark_specs: the methods of java.lang.VirtualThread that vpark.c wraps
// (park, parkNanos, sleepNanos, unpark, start; inject_add, by the jvm
// module). vpark.c is the park module's part for virtual threads.
const wrap_spec *vpark_specs(int *n);
// The natives of VirtualThread's injected hooks (vpark.c; inject_add).
JNIEXPORT void JNICALL Java_java_lang_VirtualThread_orca_00024hook(JNIEnv *env, jclass c, jint op, jobject o);
JNIEXPORT void JNICALL Java_java_lang_VirtualThread_orca_00024hookJ(JNIEnv *env, jclass c, jint op, jobject o, jlong arg);
// park_report warns when the hooks never bound (VMInit, VMDeath).
void park_report(void);
#endif
