// HotSpot keeps, for a thread about to block, the monitor in
// JavaThread::_current_pending_monitor, and the monitor's owner in
// ObjectMonitor::_owner. The owner's encoding depends on the JDK: a
// JavaThread* (17, 21), the address of a BasicLock on the owner's stack
// when a stack lock was inflated (17, 21), or the owner's java.lang.Thread
// id (24+). We keep a table of live threads with all three keys.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <pthread.h>
#include <stdatomic.h>
#include "core/counters.h"
#include "core/orca.h"
#include "hotspot/jclass.h"
#include "hotspot/objhash.h"
#include "hotspot/owner.h"
#include "record/tkeys.h"
#include "hotspot/vheld.h"
#include "hotspot/vmstructs.h"
#include "hotspot/vthread.h"

// What this JVM exports (vmstructs.h), known at owner_init; by_tid:
// HS_OWNER_TID, asked once rather than at every enter.
static int can_owner, can_hash, by_tid;
static jfieldID fid_eetop, fid_tid;

typedef struct {
  atomic_uint seq;     // odd while the slot is being written
  atomic_int used;
  vm_ptr jt;       // its JavaThread
  uintptr_t lo, hi;   // its stack
  int64_t jtid;
  uint32_t hash;
  int carrier;   // virtual threads run on it: a match by JavaThread or stack is unknown
} slot_t;

// The table grows by chunks, allocated when a thread finds every slot
// taken and never freed (slots are reused), so readers scan it without a
// lock: a chunk is published before `high` counts its slots. Bounded by
// memory: MAX_CHUNKS chunks of CHUNK slots (48 bytes each, 48 MiB at most;
// Linux's default thread limits are far below a million threads). A thread
// that still finds no slot is counted (.info owner_table_full) and the
// contended monitors it owns have owner 00000000. ORCA_TEST_OWNER_SLOTS=N
// caps the table at N slots for the tests.
#define CHUNK 256
#define MAX_CHUNKS 4096
static _Atomic(slot_t *) chunks[MAX_CHUNKS];
static int max_slots = CHUNK * MAX_CHUNKS;
static atomic_int high;   // slots in use are below this index
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static __thread int my_slot = -1;

// slot returns slot i, which is below high (its chunk is published).
static inline slot_t *slot(int i) {
  return &atomic_load_explicit(&chunks[i / CHUNK], memory_order_acquire)[i % CHUNK];
}

const char *owner_init(void) {
  can_owner = hs_can_owner();
  can_hash = hs_can_monitor_hash();
  by_tid = hs_has(HS_OWNER_TID);
  // JavaThread::_jni_environment is not exported by every JDK; then the
  // offset is learned from the first registered thread (vms_learn_env).
  if (switches.test_owner_slots && switches.test_owner_slots < max_slots) max_slots = switches.test_owner_slots;
  if (!can_owner)
    return "this JVM does not export the monitor structures; contended-monitor owners will be 00000000";
  return NULL;
}

const char *owner_caps(void) {
  if (!can_owner) return "no: ObjectMonitor::_owner or JavaThread::_current_pending_monitor not exported";
  int ls = hs_can_lock_stack();
  if (hs_has(HS_OWNER_TID))
    return ls ? "ObjectMonitor::_owner: thread id; anonymous owners: LockStack" : "ObjectMonitor::_owner: thread id";
  return ls ? "ObjectMonitor::_owner: JavaThread or stack lock; anonymous owners: LockStack"
            : "ObjectMonitor::_owner: JavaThread or stack lock";
}

const char *owner_hash_caps(void) {
  if (!can_hash)
    return "JVMTI GetObjectHashCode (no ObjectMonitor::_header)";
  return "ObjectMonitor::_header";
}

static void fields(JNIEnv *env, jobject thread) {
  if (fid_tid) return;
  jclass c = jclass_of(env, thread, "Ljava/lang/Thread;");
  if (!c) return;
  fid_eetop = (*env)->GetFieldID(env, c, "eetop", "J");
  if (!fid_eetop) (*env)->ExceptionClear(env);
  fid_tid = (*env)->GetFieldID(env, c, "tid", "J");
  if (!fid_tid) (*env)->ExceptionClear(env);
  (*env)->DeleteLocalRef(env, c);
}

