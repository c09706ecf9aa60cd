#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "core/counters.h"
#include "core/arch.h"
#include "core/orca.h"
#include "hotspot/safe.h"
#define HS_GUARDED
#include "hotspot/vmstructs.h"
#include "hotspot/walk.h"

// Every function that reads VM memory is in SAFE_CODE and runs inside
// walk_self's guard (safe.h): a fault ends the walk with WALK_CANNOT.
// They must not call out of the section (no libc on VM memory: names are
// copied first). VM structures are read through the layer's guarded
// accessors (vmstructs.h, HS_GUARDED: always inlined, so into the
// section); this file reads only the thread's own stack, by the x86-64
// frame layout.
static int usable;
static const char *why_not = "no: not looked up";
static int fc_on;   // the frame cache (below) is used
static void fc_init(void);

// x86-64 interpreter frame, in words from its frame pointer (frame_x86.hpp).
enum { I_SENDER_SP = -1, I_METHOD = -3, I_BCP = -8 };

// anchor_stub says whether a frame the walk reached from a frame anchor
// (the thread's, or an entry frame's JavaCallWrapper's) may be the code
// blob named `name`: a runtime stub that compiled code called, which set
// the anchor after building its frame (so its frame size holds), pushed
// rbp under its return address, and whose return address in the compiled
// caller has a debug record (the call's). Seen: the monitor-enter stubs at
// a contended enter; under -Xcomp, call resolution and C1's patching stubs
// running a class initialiser (JavaCalls from the VM). Not the deopt and
// uncommon-trap blobs, whose frames change size while they unpack.
static int anchor_stub(const char *name) {
  static const char *const shared[] = {   // SharedRuntime::generate_resolve_blob
    "resolve_opt_virtual_call", "resolve_virtual_call", "resolve_static_call",
    "wrong_method_stub", "wrong_method_abstract_stub", "ic_miss_stub",
  };
  for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
    size_t k = strlen(shared[i]);
    if (!strncmp(name, shared[i], k) && (!name[k] || !strcmp(name + k, "_blob"))) return 1;
  }
  size_t n = strlen(name);
  static const char c1[] = " Runtime1 stub";   // Runtime1::generate_blob (StubFrame: enter())
  if (n > sizeof c1 - 1 && !strcmp(name + n - (sizeof c1 - 1), c1)) return 1;
  // OptoRuntime::generate_stub: "_new_instance_Java", "_complete_monitor_locking_Java", ...
  if (n > 6 && name[0] == '_' && !strcmp(name + n - 5, "_Java")) return 1;
  // JDK 25 names its stubs by generator: "C2 Runtime complete_monitor_locking",
  // "C1 Runtime monitorenter_blob", "Shared Runtime resolve_static_call_blob".
  if (strstr(name, "uncommon_trap") || strstr(name, "deopt")) return 0;
  return !strncmp(name, "C1 Runtime ", 11) || !strncmp(name, "C2 Runtime ", 11) ||
         (!strncmp(name, "Shared Runtime ", 15) && anchor_stub(name + 15));
}

// ORCA_TEST_WALK_FAULT=N (tests): every Nth walk reads its first code
// blob from an inaccessible page, as a layout described wrongly would.
static int fault_every;
static char *fault_page;
static atomic_long fault_count;

static void test_knob(void) {
  if (!switches.test_walk_fault) return;
  void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;
  fault_page = p;
  fault_every = switches.test_walk_fault;
}

const char *walk_status(void) { return why_not; }


void walk_init(void) {
  if (!ARCH_WALKER) {
    why_not = "no: no frame layout for " ARCH_NAME;
    return;
  }
  // 19-24 have layouts between 18's and 25's: not walked. From 19 a thread
  // in a continuation (a virtual thread) is not walked either.
  if (!hs_has(HS_WALK_LAYOUT_11) && !hs_has(HS_WALK_LAYOUT_25)) {
    why_not = "no: JDK layout not known (11-18 and 25 are)";
    return;
  }
  if (!safe_guarded()) {
    why_not = "no: reads would not be fault-safe (no fault handler)";
    return;
  }
  const char *missing = hs_walk_missing();
  usable = !missing;
  why_not = usable ? "yes" : "no: a structure the walker needs is not in gHotSpotVMStructs";
  if (usable) test_knob();
  if (usable) fc_init();
}

typedef struct {
  jvmtiFrameInfo *fr;
  int skip, max, n, seen;
} out_t;

