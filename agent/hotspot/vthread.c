#include <stdatomic.h>
#include <string.h>
#include "core/counters.h"
#include "hotspot/jclass.h"
#include "core/orca.h"
#include "hotspot/vmstructs.h"
#include "hotspot/vthread.h"

static atomic_int have_vts;   // VirtualThreadStart is enabled: virtual_threads counts
// java.lang.BaseVirtualThread, jdk.internal.misc.CarrierThread: found among
// the classes loaded at VMInit or when prepared (ClassPrepare), never with
// FindClass (jclass.h). BaseVirtualThread is loaded with the VM;
// CarrierThread only when a program makes virtual threads: until then no
// thread is a carrier.
static _Atomic(jclass) base_class, carrier_class;
static jfieldID fid_tid;                   // java.lang.Thread.tid
static vthread_fn on_start, on_end;

#define SIG_BASE "Ljava/lang/BaseVirtualThread;"
#define SIG_CARRIER "Ljdk/internal/misc/CarrierThread;"

static jclass base(void) { return atomic_load_explicit(&base_class, memory_order_acquire); }
static jclass carrier(void) { return atomic_load_explicit(&carrier_class, memory_order_acquire); }

static int classes_wanted(void) { return hs_has(HS_VIRTUAL_THREADS) && (!base() || !carrier()); }

static void note_class(JNIEnv *env, jclass c) {
  char *sig = NULL;
  if ((*jvmti)->GetClassSignature(jvmti, c, &sig, NULL) != JVMTI_ERROR_NONE || !sig) return;
  _Atomic(jclass) *slot = !strcmp(sig, SIG_BASE) ? &base_class : !strcmp(sig, SIG_CARRIER) ? &carrier_class : NULL;
  (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
  if (!slot || atomic_load(slot)) return;
  jclass g = (*env)->NewGlobalRef(env, c), none = NULL;
  if (g && !atomic_compare_exchange_strong(slot, &none, g)) (*env)->DeleteGlobalRef(env, g);
}

void vthread_class_prepared(JNIEnv *env, jclass c) {
  if (classes_wanted()) note_class(env, c);
}

void vthread_init(JNIEnv *env, jthread t) {
  if (!hs_has(HS_VIRTUAL_THREADS)) return;
  jclass tc = jclass_of(env, t, "Ljava/lang/Thread;");
  if (tc) {
    fid_tid = (*env)->GetFieldID(env, tc, "tid", "J");
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), fid_tid = NULL;
    (*env)->DeleteLocalRef(env, tc);
  }
  jint n = 0;
  jclass *cs = NULL;
  if ((*jvmti)->GetLoadedClasses(jvmti, &n, &cs) != JVMTI_ERROR_NONE) return;
  (*env)->EnsureLocalCapacity(env, n);   // -Xcheck:jni: all live at once (asgct.c)
  for (jint i = 0; i < n; i++) {
    if (classes_wanted()) note_class(env, cs[i]);
    (*env)->DeleteLocalRef(env, cs[i]);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)cs);
}

int vthread_current(JNIEnv *env, jthread t, jthread *cur) {
  *cur = NULL;
  jclass b = base();
  if (!b || !env) return 0;
  jthread c = t;
  if (!c && (*jvmti)->GetCurrentThread(jvmti, &c) != JVMTI_ERROR_NONE) return 0;
  if (c && (*env)->IsInstanceOf(env, c, b)) {
    *cur = c;
    return 1;
  }
  if (c && !t) (*env)->DeleteLocalRef(env, c);
  return 0;
}

void *vthread_get(jthread vt) {
  void *p = NULL;
  if ((*jvmti)->GetThreadLocalStorage(jvmti, vt, &p) != JVMTI_ERROR_NONE) return NULL;
  return p;
}

void vthread_put(jthread vt, void *p) { (*jvmti)->SetThreadLocalStorage(jvmti, vt, p); }

int64_t vthread_tid(JNIEnv *env, jthread vt) {
  if (!fid_tid || !vt) return -1;
  return (int64_t)(*env)->GetLongField(env, vt, fid_tid);
}

// Live virtual threads by thread id: direct-mapped (ids are consecutive
// longs, so live threads rarely share a slot; a later one takes the slot
// and the earlier one's monitors get owner 00000000). Written by the virtual
// thread at its start and end, read without a lock by contenders: a reader
// takes the hash only when the id reads the same before and after it.
#define TID_SLOTS (1 << 18)
typedef struct {
  _Atomic int64_t tid;   // 0: free
  _Atomic uint32_t hash;
} tid_slot;
static _Atomic(void *) tids;

static tid_slot *tid_table(int make) { return orca_table(&tids, TID_SLOTS * sizeof(tid_slot), make); }

