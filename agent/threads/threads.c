#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "core/events.h"
#include "core/fmt.h"
#include "core/idset.h"
#include "core/clock.h"
#include "core/counters.h"
#include "stacks/methods.h"
#include "hotspot/owner.h"
#include "threads/attached.h"
#include "threads/threads.h"
#include "hotspot/vmstructs.h"
#include "hotspot/vthread.h"
#include "record/tcpu.h"
#include "record/tkeys.h"
#include "threads/samples.h"

static __thread tstate *self_state;
static atomic_int next_shard;

// A state is registered with the modules whose parts others read
// (pending_attach) when it is made, and forgotten at ThreadEnd, or when its
// native thread exits (a state made after ThreadEnd: HotSpot's thread exit
// can still block on a monitor).
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void forget(tstate *s, JNIEnv *env) {
  free(s->inject);
  s->inject = NULL;
  free(s->juc);
  s->juc = NULL;
  free(s->vpark);
  s->vpark = NULL;
  if (pending_detach(&s->pending, env, s)) free(s);
}

// os_tid: the calling thread's OS thread id (record/tcpu.h).
static int os_tid(void) { return (int)syscall(SYS_gettid); }

static void on_native_exit(void *p) {
  tstate *s = p;
  if (!s || s != self_state) return;
  tcpu_end(os_tid(), 0);
  s->pending.enter_hs.stats = vm_at(0);   // its JavaThread is gone
  samples_end();
  pending_settle(&s->pending, 0);
  self_state = NULL;
  forget(s, NULL);
}

static void make_exit_key(void) { pthread_key_create(&exit_key, on_native_exit); }

// A JVMTI thread-local marker: set once a thread has its ThreadStarted in
// the current recording (gen: recordings in this JVM, counted from 1, the
// low bits 01: no pointer, no ENDED_MARK, no VTAG).
static atomic_int gen = 1;
#define STARTED_MARK ((void *)(((uintptr_t)atomic_load_explicit(&gen, memory_order_acquire) << 3) | 1))

void threads_new_recording(void) { atomic_fetch_add(&gen, 1); }

int threads_recording(void) { return atomic_load_explicit(&gen, memory_order_acquire); }
// ... and once it had its ThreadEnd: after it HotSpot may still enter the
// Thread object's monitor (ensure_join, to notify joiners), contended.
#define ENDED_MARK ((void *)2)

uint32_t thread_key_new(JNIEnv *env, jobject t, uint32_t h) { return vthread_key_new(env, t, h); }

uint32_t thread_key(JNIEnv *env, jobject t, uint32_t h) {
  uint32_t k = tkey_named(h);
  return k || !h ? k : thread_key_new(env, t, h);
}

