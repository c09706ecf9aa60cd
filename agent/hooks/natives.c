#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include "core/counters.h"
#include "core/clock.h"
#include "stacks/methods.h"
#include "stacks/objclass.h"
#include "hotspot/objhash.h"
#include "hotspot/vmstructs.h"
#include "hooks/natives.h"
#include "threads/samples.h"
#include "threads/threads.h"
#include "hotspot/vthread.h"

typedef void(JNICALL *void_obj_fn)(JNIEnv *, jobject);
typedef void(JNICALL *sleep_fn)(JNIEnv *, jclass, jlong);

static void_obj_fn orig_notify, orig_notify_all, orig_start0;

static sleep_fn orig_sleep;

#define MAX_BINDERS 4
static natives_binder binders[MAX_BINDERS];
static void (*reports[MAX_BINDERS])(void);
static int nbinders;

void natives_add(natives_binder bind, void (*report)(void)) {
  if (nbinders == MAX_BINDERS) return;
  binders[nbinders] = bind;
  reports[nbinders++] = report;
}

// A test aid (ORCA_TEST_SLOW_NOTIFY_MS): a notify's stack walk as slow as
// one the OS preempts for that long (TestLateNotify).
static void test_slow_notify(void) {
  struct timespec d = {switches.test_slow_notify_ms / 1000, (long)(switches.test_slow_notify_ms % 1000) * 1000000};
  while (nanosleep(&d, &d) && errno == EINTR) {   // the samplers' signals
  }
}

static void record(JNIEnv *env, int kind, jobject o) {
  event e;
  tstate *s = event_begin(&e, env, NULL, kind, EV_OWN);
  if (!s) return;
  orca_frame fr[ORCA_MAX_DEPTH];
  int n = stack_capture_own(env, 0, fr, opt.depth);
  if (switches.test_slow_notify_ms && kind != ORCA_EV_THREAD_START) test_slow_notify();
  uint32_t h = objhash_of(o);
  if (kind == ORCA_EV_THREAD_START) h = thread_key_new(env, o, h);   // the new thread, first seen
  // Timed after the walk, just before the call: a notify is at the
  // instant it moves the waiters, as near as the agent can see it. Timed
  // before the walk (until 2026-12-02), a notify the OS preempted in the
  // walk was recorded before the timed-out Waited of a thread that had
  // left the wait set before the notify ran, and the model took the wait
  // for notified: 26 of 14 940 waits on Tomcat 25 that JFR (HotSpot's
  // notifier) says timed out (docs/agent.md, "How a wait ended").
  int64_t ts = clock_now();
  // The notified object's class, so that an object only ever notified is
  // named too (issue 20: "never waited on, 5 notifyAlls" had no class).
  // Under the monitor, but once per object: a table lookup after the first
  // (objclass.h), and a new object of a known class costs no JVMTI call
  // but its class's hash.
  if (kind != ORCA_EV_THREAD_START) objclass_write(env, s->shard, s->hash, ts, o, h);
  ring_put(s->shard, kind, ts, s->hash, h, 0, fr, n, NULL, 0);
}

static void JNICALL my_notify(JNIEnv *env, jobject o) {
  record(env, ORCA_EV_OBJECT_NOTIFY, o);
  orig_notify(env, o);
}

static void JNICALL my_notify_all(JNIEnv *env, jobject o) {
  record(env, ORCA_EV_OBJECT_NOTIFY_ALL, o);
  orig_notify_all(env, o);
}

static void JNICALL my_start0(JNIEnv *env, jobject thread) {
  record(env, ORCA_EV_THREAD_START, thread);
  orig_start0(env, thread);
}

static void JNICALL my_sleep(JNIEnv *env, jclass c, jlong t) {
  // A virtual thread's sleep parks and does not come here (JDK 21+); if one
  // does, both ends are counted as unattributed.
  event e;
  tstate *s = event_begin(&e, env, NULL, ORCA_EV_THREAD_SLEEP, EV_PLATFORM | EV_OWN | EV_PAIRED);
  if (e.virt) vthread_unattributed(ORCA_EV_THREAD_SLEEP);
  orca_frame fr[ORCA_MAX_DEPTH];
  int n = 0;
  if (s) {
    // Timed after the walk: the interval is the sleep, not the agent's work
    // before it (JFR times the same span).
    n = stack_capture(NULL, 0, fr, opt.depth);
    ring_put(s->shard, ORCA_EV_THREAD_SLEEP, clock_now(), s->hash, 0, 0, fr, n, NULL, 0);
  }
  void *mark = samples_blocking();   // asleep: the wall sampler's ticks skip it
  orig_sleep(env, c, t);
  samples_unblocked(mark);
  // Interrupted or not, the sleep is over: close the pair (begun in this
  // recording; one begun before an attach is ended by threads/attached.c).
  if (s && event_end(&e)) ring_put(s->shard, ORCA_EV_THREAD_SLEPT, e.ts, s->hash, 0, 0, fr, n, NULL, 0);
  if (e.virt) vthread_unattributed(ORCA_EV_THREAD_SLEPT);
}

