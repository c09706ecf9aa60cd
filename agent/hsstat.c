#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "hsstat.h"
#include "mgmt.h"
#include "orca.h"
#include "vmstructs.h"
#include "writer.h"

// States of the timer's use.
enum { HS_OFF = -1, HS_WAIT, HS_FIND, HS_CHECK, HS_TRUSTED };
static atomic_int state = HS_WAIT;
static atomic_int ever_trusted;
// Where the ThreadStatistics pointer sits in a JavaThread, and the timer in
// it (ThreadStatistics: jlong _contended_enter_count, then elapsedTimer
// _contended_enter_timer: jlong _counter, jlong _start_counter, bool _active).
static atomic_long stat_at = -1;
static long total_at = 8, start_at = 16, active_at = 24;
// HotSpot's elapsed nanoseconds are CLOCK_MONOTONIC minus an origin taken
// at VM start (os::elapsed_counter on Linux). The origin is estimated as
// the least difference seen between our clock and a timer start read just
// after it: a few hundred nanoseconds late at most.
static _Atomic int64_t origin = INT64_MAX;
static int64_t load_ns;   // the agent's load: HotSpot's origin is a little earlier
static atomic_int passes, fails, finds;
// Offsets whose timer disagreed with the callback before any passed.
#define MAX_REJECTED 8
static long rejected[MAX_REJECTED];
static int nrejected;
static pthread_mutex_t find_mu = PTHREAD_MUTEX_INITIALIZER;   // the two above, and finding
#define PASSES_NEEDED 16
#define FAILS_ALLOWED 8
// ORCA_VERIFY_ENTERED=1: the callback stays on and every timed enter is
// compared with it (counts in .info; the integration tests use it).
static int verify;
atomic_long count_verified_entered, count_verified_after, count_verified_slow;

static void note_origin(int64_t o) {
  int64_t cur = atomic_load_explicit(&origin, memory_order_relaxed);
  while (o < cur && !atomic_compare_exchange_weak_explicit(&origin, &cur, o, memory_order_relaxed,
                                                           memory_order_relaxed)) {
  }
}

static void give_up(const char *why) {
  int was = atomic_exchange(&state, HS_OFF);
  if (was == HS_OFF) return;
  writer_prop("entered_timer", why);
}

// safe_read copies n bytes from p, or returns 0 if p is not readable: the
// kernel reads it for write(2), which fails instead of faulting. Used until
// the timer's place is checked.
static pthread_mutex_t safe_mu = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2] = {-1, -1};

static int safe_read(const void *p, void *out, size_t n) {
  int ok = 0;
  pthread_mutex_lock(&safe_mu);
  if (pipefd[0] >= 0 || pipe2(pipefd, O_NONBLOCK | O_CLOEXEC) == 0) {
    ssize_t w = write(pipefd[1], p, n);
    if (w > 0) ok = read(pipefd[0], out, (size_t)w) == w && (size_t)w == n;
  }
  pthread_mutex_unlock(&safe_mu);
  return ok;
}

void hsstat_init(void) { load_ns = clock_now(); }

void hsstat_enable(JNIEnv *env) {
  const char *v = getenv("ORCA_VERIFY_ENTERED");
  verify = v && *v && strcmp(v, "0");
  if (orca_feature < 11) {
    give_up("not used: unknown JDK");
    return;
  }
  long t = vms_offset("elapsedTimer", "_counter");
  if (t >= 0) {   // the table names _counter and _active, not _start_counter
    long s = vms_offset("elapsedTimer", "_start_counter"), a = vms_offset("elapsedTimer", "_active");
    if (s < 0 && t == 0 && a == 16 && vms_size("elapsedTimer") == 24) s = 8;
    if (s < 0 || a < 0) {
      give_up("not used: elapsedTimer layout");
      return;
    }
    total_at = 8 + t, start_at = 8 + s, active_at = 8 + a;
  }
  if (vms_size("JavaThread") <= 0 || !vms_thread(env)) {
    give_up("not used: no JavaThread layout");
    return;
  }
  // Through the VM's management interface, not ThreadMXBean: no Java code
  // of the agent's runs in the target (mgmt.h).
  const char *err = mgmt_contention_monitoring(env);
  if (err) {
    give_up(err);
    return;
  }
  int expect = HS_WAIT;
  atomic_compare_exchange_strong(&state, &expect, HS_FIND);
}

// plausible tells whether w (the words at a candidate ThreadStatistics) is
// a timer running since an enter that began just before enter_ns: its
// start, in HotSpot's elapsed nanoseconds, puts HotSpot's origin (taken at
// VM start, before the agent loaded) less than 2 s before the agent loaded.
// Returns that origin, or 0.
static int64_t plausible(const char *w, int64_t enter_ns) {
  int64_t count = *(const int64_t *)w, total = *(const int64_t *)(w + total_at),
          start = *(const int64_t *)(w + start_at), x = enter_ns - start;
  int ok = count >= 1 && count < (1LL << 40) && total >= 0 && total < (1LL << 62) && start > 0 &&
           w[active_at] == 1 && x <= load_ns + 1000000 && x > load_ns - 2000000000LL;
  return ok ? x : 0;
}

