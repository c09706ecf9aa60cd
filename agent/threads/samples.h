// CPU and wall-clock sampling (issue 33; docs/agent.md, "The sample path"):
// each thread's own CPU clock (perf_events' task clock, else a POSIX CPU
// timer: cpu_clock=) sends it SIGPROF every cpu= of its CPU,
// and a sampler thread signals, every wall=, up to wall_threads= threads
// that are off a CPU in no recorded state; the handler walks the
// interrupted stack into the thread's sample slot (record/sring.h), which
// the writer drains as one more source. The handler never takes a lock,
// allocates, calls JNI or JVMTI, or touches a thread-local variable of
// this library on a thread that has not touched one before.
#ifndef ORCA_SAMPLES_H
#define ORCA_SAMPLES_H
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

// samples_start: a recording starts (before its threads are listed): the
// handler installed (once a JVM), the wall sampler started, the .info
// facts stated. NULL, or why there are no samples (a warning).
const char *samples_start(void);
// samples_live: the live phase: once the jmethodIDs of the classes loaded
// are made (asgct.h), the stacks can be walked, the timers of the threads
// registered so far are armed, and every later one's at once (before, a
// sample could only be lost). At load (env NULL) VMInit made them; at an
// attach (env: the Attach Listener's) the writer's thread makes them at
// its first flush (200 ms after), so that an attach costs the application
// no more (2 900 classes of a server: 6-48 ms of the Attach Listener's).
void samples_live(JNIEnv *env);
// samples_on: samples are taken in this recording.
int samples_on(void);
// samples_stop: the recording stops, before the writer's last flush: the
// timers deleted, the wall sampler ended.
void samples_stop(void);
// samples_self: the calling thread (env) gets its slot and CPU clock, as
// thread key `key` (threads.c: at its ThreadStart, after its ThreadStarted;
// the thread listing the threads alive, itself).
void samples_self(JNIEnv *env, uint32_t key);
// samples_other: the thread t (alive, not the caller: a thread listed at
// VMInit or at an attach) gets its slot and CPU clock.
void samples_other(JNIEnv *env, jthread t, uint32_t key);
// samples_virtual: the thread of identity hash `hash` (a virtual thread's
// matter) has its ThreadStarted (begin) or its ThreadEnded at ts: a sample
// of a mounted virtual thread outside that span is its carrier's (the
// carrier mounts it before its start, and unmounts it after its end).
void samples_virtual(uint32_t hash, int64_t ts, int begin);
// samples_end: the calling thread ends: its timer deleted, its slot given
// to the writer to drain and free.
void samples_end(void);
// samples_blocking: the calling thread is about to block in a state the
// recording tells, in the JVM's native of a park, a sleep or a wait (the
// hooks' wrappers, just around it): the wall sampler's ticks skip it
// without reading its HotSpot state (which says blocked there anyway).
// Returns its mark, for samples_unblocked as the native returns; NULL
// when no wall sampler runs or the thread has no slot. A thread-local
// variable and a few loads; the first call of a thread one system call.
void *samples_blocking(void);
void samples_unblocked(void *mark);
// samples_drain (the writer's source, writer.h): the samples taken since
// the last drain, as event records (rec.h) in one buffer valid until the
// next call; their methods queued for description first. It runs the wall
// ticks due at each call, and drains only when must is set or a slot needs
// it (a ring or its repeats half full, a thread ended); else NULL.
const char *samples_drain(size_t *len, int must);
#endif
