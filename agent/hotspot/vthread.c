#include <stdatomic.h>
#include <string.h>
#include "core/counters.h"
#include "hotspot/jclass.h"
#include "core/orca.h"
#include "hotspot/vmstructs.h"
#include "hotspot/vthread.h"
#include "record/tkeys.h"

static atomic_int have_vts;   // VirtualThreadStart is enabled: virtual_threads counts
// java.lang.BaseVirtualThread, jdk.internal.misc.CarrierThread: found among
// the classes loaded at VMInit or when prepared (ClassPrepare), never with
// FindClass (jclass.h). BaseVirtualThread is loaded with the VM;
// CarrierThread only when a program makes virtual threads: until then no
// thread is a carrier.
static _Atomic(jclass) base_class, carrier_class;
static _Atomic(jfieldID) fid_tid;          // java.lang.Thread.tid
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
    jfieldID f = (*env)->GetFieldID(env, tc, "tid", "J");
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), f = NULL;
    atomic_store(&fid_tid, f);
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
  if (!env || !vt) return -1;
  jfieldID f = atomic_load_explicit(&fid_tid, memory_order_acquire);
  if (!f) {   // before JDK 21 (vthread_init sets it on 21+): from the first thread that needs it
    jclass c = (*env)->GetObjectClass(env, vt);   // Thread or a subclass: the field is inherited
    f = c ? (*env)->GetFieldID(env, c, "tid", "J") : NULL;
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    if (c) (*env)->DeleteLocalRef(env, c);
    if (!f) return -1;
    atomic_store_explicit(&fid_tid, f, memory_order_release);
  }
  return (int64_t)(*env)->GetLongField(env, vt, f);
}

uint32_t vthread_key_new(JNIEnv *env, jthread t, uint32_t h) {
  int full = 0;
  uint32_t k = tkey_register(h, vthread_tid(env, t), &full);
  if (full) counter_add(CNT_THREAD_KEYS_FULL, 1);
  return k;
}

// Live virtual threads by thread id (vthread.h): the table.
void *_Atomic vthread_tids;

static vthread_tid_slot *tid_table(int make) {
  return orca_table(&vthread_tids, VTHREAD_TID_SLOTS * sizeof(vthread_tid_slot), make);
}

static void tid_add(int64_t tid, uint32_t hash) {
  vthread_tid_slot *t = tid_table(1);
  if (!t || tid <= 0) return;
  vthread_tid_slot *e = &t[(uint64_t)tid & (VTHREAD_TID_SLOTS - 1)];
  atomic_store(&e->tid, -1);
  atomic_store(&e->hash, hash);
  atomic_store(&e->tid, tid);
}

static void tid_remove(int64_t tid) {
  vthread_tid_slot *t = tid_table(0);
  if (!t || tid <= 0) return;
  int64_t want = tid;
  atomic_compare_exchange_strong(&t[(uint64_t)tid & (VTHREAD_TID_SLOTS - 1)].tid, &want, 0);
}

void vthread_known(JNIEnv *env, jthread vt, uint32_t hash) { tid_add(vthread_tid(env, vt), hash); }

// ---- The JDK's registries of virtual threads (vthread_each) ----
//
// jdk.internal.vm.ThreadContainers (JDK 21-25: the same fields) holds its
// root container in ROOT_CONTAINER: a TrackingRootContainer, whose static
// VTHREADS is a ConcurrentHashMap.KeySetView of every virtual thread
// started in no container of its own (Thread.ofVirtual().start(), a
// factory's threads: VirtualThread.start adds it, its exit removes it),
// unless the JVM runs with -Djdk.trackAllThreads=false (then a
// CountingRootContainer keeps only their number). A virtual thread started
// in a container of its own is in that container's set, and the container
// in CONTAINER_REGISTRY (a key set of WeakReferences), whatever
// jdk.trackAllThreads says: an executor of
// Executors.newVirtualThreadPerTaskExecutor (ThreadPerTaskExecutor.threads),
// a SharedThreadContainer (virtualThreads), a StructuredTaskScope's
// ThreadFlock (its container's flock.threads). Each set's map is a
// ConcurrentHashMap: its table an array of bins, each a chain of Nodes
// (key, next), a TreeBin (hash -2: its TreeNodes chained from first), a
// ForwardingNode (hash -1: a resize moved the bin to nextTable, twice as
// long, at the same index and the index plus the old length) or a
// ReservationNode (hash -3, no key). The application changes the maps
// meanwhile: a bin is read as it is then (a thread started during the
// walk may be missed, as one started after it; it is seen at its events).
#define SIG_CONTAINERS "Ljdk/internal/vm/ThreadContainers;"
#define SIG_ROOT "Ljdk/internal/vm/ThreadContainers$RootContainer;"
#define SIG_TRACKING "Ljdk/internal/vm/ThreadContainers$RootContainer$TrackingRootContainer;"
#define SIG_COUNTING "Ljdk/internal/vm/ThreadContainers$RootContainer$CountingRootContainer;"
#define SIG_CHM "Ljava/util/concurrent/ConcurrentHashMap;"
#define SIG_NODE "Ljava/util/concurrent/ConcurrentHashMap$Node;"
#define SIG_NODES "[Ljava/util/concurrent/ConcurrentHashMap$Node;"
#define SIG_SET "Ljava/util/Set;"
#define CHM_MOVED (-1)
#define CHM_TREEBIN (-2)
#define CHM_DEPTH 8   // nested resizes followed (each doubles the table)

