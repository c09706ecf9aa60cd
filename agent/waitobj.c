#include <stdlib.h>
#include "objhash.h"
#include "orca.h"
#include "waitobj.h"

// Up to JDK 18, JVMTI's GetCurrentContendedMonitor names the object of a
// thread in Object.wait. From 19 it names it only once the thread re-enters
// the monitor (the spec's "waiting to regain"), so there the object comes
// from java.lang.management: ThreadInfo.getLockInfo of a thread in
// Object.wait is its object, with its identity hash. One call for all the
// threads: a VM operation (a safepoint) per walker round that has waits
// older than a flush period still unnamed, each wait named once.

static jobject bean;   // ThreadMXBean (global reference)
static jmethodID get_infos, get_lock, get_hash, get_id;
static int mx_state;   // 0 untried, 1 ready, -1 unavailable

static int clear(JNIEnv *env) {
  if (!(*env)->ExceptionCheck(env)) return 0;
  (*env)->ExceptionClear(env);
  return 1;
}

static int mx_init(JNIEnv *env) {
  if (mx_state) return mx_state > 0;
  mx_state = -1;
  jclass mf = (*env)->FindClass(env, "java/lang/management/ManagementFactory");
  jclass mx = mf ? (*env)->FindClass(env, "java/lang/management/ThreadMXBean") : NULL;
  jclass ti = mx ? (*env)->FindClass(env, "java/lang/management/ThreadInfo") : NULL;
  jclass li = ti ? (*env)->FindClass(env, "java/lang/management/LockInfo") : NULL;
  jclass th = li ? (*env)->FindClass(env, "java/lang/Thread") : NULL;
  if (clear(env) || !th) return 0;
  jmethodID get_bean = (*env)->GetStaticMethodID(env, mf, "getThreadMXBean", "()Ljava/lang/management/ThreadMXBean;");
  get_infos = (*env)->GetMethodID(env, mx, "getThreadInfo", "([JI)[Ljava/lang/management/ThreadInfo;");
  get_lock = (*env)->GetMethodID(env, ti, "getLockInfo", "()Ljava/lang/management/LockInfo;");
  get_hash = (*env)->GetMethodID(env, li, "getIdentityHashCode", "()I");
  get_id = (*env)->GetMethodID(env, th, "getId", "()J");
  if (clear(env) || !get_bean || !get_infos || !get_lock || !get_hash || !get_id) return 0;
  jobject b = (*env)->CallStaticObjectMethod(env, mf, get_bean);
  if (clear(env) || !b || !(bean = (*env)->NewGlobalRef(env, b))) return 0;
  mx_state = 1;
  return 1;
}

static void by_management(JNIEnv *env, jthread *threads, uint32_t *out, int n) {
  if ((*env)->PushLocalFrame(env, 16) != 0) {
    clear(env);
    return;
  }
  jlong *buf = malloc(sizeof(jlong) * (size_t)n);
  int *at = malloc(sizeof(int) * (size_t)n), k = 0;
  for (int i = 0; buf && at && i < n; i++) {
    if (out[i] || !threads[i]) continue;
    buf[k] = (*env)->CallLongMethod(env, threads[i], get_id);
    if (clear(env)) continue;
    at[k++] = i;
  }
  jlongArray ids = k ? (*env)->NewLongArray(env, k) : NULL;
  if (ids) {
    (*env)->SetLongArrayRegion(env, ids, 0, k, buf);
    jobjectArray infos = (*env)->CallObjectMethod(env, bean, get_infos, ids, 0);
    for (int j = 0; !clear(env) && infos && j < k; j++) {
      jobject info = (*env)->GetObjectArrayElement(env, infos, j);
      jobject lock = info ? (*env)->CallObjectMethod(env, info, get_lock) : NULL;
      if (lock && !(*env)->ExceptionCheck(env)) out[at[j]] = (uint32_t)(*env)->CallIntMethod(env, lock, get_hash);
      clear(env);
      (*env)->DeleteLocalRef(env, lock);
      (*env)->DeleteLocalRef(env, info);
    }
  }
  free(buf);
  free(at);
  clear(env);
  (*env)->PopLocalFrame(env, NULL);
}

void waitobj_hashes(JNIEnv *env, jthread *threads, uint32_t *out, int n) {
  int unnamed = 0;
  for (int i = 0; i < n; i++) {
    jobject m = NULL;
    out[i] = 0;
    if (threads[i] && (*jvmti)->GetCurrentContendedMonitor(jvmti, threads[i], &m) == JVMTI_ERROR_NONE && m) {
      out[i] = objhash_of(m);
      (*env)->DeleteLocalRef(env, m);
    }
    unnamed += !out[i];
  }
  if (unnamed && orca_feature >= 19 && mx_init(env)) by_management(env, threads, out, n);
}
