#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <stdio.h>
#include <string.h>
#include <stdatomic.h>
#include "core/orca.h"
#include "hotspot/vmstructs.h"

atomic_long hs_env_at = -2;   // -2: not looked up yet (vmstructs.h)

// The look-ups below read the VM's exported tables (gHotSpotVMStructs and
// the others, JVMFlag::flags) directly: static data of libjvm.so that the
// VM exports for this purpose (the Serviceability Agent), complete before
// agents load and never freed, read at start (and vms_flag when asked). No
// address in them comes from a layout of the agent's: nothing to recover.

static void *sym(const char *name) {
  void *lib = dlopen("libjvm.so", RTLD_NOLOAD | RTLD_LAZY);
  return dlsym(lib ? lib : RTLD_DEFAULT, name);
}

static uint64_t num(const char *name) {
  uint64_t *p = sym(name);
  return p ? *p : (uint64_t)-1;
}

// entry returns the table entry of type::field, or NULL.
static char *entry(const char *type, const char *field) {
  char **tbl = sym("gHotSpotVMStructs");
  uint64_t stride = num("gHotSpotVMStructEntryArrayStride"), tn = num("gHotSpotVMStructEntryTypeNameOffset"),
           fn = num("gHotSpotVMStructEntryFieldNameOffset");
  if (!tbl || !*tbl || stride == (uint64_t)-1 || tn == (uint64_t)-1 || fn == (uint64_t)-1) return NULL;
  for (char *e = *tbl;; e += stride) {
    const char *t = *(const char **)(e + tn), *f = *(const char **)(e + fn);
    if (!t) return NULL;
    if (f && !strcmp(t, type) && !strcmp(f, field)) return e;
  }
}

long vms_offset_typed(const char *type, const char *field, const char *ctype) {
  char *e = entry(type, field);
  uint64_t oo = num("gHotSpotVMStructEntryOffsetOffset"), to = num("gHotSpotVMStructEntryTypeStringOffset");
  if (!e || oo == (uint64_t)-1) return -1;
  if (ctype) {
    const char *t = to == (uint64_t)-1 ? NULL : *(const char **)(e + to);
    if (!t || strcmp(t, ctype)) return -1;
  }
  return (long)*(uint64_t *)(e + oo);
}

long vms_offset(const char *type, const char *field) { return vms_offset_typed(type, field, NULL); }

long vms_thread_offset(const char *field) {
  long o = vms_offset("JavaThread", field);
  return o >= 0 ? o : vms_offset("Thread", field);
}

void *vms_static(const char *type, const char *field) {
  char *e = entry(type, field);
  uint64_t ao = num("gHotSpotVMStructEntryAddressOffset");
  return e && ao != (uint64_t)-1 ? *(void **)(e + ao) : NULL;
}

long vms_size(const char *type) {
  char **tbl = sym("gHotSpotVMTypes");
  uint64_t stride = num("gHotSpotVMTypeEntryArrayStride"), tn = num("gHotSpotVMTypeEntryTypeNameOffset"),
           so = num("gHotSpotVMTypeEntrySizeOffset");
  if (!tbl || !*tbl || stride == (uint64_t)-1 || tn == (uint64_t)-1 || so == (uint64_t)-1) return -1;
  for (char *e = *tbl;; e += stride) {
    const char *t = *(const char **)(e + tn);
    if (!t) return -1;
    if (!strcmp(t, type)) return (long)*(uint64_t *)(e + so);
  }
}

static long constant(const char *table, const char *prefix, int is_long, const char *name) {
  char key[96];
  char **tbl = sym(table);
  snprintf(key, sizeof key, "%sEntryArrayStride", prefix);
  uint64_t stride = num(key);
  snprintf(key, sizeof key, "%sEntryNameOffset", prefix);
  uint64_t no = num(key);
  snprintf(key, sizeof key, "%sEntryValueOffset", prefix);
  uint64_t vo = num(key);
  if (!tbl || !*tbl || stride == (uint64_t)-1 || no == (uint64_t)-1 || vo == (uint64_t)-1) return -1;
  for (char *e = *tbl;; e += stride) {
    const char *n = *(const char **)(e + no);
    if (!n) return -1;
    if (!strcmp(n, name)) return is_long ? (long)*(uint64_t *)(e + vo) : (long)*(int32_t *)(e + vo);
  }
}

long vms_constant(const char *name) {
  long v = constant("gHotSpotVMLongConstants", "gHotSpotVMLongConstant", 1, name);
  return v != -1 ? v : constant("gHotSpotVMIntConstants", "gHotSpotVMIntConstant", 0, name);
}

