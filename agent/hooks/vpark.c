#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/events.h"
#include "core/clock.h"
#include "stacks/methods.h"
#include "hotspot/objhash.h"
#include "hooks/park.h"
#include "threads/threads.h"
#include "hooks/vpark.h"

enum { T_PARK = 1, T_PARK_NANOS, T_SLEEP, T_UNPARK, T_START };

static const wrap_spec specs[] = {
    {"park", "()V", 1, T_PARK, 0, 0},
    {"parkNanos", "(J)V", 1, T_PARK_NANOS, 1, 0},   // ENTER: orca$hookJ, with the timeout
    {"sleepNanos", "(J)V", 1, T_SLEEP, 0, 0},
    {"unpark", "()V", 0, T_UNPARK, 0, 0},
    // Thread.start of a virtual thread (start() calls it too): not start0.
    {"start", "(Ljdk/internal/vm/ThreadContainer;)V", 0, T_START, 0, 0},
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
  event e;
  tstate *s = event_begin(&e, env, NULL, ORCA_EV_THREAD_UNPARK, EV_NOW);
  if (!s) return;
  ring_put(s->shard, ORCA_EV_THREAD_UNPARK, e.ts, s->hash, thread_key(env, o, objhash_of(o)), 0, NULL, 0, NULL, 0);   // no stack, as park.c's
}

// hook is the natives of the injected VirtualThread.orca$hook and
// orca$hookJ; o is the virtual thread (the hooked methods are its own,
// called on it, mounted), except for unpark (called by the unparker) and
// start (by the starting thread); arg is parkNanos' argument at its ENTER
// (orca$hookJ), else -1.
static void hook(JNIEnv *env, jint op, jobject o, int64_t arg) {
  int tag = HOOK_TAG_OF(op), what = HOOK_OP(op);
  if (!o) return;
  if (tag == T_UNPARK) {
    unparked(env, o);
    return;
  }
  event e;
  if (tag == T_START) {   // on the starting thread, o the new virtual thread: before it runs
    tstate *s = event_begin(&e, env, NULL, ORCA_EV_THREAD_START, EV_NOW);
    if (!s) return;
    int64_t ts = e.ts;
    orca_frame fr[ORCA_MAX_DEPTH];
    int n = stack_capture(NULL, 1, fr, opt.depth);
    ring_put(s->shard, ORCA_EV_THREAD_START, ts, s->hash, thread_key_new(env, o, objhash_of(o)), 0, fr, n, NULL, 0);
    return;
  }
  int park = tag != T_SLEEP;
  if (park && (opt.seed_only || !park_ready())) return;
  int kind = park ? ORCA_EV_THREAD_PARK : ORCA_EV_THREAD_SLEEP;
  // Its begin is its own event: a park or sleep of the attach is over (its
  // carrier's too), so is a sleep's inner park (one load when nothing is).
  tstate *v = what == HOOK_ENTER ? event_begin(&e, env, o, kind, EV_VIRTUAL | EV_OWN | EV_PAIRED)
                                 : event_begin(&e, env, o, kind + 1, EV_VIRTUAL);
  vpark_tstate *p = v ? part(v) : NULL;
  if (!p) return;
  if (what == HOOK_ENTER) {
    if (p->depth++ > 0) return;   // sleepNanos calls parkNanos: one sleep
    int64_t ts = clock_now();
    p->kind = kind;
    p->rec = e.rec;
    p->n = stack_capture(NULL, 1, p->frames, opt.depth);
    if (park) {
      uint32_t owner = 0;
      int mode = 0;
      p->blocker = park_blocker(env, v, ts, o, &owner, &mode);
      // parkNanos' timeout (it returns at once for one <= 0); park()'s none.
      p->timeout = tag == T_PARK_NANOS && arg >= 0 ? arg : -1;
      p->t0 = ts;
      char tbuf[24];
      int tl = p->timeout >= 0 ? snprintf(tbuf, sizeof tbuf, "%lld", (long long)p->timeout) : 0;
      ring_put_mode(v->shard, ORCA_EV_THREAD_PARK, ts, v->hash, p->blocker, owner, p->frames, p->n, tbuf, tl, mode);
    } else {
      ring_put(v->shard, ORCA_EV_THREAD_SLEEP, ts, v->hash, 0, 0, p->frames, p->n, NULL, 0);
    }
    thread_blocking(env, v);
    return;
  }
  if (p->depth <= 0 || --p->depth > 0) return;   // entered before the agent started, or nested
  e.rec = p->rec;
  if (!event_end(&e)) return;   // begun in an earlier recording (an attach since)
  int64_t ts = e.ts;
  if (p->kind == ORCA_EV_THREAD_PARK) {
    // As park.c: a timed park that lasted its timeout timed out.
    const char *how = park_interrupted(env, o)                       ? "interrupted"
                      : tag == T_PARK                                ? "unparked"
                      : p->timeout < 0                               ? ""
                      : p->timeout > 0 && ts - p->t0 >= p->timeout ? "timeout"
                                                                     : "unparked";
    ring_put(v->shard, ORCA_EV_THREAD_UNPARKED, ts, v->hash, p->blocker, 0, NULL, 0, how, (int)strlen(how));
  } else {
    ring_put(v->shard, ORCA_EV_THREAD_SLEPT, ts, v->hash, 0, 0, p->frames, p->n, NULL, 0);
  }
  thread_resumed(env, v);
}

JNIEXPORT void JNICALL Java_java_lang_VirtualThread_orca_00024hook(JNIEnv *env, jclass c, jint op, jobject o) {
  (void)c;
  hook(env, op, o, -1);
}

JNIEXPORT void JNICALL Java_java_lang_VirtualThread_orca_00024hookJ(JNIEnv *env, jclass c, jint op, jobject o, jlong arg) {
  (void)c;
  hook(env, op, o, arg < 0 ? 0 : (int64_t)arg);
}
