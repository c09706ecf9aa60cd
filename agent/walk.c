#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "counters.h"
#include "arch.h"
#include "orca.h"
#include "safe.h"
#include "vmstructs.h"
#include "walk.h"

// Every function that reads VM memory is in SAFE_CODE and runs inside
// walk_self's guard (safe.h): a fault ends the walk with WALK_CANNOT.
// They must not call out of the section (no libc on VM memory: names are
// copied first).
static int usable;
static const char *why_not = "no: not looked up";
static long off_anchor, off_last_sp, off_last_fp, off_last_pc, off_stack_base, off_stack_size;
static long off_mem, off_segmap, off_log2, off_low_boundary, off_high, off_low, off_len, off_data, block_size;
static long off_name, off_code_begin, off_code_end, off_frame_size, off_cm_method;
static long off_scopes_data, off_metadata, off_pcs, off_deps, pcdesc_size, off_pc_offset, off_scope_offset;
static long off_const_method, off_constants, off_holder, off_jmethod_ids, off_idnum, off_flags, off_code_size;
static long constmethod_size, off_jcw_anchor, entry_wrapper;
// JDK 25's layout (JDK 23 merged CompiledMethod into nmethod; JDK 24 moved
// debug info and metadata out of the code cache; JDK 21 encodes the debug
// stream as UNSIGNED5): offsets instead of pointers in CodeBlob, PcDescs
// and scopes in the nmethod's immutable data, metadata after the
// relocations in its mutable data.
static int jdk25;
static long off_code_offset, off_data_offset, off_kind, kind_nmethod, off_imm, off_scopes_data_off;
static long off_mutable, off_mutable_size, off_reloc_size, off_cont_entry;
static char **heaps;          // CodeCache::_heaps: GrowableArray<CodeHeap*>*
static uintptr_t *call_stub_ret;   // StubRoutines::_call_stub_return_address

// x86-64 interpreter frame, in words from its frame pointer (frame_x86.hpp).
enum { I_SENDER_SP = -1, I_METHOD = -3, I_BCP = -8, ACC_NATIVE = 0x100 };

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
  const char *v = getenv("ORCA_TEST_WALK_FAULT");
  if (!v || atoi(v) <= 0) return;
  void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;
  fault_page = p;
  fault_every = atoi(v);
}

const char *walk_status(void) { return why_not; }


void walk_init(void) {
  if (!ARCH_WALKER) {
    why_not = "no: no frame layout for " ARCH_NAME;
    return;
  }
  // 19-24 have layouts between 18's and 25's: not walked. From 19 a thread
  // in a continuation (a virtual thread) is not walked either.
  jdk25 = hs_has(HS_WALK_LAYOUT_25);
  if (!hs_has(HS_WALK_LAYOUT_11) && !jdk25) {
    why_not = "no: JDK layout not known (11-18 and 25 are)";
    return;
  }
  if (!safe_guarded()) {
    why_not = "no: reads would not be fault-safe (no fault handler)";
    return;
  }
  // The offsets, from the HotSpot layer (vmstructs.c).
  off_anchor = hs.thread_anchor;
  off_last_sp = hs.anchor_sp, off_last_fp = hs.anchor_fp, off_last_pc = hs.anchor_pc;
  off_stack_base = hs.thread_stack_base, off_stack_size = hs.thread_stack_size;
  heaps = hs.code_heaps;
  off_len = hs.array_len, off_data = hs.array_data;
  off_mem = hs.heap_memory, off_segmap = hs.heap_segmap, off_log2 = hs.heap_log2_segment;
  off_low_boundary = hs.vspace_low_boundary, off_low = hs.vspace_low, off_high = hs.vspace_high;
  block_size = hs.heapblock_size;
  off_name = hs.blob_name, off_frame_size = hs.blob_frame_size;
  off_pcs = hs.nm_pcs_offset;
  off_cm_method = hs.nm_method;
  if (jdk25) {
    off_code_offset = hs.blob_code_offset, off_data_offset = hs.blob_data_offset;
    off_kind = hs.blob_kind, kind_nmethod = hs.kind_nmethod;
    off_imm = hs.nm_immutable_data, off_scopes_data_off = hs.nm_scopes_data_offset;
    off_mutable = hs.blob_mutable_data, off_mutable_size = hs.blob_mutable_data_size;
    off_reloc_size = hs.blob_relocation_size;
    off_cont_entry = hs.thread_cont_entry;
    // Stand-ins, so the check below covers the fields of both layouts.
    off_code_begin = off_code_offset, off_code_end = off_data_offset, off_scopes_data = off_imm;
    off_metadata = off_mutable, off_deps = off_scopes_data_off;
    long more[] = {off_kind, kind_nmethod, off_mutable_size, off_reloc_size, off_cont_entry};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
      if (more[i] < 0) {
        why_not = "no: a structure the walker needs is not in gHotSpotVMStructs";
        return;
      }
  } else {
    off_code_begin = hs.blob_code_begin, off_code_end = hs.blob_code_end;
    off_scopes_data = hs.nm_scopes_data_begin;
    off_metadata = hs.nm_metadata_offset, off_deps = hs.nm_dependencies_offset;
  }
  pcdesc_size = hs.pcdesc_size, off_pc_offset = hs.pcdesc_pc_offset, off_scope_offset = hs.pcdesc_scope_offset;
  off_const_method = hs.method_const, off_flags = hs.method_flags;
  off_constants = hs.const_constants, off_code_size = hs.const_code_size, off_idnum = hs.const_idnum;
  constmethod_size = hs.const_size;
  off_holder = hs.pool_holder, off_jmethod_ids = hs.klass_jmethod_ids;
  off_jcw_anchor = hs.jcw_anchor;
  entry_wrapper = hs.entry_frame_wrapper;
  call_stub_ret = hs.call_stub_return;
  long all[] = {off_anchor, off_last_sp, off_last_fp, off_last_pc, off_stack_base, off_stack_size, off_len, off_data,
                off_mem, off_segmap, off_log2, off_low_boundary, off_low, off_high, block_size, off_name,
                off_frame_size, off_code_begin, off_code_end, off_cm_method, off_scopes_data, off_metadata, off_pcs,
                off_deps, pcdesc_size, off_pc_offset, off_scope_offset, off_const_method, off_flags, off_constants,
                off_code_size, off_idnum, constmethod_size, off_holder, off_jmethod_ids, off_jcw_anchor};
  usable = heaps && call_stub_ret && entry_wrapper == -6;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) usable &= all[i] >= 0;
  why_not = usable ? "yes" : "no: a structure the walker needs is not in gHotSpotVMStructs";
  if (usable) test_knob();
}

