#include <stdatomic.h>
#include "hotspot/objhash.h"
#include "core/orca.h"
#include "hotspot/vheld.h"
#include "hotspot/vmstructs.h"

// An open-addressed table by object address: at most PROBES slots from
// the address's own. A slot is free when empty, taken back (TOMB), or of
// an earlier epoch. A writer claims one (CLAIMING), writes the holder and
// the epoch, then the address; a reader takes the holder only when the
// address reads the same before and after. One object is fast-locked by
// one thread at a time: its valid entry is unique. When every slot within
// PROBES is taken (more than ~SLOTS holders blocked at once), the object
// is not noted: its contenders find no owner, as before this table.
#define SLOTS (1 << 16)
#define PROBES 16
enum { EMPTY = 0, TOMB = 1, CLAIMING = 2 };

typedef struct {
  _Atomic uintptr_t oop;
  _Atomic uint32_t hash;
  _Atomic unsigned long epoch;
} entry;

static _Atomic(void *) table;

static entry *get(int make) { return orca_table(&table, SLOTS * sizeof(entry), make); }

static unsigned home(uintptr_t oop) { return (unsigned)((oop >> 3) * 0x9E3779B1u) & (SLOTS - 1); }

static void put(entry *t, uintptr_t oop, uint32_t hash, unsigned long epoch) {
  for (unsigned i = 0, h = home(oop); i < PROBES; i++) {
    entry *e = &t[(h + i) & (SLOTS - 1)];
    uintptr_t cur = atomic_load(&e->oop);
    if (cur == CLAIMING) continue;
    // Stale, or of this object (its earlier holder's, not taken back: the
    // object is this thread's now).
    int mine = cur == oop || (cur > CLAIMING && atomic_load(&e->epoch) != epoch);
    if (cur != EMPTY && cur != TOMB && !mine) continue;
    if (!atomic_compare_exchange_strong(&e->oop, &cur, CLAIMING)) continue;
    atomic_store(&e->hash, hash);
    atomic_store(&e->epoch, epoch);
    atomic_store(&e->oop, oop);
    return;
  }
}

void vheld_blocking(JNIEnv *env, uint32_t hash, vheld_list *held) {
  held->n = 0;
  vm_ptr jt = hs_can_lock_stack() ? vms_thread(env) : vm_at(0);
  unsigned long e = objhash_epoch();
  if (vm_null(jt) || (e & 1)) return;
  int n = hs_own_lock_stack(jt, held->oops, VHELD_MAX);
  entry *t = n > 0 ? get(1) : NULL;
  if (!t || objhash_epoch() != e) return;
  for (int k = 0; k < n; k++) put(t, held->oops[k], hash, e);
  held->n = n;
}

void vheld_resumed(uint32_t hash, vheld_list *held) {
  entry *t = held->n > 0 ? get(0) : NULL;
  for (int k = 0; t && k < held->n; k++) {
    uintptr_t oop = held->oops[k];
    for (unsigned i = 0, h = home(oop); i < PROBES; i++) {
      entry *e = &t[(h + i) & (SLOTS - 1)];
      uintptr_t cur = oop;
      if (atomic_load(&e->hash) == hash && atomic_compare_exchange_strong(&e->oop, &cur, TOMB)) break;
    }
  }
  held->n = 0;
}

uint32_t vheld_owner(uintptr_t oop, unsigned long e) {
  entry *t = get(0);
  if (!t || !oop || (e & 1) || objhash_epoch() != e) return 0;
  for (unsigned i = 0, h = home(oop); i < PROBES; i++) {
    entry *x = &t[(h + i) & (SLOTS - 1)];
    if (atomic_load(&x->oop) != oop) continue;
    uint32_t hash = atomic_load(&x->hash);
    unsigned long ep = atomic_load(&x->epoch);
    if (atomic_load(&x->oop) == oop && ep == e && objhash_epoch() == e) return hash;
  }
  return 0;
}
