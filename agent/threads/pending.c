#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/counters.h"
#include "core/arch.h"
#include "core/clock.h"
#include "hotspot/hsstat.h"
#include "stacks/methods.h"
#include "stacks/objclass.h"
#include "hotspot/objhash.h"
#include "hotspot/jclass.h"
#include "threads/pending.h"
#include "threads/waitobj.h"

#define ACQ memory_order_acquire
#define REL memory_order_release
#define RLX memory_order_relaxed

// The registry of every thread's part (pending_attach): the writer and the
// walker visit it under its mutex; a part leaves it at its thread's end.
static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static pending_tstate *registry;

static void each(void (*fn)(pending_tstate *, void *), void *arg) {
  pthread_mutex_lock(&registry_mu);
  for (pending_tstate *s = registry; s; s = s->next) fn(s, arg);
  pthread_mutex_unlock(&registry_mu);
}

static void unlink_locked(pending_tstate *s) {
  if (s->prev) s->prev->next = s->next;
  else registry = s->next;
  if (s->next) s->next->prev = s->prev;
  s->prev = s->next = NULL;
}

void pending_attach(pending_tstate *s, uint32_t hash, int shard) {
  s->hash = hash;
  s->shard = shard;
  pthread_mutex_lock(&registry_mu);
  s->prev = NULL;
  s->next = registry;
  if (registry) registry->prev = s;
  registry = s;
  pthread_mutex_unlock(&registry_mu);
}

// forget_recording: what s deferred belongs to a recording that ended (its
// final flush wrote it); a new one begins (an attach): an enter or a wait
// still on gets its end from the attach's state (hooks/attached.c), not
// from here. No callback runs between two recordings (events off).
static void forget_recording(pending_tstate *s, void *arg) {
  (void)arg;
  int st = atomic_load_explicit(&s->wait_state, ACQ);
  if (st == SLOT_PENDING || st == SLOT_WRITTEN) atomic_store_explicit(&s->wait_state, SLOT_EMPTY, REL);
  st = atomic_load_explicit(&s->entered_state, ACQ);
  if (st == SLOT_PENDING || st == SLOT_TIMED) atomic_store_explicit(&s->entered_state, SLOT_EMPTY, REL);
  s->enter_obj = 0;
  s->enter_dropped = s->wait_dropped = 0;
  atomic_store_explicit(&s->wait_left, 0, RLX);
  // A request the last recording's held thread left (it drained its queue).
  if (atomic_load_explicit(&s->held_state, ACQ) == HELD_CANCELLED) atomic_store_explicit(&s->held_state, HELD_EMPTY, REL);
  // An enter still awaiting its Entered callback when the last one stopped
  // (events off): no "lost" Entered of no object at its next settle.
  if (s->needs_entered) pending_entered_done(s);
}

void pending_new_recording(void) { each(forget_recording, NULL); }

static void (*entered_done_fn)(void);

void pending_on_entered_done(void (*fn)(void)) { entered_done_fn = fn; }

void pending_entered_done(pending_tstate *s) {
  s->needs_entered = 0;
  if (entered_done_fn) entered_done_fn();
}

static int claim(_Atomic int *state, int from, int to) {
  return atomic_compare_exchange_strong_explicit(state, &from, to, memory_order_acq_rel, RLX);
}

// await waits while *state is `held` (the writer or the walker writes the
// record: a copy, one timer read, one stack walk), at most PENDING_SPINS
// pauses then PENDING_YIELDS yields, and returns the state it left; `held`
// when the bound was hit (counted: the caller hands the record over).
// SLOT_NAMING is always waited for (docs/agent.md, "Bounded waits"): the
// walker reads the wait native's argument, which must outlive the read.
static int await(_Atomic int *state, int held) {
  int st;
  for (int i = 0;; i++) {
    st = atomic_load_explicit(state, ACQ);
    if (st != held && st != SLOT_NAMING) return st;
    if (i < PENDING_SPINS) {
      arch_pause();
    } else if (i < PENDING_SPINS + PENDING_YIELDS || st == SLOT_NAMING) {
      sched_yield();
    } else {
      counter_add(CNT_BOUNDED_WAITS, 1);
      return st;
    }
  }
}

static void put_entered_at(pending_tstate *s, int64_t ts) {
  ring_put(s->shard, ORCA_EV_MONITOR_CONTENDED_ENTERED, ts, s->hash, s->enter_obj, 0, s->enter_frames, s->enter_n, NULL, 0);
  s->enter_obj = 0;
}

// entered_ns returns the time of the Entered noted in ticks: interpolated
// between its Enter's instant and one read now, in both clocks, not
// extrapolated from the Enter at the counter's rate: over a contention of
// seconds the rate's error (10⁻⁷ is 330 ns over 3.3 s) exceeded the
// microsecond between an Entered and its thread's next event, and three
// virtual threads' Entered came after their next Enter (issue 33,
// TestVirtualStress on 25, -Xcomp).
static int64_t entered_ns(pending_tstate *s) {
  int64_t ns, ticks;
  clock_pair(&ns, &ticks);
  return clock_ticks_between(atomic_load_explicit(&s->entered_ticks, RLX), s->enter_ns, s->enter_ticks, ns, ticks);
}

// before_event: an Entered the thread writes at its event of time at (0:
// its time is read after this) comes before that event, whatever the
// conversion or HotSpot's timer said, and not before its Enter.
static int64_t before_event(pending_tstate *s, int64_t ns, int64_t at) {
  if (at && ns >= at) ns = at - 1;
  return ns < s->enter_ns ? s->enter_ns : ns;
}