typedef struct {
  const char *cls, *name, *sig;
  const char *jvm_symbol;   // the VM function bound to it, for the primordial phase
  void **orig;
  void *repl;
  int bound;
} hook_t;

static hook_t hooks[] = {
    {"Ljava/lang/Object;", "notify", "()V", "JVM_MonitorNotify", (void **)&orig_notify, (void *)my_notify, 0},
    {"Ljava/lang/Object;", "notifyAll", "()V", "JVM_MonitorNotifyAll", (void **)&orig_notify_all, (void *)my_notify_all, 0},
    {"Ljava/lang/Thread;", "start0", "()V", "JVM_StartThread", (void **)&orig_start0, (void *)my_start0, 0},
    {"Ljava/lang/Thread;", "sleep", "(J)V", "JVM_Sleep", (void **)&orig_sleep, (void *)my_sleep, 0},            // 17
    {"Ljava/lang/Thread;", "sleep0", "(J)V", "JVM_Sleep", (void **)&orig_sleep, (void *)my_sleep, 0},           // 19-21
    {"Ljava/lang/Thread;", "sleepNanos0", "(J)V", "JVM_SleepNanos", (void **)&orig_sleep, (void *)my_sleep, 0}, // 22+
};
#define NHOOKS (int)(sizeof hooks / sizeof hooks[0])

static void bind(hook_t *h, void *addr, void **new_addr) {
  if (addr == h->repl) {   // wrapped already (by an earlier recording): intercepted
    h->bound = 1;
    return;
  }
  *h->orig = addr;
  *new_addr = h->repl;
  h->bound = 1;
}

// The natives wrapped, by name: what an attach found bound and rebound
// (natives_live), or a bind seen by natives_on_bind; natives_restore binds
// them back to the JVM's functions when a recording stops.
typedef struct {
  const char *cls, *name, *sig;
  int is_static;
  void *orig, *wrapper;   // wrapper: 0 while not wrapped by name
} named_t;
static named_t named[] = {
    {"java/lang/Object", "wait", "(J)V", 0, 0, 0},           // 17-20
    {"java/lang/Object", "wait0", "(J)V", 0, 0, 0},          // 21+
    {"java/lang/Object", "notify", "()V", 0, 0, 0},
    {"java/lang/Object", "notifyAll", "()V", 0, 0, 0},
    {"java/lang/Thread", "start0", "()V", 0, 0, 0},
    {"java/lang/Thread", "sleep", "(J)V", 1, 0, 0},          // 17
    {"java/lang/Thread", "sleep0", "(J)V", 1, 0, 0},         // 19-21
    {"java/lang/Thread", "sleepNanos0", "(J)V", 1, 0, 0},    // 22+
    {"jdk/internal/misc/Unsafe", "park", "(ZJ)V", 0, 0, 0},
    {"jdk/internal/misc/Unsafe", "unpark", "(Ljava/lang/Object;)V", 0, 0, 0},
};
#define NNAMED (int)(sizeof named / sizeof named[0])

// wrap asks the binders and the hooks for the wrapper of a native of class
// csig bound to addr; NULL when it is not one of theirs or wrapped already.
static void *wrap(const char *csig, const char *name, const char *sig, void *addr) {
  void *repl = addr;
  for (int i = 0; i < nbinders; i++)
    if (binders[i](csig, name, sig, addr, &repl)) return repl != addr ? repl : NULL;
  for (int i = 0; i < NHOOKS; i++)
    if (!strcmp(csig, hooks[i].cls) && !strcmp(name, hooks[i].name) && !strcmp(sig, hooks[i].sig)) bind(&hooks[i], addr, &repl);
  return repl != addr ? repl : NULL;
}

static void note(const char *csig, const char *name, const char *sig, void *orig, void *wrapper) {
  for (int i = 0; i < NNAMED; i++) {
    named_t *n = &named[i];
    if (!strcmp(n->name, name) && !strcmp(n->sig, sig) && !strncmp(csig + 1, n->cls, strlen(n->cls)) && csig[strlen(n->cls) + 1] == ';') {
      n->orig = orig;
      n->wrapper = wrapper;
    }
  }
}

static jclass find(JNIEnv *env, const char *cls) {
  jclass c = (*env)->FindClass(env, cls);
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), c = NULL;
  return c;
}

