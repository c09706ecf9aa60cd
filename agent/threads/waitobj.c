#include "hotspot/objhash.h"
#include "core/counters.h"
#include "core/orca.h"
#include "hotspot/vmstructs.h"
#include "threads/waitobj.h"

// Two routes, neither running Java code nor loading a class (before, JDK 19+
// asked ThreadMXBean.getThreadInfo: java.lang.management loaded in the
// target, and a safepoint per walker round):
//
// - The wait native's own argument. The agent wraps Object.wait's native
//   (natives.c), so the waiting thread holds, in the native's frame, a JNI
//   reference to the object for as long as it waits. In HotSpot that
//   reference is a slot the garbage collector updates, and JVMTI resolves it
//   by reading the slot (JNIHandles::resolve of a local handle), on any
//   thread. Read from another thread it is exact as long as no collection
//   moves the object during the call: true with the stop-the-world moving
//   collectors (G1, Parallel, Serial; objhash.h), as the walker is in the VM
//   during GetObjectHashCode and a collection waits for it. 0.6-0.8 us a
//   wait (median, JDK 17 and 25), no safepoint.
// - JVMTI GetCurrentContendedMonitor, which names the object of a thread in
//   Object.wait up to JDK 18; from 19 it names it only once the thread
//   re-enters the monitor (the spec's "waiting to regain").
//
// With ZGC or Shenandoah (objects moved concurrently, stack slots processed
// lazily) on JDK 19+, neither applies: the object is named at the wait's
// start instead (monitor.c), under the monitor, as before the walker.

int waitobj_later(void) { return !hs_has(HS_CONTENDED_ENTER_ONLY) || objhash_stw(); }

uint32_t waitobj_hash(JNIEnv *env, jthread t, jobject o) {
  jint h = 0;
  if (o && objhash_stw() && (*jvmti)->GetObjectHashCode(jvmti, o, &h) == JVMTI_ERROR_NONE && h) return (uint32_t)h;
  jobject m = NULL;
  uint32_t out = 0;
  jvmtiError err = t ? (*jvmti)->GetCurrentContendedMonitor(jvmti, t, &m) : JVMTI_ERROR_NONE;
  if (err == JVMTI_ERROR_NONE && m) {
    out = objhash_of(m);
    (*env)->DeleteLocalRef(env, m);
  } else if (err == JVMTI_ERROR_MUST_POSSESS_CAPABILITY) {
    counter_add(CNT_ATTACHED_MISSED, 1);   // attached (entry.c)
  }
  return out;
}

// The class is named from the same argument with JNI GetObjectClass, which
// resolves the reference as JVMTI does (a read of the slot; HotSpot checks
// neither the thread nor the kind of a local reference) while the walker
// is in the VM. Checked JNI (-Xcheck:jni) rejects another thread's local
// reference as a fatal error: then the class is written by the waiting
// thread with its Waited (pending.c), as for waits named at their start.
static atomic_int jni_checked = -1;

int waitobj_class_safe(void) {
  int c = atomic_load_explicit(&jni_checked, memory_order_relaxed);
  if (c < 0) atomic_store_explicit(&jni_checked, c = vms_flag("CheckJNICalls") == 1, memory_order_relaxed);
  return !c && objhash_stw();
}
