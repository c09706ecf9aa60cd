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
// vms_learn_env learns where the JNIEnv sits in a JavaThread when the table
// does not say, from a thread's JNIEnv and its JavaThread address (eetop).
void vms_learn_env(JNIEnv *env, uintptr_t eetop);
// vms_thread returns the calling thread's JavaThread, or 0 when unknown.
uintptr_t vms_thread(JNIEnv *env);
#endif
