// clock.c: ticks to nanoseconds, its clamping, the rate's calibration.
// clock.c is included to set its rate and window directly.
#include <unistd.h>
#include "../core/clock.c"
#include "check.h"

static void set_rate(double r) { atomic_store(&rate, r); }
// clock_test_rate sets the counter's rate from another suite (pending_test.c: a rate off).
void clock_test_rate(double r) { set_rate(r); }

void test_clock(void) {
  test_name = "clock";
  const char *kind = clock_init();
  int saved_tsc = clock_tsc;
  CHECK(!strcmp(kind, saved_tsc ? "tsc" : "monotonic"), "clock_init: %s", kind);

  // Ticks that are nanoseconds already (not x86-64, or another clocksource).
  clock_tsc = 0;
  CHECK(clock_ticks_ns(12345, 100, 50) == 12345, "monotonic ticks are nanoseconds: %lld",
        (long long)clock_ticks_ns(12345, 100, 50));
  int64_t ns, ticks;
  clock_pair(&ns, &ticks);
  // Its time is the midpoint of two clock reads around the counter's.
  CHECK(ticks - ns > -1000000 && ticks - ns < 1000000, "clock_pair without a counter: %lld ns apart",
        (long long)(ticks - ns));

  // The counter at a known rate: 0.5 ns a tick.
  clock_tsc = 1;
  set_rate(0.5);
  int64_t ref = clock_now() - 10000000;   // 10 ms ago
  CHECK(clock_ticks_ns(1000 + 2000, ref, 1000) == ref + 1000, "2000 ticks at 0.5 ns: %lld ns after the reference",
        (long long)(clock_ticks_ns(3000, ref, 1000) - ref));
  CHECK(clock_ticks_ns(1000, ref, 1000) == ref, "at the reference: %lld", (long long)(clock_ticks_ns(1000, ref, 1000) - ref));
  // Clamped: never before the reference (a counter read before it), never after now.
  CHECK(clock_ticks_ns(10, ref, 1000) == ref, "before the reference: %lld ns off",
        (long long)(clock_ticks_ns(10, ref, 1000) - ref));
  int64_t far = clock_ticks_ns(1000 + (int64_t)4e12, ref, 1000), now = clock_now();
  CHECK(far <= now && far > now - 1000000000, "2000 s in the future: %lld ns after now", (long long)(far - now));

  // Between two instants: interpolated, whatever the rate (0.5 here), and
  // clamped to them; none after the second even when it is now and the
  // rate says later (issue 33).
  CHECK(clock_ticks_between(1500, ref, 1000, ref + 4000, 2000) == ref + 2000,
        "halfway between two instants 4000 ns apart: %lld", (long long)(clock_ticks_between(1500, ref, 1000, ref + 4000, 2000) - ref));
  CHECK(clock_ticks_between(10, ref, 1000, ref + 4000, 2000) == ref && clock_ticks_between(9000, ref, 1000, ref + 4000, 2000) == ref + 4000,
        "outside the two instants: not clamped to them");
  CHECK(clock_ticks_between(1500, ref, 1000, ref, 2000) == ref, "two instants at one time");
  clock_tsc = 0;
  CHECK(clock_ticks_between(ref + 100, ref, 5, ref + 50, 9) == ref + 50 && clock_ticks_between(ref + 20, ref, 5, ref + 50, 9) == ref + 20,
        "monotonic ticks between two instants: not the nanoseconds, clamped");
  clock_tsc = 1;

  // Calibration: a window shorter than 10 ms changes nothing; a longer one
  // sets the rate, and one of 1 s or more starts a new window.
  clock_pair(&ns, &ticks);
  set_rate(0.5);
  if (saved_tsc) {
    anchor_ns = ns - 1000, anchor_ticks = ticks - 1000;
    clock_calibrate();
    CHECK(atomic_load(&rate) == 0.5 && anchor_ns == ns - 1000, "a 1 us window moved the rate to %g", atomic_load(&rate));
    // The true rate, measured over 20 ms against the kernel's clock.
    int64_t n0, t0, n1, t1;
    pair(&n0, &t0);
    usleep(20000);
    pair(&n1, &t1);
    double truth = (double)(n1 - n0) / (double)(t1 - t0);
    anchor_ns = n0, anchor_ticks = t0;
    clock_calibrate();
    double r = atomic_load(&rate);
    CHECK(r > truth * 0.999 && r < truth * 1.001, "calibrated %g ns a tick, measured %g", r, truth);
    CHECK(anchor_ns == n0, "a 20 ms window was restarted");
    anchor_ns = n0 - 2000000000LL, anchor_ticks = t0 - (int64_t)(2e9 / truth);
    clock_calibrate();
    CHECK(anchor_ns > n0, "a 2 s window was not restarted");
    // Converted counter readings agree with the kernel's clock (within 20 us
    // over 20 ms, the best of a few tries: preemption between the reads).
    int64_t best = INT64_MAX;
    for (int i = 0; i < 5; i++) {
      clock_pair(&ns, &ticks);
      usleep(20000);
      int64_t a = clock_now(), t = clock_ticks(), b = clock_now(), c = clock_ticks_ns(t, ns, ticks);
      int64_t d = c < a ? a - c : c > b ? c - b : 0;
      if (d < best) best = d;
    }
    CHECK(best < 20000, "a counter reading converted is %lld ns off the clock", (long long)best);
  } else {
    printf("skip %s: the kernel's clocksource is not the time-stamp counter\n", test_name);
  }
  clock_tsc = saved_tsc;
  set_rate(1.0);
}
