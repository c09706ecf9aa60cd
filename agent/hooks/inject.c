#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/counters.h"
#include "hooks/attached.h"
#include "hooks/classfile.h"
#include "core/clock.h"
#include "hooks/inject.h"
#include "hooks/inplace.h"
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
static void *more_hook, *more_hookJ;

void inject_add(const char *class_name, const wrap_spec *(*specs)(int *n), void *hook, void *hookJ) {
  more_class = class_name;
  more_specs = specs;
  more_hook = hook;
  more_hookJ = hookJ;
}

// The live form (issue 24, inplace.h): the hooks are the static natives of
// HOOKS_CLASS, defined by the agent in the boot loader's unnamed module —
// not in java.base's packages: HotSpot warns on the application's stdout
// ("Re-registering of platform native method") when RegisterNatives binds
// a native of a named module's boot class from an agent thread, and it
// does not look natives up by name in an attached agent's library.
#define HOOKS_CLASS "orca/agent/Hooks"
static const inplace_hook thread_hook = {HOOKS_CLASS, "thread", NULL}, semaphore_hook = {HOOKS_CLASS, "semaphore", NULL},
                          more_inplace = {HOOKS_CLASS, "vthread", "vthreadJ"};
// live: 1 once inject_live has run: the classes are rewritten in place at
// every retransformation and at their first load from then on.
// wrapped_at_load: the start-up wrappers are in (the JVM started with the
// agent): the live form is never needed.
static atomic_int live, wrapped_at_load;

int inject_live_test(void) {
  static int v = -1;
  if (v < 0) {
    const char *e = getenv("ORCA_VERIFY_LIVE_HOOKS");
    v = !e || !*e || !strcmp(e, "0") ? 0 : !strcmp(e, "2") ? 2 : 1;
  }
  return v;
}

void inject_live_capabilities(jvmtiCapabilities *want, const jvmtiCapabilities *have) {
  want->can_retransform_classes = have->can_retransform_classes;
  want->can_retransform_any_class = have->can_retransform_any_class;
}

static void give(jvmtiEnv *j, unsigned char *out, size_t out_len, jint *new_len, unsigned char **new_data) {
  unsigned char *jbuf = NULL;
  if ((*j)->Allocate(j, (jlong)out_len, &jbuf) == JVMTI_ERROR_NONE) {
    memcpy(jbuf, out, out_len);
    *new_data = jbuf;
    *new_len = (jint)out_len;
  }
  free(out);
}

static void cannot(const char *name, const char *err) {
  char msg[256];
  snprintf(msg, sizeof msg, "cannot wrap %s (%s): its events will be missing", name, err ? err : "no method found");
  counters_prop(ORCA_INFO_WARNING, msg);
  orca_log("%s", msg);
}

void JNICALL inject_on_class_file_load(jvmtiEnv *j, JNIEnv *env, jclass redefined, jobject loader, const char *name,
                                       jobject pd, jint len, const unsigned char *data, jint *new_len,
                                       unsigned char **new_data) {
  (void)env; (void)pd;
  const wrap_spec *specs;
  const inplace_hook *hook;
  int n;
  // Only the boot loader's own classes.
  if (loader || !name) return;
  if (!strcmp(name, "java/lang/Thread")) { specs = thread_specs; n = 4; hook = &thread_hook; }
  else if (!strcmp(name, "java/util/concurrent/Semaphore")) { specs = semaphore_specs; n = 6; hook = &semaphore_hook; }
  else if (more_class && !strcmp(name, more_class)) { specs = more_specs(&n); hook = &more_inplace; }
  else return;
  unsigned char *out = NULL;
  size_t out_len = 0;
  int wrapped = 0;
  if (atomic_load(&live)) {
    // The live form, at a retransformation (ours, or another agent's: the
    // JVM hands a retransformation-capable agent the bytes before its own
    // change, which must be made again) and at a first load.
    int skipped = 0;
    const char *err = classfile_inplace(data, (size_t)len, specs, n, hook, &out, &out_len, &wrapped, &skipped);
    if (skipped) cannot(name, "a method that cannot be rewritten in place");
    if (err || !out) {
      if (!err || strcmp(err, "class is already rewritten")) cannot(name, err);
      return;
    }
    give(j, out, out_len, new_len, new_data);
    return;
  }
  // The start-up form, at the first load; ORCA_VERIFY_LIVE_HOOKS leaves it
  // to the live form at VMInit.
  if (redefined || inject_live_test() == 1) return;
  const char *err = classfile_wrap(data, (size_t)len, specs, n, &out, &out_len, &wrapped);
  if (err || !out) {
    cannot(name, err);
    return;
  }
  if (!atomic_exchange(&wrapped_at_load, 1)) counters_prop(ORCA_INFO_CLASS_HOOKS, "load");
  give(j, out, out_len, new_len, new_data);
}