tstate *thread_self(jthread t) {
  stack_virtual = 0;
  tstate *s = self_state;
  if (s || orca_agent_thread) return s;
  s = calloc(1, sizeof *s);
  if (!s) return NULL;
  jthread cur = t;
  if (!cur) (*jvmti)->GetCurrentThread(jvmti, &cur);
  JNIEnv *env = NULL;
  if (cur && (*orca_vm)->GetEnv(orca_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) env = NULL;
  // The state is the OS thread's. A carrier first seen while it carries a
  // virtual thread (an attach: the threads alive then get theirs at their
  // first event) has that virtual thread as its current thread: its own
  // identity is the carrier's.
  jthread carrier = env ? vthread_carrier(env, cur) : NULL;
  if (carrier) cur = carrier;
  jint h = 0;
  if (cur) (*jvmti)->GetObjectHashCode(jvmti, cur, &h);
  s->hash = thread_key_new(env, cur, (uint32_t)h);
  void *mark = NULL;
  if (cur) (*jvmti)->GetThreadLocalStorage(jvmti, cur, &mark);
  s->ended = mark == ENDED_MARK;
  if (env) s->may_host_virtual = vthread_may_host(env, cur);
  s->shard = atomic_fetch_add(&next_shard, 1);
  self_state = s;
  pthread_once(&exit_once, make_exit_key);
  pthread_setspecific(exit_key, s);
  pending_attach(&s->pending, s->hash, s->shard);
  return s;
}

int thread_virtual(JNIEnv *env, tstate *s, jthread t) {
  // Only carriers are asked: a platform thread pays one load.
  return s->may_host_virtual && vthread_is(env, t);
}

tstate *thread_of(JNIEnv *env, jthread t, int kind) {
  tstate *s = thread_self(t);
  jthread cur = NULL;
  // Only carriers are asked: a platform thread pays one load.
  if (!s || !s->may_host_virtual || !vthread_current(env, t, &cur)) return s;
  tstate *v = thread_of_virtual(env, cur, s, kind);
  if (cur != t) (*env)->DeleteLocalRef(env, cur);
  return v;
}

tstate *thread_carrier(void) { return self_state; }

// Virtual threads' states. The JVMTI thread-local storage of a virtual
// thread holds its state once made (at its first event), else a tag: the
// carrier it started on (VSTARTED: its ThreadStarted is written) or
// ENDED_MARK. At most VSTATES_MAX live at once (a state is ~4.3 kB, most of
// it stack buffers touched only as deep as the stacks taken); beyond, a
// virtual thread's events are counted as unattributed.
#define VSTATES_MAX 65536
// A tag holds the recording it was made in, above the carrier's hash.
#define VTAG(carrier) ((void *)((uintptr_t)atomic_load(&gen) << 34 | ((uintptr_t)(carrier) << 2) | 3))
#define IS_VTAG(p) (((uintptr_t)(p) & 3) == 3)
#define VTAG_CARRIER(p) ((uint32_t)((uintptr_t)(p) >> 2))
#define VTAG_CURRENT(p) ((int)((uintptr_t)(p) >> 34) == atomic_load(&gen))
static atomic_int vstates;

static void started(uint32_t hash, int shard, jthread t);
static void mounted(tstate *v, uint32_t carrier, int64_t ts) {
  v->carrier = carrier;
  if (!opt.seed_only && carrier)
    ring_put(v->shard, ORCA_EV_VIRTUAL_THREAD_MOUNTED, ts, v->hash, carrier, 0, NULL, 0, NULL, 0);
}

tstate *thread_of_virtual(JNIEnv *env, jthread vt, tstate *carrier, int kind) {
  void *p = vthread_get(vt);
  tstate *v = p;
  if (p == ENDED_MARK) v = NULL;
  else if (!p || IS_VTAG(p)) {
    v = NULL;
    if (atomic_fetch_add(&vstates, 1) >= VSTATES_MAX || !(v = calloc(1, sizeof *v))) {
      atomic_fetch_sub(&vstates, 1);
    } else {
      jint h = 0;
      (*jvmti)->GetObjectHashCode(jvmti, vt, &h);
      v->hash = thread_key_new(env, vt, (uint32_t)h);
      v->is_virtual = 1;
      v->shard = atomic_fetch_add(&next_shard, 1);
      pending_attach(&v->pending, v->hash, v->shard);
      vthread_put(vt, v);
      v->gen = atomic_load(&gen);
      if (p && VTAG_CURRENT(p)) v->carrier = VTAG_CARRIER(p);
      else started(v->hash, v->shard, vt);   // begun before VirtualThreadStart was on, or before this recording
    }
  }
  if (!v) {
    vthread_unattributed(kind);
    return NULL;
  }
  if (v->gen != atomic_load(&gen)) {   // its ThreadStarted is an earlier recording's
    v->gen = atomic_load(&gen);
    v->carrier = 0;
    started(v->hash, v->shard, vt);
  }
  if (carrier && v->carrier != carrier->hash) mounted(v, carrier->hash, clock_now());
  stack_virtual = 1;
  return v;
}

static void JNICALL on_vstart(JNIEnv *env, jthread vt, uint32_t hash, int64_t tid) {
  (void)env; (void)tid;
  tstate *c = self_state;
  int shard = c ? c->shard : (int)(hash & 7);
  started(hash, shard, vt);
  if (c && !opt.seed_only) ring_put(shard, ORCA_EV_VIRTUAL_THREAD_MOUNTED, clock_now(), hash, c->hash, 0, NULL, 0, NULL, 0);
  vthread_put(vt, VTAG(c ? c->hash : 0));
}

static void JNICALL on_vend(JNIEnv *env, jthread vt, uint32_t hash, int64_t tid) {
  (void)hash; (void)tid;
  void *p = vthread_get(vt);
  if (p == ENDED_MARK) return;
  vthread_put(vt, ENDED_MARK);
  if (p && !IS_VTAG(p)) {
    tstate *v = p;
    if (v->gen == atomic_load(&gen)) attached_own(v->hash, 0);   // what it did at an attach is over
    pending_settle(&v->pending, 0);
    if (orca_recording() && v->gen == atomic_load(&gen)) {
      int64_t ts = clock_now();
      samples_virtual(v->hash, ts, 0);   // its samples after this are its carrier's
      ring_put(v->shard, ORCA_EV_THREAD_ENDED, ts, v->hash, 0, 0, NULL, 0, NULL, 0);
    }
    forget(v, env);
    atomic_fetch_sub(&vstates, 1);
  } else if (p && orca_recording() && VTAG_CURRENT(p)) {
    jint h = 0;
    (*jvmti)->GetObjectHashCode(jvmti, vt, &h);
    uint32_t k = thread_key(env, vt, (uint32_t)h);
    attached_own(k, 0);
    tstate *c = self_state;
    int64_t ts = clock_now();
    samples_virtual((uint32_t)h, ts, 0);
    ring_put(c ? c->shard : (int)(h & 7), ORCA_EV_THREAD_ENDED, ts, k, 0, 0, NULL, 0, NULL, 0);
  }
}

void threads_virtual_init(void) { vthread_on(on_vstart, on_vend); }

void thread_blocking(JNIEnv *env, tstate *v) {
  if (v && v->is_virtual && hs_has(HS_OWNER_TID)) vheld_blocking(env, v->hash, &v->held);
}

void thread_resumed(JNIEnv *env, tstate *v) {
  // Before 24 (JEP 491, as HS_OWNER_TID) a virtual thread holding a monitor
  // is pinned: it never unmounts with a lock.
  if (!v || !v->is_virtual || !hs_has(HS_OWNER_TID)) return;
  vheld_resumed(v->hash, &v->held);
  if (opt.seed_only) return;
  uint32_t now[4];
  int n = owner_held_contended(env, now, 4);
  if (n == 0 && v->owned_n == 0) return;
  int64_t ts = clock_now();
  for (int i = 0; i < n; i++) {
    int seen = 0;
    for (int k = 0; k < v->owned_n; k++) seen |= v->owned[k] == now[i];
    if (!seen) ring_put(v->shard, ORCA_EV_MONITOR_OWNED, ts, v->hash, now[i], 0, NULL, 0, NULL, 0);
  }
  memcpy(v->owned, now, sizeof now);
  v->owned_n = n;
}

void emit(tstate *self, int kind, uint32_t object, uint32_t owner, const orca_frame *fr, int n) {
  ring_put(self->shard, kind, clock_now(), self->hash, object, owner, fr, n, NULL, 0);
}

// thread_name returns the thread's name as UTF-8 in buf; an unnamed
// virtual thread's is virtual-ID (its Thread.tid; Thread.toString says
// VirtualThread[#ID]).
// name_field reads the name of t from its field java.lang.Thread.name (17-25)
// with JNI, into buf; -1 when it cannot. Every thread is named so (an
// attach names every thread alive, a snapshot too): GetThreadInfo of
// another thread costs a search of HotSpot's thread list and, on 21+, a
// stop of every virtual thread's mounting (JvmtiVTMSTransitionDisabler):
// 10 000 threads took seconds.
static int name_field(JNIEnv *env, jthread t, char *buf, int cap) {
  static jfieldID f;
  static int tried;
  if (!tried) {
    tried = 1;
    jclass c = (*env)->FindClass(env, "java/lang/Thread");
    if (c) f = (*env)->GetFieldID(env, c, "name", "Ljava/lang/String;");
    if ((*env)->ExceptionCheck(env)) {
      (*env)->ExceptionClear(env);
      f = NULL;
    }
    if (c) (*env)->DeleteLocalRef(env, c);
  }
  if (!f) return -1;
  jstring s = (jstring)(*env)->GetObjectField(env, t, f);
  if (!s) return 0;
  int n = 0;
  // An unnamed thread's name is "" (every virtual thread's, unless named):
  // no copy of it made by the JVM and freed (100 000 virtual threads).
  const char *u = (*env)->GetStringLength(env, s) > 0 ? (*env)->GetStringUTFChars(env, s, NULL) : NULL;
  if (u) {
    n = (int)mutf8_to_utf8(u, strlen(u), buf, (size_t)cap);
    (*env)->ReleaseStringUTFChars(env, s, u);
  }
  (*env)->DeleteLocalRef(env, s);
  return n;
}

static int thread_name(jthread t, char *buf, int cap) {
  int n = -1;
  JNIEnv *env = NULL;
  if ((*orca_vm)->GetEnv(orca_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) env = NULL;
  if (env) n = name_field(env, t, buf, cap);
  if (n < 0) {
    jvmtiThreadInfo ti;
    memset(&ti, 0, sizeof ti);
    n = 0;
    if ((*jvmti)->GetThreadInfo(jvmti, t, &ti) == JVMTI_ERROR_NONE && ti.name) {
      n = (int)mutf8_to_utf8(ti.name, strlen(ti.name), buf, (size_t)cap);
      (*jvmti)->Deallocate(jvmti, (unsigned char *)ti.name);
    }
    // The local references in ti are released when the callback returns.
  }
  if (n == 0 && env && vthread_current(env, t, &(jthread){0})) {
    int64_t tid = vthread_tid(env, t);
    if (tid >= 0 && cap >= 32) {   // virtual-TID, without printf's machinery (100 000 virtual threads)
      memcpy(buf, "virtual-", 8);
      n = 8 + (int)fmt_uint(buf + 8, (unsigned long long)tid);
    }
  }
  return n;
}

static void started_at(uint32_t hash, int shard, jthread t, int64_t ts) {
  char name[1024];
  int n = thread_name(t, name, sizeof name);
  if (!ts) ts = clock_now();
  samples_virtual(hash, ts, 1);   // a virtual thread's samples before this are its carrier's
  ring_put(shard, ORCA_EV_THREAD_STARTED, ts, hash, 0, 0, NULL, 0, name, n);
}

static void started(uint32_t hash, int shard, jthread t) { started_at(hash, shard, t, 0); }

void JNICALL threads_on_start(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j;
  if (!orca_recording() || orca_agent_thread) return;   // the writer's attach (methods_attach)
  if (pending_is_walker(env, t)) {
    orca_agent_thread = 1;
    return;
  }
  tstate *s = thread_self(t);
  if (!s) return;
  owner_register_self(env, t, s->hash, s->may_host_virtual);
  // Before VMInit threads have no name yet (GetThreadInfo is a live-phase
  // function): threads_existing reports them at VMInit.
  jvmtiPhase ph = JVMTI_PHASE_LIVE;
  (*jvmti)->GetPhase(jvmti, &ph);
  void *mark = NULL;
  // NULL: the current thread, t (JVMTI posts ThreadStart on the new
  // thread, and no virtual thread is mounted on it yet). Named by t, the
  // JVM would look it up in its thread list (and on 21+ stop virtual
  // threads' mounting meanwhile): O(threads) a call.
  if (ph == JVMTI_PHASE_LIVE) (*jvmti)->GetThreadLocalStorage(jvmti, NULL, &mark);
  if (ph == JVMTI_PHASE_LIVE && mark != STARTED_MARK) {
    (*jvmti)->SetThreadLocalStorage(jvmti, t, STARTED_MARK);
    started(s->hash, s->shard, t);
    tcpu_add(s->hash, os_tid(), s->shard);   // its baseline, after its first line
  }
  // Its sample slot and CPU timer, after its ThreadStarted (threads_existing
  // arms them at VMInit for a thread that starts before).
  if (ph == JVMTI_PHASE_LIVE) samples_self(env, s->hash);
}

void JNICALL threads_on_end(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j;
  if (orca_agent_thread) return;
  samples_end();   // no sample after its ThreadEnded
  tstate *s = self_state;
  // A thread with no event of its own since the attach (still in the park
  // or sleep the attach saw) has no state yet: its end ends that one too.
  if (!s && orca_recording()) s = thread_self(t);
  if (s) attached_own(s->hash, 0);   // what it did at an attach is over
  owner_unregister_self(env);
  void *mark = NULL;
  (*jvmti)->GetThreadLocalStorage(jvmti, NULL, &mark);   // t, the current thread (threads_on_start)
  if (s) pending_settle(&s->pending, 0);
  // Only threads that have a ThreadStarted get a ThreadEnded, and their
  // last scheduler times before it, read by the thread itself: a thread
  // shorter than tcpu's period has them whole.
  int ends = orca_recording() && mark == STARTED_MARK;
  tcpu_end(os_tid(), ends);
  if (ends) {
    if (!s) s = thread_self(t);
    if (s) emit(s, ORCA_EV_THREAD_ENDED, 0, 0, NULL, 0);
  }
  (*jvmti)->SetThreadLocalStorage(jvmti, t, ENDED_MARK);
  if (s) {
    pthread_setspecific(exit_key, NULL);
    self_state = NULL;
    forget(s, env);
  }
}

// A snapshot's virtual threads (opt.snapshot: orca threads) are told
// apart by their Thread.tid in a set of the snapshot's own, not by a tag in
// their JVMTI thread-local storage: each Get or SetThreadLocalStorage of a
// virtual thread stops its mounting meanwhile (JvmtiVTMSTransitionDisabler),
// and the Set makes it a JvmtiThreadState that stays in the JVM after the
// snapshot, one per virtual thread. No event follows a snapshot to read a
// tag. Freed by threads_virtual_listed_free.
static idset listed;

void threads_virtual_listed_free(void) { idset_free(&listed); }

uint32_t threads_virtual_existing_at(JNIEnv *env, jthread vt, int64_t ts, int *shard, jint *state) {
  jint st = *state, h = 0;
  // Mounted ones too: one pinned to its carrier (a monitor held on 21-23,
  // a native frame or a class initializer) may be stuck there.
  if (!st && (*jvmti)->GetThreadState(jvmti, vt, &st) != JVMTI_ERROR_NONE) return 0;
  if (!(st & JVMTI_THREAD_STATE_ALIVE)) return 0;
  *state = st;
  if (opt.snapshot) {
    int64_t tid = vthread_tid(env, vt);
    if (!idset_add(&listed, tid)) return 0;
    (*jvmti)->GetObjectHashCode(jvmti, vt, &h);
    h = (jint)thread_key_new(env, vt, (uint32_t)h);
    *shard = atomic_fetch_add(&next_shard, 1);
    vthread_known(env, vt, (uint32_t)h);
    started_at((uint32_t)h, *shard, vt, ts);
    return (uint32_t)h;
  }
  // No event is on yet (the snapshot comes before them): nothing else
  // reads or sets its storage meanwhile.
  void *p = vthread_get(vt);
  if (p == ENDED_MARK || (IS_VTAG(p) && VTAG_CURRENT(p))) return 0;
  (*jvmti)->GetObjectHashCode(jvmti, vt, &h);
  h = (jint)thread_key_new(env, vt, (uint32_t)h);
  if (p && !IS_VTAG(p)) {   // its state, made in an earlier recording
    tstate *v = p;
    if (v->gen == atomic_load(&gen)) return 0;
    v->gen = atomic_load(&gen);
    v->carrier = 0;
    *shard = v->shard;
  } else {
    vthread_put(vt, VTAG(0));   // no carrier: its first event writes where it runs
    *shard = atomic_fetch_add(&next_shard, 1);
  }
  vthread_known(env, vt, (uint32_t)h);
  started_at((uint32_t)h, *shard, vt, ts);
  return (uint32_t)h;
}

int threads_existing(JNIEnv *env) { return threads_existing_at(env, 0); }

static int existing_listed(JNIEnv *env, int64_t ts) {
  jint n = 0, wrote = 0;
  jthread *all = NULL;
  if ((*jvmti)->GetAllThreads(jvmti, &n, &all) != JVMTI_ERROR_NONE) return 0;
  (*env)->EnsureLocalCapacity(env, n + 8);   // n local refs at once (-Xcheck:jni)
  jthread me = NULL;
  (*jvmti)->GetCurrentThread(jvmti, &me);
  // The OS thread ids HotSpot keeps (tcpu's baselines of the threads
  // listed) are trusted when it keeps this thread's own right.
  int tids = me && owner_thread_tid(env, me) == os_tid();
  if (!tids && tcpu_period_ms())
    counters_prop(ORCA_INFO_WARNING, "thread CPU: HotSpot's OSThread::_thread_id not found or not this thread's tid: "
                                     "the threads alive at the recording's start have no ThreadCPU");
  for (int i = 0; i < n; i++) {
    void *mark = NULL;
    if (!opt.snapshot) (*jvmti)->GetThreadLocalStorage(jvmti, all[i], &mark);   // (a snapshot: name_field)
    // The agent's own threads are not the application's (an attach to a
    // JVM recorded before finds the calibration's still there).
    if (mark == STARTED_MARK || pending_is_walker(env, all[i]) || methods_is_agent(env, all[i])) {
      (*env)->DeleteLocalRef(env, all[i]);
      continue;
    }
    // A snapshot (orca threads) has no event after it to tell apart: two
    // look-ups of the thread less each (as name_field's).
    if (!opt.snapshot) (*jvmti)->SetThreadLocalStorage(jvmti, all[i], STARTED_MARK);
    jint h = 0;
    (*jvmti)->GetObjectHashCode(jvmti, all[i], &h);
    h = (jint)thread_key_new(env, all[i], (uint32_t)h);
    int tid;
    if (me && (*env)->IsSameObject(env, me, all[i])) {
      tstate *s = thread_self(me);
      owner_register_self(env, me, s ? s->hash : (uint32_t)h, 0);
      tid = os_tid();
    } else {
      int carrier = vthread_may_host(env, all[i]);
      owner_register_other(env, all[i], (uint32_t)h, carrier);   // a carrier at an attach
      tid = tids ? owner_thread_tid(env, all[i]) : 0;
    }
    started_at((uint32_t)h, i, all[i], ts);
    tcpu_add((uint32_t)h, tid, i);   // its baseline: the times it had before the recording
    // Its sample slot and CPU timer, after its ThreadStarted.
    if (me && (*env)->IsSameObject(env, me, all[i])) samples_self(env, (uint32_t)h);
    else samples_other(env, all[i], (uint32_t)h);
    wrote++;
    (*env)->DeleteLocalRef(env, all[i]);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
  return wrote;
}

int threads_existing_at(JNIEnv *env, int64_t ts) {
  methods_hold_attach();
  // A test's: the writer's first flushes come while the threads are listed.
  if (switches.test_slow_listing_ms) usleep((useconds_t)switches.test_slow_listing_ms * 1000);
  int wrote = existing_listed(env, ts);
  methods_release_attach();
  return wrote;
}

int event_settle_attached(event *e, JNIEnv *env, int kind, int flags) {
  tstate *s = e->s;
  uint32_t carrier = s->is_virtual ? s->carrier : 0;
  if (!(flags & EV_ENDS)) {
    attached_runs(s->hash, carrier, flags & (EV_NOW | EV_FIRST | EV_PAIR) ? e->ts : 0);
    return 0;
  }
  // The state this event ends, if the attach saw the thread in it: a wait
  // recorded since began after the attach (its own event ended that one).
  int began = kind == ORCA_EV_OBJECT_WAITED ? ORCA_EV_OBJECT_WAIT : ORCA_EV_MONITOR_CONTENDED_ENTER;
  if (!(began == ORCA_EV_OBJECT_WAIT && pending_wait_open(&s->pending)) &&
      attached_end(s->hash, began, flags & EV_FIRST ? e->ts : clock_now())) {
    thread_resumed(env, s);
    return 1;
  }
  // A thread that blocked before the events were on has no Enter
  // (pending_entered writes it): after the state an attach's snapshot saw
  // ends, here.
  if (flags & EV_RUNS) attached_runs(s->hash, carrier, clock_now() - 1);
  return 0;
}
