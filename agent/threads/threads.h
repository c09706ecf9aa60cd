// Per-thread state of the agent (allocated once per thread, found through C
// thread-local storage) and the thread life-cycle events.
#ifndef ORCA_THREADS_H
#define ORCA_THREADS_H
#include <jvmti.h>
#include <stdatomic.h>
#include "core/clock.h"
#include "core/orca.h"
#include "threads/attached.h"
#include "threads/pending.h"
#include "hotspot/vheld.h"
#include "record/ring.h"

// A thread's state is composed of the parts of the modules that keep
// per-thread state, each declared in its module's header: pending.h's
// deferred records (which the writer and the walker read, through pending's
// registry), and inject.h's join and semaphore depths and saved stacks
// (made at the thread's first join or acquire; only a pointer here, so this
// header needs nothing of inject's). threads.c only creates, registers and
// frees it.
struct inject_tstate;
struct juc_tstate;
struct vpark_tstate;
typedef struct tstate {
  uint32_t hash;        // the thread's key (thread_key): the identity hash of its
                        // java.lang.Thread, but for a collision
  int shard;            // event ring shard
  int may_host_virtual; // a carrier (or virtual): each event checks vthread_is
  int ended;            // made after the thread's ThreadEnd: HotSpot's own enter of its
                        // Thread object (ensure_join); not timed (monitor.c)
  int is_virtual;       // a virtual thread's state (vthread.h): runs on any carrier,
                        // so nothing of the carrier's JavaThread is read for it
  uint32_t carrier;     // a virtual thread's: the carrier of its last VirtualThreadMounted
  int gen;              // a virtual thread's: the recording (threads_new_recording) its ThreadStarted is in
  pending_tstate pending;         // deferred records (pending.h)
  struct inject_tstate *inject;   // joins and semaphores (inject.h), NULL before the first
  struct juc_tstate *juc;         // the j.u.c. locks held (hooks/juc.c, lockorder=yes), NULL before the first
  int join_depth;       // >0 inside Thread.join (inject.c): its waits are the join's, not recorded (monitor.c)
  int join_wait;        // 1 while the wait native runs Thread.join's wait, seen as the join (inject_join_wait)
  struct vpark_tstate *vpark;     // a virtual thread's open park or sleep (vpark.h), NULL before the first
  uint32_t owned[4];    // a virtual thread's MonitorOwned lines of its last resume (thread_resumed)
  int owned_n;
  vheld_list held;      // a virtual thread's fast locks as it blocked (vheld.h)
} tstate;

// thread_key returns the key (record/tkeys.h) of the java.lang.Thread t
// whose identity hash is h: h, unless two threads of the recording had h;
// then, by t's Thread.tid, the key it was registered with (registered now
// when it was not). One load while no two threads shared a hash. 0 for no
// thread. thread_key_new: t is seen for the first time (its start, its own
// first event, the attach's list): registered, its key returned.
uint32_t thread_key(JNIEnv *env, jobject t, uint32_t h);
uint32_t thread_key_new(JNIEnv *env, jobject t, uint32_t h);

// thread_self returns the calling thread's state, creating it on first use;
// NULL on the agent's own threads. t may be NULL (then the current thread
// is asked from JVMTI).
tstate *thread_self(jthread t);

// thread_of returns the calling thread's state for an event of kind, or
// NULL on an agent thread. On a virtual thread it is the virtual thread's
// state (made at its first event, held in its JVMTI thread-local storage,
// freed at its end), and a VirtualThreadMounted line is written when it
// runs on another carrier than at its last; NULL (the event counted as
// unattributed: vthread.h) when it cannot have one. t is the current thread
// or NULL.
tstate *thread_of(JNIEnv *env, jthread t, int kind);
// thread_virtual: s is the calling thread's state and it runs a virtual
// thread now (t as above).
int thread_virtual(JNIEnv *env, tstate *s, jthread t);
// thread_of_virtual returns the state of the virtual thread vt (mounted on
// the calling thread, whose state is carrier or NULL), as thread_of.
tstate *thread_of_virtual(JNIEnv *env, jthread vt, tstate *carrier, int kind);
// thread_carrier returns the calling OS thread's own state (a carrier's,
// never a virtual thread's), NULL when it has none yet.
tstate *thread_carrier(void);
// threads_new_recording: a new recording begins in this JVM (an attach
// after an earlier recording): every thread gets its ThreadStarted again
// (threads_existing for those alive, a virtual thread at its next event).
void threads_new_recording(void);
// threads_recording: the number of the current recording in this JVM (1, 2, ...).
int threads_recording(void);
// threads_virtual_init has virtual threads' start and end recorded (vthread.h).
void threads_virtual_init(void);

