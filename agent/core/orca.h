// Shared declarations of the Orca agent: the JVMTI environment, options and
// small helpers used by every file. One concern per file; see README in docs.
#ifndef ORCA_H
#define ORCA_H

#include <jvmti.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdatomic.h>

#define ORCA_MAX_DEPTH 256

// Agent options (options.c).
typedef struct {
  char prefix[4096];   // output prefix, %p expanded
  int depth;           // stack depth per event
  int flush_ms;        // writer period
  int buffer_mb;       // total event buffer
  int clobber;         // overwrite existing files (else pick PREFIX-N)
  char session[65];    // orca record's token, written to .info
  int lease;           // lease=yes: the recording ends when orca record --pid lets go of PREFIX.lease (jvm/lease.h)
  int seed_only;       // kinds=seed: only the manual's 16 kinds (no parks)
  int compact;         // format=compact: PREFIX.orca in the compact encoding (record/compact.h)
  int format_set;      // format= was given
  long long max_size;  // maxsize=: bytes all PREFIX.* files may take (0: no bound); chunk files then
  long long max_age_ns;   // maxage=: history kept (0: no bound); chunk files then
  char text[4200];     // the options as given, for .info
  char errors[4096];   // errors=PATH: a file the agent appends its fatal messages to (orca record reports them)
  int standby;         // standby=yes: no recording at load; the JVM made ready for a cheap attach (entry.c)
  long long cpu_ns;    // cpu=: CPU sampling, every so many ns of each thread's CPU (0: off; threads/samples.h)
  int cpu_timer;       // cpu_clock=timer: POSIX CPU timers, not perf_events' task clock (threads/samples.c)
  long long wall_ns;   // wall=: wall-clock sampling of the threads off a CPU in no recorded state (0: off)
  int wall_threads;    // wall_threads=: the most threads the wall sampler signals a tick
  int thread_cpu_ms;   // thread_cpu=: how often threads' scheduler times are read (record/tcpu.h; 0: off)
  int snapshot;        // snapshot=yes (orca threads): an attach writes what every thread does now, then stops (entry.c)
  int lock_order;      // lockorder=: ORCA_LOCK_ORDER_* (hooks/held.h), what a contending thread holds
} orca_options;

// lockorder=: at a contended acquisition, the locks the thread holds (hooks/held.h).
enum {
  ORCA_LOCK_ORDER_NO,         // no: nothing
  ORCA_LOCK_ORDER_MONITORS,   // monitors (the default): its monitors, at each contended monitor enter
  ORCA_LOCK_ORDER_ALL,        // yes: also its j.u.c. locks (their acquires and releases hooked), and at their parks
};

extern orca_options opt;

