#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "methods.h"
#include "owner.h"
#include "threads.h"

static __thread tstate *self_state;
static atomic_int next_shard;

// A JVMTI thread-local marker: set once a thread has its ThreadStarted.
#define STARTED_MARK ((void *)1)

tstate *thread_self(jthread t) {
  tstate *s = self_state;
  if (s) return s;
  s = calloc(1, sizeof *s);
  if (!s) return NULL;
  jthread cur = t;
  if (!cur) (*jvmti)->GetCurrentThread(jvmti, &cur);
  jint h = 0;
  if (cur) (*jvmti)->GetObjectHashCode(jvmti, cur, &h);
  s->hash = (uint32_t)h;
  s->shard = atomic_fetch_add(&next_shard, 1);
  self_state = s;
  return s;
}

void emit(tstate *self, int kind, uint32_t object, uint32_t owner, const orca_frame *fr, int n) {
  ring_put(self->shard, kind, clock_now(), self->hash, object, owner, fr, n, NULL, 0);
}

// thread_name returns the thread's name as UTF-8 in buf.
static int thread_name(jthread t, char *buf, int cap) {
  jvmtiThreadInfo ti;
  memset(&ti, 0, sizeof ti);
  if ((*jvmti)->GetThreadInfo(jvmti, t, &ti) != JVMTI_ERROR_NONE || !ti.name) return 0;
  int n = (int)mutf8_to_utf8(ti.name, strlen(ti.name), buf, (size_t)cap);
  (*jvmti)->Deallocate(jvmti, (unsigned char *)ti.name);
  // The local references in ti are released when the callback returns.
  return n;
}

static void started(uint32_t hash, int shard, jthread t) {
  char name[1024];
  int n = thread_name(t, name, sizeof name);
  ring_put(shard, ORCA_EV_THREAD_STARTED, clock_now(), hash, 0, 0, NULL, 0, name, n);
}

void JNICALL threads_on_start(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j;
  if (!orca_recording()) return;
  tstate *s = thread_self(t);
  if (!s) return;
  owner_register_self(env, t, s->hash);
  // Before VMInit threads have no name yet (GetThreadInfo is a live-phase
  // function): threads_existing reports them at VMInit.
  jvmtiPhase ph = JVMTI_PHASE_LIVE;
  (*jvmti)->GetPhase(jvmti, &ph);
  if (ph != JVMTI_PHASE_LIVE) return;
  void *mark = NULL;
  (*jvmti)->GetThreadLocalStorage(jvmti, t, &mark);
  if (mark == STARTED_MARK) return;
  (*jvmti)->SetThreadLocalStorage(jvmti, t, STARTED_MARK);
  started(s->hash, s->shard, t);
}

void JNICALL threads_on_end(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j;
  (void)env;
  tstate *s = self_state;
  owner_unregister_self(env);
  void *mark = NULL;
  (*jvmti)->GetThreadLocalStorage(jvmti, t, &mark);
  // Only threads that have a ThreadStarted get a ThreadEnded.
  if (orca_recording() && mark == STARTED_MARK) {
    if (!s) s = thread_self(t);
    if (s) emit(s, ORCA_EV_THREAD_ENDED, 0, 0, NULL, 0);
  }
  if (self_state) {
    free(self_state);
    self_state = NULL;
  }
}

void threads_existing(JNIEnv *env) {
  jint n = 0;
  jthread *all = NULL;
  if ((*jvmti)->GetAllThreads(jvmti, &n, &all) != JVMTI_ERROR_NONE) return;
  jthread me = NULL;
  (*jvmti)->GetCurrentThread(jvmti, &me);
  for (int i = 0; i < n; i++) {
    void *mark = NULL;
    (*jvmti)->GetThreadLocalStorage(jvmti, all[i], &mark);
    if (mark == STARTED_MARK) continue;
    (*jvmti)->SetThreadLocalStorage(jvmti, all[i], STARTED_MARK);
    jint h = 0;
    (*jvmti)->GetObjectHashCode(jvmti, all[i], &h);
    if (me && (*env)->IsSameObject(env, me, all[i])) {
      tstate *s = thread_self(me);
      owner_register_self(env, me, s ? s->hash : (uint32_t)h);
    } else {
      owner_register_other(env, all[i], (uint32_t)h);
    }
    started((uint32_t)h, i, all[i]);
    (*env)->DeleteLocalRef(env, all[i]);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
}
