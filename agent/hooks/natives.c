#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include "core/counters.h"
#include "core/clock.h"
#include "stacks/methods.h"
#include "stacks/objclass.h"
#include "hotspot/objhash.h"
#include "hooks/natives.h"
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

static void record(JNIEnv *env, int kind, jobject o) {
  tstate *s = thread_of(env, NULL, kind);
  if (!s) return;
  orca_frame fr[ORCA_MAX_DEPTH];
  int64_t ts = clock_now();
  int n = stack_capture_own(env, 0, fr, opt.depth);
  uint32_t h = objhash_of(o);
  // The notified object's class, so that an object only ever notified is
  // named too (issue 20: "never waited on, 5 notifyAlls" had no class).
  // Under the monitor, but once per object: a table lookup after the first
  // (objclass.h), and a new object of a known class costs no JVMTI call
  // but its class's hash.
  if (kind != ORCA_EV_THREAD_START) objclass_write(env, s->shard, s->hash, ts, o, h);
  ring_put(s->shard, kind, ts, s->hash, h, 0, fr, n, NULL, 0);
}

static void JNICALL my_notify(JNIEnv *env, jobject o) {
  if (orca_recording()) record(env, ORCA_EV_OBJECT_NOTIFY, o);
  orig_notify(env, o);
}

static void JNICALL my_notify_all(JNIEnv *env, jobject o) {
  if (orca_recording()) record(env, ORCA_EV_OBJECT_NOTIFY_ALL, o);
  orig_notify_all(env, o);
}

static void JNICALL my_start0(JNIEnv *env, jobject thread) {
  if (orca_recording()) record(env, ORCA_EV_THREAD_START, thread);
  orig_start0(env, thread);
}

static void JNICALL my_sleep(JNIEnv *env, jclass c, jlong t) {
  // A virtual thread's sleep parks and does not come here (JDK 21+); if one
  // does, both ends are counted as unattributed.
  tstate *s = orca_recording() ? thread_self(NULL) : NULL;
  int virt = s && thread_virtual(env, s, NULL);
  if (virt) {
    s = NULL;
    vthread_unattributed(ORCA_EV_THREAD_SLEEP);
  }
  orca_frame fr[ORCA_MAX_DEPTH];
  int n = 0;
  if (s) {
    // Timed after the walk: the interval is the sleep, not the agent's work
    // before it (JFR times the same span).
    n = stack_capture(NULL, 0, fr, opt.depth);
    ring_put(s->shard, ORCA_EV_THREAD_SLEEP, clock_now(), s->hash, 0, 0, fr, n, NULL, 0);
  }
  orig_sleep(env, c, t);
  // Interrupted or not, the sleep is over: close the pair.
  if (s && orca_recording()) emit(s, ORCA_EV_THREAD_SLEPT, 0, 0, fr, n);
  if (virt) vthread_unattributed(ORCA_EV_THREAD_SLEPT);
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
  if (addr == h->repl) return;
  *h->orig = addr;
  *new_addr = h->repl;
  h->bound = 1;
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
    for (int i = 0; i < NHOOKS; i++)
      if (!hooks[i].bound && !strcmp(di.dli_sname, hooks[i].jvm_symbol)) { bind(&hooks[i], addr, new_addr); break; }
    return;
  }
  if (strcmp(name, "notify") && strcmp(name, "notifyAll") && strcmp(name, "start0") && strncmp(name, "sleep", 5) &&
      strncmp(name, "wait", 4) && strcmp(name, "park") && strcmp(name, "unpark"))
    goto out;
  if ((*j)->GetMethodDeclaringClass(j, m, &cls) != JVMTI_ERROR_NONE ||
      (*j)->GetClassSignature(j, cls, &csig, NULL) != JVMTI_ERROR_NONE)
    goto out;
  for (int i = 0; i < nbinders; i++)
    if (binders[i](csig, name, sig, addr, new_addr)) goto out;
  for (int i = 0; i < NHOOKS; i++)
    if (!strcmp(csig, hooks[i].cls) && !strcmp(name, hooks[i].name) && !strcmp(sig, hooks[i].sig))
      bind(&hooks[i], addr, new_addr);
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