static void table_full(void) {
  if (atomic_fetch_add(&orca_counters[CNT_OWNER_TABLE_FULL], 1) == 0) {
    char msg[160];
    snprintf(msg, sizeof msg, "more than %d live threads: the owners of contended monitors held by the others are "
             "00000000 (owner_table_full counts them)", max_slots);
    counters_prop(ORCA_INFO_WARNING, msg);
    orca_log("%s", msg);
  }
}

// add registers jt, in the slot that has it already (an earlier recording's
// registration, or a dead thread's whose JavaThread was reused: events are
// off between recordings, so no ThreadEnd freed it), else in a free one.
static int add(vm_ptr jt, uintptr_t lo, uintptr_t hi, int64_t jtid, uint32_t hash, int carrier) {
  pthread_mutex_lock(&mu);
  int n = atomic_load(&high), i;
  for (i = 0; i < n && !(atomic_load(&slot(i)->used) && vm_same(slot(i)->jt, jt)); i++) {
  }
  if (i == n)
    for (i = 0; i < n && atomic_load(&slot(i)->used); i++) {
    }
  if (i >= max_slots) {
    pthread_mutex_unlock(&mu);
    table_full();
    return -1;
  }
  if (i % CHUNK == 0 && !atomic_load(&chunks[i / CHUNK])) {
    slot_t *c = calloc(CHUNK, sizeof *c);
    if (!c) {
      pthread_mutex_unlock(&mu);
      table_full();
      return -1;
    }
    atomic_store_explicit(&chunks[i / CHUNK], c, memory_order_release);
  }
  slot_t *s = slot(i);
  atomic_fetch_add(&s->seq, 1);
  s->jt = jt; s->lo = lo; s->hi = hi; s->jtid = jtid; s->hash = hash; s->carrier = carrier;
  atomic_store(&s->used, 1);
  atomic_fetch_add(&s->seq, 1);
  if (i == n) atomic_store(&high, n + 1);
  pthread_mutex_unlock(&mu);
  return i;
}

void owner_register_self(JNIEnv *env, jobject thread, uint32_t hash, int carrier) {
  if (!can_owner || my_slot >= 0) return;
  fields(env, thread);
  if (vm_null(vms_thread(env)) && fid_eetop && thread)
    vms_learn_env(env, (uintptr_t)(*env)->GetLongField(env, thread, fid_eetop));
  vm_ptr jt = vms_thread(env);
  if (vm_null(jt)) return;
  pthread_attr_t a;
  void *lo = NULL;
  size_t sz = 0;
  if (pthread_getattr_np(pthread_self(), &a) == 0) {
    pthread_attr_getstack(&a, &lo, &sz);
    pthread_attr_destroy(&a);
  }
  int64_t jtid = fid_tid && thread ? (*env)->GetLongField(env, thread, fid_tid) : -1;
  my_slot = add(jt, (uintptr_t)lo, (uintptr_t)lo + sz, jtid, hash, carrier);
}

void owner_register_other(JNIEnv *env, jobject thread, uint32_t hash, int carrier) {
  if (!can_owner) return;
  fields(env, thread);
  if (!fid_eetop) return;
  vm_ptr jt = vm_at((uintptr_t)(*env)->GetLongField(env, thread, fid_eetop));
  if (vm_null(jt)) return;   // not started, or ended
  int n = atomic_load(&high);
  for (int i = 0; i < n; i++)
    if (atomic_load(&slot(i)->used) && vm_same(slot(i)->jt, jt) && slot(i)->hash == hash) return;   // registered itself
  int64_t jtid = fid_tid ? (*env)->GetLongField(env, thread, fid_tid) : -1;
  uintptr_t lo = 0, hi = 0;
  // A thread alive at VMInit: its JavaThread is live while we read it.
  if (!hs_thread_stack(jt, &lo, &hi)) lo = hi = 0;
  add(jt, lo, hi, jtid, hash, carrier);
}

