// Thread keys (record/tkeys.c): threads that share an identity hash get
// keys of their own (issue 30, item 4b: 100 000 virtual threads gave two
// pairs, each one thread in the recording); the first of a hash keeps the
// hash; a thread is known again by its tid; naming by the hash alone is
// refused for a shared hash; a full table names by the hash (and says so).
#include <stdint.h>
#include "check.h"
#include "record/tkeys.h"

void test_tkeys(void) {
  test_name = "tkeys";
  tkeys_reset();
  const uint32_t H = 0x5CDA6869, G = 0x15DB9742;
  uint32_t rank = 9;
  CHECK(tkey_named(H) == H, "before any collision, a hash names its thread: %08X", tkey_named(H));
  uint32_t a = tkey_register(H, 6892, NULL);
  CHECK(a == H, "the first thread of a hash: key %08X, want its hash", a);
  CHECK(tkey_register(G, 7, NULL) == G, "another hash");
  CHECK(tkey_named(H) == H && atomic_load(&tkeys_aliases) == 0, "no alias yet");
  uint32_t b = tkey_register(H, 9025, NULL);
  CHECK(b == (TKEY_ALIAS | 1), "the second thread of the hash: key %08X, want 80000001", b);
  CHECK(tkey_hash(b, &rank) == H && rank == 1, "alias 80000001: hash %08X rank %u, want %08X 1", tkey_hash(b, &rank), rank, H);
  CHECK(tkey_hash(a, &rank) == H && rank == 0, "a hash is its own key, rank 0");
  // Known again by their tids, in any order; a third gets the next alias, rank 2.
  CHECK(tkey_register(H, 9025, NULL) == b && tkey_register(H, 6892, NULL) == a, "registered again: the same keys");
  uint32_t c = tkey_register(H, 12345, NULL);
  CHECK(c == (TKEY_ALIAS | 2) && tkey_hash(c, &rank) == H && rank == 2, "a third: key %08X rank %u, want 80000002 rank 2", c, rank);
  // The hash alone no longer says which thread; another hash still does.
  CHECK(tkey_named(H) == 0, "a shared hash named alone: %08X, want 0 (ask by tid)", tkey_named(H));
  CHECK(tkey_named(G) == G, "an unshared hash: %08X", tkey_named(G));
  // No tid, no hash: named by the hash.
  CHECK(tkey_register(H, -1, NULL) == H && tkey_register(0, 5, NULL) == 0, "an unknown tid or hash 0: the hash");
  // Many threads: the shards grow; each keeps its key.
  int bad = 0;
  for (uint32_t i = 1; i <= 20000; i++) bad += tkey_register(0x100000u + i, i, NULL) != 0x100000u + i;
  for (uint32_t i = 1; i <= 20000; i++) bad += tkey_register(0x100000u + i, i, NULL) != 0x100000u + i;
  CHECK(!bad, "%d of 40 000 registrations of distinct hashes not their hash", bad);
  CHECK(tkey_register(H, 9025, NULL) == b, "after the growth, the alias stays");
  // Full: a new thread of a shared hash is named by the hash, and counted.
  tkeys_reset();
  tkeys_limit(2);
  int full = 0;
  tkey_register(H, 1, &full);
  tkey_register(G, 2, &full);
  CHECK(!full, "not full yet");
  CHECK(tkey_register(H, 3, &full) == H && full, "full: the hash, said");
  tkeys_limit(0);
  tkeys_reset();
}
