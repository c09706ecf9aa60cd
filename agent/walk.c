#include <stdlib.h>
#include <string.h>
#include "orca.h"
#include "vmstructs.h"
#include "walk.h"

static int usable;
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

void walk_init(void) {
  int feature = orca_feature;
#if !defined(__x86_64__)
  feature = 0;
#endif
  // 19 has virtual threads (preview), whose frames JVMTI stops at: only
  // platform threads are walked there (a thread in a continuation is not).
  // 19-24 have layouts between 18's and 25's: not walked.
  jdk25 = feature == 25;
  if ((feature < 11 || feature > 18) && !jdk25) return;
  off_anchor = vms_offset("JavaThread", "_anchor");
  off_last_sp = vms_offset("JavaFrameAnchor", "_last_Java_sp");
  off_last_fp = vms_offset("JavaFrameAnchor", "_last_Java_fp");
  off_last_pc = vms_offset("JavaFrameAnchor", "_last_Java_pc");
  off_stack_base = vms_thread_offset("_stack_base");
  off_stack_size = vms_thread_offset("_stack_size");
  heaps = vms_static("CodeCache", "_heaps");
  off_len = vms_offset_typed("GrowableArrayBase", "_len", "int");
  off_data = vms_offset("GrowableArray<int>", "_data");
  off_mem = vms_offset("CodeHeap", "_memory");
  off_segmap = vms_offset("CodeHeap", "_segmap");
  off_log2 = vms_offset_typed("CodeHeap", "_log2_segment_size", "int");
  off_low_boundary = vms_offset("VirtualSpace", "_low_boundary");
  off_low = vms_offset("VirtualSpace", "_low");
  off_high = vms_offset("VirtualSpace", "_high");
  block_size = vms_size("HeapBlock");
  off_name = vms_offset("CodeBlob", "_name");
  off_frame_size = vms_offset_typed("CodeBlob", "_frame_size", "int");
  off_pcs = vms_offset_typed("nmethod", "_scopes_pcs_offset", "int");
  if (jdk25) {
    off_code_offset = vms_offset_typed("CodeBlob", "_code_offset", "int");
    off_data_offset = vms_offset_typed("CodeBlob", "_data_offset", "int");
    off_kind = vms_offset_typed("CodeBlob", "_kind", "CodeBlobKind");
    kind_nmethod = vms_constant("CodeBlobKind::Nmethod");
    off_cm_method = vms_offset_typed("nmethod", "_method", "Method*");
    off_imm = vms_offset_typed("nmethod", "_immutable_data", "address");
    off_scopes_data_off = vms_offset_typed("nmethod", "_scopes_data_offset", "int");
    off_mutable = vms_offset_typed("CodeBlob", "_mutable_data", "address");
    off_mutable_size = vms_offset_typed("CodeBlob", "_mutable_data_size", "int");
    off_reloc_size = vms_offset_typed("CodeBlob", "_relocation_size", "int");
    off_cont_entry = vms_offset("JavaThread", "_cont_entry");
    // Stand-ins, so the check below covers the fields of both layouts.
    off_code_begin = off_code_offset, off_code_end = off_data_offset, off_scopes_data = off_imm;
    off_metadata = off_mutable, off_deps = off_scopes_data_off;
    long more[] = {off_kind, kind_nmethod, off_mutable_size, off_reloc_size, off_cont_entry};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
      if (more[i] < 0) return;
  } else {
    off_code_begin = vms_offset("CodeBlob", "_code_begin");
    off_code_end = vms_offset("CodeBlob", "_code_end");
    off_cm_method = vms_offset("CompiledMethod", "_method");
    off_scopes_data = vms_offset("CompiledMethod", "_scopes_data_begin");
    off_metadata = vms_offset_typed("nmethod", "_metadata_offset", "int");
    off_deps = vms_offset_typed("nmethod", "_dependencies_offset", "int");
  }
  pcdesc_size = vms_size("PcDesc");
  off_pc_offset = vms_offset_typed("PcDesc", "_pc_offset", "int");
  off_scope_offset = vms_offset_typed("PcDesc", "_scope_decode_offset", "int");
  off_const_method = vms_offset("Method", "_constMethod");
  off_flags = vms_offset("Method", "_access_flags");
  off_constants = vms_offset("ConstMethod", "_constants");
  off_code_size = vms_offset_typed("ConstMethod", "_code_size", "u2");
  off_idnum = vms_offset_typed("ConstMethod", "_method_idnum", "u2");
  constmethod_size = vms_size("ConstMethod");
  off_holder = vms_offset("ConstantPool", "_pool_holder");
  off_jmethod_ids = vms_offset("InstanceKlass", "_methods_jmethod_ids");
  off_jcw_anchor = vms_offset("JavaCallWrapper", "_anchor");
  entry_wrapper = vms_constant("frame::entry_frame_call_wrapper_offset");
  call_stub_ret = vms_static("StubRoutines", "_call_stub_return_address");
  long all[] = {off_anchor, off_last_sp, off_last_fp, off_last_pc, off_stack_base, off_stack_size, off_len, off_data,
                off_mem, off_segmap, off_log2, off_low_boundary, off_low, off_high, block_size, off_name,
                off_frame_size, off_code_begin, off_code_end, off_cm_method, off_scopes_data, off_metadata, off_pcs,
                off_deps, pcdesc_size, off_pc_offset, off_scope_offset, off_const_method, off_flags, off_constants,
                off_code_size, off_idnum, constmethod_size, off_holder, off_jmethod_ids, off_jcw_anchor};
  usable = heaps && call_stub_ret && entry_wrapper == -6;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) usable &= all[i] >= 0;
}