int vms_flag(const char *name) {
  char **flags = vms_static("JVMFlag", "flags");
  size_t *count = vms_static("JVMFlag", "numFlags");
  long size = vms_size("JVMFlag"), off_name = vms_offset("JVMFlag", "_name"), off_addr = vms_offset("JVMFlag", "_addr");
  if (!flags || !*flags || !count || size <= 0 || off_name < 0 || off_addr < 0) return -1;
  for (size_t i = 0; i < *count; i++) {
    char *f = *flags + i * (size_t)size;
    const char *n = *(const char **)(f + off_name);
    if (n && !strcmp(n, name)) {
      const char *addr = *(const char **)(f + off_addr);
      return addr ? *addr != 0 : -1;   // a bool flag's value
    }
  }
  return -1;
}

static long env_offset(void) {
  long o = atomic_load_explicit(&hs_env_at, memory_order_relaxed);
  if (o == -2) {
    long expect = -2;
    atomic_compare_exchange_strong(&hs_env_at, &expect, vms_offset("JavaThread", "_jni_environment"));
    o = atomic_load(&hs_env_at);
  }
  return o;
}

void vms_learn_env(JNIEnv *env, uintptr_t eetop) {
  if (env_offset() >= 0) return;
  // The JNIEnv is embedded in the JavaThread at a fixed offset.
  if (eetop && (uintptr_t)env > eetop && (uintptr_t)env - eetop < 65536)
    atomic_store(&hs_env_at, (long)((uintptr_t)env - eetop));
}

// Each fact: from and to (feature releases, inclusive; 0: open), and why.
static const struct {
  const char *name;
  int from, to;
  const char *why;
} facts[HS_FACTS] = {
    [HS_RELEASE_11] = {"release_11", 11, 0,
                       "JDK 11 or later (JVMTI_VERSION_11, which the agent asks for; the release from "
                       "java.vm.specification.version): where the release is unknown, no fact holds and "
                       "neither HotSpot's timer nor the walker's naming of waits later is used"},
    [HS_WALK_LAYOUT_11] = {"walk_layout_11", 11, 18,
                           "CodeBlob with code pointers, CompiledMethod, debug stream CompressedReadStream: "
                           "the own walker's layout, verified on 17"},
    [HS_WALK_LAYOUT_25] = {"walk_layout_25", 25, 25,
                           "nmethod without CompiledMethod (JDK-8329332, 23), debug records in the "
                           "nmethod's immutable data (JDK-8331087) and metadata in its mutable data "
                           "(JDK-8343789), code offsets instead of pointers in CodeBlob, UNSIGNED5 debug "
                           "stream: verified on 25 only; 19-24 are between the two and not walked"},
    [HS_ASGCT_INEXACT] = {"asgct_inexact", 1, 18,
                          "AsyncGetCallTrace refuses to start in compiled code's monitor-enter stubs "
                          "(JDK-8178287, fixed in 20) and describes a compiled frame by the debug record "
                          "after its return address: not used, GetStackTrace instead"},
    [HS_VIRTUAL_THREADS] = {"virtual_threads", 19, 0,
                            "virtual threads (JEP 425, preview in 19): a JavaThread in a continuation "
                            "(_cont_entry) is not walked"},
    [HS_VT_EVENTS] = {"vt_events", 21, 0,
                      "virtual threads final (JEP 444): can_support_virtual_threads, VirtualThreadStart"},
    [HS_LIGHTWEIGHT_LOCKS] = {"lightweight_locks", 23, 0,
                              "LockingMode lightweight by default (JDK-8319251; 21-22: opt-in): a contender inflates "
                              "a fast-locked object with an anonymous owner, the owner is on a LockStack"},
    [HS_OWNER_TID] = {"owner_tid", 24, 0,
                      "ObjectMonitor::_owner holds the owner's java.lang.Thread id, not a JavaThread* or "
                      "a BasicLock (JEP 491: monitors without pinning virtual threads)"},
    [HS_CONTENDED_ENTER_ONLY] = {"contended_enter_only", 19, 0,
                                 "JVMTI GetCurrentContendedMonitor names only a monitor being entered or "
                                 "re-entered, not the object of Object.wait (JDK-8256314, release note of 22; "
                                 "seen on 25, 19-21 taken alike): a wait's object is named from the wait "
                                 "native's argument (waitobj.c), or at the wait's start"},
};

int hs_has(int f) {
  if (f < 0 || f >= HS_FACTS || orca_feature <= 0) return 0;
  return orca_feature >= facts[f].from && (!facts[f].to || orca_feature <= facts[f].to);
}

