#include <string.h>
#include "hotspot/jclass.h"
#include "core/orca.h"

int jclass_is(jclass c, const char *sig) {
  char *s = NULL;
  if (!c || (*jvmti)->GetClassSignature(jvmti, c, &s, NULL) != JVMTI_ERROR_NONE || !s) return 0;
  int same = !strcmp(s, sig);
  (*jvmti)->Deallocate(jvmti, (unsigned char *)s);
  return same;
}

jclass jclass_up(JNIEnv *env, jclass c, const char *sig) {
  if (!c) return NULL;
  jclass cur = (*env)->NewLocalRef(env, c);
  while (cur && !jclass_is(cur, sig)) {
    jclass up = (*env)->GetSuperclass(env, cur);
    (*env)->DeleteLocalRef(env, cur);
    cur = up;
  }
  return cur;
}

jclass jclass_of(JNIEnv *env, jobject o, const char *sig) {
  if (!o) return NULL;
  jclass c = (*env)->GetObjectClass(env, o);
  jclass r = jclass_up(env, c, sig);
  (*env)->DeleteLocalRef(env, c);
  return r;
}
