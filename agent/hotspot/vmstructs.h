// The HotSpot layer: everything the agent knows about HotSpot's insides.
// HotSpot's exported structure table (gHotSpotVMStructs, made for the
// Serviceability Agent) gives field offsets of the VM's own C++ objects, so
// the agent can read a thread's monitor state or frame anchor without a
// safepoint. The layer looks them up once (hs_init), says what can be done
// with them (capabilities), names every version check (facts, with the JDK
// change behind each) and gives the readers typed accessors; only it reads
// VM memory (agent/check-safe.sh; docs/agent.md, "The HotSpot layer").
#ifndef ORCA_VMSTRUCTS_H
#define ORCA_VMSTRUCTS_H
#include <jni.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include "hotspot/safe.h"

// vms_offset returns the byte offset of type::field, or -1; with ctype
// non-NULL, only if the field's C++ type is ctype.
long vms_offset(const char *type, const char *field);
long vms_offset_typed(const char *type, const char *field, const char *ctype);
// vms_thread_offset returns the offset of a JavaThread field that older
// JDKs declare in Thread (_stack_base, _stack_size), or -1.
long vms_thread_offset(const char *field);
// vms_static returns the address of the static field type::field, or NULL.
void *vms_static(const char *type, const char *field);
// vms_constant returns the VM's integer constant name (gHotSpotVMLongConstants
// or gHotSpotVMIntConstants), or -1.
long vms_constant(const char *name);
// vms_size returns sizeof(type), or -1.
long vms_size(const char *type);
// vms_flag returns the value of the VM's bool flag name (-XX:+name), or -1
// when the flag table does not say.
int vms_flag(const char *name);
// vms_learn_env learns where the JNIEnv sits in a JavaThread when the table
// does not say, from a thread's JNIEnv and its JavaThread address (eetop).
void vms_learn_env(JNIEnv *env, uintptr_t eetop);
// vms_thread (below, inline) returns the calling thread's JavaThread, or
// a null vm_ptr when unknown.
// hs_native_function returns the address a native method m is bound to now
// (Method::_native_function, the word after the Method), or NULL when
// unknown or unreadable: an attach finds the natives bound already
// (NativeMethodBind is not posted again).
void *hs_native_function(jmethodID m);

// ---- The layout: every field the agent reads, looked up once -------------
// hs_init (Agent_OnLoad, after orca_feature) fills `hs` from the tables
// above; -1 (or NULL) where this JVM does not export it. Only this layer
// uses it: the readers (walk.c, owner.c, objhash.c, hsstat.c) call the
// typed accessors below, and agent/check-safe.sh fails on `hs.` or a
// vms_offset outside vmstructs.{c,h}.
typedef struct {
  // JavaThread (_stack_base/_stack_size in Thread on older JDKs)
  long thread_anchor, thread_stack_base, thread_stack_size, thread_pending_monitor, thread_waiting_monitor, thread_lock_stack,
      thread_cont_entry, thread_size;
  long thread_vthread, thread_threadobj;           // OopHandles: the thread it runs (19+), its own
  long anchor_sp, anchor_fp, anchor_pc;           // JavaFrameAnchor::_last_Java_*
  long lockstack_top, lockstack_base, lockstack_size;   // LockStack (lightweight locking)
  long thread_state, state_in_java, state_in_vm;   // JavaThread::_thread_state, _thread_in_Java, _thread_in_vm
  long state_in_native, state_blocked;             // _thread_in_native, _thread_blocked (the samplers)
  long thread_osthread, osthread_tid;              // Thread::_osthread, OSThread::_thread_id (its OS thread id)
  long monitor_owner, monitor_header;              // ObjectMonitor
  long monitor_object;                             // ObjectMonitor::_object, a WeakHandle: its OopStorage slot
  int check_jni;                                   // -Xcheck:jni
  long monitor_metadata;                           // ObjectMonitor::_metadata (24+: the header, or the hash)
  long mark_hash_shift, mark_hash_mask;            // markWord constants
  long mark_lock_mask, mark_unlocked, mark_monitor;
  // ThreadStatistics (not in the table: jlong _contended_enter_count, then
  // elapsedTimer _contended_enter_timer, whose fields are): byte offsets of
  // the timer's total, start and active flag in it; -1: layout unknown.
  long stats_total, stats_start, stats_active;
  // The code cache
  char **code_heaps;                               // CodeCache::_heaps: GrowableArray<CodeHeap*>*
  long array_len, array_data;                      // GrowableArray
  long heap_memory, heap_segmap, heap_log2_segment;   // CodeHeap
  long vspace_low_boundary, vspace_low, vspace_high;  // VirtualSpace
  long heapblock_size;
  long heap_low_at, heap_high_at, heap_segmap_at;   // CodeHeap: its VirtualSpaces' bounds, summed
  long blob_name, blob_frame_size;                 // CodeBlob
  long blob_code_begin, blob_code_end;             // 11-18: pointers
  long blob_code_offset, blob_data_offset, blob_kind, blob_mutable_data, blob_mutable_data_size,
      blob_relocation_size, kind_nmethod;          // 25: offsets from the blob, CodeBlobKind
  long nm_method, nm_pcs_offset;                   // CompiledMethod (11-18) / nmethod
  long nm_compile_id;                              // nmethod::_compile_id (the walker's cache; -1: no cache)
  long blob_frame_complete, nm_stub_offset;        // the walk from a signal's context (-1: not walked)
  int frame_complete16;                            // _frame_complete_offset is an int16_t (23 on)
  long nm_scopes_data_begin, nm_metadata_offset, nm_dependencies_offset;   // 11-18
  long nm_immutable_data, nm_scopes_data_offset;   // 25
  long pcdesc_size, pcdesc_pc_offset, pcdesc_scope_offset;
  long method_const, method_flags, method_size;    // Method (its native function follows it)
  long const_constants, const_code_size, const_idnum, const_size;   // ConstMethod
  long pool_holder, klass_jmethod_ids;             // ConstantPool, InstanceKlass
  long klass_methods, methods_len, methods_data;   // InstanceKlass::_methods, Array<Method*> (-1: not checked)
  long jcw_anchor, entry_frame_wrapper;            // JavaCallWrapper, frame constant
  uintptr_t *call_stub_return;                     // StubRoutines::_call_stub_return_address
  int walk25;                                      // HS_WALK_LAYOUT_25: the accessors' layout
  int held_hash;                                   // hs_held_prepare: the held walk may read hashes (1)
  int held_biased;                                 // -XX:+UseBiasedLocking (up to 17): a biased header has no hash
  long blob_size, nm_oops_offset;                  // CodeBlob::_size; nmethod::_oops_offset (11-18): its oops
} hs_layout;
extern hs_layout hs;
void hs_init(void);