uint32_t vthread_by_tid(int64_t tid) {
  tid_slot *t = tid_table(0);
  if (!t || tid <= 0) return 0;
  tid_slot *e = &t[(uint64_t)tid & (TID_SLOTS - 1)];
  if (atomic_load(&e->tid) != tid) return 0;
  uint32_t h = atomic_load(&e->hash);
  return atomic_load(&e->tid) == tid ? h : 0;
}

static void tid_add(int64_t tid, uint32_t hash) {
  tid_slot *t = tid_table(1);
  if (!t || tid <= 0) return;
  tid_slot *e = &t[(uint64_t)tid & (TID_SLOTS - 1)];
  atomic_store(&e->tid, -1);
  atomic_store(&e->hash, hash);
  atomic_store(&e->tid, tid);
}

static void tid_remove(int64_t tid) {
  tid_slot *t = tid_table(0);
  if (!t || tid <= 0) return;
  int64_t want = tid;
  atomic_compare_exchange_strong(&t[(uint64_t)tid & (TID_SLOTS - 1)].tid, &want, 0);
}

void vthread_on(vthread_fn start, vthread_fn end) {
  on_start = start;
  on_end = end;
}

int vthread_may_host(JNIEnv *env, jthread t) {
  if (!hs_has(HS_VIRTUAL_THREADS) || !env || !t) return 0;
  jclass b = base(), c = carrier();
  return (b && (*env)->IsInstanceOf(env, t, b)) || (c && (*env)->IsInstanceOf(env, t, c));
}

int vthread_is(JNIEnv *env, jthread t) {
  jclass b = base();
  if (!b || !env) return 0;
  jthread cur = t;
  if (!cur && (*jvmti)->GetCurrentThread(jvmti, &cur) != JVMTI_ERROR_NONE) return 0;
  int v = cur && (*env)->IsInstanceOf(env, cur, b);
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
#define EV_VIRTUAL_THREAD_END 88

void vthread_capabilities(jvmtiCapabilities *want, const jvmtiCapabilities *have) {
  if (hs_has(HS_VT_EVENTS) && (((const unsigned char *)have)[VT_CAP_BYTE] & VT_CAP_BIT))
    ((unsigned char *)want)[VT_CAP_BYTE] |= VT_CAP_BIT;
}

static void JNICALL on_virtual_thread_start(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j;
  counter_add(CNT_VIRTUAL_THREADS, 1);
  if (!orca_recording() || !t) return;
  jint h = 0;
  (*jvmti)->GetObjectHashCode(jvmti, t, &h);
  int64_t tid = vthread_tid(env, t);
  tid_add(tid, (uint32_t)h);
  if (on_start) on_start(env, t, (uint32_t)h, tid);
}

static void JNICALL on_virtual_thread_end(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j;
  if (!t) return;
  int64_t tid = vthread_tid(env, t);
  if (on_end) on_end(env, t, 0, tid);
  tid_remove(tid);
}

jvmtiError vthread_set_callbacks(const jvmtiEventCallbacks *cb) {
  struct {
    jvmtiEventCallbacks base;
    void *virtual_thread_start, *virtual_thread_end;
  } all;
  memset(&all, 0, sizeof all);
  all.base = *cb;
  all.virtual_thread_start = (void *)on_virtual_thread_start;
  all.virtual_thread_end = (void *)on_virtual_thread_end;
  jvmtiCapabilities caps;
  memset(&caps, 0, sizeof caps);
  (*jvmti)->GetCapabilities(jvmti, &caps);
  int vts = hs_has(HS_VT_EVENTS) && (((unsigned char *)&caps)[VT_CAP_BYTE] & VT_CAP_BIT);
  atomic_store(&have_vts, vts);
  return (*jvmti)->SetEventCallbacks(jvmti, &all.base, vts ? (jint)sizeof all : (jint)sizeof all.base);
}

void vthread_enable(void) {
  if (atomic_load(&have_vts) &&
      ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, (jvmtiEvent)EV_VIRTUAL_THREAD_START, NULL) != JVMTI_ERROR_NONE ||
       (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, (jvmtiEvent)EV_VIRTUAL_THREAD_END, NULL) != JVMTI_ERROR_NONE))
    atomic_store(&have_vts, 0);
  if (atomic_load(&have_vts)) counters_show(CNT_VIRTUAL_THREADS);   // .info virtual_threads, also at 0
}

void vthread_disable(void) {
  if (!atomic_load(&have_vts)) return;
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, (jvmtiEvent)EV_VIRTUAL_THREAD_START, NULL);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, (jvmtiEvent)EV_VIRTUAL_THREAD_END, NULL);
}
