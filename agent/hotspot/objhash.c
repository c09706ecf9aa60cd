#include <stdatomic.h>
#include "hotspot/objhash.h"
#include "core/orca.h"
#include "hotspot/vmstructs.h"

// Even between collections, odd during one. Starts odd: the cache is off
// until objhash_ready finds a collector it is sound for.
atomic_ulong objhash_epoch_ = 1;   // objhash.h
static atomic_int usable;
__thread struct objhash_slot objhash_cache[OBJHASH_SLOTS];   // objhash.h

void objhash_ready(void) {
  if (hs_stw_collector()) {
    atomic_store(&usable, 1);
    atomic_fetch_add(&objhash_epoch_, 1);   // even: on
  }
}

void JNICALL objhash_on_gc_start(jvmtiEnv *j) {
  (void)j;
  if (atomic_load_explicit(&usable, memory_order_relaxed)) atomic_fetch_add(&objhash_epoch_, 1);
}

void JNICALL objhash_on_gc_finish(jvmtiEnv *j) {
  (void)j;
  if (atomic_load_explicit(&usable, memory_order_relaxed)) atomic_fetch_add(&objhash_epoch_, 1);
}

int objhash_stw(void) { return atomic_load_explicit(&usable, memory_order_relaxed); }

unsigned long objhash_epoch(void) { return atomic_load(&objhash_epoch_); }
