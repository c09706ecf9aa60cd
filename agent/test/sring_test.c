// sring.c: a sample slot's ring (one producer, one consumer): records come
// out whole, in order, of their length; a full ring refuses a record rather
// than overwrite one not taken; a record never wraps (padding at the end);
// a producer thread and a consumer thread running at once lose nothing
// but what the producer was told was refused.
#include "../record/sring.c"
#include "check.h"
#include <pthread.h>

static sring *ring;
static atomic_int done;
static long put_ok, refused;

static void *producer(void *arg) {
  (void)arg;
  for (uint32_t i = 1; i <= 200000; i++) {
    uint32_t rec[9];
    uint32_t n = 1 + i % 9;   // 4 to 36 bytes
    for (uint32_t k = 0; k < n; k++) rec[k] = i * 31 + k;
    rec[0] = i;
    if (sring_put(ring, rec, n * 4)) put_ok++;
    else refused++;
  }
  atomic_store(&done, 1);
  return NULL;
}

void test_sring(void) {
  test_name = "sring";
  sring *r = sring_new(100);   // rounded up to 104
  CHECK(r && r->cap == 104, "cap %u", r ? r->cap : 0);
  if (!r) return;
  uint32_t len = 0;
  CHECK(!sring_peek(r, &len), "an empty ring gave a record");
  char a[20] = "abcdefghijklmnopqrs", b[40];
  CHECK(sring_put(r, a, 20), "first record refused");    // 8 + 24 = 32
  CHECK(sring_put(r, a, 20), "second record refused");   // 64
  CHECK(sring_put(r, a, 20), "third record refused");    // 96
  CHECK(!sring_put(r, a, 1), "a full ring took a record");   // 16 more do not fit in 104
  const char *p = sring_peek(r, &len);
  CHECK(p && len == 24 && !memcmp(p, a, 20), "first record: len %u", len);
  sring_pop(r);
  // 8 bytes left at the end, 32 free at the start: the record goes there, after padding.
  CHECK(sring_put(r, b, 20), "a record that fits after padding was refused");
  CHECK(!sring_put(r, b, 1), "no room left, yet taken");
  int n = 0;
  while ((p = sring_peek(r, &len))) {
    n++;
    sring_pop(r);
  }
  CHECK(n == 3, "records taken %d, want 3", n);
  CHECK(!sring_put(r, b, 200), "a record larger than the ring was taken");
  sring_free(r);

  // One producer, one consumer at once.
  ring = sring_new(4096);
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  uint32_t last = 0;
  long got = 0, bad = 0;
  for (;;) {
    int fin = atomic_load(&done);
    while ((p = sring_peek(ring, &len))) {
      uint32_t rec[9];
      memcpy(rec, p, len < sizeof rec ? len : sizeof rec);
      uint32_t i = rec[0], want = (1 + i % 9) * 4;
      want = (want + 7) & ~7u;
      if (i <= last || len != want) bad++;
      for (uint32_t k = 1; k < 1 + i % 9; k++)
        if (rec[k] != i * 31 + k) bad++;
      last = i;
      got++;
      sring_pop(ring);
    }
    if (fin) break;
  }
  pthread_join(t, NULL);
  CHECK(bad == 0, "%ld records out of order, of a wrong length or torn", bad);
  CHECK(got == put_ok && got + refused == 200000, "got %ld, put %ld, refused %ld", got, put_ok, refused);
  sring_free(ring);
}