// put adds a frame (after the first `skip`); -1 when the method has no
// jmethodID yet (GetStackTrace makes one).
SAFE_CODE static int put(out_t *o, jmethodID m, jlocation loc) {
  if (!m) return -1;
  if (o->seen++ >= o->skip && o->n < o->max) {
    o->fr[o->n].method = m;
    o->fr[o->n].location = loc;
    o->n++;
  }
  return 0;
}

// method_id: one copy of the layer's accessor, called from the four places
// that name a frame's method (as before the layer, a call, not four inlined copies).
SAFE_CODE __attribute__((noinline)) static jmethodID method_id(const struct hs_method *m) { return hs_method_id(m); }

// The frame cache (issue 23 item 4): the frames of a compiled frame by its
// return address, so that a call site a thread comes back to (a notify, a
// park) is not decoded again: no code-heap search, blob name, PcDesc
// search, scope or jmethodID lookup, which were most of a walk. Exact:
// every physical frame is still reached through the thread's own stack
// and its return address looked up on its own, and a slot is used only
// when the code-heap block holding that address now (the heap's segment
// map, from the slot's heap: heaps never move) is the slot's nmethod, with
// the slot's name (a constant of the VM's: "nmethod", "native nmethod", so
// no other kind of blob) and compile id. Then it is the very nmethod the
// slot was filled from: a frame of it is on the stack, so it is alive, and
// a later nmethod at the same address (the first freed, its memory reused)
// has another compile id (CompileBroker's counter, unique for the VM's
// life, native wrappers included; an nmethod with none, 0 or less, is not
// cached). An nmethod's debug record at a pc, its frame size
// and its methods' jmethodIDs never change while it lives (RedefineClasses
// deoptimizes the frames of the nmethods it invalidates: their return
// addresses become the deopt handler's, which has no debug record and is
// never cached). Callers are not part of the key: each frame below is
// looked up on its own, so one site reached from two callers gives two
// stacks (TestFrameCache).
//
// Shared by all threads (a thread pool's threads share their sites),
// direct-mapped by pc, each slot a sequence lock: a reader copies the slot
// and uses the copy if the sequence did not move; a writer that finds the
// slot being written does not cache. No lock, no allocation, no call. A
// frame of more than FC_FRAMES methods (inlined) is not cached.
// ORCA_WALK_CACHE=0 turns it off (A/B measurements).
//
// A slot is four cache lines, aligned: the key and check in the first, a
// frame's method and bci side by side (a hit on a frame of up to four
// methods reads two lines).
enum { FC_SLOTS = 2048, FC_FRAMES = 12 };
typedef struct {
  unsigned seq;   // odd while written
  int cid, n, size;
  uintptr_t pc;
  struct hs_blob *blob;
  const char *name;
  hs_heap heap;
  struct {
    jmethodID m;
    long bci;   // -1: a native wrapper's
  } f[FC_FRAMES];
} __attribute__((aligned(64))) fc_slot;
static fc_slot fcache[FC_SLOTS];
_Static_assert(sizeof(fc_slot) == 256, "a frame cache slot is four cache lines");
// ORCA_TIME_STACKS=1 (a measurement aid) also counts the compiled frames
// taken from the cache and those decoded, printed at exit.
static int fc_count;
static atomic_long fc_hits, fc_misses;

static void fc_print(void) {
  long h = atomic_load(&fc_hits), m = atomic_load(&fc_misses);
  fprintf(stderr, "orca: frame cache: %ld compiled frames from the cache, %ld decoded (%.1f%% from the cache)\n", h, m,
          h + m ? 100.0 * (double)h / (double)(h + m) : 0.0);
}

static void fc_init(void) {
  fc_on = hs_can_frame_cache() && !switches.walk_cache_off;
  if (fc_on && switches.time_stacks && !atexit(fc_print)) fc_count = 1;
}

#define FC_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define FC_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

SAFE_CODE static fc_slot *fc_slot_of(uintptr_t pc) {
  return &fcache[(uint32_t)((pc * 0x9E3779B97F4A7C15ull) >> 40) & (FC_SLOTS - 1)];
}