// timed_ns returns the Entered time of an Enter HotSpot timed, once it has
// ended: from the timer, or, if the timer was reset meanwhile
// (ThreadMXBean), the time it is found ended (counted).
static int64_t timed_ns(pending_tstate *s, int r, int64_t ns) {
  int64_t now = clock_now();
  if (r != 1) {
    counter_add(CNT_ENTERED_LATE, 1);
    return now;
  }
  return ns < s->enter_ns ? s->enter_ns : ns > now ? now : ns;
}

// class_needed: the class of the waited object of hash h is not written
// yet and may be named from the wait native's argument (waitobj.h).
static int class_needed(uint32_t h) { return waitobj_class_safe() && !objclass_known(h); }

static void put_wait(pending_tstate *s) {
  int64_t ts = atomic_load_explicit(&s->wait_ts, RLX);
  if (s->wait_ms && !opt.seed_only) {
    // A timed wait (wait(ms)): its timeout, in nanoseconds, on a line of its own
    // (the manual's ObjectWait has no field for it).
    // wait(Long.MAX_VALUE), a JDK idiom for "for ever", overflows in
    // nanoseconds: the largest value instead.
    char t[24];
    long long ns = s->wait_ms > INT64_MAX / 1000000 ? INT64_MAX : (long long)s->wait_ms * 1000000;
    int tl = snprintf(t, sizeof t, "%lld", ns);
    ring_put(s->shard, ORCA_EV_OBJECT_WAIT_TIMEOUT, ts, s->hash, 0, 0, NULL, 0, t, tl);
  }
  ring_put(s->shard, ORCA_EV_OBJECT_WAIT, ts, s->hash, s->wait_obj, 0,
           s->wait_frames, s->wait_n, NULL, 0);
}

static void put_waited(pending_tstate *s, int64_t ts) {
  ring_put(s->shard, ORCA_EV_OBJECT_WAITED, ts, s->hash, s->wait_obj, 0, s->wait_frames, s->wait_n, NULL, 0);
}

// wait_done ends the writer's or the walker's hold on a wait whose Wait it
// wrote: SLOT_WRITTEN, or, when its thread handed it over meanwhile
// (SLOT_HANDED), the Waited too (at waited_ts; none when 0: the wait never
// waited), and the slot is free again.
static void wait_done(pending_tstate *s) {
  if (claim(&s->wait_state, SLOT_BUSY, SLOT_WRITTEN)) return;
  int64_t ts = atomic_load_explicit(&s->waited_ts, RLX);
  if (ts) put_waited(s, ts);
  atomic_store_explicit(&s->wait_state, SLOT_EMPTY, REL);
}

void pending_enter(pending_tstate *s, int timed) {
  s->enter_dropped = 0;
  atomic_store_explicit(&s->entered_by_timer, 0, RLX);
  if (timed) atomic_store_explicit(&s->entered_state, SLOT_TIMED, REL);
}

void pending_entered(pending_tstate *s, JNIEnv *env, int64_t ticks, jobject o) {
  if (s->enter_dropped) return;   // its Enter was dropped, and counted with its Entered
  for (;;) {
    int st = atomic_load_explicit(&s->entered_state, ACQ);
    if (st == SLOT_BUSY) {   // the writer looks at the timer
      // Past the bound the writer writes it from the timer (this enter has
      // ended, so it finds it ended), or the thread at its next settle.
      if (await(&s->entered_state, SLOT_BUSY) == SLOT_BUSY) return;
      continue;
    }
    if (st == SLOT_TIMED) {   // the timer is being checked, or was just turned off
      hsstat_check(&s->enter_hs, clock_ticks_ns(ticks, s->enter_ns, s->enter_ticks));
      atomic_store_explicit(&s->entered_ticks, ticks, RLX);
      if (claim(&s->entered_state, SLOT_TIMED, SLOT_PENDING)) return;
      continue;
    }
    if (st != SLOT_EMPTY || atomic_load_explicit(&s->entered_by_timer, ACQ)) return;
    break;
  }
  if (!s->enter_obj) {
    // Its Enter came before the events were on (the agent started, or an
    // attach's snapshot saw the thread in another state, while it blocked):
    // its Enter is written now, just before its Entered, the owner unknown
    // (owner_unknown.before_events): when it began is not known, and an
    // Enter is never back-dated (the writer has passed that time). Its
    // stack is taken here, on the thread, still at the enter it blocked in
    // (issue 31, item 5: such a contention was "(no stack)"); only these
    // rare enters pay for it in the Entered callback. The pair stays a pair. Reached only when no Enter of this
    // thread is pending or being written (the state is free and the timer
    // wrote no Entered), so a callback that comes after the writer wrote
    // the Entered from HotSpot's timer adds nothing.
    s->enter_obj = objhash_of(o);
    s->enter_n = stack_capture(NULL, 0, s->enter_frames, opt.depth);
    clock_pair(&s->enter_ns, &s->enter_ticks);
    ticks = s->enter_ticks;
    objclass_write(env, s->shard, s->hash, s->enter_ns - 1, o, s->enter_obj);
    ring_put(s->shard, ORCA_EV_MONITOR_CONTENDED_ENTER, s->enter_ns - 1, s->hash, s->enter_obj, 0, s->enter_frames, s->enter_n,
             NULL, 0);
    counter_add(CNT_OWNER_UNKNOWN, 1);
    counter_add(CNT_OWNER_BEFORE_EVENTS, 1);
  }
  atomic_store_explicit(&s->entered_ticks, ticks, RLX);
  atomic_store_explicit(&s->entered_state, SLOT_PENDING, REL);
}

