#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hooks/clinit.h"
#include "hotspot/jclass.h"
#include "stacks/methods.h"
#include "hotspot/objhash.h"
#include "hotspot/owner.h"
#include "hotspot/vmstructs.h"
#include "core/clock.h"
#include "core/counters.h"
#include "stacks/objclass.h"
#include "threads/pending.h"
#include "core/events.h"
#include "core/fmt.h"
#include "core/orca.h"
#include "record/ring.h"

// HotSpot links and initialises a class under its init lock, an int[] it
// keeps in the class's mirror (java_lang_Class::init_lock; JDK 17, and
// 22+ again: 21 used a native monitor, JDK-8288064). A thread that finds
// another initialising the class waits on that lock (ObjectLocker's
// wait_uninterruptibly), and one that finds it held blocks on it: JVMTI
// posts MonitorContendedEnter and MonitorWaited (never MonitorWait) on the
// int[] as for any monitor. The agent tells it from an application's
// synchronized(int[]) by the thread's top Java frame: a monitorenter at
// (or just before) its location is the application's; a bytecode that initialises a class (new,
// getstatic, putstatic, invokestatic) is the JVM's, and names the class
// the frame asked for (the lock may be that class's superclass' or
// superinterface's: initialising a class initialises them first). A
// native top frame (JNI MonitorEnter, Class.forName) cannot be told: the
// object stays an int[]. All of it runs only for int[] monitors: at most a
// few contentions and waits per class, while it is initialised.

static jclass int_array;   // global reference, from clinit_init

// clinit_init: the class of an int[] of the agent's own (an allocation at
// VMInit, no Java code), so that telling an int[] at a contended enter is
// one IsSameObject — not a JVMTI GetClassSignature at every contended
// enter of a program that never contends on an int[].
void clinit_init(JNIEnv *env) {
  if (__atomic_load_n(&int_array, __ATOMIC_ACQUIRE)) return;   // at VMStart, then VMInit
  jintArray a = (*env)->NewIntArray(env, 1);
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), a = NULL;
  jclass c = a ? (*env)->GetObjectClass(env, a) : NULL;
  if (c && jclass_is(c, "[I")) __atomic_store_n(&int_array, (*env)->NewGlobalRef(env, c), __ATOMIC_RELEASE);
  if (c) (*env)->DeleteLocalRef(env, c);
  if (a) (*env)->DeleteLocalRef(env, a);
}

static int is_int_array(JNIEnv *env, jobject o) {
  jclass known = __atomic_load_n(&int_array, __ATOMIC_ACQUIRE);
  if (!known) return 0;
  return (*env)->IsInstanceOf(env, o, known);
}

static unsigned u2(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }

// pool_class writes the signature of the class that constant pool entry
// idx names (a Class, or a field's or method's class) into out; its
// length, or 0.
static int pool_class(jclass k, unsigned idx, char *out, size_t cap) {
  jint count = 0, bytes = 0;
  unsigned char *cp = NULL;
  if ((*jvmti)->GetConstantPool(jvmti, k, &count, &bytes, &cp) != JVMTI_ERROR_NONE || !cp) return 0;
  int n = 0;
  uint32_t *at = count > 0 ? calloc((size_t)count, sizeof *at) : NULL;
  if (at) {
    // The entries from index 1, as in a class file (no count before them).
    uint32_t off = 0;
    for (jint i = 1; i < count && off < (uint32_t)bytes; i++) {
      at[i] = off;
      unsigned char tag = cp[off];
      uint32_t size;
      switch (tag) {
        case 1: size = off + 3 <= (uint32_t)bytes ? 3 + u2(cp + off + 1) : 3; break;   // Utf8
        case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: size = 5; break;
        case 5: case 6: size = 9, i++; break;   // Long, Double: two entries
        case 7: case 8: case 16: case 19: case 20: size = 3; break;
        case 15: size = 4; break;
        default: size = (uint32_t)bytes; break;   // unknown: stop
      }
      off += size;
    }
#define ENTRY_OK(i, len) ((i) > 0 && (jint)(i) < count && at[i] + (len) <= (uint32_t)bytes)
    if (ENTRY_OK(idx, 3)) {
      unsigned char tag = cp[at[idx]];
      if ((tag == 9 || tag == 10 || tag == 11) && ENTRY_OK(idx, 5)) idx = u2(cp + at[idx] + 1), tag = ENTRY_OK(idx, 3) ? cp[at[idx]] : 0;
      if (tag == 7) {
        unsigned name = u2(cp + at[idx] + 1);
        if (ENTRY_OK(name, 3) && cp[at[name]] == 1) {
          unsigned len = u2(cp + at[name] + 1);
          if (at[name] + 3 + len <= (uint32_t)bytes && cap > 3) {
            const char *s = (const char *)cp + at[name] + 3;
            if (len && s[0] == '[') {
              n = (int)mutf8_to_utf8(s, len, out, cap);
            } else {
              out[0] = 'L';
              n = 1 + (int)mutf8_to_utf8(s, len, out + 1, cap - 2);
              out[n++] = ';';
            }
          }
        }
      }
    }
#undef ENTRY_OK
    free(at);
  }
  (*jvmti)->Deallocate(jvmti, cp);
  return n;
}