const char *hs_facts_text(void) {
  static char buf[256];
  size_t k = 0;
  buf[0] = 0;
  for (int f = 0; f < HS_FACTS; f++)
    if (hs_has(f) && k < sizeof buf)
      k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", k ? " " : "", facts[f].name);
  return buf;
}

hs_layout hs;
static void test_faults(void);

void hs_init(void) {
  hs.walk25 = hs_has(HS_WALK_LAYOUT_25);
  env_offset();   // vms_thread's (vmstructs.h) offset, looked up before any event
  // ThreadStatistics: jlong _contended_enter_count, then the elapsedTimer
  // (jlong _counter, jlong _start_counter, bool _active). The table names
  // _counter and _active, not _start_counter; without elapsedTimer in it,
  // that layout is assumed (the calibration checks it on a real enter).
  hs.stats_total = 8, hs.stats_start = 16, hs.stats_active = 24;
  long t = vms_offset("elapsedTimer", "_counter");
  if (t >= 0) {
    long st = vms_offset("elapsedTimer", "_start_counter"), a = vms_offset("elapsedTimer", "_active");
    if (st < 0 && t == 0 && a == 16 && vms_size("elapsedTimer") == 24) st = 8;
    if (st < 0 || a < 0) hs.stats_total = hs.stats_start = hs.stats_active = -1;
    else hs.stats_total = 8 + t, hs.stats_start = 8 + st, hs.stats_active = 8 + a;
  }
  hs.thread_anchor = vms_offset("JavaThread", "_anchor");
  hs.thread_stack_base = vms_thread_offset("_stack_base");
  hs.thread_stack_size = vms_thread_offset("_stack_size");
  hs.thread_pending_monitor = vms_offset("JavaThread", "_current_pending_monitor");
  hs.thread_waiting_monitor = vms_offset("JavaThread", "_current_waiting_monitor");
  hs.thread_lock_stack = vms_offset("JavaThread", "_lock_stack");
  hs.thread_cont_entry = vms_offset("JavaThread", "_cont_entry");
  hs.thread_size = vms_size("JavaThread");
  hs.anchor_sp = vms_offset("JavaFrameAnchor", "_last_Java_sp");
  hs.anchor_fp = vms_offset("JavaFrameAnchor", "_last_Java_fp");
  hs.anchor_pc = vms_offset("JavaFrameAnchor", "_last_Java_pc");
  hs.lockstack_top = vms_offset("LockStack", "_top");
  hs.lockstack_base = vms_offset("LockStack", "_base[0]");
  hs.lockstack_size = vms_size("LockStack");
  hs.thread_state = vms_offset("JavaThread", "_thread_state");
  hs.thread_osthread = vms_thread_offset("_osthread");
  hs.osthread_tid = vms_offset("OSThread", "_thread_id");
  hs.state_in_java = vms_constant("_thread_in_Java");
  hs.state_in_vm = vms_constant("_thread_in_vm");
  hs.state_in_native = vms_constant("_thread_in_native");
  hs.state_blocked = vms_constant("_thread_blocked");
  hs.monitor_owner = vms_offset("ObjectMonitor", "_owner");
  hs.monitor_object = vms_offset("ObjectMonitor", "_object");
  hs.check_jni = vms_flag("CheckJNICalls") == 1;
  // The object's header, moved into the monitor when it was inflated (up
  // to JDK 23; later JDKs may keep it elsewhere: then JVMTI is asked).
  hs.monitor_header = vms_offset("ObjectMonitor", "_header");
  hs.mark_hash_shift = vms_constant("markWord::hash_shift");
  hs.mark_hash_mask = vms_constant("markWord::hash_mask");
  hs.mark_lock_mask = vms_constant("markWord::lock_mask_in_place");
  hs.mark_unlocked = vms_constant("markWord::unlocked_value");
  hs.mark_monitor = vms_constant("markWord::monitor_value");
  hs.monitor_metadata = vms_offset("ObjectMonitor", "_metadata");
  hs.thread_vthread = vms_offset("JavaThread", "_vthread");
  hs.thread_threadobj = vms_offset("JavaThread", "_threadObj");

  hs.code_heaps = vms_static("CodeCache", "_heaps");
  hs.array_len = vms_offset_typed("GrowableArrayBase", "_len", "int");
  hs.array_data = vms_offset("GrowableArray<int>", "_data");
  hs.heap_memory = vms_offset("CodeHeap", "_memory");
  hs.heap_segmap = vms_offset("CodeHeap", "_segmap");
  hs.heap_log2_segment = vms_offset_typed("CodeHeap", "_log2_segment_size", "int");
  hs.vspace_low_boundary = vms_offset("VirtualSpace", "_low_boundary");
  hs.vspace_low = vms_offset("VirtualSpace", "_low");
  hs.vspace_high = vms_offset("VirtualSpace", "_high");
  hs.heapblock_size = vms_size("HeapBlock");
  hs.heap_low_at = hs.heap_memory + hs.vspace_low_boundary;
  hs.heap_high_at = hs.heap_memory + hs.vspace_high;
  hs.heap_segmap_at = hs.heap_segmap + hs.vspace_low;
  hs.blob_name = vms_offset("CodeBlob", "_name");
  hs.blob_frame_size = vms_offset_typed("CodeBlob", "_frame_size", "int");
  hs.blob_code_begin = vms_offset("CodeBlob", "_code_begin");
  hs.blob_code_end = vms_offset("CodeBlob", "_code_end");
  hs.blob_code_offset = vms_offset_typed("CodeBlob", "_code_offset", "int");
  hs.blob_data_offset = vms_offset_typed("CodeBlob", "_data_offset", "int");
  hs.blob_size = vms_offset_typed("CodeBlob", "_size", "int");
  hs.nm_oops_offset = vms_offset_typed("nmethod", "_oops_offset", "int");
  hs.blob_kind = vms_offset_typed("CodeBlob", "_kind", "CodeBlobKind");
  hs.blob_mutable_data = vms_offset_typed("CodeBlob", "_mutable_data", "address");
  hs.blob_mutable_data_size = vms_offset_typed("CodeBlob", "_mutable_data_size", "int");
  hs.blob_relocation_size = vms_offset_typed("CodeBlob", "_relocation_size", "int");
  hs.kind_nmethod = vms_constant("CodeBlobKind::Nmethod");
  // JDK 23 merged CompiledMethod into nmethod.
  hs.nm_method = vms_offset("CompiledMethod", "_method");
  if (hs.nm_method < 0) hs.nm_method = vms_offset_typed("nmethod", "_method", "Method*");
  hs.nm_pcs_offset = vms_offset_typed("nmethod", "_scopes_pcs_offset", "int");
  hs.nm_compile_id = vms_offset_typed("nmethod", "_compile_id", "int");
  hs.blob_frame_complete = vms_offset_typed("CodeBlob", "_frame_complete_offset", "int");
  if (hs.blob_frame_complete < 0) {   // JDK 23 made it an int16_t
    hs.blob_frame_complete = vms_offset_typed("CodeBlob", "_frame_complete_offset", "int16_t");
    hs.frame_complete16 = hs.blob_frame_complete >= 0;
  }
  hs.nm_stub_offset = vms_offset_typed("nmethod", "_stub_offset", "int");
  hs.nm_scopes_data_begin = vms_offset("CompiledMethod", "_scopes_data_begin");
  hs.nm_metadata_offset = vms_offset_typed("nmethod", "_metadata_offset", "int");
  hs.nm_dependencies_offset = vms_offset_typed("nmethod", "_dependencies_offset", "int");
  hs.nm_immutable_data = vms_offset_typed("nmethod", "_immutable_data", "address");
  hs.nm_scopes_data_offset = vms_offset_typed("nmethod", "_scopes_data_offset", "int");
  hs.pcdesc_size = vms_size("PcDesc");
  hs.pcdesc_pc_offset = vms_offset_typed("PcDesc", "_pc_offset", "int");
  hs.pcdesc_scope_offset = vms_offset_typed("PcDesc", "_scope_decode_offset", "int");
  hs.method_const = vms_offset("Method", "_constMethod");
  hs.method_flags = vms_offset("Method", "_access_flags");
  hs.method_size = vms_size("Method");
  hs.const_constants = vms_offset("ConstMethod", "_constants");
  hs.const_code_size = vms_offset_typed("ConstMethod", "_code_size", "u2");
  hs.const_idnum = vms_offset_typed("ConstMethod", "_method_idnum", "u2");
  hs.const_size = vms_size("ConstMethod");
  hs.pool_holder = vms_offset("ConstantPool", "_pool_holder");
  hs.klass_jmethod_ids = vms_offset("InstanceKlass", "_methods_jmethod_ids");
  hs.klass_methods = vms_offset("InstanceKlass", "_methods");
  hs.methods_len = vms_offset("Array<Method*>", "_length");
  hs.methods_data = vms_offset("Array<Method*>", "_data");
  hs.jcw_anchor = vms_offset("JavaCallWrapper", "_anchor");
  hs.entry_frame_wrapper = vms_constant("frame::entry_frame_call_wrapper_offset");
  hs.call_stub_return = vms_static("StubRoutines", "_call_stub_return_address");
  test_faults();
}

