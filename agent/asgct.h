// A faster own-thread stack walk: HotSpot's AsyncGetCallTrace (the walker
// profilers call from signal handlers) instead of JVMTI GetStackTrace, which
// builds a vframe object per frame. It matters where the walk runs while the
// thread owns a monitor (Object.notify): there its cost is other threads'
// blocking. It needs a jmethodID for every method on the stack, so each class
// gets its IDs when it is prepared; any failure falls back to GetStackTrace,
// so stacks stay exact.
#ifndef ORCA_ASGCT_H
#define ORCA_ASGCT_H
#include <jvmti.h>

// asgct_verify: ORCA_VERIFY_STACKS=1, for tests: every fast walk is checked
// against GetStackTrace (counted in .info).
extern int asgct_verify;

// asgct_init finds AsyncGetCallTrace; NULL or a warning (then unused).
const char *asgct_init(void);
// asgct_ready makes the jmethodIDs of the classes loaded so far (VMInit).
void asgct_ready(JNIEnv *env);
void JNICALL asgct_on_class_prepare(jvmtiEnv *j, JNIEnv *env, jthread t, jclass c);
void JNICALL asgct_on_class_load(jvmtiEnv *j, JNIEnv *env, jthread t, jclass c);
// asgct_walk fills fr with up to max frames of the calling thread after
// skipping `skip`; returns the count, or -1 when the caller must use
// GetStackTrace.
int asgct_walk(int skip, jvmtiFrameInfo *fr, int max);
#endif