// ---- Version facts -------------------------------------------------------
// What a JDK feature release changed in what the agent reads or calls,
// with the change that says so: every version check of the agent is one
// of these (hs_has), and .info lists those true on the JVM
// (hotspot.facts). The table, with the reasons, is in vmstructs.c.
enum {
  HS_RELEASE_11,         // a release the agent knows (JVMTI 11, JDK 11+): else nothing is assumed
  HS_WALK_LAYOUT_11,     // the own walker's layout of 11-18
  HS_WALK_LAYOUT_25,     // the own walker's layout of 25
  HS_ASGCT_INEXACT,      // AsyncGetCallTrace not exact at the agent's walks: not used
  HS_VIRTUAL_THREADS,    // JavaThread may run a continuation (a virtual thread)
  HS_VT_EVENTS,          // JVMTI can_support_virtual_threads, VirtualThreadStart
  HS_LIGHTWEIGHT_LOCKS,  // lightweight locking by default: anonymous owners, lock stacks
  HS_OWNER_TID,          // ObjectMonitor::_owner holds the owner's thread id
  HS_CONTENDED_ENTER_ONLY,   // GetCurrentContendedMonitor names no object of Object.wait
  HS_FACTS
};
// hs_has says whether fact f holds on this JVM (orca_feature: its release).
int hs_has(int f);
// hs_facts_text lists the facts that hold, space-separated (.info).
const char *hs_facts_text(void);

// ---- Capabilities: what the readers can do on this JVM -------------------
// hs_walk_missing: NULL when every structure the own walker reads is
// exported (for the layout of HS_WALK_LAYOUT_11 or _25), else what is not.
const char *hs_walk_missing(void);
// hs_can_owner: ObjectMonitor::_owner and the pending monitor are exported.
int hs_can_owner(void);
// hs_can_monitor_hash: the monitor's displaced header and the hash's place in it.
int hs_can_monitor_hash(void);
// hs_held_prepare (VMInit, after the VM parsed its flags): whether the
// held walk (walk.c, walk_held) can read an object's identity hash from its
// header: the markWord constants and the monitor's displaced header are
// exported, and no UseObjectMonitorTable.
int hs_held_prepare(void);
// hs_can_lock_stack: JavaThread::_lock_stack and LockStack are exported.
int hs_can_lock_stack(void);
// hs_stats_missing: NULL when the ThreadStatistics timer's layout and
// JavaThread's size are known (hsstat.c's calibration), else what is not.
const char *hs_stats_missing(void);
// hs_stw_collector: the collector moves objects only in stop-the-world
// pauses (G1, Parallel, Serial; objhash.h). Asked after VMInit (ergonomics).
int hs_stw_collector(void);

// ---- Typed accessors -----------------------------------------------------
// Every read of VM memory outside this layer is one of these: the readers
// hold VM addresses as vm_ptr (safe.h), which the compiler will not let
// them dereference, or as pointers to the incomplete hs_* types below.
// Three kinds, by who may fault:
// - fault-safe (safe_read): every reader's but the walker's — another
//   thread's structures, the calling thread's own (its lock stack, its
//   ThreadStatistics timer: at an offset the calibration found), monitors
//   and objects reached through a pointer the VM may change. A read that
//   faults returns 0 (counted: hotspot.faults) and the reader falls back;
// - guarded (HS_GUARDED, walk.c only): direct loads for code in the
//   section SAFE_CODE under a guard (safe.h), always inlined there so they
//   run inside the section: a fault ends the walk;
// - proven safe, direct: hs_handle_oop_now, the slot of one of the calling
//   thread's own JNI local references, inside the call that holds it (the
//   load JNI's own resolve makes); and the VM's static tables (vms_*, at
//   start: exported symbols of libjvm.so).
// ORCA_TEST_FAULTS=SITE:N[,SITE:N] (tests; sites owner, lock_stack,
// timer) makes one in N fault-safe reads of a site read an inaccessible
// page instead, as a layout described wrongly would (hs_init).
#define HS_INLINE static inline __attribute__((always_inline))
#define HS_AT(type, base, off) (*(type *)((uintptr_t)(base) + (uintptr_t)(off)))

