// The compact encoding of PREFIX.orca (docs/format.md, "The compact
// encoding"; agent option format=compact): binary records after a header
// line. Each thread and each distinct stack is defined once per chunk and
// events refer to it by a small index; times are deltas. The writer
// (writer.c) encodes its sorted batch record by record through here instead
// of formatting text lines; a chunk begins at the first record and then
// whenever the chunk holds chunk_max bytes.
#ifndef ORCA_COMPACT_H
#define ORCA_COMPACT_H
#include <stddef.h>
#include <stdint.h>
#include "record/rec.h"

// The first bytes of the file (the encoding and its version).
#define COMPACT_HEADER "orca-compact 1\n"
#define COMPACT_HEADER_LEN (sizeof COMPACT_HEADER - 1)
// Every chunk record is preceded by these 8 bytes (a reader resynchronises there).
#define COMPACT_MARK "ORCACHNK"
// The record tags.
enum { COMPACT_CHUNK = 0x01, COMPACT_THREAD = 0x02, COMPACT_STACK = 0x03, COMPACT_EVENT = 0x10 };
// A new chunk begins once a chunk holds this many bytes (the tables of
// threads and stacks begin empty again: their memory stays bounded, and a
// chunk reads on its own).
#define COMPACT_CHUNK_BYTES (1 << 20)

// The encoder's state: the chunk's tables. Open addressing, a power-of-two
// number of slots, at most half of them used; a stack slot keeps the
// stack's frames in arena to compare them (two stacks may share a hash).
typedef struct {
  uint64_t seq;        // chunks begun (the current chunk's number), 0 before the first
  int64_t prev;        // time of the previous event of the chunk
  size_t bytes;        // bytes written in the chunk
  size_t chunk_max;    // COMPACT_CHUNK_BYTES (tests set less)
  uint32_t *th_hash, *th_idx;   // thread hash -> index (0: empty slot)
  uint32_t th_n, th_cap;
  struct compact_stack { uint64_t h; uint32_t id, off; } *st;   // id 0: empty slot
  uint32_t st_n, st_cap;
  orca_frame *arena;   // the frames of the chunk's stacks
  size_t arena_len, arena_cap;
} compact_enc;

// compact_init allocates the tables (NULL or an error); compact_free frees them.
const char *compact_init(compact_enc *e);
void compact_free(compact_enc *e);

// compact_max: the most bytes compact_rec writes for r (a chunk record, the
// definitions of its thread and stack, the event).
static inline size_t compact_max(const orca_rec *r) {
  return 96 + (size_t)r->nframes * 10 + (size_t)r->namelen;
}

// compact_rec writes r at out: a chunk record when a chunk begins, the
// thread's and the stack's definitions when the chunk has not defined them,
// then the event. Returns the bytes written (at most compact_max(r)).
size_t compact_rec(compact_enc *e, char *out, const orca_rec *r);

#endif
