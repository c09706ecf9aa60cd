// Thread.join and Semaphore.acquire/release are plain Java methods: we wrap
// them when their class is loaded (ClassFileLoadHook, classfile.c) so each
// call reports its entry and exit through a native hook. No breakpoints, no
// MethodEntry: the wrapped methods stay JIT-compiled.
#ifndef ORCA_INJECT_H
#define ORCA_INJECT_H
#include <jvmti.h>
#include "core/orca.h"
#include "hooks/classfile.h"
#include "record/ring.h"

// A thread's part: the depth suppresses nested overloads (join() calls
// join(0)) and the stacks saved at the start of a pair are reused at its
// end (the thread has not moved).
typedef struct inject_tstate {
  int sem_depth;    // >0 inside a Semaphore acquire: nested calls suppressed
  int join_n, sem_n;
  orca_frame join_frames[ORCA_MAX_DEPTH];
  orca_frame sem_frames[ORCA_MAX_DEPTH];
} inject_tstate;

// The depth of Thread.join calls is the thread's own (threads.h:
// join_depth), read by the monitor module.
// inject_add wraps the methods specs gives of the boot class class_name
// too (one class: java/lang/VirtualThread's, the park module's), registered
// by the jvm module before the class loads.
void inject_add(const char *class_name, const wrap_spec *(*specs)(int *n));
void JNICALL inject_on_class_file_load(jvmtiEnv *j, JNIEnv *env, jclass redefined, jobject loader, const char *name,
                                       jobject pd, jint len, const unsigned char *data, jint *new_len,
                                       unsigned char **new_data);
#endif
