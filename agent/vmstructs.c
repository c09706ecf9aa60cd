#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <stdatomic.h>
#include "vmstructs.h"

static atomic_long off_env = -2;   // -2: not looked up yet

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

static long env_offset(void) {
  long o = atomic_load_explicit(&off_env, memory_order_relaxed);
  if (o == -2) {
    long expect = -2;
    atomic_compare_exchange_strong(&off_env, &expect, vms_offset("JavaThread", "_jni_environment"));
    o = atomic_load(&off_env);
  }
  return o;
}

void vms_learn_env(JNIEnv *env, uintptr_t eetop) {
  if (env_offset() >= 0) return;
  // The JNIEnv is embedded in the JavaThread at a fixed offset.
  if (eetop && (uintptr_t)env > eetop && (uintptr_t)env - eetop < 65536)
    atomic_store(&off_env, (long)((uintptr_t)env - eetop));
}

uintptr_t vms_thread(JNIEnv *env) {
  long o = env_offset();
  return o >= 0 && env ? (uintptr_t)env - (uintptr_t)o : 0;
}