int hs_method_id_valid(jmethodID mid) {
  uintptr_t m, cm, cp, ik, ids, n, w;
  uint16_t idnum;
  if (!mid) return 0;
  // Not checkable: then the own walker, which needs the same structures,
  // does not run, and a sample's ids are AsyncGetCallTrace's, the JVM's own.
  if (hs.method_const < 0 || hs.const_constants < 0 || hs.pool_holder < 0 || hs.klass_jmethod_ids < 0 || hs.const_idnum < 0)
    return 1;
  // The slot: a Method*, or NULL / the JVM's free marker (JNIMethodBlock::_free_method, 55) for an unloaded class.
  if (!safe_word(vm_at((uintptr_t)mid), &m) || m < 4096 || (m & 7)) return 0;
  if (!safe_word(hs_at_off(vm_at(m), hs.method_const), &cm) || cm < 4096 ||
      !safe_word(hs_at_off(vm_at(cm), hs.const_constants), &cp) || cp < 4096 ||
      !safe_word(hs_at_off(vm_at(cp), hs.pool_holder), &ik) || ik < 4096 ||
      !safe_word(hs_at_off(vm_at(ik), hs.klass_jmethod_ids), &ids) || ids < 4096 ||
      !safe_read(&idnum, hs_at_off(vm_at(cm), hs.const_idnum), sizeof idnum) || !safe_word(vm_at(ids), &n) ||
      (uintptr_t)idnum + 1 > n || !safe_word(vm_at(ids + ((uintptr_t)idnum + 1) * sizeof(uintptr_t)), &w) ||
      w != (uintptr_t)mid)
    return 0;
  if (hs.klass_methods < 0 || hs.methods_len < 0 || hs.methods_data < 0) return 1;
  // And the method is its class's (not a word that happens to chain to a class).
  uintptr_t arr;
  int len;
  if (!safe_word(hs_at_off(vm_at(ik), hs.klass_methods), &arr) || arr < 4096 ||
      !safe_read(&len, hs_at_off(vm_at(arr), hs.methods_len), sizeof len) || len <= 0 || len > 65535)
    return 0;
  uintptr_t buf[64];
  for (int i = 0; i < len; i += 64) {
    int k = len - i < 64 ? len - i : 64;
    if (!safe_read(buf, hs_at_off(vm_at(arr), hs.methods_data + (long)i * (long)sizeof(uintptr_t)), (size_t)k * sizeof buf[0]))
      return 0;
    for (int j = 0; j < k; j++)
      if (buf[j] == m) return 1;
  }
  return 0;
}

