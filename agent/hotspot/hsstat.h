// HotSpot's own clock of contended enters. With ThreadMXBean's contention
// monitoring on, HotSpot times every contended enter of a thread in its
// ThreadStatistics (elapsedTimer: a running total and the start of the
// current one), stopping the timer the moment the thread owns the monitor,
// before it would post MonitorContendedEntered. Reading that timer later
// gives the Entered time exactly, so the Entered callback, which runs while
// the thread owns the monitor and lengthens every contended critical
// section (docs/PERFORMANCE.md), can be switched off.
//
// Where the timer sits in a JavaThread is not in HotSpot's structure table:
// at start the agent makes one contended enter between two threads of its
// own and takes the one pointer in the contender's JavaThread under which a
// timer started and stopped with that enter (hsstat.c, "calibration"); only
// then are enters timed and the Entered callback switched off. Virtual
// threads' enters (timed on their carrier, which they leave while blocked
// on JDK 24+) are not recorded (vthread.h) and never come here. Anything
// unexpected: the callback stays on.
#ifndef ORCA_HSSTAT_H
#define ORCA_HSSTAT_H
#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>
#include "hotspot/vmstructs.h"

// One contended enter as HotSpot times it: the thread's ThreadStatistics
// (its timer: vmstructs.h), the timer's total when the enter began, and
// the enter's start (HotSpot's elapsed nanoseconds).
typedef struct {
  vm_ptr stats;   // null: not timed
  int64_t base, start;
  long at;            // where the timer was read
  int64_t enter_ns;   // the Enter's time, our clock
} hs_enter;

// hsstat_init: Agent_OnLoad.
void hsstat_init(void);
void hsstat_new_recording(void);
// hsstat_enable turns contention monitoring on (at VMInit, through the
// VM's management interface: no Java code, no class loaded).
void hsstat_enable(JNIEnv *env);
// hsstat_calibrate finds the timer (the walker, at its start; contender: a
// Thread object for a second agent thread, which it starts).
void hsstat_calibrate(JNIEnv *env, jthread contender);

// What an enter reads, hsstat.c writes: the state of the timer's use, the
// calibration's place of the ThreadStatistics pointer in a JavaThread (-1:
// not found) and HotSpot's clock origin (hsstat.c says how it is
// estimated). The reads of every enter (hsstat_begin, hsstat_end,
// hsstat_reliable) are inline below, so that a contended enter runs no
// function of hsstat.c (docs/agent.md, "The files an event runs").
enum { HSSTAT_OFF = -1, HSSTAT_WAIT, HSSTAT_CALIBRATING, HSSTAT_TRUSTED };
extern atomic_int hsstat_state;
extern atomic_long hsstat_at;
extern _Atomic int64_t hsstat_origin;
// hsstat_faulted: a read of the timer faulted: it is not used any more.
void hsstat_faulted(void);
// hsstat_note_origin: one more sample of HotSpot's origin, kept if lower.
static inline void hsstat_note_origin(int64_t o) {
  int64_t cur = atomic_load_explicit(&hsstat_origin, memory_order_relaxed);
  while (o < cur && !atomic_compare_exchange_weak_explicit(&hsstat_origin, &cur, o, memory_order_relaxed,
                                                           memory_order_relaxed)) {
  }
}

// hsstat_begin, in MonitorContendedEnter (the calling thread's enter, its
// time enter_ns), fills e and returns 1 when HotSpot times this enter.
static inline int hsstat_begin(JNIEnv *env, jthread t, int64_t enter_ns, hs_enter *e) {
  if (atomic_load_explicit(&hsstat_state, memory_order_acquire) != HSSTAT_TRUSTED) return 0;
  // Virtual threads' enters (timed on their carrier, which they leave
  // while blocked on JDK 24+) are not asked here (monitor.c): their
  // Entered comes from the callback.
  (void)t;
  vm_ptr thr = vms_thread(env), stat;
  if (vm_null(thr)) return 0;
  long at = atomic_load_explicit(&hsstat_at, memory_order_relaxed);
  hs_stats_now now;
  // Its own JavaThread, alive; but at is the calibration's finding, and a
  // pointer read there is the VM's: both reads fault-safe.
  if (!hs_thread_stats(thr, at, &stat) || !hs_stats_read(stat, &now)) {
    hsstat_faulted();
    return 0;
  }
  if (!now.active) return 0;
  e->start = now.start;
  e->base = now.total;
  e->stats = stat;
  e->at = at;
  e->enter_ns = enter_ns;
  hsstat_note_origin(enter_ns - e->start);
  return 1;
}
// hsstat_end returns 1 and the Entered time when the enter has ended, 0
// while the thread is still blocked, -1 when the timer was reset meanwhile
// (ThreadMXBean: the time is lost). Any thread may call it while the
// entering thread is alive.
static inline int hsstat_end(const hs_enter *e, int64_t *ns) {
  if (vm_null(e->stats) || e->at != atomic_load_explicit(&hsstat_at, memory_order_relaxed)) return -1;
  hs_stats_now now;
  if (!hs_stats_read(e->stats, &now)) {
    hsstat_faulted();   // the time of this enter is lost (entered_late), as after a reset
    return -1;
  }
  int64_t total = now.total;
  if (total == e->base) return 0;
  if (total < e->base) return -1;
  *ns = e->start + (total - e->base) + atomic_load_explicit(&hsstat_origin, memory_order_relaxed);
  return 1;
}
// hsstat_check compares an Entered callback's time with the timer's
// (ORCA_VERIFY_ENTERED=1).
void hsstat_check(const hs_enter *e, int64_t entered_ns);
// hsstat_trusted: the timer was found (the Entered callback may be off; a
// writer may read the timer of another thread).
static inline int hsstat_trusted(void) {
  return atomic_load_explicit(&hsstat_state, memory_order_relaxed) == HSSTAT_TRUSTED;
}
// hsstat_reliable: e was timed by the trusted timer, so its Entered needs
// no callback.
static inline int hsstat_reliable(const hs_enter *e) {
  return hsstat_trusted() && !vm_null(e->stats) && e->at == atomic_load_explicit(&hsstat_at, memory_order_relaxed);
}
// hsstat_trusted_ever: it was found, even if no longer used.
int hsstat_trusted_ever(void);
// hsstat_verifying: ORCA_VERIFY_ENTERED=1, the callback stays on and is
// compared with the timer on every enter (counts in .info).
int hsstat_verifying(void);
// hsstat_lost: an enter was not timed after the timer was trusted
// (contention monitoring turned off by the application): stop using it.
void hsstat_lost(void);
#endif
