#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "core/clock.h"
#include "core/counters.h"
#include "core/orca.h"
#include "hooks/attached.h"
#include "threads/pending.h"
#include "hotspot/owner.h"
#include "record/ring.h"
#include "hotspot/objhash.h"
#include "hotspot/vthread.h"
#include "stacks/methods.h"
#include "stacks/objclass.h"

typedef struct {
  uint32_t thread;   // its hash
  int shard;
  int kind;          // the event that began it
  uint32_t object;
  jthread ref;       // a global reference, for the polls
  jint in;           // the JVMTI states in which it is still in it (the polls)
  int n;             // frames
  orca_frame *frames;
} open_t;

static open_t *opens;
static int nopen, cap;
atomic_int attached_any;   // attached.h
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

// Every event of a thread asks whether it had a state open since the
// attach, while idle threads (a server's hundreds of pool workers) keep
// theirs open for the whole recording: a count of open states by a few
// bits of the thread's hash answers most threads without the mutex (a
// false "maybe" costs only the lookup under it).
#define MAYBE_BITS 12
static _Atomic unsigned short maybe[1 << MAYBE_BITS];

static _Atomic unsigned short *maybe_of(uint32_t thread) {
  return &maybe[(thread * 2654435761u) >> (32 - MAYBE_BITS)];
}

static int maybe_open(uint32_t thread) {
  return atomic_load_explicit(&attached_any, memory_order_acquire) &&
         atomic_load_explicit(maybe_of(thread), memory_order_relaxed) != 0;
}

int attached_open(void) { return atomic_load_explicit(&attached_any, memory_order_acquire); }

// in_of: the JVMTI states of a thread still in the state kind began (a
// wait that ended re-enters its monitor: its Waited comes).
static jint in_of(int kind) {
  return kind == ORCA_EV_THREAD_PARK    ? JVMTI_THREAD_STATE_PARKED
         : kind == ORCA_EV_THREAD_SLEEP ? JVMTI_THREAD_STATE_SLEEPING
         : kind == ORCA_EV_OBJECT_WAIT  ? JVMTI_THREAD_STATE_IN_OBJECT_WAIT | JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER
                                        : JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER;
}

// keep adds an open state (under mu); returns it (NULL: no memory).
static open_t *keep(JNIEnv *env, uint32_t thread, int shard, int kind, uint32_t object, jthread t, const orca_frame *fr, int n) {
  if (nopen == cap) {
    int c = cap ? cap * 2 : 64;
    open_t *o = realloc(opens, (size_t)c * sizeof *o);
    if (!o) return NULL;
    opens = o;
    cap = c;
  }
  open_t *o = &opens[nopen];
  memset(o, 0, sizeof *o);
  o->thread = thread, o->shard = shard, o->kind = kind, o->object = object;
  o->ref = (*env)->NewGlobalRef(env, t);
  o->in = in_of(kind);
  if (n > 0 && (o->frames = malloc((size_t)n * sizeof *fr))) {
    memcpy(o->frames, fr, (size_t)n * sizeof *fr);
    o->n = n;
  }
  nopen++;
  atomic_fetch_add_explicit(maybe_of(thread), 1, memory_order_relaxed);
  atomic_store_explicit(&attached_any, 1, memory_order_release);
  return o;
}

// drop removes open state i (under mu); env NULL: its reference is kept
// (a thread that cannot call JNI: it is freed with the table).
static void drop(JNIEnv *env, int i) {
  if (opens[i].ref && env) (*env)->DeleteGlobalRef(env, opens[i].ref);
  atomic_fetch_sub_explicit(maybe_of(opens[i].thread), 1, memory_order_relaxed);
  free(opens[i].frames);
  opens[i] = opens[--nopen];
  if (!nopen) atomic_store_explicit(&attached_any, 0, memory_order_release);
}

// The event that ends each kind.
static int end_of(int kind) { return orca_events[kind].end; }

// close_at writes the end of open state i at ts and drops it (under mu).
static void close_at(JNIEnv *env, int i, int64_t ts) {
  open_t *o = &opens[i];
  int end = end_of(o->kind);
  // A park's end without how it ended: not known (written empty).
  ring_put(o->shard, end, ts, o->thread, end == ORCA_EV_THREAD_SLEPT ? 0 : o->object, 0, o->frames,
           orca_events[end].fields & ORCA_F_STACK && end != ORCA_EV_THREAD_UNPARKED ? o->n : 0, NULL, 0);
  drop(env, i);
}

static JNIEnv *env_now(void) {
  JNIEnv *env = NULL;
  return (*orca_vm)->GetEnv(orca_vm, (void **)&env, JNI_VERSION_1_6) == JNI_OK ? env : NULL;
}

