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
#include <stdatomic.h>
#include <stdint.h>
#include "core/orca.h"
#include "hotspot/vmstructs.h"

// objhash_ready checks the collector (VMInit: after GC ergonomics).
void objhash_ready(void);
void JNICALL objhash_on_gc_start(jvmtiEnv *j);
void JNICALL objhash_on_gc_finish(jvmtiEnv *j);
// The epoch (objhash_epoch, below) and each thread's last hashes by
// address, read by objhash_of.
extern atomic_ulong objhash_epoch_;
enum { OBJHASH_SLOTS = 8 };
struct objhash_slot {
  uintptr_t addr;
  unsigned long epoch;
  uint32_t hash;
};
extern __thread struct objhash_slot objhash_cache[OBJHASH_SLOTS];

// objhash_of returns o's identity hash, 0 for NULL. o must be a JNI local
// reference (a callback's or native method's argument). Inline, as the
// HotSpot layer's other per-event reads (vmstructs.h): every contended
// enter, park and notify asks.
static inline uint32_t objhash_of(jobject o) {
  if (!o) return 0;
  unsigned long e = atomic_load(&objhash_epoch_);
  uintptr_t addr = 0;
  // A local reference points at a slot holding the object's address (no
  // tag bits); the slot is the VM's C memory, the object is not touched.
  if (!(e & 1)) addr = hs_handle_oop_now(o);
  // The epoch unchanged after the read: no collection had begun, so addr
  // was the object's address, and is until the epoch changes.
  if (addr && atomic_load(&objhash_epoch_) != e) addr = 0;
  unsigned slot = (unsigned)(addr >> 3) % OBJHASH_SLOTS;
  if (addr && objhash_cache[slot].addr == addr && objhash_cache[slot].epoch == e) return objhash_cache[slot].hash;
  jint h = 0;
  (*jvmti)->GetObjectHashCode(jvmti, o, &h);
  if (addr && h && atomic_load(&objhash_epoch_) == e) {
    objhash_cache[slot].addr = addr;
    objhash_cache[slot].epoch = e;
    objhash_cache[slot].hash = (uint32_t)h;
  }
  return (uint32_t)h;
}
// objhash_stw: the collector moves objects only at stop-the-world pauses
// (G1, Parallel, Serial), so a JNI reference's slot holds the object's
// address while the reader is in the VM.
int objhash_stw(void);
// objhash_epoch is even while objects cannot move (a stop-the-world
// collector, between its collections), odd otherwise: an object's address
// read after it is valid while it reads the same.
unsigned long objhash_epoch(void);
#endif