int owner_each_waiting(owner_waiting *out, int max) {
  if (!can_owner) return 0;
  int n = atomic_load(&high), k = 0;
  for (int i = 0; i < n; i++) {
    slot_t *s = slot(i);
    unsigned q = atomic_load(&s->seq);
    if ((q & 1) || !atomic_load(&s->used) || s->carrier || vm_null(s->jt)) continue;
    vm_ptr jt = s->jt, mon;
    uint32_t h = s->hash;
    // The monitor first: most threads wait on none (a park, a sleep, a
    // thread that runs), one read each.
    if (atomic_load(&s->seq) != q || !hs_waiting_monitor(jt, &mon) || vm_null(mon)) continue;
    if (hs_thread_state_of(jt) != HS_TS_BLOCKED || atomic_load(&s->seq) != q) continue;
    if (k < max) out[k] = (owner_waiting){h, jt, hs_monitor_address(mon)};
    k++;
  }
  return k;
}

int owner_still_waiting(vm_ptr jt, uintptr_t monitor) {
  vm_ptr mon;
  return hs_thread_state_of(jt) == HS_TS_BLOCKED && hs_waiting_monitor(jt, &mon) && hs_monitor_address(mon) == monitor;
}

uint32_t owner_key_of(vm_ptr jt) {
  int n = atomic_load(&high);
  for (int i = 0; i < n; i++) {
    slot_t *s = slot(i);
    unsigned q = atomic_load(&s->seq);
    if ((q & 1) || !atomic_load(&s->used) || s->carrier || !vm_same(s->jt, jt)) continue;
    uint32_t h = s->hash;
    if (atomic_load(&s->seq) == q) return h;
  }
  return 0;
}

vm_ptr owner_jt_of(JNIEnv *env, jobject thread) {
  fields(env, thread);
  return fid_eetop ? vm_at((uintptr_t)(*env)->GetLongField(env, thread, fid_eetop)) : vm_at(0);
}

int owner_thread_tid(JNIEnv *env, jobject thread) {
  fields(env, thread);
  if (!fid_eetop) return 0;
  return hs_thread_tid(vm_at((uintptr_t)(*env)->GetLongField(env, thread, fid_eetop)));
}

void owner_unregister_self(JNIEnv *env) {
  vm_ptr jt = vms_thread(env);
  if (my_slot < 0 && !vm_null(jt)) {
    // Registered by another thread at VMInit: find the slot by JavaThread.
    int n = atomic_load(&high);
    for (int i = 0; i < n; i++)
      if (atomic_load(&slot(i)->used) && vm_same(slot(i)->jt, jt)) my_slot = i;
  }
  if (my_slot < 0) return;
  slot_t *s = slot(my_slot);
  pthread_mutex_lock(&mu);
  atomic_fetch_add(&s->seq, 1);
  atomic_store(&s->used, 0);
  s->jt = vm_at(0);
  s->lo = s->hi = 0;
  s->jtid = -1;
  atomic_fetch_add(&s->seq, 1);
  pthread_mutex_unlock(&mu);
  my_slot = -1;
}

// why_to: where unknown and unlocking note what they would count
// (owner_of_pending_why), NULL to count it.
static __thread int *why_to;

// unlocking counts an owner named as the thread inside a fast unlock or
// lock (.info owner_unlocking).
static void unlocking(void) {
  if (why_to) *why_to = CNT_OWNER_UNLOCKING;
  else counter_add(CNT_OWNER_UNLOCKING, 1);
}

