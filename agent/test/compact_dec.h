// A decoder of the compact encoding for the tests (compact_test.c), written
// from docs/format.md apart from the encoder: it checks the structure
// (header, ORCACHNK before each chunk, chunks numbered 1, 2, …, threads and
// stacks defined in order once per chunk before their use, each kind's
// descriptor, as the format's table has it, before its first record, each
// chunk's trailer: its bytes, records, times and CRC-32C) and gives the
// events back as records, their fields read by the descriptors.
#ifndef ORCA_TEST_COMPACT_DEC_H
#define ORCA_TEST_COMPACT_DEC_H
#include <stddef.h>
#include <stdint.h>
#include "record/rec.h"

// One event as put (test input) or as decoded. text: a name, a class, a
// timeout in decimal or how a park ended, as in the ring's record.
typedef struct {
  int kind;
  int64_t ts;
  uint32_t thread, object, owner;
  int mode;
  int nf;
  orca_frame fr[64];
  char text[256];
  int carried;   // decoded after the carried tag (a chunk restating an earlier one's fact)
} test_ev;

// What the decoder saw besides the events.
typedef struct {
  int chunks;
  int thread_defs, stack_defs;   // definitions, over all chunks
  int carried;                   // carried records
  int trailers;                  // chunks closed by their trailer (each checked: bytes, records, times, CRC-32C)
  int alias_defs;                // alias records (thread keys, record/tkeys.h), over all chunks
  uint32_t alias_hash, alias_rank;   // the last one's
  int method_defs, class_defs;   // method and class definitions (ORCA_TAG_METHOD, ORCA_TAG_CLASS), over all chunks
  char err[200];                 // the first malformed record, with its offset; "" when none
} dec_stats;

// compact_decode_defs_below: when not 0, every frame of a stack whose
// method id is below it must be defined in the chunk before the stack, and
// every method definition's class before the method (the tests give the
// encoder a line for each).
extern uint32_t compact_decode_defs_below;

// compact_decode decodes buf into at most cap events; returns how many.
int compact_decode(const char *buf, size_t len, test_ev *out, int cap, dec_stats *st);

// without_carried removes the carried records of got (m of them) in place
// and returns how many remain.
int without_carried(test_ev *got, int m);

// test_ev_equal: the same event (kind, time, ids, mode, frames, text).
int test_ev_equal(const test_ev *a, const test_ev *b);
#endif