// fc_get puts the cached frames of the compiled frame at return address pc
// and gives its frame size (words); 0 on a miss.
SAFE_CODE static int fc_get(out_t *o, uintptr_t pc) {
  fc_slot *s = fc_slot_of(pc);
  unsigned v = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
  if ((v & 1) || FC_LOAD(s->pc) != pc) return 0;
  hs_heap heap = {FC_LOAD(s->heap.lo), FC_LOAD(s->heap.seg), FC_LOAD(s->heap.lg)};
  struct hs_blob *nm = FC_LOAD(s->blob);
  const char *name = FC_LOAD(s->name);
  int cid = FC_LOAD(s->cid), n = FC_LOAD(s->n), size = FC_LOAD(s->size);
  if (n <= 0 || n > FC_FRAMES) return 0;
  jmethodID m[FC_FRAMES];
  int bci[FC_FRAMES];
  for (int i = 0; i < n; i++) m[i] = FC_LOAD(s->f[i].m), bci[i] = (int)FC_LOAD(s->f[i].bci);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != v) return 0;
  // The copy is whole; now is the nmethod at pc the slot's?
  if (hs_block_in(&heap, pc) != nm || hs_blob_name(nm) != name || hs_nmethod_compile_id(nm) != cid) return 0;
  for (int i = 0; i < n; i++) put(o, m[i], bci[i]);
  if (fc_count) atomic_fetch_add_explicit(&fc_hits, 1, memory_order_relaxed);
  return size;
}

