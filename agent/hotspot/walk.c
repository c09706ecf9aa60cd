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
static int usable, held_usable;
static const char *why_not = "no: not looked up";
static int fc_on;   // the frame cache (below) is used
static void fc_init(void);

// x86-64 interpreter frame, in words from its frame pointer (frame_x86.hpp).
enum { I_SENDER_SP = -1, I_METHOD = -3, I_BCP = -8 };

// frame_method: the Method* of the interpreter frame at fp, NULL when its
// slot cannot hold one (not an address, or not aligned as metadata is). A
// frame being built (a method's entry, after `enter`, before its Method*
// is stored) has an older frame's word there: on 17 a pointer, on 25
// often a small offset (the interpreter keeps some of a frame's slots
// relative to its frame pointer), whose read faulted: .info
// hotspot.walk_faults 1-4 per 1 000 samples of the demo at --cpu 100us,
// each a fault handled and a walk left to AsyncGetCallTrace.
SAFE_CODE static struct hs_method *frame_method(uintptr_t fp) {
  uintptr_t m = hs_stack_word(fp, I_METHOD);
  return m < 65536 || (m & 7) || m >= (1ULL << 48) ? NULL : (struct hs_method *)m;
}

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

void walk_held_init(void) { held_usable = usable && hs_held_prepare(); }

// The held walk's collector (walk_held): the monitors found so far.
typedef struct {
  walk_held_t *out;
  int n, max, bad;
  uintptr_t wanted, lo, hi;
  // A virtual thread's read: cont, its continuation's entry (JavaThread::
  // _cont_entry, in the frame of Continuation.enterSpecial on the
  // carrier's stack), where its frames end; chunk: the walk met the
  // continuation's return barrier there (frames still in its stack chunk).
  uintptr_t cont;
  int chunk;
} held_acc;

typedef struct {
  jvmtiFrameInfo *fr;
  int skip, max, n, seen;
  held_acc *h;   // the held walk: monitors, no frames
} out_t;

