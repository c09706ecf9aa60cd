// The cost of reading a thread's scheduler times (record/tcpu.c; docs/agent.md,
// "Threads' scheduler times"), two ways, with N threads alive (sleeping):
// open, read and close /proc/self/task/TID/schedstat each time (what tcpu.c
// does), or pread of a descriptor kept a thread. A measurement aid, not part
// of the build:
//
//   gcc -O2 -Iagent -o /tmp/schedstat bench/c/schedstat.c agent/record/tcpu.c -lpthread
//   flock /work/notes/bench.lock /tmp/schedstat [THREADS] [ROUNDS]
//
// tcpu.c is linked for tcpu_read; its other functions put records, which
// this program does not call (ring_put and fmt are stubbed below).
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "record/tcpu.h"

int ring_put(int shard, int kind, int64_t ts, uint32_t thread, uint32_t object, uint32_t owner, const void *frames,
             int nframes, const char *name, int namelen) {
  (void)shard, (void)kind, (void)ts, (void)thread, (void)object, (void)owner, (void)frames, (void)nframes, (void)name,
      (void)namelen;
  return 1;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int tids[4096];
static volatile int started;

static void *sleeper(void *p) {
  tids[(intptr_t)p] = (int)syscall(SYS_gettid);
  __sync_fetch_and_add(&started, 1);
  for (;;) pause();
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 500, rounds = argc > 2 ? atoi(argv[2]) : 20;
  if (n < 1 || n > 4096) n = 500;
  for (intptr_t i = 0; i < n; i++) {
    pthread_t t;
    pthread_create(&t, NULL, sleeper, (void *)i);
  }
  while (started < n) usleep(1000);
  int *fds = malloc(n * sizeof *fds);
  for (int i = 0; i < n; i++) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tids[i]);
    fds[i] = open(path, O_RDONLY | O_CLOEXEC);
  }
  uint64_t c, r, sum = 0;
  int task = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  double open_wall = 0, open_cpu = 0, keep_wall = 0, keep_cpu = 0, at_wall = 0, at_cpu = 0;
  for (int k = 0; k < rounds; k++) {
    double w0 = now(), c0 = cpu_now();
    for (int i = 0; i < n; i++) sum += tcpu_read(tids[i], &c, &r) ? c : 0;
    open_wall += now() - w0, open_cpu += cpu_now() - c0;
    w0 = now(), c0 = cpu_now();
    for (int i = 0; i < n; i++) {
      char buf[128];
      ssize_t m = pread(fds[i], buf, sizeof buf - 1, 0);
      if (m > 0) buf[m] = 0, sum += strtoull(buf, NULL, 10);
    }
    keep_wall += now() - w0, keep_cpu += cpu_now() - c0;
    w0 = now(), c0 = cpu_now();
    for (int i = 0; i < n; i++) {
      char buf[128], path[32];
      snprintf(path, sizeof path, "%d/schedstat", tids[i]);
      int fd = openat(task, path, O_RDONLY | O_CLOEXEC);
      ssize_t m = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
      if (fd >= 0) close(fd);
      if (m > 0) buf[m] = 0, sum += strtoull(buf, NULL, 10);
    }
    at_wall += now() - w0, at_cpu += cpu_now() - c0;
  }
  double reads = (double)n * rounds;
  printf("%d threads, %d rounds, us a thread (CPU): open+read+close %.2f (%.2f); openat of /proc/self/task's fd %.2f (%.2f); "
         "pread of a kept fd %.2f (%.2f)  [%llu]\n",
         n, rounds, open_wall / reads / 1e3, open_cpu / reads / 1e3, at_wall / reads / 1e3, at_cpu / reads / 1e3,
         keep_wall / reads / 1e3, keep_cpu / reads / 1e3, (unsigned long long)(sum & 1));
  return 0;
}