// ---- Capabilities ----

const char *hs_walk_missing(void) {
  long common[] = {hs.thread_anchor, hs.anchor_sp, hs.anchor_fp, hs.anchor_pc, hs.thread_stack_base,
                   hs.thread_stack_size, hs.array_len, hs.array_data, hs.heap_memory, hs.heap_segmap,
                   hs.heap_log2_segment, hs.vspace_low_boundary, hs.vspace_low, hs.vspace_high, hs.heapblock_size,
                   hs.blob_name, hs.blob_frame_size, hs.nm_method, hs.nm_pcs_offset, hs.pcdesc_size,
                   hs.pcdesc_pc_offset, hs.pcdesc_scope_offset, hs.method_const, hs.method_flags,
                   hs.const_constants, hs.const_code_size, hs.const_idnum, hs.const_size, hs.pool_holder,
                   hs.klass_jmethod_ids, hs.jcw_anchor};
  long l25[] = {hs.blob_code_offset, hs.blob_data_offset, hs.nm_immutable_data, hs.blob_mutable_data,
                hs.nm_scopes_data_offset, hs.blob_kind, hs.kind_nmethod, hs.blob_mutable_data_size,
                hs.blob_relocation_size, hs.thread_cont_entry};
  long l11[] = {hs.blob_code_begin, hs.blob_code_end, hs.nm_scopes_data_begin, hs.nm_metadata_offset,
                hs.nm_dependencies_offset};
  const char *no = "a structure the walker needs is not in gHotSpotVMStructs";
  for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
    if (common[i] < 0) return no;
  long *l = hs.walk25 ? l25 : l11;
  size_t n = hs.walk25 ? sizeof l25 / sizeof l25[0] : sizeof l11 / sizeof l11[0];
  for (size_t i = 0; i < n; i++)
    if (l[i] < 0) return no;
  // frame::entry_frame_call_wrapper_offset: the x86-64 layout the walker knows.
  if (!hs.code_heaps || !hs.call_stub_return || hs.entry_frame_wrapper != -6) return no;
  return NULL;
}

