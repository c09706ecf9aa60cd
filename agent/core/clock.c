#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "core/clock.h"

int clock_tsc;
static _Atomic double rate = 1.0;   // nanoseconds per tick
static int64_t anchor_ns, anchor_ticks;   // start of the rate's window (writer)

// pair reads the clock and the counter at (nearly) one instant: the
// counter on both sides of the clock, the closest of a few tries.
static void pair(int64_t *ns, int64_t *ticks) {
  int64_t best = INT64_MAX;
  *ns = *ticks = 0;
  for (int i = 0; i < 5; i++) {
    int64_t t1 = clock_ticks(), n = clock_now(), t2 = clock_ticks();
    if (t2 - t1 < best) {
      best = t2 - t1;
      *ns = n;
      *ticks = t1 + (t2 - t1) / 2;
    }
  }
}

// The kernel chose the counter for its own clock only if it is invariant
// and synchronised across CPUs.
static int kernel_uses_tsc(void) {
  char buf[32] = "";
  FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (!f) return 0;
  int ok = fgets(buf, sizeof buf, f) && !strcmp(buf, "tsc\n");
  fclose(f);
  return ok;
}

const char *clock_init(void) {
  clock_tsc = ARCH_TSC && kernel_uses_tsc();
  if (!clock_tsc) return "monotonic";
  pair(&anchor_ns, &anchor_ticks);
  int64_t n, t;
  do pair(&n, &t);
  while (n - anchor_ns < 200000);
  atomic_store(&rate, (double)(n - anchor_ns) / (double)(t - anchor_ticks));
  return "tsc";
}

void clock_calibrate(void) {
  if (!clock_tsc) return;
  int64_t n, t;
  pair(&n, &t);
  if (t <= anchor_ticks || n - anchor_ns < 10000000) return;
  double r = (double)(n - anchor_ns) / (double)(t - anchor_ticks);
  if (r > 0.01 && r < 100) atomic_store(&rate, r);
  if (n - anchor_ns < 1000000000LL) return;
  anchor_ns = n;
  anchor_ticks = t;
}

int64_t clock_ticks_ns(int64_t ticks, int64_t ref_ns, int64_t ref_ticks) {
  if (!clock_tsc) return ticks;
  if (ticks <= ref_ticks) return ref_ns;
  int64_t ns = ref_ns + (int64_t)((double)(ticks - ref_ticks) * atomic_load(&rate)), now = clock_now();
  return ns < now ? ns : now;
}

int64_t clock_ticks_between(int64_t ticks, int64_t a_ns, int64_t a_ticks, int64_t b_ns, int64_t b_ticks) {
  if (b_ns <= a_ns) return a_ns;
  if (!clock_tsc) return ticks < a_ns ? a_ns : ticks > b_ns ? b_ns : ticks;
  if (ticks <= a_ticks) return a_ns;
  if (ticks >= b_ticks) return b_ns;
  return a_ns + (int64_t)((double)(ticks - a_ticks) * (double)(b_ns - a_ns) / (double)(b_ticks - a_ticks));
}
