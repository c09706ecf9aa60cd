// The native half of HeldJNI.java (integration/held_jni_test.go compiles it with gcc): jniNest
// enters `first` through JNI's MonitorEnter, calls HeldJNI.inner(second) (a Java method that
// enters `second` with synchronized), and leaves `first` through MonitorExit.
#include <jni.h>

JNIEXPORT void JNICALL Java_HeldJNI_jniNest(JNIEnv *env, jclass c, jobject first, jobject second) {
  if ((*env)->MonitorEnter(env, first) != JNI_OK) return;
  jmethodID inner = (*env)->GetStaticMethodID(env, c, "inner", "(Ljava/lang/Object;)V");
  if (inner) (*env)->CallStaticVoidMethod(env, c, inner, second);
  (*env)->MonitorExit(env, first);
}