int hs_can_owner(void) { return hs.thread_pending_monitor >= 0 && hs.monitor_owner >= 0; }

int hs_can_monitor_hash(void) {
  return hs.thread_pending_monitor >= 0 && hs.monitor_header >= 0 && hs.mark_hash_shift >= 0 &&
         hs.mark_hash_shift <= 63 && hs.mark_hash_mask > 0;
}

int hs_can_lock_stack(void) { return hs.thread_lock_stack >= 0 && hs.lockstack_top >= 0 && hs.lockstack_base >= 0; }

const char *hs_stats_missing(void) {
  if (hs.stats_total < 0) return "elapsedTimer layout";
  if (hs.thread_size <= 0) return "no JavaThread layout";
  return NULL;
}

int hs_stw_collector(void) { return vms_flag("UseG1GC") == 1 || vms_flag("UseParallelGC") == 1 || vms_flag("UseSerialGC") == 1; }

// ---- Fault-safe accessors ----

// Fault injection (tests): ORCA_TEST_FAULTS=SITE:N[,SITE:N], one in N
// fault-safe reads of a site reads an inaccessible page instead (hs_aim,
// vmstructs.h).
static const char *const site_names[HS_SITES] = {"owner", "lock_stack", "timer"};
int hs_fault_every[HS_SITES];
static atomic_long fault_reads[HS_SITES];
static uintptr_t fault_page;

static void test_faults(void) {
  const char *v = switches.test_faults;
  if (!v) return;
  void *pg = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pg == MAP_FAILED) return;
  fault_page = (uintptr_t)pg;
  for (int k = 0; k < HS_SITES; k++) {
    const char *at = strstr(v, site_names[k]);
    size_t n = strlen(site_names[k]);
    if (at && at[n] == ':' && atoi(at + n + 1) > 0) hs_fault_every[k] = atoi(at + n + 1);
  }
}

// hs_fault_aim: hs_aim's part for a site whose reads are injected faults.
// Which reads fault is a hash of the site's read count, not every Nth: the
// reads of one contended enter come in a fixed order, so every Nth would
// fault the same one each time (always the owner's word, never the
// monitor's hash).
vm_ptr hs_fault_aim(int site, vm_ptr p) {
  uint64_t n = (uint64_t)atomic_fetch_add_explicit(&fault_reads[site], 1, memory_order_relaxed);
  n *= 0x9E3779B97F4A7C15ull;
  return (n >> 40) % (uint64_t)hs_fault_every[site] == 0 ? vm_at(fault_page) : p;
}

int hs_waiting_monitor(vm_ptr jt, vm_ptr *mon) {
  uintptr_t w = 0;
  if (hs.thread_waiting_monitor < 0 || !safe_word(hs_aim(HS_SITE_OWNER, hs_at_off(jt, hs.thread_waiting_monitor)), &w)) return 0;
  *mon = vm_at(w);
  return 1;
}

int hs_handle_oop(jobject handle, uintptr_t *oop) { return safe_word(vm_at((uintptr_t)handle), oop); }

int hs_thread_tid(vm_ptr jt) {
  uintptr_t os = 0;
  int32_t tid = 0;
  if (vm_null(jt) || hs.thread_osthread < 0 || hs.osthread_tid < 0 || !safe_word(hs_at_off(jt, hs.thread_osthread), &os) || !os ||
      !safe_read(&tid, hs_at_off(vm_at(os), hs.osthread_tid), sizeof tid))
    return 0;
  return tid > 0 ? tid : 0;
}

JNIEnv *hs_env_of(vm_ptr jt) {
  long o = env_offset();
  return o >= 0 && !vm_null(jt) ? (JNIEnv *)(jt.vm_bits_ + (uintptr_t)o) : NULL;
}

int hs_thread_state_of(vm_ptr jt) {
  uint32_t st = 0;
  if (hs.thread_state < 0 || !safe_read(&st, hs_at_off(jt, hs.thread_state), sizeof st)) return HS_TS_OTHER;
  long v = (long)st;
  return v == hs.state_in_java     ? HS_TS_JAVA
         : v == hs.state_in_vm     ? HS_TS_VM
         : v == hs.state_in_native ? HS_TS_NATIVE
         : v == hs.state_blocked   ? HS_TS_BLOCKED
                                   : HS_TS_OTHER;
}

int hs_thread_stack(vm_ptr jt, uintptr_t *lo, uintptr_t *hi) {
  uintptr_t base = 0, size = 0;
  if (vm_null(jt) || hs.thread_stack_base < 0 || hs.thread_stack_size < 0 ||
      !safe_word(hs_at_off(jt, hs.thread_stack_base), &base) || !safe_word(hs_at_off(jt, hs.thread_stack_size), &size))
    return 0;
  *lo = base - size, *hi = base;
  return 1;
}

