// Classes without Java code. JNI FindClass resolves a name through the
// class loader of the calling Java frame, or the application's class
// loader when there is none (a JVMTI callback of a thread without Java
// frames, an agent thread), and that loader's loadClass is Java code: run
// by an application thread inside an agent callback it takes the loader's
// class-loading locks (contention the program never made, and a second
// MonitorContendedEnter nested in the agent's own callback), and it loads
// classes the program never loads (CarrierThread on JDK 21+). So the agent
// calls FindClass only in the wrapper of a native method of a boot class
// (Unsafe.park: park.c), where it resolves through the boot loader, which
// runs no Java code; elsewhere it takes classes from objects it holds
// (GetObjectClass, GetSuperclass) and from the classes the VM has loaded
// (GetLoadedClasses, ClassPrepare: vthread.c).
#ifndef ORCA_JCLASS_H
#define ORCA_JCLASS_H
#include <jni.h>

// jclass_up returns c or its nearest superclass whose signature is sig
// ("Ljava/lang/Thread;"), a new local reference, or NULL; c is not deleted.
jclass jclass_up(JNIEnv *env, jclass c, const char *sig);
// jclass_of returns the class sig among o's class and its superclasses
// (a new local reference), or NULL.
jclass jclass_of(JNIEnv *env, jobject o, const char *sig);
// jclass_is tells whether c's signature is sig.
int jclass_is(jclass c, const char *sig);
#endif