// The accessors a contended enter calls are inline here, as
// async-profiler's vmStructs.h keeps its own: an enter runs no function of
// the layer's .c (docs/agent.md, "The files an event runs").

// vms_thread: the JNIEnv sits in the JavaThread at hs_env_at (looked up by
// hs_init, or learned by vms_learn_env; -2 before hs_init, -1 unknown):
// arithmetic, no read (the walker calls it in SAFE_CODE).
extern atomic_long hs_env_at;
HS_INLINE vm_ptr vms_thread(JNIEnv *env) {
  long o = atomic_load_explicit(&hs_env_at, memory_order_relaxed);
  return vm_at(o >= 0 && env ? (uintptr_t)env - (uintptr_t)o : 0);
}

// hs_at_off: the VM address off bytes past p.
HS_INLINE vm_ptr hs_at_off(vm_ptr p, long off) { return vm_at(p.vm_bits_ + (uintptr_t)off); }
// hs_aim returns where a fault-safe read of site should go: p, or with
// ORCA_TEST_FAULTS one time in N the inaccessible page (hs_fault_aim).
enum { HS_SITE_OWNER, HS_SITE_LOCK_STACK, HS_SITE_TIMER, HS_SITES };
extern int hs_fault_every[HS_SITES];
vm_ptr hs_fault_aim(int site, vm_ptr p);
HS_INLINE vm_ptr hs_aim(int site, vm_ptr p) {
  return __builtin_expect(!hs_fault_every[site], 1) ? p : hs_fault_aim(site, p);
}