// settle_entered: the thread writes its own deferred Entered (it runs, so
// the enter has ended), before its event of time at (before_event). 1 when
// the slot is free after it, 0 when the writer still holds it past the
// bound (the writer then writes it).
static int settle_entered(pending_tstate *s, int64_t at) {
  if (s->needs_entered) {
    // The enter needed its Entered callback and none came: never silent,
    // and the pair stays a pair.
    pending_entered_done(s);
    if (atomic_load_explicit(&s->entered_state, ACQ) == SLOT_EMPTY &&
        !atomic_load_explicit(&s->entered_by_timer, ACQ) && !s->enter_dropped) {
      counter_add(CNT_ENTERED_LOST, 1);
      put_entered_at(s, before_event(s, clock_now(), at));
      return 1;
    }
  }
  for (;;) {
    int st = atomic_load_explicit(&s->entered_state, ACQ);
    if (st == SLOT_EMPTY) return 1;
    if (st == SLOT_BUSY) {
      if (await(&s->entered_state, SLOT_BUSY) == SLOT_BUSY) return 0;
      continue;
    }
    int64_t ns = 0;
    if (st == SLOT_TIMED) {
      int r = hsstat_end(&s->enter_hs, &ns);
      ns = timed_ns(s, r, ns);
    } else {
      ns = entered_ns(s);
    }
    ns = before_event(s, ns, at);
    atomic_store_explicit(&s->entered_lb, ns, RLX);   // for the writer, before BUSY
    if (claim(&s->entered_state, st, SLOT_BUSY)) {
      put_entered_at(s, ns);
      if (st == SLOT_TIMED) {
        atomic_store_explicit(&s->entered_by_timer, 1, RLX);
        counter_add(CNT_ENTERED_BY_TIMER, 1);
      }
      atomic_store_explicit(&s->entered_state, SLOT_EMPTY, REL);
      return 1;
    }
  }
}

void pending_own_entered(pending_tstate *s, int64_t at) { settle_entered(s, at); }

// forget_wait: a wait still open at settle never waited (wait() threw: not
// the owner, a negative timeout, after JVMTI posted MonitorWait). Forgotten
// if unwritten; held by the walker past the bound, handed to it without a
// Waited. 1 when the slot is free.
static int forget_wait(pending_tstate *s) {
  int st = atomic_load_explicit(&s->wait_state, ACQ);
  if (st == SLOT_EMPTY || claim(&s->wait_state, SLOT_PENDING, SLOT_EMPTY)) return 1;
  st = await(&s->wait_state, st == SLOT_HANDED ? SLOT_HANDED : SLOT_BUSY);
  if (st == SLOT_BUSY) {
    atomic_store_explicit(&s->waited_ts, 0, RLX);
    if (claim(&s->wait_state, SLOT_BUSY, SLOT_HANDED)) return 0;
    st = atomic_load_explicit(&s->wait_state, ACQ);
  }
  if (st == SLOT_HANDED) return 0;   // an earlier wait, still the walker's
  if (st == SLOT_WRITTEN) atomic_store_explicit(&s->wait_state, SLOT_EMPTY, REL);
  return 1;
}

int pending_settle(pending_tstate *s, int64_t at) {
  int free_slot = settle_entered(s, at);
  s->wait_dropped = 0;
  forget_wait(s);
  return free_slot;
}

void pending_drop_enter(pending_tstate *s) {
  s->enter_dropped = 1;
  counter_kind_add(KC_DROPPED, ORCA_EV_MONITOR_CONTENDED_ENTER, 1);
  counter_kind_add(KC_DROPPED, ORCA_EV_MONITOR_CONTENDED_ENTERED, 1);
}

int pending_wait_open(pending_tstate *s) {
  return s->wait_dropped || atomic_load_explicit(&s->wait_state, RLX) != SLOT_EMPTY;
}

int pending_waiting(uint32_t *out, int max) {
  int k = 0;
  pthread_mutex_lock(&registry_mu);
  for (pending_tstate *s = registry; s; s = s->next) {
    if (s->detached || !pending_wait_open(s)) continue;
    if (k < max) out[k] = s->hash;
    k++;
  }
  pthread_mutex_unlock(&registry_mu);
  return k;
}

void pending_wait(pending_tstate *s, JNIEnv *env, jobject o, uint32_t obj, int64_t ts, int64_t ms) {
  s->wait_dropped = 0;
  // Under the monitor: only when a wait is still open (rare).
  if (atomic_load_explicit(&s->wait_state, RLX) != SLOT_EMPTY) {
    settle_entered(s, ts);   // held by the writer past the bound: it writes it
    if (!forget_wait(s)) {
      // The walker still holds the thread's last wait: this one is dropped
      // (counted with its Waited), not waited for under the monitor.
      s->wait_dropped = 1;
      counter_kind_add(KC_DROPPED, ORCA_EV_OBJECT_WAIT, 1);
      counter_kind_add(KC_DROPPED, ORCA_EV_OBJECT_WAITED, 1);
      return;
    }
  }
  pending_thread_ref(s, env);   // once per thread: the walker walks from it
  atomic_store_explicit(&s->wait_arg, o, RLX);   // published by the store of SLOT_PENDING
  atomic_store_explicit(&s->wait_left, 0, RLX);
  s->wait_obj = obj;
  s->wait_ms = ms > 0 ? ms : 0;
  atomic_store_explicit(&s->wait_ts, ts, RLX);
  atomic_store_explicit(&s->wait_state, SLOT_PENDING, REL);
}

