#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "core/clock.h"
#include "core/counters.h"
#include "core/events.h"
#include "core/orca.h"
#include "hotspot/asgct.h"
#include "hotspot/vmstructs.h"
#include "hotspot/walk.h"
#include "record/rec.h"
#include "record/ring.h"
#include "record/sring.h"
#include "record/tkeys.h"
#include "stacks/methods.h"
#include "threads/samples.h"

// The slots: a fixed open-addressed table by OS thread id, which the
// handler reads without a lock. Entries are written under slots_mu by the
// registrations (a thread's own, or the VMInit's and attach's list of the
// threads alive) and by the writer, which frees a dead slot's ring once
// drained. A slot's fields are written before its state turns LIVE
// (release) and its tid is stored after: a handler that finds its tid
// reads a complete slot. A tid of -1 is a slot given back (the probe goes
// on past it).
enum { SLOTS = 8192, RING_BYTES = 64 << 10, NATIVE_MAX = 32, JAVA_MAX = 128 };
enum { S_FREE, S_LIVE, S_DEAD };
typedef struct {
  atomic_int tid;
  atomic_int state;
  // Its tid while a hook has it in a recorded state (samples_blocking),
  // else 0: beside tid and state, so that a tick's look at a marked thread
  // reads one cache line of its slot.
  atomic_int blocked;
  atomic_int timer_on;
  uint32_t key;             // its thread key (threads.h)
  vm_ptr jt;
  JNIEnv *env;
  sring *ring;
  timer_t timer;
  atomic_int perf_fd;       // the thread's perf_events task-clock descriptor + 1 (0: none, its timer instead)
  int64_t cpu_last, cpu_due;   // perf: the thread's CPU at its last CPU sample, and when the next is due
  atomic_ullong wall_weight;   // the nanoseconds the wall sampler's next signal stands for
  int stat_fd;              // the wall sampler's /proc/self/task/TID/stat (eligible), -1 before it opens it
  int64_t wall_cpu;         // the wall sampler's last read of the thread's CPU clock, -1 none
  uint64_t wall_look;       // the wall sampler's run of ticks of that read (wall_runs), 0 none
  // The wall sampler's last look found the thread off a CPU and off the run
  // queues (its state letter not R, or not run since a look that did): only
  // then does a clock that has not moved since say it still is (off_cpu).
  int wall_off;
  atomic_llong wall_done;   // the thread's CPU clock as its last wall sample was taken (its handler), -1 none
  // Repeats of the thread's last wall sample (the wall sampler's, read by
  // the writer): its ticks and weight each; and the writer's copy of that
  // sample (last_wall, last_len bytes: a sample_hdr, its pcs and frames).
  struct wall_rep {
    int64_t ticks;
    uint64_t weight;
    int64_t at_ns;   // its time (CLOCK_MONOTONIC) when it is a tick slept over, else 0: at its ticks
  } *reps;
  unsigned nreps;
  atomic_uint rep_head, rep_tail;
  void *last_wall;
  uint32_t last_len;
  // The writer's record of that sample (rec.h), its frames named, which
  // its repeats copy (last_rec_len bytes; 0: none yet): a repeat names no
  // frame again (that was a third of the writer's drain on WallIdle).
  void *last_rec;
  uint32_t last_rec_len;
} slot_t;
// reps_n: the repeats a slot holds, WALL_REPS_NS (2 s) of wall ticks, 16
// at least: ten writer's periods (the writer runs a quiet sampler's ticks
// each period and drains them within a second).
static unsigned reps_n;
// WALL_STILL_NS: the CPU a thread may have used since its last wall sample
// and still be where the sample saw it — the signal's return to the
// system call it interrupted, which restarts, or a poll loop's turn back
// into its wait (measured: a few µs).
enum { WALL_STILL_NS = 30000 };
static slot_t slots[SLOTS];
static pthread_mutex_t slots_mu = PTHREAD_MUTEX_INITIALIZER;
// live_bits: the S_LIVE slots, a bit each, kept and read under slots_mu:
// the wall sampler's tick reads 128 words, not 8 192 slots (which was most
// of its CPU: 60 µs a tick on Tomcat).
static uint64_t live_bits[SLOTS / 64];
// used_bits: the slots with a ring (S_LIVE or S_DEAD, not yet given
// back), a bit each, set by reg and cleared by the writer as it frees the
// ring, both under slots_mu; the writer's drain reads it without the lock
// (a slot set meanwhile is drained next time): 128 words, not 8 192 slots
// of ~200 bytes, which cost the writer ~200 µs a drain.
static atomic_ullong used_bits[SLOTS / 64];
// due_bits: the slots with something for the writer's drain (a sample in
// the ring, a repeat, the thread's end), a bit each, set after the thing
// is put (the handler's, the ticks', samples_end's) and taken by the drain
// (atomic_exchange): a drain visits those slots alone, not every slot with
// a ring, whose cold slot and ring header were most of a drain's CPU on a
// server at rest (WallIdle: ~60 slots, 3 with repeats, ~30 µs a drain).
static atomic_ullong due_bits[SLOTS / 64];
// wall_unmarks: a mark was taken away (samples_unblocked, reg) since the
// ticks' last look at the marks (wall_ticks): stored by the thread only
// when not set already, so that at most one store a run of ticks crosses
// cores, and read first.
static atomic_int wall_unmarks;
// drain_visits: the slots the drains visited (.info sample_drain_slots).
static atomic_long drain_visits;
static void set_due(slot_t *e) {
  size_t i = (size_t)(e - slots);
  atomic_fetch_or_explicit(&due_bits[i / 64], 1ULL << (i % 64), memory_order_release);
}
// slots_gen: the slots made so far (reg), so that a thread with none
// (samples_blocking) looks for its own again only once one was made.
static atomic_uint slots_gen;
static void set_used(slot_t *e, int used) {
  size_t i = (size_t)(e - slots);
  if (used) atomic_fetch_or_explicit(&used_bits[i / 64], 1ULL << (i % 64), memory_order_release);
  else atomic_fetch_and_explicit(&used_bits[i / 64], ~(1ULL << (i % 64)), memory_order_relaxed);
}
static void set_live(slot_t *e, int live_now) {
  size_t i = (size_t)(e - slots);
  if (live_now) live_bits[i / 64] |= 1ULL << (i % 64);
  else live_bits[i / 64] &= ~(1ULL << (i % 64));
}

// What a sample is in its slot's ring: this header, then the native pcs,
// then the Java frames (method, bci; -1 a native method's).
typedef struct {
  int64_t ticks;
  uint64_t weight;
  uint32_t vhash;   // the mounted virtual thread's identity hash; 0: the thread's own
  uint8_t sampled;  // ORCA_SAMPLED_*
  uint8_t pad;
  uint16_t nnative, njava, pad2;
} sample_hdr;

// Why samples are lost (.info samples_lost.REASON).
enum { L_FULL, L_WALK, L_STATE, L_NO_THREAD, L_TIMER, L_N };
static const char *const lost_names[L_N] = {"full", "walk", "state", "no_thread", "timer"};
static atomic_long lost[L_N];
static atomic_long taken[3];   // samples drained by kind (ORCA_SAMPLED_*)
static atomic_long repeated;   // of the wall samples, repeats (.info sample_wall_repeated)
static atomic_long wall_late;   // wall signals that found their thread in a recorded state (.info sample_wall_late)
static atomic_long folded;     // expiries of the CPU clock carried by another sample's weight
static atomic_long on_timer;   // threads on the POSIX timer though the clock is perf_events (cpu_clock)
// drain_due: the writer's next flush must drain the slots though it has no
// event to write (samples_drain): a sample in a slot's ring (its
// jmethodIDs are resolved within a flush period, as before), a slot's
// repeats half full, or a thread ended (its slot is given back only once
// drained). Set by the handler (which also wakes the writer when the ring
// is half full: the other half is the room left until it comes), the wall
// ticks and samples_end; cleared by the drain. Repeats alone (a JVM at
// rest) wait for events or the hold (writer.c, SAMPLES_HOLD_NS).
static atomic_int drain_due;

// The CPU clock (docs/agent.md, "The clocks"): perf_events' task clock
// (PERF_COUNT_SW_TASK_CLOCK), a high-resolution timer of the thread's own
// CPU time, exact at any load; with exclude_kernel where
// perf_event_paranoid allows no more (an interval that ends in the
// kernel gives no signal: the next sample's weight carries it); or the
// POSIX CPU timer, checked at the kernel's tick.
enum { CLOCK_TIMER, CLOCK_PERF, CLOCK_PERF_USER };
static int cpu_clock;

static atomic_int on;            // a recording takes samples
// handlers: the handlers running past their look at on. samples_stop,
// once on is 0, waits for them to end before the writer's last drain
// gives the rings back: a handler that saw on set just before, then was
// descheduled in its walk (a loaded machine), wrote to a ring freed under
// it (TestPlantedNames on 25, both flood threads at the JVM's exit).
static atomic_int handlers;
// rings_kept: samples_stop waited out and a handler had still not ended:
// the rings of the dead slots are not freed (kept until the process ends).
static atomic_int rings_kept;
// test_stopping: ORCA_TEST_SLOW_SAMPLE_US's stop has begun (samples_stop):
// the handlers that see it sleep between their ring's look-up and its
// write (test_slept); test_asleep: how many have begun to.
static atomic_int test_stopping, test_asleep;
static atomic_int live;          // the stacks can be walked (samples_live): the clocks run
static int installed;            // the handler is installed (once a JVM: never taken back)
static long long cpu_ns, wall_ns;
static int wall_threads;
static pthread_t wall_thread;
static atomic_int wall_stop;
static int wall_running;

