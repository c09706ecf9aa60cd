// Fault-safe reads of VM memory: every read of HotSpot's memory whose
// address comes from the VM's own structures (a layout the structure table
// describes wrongly, a thread that just exited) goes through here, so a
// wrong assumption ends a read or a stack walk with a fallback instead of
// crashing the JVM.
//
// The mechanism (docs/agent.md, "Fault-safe reads"): code placed in the
// section SAFE_CODE runs under a guard (safe_try: a _setjmp on the calling
// thread), and the agent's SIGSEGV/SIGBUS handler, installed over the JVM's
// at load, resumes a fault whose pc is in that section at the guard, which
// then says so; every other signal goes to the JVM's handler untouched.
// The walker (walk.c) reads directly inside one guard per walk, so a walk
// pays one _setjmp, not a check per read. Under -Xcheck:jni (the JVM would
// report its SIGSEGV handler modified) or where the handler cannot be
// installed, no handler: safe_read uses process_vm_readv and the own
// walker does not run.
#ifndef ORCA_SAFE_H
#define ORCA_SAFE_H
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>

#define SAFE_CODE __attribute__((section("orca_safe")))

// vm_ptr: an address in HotSpot's memory (a JavaThread, a monitor, an
// object, a JNI handle's slot). A struct, so that the compiler rejects a
// dereference, an index, an offset or a cast to a pointer: the only reads
// of VM memory are the accessors of the HotSpot layer (vmstructs.h), which
// take a vm_ptr and read it through safe_read, or under the walker's guard.
// Outside the layer (vmstructs.{c,h}, safe.{c,h}) nothing names its member
// (agent/check-safe.sh): code can make one from a word of the VM's
// (vm_at) and compare it, not read through it.
typedef struct {
  uintptr_t vm_bits_;
} vm_ptr;
static inline vm_ptr vm_at(uintptr_t a) { return (vm_ptr){a}; }
static inline int vm_null(vm_ptr p) { return p.vm_bits_ == 0; }
static inline int vm_same(vm_ptr a, vm_ptr b) { return a.vm_bits_ == b.vm_bits_; }
// vm_names: the word w (read from the VM: an owner field, a lock stack's
// entry) is the address p.
static inline int vm_names(vm_ptr p, uintptr_t w) { return p.vm_bits_ == w; }

typedef struct safe_guard {
  jmp_buf jb;
  struct safe_guard *prev;
} safe_guard;

extern __thread safe_guard *safe_cur;
// Faults recovered are counted in CNT_HOTSPOT_FAULTS (counters.h).

// safe_init installs the handler (Agent_OnLoad; the JVM's handlers are
// installed before agents load); check_jni: the JVM runs with
// -Xcheck:jni. Returns how reads are made, for .info.
const char *safe_init(int check_jni);
// safe_faults: the faults recovered so far (.info hotspot.faults).
long safe_faults(void);
// safe_guarded: the handler is installed, guarded code may read directly.
int safe_guarded(void);

// safe_try(g) enters guarded code: 1 at once, 0 when a fault in SAFE_CODE
// ended it (then call safe_leave too). A macro: the _setjmp must be in the
// caller's frame.
#define safe_try(g) ((g)->prev = safe_cur, safe_cur = (g), _setjmp((g)->jb) == 0)
static inline void safe_leave(safe_guard *g) { safe_cur = g->prev; }

// safe_try_tid(g, tid) is safe_try for a signal handler (the samplers,
// issue 33) on thread tid (gettid), which may not have touched this
// library's thread-locals yet: glibc allocates a dlopened library's
// thread-local storage at a thread's first use, with malloc, which a
// handler must not call. The guard is kept in a table by thread id
// instead, which the fault handler reads first; 0 at once when the table
// is full (then no guarded code may run). Leave it with safe_leave_tid.
#define safe_try_tid(g, tid) (safe_tid_put((g), (tid)) && _setjmp((g)->jb) == 0)
int safe_tid_put(safe_guard *g, int tid);
void safe_leave_tid(int tid);

// safe_probe is safe_read by the kernel's copy (a system call, ~0.6 us),
// never a fault: for reads expected to hit unmapped memory, such as the
// timer's calibration, which reads every word of a JavaThread as if it
// were a pointer, so that a normal run recovers no fault at all.
int safe_probe(void *out, vm_ptr p, size_t n);

// safe_read and its copy are here, not in safe.c, so that a contended
// enter's reads (vmstructs.h's accessors) run no function of safe.c
// (docs/agent.md, "The files an event runs"). safe_installed: the handler
// is installed (safe_init; safe_guarded says it).
extern int safe_installed;
// safe_copy_ reads n bytes at p, guarded: in the section, each unit that
// reads its own copy of it (noinline: its loads stay in the section;
// volatile: not turned into a memcpy call, which would run outside it).
SAFE_CODE __attribute__((noinline, unused)) static void safe_copy_(void *out, const void *p, size_t n) {
  if (!(((uintptr_t)p | (uintptr_t)out | n) & 7)) {
    for (size_t i = 0; i < n / 8; i++) ((uint64_t *)out)[i] = ((const volatile uint64_t *)p)[i];
    return;
  }
  for (size_t i = 0; i < n; i++) ((char *)out)[i] = ((const volatile char *)p)[i];
}
// safe_read copies n bytes at p to out; 0 when some are not readable.
// (A function that calls _setjmp is never inlined: a copy of it per unit.)
static inline int safe_read(void *out, vm_ptr p, size_t n) {
  if (!safe_installed) return safe_probe(out, p, n);
  safe_guard g;
  if (!safe_try(&g)) {
    safe_leave(&g);
    return 0;
  }
  safe_copy_(out, (const void *)p.vm_bits_, n);
  safe_leave(&g);
  return 1;
}
// safe_word reads the word at p into *out; 0 when not readable.
static inline int safe_word(vm_ptr p, uintptr_t *out) { return safe_read(out, p, sizeof *out); }
#endif