// The argument is taken back in a Dekker handshake with the walker
// (claim_old): the thread clears it, then looks for SLOT_NAMING; the walker
// sets SLOT_NAMING, then reads it (both seq_cst). Either the walker reads
// NULL, or the thread sees the naming and waits for its end.
void pending_wait_returned(pending_tstate *s) {
  if (!atomic_load_explicit(&s->wait_arg, RLX)) return;
  atomic_store(&s->wait_arg, NULL);
  while (atomic_load(&s->wait_state) == SLOT_NAMING) sched_yield();
}

void pending_wait_left(pending_tstate *s, jobject o) {
  // Before anything else: a walk under way reads it after its stack walk.
  atomic_store(&s->wait_left, 1);
  if (!o || __atomic_load_n(&s->wait_obj, __ATOMIC_RELAXED) || atomic_load_explicit(&s->wait_state, ACQ) != SLOT_PENDING)
    return;
  // One aligned store the final flush reads whole (it reads the field
  // after claiming the slot: before or after this, never half).
  __atomic_store_n(&s->wait_obj, objhash_of(o), __ATOMIC_RELEASE);
}

jthread pending_thread_ref_new(pending_tstate *s, JNIEnv *env) {
  if (!s->ref && env) {
    jthread t = NULL;
    if ((*jvmti)->GetCurrentThread(jvmti, &t) == JVMTI_ERROR_NONE && t) {
      s->ref = (*env)->NewGlobalRef(env, t);
      (*env)->DeleteLocalRef(env, t);
    }
  }
  return s->ref;
}

void pending_waited(pending_tstate *s, JNIEnv *env, jobject o, int64_t ts) {
  // Before the monitor is re-entered: HotSpot's timer (hsstat.h) times the
  // re-entry too, so an Entered still deferred is written first, also on
  // the VM's own waits.
  settle_entered(s, ts);
  if (s->wait_dropped) {
    s->wait_dropped = 0;
    return;
  }
  int earlier = 0;   // its Wait was written by the writer or the walker
  for (;;) {
    int st = atomic_load_explicit(&s->wait_state, ACQ);
    // None recorded (the VM's own waits), or an earlier one still the walker's.
    if (st == SLOT_EMPTY || st == SLOT_HANDED) return;
    if (st == SLOT_WRITTEN) {   // by the writer or the walker, with its frames
      earlier = 1;
      break;
    }
    if (st == SLOT_PENDING) {
      if (!claim(&s->wait_state, SLOT_PENDING, SLOT_BUSY)) continue;
      // Not holding the monitor any more: the stack walk and the hash cost
      // nobody else.
      if (!s->wait_obj) s->wait_obj = objhash_of(o);
      s->wait_n = stack_capture(NULL, 0, s->wait_frames, opt.depth);
      // The class at the Wait's time, before it (objclass.h).
      objclass_write(env, s->shard, s->hash, atomic_load_explicit(&s->wait_ts, RLX), o, s->wait_obj);
      put_wait(s);
      break;
    }
    if (await(&s->wait_state, SLOT_BUSY) == SLOT_BUSY) {
      // Past the bound the walker (or the writer) holding the Wait writes
      // the Waited too: the pair stays a pair.
      atomic_store_explicit(&s->waited_ts, ts, RLX);
      if (claim(&s->wait_state, SLOT_BUSY, SLOT_HANDED)) return;
    }
  }
  // They cannot name the class (the walker has only the waiting thread's
  // reference, which JNI calls of another thread must not use): named
  // here, with the Waited (docs/format.md).
  if (earlier) objclass_write(env, s->shard, s->hash, ts, o, s->wait_obj);
  put_waited(s, ts);
  atomic_store_explicit(&s->wait_state, SLOT_EMPTY, REL);
}

int pending_detach(pending_tstate *s, JNIEnv *env, void *block) {
  pthread_mutex_lock(&registry_mu);
  // The writer holds a record only inside a flush, under this mutex: what
  // is deferred now is the thread's to write.
  settle_entered(s, 0);
  jthread ref = NULL;
  int st = atomic_load_explicit(&s->wait_state, ACQ);
  // Or the held thread has its request (held_done frees it then).
  int walker_holds = st == SLOT_NAMING || st == SLOT_BUSY || st == SLOT_HANDED || s->pinned ||
                     atomic_load_explicit(&s->held_state, ACQ) != HELD_EMPTY;
  if (walker_holds) {
    s->block = block;
    s->detached = 1;   // the walker frees it, and its reference, once done (finish)
  } else {
    ref = s->ref;
    s->ref = NULL;   // the walker reads it under the mutex
    unlink_locked(s);
  }
  pthread_mutex_unlock(&registry_mu);
  if (ref && env) (*env)->DeleteGlobalRef(env, ref);
  return !walker_holds;
}

// ---- writer and walker ----

typedef struct {
  int64_t cutoff, stale_before;
} flush_t;

// held_flush: a request for held monitors not answered yet holds back the
// lines from its time (they come at the Enter's time); one queued or asked
// for longer than a stale wait (the held thread stuck in a long safepoint)
// is given up (cancelled: counted), so the file goes on.
static void held_flush(pending_tstate *s, flush_t *f) {
  int st = atomic_load_explicit(&s->held_state, ACQ);
  if (st == HELD_EMPTY || st == HELD_CANCELLED) return;
  int64_t ts = atomic_load_explicit(&s->held_ts, RLX);
  if (ts < f->stale_before && (st == HELD_QUEUED || st == HELD_ASKING) && claim(&s->held_state, st, HELD_CANCELLED)) {
    counter_add(CNT_HELD_DROPPED, 1);
    return;
  }
  if (ts < f->cutoff) f->cutoff = ts;
}

