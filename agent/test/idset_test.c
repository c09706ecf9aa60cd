// The set of ids (core/idset.c): each id is new once, in any order; ids in
// runs and ids far apart; growth keeps them; ids <= 0 are always new; a
// freed set is empty.
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "core/idset.h"

void test_idset(void) {
  test_name = "idset";
  idset s = {0};
  enum { N = 100000 };
  // 100 000 ids of one run, added in a shuffled order, then again.
  int64_t *ids = malloc(N * sizeof *ids);
  for (int i = 0; i < N; i++) ids[i] = 37 + i;
  uint64_t r = 88172645463325252ull;
  for (int i = N - 1; i > 0; i--) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    int j = (int)(r % (uint64_t)(i + 1));
    int64_t t = ids[i];
    ids[i] = ids[j], ids[j] = t;
  }
  int fresh = 0, again = 0;
  for (int i = 0; i < N; i++) fresh += idset_add(&s, ids[i]);
  for (int i = 0; i < N; i++) again += idset_add(&s, ids[i]);
  CHECK(fresh == N && again == 0, "a run of %d ids: %d new, %d new again (want %d, 0)", N, fresh, again, N);
  CHECK(s.n <= N / 64 + 2, "a run of %d ids in %zu words, want at most %d", N, s.n, N / 64 + 2);
  // Neighbours of the run and ids far apart (each in a word of its own).
  CHECK(idset_add(&s, 36) && idset_add(&s, 37 + N) && !idset_add(&s, 36), "the ids beside the run: new once");
  int far = 0;
  for (int64_t k = 1; k <= 5000; k++) far += idset_add(&s, k * 1000003 + (k << 40));
  for (int64_t k = 1; k <= 5000; k++) far -= !idset_add(&s, k * 1000003 + (k << 40));
  CHECK(far == 0, "5 000 ids far apart: %d not new once", far);
  CHECK(!idset_add(&s, ids[0]) && !idset_add(&s, ids[N - 1]), "after growing, the run is still there");
  // An id that cannot be told is taken as new, every time.
  CHECK(idset_add(&s, 0) && idset_add(&s, 0) && idset_add(&s, -5), "ids <= 0: always new");
  idset_free(&s);
  CHECK(s.n == 0 && s.cap == 0 && idset_add(&s, ids[0]), "freed: empty");
  idset_free(&s);
  free(ids);
}
