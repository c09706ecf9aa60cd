// JDK 17's AsyncGetCallTrace cannot walk a thread whose top frame is one of
// the compiled code's monitor-enter stubs (C1's "monitorenter" Runtime1
// stub, C2's _complete_monitor_locking_Java): they are built "frame never
// safe", so every contended enter from compiled code fell back to
// GetStackTrace (2 us for LockBench's one frame, 12 us for H2's 16, taken
// while other threads wait: orca's main cost there). JDK 20 walks them
// (JDK-8178287). Where it does not, this file
//  - marks the stub's frame complete from its call's return address on (the
//    frame is built there: the VM walks it from that pc for GC), so
//    AsyncGetCallTrace walks past it;
//  - decodes the stub's caller itself: AsyncGetCallTrace describes the
//    first compiled frame it finds by the debug record *after* its pc (it
//    assumes a sampled pc), one bytecode or inlined call off; the frames
//    GetStackTrace gives come from the record *at* the return address.
// Only JDK 11-19 (the debug-info encoding differs later); any surprise
// returns -1 and the caller walks with GetStackTrace.
#ifndef ORCA_STUBS_H
#define ORCA_STUBS_H
#include <jvmti.h>

// stubs_init finds the VM structures it needs.
void stubs_init(void);
// stubs_fix is called when AsyncGetCallTrace could not walk the calling
// thread: returns 1 if its top frame is one of those stubs, now walkable.
int stubs_fix(JNIEnv *env);
// stubs_caller: if the calling thread's top frame is a walkable stub,
// writes the exact frames of the compiled method that called it (inlined
// callees first) to fr (at most max), sets *asgct_n to the number of frames
// AsyncGetCallTrace gives for that same compiled frame, and returns the
// count; 0 when the top frame is not such a stub; -1 when it cannot tell.
int stubs_caller(JNIEnv *env, jvmtiFrameInfo *fr, int max, int *asgct_n);
// stubs_fixed counts the stubs marked (PREFIX.info).
extern int stubs_fixed;
#endif
