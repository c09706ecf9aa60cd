// Agent options: a bare prefix (the seed's form, -agentpath:liborca.so=/tmp/run)
// or comma-separated key=value pairs. Anything else fails Agent_OnLoad with
// the list of valid options.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/orca.h"

orca_options opt;

const char *options_usage =
    "valid options (-agentpath:liborca.so=OPTIONS):\n"
    "  PREFIX             a bare output prefix, as in the Orca manual\n"
    "  prefix=PATH        output prefix: PATH.orca, .methods, .classtable, .info (default orca-%p; %p = pid)\n"
    "  depth=N            stack frames per event, 0-256 (default 16); 8 bytes a frame in the buffer\n"
    "  flush=MS           write buffered events every MS ms, 10-1000 (default 200)\n"
    "  buffer=MB          event buffer size in MB, 1-1024 (default 32); memory: up to ~3.8 x MB resident\n"
    "  clobber=yes|no     overwrite an existing recording (default yes); no: use PREFIX-2, PREFIX-3, ...\n"
    "                     a recording another running JVM writes is never overwritten: PREFIX-N then\n"
    "  session=HEX        a token written to .info (orca record tells its own recordings apart by it)\n"
    "  lease=yes|no       yes (orca record --pid): stop when orca's lock on PREFIX.lease is gone (docs/attach.md)\n"
    "  errors=PATH        append a message to PATH when this JVM cannot be recorded (orca record reports it)\n"
    "  kinds=all|seed     all: also parks (ThreadPark, ThreadUnparked, ThreadUnpark, ObjectClass; default);\n"
    "                     seed: only the 16 event kinds of the original Orca format (docs/format.md)\n"
    "  format=seed|compact\n"
    "                     seed: PREFIX.orca as text, one line an event, stacks inline (default);\n"
    "                     compact: binary, each stack and thread written once per chunk (docs/format.md)\n"
    "  maxsize=SIZE       keep the recording within SIZE bytes (suffix k, M or G; at least 1M): events go to\n"
    "                     chunk files PREFIX.orca.N, the oldest deleted (implies format=compact)\n"
    "  maxage=DURATION    keep about DURATION of history (s, m, h or d, e.g. 30s, 10m; at least 1s), likewise\n"
    "  cpu=DURATION|off   sample each thread's stack every DURATION of its CPU time (us, ms or s; 100us-10s;\n"
    "                     default 10ms; off: no CPU samples; kinds=seed: none)\n"
    "  cpu_clock=perf|timer\n"
    "                     the CPU sampler's clock: perf (default), each thread's perf_events task clock, exact at\n"
    "                     any load (the POSIX timer when perf_event_open is refused); timer: POSIX CPU timers,\n"
    "                     checked at the kernel's tick (a loaded machine folds expiries into one sample)\n"
    "  wall=DURATION|off  sample threads off a CPU in no recorded state (I/O, native code) every DURATION\n"
    "                     of wall-clock time (1ms-10s; default 50ms; off: none)\n"
    "  wall_threads=N     the most threads the wall sampler signals a tick, 1-1024 (default 8)\n"
    "  thread_cpu=MS|off  read the threads' CPU and ready times (ThreadCPU) every MS ms, 100-60000, at most\n"
    "                     when changed, and at each thread's start and end (default 1000); off: none\n"
    "  standby=yes        record nothing now: only make a later `orca record --pid` cheap (on JDK 17-22 its\n"
    "                     first class rewrite then deoptimises the code that depends on it, not all code)\n"
    "  lockorder=yes|monitors|no\n"
    "                     the locks a contending thread holds, for the report's potential deadlocks: monitors\n"
    "                     (default): at each contended monitor enter, the monitors it holds (MonitorHeld;\n"
    "                     read from its own frames, p50 2-8 us; a monitor not hashed yet asked of JVMTI by an\n"
    "                     agent thread while it blocks); yes: also the ReentrantLock and\n"
    "                     ReentrantReadWriteLock locks it holds (LockHeld; their acquires and releases call\n"
    "                     the agent), and both at a park in their acquire; no: none. Started with the JVM\n"
    "                     only: an attach cannot read them\n"
    "  snapshot=yes       (an attach, orca threads) write every thread's state, stack and monitors now, and stop:\n"
    "                     no events, no thread of the agent's; the files are complete when the load returns\n"
    "example: -agentpath:liborca.so=prefix=/tmp/run1,depth=32";

