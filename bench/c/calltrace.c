// calltrace.c: the agent's dynamic call graph, for bench/callfiles.sh. Linked
// into a build of the agent compiled with -finstrument-functions (this file
// without it): every function the agent enters is noted with the function it
// was called from (0: called by the JVM), in a table written at exit to
// $ORCA_CALLTRACE as "caller callee calls" lines of offsets in the library.
// Only the calls made from $ORCA_CALLTRACE_AFTER seconds after the library
// is loaded (default 2.5) are noted: the steady state, without what runs
// once (a thread's state made, a class resolved, the JVM calling back into
// the agent from inside a JNI call of its first use). Counting only; no
// timing means anything in such a build.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLOTS (1 << 16)
static _Atomic uint64_t table[SLOTS];   // caller offset << 32 | callee offset, 0: empty
static _Atomic uint64_t calls[SLOTS];   // how many times
static __thread void *stack[512];
static __thread int depth;
static uintptr_t base;
#define NOTRACE __attribute__((no_instrument_function))

static _Atomic int on;
static int64_t start_at;

NOTRACE static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

NOTRACE __attribute__((constructor)) static void init(void) {
  const char *a = getenv("ORCA_CALLTRACE_AFTER");
  start_at = now_ns() + (int64_t)((a ? atof(a) : 2.5) * 1e9);
}

// recording: the steady state has begun (a clock read until it has). Not
// before init has set start_at: the agent's own constructors (tkeys.c's)
// may run first, and a start_at of 0 would turn the notes on at load.
NOTRACE static int recording(void) {
  if (atomic_load_explicit(&on, memory_order_relaxed)) return 1;
  if (!start_at || now_ns() < start_at) return 0;
  atomic_store(&on, 1);
  return 1;
}

NOTRACE static uint32_t off(void *fn) {
  if (!base) {
    Dl_info di;
    if (dladdr(fn, &di)) base = (uintptr_t)di.dli_fbase;
  }
  return fn ? (uint32_t)((uintptr_t)fn - base) : 0;
}

NOTRACE static void note(uint64_t e) {
  for (uint32_t i = (uint32_t)((e * 0x9E3779B97F4A7C15ull) >> 48);; i = (i + 1) & (SLOTS - 1)) {
    uint64_t v = atomic_load_explicit(&table[i], memory_order_relaxed);
    if (v == 0) {
      uint64_t z = 0;
      if (atomic_compare_exchange_strong(&table[i], &z, e)) v = e;
      else v = z;
    }
    if (v == e) {
      atomic_fetch_add_explicit(&calls[i], 1, memory_order_relaxed);
      return;
    }
  }
}

NOTRACE void __cyg_profile_func_enter(void *fn, void *site) {
  (void)site;
  void *caller = depth > 0 && depth <= 512 ? stack[depth - 1] : NULL;
  if (recording()) note((uint64_t)off(caller) << 32 | off(fn));
  if (depth < 512) stack[depth] = fn;
  depth++;
}

NOTRACE void __cyg_profile_func_exit(void *fn, void *site) {
  (void)fn; (void)site;
  if (depth > 0) depth--;
}

NOTRACE __attribute__((destructor)) static void dump(void) {
  const char *p = getenv("ORCA_CALLTRACE");
  FILE *f = p ? fopen(p, "w") : NULL;
  if (!f) return;
  for (int i = 0; i < SLOTS; i++) {
    uint64_t v = atomic_load(&table[i]);
    if (v) fprintf(f, "%x %x %llu\n", (unsigned)(v >> 32), (unsigned)v, (unsigned long long)atomic_load(&calls[i]));
  }
  fclose(f);
}
