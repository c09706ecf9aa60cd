#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include "orca.h"
#include "stubs.h"
#include "vmstructs.h"

int stubs_fixed;

static int usable;
static long off_anchor, off_last_sp, off_last_pc;
static long off_mem, off_segmap, off_log2, off_low_boundary, off_high, off_low, off_len, off_data, block_size;
static long off_name, off_complete, off_code_begin, off_code_end, off_frame_size;
static long off_scopes_data, off_metadata, off_pcs, off_deps, pcdesc_size, off_pc_offset, off_scope_offset;
static long off_const_method, off_constants, off_holder, off_jmethod_ids, off_idnum;
static char **heaps;   // CodeCache::_heaps: GrowableArray<CodeHeap*>*
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static const char *const names[] = {
  "_complete_monitor_locking_Java",   // C2
  "monitorenter Runtime1 stub",       // C1
  "monitorenter_nofpu Runtime1 stub",
};
#define NSTUBS (sizeof names / sizeof names[0])
// The return address of each stub's one runtime call, once marked.
static _Atomic uintptr_t stub_pc[NSTUBS];

void stubs_init(void) {
  char *v = NULL;
  int feature = 0;
  if ((*jvmti)->GetSystemProperty(jvmti, "java.vm.specification.version", &v) == JVMTI_ERROR_NONE && v) {
    feature = atoi(v);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)v);
  }
  if (feature < 11 || feature > 19) return;
  off_anchor = vms_offset("JavaThread", "_anchor");
  off_last_sp = vms_offset("JavaFrameAnchor", "_last_Java_sp");
  off_last_pc = vms_offset("JavaFrameAnchor", "_last_Java_pc");
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
  off_complete = vms_offset_typed("CodeBlob", "_frame_complete_offset", "int");
  off_frame_size = vms_offset_typed("CodeBlob", "_frame_size", "int");
  off_code_begin = vms_offset("CodeBlob", "_code_begin");
  off_code_end = vms_offset("CodeBlob", "_code_end");
  off_scopes_data = vms_offset("CompiledMethod", "_scopes_data_begin");
  off_metadata = vms_offset_typed("nmethod", "_metadata_offset", "int");
  off_pcs = vms_offset_typed("nmethod", "_scopes_pcs_offset", "int");
  off_deps = vms_offset_typed("nmethod", "_dependencies_offset", "int");
  pcdesc_size = vms_size("PcDesc");
  off_pc_offset = vms_offset_typed("PcDesc", "_pc_offset", "int");
  off_scope_offset = vms_offset_typed("PcDesc", "_scope_decode_offset", "int");
  off_const_method = vms_offset("Method", "_constMethod");
  off_constants = vms_offset("ConstMethod", "_constants");
  off_holder = vms_offset("ConstantPool", "_pool_holder");
  off_jmethod_ids = vms_offset("InstanceKlass", "_methods_jmethod_ids");
  off_idnum = vms_offset_typed("ConstMethod", "_method_idnum", "u2");
  long all[] = {off_anchor, off_last_sp, off_last_pc, off_len, off_data, off_mem, off_segmap, off_log2,
                off_low_boundary, off_low, off_high, block_size, off_name, off_complete, off_frame_size,
                off_code_begin, off_code_end, off_scopes_data, off_metadata, off_pcs, off_deps, pcdesc_size,
                off_pc_offset, off_scope_offset, off_const_method, off_constants, off_holder, off_jmethod_ids,
                off_idnum};
  usable = heaps != NULL;
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
    return (char *)lo + (idx << lg) + block_size;
  }
  return NULL;
}

static int contains(char *cb, uintptr_t pc) {
  return pc > *(uintptr_t *)(cb + off_code_begin) && pc < *(uintptr_t *)(cb + off_code_end);
}

static uintptr_t *anchor(JNIEnv *env) {
  uintptr_t jt = vms_thread(env);
  return jt ? (uintptr_t *)(jt + (uintptr_t)off_anchor) : NULL;
}

int stubs_fix(JNIEnv *env) {
  uintptr_t *a = usable ? anchor(env) : NULL;
  if (!a) return 0;
  uintptr_t pc = *(volatile uintptr_t *)((char *)a + off_last_pc);
  char *cb = pc ? blob_of(pc) : NULL;
  if (!cb || !contains(cb, pc)) return 0;
  const char *name = *(const char **)(cb + off_name);
  size_t k = NSTUBS;
  for (size_t i = 0; name && i < NSTUBS; i++)
    if (!strcmp(name, names[i])) k = i;
  if (k == NSTUBS) return 0;
  volatile int *complete = (volatile int *)(cb + off_complete);
  uintptr_t begin = *(uintptr_t *)(cb + off_code_begin);
  int ok = 0;
  pthread_mutex_lock(&mu);
  if (*complete == -1) {   // CodeOffsets::frame_never_safe
    *complete = (int)(pc - begin);
    atomic_store(&stub_pc[k], pc);
    stubs_fixed++;
  }
  ok = atomic_load(&stub_pc[k]) == pc;
  pthread_mutex_unlock(&mu);
  return ok;
}

