#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/counters.h"
#include "hooks/classfile.h"
#include "core/clock.h"
#include "hooks/inject.h"
#include "hooks/inplace.h"
#include "stacks/methods.h"
#include "stacks/objclass.h"
#include "hotspot/objhash.h"
#include "hotspot/vmstructs.h"
#include "threads/threads.h"

static const wrap_spec thread_specs[] = {
    {"join", "()V", 1, 0, 0, 0},
    {"join", "(J)V", 1, 0, 0, 0},
    {"join", "(JI)V", 1, 0, 0, 0},
    {"join", "(Ljava/time/Duration;)Z", 1, 0, 0, 0},   // 19+
};
static const wrap_spec semaphore_specs[] = {
    {"acquire", "()V", 1, 0, 0, 0},
    {"acquire", "(I)V", 1, 0, 0, 0},
    {"acquireUninterruptibly", "()V", 1, 0, 0, 0},
    {"acquireUninterruptibly", "(I)V", 1, 0, 0, 0},
    {"release", "()V", 0, 0, 0, 0},
    {"release", "(I)V", 0, 0, 0, 0},
};

// more_load: the boot classes rewritten at their first load only (the
// start-up form), with their own natives: the locks of lockorder=yes
// (hooks/held.h), set by the jvm module.
static int (*more_load)(const char *name, const wrap_spec **specs, int *n);

void inject_add_at_load(int (*specs)(const char *name, const wrap_spec **specs, int *n)) { more_load = specs; }

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
// The start-up form, at a class's first load: the same rewrite, its hooks
// the class's own natives, which it declares (classes may get methods at
// their first load) and the JVM binds by name to Java_..._orca_00024hook:
// a rewritten method may run before VMInit, when the agent cannot define a
// class yet.
static const inplace_hook own_hook = {NULL, "orca$hook", "orca$hookJ"};
// live: 1 once inject_live has run: the classes are rewritten in place at
// every retransformation and at their first load from then on.
// wrapped_at_load: the start-up form is in (the JVM started with the
// agent): the live form is never needed.
static atomic_int live, wrapped_at_load;
// attaching: an attach came: in a JVM that did not start with the agent
// the start-up form is never applied from then on (its natives are not
// found by name in an attached agent's library). dependencies_recorded:
// this JVM's agent took can_retransform_classes while the JVM loaded
// (standby=yes, or the test switch): HotSpot 17-22 then deoptimises only
// the dependents of a rewritten class (docs/attach.md, "What an attach
// costs").
static atomic_int attaching, dependencies_recorded;

void inject_attaching(void) { atomic_store(&attaching, 1); }
void inject_dependencies_recorded(void) { atomic_store(&dependencies_recorded, 1); }

// Thread.join seen in its wait (inject_join_wait): the compact ids
// (methods.h) of Thread's join methods, found once a JVM, published by
// join_by_wait.
static uint32_t join_ids[8];
static int njoin_ids;
static jclass thread_class;   // global reference
static atomic_int join_by_wait;

// unlinked: Semaphore or VirtualThread loaded but not linked when
// inject_live ran (global references): VirtualThread in a JVM that never
// ran a virtual thread, which the JDK's CDS archive loads with the VM. A
// retransformation links the class, and linking a class that overrides
// methods compiled code inlined as the only implementation deoptimises that
// code (HotSpot's CHA dependencies, checked at link time since JDK 17):
// VirtualThread overrides Thread's isInterrupted, getAndClearInterrupt,
// blockedOn and interrupt, inlined in every interruptible wait, so the
// first attach to a loaded Tomcat on 25 had 57 of its hot methods
// deoptimised and compiled again while the recording ran (issue 31 item 5,
// docs/perf/2026-11-28-issue-31-attach.md). Such a class is rewritten when
// the JVM links it (inject_class_prepared: before its first instance can
// exist), or at the next attach if it was linked between two recordings.
static _Atomic(jclass) unlinked[2];

