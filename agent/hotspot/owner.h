// The owner of a contended monitor, read from HotSpot's ObjectMonitor
// through the VM's exported structure table (gHotSpotVMStructs), without a
// safepoint: 70-130 ns instead of GetObjectMonitorUsage's 150 us-10 ms.
#ifndef ORCA_OWNER_H
#define ORCA_OWNER_H
#include <jni.h>
#include <stdatomic.h>
#include <stdint.h>
#include "hotspot/safe.h"

// owner_init finds the offsets; NULL or a warning (then owners are unknown).
const char *owner_init(void);
// owner_caps and owner_hash_caps say how owners and monitor hashes are
// read on this JVM (.info hotspot.owner, hotspot.monitor_hash).
const char *owner_caps(void);
const char *owner_hash_caps(void);
// carrier: virtual threads run on the thread (vthread.h); a monitor owned
// through its JavaThread, its stack or its lock stack is the virtual
// thread's it runs then (read from JavaThread::_vthread), or its own.
void owner_register_self(JNIEnv *env, jobject thread, uint32_t hash, int carrier);
void owner_register_other(JNIEnv *env, jobject thread, uint32_t hash, int carrier);
// owner_thread_tid: the OS thread id of thread, a started platform thread
// alive now (its JavaThread from Thread.eetop: hs_thread_tid); 0 when
// unknown.
int owner_thread_tid(JNIEnv *env, jobject thread);
void owner_unregister_self(JNIEnv *env);
// owner_of_pending returns the hash of the thread owning the monitor the
// calling thread is about to block on, or 0 when unknown (counted by
// reason: CNT_OWNER_RELEASED, …).
uint32_t owner_of_pending(JNIEnv *env, jobject obj);
// owner_of_pending_why is owner_of_pending with what it would count in
// *why, not counted: the reason for 0, CNT_OWNER_UNLOCKING for an owner named
// inside its fast unlock, else 0. The caller counts the answer it keeps
// (hooks/monitor.c reads again when it times the enter later).
uint32_t owner_of_pending_why(JNIEnv *env, jobject obj, int *why);
// owner_blocked_on reads, for another thread (a java.lang.Thread blocked
// or waiting at an attach), the monitor it is blocked on entering
// (waiting 0: its owner's hash in *owner, 0 when unknown) or waiting on
// (waiting 1): the object's identity hash in *obj (0 when not hashed yet)
// and the monitor's address in *monitor, and a local reference to the
// object in *ref where it can (hs_monitor_object; else NULL). 0 when it is
// in neither.
int owner_blocked_on(JNIEnv *env, jobject thread, int waiting, uint32_t *obj, uint32_t *owner, uintptr_t *monitor,
                     jobject *ref);
// owner_pending_free: the monitor the calling thread is about to block on
// has no owner now (its owner word reads 0: released since it contended);
// 0 also when unknown.
int owner_pending_free(JNIEnv *env);
// owner_pending_hash returns the identity hash of the object whose monitor
// the calling thread is about to block on, read from the monitor (~5 ns
// instead of GetObjectHashCode's 200-400), or 0 when unknown or not yet
// computed.
uint32_t owner_pending_hash(JNIEnv *env);
// owner_held_contended writes the hashes of the monitors the calling
// thread holds that a contender inflated without naming an owner (up to
// max) and returns how many: a virtual thread that held them fast-locked
// while unmounted (24+: its lock stack was in its stack chunk, where no
// contender looks); it says so when it runs again (MonitorOwned).
int owner_held_contended(JNIEnv *env, uint32_t *out, int max);
// owner_waiting: a live platform thread (no carrier of virtual threads)
// that HotSpot has _thread_blocked in a wait on a monitor
// (JavaThread::_current_waiting_monitor): its key, its JavaThread and the
// monitor's address. owner_each_waiting writes up to max of them into out
// and returns how many there are (more than max: call again with room).
// Fault-safe reads of the table's JavaThreads; a thread that ends
// meanwhile may be read as anything but a crash (its slot's sequence
// drops it when seen changing).
typedef struct {
  uint32_t thread;
  vm_ptr jt;
  uintptr_t monitor;
} owner_waiting;
int owner_each_waiting(owner_waiting *out, int max);
// owner_still_waiting: jt is still _thread_blocked waiting on monitor.
int owner_still_waiting(vm_ptr jt, uintptr_t monitor);
// owner_key_of: the key a live thread whose JavaThread is jt was
// registered with (0: not in the table, or a carrier).
uint32_t owner_key_of(vm_ptr jt);
// owner_jt_of: the JavaThread of thread (Thread.eetop; null when it has
// none: not started, or ended).
vm_ptr owner_jt_of(JNIEnv *env, jobject thread);
// Threads that found the table of live threads full (their owned monitors'
// contenders see owner 00000000) are counted in CNT_OWNER_TABLE_FULL.
#endif