static void flush_one(pending_tstate *s, void *arg) {
  flush_t *f = arg;
  int st = atomic_load_explicit(&s->entered_state, ACQ);
  if (st == SLOT_PENDING && claim(&s->entered_state, SLOT_PENDING, SLOT_BUSY)) {
    put_entered_at(s, entered_ns(s));
    atomic_store_explicit(&s->entered_state, SLOT_EMPTY, REL);
  } else if (st == SLOT_TIMED && claim(&s->entered_state, SLOT_TIMED, SLOT_BUSY)) {
    // Claimed first: the thread cannot begin another enter meanwhile.
    int64_t ns = 0;
    int r = hsstat_end(&s->enter_hs, &ns);
    if (r != 0 && hsstat_trusted_ever()) {
      put_entered_at(s, timed_ns(s, r, ns));
      atomic_store_explicit(&s->entered_by_timer, 1, RLX);
      counter_add(CNT_ENTERED_BY_TIMER, 1);
      atomic_store_explicit(&s->entered_state, SLOT_EMPTY, REL);
    } else {
      // Still blocked: its Entered comes later than now. Ended while the
      // timer is being checked: its callback writes it, not before the Enter.
      if (r != 0 && s->enter_ns < f->cutoff) f->cutoff = s->enter_ns;
      atomic_store_explicit(&s->entered_state, SLOT_TIMED, REL);
    }
  } else if (atomic_load_explicit(&s->entered_state, ACQ) == SLOT_BUSY) {
    // The thread writes it right now; hold back what came after.
    int64_t ts = atomic_load_explicit(&s->entered_lb, RLX);
    if (ts < f->cutoff) f->cutoff = ts;
  }
  held_flush(s, f);
  st = atomic_load_explicit(&s->wait_state, ACQ);
  if (st == SLOT_EMPTY || st == SLOT_WRITTEN) return;
  int64_t ts = atomic_load_explicit(&s->wait_ts, RLX);
  if (st == SLOT_PENDING && ts < f->stale_before && claim(&s->wait_state, SLOT_PENDING, SLOT_BUSY)) {
    s->wait_n = 0;
    counter_add(CNT_WAITS_WITHOUT_STACK, 1);
    put_wait(s);
    wait_done(s);
    return;
  }
  if (ts < f->cutoff) f->cutoff = ts;
}

int64_t pending_flush(int64_t cutoff, int64_t stale_before) {
  flush_t f = {cutoff, stale_before};
  each(flush_one, &f);
  return f.cutoff;
}

typedef struct {
  int64_t old_before;
  pending_tstate **pinned;
  int n, cap;
} walk_t;

// claim_old pins (under the registry's mutex) the parts with a wait begun
// before old_before; the walker claims each one only when it walks it, so
// a thread whose wait ends while the walker walks others writes its own
// pair, with its stack, and is not held (a batch claimed at once held every
// thread of the batch for the whole round: a thread whose wait ended
// meanwhile handed it over, lost its stack, and its next wait was dropped).
static void claim_old(pending_tstate *s, void *arg) {
  walk_t *w = arg;
  if (w->n == w->cap || s->pinned || !s->ref) return;   // the rest at the next round
  if (atomic_load_explicit(&s->wait_state, ACQ) != SLOT_PENDING) return;
  if (atomic_load_explicit(&s->wait_ts, RLX) >= w->old_before) return;
  s->pinned = 1;
  w->pinned[w->n++] = s;
}

// claim_wait claims a pinned part's wait if it is still open and old: for
// SLOT_NAMING while the walker names the object (its hash from the wait
// native's argument or JVMTI's contended monitor; its class, not written
// yet, only from the argument), else SLOT_BUSY. The argument is read after
// the claim (seq_cst: pending_wait_returned's handshake).
static int claim_wait(pending_tstate *s, int64_t old_before) {
  int naming = !s->wait_obj || (atomic_load_explicit(&s->wait_arg, RLX) && class_needed(s->wait_obj));
  int to = naming ? SLOT_NAMING : SLOT_BUSY, from = SLOT_PENDING;
  if (!atomic_compare_exchange_strong(&s->wait_state, &from, to)) return 0;
  if (atomic_load_explicit(&s->wait_ts, RLX) < old_before) return 1;
  // A newer wait since the pin: given back, unless its thread handed it
  // over meanwhile (SLOT_BUSY is bounded for it): then it is ours to write.
  return !claim(&s->wait_state, to, SLOT_PENDING);
}

enum { UNCLAIMED, NOT_NAMED, WRITTEN };

// unlock_freeing unlinks s when gone (its thread ended and nothing of the
// wait or held paths still reads it), unlocks registry_mu (held by the
// caller) and then frees s and its thread's global reference.
static void unlock_freeing(pending_tstate *s, int gone, JNIEnv *env) {
  jthread ref = NULL;
  if (gone) {
    ref = s->ref;
    unlink_locked(s);
  }
  pthread_mutex_unlock(&registry_mu);
  if (ref && env) (*env)->DeleteGlobalRef(env, ref);
  if (gone) free(s->block);
}