int inject_live_test(void) { return switches.verify_live_hooks; }

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
  else if (!atomic_load(&live) && more_load && more_load(name, &specs, &n)) hook = NULL;   // the start-up form only
  else return;
  if (!hook) {
    if (redefined || atomic_load(&attaching)) return;
    hook = &own_hook;
  } else if (atomic_load(&live)) {
    // Thread is not rewritten live: its joins are seen in their wait
    // (inject_join_wait).
    if (hook == &thread_hook) return;
    // The live form, at a retransformation (ours, or another agent's: the
    // JVM hands a retransformation-capable agent the bytes before its own
    // change, which must be made again) and at a first load.
  } else {
    // The start-up form, at the first load; ORCA_VERIFY_LIVE_HOOKS leaves it
    // to the live form at VMInit.
    if (redefined || inject_live_test() == 1 || (atomic_load(&attaching) && !atomic_load(&wrapped_at_load))) return;
    hook = &own_hook;
  }
  unsigned char *out = NULL;
  size_t out_len = 0;
  int wrapped = 0, skipped = 0;
  const char *err = classfile_inplace(data, (size_t)len, specs, n, hook, &out, &out_len, &wrapped, &skipped);
  if (skipped) cannot(name, "a method that cannot be rewritten in place");
  if (err || !out) {
    if (!err || strcmp(err, "class is already rewritten")) cannot(name, err);
    return;
  }
  if (hook == &own_hook && !atomic_exchange(&wrapped_at_load, 1)) counters_prop(ORCA_INFO_CLASS_HOOKS, "load");
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

// join_init makes Thread.join seen in its wait (inject_join_wait): the ids
// of Thread's join methods (every overload this JDK has) and a global
// reference to Thread. 0 when it cannot (joins are then not recorded).
static int join_init(JNIEnv *env, jclass thread) {
  if (atomic_load(&join_by_wait)) return 1;
  jint n = 0;
  jmethodID *ms = NULL;
  if (!thread || (*jvmti)->GetClassMethods(jvmti, thread, &n, &ms) != JVMTI_ERROR_NONE) return 0;
  njoin_ids = 0;
  for (jint i = 0; i < n && njoin_ids < (int)(sizeof join_ids / sizeof join_ids[0]); i++) {
    char *mn = NULL;
    if ((*jvmti)->GetMethodName(jvmti, ms[i], &mn, NULL, NULL) == JVMTI_ERROR_NONE && mn) {
      uint32_t id = !strcmp(mn, "join") ? methods_id_of(ms[i]) : 0;
      if (id) join_ids[njoin_ids++] = id;
      (*jvmti)->Deallocate(jvmti, (unsigned char *)mn);
    }
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)ms);
  if (!njoin_ids || !(thread_class = (*env)->NewGlobalRef(env, thread))) return 0;
  atomic_store(&join_by_wait, 1);
  return 1;
}

// rewrite_cheap: a redefinition deoptimises only the code that depends on
// the rewritten class. HotSpot 23+ records those dependencies from the
// JVM's start (-XX:+AlwaysRecordEvolDependencies, the default since
// JDK-8324241); 17-22 only while an agent holds can_retransform_classes,
// and trust them only if it was taken while the JVM loaded: otherwise the
// first redefinition deoptimises every compiled method
// (VM_RedefineClasses::flush_dependent_code), and a loaded server runs at a
// third of its speed for seconds (docs/attach.md, "What an attach costs").
static int rewrite_cheap(void) {
  if (atomic_load(&dependencies_recorded)) return 1;
  return orca_feature >= 23 && vms_flag("AlwaysRecordEvolDependencies") != 0;
}

// retransform rewrites the class c (live form) now; a warning when it
// cannot (its events are then missing).
static void retransform(jclass c) {
  jvmtiError e = (*jvmti)->RetransformClasses(jvmti, 1, &c);
  if (e == JVMTI_ERROR_NONE) return;
  char *sig = NULL, msg[256];
  (*jvmti)->GetClassSignature(jvmti, c, &sig, NULL);
  snprintf(msg, sizeof msg, "cannot retransform %s when linked (JVMTI error %d): its events are missing", sig ? sig : "a class", (int)e);
  if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
  counters_prop(ORCA_INFO_WARNING, msg);
  orca_log("%s", msg);
}

