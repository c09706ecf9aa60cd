// Identity hash codes of Java objects (System.identityHashCode), the ids
// of monitors, semaphores and threads in the records. JVMTI's
// GetObjectHashCode costs 200-400 ns (two thread-state transitions), and
// the notify and wait wrappers run while the thread owns the monitor:
// there the cost is other threads' blocking (LockBench's mailbox saw 30x
// the contention JFR alone sees). The same objects come back (a mailbox,
// a lock, a pool's semaphore), so each thread keeps the last few hashes by
// object address, valid until the next garbage collection: with a
// stop-the-world moving collector (G1, Parallel, Serial), objects move
// only between JVMTI's GarbageCollectionStart and Finish. With other
// collectors (ZGC, Shenandoah move objects concurrently) every call asks
// JVMTI.
#ifndef ORCA_OBJHASH_H
#define ORCA_OBJHASH_H
#include <jvmti.h>
#include <stdint.h>

// objhash_ready checks the collector (VMInit: after GC ergonomics).
void objhash_ready(void);
void JNICALL objhash_on_gc_start(jvmtiEnv *j);
void JNICALL objhash_on_gc_finish(jvmtiEnv *j);
// objhash_of returns o's identity hash, 0 for NULL. o must be a JNI local
// reference (a callback's or native method's argument).
uint32_t objhash_of(jobject o);
// objhash_stw: the collector moves objects only at stop-the-world pauses
// (G1, Parallel, Serial), so a JNI reference's slot holds the object's
// address while the reader is in the VM.
int objhash_stw(void);
// objhash_epoch is even while objects cannot move (a stop-the-world
// collector, between its collections), odd otherwise: an object's address
// read after it is valid while it reads the same.
unsigned long objhash_epoch(void);
#endif
