#include <stdlib.h>
#include "stacks/classids.h"

const char *classids_init(classids *t, unsigned bits) {
  t->slots = calloc((size_t)1 << bits, sizeof *t->slots);
  t->mask = (1u << bits) - 1;
  t->used = t->aliases = 0;
  return t->slots ? NULL : "cannot allocate the class table";
}

uint32_t classids_get(classids *t, const classids_ops *ops, uint32_t h, void *cls, int *fresh) {
  *fresh = 0;
  if (!h || !t->slots) return 0;
  int taken = 0;   // a class before this one has the hash h: its id is h
  uint32_t i = (h * 2654435761u) & t->mask;
  for (; t->slots[i].hash; i = (i + 1) & t->mask) {
    classids_slot *s = &t->slots[i];
    if (s->hash != h) continue;
    if (s->ref && ops->same(ops->ctx, s->ref, cls)) return s->id;
    taken = 1;
  }
  // Full at 3/4: probes stay short, and the loop above always ends.
  if (t->used >= (t->mask + 1) / 4 * 3) return 0;
  void *ref = ops->keep(ops->ctx, cls);
  if (!ref) return 0;
  uint32_t id = taken || (h & CLASSIDS_ALIAS) ? CLASSIDS_ALIAS | ++t->aliases : h;
  t->slots[i] = (classids_slot){h, id, ref};
  t->used++;
  *fresh = 1;
  return id;
}

void classids_clear(classids *t, const classids_ops *ops) {
  if (!t->slots) return;
  for (uint32_t i = 0; i <= t->mask; i++) {
    if (t->slots[i].ref) ops->drop(ops->ctx, t->slots[i].ref);
    t->slots[i] = (classids_slot){0, 0, NULL};
  }
  t->used = t->aliases = 0;
}