// thread_blocking and thread_resumed do nothing for a platform thread's
// state (or NULL).
// thread_blocking: the virtual thread v is about to block (a park, sleep,
// monitor enter or wait): its fast locks are noted for contenders
// (vheld.h), until thread_resumed. 24+ only, as thread_resumed.
void thread_blocking(JNIEnv *env, tstate *v);

// thread_resumed: the virtual thread v runs again after it blocked (a park,
// sleep, monitor enter or wait ended). Monitors it held fast-locked that a
// contender inflated meanwhile, naming no owner (owner.h), get a
// MonitorOwned line, once while they stay so. Costs a read of its lock
// stack; nothing when it is empty.
void thread_resumed(JNIEnv *env, tstate *v);

// emit writes an event of the calling thread with a timestamp taken now.
void emit(tstate *self, int kind, uint32_t object, uint32_t owner, const orca_frame *fr, int n);

void JNICALL threads_on_start(jvmtiEnv *j, JNIEnv *env, jthread t);
void JNICALL threads_on_end(jvmtiEnv *j, JNIEnv *env, jthread t);
// threads_existing writes ThreadStarted for threads that started before
// the agent could see them (called at VMInit).
// Returns how many it wrote. threads_existing_at: at time ts (an attach).
int threads_existing(JNIEnv *env);
int threads_existing_at(JNIEnv *env, int64_t ts);
// threads_virtual_existing_at writes, at ts (an attach), the ThreadStarted
// of vt, a virtual thread alive, mounted or not (JVMTI lists only platform
// threads: the jvm module finds virtual threads with vthread_each), once a
// recording; returns its hash and sets *shard and *state (its JVMTI
// state: asked when *state is 0 on the call, else the caller read it), or
// 0 when vt is not alive, or had it.
uint32_t threads_virtual_existing_at(JNIEnv *env, jthread vt, int64_t ts, int *shard, jint *state);
// threads_virtual_listed_free forgets the virtual threads a snapshot
// listed (opt.snapshot: kept in a set, not in their thread-local storage).
void threads_virtual_listed_free(void);

// The one way into the agent's event path (docs/agent.md, "One way into the
// event path"). Every event source — the JVMTI callbacks (monitor.c), the
// wrappers of natives (natives.c, park.c), the hooks injected into classes
// (vpark.c, inject.c) — begins with event_begin, which does, in this order
// and only what the flags ask:
//   1. the recording check (no event while none records);
//   2. the clock, when the event's instant is the callback's own (read
//      before anything else: EV_FIRST, EV_PAIR, EV_TICKS);
//   3. the thread: its state (thread_of), the calling OS thread's own
//      (EV_PLATFORM) or a virtual thread's given (EV_VIRTUAL);
//   4. the clock read after it (EV_NOW), and the recording the event
//      begins in, for its end (EV_PAIRED);
//   5. what an attach saw the thread doing (threads/attached.h), over now:
//      EV_RUNS, EV_OWN, EV_ENDS;
//   6. its last contended enter's deferred Entered, written before any
//      other event of its own, with a time before e.ts when read (EV_OWN:
//      pending_own_event).
// An event with an end (a park, a sleep) closes with event_end, which
// checks that the end belongs to the recording the begin was in.
// Inline: a contended enter and a park pay the loads they paid before (the
// recording, the thread's state, one load of attached_any); its part for
// an attach's open state (threads.c) runs only while one is open.
//
// The signal handler's samples (issue 33) do not come this way: a
// handler may not lock, allocate or call JNI or JVMTI, and thread_of does
// all three at a thread's first event. Their path is beside this one
// (threads/samples.h; docs/agent.md, "The sample path").
enum {
  EV_NOW = 1,         // e.ts: the clock, read once the thread is found
  EV_FIRST = 2,       // e.ts: the clock, read first (the callback's instant)
  EV_PAIR = 4,        // e.ts and e.ticks: one instant in both clocks (clock_pair), read first
  EV_TICKS = 8,       // e.ticks alone (clock_ticks), read first
  EV_OWN = 16,        // an event of the thread's own (not a contended enter's): what it
                      // did at an attach is over (its carrier's too), and its last enter's
                      // deferred Entered is written before it
  EV_RUNS = 32,       // the thread runs (a contended enter, an Entered): what it and its
                      // carrier did at an attach is over; the Entered is not touched
  EV_ENDS = 64,       // the event ends the state the attach may have seen the thread in (an
                      // Entered its enter, a MonitorWaited its wait): when it ends that one,
                      // it is all (the thread resumes, event_begin returns NULL); else EV_RUNS
                      // applies, 1 ns before now
  EV_PLATFORM = 128,  // the calling OS thread's own state, never a virtual thread's: on a
                      // virtual thread event_begin returns NULL, e.virt 1, e.s the carrier's
  EV_VIRTUAL = 256,   // t is the virtual thread mounted on the caller: its state
  EV_PAIRED = 512,    // the event has an end (event_end): e.rec, the recording it begins in
  EV_ALWAYS = 1024,   // found whether a recording is on or not (a hook that counts its
                      // depth across recordings: inject.c)
};