// Fault-safe.
// hs_pending_monitor: JavaThread::_current_pending_monitor of jt;
// hs_waiting_monitor: its _current_waiting_monitor (0 when not exported).
HS_INLINE int hs_pending_monitor(vm_ptr jt, vm_ptr *mon) {
  uintptr_t w = 0;
  if (!safe_word(hs_aim(HS_SITE_OWNER, hs_at_off(jt, hs.thread_pending_monitor)), &w)) return 0;
  *mon = vm_at(w);
  return 1;
}
int hs_waiting_monitor(vm_ptr jt, vm_ptr *mon);
// hs_monitor_object returns a local reference to the object of a monitor
// that another thread is blocked on or waits on (so it cannot be deflated
// meanwhile), or NULL. The monitor's _object is a WeakHandle, a slot of a
// weak OopStorage that the collector keeps up to date, as it does a JNI
// weak global reference's: the slot tagged as one (JNIHandles' weak tag,
// 1 on JDK 11-25) is resolved by the VM's own NewLocalRef, with its
// barriers, never by the agent. Not under -Xcheck:jni (it checks that a
// weak reference is one of JNI's own).
jobject hs_monitor_object(JNIEnv *env, vm_ptr mon);
// hs_monitor_address: the monitor's address, as a number (an identity for
// an object not hashed yet; never read through).
static inline uintptr_t hs_monitor_address(vm_ptr mon) { return mon.vm_bits_; }
// hs_monitor_owner: ObjectMonitor::_owner (a JavaThread*, a BasicLock*,
// or from HS_OWNER_TID a thread id; 1: anonymous, HS_LIGHTWEIGHT_LOCKS): a
// word to compare, never read through.
HS_INLINE int hs_monitor_owner(vm_ptr mon, uintptr_t *own) {
  return safe_word(hs_aim(HS_SITE_OWNER, hs_at_off(mon, hs.monitor_owner)), own);
}
// hs_monitor_hash: the identity hash in the monitor's displaced header (0: none yet).
HS_INLINE int hs_monitor_hash(vm_ptr mon, uint32_t *hash) {
  uintptr_t mark = 0;
  if (!safe_word(hs_aim(HS_SITE_OWNER, hs_at_off(mon, hs.monitor_header)), &mark)) return 0;
  *hash = (uint32_t)((mark >> hs.mark_hash_shift) & (uintptr_t)hs.mark_hash_mask);
  return 1;
}
// hs_thread_stack: the bounds of jt's stack.
int hs_thread_stack(vm_ptr jt, uintptr_t *lo, uintptr_t *hi);
// hs_lock_stack copies up to max objects of jt's lock stack into out and
// returns how many, or -1 (unreadable, or more than max): another thread's,
// in one copy with its top.
int hs_lock_stack(vm_ptr jt, uintptr_t *out, int max);
// hs_lock_stack_popped: the entry of jt's lock stack just above its top
// (_base[_top]: the object a fast unlock pops before its CAS of the header,
// or a fast lock pushes after its CAS), when jt runs Java code or the VM's
// (_thread_in_Java, _thread_in_vm: the fast paths are compiled code, the
// interpreter's, and the runtime's LightweightSynchronizer::enter) and the
// entry is inside the LockStack; 0 otherwise.
// HotSpot clears a popped entry in debug builds only (docs/agent.md, "The
// owner of a contended monitor").
int hs_lock_stack_popped(vm_ptr jt, uintptr_t *obj);
// hs_thread_running: jt runs Java code or the VM's (_thread_in_Java,
// _thread_in_vm), not native code, and is not blocked; 0 also when unknown.
int hs_thread_running(vm_ptr jt);
// hs_own_lock_stack: as hs_lock_stack, of the calling thread's own
// JavaThread jt: its top, then only the entries in use (one guarded read
// when it holds no fast lock).
int hs_own_lock_stack(vm_ptr jt, uintptr_t *out, int max);
// hs_object_hash: the identity hash of the object at oop, from its header
// (unlocked) or its monitor's (inflated); 0 when it has none yet or it is
// fast-locked. The caller makes sure the object cannot move meanwhile
// (objhash_epoch).
int hs_object_hash(vm_ptr oop, uint32_t *hash);
// hs_object_inflated: the object at oop has a monitor (its header says so).
int hs_object_inflated(vm_ptr oop);
// hs_mounted_virtual: the java.lang.Thread object jt runs now when that is a
// virtual thread (19+), else 0; -1 when it cannot be read.
intptr_t hs_mounted_virtual(vm_ptr jt);
// hs_thread_tid: the OS thread id (gettid) of JavaThread jt (Thread::_osthread's
// OSThread::_thread_id), 0 when unknown: a thread alive at an attach gets its
// CPU timer (the samplers) and its scheduler times' baseline (tcpu.h) by it.
int hs_thread_tid(vm_ptr jt);
// hs_env_of: jt's JNIEnv (embedded in it: arithmetic, no read), NULL when unknown.
JNIEnv *hs_env_of(vm_ptr jt);
// hs_thread_state_of: what jt does by its _thread_state: HS_TS_JAVA,
// HS_TS_VM, HS_TS_NATIVE, HS_TS_BLOCKED, HS_TS_OTHER (a transition, or unknown).
enum { HS_TS_OTHER, HS_TS_JAVA, HS_TS_VM, HS_TS_NATIVE, HS_TS_BLOCKED };
int hs_thread_state_of(vm_ptr jt);
// hs_handle_oop: the object a JNI handle points at (its slot's content).
int hs_handle_oop(jobject handle, uintptr_t *oop);
// hs_thread_stats: jt's ThreadStatistics (at: where its pointer sits in
// JavaThread, found by hsstat.c's calibration); hs_stats_read: its timer
// of contended enters now.
typedef struct {
  int64_t total, start;   // the timer's total and its current start
  int active;
} hs_stats_now;
HS_INLINE int hs_thread_stats(vm_ptr jt, long at, vm_ptr *stats) {
  uintptr_t w = 0;
  if (at < 0 || !safe_word(hs_aim(HS_SITE_TIMER, hs_at_off(jt, at)), &w) || !w) return 0;
  *stats = vm_at(w);
  return 1;
}
HS_INLINE int hs_stats_read(vm_ptr stats, hs_stats_now *out) {
  // The count, then elapsedTimer's fields (hs_init): one copy.
  char w[32];
  if (hs.stats_total < 0 || hs.stats_active >= (long)sizeof w || hs.stats_total + 8 > (long)sizeof w ||
      hs.stats_start + 8 > (long)sizeof w || !safe_read(w, hs_aim(HS_SITE_TIMER, stats), sizeof w))
    return 0;
  memcpy(&out->total, w + hs.stats_total, 8);
  memcpy(&out->start, w + hs.stats_start, 8);
  out->active = w[hs.stats_active] != 0;
  return 1;
}
// hs_probe_thread_word / hs_probe_stats: the kernel's copy (safe_probe),
// never a fault: for the calibration, which reads every word of a
// JavaThread as if it were a pointer to ThreadStatistics.
typedef struct {
  int64_t count, total, start;   // _contended_enter_count, the timer's total and start
  int active;
} hs_stats_copy;
int hs_probe_thread_words(void);   // words of a JavaThread probed (sizeof / 8, at most 1024)
int hs_probe_stats(vm_ptr jt, long at, hs_stats_copy *out);

// Proven safe, direct.
// hs_handle_oop_now: the object a local JNI handle of the calling thread
// points at, 0 for a tagged (global, weak) one. Only for the caller's own
// local references (a callback's or native's argument, a reference a JVMTI
// call just returned), inside the call that holds them: the slot is in the
// thread's live handle block, and this is the load JNIHandles::resolve
// makes. No layout of the agent's is involved, so no fault to recover.
HS_INLINE uintptr_t hs_handle_oop_now(jobject handle) {
  return ((uintptr_t)handle & 3) ? 0 : __atomic_load_n((const uintptr_t *)handle, __ATOMIC_SEQ_CST);
}
// hs_method_id_valid: mid, a jmethodID a walk from a signal's context read
// (hs_method_id), is one the JVM made: its slot names a method its class
// holds, and that class's cache of ids holds mid at the method's idnum. A
// walk that meets a frame half built can read a word that is no jmethodID;
// JVMTI would follow it (Method::checked_resolve_jmethod_id) and crash the
// JVM. Fault-safe reads, from any thread (the writer's, before it asks
// JVMTI about a sample's method). A jmethodID of a class unloaded since is
// no longer valid (its slot is the JVM's free marker).
int hs_method_id_valid(jmethodID mid);