// ring_bytes: a slot's ring holds the samples of a writer's period (200 ms)
// at 10 ms with room; below, the task clock samples as often as asked (the
// POSIX timer at most once a tick, 4 ms): up to 4 x the room at 2.5 ms and
// less (WalkHard's 65-frame stacks at 1 ms: ~220 kB a period, 15 lost a run
// in 64 kB).
static size_t ring_bytes(void) {
  long long f = cpu_ns && cpu_ns < 10000000LL ? (10000000LL + cpu_ns - 1) / cpu_ns : 1;
  return (size_t)RING_BYTES * (size_t)(f > 4 ? 4 : f);
}

static uint32_t slot_hash(int tid) { return ((uint32_t)tid * 2654435761u) & (SLOTS - 1); }

// find returns the live slot of tid, or NULL. Async-signal-safe.
static slot_t *find(int tid) {
  for (uint32_t i = slot_hash(tid), n = 0; n < SLOTS; i = (i + 1) & (SLOTS - 1), n++) {
    int t = atomic_load_explicit(&slots[i].tid, memory_order_acquire);
    if (t == 0) return NULL;
    if (t == tid && atomic_load_explicit(&slots[i].state, memory_order_acquire) == S_LIVE) return &slots[i];
  }
  return NULL;
}

static void count_lost(int why) { atomic_fetch_add_explicit(&lost[why], 1, memory_order_relaxed); }

// test_slept: ORCA_TEST_SLOW_SAMPLE_US's handler, its ring read, sleeps
// there (longer than the writer's period: a drain runs meanwhile), then
// says so on stderr if its slot was given back meanwhile (the ring freed
// under it, which a handler in production would write into) and returns 0
// then, so that the test sees the stop's order without memory being
// corrupted. Async-signal-safe (nanosleep, write).
static int test_slept(slot_t *e, sring *ring) {
  struct timespec d = {switches.test_slow_sample_us / 1000000, (long)(switches.test_slow_sample_us % 1000000) * 1000};
  atomic_fetch_add(&test_asleep, 1);
  nanosleep(&d, NULL);
  if (atomic_load_explicit(&e->state, memory_order_acquire) == S_LIVE && e->ring == ring) return 1;
  static const char msg[] = "orca test: a sample's ring was given back under its signal handler\n";
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  return 0;
}

// ---- The handler ----

// asgct_reason: AsyncGetCallTrace's failures that say the thread was in a
// state no walker reads (a collection, a safepoint, its exit, a
// deoptimisation, a state not known) count as state; the others as walk.
static int asgct_reason(int code) {
  return code == -2 || code == -7 || code == -8 || code == -9 || code == -10 || code == ASGCT_SAMPLE_OFF ? L_STATE : L_WALK;
}

static void context(const ucontext_t *uc, uintptr_t *ctx) {
#if defined(__x86_64__)
  ctx[0] = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  ctx[1] = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
  ctx[2] = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
  ctx[3] = (uintptr_t)uc->uc_mcontext.gregs[REG_R13];   // the interpreter's bcp
#elif defined(__aarch64__)
  ctx[0] = (uintptr_t)uc->uc_mcontext.pc;
  ctx[1] = (uintptr_t)uc->uc_mcontext.sp;
  ctx[2] = (uintptr_t)uc->uc_mcontext.regs[29];
  ctx[3] = 0;
#else
  ctx[0] = ctx[1] = ctx[2] = ctx[3] = 0;
#endif
}

static void set_context(ucontext_t *uc, const uintptr_t *ctx) {
#if defined(__x86_64__)
  uc->uc_mcontext.gregs[REG_RIP] = (greg_t)ctx[0];
  uc->uc_mcontext.gregs[REG_RSP] = (greg_t)ctx[1];
  uc->uc_mcontext.gregs[REG_RBP] = (greg_t)ctx[2];
#elif defined(__aarch64__)
  uc->uc_mcontext.pc = ctx[0];
  uc->uc_mcontext.sp = ctx[1];
  uc->uc_mcontext.regs[29] = ctx[2];
#else
  (void)uc, (void)ctx;
#endif
}

static int take(slot_t *e, int tid, int sampled, uint64_t weight, ucontext_t *uc) {
  struct {
    sample_hdr h;
    uintptr_t pcs[NATIVE_MAX];
    jvmtiFrameInfo fr[JAVA_MAX];
  } s;
  s.h.ticks = clock_ticks();
  s.h.weight = weight;
  s.h.sampled = (uint8_t)sampled;
  s.h.pad = 0;
  s.h.pad2 = 0;
  uintptr_t ctx[4];
  context(uc, ctx);
  int nn = 0;
  // A mounted virtual thread's sample is the virtual thread's: the walk
  // reads its identity hash (the writer turns it into its key).
  int nj = walk_sample(e->jt, tid, ctx, &s.h.vhash, s.pcs, &nn, NATIVE_MAX, s.fr, JAVA_MAX);
  if (nj == WALK_VIRTUAL) {
    count_lost(L_STATE);   // a virtual thread that cannot be told
    return 0;
  }
  if (nj == WALK_IN_JAVA && nn > 0) {
    // Native code called from Java code without a frame anchor (a leaf
    // call): AsyncGetCallTrace from where the chain reached Java code.
    ucontext_t moved = *uc;
    set_context(&moved, ctx);
    nj = asgct_sample(e->env, &moved, s.fr, JAVA_MAX);
  } else if (nj < 0) {
    // In Java code, or the own walker could not (a frame it does not
    // know, or not on this JDK): AsyncGetCallTrace from the context, and
    // the native part of a failed walk is not trusted either.
    if (nj != WALK_IN_JAVA) nn = 0;
    nj = asgct_sample(e->env, uc, s.fr, JAVA_MAX);
  }
  if (nj == ASGCT_UNKNOWN_JAVA || nj == ASGCT_NOT_WALKABLE_JAVA) {
    // In Java code, where AsyncGetCallTrace found no frame it could
    // start from (12-17 % of H2Bench's samples: a compiled method's
    // prolog or epilog, a stub): again from the caller (walk_unwind),
    // the frame stepped over named first when it was a compiled method's.
    for (int w = 0; w < WALK_UNWIND_TRIES && nj < 0; w++) {
      uintptr_t at[3] = {ctx[0], ctx[1], ctx[2]};
      jmethodID top;
      if (!walk_unwind(e->jt, tid, at, w, &top)) continue;
      ucontext_t moved = *uc;
      set_context(&moved, at);
      int first = top != NULL;
      nj = asgct_sample(e->env, &moved, s.fr + first, JAVA_MAX - first);
      if (nj < 0) continue;
      if (first) s.fr[0].method = top, s.fr[0].location = -1, nj++;
      counter_add(CNT_SAMPLES_UNWOUND, 1);
    }
  }
  if (nj < 0 && nn > 0) {
    // Native frames read, the Java part not: the CPU was spent, so the
    // sample is written with the frames it has.
    counter_add(CNT_SAMPLES_NATIVE_ONLY, 1);
    nj = 0;
  }
  if (nj < 0) {
    count_lost(asgct_reason(nj));
    return 0;
  }
  s.h.nnative = (uint16_t)nn;
  s.h.njava = (uint16_t)nj;
  // Packed: the Java frames right after the pcs taken.
  if (nn < NATIVE_MAX && nj) memmove((char *)s.pcs + (size_t)nn * sizeof s.pcs[0], s.fr, (size_t)nj * sizeof s.fr[0]);
  uint32_t len = (uint32_t)(sizeof s.h + (size_t)nn * sizeof s.pcs[0] + (size_t)nj * sizeof s.fr[0]);
  sring *ring = e->ring;
  if (!ring) {   // never for a live slot; a slot given back under a handler would be
    count_lost(L_STATE);
    return 0;
  }
  if (switches.test_slow_sample_us && atomic_load(&test_stopping) && !test_slept(e, ring)) {
    count_lost(L_STATE);
    return 0;
  }
  if (!sring_put(ring, &s, len)) {
    count_lost(L_FULL);
    return 0;
  }
  set_due(e);
  // A sample names methods by jmethodID, which the writer must resolve
  // while their classes are alive: drained at the next flush, as before
  // (repeats name none). Half full, the writer is woken too.
  if (sring_held(e->ring) * 2 >= e->ring->cap) {
    if (!atomic_exchange_explicit(&drain_due, 1, memory_order_relaxed)) ring_wake();
  } else
    atomic_store_explicit(&drain_due, 1, memory_order_relaxed);
  return 1;
}

// The thread's CPU-time clock by its id (the kernel's
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)): a thread's timer is made by
// the thread itself or by the thread that lists it.
static clockid_t thread_clock(int tid) { return (clockid_t)((~(unsigned)tid << 3) | 6); }