// has_method: class c declares a method named name.
static int has_method(jclass c, const char *name) {
  jint n = 0;
  jmethodID *ms = NULL;
  int found = 0;
  if ((*jvmti)->GetClassMethods(jvmti, c, &n, &ms) != JVMTI_ERROR_NONE) return 0;
  for (jint i = 0; i < n && !found; i++) {
    char *mn = NULL;
    if ((*jvmti)->GetMethodName(jvmti, ms[i], &mn, NULL, NULL) == JVMTI_ERROR_NONE && mn) {
      found = !strcmp(mn, name);
      (*jvmti)->Deallocate(jvmti, (unsigned char *)mn);
    }
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)ms);
  return found;
}

// hooks_class returns HOOKS_CLASS with its natives bound to this library's
// hooks, defined now unless an earlier attach did (another copy of the
// library then: its natives are bound again, to this one), or NULL.
static jclass hooks_class(JNIEnv *env, jclass found, const char **why) {
  jclass c = found;
  if (!c) {
    static const char *const natives[] = {"thread", "(ILjava/lang/Object;)V", "semaphore", "(ILjava/lang/Object;)V",
                                          "vthread", "(ILjava/lang/Object;)V", "vthreadJ", "(ILjava/lang/Object;J)V", NULL};
    unsigned char *b = NULL;
    size_t n = 0;
    if ((*why = classfile_hook_class(HOOKS_CLASS, natives, &b, &n))) return NULL;
    c = (*env)->DefineClass(env, HOOKS_CLASS, NULL, (const jbyte *)b, (jsize)n);
    free(b);
    if ((*env)->ExceptionCheck(env)) {
      (*env)->ExceptionClear(env);
      c = NULL;
    }
    if (!c) { *why = "cannot define the class of its hooks"; return NULL; }
  }
  JNINativeMethod m[4] = {
      {"thread", "(ILjava/lang/Object;)V", (void *)Java_java_lang_Thread_orca_00024hook},
      {"semaphore", "(ILjava/lang/Object;)V", (void *)Java_java_util_concurrent_Semaphore_orca_00024hook},
      {"vthread", "(ILjava/lang/Object;)V", more_hook},
      {"vthreadJ", "(ILjava/lang/Object;J)V", more_hookJ},
  };
  if ((*env)->RegisterNatives(env, c, m, more_hook && more_hookJ ? 4 : 2) != JNI_OK) {
    (*env)->ExceptionClear(env);
    *why = "cannot bind the natives of its hooks";
    return NULL;
  }
  return c;
}

const char *inject_live(JNIEnv *env) {
  static char why[300];
  if (atomic_load(&live) || atomic_load(&wrapped_at_load)) return NULL;
  jint n = 0;
  jclass *all = NULL, want[3], hooks = NULL;
  int nwant = 0;
  if ((*jvmti)->GetLoadedClasses(jvmti, &n, &all) != JVMTI_ERROR_NONE) return "cannot list the loaded classes: Thread.join and Semaphore are not recorded";
  jclass thread = NULL;
  char more_sig[200] = "";
  if (more_class) snprintf(more_sig, sizeof more_sig, "L%s;", more_class);
  (*env)->EnsureLocalCapacity(env, n + 16);   // -Xcheck:jni: all live at once (vthread.c)
  for (jint i = 0; i < n; i++) {
    char *sig = NULL;
    int keep = 0;
    jobject loader = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, all[i], &sig, NULL) == JVMTI_ERROR_NONE && sig &&
        (*jvmti)->GetClassLoader(jvmti, all[i], &loader) == JVMTI_ERROR_NONE && !loader) {
      keep = 1;
      if (!strcmp(sig, "Ljava/lang/Thread;") && !thread && nwant < 3) thread = want[nwant++] = all[i];
      else if ((!strcmp(sig, "Ljava/util/concurrent/Semaphore;") || (more_sig[0] && !strcmp(sig, more_sig))) && nwant < 3)
        want[nwant++] = all[i];
      else if (!strcmp(sig, "L" HOOKS_CLASS ";") && !hooks) hooks = all[i];
      else keep = 0;
    }
    if (loader) (*env)->DeleteLocalRef(env, loader);
    if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (!keep) (*env)->DeleteLocalRef(env, all[i]);
  }
  const char *err = NULL;
  char buf[200];
  // A JVM that started with an agent of Orca's has the start-up wrappers.
  if (thread && has_method(thread, "orca$hook")) {
    atomic_store(&wrapped_at_load, 1);
    goto out;
  }
  jclass c = hooks_class(env, hooks, &err);
  if (!c) goto out;
  // java.base reads the boot loader's unnamed module, where the hooks are.
  jobject base = thread ? (*env)->GetModule(env, thread) : NULL, mine = (*env)->GetModule(env, c);
  jvmtiError e = base && mine ? (*jvmti)->AddModuleReads(jvmti, base, mine) : JVMTI_ERROR_NULL_POINTER;
  if (e != JVMTI_ERROR_NONE) {
    snprintf(buf, sizeof buf, "cannot let java.base read the hooks' module (JVMTI error %d)", (int)e);
    err = buf;
    goto out;
  }
  atomic_store(&live, 1);   // the class-file hook rewrites them from now on
  int64_t t0 = clock_now();
  if (nwant && (e = (*jvmti)->RetransformClasses(jvmti, nwant, want)) != JVMTI_ERROR_NONE) {
    snprintf(buf, sizeof buf, "cannot retransform Thread, Semaphore%s (JVMTI error %d)", more_class ? ", VirtualThread" : "",
             (int)e);
    err = buf;
  } else {
    char fact[120];
    snprintf(fact, sizeof fact, "live: %d classes retransformed in %.1f ms", nwant, (double)(clock_now() - t0) / 1e6);
    counters_prop(ORCA_INFO_CLASS_HOOKS, fact);
  }