#ifdef HS_GUARDED
// Guarded: direct loads, for SAFE_CODE under a guard only (walk.c).
struct hs_blob;     // CodeBlob (an nmethod when hs_blob_is_nmethod)
struct hs_method;   // Method
typedef struct { uintptr_t sp, fp, pc; } hs_anchor;   // JavaFrameAnchor's _last_Java_*

HS_INLINE uintptr_t hs_thread_stack_base(vm_ptr jt) { return HS_AT(uintptr_t, jt.vm_bits_, hs.thread_stack_base); }
HS_INLINE size_t hs_thread_stack_size(vm_ptr jt) { return HS_AT(size_t, jt.vm_bits_, hs.thread_stack_size); }
// hs_thread_in_continuation: jt runs a virtual thread (JDK 19+; read on the 25 layout).
HS_INLINE int hs_thread_in_continuation(vm_ptr jt) {
  return hs.walk25 && HS_AT(volatile uintptr_t, jt.vm_bits_, hs.thread_cont_entry) != 0;
}
// hs_thread_cont_entry: the address of jt's innermost ContinuationEntry
// (on its stack, in Continuation.enterSpecial's frame), 0 when it runs
// none (read on the 25 layout only).
HS_INLINE uintptr_t hs_thread_cont_entry(vm_ptr jt) {
  return hs.walk25 ? HS_AT(volatile uintptr_t, jt.vm_bits_, hs.thread_cont_entry) : 0;
}
// hs_mounted_virtual_hash: when jt runs a virtual thread (its _vthread is
// not its _threadObj: both OopHandles, slots holding the objects), sets
// *mounted and returns that thread's identity hash from its header, 0 when
// it has none yet or the header is not the unlocked one (the samplers).
HS_INLINE uint32_t hs_mounted_virtual_hash(vm_ptr jt, int *mounted) {
  *mounted = 0;
  if (hs.thread_vthread < 0 || hs.thread_threadobj < 0 || hs.mark_hash_shift < 0 || hs.mark_hash_shift > 63 ||
      hs.mark_hash_mask <= 0 || hs.mark_lock_mask <= 0 || hs.mark_unlocked < 0)
    return 0;
  uintptr_t hv = HS_AT(volatile uintptr_t, jt.vm_bits_, hs.thread_vthread);
  uintptr_t ht = HS_AT(volatile uintptr_t, jt.vm_bits_, hs.thread_threadobj);
  if (!hv || !ht) return 0;
  uintptr_t v = *(volatile uintptr_t *)hv, t = *(volatile uintptr_t *)ht;
  if (!v || v == t) return 0;
  *mounted = 1;
  uintptr_t mark = *(volatile uintptr_t *)v;
  if ((mark & (uintptr_t)hs.mark_lock_mask) != (uintptr_t)hs.mark_unlocked) return 0;
  return (uint32_t)((mark >> hs.mark_hash_shift) & (uintptr_t)hs.mark_hash_mask);
}
// hs_stack_word: the word i words from sp on the calling thread's stack
// (the walker checks sp against the stack's bounds first).
HS_INLINE uintptr_t hs_stack_word(uintptr_t sp, long i) { return ((const uintptr_t *)sp)[i]; }
// hs_code_byte: byte i of the code at pc (a compiled method's
// instructions, which the walker decodes: walk.c).
HS_INLINE unsigned hs_code_byte(uintptr_t pc, long i) { return ((const volatile unsigned char *)pc)[i]; }
HS_INLINE void hs_anchor_read(uintptr_t a, hs_anchor *out) {
  out->sp = HS_AT(volatile uintptr_t, a, hs.anchor_sp);
  out->fp = HS_AT(volatile uintptr_t, a, hs.anchor_fp);
  out->pc = HS_AT(volatile uintptr_t, a, hs.anchor_pc);
}
// hs_thread_last_frame: the calling thread's frame anchor.
HS_INLINE void hs_thread_last_frame(vm_ptr jt, hs_anchor *out) { hs_anchor_read(jt.vm_bits_ + (uintptr_t)hs.thread_anchor, out); }
HS_INLINE int hs_is_call_stub_return(uintptr_t pc) { return pc == *hs.call_stub_return; }
// hs_entry_frame_last_frame: the anchor kept by the JavaCallWrapper of the
// entry frame at fp (the Java frames below it); 0 when it has none.
HS_INLINE int hs_entry_frame_last_frame(uintptr_t fp, hs_anchor *out) {
  uintptr_t jcw = ((uintptr_t *)fp)[hs.entry_frame_wrapper];
  if (!jcw) return 0;
  hs_anchor_read(jcw + (uintptr_t)hs.jcw_anchor, out);
  return 1;
}