// monitor_table: UseObjectMonitorTable (24+, off by default): the object's
// header keeps its hash and does not point at the monitor, whose _metadata
// is the hash. Asked at first use (after the VM parsed its flags).
static int monitor_table(void) {
  static atomic_int t = -2;
  int v = atomic_load_explicit(&t, memory_order_relaxed);
  if (v == -2) atomic_store(&t, v = vms_flag("UseObjectMonitorTable") == 1);
  return v;
}

int hs_held_prepare(void) {
  hs.held_biased = vms_flag("UseBiasedLocking") == 1;
  hs.held_hash = hs.mark_hash_shift >= 0 && hs.mark_hash_shift <= 63 && hs.mark_hash_mask > 0 && hs.mark_lock_mask > 0 &&
                 hs.mark_unlocked >= 0 && hs.mark_monitor >= 0 && (hs.monitor_header >= 0 || hs.monitor_metadata >= 0) &&
                 hs.method_flags >= 0 && !monitor_table();
  return hs.held_hash;
}

int hs_object_inflated(vm_ptr oop) {
  uintptr_t mark = 0;
  if (vm_null(oop) || hs.mark_lock_mask <= 0 || hs.mark_monitor < 0 || !safe_word(oop, &mark)) return 0;
  return (mark & (uintptr_t)hs.mark_lock_mask) == (uintptr_t)hs.mark_monitor;
}

int hs_object_hash(vm_ptr oop, uint32_t *hash) {
  uintptr_t mark = 0;
  *hash = 0;
  if (vm_null(oop) || hs.mark_hash_shift < 0 || hs.mark_hash_shift > 63 || hs.mark_hash_mask <= 0 ||
      hs.mark_lock_mask <= 0 || hs.mark_unlocked < 0 || hs.mark_monitor < 0 || !safe_word(oop, &mark))
    return 0;
  uintptr_t lock = mark & (uintptr_t)hs.mark_lock_mask;
  if (lock == (uintptr_t)hs.mark_monitor && !monitor_table()) {
    // The header displaced into the monitor (_header up to 23, _metadata after).
    long at = hs.monitor_header >= 0 ? hs.monitor_header : hs.monitor_metadata;
    if (at < 0 || !safe_word(hs_at_off(vm_at(mark ^ lock), at), &mark)) return 0;
  } else if (lock != (uintptr_t)hs.mark_unlocked && lock != (uintptr_t)hs.mark_monitor) {
    return 0;   // fast-locked: a stack lock's header is elsewhere
  }
  *hash = (uint32_t)((mark >> hs.mark_hash_shift) & (uintptr_t)hs.mark_hash_mask);
  return *hash != 0;
}

intptr_t hs_mounted_virtual(vm_ptr jt) {
  uintptr_t hv = 0, ht = 0, v = 0, t = 0;
  if (hs.thread_vthread < 0 || hs.thread_threadobj < 0) return -1;
  // OopHandles: each points at a slot holding the object.
  if (!safe_word(hs_at_off(jt, hs.thread_vthread), &hv) || !safe_word(hs_at_off(jt, hs.thread_threadobj), &ht) || !hv ||
      !ht || !safe_word(vm_at(hv), &v) || !safe_word(vm_at(ht), &t) || !v || !t)
    return -1;
  return v == t ? 0 : (intptr_t)v;
}

int hs_lock_stack(vm_ptr jt, uintptr_t *out, int max) {
  enum { BUF = 512 };
  size_t want = (size_t)hs.lockstack_base + (size_t)max * sizeof(uintptr_t);
  if (!hs_can_lock_stack() || want > BUF) return -1;
  unsigned char buf[BUF];
  // Another thread's memory, gone if the thread has just exited.
  if (!safe_read(buf, hs_aim(HS_SITE_LOCK_STACK, hs_at_off(jt, hs.thread_lock_stack)), want)) return -1;
  uint32_t top;   // a byte offset from the JavaThread
  memcpy(&top, buf + hs.lockstack_top, sizeof top);
  long first = hs.thread_lock_stack + hs.lockstack_base;
  long count = ((long)top - first) / (long)sizeof(uintptr_t);
  if (count < 0 || count > max) return -1;
  memcpy(out, buf + hs.lockstack_base, (size_t)count * sizeof(uintptr_t));
  return (int)count;
}