// take_unlinked claims slot i's class (c, or any when c is NULL and it is
// linked now) for one caller, which rewrites it.
static void take_unlinked(JNIEnv *env, int i, jclass c) {
  jclass u = atomic_load(&unlinked[i]);
  if (!u || (c && !(*env)->IsSameObject(env, u, c))) return;
  jint st = 0;
  if (!c && ((*jvmti)->GetClassStatus(jvmti, u, &st) != JVMTI_ERROR_NONE || !(st & JVMTI_CLASS_STATUS_PREPARED))) return;
  if (!atomic_compare_exchange_strong(&unlinked[i], &u, NULL)) return;
  retransform(u);
  (*env)->DeleteGlobalRef(env, u);
}

// The start-up form's natives are found by name at their first call, and
// on JDK 17 and 25 that runs Java code (ClassLoader.findNative, then
// NativeLibraries.find, loading its classes): inside the application's
// first Thread.join and Semaphore.acquire, where its CPU samples showed it
// (TestHiddenFrames). RegisterNatives cannot bind them instead: for a boot
// class of java.base called from the agent (no Java caller) HotSpot prints
// "Re-registering of platform native method" on the application's stdout
// (measured on 17.0.15 and 25.0.3). So the agent calls each hook once at
// VMInit, with HOOK_BIND, which the hook ignores: the JVM binds it then, on
// VMInit's time, before the application runs. Semaphore is loaded for it
// (one small class, no static initialiser). VirtualThread is left to its
// first park: calling it would initialise it (its schedulers) early.
void inject_bind_own(JNIEnv *env) {
  if (!atomic_load(&wrapped_at_load) || atomic_load(&live)) return;
  static const char *const classes[] = {"java/lang/Thread", "java/util/concurrent/Semaphore"};
  for (int i = 0; i < 2; i++) {
    jclass c = (*env)->FindClass(env, classes[i]);
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), c = NULL;
    jmethodID m = c ? (*env)->GetStaticMethodID(env, c, "orca$hook", "(ILjava/lang/Object;)V") : NULL;
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), m = NULL;   // not rewritten
    if (m) (*env)->CallStaticVoidMethod(env, c, m, (jint)HOOK_BIND, (jobject)NULL);
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    if (c) (*env)->DeleteLocalRef(env, c);
  }
}

void inject_class_prepared(JNIEnv *env, jclass c) {
  if (!atomic_load_explicit(&unlinked[0], memory_order_relaxed) && !atomic_load_explicit(&unlinked[1], memory_order_relaxed)) return;
  if (!atomic_load(&live)) return;
  for (int i = 0; i < 2; i++) take_unlinked(env, i, c);
}