SAFE_CODE static void fc_put(struct hs_blob *nm, const hs_heap *heap, uintptr_t pc, const jmethodID *m, const int *bci,
                             int n) {
  if (fc_count) atomic_fetch_add_explicit(&fc_misses, 1, memory_order_relaxed);
  int size = hs_blob_frame_size(nm), cid = hs_nmethod_compile_id(nm);
  if (n <= 0 || n > FC_FRAMES || size <= 0 || cid <= 0) return;
  fc_slot *s = fc_slot_of(pc);
  unsigned v = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
  if ((v & 1) || !__atomic_compare_exchange_n(&s->seq, &v, v + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
  __atomic_thread_fence(__ATOMIC_RELEASE);
  FC_STORE(s->pc, pc);
  FC_STORE(s->blob, nm);
  FC_STORE(s->cid, cid);
  FC_STORE(s->name, hs_blob_name(nm));
  FC_STORE(s->n, n);
  FC_STORE(s->size, size);
  FC_STORE(s->heap.lo, heap->lo);
  FC_STORE(s->heap.seg, heap->seg);
  FC_STORE(s->heap.lg, heap->lg);
  for (int i = 0; i < n; i++) FC_STORE(s->f[i].m, m[i]), FC_STORE(s->f[i].bci, (long)bci[i]);
  __atomic_store_n(&s->seq, v + 2, __ATOMIC_RELEASE);
}

// compiled adds the frames of compiled method nm (in heap) at return
// address pc: the scopes of the debug record at pc, inlined callees first;
// and puts them in the frame cache.
SAFE_CODE static int compiled(out_t *o, struct hs_blob *nm, const hs_heap *heap, uintptr_t pc) {
  struct hs_method *m = hs_nmethod_method(nm);
  if (!m) return -1;
  jmethodID ids[FC_FRAMES];
  int bcis[FC_FRAMES], k = 0;
  if (hs_method_is_native(m)) {   // native wrapper
    jmethodID id = method_id(m);
    if (put(o, id, -1)) return -1;
    if (fc_on) ids[0] = id, bcis[0] = -1, fc_put(nm, heap, pc, ids, bcis, 1);
    return 0;
  }
  hs_scopes sc;
  int d = hs_nmethod_scope(nm, pc, &sc);
  if (d <= 0) return -1;   // no record at pc, or serialized_null
  for (; d != 0; k++) {
    int sender, bci;
    struct hs_method *sm;
    if (d < 0 || k > 1024 || !hs_scope_read(&sc, d, &sender, &sm, &bci)) return -1;
    // bci -1: a synchronized method's entry; JVMTI says 0.
    jmethodID id = method_id(sm);
    if (put(o, id, bci < 0 ? 0 : bci)) return -1;
    if (k < FC_FRAMES) ids[k] = id, bcis[k] = bci < 0 ? 0 : bci;
    d = sender;
  }
  if (fc_on) fc_put(nm, heap, pc, ids, bcis, k);   // k > FC_FRAMES: not cached
  return 0;
}

SAFE_CODE static int interpreted(out_t *o, uintptr_t fp) {
  struct hs_method *m = (struct hs_method *)hs_stack_word(fp, I_METHOD);
  uintptr_t bcp = hs_stack_word(fp, I_BCP);
  if (!m) return -1;
  if (hs_method_is_native(m)) return put(o, method_id(m), -1);
  long bci = hs_method_bci(m, bcp);
  if (bci < 0) return -1;
  return put(o, method_id(m), (jlocation)bci);
}

// What a code blob is, by its name: the interpreter, a compiled method (a
// native wrapper's is "native nmethod" up to 18), a runtime stub the walk
// may step over at an anchor (anchor_stub), or none of these. Blob names
// are string constants of the VM, so the answer is cached by the name's
// address (pointer and kind in one word: never torn): after the first
// walks no name is read at all.
enum { N_OTHER, N_INTERPRETER, N_NMETHOD, N_NATIVE_NMETHOD, N_STUB, NAME_CACHE = 32 };
static uint64_t name_cache[NAME_CACHE];

SAFE_CODE static int kind_of(const char *name) {
  unsigned h = (unsigned)(((uintptr_t)name >> 3) % NAME_CACHE);
  uint64_t e = __atomic_load_n(&name_cache[h], __ATOMIC_RELAXED);
  if (e && (uintptr_t)(e & ((1ULL << 56) - 1)) == (uintptr_t)name) return (int)(e >> 56);
  char buf[96];
  hs_name_copy(buf, name, sizeof buf);
  int k = !strcmp(buf, "Interpreter")      ? N_INTERPRETER
          : !strcmp(buf, "nmethod")        ? N_NMETHOD
          : !strcmp(buf, "native nmethod") ? N_NATIVE_NMETHOD
          : anchor_stub(buf)               ? N_STUB
                                           : N_OTHER;
  if (k != N_OTHER && (uintptr_t)name < (1ULL << 56))
    __atomic_store_n(&name_cache[h], (uint64_t)(uintptr_t)name | ((uint64_t)k << 56), __ATOMIC_RELAXED);
  return k;
}

// walk_java adds the Java frames from the anchor an of the calling thread,
// whose stack is [lo, hi), to o; -1 when it met a frame it does not know.
SAFE_CODE static int walk_java(out_t *o, uintptr_t lo, uintptr_t hi, hs_anchor an, int max) {
  uintptr_t sp = an.sp, fp = an.fp, pc = an.pc;
  if (sp < lo + 8 || sp >= hi) return -1;
  if (!pc) pc = hs_stack_word(sp, -1);   // as JavaFrameAnchor::make_walkable
  int at_anchor = 1;   // this frame is the one an anchor describes
  int inject = fault_every && atomic_fetch_add_explicit(&fault_count, 1, memory_order_relaxed) % fault_every == 0;
  int cache = fc_on && !inject;
  for (int frames = 0; o->n < max; frames++) {
    if (frames > 4096 || sp < lo + 8 || sp >= hi) return -1;
    int size;
    if (cache && (size = fc_get(o, pc)) > 0) {   // a compiled frame known (the frame cache)
      uintptr_t next = sp + (uintptr_t)size * sizeof(uintptr_t);
      if (next > hi) return -1;
      pc = hs_stack_word(next, -1);
      fp = hs_stack_word(next, -2);
      sp = next;
      at_anchor = 0;
      continue;
    }
    if (hs_is_call_stub_return(pc)) {
      // An entry frame: Java called from native code. Its JavaCallWrapper
      // holds the anchor of the Java frames below, if any.
      if (fp < sp || fp >= hi) return -1;
      if (!hs_entry_frame_last_frame(fp, &an)) return -1;
      if (!an.sp) break;   // the thread's first Java frame
      sp = an.sp, fp = an.fp, pc = an.pc;
      if (sp < lo + 8 || sp >= hi) return -1;
      if (!pc) pc = hs_stack_word(sp, -1);
      at_anchor = 1;
      continue;
    }
    hs_heap heap;
    struct hs_blob *cb = hs_blob_of(pc, &heap);
    if (inject && cb) cb = (struct hs_blob *)fault_page, inject = 0;
    const char *name = cb ? hs_blob_name(cb) : NULL;
    if (!name) return -1;
    int kind = kind_of(name);
    if (kind == N_INTERPRETER) {
      if (fp <= sp || fp + 16 > hi) return -1;
      if (interpreted(o, fp)) return -1;
      sp = hs_stack_word(fp, I_SENDER_SP);   // the caller's sp before the interpreter extended it
      pc = hs_stack_word(fp, 1);
      fp = hs_stack_word(fp, 0);
      at_anchor = 0;
      continue;
    }
    if (hs_blob_is_nmethod(cb, kind == N_NMETHOD || kind == N_NATIVE_NMETHOD)) {
      if (compiled(o, cb, &heap, pc)) return -1;
    } else if (!at_anchor || kind != N_STUB) {
      return -1;
    }
    size = hs_blob_frame_size(cb);   // words, with the return address
    uintptr_t next = sp + (uintptr_t)size * sizeof(uintptr_t);
    if (size <= 0 || next > hi) return -1;
    pc = hs_stack_word(next, -1);
    fp = hs_stack_word(next, -2);   // every compiled frame and stub saves the caller's rbp there
    sp = next;
    at_anchor = 0;
  }
  return 0;
}

SAFE_CODE __attribute__((noinline)) static int walk(JNIEnv *env, int skip, jvmtiFrameInfo *fr, int max) {
  vm_ptr jt = vms_thread(env);
  if (vm_null(jt)) return -1;
  // A thread in a continuation (a virtual thread, JDK 19+): JVMTI ends its
  // stack at the continuation's entry; not walked.
  if (hs_thread_in_continuation(jt)) return -1;
  uintptr_t hi = hs_thread_stack_base(jt), lo = hi - hs_thread_stack_size(jt);
  hs_anchor an;
  hs_thread_last_frame(jt, &an);
  // No last Java frame: the thread has none (a thread starting or ending, a
  // VM-internal lock); every Java caller of the VM or a native sets one.
  if (!an.sp) return 0;
  out_t o = {fr, skip, max, 0, 0};
  return walk_java(&o, lo, hi, an, max) ? -1 : o.n;
}

// The sample's walk (walk_sample): the native and VM frames from the
// interrupted context up the frame-pointer chain, each checked against the
// thread's stack (a frame compiled without a frame pointer ends the chain
// or, at worst, names a caller wrongly: never a read outside the stack),
// until the chain reaches code of the code cache (Java code, or a stub) or
// the thread's Java frames; then the Java frames from the thread's anchor.
SAFE_CODE __attribute__((noinline)) static int sample_walk(vm_ptr jt, uintptr_t *ctx, uint32_t *vhash, uintptr_t *pcs, int *npcs,
                                                           int maxpcs, jvmtiFrameInfo *fr, int max) {
  uintptr_t pc = ctx[0], sp = ctx[1], fp = ctx[2];
  int mounted = 0;
  *vhash = hs_mounted_virtual_hash(jt, &mounted);
  if (mounted && !*vhash) return WALK_VIRTUAL;
  uintptr_t hi = hs_thread_stack_base(jt), lo = hi - hs_thread_stack_size(jt);
  if (hi <= lo || sp < lo || sp >= hi) return WALK_CANNOT;   // not on its Java stack (a signal stack?)
  hs_anchor an;
  hs_thread_last_frame(jt, &an);
  int k = 0, in_code = 0;
  hs_heap heap;
  while (k < maxpcs) {
    if (hs_blob_of(pc, &heap)) {
      in_code = 1;
      break;
    }
    pcs[k++] = pc;
    if (fp < sp || fp < lo || fp + 16 > hi || (fp & 7) || (an.sp && fp >= an.sp)) break;
    uintptr_t next = hs_stack_word(fp, 0);
    pc = hs_stack_word(fp, 1);
    sp = fp + 16;
    if (next <= fp) {   // the chain ends, or goes down: the caller's frame is the last
      fp = next;
      if (!hs_blob_of(pc, &heap)) break;
      in_code = 1;
      break;
    }
    fp = next;
  }
  *npcs = k;
  // A thread in a continuation (a virtual thread): AsyncGetCallTrace walks it.
  if (hs_thread_in_continuation(jt) || (!an.sp && in_code)) {
    ctx[0] = pc, ctx[1] = sp, ctx[2] = fp;   // where its Java code was reached
    return WALK_IN_JAVA;
  }
  if (!an.sp) return 0;   // no Java frame: native or VM code alone
  out_t o = {fr, 0, max, 0, 0};
  return walk_java(&o, lo, hi, an, max) ? WALK_CANNOT : o.n;
}

int walk_sample(vm_ptr jt, int tid, uintptr_t *ctx, uint32_t *vhash, uintptr_t *pcs, int *npcs, int maxpcs, jvmtiFrameInfo *fr,
                int max) {
  *npcs = 0;
  *vhash = 0;
  if (!usable || vm_null(jt)) return WALK_UNUSED;
  safe_guard g;
  if (!safe_try_tid(&g, tid)) {   // a fault in the walk, or no room for the guard
    safe_leave_tid(tid);
    counter_add(CNT_HOTSPOT_WALK_FAULTS, 1);
    *npcs = 0;
    return WALK_CANNOT;
  }
  int n = sample_walk(jt, ctx, vhash, pcs, npcs, maxpcs, fr, max);
  safe_leave_tid(tid);
  return n;
}

// unwind_step: candidate `which` for the caller of the code at ctx (a
// thread in Java code that AsyncGetCallTrace could not walk from there):
// 0, the return address at sp (a compiled method's prolog before it
// pushed anything, or its epilog after it popped its frame); 1, the one
// word above (after the push of rbp); 2, the frame-pointer chain (a stub
// that built an rbp frame). Taken only when that word is an address in
// the interpreter or a compiled method. *top: the method of the compiled
// method holding the pc (its frame is the one stepped over), or NULL.
SAFE_CODE __attribute__((noinline)) static int unwind_step(vm_ptr jt, uintptr_t *ctx, int which, jmethodID *top) {
  uintptr_t pc = ctx[0], sp = ctx[1], fp = ctx[2];
  uintptr_t hi = hs_thread_stack_base(jt), lo = hi - hs_thread_stack_size(jt);
  if (hi <= lo || sp < lo || sp + 16 > hi || (sp & 7)) return 0;
  hs_heap heap;
  struct hs_blob *cb = hs_blob_of(pc, &heap);
  if (!cb) return 0;
  const char *name = hs_blob_name(cb);
  if (!name) return 0;
  int kind = kind_of(name);
  *top = NULL;
  int nm = hs_blob_is_nmethod(cb, kind == N_NMETHOD || kind == N_NATIVE_NMETHOD);
  // The interpreter: only the return address at the sp (a method's entry,
  // before it built its frame).
  if (kind == N_INTERPRETER && which != 0) return 0;
  // A compiled method keeps no frame pointer (C2 uses rbp as any
  // register); a stub has no frame of its own before it pushes rbp.
  if ((nm && which == 2) || (!nm && (which == 1 || which == 3))) return 0;
  if (nm) {
    struct hs_method *m = hs_nmethod_method(cb);
    if (!m) return 0;
    *top = method_id(m);
    if (!*top) return 0;
  }
  uintptr_t npc, nsp, nfp = fp;
  if (which == 3) {   // a compiled method's frame built, not yet complete (an entry barrier)
    if (!nm) return 0;
    int size = hs_blob_frame_size(cb);
    nsp = sp + (uintptr_t)size * sizeof(uintptr_t);
    if (size <= 0 || nsp > hi) return 0;
    npc = hs_stack_word(nsp, -1);
    nfp = hs_stack_word(nsp, -2);
  } else if (which == 0 || which == 1) {
    nsp = sp + 8 * (uintptr_t)(which + 1);
    npc = hs_stack_word(nsp, -1);
    if (which == 1) nfp = hs_stack_word(sp, 0);
  } else {
    if (fp < sp || fp + 16 > hi || (fp & 7)) return 0;
    npc = hs_stack_word(fp, 1);
    nfp = hs_stack_word(fp, 0);
    nsp = fp + 16;
  }
  if (npc == pc) return 0;
  struct hs_blob *caller = hs_blob_of(npc, &heap);
  if (!caller) return 0;
  const char *cname = hs_blob_name(caller);
  if (!cname) return 0;
  int ck = kind_of(cname);
  if (ck != N_INTERPRETER && !hs_blob_is_nmethod(caller, ck == N_NMETHOD || ck == N_NATIVE_NMETHOD)) return 0;
  ctx[0] = npc, ctx[1] = nsp, ctx[2] = nfp;
  return 1;
}

int walk_unwind(vm_ptr jt, int tid, uintptr_t *ctx, int which, jmethodID *top) {
  *top = NULL;
  if (!usable || vm_null(jt)) return 0;
  safe_guard g;
  if (!safe_try_tid(&g, tid)) {
    safe_leave_tid(tid);
    counter_add(CNT_HOTSPOT_WALK_FAULTS, 1);
    return 0;
  }
  int r = unwind_step(jt, ctx, which, top);
  safe_leave_tid(tid);
  return r;
}

int walk_self(JNIEnv *env, int skip, jvmtiFrameInfo *fr, int max) {
  if (!usable) return WALK_UNUSED;
  safe_guard g;
  if (!safe_try(&g)) {   // a fault in the walk: fall back
    safe_leave(&g);
    counter_add(CNT_HOTSPOT_WALK_FAULTS, 1);
    return WALK_CANNOT;
  }
  int n = walk(env, skip, fr, max);
  safe_leave(&g);
  return n < 0 ? WALK_CANNOT : n;
}