int attached_end(uint32_t thread, int shard, int kind, int64_t ts) {
  (void)shard;
  if (!maybe_open(thread)) return 0;
  pthread_mutex_lock(&mu);
  int done = 0;
  for (int i = 0; i < nopen && !done; i++)
    if (opens[i].thread == thread && opens[i].kind == kind) {
      close_at(env_now(), i, ts);
      done = 1;
    }
  pthread_mutex_unlock(&mu);
  return done;
}

void attached_own(uint32_t thread, int64_t at) {
  if (!maybe_open(thread)) return;
  int64_t ts = at ? at - 1 : clock_now();
  pthread_mutex_lock(&mu);
  for (int i = 0; i < nopen; i++)
    if (opens[i].thread == thread) {
      close_at(env_now(), i, ts);
      break;
    }
  pthread_mutex_unlock(&mu);
}

void attached_runs(uint32_t thread, uint32_t carrier, int64_t at) {
  attached_own(thread, at);
  if (carrier) attached_own(carrier, at);
}

void attached_poll(JNIEnv *env) {
  if (!attached_open()) return;
  pthread_mutex_lock(&mu);
  int64_t ts = clock_now();
  for (int i = 0; i < nopen;) {
    open_t *o = &opens[i];
    jint st = 0;
    if (!o->ref || (*jvmti)->GetThreadState(jvmti, o->ref, &st) != JVMTI_ERROR_NONE || !(st & o->in)) {
      close_at(env, i, ts);
      continue;
    }
    i++;
  }
  pthread_mutex_unlock(&mu);
}

void attached_forget(JNIEnv *env) {
  pthread_mutex_lock(&mu);
  while (nopen) drop(env, nopen - 1);
  pthread_mutex_unlock(&mu);
}

// monitor_id names the object of a monitor: its identity hash (computed
// now when the object is at hand, with its class written), else by the
// monitor's address (see attached.h).
static uint32_t monitor_id(JNIEnv *env, int shard, uint32_t thread, int64_t ts, uint32_t hash, uintptr_t monitor,
                           jobject ref) {
  if (ref) {
    uint32_t h = objhash_of(ref);
    if (h) {
      objclass_write(env, shard, thread, ts, ref, h);
      hash = h;
    }
    (*env)->DeleteLocalRef(env, ref);
  }
  if (hash) return hash;
  uint32_t id = (uint32_t)(monitor >> 3) | 0x80000000u;
  return monitor ? id : 0;
}

// parked_or_sleeping writes the park or sleep that thread t (its hash th,
// its state st) is in at ts, its stack in fr (nf frames) and its blocker in
// *obj; returns its kind, 0 when it is in neither.
static int parked_or_sleeping(JNIEnv *env, jthread t, jint st, uint32_t th, int shard, int64_t ts,
                              attached_blocker_fn park_blocker, orca_frame *fr, int *nf, uint32_t *obj) {
  int timed = (st & JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT) != 0;
  uint32_t owner = 0;
  *obj = 0;
  if ((st & JVMTI_THREAD_STATE_PARKED) && !opt.seed_only) {
    int mode = 0;
    *obj = park_blocker(env, th, shard, ts, t, &owner, &mode);
    *nf = stack_capture(t, 0, fr, opt.depth);
    ring_put_mode(shard, ORCA_EV_THREAD_PARK, ts, th, *obj, owner, fr, *nf, timed ? "1" : NULL, timed, mode);
    return ORCA_EV_THREAD_PARK;
  }
  if (st & JVMTI_THREAD_STATE_SLEEPING) {
    *nf = stack_capture(t, 0, fr, opt.depth);
    ring_put(shard, ORCA_EV_THREAD_SLEEP, ts, th, 0, 0, fr, *nf, NULL, 0);
    return ORCA_EV_THREAD_SLEEP;
  }
  return 0;
}