// thread_cpu: the CPU time of thread tid (its CPU-time clock, the
// kernel's figure: schedstat's, ThreadMXBean's); -1 when unreadable.
static int64_t thread_cpu(int tid) {
  struct timespec ts;
  if (clock_gettime(thread_clock(tid), &ts) != 0) return -1;
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// perf_weight: the weight of a task-clock signal's sample, 0 for none.
// The task clock counts the time the thread is on a CPU as the scheduler
// sees it, which in a virtual machine includes the time the host took
// the virtual CPU away (steal; IRQ time too): its signals would come
// faster than the thread's CPU grows (a thread that sleeps and wakes 30
// times in 1.5 s reached 10 ms of it with ~5 ms of CPU). So the signal is
// only the moment, and the thread's own CPU clock decides: a sample when
// the next interval of it is reached (an eighth early allowed: the two
// clocks differ by microseconds when nothing is stolen, and the signal
// comes at the interval's end), weighing the CPU since the last; the
// intervals passed beyond one (a signal lost under exclude_kernel, an
// interval that ended in the kernel) are folded: the weight's intervals
// beyond one, rounded.
static uint64_t perf_weight(slot_t *e, int tid) {
  if (!atomic_load_explicit(&e->perf_fd, memory_order_acquire)) return 0;   // disarmed, the signal in flight
  int64_t now = thread_cpu(tid), early = cpu_ns / 8, half = cpu_ns / 2;
  if (now < 0) return (uint64_t)cpu_ns;
  if (now + early < e->cpu_due) return 0;
  e->cpu_due += ((now + early - e->cpu_due) / cpu_ns + 1) * cpu_ns;
  uint64_t w = now > e->cpu_last ? (uint64_t)(now - e->cpu_last) : 1;
  e->cpu_last = now;
  uint64_t k = (w + (uint64_t)half) / (uint64_t)cpu_ns;
  if (k > 1) atomic_fetch_add_explicit(&folded, (long)(k - 1), memory_order_relaxed);
  return w;
}

static void on_signal(int sig, siginfo_t *si, void *ucv) {
  (void)sig;
  int saved = errno;
  // Counted before on is read, both sequentially consistent, as
  // samples_stop stores on then reads handlers: either it sees this
  // handler, or this handler sees on 0.
  atomic_fetch_add_explicit(&handlers, 1, memory_order_seq_cst);
  if (atomic_load_explicit(&on, memory_order_seq_cst)) {
    int tid = (int)syscall(SYS_gettid);
    slot_t *e = find(tid);
    if (!e) {
      count_lost(L_NO_THREAD);
    } else if (si->si_code == SI_TIMER) {
      // Expiries the kernel found while this signal was pending (it
      // checks CPU timers at its ticks): the sample stands for them too.
      int over = si->si_overrun > 0 ? si->si_overrun : 0;
      if (over) atomic_fetch_add_explicit(&folded, over, memory_order_relaxed);
      take(e, tid, ORCA_SAMPLED_CPU, (uint64_t)cpu_ns * (uint64_t)(1 + over), ucv);
    } else if (si->si_code > 0) {   // the task clock's overflow (POLL_IN), by F_SETSIG
      uint64_t w = perf_weight(e, tid);
      if (w) take(e, tid, ORCA_SAMPLED_CPU, w, ucv);
    } else {   // the wall sampler's tgkill
      uint64_t w = atomic_exchange_explicit(&e->wall_weight, 0, memory_order_acq_rel);
      // A thread that went into a recorded state between the tick's look
      // and this signal (its hook's mark, or HotSpot's _thread_blocked: a
      // park, sleep, wait or monitor enter begun meanwhile) is not
      // sampled: its time from here is that state's, and a wall sample
      // inside it would tell it twice (a CI run at load: a worker's wall
      // sample 570 µs into its park). Counted (.info sample_wall_late).
      if (w && (atomic_load_explicit(&e->blocked, memory_order_relaxed) == tid || hs_thread_state_of(e->jt) == HS_TS_BLOCKED)) {
        atomic_fetch_add_explicit(&wall_late, 1, memory_order_relaxed);
        atomic_store_explicit(&e->wall_done, -1, memory_order_release);
        w = 0;
      }
      // Its CPU clock once the sample is in its ring: while it does not
      // move, the sampler repeats the sample rather than signal again.
      if (w) atomic_store_explicit(&e->wall_done, take(e, tid, ORCA_SAMPLED_WALL, w, ucv) ? thread_cpu(tid) : -1, memory_order_release);
    }
  }
  atomic_fetch_sub_explicit(&handlers, 1, memory_order_release);
  errno = saved;
}

// ---- Clocks ----

// perf_open: a task-clock counter of thread tid that overflows every
// cpu_ns of its CPU (exclude_kernel as the probe found, samples_start),
// disabled; -1 and errno when refused. Tried again when interrupted: the
// kernel takes the thread's exec lock interruptibly (EINTR with a signal
// pending), which is no refusal.
static int perf_open(int tid, int user_only) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.sample_period = (uint64_t)cpu_ns;
  a.disabled = 1;
  a.exclude_kernel = (unsigned)user_only;
  a.wakeup_events = 1;
  int fd, tries = 0;
  do
    fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  while (fd < 0 && errno == EINTR && ++tries < 4);
  return fd;
}

// arm_perf: tid's task clock, its overflow a SIGPROF to that thread
// (F_SETSIG, F_SETOWN_EX F_OWNER_TID), enabled last. 0 when refused (its
// timer then).
static int arm_perf(slot_t *e, int tid) {
  int fd = perf_open(tid, cpu_clock == CLOCK_PERF_USER);
  if (fd < 0) return 0;
  struct f_owner_ex owner = {F_OWNER_TID, tid};
  if (fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, SIGPROF) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0) {
    close(fd);
    return 0;
  }
  // Written before the counter runs: the handler reads them after its
  // signal, which the enable below orders after.
  e->cpu_last = thread_cpu(tid);
  e->cpu_due = e->cpu_last + cpu_ns;
  atomic_store_explicit(&e->perf_fd, fd + 1, memory_order_release);
  if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
    atomic_store(&e->perf_fd, 0);
    close(fd);
    return 0;
  }
  return 1;
}

static void arm(slot_t *e, int tid) {
  if (!cpu_ns || !atomic_load(&live) || atomic_load(&e->timer_on)) return;
  if (cpu_clock != CLOCK_TIMER) {
    if (arm_perf(e, tid)) {
      atomic_store(&e->timer_on, 1);
      return;
    }
    atomic_fetch_add(&on_timer, 1);   // a descriptor refused (its limit): the POSIX timer
  }
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGPROF;
  ev._sigev_un._tid = tid;
  if (timer_create(thread_clock(tid), &ev, &e->timer) != 0) {
    count_lost(L_TIMER);
    return;
  }
  struct itimerspec it;
  it.it_interval.tv_sec = it.it_value.tv_sec = (time_t)(cpu_ns / 1000000000LL);
  it.it_interval.tv_nsec = it.it_value.tv_nsec = (long)(cpu_ns % 1000000000LL);
  if (timer_settime(e->timer, 0, &it, NULL) != 0) {
    timer_delete(e->timer);
    count_lost(L_TIMER);
    return;
  }
  atomic_store(&e->timer_on, 1);
}

static void disarm(slot_t *e) {
  if (!atomic_exchange(&e->timer_on, 0)) return;
  int fd = atomic_exchange(&e->perf_fd, 0) - 1;
  if (fd < 0) {
    timer_delete(e->timer);
    return;
  }
  // The handler never uses the descriptor: a signal still in flight finds
  // perf_fd 0 and takes nothing.
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  close(fd);
}

// ---- Registration ----

// reg makes or refreshes tid's slot (under slots_mu) and arms its timer.
static void reg(int tid, vm_ptr jt, JNIEnv *env, uint32_t key) {
  if (tid <= 0 || !atomic_load(&on)) return;
  pthread_mutex_lock(&slots_mu);
  slot_t *e = find(tid), *free_slot = NULL;
  if (!e) {
    for (uint32_t i = slot_hash(tid), n = 0; n < SLOTS * 3 / 4; i = (i + 1) & (SLOTS - 1), n++) {
      int t = atomic_load(&slots[i].tid);
      if ((t == 0 || t == -1) && atomic_load(&slots[i].state) == S_FREE) {
        free_slot = &slots[i];
        break;
      }
      if (t == 0) break;
    }
    if (!free_slot || !(free_slot->ring = sring_new(ring_bytes()))) {
      pthread_mutex_unlock(&slots_mu);
      count_lost(L_TIMER);   // no slot: the thread is not sampled
      return;
    }
    e = free_slot;
    e->key = key;
    e->jt = jt;
    e->env = env;
    atomic_store(&e->perf_fd, 0);
    e->stat_fd = -1;
    e->wall_cpu = -1;
    e->wall_look = 0;
    e->wall_off = 0;
    atomic_store(&e->wall_done, -1);
    atomic_store(&e->rep_head, 0);
    atomic_store(&e->rep_tail, 0);
    e->last_len = 0;
    e->last_rec_len = 0;
    if (wall_ns && e->nreps != reps_n) {   // kept with the slot, for the same interval
      free(e->reps);
      e->reps = malloc(reps_n * sizeof *e->reps);
      e->nreps = e->reps ? reps_n : 0;
    }
    atomic_store(&e->wall_weight, 0);
    atomic_store(&e->blocked, 0);
    atomic_store_explicit(&e->state, S_LIVE, memory_order_release);
    atomic_store_explicit(&e->tid, tid, memory_order_release);
    set_live(e, 1);
    set_used(e, 1);
    atomic_fetch_add_explicit(&slots_gen, 1, memory_order_release);
  } else {
    // Known already (listed by another thread, or in an earlier recording,
    // or a thread id used again): what is true now. A mark of a thread
    // that had the id before is forgotten (one of this thread's own is
    // only a tick's saving lost).
    e->key = key;
    e->jt = jt;
    e->env = env;
    atomic_store(&e->blocked, 0);
    atomic_store(&wall_unmarks, 1);
  }
  arm(e, tid);
  pthread_mutex_unlock(&slots_mu);
}

