// The binary event record: what a callback appends to a ring (ring.h) and
// the writer encodes (writer.c: text lines, or compact.h). A leaf.
#ifndef ORCA_REC_H
#define ORCA_REC_H
#include <stdint.h>

// One frame as recorded: compact method id and bytecode location.
typedef struct {
  uint32_t method;
  uint32_t location;   // 0xFFFFFFFF for native frames
} orca_frame;

// A binary event record. Frames follow the header, then the name bytes.
typedef struct {
  int64_t ts;
  uint32_t thread;
  uint32_t object;     // object, or target thread
  uint32_t owner;
  uint16_t size;       // whole record, multiple of 8
  uint16_t nframes;
  uint16_t namelen;
  uint8_t kind;
  uint8_t mode;        // ORCA_F_MODE: a park's acquire mode (ORCA_MODE_*); ORCA_F_SAMPLED: a
                       // Sample's kind (ORCA_SAMPLED_*); else 0
} orca_rec;

// A Sample's weight (ORCA_F_WEIGHT, nanoseconds) is kept in the two words
// its kind does not use: object (low) and owner (high).
static inline uint64_t rec_weight(const orca_rec *r) { return (uint64_t)r->owner << 32 | r->object; }

#endif
