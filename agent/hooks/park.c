#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "core/clock.h"
#include "core/counters.h"
#include "core/fmt.h"
#include "stacks/methods.h"
#include "stacks/objclass.h"
#include "hotspot/objhash.h"
#include "hotspot/jclass.h"
#include "hooks/park.h"
#include "threads/samples.h"
#include "threads/threads.h"
#include "hotspot/vthread.h"
#include "record/writer.h"

typedef void(JNICALL *park_fn)(JNIEnv *, jobject, jboolean, jlong);
typedef void(JNICALL *unpark_fn)(JNIEnv *, jobject, jobject);

static void JNICALL my_park(JNIEnv *env, jobject unsafe, jboolean absolute, jlong time);
static void JNICALL my_unpark(JNIEnv *env, jobject unsafe, jobject thread);

static park_fn orig_park;
static unpark_fn orig_unpark;
static int park_bound, unpark_bound;

// Set at VMInit: Thread.parkBlocker, Thread.interrupted (JDK 14+) and
// AbstractOwnableSynchronizer.exclusiveOwnerThread, the class itself
// resolved at the first park with a blocker (so a program that never
// parks on a synchronizer does not load it).
static jfieldID f_blocker, f_interrupted, f_owner;
static jclass aos;
static atomic_int ready, aos_tried;

int park_bind(const char *csig, const char *name, const char *sig, void *addr, void **new_addr) {
  if (!csig || strcmp(csig, "Ljdk/internal/misc/Unsafe;")) return 0;   // not bound in the primordial phase
  void **orig, *repl;
  int *bound;
  if (!strcmp(name, "park") && !strcmp(sig, "(ZJ)V")) orig = (void **)&orig_park, repl = (void *)my_park, bound = &park_bound;
  else if (!strcmp(name, "unpark") && !strcmp(sig, "(Ljava/lang/Object;)V"))
    orig = (void **)&orig_unpark, repl = (void *)my_unpark, bound = &unpark_bound;
  else return 0;
  if (opt.seed_only || addr == repl) return 1;   // kinds=seed: Unsafe stays as it is
  *orig = addr;
  *new_addr = repl;
  *bound = 1;
  return 1;
}

void park_init(JNIEnv *env, jthread cur) {
  if (opt.seed_only) return;
  jclass t = jclass_of(env, cur, "Ljava/lang/Thread;");
  if (t) {
    f_blocker = (*env)->GetFieldID(env, t, "parkBlocker", "Ljava/lang/Object;");
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), f_blocker = NULL;
    f_interrupted = (*env)->GetFieldID(env, t, "interrupted", "Z");
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), f_interrupted = NULL;
    (*env)->DeleteLocalRef(env, t);
  }
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
  if (!f_blocker) counters_prop(ORCA_INFO_WARNING, "Thread.parkBlocker not found: parks are recorded without blocker");
  atomic_store_explicit(&ready, 1, memory_order_release);
}

void park_report(void) {
  if (opt.seed_only) return;
  if (!park_bound) counters_prop(ORCA_INFO_WARNING, "Unsafe.park is not intercepted yet; parks may be missing");
  if (!unpark_bound) counters_prop(ORCA_INFO_WARNING, "Unsafe.unpark is not intercepted yet; unparks may be missing");
}

// owner_class returns AbstractOwnableSynchronizer, resolved once (a blocker
// is loaded, so FindClass from the boot loader's Unsafe finds it). Threads
// parking meanwhile wait for it under aos_mu (a boot-loader lookup, no Java
// code: microseconds, once), as queues_ready's do: before, they went on
// without it, and the first parks of threads starting together on a lock
// were recorded with no owner (TestChainRelease on 17 at load: waiter-j-1
// and waiter-j-2 parked owner=none for the lock holder-j held, while
// waiter-j-0 resolved the class for 1.6 ms).
static pthread_mutex_t aos_mu = PTHREAD_MUTEX_INITIALIZER;

