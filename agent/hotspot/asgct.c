#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <stdatomic.h>
#include "hotspot/asgct.h"
#include "core/orca.h"
#include "hotspot/vmstructs.h"

typedef struct {
  jint bci;            // -3 for a native method's frame
  jmethodID method;
} call_frame;

typedef struct {
  JNIEnv *env;
  jint num_frames;     // negative: why the walk failed
  call_frame *frames;
} call_trace;

typedef void (*asgct_fn)(call_trace *, jint, void *);
static asgct_fn asgct;
atomic_int asgct_ready_flag;   // asgct.h
int asgct_verify;

const char *asgct_init(void) {
  asgct = (asgct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
  asgct_verify = switches.verify_stacks;   // 2: also print the stacks that differ
  return asgct ? NULL : "AsyncGetCallTrace not found: stacks are walked with GetStackTrace only";
}

static void make_ids(jclass c) {
  jint n = 0;
  jmethodID *m = NULL;
  // Asking for the methods creates their jmethodIDs.
  if ((*jvmti)->GetClassMethods(jvmti, c, &n, &m) == JVMTI_ERROR_NONE && m)
    (*jvmti)->Deallocate(jvmti, (unsigned char *)m);
}

void JNICALL asgct_on_class_prepare(jvmtiEnv *j, JNIEnv *env, jthread t, jclass c) {
  (void)j; (void)env; (void)t;
  if (asgct) make_ids(c);
}

// AsyncGetCallTrace refuses to walk unless ClassLoad events are enabled.
void JNICALL asgct_on_class_load(jvmtiEnv *j, JNIEnv *env, jthread t, jclass c) {
  (void)j; (void)env; (void)t; (void)c;
}

int asgct_ready(JNIEnv *env, int loaded) {
  if (!asgct) return 0;
  jint n = 0, made = 0;
  jclass *cs = NULL;
  if (!loaded) {
    atomic_store(&asgct_ready_flag, 1);
    return 0;
  }
  if ((*jvmti)->GetLoadedClasses(jvmti, &n, &cs) != JVMTI_ERROR_NONE) return 0;
  // GetLoadedClasses returns a local reference per class (~450 at VMInit),
  // all live in this frame at once: say so, or -Xcheck:jni warns that they
  // exceed the frame's capacity.
  (*env)->EnsureLocalCapacity(env, n);
  for (jint i = 0; i < n; i++) {
    jint st = 0;
    if ((*jvmti)->GetClassStatus(jvmti, cs[i], &st) == JVMTI_ERROR_NONE && (st & JVMTI_CLASS_STATUS_PREPARED))
      make_ids(cs[i]), made++;
    (*env)->DeleteLocalRef(env, cs[i]);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)cs);
  atomic_store(&asgct_ready_flag, 1);
  return made;
}

int asgct_walk(JNIEnv *env, int skip, jvmtiFrameInfo *fr, int max) {
  int n;
  // JDK 11-18's AsyncGetCallTrace is not exact: 17's stops at an entry
  // frame whose caller is a runtime stub (a stack of 5 frames for 16 under
  // -Xcomp) and describes a compiled frame by the debug record after its
  // return address (docs/agent.md): never used there, also when the own
  // walker does not run. On 25 it is for virtual threads.
  if (hs_has(HS_ASGCT_INEXACT)) return -1;
  call_frame cf[ORCA_MAX_DEPTH + 8];
  int want = max + skip;
  if (want > ORCA_MAX_DEPTH + 8) return -1;
  call_trace tr = {env, 0, cf};
  asgct(&tr, want, NULL);
  if (tr.num_frames <= 0) return -1;
  n = 0;
  for (int i = skip; i < tr.num_frames; i++) {
    // A method without a jmethodID yet, or a frame type we do not know.
    if (!cf[i].method || cf[i].bci < -3) return -1;
    fr[n].method = cf[i].method;
    fr[n].location = cf[i].bci == -3 ? -1 : cf[i].bci;
    n++;
  }
  return n;
}

int asgct_sample(JNIEnv *env, void *ucontext, jvmtiFrameInfo *fr, int max) {
  if (!asgct || !atomic_load_explicit(&asgct_ready_flag, memory_order_relaxed)) return ASGCT_SAMPLE_OFF;
  call_frame cf[ASGCT_SAMPLE_MAX];
  if (max > ASGCT_SAMPLE_MAX) max = ASGCT_SAMPLE_MAX;
  call_trace tr = {env, 0, cf};
  asgct(&tr, max, ucontext);
  if (tr.num_frames < 0) return tr.num_frames;
  int n = 0;
  for (int i = 0; i < tr.num_frames; i++) {
    if (!cf[i].method) return ASGCT_SAMPLE_NO_ID;   // a method without a jmethodID
    fr[n].method = cf[i].method;
    fr[n].location = cf[i].bci < 0 ? -1 : cf[i].bci;
    n++;
  }
  return n;
}