// A native not linked yet is bound to HotSpot's stub that throws
// UnsatisfiedLinkError, in the code cache: wrapping it would keep the JVM
// from ever linking the real one. A native's function is in a library.
static int linked(void *addr) {
  Dl_info di;
  return addr && dladdr(addr, &di) && di.dli_fname;
}

int natives_live(JNIEnv *env) {
  int n = 0;
  for (int i = 0; i < NNAMED; i++) {
    named_t *h = &named[i];
    jclass c = find(env, h->cls);
    if (!c) continue;
    jmethodID m = h->is_static ? (*env)->GetStaticMethodID(env, c, h->name, h->sig) : (*env)->GetMethodID(env, c, h->name, h->sig);
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), m = NULL;
    void *addr = m ? hs_native_function(m) : NULL;
    char csig[80];
    snprintf(csig, sizeof csig, "L%s;", h->cls);
    void *repl = linked(addr) ? wrap(csig, h->name, h->sig, addr) : NULL;
    if (repl) {
      JNINativeMethod nm = {(char *)h->name, (char *)h->sig, repl};
      // Also makes the compiled callers' native wrappers not entrant: they
      // call the new function from their next call.
      if ((*env)->RegisterNatives(env, c, &nm, 1) == 0) {
        h->orig = addr;
        h->wrapper = repl;
        n++;
      }
      if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    }
    (*env)->DeleteLocalRef(env, c);
  }
  return n;
}

void natives_restore(JNIEnv *env) {
  for (int i = 0; i < NNAMED; i++) {
    named_t *h = &named[i];
    if (!h->wrapper) continue;
    jclass c = find(env, h->cls);
    JNINativeMethod nm = {(char *)h->name, (char *)h->sig, h->orig};
    if (c && (*env)->RegisterNatives(env, c, &nm, 1) == 0) h->wrapper = NULL;
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    if (c) (*env)->DeleteLocalRef(env, c);
  }
  for (int i = 0; i < NHOOKS; i++) hooks[i].bound = 0;
}

void JNICALL natives_on_bind(jvmtiEnv *j, JNIEnv *env, jthread t, jmethodID m, void *addr, void **new_addr) {
  (void)env; (void)t;
  char *name = NULL, *sig = NULL, *csig = NULL;
  jclass cls = NULL;
  if ((*j)->GetMethodName(j, m, &name, &sig, NULL) != JVMTI_ERROR_NONE) {
    // Primordial phase: methods cannot be named yet; match the VM entry
    // point the native is bound to instead.
    Dl_info di;
    if (!dladdr(addr, &di) || !di.dli_sname) return;
    for (int i = 0; i < nbinders; i++)
      if (binders[i](NULL, di.dli_sname, NULL, addr, new_addr)) return;
    // Noted by name too, so that a stop binds it back (natives_restore).
    for (int i = 0; i < NHOOKS; i++)
      if (!hooks[i].bound && !strcmp(di.dli_sname, hooks[i].jvm_symbol)) {
        bind(&hooks[i], addr, new_addr);
        if (*new_addr == hooks[i].repl) note(hooks[i].cls, hooks[i].name, hooks[i].sig, addr, hooks[i].repl);
        break;
      }
    return;
  }
  if (strcmp(name, "notify") && strcmp(name, "notifyAll") && strcmp(name, "start0") && strncmp(name, "sleep", 5) &&
      strncmp(name, "wait", 4) && strcmp(name, "park") && strcmp(name, "unpark"))
    goto out;
  if ((*j)->GetMethodDeclaringClass(j, m, &cls) != JVMTI_ERROR_NONE ||
      (*j)->GetClassSignature(j, cls, &csig, NULL) != JVMTI_ERROR_NONE)
    goto out;
  {
    void *repl = wrap(csig, name, sig, addr);
    if (repl) {
      *new_addr = repl;
      note(csig, name, sig, addr, repl);
    }
  }
out:
  if (name) (*j)->Deallocate(j, (unsigned char *)name);
  if (sig) (*j)->Deallocate(j, (unsigned char *)sig);
  if (csig) (*j)->Deallocate(j, (unsigned char *)csig);
}

void natives_report(void) {
  int sleep_bound = 0;
  for (int i = 0; i < NHOOKS; i++)
    if (hooks[i].bound && hooks[i].orig == (void **)&orig_sleep) sleep_bound = 1;
  for (int i = 0; i < 3; i++)
    if (!hooks[i].bound) {
      char msg[256];
      snprintf(msg, sizeof msg, "%s.%s is not intercepted yet; its events may be missing", hooks[i].cls, hooks[i].name);
      counters_prop(ORCA_INFO_WARNING, msg);
    }
  if (!sleep_bound) counters_prop(ORCA_INFO_WARNING, "Thread.sleep is not intercepted yet; sleeps may be missing");
  for (int i = 0; i < nbinders; i++)
    if (reports[i]) reports[i]();
}