// carrier_owner: the owner a carrier's lock stack, JavaThread or stack
// stands for: the virtual thread it runs, by the identity hash in its
// header (hashed at its start), or the carrier itself when it runs none; 0
// when unknown. vt0 is what it ran when the caller began to look (-1:
// unknown), e the object epoch then: a carrier that switched threads
// meanwhile, or a collection, gives 0.
static uint32_t carrier_owner(const slot_t *s, intptr_t vt0, unsigned long e) {
  if ((e & 1) || vt0 < 0 || hs_mounted_virtual(s->jt) != vt0) return 0;
  if (!vt0) return s->hash;
  uint32_t h = 0;
  // Its key by the hash alone (record/tkeys.h): when two threads of the
  // recording had that hash, the header does not say which (0: unknown).
  return hs_object_hash(vm_at((uintptr_t)vt0), &h) && objhash_epoch() == e ? tkey_named(h) : 0;
}

// on_lock_stack returns the hash of the live thread whose lock stack holds
// obj: with lightweight locking (default on 23+) a contender that inflates
// a fast-locked object leaves the owner "anonymous" until the owner exits.
// A carrier's lock stack holds the locks of the virtual thread it runs.
// e0: the object epoch when obj was read; mon: its monitor, whose owner
// was read anonymous.
static uint32_t on_lock_stack(uintptr_t obj, unsigned long e0, vm_ptr mon) {
  if (!hs_can_lock_stack() || !obj) return 0;
  enum { MAXE = 16 };
  int n = atomic_load(&high);
  for (int i = 0; i < n; i++) {
    slot_t *s = slot(i);
    unsigned q = atomic_load(&s->seq);
    if ((q & 1) || !atomic_load(&s->used) || vm_null(s->jt)) continue;
    unsigned long e = s->carrier ? objhash_epoch() : 0;
    intptr_t vt0 = s->carrier ? hs_mounted_virtual(s->jt) : 0;
    uintptr_t objs[MAXE];
    int count = hs_lock_stack(s->jt, objs, MAXE);
    for (int k = 0; k < count; k++) {
      if (objs[k] != obj || atomic_load(&s->seq) != q) continue;
      return s->carrier ? carrier_owner(s, vt0, e) : s->hash;
    }
  }
  // On no thread's lock stack: a virtual thread's that blocked holding it.
  uint32_t vh = vheld_owner(obj, e0);
  if (vh) return vh;
  // Else the holder is inside a fast unlock, between its pop and its CAS of
  // the header (which fails: the contender put the monitor there, so it
  // pushes the object back and exits through the runtime), or inside a
  // fast lock, between its CAS and its push (compiled code, the
  // interpreter's, or the runtime's after a contended attempt). So it runs
  // Java code or the VM's, and the entry just above its top is the object
  // after a pop (HotSpot clears it in debug builds only), or the last
  // object it pushed at that depth. One running thread with the object
  // there is the holder; two (another held it last at that depth) leave it
  // unknown. None: the only thread running but the caller (the contender is
  // in native code, in its callback; so is the writer) is the holder,
  // provided the owner is still anonymous after the look (the holder has
  // not left its window meanwhile). A carrier's entries may be a virtual
  // thread's that unmounted since: it names no one, and makes a second
  // running thread.
  // Only while the table has every thread: a holder left out of it (the
  // table full, owner_table_full) would leave another thread the only one
  // running, or the one with a stale entry, and a wrong owner is worse
  // than none (TestManyOwners "full" on JDK 25 named one).
  if (atomic_load(&orca_counters[CNT_OWNER_TABLE_FULL]) != 0) return 0;
  // Nor once a virtual thread ran: on 24+ one that holds the monitor may be
  // unmounted (blocked, waiting, parked with its monitors in its frames),
  // running nowhere, and vheld knows only those that blocked in a hook it
  // sees; the only thread running (main, in VirtualStress) is then not the
  // holder (make stress, TestVirtualStress on 25, named main).
  if (atomic_load_explicit(&vthread_tids, memory_order_acquire)) return 0;
  uint32_t found = 0, alone = 0;
  int hits = 0, running = 0;
  for (int i = 0; i < n; i++) {
    slot_t *s = slot(i);
    unsigned q = atomic_load(&s->seq);
    if ((q & 1) || !atomic_load(&s->used) || vm_null(s->jt) || !hs_thread_running(s->jt)) continue;
    running++;
    alone = 0;
    uintptr_t o = 0;
    if (s->carrier) continue;
    int hit = hs_lock_stack_popped(s->jt, &o) && o == obj;
    if (atomic_load(&s->seq) != q) continue;
    alone = s->hash;
    if (hit) hits++, found = s->hash;
  }
  uintptr_t own = 0;
  if (hits == 1) {
    unlocking();
    return found;
  }
  if (!hits && running == 1 && alone && !vm_null(mon) && hs_monitor_owner(mon, &own) && own == 1) {
    unlocking();
    return alone;
  }
  return 0;
}

