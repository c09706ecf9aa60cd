// Own-thread stack walk for JDK 11-18 and 25 on x86-64, from HotSpot's frame
// layout (vmstructs.c), for the calls the agent makes from Java threads
// at well-defined points: JVMTI callbacks and native-method wrappers.
// There every frame is complete, so the walk needs none of the guessing a
// sampling profiler's does: the frame anchor, then per frame its code blob
// (interpreter: Method and bcp in the frame; compiled: the debug record at
// the return address, with inlined methods; stub: its frame size) and the
// next one, through calls from native code back into Java. The samplers'
// walk (walk_sample) also starts inside Java code, at a signal's pc: there
// the innermost compiled frame may be in its prolog or epilog (decoded
// from its instructions) and its debug record is the one at or after the
// pc (walk.c, walk_context; docs/agent.md, "The sample path").
// Why: JDK 17's AsyncGetCallTrace cannot start at the monitor-enter stubs
// of compiled code (GetStackTrace then: 2-12 us with other threads
// waiting) and costs ~0.7 us for two frames in Object.notifyAll, under the
// monitor; JDK 25's returns -4 (not walkable) at every contended enter from
// compiled code. Anything unexpected gives up: the caller falls back to
// GetStackTrace on 11-18 (their AsyncGetCallTrace is not exact), to
// AsyncGetCallTrace on 25 (virtual threads). ORCA_VERIFY_STACKS=1 checks
// every walk against GetStackTrace (all integration tests run so; =2 also
// prints the stacks that differ).
#ifndef ORCA_WALK_H
#define ORCA_WALK_H
#include <jvmti.h>
#include <stdatomic.h>
#include "hotspot/safe.h"

// walk_init finds the VM structures (JDK 11-18 and 25; else the walk is off).
void walk_init(void);
// walk_self fills fr with up to max frames of the calling thread after
// skipping `skip`; returns the count, WALK_UNUSED when the walker does not
// run on this JVM, or WALK_CANNOT when it met a frame it does not know.
enum { WALK_UNUSED = -1, WALK_CANNOT = -2, WALK_CHUNK = -3 };
int walk_self(JNIEnv *env, int skip, jvmtiFrameInfo *fr, int max);
// walk_sample walks the calling thread's stack in a signal handler (the
// samplers, issue 33): jt its JavaThread, tid its OS thread id, ctx its
// interrupted pc, sp, fp and r13 (the interpreter's bytecode pointer). Sets *vhash to the identity hash of the
// virtual thread it runs (0: none). Fills pcs with up to maxpcs native and
// VM frames (the interrupted pc first) and fr with up to max Java frames;
// returns the Java frames' count, WALK_IN_JAVA when the thread runs Java
// code with no frame anchor where the walk from the context cannot go
// (walk.c, walk_context: a stub, code it does not decode), or a virtual
// thread (the caller asks
// AsyncGetCallTrace, from ctx, which is moved to where the Java code was
// reached), WALK_VIRTUAL (it runs a virtual thread whose hash it cannot
// read), WALK_CANNOT or WALK_UNUSED. Reads only, under one guard kept by
// thread id (safe_try_tid): it touches no thread-local of this library.
enum { WALK_IN_JAVA = -3, WALK_VIRTUAL = -4 };
int walk_sample(vm_ptr jt, int tid, uintptr_t *ctx, uint32_t *vhash, uintptr_t *pcs, int *npcs, int maxpcs, jvmtiFrameInfo *fr,
                int max);
// walk_unwind moves ctx (pc, sp, fp) of a thread in Java code to the
// caller of the code at pc, by candidate `which` (0-3, walk.c
// unwind_step), for another try of AsyncGetCallTrace where its first
// failed (a compiled method's prolog or epilog, a stub); 1 when moved, and
// *top is the method whose frame was stepped over (NULL: a stub's).
// Under the same guard as walk_sample.
enum { WALK_UNWIND_TRIES = 4 };
int walk_unwind(vm_ptr jt, int tid, uintptr_t *ctx, int which, jmethodID *top);
// walk_held lists the monitors the calling thread holds (issue 36 item 2;
// docs/agent.md, "Held monitors"), from its frames, as JVMTI's
// GetOwnedMonitorStackDepthInfo does but without a JVMTI call: an
// interpreter frame's monitor block, a compiled frame's debug record (its
// scopes' monitors), each monitor once at its first frame from the top,
// all but `wanted` (the object being entered: its oop). Up to max in out:
// the object's address, the frame's depth, the identity hash from the
// object's header (0: not hashed yet). The count, or WALK_UNUSED /
// WALK_CANNOT (a frame or a monitor it does not read: a constant's, a
// narrow oop's, a synchronized native wrapper's). Monitors entered through
// JNI are not in any frame: not listed. virt: the calling thread is a
// mounted virtual thread: its frames are read down to its continuation's
// entry, and WALK_CHUNK when some are still in its stack chunk (HotSpot
// thaws lazily: docs/agent.md, "Held monitors"). walk_held_init (VMInit)
// says whether it can run.
typedef struct {
  uintptr_t oop;
  int depth;
  uint32_t hash;
} walk_held_t;
void walk_held_init(void);
int walk_held(JNIEnv *env, uintptr_t wanted, int virt, walk_held_t *out, int max);
// walk_status says whether the walker runs, and why not: "yes" or "no: WHY"
// (.info hotspot.walker).
const char *walk_status(void);
// Walks ended by a fault are counted in CNT_HOTSPOT_WALK_FAULTS (counters.h;
// 0 unless a layout is described wrongly, or ORCA_TEST_WALK_FAULT).
#endif
