// The cost of each way to read memory that may not be mapped (docs/agent.md,
// "Fault-safe reads"). A measurement aid, not part of the build:
//
//   gcc -O2 -Iagent -o /tmp/saferead bench/c/saferead.c agent/hotspot/safe.c -ldl -lpthread
//   /tmp/saferead [LIBJVM OFFSET]
//
// With LIBJVM and the file offset of its SafeFetchN_impl (nm LIBJVM | grep
// SafeFetchN_impl; a local symbol, not exported), HotSpot's SafeFetchN is
// timed too (called without a VM: only its cost when nothing faults).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "hotspot/safe.h"

enum { N = 10000000, WORDS = 64 };
static uintptr_t data[WORDS];

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

// A stand-in for the JVM's handler, so safe_init finds one to chain to.
static void jvm_handler(int sig, siginfo_t *si, void *uc) {
  (void)si; (void)uc;
  fprintf(stderr, "unexpected signal %d\n", sig);
  _exit(1);
}

static volatile uintptr_t sink;

int main(int argc, char **argv) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = jvm_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  printf("safe_init: %s\n", safe_init(0));
  for (int i = 0; i < WORDS; i++) data[i] = (uintptr_t)i;
  uintptr_t s = 0, w;
  double t;

  t = now();
  for (int i = 0; i < N; i++) s += ((volatile uintptr_t *)data)[i % WORDS];
  printf("direct load:                 %6.2f ns\n", (now() - t) / N);

  t = now();
  for (int i = 0; i < N; i++) {
    safe_word(vm_at((uintptr_t)&data[i % WORDS]), &w);
    s += w;
  }
  printf("safe_word (a guard a read):  %6.2f ns\n", (now() - t) / N);

  t = now();
  for (int i = 0; i < N; i++) {
    safe_guard g;
    if (safe_try(&g)) s += i;
    safe_leave(&g);
  }
  printf("one guard (a walk's cost):   %6.2f ns\n", (now() - t) / N);

  if (argc == 3) {
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *ref = h ? dlsym(h, "JNI_CreateJavaVM") : NULL;
    Dl_info di;
    if (ref && dladdr(ref, &di)) {
      uintptr_t (*safefetch)(const void *, uintptr_t) =
          (uintptr_t(*)(const void *, uintptr_t))((char *)di.dli_fbase + strtoul(argv[2], NULL, 0));
      t = now();
      for (int i = 0; i < N; i++) s += safefetch(&data[i % WORDS], 0);
      printf("HotSpot SafeFetchN:          %6.2f ns\n", (now() - t) / N);
    } else {
      printf("HotSpot SafeFetchN: cannot load %s: %s\n", argv[1], dlerror());
    }
  }

  int n2 = N / 100;
  pid_t pid = getpid();
  t = now();
  for (int i = 0; i < n2; i++) {
    struct iovec l = {&w, sizeof w}, r = {&data[i % WORDS], sizeof w};
    process_vm_readv(pid, &l, 1, &r, 1, 0);
    s += w;
  }
  printf("process_vm_readv:            %6.2f ns\n", (now() - t) / n2);

  int fd[2];
  if (pipe2(fd, O_NONBLOCK) == 0) {
    t = now();
    for (int i = 0; i < n2; i++) {
      if (write(fd[1], &data[i % WORDS], sizeof w) == sizeof w && read(fd[0], &w, sizeof w) == sizeof w) s += w;
    }
    printf("write(2)+read(2) on a pipe:  %6.2f ns\n", (now() - t) / n2);
  }

  char *bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int n3 = 100000, ok = 0;
  t = now();
  for (int i = 0; i < n3; i++) ok += safe_word(vm_at((uintptr_t)bad), &w);
  printf("safe_word on a PROT_NONE page (fault recovered): %.0f ns, %d of %d read, %ld faults\n",
         (now() - t) / n3, ok, n3, safe_faults());
  sink = s;
  return ok != 0;
}
