// Thread keys (issue 30, item 4b): the agent's identity of a thread, in
// the thread fields of its records, for the life of the agent in the JVM. Threads were told apart by the
// identity hash of their java.lang.Thread, 31 bits: 100 000 virtual threads
// gave two pairs that shared one, and each pair was one thread in the
// recording. A thread's key is its identity hash when it is the first
// thread of the recording with that hash (always, but for a collision),
// else TKEY_ALIAS | n (n = 1, 2, ...: the n-th thread the recording met
// whose hash another had first), which no identity hash is. Threads are
// told apart by Thread.tid (unique in a JVM's life), registered at their
// first sight: their start (the starter names them), their own first
// event, the attach's list. The writer writes an alias as its hash (the
// seed's text) or as an alias record (compact: hash and rank).
//
// Naming a thread by its hash costs one load while no two threads shared
// a hash (tkey_named), and a probe of a small set after; only a hash that
// two threads share needs the thread's tid (tkey_register). A leaf.
#ifndef ORCA_TKEYS_H
#define ORCA_TKEYS_H
#include <stdatomic.h>
#include <stdint.h>

#define TKEY_ALIAS 0x80000000u

// tkey_register returns the key of the thread of identity hash h and
// Thread.tid tid, registering it when it is new; h when h is 0, tid is
// negative (unknown), or the table is full (then *full is set, when full
// is not NULL: the caller counts it in .info thread_keys_full; a leaf, this
// module counts nothing). Any thread; takes a lock of its own.
uint32_t tkey_register(uint32_t h, int64_t tid, int *full);

// tkey_named returns the key of the thread of hash h when h alone says it
// (no two threads of the recording had h), else 0: the caller then asks
// tkey_register with the thread's tid. Lock-free.
extern atomic_uint tkeys_aliases;   // aliases given in this recording
uint32_t tkey_named_slow(uint32_t h);
static inline uint32_t tkey_named(uint32_t h) {
  return atomic_load_explicit(&tkeys_aliases, memory_order_relaxed) ? tkey_named_slow(h) : h;
}

// tkey_hash returns the identity hash of the thread of key k (k itself
// unless an alias) and sets *rank to its rank among the threads of that
// hash (0 for the first).
uint32_t tkey_hash(uint32_t k, uint32_t *rank);

// tkeys_reset forgets every thread (the unit test; no thread may register
// meanwhile). A later recording in the same JVM (an attach after a stop)
// keeps the keys: threads keep their states, which hold them, so a rank
// counts the threads of the hash since the agent was loaded.
void tkeys_reset(void);

// tkeys_limit caps the threads registered (the unit test; 0: the default).
void tkeys_limit(uint32_t max);
#endif
