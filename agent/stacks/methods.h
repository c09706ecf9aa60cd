// Method and class metadata: compact method IDs for jmethodIDs, and the
// .methods / .classtable lines, written the first time a method is seen on
// a stack (while its class is surely loaded).
#ifndef ORCA_METHODS_H
#define ORCA_METHODS_H
#include <jvmti.h>
#include <stddef.h>
#include "record/ring.h"

const char *methods_init(void);
// The lines of .methods (META_METHODS) and .classtable (META_CLASSES) not
// written yet: methods_take hands them to the writer (free them; NULL when
// none).
char *methods_take(int which, size_t *len);
// methods_describe names the methods seen since its last call (their
// .methods and .classtable lines), on the writer's thread (attached to the
// JVM for it; methods_detach detaches it) or a Java thread: the capture
// only queued them.
void methods_describe(void);
// methods_live: the JVM is live (VMInit): the writer may attach itself.
void methods_live(void);
// methods_reset, between two recordings in one JVM (the writer stopped):
// the new recording's .methods and .classtable describe again every method
// and class its stacks name. The ids stay (a method keeps its id); each one
// known is queued to be described again.
void methods_reset(void);
void methods_detach(void);
// stack_capture fills out with up to max frames of thread t (NULL: the
// calling thread), skipping `skip` innermost frames; returns the count (0
// on error).
// stack_virtual: set (by threads.c, on the calling OS thread) while it
// records an event of the virtual thread it runs: stack_capture of the
// current thread then asks JVMTI, whose stack of a virtual thread ends at
// its continuation's entry (the own walker does not walk a continuation;
// AsyncGetCallTrace would go on into the carrier's frames).
extern __thread int stack_virtual;
int stack_capture(jthread t, int skip, orca_frame *out, int max);
// stack_of_frames is stack_capture of frames read already (n of them,
// innermost first: GetAllStackTraces' of another thread), at most max.
int stack_of_frames(const jvmtiFrameInfo *fr, int n, orca_frame *out, int max);
// methods_id_of returns m's compact id (the orca_frame.method its frames
// get), 0 when the table is full.
uint32_t methods_id_of(jmethodID m);
// methods_sample_id is methods_id_of for a sample's frame, 0 (the frame
// left out) for the agent's own hook methods (orca$…). The writer's only;
// jvmti_ok: methods_attach said yes (else a method not asked before keeps
// its frame).
uint32_t methods_sample_id(jmethodID m, int jvmti_ok);
// methods_attach attaches the calling thread (the writer's) to the JVM once
// it is live, so that it may name methods; 0: not yet.
int methods_attach(void);
// methods_hold_attach .. methods_release_attach: while a caller lists the
// JVM's threads, the writer does not attach (it tries again later), and
// methods_is_agent tells the writer's thread, once attached, from the
// application's.
void methods_hold_attach(void);
void methods_release_attach(void);
int methods_is_agent(JNIEnv *env, jthread t);
// stack_capture_own: stack_capture(NULL, ...) for a caller that has the
// calling thread's JNIEnv at hand (a wrapped native): one GetEnv less.
int stack_capture_own(JNIEnv *env, int skip, orca_frame *out, int max);
// methods_native_id returns the id of the pseudo-method of the native or
// VM function at pc (a sample's frame: its class "<native:LIB>", its name
// the symbol), its .methods and .classtable lines queued when new; 0 when
// the table is full. The writer's thread only (dladdr).
uint32_t methods_native_id(uintptr_t pc);
void methods_native_reset(void);
#endif