// blob_of returns the CodeBlob holding pc, or NULL (CodeHeap::find_start).
// pc is a return address in a frame of the calling thread, so its blob is
// live and the heap's segment map does not change under it.
static char *blob_of(uintptr_t pc) {
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

static jmethodID method_id(uintptr_t m) {
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
static int put(out_t *o, jmethodID m, jlocation loc) {
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
static int read_int(const unsigned char **p) {
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
static int compiled(out_t *o, char *nm, uintptr_t pc) {
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

static int interpreted(out_t *o, uintptr_t *f) {
  uintptr_t m = f[I_METHOD], bcp = f[I_BCP];
  if (!m) return -1;
  if (*(uint16_t *)(m + off_flags) & ACC_NATIVE) return put(o, method_id(m), -1);
  uintptr_t cm = *(uintptr_t *)(m + off_const_method), codes = cm + (uintptr_t)constmethod_size;
  if (bcp < codes || bcp >= codes + *(uint16_t *)(cm + off_code_size)) return -1;
  return put(o, method_id(m), (jlocation)(bcp - codes));
}

static int walk(JNIEnv *env, int skip, jvmtiFrameInfo *fr, int max) {
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
    const char *name = cb ? *(const char **)(cb + off_name) : NULL;
    if (!name) return -1;
    if (!strcmp(name, "Interpreter")) {
      if (fp <= sp || fp + 16 > hi) return -1;
      uintptr_t *f = (uintptr_t *)fp;
      if (interpreted(&o, f)) return -1;
      sp = f[I_SENDER_SP];   // the caller's sp before the interpreter extended it
      pc = f[1];
      fp = f[0];
      at_anchor = 0;
      continue;
    }
    if (jdk25 ? *(uint8_t *)(cb + off_kind) == kind_nmethod : !strcmp(name, "nmethod") || !strcmp(name, "native nmethod")) {
      if (compiled(&o, cb, pc)) return -1;
    } else if (!at_anchor || !anchor_stub(name)) {
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
  int n = walk(env, skip, fr, max);
  return n < 0 ? WALK_CANNOT : n;
}