// hs_heap: the fixed bounds of one CodeHeap (its reserved low end, segment
// map and segment size: set once when the code cache is made, never moved).
typedef struct {
  uintptr_t lo;
  const unsigned char *seg;
  int lg;
} hs_heap;
// hs_block_in returns the start of the used block holding pc in heap h,
// as a CodeBlob (CodeHeap::find_start), or NULL for a free segment.
HS_INLINE struct hs_blob *hs_block_in(const hs_heap *h, uintptr_t pc) {
  size_t idx = (pc - h->lo) >> h->lg;
  const unsigned char *seg = h->seg;
  if (seg[idx] == 0xFF) return NULL;   // free segment
  while (seg[idx] > 0) {
    if (seg[idx] > idx) return NULL;
    idx -= seg[idx];
  }
  return (struct hs_blob *)(h->lo + (idx << h->lg) + (uintptr_t)hs.heapblock_size);
}
// hs_blob_of returns the CodeBlob holding pc, or NULL, and the heap that
// holds it in *heap. pc is a return address in a frame of the calling
// thread, so its blob is live and the heap's segment map does not change
// under it.
HS_INLINE struct hs_blob *hs_blob_of(uintptr_t pc, hs_heap *heap) {
  char *ga = *hs.code_heaps;
  if (!ga) return NULL;
  int n = HS_AT(int, ga, hs.array_len);
  char **data = HS_AT(char **, ga, hs.array_data);
  for (int i = 0; i < n; i++) {
    char *h = data[i];
    uintptr_t lo = HS_AT(uintptr_t, h, hs.heap_low_at), hi = HS_AT(uintptr_t, h, hs.heap_high_at);
    if (pc < lo || pc >= hi) continue;
    heap->lo = lo;
    heap->seg = HS_AT(const unsigned char *, h, hs.heap_segmap_at);
    heap->lg = HS_AT(int, h, hs.heap_log2_segment);
    char *cb = (char *)hs_block_in(heap, pc);
    if (!cb) return NULL;
    uintptr_t begin, end;
    if (hs.walk25) {
      begin = (uintptr_t)cb + (uintptr_t)HS_AT(int, cb, hs.blob_code_offset);
      end = (uintptr_t)cb + (uintptr_t)HS_AT(int, cb, hs.blob_data_offset);
    } else {
      begin = HS_AT(uintptr_t, cb, hs.blob_code_begin);
      end = HS_AT(uintptr_t, cb, hs.blob_code_end);
    }
    return pc >= begin && pc < end ? (struct hs_blob *)cb : NULL;
  }
  return NULL;
}
HS_INLINE const char *hs_blob_name(const struct hs_blob *cb) { return HS_AT(const char *, cb, hs.blob_name); }
// hs_name_copy copies the NUL-terminated name at p (a blob's name: VM
// memory) into buf, at most n - 1 bytes: string functions then read the copy.
HS_INLINE void hs_name_copy(char *buf, const char *p, size_t n) {
  size_t i = 0;
  for (; i + 1 < n; i++) {
    char c = ((const volatile char *)p)[i];
    if (!c) break;
    buf[i] = c;
  }
  buf[i] = 0;
}
// hs_blob_frame_size: in words, with the return address.
HS_INLINE int hs_blob_frame_size(const struct hs_blob *cb) { return HS_AT(int, cb, hs.blob_frame_size); }
// hs_blob_code_begin: the first instruction of a blob (a compiled method's
// unverified entry).
HS_INLINE uintptr_t hs_blob_code_begin(const struct hs_blob *cb) {
  return hs.walk25 ? (uintptr_t)cb + (uintptr_t)HS_AT(int, cb, hs.blob_code_offset) : HS_AT(uintptr_t, cb, hs.blob_code_begin);
}
// hs_can_walk_context: the walker may start at a pc inside a compiled
// method (walk.c, walk_context): it knows where its frame is complete and
// where its stubs begin.
HS_INLINE int hs_can_walk_context(void) { return hs.blob_frame_complete >= 0 && hs.nm_stub_offset >= 0; }
// hs_blob_frame_complete: the offset from the code's begin from which the
// blob's frame is built (CodeBlob::is_frame_complete_at); -1 never.
HS_INLINE int hs_blob_frame_complete(const struct hs_blob *cb) {
  return hs.frame_complete16 ? HS_AT(int16_t, cb, hs.blob_frame_complete) : HS_AT(int, cb, hs.blob_frame_complete);
}
// hs_nmethod_stub_begin: where a compiled method's stubs (its exception and
// deopt handlers) begin, after its body: nmethod::stub_begin, from the
// nmethod's header.
HS_INLINE uintptr_t hs_nmethod_stub_begin(const struct hs_blob *nm) {
  return (uintptr_t)nm + (uintptr_t)HS_AT(int, nm, hs.nm_stub_offset);
}
// hs_blob_is_nmethod: on 25 by its CodeBlobKind; before, by its name
// ("nmethod", "native nmethod": named, from the caller's cache of names).
HS_INLINE int hs_blob_is_nmethod(const struct hs_blob *cb, int named) {
  return hs.walk25 ? HS_AT(uint8_t, cb, hs.blob_kind) == hs.kind_nmethod : named;
}
HS_INLINE struct hs_method *hs_nmethod_method(const struct hs_blob *nm) {
  return HS_AT(struct hs_method *, nm, hs.nm_method);
}
// hs_nmethod_compile_id: the compilation that made nm (CompileBroker's
// counter: unique to one nmethod for the VM's life, native wrappers
// included), which tells it from a later nmethod at the same address.
HS_INLINE int hs_nmethod_compile_id(const struct hs_blob *nm) { return HS_AT(int, nm, hs.nm_compile_id); }
// hs_can_frame_cache: the walker may keep the frames of a compiled frame
// by its return address (walk.c), with hs_nmethod_compile_id to check them.
HS_INLINE int hs_can_frame_cache(void) { return hs.nm_compile_id >= 0; }

