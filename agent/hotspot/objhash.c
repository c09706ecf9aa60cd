#include <stdatomic.h>
#include "hotspot/objhash.h"
#include "core/orca.h"
#include "hotspot/vmstructs.h"

// Even between collections, odd during one. Starts odd: the cache is off
// until objhash_ready finds a collector it is sound for.
static atomic_ulong epoch = 1;
static atomic_int usable;

enum { SLOTS = 8 };
static __thread struct {
  uintptr_t addr;
  unsigned long epoch;
  uint32_t hash;
} cache[SLOTS];

void objhash_ready(void) {
  if (hs_stw_collector()) {
    atomic_store(&usable, 1);
    atomic_fetch_add(&epoch, 1);   // even: on
  }
}

void JNICALL objhash_on_gc_start(jvmtiEnv *j) {
  (void)j;
  if (atomic_load_explicit(&usable, memory_order_relaxed)) atomic_fetch_add(&epoch, 1);
}

void JNICALL objhash_on_gc_finish(jvmtiEnv *j) {
  (void)j;
  if (atomic_load_explicit(&usable, memory_order_relaxed)) atomic_fetch_add(&epoch, 1);
}

uint32_t objhash_of(jobject o) {
  if (!o) return 0;
  unsigned long e = atomic_load(&epoch);
  uintptr_t addr = 0;
  // A local reference points at a slot holding the object's address (no
  // tag bits); the slot is the VM's C memory, the object is not touched.
  if (!(e & 1)) addr = hs_handle_oop_now(o);
  // The epoch unchanged after the read: no collection had begun, so addr
  // was the object's address, and is until the epoch changes.
  if (addr && atomic_load(&epoch) != e) addr = 0;
  unsigned slot = (unsigned)(addr >> 3) % SLOTS;
  if (addr && cache[slot].addr == addr && cache[slot].epoch == e) return cache[slot].hash;
  jint h = 0;
  (*jvmti)->GetObjectHashCode(jvmti, o, &h);
  if (addr && h && atomic_load(&epoch) == e) {
    cache[slot].addr = addr;
    cache[slot].epoch = e;
    cache[slot].hash = (uint32_t)h;
  }
  return (uint32_t)h;
}

int objhash_stw(void) { return atomic_load_explicit(&usable, memory_order_relaxed); }

unsigned long objhash_epoch(void) { return atomic_load(&epoch); }