// hash_of_held returns the identity hash of the object at oop, a monitor
// the calling thread holds, computed now (JVMTI: its only way to an
// object is a reference): the contender that inflated it has not hashed it
// yet. 0 when not found.
static uint32_t hash_of_held(JNIEnv *env, uintptr_t oop) {
  jint n = 0;
  jobject *ms = NULL;
  uint32_t h = 0;
  jvmtiError err = (*jvmti)->GetOwnedMonitorInfo(jvmti, NULL, &n, &ms);
  if (err != JVMTI_ERROR_NONE) {
    if (err == JVMTI_ERROR_MUST_POSSESS_CAPABILITY) counter_add(CNT_ATTACHED_MISSED, 1);   // attached (entry.c)
    return 0;
  }
  for (jint i = 0; i < n; i++) {
    jint x = 0;
    if (!h && hs_handle_oop_now(ms[i]) == oop && (*jvmti)->GetObjectHashCode(jvmti, ms[i], &x) == JVMTI_ERROR_NONE)
      h = (uint32_t)x;
    (*env)->DeleteLocalRef(env, ms[i]);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)ms);
  return h;
}

int owner_held_contended(JNIEnv *env, uint32_t *out, int max) {
  enum { MAXE = 16 };
  vm_ptr jt = hs_can_lock_stack() ? vms_thread(env) : vm_at(0);
  unsigned long e = objhash_epoch();
  if (vm_null(jt) || (e & 1)) return 0;
  uintptr_t objs[MAXE];
  int count = hs_own_lock_stack(jt, objs, MAXE), n = 0;
  for (int k = 0; k < count && n < max; k++) {
    uint32_t h = 0;
    // On its own lock stack and inflated: by another thread, which left
    // the owner anonymous (the owner's own inflation takes it off the stack).
    vm_ptr o = vm_at(objs[k]);
    if (hs_object_inflated(o) && (hs_object_hash(o, &h) || (h = hash_of_held(env, objs[k])))) {
      int seen = 0;
      for (int i = 0; i < n; i++) seen |= out[i] == h;
      if (!seen) out[n++] = h;
    }
  }
  return objhash_epoch() == e ? n : 0;
}

// unknown counts why an owner is unknown (.info owner_unknown.*; the total,
// owner_unknown, is monitor.c's) and returns 0.
static uint32_t unknown(int why) {
  if (why_to) *why_to = why;
  else counter_add(why, 1);
  return 0;
}

// owner_of_word returns the hash of the thread that the monitor owner word
// own names, or 0 (counted).
static uint32_t owner_of_word(uintptr_t own) {
  if (own == 0) return unknown(CNT_OWNER_RELEASED);
  if (own <= 2) return unknown(CNT_OWNER_UNREADABLE);   // anonymous without the object, or the deflater's marker
  // 24+: a virtual thread's id (vthread.h keeps the live ones).
  uint32_t vh = by_tid ? vthread_by_tid((int64_t)own) : 0;
  if (vh) return vh;
  int n = atomic_load(&high);
  for (int pass = 0; pass < 3; pass++) {
    for (int i = 0; i < n; i++) {
      slot_t *s = slot(i);
      unsigned q = atomic_load(&s->seq);
      if ((q & 1) || !atomic_load(&s->used)) continue;
      int hit = pass == 0 ? vm_names(s->jt, own)
              : pass == 1 ? s->jtid == (int64_t)own
                          : (own >= s->lo && own < s->hi);
      if (!hit || atomic_load(&s->seq) != q) continue;
      // A carrier's JavaThread or stack stands for the virtual thread it
      // runs (JDK 21: pinned while it owns a monitor); 24+ names owners by
      // thread id, exact.
      if (!s->carrier || pass == 1) return s->hash;
      unsigned long e = objhash_epoch();
      uint32_t h = carrier_owner(s, hs_mounted_virtual(s->jt), e);
      return h ? h : unknown(CNT_OWNER_NOT_IN_TABLE);
    }
  }
  return unknown(CNT_OWNER_NOT_IN_TABLE);
}

