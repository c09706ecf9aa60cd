#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "methods.h"
#include "objhash.h"
#include "park.h"
#include "threads.h"
#include "vpark.h"

enum { T_PARK = 1, T_PARK_NANOS, T_SLEEP, T_UNPARK, T_START };

static const wrap_spec specs[] = {
    {"park", "()V", 1, T_PARK},
    {"parkNanos", "(J)V", 1, T_PARK_NANOS},
    {"sleepNanos", "(J)V", 1, T_SLEEP},
    {"unpark", "()V", 0, T_UNPARK},
    // Thread.start of a virtual thread (start() calls it too): not start0.
    {"start", "(Ljdk/internal/vm/ThreadContainer;)V", 0, T_START},
};

const wrap_spec *vpark_specs(int *n) {
  *n = (int)(sizeof specs / sizeof specs[0]);
  return specs;
}

static vpark_tstate *part(tstate *v) {
  if (!v->vpark) v->vpark = calloc(1, sizeof *v->vpark + (size_t)opt.depth * sizeof(orca_frame));
  return v->vpark;
}

// unparked: another thread (o is the virtual thread it unparks) calls
// VirtualThread.unpark (LockSupport.unpark of a virtual thread).
static void unparked(JNIEnv *env, jobject o) {
  if (opt.seed_only || !park_ready()) return;
  tstate *s = thread_of(env, NULL, ORCA_EV_THREAD_UNPARK);
  if (!s) return;
  int64_t ts = clock_now();
  ring_put(s->shard, ORCA_EV_THREAD_UNPARK, ts, s->hash, objhash_of(o), 0, NULL, 0, NULL, 0);   // no stack, as park.c's
}

// The native of the injected VirtualThread.orca$hook; o is the virtual
// thread (the wrapped methods are its own, called on it, mounted), except
// for unpark (called by the unparker) and start (by the starting thread).
JNIEXPORT void JNICALL Java_java_lang_VirtualThread_orca_00024hook(JNIEnv *env, jclass c, jint op, jobject o) {
  (void)c;
  int tag = HOOK_TAG_OF(op), what = HOOK_OP(op);
  if (!o || !orca_recording()) return;
  if (tag == T_UNPARK) {
    unparked(env, o);
    return;
  }
  if (tag == T_START) {   // on the starting thread, o the new virtual thread: before it runs
    tstate *s = thread_of(env, NULL, ORCA_EV_THREAD_START);
    if (!s) return;
    int64_t ts = clock_now();
    orca_frame fr[ORCA_MAX_DEPTH];
    int n = stack_capture(NULL, 1, fr, opt.depth);
    ring_put(s->shard, ORCA_EV_THREAD_START, ts, s->hash, objhash_of(o), 0, fr, n, NULL, 0);
    return;
  }
  int park = tag != T_SLEEP;
  if (park && (opt.seed_only || !park_ready())) return;
  int kind = park ? ORCA_EV_THREAD_PARK : ORCA_EV_THREAD_SLEEP;
  tstate *v = thread_of_virtual(env, o, thread_carrier(), what == HOOK_ENTER ? kind : kind + 1);
  vpark_tstate *p = v ? part(v) : NULL;
  if (!p) return;
  if (what == HOOK_ENTER) {
    if (p->depth++ > 0) return;   // sleepNanos calls parkNanos: one sleep
    int64_t ts = clock_now();
    p->kind = kind;
    p->n = stack_capture(NULL, 1, p->frames, opt.depth);
    if (park) {
      uint32_t owner = 0;
      p->blocker = park_blocker(env, v, ts, o, &owner);
      // parkNanos' timeout is not known here (the hook sees only the
      // thread): written empty, as a park without one.
      ring_put(v->shard, ORCA_EV_THREAD_PARK, ts, v->hash, p->blocker, owner, p->frames, p->n, NULL, 0);
    } else {
      ring_put(v->shard, ORCA_EV_THREAD_SLEEP, ts, v->hash, 0, 0, p->frames, p->n, NULL, 0);
    }
    return;
  }
  if (p->depth <= 0 || --p->depth > 0) return;   // entered before the agent started, or nested
  int64_t ts = clock_now();
  if (p->kind == ORCA_EV_THREAD_PARK) {
    const char *how = park_interrupted(env, o) ? "interrupted" : tag == T_PARK ? "unparked" : "";
    ring_put(v->shard, ORCA_EV_THREAD_UNPARKED, ts, v->hash, p->blocker, 0, NULL, 0, how, (int)strlen(how));
  } else {
    ring_put(v->shard, ORCA_EV_THREAD_SLEPT, ts, v->hash, 0, 0, p->frames, p->n, NULL, 0);
  }
}