typedef struct walk walk_t;
struct walk {
  JNIEnv *env;
  vthread_each_fn fn;
  void *arg;
  void (*on_key)(walk_t *w, jobject key);          // a thread, or a container's reference
  jfieldID hash, key, next, first, next_table;   // Node's; TreeBin's and ForwardingNode's when met
  jfieldID referent;                             // Reference.referent, when a container is met
  int64_t seen;
  int full;          // VTHREAD_EACH_MAX reached
  const char *why;   // the first reason the walk was not complete
};

static int failed(JNIEnv *env) {
  if (!(*env)->ExceptionCheck(env)) return 0;
  (*env)->ExceptionClear(env);
  return 1;
}

static void why(walk_t *w, const char *s) {
  if (!w->why) w->why = s;
}

// field_of returns the field of o's class (or a superclass) named name, of
// type sig; NULL, the exception cleared, when it has none.
static jfieldID field_of(JNIEnv *env, jobject o, const char *name, const char *sig) {
  jclass c = (*env)->GetObjectClass(env, o);
  jfieldID f = c ? (*env)->GetFieldID(env, c, name, sig) : NULL;
  if (failed(env)) f = NULL;
  if (c) (*env)->DeleteLocalRef(env, c);
  return f;
}

// object_field returns o's field name of type sig (a new local reference),
// NULL when it is null or o has no such field.
static jobject object_field(JNIEnv *env, jobject o, const char *name, const char *sig) {
  jfieldID f = o ? field_of(env, o, name, sig) : NULL;
  return f ? (*env)->GetObjectField(env, o, f) : NULL;
}

// on_thread calls fn for a virtual thread, in a local frame of its own.
static void on_thread(walk_t *w, jobject t) {
  JNIEnv *env = w->env;
  jclass b = base();
  if (b && !(*env)->IsInstanceOf(env, t, b)) return;   // a container's platform thread
  if (w->seen >= VTHREAD_EACH_MAX) {
    w->full = 1;
    why(w, "more than 1048576 virtual threads (VTHREAD_EACH_MAX): the others were not looked at");
    return;
  }
  w->seen++;
  if ((*env)->PushLocalFrame(env, 32) != JNI_OK) {
    failed(env);
    return;
  }
  w->fn(env, t, w->arg);
  (*env)->PopLocalFrame(env, NULL);
}

// visit_chain calls on_key for the keys of the nodes chained from n by
// next (deleting n and each node after it).
static void visit_chain(walk_t *w, jobject n) {
  JNIEnv *env = w->env;
  while (n && !w->full) {
    jobject k = (*env)->GetObjectField(env, n, w->key);
    if (k) {
      w->on_key(w, k);
      (*env)->DeleteLocalRef(env, k);
    }
    jobject next = (*env)->GetObjectField(env, n, w->next);
    (*env)->DeleteLocalRef(env, n);
    n = next;
  }
  if (n) (*env)->DeleteLocalRef(env, n);
}

// visit_bin visits bin i of table (its length len).
static void visit_bin(walk_t *w, jobjectArray table, jsize i, jsize len, int depth) {
  JNIEnv *env = w->env;
  jobject n = (*env)->GetObjectArrayElement(env, table, i);
  if (failed(env) || !n) return;
  if (!w->hash && !((w->hash = field_of(env, n, "hash", "I")) && (w->key = field_of(env, n, "key", "Ljava/lang/Object;")) &&
                    (w->next = field_of(env, n, "next", SIG_NODE)))) {
    w->hash = NULL;
    why(w, "ConcurrentHashMap.Node has not the fields hash, key and next: virtual threads were not looked at");
    (*env)->DeleteLocalRef(env, n);
    return;
  }
  jint h = (*env)->GetIntField(env, n, w->hash);
  if (h == CHM_TREEBIN) {
    if (!w->first) w->first = field_of(env, n, "first", "Ljava/util/concurrent/ConcurrentHashMap$TreeNode;");
    jobject f = w->first ? (*env)->GetObjectField(env, n, w->first) : NULL;
    if (!w->first) why(w, "ConcurrentHashMap.TreeBin has no field first: some virtual threads were not looked at");
    (*env)->DeleteLocalRef(env, n);
    visit_chain(w, f);
  } else if (h == CHM_MOVED) {
    if (!w->next_table) w->next_table = field_of(env, n, "nextTable", SIG_NODES);
    jobjectArray nt = w->next_table ? (*env)->GetObjectField(env, n, w->next_table) : NULL;
    if (!w->next_table) why(w, "ConcurrentHashMap.ForwardingNode has no field nextTable: some virtual threads were not looked at");
    (*env)->DeleteLocalRef(env, n);
    if (!nt) return;
    if (depth >= CHM_DEPTH || (*env)->GetArrayLength(env, nt) != 2 * len) {
      why(w, "a registry of virtual threads was resized in a way not known: some virtual threads were not looked at");
    } else {
      visit_bin(w, nt, i, 2 * len, depth + 1);
      visit_bin(w, nt, i + len, 2 * len, depth + 1);
    }
    (*env)->DeleteLocalRef(env, nt);
  } else if (h < 0) {   // a ReservationNode: no key
    (*env)->DeleteLocalRef(env, n);
  } else {
    visit_chain(w, n);
  }
}