static char errbuf[512];

static int parse_int(const char *v, int lo, int hi, int *out) {
  char *end;
  long n;
  if (!*v) return 0;
  n = strtol(v, &end, 10);
  if (*end || n < lo || n > hi) return 0;
  *out = (int)n;
  return 1;
}

static int parse_bool(const char *v, int *out) {
  if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1")) { *out = 1; return 1; }
  if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0")) { *out = 0; return 1; }
  return 0;
}

// expand replaces %p with the pid and %% with %.
static const char *expand(const char *in, char *out, size_t cap) {
  size_t n = 0;
  for (const char *p = in; *p; p++) {
    char tmp[32];
    const char *s = tmp;
    if (p[0] == '%' && p[1] == 'p') { snprintf(tmp, sizeof tmp, "%d", (int)getpid()); p++; }
    else if (p[0] == '%' && p[1] == '%') { tmp[0] = '%'; tmp[1] = 0; p++; }
    else { tmp[0] = *p; tmp[1] = 0; }
    size_t l = strlen(s);
    if (n + l + 1 > cap) return "prefix is too long";
    memcpy(out + n, s, l);
    n += l;
  }
  out[n] = 0;
  return NULL;
}

// parse_scaled reads a number with an optional unit (units: suffixes and
// their factors) into *out, at least lo.
static int parse_scaled(const char *v, const char *const *units, const long long *factors, long long lo, long long *out) {
  char *end;
  if (*v < '0' || *v > '9') return 0;
  double n = strtod(v, &end);
  long long f = 1;
  if (*end) {
    int i = 0;
    for (; units[i]; i++)
      if (!strcmp(end, units[i])) break;
    if (!units[i]) return 0;
    f = factors[i];
  }
  if (n * (double)f < (double)lo || n * (double)f > 9e18) return 0;
  *out = (long long)(n * (double)f);
  return 1;
}

