// A set of positive 64-bit ids (a snapshot's virtual threads, by their
// Thread.tid: threads/threads.c). The JDK hands thread ids out from one
// counter, so the ids of live threads come in runs: the set keeps a bitmap
// word of 64 ids for each run of 64 that holds one, the words found by
// open addressing on id / 64. 100 000 threads made one after the other are
// some 1 600 words (64 kB with the free slots), which the cache holds;
// a table of the ids themselves (2 MB) was probed at random, a miss of the
// cache at each (5 % of an `orca threads` of 100 000 virtual threads).
#ifndef ORCA_IDSET_H
#define ORCA_IDSET_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  struct idset_word *w;   // cap of them (a power of 2), grown at half full
  size_t cap, n;
} idset;

// idset_add adds id; 0 when it was there already, 1 when it was not (or
// cannot be told: an id <= 0, or no memory to grow: every such id is taken
// as new).
int idset_add(idset *s, int64_t id);
// idset_free empties the set and frees its memory.
void idset_free(idset *s);
#endif