// visit_set calls on_key for each element of set, a ConcurrentHashMap's
// key set (its field map, in CollectionView).
static void visit_set(walk_t *w, jobject set) {
  JNIEnv *env = w->env;
  jobject map = object_field(env, set, "map", SIG_CHM);
  jobjectArray table = map ? object_field(env, map, "table", SIG_NODES) : NULL;
  if (!map) why(w, "a registry of virtual threads is not a ConcurrentHashMap's key set: its threads were not looked at");
  jsize len = table ? (*env)->GetArrayLength(env, table) : 0;   // no table: empty, never used
  for (jsize i = 0; i < len && !w->full; i++) visit_bin(w, table, i, len, 0);
  if (table) (*env)->DeleteLocalRef(env, table);
  if (map) (*env)->DeleteLocalRef(env, map);
}

// on_container visits the virtual threads of a registered container (ref,
// a WeakReference to it), in a local frame of its own.
static void on_container(walk_t *w, jobject ref) {
  JNIEnv *env = w->env;
  if (!w->referent && !(w->referent = field_of(env, ref, "referent", "Ljava/lang/Object;"))) {
    why(w, "ThreadContainers' registry holds no References: the virtual threads of executors were not looked at");
    return;
  }
  if ((*env)->PushLocalFrame(env, 16) != JNI_OK) {
    failed(env);
    return;
  }
  // JNI reads a Reference's referent with the barrier the collector wants.
  jobject c = (*env)->GetObjectField(env, ref, w->referent), set = NULL, flock = NULL;
  if (c && !(set = object_field(env, c, "threads", SIG_SET)) && !(set = object_field(env, c, "virtualThreads", SIG_SET)) &&
      (flock = object_field(env, c, "flock", "Ljdk/internal/misc/ThreadFlock;")))
    set = object_field(env, flock, "threads", SIG_SET);
  // A SharedThreadContainer without virtual threads yet has no set.
  if (set) {
    w->on_key = on_thread;
    visit_set(w, set);
    w->on_key = on_container;
  } else if (c && !flock && !field_of(env, c, "virtualThreads", SIG_SET)) {
    why(w, "a thread container of a class not known was not looked in");
  }
  (*env)->PopLocalFrame(env, NULL);
}

// containers returns jdk.internal.vm.ThreadContainers (a new local
// reference), NULL when it is not loaded or not initialized (no thread
// ever started by Thread.start, virtual or not).
static jclass containers(JNIEnv *env, const char **why) {
  jint n = 0;
  jclass *cs = NULL, tc = NULL;
  if ((*jvmti)->GetLoadedClasses(jvmti, &n, &cs) != JVMTI_ERROR_NONE) {
    *why = "the loaded classes could not be listed: virtual threads were not looked at";
    return NULL;
  }
  for (jint i = 0; i < n; i++) {
    if (!tc && jclass_is(cs[i], SIG_CONTAINERS)) tc = (*env)->NewLocalRef(env, cs[i]);
    (*env)->DeleteLocalRef(env, cs[i]);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)cs);
  // GetStaticFieldID would initialize it (Java code): initialized, it is
  // by the first Thread.start.
  jint st = 0;
  if (tc && ((*jvmti)->GetClassStatus(jvmti, tc, &st) != JVMTI_ERROR_NONE || !(st & JVMTI_CLASS_STATUS_INITIALIZED))) {
    (*env)->DeleteLocalRef(env, tc);
    tc = NULL;
  }
  return tc;
}

// static_object returns c's static field name of type sig (a new local
// reference), NULL when null or absent.
static jobject static_object(JNIEnv *env, jclass c, const char *name, const char *sig) {
  jfieldID f = (*env)->GetStaticFieldID(env, c, name, sig);
  if (failed(env) || !f) return NULL;
  return (*env)->GetStaticObjectField(env, c, f);
}