// on_monitor writes the contended enter or the wait that thread t (its hash
// th, its state st) is in at ts, its monitor read from the JavaThread of
// jt (t's own, or a virtual thread's carrier), its stack in fr (nf frames)
// and its object in *obj; returns its kind, 0 when it is in neither or its
// monitor could not be read.
static int on_monitor(JNIEnv *env, jthread t, jthread jt, jint st, uint32_t th, int shard, int64_t ts, orca_frame *fr,
                      int *nf, uint32_t *obj) {
  uint32_t owner = 0;
  uintptr_t mon = 0;
  jobject ref = NULL;
  if (st & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) {
    if (!owner_blocked_on(env, jt, 0, obj, &owner, &mon, &ref)) return 0;
    *obj = monitor_id(env, shard, th, ts, *obj, mon, ref);
    *nf = stack_capture(t, 0, fr, opt.depth);
    ring_put(shard, ORCA_EV_MONITOR_CONTENDED_ENTER, ts, th, *obj, owner, fr, *nf, NULL, 0);
    return ORCA_EV_MONITOR_CONTENDED_ENTER;
  }
  if (!(st & JVMTI_THREAD_STATE_IN_OBJECT_WAIT)) return 0;
  owner_blocked_on(env, jt, 1, obj, &owner, &mon, &ref);
  *obj = monitor_id(env, shard, th, ts, *obj, mon, ref);
  *nf = stack_capture(t, 0, fr, opt.depth);
  // Timed (its timeout is not known: 1 ns says only that it has one).
  if ((st & JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT) && !opt.seed_only)
    ring_put(shard, ORCA_EV_OBJECT_WAIT_TIMEOUT, ts, th, 0, 0, NULL, 0, "1", 1);
  ring_put(shard, ORCA_EV_OBJECT_WAIT, ts, th, *obj, 0, fr, *nf, NULL, 0);
  return ORCA_EV_OBJECT_WAIT;
}

// state_at writes the state thread t (its hash th, its JVMTI state st) is
// in at ts, a monitor's read from the JavaThread of jt, and keeps it open
// (under mu); returns it, NULL when it is in none of them.
static open_t *state_at(JNIEnv *env, jthread t, jthread jt, jint st, uint32_t th, int shard, int64_t ts,
                        attached_blocker_fn park_blocker) {
  orca_frame fr[ORCA_MAX_DEPTH];
  int nf = 0, kind = 0;
  uint32_t obj = 0;
  if (st & (JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_IN_OBJECT_WAIT))
    kind = on_monitor(env, t, jt, st, th, shard, ts, fr, &nf, &obj);
  else
    kind = parked_or_sleeping(env, t, st, th, shard, ts, park_blocker, fr, &nf, &obj);
  return kind ? keep(env, th, shard, kind, obj, t, fr, nf) : NULL;
}

int attached_virtual(JNIEnv *env, jthread vt, uint32_t th, int shard, int64_t ts, attached_blocker_fn park_blocker) {
  jint st = 0;
  if ((*jvmti)->GetThreadState(jvmti, vt, &st) != JVMTI_ERROR_NONE || !(st & JVMTI_THREAD_STATE_ALIVE)) return 0;
  // A monitor's is read from the JavaThread it runs on: its carrier's when
  // it is pinned to it (21-23: every such enter or wait; 24+: in a native
  // frame or a class initializer); unmounted (24+) it has none: skipped.
  int on_mon = (st & (JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_IN_OBJECT_WAIT)) != 0;
  jthread c = on_mon ? vthread_carrier(env, vt) : NULL;
  if (on_mon && !c) return -1;
  // Its sleep parks it: JVMTI says "parked" (21-25).
  int sleeping = !on_mon && (st & JVMTI_THREAD_STATE_PARKED) && vthread_sleeping(env, vt);
  if (sleeping) st = (st & ~(JVMTI_THREAD_STATE_PARKED | JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT)) | JVMTI_THREAD_STATE_SLEEPING;
  pthread_mutex_lock(&mu);
  open_t *o = state_at(env, vt, c, st, th, shard, ts, park_blocker);
  if (o && sleeping) o->in = JVMTI_THREAD_STATE_PARKED;   // as JVMTI says of it
  pthread_mutex_unlock(&mu);
  if (c) (*env)->DeleteLocalRef(env, c);
  return o ? 1 : on_mon ? -1 : 0;
}

int attached_snapshot(JNIEnv *env, int64_t ts, attached_blocker_fn park_blocker) {
  jint n = 0;
  jthread *all = NULL;
  if ((*jvmti)->GetAllThreads(jvmti, &n, &all) != JVMTI_ERROR_NONE) return 0;
  (*env)->EnsureLocalCapacity(env, n + 8);
  int found = 0;
  pthread_mutex_lock(&mu);
  for (int i = 0; i < n; i++) {
    jint st = 0, h = 0;
    if ((*jvmti)->GetThreadState(jvmti, all[i], &st) != JVMTI_ERROR_NONE || !(st & JVMTI_THREAD_STATE_ALIVE) ||
        pending_is_walker(env, all[i]))   // the agent's own
      continue;
    (*jvmti)->GetObjectHashCode(jvmti, all[i], &h);
    h = (jint)vthread_key_new(env, all[i], (uint32_t)h);   // registered by threads_existing_at: its key
    if (state_at(env, all[i], all[i], st, (uint32_t)h, i, ts, park_blocker)) found++;
  }
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < n; i++) (*env)->DeleteLocalRef(env, all[i]);
  (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
  return found;
}
