// Own-thread stack walks, fastest first: the agent's own walker on JDK
// 11-18 and 25 (walk.c), HotSpot's AsyncGetCallTrace (the walker profilers call
// from signal handlers), and the caller falls back to JVMTI GetStackTrace,
// which builds a vframe object per frame. It matters where the walk runs
// while other threads wait: under a monitor (Object.notify) and at a
// contended enter. AsyncGetCallTrace and the own walker need a jmethodID
// for every method on the stack, so each class gets its IDs when it is
// prepared (an attach: at the first GetStackTrace of a stack it is on, below);
// any failure falls back, so stacks stay exact.
#ifndef ORCA_ASGCT_H
#define ORCA_ASGCT_H
#include <jvmti.h>
#include <stdatomic.h>

// asgct_verify: ORCA_VERIFY_STACKS=1, for tests: every fast walk is checked
// against GetStackTrace (counted in .info).
extern int asgct_verify;

// asgct_init finds AsyncGetCallTrace; NULL or a warning (then unused).
const char *asgct_init(void);
// asgct_ready lets the fast walks run; with loaded (VMInit) it first makes
// the jmethodIDs of the classes loaded so far, and gives the number of
// classes whose methods it asked for. An attach passes 0: a loaded server
// has thousands of classes (2 900 in Tomcat: 6-48 ms of the Attach
// Listener's time on two busy cores, at every attach), and few of their
// methods are ever on a recorded stack. A walk that meets a method without
// a jmethodID falls back to GetStackTrace, which makes the IDs of that
// stack's methods: one slow walk per new stack (own_stacks_by_jvmti).
int asgct_ready(JNIEnv *env, int loaded);
void JNICALL asgct_on_class_prepare(jvmtiEnv *j, JNIEnv *env, jthread t, jclass c);
void JNICALL asgct_on_class_load(jvmtiEnv *j, JNIEnv *env, jthread t, jclass c);
// asgct_ready_now: asgct_ready ran (the jmethodIDs it makes are made): the
// fast walks may run (stacks/methods.c: the own walker, then this one).
// Inline: every stack taken asks.
extern atomic_int asgct_ready_flag;
static inline int asgct_ready_now(void) { return atomic_load_explicit(&asgct_ready_flag, memory_order_relaxed); }
// asgct_walk fills fr with up to max frames of the calling thread (env's)
// after skipping `skip`, with AsyncGetCallTrace where it is exact; returns
// the count, or -1 when the caller must use GetStackTrace.
int asgct_walk(JNIEnv *env, int skip, jvmtiFrameInfo *fr, int max);
// asgct_sample: AsyncGetCallTrace of the calling thread (env) from a
// signal handler's ucontext, up to max frames (at most ASGCT_SAMPLE_MAX):
// the count, or why not: AsyncGetCallTrace's own negative codes (-2 a
// collection runs, -7 an unknown state, -8 the thread exits, -10 at a
// safepoint: the thread's state; the others: the walk), ASGCT_SAMPLE_OFF
// (not found, or not ready) or ASGCT_SAMPLE_NO_ID (a frame's method has no
// jmethodID). The samplers' way into Java code that has no frame anchor.
enum { ASGCT_UNKNOWN_JAVA = -5, ASGCT_NOT_WALKABLE_JAVA = -6 };   // two of its failures
enum { ASGCT_SAMPLE_MAX = 128, ASGCT_SAMPLE_OFF = -100, ASGCT_SAMPLE_NO_ID = -101 };
int asgct_sample(JNIEnv *env, void *ucontext, jvmtiFrameInfo *fr, int max);
#endif