const char *vthread_each(JNIEnv *env, vthread_each_fn fn, void *arg, int64_t *seen) {
  *seen = 0;
  if (!hs_has(HS_VIRTUAL_THREADS) || !env) return NULL;
  walk_t w = {.env = env, .fn = fn, .arg = arg};
  jclass tc = containers(env, &w.why);
  if (!tc) return w.why;
  // The root's virtual threads.
  jobject root = static_object(env, tc, "ROOT_CONTAINER", SIG_ROOT), set = NULL;
  jclass rc = root ? (*env)->GetObjectClass(env, root) : NULL;
  if (!root) why(&w, "jdk.internal.vm.ThreadContainers.ROOT_CONTAINER was not found: virtual threads were not looked at");
  else if (jclass_is(rc, SIG_COUNTING)) why(&w, "jdk.trackAllThreads=false: the JVM keeps no list of the virtual threads started by Thread.ofVirtual() or a factory (those of executors were looked at)");
  else if (!jclass_is(rc, SIG_TRACKING) || !(set = static_object(env, rc, "VTHREADS", SIG_SET)))
    why(&w, "the JVM's root thread container is not a TrackingRootContainer with VTHREADS: its virtual threads were not looked at");
  if (set) {
    w.on_key = on_thread;
    visit_set(&w, set);
    (*env)->DeleteLocalRef(env, set);
  }
  // Those of the containers of their own.
  jobject registry = static_object(env, tc, "CONTAINER_REGISTRY", SIG_SET);
  if (!registry) {
    why(&w, "jdk.internal.vm.ThreadContainers.CONTAINER_REGISTRY was not found: the virtual threads of executors were not looked at");
  } else {
    w.on_key = on_container;
    visit_set(&w, registry);
    (*env)->DeleteLocalRef(env, registry);
  }
  jobject refs[] = {tc, root, rc};
  for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
    if (refs[i]) (*env)->DeleteLocalRef(env, refs[i]);
  *seen = w.seen;
  return w.why;
}

// VirtualThread and its carrierThread (a BoundVirtualThread, the other
// BaseVirtualThread, has no carrier): the field is set before the class is
// published, so a class read means a field there.
static _Atomic(jclass) vt_class;
static _Atomic(jfieldID) vt_carrier;

// carrier_field returns VirtualThread.carrierThread when t is a
// VirtualThread, else NULL.
static jfieldID carrier_field(JNIEnv *env, jthread t) {
  jclass vc = atomic_load(&vt_class);
  if (!vc) {   // found on the first VirtualThread met
    jclass c = jclass_of(env, t, "Ljava/lang/VirtualThread;");
    if (!c) return NULL;
    jfieldID f = (*env)->GetFieldID(env, c, "carrierThread", "Ljava/lang/Thread;");
    jclass g = failed(env) || !f ? NULL : (*env)->NewGlobalRef(env, c), none = NULL;
    if (g) atomic_store(&vt_carrier, f);
    if (g && !atomic_compare_exchange_strong(&vt_class, &none, g)) (*env)->DeleteGlobalRef(env, g);
    (*env)->DeleteLocalRef(env, c);
    if (!(vc = atomic_load(&vt_class))) return NULL;
  }
  return (*env)->IsInstanceOf(env, t, vc) ? atomic_load(&vt_carrier) : NULL;
}

jthread vthread_carrier(JNIEnv *env, jthread t) {
  jclass b = base();
  if (!b || !env || !t || !(*env)->IsInstanceOf(env, t, b)) return NULL;
  jfieldID f = carrier_field(env, t);
  return f ? (*env)->GetObjectField(env, t, f) : NULL;
}

int vthread_sleeping(JNIEnv *env, jthread vt, const jvmtiFrameInfo *fr, int n) {
  static jmethodID sleep_nanos;   // VirtualThread.sleepNanos(long) (attach only: one thread)
  if (!sleep_nanos) {
    jclass c = jclass_of(env, vt, "Ljava/lang/VirtualThread;");
    if (c) sleep_nanos = (*env)->GetMethodID(env, c, "sleepNanos", "(J)V");
    if (failed(env)) sleep_nanos = NULL;
    if (c) (*env)->DeleteLocalRef(env, c);
    if (!sleep_nanos) return 0;
  }
  // Its top: yieldContinuation (21-25), parkNanos, sleepNanos.
  for (int i = 0; i < n && i < 6; i++)
    if (fr[i].method == sleep_nanos) return 1;
  return 0;
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
  uint32_t key = vthread_key_new(env, t, (uint32_t)h);   // its key from now on (tkeys.h)
  tid_add(tid, key);
  if (on_start) on_start(env, t, key, tid);
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
