#include <stdatomic.h>
#include <string.h>
#include "counters.h"
#include "orca.h"
#include "vmstructs.h"
#include "vthread.h"

static atomic_int have_vts;   // VirtualThreadStart is enabled: virtual_threads counts
static jclass base_class, carrier_class;   // java.lang.BaseVirtualThread, jdk.internal.misc.CarrierThread
static atomic_int looked_up;

// The classes are looked up at the first thread made in the live phase:
// carriers and virtual threads exist only after VMInit.
static void lookup(JNIEnv *env) {
  if (atomic_load(&looked_up) || !hs_has(HS_VIRTUAL_THREADS)) return;
  jvmtiPhase ph = JVMTI_PHASE_LIVE;
  (*jvmti)->GetPhase(jvmti, &ph);
  if (ph != JVMTI_PHASE_LIVE) return;
  const char *names[2] = {"java/lang/BaseVirtualThread", "jdk/internal/misc/CarrierThread"};
  jclass *out[2] = {&base_class, &carrier_class};
  for (int i = 0; i < 2; i++) {
    jclass c = (*env)->FindClass(env, names[i]);
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    if (c) {
      *out[i] = (*env)->NewGlobalRef(env, c);
      (*env)->DeleteLocalRef(env, c);
    }
  }
  atomic_store(&looked_up, 1);
}

int vthread_may_host(JNIEnv *env, jthread t) {
  if (!hs_has(HS_VIRTUAL_THREADS) || !env || !t) return 0;
  lookup(env);
  return (base_class && (*env)->IsInstanceOf(env, t, base_class)) ||
         (carrier_class && (*env)->IsInstanceOf(env, t, carrier_class));
}

int vthread_is(JNIEnv *env, jthread t) {
  if (!base_class || !env) return 0;
  jthread cur = t;
  if (!cur && (*jvmti)->GetCurrentThread(jvmti, &cur) != JVMTI_ERROR_NONE) return 0;
  int v = cur && (*env)->IsInstanceOf(env, cur, base_class);
  if (cur && !t) (*env)->DeleteLocalRef(env, cur);
  return v;
}

void vthread_unattributed(int kind) {
  counter_kind_add(KC_UNATTRIBUTED, kind, 1);
}

// JDK 21's jvmti.h: can_support_virtual_threads follows the 44 capabilities
// of JDK 17's (byte 5, bit 4), and VirtualThreadStart (event 87) follows
// SampledObjectAlloc in the callbacks.
#define VT_CAP_BYTE 5
#define VT_CAP_BIT 0x10
#define EV_VIRTUAL_THREAD_START 87

void vthread_capabilities(jvmtiCapabilities *want, const jvmtiCapabilities *have) {
  if (hs_has(HS_VT_EVENTS) && (((const unsigned char *)have)[VT_CAP_BYTE] & VT_CAP_BIT))
    ((unsigned char *)want)[VT_CAP_BYTE] |= VT_CAP_BIT;
}

static void JNICALL on_virtual_thread_start(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j; (void)env; (void)t;
  counter_add(CNT_VIRTUAL_THREADS, 1);
}

jvmtiError vthread_set_callbacks(const jvmtiEventCallbacks *cb) {
  struct {
    jvmtiEventCallbacks base;
    void *virtual_thread_start, *virtual_thread_end;
  } all;
  memset(&all, 0, sizeof all);
  all.base = *cb;
  all.virtual_thread_start = (void *)on_virtual_thread_start;
  jvmtiCapabilities caps;
  memset(&caps, 0, sizeof caps);
  (*jvmti)->GetCapabilities(jvmti, &caps);
  int vts = hs_has(HS_VT_EVENTS) && (((unsigned char *)&caps)[VT_CAP_BYTE] & VT_CAP_BIT);
  atomic_store(&have_vts, vts);
  return (*jvmti)->SetEventCallbacks(jvmti, &all.base, vts ? (jint)sizeof all : (jint)sizeof all.base);
}

void vthread_enable(void) {
  if (atomic_load(&have_vts) &&
      (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, (jvmtiEvent)EV_VIRTUAL_THREAD_START, NULL) != JVMTI_ERROR_NONE)
    atomic_store(&have_vts, 0);
  if (atomic_load(&have_vts)) counters_show(CNT_VIRTUAL_THREADS);   // .info virtual_threads, also at 0
}