const char *inject_live(JNIEnv *env) {
  static char why[300];
  static int done;
  if (atomic_load(&wrapped_at_load)) return NULL;
  if (done) {
    // An unlinked class linked since the last recording (ClassPrepare was off).
    for (int i = 0; atomic_load(&live) && i < 2; i++) take_unlinked(env, i, NULL);
    return NULL;
  }
  jint n = 0;
  jclass *all = NULL, want[2], later[2], hooks = NULL;
  int nwant = 0, nlater = 0;
  if ((*jvmti)->GetLoadedClasses(jvmti, &n, &all) != JVMTI_ERROR_NONE) return "cannot list the loaded classes: Thread.join and Semaphore are not recorded";
  jclass thread = NULL;
  char more_sig[200] = "", later_names[80] = "";
  if (more_class) snprintf(more_sig, sizeof more_sig, "L%s;", more_class);
  (*env)->EnsureLocalCapacity(env, n + 16);   // -Xcheck:jni: all live at once (vthread.c)
  for (jint i = 0; i < n; i++) {
    char *sig = NULL;
    int keep = 0;
    jobject loader = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, all[i], &sig, NULL) == JVMTI_ERROR_NONE && sig &&
        (*jvmti)->GetClassLoader(jvmti, all[i], &loader) == JVMTI_ERROR_NONE && !loader) {
      keep = 1;
      if (!strcmp(sig, "Ljava/lang/Thread;") && !thread) thread = all[i];
      else if ((!strcmp(sig, "Ljava/util/concurrent/Semaphore;") || (more_sig[0] && !strcmp(sig, more_sig))) && nwant + nlater < 2) {
        jint st = 0;
        if ((*jvmti)->GetClassStatus(jvmti, all[i], &st) == JVMTI_ERROR_NONE && !(st & JVMTI_CLASS_STATUS_PREPARED)) {
          const char *b = strrchr(sig, '/');
          snprintf(later_names + strlen(later_names), sizeof later_names - strlen(later_names), ", %.*s when linked",
                   b ? (int)strlen(b + 1) - 1 : 0, b ? b + 1 : "");
          later[nlater++] = all[i];
        } else
          want[nwant++] = all[i];
      }
      else if (!strcmp(sig, "L" HOOKS_CLASS ";") && !hooks) hooks = all[i];
      else keep = 0;
    }
    if (loader) (*env)->DeleteLocalRef(env, loader);
    if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (!keep) (*env)->DeleteLocalRef(env, all[i]);
  }
  const char *err = NULL;
  char buf[200], fact[200];
  // A JVM that started with an agent of Orca's has the start-up form.
  if (thread && has_method(thread, "orca$hook")) {
    atomic_store(&wrapped_at_load, 1);
    goto out;
  }
  done = 1;
  // Thread is not rewritten: its every redefinition deoptimises the
  // compiled code that inlined one of its methods (getContextClassLoader,
  // isInterrupted, currentThread's callers: 210 of a loaded Tomcat's), and
  // a platform thread's join is a wait on the Thread object, seen in
  // Object.wait's wrapper (monitor.c).
  if (!join_init(env, thread)) {
    err = "cannot find Thread's join methods";
    goto out;
  }
  if (!rewrite_cheap()) {
    // JDK 17-22 without standby=yes: any redefinition would deoptimise all
    // compiled code. Semaphore and VirtualThread stay as they are, now and
    // at a later first load: an acquire that blocks is a park on the
    // semaphore's Sync, a virtual thread's park is its carrier's.
    snprintf(fact, sizeof fact,
             "live: 0 classes retransformed (JDK %d without standby=yes: a redefinition deoptimises all compiled code); "
             "Thread.join seen in its wait",
             orca_feature);
    counters_prop(ORCA_INFO_CLASS_HOOKS, fact);
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
  // The unlinked ones wait for their ClassPrepare (from when live is set),
  // or for the check after the retransformation (linked in between).
  for (int i = 0; i < nlater; i++) atomic_store(&unlinked[i], (*env)->NewGlobalRef(env, later[i]));
  atomic_store(&live, 1);   // the class-file hook rewrites them from now on
  int64_t t0 = clock_now();
  if (nwant && (e = (*jvmti)->RetransformClasses(jvmti, nwant, want)) != JVMTI_ERROR_NONE) {
    snprintf(buf, sizeof buf, "cannot retransform Semaphore%s (JVMTI error %d)", more_class ? ", VirtualThread" : "", (int)e);
    err = buf;
  } else {
    snprintf(fact, sizeof fact, "live: %d classes retransformed in %.1f ms%s; Thread.join seen in its wait", nwant,
             (double)(clock_now() - t0) / 1e6, later_names);
    counters_prop(ORCA_INFO_CLASS_HOOKS, fact);
  }
  for (int i = 0; i < nlater; i++) take_unlinked(env, i, NULL);
out:
  for (int i = 0; i < nwant; i++) (*env)->DeleteLocalRef(env, want[i]);
  for (int i = 0; i < nlater; i++) (*env)->DeleteLocalRef(env, later[i]);
  if (thread) (*env)->DeleteLocalRef(env, thread);
  if (hooks) (*env)->DeleteLocalRef(env, hooks);
  (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
  if (!err) return NULL;
  snprintf(why, sizeof why, "%s: %s are not recorded", err,
           atomic_load(&join_by_wait) ? "Semaphore and virtual threads' parks" : "Thread.join, Semaphore and virtual threads' parks");
  return why;
}

static int is_join(uint32_t id) {
  for (int i = 0; i < njoin_ids; i++)
    if (join_ids[i] == id) return 1;
  return 0;
}

// pair handles ENTER/EXIT/THROW of a hooked method; depth suppresses the
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
    // Skip the hook's frame: the hooked method is the top frame users know.
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
  event e;
  return event_begin(&e, env, NULL, op == HOOK_ENTER ? ev_in : op == HOOK_ONCE ? ORCA_EV_SEMAPHORE_RELEASE : ev_out,
                     EV_ALWAYS | EV_OWN);
}