// read_int reads one int of HotSpot's compressed debug-info stream (JDK
// 11-19: CompressedReadStream, bytes below 192 end a number, each byte
// after the first is worth 64 times the previous one).
static int read_int(const unsigned char **p) {
  unsigned b = *(*p)++;
  if (b < 192) return (int)b;
  unsigned sum = b;
  for (int i = 1, shift = 6;; i++, shift += 6) {
    unsigned bi = *(*p)++;
    sum += bi << shift;
    if (bi < 192 || i == 4) return (int)sum;
  }
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

// scopes decodes the scope chain at decode offset d of nmethod nm into fr
// (innermost first; fr NULL: only count). Returns the count or -1.
static int scopes(char *nm, int d, jvmtiFrameInfo *fr, int max) {
  const unsigned char *data = *(const unsigned char **)(nm + off_scopes_data);
  uintptr_t *meta = (uintptr_t *)(nm + *(int *)(nm + off_metadata));
  uintptr_t *meta_end = (uintptr_t *)data;
  int n = 0;
  while (d != 0) {   // DebugInformationRecorder::serialized_null
    if (d < 0 || n >= ORCA_MAX_DEPTH + 8) return -1;
    const unsigned char *p = data + d;
    int sender = read_int(&p);
    int index = read_int(&p);
    int bci = read_int(&p) - 1;   // InvocationEntryBci
    if (index <= 0 || meta + index - 1 >= meta_end || bci < -1) return -1;
    if (fr && n < max) {
      fr[n].method = method_id(meta[index - 1]);
      fr[n].location = bci < 0 ? 0 : bci;   // a synchronized method's entry: JVMTI says 0
      if (!fr[n].method) return -1;
    }
    n++;
    d = sender;
  }
  return n;
}

int stubs_caller(JNIEnv *env, jvmtiFrameInfo *fr, int max, int *asgct_n) {
  uintptr_t *a = usable ? anchor(env) : NULL;
  if (!a) return 0;
  uintptr_t pc = *(volatile uintptr_t *)((char *)a + off_last_pc);
  size_t k;
  for (k = 0; k < NSTUBS && (!pc || atomic_load_explicit(&stub_pc[k], memory_order_relaxed) != pc); k++) {
  }
  if (k == NSTUBS) return 0;
  char *stub = blob_of(pc);
  uintptr_t *sp = *(uintptr_t **)((char *)a + off_last_sp);
  int size = stub ? *(int *)(stub + off_frame_size) : 0;
  if (!sp || size <= 0) return -1;
  uintptr_t ret = sp[size - 1];   // the stub's caller's pc: the word below the caller's sp
  char *nm = blob_of(ret);
  const char *name = nm ? *(const char **)(nm + off_name) : NULL;
  if (!name || strcmp(name, "nmethod") || !contains(nm, ret)) return -1;
  int t = (int)(ret - *(uintptr_t *)(nm + off_code_begin));
  char *lo = nm + *(int *)(nm + off_pcs), *hi = nm + *(int *)(nm + off_deps);
  long count = (hi - lo) / pcdesc_size;
  // PcDescs are sorted by pc offset: the exact one, and the one after it
  // (AsyncGetCallTrace's choice, see stubs.h).
  long l = 0, h = count;
  while (l < h) {
    long mid = (l + h) / 2;
    if (*(int *)(lo + mid * pcdesc_size + off_pc_offset) < t) l = mid + 1; else h = mid;
  }
  if (l >= count || *(int *)(lo + l * pcdesc_size + off_pc_offset) != t) return -1;
  long next = l + 1;
  while (next < count && *(int *)(lo + next * pcdesc_size + off_pc_offset) <= t) next++;
  int n = scopes(nm, *(int *)(lo + l * pcdesc_size + off_scope_offset), fr, max);
  // Without a next record (or one without scopes) AsyncGetCallTrace keeps
  // the frame's own pc: the same frames.
  int m = next < count ? scopes(nm, *(int *)(lo + next * pcdesc_size + off_scope_offset), NULL, 0) : 0;
  if (m == 0) m = n;
  if (n <= 0 || m <= 0) return -1;
  *asgct_n = m;
  return n < max ? n : max;
}