// put adds a frame (after the first `skip`); -1 when the method has no
// jmethodID yet (GetStackTrace makes one). The held walk only counts it.
SAFE_CODE static int put(out_t *o, jmethodID m, jlocation loc) {
  if (o->h) {
    o->seen++;
    return 0;
  }
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

// held_add notes the monitor of obj, taken in the frame of depth `depth`
// (the index of the Java frame, inlined ones counted, from the top, as
// JVMTI's stack_depth): once (a recursive entry is listed at its first
// frame from the top, as GetOwnedMonitorStackDepthInfo lists it), never
// the monitor the thread is entering.
SAFE_CODE static void held_add(held_acc *h, uintptr_t obj, int depth) {
  if (!obj || obj == h->wanted) return;
  for (int i = 0; i < h->n; i++)
    if (h->out[i].oop == obj) return;
  if (h->n == h->max) {
    h->bad = 1;
    return;
  }
  h->out[h->n].oop = obj;
  h->out[h->n].depth = depth;
  h->out[h->n].hash = 0;
  h->n++;
}

// skip_value steps over one ScopeValue of the debug stream (ScopeValue::
// read_from); 0 when it cannot (a kind not known, nested too deep).
enum { V_LOCATION, V_INT, V_OOP, V_LONG, V_DOUBLE, V_OBJECT, V_OBJECT_ID, V_AUTOBOX, V_MARKER, V_MERGE };
SAFE_CODE static int skip_value(const unsigned char **p, int nest) {
  if (nest > 8) return 0;
  int tag = hs_debug_int(p), n;
  switch (tag) {
  case V_LOCATION: case V_INT: case V_OOP: case V_OBJECT_ID:
    return hs_debug_int(p) >= 0;
  case V_LONG: case V_DOUBLE:
    return hs_debug_int(p) >= 0 && hs_debug_int(p) >= 0;
  case V_MARKER:
    return 1;
  case V_OBJECT: case V_AUTOBOX:   // ObjectValue: id, klass, fields
    if (hs_debug_int(p) < 0 || !skip_value(p, nest + 1) || (n = hs_debug_int(p)) < 0 || n > 4096) return 0;
    for (int i = 0; i < n; i++)
      if (!skip_value(p, nest + 1)) return 0;
    return 1;
  case V_MERGE:   // ObjectMergeValue (22+): id, selector, merge pointer, candidates
    if (hs_debug_int(p) < 0 || !skip_value(p, nest + 1) || !skip_value(p, nest + 1) || (n = hs_debug_int(p)) < 0 || n > 4096)
      return 0;
    for (int i = 0; i < n; i++)
      if (!skip_value(p, nest + 1)) return 0;
    return 1;
  }
  return 0;
}

// x86-64: rbp as a VMReg (each 64-bit register is two VMReg slots): the
// one register a compiled frame's value may be in across a call, saved by
// the callee under its return address (frame::update_map_with_saved_link).
enum { VMREG_RBP = 5 * 2 };
enum { LOC_OOP = 2 };   // Location::oop

// held_scope notes the monitors of the scope at offset d of a compiled
// frame at sp (ScopeDesc::monitors: MonitorValue's basic lock, owner,
// eliminated), outermost first. An owner in a stack slot or in rbp is
// read; a scalar-replaced one (an object no other thread sees) or an
// eliminated lock (nested in a lock of the same object, listed with it)
// is left out; a constant is read from the nmethod's oops; anything else
// (a narrow oop, a register but rbp) ends the held walk (the caller asks
// JVMTI).
SAFE_CODE static void held_scope(out_t *o, const hs_scopes *sc, int d, uintptr_t sp) {
  held_acc *h = o->h;
  int mo = hs_scope_monitors(sc, d), depth = o->seen - 1;
  if (mo < 0) {
    h->bad = 1;
    return;
  }
  if (!mo) return;
  const unsigned char *p = sc->data + mo;
  int n = hs_debug_int(&p);
  if (n < 0 || n > 64) {
    h->bad = 1;
    return;
  }
  for (int i = 0; i < n && !h->bad; i++) {
    uintptr_t obj = 0;
    if (hs_debug_int(&p) < 0) {   // the BasicLock's Location
      h->bad = 1;
      return;
    }
    const unsigned char *v = p;
    int tag = hs_debug_int(&v);
    if (tag == V_LOCATION) {
      unsigned loc = (unsigned)hs_debug_int(&v), type = loc & 0xF, reg = (loc >> 4) & 1, off = loc >> 5;
      p = v;
      if (type != LOC_OOP) h->bad = 1;   // a narrow oop
      else if (!reg && sp + (uintptr_t)off * 4 + 8 <= h->hi) obj = *(const volatile uintptr_t *)(sp + (uintptr_t)off * 4);
      else if (reg && off == VMREG_RBP) obj = hs_stack_word(sp, -2);
      else h->bad = 1;
    } else if (tag == V_OOP) {   // a constant: an entry of the nmethod's oops
      p = v;
      if (!hs_scope_oop(sc, hs_debug_int(&p), &obj)) h->bad = 1;
    } else if (tag == V_OBJECT || tag == V_AUTOBOX || tag == V_OBJECT_ID || tag == V_MERGE) {
      if (!skip_value(&p, 0)) h->bad = 1;   // scalar-replaced: obj stays 0
    } else {
      h->bad = 1;   // not an object
    }
    if (h->bad) return;
    int eliminated = hs_debug_byte(&p);
    if (!eliminated) held_add(h, obj, depth);
  }
}

// held_interpreted notes the monitors of the interpreter frame at sp, fp:
// its monitor block, from frame::interpreter_frame_monitor_begin (the slot
// of the initial sp, I_MON) down to the block's top (the word in that
// slot: an address on 17, relative to fp in words on 25), BasicObjectLocks
// of two words (the lock, then the object), the oldest first.
enum { I_MON = -9 };
SAFE_CODE static void held_interpreted(out_t *o, uintptr_t sp, uintptr_t fp) {
  held_acc *h = o->h;
  intptr_t v = (intptr_t)hs_stack_word(fp, I_MON);
  uintptr_t begin = fp + (uintptr_t)(I_MON * 8), end = v < 0 && v > -65536 ? fp + (uintptr_t)(v * 8) : (uintptr_t)v;
  if (end < sp || end > begin || (begin - end) % 16 || (begin - end) / 16 > 256) {
    h->bad = 1;
    return;
  }
  for (uintptr_t at = begin; at > end; at -= 16) held_add(h, hs_stack_word(at - 16, 1), o->seen - 1);
}

// compiled adds the frames of compiled method nm (in heap) at return
// address pc: the scopes of the debug record at pc, inlined callees first;
// and puts them in the frame cache. near: pc is where the thread was
// interrupted, not a return address: the record at pc or the first after
// it (walk_context), never cached.
SAFE_CODE static int compiled(out_t *o, struct hs_blob *nm, const hs_heap *heap, uintptr_t pc, uintptr_t sp, int near) {
  struct hs_method *m = hs_nmethod_method(nm);
  if (!m) return -1;
  jmethodID ids[FC_FRAMES];
  int bcis[FC_FRAMES], k = 0;
  if (hs_method_is_native(m)) {   // native wrapper
    if (o->h && hs_method_is_synchronized(m)) o->h->bad = 1;   // its monitor: not read here
    jmethodID id = method_id(m);
    if (put(o, id, -1)) return -1;
    if (fc_on && !near) ids[0] = id, bcis[0] = -1, fc_put(nm, heap, pc, ids, bcis, 1);
    return 0;
  }
  hs_scopes sc;
  int d = hs_nmethod_scope(nm, pc, &sc, near);
  if (d <= 0) return -1;   // no record at pc, or serialized_null
  for (; d != 0; k++) {
    int sender, bci;
    struct hs_method *sm;
    if (d < 0 || k > 1024 || !hs_scope_read(&sc, d, &sender, &sm, &bci)) return -1;
    // bci -1: a synchronized method's entry; JVMTI says 0.
    jmethodID id = method_id(sm);
    if (put(o, id, bci < 0 ? 0 : bci)) return -1;
    if (o->h) held_scope(o, &sc, d, sp);
    if (k < FC_FRAMES) ids[k] = id, bcis[k] = bci < 0 ? 0 : bci;
    d = sender;
  }
  if (fc_on && !near) fc_put(nm, heap, pc, ids, bcis, k);   // k > FC_FRAMES: not cached
  return 0;
}

SAFE_CODE static int interpreted(out_t *o, uintptr_t sp, uintptr_t fp) {
  struct hs_method *m = frame_method(fp);
  uintptr_t bcp = hs_stack_word(fp, I_BCP);
  if (!m) return -1;
  if (o->h) {   // the held walk: the frame's monitors, native or not
    if (put(o, NULL, 0)) return -1;
    held_interpreted(o, sp, fp);
    return 0;
  }
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

// cont_end: a virtual thread's held walk reached its continuation's entry
// (a frame whose sp is at or below it). Its frames are all read when that
// frame is Continuation.enterSpecial's (a native method's nmethod, the
// one whose frame holds the entry): the thread's bottom frame returns
// there when its stack chunk holds no frame. Else the return address is
// the continuation's return barrier (StubRoutines' cont_returnBarrier, not
// an nmethod): HotSpot thaws lazily, and the frames below are still in
// the chunk, a heap object this walk does not read (docs/agent.md, "Held
// monitors": JVMTI is asked then).
SAFE_CODE static int cont_end(held_acc *h, uintptr_t pc) {
  hs_heap heap;
  struct hs_blob *cb = hs_blob_of(pc, &heap);
  const char *name = cb ? hs_blob_name(cb) : NULL;
  int kind = name ? kind_of(name) : N_OTHER;
  struct hs_method *m = cb && hs_blob_is_nmethod(cb, kind == N_NMETHOD || kind == N_NATIVE_NMETHOD) ? hs_nmethod_method(cb) : NULL;
  if (m && hs_method_is_native(m)) return 0;
  h->chunk = 1;
  return -1;
}

// walk_from adds the Java frames of the calling thread, whose stack is
// [lo, hi), from the frame at sp, fp with return address pc, to o; -1 when
// it met a frame it does not know. at_anchor: that frame is the one an
// anchor describes (a runtime stub's may be stepped over).
SAFE_CODE static int walk_from(out_t *o, uintptr_t lo, uintptr_t hi, uintptr_t sp, uintptr_t fp, uintptr_t pc, int at_anchor,
                               int max) {
  hs_anchor an;
  int inject = fault_every && atomic_fetch_add_explicit(&fault_count, 1, memory_order_relaxed) % fault_every == 0;
  int cache = fc_on && !inject;
  for (int frames = 0; o->n < max; frames++) {
    if (frames > 4096 || sp < lo + 8 || sp >= hi) return -1;
    if (o->h && o->h->cont && sp >= o->h->cont) return cont_end(o->h, pc);
    int size;
    if (cache && !o->h && (size = fc_get(o, pc)) > 0) {   // a compiled frame known (the frame cache)
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
      if (interpreted(o, sp, fp)) return -1;
      sp = hs_stack_word(fp, I_SENDER_SP);   // the caller's sp before the interpreter extended it
      pc = hs_stack_word(fp, 1);
      fp = hs_stack_word(fp, 0);
      at_anchor = 0;
      continue;
    }
    if (hs_blob_is_nmethod(cb, kind == N_NMETHOD || kind == N_NATIVE_NMETHOD)) {
      if (compiled(o, cb, &heap, pc, sp, 0)) return -1;
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

// walk_java adds the Java frames from the anchor an of the calling thread,
// whose stack is [lo, hi), to o; -1 when it met a frame it does not know.
SAFE_CODE static int walk_java(out_t *o, uintptr_t lo, uintptr_t hi, hs_anchor an, int max) {
  if (an.sp < lo + 8 || an.sp >= hi) return -1;
  if (!an.pc) an.pc = hs_stack_word(an.sp, -1);   // as JavaFrameAnchor::make_walkable
  return walk_from(o, lo, hi, an.sp, an.fp, an.pc, 1, max);
}

// ---- The walk from a signal's context (a thread in Java code) ----
//
// A thread in Java code has no anchor: its frames start at the pc, sp and
// fp the signal interrupted. In a compiled method the frame at that pc
// may be partly built (the prolog, before the frame is complete) or
// already popped (the epilog, before its `ret`): the instructions from
// the pc on say which, decoded below. They are HotSpot's own, a handful of
// patterns (x86-64): C2's prolog (MacroAssembler::verified_entry: the
// stack bangs, `push rbp` or a store of rbp, `sub rsp`), C1's
// (build_frame), the nmethod entry barrier (a compare with the thread's
// disarmed value, a jump, C1's call of the barrier's stub), the epilog
// (MachEpilogNode, C1's remove_frame: `add rsp`, `pop rbp`, the return's
// safepoint poll, a compare of rsp with the thread's polling word and a
// jump), the poll's stub (the pc stored in the thread, a jump to the
// handler), and alignment nops.
enum { X_UNKNOWN, X_NOP, X_PUSH_RBP, X_SAVE_RBP, X_SUB_RSP, X_ADD_RSP, X_POP_RBP, X_LEAVE, X_POLL, X_POLL_STUB, X_JCC, X_CALL,
       X_JMP, X_RET };
typedef struct {
  int kind, len;
  long imm;   // the bytes added to or taken from rsp
} insn_t;

SAFE_CODE static int32_t code_i32(uintptr_t pc, long i) {
  return (int32_t)(hs_code_byte(pc, i) | hs_code_byte(pc, i + 1) << 8 | hs_code_byte(pc, i + 2) << 16 |
                   hs_code_byte(pc, i + 3) << 24);
}

SAFE_CODE static insn_t decode(uintptr_t pc) {
  insn_t x = {X_UNKNOWN, 0, 0};
  unsigned b0 = hs_code_byte(pc, 0), b1 = hs_code_byte(pc, 1), b2 = hs_code_byte(pc, 2), b3 = hs_code_byte(pc, 3);
  int p = 0;   // operand-size prefixes of a long nop
  while (p < 8 && hs_code_byte(pc, p) == 0x66) p++;
  if (p && hs_code_byte(pc, p) == 0x90) return (insn_t){X_NOP, p + 1, 0};
  if (hs_code_byte(pc, p) == 0x0f && hs_code_byte(pc, p + 1) == 0x1f) {   // nop r/m: by its ModRM
    unsigned m = hs_code_byte(pc, p + 2), mod = m >> 6, rm = m & 7;
    int n = p + 3 + (mod != 3 && rm == 4) + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
    if (mod == 0 && rm == 5) n += 4;
    return (insn_t){X_NOP, n, 0};
  }
  switch (b0) {
  case 0x90: return (insn_t){X_NOP, 1, 0};
  case 0x55: return (insn_t){X_PUSH_RBP, 1, 8};
  case 0x5d: return (insn_t){X_POP_RBP, 1, 8};
  case 0xc9: return (insn_t){X_LEAVE, 1, 0};
  case 0xc3: return (insn_t){X_RET, 1, 0};
  case 0xe8: return (insn_t){X_CALL, 5, 0};
  case 0xe9: return (insn_t){X_JMP, 5, 0};
  case 0xeb: return (insn_t){X_JMP, 2, 0};
  case 0x89:   // mov [rsp+disp32], eax: a stack bang
    if (b1 == 0x84 && b2 == 0x24) return (insn_t){X_NOP, 7, 0};
    return x;
  case 0xc5:   // vzeroupper
    if (b1 == 0xf8 && b2 == 0x77) return (insn_t){X_NOP, 3, 0};
    return x;
  case 0x0f:   // jcc rel32
    if (b1 >= 0x80 && b1 <= 0x8f) return (insn_t){X_JCC, 6, 0};
    return x;
  case 0x41:   // cmp dword [r15+disp], imm32: the entry barrier
    if (b1 == 0x81 && b2 == 0x7f) return (insn_t){X_NOP, 8, 0};
    if (b1 == 0x81 && b2 == 0xbf) return (insn_t){X_NOP, 11, 0};
    return x;
  case 0x48:
    if (b1 == 0x83 && b2 == 0xec) return (insn_t){X_SUB_RSP, 4, (int8_t)b3};
    if (b1 == 0x81 && b2 == 0xec) return (insn_t){X_SUB_RSP, 7, code_i32(pc, 3)};
    if (b1 == 0x83 && b2 == 0xc4) return (insn_t){X_ADD_RSP, 4, (int8_t)b3};
    if (b1 == 0x81 && b2 == 0xc4) return (insn_t){X_ADD_RSP, 7, code_i32(pc, 3)};
    if (b1 == 0x89 && b2 == 0xe5) return (insn_t){X_NOP, 3, 0};   // mov rbp, rsp
    if (b1 == 0x89 && b2 == 0x6c && b3 == 0x24) return (insn_t){X_SAVE_RBP, 5, 0};   // mov [rsp+disp8], rbp
    if (b1 == 0x89 && b2 == 0xac && b3 == 0x24) return (insn_t){X_SAVE_RBP, 8, 0};
    return x;
  case 0x49:   // cmp rsp, [r15+disp]: the return's poll
    if (b1 == 0x3b && b2 == 0x67) return (insn_t){X_POLL, 4, 0};
    if (b1 == 0x3b && b2 == 0xa7) return (insn_t){X_POLL, 7, 0};
    // cmp qword [r15+disp8], imm: a native wrapper's check for an
    // exception, after its `leave`
    if (b1 == 0x81 && b2 == 0x7f) return (insn_t){X_NOP, 8, 0};
    if (b1 == 0x83 && b2 == 0x7f) return (insn_t){X_NOP, 5, 0};
    return x;
  case 0x4c:   // lea r10, [rip+disp32]: the poll stub's pc
    if (b1 == 0x8d && b2 == 0x15) return (insn_t){X_POLL_STUB, 7, 0};
    return x;
  case 0x4d:   // mov [r15+disp], r10: stored in the thread
    if (b1 == 0x89 && b2 == 0x57) return (insn_t){X_POLL_STUB, 4, 0};
    if (b1 == 0x89 && b2 == 0x97) return (insn_t){X_POLL_STUB, 7, 0};
    return x;
  }
  if (b0 >= 0x70 && b0 <= 0x7f) return (insn_t){X_JCC, 2, 0};
  return x;
}

// A compiled frame at a pc, by the code from there on.
enum { F_CANNOT = -1, F_COMPLETE, F_PROLOG, F_EPILOG };

// frame_at tells the state of the frame of compiled method nm at pc, and
// for a prolog or an epilog the caller's sp and whether rbp still holds
// the caller's (*fp_live: not yet saved, or restored).
SAFE_CODE static int frame_at(struct hs_blob *nm, uintptr_t pc, uintptr_t sp, uintptr_t fp, uintptr_t *caller_sp,
                              int *fp_live) {
  uintptr_t begin = hs_blob_code_begin(nm);
  int fc = hs_blob_frame_complete(nm), size = hs_blob_frame_size(nm);
  if (size <= 0) return F_CANNOT;
  if (fc >= 0 && pc < begin + (uintptr_t)fc) {
    // The prolog: what the instructions up to the frame's completion will
    // still add to rsp.
    uintptr_t end = begin + (uintptr_t)fc, at = pc;
    long more = 0;
    int saves = 0;
    for (int i = 0; at < end; i++) {
      insn_t x = decode(at);
      if (i > 64 || x.kind == X_UNKNOWN || x.kind == X_POP_RBP || x.kind == X_ADD_RSP || x.kind == X_LEAVE ||
          x.kind == X_RET || x.kind == X_JMP || x.kind == X_POLL || x.kind == X_POLL_STUB)
        return F_CANNOT;   // the inline cache's check before the verified entry, or code not known
      if (x.kind == X_PUSH_RBP || x.kind == X_SUB_RSP) more += x.imm;
      if (x.kind == X_PUSH_RBP || x.kind == X_SAVE_RBP) saves = 1;
      at += (uintptr_t)x.len;
    }
    if (at != end || more < 0) return F_CANNOT;
    *caller_sp = sp - (uintptr_t)more + (uintptr_t)size * sizeof(uintptr_t);
    *fp_live = saves;
    return F_PROLOG;
  }
  // The epilog: a run of its instructions from the pc to its `ret` (or the
  // poll stub's jump to its handler, the frame popped before the poll).
  // A first instruction not of an epilog: the body, the frame complete.
  uintptr_t at = pc, s = sp;
  int pop_ahead = 0, started = 0, stub = 0;
  for (int i = 0; i <= 16; i++) {
    insn_t x = decode(at);
    switch (x.kind) {
    case X_NOP:   // vzeroupper, alignment
      break;
    case X_ADD_RSP:
      if (started) return F_CANNOT;
      s += (uintptr_t)x.imm, started = 1;
      break;
    case X_POP_RBP:
      if (pop_ahead) return F_CANNOT;
      s += 8, pop_ahead = started = 1;
      break;
    case X_LEAVE:   // a native wrapper's: its frame is rbp's
      if (started || fp < sp || (fp & 7)) return F_CANNOT;
      s = fp + 8, pop_ahead = started = 1;
      break;
    case X_POLL:
      started = 1;
      break;
    case X_JCC:   // the poll's jump to its stub: only a `ret` follows it
      if (!started && decode(at + (uintptr_t)x.len).kind != X_RET) return F_COMPLETE;
      break;
    case X_POLL_STUB:
      stub = 1;
      break;
    case X_RET:
      *caller_sp = s + 8;
      *fp_live = !pop_ahead;
      return F_EPILOG;
    case X_JMP:
      if (stub && !started) {
        *caller_sp = s + 8;
        *fp_live = 1;
        return F_EPILOG;
      }
      return started ? F_CANNOT : F_COMPLETE;
    default:
      return started ? F_CANNOT : F_COMPLETE;
    }
    at += (uintptr_t)x.len;
  }
  return started ? F_CANNOT : F_COMPLETE;
}

// walk_context adds the Java frames of the calling thread, in Java code at
// pc, sp, fp (a signal's context; ret: pc is a return address, that of a
// native leaf called without an anchor) with stack [lo, hi), to o; -1
// when it cannot (a stub, code it does not know): AsyncGetCallTrace then.
// r13: the interpreter's bytecode pointer, from the same context.
SAFE_CODE static int walk_context(out_t *o, uintptr_t lo, uintptr_t hi, uintptr_t pc, uintptr_t sp, uintptr_t fp,
                                  uintptr_t r13, int ret, int max) {
  if (!hs_can_walk_context() || sp < lo || sp + 16 > hi || (sp & 7)) return -1;
  hs_heap heap;
  struct hs_blob *cb = hs_blob_of(pc, &heap);
  const char *name = cb ? hs_blob_name(cb) : NULL;
  if (!name) return -1;
  int kind = kind_of(name);
  if (kind == N_INTERPRETER) {
    // An interpreted frame by its frame pointer (the interpreter keeps
    // rbp), its method from the frame and its bytecode from r13, the
    // interpreter's bcp register (the frame's copy is saved only at calls
    // and safepoints), else the frame's; a method's entry before its frame
    // is built or its return after it was taken down describe the
    // caller's frame (the method not yet entered, or left).
    if (ret || fp < sp || fp + 16 > hi || (fp & 7)) return -1;
    struct hs_method *m = frame_method(fp);
    long bci = !m || hs_method_is_native(m) ? -1 : hs_method_bci(m, r13);
    if (m && bci < 0 && !hs_method_is_native(m)) bci = hs_method_bci(m, hs_stack_word(fp, I_BCP));
    if (!m || (bci < 0 && !hs_method_is_native(m))) {
      // A frame being built (the method's entry, after `enter`, before
      // its Method* and bytecode pointer are stored: the slots hold an
      // older frame's): the method not yet entered, its caller the
      // innermost, when the interpreter's (its frame pointer is the one
      // saved at fp, its bytecode pointer saved at the call).
      struct hs_blob *caller = hs_blob_of(hs_stack_word(fp, 1), &heap);
      const char *cname = caller ? hs_blob_name(caller) : NULL;
      if (!cname || kind_of(cname) != N_INTERPRETER) return -1;
      return walk_from(o, lo, hi, fp + 16, hs_stack_word(fp, 0), hs_stack_word(fp, 1), 0, max);
    }
    if (put(o, method_id(m), (jlocation)bci)) return -1;
    return walk_from(o, lo, hi, hs_stack_word(fp, I_SENDER_SP), hs_stack_word(fp, 0), hs_stack_word(fp, 1), 0, max);
  }
  if (!hs_blob_is_nmethod(cb, kind == N_NMETHOD || kind == N_NATIVE_NMETHOD)) return -1;   // a stub
  if (pc >= hs_nmethod_stub_begin(cb)) return -1;   // its exception or deopt handler
  uintptr_t csp;
  int fp_live = 0, state = ret ? F_COMPLETE : frame_at(cb, pc, sp, fp, &csp, &fp_live);
  if (state == F_CANNOT) return -1;
  if (state == F_COMPLETE) {
    // The frame built: its scopes by the debug record at the pc or the
    // first after it (HotSpot's pc_desc_near, from the pc itself), its
    // caller's frame by its size.
    if (compiled(o, cb, &heap, pc, sp, 1)) return -1;
    csp = sp + (uintptr_t)hs_blob_frame_size(cb) * sizeof(uintptr_t);
  } else {
    // Entered or leaving: its method alone, before its first bytecode
    // (0) or at a return, which has no debug record (no line).
    struct hs_method *m = hs_nmethod_method(cb);
    if (!m || put(o, method_id(m), hs_method_is_native(m) || state == F_EPILOG ? -1 : 0)) return -1;
  }
  if (csp < sp + 8 || csp > hi) return -1;
  return walk_from(o, lo, hi, csp, fp_live ? fp : hs_stack_word(csp, -2), hs_stack_word(csp, -1), 0, max);
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
  out_t o = {fr, skip, max, 0, 0, NULL};
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
  int cont = hs_thread_in_continuation(jt);
  if (!cont && !an.sp && in_code && hs_can_walk_context()) {
    // In Java code: from the pc the signal interrupted, or the return
    // address of the native leaf it called without an anchor.
    out_t o = {fr, 0, max, 0, 0, NULL};
    if (!walk_context(&o, lo, hi, pc, sp, fp, ctx[3], k > 0, max)) return o.n;
    counter_add(CNT_SAMPLES_ASGCT, 1);   // AsyncGetCallTrace then
  }
  if (cont || (!an.sp && in_code)) {
    ctx[0] = pc, ctx[1] = sp, ctx[2] = fp;   // where its Java code was reached
    return WALK_IN_JAVA;
  }
  if (!an.sp) return 0;   // no Java frame: native or VM code alone
  out_t o = {fr, 0, max, 0, 0, NULL};
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

// The held walk: every frame of the calling thread (no frame limit but
// the walk's), its monitors noted, then their hashes read from the
// objects' headers. The oops are read in the thread's own frames while it
// is in native code (a callback): a collection may move them meanwhile,
// which the caller checks (objhash_epoch before and after).
SAFE_CODE __attribute__((noinline)) static int held_walk(JNIEnv *env, held_acc *h, int virt) {
  vm_ptr jt = vms_thread(env);
  if (vm_null(jt)) return -1;
  // A virtual thread's frames: from the top down to its continuation's
  // entry (cont_end), as JVMTI lists them for the virtual thread.
  // A platform thread in a continuation (not a virtual thread's): not read.
  h->cont = hs_thread_cont_entry(jt);
  if (virt != (h->cont != 0)) return -1;
  uintptr_t hi = hs_thread_stack_base(jt), lo = hi - hs_thread_stack_size(jt);
  h->lo = lo, h->hi = hi;
  if (h->cont && (h->cont < lo + 8 || h->cont >= hi)) return -1;
  // The word under the entry is the return address of the thread's bottom
  // frame on the carrier's stack (enterSpecial's call pushed it there):
  // into enterSpecial's nmethod when its stack chunk is empty, else the
  // return barrier's stub. A stub there: frames in the chunk, known before
  // any walk (cont_end would find the same at the walk's end, some frames
  // later). Anything else: walked, and cont_end decides.
  if (h->cont) {
    hs_heap heap;
    struct hs_blob *cb = hs_blob_of(hs_stack_word(h->cont, -1), &heap);
    const char *name = cb ? hs_blob_name(cb) : NULL;
    int kind = name ? kind_of(name) : N_OTHER;
    if (cb && name && kind != N_INTERPRETER && !hs_blob_is_nmethod(cb, kind == N_NMETHOD || kind == N_NATIVE_NMETHOD)) {
      h->chunk = 1;
      return -1;
    }
  }
  hs_anchor an;
  hs_thread_last_frame(jt, &an);
  if (!an.sp) return 0;
  out_t o = {NULL, 0, 0, 0, 0, h};
  if (walk_java(&o, lo, hi, an, 1 << 30) || h->bad) return -1;
  for (int i = 0; i < h->n; i++) h->out[i].hash = hs_held_hash(h->out[i].oop, lo, hi);
  return h->n;
}

int walk_held(JNIEnv *env, uintptr_t wanted, int virt, walk_held_t *out, int max) {
  if (!usable || !held_usable) return WALK_UNUSED;
  held_acc h = {out, 0, max, 0, wanted, 0, 0, 0, 0};
  safe_guard g;
  if (!safe_try(&g)) {
    safe_leave(&g);
    counter_add(CNT_HOTSPOT_HELD_FAULTS, 1);
    return WALK_CANNOT;
  }
  int n = held_walk(env, &h, virt);
  safe_leave(&g);
  return n >= 0 ? n : h.chunk ? WALK_CHUNK : WALK_CANNOT;
}
