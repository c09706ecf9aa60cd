#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "core/clock.h"
#include "core/events.h"
#include "core/orca.h"
#include "record/ring.h"
#include "threads/attached.h"

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

void attached_lock(void) { pthread_mutex_lock(&mu); }

void attached_unlock(void) { pthread_mutex_unlock(&mu); }

int attached_keep(JNIEnv *env, uint32_t thread, int shard, int kind, uint32_t object, jthread t, jint in,
                  const orca_frame *fr, int n) {
  if (nopen == cap) {
    int c = cap ? cap * 2 : 64;
    open_t *o = realloc(opens, (size_t)c * sizeof *o);
    if (!o) return 0;
    opens = o;
    cap = c;
  }
  open_t *o = &opens[nopen];
  memset(o, 0, sizeof *o);
  o->thread = thread, o->shard = shard, o->kind = kind, o->object = object;
  o->ref = (*env)->NewGlobalRef(env, t);
  o->in = in ? in : in_of(kind);
  if (n > 0 && (o->frames = malloc((size_t)n * sizeof *fr))) {
    memcpy(o->frames, fr, (size_t)n * sizeof *fr);
    o->n = n;
  }
  nopen++;
  atomic_fetch_add_explicit(maybe_of(thread), 1, memory_order_relaxed);
  atomic_store_explicit(&attached_any, 1, memory_order_release);
  return 1;
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

int attached_end(uint32_t thread, int kind, int64_t ts) {
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

