// Event buffers: callbacks append fixed binary records to one of a few
// sharded, double-buffered rings under a spinlock held for a memcpy; the
// writer thread swaps the buffers out. A full ring drops and counts.
#ifndef ORCA_RING_H
#define ORCA_RING_H
#include <stdint.h>
#include <stddef.h>
#include <stdatomic.h>

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
  uint8_t pad;
} orca_rec;

#define RING_SHARDS 8

// ring_count returns the events written (dropped = 0) or dropped (1) of a
// kind, summed over the shards.
long ring_count(int kind, int dropped);

// ring_init allocates total_bytes split over the shards; NULL or an error.
const char *ring_init(size_t total_bytes);

// ring_put appends an event; returns 0 and counts a drop when full.
int ring_put(int shard, int kind, int64_t ts, uint32_t thread, uint32_t object, uint32_t owner,
             const orca_frame *frames, int nframes, const char *name, int namelen);

// ring_take swaps out shard i's filled buffer (writer thread only). The
// returned buffer stays valid until the next ring_take of the same shard.
const char *ring_take(int i, size_t *len);

// ring_wait blocks the writer until ms elapse or a shard fills past half.
void ring_wait(int ms);
void ring_wake(void);

#endif