// blob_of returns the CodeBlob holding pc, or NULL (CodeHeap::find_start).
// pc is a return address in a frame of the calling thread, so its blob is
// live and the heap's segment map does not change under it.
SAFE_CODE static char *blob_of(uintptr_t pc) {
  char *ga = *heaps;
  if (!ga) return NULL;
  int n = *(int *)(ga + off_len);
  char **data = *(char ***)(ga + off_data);
  for (int i = 0; i < n; i++) {
    char *h = data[i];
    uintptr_t lo = *(uintptr_t *)(h + off_mem + off_low_boundary), hi = *(uintptr_t *)(h + off_mem + off_high);
    if (pc < lo || pc >= hi) continue;
    const unsigned char *seg = *(const unsigned char **)(h + off_segmap + off_low);
    int lg = *(int *)(h + off_log2);
    size_t idx = (pc - lo) >> lg;
    if (seg[idx] == 0xFF) return NULL;   // free segment
    while (seg[idx] > 0) {
      if (seg[idx] > idx) return NULL;
      idx -= seg[idx];
    }
    char *cb = (char *)lo + (idx << lg) + block_size;
    uintptr_t begin, end;
    if (jdk25) {
      begin = (uintptr_t)cb + (uintptr_t)*(int *)(cb + off_code_offset);
      end = (uintptr_t)cb + (uintptr_t)*(int *)(cb + off_data_offset);
    } else {
      begin = *(uintptr_t *)(cb + off_code_begin);
      end = *(uintptr_t *)(cb + off_code_end);
    }
    return pc >= begin && pc < end ? cb : NULL;
  }
  return NULL;
}