// eetop: java.lang.Thread.eetop, its JavaThread's address (0 before its
// start and after its end).
static jfieldID eetop_field(JNIEnv *env) {
  static jfieldID eetop;
  if (!eetop) {
    jclass c = (*env)->FindClass(env, "java/lang/Thread");
    if (c) eetop = (*env)->GetFieldID(env, c, "eetop", "J");
    if (!eetop) (*env)->ExceptionClear(env);
    if (c) (*env)->DeleteLocalRef(env, c);
  }
  return eetop;
}

// learn_env: where the JNIEnv sits in a JavaThread, from the calling
// thread's two (JDK 17's table does not say: vmstructs.h, vms_learn_env),
// for the JavaThread of a thread's own env and the env of another's.
static void learn_env(JNIEnv *env) {
  jfieldID eetop;
  jthread me = NULL;
  if (!vm_null(vms_thread(env)) || !(eetop = eetop_field(env)) || (*jvmti)->GetCurrentThread(jvmti, &me) != JVMTI_ERROR_NONE || !me)
    return;
  vms_learn_env(env, (uintptr_t)(*env)->GetLongField(env, me, eetop));
  (*env)->DeleteLocalRef(env, me);
}

void samples_self(JNIEnv *env, uint32_t key) {
  if (!atomic_load_explicit(&on, memory_order_relaxed)) return;
  learn_env(env);
  reg((int)syscall(SYS_gettid), vms_thread(env), env, key);
}

void samples_other(JNIEnv *env, jthread t, uint32_t key) {
  if (!atomic_load_explicit(&on, memory_order_relaxed)) return;
  learn_env(env);
  jfieldID eetop = eetop_field(env);
  if (!eetop) return;
  vm_ptr jt = vm_at((uintptr_t)(*env)->GetLongField(env, t, eetop));
  if (vm_null(jt)) return;   // not started, or ended
  reg(hs_thread_tid(jt), jt, hs_env_of(jt), key);
}

void samples_end(void) {
  int tid = (int)syscall(SYS_gettid);
  pthread_mutex_lock(&slots_mu);
  slot_t *e = find(tid);
  if (e) {
    disarm(e);
    atomic_store_explicit(&e->state, S_DEAD, memory_order_release);
    set_live(e, 0);
    set_due(e);
    atomic_store(&drain_due, 1);
  }
  pthread_mutex_unlock(&slots_mu);
}

// The hooks' marks: the calling thread's own slot as it last found it,
// its id, and slots_gen then (a thread with no slot looks again only once
// another was made).
static __thread slot_t *mark_slot;
static __thread int mark_tid;
static __thread unsigned mark_gen;

void *samples_blocking(void) {
  if (!wall_ns || !atomic_load_explicit(&on, memory_order_relaxed)) return NULL;
  slot_t *e = mark_slot;
  // Its slot given back meanwhile (its end, a stop): found again.
  if (e && (atomic_load_explicit(&e->tid, memory_order_relaxed) != mark_tid ||
            atomic_load_explicit(&e->state, memory_order_relaxed) != S_LIVE))
    e = mark_slot = NULL;
  if (!e) {
    unsigned g = atomic_load_explicit(&slots_gen, memory_order_acquire);
    if (mark_tid && g == mark_gen) return NULL;
    if (!mark_tid) mark_tid = (int)syscall(SYS_gettid);
    mark_gen = g;
    if (!(e = mark_slot = find(mark_tid))) return NULL;
  }
  atomic_store_explicit(&e->blocked, mark_tid, memory_order_relaxed);
  return e;
}

void samples_unblocked(void *mark) {
  // Only its own mark: a slot given back and made another thread's
  // meanwhile (a stop and a new recording) keeps that thread's. Sequentially
  // consistent: a tick after this sees the thread unmarked.
  int t = mark_tid;
  if (mark && atomic_compare_exchange_strong(&((slot_t *)mark)->blocked, &t, 0) &&
      !atomic_load_explicit(&wall_unmarks, memory_order_relaxed))
    atomic_store(&wall_unmarks, 1);
}

// ---- The wall sampler ----

// candidate: the thread is in no state the recording tells and not in
// Java code, by HotSpot's state, read from memory. _thread_blocked is a
// recorded state (a monitor enter, a wait, a park, a sleep — or one of the
// VM's internal waits), and _thread_in_Java is on a CPU or ready for one,
// both told by the CPU samples and the scheduler times. What is left is a
// thread in native code, in the VM or between two states. A thread its
// hooks have marked (samples_blocking: inside a park, a sleep or a wait,
// the JVM's native and the hook's few instructions around it) is none:
// its state is not read (a cache and TLB miss apiece: a quiet run's own
// work where most threads are a pool's idle workers; WallIdle's 53 reads
// a run became 6-7, the writer's flushes 2.9 -> 2.4 µs a wall sample).
static int64_t wall_states_n;   // HotSpot states read by the ticks (.info sample_wall_states_read)
static int candidate(slot_t *e, int tid) {
  if (atomic_load_explicit(&e->blocked, memory_order_relaxed) == tid) return 0;
  wall_states_n++;
  int st = hs_thread_state_of(e->jt);
  return st != HS_TS_BLOCKED && st != HS_TS_JAVA;
}

