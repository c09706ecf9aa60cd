// The compact encoder's cost a record (docs/PERFORMANCE.md, "The compact
// encoding's cost"): compact_rec on park-like records (ThreadPark with 8
// frames, ThreadUnparked with its how and 8 frames, ThreadUnpark; 64
// threads, 16 stacks), chunks begun and closed as the writer does, the
// checksum summed as the writer does (compact_sum once per written run).
// A measurement aid, not part of the build: bench/c/encode.sh builds it
// against the working tree and a git revision and runs both, alternately.
// Prints the mean and the best of batches of 8 192 records (the best is
// what the code costs on a machine shared with other work), and the bytes
// a record.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/events.h"
#include "record/compact.h"
#include "record/rec.h"

static int64_t now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void) {
  enum { N = 4000000, BATCH = 8192, ROUNDS = 3 };
  static uint64_t recs[3][16][16];
  static char out[(1 << 20) + 300000];
  compact_enc e;
  if (compact_init(&e)) return 1;
  int kinds[3] = {ORCA_EV_THREAD_PARK, ORCA_EV_THREAD_UNPARKED, ORCA_EV_THREAD_UNPARK};
  const char *text[3] = {"", "unparked", ""};
  for (int k = 0; k < 3; k++) {
    for (int s = 0; s < 16; s++) {
      orca_rec *r = (orca_rec *)recs[k][s];
      r->kind = (uint8_t)kinds[k];
      r->nframes = k == 2 ? 0 : 8;
      orca_frame *fr = (orca_frame *)(r + 1);
      for (int i = 0; i < r->nframes; i++) fr[i] = (orca_frame){(uint32_t)(100 + s * 8 + i), (uint32_t)(i * 3)};
      r->namelen = (uint16_t)strlen(text[k]);
      memcpy(fr + r->nframes, text[k], r->namelen);
      r->size = 96;
    }
  }
  for (int round = 0; round < ROUNDS; round++) {
    int64_t t0 = now(), ts = 1000000, best = INT64_MAX, b0 = t0;
    size_t n = 0, total = 0;
    for (int i = 0; i < N; i++) {
      if (i % BATCH == 0) {
        int64_t t = now();
        if (i && t - b0 < best) best = t - b0;
        b0 = t;
      }
      orca_rec *r = (orca_rec *)recs[i % 3][(i / 3) % 16];
      r->ts = ts += 50;
      r->thread = 0x1000 + (uint32_t)(i % 64);
      r->object = 0xBEEF + (uint32_t)(i % 7);
      if (compact_due(&e, r) || n > (1 << 20)) {
#ifdef COMPACT_HAS_TRAILER
        compact_sum(&e, out, n);
        size_t l = 0;
        if (compact_end(&e, &l)) total += l;
#endif
        total += n;
        n = 0;
        if (compact_due(&e, r)) {
          size_t l;
          compact_begin(&e, r->ts, &l);
          total += l;
        }
      }
      n += compact_rec(&e, out + n, r);
      if (i % 4096 == 0) compact_settle(&e);
    }
    total += n;
    printf("%.1f ns a record (best batch %.1f), %.2f bytes a record\n", (double)(now() - t0) / N, (double)best / BATCH,
           (double)total / N);
  }
  compact_free(&e);
  return 0;
}