SAFE_CODE static jmethodID method_id(uintptr_t m) {
  if (!m) return NULL;
  uintptr_t cm = *(uintptr_t *)(m + off_const_method);
  uintptr_t cp = cm ? *(uintptr_t *)(cm + off_constants) : 0;
  uintptr_t ik = cp ? *(uintptr_t *)(cp + off_holder) : 0;
  jmethodID *ids = ik ? *(jmethodID *volatile *)(ik + off_jmethod_ids) : NULL;
  if (!ids) return NULL;
  size_t idnum = *(uint16_t *)(cm + off_idnum);
  return idnum + 1 <= (size_t)ids[0] ? ids[idnum + 1] : NULL;   // ids[0] holds the length
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

// read_int reads one int of HotSpot's compressed debug-info stream (JDK
// 11-19: CompressedReadStream, bytes below 192 end a number, each byte
// after the first is worth 64 times the previous one).
SAFE_CODE static int read_int(const unsigned char **p) {
  if (jdk25) {   // UNSIGNED5: each byte is 1 more than its digit
    unsigned sum = 0;
    for (int i = 0, shift = 0;; i++, shift += 6) {
      unsigned bi = *(*p)++;
      if (bi == 0) return -1;   // an excluded byte: not a number
      sum += (bi - 1) << shift;
      if (bi < 192 || i == 4) return (int)sum;
    }
  }
  unsigned b = *(*p)++;
  if (b < 192) return (int)b;
  unsigned sum = b;
  for (int i = 1, shift = 6;; i++, shift += 6) {
    unsigned bi = *(*p)++;
    sum += bi << shift;
    if (bi < 192 || i == 4) return (int)sum;
  }
}

// compiled adds the frames of compiled method nm at return address pc:
// the scopes of the debug record at pc, inlined callees first.
SAFE_CODE static int compiled(out_t *o, char *nm, uintptr_t pc) {
  uintptr_t m = *(uintptr_t *)(nm + off_cm_method);
  if (!m) return -1;
  if (*(uint16_t *)(m + off_flags) & ACC_NATIVE) return put(o, method_id(m), -1);   // native wrapper
  char *lo, *hi;
  const unsigned char *data;
  uintptr_t *meta, *meta_end;
  int t;
  if (jdk25) {
    char *imm = *(char **)(nm + off_imm), *mut = *(char **)(nm + off_mutable);
    if (!imm || !mut) return -1;
    t = (int)(pc - ((uintptr_t)nm + (uintptr_t)*(int *)(nm + off_code_offset)));
    lo = imm + *(int *)(nm + off_pcs);
    hi = imm + *(int *)(nm + off_scopes_data_off);
    data = (const unsigned char *)hi;
    meta = (uintptr_t *)(mut + *(int *)(nm + off_reloc_size));
    meta_end = (uintptr_t *)(mut + *(int *)(nm + off_mutable_size));
  } else {
    t = (int)(pc - *(uintptr_t *)(nm + off_code_begin));
    lo = nm + *(int *)(nm + off_pcs), hi = nm + *(int *)(nm + off_deps);
    data = *(const unsigned char **)(nm + off_scopes_data);
    meta = (uintptr_t *)(nm + *(int *)(nm + off_metadata)), meta_end = (uintptr_t *)data;
  }
  long l = 0, h = (hi - lo) / pcdesc_size;
  while (l < h) {   // PcDescs are sorted by pc offset
    long mid = (l + h) / 2;
    if (*(int *)(lo + mid * pcdesc_size + off_pc_offset) < t) l = mid + 1; else h = mid;
  }
  // No record at pc: not a call's return address (a deoptimized frame's
  // pc points at the deopt handler): not ours to decode.
  if (l >= (hi - lo) / pcdesc_size || *(int *)(lo + l * pcdesc_size + off_pc_offset) != t) return -1;
  int d = *(int *)(lo + l * pcdesc_size + off_scope_offset);
  if (d == 0) return -1;   // DebugInformationRecorder::serialized_null
  for (int k = 0; d != 0; k++) {
    if (d < 0 || k > 1024) return -1;
    const unsigned char *p = data + d;
    int sender = read_int(&p);
    int index = read_int(&p);
    int bci = read_int(&p) - 1;   // InvocationEntryBci
    if (index <= 0 || meta + index - 1 >= meta_end || bci < -1) return -1;
    // bci -1: a synchronized method's entry; JVMTI says 0.
    if (put(o, method_id(meta[index - 1]), bci < 0 ? 0 : bci)) return -1;
    d = sender;
  }
  return 0;
}

SAFE_CODE static int interpreted(out_t *o, uintptr_t *f) {
  uintptr_t m = f[I_METHOD], bcp = f[I_BCP];
  if (!m) return -1;
  if (*(uint16_t *)(m + off_flags) & ACC_NATIVE) return put(o, method_id(m), -1);
  uintptr_t cm = *(uintptr_t *)(m + off_const_method), codes = cm + (uintptr_t)constmethod_size;
  if (bcp < codes || bcp >= codes + *(uint16_t *)(cm + off_code_size)) return -1;
  return put(o, method_id(m), (jlocation)(bcp - codes));
}

// name_copy copies the NUL-terminated name at p (VM memory) into buf, at
// most n - 1 bytes: the string functions then read our copy.
SAFE_CODE static void name_copy(char *buf, const char *p, size_t n) {
  size_t i = 0;
  for (; i + 1 < n; i++) {
    char c = ((const volatile char *)p)[i];
    if (!c) break;
    buf[i] = c;
  }
  buf[i] = 0;
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
  name_copy(buf, name, sizeof buf);
  int k = !strcmp(buf, "Interpreter")      ? N_INTERPRETER
          : !strcmp(buf, "nmethod")        ? N_NMETHOD
          : !strcmp(buf, "native nmethod") ? N_NATIVE_NMETHOD
          : anchor_stub(buf)               ? N_STUB
                                           : N_OTHER;
  if (k != N_OTHER && (uintptr_t)name < (1ULL << 56))
    __atomic_store_n(&name_cache[h], (uint64_t)(uintptr_t)name | ((uint64_t)k << 56), __ATOMIC_RELAXED);
  return k;
}

SAFE_CODE __attribute__((noinline)) static int walk(JNIEnv *env, int skip, jvmtiFrameInfo *fr, int max) {
  uintptr_t jt = vms_thread(env);
  if (!jt) return -1;
  // A thread in a continuation (a virtual thread, JDK 19+): JVMTI ends its
  // stack at the continuation's entry; not walked.
  if (jdk25 && *(volatile uintptr_t *)(jt + (uintptr_t)off_cont_entry)) return -1;
  uintptr_t hi = *(uintptr_t *)(jt + (uintptr_t)off_stack_base), lo = hi - *(size_t *)(jt + (uintptr_t)off_stack_size);
  char *a = (char *)jt + off_anchor;
  uintptr_t sp = *(volatile uintptr_t *)(a + off_last_sp), fp = *(volatile uintptr_t *)(a + off_last_fp),
            pc = *(volatile uintptr_t *)(a + off_last_pc);
  // No last Java frame: the thread has none (a thread starting or ending, a
  // VM-internal lock); every Java caller of the VM or a native sets one.
  if (!sp) return 0;
  if (sp < lo + 8 || sp >= hi) return -1;
  if (!pc) pc = ((uintptr_t *)sp)[-1];   // as JavaFrameAnchor::make_walkable
  out_t o = {fr, skip, max, 0, 0};
  int at_anchor = 1;   // this frame is the one an anchor describes
  int inject = fault_every && atomic_fetch_add_explicit(&fault_count, 1, memory_order_relaxed) % fault_every == 0;
  for (int frames = 0; o.n < max; frames++) {
    if (frames > 4096 || sp < lo + 8 || sp >= hi) return -1;
    if (pc == *call_stub_ret) {
      // An entry frame: Java called from native code. Its JavaCallWrapper
      // holds the anchor of the Java frames below, if any.
      if (fp < sp || fp >= hi) return -1;
      char *jcw = (char *)((uintptr_t *)fp)[entry_wrapper];
      if (!jcw) return -1;
      sp = *(uintptr_t *)(jcw + off_jcw_anchor + off_last_sp);
      if (!sp) break;   // the thread's first Java frame
      fp = *(uintptr_t *)(jcw + off_jcw_anchor + off_last_fp);
      pc = *(uintptr_t *)(jcw + off_jcw_anchor + off_last_pc);
      if (sp < lo + 8 || sp >= hi) return -1;
      if (!pc) pc = ((uintptr_t *)sp)[-1];
      at_anchor = 1;
      continue;
    }
    char *cb = blob_of(pc);
    if (inject && cb) cb = fault_page, inject = 0;
    const char *name = cb ? *(const char **)(cb + off_name) : NULL;
    if (!name) return -1;
    int kind = kind_of(name);
    if (kind == N_INTERPRETER) {
      if (fp <= sp || fp + 16 > hi) return -1;
      uintptr_t *f = (uintptr_t *)fp;
      if (interpreted(&o, f)) return -1;
      sp = f[I_SENDER_SP];   // the caller's sp before the interpreter extended it
      pc = f[1];
      fp = f[0];
      at_anchor = 0;
      continue;
    }
    if (jdk25 ? *(uint8_t *)(cb + off_kind) == kind_nmethod : kind == N_NMETHOD || kind == N_NATIVE_NMETHOD) {
      if (compiled(&o, cb, pc)) return -1;
    } else if (!at_anchor || kind != N_STUB) {
      return -1;
    }
    int size = *(int *)(cb + off_frame_size);   // words, with the return address
    uintptr_t *next = (uintptr_t *)sp + size;
    if (size <= 0 || (uintptr_t)next > hi) return -1;
    pc = next[-1];
    fp = next[-2];   // every compiled frame and stub saves the caller's rbp there
    sp = (uintptr_t)next;
    at_anchor = 0;
  }
  return o.n;
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