// What top_frame_class says besides a class's signature (>= 0).
enum {
  FRAME_APP = -1,          // an application's lock (a monitorenter), or not known
  FRAME_NONE = -2,         // no frame at all: the thread runs no Java method
  FRAME_JDK_NATIVE = -3,   // a native method of a class of the boot loader
  FRAME_START = -4,        // before VMInit: only the JDK's start-up code runs
};

// jdk_native: whether m, a native method, is the JDK's (its class loaded by
// the boot loader: Class.forName0, Unsafe.ensureClassInitialized0, the
// reflection natives), not an application's JNI code.
static int jdk_native(jmethodID m) {
  jclass k = NULL;
  jobject loader = NULL;
  if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &k) != JVMTI_ERROR_NONE || !k) return 0;
  if ((*jvmti)->GetClassLoader(jvmti, k, &loader) != JVMTI_ERROR_NONE) return 0;
  // Local references in the calling thread's frame: freed with it.
  return loader == NULL;
}

// top_frame_class looks at the calling thread's top Java frame: FRAME_APP
// when it is not the JVM's lock (a monitorenter) or cannot be told (an
// application's native frame), FRAME_NONE or FRAME_JDK_NATIVE, else the
// length of the signature of the class its bytecode initialises, written
// into out (0: none named).
// t: the thread (NULL: the calling one); *top, when not NULL, its top
// frame's method.
static int top_frame_class(jthread t, char *out, size_t cap, jmethodID *top) {
  jmethodID m = NULL;
  jlocation at = -1;
  jvmtiError err = (*jvmti)->GetFrameLocation(jvmti, t, 0, &m, &at);
  if (top) *top = m;
  if (err == JVMTI_ERROR_NO_MORE_FRAMES) return FRAME_NONE;
  if (err == JVMTI_ERROR_WRONG_PHASE) return FRAME_START;
  if (err != JVMTI_ERROR_NONE || !m) return FRAME_APP;
  if (at < 0) return jdk_native(m) ? FRAME_JDK_NATIVE : FRAME_APP;
  jint size = 0;
  unsigned char *code = NULL;
  if ((*jvmti)->GetBytecodes(jvmti, m, &size, &code) != JVMTI_ERROR_NONE || !code) return -1;
  int n = FRAME_APP;
  if (at < size) {
    unsigned char op = code[at];
    n = 0;
    // monitorenter: the interpreter has moved its bcp past it (1 byte) when
    // it blocks, compiled code may name it. A byte 0xc2 before the
    // location may be an operand instead: then a JVM lock stays an int[]
    // (never the other way round).
    if (op == 0xc2 || (at > 0 && code[at - 1] == 0xc2)) {
      n = FRAME_APP;
    } else if ((op == 0xbb || op == 0xb2 || op == 0xb3 || op == 0xb8) && at + 2 < size) {
      // new, getstatic, putstatic, invokestatic
      jclass k = NULL;
      if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &k) == JVMTI_ERROR_NONE && k) {
        n = pool_class(k, u2(code + at + 1), out, cap);
        // A local reference in the calling thread's frame: freed with it.
      }
    }
  }
  (*jvmti)->Deallocate(jvmti, code);
  return n;
}

// Init locks named already, by hash (direct-mapped; a collision names it
// again, harmlessly).
#define NAMED_SLOTS 1024
static _Atomic uint32_t named[NAMED_SLOTS];

static _Atomic uint32_t *named_slot(uint32_t h) { return &named[(h * 2654435761u) >> 22 & (NAMED_SLOTS - 1)]; }

static void rounds_reset(void);