// finish ends the walker's pin and hold of a part (WRITTEN: its Wait is in
// the rings; NOT_NAMED: back to its thread; UNCLAIMED: its wait was not
// taken), under the registry's mutex, so its thread's end (pending_detach)
// sees either the pin or its end: a part whose thread ended meanwhile is
// freed here, and only here.
static void finish(pending_tstate *s, JNIEnv *env, int how) {
  pthread_mutex_lock(&registry_mu);
  if (how == WRITTEN) wait_done(s);
  else if (how == NOT_NAMED) atomic_store_explicit(&s->wait_state, s->detached ? SLOT_EMPTY : SLOT_PENDING, REL);
  s->pinned = 0;
  int gone = s->detached && atomic_load_explicit(&s->held_state, ACQ) == HELD_EMPTY;
  unlock_freeing(s, gone, env);
}

void pending_walk(int64_t old_before) {
  pending_tstate *buf[256];
  walk_t w = {old_before, buf, 0, 256};
  do {
    w.n = 0;
    each(claim_old, &w);
    // Walk outside the registry's mutex: a pinned part stays alive (its
    // thread's end leaves it to us: pending_detach). A wait whose object is
    // not known yet gets it named first, while its thread cannot leave the
    // wait native (SLOT_NAMING).
    JNIEnv *env = NULL;
    if ((*orca_vm)->GetEnv(orca_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) env = NULL;
    for (int i = 0; i < w.n; i++) {
      pending_tstate *s = w.pinned[i];
      if (!claim_wait(s, old_before)) {   // ended (written by its thread), or a newer one
        finish(s, env, UNCLAIMED);
        continue;
      }
      if (atomic_load_explicit(&s->wait_state, ACQ) == SLOT_NAMING) {   // only the walker ends it
        // NULL once the native returned: never a reference of a frame
        // that is gone (pending_wait_returned).
        jobject arg = atomic_load(&s->wait_arg);
        if (!s->wait_obj) s->wait_obj = env ? waitobj_hash(env, s->ref, arg) : 0;
        if (!s->wait_obj) {   // not named: its thread writes it
          finish(s, env, NOT_NAMED);
          continue;
        }
        // Its class before its Wait, at the Wait's time (objclass.h).
        if (env && arg && s->wait_obj && class_needed(s->wait_obj))
          objclass_write(env, s->shard, s->hash, atomic_load_explicit(&s->wait_ts, RLX), arg, s->wait_obj);
        atomic_store_explicit(&s->wait_state, SLOT_BUSY, REL);
      }
      int n = atomic_load(&s->wait_left) ? 0 : stack_capture(s->ref, 0, s->wait_frames, opt.depth);
      // Its thread left the wait during the walk (it handed the wait over;
      // or, the recording stopped, its native returned): the walk may have
      // seen another place; the Wait is written without a stack (counted).
      s->wait_n = atomic_load_explicit(&s->wait_state, ACQ) == SLOT_HANDED || atomic_load(&s->wait_left) ? 0 : n;
      if (!s->wait_n) counter_add(CNT_WAITS_WITHOUT_STACK, 1);
      put_wait(s);
      finish(s, env, WRITTEN);
    }
  } while (w.n == w.cap);
}

static jthread walker, calibrator;
static void (*round_fn)(JNIEnv *env);

void pending_on_round(void (*fn)(JNIEnv *env)) { round_fn = fn; }
static atomic_int walker_alive;
// The walker sleeps in a JVMTI raw monitor, not in usleep: HotSpot's exit
// waits for threads that are in native code (up to 0.3 s), not for blocked
// ones, and VM death wakes it.
static jrawMonitorID walker_mon;

int pending_walker_alive(void) { return atomic_load(&walker_alive); }

static jthread held_thread;

int pending_is_walker(JNIEnv *env, jthread t) {
  return t && ((walker && (*env)->IsSameObject(env, walker, t)) || (calibrator && (*env)->IsSameObject(env, calibrator, t)) ||
               (held_thread && (*env)->IsSameObject(env, held_thread, t)));
}

static void JNICALL walker_run(jvmtiEnv *j, JNIEnv *env, void *arg) {
  (void)j; (void)arg;
  orca_agent_thread = 1;
  atomic_store(&walker_alive, 1);
  hsstat_calibrate(env, calibrator);
  (*jvmti)->RawMonitorEnter(jvmti, walker_mon);
  while (orca_recording()) {
    (*jvmti)->RawMonitorWait(jvmti, walker_mon, opt.flush_ms);
    if (!orca_recording()) break;
    (*jvmti)->RawMonitorExit(jvmti, walker_mon);
    pending_walk(clock_now() - (int64_t)opt.flush_ms * 1000000);
    if (round_fn) round_fn(env);
    (*jvmti)->RawMonitorEnter(jvmti, walker_mon);
  }
  (*jvmti)->RawMonitorExit(jvmti, walker_mon);
  atomic_store(&walker_alive, 0);
}

static void stop_held(void);

void pending_stop_walker(void) {
  stop_held();
  if (!walker_mon) return;
  (*jvmti)->RawMonitorEnter(jvmti, walker_mon);
  (*jvmti)->RawMonitorNotifyAll(jvmti, walker_mon);
  (*jvmti)->RawMonitorExit(jvmti, walker_mon);
}

// new_thread makes a java.lang.Thread for JVMTI's RunAgentThread (c: the class).
static jthread new_thread(JNIEnv *env, jclass c, const char *name) {
  jmethodID init = c ? (*env)->GetMethodID(env, c, "<init>", "(Ljava/lang/String;)V") : NULL;
  jstring s = init ? (*env)->NewStringUTF(env, name) : NULL;
  jthread t = s ? (*env)->NewObject(env, c, init, s) : NULL;
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
  return t;
}

const char *pending_start_walker(JNIEnv *env, jthread cur) {
  if ((*jvmti)->CreateRawMonitor(jvmti, "orca walker", &walker_mon) != JVMTI_ERROR_NONE) {
    walker_mon = NULL;
    return "cannot create the walker's monitor";
  }
  // Both Thread objects are made here, before main runs: their
  // constructors are Java code (ThreadGroup bookkeeping under its monitor).
  // The calibration's is made once per JVM: its thread, once started, runs
  // to the JVM's end, and a later recording (an attach) must still know it
  // as the agent's (it does not calibrate again: hsstat.h).
  jclass c = jclass_of(env, cur, "Ljava/lang/Thread;");
  jthread cal = calibrator ? NULL : new_thread(env, c, "orca calibration");
  if (cal) calibrator = (*env)->NewGlobalRef(env, cal);
  jthread t = new_thread(env, c, "orca walker");
  if (c) (*env)->DeleteLocalRef(env, c);
  if (!t || !(walker = (*env)->NewGlobalRef(env, t))) return "cannot create the walker thread";
  if ((*jvmti)->RunAgentThread(jvmti, walker, walker_run, NULL, JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE)
    return "cannot start the walker thread";
  return NULL;
}

// ---- the held monitors, asked by the held thread (pending.h) ----

// The queue of requests: a bounded lock-free queue (many contending
// threads put, the held thread alone takes), each cell's sequence number
// saying whether it is free to put (pos) or filled to take (pos + 1).
enum { HELD_QUEUE = 1024 };
static struct {
  _Atomic size_t seq;
  pending_tstate *s;
} held_q[HELD_QUEUE];
static _Atomic size_t held_q_tail;
static size_t held_q_head;   // the held thread's
static atomic_int held_q_ready;

static void held_q_init(void) {
  for (size_t i = 0; i < HELD_QUEUE; i++) atomic_store_explicit(&held_q[i].seq, i, RLX);
  atomic_store(&held_q_tail, 0);
  held_q_head = 0;
}

static int held_q_put(pending_tstate *s) {
  size_t pos = atomic_load_explicit(&held_q_tail, RLX);
  for (;;) {
    size_t seq = atomic_load_explicit(&held_q[pos % HELD_QUEUE].seq, ACQ);
    intptr_t dif = (intptr_t)seq - (intptr_t)pos;
    if (dif == 0) {
      if (atomic_compare_exchange_weak_explicit(&held_q_tail, &pos, pos + 1, RLX, RLX)) break;
    } else if (dif < 0) {
      return 0;   // full
    } else {
      pos = atomic_load_explicit(&held_q_tail, RLX);
    }
  }
  held_q[pos % HELD_QUEUE].s = s;
  atomic_store_explicit(&held_q[pos % HELD_QUEUE].seq, pos + 1, REL);
  return 1;
}

static pending_tstate *held_q_take(void) {
  size_t pos = held_q_head;
  if (atomic_load_explicit(&held_q[pos % HELD_QUEUE].seq, ACQ) != pos + 1) return NULL;
  pending_tstate *s = held_q[pos % HELD_QUEUE].s;
  atomic_store_explicit(&held_q[pos % HELD_QUEUE].seq, pos + HELD_QUEUE, REL);
  held_q_head = pos + 1;
  return s;
}

static jrawMonitorID held_mon;
static atomic_int held_alive, held_sleeping, held_stop;
static pending_held_fn held_fn;

void pending_on_held(pending_held_fn fn) { held_fn = fn; }

// The thread's side: a few stores and the queue's slot; the raw monitor
// only when the held thread sleeps (its flag and the queue in a Dekker
// handshake, seq_cst: it sets the flag then looks at the queue, the thread
// puts then looks at the flag; the notify runs under the monitor the held
// thread holds until its wait releases it, so it is never lost).
int pending_held_queue(pending_tstate *s, JNIEnv *env, int64_t ts, uint32_t obj, int timed) {
  if (!atomic_load_explicit(&held_alive, RLX) || !atomic_load_explicit(&held_q_ready, RLX) || !pending_thread_ref(s, env)) {
    counter_add(CNT_HELD_DROPPED, 1);
    return 0;
  }
  int st = atomic_load_explicit(&s->held_state, ACQ), queued = 0;
  if (st == HELD_QUEUED && claim(&s->held_state, HELD_QUEUED, HELD_FILLING)) {
    // Its last request, still queued, is stale (that enter is over):
    // this one takes its place in the queue.
    counter_add(CNT_HELD_DROPPED, 1);
    queued = 1;
  } else if (st != HELD_EMPTY) {   // the held thread asks about the last one now
    counter_add(CNT_HELD_DROPPED, 1);
    return 0;
  }
  atomic_store_explicit(&s->held_ts, ts, RLX);
  s->held_obj = obj;
  s->held_req = atomic_load_explicit(&s->held_seq, RLX);
  s->held_timed = timed;
  if (timed) s->held_hs = s->enter_hs;
  atomic_store_explicit(&s->held_state, HELD_QUEUED, REL);
  if (queued) return 1;
  if (!held_q_put(s)) {
    atomic_store_explicit(&s->held_state, HELD_EMPTY, REL);
    counter_add(CNT_HELD_DROPPED, 1);
    return 0;
  }
  atomic_thread_fence(memory_order_seq_cst);
  if (atomic_load(&held_sleeping)) {
    (*jvmti)->RawMonitorEnter(jvmti, held_mon);
    (*jvmti)->RawMonitorNotify(jvmti, held_mon);
    (*jvmti)->RawMonitorExit(jvmti, held_mon);
  }
  return 1;
}

// Still in the enter: no later enter, no Entered callback, and HotSpot's
// timer of it still running (it stops once the thread owns the monitor and
// is past the handshakes: an answer given before it stopped is the set the
// thread held while blocked, with perhaps the monitor it wanted, which the
// writing leaves out). Under the registry's mutex: a thread that ended
// (detached) is not read; one alive has its ThreadStatistics.
int pending_held_still(pending_tstate *s, const pending_held_req *r) {
  int still = 0;
  pthread_mutex_lock(&registry_mu);
  if (!s->detached && atomic_load_explicit(&s->held_seq, ACQ) == r->req &&
      atomic_load_explicit(&s->held_left, ACQ) != r->req) {
    int64_t ns;
    still = !r->timed || hsstat_end(&r->hs, &ns) == 0;
  }
  pthread_mutex_unlock(&registry_mu);
  return still;
}

static int held_claim(pending_tstate *s, int keep) {
  return claim(&s->held_state, HELD_ASKING, keep ? HELD_WRITING : HELD_CANCELLED);
}

// held_done: the request is over (written, dropped or cancelled); a part
// whose thread ended meanwhile is freed here (pending_detach left it).
static void held_done(pending_tstate *s, JNIEnv *env) {
  pthread_mutex_lock(&registry_mu);
  atomic_store_explicit(&s->held_state, HELD_EMPTY, REL);
  int gone = s->detached && !s->pinned;
  unlock_freeing(s, gone, env);
}

static void held_one(JNIEnv *env, pending_tstate *s) {
  int st;
  // A thread superseding its request fills it for a few stores: waited for.
  while ((st = atomic_load_explicit(&s->held_state, ACQ)) == HELD_FILLING) sched_yield();
  if (st != HELD_QUEUED || !claim(&s->held_state, HELD_QUEUED, HELD_ASKING)) {   // cancelled by the writer
    held_done(s, env);
    return;
  }
  pending_held_req r = {s->ref, atomic_load_explicit(&s->held_ts, RLX), s->held_obj, s->held_req, s->hash, s->shard,
                        s->held_timed, s->held_hs};
  if (!pending_held_still(s, &r)) {
    if (held_claim(s, 0)) counter_add(CNT_HELD_DROPPED, 1);   // else the writer gave it up, and counted it
  } else if (held_fn) {
    held_fn(env, s, &r, held_claim);
  }
  held_done(s, env);
}

static void JNICALL held_run(jvmtiEnv *j, JNIEnv *env, void *arg) {
  (void)j; (void)arg;
  orca_agent_thread = 1;
  (*jvmti)->RawMonitorEnter(jvmti, held_mon);
  while (orca_recording() && !atomic_load(&held_stop)) {
    atomic_store(&held_sleeping, 1);
    atomic_thread_fence(memory_order_seq_cst);
    pending_tstate *s = held_q_take();
    if (!s) {
      (*jvmti)->RawMonitorWait(jvmti, held_mon, 1000);
      atomic_store(&held_sleeping, 0);
      continue;
    }
    atomic_store(&held_sleeping, 0);
    (*jvmti)->RawMonitorExit(jvmti, held_mon);
    do held_one(env, s);
    while ((s = held_q_take()));
    (*jvmti)->RawMonitorEnter(jvmti, held_mon);
  }
  (*jvmti)->RawMonitorExit(jvmti, held_mon);
  // What is still queued is dropped (the recording stopped).
  for (pending_tstate *s; (s = held_q_take());) {
    while (atomic_load_explicit(&s->held_state, ACQ) == HELD_FILLING) sched_yield();
    if (claim(&s->held_state, HELD_QUEUED, HELD_CANCELLED)) counter_add(CNT_HELD_DROPPED, 1);
    held_done(s, env);
  }
  atomic_store(&held_alive, 0);
}

static void stop_held(void) {
  if (!held_mon) return;
  atomic_store(&held_stop, 1);
  (*jvmti)->RawMonitorEnter(jvmti, held_mon);
  (*jvmti)->RawMonitorNotifyAll(jvmti, held_mon);
  (*jvmti)->RawMonitorExit(jvmti, held_mon);
}

const char *pending_start_held(JNIEnv *env, jthread cur) {
  if (atomic_load(&held_alive)) return NULL;
  if (!held_mon && (*jvmti)->CreateRawMonitor(jvmti, "orca held", &held_mon) != JVMTI_ERROR_NONE) {
    held_mon = NULL;
    return "cannot create the held thread's monitor";
  }
  if (!atomic_load(&held_q_ready)) {
    held_q_init();
    atomic_store(&held_q_ready, 1);
  }
  jclass c = jclass_of(env, cur, "Ljava/lang/Thread;");
  jthread t = new_thread(env, c, "orca held");
  if (c) (*env)->DeleteLocalRef(env, c);
  if (held_thread) (*env)->DeleteGlobalRef(env, held_thread);
  if (!t || !(held_thread = (*env)->NewGlobalRef(env, t))) return "cannot create the held thread";
  atomic_store(&held_stop, 0);
  atomic_store(&held_alive, 1);
  if ((*jvmti)->RunAgentThread(jvmti, held_thread, held_run, NULL, JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE) {
    atomic_store(&held_alive, 0);
    return "cannot start the held thread";
  }
  return NULL;
}
