// Virtual threads (JDK 21+). The agent's per-thread state of a platform
// thread (threads.c) lives in the C thread-local storage of the OS thread,
// which for a virtual thread is its carrier's, and a virtual thread moves
// between carriers (JDK 24+: also while blocked on a monitor and in
// Object.wait). A virtual thread's state is therefore held in JVMTI
// thread-local storage of the virtual thread itself (made by threads.c at
// its first event, freed at VirtualThreadEnd); this module tells virtual
// threads apart, holds that storage, the JVMTI VirtualThreadStart/End
// events and a table of live virtual threads by thread id (the owner of a
// monitor on JDK 24+ is a thread id).
#ifndef ORCA_VTHREAD_H
#define ORCA_VTHREAD_H
#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

// vthread_init, at VMInit (t: the thread of the event), and
// vthread_class_prepared, at every ClassPrepare, find the classes that tell
// virtual threads and carriers apart, without Java code (jclass.h).
void vthread_init(JNIEnv *env, jthread t);
void vthread_class_prepared(JNIEnv *env, jclass c);
// vthread_may_host tells, when a thread's state is made, whether virtual
// threads may run on it (a carrier, or t itself virtual): only on those is
// each event checked. t is the thread's object (not NULL).
int vthread_may_host(JNIEnv *env, jthread t);
// vthread_is tells whether the current thread of a thread that may host
// virtual threads is virtual; t is the current thread's object or NULL.
int vthread_is(JNIEnv *env, jthread t);
// vthread_current: the current thread (t, or asked from JVMTI when NULL)
// is virtual; then *cur is it (a new local reference when t is NULL: the
// caller deletes it).
int vthread_current(JNIEnv *env, jthread t, jthread *cur);
// vthread_get / vthread_put: the virtual thread's JVMTI thread-local storage.
void *vthread_get(jthread vt);
void vthread_put(jthread vt, void *p);
// vthread_tid: java.lang.Thread.tid of vt, any thread, virtual or not (-1
// when unknown).
int64_t vthread_tid(JNIEnv *env, jthread vt);
// vthread_key_new returns the key (record/tkeys.h) of the thread t, of
// identity hash h, registered by its tid (counted in thread_keys_full when
// the table is full): threads.h's thread_key_new.
uint32_t vthread_key_new(JNIEnv *env, jthread t, uint32_t h);
// Live virtual threads by thread id: direct-mapped (ids are consecutive
// longs, so live threads rarely share a slot; a later one takes the slot
// and the earlier one's monitors get owner 00000000). Written by the virtual
// thread at its start and end (vthread.c), read without a lock by
// contenders: a reader takes the hash only when the id reads the same
// before and after it. Published at the first virtual thread's start.
#define VTHREAD_TID_SLOTS (1 << 18)
typedef struct {
  _Atomic int64_t tid;   // 0: free
  _Atomic uint32_t hash;
} vthread_tid_slot;
// void *_Atomic: _Atomic(void *), in the form check-includes.sh does not
// take for a function named _Atomic.
extern void *_Atomic vthread_tids;
// vthread_by_tid returns the key (record/tkeys.h: its identity hash, but
// for a collision) of the live virtual thread with thread id tid, 0 when
// none is known (owner.c, JDK 24+: every contended enter asks, so inline).
static inline uint32_t vthread_by_tid(int64_t tid) {
  vthread_tid_slot *t = atomic_load_explicit(&vthread_tids, memory_order_acquire);
  if (!t || tid <= 0) return 0;
  vthread_tid_slot *e = &t[(uint64_t)tid & (VTHREAD_TID_SLOTS - 1)];
  if (atomic_load(&e->tid) != tid) return 0;
  uint32_t h = atomic_load(&e->hash);
  return atomic_load(&e->tid) == tid ? h : 0;
}
// vthread_on sets the functions called at VirtualThreadStart and End (on the
// virtual thread itself, mounted), after the table of ids is updated (start)
// or before (end). hash is vt's key (record/tkeys.h, registered: its
// identity hash, but for a collision) at its start, 0 at its end; tid its id.
typedef void (*vthread_fn)(JNIEnv *env, jthread vt, uint32_t hash, int64_t tid);
void vthread_on(vthread_fn start, vthread_fn end);
// vthread_unattributed counts an event of kind (orca_event) that happened
// on a virtual thread.
void vthread_unattributed(int kind);
// vthread_each calls fn for each virtual thread started and not ended
// that the JDK tracks (the jthread is a local reference fn must not keep;
// fn runs in a local frame of its own): those in the registry of its root
// container, jdk.internal.vm.ThreadContainers' VTHREADS, and those in the
// containers it registers (executors of
// Executors.newVirtualThreadPerTaskExecutor, StructuredTaskScopes), read
// with JNI field access only: no Java code runs (vthread.c says how). At
// most VTHREAD_EACH_MAX. Returns NULL, or why they were not all looked at
// (a sentence for .info: -Djdk.trackAllThreads=false leaves the root
// without a list); nothing when the JVM has no virtual threads. *seen: how
// many fn was called for.
#define VTHREAD_EACH_MAX (1 << 20)
typedef void (*vthread_each_fn)(JNIEnv *env, jthread vt, void *arg);
const char *vthread_each(JNIEnv *env, vthread_each_fn fn, void *arg, int64_t *seen);
// vthread_carrier: when t is a virtual thread, the carrier it runs on (a
// new local reference; NULL when it runs on none), else NULL.
jthread vthread_carrier(JNIEnv *env, jthread t);
// vthread_sleeping: the virtual thread vt, unmounted, whose stack is fr (n
// frames, innermost first), is in Thread.sleep (VirtualThread.sleepNanos
// near the top of it): JVMTI says "parked" of it, as of any park,
// sleepNanos parking it.
int vthread_sleeping(JNIEnv *env, jthread vt, const jvmtiFrameInfo *fr, int n);
// vthread_known: vt, alive, was found otherwise than by its
// VirtualThreadStart (vthread_each): it joins the table of ids, under its
// key hash.
void vthread_known(JNIEnv *env, jthread vt, uint32_t hash);
// vthread_capabilities asks for can_support_virtual_threads (JDK 21+) when
// the JVM offers it; vthread_set_callbacks sets the JVMTI callbacks cb plus
// VirtualThreadStart (beyond the JDK 17 jvmtiEventCallbacks the agent is
// built with), and vthread_enable enables that event.
void vthread_capabilities(jvmtiCapabilities *want, const jvmtiCapabilities *have);
jvmtiError vthread_set_callbacks(const jvmtiEventCallbacks *cb);
void vthread_enable(void);
// vthread_disable turns them off again (a recording stops).
void vthread_disable(void);
#endif