void clinit_reset(void) {
  for (int i = 0; i < NAMED_SLOTS; i++) atomic_store_explicit(&named[i], 0, memory_order_relaxed);
  rounds_reset();
}

static void name_lock(int shard, uint32_t thread, int64_t ts, uint32_t h, const char *sig, int len) {
  _Atomic uint32_t *slot = named_slot(h);
  if (atomic_load_explicit(slot, memory_order_relaxed) == h) return;
  atomic_store_explicit(slot, h, memory_order_relaxed);
  ring_put(shard, ORCA_EV_CLASS_INIT_LOCK, ts, thread, h, 0, NULL, 0, sig, len);
}

// empty_array: whether o, an int[], has no element. HotSpot's init lock is
// an int[0] (java_lang_Class::initialize_mirror_fields); a program's lock
// made of an array is one with a use, or a byte[0].
static int empty_array(JNIEnv *env, jobject o) {
  jsize n = (*env)->GetArrayLength(env, (jarray)o);
  if ((*env)->ExceptionCheck(env)) {
    (*env)->ExceptionClear(env);
    return 0;
  }
  return n == 0;
}

void clinit_enter(JNIEnv *env, int shard, uint32_t thread, int64_t ts, jobject o, uint32_t h) {
  if (opt.seed_only || !env || !o || !h || !is_int_array(env, o)) return;
  char sig[1024];
  int n = top_frame_class(NULL, sig, sizeof sig, NULL);
  // Before VMInit (the JDK's start-up code: the launcher's thread blocked
  // on a class's init lock the Finalizer holds), with no Java frame, or in a
  // JDK native (Class.forName0, Unsafe.ensureClassInitialized0), an int[0]:
  // the JVM's init lock, no class named. Only an application's JNI code
  // could lock an int[0] there, and none runs before VMInit.
  if ((n == FRAME_START || n == FRAME_NONE || n == FRAME_JDK_NATIVE) && empty_array(env, o)) n = 0;
  if (n < 0) return;
  name_lock(shard, thread, ts, h, sig, n);
}

// ---- Waits still open: the walker's look (clinit_round) ----
//
// HotSpot posts a class-initialisation wait's end (MonitorWaited) and
// nothing at its start. The walker looks, each round, at the platform
// threads HotSpot has _thread_blocked waiting on a monitor
// (JavaThread::_current_waiting_monitor) that are in no recorded
// Object.wait (pending_waiting), and keeps those whose object is an int[]
// (the JVM's waits: no Java code waits on an int[] outside Object.wait). One
// seen so, with no ClassInitWaited of its thread in between, in two rounds
// running is written as a MonitorContendedEnter on the init lock, its
// owner the thread that runs the class's initialiser (the one with that
// class's <clinit> on its stack), at the time the walker wrote it: the wait
// began at least a round earlier. Its thread's ClassInitWaited closes it
// (a MonitorContendedEntered just before). Two rounds, because HotSpot
// posts MonitorWaited before the thread takes the lock again, and keeps
// _current_waiting_monitor until it has: a thread seen once may be past its
// wait's end, in that re-entry.

// The ClassInitWaited of each thread so far, by a few bits of its key (a
// collision only makes the walker wait a round more).
#define SEQ_SLOTS 4096
static _Atomic uint32_t waited_seq[SEQ_SLOTS];
static _Atomic uint32_t *seq_of(uint32_t thread) { return &waited_seq[(thread * 2654435761u) >> 20 & (SEQ_SLOTS - 1)]; }

// The enters the walker writes (WRITING) or wrote (OPEN) whose
// ClassInitWaited has not come: the thread's callback and the walker meet
// here, under open_mu, in a Dekker handshake (seq_cst): the thread bumps its
// sequence then looks for its entry; the walker adds the entry then reads
// the sequence. Either the walker sees the wait ended, or the thread sees
// its enter.
// OPEN_LEFT: the thread's wait ended while the walker still wrote its
// enter, past the bound: the walker ends it (1 ns after it), if it wrote it.
enum { OPEN_WRITING = 1, OPEN_DONE = 2, OPEN_LEFT = 3 };
typedef struct {
  uint32_t thread, lock;
  int64_t ts;
  int state;
} open_enter;
#define OPEN_MAX 256
static open_enter opens[OPEN_MAX];
static int nopens;
static atomic_int opens_any;
static pthread_mutex_t open_mu = PTHREAD_MUTEX_INITIALIZER;