static const char *set(orca_options *o, const char *key, const char *val) {
  if (!strcmp(key, "prefix")) {
    if (!*val) return "prefix= is empty";
    return expand(val, o->prefix, sizeof o->prefix);
  }
  if (!strcmp(key, "depth")) return parse_int(val, 0, ORCA_MAX_DEPTH, &o->depth) ? NULL : "depth= wants a number 0-256";
  if (!strcmp(key, "flush")) return parse_int(val, 10, 1000, &o->flush_ms) ? NULL : "flush= wants milliseconds 10-1000";
  if (!strcmp(key, "buffer")) return parse_int(val, 1, 1024, &o->buffer_mb) ? NULL : "buffer= wants megabytes 1-1024";
  if (!strcmp(key, "session")) {
    size_t n = strlen(val);
    if (!n || n >= sizeof o->session || strspn(val, "0123456789abcdefABCDEF") != n)
      return "session= wants 1-64 hex digits";
    memcpy(o->session, val, n + 1);
    return NULL;
  }
  if (!strcmp(key, "lockorder")) {
    if (!strcmp(val, "yes")) o->lock_order = ORCA_LOCK_ORDER_ALL;
    else if (!strcmp(val, "monitors")) o->lock_order = ORCA_LOCK_ORDER_MONITORS;
    else if (!strcmp(val, "no")) o->lock_order = ORCA_LOCK_ORDER_NO;
    else return "lockorder= wants yes, monitors or no";
    return NULL;
  }
  if (!strcmp(key, "kinds")) {
    if (!strcmp(val, "all")) o->seed_only = 0;
    else if (!strcmp(val, "seed")) o->seed_only = 1;
    else return "kinds= wants all or seed";
    return NULL;
  }
  if (!strcmp(key, "maxsize")) {
    static const char *const u[] = {"k", "K", "kB", "KB", "M", "MB", "G", "GB", NULL};
    static const long long f[] = {1LL << 10, 1LL << 10, 1LL << 10, 1LL << 10, 1LL << 20, 1LL << 20, 1LL << 30, 1LL << 30};
    return parse_scaled(val, u, f, 1LL << 20, &o->max_size) ? NULL : "maxsize= wants a size of at least 1M (e.g. 16M, 1G)";
  }
  if (!strcmp(key, "maxage")) {
    static const char *const u[] = {"s", "m", "h", "d", NULL};
    static const long long f[] = {1000000000LL, 60000000000LL, 3600000000000LL, 86400000000000LL};
    return parse_scaled(val, u, f, 1000000000LL, &o->max_age_ns) ? NULL
                                                                   : "maxage= wants a duration of at least 1s (e.g. 30s, 10m, 2h)";
  }
  if (!strcmp(key, "cpu") || !strcmp(key, "wall")) {
    static const char *const u[] = {"us", "ms", "s", NULL};
    static const long long f[] = {1000LL, 1000000LL, 1000000000LL};
    int cpu = key[0] == 'c';
    long long *out = cpu ? &o->cpu_ns : &o->wall_ns, v = 0;
    if (!strcmp(val, "off")) {
      *out = 0;
      return NULL;
    }
    if (!parse_scaled(val, u, f, cpu ? 100000LL : 1000000LL, &v) || v > 10000000000LL || !strpbrk(val, "us"))
      return cpu ? "cpu= wants a duration 100us-10s (e.g. 10ms) or off" : "wall= wants a duration 1ms-10s (e.g. 50ms) or off";
    *out = v;
    return NULL;
  }
  if (!strcmp(key, "cpu_clock")) {
    if (!strcmp(val, "perf")) o->cpu_timer = 0;
    else if (!strcmp(val, "timer")) o->cpu_timer = 1;
    else return "cpu_clock= wants perf or timer";
    return NULL;
  }
  if (!strcmp(key, "wall_threads")) return parse_int(val, 1, 1024, &o->wall_threads) ? NULL : "wall_threads= wants a number 1-1024";
  if (!strcmp(key, "format")) {
    o->format_set = 1;
    if (!strcmp(val, "seed")) o->compact = 0;
    else if (!strcmp(val, "compact")) o->compact = 1;
    else return "format= wants seed or compact";
    return NULL;
  }
  if (!strcmp(key, "errors")) {
    if (!*val || strlen(val) >= sizeof o->errors) return "errors= wants a file path";
    memcpy(o->errors, val, strlen(val) + 1);
    return NULL;
  }
  if (!strcmp(key, "lease")) return parse_bool(val, &o->lease) ? NULL : "lease= wants yes or no";
  if (!strcmp(key, "clobber")) return parse_bool(val, &o->clobber) ? NULL : "clobber= wants yes or no";
  if (!strcmp(key, "thread_cpu")) {
    if (!strcmp(val, "off") || !strcmp(val, "0")) o->thread_cpu_ms = 0;
    else if (!parse_int(val, 100, 60000, &o->thread_cpu_ms)) return "thread_cpu= wants milliseconds 100-60000 or off";
    return NULL;
  }
  if (!strcmp(key, "standby")) return parse_bool(val, &o->standby) ? NULL : "standby= wants yes or no";
  if (!strcmp(key, "snapshot")) return parse_bool(val, &o->snapshot) ? NULL : "snapshot= wants yes or no";
  snprintf(errbuf, sizeof errbuf, "unknown option '%s'", key);
  return errbuf;
}

const char *options_parse(const char *text, orca_options *o) {
  memset(o, 0, sizeof *o);
  o->depth = 16;
  o->flush_ms = 200;
  o->cpu_ns = 10000000LL;
  o->wall_ns = 50000000LL;
  o->wall_threads = 8;
  o->buffer_mb = 32;
  o->thread_cpu_ms = 1000;
  o->clobber = 1;
  // The monitors by default: read from the thread's own frames, or asked off
  // the contending thread (docs/agent.md, "Held monitors").
  o->lock_order = ORCA_LOCK_ORDER_MONITORS;
  expand("orca-%p", o->prefix, sizeof o->prefix);
  if (!text || !*text) return NULL;
  snprintf(o->text, sizeof o->text, "%s", text);
  if (!strchr(text, '=')) {
    // The seed's form: the whole option string is the prefix.
    return expand(text, o->prefix, sizeof o->prefix);
  }
  char *copy = strdup(text), *save = NULL;
  const char *err = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) {
      snprintf(errbuf, sizeof errbuf, "malformed option '%s' (want key=value)", tok);
      err = errbuf;
      break;
    }
    *eq = 0;
    err = set(o, tok, eq + 1);
    if (err && err != errbuf) {
      snprintf(errbuf, sizeof errbuf, "%s (got '%s')", err, eq + 1);
      err = errbuf;
    }
  }
  free(copy);
  if (!err && (o->max_size || o->max_age_ns)) {
    // Bounds need chunks that read on their own: the compact encoding's.
    if (o->format_set && !o->compact) return "maxsize= and maxage= need format=compact (the seed's text has no chunks)";
    o->compact = 1;
  }
  return err;
}

