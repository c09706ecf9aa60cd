// The compact encoding of PREFIX.orca (docs/format.md, "The compact
// encoding"; agent option format=compact): binary records after a header
// line. Each thread and each distinct stack is defined once per chunk and
// events refer to it by a small index; times are deltas. The writer
// (writer.c) encodes its sorted batch record by record through here instead
// of formatting text lines. The writer begins a chunk (compact_begin) when
// compact_due says so: at the first record, when the chunk holds chunk_max
// bytes or spans span_max ns. A chunk begins with the state of every live
// thread (its name, the intervals it is in, the classes of their objects),
// so it reads on its own: the encoder keeps that state from the records it
// encodes (docs/format.md, "Chunks and the state at their start").
#ifndef ORCA_COMPACT_H
#define ORCA_COMPACT_H
#include <stddef.h>
#include <stdint.h>
#include "core/events.h"
#include "record/rec.h"

// The first bytes of the file (the encoding and its version: 2 has alias
// records, 3 kinds' descriptors and chunks' trailers).
#define COMPACT_HEADER "orca-compact 3\n"
#define COMPACT_HEADER_LEN (sizeof COMPACT_HEADER - 1)
// Every chunk record is preceded by these 8 bytes (a reader resynchronises there).
#define COMPACT_MARK "ORCACHNK"
// The record tags (and ORCA_TAG_DESCRIPTOR, ORCA_TAG_TRAILER of
// core/events.h, generated from the format's table, as each kind's fields
// and their wire types: orca_layouts, orca_descriptors).
// COMPACT_CARRIED precedes an event record that restates a fact of an
// earlier chunk (a live thread's name, an interval it is in, an object's
// class): not an event of its own.
// COMPACT_ALIAS defines a thread key with TKEY_ALIAS (record/tkeys.h) in
// the chunk, before the first record that names it: u32 key, u32 hash, uv
// rank.
enum { COMPACT_CHUNK = 0x01, COMPACT_THREAD = 0x02, COMPACT_STACK = 0x03, COMPACT_CARRIED = 0x04, COMPACT_ALIAS = 0x05,
       COMPACT_EVENT = 0x10 };
// A new chunk begins once a chunk holds this many bytes (the tables of
// threads and stacks begin empty again: their memory stays bounded, and a
// chunk reads on its own).
#define COMPACT_CHUNK_BYTES (1 << 20)

// Intervals a thread can be in at once that a chunk restates (a semaphore's
// acquire parks: two); an interval deeper than this is not restated.
#define COMPACT_OPEN_MAX 4
// Objects whose class (ObjectClass, ClassInitLock) the encoder remembers,
// to restate it in a later chunk that names the object (a power of two):
// two ways a set, the one used less lately given to a new object (a lock
// named all along stays while blockers parked on once come and go).
#define COMPACT_FACTS 16384
// A class text longer than this is not remembered (names are cut at 2 048).
#define COMPACT_FACT_TEXT 4096

// The definitions of the methods a new stack of the chunk names, and of
// their classes (ORCA_TAG_METHOD, ORCA_TAG_CLASS: their .methods and
// .classtable lines, given by compact_meta), written before the stack when
// the chunk has not: at most this many bytes of them before one record (a
// method past it is defined before a later stack of the chunk, or named
// only by .methods).
#define COMPACT_DEFS_MAX (1 << 16)

// A record the encoder keeps: until compact_settle, the caller's record
// itself (ref: most intervals end in the batch that began them, and are
// never copied), then a copy it owns (r, cap bytes; kind 0: none).
typedef struct { orca_rec *r; const orca_rec *ref; uint32_t cap; } compact_keep;

// A class text, kept once however many objects have it.
typedef struct { uint32_t hash, len; char text[]; } compact_text;

// An object's class lines as an interval on it began (compact_thread.pin):
// its class, its class initialisation's, a condition's lock (0: none).
typedef struct {
  const compact_text *cls, *clinit;
  uint32_t lock;
} compact_pin;

// What the encoder knows of a live thread: its ThreadStarted, its last
// VirtualThreadMounted, the intervals it is in (outermost first) with
// their ObjectWaitTimeout or VirtualThreadPinned, and their objects'
// class lines when they began (restated at a chunk's start even when the
// table of objects' classes, e->facts, has since given the object's slot
// to another: ActiveMQ's parks on new blockers did, and a range read from
// that chunk saw a park on a read-write lock without its class, a park
// and not an acquire).
typedef struct {
  uint32_t hash;
  uint8_t alive, nopen, refs;   // refs: some keep holds a ref (the thread is in e->pend)
  compact_keep name, mount, open[COMPACT_OPEN_MAX], extra[COMPACT_OPEN_MAX];
  compact_pin pin[COMPACT_OPEN_MAX];
} compact_thread;

// An object's class lines (the object is e->fact_obj's slot) and, for a
// condition, the lock it belongs to (its ConditionLock, 0: none); seq: the
// chunk that last wrote them; used: when an event last named the object
// (e->fact_clock).
typedef struct {
  uint64_t seq, used;
  const compact_text *cls, *clinit;
  uint32_t lock;
} compact_fact;

