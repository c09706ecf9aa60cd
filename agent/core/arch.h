// Everything that depends on the CPU, in one place: the time-stamp counter
// (clock.c), the spin-wait hint (ring.c), the registers of a signal's
// context (safe.c) and whether the own stack walker knows the
// architecture's frame layout (walk.c: x86-64 only, frame_x86.hpp).
// x86-64 is the platform; aarch64 compiles and runs without the own walker
// (walk_self says "cannot") and without the counter (CLOCK_MONOTONIC);
// `make test` cross-compiles the agent for it when aarch64-linux-gnu-gcc is
// installed.
#ifndef ORCA_ARCH_H
#define ORCA_ARCH_H
#include <stdint.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#define ARCH_NAME "x86_64"
#define ARCH_TSC 1      // a time-stamp counter the kernel may run CLOCK_MONOTONIC on
#define ARCH_WALKER 1   // walk.c knows the frames (frame_x86.hpp)
static inline int64_t arch_ticks(void) { return (int64_t)__rdtsc(); }
static inline void arch_pause(void) { __builtin_ia32_pause(); }
#elif defined(__aarch64__)
#define ARCH_NAME "aarch64"
#define ARCH_TSC 0
#define ARCH_WALKER 0
static inline int64_t arch_ticks(void) { return 0; }
static inline void arch_pause(void) { __asm__ __volatile__("yield" ::: "memory"); }
#else
#define ARCH_NAME "other"
#define ARCH_TSC 0
#define ARCH_WALKER 0
static inline int64_t arch_ticks(void) { return 0; }
static inline void arch_pause(void) { __asm__ __volatile__("" ::: "memory"); }
#endif

// The signal context, for safe.c only (it defines _GNU_SOURCE first, which
// <ucontext.h> needs for the register names). ARCH_CONTEXT: the fault
// handler knows this architecture's registers.
#ifdef ORCA_ARCH_CONTEXT
#include <ucontext.h>
#if defined(__x86_64__)
#define ARCH_CONTEXT 1
static inline uintptr_t arch_uc_pc(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP]; }
// arch_uc_call makes the interrupted code, once the handler returns, call
// fn(arg) on its own stack, below the red zone, as if called there.
static inline void arch_uc_call(ucontext_t *uc, void (*fn)(void *), void *arg) {
  uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
  sp = ((sp - 512) & ~(uintptr_t)15) - 8;   // as after a call: sp + 8 aligned to 16
  uc->uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
  uc->uc_mcontext.gregs[REG_RDI] = (greg_t)(uintptr_t)arg;
  uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)fn;
}
#elif defined(__aarch64__)
#define ARCH_CONTEXT 1
static inline uintptr_t arch_uc_pc(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.pc; }
static inline void arch_uc_call(ucontext_t *uc, void (*fn)(void *), void *arg) {
  uintptr_t sp = (uintptr_t)uc->uc_mcontext.sp;
  uc->uc_mcontext.sp = (sp - 512) & ~(uintptr_t)15;
  uc->uc_mcontext.regs[0] = (uintptr_t)arg;
  uc->uc_mcontext.pc = (uintptr_t)fn;
}
#else
#define ARCH_CONTEXT 0
#endif
#endif

#endif
