#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/counters.h"
#include "core/arch.h"
#include "stacks/elfsym.h"
#include "hotspot/asgct.h"
#include "hotspot/walk.h"
#include "hotspot/vmstructs.h"
#include "core/clock.h"
#include "stacks/methods.h"
#include "stacks/classids.h"
#include "record/writer.h"
#include "core/orca.h"
#include "core/fmt.h"
#include "core/events.h"

// Open-addressing tables, insert-only, lock-free: a slot's key is claimed
// with a CAS; IDs are assigned in order of first sight.

#define METHOD_BITS 19
#define METHOD_SLOTS (1u << METHOD_BITS)
#define CLASS_BITS 17

typedef struct {
  _Atomic(jmethodID) key;
  atomic_uint id;
  atomic_uchar described;   // its .methods line is made (the writer's thread only sets it)
  atomic_uchar own;         // methods_sample_id: 0 not asked yet, 1 the application's, 2 a hook of the agent's
} mslot_t;

// The .methods and .classtable lines not yet written, appended under a
// mutex (rare: once per new method or class); the writer takes them
// (methods_take) so no thread waits for the disk.
typedef struct {
  pthread_mutex_t mu;
  char *buf;
  size_t len, cap;
} meta_t;
static meta_t meta[2] = {{PTHREAD_MUTEX_INITIALIZER, 0, 0, 0}, {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0}};

static void meta_add(int which, const char *line, size_t len) {
  meta_t *m = &meta[which];
  pthread_mutex_lock(&m->mu);
  if (m->len + len > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 65536;
    while (cap < m->len + len) cap *= 2;
    char *nb = realloc(m->buf, cap);
    if (!nb) {
      pthread_mutex_unlock(&m->mu);
      counter_add(CNT_METADATA_DROPPED, 1);
      return;
    }
    m->buf = nb;
    m->cap = cap;
  }
  memcpy(m->buf + m->len, line, len);
  m->len += len;
  pthread_mutex_unlock(&m->mu);
}

char *methods_take(int which, size_t *len) {
  meta_t *m = &meta[which];
  pthread_mutex_lock(&m->mu);
  char *buf = m->buf;
  *len = m->len;
  m->buf = NULL;
  m->len = m->cap = 0;
  pthread_mutex_unlock(&m->mu);
  return buf;
}

static mslot_t *mtab;
static atomic_uint next_id;
// The slots claimed, in the order they were (a slot + 1; 0 while its
// claimer has not stored it): what a full queue's scan and a new
// recording's reset go over, not the table's 512 K slots (8 MB: its reset
// and its scan were ~7 % of an attach's `orca threads` on a JVM attached
// before). A slot is never freed: at most METHOD_SLOTS.
static _Atomic uint32_t *used;
static atomic_uint nused;

// The classes described, by the class itself (classids.h: two classes may
// share an identity hash), under ctab_mu: the writer's thread describes,
// and a Java thread at VMDeath or at the attach's reset.
static classids ctab;
static pthread_mutex_t ctab_mu = PTHREAD_MUTEX_INITIALIZER;

static void *ctab_keep(void *env, void *cls) { return (*(JNIEnv *)env)->NewWeakGlobalRef(env, cls); }
static int ctab_same(void *env, void *ref, void *cls) { return (*(JNIEnv *)env)->IsSameObject(env, ref, cls); }
static void ctab_drop(void *env, void *ref) {
  if (env) (*(JNIEnv *)env)->DeleteWeakGlobalRef(env, ref);
}

const char *methods_init(void) {
  mtab = calloc(METHOD_SLOTS, sizeof *mtab);
  used = calloc(METHOD_SLOTS, sizeof *used);
  if (!mtab || !used) {
    free(mtab);
    free((void *)used);
    mtab = NULL;
    used = NULL;
    return "cannot allocate the method table";
  }
  return classids_init(&ctab, CLASS_BITS);
}

static void dealloc(void *p) {
  if (p) (*jvmti)->Deallocate(jvmti, (unsigned char *)p);
}

static int text(char *o, const char *s) {
  char tmp[2048];
  size_t n = mutf8_to_utf8(s, strlen(s), tmp, sizeof tmp);
  return (int)fmt_text(o, tmp, n);
}