enum { HS_ACC_NATIVE = 0x100 };   // JVM_ACC_NATIVE
HS_INLINE int hs_method_is_native(const struct hs_method *m) { return HS_AT(uint16_t, m, hs.method_flags) & HS_ACC_NATIVE; }
// hs_method_id: the method's jmethodID, or NULL when it has none yet.
HS_INLINE jmethodID hs_method_id(const struct hs_method *m) {
  if (!m) return NULL;
  uintptr_t cm = HS_AT(uintptr_t, m, hs.method_const);
  uintptr_t cp = cm ? HS_AT(uintptr_t, cm, hs.const_constants) : 0;
  uintptr_t ik = cp ? HS_AT(uintptr_t, cp, hs.pool_holder) : 0;
  jmethodID *ids = ik ? HS_AT(jmethodID *volatile, ik, hs.klass_jmethod_ids) : NULL;
  if (!ids) return NULL;
  size_t idnum = HS_AT(uint16_t, cm, hs.const_idnum);
  return idnum + 1 <= (size_t)ids[0] ? ids[idnum + 1] : NULL;   // ids[0] holds the length
}
// hs_method_bci: the bytecode index of bcp in m, or -1 outside its code.
HS_INLINE long hs_method_bci(const struct hs_method *m, uintptr_t bcp) {
  uintptr_t cm = HS_AT(uintptr_t, m, hs.method_const), codes = cm + (uintptr_t)hs.const_size;
  if (bcp < codes || bcp >= codes + HS_AT(uint16_t, cm, hs.const_code_size)) return -1;
  return (long)(bcp - codes);
}

