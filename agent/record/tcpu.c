#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "core/clock.h"
#include "core/events.h"
#include "core/fmt.h"
#include "record/ring.h"
#include "record/tcpu.h"

// The registered threads: a table of slots under mu, which every use takes
// for a slot's few loads and stores; the writer never holds it while it
// reads /proc (it reads without it and checks, under it again, that the
// slot still holds the thread it read: a thread that ended meanwhile wrote
// its own last times, under mu). A slot is free when its tid is 0; gen tells a slot's threads
// apart across reuse. Grown by doubling; a thread that finds no memory
// has no ThreadCPU.
typedef struct {
  int tid;
  int shard;
  uint32_t key;
  uint32_t gen;
  uint64_t cpu, ready;   // the times of its last ThreadCPU
} slot;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static slot *slots;
static int cap, high;   // slots allocated; slots [0, high) may be in use
static uint32_t gens;
static atomic_int period_ms;   // read by any thread at its start and end
static int64_t last_poll;
static long polled;

int tcpu_read(int tid, uint64_t *cpu, uint64_t *ready) {
  // One open, read and close a thread and poll: ~3 us (docs/agent.md,
  // "Threads' scheduler times"); a descriptor kept a thread would save the
  // open and close but hold hundreds of descriptors of the application's.
  char path[64], buf[128];
  snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  char *end;
  unsigned long long c = strtoull(buf, &end, 10), r;
  if (end == buf || *end != ' ') return 0;
  char *p = end + 1;
  r = strtoull(p, &end, 10);
  if (end == p) return 0;
  *cpu = c;
  *ready = r;
  return 1;
}

const char *tcpu_start(int ms) {
  pthread_mutex_lock(&mu);
  high = 0;
  if (slots) memset(slots, 0, (size_t)cap * sizeof *slots);
  last_poll = 0;
  polled = 0;
  atomic_store(&period_ms, 0);
  pthread_mutex_unlock(&mu);
  if (ms <= 0) return NULL;
  uint64_t c, r;
  if (!tcpu_read((int)syscall(SYS_gettid), &c, &r)) return "thread CPU: /proc/self/task/TID/schedstat cannot be read: no ThreadCPU";
  atomic_store(&period_ms, ms);
  return NULL;
}

int tcpu_period_ms(void) { return atomic_load(&period_ms); }

long tcpu_polled(void) { return polled; }

// put writes the ThreadCPU of key at ts: its text is "CPU,READY".
static void put(uint32_t key, int shard, int64_t ts, uint64_t cpu, uint64_t ready) {
  char text[TCPU_TEXT_MAX];
  size_t n = fmt_uint(text, cpu);
  text[n++] = ',';
  n += fmt_uint(text + n, ready);
  ring_put(shard, ORCA_EV_THREAD_C_P_U, ts, key, 0, 0, NULL, 0, text, (int)n);
}

// find returns the slot of tid, or -1 (mu held).
static int find(int tid) {
  for (int i = 0; i < high; i++)
    if (slots[i].tid == tid) return i;
  return -1;
}

void tcpu_add(uint32_t key, int tid, int shard) {
  if (!atomic_load(&period_ms) || tid <= 0) return;
  uint64_t cpu, ready;
  if (!tcpu_read(tid, &cpu, &ready)) return;
  int64_t ts = clock_now();
  pthread_mutex_lock(&mu);
  int i = find(tid);
  if (i < 0) i = find(0);
  if (i < 0 && high < cap) i = high++;
  if (i < 0) {
    int ncap = cap ? 2 * cap : 256;
    slot *n = realloc(slots, (size_t)ncap * sizeof *n);
    if (n) {
      memset(n + cap, 0, (size_t)(ncap - cap) * sizeof *n);
      slots = n;
      cap = ncap;
      i = high++;
    }
  }
  if (i >= 0) {
    slots[i] = (slot){tid, shard, key, ++gens, cpu, ready};
    put(key, shard, ts, cpu, ready);
  }
  pthread_mutex_unlock(&mu);
}

void tcpu_end(int tid, int write) {
  if (!atomic_load(&period_ms) || tid <= 0) return;
  pthread_mutex_lock(&mu);
  int i = find(tid);
  if (i >= 0) {
    uint64_t cpu, ready;
    // Its own times, read under mu: a poll that read them before cannot
    // write after this (it checks the slot again).
    if (write && tcpu_read(tid, &cpu, &ready)) put(slots[i].key, slots[i].shard, clock_now(), cpu, ready);
    slots[i].tid = 0;
    while (high > 0 && !slots[high - 1].tid) high--;
  }
  pthread_mutex_unlock(&mu);
}

void tcpu_poll(int64_t now, int final) {
  // A flush a little early (the writer is woken by full buffers too) does
  // not put the poll off by a whole flush period.
  int ms = atomic_load(&period_ms);
  if (!ms || (!final && now - last_poll < (int64_t)ms * 1000000 - 1000000)) return;
  last_poll = now;
  for (int i = 0;; i++) {
    pthread_mutex_lock(&mu);
    if (i >= high) {
      pthread_mutex_unlock(&mu);
      break;
    }
    slot s = slots[i];
    pthread_mutex_unlock(&mu);
    if (!s.tid) continue;
    uint64_t cpu, ready;
    int ok = tcpu_read(s.tid, &cpu, &ready);
    polled++;
    int64_t ts = clock_now();
    pthread_mutex_lock(&mu);
    if (i < high && slots[i].tid == s.tid && slots[i].gen == s.gen) {
      if (!ok) {
        // Its task is gone: it exited without its end (its ThreadEnd was
        // not seen); its last times were written.
        slots[i].tid = 0;
      } else if (cpu != s.cpu || ready != s.ready) {
        slots[i].cpu = cpu;
        slots[i].ready = ready;
        put(s.key, s.shard, ts, cpu, ready);
      }
    }
    pthread_mutex_unlock(&mu);
  }
}