orca_switches switches;

// on: a switch set to 1; on_any: to anything but "" and "0"; positive: its
// number, 0 when not a positive one.
static int on(const char *v) { return v && *v == '1'; }
static int on_any(const char *v) { return v && *v && strcmp(v, "0"); }
static int positive(const char *v) { return v && atoi(v) > 0 ? atoi(v) : 0; }

// options_switches reads them once a library: the environment does not
// change them later, and a second attach must not rewrite what hooks read.
void options_switches(void) {
  static atomic_int read;
  if (atomic_exchange(&read, 1)) return;
  orca_switches s = {0};
  const char *v = getenv("ORCA_VERIFY_STACKS");
  s.verify_stacks = v && (*v == '1' || *v == '2') ? *v - '0' : 0;
  s.verify_entered = on_any(getenv("ORCA_VERIFY_ENTERED"));
  v = getenv("ORCA_VERIFY_LIVE_HOOKS");
  s.verify_live_hooks = !on_any(v) ? 0 : !strcmp(v, "2") ? 2 : 1;
  s.verify_compact = on(getenv("ORCA_VERIFY_COMPACT"));
  s.time_stacks = on(getenv("ORCA_TIME_STACKS"));
  s.time_writer = on(getenv("ORCA_TIME_WRITER"));
  v = getenv("ORCA_WALK_CACHE");
  s.walk_cache_off = v && *v == '0';
  s.test_walk_fault = positive(getenv("ORCA_TEST_WALK_FAULT"));
  v = getenv("ORCA_TEST_FAULTS");
  s.test_faults = v && *v ? v : NULL;
  s.test_owner_slots = positive(getenv("ORCA_TEST_OWNER_SLOTS"));
  s.test_slow_sample_us = positive(getenv("ORCA_TEST_SLOW_SAMPLE_US"));
  s.test_bogus_method = positive(getenv("ORCA_TEST_BOGUS_METHOD"));
  int slow = positive(getenv("ORCA_TEST_SLOW_HELD_MS"));
  s.test_slow_held_ms = slow <= 10000 ? slow : 0;
  slow = positive(getenv("ORCA_TEST_PREEMPT_HELD_MS"));
  s.test_preempt_held_ms = slow <= 10000 ? slow : 0;
  slow = positive(getenv("ORCA_TEST_SLOW_NOTIFY_MS"));
  s.test_slow_notify_ms = slow <= 10000 ? slow : 0;
  slow = positive(getenv("ORCA_TEST_SLOW_LISTING_MS"));
  s.test_slow_listing_ms = slow <= 10000 ? slow : 0;
  slow = positive(getenv("ORCA_TEST_WALL_SIGNAL_MS"));
  s.test_wall_signal_ms = slow <= 1000 ? slow : 0;
  s.held_in_thread = on(getenv("ORCA_HELD_IN_THREAD"));
  s.time_held = on(getenv("ORCA_TIME_HELD"));
  s.time_clinit = on(getenv("ORCA_TIME_CLINIT"));
  s.held_jvmti = on(getenv("ORCA_HELD_JVMTI"));
  s.held_check = on(getenv("ORCA_HELD_CHECK"));
  if (s.test_slow_sample_us > 1000000) s.test_slow_sample_us = 1000000;
  int gap = positive(getenv("ORCA_TEST_ATTACH_GAP_MS"));
  s.test_attach_gap_ms = gap <= 10000 ? gap : 0;
  v = getenv("ORCA_JAVA_TOOL_OPTIONS");
  s.java_tool_options = v && *v ? v : NULL;
  switches = s;
}

const char *options_mark(void) { return getenv("ORCA_AGENT_LOADED"); }
