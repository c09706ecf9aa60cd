// tcpu.c: a thread's ThreadCPU records — its baseline when registered, the
// writer's poll only when its times changed, its last read by itself at
// its end — and their times against the kernel's own clock of the thread.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "core/events.h"
#include "record/ring.h"
#include "record/tcpu.h"

static int64_t thread_cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// The ThreadCPU records of key in the shards, in order, as "CPU,READY".
static int take(uint32_t key, unsigned long long *cpu, unsigned long long *ready, int cap) {
  int n = 0;
  for (int i = 0; i < RING_SHARDS; i++) {
    size_t len, off = 0;
    const char *buf = ring_take(i, &len);
    for (const orca_rec *r; (r = ring_next(buf, len, &off));) {
      if (r->kind != ORCA_EV_THREAD_C_P_U || r->thread != key || n == cap) continue;
      char text[64] = {0};
      memcpy(text, (const char *)(r + 1), r->namelen < 63 ? r->namelen : 63);
      if (sscanf(text, "%llu,%llu", &cpu[n], &ready[n]) == 2) n++;
    }
  }
  return n;
}

typedef struct {
  uint32_t key;
  int64_t burn_ns;
  int end;             // calls tcpu_end itself
  atomic_int tid;
  atomic_int go;       // main lets it end
  int64_t cpu_at_end;  // its CPU clock just before tcpu_end
} burner;

static void *burn(void *p) {
  burner *b = p;
  int tid = (int)syscall(SYS_gettid);
  tcpu_add(b->key, tid, 1);
  int64_t until = thread_cpu_ns() + b->burn_ns;
  volatile unsigned long x = 0;
  while (thread_cpu_ns() < until) x++;
  atomic_store(&b->tid, tid);
  while (!atomic_load(&b->go)) usleep(1000);
  b->cpu_at_end = thread_cpu_ns();
  if (b->end) tcpu_end(tid, 1);
  return NULL;
}

void test_tcpu(void) {
  test_name = "tcpu";
  ring_threads(0);
  for (int i = 0; i < RING_SHARDS; i++) ring_take(i, &(size_t){0}), ring_take(i, &(size_t){0});
  CHECK(tcpu_start(0) == NULL && tcpu_period_ms() == 0, "thread_cpu=off");
  tcpu_add(0x51, (int)syscall(SYS_gettid), 0);   // off: nothing
  const char *err = tcpu_start(100);
  CHECK(!err && tcpu_period_ms() == 100, "tcpu_start(100): %s", err ? err : "period not set");
  if (err) return;
  unsigned long long cpu[16], ready[16];
  CHECK(take(0x51, cpu, ready, 16) == 0, "a ThreadCPU while off");

  // A thread that burns 150 ms: its baseline, then nothing until a poll
  // finds its times changed, then its last at its own end, equal to its
  // CPU clock then.
  burner a = {.key = 0x0A, .burn_ns = 150000000, .end = 1};
  pthread_t ta;
  pthread_create(&ta, NULL, burn, &a);
  while (!atomic_load(&a.tid)) usleep(1000);
  int64_t now = 1000000000000LL;
  tcpu_poll(now, 0);   // the first poll: its times changed since its baseline
  int n = take(0x0A, cpu, ready, 16);
  CHECK(n == 2 && cpu[0] < 20000000ULL && cpu[1] >= 150000000ULL, "baseline and a poll: %d records, cpu %llu then %llu", n,
        n > 0 ? cpu[0] : 0, n > 1 ? cpu[1] : 0);
  tcpu_poll(now + 50000000, 0);   // within the period: no read
  CHECK(take(0x0A, cpu, ready, 16) == 0, "a poll within the period wrote");
  atomic_store(&a.go, 1);
  pthread_join(ta, NULL);
  n = take(0x0A, cpu, ready, 16);
  CHECK(n == 1, "its end: %d records, want 1", n);
  if (n == 1) {
    long long d = (long long)cpu[0] - a.cpu_at_end;
    CHECK(d >= 0 && d < 2000000, "its end: cpu %llu, its CPU clock %lld before", cpu[0], (long long)a.cpu_at_end);
  }
  tcpu_poll(now + 200000000, 1);
  CHECK(take(0x0A, cpu, ready, 16) == 0, "a ThreadCPU after its end");

  // A thread that exits without its end: the final poll finds its times
  // gone and forgets it, and a later thread of the same tid is not its.
  burner b = {.key = 0x0B, .burn_ns = 10000000, .end = 0, .go = 1};
  pthread_t tb;
  pthread_create(&tb, NULL, burn, &b);
  pthread_join(tb, NULL);
  // pthread_join returns once the kernel cleared the thread's tid, which
  // it does before it takes the task out of /proc: wait for that (a run
  // of the unit tests read the exited thread's times still there).
  char task[64];
  snprintf(task, sizeof task, "/proc/self/task/%d", atomic_load(&b.tid));
  for (int i = 0; i < 1000 && access(task, F_OK) == 0; i++) usleep(1000);
  tcpu_poll(now + 300000000, 1);
  n = take(0x0B, cpu, ready, 16);
  CHECK(n == 1, "an exited thread: %d records, want its baseline only", n);
  tcpu_end(atomic_load(&b.tid), 1);   // forgotten already: nothing
  CHECK(take(0x0B, cpu, ready, 16) == 0, "a ThreadCPU of a thread forgotten");

  // The calling thread unchanged between two final polls: written once.
  int me = (int)syscall(SYS_gettid);
  tcpu_add(0x0C, me, 2);
  CHECK(take(0x0C, cpu, ready, 16) == 1, "no baseline of 0x0C");
  tcpu_add(0x0D, me, 2);   // the same tid registered again: the new key
  CHECK(take(0x0D, cpu, ready, 16) == 1, "no baseline of 0x0D");
  tcpu_poll(now + 400000000, 1);
  n = take(0x0C, cpu, ready, 16);
  CHECK(n == 0, "the old key of a tid registered again: %d records", n);
  tcpu_end(me, 0);
  tcpu_poll(now + 500000000, 1);
  CHECK(take(0x0D, cpu, ready, 16) == 0, "a ThreadCPU after tcpu_end(0)");
  CHECK(tcpu_read(0, &(uint64_t){0}, &(uint64_t){0}) == 0, "tid 0 read");
  tcpu_start(0);
}