// find scans the calling thread's JavaThread for its ThreadStatistics: of
// the plausible pointers not rejected yet, the one whose origin is nearest
// the agent's load.
static void find(uintptr_t thr, int64_t enter_ns) {
  if (pthread_mutex_trylock(&find_mu)) return;
  long size = vms_size("JavaThread"), found = -1;
  int64_t best = 0;
  char w[32];
  for (long o = 0; o + 8 <= size; o += 8) {
    uintptr_t p = *(const uintptr_t *)(thr + o);
    if (p < 65536 || p % 8 || p >= (1ULL << 47)) continue;
    int rejected_o = 0;
    for (int k = 0; k < nrejected; k++) rejected_o |= rejected[k] == o;
    int64_t x;
    if (!rejected_o && safe_read((const void *)p, w, sizeof w) && (x = plausible(w, enter_ns)) > best) {
      best = x;
      found = o;
    }
  }
  if (found >= 0) {
    atomic_store(&stat_at, found);
    int expect = HS_FIND;
    atomic_compare_exchange_strong(&state, &expect, HS_CHECK);
  } else if (atomic_fetch_add(&finds, 1) >= 8) {
    give_up("not used: no ThreadStatistics in JavaThread");
  }
  pthread_mutex_unlock(&find_mu);
}

int hsstat_begin(JNIEnv *env, jthread t, int64_t enter_ns, hs_enter *e) {
  int st = atomic_load_explicit(&state, memory_order_acquire);
  if (st < HS_FIND) return 0;
  // Virtual threads' enters (timed on their carrier, which they leave
  // while blocked on JDK 24+) are not recorded (vthread.h): not asked here.
  (void)t;
  uintptr_t thr = vms_thread(env);
  if (!thr) return 0;
  if (st == HS_FIND) {
    find(thr, enter_ns);
    if ((st = atomic_load(&state)) < HS_CHECK) return 0;
  }
  long at = atomic_load_explicit(&stat_at, memory_order_relaxed);
  const char *stat = *(const char *const *)(thr + at);
  char w[32];
  if (st == HS_TRUSTED) {
    if (!stat || !stat[active_at]) return 0;
    e->start = *(const volatile int64_t *)(stat + start_at);
    e->base = *(const volatile int64_t *)(stat + total_at);
  } else {
    if (!safe_read(stat, w, sizeof w) || !w[active_at]) return 0;
    e->start = *(const int64_t *)(w + start_at);
    e->base = *(const int64_t *)(w + total_at);
  }
  e->total = (const volatile int64_t *)(stat + total_at);
  e->at = at;
  e->enter_ns = enter_ns;
  if (st == HS_TRUSTED) note_origin(enter_ns - e->start);
  return 1;
}

// read_total reads the timer's total directly once it passed its check,
// through safe_read before; -1 for a timer found where the check failed.
static int read_total(const hs_enter *e, int64_t *total) {
  if (!e->total) return -1;
  if (atomic_load_explicit(&ever_trusted, memory_order_relaxed)) {
    if (e->at != atomic_load_explicit(&stat_at, memory_order_relaxed)) return -1;
    *total = *e->total;
    return 1;
  }
  return safe_read((const void *)e->total, total, sizeof *total) ? 1 : -1;
}

int hsstat_end(const hs_enter *e, int64_t *ns) {
  int64_t total;
  if (read_total(e, &total) < 0) return -1;
  if (total == e->base) return 0;
  if (total < e->base) return -1;
  *ns = e->start + (total - e->base) + atomic_load_explicit(&origin, memory_order_relaxed);
  return 1;
}

void hsstat_check(const hs_enter *e, int64_t entered_ns) {
  int st = atomic_load_explicit(&state, memory_order_relaxed);
  if ((st != HS_CHECK && !(verify && st == HS_TRUSTED)) || e->at != atomic_load(&stat_at)) return;
  int64_t total;
  if (read_total(e, &total) < 0) return;
  // HotSpot's origin as seen at the Enter (after the timer started) and at
  // the Entered callback (after it stopped): both a little later than the
  // true one, by the latency of each callback.
  int64_t d = total - e->base, x = e->enter_ns - e->start, y = entered_ns - (e->start + d);
  if (st == HS_TRUSTED) {
    // The timer stops before HotSpot posts Entered: never after the callback.
    int64_t late = y - atomic_load(&origin);
    atomic_fetch_add(&count_verified_entered, 1);
    if (d <= 0 || late <= -5000) atomic_fetch_add(&count_verified_after, 1);
    else if (late >= 100000) atomic_fetch_add(&count_verified_slow, 1);
    return;
  }
  if (d > 0 && y - x > -50000 && y - x < 100000) {
    note_origin(x < y ? x : y);
    if (atomic_fetch_add(&passes, 1) + 1 == PASSES_NEEDED) {
      atomic_store(&ever_trusted, 1);
      int expect = HS_CHECK;
      if (atomic_compare_exchange_strong(&state, &expect, HS_TRUSTED)) writer_prop("entered_timer", "hotspot");
    }
    return;
  }
  if (atomic_fetch_add(&fails, 1) + 1 >= FAILS_ALLOWED) {
    give_up("not used: its times disagree with MonitorContendedEntered");
  } else if (atomic_load(&passes) == 0) {
    // Not this pointer: look again, without it.
    pthread_mutex_lock(&find_mu);
    int expect = HS_CHECK;
    if (nrejected < MAX_REJECTED && e->at == atomic_load(&stat_at) &&
        atomic_compare_exchange_strong(&state, &expect, HS_FIND))
      rejected[nrejected++] = e->at;
    pthread_mutex_unlock(&find_mu);
  }
}

int hsstat_verifying(void) { return verify; }

int hsstat_trusted(void) { return atomic_load_explicit(&state, memory_order_relaxed) == HS_TRUSTED; }

int hsstat_reliable(const hs_enter *e) {
  return hsstat_trusted() && e->total && e->at == atomic_load_explicit(&stat_at, memory_order_relaxed);
}

int hsstat_trusted_ever(void) { return atomic_load_explicit(&ever_trusted, memory_order_relaxed); }

void hsstat_lost(void) { give_up("stopped: a contended enter not timed (contention monitoring turned off?)"); }