uint32_t owner_of_pending(JNIEnv *env, jobject obj) {
  vm_ptr self = vms_thread(env), mon;
  if (vm_null(self) || !can_owner) return unknown(CNT_OWNER_UNREADABLE);
  uintptr_t own = 0;
  // The monitor cannot be deflated while we are counted as contending it.
  if (!hs_pending_monitor(self, &mon) || vm_null(mon) || !hs_monitor_owner(mon, &own))
    return unknown(CNT_OWNER_UNREADABLE);
  if (own == 1 && obj) {
    // Anonymous owner (lightweight locking). A JNI local reference points
    // at the object's oop slot.
    uintptr_t oop = 0;
    unsigned long e0 = objhash_epoch();
    if (!hs_handle_oop(obj, &oop)) return unknown(CNT_OWNER_UNREADABLE);
    uint32_t h = on_lock_stack(oop, e0, mon);
    return h ? h : unknown(CNT_OWNER_ANONYMOUS);
  }
  return owner_of_word(own);
}

int owner_blocked_on(JNIEnv *env, jobject thread, int waiting, uint32_t *obj, uint32_t *owner, uintptr_t *monitor,
                     jobject *ref) {
  *obj = *owner = 0;
  *monitor = 0;
  *ref = NULL;
  if (!can_owner) return 0;
  fields(env, thread);
  if (!fid_eetop) return 0;
  vm_ptr jt = vm_at((uintptr_t)(*env)->GetLongField(env, thread, fid_eetop)), mon;
  if (vm_null(jt) || !(waiting ? hs_waiting_monitor(jt, &mon) : hs_pending_monitor(jt, &mon)) || vm_null(mon)) return 0;
  *monitor = hs_monitor_address(mon);
  if (can_hash) hs_monitor_hash(mon, obj);
  *ref = hs_monitor_object(env, mon);
  uintptr_t own = 0, oop = 0;
  if (waiting || !hs_monitor_owner(mon, &own)) return 1;
  if (own == 1) {   // anonymous (lightweight locking): on its owner's lock stack
    unsigned long e0 = objhash_epoch();
    uint32_t h = *ref && hs_handle_oop(*ref, &oop) ? on_lock_stack(oop, e0, mon) : 0;
    *owner = h ? h : unknown(CNT_OWNER_ANONYMOUS);
  } else {
    *owner = owner_of_word(own);
  }
  return 1;
}

uint32_t owner_of_pending_why(JNIEnv *env, jobject obj, int *why) {
  *why = 0;
  why_to = why;
  uint32_t h = owner_of_pending(env, obj);
  why_to = NULL;
  return h;
}

uint32_t owner_pending_hash(JNIEnv *env) {
  vm_ptr self = vms_thread(env), mon;
  if (vm_null(self) || !can_hash) return 0;
  uint32_t hash = 0;
  if (!hs_pending_monitor(self, &mon) || vm_null(mon) || !hs_monitor_hash(mon, &hash)) return 0;
  return hash;
}

int owner_pending_free(JNIEnv *env) {
  vm_ptr self = vms_thread(env), mon;
  uintptr_t own = 1;
  // The monitor cannot be deflated while we are counted as contending it.
  return can_owner && !vm_null(self) && hs_pending_monitor(self, &mon) && !vm_null(mon) && hs_monitor_owner(mon, &own) &&
         own == 0;
}
