// Thread.join and Semaphore.acquire/release are plain Java methods: we wrap
// them when their class is loaded (ClassFileLoadHook, classfile.c) so each
// call reports its entry and exit through a native hook. No breakpoints, no
// MethodEntry: the wrapped methods stay JIT-compiled.
#ifndef ORCA_INJECT_H
#define ORCA_INJECT_H
#include <jvmti.h>
void JNICALL inject_on_class_file_load(jvmtiEnv *j, JNIEnv *env, jclass redefined, jobject loader, const char *name,
                                       jobject pd, jint len, const unsigned char *data, jint *new_len,
                                       unsigned char **new_data);
#endif
