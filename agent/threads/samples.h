// CPU and wall-clock sampling (issue 33; docs/agent.md, "The sample path"):
// each thread's own CPU-time timer sends it SIGPROF every cpu= of its CPU,
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
// samples_live: the stacks can be walked now (the live phase, the
// jmethodIDs of the classes loaded made: asgct.h): the timers of the
// threads registered so far are armed, and every later one's at once.
// Before, a sample could only be lost.
void samples_live(void);
// samples_on: samples are taken in this recording.
int samples_on(void);
// samples_stop: the recording stops, before the writer's last flush: the
// timers deleted, the wall sampler ended.
void samples_stop(void);
// samples_self: the calling thread (env) gets its slot and CPU timer, as
// thread key `key` (threads.h's thread_self, when it makes the state, and
// at a new recording). may_host_virtual: it may carry virtual threads.
void samples_self(JNIEnv *env, uint32_t key, int may_host_virtual);
// samples_other: the thread t (alive, not the caller: a thread listed at
// VMInit or at an attach) gets its slot and CPU timer.
void samples_other(JNIEnv *env, jthread t, uint32_t key, int may_host_virtual);
// samples_end: the calling thread ends: its timer deleted, its slot given
// to the writer to drain and free.
void samples_end(void);
// samples_drain (the writer's source, writer.h): the samples taken since
// the last call, as event records (rec.h) in one buffer valid until the
// next call; their methods queued for description first.
const char *samples_drain(size_t *len);
#endif