// class_id returns the class id of cls (classids.h) and sets *fresh when
// its .classtable line is to be written; 0 when it has none (counted).
static uint32_t class_id(JNIEnv *env, jclass cls, uint32_t h, int *fresh) {
  classids_ops ops = {ctab_keep, ctab_same, ctab_drop, env};
  pthread_mutex_lock(&ctab_mu);
  uint32_t id = classids_get(&ctab, &ops, h, cls, fresh);
  pthread_mutex_unlock(&ctab_mu);
  if (!id) counter_add(CNT_METADATA_DROPPED, 1);
  return id;
}

static void describe_class(jclass cls, uint32_t id) {
  char *sig = NULL, *src = NULL;
  if ((*jvmti)->GetClassSignature(jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE) return;
  (*jvmti)->GetSourceFileName(jvmti, cls, &src);
  size_t cap = strlen(sig) * 3 + (src ? strlen(src) * 3 : 0) + 64;
  char *line = malloc(cap);
  if (line) {
    size_t n = fmt_ts(line, clock_now());
    line[n++] = ',';
    n += fmt_hex8(line + n, id);
    line[n++] = ',';
    n += (size_t)text(line + n, sig);
    line[n++] = ',';
    if (src) n += (size_t)text(line + n, src);
    line[n++] = '\n';
    meta_add(META_CLASSES, line, n);
    counter_add(CNT_CLASSES, 1);
    free(line);
  }
  dealloc(sig);
  dealloc(src);
}

static void describe(jmethodID m, uint32_t id) {
  char *name = NULL, *sig = NULL;
  jclass cls = NULL;
  JNIEnv *env = NULL;
  jint h = 0, nlines = 0;
  uint32_t cid = 0;
  jvmtiLineNumberEntry *lines = NULL;
  if ((*jvmti)->GetMethodName(jvmti, m, &name, &sig, NULL) != JVMTI_ERROR_NONE) {
    // Its class was unloaded since the capture (the jmethodID is cleared,
    // JVMTI says so, nothing is read): recorded as such, the name "(unloaded)".
    char line[96];
    size_t n = fmt_ts(line, clock_now());
    line[n++] = ',';
    n += fmt_hex8(line + n, id);
    n += (size_t)sprintf(line + n, ",(unloaded),()V,00000000,-1\n");
    meta_add(META_METHODS, line, n);
    counter_add(CNT_METHODS, 1);
    counter_add(CNT_METHODS_UNLOADED, 1);
    return;
  }
  if ((*orca_vm)->GetEnv(orca_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) env = NULL;
  if (env && (*jvmti)->GetMethodDeclaringClass(jvmti, m, &cls) == JVMTI_ERROR_NONE && cls) {
    int fresh = 0;
    (*jvmti)->GetObjectHashCode(jvmti, cls, &h);
    cid = class_id(env, cls, (uint32_t)h, &fresh);
    if (fresh) describe_class(cls, cid);
  }
  if ((*jvmti)->GetLineNumberTable(jvmti, m, &nlines, &lines) != JVMTI_ERROR_NONE) nlines = -1;
  size_t cap = strlen(name) * 3 + strlen(sig) * 3 + 96 + (nlines > 0 ? (size_t)nlines * 18 : 0);
  char *line = malloc(cap);
  if (line) {
    size_t n = fmt_ts(line, clock_now());
    line[n++] = ',';
    n += fmt_hex8(line + n, id);
    line[n++] = ',';
    n += (size_t)text(line + n, name);
    line[n++] = ',';
    n += (size_t)text(line + n, sig);
    line[n++] = ',';
    n += fmt_hex8(line + n, cid);
    line[n++] = ',';
    n += (size_t)sprintf(line + n, "%d", nlines > 0 ? nlines : -1);
    for (int i = 0; i < nlines; i++) {
      line[n++] = ';';
      n += fmt_hex8(line + n, (uint32_t)lines[i].start_location);
      line[n++] = ';';
      n += fmt_hex8(line + n, (uint32_t)lines[i].line_number);
    }
    line[n++] = '\n';
    meta_add(META_METHODS, line, n);
    counter_add(CNT_METHODS, 1);
    free(line);
  }
  dealloc(name);
  dealloc(sig);
  dealloc(lines);
  if (cls) (*env)->DeleteLocalRef(env, cls);
}

// Capture and describe are apart: a thread that captures a stack only maps
// each jmethodID to its id (a lock-free table; no allocation, lock or JVMTI
// call), and a method seen for the first time is queued by its slot; the
// writer's thread names it (JVMTI: name, signature, class, lines) before it
// writes any line taken from the rings with it (methods_describe, called by
// the writer after it takes the rings). A full queue is no loss: the writer
// then scans the table for the slots not described.
#define DQ_SIZE 65536u
static _Atomic uint32_t dq[DQ_SIZE];   // a slot + 1; 0 while its producer has not stored it
static atomic_ulong dq_head, dq_tail;
static atomic_int dq_full;

static void describe_later(uint32_t slot) {
  unsigned long h = atomic_load_explicit(&dq_head, memory_order_relaxed);
  do {
    if (h - atomic_load_explicit(&dq_tail, memory_order_acquire) >= DQ_SIZE) {
      atomic_store_explicit(&dq_full, 1, memory_order_release);
      return;
    }
  } while (!atomic_compare_exchange_weak_explicit(&dq_head, &h, h + 1, memory_order_relaxed, memory_order_relaxed));
  atomic_store_explicit(&dq[h % DQ_SIZE], slot + 1, memory_order_release);
}

// each_used calls fn for each slot claimed (used). One whose claimer has
// not stored it yet in used is described through the queue: its claimer
// queues it (or marks the queue full) after that store.
static void each_used(void (*fn)(uint32_t slot)) {
  uint32_t n = atomic_load_explicit(&nused, memory_order_acquire);
  for (uint32_t k = 0; k < n && k < METHOD_SLOTS; k++) {
    uint32_t v = atomic_load_explicit(&used[k], memory_order_acquire);
    if (v) fn(v - 1);
  }
}

static void describe_slot(uint32_t slot) {
  mslot_t *s = &mtab[slot];
  jmethodID m = atomic_load_explicit(&s->key, memory_order_acquire);
  uint32_t id = atomic_load_explicit(&s->id, memory_order_acquire);
  if (!m || !id || atomic_load_explicit(&s->described, memory_order_relaxed)) return;
  atomic_store_explicit(&s->described, 1, memory_order_relaxed);
  describe(m, id);
}

// The thread that describes: the writer's, attached to the JVM as a daemon
// the first time it can be (JVMTI's naming functions want an attached
// thread; before VMInit it cannot, and the queue waits), or a Java thread
// (the final flush, at VMDeath).
static __thread int attached;
// live: VMInit has come (methods_live). Before, attaching a thread crashes
// the JVM on JDK 25 (it is still initialising: AttachCurrentThread runs
// Java code of java.lang.Thread); the queue waits.
static atomic_int live;

void methods_live(void) { atomic_store(&live, 1); }

// attach_mu: the writer's attach and threads_existing's listing of the
// threads, one at a time. A thread listed while it attached would have no
// mark of the agent's yet and be an application thread to the recording
// (the CI's TestKill9 on 25 saw "orca writer" there once); self_ref names
// the attached writer, for methods_is_agent.
static pthread_mutex_t attach_mu = PTHREAD_MUTEX_INITIALIZER;
static jthread self_ref;

int methods_attach(void) {
  JNIEnv *env = NULL;
  if ((*orca_vm)->GetEnv(orca_vm, (void **)&env, JNI_VERSION_1_6) == JNI_OK) return 1;
  JavaVMAttachArgs args = {JNI_VERSION_1_6, "orca writer", NULL};
  if (!atomic_load(&live) || atomic_load(&orca_state) != 1) return 0;
  // The threads are being listed (methods_hold_attach): next time; the
  // writer never waits for a Java thread.
  if (pthread_mutex_trylock(&attach_mu)) return 0;
  // A thread not yet the JVM's that attaches as "orca writer" is the
  // agent's, whichever thread of the agent's calls: JVMTI posts its
  // ThreadStart on it during the attach, and threads_on_start leaves out
  // the agent's own threads by this mark.
  orca_agent_thread = 1;
  int ok = (*orca_vm)->AttachCurrentThreadAsDaemon(orca_vm, (void **)&env, &args) == JNI_OK;
  if (ok) {
    attached = 1;
    jthread me = NULL;
    if ((*jvmti)->GetCurrentThread(jvmti, &me) == JVMTI_ERROR_NONE && me) {
      self_ref = (*env)->NewGlobalRef(env, me);
      (*env)->DeleteLocalRef(env, me);
    }
  }
  pthread_mutex_unlock(&attach_mu);
  return ok;
}

void methods_hold_attach(void) { pthread_mutex_lock(&attach_mu); }

void methods_release_attach(void) { pthread_mutex_unlock(&attach_mu); }

int methods_is_agent(JNIEnv *env, jthread t) { return t && self_ref && (*env)->IsSameObject(env, self_ref, t); }

void methods_describe(void) {
  if (!mtab || !methods_attach()) return;
  unsigned long t = atomic_load_explicit(&dq_tail, memory_order_relaxed);
  unsigned long h = atomic_load_explicit(&dq_head, memory_order_acquire);
  for (; t != h; t++) {
    uint32_t v = atomic_load_explicit(&dq[t % DQ_SIZE], memory_order_acquire);
    if (!v) break;   // its producer is between its reservation and its store: next time
    atomic_store_explicit(&dq[t % DQ_SIZE], 0, memory_order_relaxed);
    describe_slot(v - 1);
  }
  atomic_store_explicit(&dq_tail, t, memory_order_release);
  if (atomic_exchange_explicit(&dq_full, 0, memory_order_acq_rel)) each_used(describe_slot);
}

static void undescribe(uint32_t slot) { atomic_store_explicit(&mtab[slot].described, 0, memory_order_relaxed); }

void methods_reset(void) {
  if (!mtab) return;
  each_used(undescribe);
  JNIEnv *env = NULL;
  if ((*orca_vm)->GetEnv(orca_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) env = NULL;   // the refs then stay
  classids_ops ops = {ctab_keep, ctab_same, ctab_drop, env};
  pthread_mutex_lock(&ctab_mu);
  classids_clear(&ctab, &ops);
  pthread_mutex_unlock(&ctab_mu);
  for (int w = 0; w < 2; w++) {
    size_t len;
    free(methods_take(w, &len));
  }
  methods_native_reset();
  // The writer's first flush describes every slot claimed again (as after a full queue).
  atomic_store_explicit(&dq_full, 1, memory_order_release);
}

void methods_detach(void) {
  if (!attached) return;
  pthread_mutex_lock(&attach_mu);
  JNIEnv *env = NULL;
  if (self_ref && (*orca_vm)->GetEnv(orca_vm, (void **)&env, JNI_VERSION_1_6) == JNI_OK) (*env)->DeleteGlobalRef(env, self_ref);
  self_ref = NULL;
  pthread_mutex_unlock(&attach_mu);
  (*orca_vm)->DetachCurrentThread(orca_vm);
  attached = 0;
}

// The ids of the methods of the thread's last stacks, direct-mapped: a
// thread parks, waits and blocks at a few sites, so its frames are mostly
// methods it had before, whose ids then need no probe of the shared method
// table (a cache miss or two each: method_id was 2 % of ParkBench's CPU).
// An id never changes once given.
// One thread-local block, its address taken once a capture: each access to
// a thread-local of this library (-fPIC, loaded with dlopen) is a call of
// __tls_get_addr, and taken per frame they were a fifth of a notify's walk.
#define MEMO_SLOTS 128
typedef struct {
  jmethodID memo_m[MEMO_SLOTS];
  uint32_t memo_id[MEMO_SLOTS];
  int saw_new;   // ORCA_TIME_STACKS: the capture saw a method for the first time
} capture_tls;
static __thread capture_tls ctls;

static uint32_t method_id_at(capture_tls *c, jmethodID m, uint32_t *slot) {
  uintptr_t k = (uintptr_t)m;
  uint32_t i = (uint32_t)((k >> 3) * 0x9E3779B97F4A7C15ull >> (64 - METHOD_BITS));
  for (uint32_t probes = 0; probes < METHOD_SLOTS / 2; probes++, i = (i + 1) & (METHOD_SLOTS - 1)) {
    mslot_t *s = &mtab[i];
    jmethodID cur = atomic_load_explicit(&s->key, memory_order_acquire);
    if (cur == NULL) {
      jmethodID expect = NULL;
      if (atomic_compare_exchange_strong(&s->key, &expect, m)) {
        uint32_t id = atomic_fetch_add(&next_id, 1) + 1;
        atomic_store_explicit(&s->id, id, memory_order_release);
        atomic_store_explicit(&used[atomic_fetch_add(&nused, 1)], i + 1, memory_order_release);
        c->saw_new = 1;
        describe_later(i);
        if (slot) *slot = i;
        return id;
      }
      cur = expect;
    }
    if (cur == m) {
      uint32_t id;
      // The claimer stores the id right after its CAS; if it was descheduled
      // in between, the frame gets no id (an unknown method in the
      // recording) rather than the thread waiting without bound (counted).
      for (int spin = 0; (id = atomic_load_explicit(&s->id, memory_order_acquire)) == 0; spin++) {
        if (spin < 200) {
          arch_pause();
        } else if (spin < 220) {
          sched_yield();
        } else {
          counter_add(CNT_BOUNDED_WAITS, 1);
          break;
        }
      }
      if (slot) *slot = i;
      return id;
    }
  }
  counter_add(CNT_METADATA_DROPPED, 1);
  return 0;
}

static uint32_t method_id(capture_tls *c, jmethodID m) { return method_id_at(c, m, NULL); }

// method_known: m is in the table (then it was a method the JVM made when
// it went in): its slot, else -1. No insertion.
static long method_known(jmethodID m) {
  uintptr_t k = (uintptr_t)m;
  uint32_t i = (uint32_t)((k >> 3) * 0x9E3779B97F4A7C15ull >> (64 - METHOD_BITS));
  for (uint32_t probes = 0; probes < METHOD_SLOTS / 2; probes++, i = (i + 1) & (METHOD_SLOTS - 1)) {
    jmethodID cur = atomic_load_explicit(&mtab[i].key, memory_order_acquire);
    if (cur == NULL) return -1;
    if (cur == m) return i;
  }
  return -1;
}

// verify walks again with GetStackTrace and counts differences (tests set
// ORCA_VERIFY_STACKS=1: the two walkers must agree frame for frame).
static void verify(int skip, const jvmtiFrameInfo *fr, int n, int max) {
  jvmtiFrameInfo f2[ORCA_MAX_DEPTH];
  jint n2 = 0;
  (*jvmti)->GetStackTrace(jvmti, NULL, skip, max, f2, &n2);
  int bad = n2 != n;
  for (int i = 0; !bad && i < n; i++) bad = f2[i].method != fr[i].method || f2[i].location != fr[i].location;
  counter_add(bad ? CNT_VERIFIED_STACKS_DIFFER : CNT_VERIFIED_STACKS, 1);
  if (bad && asgct_verify > 1) {   // ORCA_VERIFY_STACKS=2: print both
    char buf[8192];
    size_t k = (size_t)snprintf(buf, sizeof buf, "orca: stacks differ (fast %d, GetStackTrace %d frames):\n", n, (int)n2);
    for (int i = 0; i < n || i < n2; i++) {
      char *a = NULL, *b = NULL;
      if (i < n) (*jvmti)->GetMethodName(jvmti, fr[i].method, &a, NULL, NULL);
      if (i < n2) (*jvmti)->GetMethodName(jvmti, f2[i].method, &b, NULL, NULL);
      if (k < sizeof buf)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "  %-40s@%-5ld %s%s@%ld\n", a ? a : "-", i < n ? (long)fr[i].location : -9,
                              i < n && i < n2 && fr[i].method == f2[i].method && fr[i].location == f2[i].location ? "  " : "! ",
                              b ? b : "-", i < n2 ? (long)f2[i].location : -9);
      dealloc(a);
      dealloc(b);
    }
    if (k > sizeof buf) k = sizeof buf;
    if (write(2, buf, k) < 0) {}
  }
}

// ORCA_TIME_STACKS=1 (a measurement aid): the time of each own-thread walk,
// fast and by GetStackTrace, summed and printed to stderr at exit.
static int time_walks = -1;
static atomic_long walk_ns[4], walk_n[4];
// And their distribution, in 5 ns buckets up to 10 us, for the median (the
// mean moves with every preemption on a busy machine).
enum { HIST = 2000, HIST_NS = 5 };
static atomic_long walk_hist[4][HIST];

static void print_walk_times(void) {
  static const char *const what[] = {"fast walks", "GetStackTrace walks", "captures (a walk and its frames' ids)",
                                     "captures that saw a method first"};
  for (int i = 0; i < 4; i++) {
    long n = atomic_load(&walk_n[i]), seen = 0, p50 = -1, p90 = -1;
    if (!n) continue;
    for (int b = 0; b < HIST && p90 < 0; b++) {
      seen += atomic_load(&walk_hist[i][b]);
      if (p50 < 0 && 2 * seen >= n) p50 = b;
      if (10 * seen >= 9 * n) p90 = b;
    }
    fprintf(stderr, "orca: %s: %ld, %.2f us each, p50 %.3f us, p90 %.3f us\n", what[i], n,
            (double)atomic_load(&walk_ns[i]) / 1e3 / (double)n, (p50 * HIST_NS + HIST_NS / 2.0) / 1e3,
            (p90 * HIST_NS + HIST_NS / 2.0) / 1e3);
  }
}

static void timed(int slow, int64_t t0) {
  long d = (long)(clock_now() - t0), b = d / HIST_NS;
  atomic_fetch_add(&walk_ns[slow], d);
  atomic_fetch_add(&walk_n[slow], 1);
  atomic_fetch_add(&walk_hist[slow][b < HIST ? b : HIST - 1], 1);
}

__thread int stack_virtual;

// fast_walk walks the calling thread's stack without JVMTI: the own walker
// (JDK 11-18, 25), then AsyncGetCallTrace where it is exact; -1 when
// neither can (GetStackTrace then).
static int fast_walk(JNIEnv *env, int skip, jvmtiFrameInfo *fr, int max) {
  if (!asgct_ready_now()) return -1;
  if (!env && ((*orca_vm)->GetEnv(orca_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK || !env)) return -1;
  int n = walk_self(env, skip, fr, max);
  return n >= 0 ? n : asgct_walk(env, skip, fr, max);
}

static int frames_to(const jvmtiFrameInfo *fr, int n, orca_frame *out);

static int capture(JNIEnv *env, jthread t, int skip, orca_frame *out, int max) {
  jvmtiFrameInfo fr[ORCA_MAX_DEPTH];
  jint n = 0;
  if (max <= 0) return 0;
  if (max > ORCA_MAX_DEPTH) max = ORCA_MAX_DEPTH;
  if (time_walks < 0) {
    if ((time_walks = switches.time_stacks)) atexit(print_walk_times);
  }
  int64_t t0 = time_walks ? clock_now() : 0;
  if (t || stack_virtual || (n = fast_walk(env, skip, fr, max)) < 0) {
    if (!t && !stack_virtual) counter_add(CNT_OWN_STACKS_BY_JVMTI, 1);
    n = 0;
    if ((*jvmti)->GetStackTrace(jvmti, t, skip, max, fr, &n) != JVMTI_ERROR_NONE) return 0;
    if (time_walks && !t) timed(1, t0);   // with the fast walk that gave up
  } else {
    if (time_walks) timed(0, t0);
    if (asgct_verify) verify(skip, fr, n, max);
  }
  n = frames_to(fr, n, out);
  capture_tls *c = &ctls;
  __asm__("" : "+r"(c));
  if (time_walks && !t) timed(2, t0);
  if (time_walks && !t && c->saw_new) timed(3, t0);
  c->saw_new = 0;
  return n;
}

// frames_to writes n frames' compact ids and locations to out.
static int frames_to(const jvmtiFrameInfo *fr, int n, orca_frame *out) {
  capture_tls *c = &ctls;
  __asm__("" : "+r"(c));   // keep it: GCC would call __tls_get_addr again per use
  for (int i = 0; i < n; i++) {
    jmethodID m = fr[i].method;
    uint32_t id;
    unsigned h = (unsigned)((uintptr_t)m >> 3) & (MEMO_SLOTS - 1);
    if (m && c->memo_m[h] == m && c->memo_id[h]) {
      id = c->memo_id[h];
    } else {
      id = method_id(c, m);
      c->memo_m[h] = m;
      c->memo_id[h] = id;
    }
    out[i].method = id;
    out[i].location = (uint32_t)fr[i].location;
  }
  return n;
}

int stack_of_frames(const jvmtiFrameInfo *fr, int n, orca_frame *out, int max) {
  if (max > ORCA_MAX_DEPTH) max = ORCA_MAX_DEPTH;
  int k = frames_to(fr, n < max ? n : max, out);
  ctls.saw_new = 0;
  return k;
}

uint32_t methods_id_of(jmethodID m) { return m ? method_id(&ctls, m) : 0; }

// A sample's stack is walked from the signal's context and so sees every
// frame, the agent's own hooks too (orca$hook, a native the JVM may even
// be resolving by name, in Java code of ClassLoader's, when the signal
// comes). Events are captured above their hook; a sample leaves the hook's
// frame out, as HotSpot leaves out its @Hidden frames, so no stack of a
// recording shows one. The name is asked once per method, by the writer.
// A method not seen before is checked first (hs_method_id_valid): a walk
// from a signal's context may have read a word that is no jmethodID, which
// no JVMTI function may be given (the frame is left out, counted).
uint32_t methods_sample_id(jmethodID m, int jvmti_ok) {
  if (!m) return 0;
  long known = method_known(m);
  if (known < 0 && !hs_method_id_valid(m)) {
    counter_add(CNT_SAMPLE_FRAMES_INVALID, 1);
    return 0;
  }
  // A method in the table is used from its slot (one probe a frame); its
  // id not stored yet (a claimer between its CAS and its store), or a new
  // one, through method_id_at.
  uint32_t slot = known < 0 ? 0 : (uint32_t)known;
  uint32_t id = known < 0 ? 0 : atomic_load_explicit(&mtab[slot].id, memory_order_acquire);
  if (!id) id = method_id_at(&ctls, m, &slot);
  if (!id) return 0;
  mslot_t *s = &mtab[slot];
  unsigned char own = atomic_load_explicit(&s->own, memory_order_relaxed);
  if (!own) {
    char *name = NULL;
    // Not attached (before VMInit), or its class unloaded: asked again next time.
    if (!jvmti_ok || (*jvmti)->GetMethodName(jvmti, m, &name, NULL, NULL) != JVMTI_ERROR_NONE) return id;
    own = strncmp(name, "orca$", 5) ? 1 : 2;
    dealloc(name);
    atomic_store_explicit(&s->own, own, memory_order_relaxed);
  }
  return own == 2 ? 0 : id;
}

int stack_capture(jthread t, int skip, orca_frame *out, int max) { return capture(NULL, t, skip, out, max); }

int stack_capture_own(JNIEnv *env, int skip, orca_frame *out, int max) { return capture(env, NULL, skip, out, max); }

// Native and VM frames of samples (issue 33): each distinct function is a
// pseudo-method of the pseudo-class of its library, "<native:libc.so.6>"
// (core/events.h, ORCA_NATIVE_CLASS_PREFIX), named by its symbol (empty
// when the library exports none that holds the address: a hidden
// function of libjvm.so is not named after the exported one before it),
// with no signature and no lines. The writer's thread alone asks, before
// it takes the metadata lines; the tables are forgotten at methods_reset
// (a new recording gives new ids). Libraries get class ids
// NATIVE_CLASS | n, which no identity hash (31 bits) and no alias of
// classids.h (CLASSIDS_ALIAS | a small n) is.
#define NATIVE_CLASS 0xC0000000u
#define NATIVE_SLOTS 8192u
#define NATIVE_LIBS 256
#define PC_CACHE 4096u
typedef struct {
  char *name;   // "LIB\0SYMBOL"
  size_t len;
  uint32_t id;
} native_fn;
static native_fn ntab[NATIVE_SLOTS];
static uint32_t nfns;
static char *nlibs[NATIVE_LIBS];
static int nnlibs;
static struct {
  uintptr_t pc;
  uint32_t id;
} pc_cache[PC_CACHE];

static uint32_t native_lib(const char *lib) {
  for (int i = 0; i < nnlibs; i++)
    if (!strcmp(nlibs[i], lib)) return NATIVE_CLASS | (uint32_t)(i + 1);
  if (nnlibs == NATIVE_LIBS || !(nlibs[nnlibs] = strdup(lib))) return 0;
  uint32_t id = NATIVE_CLASS | (uint32_t)(++nnlibs);
  char line[1200];
  size_t n = fmt_ts(line, clock_now());
  line[n++] = ',';
  n += fmt_hex8(line + n, id);
  line[n++] = ',';
  char sig[600];
  int k = snprintf(sig, sizeof sig, ORCA_NATIVE_CLASS_PREFIX "%s>", lib);
  n += fmt_text(line + n, sig, k < (int)sizeof sig ? (size_t)k : sizeof sig - 1);
  line[n++] = ',';
  line[n++] = '\n';
  meta_add(META_CLASSES, line, n);
  counter_add(CNT_CLASSES, 1);
  return id;
}

uint32_t methods_native_id(uintptr_t pc) {
  uint32_t c = (uint32_t)((pc * 0x9E3779B97F4A7C15ull) >> 52) & (PC_CACHE - 1);
  if (pc_cache[c].pc == pc && pc_cache[c].id) return pc_cache[c].id;
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  memset(&info, 0, sizeof info);
  const char *lib = "?", *name = "";
  static char symbuf[512];   // the writer's alone
  if (dladdr1((void *)pc, &info, (void **)&sym, RTLD_DL_SYMENT)) {
    if (info.dli_fname && *info.dli_fname) {
      const char *slash = strrchr(info.dli_fname, '/');
      lib = slash ? slash + 1 : info.dli_fname;
    }
    // The nearest exported symbol holds pc only within its size.
    if (info.dli_sname && sym && (sym->st_size == 0 || pc < (uintptr_t)info.dli_saddr + sym->st_size)) name = info.dli_sname;
    // Not exported (most of libjvm's functions): the library file's .symtab.
    else if (elfsym_name(info.dli_fname, (uintptr_t)info.dli_fbase, pc, symbuf, sizeof symbuf)) name = symbuf;
  }
  char key[1024];
  int kl = snprintf(key, sizeof key, "%s%c%s", lib, 0, name);
  size_t len = kl < (int)sizeof key ? (size_t)kl : sizeof key - 1;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
  uint32_t s = (uint32_t)h & (NATIVE_SLOTS - 1);
  for (; ntab[s].name; s = (s + 1) & (NATIVE_SLOTS - 1))
    if (ntab[s].len == len && !memcmp(ntab[s].name, key, len)) goto found;
  if (nfns >= NATIVE_SLOTS * 3 / 4 || !(ntab[s].name = malloc(len + 1))) return 0;
  memcpy(ntab[s].name, key, len);
  ntab[s].name[len] = 0;
  ntab[s].len = len;
  ntab[s].id = atomic_fetch_add(&next_id, 1) + 1;
  nfns++;
  {
    uint32_t cid = native_lib(lib);
    char line[1200];
    size_t n = fmt_ts(line, clock_now());
    line[n++] = ',';
    n += fmt_hex8(line + n, ntab[s].id);
    line[n++] = ',';
    size_t nl = strlen(name);
    n += fmt_text(line + n, name, nl < 500 ? nl : 500);
    line[n++] = ',';
    line[n++] = ',';
    n += fmt_hex8(line + n, cid);
    n += (size_t)sprintf(line + n, ",-1\n");
    meta_add(META_METHODS, line, n);
    counter_add(CNT_METHODS, 1);
  }
found:
  pc_cache[c].pc = pc;
  pc_cache[c].id = ntab[s].id;
  return ntab[s].id;
}

void methods_native_reset(void) {
  for (uint32_t i = 0; i < NATIVE_SLOTS; i++) free(ntab[i].name);
  memset(ntab, 0, sizeof ntab);
  nfns = 0;
  for (int i = 0; i < nnlibs; i++) free(nlibs[i]);
  nnlibs = 0;
  memset(pc_cache, 0, sizeof pc_cache);
  elfsym_reset();
}