// The debug records of an nmethod: its PcDescs, scopes and metadata.
typedef struct {
  const unsigned char *data;      // the scopes' stream
  uintptr_t *meta, *meta_end;     // the metadata (Method* of the scopes)
  uintptr_t *oops, *oops_end;     // the oops (constants of the scopes; NULL: not known)
} hs_scopes;
// hs_nmethod_scope returns the offset in the scopes' stream of the debug
// record at return address pc (then s describes the nmethod's scopes),
// 0 for DebugInformationRecorder::serialized_null, -1 for no record at pc
// (not a call's return address: a deoptimized frame's pc points at the
// deopt handler). near: the record at pc or the first after it (a pc
// inside the code, not at a call's return: walk.c, walk_context).
HS_INLINE int hs_nmethod_scope(const struct hs_blob *nmb, uintptr_t pc, hs_scopes *s, int near) {
  const char *nm = (const char *)nmb, *lo, *hi;
  int t;
  if (hs.walk25) {
    const char *imm = HS_AT(const char *, nm, hs.nm_immutable_data), *mut = HS_AT(const char *, nm, hs.blob_mutable_data);
    if (!imm || !mut) return -1;
    t = (int)(pc - ((uintptr_t)nm + (uintptr_t)HS_AT(int, nm, hs.blob_code_offset)));
    lo = imm + HS_AT(int, nm, hs.nm_pcs_offset);
    hi = imm + HS_AT(int, nm, hs.nm_scopes_data_offset);
    s->data = (const unsigned char *)hi;
    s->meta = (uintptr_t *)(mut + HS_AT(int, nm, hs.blob_relocation_size));
    s->meta_end = (uintptr_t *)(mut + HS_AT(int, nm, hs.blob_mutable_data_size));
    // nmethod::oops_begin, oops_end: the data section, to the blob's end.
    s->oops = hs.blob_size < 0 ? NULL : (uintptr_t *)(nm + HS_AT(int, nm, hs.blob_data_offset));
    s->oops_end = hs.blob_size < 0 ? NULL : (uintptr_t *)(nm + HS_AT(int, nm, hs.blob_size));
  } else {
    t = (int)(pc - HS_AT(uintptr_t, nm, hs.blob_code_begin));
    lo = nm + HS_AT(int, nm, hs.nm_pcs_offset), hi = nm + HS_AT(int, nm, hs.nm_dependencies_offset);
    s->data = HS_AT(const unsigned char *, nm, hs.nm_scopes_data_begin);
    s->meta = (uintptr_t *)(nm + HS_AT(int, nm, hs.nm_metadata_offset)), s->meta_end = (uintptr_t *)s->data;
    s->oops = hs.nm_oops_offset < 0 ? NULL : (uintptr_t *)(nm + HS_AT(int, nm, hs.nm_oops_offset));
    s->oops_end = s->oops ? s->meta : NULL;
  }
  long size = hs.pcdesc_size, l = 0, h = (hi - lo) / size;
  while (l < h) {   // PcDescs are sorted by pc offset
    long mid = (l + h) / 2;
    if (HS_AT(int, lo + mid * size, hs.pcdesc_pc_offset) < t) l = mid + 1; else h = mid;
  }
  if (l >= (hi - lo) / size || (!near && HS_AT(int, lo + l * size, hs.pcdesc_pc_offset) != t)) return -1;
  return HS_AT(int, lo + l * size, hs.pcdesc_scope_offset);
}
// hs_debug_int reads one int of the debug stream: UNSIGNED5 on 25 (each
// byte is 1 more than its digit; -1: an excluded byte), before it
// CompressedReadStream (bytes below 192 end a number, each byte after the
// first is worth 64 times the previous one).
HS_INLINE int hs_debug_int(const unsigned char **p) {
  if (hs.walk25) {
    unsigned sum = 0;
    for (int i = 0, shift = 0;; i++, shift += 6) {
      unsigned bi = *(*p)++;
      if (bi == 0) return -1;
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
// hs_scope_monitors returns the offset in the scopes' stream of the
// monitor list of the scope at offset d (ScopeDesc::decode_body: after its
// sender, method and bci, the offsets of its locals, expressions and
// monitors), 0 when it has none, -1 when it is not a valid scope.
HS_INLINE int hs_scope_monitors(const hs_scopes *s, int d) {
  const unsigned char *p = s->data + d;
  for (int i = 0; i < 5; i++)
    if (hs_debug_int(&p) < 0) return -1;
  return hs_debug_int(&p);
}
// hs_scope_oop: the oop of index i (1-based; 0 is null) of the scopes'
// nmethod (nmethod::oop_at), in *oop; 0 when not known.
HS_INLINE int hs_scope_oop(const hs_scopes *s, int i, uintptr_t *oop) {
  if (!s->oops || i < 0 || (i > 0 && s->oops + i > s->oops_end)) return 0;
  *oop = i ? *(volatile uintptr_t *)(s->oops + i - 1) : 0;
  return 1;
}
// hs_debug_byte reads one raw byte of the debug stream (read_bool).
HS_INLINE int hs_debug_byte(const unsigned char **p) { return *(*p)++; }
enum { HS_ACC_SYNCHRONIZED = 0x20 };   // JVM_ACC_SYNCHRONIZED
HS_INLINE int hs_method_is_synchronized(const struct hs_method *m) {
  return HS_AT(uint16_t, m, hs.method_flags) & HS_ACC_SYNCHRONIZED;
}
// hs_held_hash: the identity hash of the object at oop, which the calling
// thread, of stack [lo, hi), holds locked: from its header when unlocked
// or fast-locked (lightweight locking keeps the header's hash), from the
// monitor's displaced header when inflated, from its BasicLock's when
// stack-locked (the mark points into the thread's own stack: 17); 0 when
// not hashed yet (or hs_held_prepare said no).
HS_INLINE uint32_t hs_held_hash(uintptr_t oop, uintptr_t lo, uintptr_t hi) {
  if (!hs.held_hash || !oop || (oop & 7)) return 0;
  uintptr_t mark = *(volatile uintptr_t *)oop, lock = mark & (uintptr_t)hs.mark_lock_mask;
  if (hs.held_biased && (mark & 7) == 5) return 0;   // biased to a thread: its bits are the thread's
  if (lock == (uintptr_t)hs.mark_monitor) {
    long at = hs.monitor_header >= 0 ? hs.monitor_header : hs.monitor_metadata;
    mark = *(volatile uintptr_t *)((mark ^ lock) + (uintptr_t)at);
  } else if (lock != (uintptr_t)hs.mark_unlocked) {
    if (lock == 0 && mark >= lo && mark < hi) mark = *(volatile uintptr_t *)mark;   // a stack lock's BasicLock
    else if (lock != 0) return 0;
  }
  return (uint32_t)((mark >> hs.mark_hash_shift) & (uintptr_t)hs.mark_hash_mask);
}
// hs_scope_read decodes the scope at offset d: its sender's offset (0: the
// outermost), its method and bytecode index (-1: a synchronized method's
// entry, InvocationEntryBci); 0 when it is not a valid scope.
HS_INLINE int hs_scope_read(const hs_scopes *s, int d, int *sender, struct hs_method **m, int *bci) {
  const unsigned char *p = s->data + d;
  *sender = hs_debug_int(&p);
  int index = hs_debug_int(&p);
  *bci = hs_debug_int(&p) - 1;
  if (index <= 0 || s->meta + index - 1 >= s->meta_end || *bci < -1) return 0;
  *m = (struct hs_method *)s->meta[index - 1];
  return 1;
}
#endif
#endif