// The encoder's state: the chunk's tables. Open addressing, a power-of-two
// number of slots, at most half of them used; a stack slot keeps the
// stack's frames in arena to compare them (two stacks may share a hash).
typedef struct {
  uint64_t seq;        // chunks begun (the current chunk's number), 0 before the first
  int64_t prev;        // time of the previous event of the chunk
  int64_t base;        // the chunk's base time
  size_t bytes;        // bytes written in the chunk
  size_t chunk_max;    // COMPACT_CHUNK_BYTES (tests set less)
  size_t state_bytes;  // of bytes, the state at the chunk's start
  // one_chunk: the encoding is read only whole (an orca threads snapshot):
  // a chunk after the first is not restated into, and the threads' states
  // are not kept for it (a copy of each thread's name, mount and open state).
  int one_chunk;
  int64_t span_max;    // ns a chunk may span (0: no bound)
  uint32_t *th_hash, *th_idx;   // thread hash -> index (0: empty slot)
  uint32_t th_n, th_cap;
  struct compact_stack { uint64_t h; uint32_t id, off; } *st;   // id 0: empty slot
  uint32_t st_n, st_cap;
  orca_frame *arena;   // the frames of the chunk's stacks
  size_t arena_len, arena_cap;
  compact_thread *ts;  // the live threads (across chunks), dense: ts_n of ts_room
  uint32_t ts_n, ts_room;
  uint32_t *ts_idx;    // thread hash -> index in ts + 1 (0: empty slot), ts_cap slots
  uint32_t ts_cap;
  uint32_t *fact_obj;  // COMPACT_FACTS slots, by object hash: the object (probed for every event)
  compact_fact *facts; // and its class lines
  uint64_t fact_clock; // the events that looked an object up (compact_fact.used)
  // forget (NULL: none) is told each object whose class lines the table
  // lets go of for another's: the agent then names its class again at the
  // next event that asks (stacks/objclass.h), so that the chunk of that
  // event has it to restate (a range read from it knows the object's class).
  void (*forget)(uint32_t obj);
  compact_text **texts;   // the class texts, by their hash (open addressing)
  uint32_t texts_n, texts_cap;
  const compact_text *last_text;   // the last one interned
  uint32_t *pend;      // hashes of the threads whose keeps hold refs
  uint32_t pend_n, pend_cap;
  char *snap;          // compact_begin's bytes
  size_t snap_cap;
  uint64_t unrestated; // states that could not be restated (no memory, deeper than COMPACT_OPEN_MAX)
  uint64_t *alias_seq; // by alias number: the chunk that last defined it
  uint32_t alias_cap;
  // The chunk's trailer (docs/format.md): its event records, the span of
  // their times, the CRC-32C of its bytes; described: the chunk that last
  // wrote each kind's descriptor.
  uint64_t records;
  int64_t lo, hi;
  uint32_t crc;
  uint64_t described[ORCA_EV_COUNT];
  char trailer[64];
  // The lines of .methods and .classtable (compact_meta), by key (the id
  // << 1 | 1 for a class, + 1; 0: an empty slot; open addressing), in
  // def_text; seq: the chunk that last defined it.
  struct compact_def { uint64_t key, seq; uint32_t off, len, cls; } *defs;
  uint32_t defs_n, defs_cap;
  char *def_text;
  size_t def_len, def_cap;
} compact_enc;

// compact_init allocates the tables (NULL or an error); compact_free frees them.
const char *compact_init(compact_enc *e);
void compact_free(compact_enc *e);

// compact_max: the most bytes compact_rec writes for r (the definitions of
// its thread, its threads' aliases and its stack, its object's class
// lines and condition lock restated, the event).
static inline size_t compact_max(const orca_rec *r) {
  return 96 + 3 * 14 + (size_t)r->nframes * 10 + (size_t)r->namelen + 2 * (64 + COMPACT_FACT_TEXT) + 64 + 3 * 256 +
         COMPACT_DEFS_MAX;
}

// compact_meta gives the encoder len bytes of lines of .methods (which 0,
// META_METHODS) or .classtable (1), as the writer writes them: a chunk
// defines each method its stacks name, and its class, by these lines.
// Out of memory, a line is left out (its method named by .methods alone).
void compact_meta(compact_enc *e, int which, const char *buf, size_t len);

// compact_due: a chunk must begin before r (none begun yet, the chunk full
// or old, or its tables could not grow).
int compact_due(compact_enc *e, const orca_rec *r);
// compact_begin begins chunk e->seq + 1 at time ts and returns its first
// bytes (its marker and record, then the state of every live thread),
// *len of them, valid until the next call. NULL when out of memory (no
// chunk begun: the caller drops the record).
const char *compact_begin(compact_enc *e, int64_t ts, size_t *len);
// compact_rec writes r at out, in the chunk begun: the thread's and the
// stack's definitions when the chunk has not defined them, its object's
// class when an earlier chunk wrote it, then the event. Returns the bytes
// written (at most compact_max(r)). It keeps what r says of its thread.
size_t compact_rec(compact_enc *e, char *out, const orca_rec *r);
// compact_sum adds the n bytes at p, compact_rec's output as written, to
// the chunk's checksum (its trailer's): the caller passes every byte
// compact_rec wrote, in order, once per write rather than per record
// (CRC-32C runs 8 bytes a step). compact_begin's bytes are summed already.
void compact_sum(compact_enc *e, const char *p, size_t n);
// compact_end closes the chunk begun: its trailer's bytes (*len of them,
// valid until the next call), or NULL when no chunk is open. The writer
// writes it before the next chunk begins and at the recording's end.
const char *compact_end(compact_enc *e, size_t *len);
// compact_settle copies the records the encoder still refers to (see
// compact_keep): every record given to compact_rec must stay as it is
// until the next compact_settle (the writer calls it at the end of each
// flush, before its buffers are reused). 0 when out of memory (the states
// lost are counted in unrestated).
int compact_settle(compact_enc *e);

#endif