typedef struct event {
  tstate *s;        // the thread the event is of (NULL: no event)
  int64_t ts;       // EV_NOW, EV_FIRST, EV_PAIR: its time; event_end: the end's
  int64_t ticks;    // EV_PAIR, EV_TICKS
  int rec;          // EV_PAIRED: the recording it began in (a pair whose two ends are two
                    // calls keeps it between them: vpark.c)
  int virt;         // EV_PLATFORM: it ran on a virtual thread
} event;

// event_settle_attached is event_begin's part for a state of an attach
// still open (threads.c).
int event_settle_attached(event *e, JNIEnv *env, int kind, int flags);

// event_begin begins an event of kind on the calling thread (t: the current
// thread or NULL; with EV_VIRTUAL the virtual thread mounted on it) and
// returns the thread's state, NULL when there is no event to write (no
// recording, an agent thread, an unattributed virtual thread, EV_PLATFORM on
// a virtual thread, EV_ENDS that ended the attach's state).
static inline tstate *event_begin(event *e, JNIEnv *env, jthread t, int kind, int flags) {
  *e = (event){0};
  if (!(flags & EV_ALWAYS) && !orca_recording()) return NULL;
  if (flags & EV_PAIR) clock_pair(&e->ts, &e->ticks);
  else if (flags & EV_FIRST) e->ts = clock_now();
  else if (flags & EV_TICKS) e->ticks = clock_ticks();
  tstate *s;
  if (flags & EV_VIRTUAL) {
    s = thread_of_virtual(env, t, thread_carrier(), kind);
  } else if (flags & EV_PLATFORM) {
    s = thread_self(t);
    if (s && thread_virtual(env, s, t)) {
      e->s = s;
      e->virt = 1;
      return NULL;
    }
  } else {
    s = thread_of(env, t, kind);
  }
  if (!s) return NULL;
  e->s = s;
  if (flags & EV_NOW) e->ts = clock_now();
  if (flags & EV_PAIRED) e->rec = threads_recording();
  if ((flags & (EV_OWN | EV_RUNS | EV_ENDS)) && atomic_load_explicit(&attached_any, memory_order_acquire) &&
      event_settle_attached(e, env, kind, flags))
    return NULL;
  if (flags & EV_OWN) pending_own_event(&s->pending, e->ts);
  return s;
}

// event_end: the end of an event begun with EV_PAIRED belongs to the same
// recording (none began since: an attach after a stop ends what was open
// at it itself, threads/attached.h); then e.ts is its time, now.
static inline int event_end(event *e) {
  if (!orca_recording() || threads_recording() != e->rec) return 0;
  e->ts = clock_now();
  return 1;
}
#endif