// inject_join_wait: a platform thread's Thread.join is `synchronized (this)
// { while (isAlive()) wait(0); }` (wait(delay) for a timed one) on JDK
// 17-25, so where Thread is not rewritten (an attach) a wait on a Thread
// object called from Thread.join is the join: ThreadJoin (its target: the
// thread's key), and ThreadJoined when the wait returns, the events the
// rewritten Thread gives, with the stack from the outermost join frame (the
// one the caller called, at its entry). Under the joined thread's monitor,
// which its end takes to notify the joiners: the check is IsInstanceOf,
// then one walk of the joiner's stack (a wait on a Thread object is almost
// always a join).
int inject_join_wait(JNIEnv *env, tstate *s, jobject o) {
  if (!atomic_load(&join_by_wait) || !o || !(*env)->IsInstanceOf(env, o, thread_class)) return 0;
  orca_frame fr[ORCA_MAX_DEPTH];
  int max = opt.depth + 3 < ORCA_MAX_DEPTH ? opt.depth + 3 : ORCA_MAX_DEPTH;
  int n = stack_capture_own(env, 0, fr, max);
  // Object.wait's frames (wait0 and wait on 19+, the native wait on 17),
  // then Thread.join's.
  int k = 0;
  while (k < n && k < 3 && !is_join(fr[k].method)) k++;
  if (k >= n || !is_join(fr[k].method)) return 0;
  while (k + 1 < n && is_join(fr[k + 1].method)) k++;
  inject_tstate *p = part(s);
  if (!p) return 0;
  s->join_depth = 1;
  p->join_rec = orca_recording() ? threads_recording() : 0;
  if (!p->join_rec) return 1;
  p->join_n = n - k < opt.depth ? n - k : opt.depth;
  memcpy(p->join_frames, fr + k, (size_t)p->join_n * sizeof fr[0]);
  // At its entry, as the hook of a rewritten Thread gives it: one join
  // site has one stack in a recording from the JVM's start and an attached one.
  if (p->join_n) p->join_frames[0].location = 0;
  ring_put(s->shard, ORCA_EV_THREAD_JOIN, clock_now(), s->hash, pair_object(ORCA_EV_THREAD_JOIN, o), 0, p->join_frames,
           p->join_n, NULL, 0);
  return 1;
}

void inject_join_waited(tstate *s, jobject o) {
  inject_tstate *p = s->inject;
  if (p) pair(s, &s->join_depth, &p->join_rec, p->join_frames, &p->join_n, ORCA_EV_THREAD_JOIN, ORCA_EV_THREAD_JOINED, HOOK_EXIT, o);
  else s->join_depth = 0;
}

// The natives of the injected `orca$hook` methods; the JVM finds them by
// name in the agent library, so they are exported.
JNIEXPORT void JNICALL Java_java_lang_Thread_orca_00024hook(JNIEnv *env, jclass c, jint op, jobject o) {
  (void)c;
  if (op == HOOK_BIND) return;
  tstate *s = hook_thread(env, op, ORCA_EV_THREAD_JOIN, ORCA_EV_THREAD_JOINED);
  if (!s) return;
  inject_tstate *p = part(s);
  if (!p) return;
  pair(s, &s->join_depth, &p->join_rec, p->join_frames, &p->join_n, ORCA_EV_THREAD_JOIN, ORCA_EV_THREAD_JOINED, op, o);
}

JNIEXPORT void JNICALL Java_java_util_concurrent_Semaphore_orca_00024hook(JNIEnv *env, jclass c, jint op, jobject o) {
  (void)c;
  if (op == HOOK_BIND) return;
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
