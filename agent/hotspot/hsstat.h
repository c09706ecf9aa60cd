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
#include "hotspot/safe.h"

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
// hsstat_begin, in MonitorContendedEnter (the calling thread's enter, its
// time enter_ns), fills e and returns 1 when HotSpot times this enter.
int hsstat_begin(JNIEnv *env, jthread t, int64_t enter_ns, hs_enter *e);
// hsstat_end returns 1 and the Entered time when the enter has ended, 0
// while the thread is still blocked, -1 when the timer was reset meanwhile
// (ThreadMXBean: the time is lost). Any thread may call it while the
// entering thread is alive.
int hsstat_end(const hs_enter *e, int64_t *ns);
// hsstat_check compares an Entered callback's time with the timer's
// (ORCA_VERIFY_ENTERED=1).
void hsstat_check(const hs_enter *e, int64_t entered_ns);
// hsstat_trusted: the timer was found (the Entered callback may be off; a
// writer may read the timer of another thread).
int hsstat_trusted(void);
// hsstat_reliable: e was timed by the trusted timer, so its Entered needs
// no callback.
int hsstat_reliable(const hs_enter *e);
// hsstat_trusted_ever: it was found, even if no longer used.
int hsstat_trusted_ever(void);
// hsstat_verifying: ORCA_VERIFY_ENTERED=1, the callback stays on and is
// compared with the timer on every enter (counts in .info).
int hsstat_verifying(void);
// hsstat_lost: an enter was not timed after the timer was trusted
// (contention monitoring turned off by the application): stop using it.
void hsstat_lost(void);
#endif
