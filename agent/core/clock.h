// Timestamps: CLOCK_MONOTONIC nanoseconds (23 ns per read, measured), and
// ticks for the one callback that runs while the thread owns a contended
// monitor (MonitorContendedEntered): there every nanosecond lengthens the
// critical section (docs/perf/2026-11-before-issue-12.md, "The Entered
// clock"). Ticks are the
// CPU's time-stamp counter (10 ns) where the kernel's own clock runs on it,
// else nanoseconds; clock_ticks_ns turns them into nanoseconds later.
#ifndef ORCA_CLOCK_H
#define ORCA_CLOCK_H
#include <stdint.h>
#include <time.h>
#include "core/arch.h"

static inline int64_t clock_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int64_t clock_unix_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

extern int clock_tsc;   // ticks are time-stamp counter readings

static inline int64_t clock_ticks(void) {
  if (ARCH_TSC && clock_tsc) return arch_ticks();
  return clock_now();
}

// clock_pair reads both clocks at one instant (retrying, a few times, a
// read that straddled a preemption), for clock_ticks_ns's reference.
static inline void clock_pair(int64_t *ns, int64_t *ticks) {
  for (int i = 0;; i++) {
    int64_t a = clock_now(), t = clock_ticks(), b = clock_now();
    if (b - a < 2000 || i == 3) {
      *ns = a + (b - a) / 2;
      *ticks = t;
      return;
    }
  }
}

// clock_init decides what ticks are and measures the counter's rate (200
// µs at agent load); "tsc" or "monotonic".
const char *clock_init(void);
// clock_calibrate refines the rate over a window of 10 ms to 1 s, then
// starts a new one (the writer calls it at every flush; the kernel slews
// CLOCK_MONOTONIC, so the rate follows it).
void clock_calibrate(void);
// clock_ticks_ns converts ticks, read at or after a reference instant
// (ref_ns, ref_ticks: both read then), into nanoseconds: not before the
// reference, not after now.
int64_t clock_ticks_ns(int64_t ticks, int64_t ref_ns, int64_t ref_ticks);
// clock_ticks_between converts ticks read between two instants of both
// clocks (a_ns, a_ticks before; b_ns, b_ticks after: clock_pair's) by
// interpolating between them: never before a_ns nor after b_ns, and no
// rate's error grows with the distance from a reference. The Entered of
// a contention seconds long is converted so: over 3.3 s the rate's error
// put one after its thread's next event (issue 33, TestVirtualStress).
int64_t clock_ticks_between(int64_t ticks, int64_t a_ns, int64_t a_ticks, int64_t b_ns, int64_t b_ticks);
#endif