static jclass owner_class(JNIEnv *env) {
  if (atomic_load_explicit(&aos_tried, memory_order_acquire)) return aos;
  pthread_mutex_lock(&aos_mu);
  if (!atomic_load_explicit(&aos_tried, memory_order_relaxed)) {
    jclass c = (*env)->FindClass(env, "java/util/concurrent/locks/AbstractOwnableSynchronizer");
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), c = NULL;
    if (c) {
      f_owner = (*env)->GetFieldID(env, c, "exclusiveOwnerThread", "Ljava/lang/Thread;");
      if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), f_owner = NULL;
      if (f_owner) aos = (*env)->NewGlobalRef(env, c);
      (*env)->DeleteLocalRef(env, c);
    }
    atomic_store_explicit(&aos_tried, 1, memory_order_release);
  }
  pthread_mutex_unlock(&aos_mu);
  return aos;
}

// owner_of returns the identity hash of the blocker's exclusive owner when
// it is an AbstractOwnableSynchronizer (ReentrantLock, both locks of a
// ReentrantReadWriteLock: the writer), else 0; *aos: 0 when b is known not
// to be one (then it is no AbstractQueued(Long)Synchronizer either: both
// extend it). The owner's local reference is left to the native's return
// (a JNI call less a park; a park makes at most a few).
static uint32_t owner_of(JNIEnv *env, jobject b, int *aos) {
  jclass c = owner_class(env);
  *aos = 1;
  if (!c) return 0;
  if (!(*env)->IsInstanceOf(env, b, c)) return *aos = 0;
  jobject t = (*env)->GetObjectField(env, b, f_owner);
  return t ? thread_key(env, t, objhash_of(t)) : 0;
}

// The queues of AbstractQueuedSynchronizer and its Long twin (JDK 14+: a
// Node with prev and waiter; ExclusiveNode, SharedNode, ConditionNode),
// resolved at the first park on one (FindClass from the boot loader's
// Unsafe or VirtualThread: no Java code runs). A node's class gives the
// mode of the acquire that made it: its signature, looked up once per class.
typedef struct {
  jclass sync;
  jfieldID tail, prev, waiter;
} queue_t;
static queue_t queues[2];
static atomic_int queues_tried;
#define NODE_CLASSES 8
static struct {
  jclass cls;
  int mode;
} node_classes[NODE_CLASSES];
static atomic_int node_classes_n;
static pthread_mutex_t node_mu = PTHREAD_MUTEX_INITIALIZER;

static void resolve_queue(JNIEnv *env, queue_t *q, const char *sync, const char *node_sig) {
  jclass c = (*env)->FindClass(env, sync);
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), c = NULL;
  if (!c) return;
  char node[160];
  snprintf(node, sizeof node, "%s$Node", sync);
  jclass n = (*env)->FindClass(env, node);
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), n = NULL;
  jfieldID tail = n ? (*env)->GetFieldID(env, c, "tail", node_sig) : NULL;
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), tail = NULL;
  jfieldID prev = tail ? (*env)->GetFieldID(env, n, "prev", node_sig) : NULL;
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), prev = NULL;
  jfieldID waiter = prev ? (*env)->GetFieldID(env, n, "waiter", "Ljava/lang/Thread;") : NULL;
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), waiter = NULL;
  if (waiter) {   // JDK 14+'s queue (before: Node.thread and nextWaiter; the mode stays unknown)
    q->tail = tail, q->prev = prev, q->waiter = waiter;
    q->sync = (*env)->NewGlobalRef(env, c);
  }
  if (n) (*env)->DeleteLocalRef(env, n);
  (*env)->DeleteLocalRef(env, c);
}

// queues_ready resolves the queues once; threads parking meanwhile wait
// for it under node_mu (boot-loader lookups, no Java code: microseconds,
// once), so that no park of the first ones goes without its mode.
static int queues_ready(JNIEnv *env) {
  if (atomic_load_explicit(&queues_tried, memory_order_acquire)) return 1;
  pthread_mutex_lock(&node_mu);
  if (!atomic_load_explicit(&queues_tried, memory_order_relaxed)) {
    resolve_queue(env, &queues[0], "java/util/concurrent/locks/AbstractQueuedSynchronizer",
                  "Ljava/util/concurrent/locks/AbstractQueuedSynchronizer$Node;");
    resolve_queue(env, &queues[1], "java/util/concurrent/locks/AbstractQueuedLongSynchronizer",
                  "Ljava/util/concurrent/locks/AbstractQueuedLongSynchronizer$Node;");
    atomic_store_explicit(&queues_tried, 1, memory_order_release);
  }
  pthread_mutex_unlock(&node_mu);
  return 1;
}

