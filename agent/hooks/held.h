// The locks a thread holds (issue 36 item 2: the potential deadlocks over
// monitors and java.util.concurrent locks; docs/agent.md, "Held
// monitors"). By default (lockorder=monitors), at a contended monitor enter
// (monitor.c, through the callbacks the jvm module passes it), the thread's
// monitors (read from its own frames: held_own; else JVMTI
// GetOwnedMonitorStackDepthInfo, asked by the agent's held thread while it
// blocks: threads/pending.h) are written as MonitorHeld lines. With lockorder=yes also at a park in a lock's acquire (park.c), and
// its j.u.c. locks as LockHeld lines after them. The j.u.c. locks are kept as the thread
// runs: ReentrantLock and both locks of a ReentrantReadWriteLock get their
// lock, lockInterruptibly, tryLock and unlock rewritten in place at their
// first load (inject.c's start-up form, inplace.c), so every acquire and
// release, contended or not, reaches a native hook here.
#ifndef ORCA_HELD_H
#define ORCA_HELD_H
#include <jvmti.h>
#include "core/orca.h"
#include "hooks/classfile.h"
#include "threads/threads.h"

// held_capability: whether JVMTI gave can_get_owned_monitor_stack_depth_info
// (at the JVM's start only: HotSpot 17-25 offers it to no attached agent).
// held_monitors_fact is .info held_monitors, held_locks_fact held_locks
// ("yes", or "no: WHY").
void held_capability(int on);
const char *held_monitors_fact(void);
const char *held_locks_fact(void);
// held_on: lockorder=monitors or yes, the capability given, not kinds=seed
// (the monitors, at a contended enter); held_locks_on: held_on and
// lockorder=yes (the j.u.c. locks too, and at a park in their acquire).
int held_on(void);
int held_locks_on(void);
// held_async: a contended monitor enter's held monitors are asked by the
// held thread (threads/pending.h), not by the contending thread itself
// (the default; ORCA_HELD_IN_THREAD=1, a measurement aid: in the thread, as
// a park's still are). held_start starts that thread (VMInit, when
// held_on and held_async).
int held_async(void);
// held_time_enter / held_time_call: ORCA_TIME_HELD=1's counts (a contended
// enter with held_on; a call: its time, whether the thread got its monitor
// during it, whether its answer was kept, its lag after the enter).
void held_time_enter(void);
void held_time_call(int64_t ns, int freed, int kept, int64_t lag);
void held_start(JNIEnv *env, jthread cur);
// held_own reads the calling thread's monitors from its own frames (~ a
// stack walk), kept for held_write; 0 when it cannot (a monitor not hashed
// yet or of a class not named yet, a frame it does not read): then the
// caller asks JVMTI (held_read, or the held thread). o: the monitor it
// enters (left out); virt: the thread is a virtual thread (its frames read
// down to its continuation's entry; 0 when some are in its stack chunk).
// A thread holding a monitor it entered through JNI is asked of JVMTI.
int held_own(JNIEnv *env, jobject o, int virt);
// held_asked counts an enter held_own could not read that is asked of
// JVMTI (here or by the held thread): .info held_monitors_asked, _virtual_
// asked and _jni. Not one it skips (its monitor free again by then).
void held_asked(int virt);
// held_virtual: a virtual thread's enter not read from its frames is asked
// by the held thread (24+); else as before (in the thread with
// lockorder=yes, skipped by default).
int held_virtual(void);
// held_time_own: ORCA_TIME_HELD=1's count of the last held_own (freed: the
// monitor it enters was free at its end: the read's time was added to the
// holds of the monitors it holds).
void held_time_own(int freed);
// held_waited: the calling thread's last held_own or held_read may have
// made it wait, not only run (or be preempted): held_read's JVMTI call
// (its transitions into the VM stop at a safepoint or a handshake), the
// test's sleep (ORCA_TEST_SLOW_HELD_MS). The read from the frames alone
// never waits: memory reads. monitor.c times such an enter again after it
// when the monitor changed hands meanwhile.
int held_waited(void);
// held_read asks for the calling thread's monitors (JVMTI, p50 4-130 us: the
// caller reads the time its block begins after it), kept for held_write.
void held_read(void);
// held_write writes, at ts, after the acquisition's own line, a
// MonitorHeld line per monitor held_read found and a LockHeld line per
// j.u.c. lock the thread holds but `wanted` (the synchronizer it is about
// to wait for; 0 at a monitor's enter), with the frame of fr[0..n) (the
// acquisition's stack) that took it. s NULL: writes nothing, forgets what
// held_read found.
void held_write(JNIEnv *env, tstate *s, int64_t ts, const orca_frame *fr, int n, uint32_t wanted);
// held_lock: o (a park's blocker) is the synchronizer of a ReentrantLock or
// a ReentrantReadWriteLock.
int held_lock(JNIEnv *env, jobject o);
// held_specs: the methods to hook of the boot class name, when it is one of
// the locks and lockorder=yes; 0 otherwise (inject_add_at_load).
int held_specs(const char *name, const wrap_spec **specs, int *n);
// held_bind (VMInit): the rewritten classes' natives bound now (a call that
// does nothing), and the fields the hooks read looked up.
void held_bind(JNIEnv *env);
#endif