out:
  for (int i = 0; i < nwant; i++) (*env)->DeleteLocalRef(env, want[i]);
  if (hooks) (*env)->DeleteLocalRef(env, hooks);
  (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
  if (!err) return NULL;
  snprintf(why, sizeof why, "%s: Thread.join, Semaphore and virtual threads' parks are not recorded", err);
  return why;
}

// pair handles ENTER/EXIT/THROW of a wrapped method; depth suppresses the
// nested overloads (join() calls join(0)).
// part returns the thread's join and semaphore part, made at its first
// call (most threads never join nor acquire: no memory for them).
static inject_tstate *part(tstate *s) {
  if (!s->inject) s->inject = calloc(1, sizeof *s->inject);
  return s->inject;
}

// pair_object names o, a joined thread (its key: threads.h) or a semaphore.
static uint32_t pair_object(int ev_in, jobject o) {
  uint32_t h = objhash_of(o);
  if (ev_in != ORCA_EV_THREAD_JOIN || !h) return h;
  JNIEnv *env = NULL;
  if ((*orca_vm)->GetEnv(orca_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) env = NULL;
  return thread_key(env, o, h);
}

static void pair(tstate *s, int *depth, int *rec, orca_frame *saved, int *saved_n, int ev_in, int ev_out, int op, jobject o) {
  if (op == HOOK_ENTER) {
    if ((*depth)++ > 0) return;
    // The recording its end belongs to: none when it began between two
    // (an attach since), or in an earlier one.
    *rec = orca_recording() ? threads_recording() : 0;
    if (!*rec) return;
    int64_t ts = clock_now();
    // Skip the orca$hook frame: the wrapper is the top frame users know.
    *saved_n = stack_capture(NULL, 1, saved, opt.depth);
    ring_put(s->shard, ev_in, ts, s->hash, pair_object(ev_in, o), 0, saved, *saved_n, NULL, 0);
    return;
  }
  if (*depth <= 0) return;   // entered before the agent started
  if (--(*depth) > 0 || !orca_recording() || *rec != threads_recording()) return;
  emit(s, ev_out, pair_object(ev_in, o), 0, saved, *saved_n);
}

// hook_thread returns the calling thread's state, or NULL on a virtual
// thread (it may end the call on another carrier: its depth is not
// tracked, so a nested overload counts again).
// An event of the thread's own ends what it was doing at an attach (a park
// the snapshot saw: its acquire or join may have begun before the attach).
static tstate *hook_thread(JNIEnv *env, int op, int ev_in, int ev_out) {
  tstate *s = thread_of(env, NULL, op == HOOK_ENTER ? ev_in : op == HOOK_ONCE ? ORCA_EV_SEMAPHORE_RELEASE : ev_out);
  if (s) OWN_EVENT(s, 0);
  return s;
}

// The natives of the injected `orca$hook` methods; the JVM finds them by
// name in the agent library, so they are exported.
JNIEXPORT void JNICALL Java_java_lang_Thread_orca_00024hook(JNIEnv *env, jclass c, jint op, jobject o) {
  (void)c;
  tstate *s = hook_thread(env, op, ORCA_EV_THREAD_JOIN, ORCA_EV_THREAD_JOINED);
  if (!s) return;
  inject_tstate *p = part(s);
  if (!p) return;
  pair(s, &s->join_depth, &p->join_rec, p->join_frames, &p->join_n, ORCA_EV_THREAD_JOIN, ORCA_EV_THREAD_JOINED, op, o);
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
  pair(s, &p->sem_depth, &p->sem_rec, p->sem_frames, &p->sem_n, ORCA_EV_SEMAPHORE_ACQUIRE, ORCA_EV_SEMAPHORE_ACQUIRED, op, o);
}
