#define _GNU_SOURCE
#define ORCA_ARCH_CONTEXT
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "core/arch.h"
#include "hotspot/safe.h"

__thread safe_guard *safe_cur;
int safe_installed;
static struct sigaction old_segv, old_bus;

// The linker's bounds of the section SAFE_CODE.
extern char __start_orca_safe[], __stop_orca_safe[];

int safe_guarded(void) { return safe_installed; }

// The guards of signal handlers, by thread id (safe_try_tid): open
// addressing; a slot is claimed (CAS of its id from 0, or -1: given back)
// while its handler walks, and given back after, so that the table holds
// at most the handlers running at once.
enum { TID_GUARDS = 4096 };
static atomic_int tid_of[TID_GUARDS];
static _Atomic(safe_guard *) tid_guard[TID_GUARDS];

static unsigned tid_home(int tid) { return ((unsigned)tid * 2654435761u) % TID_GUARDS; }

int safe_tid_put(safe_guard *g, int tid) {
  if (tid <= 0) return 0;
  for (unsigned i = tid_home(tid), n = 0; n < TID_GUARDS; i = (i + 1) % TID_GUARDS, n++) {
    int t = atomic_load_explicit(&tid_of[i], memory_order_relaxed);
    if ((t == 0 || t == -1) && atomic_compare_exchange_strong(&tid_of[i], &t, -2)) {
      atomic_store_explicit(&tid_guard[i], g, memory_order_relaxed);
      atomic_store_explicit(&tid_of[i], tid, memory_order_release);
      return 1;
    }
  }
  return 0;
}

// tid_find returns tid's slot, -1 when it has none.
static int tid_find(int tid) {
  for (unsigned i = tid_home(tid), n = 0; n < TID_GUARDS; i = (i + 1) % TID_GUARDS, n++) {
    int t = atomic_load_explicit(&tid_of[i], memory_order_acquire);
    if (t == tid) return (int)i;
    if (t == 0) return -1;
  }
  return -1;
}

void safe_leave_tid(int tid) {
  int i = tid > 0 ? tid_find(tid) : -1;
  if (i < 0) return;
  atomic_store_explicit(&tid_guard[i], NULL, memory_order_relaxed);
  atomic_store_explicit(&tid_of[i], -1, memory_order_release);
}

#if ARCH_CONTEXT
// resume runs on the faulting thread after the handler returned (so the
// kernel has restored its signal mask): back to the guard's _setjmp.
static void resume(void *g) { _longjmp(((safe_guard *)g)->jb, 1); }

static void chain(int sig, siginfo_t *si, void *uc) {
  struct sigaction *o = sig == SIGBUS ? &old_bus : &old_segv;
  if (o->sa_flags & SA_SIGINFO) {
    o->sa_sigaction(sig, si, uc);
  } else if (o->sa_handler == SIG_DFL) {
    // Not the JVM's (it installs its own before agents load): the default
    // action, once this handler returns and the instruction faults again.
    sigaction(sig, o, NULL);
  } else if (o->sa_handler != SIG_IGN) {
    o->sa_handler(sig);
  }
}

// The faults recovered: counted here, in the handler, and read for .info
// (counters_source, set by the jvm module).
static atomic_long faults;

long safe_faults(void) { return atomic_load_explicit(&faults, memory_order_relaxed); }

static void handler(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  uintptr_t pc = arch_uc_pc(uc);
  // Only a fault in guarded code: the thread entered a guard before it ran
  // any code of the section, so its guard is set (and its thread-local
  // storage allocated).
  if (pc >= (uintptr_t)__start_orca_safe && pc < (uintptr_t)__stop_orca_safe) {
    // A sampler's handler walking (safe_try_tid) first: it may have
    // interrupted guarded code of the thread's own, whose guard is safe_cur.
    int i = tid_find((int)syscall(SYS_gettid));
    safe_guard *g = i >= 0 ? atomic_load_explicit(&tid_guard[i], memory_order_acquire) : NULL;
    if (!g) g = safe_cur;
    if (g) {
      atomic_fetch_add_explicit(&faults, 1, memory_order_relaxed);
      arch_uc_call(uc, resume, g);
      return;
    }
  }
  chain(sig, si, ucv);
}
#endif

static int install(int sig, struct sigaction *old) {
#if ARCH_CONTEXT
  struct sigaction sa;
  if (sigaction(sig, NULL, old) != 0) return 0;
  // The JVM's handler takes siginfo; anything else is not HotSpot's setup.
  if (!(old->sa_flags & SA_SIGINFO) || !old->sa_sigaction) return 0;
  sa = *old;   // its mask and flags (SA_ONSTACK, SA_RESTART), our function
  sa.sa_sigaction = handler;
  return sigaction(sig, &sa, NULL) == 0;
#else
  (void)sig; (void)old;
  return 0;
#endif
}

const char *safe_init(int check_jni) {
  if (check_jni) return "process_vm_readv (-Xcheck:jni checks that the JVM's SIGSEGV handler is unchanged)";
  if (!ARCH_CONTEXT) return "process_vm_readv (no fault handler for " ARCH_NAME ")";
  if (!install(SIGSEGV, &old_segv)) return "process_vm_readv (the JVM's SIGSEGV handler not found)";
  if (!install(SIGBUS, &old_bus)) {
    sigaction(SIGSEGV, &old_segv, NULL);
    return "process_vm_readv (the JVM's SIGBUS handler not found)";
  }
  safe_installed = 1;
  return "fault handler";
}

// by_kernel has the kernel copy: process_vm_readv (our own process seen
// as another's), or where a seccomp filter forbids it (containers without
// CAP_SYS_PTRACE), write(2) to a pipe; both fail instead of faulting.
static atomic_int no_pvr;
static pthread_mutex_t pipe_mu = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2] = {-1, -1};

static int by_kernel(void *out, const void *p, size_t n) {
  if (!atomic_load_explicit(&no_pvr, memory_order_relaxed)) {
    struct iovec local = {out, n}, remote = {(void *)p, n};
    ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (r >= 0 || (errno != EPERM && errno != ENOSYS)) return r == (ssize_t)n;
    atomic_store(&no_pvr, 1);
  }
  int ok = 0;
  pthread_mutex_lock(&pipe_mu);
  if (n <= 4096 && (pipefd[0] >= 0 || pipe2(pipefd, O_NONBLOCK | O_CLOEXEC) == 0)) {
    ssize_t w = write(pipefd[1], p, n);
    if (w > 0) ok = read(pipefd[0], out, (size_t)w) == w && (size_t)w == n;
  }
  pthread_mutex_unlock(&pipe_mu);
  return ok;
}

int safe_probe(void *out, vm_ptr p, size_t n) { return by_kernel(out, (const void *)p.vm_bits_, n); }