// off_cpu asks the kernel whether a candidate is neither on a CPU nor
// waiting for one. First its CPU clock (0.6 µs): a thread that has not run
// since the sampler's last look, which found it off a CPU, has been blocked
// all along — the common case, a thread in a socket read or epoll_wait.
// Not one that look found running or ready (wall_off 0): on a loaded
// machine a thread in native code can wait on a run queue for more than a
// tick, and its clock stands still as a blocked thread's (WallStarved: a
// deflater at nice 19 beside a spinner on one CPU had 11 wall samples in
// 3 s, in zlib, never blocked; TestSamples' burners 4-11 at load 17). Else
// the state letter of
// its /proc/self/task/TID/stat line (5.5 µs), not R (running or on a run
// queue); its schedstat cannot tell (a wait on a run queue is added to it
// only once the thread runs). A thread's file is opened the first time it
// is asked, once its JavaThread is seen to have its id, and kept: it is
// that thread's whatever its id becomes (after its end it reads nothing),
// so no signal goes to another thread; the clock is trusted only once the
// file is open. 2: it has not run since its last wall sample was taken
// (but for the signal's own return, WALL_STILL_NS): it is where that sample
// saw it, and the sample is repeated, with no signal. *unmoved: its clock
// has not moved at all since the sampler's last wake-up (wake - 1) read it:
// the thread did not run in between, so it was where it is now all along
// (a thread changes its HotSpot state only by running).
static int off_cpu(slot_t *e, int tid, uint64_t wake, int *unmoved) {
  int64_t cpu = thread_cpu(tid), done = atomic_load_explicit(&e->wall_done, memory_order_acquire);
  int still = cpu >= 0 && cpu == e->wall_cpu && e->stat_fd >= 0;
  *unmoved = still && e->wall_look + 1 == wake;
  e->wall_cpu = cpu;
  e->wall_look = wake;
  if (cpu >= 0 && done >= 0 && cpu - done < WALL_STILL_NS && e->stat_fd >= 0) return 2;
  if (still && e->wall_off) return 1;
  e->wall_off = 0;
  if (e->stat_fd < 0) {
    if (hs_thread_tid(e->jt) != tid) return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    if ((e->stat_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) return 0;
  }
  char buf[256];
  ssize_t n = pread(e->stat_fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  buf[n] = 0;
  const char *p = strrchr(buf, ')');   // the name may hold spaces and parentheses
  return e->wall_off = p && p[1] == ' ' && p[2] && p[2] != 'R';
}

// wall_cpu_ns: the wall sampler thread's own CPU time at its end (.info
// sample_wall_sampler_cpu_ns: its scans and signals; the handlers' time is
// their threads'); wall_ticks_n, wall_wakes_n: the wall intervals covered
// and the times the sampler thread woke for them (.info sample_wall_ticks,
// sample_wall_wakeups).
static int64_t wall_cpu_ns, wall_ticks_n, wall_wakes_n;
// wall_quiet_wakes: the times the sampler thread woke while quiet, not
// called back by the writer (.info sample_wall_quiet_wakeups): 0 but for
// a spurious wake-up.
static int64_t wall_quiet_wakes;
// A wake-up is most of the wall sampler's cost where it samples few
// threads (the context switch: 41 % of its CPU on a virtual machine,
// perf), and a server at rest has every candidate a repeat (an acceptor, a
// selector: blocked in the kernel, not running) tick after tick. Then the
// sampler sleeps twice as many ticks each time, up to WALL_SLEEP_NS (and a
// quarter of a slot's repeats): it is quiet, and the writer, which wakes
// every flush period anyway, runs the ticks due at each of its drains
// (samples_drain) while the sampler sleeps until the writer calls it back.
// It used to wake each second, in case the writer fell behind, and sleep
// on: a context switch a second, ~40 µs of its CPU on a virtual machine
// (WallIdle at 50 ms: 2.5-3.4 ms a minute; the process saves less, as the
// writer wakes at the same moments and then pays the vCPU's wake-up). A
// writer that falls behind runs the ticks due late, at its next flush, up
// to a slot's repeats (WALL_REPS_NS); the ticks before those are counted
// lost (samples_lost.full) for each thread they would have repeated. The
// ticks run late are written at their run
// for each thread whose CPU clock has not moved at all since it was last
// asked (it did not run, so it was at that sample's place, in that state,
// at every tick in between), timed at those ticks. Any other tick (a
// candidate not a repeat, one not asked) brings the sampler back to every
// tick. A thread that turns a candidate meanwhile (it enters native code)
// is seen a flush period late (WALL_SLEEP_NS), or at the writer's next
// flush when the writer falls behind.
enum { WALL_SLEEP_NS = 200000000 };
#define WALL_REPS_NS 2000000000LL
// The tick state, under wall_mu (the sampler's, or the writer's when the
// sampler is quiet): the last tick run (on the grid of wall_ns from the
// sampler's start, CLOCK_MONOTONIC), the ticks the sampler sleeps next,
// quiet, the slot asked first next, the runs of ticks (for wall_look).
// The sampler sleeps on wall_cv, which samples_stop signals (a stop does
// not wait out a sleep) and the writer when the sampler is needed again.
static pthread_mutex_t wall_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wall_cv;
static int wall_cv_made;
static int64_t wall_last_ns;
static int wall_span, wall_max_span, wall_quiet, wall_cursor;
static uint64_t wall_runs;
// The slots a run looks at. A marked thread stays marked until it takes its
// mark away (wall_unmarks), and no slot is made without slots_gen moving:
// while neither happens, a run looks again at the slots the last full look
// found unmarked alone (wall_others, in slot order), not at every live
// slot, each cold by then (on WallIdle 53 live slots, 50 of them parked:
// most of a quiet run's scan). wall_slots_n: the slots looked at (.info
// sample_wall_slots_read).
static int wall_others[SLOTS], wall_others_n, wall_others_ok;
static unsigned wall_others_gen;
static int64_t wall_slots_n;

// wall_rep_put puts a repeat of e's last wall sample; 0 when its ring is full.
static int wall_rep_put(slot_t *e, int64_t ticks, uint64_t weight, int64_t at_ns) {
  unsigned h = atomic_load_explicit(&e->rep_head, memory_order_relaxed);
  if (!e->nreps || h - atomic_load_explicit(&e->rep_tail, memory_order_acquire) >= e->nreps) {
    count_lost(L_FULL);
    return 0;
  }
  e->reps[h % e->nreps] = (struct wall_rep){ticks, weight, at_ns};
  atomic_store_explicit(&e->rep_head, h + 1, memory_order_release);
  set_due(e);
  if (2 * (h + 1 - atomic_load_explicit(&e->rep_tail, memory_order_relaxed)) >= e->nreps) atomic_store(&drain_due, 1);
  return 1;
}

// wall_ticks runs the ticks due at now_ns (under wall_mu): m of them since
// the last run, the last one now, the others (slept over) written for the
// threads that did not run. planned: the ticks the sampler meant to sleep
// over and this one (0: all of them); those beyond (it woke late, on a
// loaded machine) add their intervals to the weight of this tick's
// samples of the other threads, as a tick run late for each would have
// sampled them there.
static void wall_ticks(int64_t now_ns, int64_t planned) {
  static int cand[SLOTS], pick[SLOTS], again[SLOTS];
  static unsigned char whole[SLOTS], still[SLOTS];
  int64_t m64 = (now_ns - wall_last_ns) / wall_ns;
  if (m64 < 1) return;
  // More ticks than a slot's repeats are due only if the writer fell far
  // behind: the earliest, beyond, are counted lost (below).
  int m = m64 > (int64_t)reps_n ? (int)reps_n : (int)m64;
  int64_t last_ns = wall_last_ns + (m64 - m) * wall_ns, beyond = m64 - m;
  wall_last_ns += m64 * wall_ns;
  wall_ticks_n += m64;
  uint64_t wake = ++wall_runs;
  if (!atomic_load(&live)) {
    wall_span = 1, wall_quiet = 0;
    return;
  }
  int n = 0;
  pthread_mutex_lock(&slots_mu);
  // The marks are read after wall_unmarks is taken: a mark taken away
  // later is seen at the next run (as is one taken away just before, whose
  // flag comes after this exchange: its thread turns a candidate a run
  // late, as one that enters native code between two runs does).
  unsigned gen = atomic_load_explicit(&slots_gen, memory_order_acquire);
  if (atomic_exchange(&wall_unmarks, 0) || !wall_others_ok || gen != wall_others_gen) {
    wall_others_n = 0;
    for (int w = 0; w < SLOTS / 64; w++)
      for (uint64_t b = live_bits[w]; b; b &= b - 1) {
        int i = w * 64 + __builtin_ctzll(b);
        int tid = atomic_load(&slots[i].tid);
        wall_slots_n++;
        if (tid <= 0 || atomic_load(&slots[i].state) != S_LIVE || atomic_load_explicit(&slots[i].blocked, memory_order_relaxed) == tid)
          continue;
        wall_others[wall_others_n++] = i;
        if (candidate(&slots[i], tid)) cand[n++] = i;
      }
    wall_others_ok = 1, wall_others_gen = gen;
  } else {
    for (int j = 0; j < wall_others_n; j++) {
      int i = wall_others[j], tid = atomic_load(&slots[i].tid);
      wall_slots_n++;
      if (tid > 0 && atomic_load(&slots[i].state) == S_LIVE && candidate(&slots[i], tid)) cand[n++] = i;
    }
  }
  // The candidates are asked, from the cursor on, until wall_threads of
  // them are off a CPU or every one was asked; the next tick goes on
  // from there. Each sample stands for the candidates asked per sample:
  // interval × candidates ÷ asked (all asked: each eligible thread its
  // interval; else an estimate of the eligible among all, by those
  // asked — a server's hundreds of threads in socket reads are not all
  // asked each tick).
  // A thread that has not run since its last wall sample gets that
  // sample again (off_cpu 2: no signal, no walk), counted like one.
  int first = 0, asked = 0, k = 0, r = 0;
  while (first < n && cand[first] < wall_cursor) first++;
  for (; asked < n && k + r < wall_threads; asked++) {
    int i = cand[(first + asked) % n], unmoved;
    int off = off_cpu(&slots[i], atomic_load(&slots[i].tid), wake, &unmoved);
    if (off == 2) {
      whole[r] = (unsigned char)(unmoved && m > 1);
      still[r] = (unsigned char)unmoved;
      again[r++] = i;
    } else if (off) pick[k++] = i;
  }
  uint64_t w = asked ? (uint64_t)wall_ns * (uint64_t)n / (uint64_t)asked : 0;
  uint64_t late = planned > 0 && m64 > planned ? (uint64_t)(m64 - planned) : 0, wl = w * (1 + late);
  int64_t now = clock_ticks();
  for (int j = 0; j < r; j++) {
    slot_t *e = &slots[again[j]];
    // The ticks slept over, each its own interval (the thread's exact
    // time there), before this tick's.
    for (int s = 1; whole[j] && s < m; s++) wall_rep_put(e, now, (uint64_t)wall_ns, last_ns + (int64_t)s * wall_ns);
    // The ticks before those, beyond a slot's repeats (a writer that fell
    // that far behind): lost, and said.
    if (whole[j] && beyond > 0) atomic_fetch_add_explicit(&lost[L_FULL], (long)beyond, memory_order_relaxed);
    // This tick at its own time too when the thread has not run since the
    // last look (it was there then): a tick run late (the writer's, up to
    // an interval after it) would otherwise come up to an interval after
    // its time, as close as a few µs to the next run's first tick.
    wall_rep_put(e, now, whole[j] ? w : wl, still[j] ? wall_last_ns : 0);
  }
  pid_t pid = k ? getpid() : 0;   // a system call: none on a tick of repeats alone
  if (k && switches.test_wall_signal_ms) {   // a sampler preempted between its look and its signals
    struct timespec d = {switches.test_wall_signal_ms / 1000, (long)(switches.test_wall_signal_ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
  }
  for (int j = 0; j < k; j++) {
    slot_t *e = &slots[pick[j]];
    atomic_store_explicit(&e->wall_weight, wl, memory_order_release);
    syscall(SYS_tgkill, pid, atomic_load(&e->tid), SIGPROF);
  }
  pthread_mutex_unlock(&slots_mu);
  if (n) wall_cursor = cand[(first + asked) % n];
  if (asked == n && k == 0 && r == n) {
    wall_span = 2 * m < wall_max_span ? 2 * m : wall_max_span;
    wall_quiet = wall_quiet || 2 * m >= wall_max_span;
  } else {
    wall_span = 1, wall_quiet = 0;
  }
}

static void *wall_run(void *arg) {
  (void)arg;
  orca_agent_thread = 1;
  pthread_mutex_lock(&wall_mu);
  while (!atomic_load(&wall_stop)) {
    // Quiet: the writer runs the ticks, and calls the sampler back when a
    // tick needs it (wall_writer_ticks) or at the stop; no timed wake-up.
    if (wall_quiet) {
      pthread_cond_wait(&wall_cv, &wall_mu);
      if (atomic_load(&wall_stop)) break;
      wall_wakes_n++;
      if (wall_quiet) wall_quiet_wakes++;
      continue;
    }
    int64_t planned = wall_span, due = wall_last_ns + planned * wall_ns;
    struct timespec ts = {(time_t)(due / 1000000000LL), (long)(due % 1000000000LL)};
    int timed_out = pthread_cond_timedwait(&wall_cv, &wall_mu, &ts) != 0;
    if (atomic_load(&wall_stop)) break;
    wall_wakes_n++;
    // Woken before its time (spuriously): the next due time, from the
    // state now.
    if (!timed_out) continue;
    wall_ticks(clock_now(), planned);
  }
  pthread_mutex_unlock(&wall_mu);
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) wall_cpu_ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
  return NULL;
}

// wall_writer_ticks: the writer's drain runs the ticks due while the
// sampler is quiet (and wakes it when a tick needs it again); it never
// waits for the sampler.
static void wall_writer_ticks(void) {
  if (!wall_running || pthread_mutex_trylock(&wall_mu) != 0) return;
  if (wall_quiet && !atomic_load(&wall_stop)) {
    wall_ticks(clock_now(), 0);
    if (!wall_quiet) pthread_cond_signal(&wall_cv);
  }
  pthread_mutex_unlock(&wall_mu);
}

// ---- Start and stop ----

int samples_on(void) { return atomic_load(&on); }

static void fact_ll(const char *key, long long v) {
  char b[32];
  snprintf(b, sizeof b, "%lld", v);
  counters_prop_set(key, b);
}

// ref_ns, ref_ticks: the instant of the writer's last drain, the reference
// of the ticks of the samples it drains next.
static int64_t ref_ns, ref_ticks;

// another_copy: the handler is this agent's, of another copy of the
// library (a JVM started with one orca's agent, attached to by another
// orca's: its recording stopped, its timers deleted): taken over.
static int another_copy(const struct sigaction *old) {
  Dl_info theirs, ours;
  void *h = old->sa_flags & SA_SIGINFO ? (void *)old->sa_sigaction : (void *)old->sa_handler;
  if (!h || !dladdr(h, &theirs) || !dladdr((void *)on_signal, &ours) || !theirs.dli_fname || !ours.dli_fname) return 0;
  const char *a = strrchr(theirs.dli_fname, '/'), *b = strrchr(ours.dli_fname, '/');
  return !strcmp(a ? a + 1 : theirs.dli_fname, b ? b + 1 : ours.dli_fname);
}

// pin_library keeps this library mapped until the process ends, once its
// SIGPROF handler is to be installed (the handler is never taken back:
// samples_stop). HotSpot unloads an attached library whose Agent_OnAttach
// fails, and a start can fail after the samplers began (no writer thread:
// START_NO_THREAD): the handler, or one still running, would then point
// into unmapped code, and the next attach would find it dangling and take
// it for another profiler's (no samples for the JVM's life). Best effort:
// linked into a program (the unit tests) there is nothing to unload.
static void pin_library(void) {
  Dl_info self;
  if (dladdr((void *)on_signal, &self) && self.dli_fname) dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

// choose_clock: perf_events' task clock when this process may open one
// for its own threads (kernel and user time: CAP_PERFMON, or
// perf_event_paranoid <= 1; user time alone: paranoid 2), tried on the
// calling thread; else (paranoid 3 or more, a seccomp profile that refuses
// perf_event_open, no perf_events, cpu_clock=timer) the POSIX CPU timer.
// .info sample_cpu_clock says which, and why not perf.
static void choose_clock(void) {
  char why[160];
  cpu_clock = CLOCK_TIMER;
  if (opt.cpu_timer) {
    counters_prop_set(ORCA_INFO_SAMPLE_CPU_CLOCK, "timer: cpu_clock=timer");
    return;
  }
  int tid = (int)syscall(SYS_gettid), user_only = 0;
  int fd = perf_open(tid, 0);
  if (fd < 0 && (errno == EACCES || errno == EPERM)) fd = perf_open(tid, user_only = 1);
  if (fd < 0) {
    int err = errno;
    char paranoid[16] = "?";
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
    if (f) {
      if (!fgets(paranoid, sizeof paranoid, f)) snprintf(paranoid, sizeof paranoid, "?");
      paranoid[strcspn(paranoid, "\n")] = 0;
      fclose(f);
    }
    snprintf(why, sizeof why, "timer: perf_event_open: %s (perf_event_paranoid %s)", strerror(err), paranoid);
    counters_prop_set(ORCA_INFO_SAMPLE_CPU_CLOCK, why);
    return;
  }
  close(fd);
  cpu_clock = user_only ? CLOCK_PERF_USER : CLOCK_PERF;
  counters_prop_set(ORCA_INFO_SAMPLE_CPU_CLOCK, user_only ? "perf_user" : "perf");
}

const char *samples_start(void) {
  cpu_ns = opt.seed_only ? 0 : opt.cpu_ns;
  wall_ns = opt.seed_only ? 0 : opt.wall_ns;
  wall_threads = opt.wall_threads;
  if (wall_ns) {
    // WALL_REPS_NS of ticks, 16 at least.
    long long n = WALL_REPS_NS / wall_ns;
    reps_n = (unsigned)(n < 16 ? 16 : n > 4096 ? 4096 : n);
  }
  for (int i = 0; i < L_N; i++) atomic_store(&lost[i], 0);
  for (int i = 0; i < 3; i++) atomic_store(&taken[i], 0);
  atomic_store(&repeated, 0);
  atomic_store(&wall_late, 0);
  atomic_store(&drain_visits, 0);
  atomic_store(&folded, 0);
  atomic_store(&on_timer, 0);
  fact_ll(ORCA_INFO_SAMPLE_CPU_NS, cpu_ns);
  fact_ll(ORCA_INFO_SAMPLE_WALL_NS, wall_ns);
  if (wall_ns) fact_ll(ORCA_INFO_SAMPLE_WALL_THREADS, wall_threads);
  if (!cpu_ns && !wall_ns) return NULL;
  if (!installed) {
    struct sigaction sa, old;
    if (sigaction(SIGPROF, NULL, &old) == 0 && !another_copy(&old) &&
        (old.sa_flags & SA_SIGINFO ? old.sa_sigaction != NULL : old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)) {
      cpu_ns = wall_ns = 0;
      fact_ll(ORCA_INFO_SAMPLE_CPU_NS, 0);
      fact_ll(ORCA_INFO_SAMPLE_WALL_NS, 0);
      return "SIGPROF has a handler already (another profiler: async-profiler, JFR's jdk.CPUTimeSample): no samples";
    }
    pin_library();
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL) != 0) {
      cpu_ns = wall_ns = 0;
      fact_ll(ORCA_INFO_SAMPLE_CPU_NS, 0);
      fact_ll(ORCA_INFO_SAMPLE_WALL_NS, 0);
      return "cannot install the SIGPROF handler: no samples";
    }
    installed = 1;
  }
  if (cpu_ns) choose_clock();
  clock_pair(&ref_ns, &ref_ticks);
  atomic_store_explicit(&on, 1, memory_order_release);
  if (wall_ns) {
    atomic_store(&wall_stop, 0);
    wall_ticks_n = wall_wakes_n = wall_states_n = wall_quiet_wakes = 0;
    pthread_mutex_lock(&wall_mu);
    wall_last_ns = clock_now();
    wall_span = 1, wall_quiet = 0, wall_cursor = 0, wall_runs = 0;
    wall_others_ok = 0, wall_slots_n = 0;
    wall_max_span = (int)(WALL_SLEEP_NS / wall_ns);
    if (wall_max_span > (int)reps_n / 4) wall_max_span = (int)reps_n / 4;
    if (wall_max_span < 1) wall_max_span = 1;
    pthread_mutex_unlock(&wall_mu);
    if (!wall_cv_made) {
      pthread_condattr_t ca;
      pthread_condattr_init(&ca);
      pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
      wall_cv_made = pthread_cond_init(&wall_cv, &ca) == 0;
      pthread_condattr_destroy(&ca);
      if (!wall_cv_made) return "cannot start the wall-clock sampler thread: no wall samples";
    }
    wall_running = pthread_create(&wall_thread, NULL, wall_run, NULL) == 0;
    if (!wall_running) return "cannot start the wall-clock sampler thread: no wall samples";
  }
  return NULL;
}

static atomic_int ids_later;   // an attach: the writer makes the jmethodIDs, then arms (samples_drain)

static void arm_all(void) {
  if (!atomic_load(&on) || atomic_exchange(&live, 1)) return;
  pthread_mutex_lock(&slots_mu);
  for (int i = 0; i < SLOTS; i++) {
    int tid = atomic_load(&slots[i].tid);
    if (tid > 0 && atomic_load(&slots[i].state) == S_LIVE) arm(&slots[i], tid);
  }
  pthread_mutex_unlock(&slots_mu);
}

void samples_live(JNIEnv *env) {
  if (env) atomic_store(&ids_later, 1);
  else arm_all();
}

void samples_stop(void) {
  if (!atomic_load(&on)) return;
  if (switches.test_slow_sample_us) {
    // A test's stop in flight: the handlers from here sleep between their
    // ring's look-up and its write, and the stop goes on once one sleeps
    // (or after a second).
    atomic_store(&test_stopping, 1);
    for (int i = 0; i < 2000 && !atomic_load(&test_asleep); i++) usleep(500);
  }
  atomic_store(&ids_later, 0);
  atomic_store(&live, 0);
  // No sample from here: a signal still in flight is ignored, not lost.
  atomic_store_explicit(&on, 0, memory_order_seq_cst);
  // The handlers that saw on set end before any slot is marked dead: the
  // writer still drains while the stop runs (on_vm_death, stop_recording:
  // writer_stop comes after), and a drain frees a dead slot's ring; a
  // handler descheduled inside its walk wrote into a ring freed so (a
  // JVM crashed in sring_put, TestSamplesStopInFlight in a loaded full
  // suite). A walk takes microseconds, a descheduled one longer; past a
  // second the rings are kept instead (a leak, told in .info).
  for (int i = 0; atomic_load_explicit(&handlers, memory_order_seq_cst) > 0; i++) {
    if (i == 2000) {
      atomic_store(&rings_kept, 1);
      fact_ll(ORCA_INFO_SAMPLE_RINGS_KEPT, 1);
      break;
    }
    usleep(500);
  }
  if (switches.test_slow_sample_us)   // the test's proof that its stop was in flight
    fprintf(stderr, "orca test: %d sample handlers slept in the stop\n", atomic_load(&test_asleep));
  if (wall_running) {
    atomic_store(&wall_stop, 1);
    pthread_mutex_lock(&wall_mu);
    pthread_cond_signal(&wall_cv);
    pthread_mutex_unlock(&wall_mu);
    pthread_join(wall_thread, NULL);
    wall_running = 0;
    pthread_mutex_lock(&wall_mu);
    wall_quiet = 0;   // the writer's drains run no tick now
    pthread_mutex_unlock(&wall_mu);
    fact_ll(ORCA_INFO_SAMPLE_WALL_SAMPLER_CPU_NS, wall_cpu_ns);
    fact_ll(ORCA_INFO_SAMPLE_WALL_TICKS, wall_ticks_n);
    fact_ll(ORCA_INFO_SAMPLE_WALL_WAKEUPS, wall_wakes_n);
    fact_ll(ORCA_INFO_SAMPLE_WALL_RUNS, (long long)wall_runs);
    fact_ll(ORCA_INFO_SAMPLE_WALL_QUIET_WAKEUPS, (long long)wall_quiet_wakes);
    fact_ll(ORCA_INFO_SAMPLE_WALL_STATES_READ, wall_states_n);
    fact_ll(ORCA_INFO_SAMPLE_WALL_SLOTS_READ, wall_slots_n);
    fact_ll(ORCA_INFO_SAMPLE_WALL_LATE, atomic_load(&wall_late));
  }
  fact_ll(ORCA_INFO_SAMPLE_DRAIN_SLOTS, atomic_load(&drain_visits));
  // Every slot is given back after the writer's last drain: a later
  // recording registers the threads alive then anew (a thread that ends
  // between two recordings has no ThreadEnd to give its slot back).
  pthread_mutex_lock(&slots_mu);
  for (int i = 0; i < SLOTS; i++)
    if (atomic_load(&slots[i].state) == S_LIVE) {
      disarm(&slots[i]);
      atomic_store_explicit(&slots[i].state, S_DEAD, memory_order_release);
      set_live(&slots[i], 0);
      set_due(&slots[i]);
    }
  pthread_mutex_unlock(&slots_mu);
  // A signal sent before may still be delivered: the handler stays
  // installed (the default action of SIGPROF ends the process).
}

// ---- The writer's drain ----

static char *out;
static size_t out_cap;

// ---- Virtual threads' spans ----
//
// A sample of a mounted virtual thread is the virtual thread's only between
// its ThreadStarted and its ThreadEnded (its carrier mounts it before the
// one and unmounts it after the other): the threads that write them queue
// their times (samples_virtual, under a mutex), and the writer, after it
// has drained the slots (so that every start or end before a sample is in
// the queue), moves them into its table by hash and gives each sample its
// thread.
typedef struct {
  uint32_t hash;
  int begin;
  int64_t ts;
} vlife;
static pthread_mutex_t vq_mu = PTHREAD_MUTEX_INITIALIZER;
static vlife *vq;
static size_t vq_len, vq_cap;

typedef struct {
  uint32_t hash;   // 0: free
  int64_t start, end;
} vspan;
static vspan *spans;
static uint32_t spans_cap, spans_n;

void samples_virtual(uint32_t hash, int64_t ts, int begin) {
  if (!hash || !atomic_load_explicit(&on, memory_order_relaxed)) return;
  pthread_mutex_lock(&vq_mu);
  if (vq_len == vq_cap) {
    size_t cap = vq_cap ? vq_cap * 2 : 1024;
    vlife *n = realloc(vq, cap * sizeof *n);
    if (n) vq = n, vq_cap = cap;
  }
  if (vq_len < vq_cap) vq[vq_len++] = (vlife){hash, begin, ts};
  pthread_mutex_unlock(&vq_mu);
}

static vspan *span_of(uint32_t hash, int add) {
  if (!spans) return NULL;
  for (uint32_t i = (hash * 2654435761u) & (spans_cap - 1);; i = (i + 1) & (spans_cap - 1)) {
    if (spans[i].hash == hash) return &spans[i];
    if (!spans[i].hash) {
      if (!add) return NULL;
      spans[i] = (vspan){hash, INT64_MAX, INT64_MAX};
      spans_n++;
      return &spans[i];
    }
  }
}

// spans_room makes room for n more spans: the ones ended before old are
// forgotten, and the table grows when it is still over half full.
static int spans_room(size_t n, int64_t old) {
  if (spans && spans_n + n <= spans_cap / 2) return 1;
  uint32_t cap = spans_cap ? spans_cap : 4096;
  size_t keep = 0;
  for (uint32_t i = 0; i < spans_cap; i++) keep += spans[i].hash && spans[i].end >= old;
  while (keep + n > cap / 2) cap *= 2;
  vspan *fresh = calloc(cap, sizeof *fresh), *prev = spans;
  if (!fresh) return 0;
  uint32_t prev_cap = spans_cap;
  spans = fresh, spans_cap = cap, spans_n = 0;
  for (uint32_t i = 0; i < prev_cap; i++)
    if (prev[i].hash && prev[i].end >= old) *span_of(prev[i].hash, 1) = prev[i];
  free(prev);
  return 1;
}

static void take_spans(int64_t now) {
  pthread_mutex_lock(&vq_mu);
  if (vq_len && spans_room(vq_len, now - 10000000000LL))
    for (size_t i = 0; i < vq_len; i++) {
      vspan *v = span_of(vq[i].hash, 1);
      if (vq[i].begin) v->start = vq[i].ts, v->end = INT64_MAX;
      else v->end = vq[i].ts;
    }
  vq_len = 0;
  pthread_mutex_unlock(&vq_mu);
}

// The drained samples' virtual threads (0: none), by record.
static uint32_t *vhashes;
static size_t vhashes_cap, nrecs;

// jvmti_ok: the writer may call JVMTI in this drain (methods_attach).
static int jvmti_ok;

// out_room makes room in out for a record of size bytes after n, and for
// its entry in vhashes; 0 when out of memory.
static int out_room(size_t n, size_t size) {
  if (n + size > out_cap) {
    size_t cap = out_cap ? out_cap * 2 : 1 << 16;
    while (cap < n + size) cap *= 2;
    char *nb = realloc(out, cap);
    if (!nb) return 0;
    out = nb;
    out_cap = cap;
  }
  if (nrecs == vhashes_cap) {
    size_t cap = vhashes_cap ? vhashes_cap * 2 : 4096;
    uint32_t *nv = realloc(vhashes, cap * sizeof *nv);
    if (!nv) return 0;
    vhashes = nv, vhashes_cap = cap;
  }
  return 1;
}

// bogus_top (ORCA_TEST_BOGUS_METHOD=N, tests): every Nth sample's top Java
// frame names what a walk that read a frame half built may: a word that
// is no jmethodID, here one whose "Method" has no ConstMethod, where JVMTI
// (Method::checked_resolve_jmethod_id) would read address 8.
static jmethodID bogus_top(jmethodID m) {
  static uintptr_t method[8];
  static uintptr_t slot;
  static long n;
  slot = (uintptr_t)method;
  return ++n % switches.test_bogus_method ? m : (jmethodID)&slot;
}

static int put_rec(size_t *n, slot_t *e, const sample_hdr *h, const uintptr_t *pcs, const jvmtiFrameInfo *fr,
                   int64_t now_ns) {
  int nf = h->nnative + h->njava;
  size_t size = (sizeof(orca_rec) + (size_t)nf * sizeof(orca_frame) + 7) & ~(size_t)7;
  if (!out_room(*n, size)) return 0;
  orca_rec *r = (orca_rec *)(out + *n);
  memset(r, 0, sizeof *r);
  int64_t ts = clock_ticks_ns(h->ticks, ref_ns, ref_ticks);
  if (ts > now_ns) ts = now_ns;
  r->ts = ts;
  vhashes[nrecs++] = h->vhash;
  r->thread = e->key;   // its carrier's, until the virtual thread's span is known (samples_drain)
  r->object = (uint32_t)h->weight;
  r->owner = (uint32_t)(h->weight >> 32);
  r->kind = ORCA_EV_SAMPLE;
  r->mode = h->sampled;
  r->size = (uint16_t)size;
  orca_frame *f = (orca_frame *)(r + 1);
  int k = 0;
  for (int i = 0; i < h->nnative; i++) {
    uint32_t id = methods_native_id(pcs[i]);
    if (id) f[k++] = (orca_frame){id, 0xFFFFFFFFu};
  }
  for (int i = 0; i < h->njava; i++) {
    uint32_t id = methods_sample_id(i == 0 && switches.test_bogus_method ? bogus_top(fr[i].method) : fr[i].method, jvmti_ok);
    if (id) f[k++] = (orca_frame){id, fr[i].location < 0 ? 0xFFFFFFFFu : (uint32_t)fr[i].location};
  }
  r->nframes = (uint16_t)k;
  r->size = (uint16_t)((sizeof(orca_rec) + (size_t)k * sizeof(orca_frame) + 7) & ~(size_t)7);
  *n += r->size;
  if (h->sampled < 3) atomic_fetch_add_explicit(&taken[h->sampled], 1, memory_order_relaxed);
  return 1;
}

// keep_rec keeps the record of e's last wall sample just put at out + at
// for its repeats (put_again), once its frames are named for good: with
// JVMTI (methods_sample_id leaves out the agent's own methods only then).
static void keep_rec(slot_t *e, size_t at) {
  const orca_rec *r = (const orca_rec *)(out + at);
  if (!jvmti_ok) return;
  if (!e->last_rec && !(e->last_rec = malloc(sizeof(orca_rec) + (NATIVE_MAX + JAVA_MAX) * sizeof(orca_frame) + 8))) return;
  memcpy(e->last_rec, r, r->size);
  e->last_rec_len = r->size;
}

// put_again puts a repeat x of e's last wall sample from its kept record.
static int put_again(size_t *n, slot_t *e, const struct wall_rep *x, uint32_t vhash, int64_t now_ns) {
  if (!out_room(*n, e->last_rec_len)) return 0;
  orca_rec *r = (orca_rec *)(out + *n);
  memcpy(r, e->last_rec, e->last_rec_len);
  int64_t ts = clock_ticks_ns(x->ticks, ref_ns, ref_ticks);
  r->ts = ts > now_ns ? now_ns : ts;
  r->thread = e->key;
  r->object = (uint32_t)x->weight;
  r->owner = (uint32_t)(x->weight >> 32);
  vhashes[nrecs++] = vhash;
  *n += e->last_rec_len;
  atomic_fetch_add_explicit(&taken[ORCA_SAMPLED_WALL], 1, memory_order_relaxed);
  return 1;
}

// left_for_next: e has samples for the next drain.
static void left_for_next(slot_t *e) {
  set_due(e);
  atomic_store_explicit(&drain_due, 1, memory_order_relaxed);
}

// drain_slot drains e's samples and the repeats of its wall samples, in
// the order of their ticks; a repeat is its thread's last wall sample
// before it (kept in e->last_wall across drains), at the repeat's time and
// weight. Those taken after cut (the drain's instant; INT64_MAX: all) stay
// for the next drain: put now, they would have the drain's time, before
// their own, and a mounted virtual thread's sample taken after its start,
// put at a drain's time before it, would be its carrier's (a drain can last
// tens of ms: methods named with JVMTI at a loaded JVM's start).
static void drain_slot(slot_t *e, size_t *n, int64_t now_ns, int64_t cut) {
  const void *p;
  uint32_t len;
  for (;;) {
    // The repeats first: a repeat seen makes the sample it repeats seen in
    // the ring (the handler put it before it noted wall_done, which the
    // sampler read before it wrote the repeat).
    unsigned t = atomic_load_explicit(&e->rep_tail, memory_order_relaxed);
    int rep = e->nreps && t != atomic_load_explicit(&e->rep_head, memory_order_acquire);
    p = sring_peek(e->ring, &len);
    sample_hdr h;
    if (p) memcpy(&h, p, sizeof h);
    if (rep && (!p || e->reps[t % e->nreps].ticks < h.ticks)) {
      struct wall_rep x = e->reps[t % e->nreps];
      if (x.ticks > cut) {
        left_for_next(e);
        break;
      }
      atomic_store_explicit(&e->rep_tail, t + 1, memory_order_release);
      if (!e->last_len) {
        count_lost(L_FULL);   // its sample was lost: nothing to repeat
        continue;
      }
      sample_hdr *lh = e->last_wall;
      lh->ticks = x.ticks;
      lh->weight = x.weight;
      const uintptr_t *pcs = (const uintptr_t *)(lh + 1);
      size_t at = *n;
      int put = e->last_rec_len ? put_again(n, e, &x, lh->vhash, now_ns)
                                : put_rec(n, e, lh, pcs, (const jvmtiFrameInfo *)(pcs + lh->nnative), now_ns);
      if (!put) count_lost(L_FULL);
      else {
        if (!e->last_rec_len) keep_rec(e, at);
        // A tick the sampler slept over, written at its wake-up: at its
        // own time, which may be before this drain's reference.
        if (x.at_ns) ((orca_rec *)(out + at))->ts = x.at_ns < now_ns ? x.at_ns : now_ns;
        atomic_fetch_add_explicit(&repeated, 1, memory_order_relaxed);
      }
      continue;
    }
    if (!p) break;
    if (h.ticks > cut) {
      left_for_next(e);
      break;
    }
    const uintptr_t *pcs = (const uintptr_t *)((const char *)p + sizeof h);
    const jvmtiFrameInfo *fr = (const jvmtiFrameInfo *)(pcs + h.nnative);
    if (h.sampled == ORCA_SAMPLED_WALL && (e->last_wall || (e->last_wall = malloc(sizeof(sample_hdr) + NATIVE_MAX * sizeof(uintptr_t) + JAVA_MAX * sizeof(jvmtiFrameInfo))))) {
      memcpy(e->last_wall, p, len);
      e->last_len = len;
      e->last_rec_len = 0;
    }
    size_t at = *n;
    if (!put_rec(n, e, &h, pcs, fr, now_ns)) count_lost(L_FULL);
    else if (h.sampled == ORCA_SAMPLED_WALL && e->last_len && !e->last_rec_len) keep_rec(e, at);
    sring_pop(e->ring);
  }
}

const char *samples_drain(size_t *len, int must) {
  *len = 0;
  nrecs = 0;
  if (!installed) return NULL;
  JNIEnv *env = NULL;
  // The writer's thread attaches itself to the JVM to name methods: at its
  // first flush (an attach's, which makes the jmethodIDs first), else at
  // its first drain, so here first.
  if (atomic_load(&ids_later)) {
    methods_describe();
    (void)methods_attach();
    if ((*orca_vm)->GetEnv(orca_vm, (void **)&env, JNI_VERSION_1_6) == JNI_OK && env) {
      atomic_store(&ids_later, 0);
      (void)asgct_ready(env, 1);
      arm_all();
    }
  }
  // The ticks due run at every flush, drained or not: their timing is the
  // writer's period.
  wall_writer_ticks();
  if (!atomic_exchange(&drain_due, 0) && !must) return NULL;
  jvmti_ok = methods_attach();
  int64_t now_ns, now_ticks;
  clock_pair(&now_ns, &now_ticks);
  size_t n = 0;
  // The slots with something due (due_bits), each with a ring (used_bits).
  for (int w = 0; w < SLOTS / 64; w++) {
    if (!atomic_load_explicit(&due_bits[w], memory_order_relaxed)) continue;
    uint64_t due = atomic_exchange_explicit(&due_bits[w], 0, memory_order_acq_rel);
    for (uint64_t b = due & atomic_load_explicit(&used_bits[w], memory_order_acquire); b; b &= b - 1) {
      slot_t *e = &slots[w * 64 + __builtin_ctzll(b)];
      int st = atomic_load_explicit(&e->state, memory_order_acquire);
      if (st == S_FREE || !e->ring) continue;
      atomic_fetch_add_explicit(&drain_visits, 1, memory_order_relaxed);
      drain_slot(e, &n, now_ns, st == S_DEAD ? INT64_MAX : now_ticks);
      if (st == S_DEAD) {   // its thread ended: drained, given back
        pthread_mutex_lock(&slots_mu);
        drain_slot(e, &n, now_ns, INT64_MAX);
        if (!atomic_load(&rings_kept)) sring_free(e->ring);
        e->ring = NULL;
        set_used(e, 0);
        free(e->last_wall);
        e->last_wall = NULL;
        e->last_len = 0;
        free(e->last_rec);
        e->last_rec = NULL;
        e->last_rec_len = 0;
        if (e->stat_fd >= 0) close(e->stat_fd);
        e->stat_fd = -1;
        atomic_store(&e->state, S_FREE);
        atomic_store_explicit(&e->tid, -1, memory_order_release);
        pthread_mutex_unlock(&slots_mu);
      }
    }
  }
  ref_ns = now_ns, ref_ticks = now_ticks;
  // The samples of virtual threads inside their spans are theirs.
  take_spans(now_ns);
  size_t off = 0, k = 0;
  for (const orca_rec *r; (r = ring_next(out, n, &off)); k++) {
    if (k >= nrecs || !vhashes[k]) continue;
    vspan *v = span_of(vhashes[k], 0);
    if (!v || r->ts < v->start || r->ts >= v->end) continue;
    uint32_t key = tkey_named(vhashes[k]);
    ((orca_rec *)r)->thread = key ? key : vhashes[k];
  }
  nrecs = 0;
  if (cpu_ns || wall_ns) {
    char key[64];
    static const char *const kinds[] = ORCA_SAMPLED_NAMES;
    for (int k = 1; k < 3; k++) {
      if (!(k == ORCA_SAMPLED_CPU ? cpu_ns : wall_ns)) continue;
      snprintf(key, sizeof key, "%s%s", ORCA_INFO_SAMPLES_PREFIX, kinds[k]);
      fact_ll(key, atomic_load(&taken[k]));
    }
    if (wall_ns) fact_ll(ORCA_INFO_SAMPLE_WALL_REPEATED, atomic_load(&repeated));
    if (cpu_ns && atomic_load(&folded)) fact_ll(ORCA_INFO_SAMPLE_CPU_FOLDED, atomic_load(&folded));
    if (cpu_ns && atomic_load(&on_timer)) fact_ll(ORCA_INFO_SAMPLE_CPU_TIMER_THREADS, atomic_load(&on_timer));
    for (int i = 0; i < L_N; i++) {
      long v = atomic_load(&lost[i]);
      if (!v) continue;
      snprintf(key, sizeof key, "%s%s", ORCA_INFO_SAMPLES_LOST_PREFIX, lost_names[i]);
      fact_ll(key, v);
    }
  }
  *len = n;
  return n ? out : NULL;
}