// node_mode returns the mode of the acquire that made node (ORCA_MODE_*):
// a SharedNode's is shared; an ExclusiveNode's and a ConditionNode's (the
// re-acquire after Condition.await) exclusive.
static int node_mode(JNIEnv *env, jobject node) {
  jclass c = (*env)->GetObjectClass(env, node);
  if (!c) return 0;
  int n = atomic_load_explicit(&node_classes_n, memory_order_acquire), mode = -1;
  for (int i = 0; i < n && mode < 0; i++)
    if ((*env)->IsSameObject(env, node_classes[i].cls, c)) mode = node_classes[i].mode;
  if (mode < 0) {
    char *sig = NULL;
    mode = 0;
    if ((*jvmti)->GetClassSignature(jvmti, c, &sig, NULL) == JVMTI_ERROR_NONE && sig) {
      mode = strstr(sig, "$SharedNode;") ? ORCA_MODE_SHARED : ORCA_MODE_EXCLUSIVE;
      (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    }
    pthread_mutex_lock(&node_mu);
    int k = atomic_load(&node_classes_n);
    if (mode && k < NODE_CLASSES) {
      node_classes[k].cls = (*env)->NewGlobalRef(env, c);
      node_classes[k].mode = mode;
      atomic_store_explicit(&node_classes_n, k + 1, memory_order_release);
    }
    pthread_mutex_unlock(&node_mu);
  }
  (*env)->DeleteLocalRef(env, c);
  return mode;
}

// acquire_mode returns how thread t acquires the synchronizer b, when t
// parks in its acquire: the mode of t's node in b's queue, looked for from
// the tail (t enqueued it before it parks; later arrivals are behind it),
// at most QUEUE_STEPS nodes; 0 when b is no such synchronizer, t has no
// node in its queue (a Condition's await parks on the condition, not on
// b), or the queue is of a JDK before 14. The mode decides, in the model,
// a lock (an exclusive acquire) from a wait on a latch, a semaphore or a
// read lock nobody holds exclusively (a shared one), whatever the class
// and whatever the stack depth recorded.
#define QUEUE_STEPS 64
static int acquire_mode(JNIEnv *env, jobject b, jthread t) {
  if (!t || !queues_ready(env)) return 0;
  const queue_t *q = NULL;
  for (int i = 0; i < 2 && !q; i++)
    if (queues[i].sync && (*env)->IsInstanceOf(env, b, queues[i].sync)) q = &queues[i];
  if (!q) return 0;
  int mode = 0;
  jobject node = (*env)->GetObjectField(env, b, q->tail);
  for (int i = 0; node && i < QUEUE_STEPS; i++) {
    jobject w = (*env)->GetObjectField(env, node, q->waiter);
    int mine = w && (*env)->IsSameObject(env, w, t);
    if (w) (*env)->DeleteLocalRef(env, w);
    if (mine) {
      mode = node_mode(env, node);
      break;
    }
    jobject prev = (*env)->GetObjectField(env, node, q->prev);
    (*env)->DeleteLocalRef(env, node);
    node = prev;
  }
  if (node) (*env)->DeleteLocalRef(env, node);
  return mode;
}

// Conditions: a park blocker that is a ConditionObject of
// AbstractQueuedSynchronizer or AbstractQueuedLongSynchronizer (an inner
// class: its this$0 is the synchronizer it belongs to, a ReentrantLock's
// sync), or of a subclass, is written with that synchronizer, a
// ConditionLock line, at the blocker's first sight: a thread parked in
// Condition.await has released that lock, which the model tells from a
// holder parked while it holds it (docs/report-json.md, "What the holders
// did"). The classes are told by the blocker's own class, looked up once
// per class with its signature (objclass_condition: no class is loaded),
// however many classes of blockers there are.
// condition_lock writes, when blocker b (hash bh) is a condition, the
// synchronizer it belongs to (ConditionLock, on s's shard at ts, -1: now).
static void condition_lock(JNIEnv *env, tstate *s, int64_t ts, jobject b, uint32_t bh) {
  jfieldID outer = objclass_condition(env, b);
  if (!outer) return;
  jobject l = (*env)->GetObjectField(env, b, outer);
  uint32_t lh = l ? objhash_of(l) : 0;
  if (l) (*env)->DeleteLocalRef(env, l);
  if (lh) ring_put(s->shard, ORCA_EV_CONDITION_LOCK, ts >= 0 ? ts : clock_now(), s->hash, bh, lh, NULL, 0, NULL, 0);
}

// The locks held at a park in a lock's acquire (hooks/held.h, set by the
// jvm module: park_lock_order): NULL while none is set.
static int (*held_on)(void);
static void (*held_read)(void);
static void (*held_write)(JNIEnv *, struct tstate *, int64_t, const orca_frame *, int, uint32_t);
static int (*held_lock)(JNIEnv *, jobject);

void park_lock_order(int (*on)(void), void (*read)(void),
                     void (*write)(JNIEnv *, struct tstate *, int64_t, const orca_frame *, int, uint32_t),
                     int (*is_lock)(JNIEnv *, jobject)) {
  held_lock = is_lock;
  held_write = write;
  held_read = read;
  held_on = on;
}

// blocker_of is park_blocker; lock (NULL: not asked) is set to 1 when the
// blocker is the synchronizer of a ReentrantLock or a
// ReentrantReadWriteLock and the locks held are written (lockorder=yes):
// the park is in that lock's acquire (its mode found, owner or not: the
// lock order tells a read from a write), or in a Condition's re-acquire.
static uint32_t blocker_of(JNIEnv *env, tstate *s, int64_t ts, jthread t, uint32_t *owner, int *mode, int *lock) {
  jobject blocker = NULL;
  uint32_t bh = 0;
  int aos = 1;
  *owner = 0;
  *mode = 0;
  if (t && f_blocker) blocker = (*env)->GetObjectField(env, t, f_blocker);
  if (blocker) {
    bh = objhash_of(blocker);
    if (bh) {   // 0: the VM could not say (then no class, no owner)
      int first = objclass_write(env, s->shard, s->hash, ts, blocker, bh);
      *owner = owner_of(env, blocker, &aos);
      // A condition's lock is told once, with its class (a condition has
      // no owner; aos is not known while another thread resolves its
      // class).
      if (first && !*owner) condition_lock(env, s, ts, blocker, bh);
      // Only where it decides something: a park that names an exclusive
      // owner of its synchronizer is a lock's contention whatever its mode
      // (a write lock's, or a read lock's blocked by the writer); without
      // an owner the mode tells a lock released just now from a latch.
      // Most parks of a contended lock name its owner: they skip the queue.
      if (lock && aos && held_lock(env, blocker)) *lock = 1;
      if ((!*owner || (lock && *lock)) && aos) *mode = acquire_mode(env, blocker, t);
    }
    // The blocker's local reference is left to the native's return, as
    // the owner's: Thread.parkBlocker holds it meanwhile anyway.
  }
  return bh;
}

uint32_t park_blocker(JNIEnv *env, tstate *s, int64_t ts, jthread t, uint32_t *owner, int *mode) {
  return blocker_of(env, s, ts, t, owner, mode, NULL);
}

int park_interrupted(JNIEnv *env, jthread t) {
  return t && f_interrupted && (*env)->GetBooleanField(env, t, f_interrupted);
}

int park_ready(void) { return atomic_load_explicit(&ready, memory_order_acquire); }

// pinned: a virtual thread parks its carrier (whose state is carrier) in
// Unsafe.park: it could not yield (pinned: a monitor held on 21-23, a
// native frame). Its park (or sleep) was recorded at VirtualThread.park
// (vpark.c); this says it is pinned.
static void pinned(JNIEnv *env, tstate *carrier) {
  tstate *v = thread_of(env, NULL, ORCA_EV_VIRTUAL_THREAD_PINNED);
  if (v && v->is_virtual)
    ring_put(v->shard, ORCA_EV_VIRTUAL_THREAD_PINNED, clock_now(), v->hash, carrier->hash, 0, NULL, 0, NULL, 0);
}

static void JNICALL my_park(JNIEnv *env, jobject unsafe, jboolean absolute, jlong time) {
  event e = {0};
  tstate *s = atomic_load_explicit(&ready, memory_order_acquire)
                  ? event_begin(&e, env, NULL, ORCA_EV_THREAD_PARK, EV_PLATFORM | EV_OWN | EV_PAIRED)
                  : NULL;
  if (!s) {
    // The agent's own threads, the VM's start-up, and a virtual thread
    // pinned to its carrier.
    if (e.virt) pinned(env, e.s);
    void *mark = samples_blocking();
    orig_park(env, unsafe, absolute, time);
    samples_unblocked(mark);
    return;
  }
  // The thread's own reference, kept for its life (one JVMTI call and a
  // local reference less a park), or a local one after its ThreadEnd.
  jthread self = s->ended ? NULL : pending_thread_ref(&s->pending, env), local = NULL;
  if (!self && (*jvmti)->GetCurrentThread(jvmti, &local) == JVMTI_ERROR_NONE) self = local;
  uint32_t owner = 0;
  int mode = 0, lock = 0;
  // The class line's time is read only if one is written (-1).
  uint32_t bh = blocker_of(env, s, -1, self, &owner, &mode, held_on && held_on() ? &lock : NULL);
  // The timeout in nanoseconds; a deadline (parkUntil: milliseconds since
  // the epoch) as the time left to it, 0 when past.
  int64_t timeout = -1, deadline = 0;
  if (absolute) {
    deadline = (int64_t)time * 1000000;
    timeout = deadline - clock_unix_now();
    if (timeout < 0) timeout = 0;
  } else if (time > 0) {
    timeout = time;
  }
  char tbuf[24];
  int tl = timeout >= 0 ? (int)fmt_uint(tbuf, (unsigned long long)timeout) : 0;
  orca_frame fr[ORCA_MAX_DEPTH];
  int n = stack_capture_own(env, 0, fr, opt.depth);
  // A lock's acquire (lockorder=yes; not a Condition's re-acquire, whose
  // thread holds nothing of it): the locks the thread holds, monitors and
  // j.u.c. locks, read before the park's time as the enter's (monitor.c).
  if (lock && mode) held_read();
  // The park is timed after the agent's work (blocker, class, owner, stack):
  // the interval is the time in Unsafe.park, as JFR's jdk.ThreadPark.
  int64_t t0 = clock_now();
  ring_put_mode(s->shard, ORCA_EV_THREAD_PARK, t0, s->hash, bh, owner, fr, n, tbuf, tl, mode);
  if (lock && mode) held_write(env, s, t0, fr, n, bh);
  // Parked: the wall sampler's ticks skip it (a recorded state).
  void *mark = samples_blocking();
  orig_park(env, unsafe, absolute, time);
  samples_unblocked(mark);
  // Not when the park began in an earlier recording (an attach since: its
  // state at the attach ends there, threads/attached.c).
  if (event_end(&e)) {
    int64_t end = e.ts;
    const char *how = "unparked";
    if (park_interrupted(env, self)) how = "interrupted";
    else if (absolute ? clock_unix_now() >= deadline : timeout > 0 && end - t0 >= timeout) how = "timeout";
    // No stack: it is the ThreadPark's (docs/format.md), a third of a
    // park-heavy recording's bytes not written.
    ring_put(s->shard, ORCA_EV_THREAD_UNPARKED, end, s->hash, bh, 0, NULL, 0, how, (int)strlen(how));
  }
  if (local) (*env)->DeleteLocalRef(env, local);
}

static void JNICALL my_unpark(JNIEnv *env, jobject unsafe, jobject thread) {
  // The time before the unpark, so it precedes the ThreadUnparked it
  // causes (EV_NOW). No stack (docs/format.md): the waker and the time make
  // the edge; its walk and text were two thirds of a park-heavy
  // recording's cost. It runs: a park of the attach is over (EV_OWN).
  // The record is put before the unpark, its target named before the
  // time: the unpark wakes a thread that may take this one's CPU at once,
  // and a record put after it, its time taken before, came up to 233 ms
  // behind lines the writer had written (its hold-back is 10 ms: ActiveMQ
  // on 17 at load 14, 11 of 2 797 unparks), so the model did not see it
  // before the park it ended (docs/agent.md, "Unparks").
  event e;
  int on = thread && atomic_load_explicit(&ready, memory_order_acquire) && orca_recording();
  uint32_t target = on ? thread_key(env, thread, objhash_of(thread)) : 0;
  tstate *s = on ? event_begin(&e, env, NULL, ORCA_EV_THREAD_UNPARK, EV_NOW | EV_OWN) : NULL;
  if (s) ring_put(s->shard, ORCA_EV_THREAD_UNPARK, e.ts, s->hash, target, 0, NULL, 0, NULL, 0);
  orig_unpark(env, unsafe, thread);
}