// The environment switches (options.c; docs/agent.md, "Environment
// switches"): test aids and measurements, read from the process's
// environment once, by options_switches at Agent_OnLoad or Agent_OnAttach,
// and nowhere else. Absent, each is 0 (or NULL): the agent as users run it.
typedef struct {
  int verify_stacks;       // ORCA_VERIFY_STACKS: 1 repeats every fast walk with GetStackTrace; 2 also prints differences
  int verify_entered;      // ORCA_VERIFY_ENTERED: the Entered callback kept on and compared with the timer
  int verify_live_hooks;   // ORCA_VERIFY_LIVE_HOOKS: 1 rewrites at VMInit, not at load; 2 rewrites at load, then applies
  int verify_compact;      // ORCA_VERIFY_COMPACT=1: the compact encoder also writes PREFIX.verify
  int time_stacks;         // ORCA_TIME_STACKS=1: walk times (and the frame cache's hits) at exit
  int time_writer;         // ORCA_TIME_WRITER=1: the writer thread's CPU at exit
  int walk_cache_off;      // ORCA_WALK_CACHE=0: no frame cache
  int test_walk_fault;     // ORCA_TEST_WALK_FAULT=N: every Nth walk reads an inaccessible page
  const char *test_faults; // ORCA_TEST_FAULTS=SITE:N[,SITE:N]: one in N fault-safe reads of a site faults
  int test_owner_slots;    // ORCA_TEST_OWNER_SLOTS=N: the owner table capped at N slots
  int test_attach_gap_ms;  // ORCA_TEST_ATTACH_GAP_MS=MS: sleep between the attach's snapshot and the events' start
  int test_slow_sample_us; // ORCA_TEST_SLOW_SAMPLE_US=US: at the samplers' stop, handlers sleep US between ring look-up and write
  int test_bogus_method;   // ORCA_TEST_BOGUS_METHOD=N: every Nth sample's top Java frame names a word that is no jmethodID
  int test_slow_held_ms;   // ORCA_TEST_SLOW_HELD_MS=MS: the held monitors' call (unless lockorder=no) takes MS longer
  int test_preempt_held_ms; // ORCA_TEST_PREEMPT_HELD_MS=MS: the read from the frames yields its CPU for MS after it, never waiting
  int test_slow_notify_ms; // ORCA_TEST_SLOW_NOTIFY_MS=MS: a notify's or notifyAll's record sleeps MS after its stack walk
  int test_slow_listing_ms; // ORCA_TEST_SLOW_LISTING_MS=MS: the listing of the threads alive at the start waits MS first
  int test_wall_signal_ms; // ORCA_TEST_WALL_SIGNAL_MS=MS: the wall sampler waits MS between its look at the threads and its signals
  int held_in_thread;      // ORCA_HELD_IN_THREAD=1: a contended enter's held monitors asked by its own thread (before 2026-11-30)
  int time_held;           // ORCA_TIME_HELD=1: the held monitors' calls timed, printed at exit
  int time_clinit;         // ORCA_TIME_CLINIT=1: the walker's looks for class-initialisation waits timed, printed at exit
  int held_jvmti;          // ORCA_HELD_JVMTI=1: held monitors never read from the frames, always asked (before 2026-11-30 night)
  int held_check;          // ORCA_HELD_CHECK=1: each frames' read compared with JVMTI's answer in the thread, differences printed
  // ORCA_JAVA_TOOL_OPTIONS: from orca record, the JAVA_TOOL_OPTIONS of the
  // JVMs the program starts (jvm/entry.c's pass_to_children).
  const char *java_tool_options;
} orca_switches;

extern orca_switches switches;
extern jvmtiEnv *jvmti;
extern JavaVM *orca_vm;
// orca_feature: the JVM's feature release (17 for 17.0.x), 0 if unknown.
extern int orca_feature;

// Lifecycle: 0 = not recording, 1 = recording, 2 = VM dead (drop silently).
extern atomic_int orca_state;

static inline int orca_recording(void) {
  return atomic_load_explicit(&orca_state, memory_order_acquire) == 1;
}

// orca_table returns the table published in *slot, allocating n zeroed
// bytes there first when make and there is none yet: threads that race
// each allocate, one table is published, the others freed. NULL when none
// (out of memory, or not made). Readers load it without a lock.
static inline void *orca_table(_Atomic(void *) *slot, size_t n, int make) {
  void *t = atomic_load_explicit(slot, memory_order_acquire), *none = NULL;
  if (t || !make || !(t = calloc(1, n))) return t;
  if (atomic_compare_exchange_strong_explicit(slot, &none, t, memory_order_acq_rel, memory_order_acquire)) return t;
  free(t);
  return none;
}

// orca_agent_thread: set (to 1) on the agent's own threads (writer, walker,
// calibration): they get no per-thread state and record nothing (orca.c).
extern __thread int orca_agent_thread;

// Messages to stderr prefixed with "orca: " (orca.c).
void orca_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// orca_fail is orca_log for a message that means this JVM is not recorded
// (the agent is disabled): also appended to the errors= file, for orca record.
void orca_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// options.c: returns NULL or an error message (static storage).
const char *options_parse(const char *text, orca_options *o);
extern const char *options_usage;
// options_switches reads the environment switches into switches.
void options_switches(void);
// options_mark is ORCA_AGENT_LOADED, read now: the mark a recording agent of
// this process leaves for every other copy (jvm/entry.c's mark); NULL if none.
const char *options_mark(void);

#endif
