#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/counters.h"
#include "hooks/classfile.h"
#include "core/clock.h"
#include "hooks/inject.h"
#include "stacks/methods.h"
#include "stacks/objclass.h"
#include "hotspot/objhash.h"
#include "threads/threads.h"

static const wrap_spec thread_specs[] = {
    {"join", "()V", 1, 0, 0},
    {"join", "(J)V", 1, 0, 0},
    {"join", "(JI)V", 1, 0, 0},
    {"join", "(Ljava/time/Duration;)Z", 1, 0, 0},   // 19+
};
static const wrap_spec semaphore_specs[] = {
    {"acquire", "()V", 1, 0, 0},
    {"acquire", "(I)V", 1, 0, 0},
    {"acquireUninterruptibly", "()V", 1, 0, 0},
    {"acquireUninterruptibly", "(I)V", 1, 0, 0},
    {"release", "()V", 0, 0, 0},
    {"release", "(I)V", 0, 0, 0},
};

static const char *more_class;
static const wrap_spec *(*more_specs)(int *n);

void inject_add(const char *class_name, const wrap_spec *(*specs)(int *n)) {
  more_class = class_name;
  more_specs = specs;
}

void JNICALL inject_on_class_file_load(jvmtiEnv *j, JNIEnv *env, jclass redefined, jobject loader, const char *name,
                                       jobject pd, jint len, const unsigned char *data, jint *new_len,
                                       unsigned char **new_data) {
  (void)env; (void)pd;
  const wrap_spec *specs;
  int n;
  // Only the boot loader's own classes, on first load.
  if (redefined || loader || !name) return;
  if (!strcmp(name, "java/lang/Thread")) { specs = thread_specs; n = 4; }
  else if (!strcmp(name, "java/util/concurrent/Semaphore")) { specs = semaphore_specs; n = 6; }
  else if (more_class && !strcmp(name, more_class)) specs = more_specs(&n);
  else return;
  unsigned char *out = NULL;
  size_t out_len = 0;
  int wrapped = 0;
  const char *err = classfile_wrap(data, (size_t)len, specs, n, &out, &out_len, &wrapped);
  if (err || !out) {
    char msg[256];
    snprintf(msg, sizeof msg, "cannot wrap %s (%s): its events will be missing", name, err ? err : "no method found");
    counters_prop(ORCA_INFO_WARNING, msg);
    orca_log("%s", msg);
    return;
  }
  unsigned char *jbuf = NULL;
  if ((*j)->Allocate(j, (jlong)out_len, &jbuf) == JVMTI_ERROR_NONE) {
    memcpy(jbuf, out, out_len);
    *new_data = jbuf;
    *new_len = (jint)out_len;
  }
  free(out);
}

// pair handles ENTER/EXIT/THROW of a wrapped method; depth suppresses the
// nested overloads (join() calls join(0)).
// part returns the thread's join and semaphore part, made at its first
// call (most threads never join nor acquire: no memory for them).
static inject_tstate *part(tstate *s) {
  if (!s->inject) s->inject = calloc(1, sizeof *s->inject);
  return s->inject;
}

static void pair(tstate *s, int *depth, orca_frame *saved, int *saved_n, int ev_in, int ev_out, int op, jobject o) {
  if (op == HOOK_ENTER) {
    if ((*depth)++ > 0 || !orca_recording()) return;
    int64_t ts = clock_now();
    // Skip the orca$hook frame: the wrapper is the top frame users know.
    *saved_n = stack_capture(NULL, 1, saved, opt.depth);
    ring_put(s->shard, ev_in, ts, s->hash, objhash_of(o), 0, saved, *saved_n, NULL, 0);
    return;
  }
  if (*depth <= 0) return;   // entered before the agent started
  if (--(*depth) > 0 || !orca_recording()) return;
  emit(s, ev_out, objhash_of(o), 0, saved, *saved_n);
}

// hook_thread returns the calling thread's state, or NULL on a virtual
// thread (it may end the call on another carrier: its depth is not
// tracked, so a nested overload counts again).
static tstate *hook_thread(JNIEnv *env, int op, int ev_in, int ev_out) {
  return thread_of(env, NULL, op == HOOK_ENTER ? ev_in : op == HOOK_ONCE ? ORCA_EV_SEMAPHORE_RELEASE : ev_out);
}

// The natives of the injected `orca$hook` methods; the JVM finds them by
// name in the agent library, so they are exported.
JNIEXPORT void JNICALL Java_java_lang_Thread_orca_00024hook(JNIEnv *env, jclass c, jint op, jobject o) {
  (void)c;
  tstate *s = hook_thread(env, op, ORCA_EV_THREAD_JOIN, ORCA_EV_THREAD_JOINED);
  if (!s) return;
  inject_tstate *p = part(s);
  if (!p) return;
  pair(s, &s->join_depth, p->join_frames, &p->join_n, ORCA_EV_THREAD_JOIN, ORCA_EV_THREAD_JOINED, op, o);
}

JNIEXPORT void JNICALL Java_java_util_concurrent_Semaphore_orca_00024hook(JNIEnv *env, jclass c, jint op, jobject o) {
  (void)c;
  tstate *s = hook_thread(env, op, ORCA_EV_SEMAPHORE_ACQUIRE, ORCA_EV_SEMAPHORE_ACQUIRED);
  if (!s) return;
  // Its class once (a Semaphore or a subclass), before its first line: the
  // thread holds nothing of it here (issue 20: a semaphore had no class).
  if ((op == HOOK_ONCE || op == HOOK_ENTER) && orca_recording()) objclass_write(env, s->shard, s->hash, clock_now(), o, objhash_of(o));
  if (op == HOOK_ONCE) {
    if (!orca_recording()) return;
    orca_frame fr[ORCA_MAX_DEPTH];
    int64_t ts = clock_now();
    int n = stack_capture(NULL, 1, fr, opt.depth);
    ring_put(s->shard, ORCA_EV_SEMAPHORE_RELEASE, ts, s->hash, objhash_of(o), 0, fr, n, NULL, 0);
    return;
  }
  inject_tstate *p = part(s);
  if (!p) return;
  pair(s, &p->sem_depth, p->sem_frames, &p->sem_n, ORCA_EV_SEMAPHORE_ACQUIRE, ORCA_EV_SEMAPHORE_ACQUIRED, op, o);
}
