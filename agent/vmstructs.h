// HotSpot's exported structure table (gHotSpotVMStructs, made for the
// Serviceability Agent): field offsets of the VM's own C++ objects, so the
// agent can read a thread's monitor state or frame anchor without a
// safepoint. Every user checks for -1 / NULL (not exported by this JVM).
#ifndef ORCA_VMSTRUCTS_H
#define ORCA_VMSTRUCTS_H
#include <jni.h>
#include <stdint.h>

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
// vms_thread returns the calling thread's JavaThread, or 0 when unknown.
uintptr_t vms_thread(JNIEnv *env);

// ---- The layout: every field the agent reads, looked up once -------------
// hs_init (Agent_OnLoad, after orca_feature) fills `hs` from the tables
// above; -1 (or NULL) where this JVM does not export it. The readers
// (walk.c, owner.c) take their offsets from here and check what they need.
typedef struct {
  // JavaThread (_stack_base/_stack_size in Thread on older JDKs)
  long thread_anchor, thread_stack_base, thread_stack_size, thread_pending_monitor, thread_lock_stack,
      thread_cont_entry, thread_size;
  long anchor_sp, anchor_fp, anchor_pc;           // JavaFrameAnchor::_last_Java_*
  long lockstack_top, lockstack_base;              // LockStack (lightweight locking)
  long monitor_owner, monitor_header;              // ObjectMonitor
  long mark_hash_shift, mark_hash_mask;            // markWord constants
  // The code cache
  char **code_heaps;                               // CodeCache::_heaps: GrowableArray<CodeHeap*>*
  long array_len, array_data;                      // GrowableArray
  long heap_memory, heap_segmap, heap_log2_segment;   // CodeHeap
  long vspace_low_boundary, vspace_low, vspace_high;  // VirtualSpace
  long heapblock_size;
  long blob_name, blob_frame_size;                 // CodeBlob
  long blob_code_begin, blob_code_end;             // 11-18: pointers
  long blob_code_offset, blob_data_offset, blob_kind, blob_mutable_data, blob_mutable_data_size,
      blob_relocation_size, kind_nmethod;          // 25: offsets from the blob, CodeBlobKind
  long nm_method, nm_pcs_offset;                   // CompiledMethod (11-18) / nmethod
  long nm_scopes_data_begin, nm_metadata_offset, nm_dependencies_offset;   // 11-18
  long nm_immutable_data, nm_scopes_data_offset;   // 25
  long pcdesc_size, pcdesc_pc_offset, pcdesc_scope_offset;
  long method_const, method_flags;                 // Method
  long const_constants, const_code_size, const_idnum, const_size;   // ConstMethod
  long pool_holder, klass_jmethod_ids;             // ConstantPool, InstanceKlass
  long jcw_anchor, entry_frame_wrapper;            // JavaCallWrapper, frame constant
  uintptr_t *call_stub_return;                     // StubRoutines::_call_stub_return_address
} hs_layout;
extern hs_layout hs;
void hs_init(void);

// ---- Version facts -------------------------------------------------------
// What a JDK feature release changed in what the agent reads or calls,
// with the change that says so: every version check of the agent is one
// of these (hs_has), and .info lists those true on the JVM
// (hotspot.facts).
enum {
  HS_WALK_LAYOUT_11,     // the own walker's layout of 11-18
  HS_WALK_LAYOUT_25,     // the own walker's layout of 25
  HS_ASGCT_INEXACT,      // AsyncGetCallTrace not exact at the agent's walks: not used
  HS_VIRTUAL_THREADS,    // JavaThread may run a continuation (a virtual thread)
  HS_VT_EVENTS,          // JVMTI can_support_virtual_threads, VirtualThreadStart
  HS_LIGHTWEIGHT_LOCKS,  // lightweight locking by default: anonymous owners, lock stacks
  HS_OWNER_TID,          // ObjectMonitor::_owner holds the owner's thread id
  HS_FACTS
};
// hs_has says whether fact f holds on this JVM (orca_feature: its release).
int hs_has(int f);
// hs_facts_text lists the facts that hold, space-separated (.info).
const char *hs_facts_text(void);
#endif
