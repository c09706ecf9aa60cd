// The classes of the objects the records name (ObjectClass lines): park
// blockers, contended monitors, waited objects. Each object's class is
// written once, before (or with) the first line of the thread that names
// it; a class's signature is asked of JVMTI once.
#ifndef ORCA_OBJCLASS_H
#define ORCA_OBJCLASS_H
#include <jvmti.h>
#include <stdint.h>

// objclass_write writes the class of o (identity hash h, not 0) as an
// ObjectClass line at ts (-1: now, read only when a line is written), by the thread whose hash and ring shard are given,
// unless it was written already (a table of 4 096 objects by hash: an
// object that fell out of it is described again). Costs, for an object
// seen before, one table read; else one JNI GetObjectClass and a hash of
// the class, and GetClassSignature once per class. o must be a local
// reference of the calling thread, which must not hold a monitor the
// application uses (the calls take a few hundred ns). Nothing with
// kinds=seed. Returns 1 at o's first sight (its line written, or tried),
// 0 when it was written already (or kinds=seed).
int objclass_write(JNIEnv *env, int shard, uint32_t thread, int64_t ts, jobject o, uint32_t h);
// objclass_known: the class of the object of hash h was written (and is
// still in the table), or kinds=seed writes none.
int objclass_known(uint32_t h);
// objclass_condition returns this$0 of o's class when that class is a
// ConditionObject of AbstractQueuedSynchronizer or
// AbstractQueuedLongSynchronizer (or extends one): the field naming the
// synchronizer a condition belongs to; NULL otherwise (and with
// kinds=seed). Looked up once per class in the table of class signatures
// (objclass_write fills it: call it first), JVMTI's signatures of the class
// and its superclasses; a class without a slot of its own (another holds
// it) is looked up at each call: slower, never wrong; any number of
// classes works. o: a local reference, as objclass_write's.
jfieldID objclass_condition(JNIEnv *env, jobject o);
// objclass_reset forgets which classes were written: a new recording in
// the same JVM (an attach) names its objects again.
void objclass_reset(void);
// objclass_forget forgets that h's class was written (the compact
// encoder's table of classes to restate let go of it, on the writer's
// thread): the next objclass_write of h writes it again, in a chunk that
// then restates it. A relaxed compare-and-swap: a thread that names h
// meanwhile writes it once more, harmless.
void objclass_forget(uint32_t h);
#endif