int hs_thread_running(vm_ptr jt) {
  uint32_t state = 0;
  if (hs.thread_state < 0 || hs.state_in_java < 0 || hs.state_in_vm < 0 ||
      !safe_read(&state, hs_aim(HS_SITE_LOCK_STACK, hs_at_off(jt, hs.thread_state)), sizeof state))
    return 0;
  return (long)state == hs.state_in_java || (long)state == hs.state_in_vm;
}

int hs_lock_stack_popped(vm_ptr jt, uintptr_t *obj) {
  enum { BUF = 256 };
  uint32_t state = 0;
  if (!hs_can_lock_stack() || hs.lockstack_size <= hs.lockstack_base || hs.lockstack_size > BUF ||
      hs.thread_state < 0 || hs.state_in_java < 0 || hs.state_in_vm < 0)
    return 0;
  unsigned char buf[BUF];
  // Another thread's memory, gone if the thread has just exited.
  if (!safe_read(&state, hs_aim(HS_SITE_LOCK_STACK, hs_at_off(jt, hs.thread_state)), sizeof state) ||
      ((long)state != hs.state_in_java && (long)state != hs.state_in_vm) ||
      !safe_read(buf, hs_aim(HS_SITE_LOCK_STACK, hs_at_off(jt, hs.thread_lock_stack)), (size_t)hs.lockstack_size))
    return 0;
  uint32_t top;   // a byte offset from the JavaThread
  memcpy(&top, buf + hs.lockstack_top, sizeof top);
  long at = (long)top - hs.thread_lock_stack;   // the entry just above the top, in buf
  if (at < hs.lockstack_base || at + (long)sizeof(uintptr_t) > hs.lockstack_size ||
      (at - hs.lockstack_base) % (long)sizeof(uintptr_t))
    return 0;
  memcpy(obj, buf + at, sizeof *obj);
  return *obj != 0;
}

int hs_own_lock_stack(vm_ptr jt, uintptr_t *out, int max) {
  uint32_t top;   // a byte offset from the JavaThread
  if (!hs_can_lock_stack() ||
      !safe_read(&top, hs_aim(HS_SITE_LOCK_STACK, hs_at_off(jt, hs.thread_lock_stack + hs.lockstack_top)), sizeof top))
    return -1;
  long first = hs.thread_lock_stack + hs.lockstack_base;
  long count = ((long)top - first) / (long)sizeof(uintptr_t);
  if (count < 0 || count > max) return -1;
  if (count && !safe_read(out, hs_aim(HS_SITE_LOCK_STACK, hs_at_off(jt, first)), (size_t)count * sizeof(uintptr_t)))
    return -1;
  return (int)count;
}

enum { MAX_WORDS = 1024 };   // JavaThread is 1-2 kB on 17-25

int hs_probe_thread_words(void) {
  long n = hs.thread_size / 8;
  return n <= 0 ? 0 : n > MAX_WORDS ? MAX_WORDS : (int)n;
}

int hs_probe_stats(vm_ptr jt, long at, hs_stats_copy *out) {
  uintptr_t p = 0;
  char w[32];
  if (hs.stats_total < 0 || hs.stats_active >= (long)sizeof w || hs.stats_total + 8 > (long)sizeof w ||
      hs.stats_start + 8 > (long)sizeof w)
    return 0;
  if (!safe_probe(&p, hs_at_off(jt, at), sizeof p) || p < 65536 || p % 8 != 0 || p >= (1ULL << 47) ||
      !safe_probe(w, vm_at(p), sizeof w))
    return 0;
  memcpy(&out->count, w, 8);
  memcpy(&out->total, w + hs.stats_total, 8);
  memcpy(&out->start, w + hs.stats_start, 8);
  out->active = w[hs.stats_active];
  return 1;
}

void *hs_native_function(jmethodID m) {
  uintptr_t method = 0, fn = 0;
  // A jmethodID is a slot holding the Method*.
  if (!m || hs.method_size <= 0 || !safe_word(vm_at((uintptr_t)m), &method) || !method) return NULL;
  if (!safe_word(vm_at(method + (uintptr_t)hs.method_size), &fn)) return NULL;
  return (void *)fn;
}

jobject hs_monitor_object(JNIEnv *env, vm_ptr mon) {
  uintptr_t slot = 0, oop = 0;
  if (hs.monitor_object < 0 || hs.check_jni || vm_null(mon) || !safe_word(hs_at_off(mon, hs.monitor_object), &slot) || !slot ||
      (slot & 7) || !safe_word(vm_at(slot), &oop) || !oop)
    return NULL;
  jobject ref = (*env)->NewLocalRef(env, (jobject)(slot | 1));
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), ref = NULL;
  return ref;
}