static void open_remove_locked(int i) {
  opens[i] = opens[--nopens];
  atomic_store(&opens_any, nopens > 0);
}

// close_open: the thread's wait ended at *ts (its ClassInitWaited): the
// enter the walker wrote for it gets its Entered, after that enter (*ts
// moves past it, for the ClassInitWaited too). The walker holds an entry
// WRITING for a few reads and one line: waited for, bounded.
static void close_open(int shard, uint32_t thread, int64_t *ts, const orca_frame *fr, int nf) {
  for (int tries = 0;; tries++) {
    pthread_mutex_lock(&open_mu);
    int i = 0;
    while (i < nopens && opens[i].thread != thread) i++;
    if (i == nopens) {
      pthread_mutex_unlock(&open_mu);
      return;
    }
    if (opens[i].state == OPEN_WRITING && tries < PENDING_SPINS) {
      pthread_mutex_unlock(&open_mu);
      sched_yield();
      continue;
    }
    if (opens[i].state == OPEN_DONE) {
      if (*ts <= opens[i].ts) *ts = opens[i].ts + 1;
      ring_put(shard, ORCA_EV_MONITOR_CONTENDED_ENTERED, *ts, thread, opens[i].lock, 0, fr, nf, NULL, 0);
      open_remove_locked(i);
    } else {
      counter_add(CNT_BOUNDED_WAITS, 1);
      opens[i].state = OPEN_LEFT;
    }
    pthread_mutex_unlock(&open_mu);
    return;
  }
}

void clinit_waited(JNIEnv *env, int shard, uint32_t thread, int64_t ts, jobject o) {
  if (opt.seed_only || !env || !o || !is_int_array(env, o)) return;
  atomic_fetch_add(seq_of(thread), 1);
  uint32_t h = objhash_of(o);
  if (!h) return;
  // No Java code waits on an int[] outside Object.wait: the JVM's wait,
  // whatever the frame (a native one names no class).
  char sig[1024];
  int n = top_frame_class(NULL, sig, sizeof sig, NULL);
  name_lock(shard, thread, ts, h, sig, n < 0 ? 0 : n);
  orca_frame frames[ORCA_MAX_DEPTH];
  int nf = stack_capture(NULL, 0, frames, opt.depth);
  if (atomic_load(&opens_any)) close_open(shard, thread, &ts, frames, nf);
  ring_put(shard, ORCA_EV_CLASS_INIT_WAITED, ts, thread, h, 0, frames, nf, NULL, 0);
}

// What the walker knows of a waiting thread from its last round.
// SEEN_NOT: not the JVM's wait (an object not an int[], or a frame that
// says so); SEEN_FIRST: an int[], seen first this round (or its thread's
// sequence moved); SEEN_INIT: seen so two rounds running, to be written;
// SEEN_WRITTEN: its enter is written.
enum { SEEN_NEW, SEEN_NOT, SEEN_FIRST, SEEN_INIT, SEEN_WRITTEN };
typedef struct {
  owner_waiting w;
  uint32_t seq;
  int verdict;
} seen_t;
static seen_t *seen, *seen_next;
static int nseen, seen_cap;
static owner_waiting *scan;
static int scan_cap;
static uint32_t *waiting;
static int waiting_cap;
// ORCA_TIME_CLINIT: the rounds' time, count and longest; waits written.
static int64_t round_ns, round_n, round_max_ns, found_n, written_n, scanned_n, checked_n;

static int64_t cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// grow_seen makes both lists of the rounds hold n.
static int grow_seen(int n) {
  if (n <= seen_cap) return 1;
  int c = seen_cap ? seen_cap : 64;
  while (c < n) c *= 2;
  seen_t *a = realloc(seen, (size_t)c * sizeof *a);
  if (!a) return 0;
  seen = a;
  seen_t *b = realloc(seen_next, (size_t)c * sizeof *b);
  if (!b) return 0;
  seen_next = b;
  seen_cap = c;
  return 1;
}

static int cmp_seen(const void *a, const void *b) {
  uint32_t x = ((const seen_t *)a)->w.thread, y = ((const seen_t *)b)->w.thread;
  return x < y ? -1 : x > y;
}
static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

