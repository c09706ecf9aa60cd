#include <stdlib.h>
#include <string.h>
#include "core/events.h"
#include "stacks/objclass.h"
#include "hotspot/objhash.h"
#include "core/clock.h"
#include "core/fmt.h"
#include "core/orca.h"
#include "record/ring.h"

// Objects whose class was written: by identity hash, direct-mapped; a
// collision writes the class again (duplicates are harmless).
#define SEEN_SLOTS 4096
static _Atomic uint32_t seen[SEEN_SLOTS];

// Class signatures by the identity hash of the java.lang.Class, so that a
// new object of a known class (a FutureTask, a CompletableFuture's
// Signaller per join, a new lock of a known class) costs no JVMTI
// GetClassSignature. A slot is filled once and never changes (a collision
// asks JVMTI each time): no lock, no free. The text is UTF-8, as written.
// Two classes can share an identity hash (on JDK 17 a class of the CDS
// archive and one of the application: classids.h), so a slot holds its
// class too (a weak reference: the class may be unloaded), and a class of
// the slot's hash is its class only when JNI says they are the same.
//
// A slot also keeps whether its class is a ConditionObject of an
// AbstractQueued(Long)Synchronizer (objclass_condition), found the first
// time a park blocker of the class is asked about: cond 0 not yet known,
// 1 not one, 2 one, outer then its this$0 (written before cond).
#define SIG_SLOTS 512
typedef struct {
  uint32_t cls;
  jweak ref;
  _Atomic int cond;
  _Atomic(jfieldID) outer;
  int len;
  char text[];
} sig_t;
static _Atomic(sig_t *) sigs[SIG_SLOTS];

static _Atomic uint32_t *seen_slot(uint32_t h) { return &seen[(h * 2654435761u) >> 20 & (SEEN_SLOTS - 1)]; }

void objclass_reset(void) {
  for (int i = 0; i < SEEN_SLOTS; i++) atomic_store_explicit(&seen[i], 0, memory_order_relaxed);
}

void objclass_forget(uint32_t h) {
  uint32_t want = h;
  if (h) atomic_compare_exchange_strong_explicit(seen_slot(h), &want, 0, memory_order_relaxed, memory_order_relaxed);
}

int objclass_known(uint32_t h) {
  return opt.seed_only || (h && atomic_load_explicit(seen_slot(h), memory_order_relaxed) == h);
}

int objclass_write(JNIEnv *env, int shard, uint32_t thread, int64_t ts, jobject o, uint32_t h) {
  if (opt.seed_only || !env || !o || !h) return 0;
  _Atomic uint32_t *slot = seen_slot(h);
  if (atomic_load_explicit(slot, memory_order_relaxed) == h) return 0;
  atomic_store_explicit(slot, h, memory_order_relaxed);
  jclass c = (*env)->GetObjectClass(env, o);
  if (!c) return 1;
  if (ts < 0) ts = clock_now();
  uint32_t ch = objhash_of(c);
  _Atomic(sig_t *) *ss = &sigs[(ch * 2654435761u) >> 23 & (SIG_SLOTS - 1)];
  sig_t *known = ch ? atomic_load_explicit(ss, memory_order_acquire) : NULL;
  if (known && known->cls == ch && (*env)->IsSameObject(env, known->ref, c)) {
    ring_put(shard, ORCA_EV_OBJECT_CLASS, ts, thread, h, 0, NULL, 0, known->text, known->len);
    (*env)->DeleteLocalRef(env, c);
    return 1;
  }
  char *sig = NULL;
  if ((*jvmti)->GetClassSignature(jvmti, c, &sig, NULL) == JVMTI_ERROR_NONE && sig) {
    char buf[2048];
    int n = (int)mutf8_to_utf8(sig, strlen(sig), buf, sizeof buf);
    ring_put(shard, ORCA_EV_OBJECT_CLASS, ts, thread, h, 0, NULL, 0, buf, n);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    sig_t *fresh = ch && !known ? malloc(sizeof *fresh + (size_t)n) : NULL;
    if (fresh && !(fresh->ref = (*env)->NewWeakGlobalRef(env, c))) {
      free(fresh);
      fresh = NULL;
    }
    if (fresh) {
      fresh->cls = ch;
      atomic_init(&fresh->cond, 0);
      atomic_init(&fresh->outer, NULL);
      fresh->len = n;
      memcpy(fresh->text, buf, (size_t)n);
      sig_t *expect = NULL;
      if (!atomic_compare_exchange_strong(ss, &expect, fresh)) {   // another thread filled it
        (*env)->DeleteWeakGlobalRef(env, fresh->ref);
        free(fresh);
      }
    }
  }
  (*env)->DeleteLocalRef(env, c);
  return 1;
}

// cond_outer returns this$0 of class c when c is a ConditionObject of
// AbstractQueuedSynchronizer or AbstractQueuedLongSynchronizer, or extends
// one (8 superclasses at most), else NULL: its signature and its
// superclasses', asked of JVMTI. No class is loaded: a FindClass of a class
// the program had not loaded (AbstractQueuedLongSynchronizer$ConditionObject)
// made HotSpot deoptimize code compiled on the assumption that Condition had
// one implementor (with -Xcomp on JDK 25 a stack then differed from
// GetStackTrace's).
static jfieldID cond_outer(JNIEnv *env, jclass c) {
  jfieldID outer = NULL;
  jclass k = (*env)->NewLocalRef(env, c);
  for (int depth = 0; k && depth < 8; depth++) {
    char *sig = NULL;
    const char *owner = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, k, &sig, NULL) == JVMTI_ERROR_NONE && sig) {
      if (!strcmp(sig, "Ljava/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject;"))
        owner = "Ljava/util/concurrent/locks/AbstractQueuedSynchronizer;";
      else if (!strcmp(sig, "Ljava/util/concurrent/locks/AbstractQueuedLongSynchronizer$ConditionObject;"))
        owner = "Ljava/util/concurrent/locks/AbstractQueuedLongSynchronizer;";
      (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    }
    if (owner) {
      outer = (*env)->GetFieldID(env, k, "this$0", owner);
      if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), outer = NULL;
      break;
    }
    jclass up = (*env)->GetSuperclass(env, k);
    (*env)->DeleteLocalRef(env, k);
    k = up;
  }
  if (k) (*env)->DeleteLocalRef(env, k);
  return outer;
}

jfieldID objclass_condition(JNIEnv *env, jobject o) {
  if (opt.seed_only || !env || !o) return NULL;
  jclass c = (*env)->GetObjectClass(env, o);
  if (!c) return NULL;
  uint32_t ch = objhash_of(c);
  sig_t *known = ch ? atomic_load_explicit(&sigs[(ch * 2654435761u) >> 23 & (SIG_SLOTS - 1)], memory_order_acquire) : NULL;
  if (known && !(known->cls == ch && (*env)->IsSameObject(env, known->ref, c))) known = NULL;
  jfieldID outer = NULL;
  int cond = known ? atomic_load_explicit(&known->cond, memory_order_acquire) : 0;
  if (cond) {
    outer = cond == 2 ? atomic_load_explicit(&known->outer, memory_order_relaxed) : NULL;
  } else {
    outer = cond_outer(env, c);
    if (known) {   // two threads may both look: they find the same
      atomic_store_explicit(&known->outer, outer, memory_order_relaxed);
      atomic_store_explicit(&known->cond, outer ? 2 : 1, memory_order_release);
    }   // else: no slot of its own (another class holds it): looked up again next time
  }
  (*env)->DeleteLocalRef(env, c);
  return outer;
}