// grow makes *p hold n elements of size sz (cap in *cap); 0 when it cannot.
static int grow(void **p, int *cap, int n, size_t sz) {
  if (n <= *cap) return 1;
  int c = *cap ? *cap : 64;
  while (c < n) c *= 2;
  void *q = realloc(*p, (size_t)c * sz);
  if (!q) return 0;
  *p = q, *cap = c;
  return 1;
}

// clinit_frames: the classes whose <clinit> each of the threads runs (on
// its stack): sigs[i] a list of signatures, each ended by '\0', the list by
// another; NULL when none.
static char *clinit_frames(jthread t) {
  enum { DEPTH = 256 };
  jvmtiFrameInfo fr[DEPTH];
  jint n = 0;
  if ((*jvmti)->GetStackTrace(jvmti, t, 0, DEPTH, fr, &n) != JVMTI_ERROR_NONE) return NULL;
  char *out = NULL;
  size_t len = 0;
  for (jint i = 0; i < n; i++) {
    char *name = NULL;
    if ((*jvmti)->GetMethodName(jvmti, fr[i].method, &name, NULL, NULL) != JVMTI_ERROR_NONE || !name) continue;
    int is = !strcmp(name, "<clinit>");
    (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    jclass k = NULL;
    char *csig = NULL;
    if (!is || (*jvmti)->GetMethodDeclaringClass(jvmti, fr[i].method, &k) != JVMTI_ERROR_NONE || !k) continue;
    if ((*jvmti)->GetClassSignature(jvmti, k, &csig, NULL) == JVMTI_ERROR_NONE && csig) {
      size_t l = strlen(csig) + 1;
      char *q = realloc(out, len + l + 1);
      if (q) {
        out = q;
        memcpy(out + len, csig, l);
        len += l;
        out[len] = 0;
      }
      (*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
    }
  }
  return out;
}

static int runs_clinit(const char *list, const char *sig, int n) {
  for (const char *p = list; p && *p; p += strlen(p) + 1)
    if ((int)strlen(p) == n && !memcmp(p, sig, (size_t)n)) return 1;
  return 0;
}

// write_waits writes the enters of the waits in c (n of them), seen in two
// rounds: those it wrote become SEEN_WRITTEN, those that are not the JVM's
// class-initialisation waits SEEN_NOT; the others stay SEEN_INIT (tried
// again next round: their thread was not found).
static void write_waits(JNIEnv *env, seen_t **c, int n) {
  jint nt = 0;
  jthread *all = NULL;
  if ((*jvmti)->GetAllThreads(jvmti, &nt, &all) != JVMTI_ERROR_NONE) return;
  vm_ptr *jts = calloc((size_t)nt + 1, sizeof *jts);
  char **inits = calloc((size_t)nt + 1, sizeof *inits);
  if (!jts || !inits) goto out;
  for (jint i = 0; i < nt; i++) jts[i] = owner_jt_of(env, all[i]);
  for (jint i = 0; i < nt; i++) inits[i] = clinit_frames(all[i]);
  for (int k = 0; k < n; k++) {
    seen_t *e = c[k];
    jint me = 0;
    while (me < nt && !vm_same(jts[me], e->w.jt)) me++;
    if (me == nt) continue;
    jthread t = all[me];
    char sig[1024];
    jmethodID top = NULL;
    int cn = top_frame_class(t, sig, sizeof sig, &top);
    jobject ref = hs_monitor_object(env, vm_at(e->w.monitor));
    if (!ref) continue;
    if (cn == FRAME_JDK_NATIVE) {
      // Class.forName0 and the like, not Object.wait's native (a wait
      // the agent did not record: dropped, or begun before it).
      char *name = NULL;
      if (top && (*jvmti)->GetMethodName(jvmti, top, &name, NULL, NULL) == JVMTI_ERROR_NONE && name) {
        if (!strncmp(name, "wait", 4)) cn = FRAME_APP;
        (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
      }
    }
    if ((cn == FRAME_START || cn == FRAME_NONE || cn == FRAME_JDK_NATIVE) && empty_array(env, ref)) cn = 0;
    if (cn < 0) {
      e->verdict = SEEN_NOT;
      (*env)->DeleteLocalRef(env, ref);
      continue;
    }
    uint32_t lock = objhash_of(ref);
    uint32_t owner = 0;
    for (jint i = 0; cn > 0 && i < nt && !owner; i++)
      if (i != me && runs_clinit(inits[i], sig, cn)) owner = owner_key_of(jts[i]);
    orca_frame frames[ORCA_MAX_DEPTH];
    int nf = stack_capture(t, 0, frames, opt.depth);
    int64_t ts0 = clock_now();
    if (!lock) goto next;
    // Facts about the lock first (once per object, at or before the enter).
    objclass_write(env, 0, e->w.thread, ts0, ref, lock);
    name_lock(0, e->w.thread, ts0, lock, sig, cn);
    pthread_mutex_lock(&open_mu);
    int slot = nopens < OPEN_MAX ? nopens++ : -1;
    if (slot >= 0) {
      opens[slot] = (open_enter){e->w.thread, lock, 0, OPEN_WRITING};
      atomic_store(&opens_any, 1);
    }
    pthread_mutex_unlock(&open_mu);
    if (slot < 0) goto next;   // 256 open already: tried next round
    atomic_thread_fence(memory_order_seq_cst);
    int64_t ts = clock_now();
    int still = atomic_load(seq_of(e->w.thread)) == e->seq && owner_still_waiting(e->w.jt, e->w.monitor);
    if (still) ring_put(0, ORCA_EV_MONITOR_CONTENDED_ENTER, ts, e->w.thread, lock, owner, frames, nf, NULL, 0);
    pthread_mutex_lock(&open_mu);
    for (int i = 0; i < nopens; i++) {
      if (opens[i].thread != e->w.thread || (opens[i].state != OPEN_WRITING && opens[i].state != OPEN_LEFT)) continue;
      if (still && opens[i].state == OPEN_LEFT) {
        // Its thread's ClassInitWaited came meanwhile and did not wait for
        // this write (bounded): the enter ends here, 1 ns long.
        ring_put(0, ORCA_EV_MONITOR_CONTENDED_ENTERED, ts + 1, e->w.thread, lock, 0, frames, nf, NULL, 0);
        still = 0;
        open_remove_locked(i);
      } else if (still) {
        opens[i].ts = ts, opens[i].state = OPEN_DONE;
      } else {
        open_remove_locked(i);
      }
      break;
    }
    pthread_mutex_unlock(&open_mu);
    if (still) e->verdict = SEEN_WRITTEN, written_n++;
    else if (e->verdict != SEEN_NOT) e->verdict = SEEN_FIRST;   // its wait ended: looked at again
  next:
    (*env)->DeleteLocalRef(env, ref);
  }
out:
  if (inits)
    for (jint i = 0; i < nt; i++) free(inits[i]);
  free(inits);
  free(jts);
  for (jint i = 0; i < nt; i++) (*env)->DeleteLocalRef(env, all[i]);
  (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
}

// The start of the walker's last round: a thread it saw in its wait then
// left the wait after that time.
static int64_t last_round_ts;

// forget_gone: an enter written for a thread no longer in that wait whose
// ClassInitWaited never came (it left the wait without one: never seen,
// since HotSpot posts MonitorWaited for every wait on an init lock) is ended
// and dropped from the table: left open, it would show the thread blocked
// until the end, a hang or a deadlock that was not. It ends at the last
// round's start (the wait ended after it, and the thread's next events
// come after that end), or 1 ns after the enter. Under open_mu, so that a
// ClassInitWaited of the thread after it finds no entry and writes no
// second end.
static void forget_gone(uint32_t thread) {
  pthread_mutex_lock(&open_mu);
  for (int i = 0; i < nopens; i++)
    if (opens[i].thread == thread) {
      if (opens[i].state == OPEN_DONE) {
        int64_t ts = last_round_ts;
        if (ts <= opens[i].ts) ts = opens[i].ts + 1;
        ring_put(0, ORCA_EV_MONITOR_CONTENDED_ENTERED, ts, thread, opens[i].lock, 0, NULL, 0, NULL, 0);
      }
      open_remove_locked(i);
      break;
    }
  pthread_mutex_unlock(&open_mu);
}

static void cost_print(void) {
  fprintf(stderr, "orca: clinit rounds %lld, %.1f us CPU a round, max %.1f us; %.1f waiting threads read, %.1f int[] checks a round; %lld found (%lld written)\n",
          (long long)round_n, round_n ? round_ns / 1e3 / (double)round_n : 0.0, round_max_ns / 1e3,
          round_n ? scanned_n / (double)round_n : 0.0, round_n ? checked_n / (double)round_n : 0.0, (long long)found_n, (long long)written_n);
}

void clinit_round(JNIEnv *env) {
  if (opt.seed_only || !env || !__atomic_load_n(&int_array, __ATOMIC_ACQUIRE) || !orca_recording()) return;
  int64_t t0 = switches.time_clinit ? cpu_now() : 0, round_ts = clock_now();
  int n = owner_each_waiting(scan, scan_cap);
  if (n > scan_cap) {
    if (!grow((void **)&scan, &scan_cap, n, sizeof *scan)) return;
    n = owner_each_waiting(scan, scan_cap);
    if (n > scan_cap) n = scan_cap;
  }
  if (!grow_seen(n)) return;
  if ((*env)->PushLocalFrame(env, 64) != 0) {
    (*env)->ExceptionClear(env);
    return;
  }
  // The threads in a recorded Object.wait, asked once a round, and only
  // when a wait not seen in the last round needs it (a quiet server's
  // rounds find the same waits each time).
  int nw = -1, m = 0, nready = 0;
  for (int i = 0; i < n; i++) {
    owner_waiting *w = &scan[i];
    seen_t key = {.w = *w}, *old = nseen ? bsearch(&key, seen, (size_t)nseen, sizeof *seen, cmp_seen) : NULL;
    seen_t *e = &seen_next[m++];
    *e = (seen_t){*w, atomic_load(seq_of(w->thread)), SEEN_NEW};
    if (old && vm_same(old->w.jt, w->jt) && old->w.monitor == w->monitor) {
      if (old->verdict == SEEN_NOT || old->verdict == SEEN_WRITTEN) {
        e->verdict = old->verdict;
        continue;
      }
      if (old->verdict == SEEN_INIT || old->verdict == SEEN_FIRST) {
        // No ClassInitWaited of its thread since the last round: ready.
        e->verdict = old->seq == e->seq ? SEEN_INIT : SEEN_FIRST;
        nready += e->verdict == SEEN_INIT;
        continue;
      }
    }
    if (nw < 0) {
      nw = pending_waiting(waiting, waiting_cap);
      if (nw > waiting_cap) {
        nw = grow((void **)&waiting, &waiting_cap, nw, sizeof *waiting) ? pending_waiting(waiting, waiting_cap) : 0;
        if (nw > waiting_cap) nw = waiting_cap;
      }
      qsort(waiting, (size_t)nw, sizeof *waiting, cmp_u32);
    }
    if (nw && bsearch(&w->thread, waiting, (size_t)nw, sizeof *waiting, cmp_u32)) {   // its Object.wait
      e->verdict = SEEN_NOT;
      continue;
    }
    // First seen in this wait: is it an int[]?
    checked_n++;
    jobject ref = hs_monitor_object(env, vm_at(w->monitor));
    e->verdict = ref && is_int_array(env, ref) ? SEEN_FIRST : SEEN_NOT;
    if (ref) (*env)->DeleteLocalRef(env, ref);
  }
  qsort(seen_next, (size_t)m, sizeof *seen_next, cmp_seen);
  // Enters written whose thread is no longer in that wait.
  for (int i = 0; i < nseen; i++) {
    if (seen[i].verdict != SEEN_WRITTEN) continue;
    seen_t *now = m ? bsearch(&seen[i], seen_next, (size_t)m, sizeof *seen_next, cmp_seen) : NULL;
    if (!now || now->verdict != SEEN_WRITTEN) forget_gone(seen[i].w.thread);
  }
  if (nready) {
    found_n += nready;
    seen_t **ready = malloc((size_t)nready * sizeof *ready);
    int r = 0;
    for (int i = 0; ready && i < m; i++)
      if (seen_next[i].verdict == SEEN_INIT) ready[r++] = &seen_next[i];
    if (ready) write_waits(env, ready, r);
    free(ready);
  }
  seen_t *tmp = seen;
  seen = seen_next, seen_next = tmp, nseen = m;
  last_round_ts = round_ts;
  (*env)->PopLocalFrame(env, NULL);
  if (switches.time_clinit) {
    static int registered;
    if (!registered) registered = 1, atexit(cost_print);
    int64_t d = cpu_now() - t0;
    round_ns += d, round_n++, scanned_n += n;
    if (d > round_max_ns) round_max_ns = d;
  }
}


// rounds_reset: a new recording (the walker of the last one has ended).
static void rounds_reset(void) {
  nseen = 0;
  pthread_mutex_lock(&open_mu);
  nopens = 0;
  atomic_store(&opens_any, 0);
  pthread_mutex_unlock(&open_mu);
}
