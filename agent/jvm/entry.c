// Agent entry: options, capabilities, the callback table, and the VM
// life cycle (start recording at load, finish the files at VM death).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hooks/clinit.h"
#include "core/counters.h"
#include "core/arch.h"
#include "hotspot/asgct.h"
#include "core/clock.h"
#include "hotspot/hsstat.h"
#include "hooks/inject.h"
#include "hooks/held.h"
#include "stacks/methods.h"
#include "stacks/objclass.h"
#include "hooks/monitor.h"
#include "hooks/natives.h"
#include "hotspot/objhash.h"
#include "core/orca.h"
#include "hotspot/owner.h"
#include "hooks/park.h"
#include "threads/attached.h"
#include "threads/pending.h"
#include "threads/samples.h"
#include "jvm/snapshot.h"
#include "record/ring.h"
#include "record/tcpu.h"
#include "hotspot/safe.h"
#include "threads/threads.h"
#include "hotspot/vmstructs.h"
#include "hotspot/vthread.h"
#include "hotspot/walk.h"
#include "jvm/lease.h"
#include "record/writer.h"

static void prop(const char *key, const char *name) {
  char *v = NULL;
  if ((*jvmti)->GetSystemProperty(jvmti, name, &v) == JVMTI_ERROR_NONE && v) {
    counters_prop(key, v);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)v);
  }
}

// java_version: java.version is set by Java code (VersionProps), which
// JVMTI's properties do not see; the agent runs none (jclass.h). It is the
// JDK's release file's JAVA_VERSION, else java.vm.version up to its build
// ("17.0.15+6-Debian-1deb12u1": 17.0.15).
static void java_version(void) {
  char *home = NULL, path[4200], line[256], v[128] = "";
  if ((*jvmti)->GetSystemProperty(jvmti, "java.home", &home) == JVMTI_ERROR_NONE && home) {
    snprintf(path, sizeof path, "%s/release", home);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)home);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
      if (sscanf(line, "JAVA_VERSION=\"%127[^\"]\"", v) == 1) break;
      v[0] = 0;
    }
    if (f) fclose(f);
  }
  char *vm = NULL;
  if (!v[0] && (*jvmti)->GetSystemProperty(jvmti, "java.vm.version", &vm) == JVMTI_ERROR_NONE && vm) {
    snprintf(v, sizeof v, "%.*s", (int)strcspn(vm, "+"), vm);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)vm);
  }
  if (v[0]) counters_prop(ORCA_INFO_JAVA_VERSION, v);
}

// live_times: how long live_init's parts took (ms), and how many classes'
// methods got their jmethodIDs, for an attach's .info attach_ms.
static struct {
  double threads, ids, all;
  int classes;
} live_times;

static double ms_since(int64_t t0) { return (double)(clock_now() - t0) / 1e6; }

// Phase 3, in the live phase: what needs a running VM and a Java thread
// (env, t) — the identity-hash and collector facts, HotSpot's timer, the
// threads alive now, the fields parks read, the jmethodIDs of the classes
// loaded so far (at load only: an attach makes them as walks meet their
// methods, asgct.h), the walker of long waits. At load, from VMInit; an
// attach calls it at once. Returns the threads alive (their ThreadStarted
// written).
static int live_init(JNIEnv *env, jthread t, int attach) {
  int64_t t0 = clock_now();
  methods_live();
  objhash_ready();
  hsstat_enable(env);
  vthread_init(env, t);
  int64_t t1 = clock_now();
  int alive = threads_existing(env);
  live_times.threads = ms_since(t1);
  park_init(env, t);
  clinit_init(env);
  t1 = clock_now();
  live_times.classes = asgct_ready(env, !attach);
  live_times.ids = ms_since(t1);
  // Samples walk any method on any stack, which needs its jmethodID: an
  // attach leaves them to the writer's thread (samples.h), not to the
  // Attach Listener's time.
  samples_live(attach ? env : NULL);
  live_times.all = ms_since(t0);
  const char *err = pending_start_walker(env, t);
  if (err) {
    counters_prop(ORCA_INFO_WARNING, err);
    orca_log("%s: a wait longer than a second is written without its stack", err);
  }
  held_start(env, t);   // the held monitors' thread, when they are asked
  return alive;
}

// VMStart: the JDK's own start-up Java code (System.initPhase1) runs from
// here, before VMInit; it initialises classes under their init locks, on
// which a thread may block (the launcher's, in no Java frame, on a lock the
// Finalizer holds): clinit tells an int[] from here on.
static void JNICALL on_vm_start(jvmtiEnv *j, JNIEnv *env) {
  (void)j;
  clinit_init(env);
}

static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j;
  java_version();
  prop(ORCA_INFO_JAVA_VM, "java.vm.name");
  prop(ORCA_INFO_JAVA_VM_VERSION, "java.vm.version");
  prop(ORCA_INFO_JAVA_HOME, "java.home");
  prop(ORCA_INFO_COMMAND, "sun.java.command");
  inject_bind_own(env);
  held_bind(env);
  if (orca_recording()) live_init(env, t, 0);
  // ORCA_VERIFY_LIVE_HOOKS: the hooked classes' rewrite by retransformation, as an
  // attach applies it, then as a second attach does (inject.h).
  for (int i = 0; i < 2 && orca_recording() && inject_live_test(); i++) {
    const char *err = inject_live(env);
    if (err) {
      counters_prop(ORCA_INFO_WARNING, err);
      orca_log("%s", err);
    }
  }
}

static void on_round(JNIEnv *env);

static void JNICALL on_class_prepare(jvmtiEnv *j, JNIEnv *env, jthread t, jclass c) {
  asgct_on_class_prepare(j, env, t, c);
  vthread_class_prepared(env, c);
  inject_class_prepared(env, c);
}

static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  (void)j; (void)env;
  if (atomic_exchange(&orca_state, 2) != 1) return;
  pending_stop_walker();
  natives_report();
  lease_close();
  samples_stop();
  writer_stop();
}

static void warn(const char *what, jvmtiError e) {
  char msg[256];
  snprintf(msg, sizeof msg, "%s failed (JVMTI error %d)", what, (int)e);
  counters_prop(ORCA_INFO_WARNING, msg);
  orca_log("%s", msg);
}

static int enable(jvmtiEvent ev, const char *what) {
  jvmtiError e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, ev, NULL);
  if (e != JVMTI_ERROR_NONE) { warn(what, e); return 0; }
  return 1;
}

// Start-up, in phases (docs/agent.md, "Start-up"), so that an attach adds
// a path rather than a copy:
//   1. core_init: options, the JVMTI environment, buffers, the output files,
//      the HotSpot layer, the wiring of the modules (callbacks and tables
//      the lower ones take) — in any phase;
//   2. hooks: the capabilities and callbacks; those that need the JVM's
//      load (the early class hook: Thread.join and Semaphore wrapped as
//      they load; natives bound at start) and those that work live;
//   3. live_init (above), in the live phase;
//   4. start_recording: the writer runs, the events are enabled.

// Phase 1 has two parts. core_once is what a JVM needs once, whatever
// recordings it makes (an attach after an earlier recording finds it done:
// the library stays loaded): the JVMTI environment, the buffers, the
// HotSpot layer, the wiring of the modules. Its facts for .info are kept
// (fact) and stated again in each recording (state_facts).
#define MAX_FACTS 16
static struct { const char *key; char *value; } facts[MAX_FACTS];
static int nfacts;

static void fact(const char *key, const char *value) {
  if (nfacts < MAX_FACTS && value) {
    facts[nfacts].key = key;
    facts[nfacts++].value = strdup(value);
  }
}

// fact_now is fact for a fact found once the recording began.
static void fact_now(const char *key, const char *value) {
  fact(key, value);
  counters_prop(key, value);
}

static void state_facts(void) {
  for (int i = 0; i < nfacts; i++)
    if (facts[i].value) counters_prop(facts[i].key, facts[i].value);
}

// LIVE_WAIT_MS bounds an attach's wait for the JVM's live phase (get_env).
#define LIVE_WAIT_MS 10000

// get_env is GetEnv for an attach that may come before the JVM is live.
// HotSpot catches SIGQUIT and serves an attach (Threads::create_vm:
// os::initialize_jdk_signal_support, then the attach listener) before it
// initialises the module system and the system class loader (initPhase2,
// initPhase3: a slow system class loader, a loaded machine) and enters the
// live phase. JDK 21+ refuse the load until then ("only permitted in the
// live phase": orca loads again); JDK 17-20 call Agent_OnAttach, where
// GetEnv answers JNI_EDETACHED (JvmtiExport::get_jvmti_interface: an
// environment only in the OnLoad and live phases). Returning would unload
// the library (and its copy for another user's JVM, remove_own_copy, below),
// so the Attach Listener waits here, in native: the JVM's start does not
// wait for it.
static jint get_env(JavaVM *vm, void **env, jint version) {
  jint got;
  for (int ms = 0; (got = (*vm)->GetEnv(vm, env, version)) == JNI_EDETACHED && ms < LIVE_WAIT_MS; ms += 5) usleep(5000);
  return got;
}

// not_live is core_once's answer when the JVM did not become live (a
// pointer compared, not a text: core_init tells its caller START_NOT_LIVE).
static const char not_live[] = "the JVM did not finish starting (no JVMTI live phase) within 10 s of the attach; the agent is disabled: "
                               "attach again once it runs";

static const char *core_once(JavaVM *vm) {
  static int done;
  static char why[200];
  const char *err;
  if (done) return NULL;
  jint got = get_env(vm, (void **)&jvmti, JVMTI_VERSION_11);
  if (got == JNI_EDETACHED) return not_live;
  if (got != JNI_OK) return "this JVM has no JVMTI 11; the agent is disabled";
  if ((err = ring_init((size_t)opt.buffer_mb << 20)) || (err = methods_init())) {
    snprintf(why, sizeof why, "%s; the agent is disabled", err);
    return why;
  }
  // A buffer of its own (RING_THREAD_BYTES, 2 MB) for each of the first
  // buffer=/2 threads: as much again as the shards, touched as used.
  ring_threads(opt.buffer_mb / 2 > 0 ? opt.buffer_mb / 2 : 1);
  char *spec = NULL;
  if ((*jvmti)->GetSystemProperty(jvmti, "java.vm.specification.version", &spec) == JVMTI_ERROR_NONE && spec) {
    orca_feature = atoi(spec);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)spec);
  }
  fact(ORCA_INFO_ENTERED_CLOCK, clock_init());
  hsstat_init();
  monitor_init();
  monitor_join_hooks(inject_join_wait, inject_join_waited);
  // The locks held at each contended acquisition (held.h): the monitors at
  // a monitor's enter by default (lockorder=monitors) or yes, a park's with yes.
  monitor_lock_order(&(monitor_held){held_on, held_async, held_locks_on, held_virtual, held_own, held_asked, held_time_own, held_waited, held_read, held_write, held_time_enter, held_time_call});
  park_lock_order(held_locks_on, held_read, held_write, held_lock);
  inject_add_at_load(held_specs);
  pending_on_round(on_round);
  // The wiring: the lower modules take callbacks and tables (docs/agent.md,
  // "Module structure").
  natives_add(monitor_bind, monitor_report);
  natives_add(park_bind, park_report);
  inject_add("java/lang/VirtualThread", vpark_specs, (void *)Java_java_lang_VirtualThread_orca_00024hook,
             (void *)Java_java_lang_VirtualThread_orca_00024hookJ);
  writer_set_sources(&(writer_sources){.deferred = pending_flush, .walker_alive = pending_walker_alive,
                                        .walk_all = pending_walk, .meta = methods_take,
                                        .describe = methods_describe, .thread_exit = methods_detach,
                                        .samples = samples_drain,
                                        .poll = tcpu_poll, .polled = tcpu_polled, .forget_class = objclass_forget});
  hs_init();
  // Before anything reads VM memory. -Xcheck:jni reports a SIGSEGV handler
  // other than the JVM's (signals_posix.cpp, check_signal_handler).
  fact(ORCA_INFO_HOTSPOT_SAFE_READ, safe_init(vms_flag("CheckJNICalls") == 1));
  counters_source(CNT_HOTSPOT_FAULTS, safe_faults);
  if ((err = owner_init())) fact(ORCA_INFO_WARNING, err);
  if ((err = asgct_init())) fact(ORCA_INFO_WARNING, err);
  walk_init();
  fact(ORCA_INFO_HOTSPOT_WALKER, walk_status());
  fact(ORCA_INFO_HOTSPOT_OWNER, owner_caps());
  fact(ORCA_INFO_HOTSPOT_MONITOR_HASH, owner_hash_caps());
  fact(ORCA_INFO_HOTSPOT_FACTS, hs_facts_text());
  fact(ORCA_INFO_HOTSPOT_ARCH, ARCH_NAME);
  done = 1;
  return NULL;
}

// What a failed start says to the caller of an attach (the `load`
// command's return code; orca record --pid explains each).
// START_NO_THREAD: a thread of the agent's could not be made (the writer:
// the process at its limit of threads). cmd/orca/attach.go has the same
// numbers (TestAttachCodesAgree).
enum { START_OK, START_BAD_OPTIONS, START_BUSY, START_CANNOT_WRITE, START_NO_JVMTI, START_NOT_RECORDING, START_NOT_LIVE,
       START_NO_THREAD };

// The mark of a running recording is in the process's environment, with
// the pid, so that another copy of the agent (another library instance
// with its own statics: orca record inside orca record, two -agentpath
// options, an attach of another build) sees it, and a JVM the application
// starts (which inherits it) is not mistaken for this one. "PID:" alone:
// no recording runs (it ended; the variable is set, never unset: unsetenv
// would move the environment under other threads' getenv).
static void mark(const char *prefix) {
  char val[4300];
  snprintf(val, sizeof val, "%d:%s", (int)getpid(), prefix);
  setenv("ORCA_AGENT_LOADED", val, 1);
}

static const char *marked(void) {
  char m[64];
  int ml = snprintf(m, sizeof m, "%d:", (int)getpid());
  const char *loaded = options_mark();
  return loaded && !strncmp(loaded, m, (size_t)ml) && loaded[ml] ? loaded + ml : NULL;
}

// core_init is phase 1: NULL, or why the agent does not record (then
// *code says why: START_BAD_OPTIONS stops a starting JVM; the message ""
// when it was told already: another agent records this JVM).
static const char *core_init(JavaVM *vm, const char *options, int *code) {
  static char why[8400];
  const char *err = options_parse(options, &opt);
  *code = START_OK;
  if (err) {
    *code = START_BAD_OPTIONS;
    snprintf(why, sizeof why, "bad agent options: %s", err);
    return why;
  }
  orca_vm = vm;
  const char *other = marked();
  if (other) {
    *code = START_BUSY;
    snprintf(why, sizeof why, "an Orca agent already records this JVM (to %s); this one (%s) does not record", other,
             opt.prefix);
    orca_log("%s", why);
    writer_refused(why);
    return "";   // told: not a failure of this JVM's recording
  }
  if ((err = core_once(vm))) {
    *code = err == not_live ? START_NOT_LIVE : START_NO_JVMTI;
    return err;
  }
  static int recordings;
  if (recordings++) {
    // A recording before this one, in this library (an attach after it
    // stopped): what it wrote is not this one's (counters and facts, named
    // methods, classes and objects, threads' ThreadStarted, records stored
    // after its last flush).
    counters_reset();
    methods_reset();
    objclass_reset();
    clinit_reset();
    threads_new_recording();
    pending_new_recording();
    hsstat_new_recording();
    ring_clear();
  }
  if ((err = writer_open())) {
    *code = START_CANNOT_WRITE;
    snprintf(why, sizeof why, "%s; the agent is disabled and the application runs without recording", err);
    return why;
  }
  mark(writer_prefix());
  state_facts();
  // Every timed Object.wait gets its ObjectWaitTimeout line (pending.c).
  if (!opt.seed_only) counters_prop(ORCA_INFO_WAIT_TIMEOUTS, "yes");
  if (!opt.seed_only) counters_prop(ORCA_INFO_CLASS_INIT_OPEN, "yes");   // hooks/clinit.c's rounds
  // Threads' scheduler times (ThreadCPU: record/tcpu.h), not a kind of the
  // manual's.
  const char *no_cpu = tcpu_start(opt.seed_only ? 0 : opt.thread_cpu_ms);
  if (no_cpu) counters_prop(ORCA_INFO_WARNING, no_cpu);
  if (!opt.seed_only) {
    char ms[16];
    snprintf(ms, sizeof ms, "%d", tcpu_period_ms());
    counters_prop(ORCA_INFO_THREAD_CPU_PERIOD_MS, ms);
  }
  return NULL;
}

// The two ways in: what differs between a JVM that loads the agent and one
// it attaches to is decided here, in the start-up phases, and nowhere in
// the event path (docs/agent.md, "One way into the event path").
// caps: the capabilities that way asks for beyond what both take, trimmed
// to what the JVM offers (NULL, or why the agent cannot run); added: what
// follows once they are taken; first_event: the first of `events` a
// recording enables (VMInit only at load).
typedef struct {
  const char *(*caps)(jvmtiCapabilities *want, const jvmtiCapabilities *have);
  void (*added)(const jvmtiCapabilities *want);
  int first_event;
} start_way;

// At load: what only a loading JVM gives. Thread is loaded before any other
// phase: wrapping Thread.join needs the class hook in the primordial phase.
static const char *caps_at_load(jvmtiCapabilities *want, const jvmtiCapabilities *have) {
  want->can_generate_early_class_hook_events = have->can_generate_early_class_hook_events;
  want->can_generate_early_vmstart = have->can_generate_early_vmstart;
  // The hooked classes' rewrite by retransformation (its test switch).
  if (inject_live_test()) inject_live_capabilities(want, have);
  return NULL;
}

static void added_at_load(const jvmtiCapabilities *want) {
  // Taken while the JVM loads (the live form's test switch): HotSpot
  // records the dependencies a cheap redefinition needs (inject.h).
  if (want->can_retransform_classes) inject_dependencies_recorded();
  if (!want->can_generate_early_class_hook_events)
    counters_prop(ORCA_INFO_WARNING, "no early class hook: Thread.join is not recorded");
}

// At an attach: the hooked classes rewritten by retransformation. In the live phase
// HotSpot offers fewer (never the two early ones: they are on-load
// capabilities): take what it has and name what is missing as a fact, not
// a warning; the events and owners need only what it always offers, and
// the rare object left unnamed for want of one is counted
// (attached_missed) where it happens.
static const char *caps_live(jvmtiCapabilities *want, const jvmtiCapabilities *have) {
  static char why[200];
  jvmtiCapabilities asked = *want;
  for (size_t i = 0; i < sizeof *want; i++) ((unsigned char *)want)[i] &= ((const unsigned char *)have)[i];
  char without[120] = "";
  if (asked.can_get_current_contended_monitor && !want->can_get_current_contended_monitor)
    strcat(without, ",can_get_current_contended_monitor");
  if (asked.can_get_owned_monitor_info && !want->can_get_owned_monitor_info) strcat(without, ",can_get_owned_monitor_info");
  if (asked.can_get_owned_monitor_stack_depth_info && !want->can_get_owned_monitor_stack_depth_info)
    strcat(without, ",can_get_owned_monitor_stack_depth_info");
  if (without[0]) fact_now(ORCA_INFO_ATTACHED_WITHOUT, without + 1);
  if (!want->can_generate_monitor_events || !want->can_generate_native_method_bind_events) {
    snprintf(why, sizeof why, "this JVM offers no monitor or native-bind events to an attached agent; the agent is disabled");
    return why;
  }
  return NULL;
}

static const char *caps_at_attach(jvmtiCapabilities *want, const jvmtiCapabilities *have) {
  inject_live_capabilities(want, have);
  return caps_live(want, have);
}

static void added_at_attach(const jvmtiCapabilities *want) { (void)want; }

// An `orca threads` snapshot rewrites no class: it takes no
// can_retransform_classes, which on JDK 17-22 would make HotSpot record
// the dependencies of every method compiled from then on (standby, below).
static const start_way way_load = {caps_at_load, added_at_load, 0};
static const start_way way_attach = {caps_at_attach, added_at_attach, 2};   // no VMStart, VMInit: the VM runs
static const start_way way_snapshot = {caps_live, added_at_attach, 2};

// have_compiled_load: the JVM gave the capability of CompiledMethodLoad
// events (precise_jit).
static int have_compiled_load;

// on_compiled_method_load is the callback of CompiledMethodLoad, enabled
// only for what enabling it does (precise_jit): nothing.
static void JNICALL on_compiled_method_load(jvmtiEnv *j, jmethodID m, jint size, const void *addr, jint map_length,
                                            const jvmtiAddrLocationMap *map, const void *info) {
  (void)j; (void)m; (void)size; (void)addr; (void)map_length; (void)map; (void)info;
}

// precise_jit makes the JIT record the debug records of the code it
// compiles from now on at every instruction it can, not only at
// safepoints, while the CPU sampler runs: HotSpot turns DebugNonSafepoints
// on (where the command line left it at its default) for as long as a
// JVMTI agent wants CompiledMethodLoad events. A sample in compiled code
// names its frames from the record nearest its pc: without them, the next
// safepoint's, which can be an inlined callee's that has not begun (one
// frame too deep) or a later line (docs/agent.md, "The sample path").
// async-profiler does the same. The cost is the JIT's: larger debug
// records (in the code cache) and the event's posting, once a method
// compiled; no application thread is involved.
static void precise_jit(int on) {
  if (!on) {
    if (have_compiled_load) (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
    return;
  }
  const char *why = !samples_on() || !opt.cpu_ns ? "no: the CPU sampler is off"
                    : !have_compiled_load ? "no: the JVM refused the CompiledMethodLoad capability"
                    : enable(JVMTI_EVENT_COMPILED_METHOD_LOAD, "CompiledMethodLoad") ? "yes"
                                                                                      : "no: the event could not be enabled";
  counters_prop(ORCA_INFO_HOTSPOT_DEBUG_NON_SAFEPOINTS, why);
}

// hooks is phase 2: the capabilities and the callbacks, the way's own
// among them.
static const char *hooks(const start_way *way) {
  static char why[200];
  jvmtiCapabilities want, have;
  memset(&want, 0, sizeof want);
  memset(&have, 0, sizeof have);
  (*jvmti)->GetPotentialCapabilities(jvmti, &have);
  want.can_generate_monitor_events = 1;
  want.can_generate_native_method_bind_events = 1;
  want.can_generate_garbage_collection_events = 1;
  want.can_get_current_contended_monitor = 1;
  want.can_get_owned_monitor_info = 1;   // owner.c: a held monitor not hashed yet
  want.can_get_owned_monitor_stack_depth_info = 1;   // monitor.c: what a contending thread holds
  want.can_get_line_numbers = 1;
  want.can_get_bytecodes = 1;       // clinit.c: the frame at an int[] monitor
  want.can_get_constant_pool = 1;   // clinit.c: the class it initialises
  want.can_get_source_file_name = 1;
  want.can_generate_all_class_hook_events = have.can_generate_all_class_hook_events;
  want.can_generate_compiled_method_load_events = have.can_generate_compiled_method_load_events;   // precise_jit
  vthread_capabilities(&want, &have);
  const char *err = way->caps(&want, &have);
  if (err) return err;
  jvmtiError e = (*jvmti)->AddCapabilities(jvmti, &want);
  if (e != JVMTI_ERROR_NONE) {
    snprintf(why, sizeof why, "cannot get the JVMTI capabilities it needs (error %d); the agent is disabled", (int)e);
    return why;
  }
  way->added(&want);
  held_capability(want.can_get_owned_monitor_stack_depth_info);
  have_compiled_load = want.can_generate_compiled_method_load_events;

  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.VMStart = on_vm_start;
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.ThreadStart = threads_on_start;
  cb.ThreadEnd = threads_on_end;
  cb.MonitorWaited = monitor_on_waited;
  cb.MonitorContendedEnter = monitor_on_contended_enter;
  cb.MonitorContendedEntered = monitor_on_contended_entered;
  cb.NativeMethodBind = natives_on_bind;
  cb.GarbageCollectionStart = objhash_on_gc_start;
  cb.GarbageCollectionFinish = objhash_on_gc_finish;
  cb.ClassFileLoadHook = inject_on_class_file_load;
  cb.ClassPrepare = on_class_prepare;
  cb.ClassLoad = asgct_on_class_load;
  cb.CompiledMethodLoad = on_compiled_method_load;
  threads_virtual_init();
  if ((e = vthread_set_callbacks(&cb)) != JVMTI_ERROR_NONE) {
    snprintf(why, sizeof why, "cannot set JVMTI callbacks (error %d); the agent is disabled", (int)e);
    return why;
  }
  return NULL;
}

// blocker_of is park_blocker for the attach's snapshot (another thread's
// park: t, its hash thread, written on shard). park_blocker reads of the
// state only its hash and shard: one state serves every call (an attach
// runs one at a time, under rec_lock), not a calloc and free of a state
// (4.3 kB) for each of 100 000 parked virtual threads.
static uint32_t blocker_of(JNIEnv *env, uint32_t thread, int shard, int64_t ts, jthread t, uint32_t *owner, int *mode) {
  static tstate s;
  s.hash = thread;
  s.shard = shard;
  return park_blocker(env, &s, ts, t, owner, mode);
}

// The virtual threads at an attach (JVMTI lists only platform threads),
// found in the JDK's registries (vthread_each): each gets its ThreadStarted
// and, parked or sleeping (unmounted, or pinned to its carrier), its state
// as snapshot_threads writes a platform thread's.
typedef struct {
  int64_t ts;
  int alive, blocked, skipped;
} at_attach;

static void virtual_at_attach(JNIEnv *env, jthread vt, void *arg) {
  at_attach *a = arg;
  // A snapshot has no writer thread: the rings are drained on this one as
  // they fill (100 000 virtual threads write more than they hold).
  if (opt.snapshot && a->alive % 2048 == 2047) writer_drain();
  int shard = 0;
  jint st = 0;
  // A snapshot reads its state and stack in one call, one handshake with
  // it (GetThreadState and GetStackTrace were two: 4 % of the Attach
  // Listener's time on 100 000 parked virtual threads); a list of one
  // thread is a handshake, not a safepoint (HotSpot 21-25).
  jvmtiStackInfo *si = NULL;
  if (opt.snapshot && (*jvmti)->GetThreadListStackTraces(jvmti, 1, &vt, SNAPSHOT_VIRTUAL_DEPTH, &si) != JVMTI_ERROR_NONE)
    si = NULL;
  if (si) st = si->state;
  uint32_t h = threads_virtual_existing_at(env, vt, a->ts, &shard, &st);
  if (h) {
    a->alive++;
    int r = snapshot_virtual(env, vt, st, h, shard, a->ts, blocker_of, si);
    if (r > 0) a->blocked++;
    else if (r < 0) a->skipped++;
  }
  if (si) (*jvmti)->Deallocate(jvmti, (unsigned char *)si);
}

// The events a recording enables, in order; a stop disables them again.
static const struct {
  jvmtiEvent ev;
  const char *name;
} events[] = {
    {JVMTI_EVENT_VM_START, "VMStart"},
    {JVMTI_EVENT_VM_INIT, "VMInit"},
    {JVMTI_EVENT_VM_DEATH, "VMDeath"},
    {JVMTI_EVENT_THREAD_START, "ThreadStart"},
    {JVMTI_EVENT_THREAD_END, "ThreadEnd"},
    {JVMTI_EVENT_MONITOR_WAITED, "MonitorWaited"},
    {JVMTI_EVENT_MONITOR_CONTENDED_ENTER, "MonitorContendedEnter"},
    {JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, "MonitorContendedEntered"},
    {JVMTI_EVENT_NATIVE_METHOD_BIND, "NativeMethodBind"},
    {JVMTI_EVENT_GARBAGE_COLLECTION_START, "GarbageCollectionStart"},
    {JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, "GarbageCollectionFinish"},
    {JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, "ClassFileLoadHook"},
    {JVMTI_EVENT_CLASS_PREPARE, "ClassPrepare"},
    {JVMTI_EVENT_CLASS_LOAD, "ClassLoad"},
};
#define NEVENTS (int)(sizeof events / sizeof events[0])

// sampling starts the samplers (threads/samples.h) before the threads
// are listed (an attach lists them before start_recording); once a recording.
static void sampling(void) {
  static int tried;   // the recording (threads_recording) it was tried for
  if (samples_on() || tried == threads_recording()) return;
  tried = threads_recording();
  const char *w = samples_start();
  if (w) {
    counters_prop(ORCA_INFO_WARNING, w);
    orca_log("%s", w);
  }
}

// start_recording is phase 4: the writer runs and the events are enabled.
static const char *start_recording(const start_way *way) {
  // The monitors a thread holds at each contended enter (monitor.c): known
  // once the capabilities are (hooks).
  counters_prop(ORCA_INFO_HELD_MONITORS, held_monitors_fact());
  counters_prop(ORCA_INFO_HELD_LOCKS, held_locks_fact());
  sampling();
  const char *err = writer_start();
  if (err) return err;
  monitor_restart();
  atomic_store(&orca_state, 1);
  for (int i = way->first_event; i < NEVENTS; i++) enable(events[i].ev, events[i].name);
  vthread_enable();
  precise_jit(1);
  return NULL;
}

// pass_to_children: the JVMs this one starts load the agent too. orca
// record puts the agent on a java command's own command line rather than in
// JAVA_TOOL_OPTIONS, whose every reader prints "Picked up
// JAVA_TOOL_OPTIONS: -agentpath:..." on the program's stderr, and gives
// in ORCA_JAVA_TOOL_OPTIONS the value JAVA_TOOL_OPTIONS would have had. It
// goes into this process's environment now, at load, before the JVM runs a
// thread of its own or Java code (ProcessBuilder copies the environment when
// first used), so the JVMs the program starts inherit it as before.
static void pass_to_children(void) {
  if (switches.java_tool_options) setenv("JAVA_TOOL_OPTIONS", switches.java_tool_options, 1);
}

// standby (standby=yes at load): no recording, no callbacks, no files; the
// JVM is only made ready for a later `orca record --pid`. HotSpot records
// the dependencies of compiled code on the methods it inlines ("evol_method"
// dependencies) only while some agent holds can_redefine_classes or
// can_retransform_classes, and trusts them only if the capability was taken
// while the JVM loads (JvmtiExport::all_dependencies_are_recorded, set in
// jvmtiManageCapabilities.cpp's update() in the OnLoad phase). Otherwise the
// first redefinition (an attach's RetransformClasses of Thread and
// Semaphore) deoptimises every compiled method (VM_RedefineClasses::
// flush_dependent_code: "Marked all nmethods for deopt"), and a loaded server
// runs at a third of its speed while the JIT compiles everything again. JDK
// 23+ records them always (-XX:+AlwaysRecordEvolDependencies, the default;
// JDK-8324241), 17-22 do not. Taking the capability here and holding it for
// the JVM's life makes the attach deoptimise only the code that refers to
// the rewritten classes' methods. Never relinquished: HotSpot would stop
// recording the dependencies it then believes complete. The environment is
// this one's own, not the recordings' (core_once), and costs what JDK 23+
// costs by default (the dependencies' bytes in each compiled method).
static jint standby(JavaVM *vm) {
  jvmtiEnv *env = NULL;
  if ((*vm)->GetEnv(vm, (void **)&env, JVMTI_VERSION_11) != JNI_OK || !env) {
    orca_fail("option standby: this JVM has no JVMTI 11; a later attach deoptimises all compiled code once");
    return JNI_OK;
  }
  jvmtiCapabilities have, want;
  memset(&have, 0, sizeof have);
  memset(&want, 0, sizeof want);
  (*env)->GetPotentialCapabilities(env, &have);
  want.can_retransform_classes = 1;
  jvmtiError e = have.can_retransform_classes ? (*env)->AddCapabilities(env, &want) : JVMTI_ERROR_NOT_AVAILABLE;
  if (e != JVMTI_ERROR_NONE)
    orca_fail("option standby: cannot take can_retransform_classes (JVMTI error %d); a later attach deoptimises all compiled code once",
              (int)e);
  else
    inject_dependencies_recorded();   // a later attach (this library) may rewrite Semaphore (inject.h)
  return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  options_switches();
  pass_to_children();
  int code;
  if (!options_parse(options, &opt) && opt.standby) return standby(vm);
  if (opt.snapshot) {
    orca_fail("bad agent options: snapshot=yes is for an attach (orca threads PID); the agent is disabled");
    return JNI_OK;
  }
  const char *err = core_init(vm, options, &code);
  if (err && code == START_BAD_OPTIONS) {
    // The JVM stops (JNI_ERR): the reason, then what is valid.
    orca_fail("%s", err);
    fprintf(stderr, "%s\n", options_usage);
    return JNI_ERR;
  }
  // Phase 3 comes with VMInit (on_vm_init).
  if (!err && !(err = hooks(&way_load)) && !(err = start_recording(&way_load))) return JNI_OK;
  if (*err) orca_fail("%s%s", err, strstr(err, "disabled") ? "" : "; the agent is disabled");
  return JNI_OK;
}

// ---- Attach (docs/attach.md) ------------------------------------------------
//
// `orca record --pid` loads the library into the running JVM with the
// recording's options (HotSpot calls Agent_OnAttach on its Attach Listener
// thread, a Java thread), and stops it with a second load of the same
// library with `stop`: the library stays loaded, its statics outlive a
// recording, and a later attach starts a new recording in it. The return
// code is what the caller learns (START_*); the reason also goes to the
// JVM's stderr.

// rec_lock: one start or stop at a time — the Attach Listener's (one
// command at a time) and the lease's end on the walker thread.
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;

// stop_recording ends the running recording, whose state the caller turned
// from 1 to 0; by says who (.info stopped_by). On the walker thread (the
// lease's end: on_walker) it does not wait for the walker, which ends when
// its round returns.
static void stop_recording(JNIEnv *env, const char *by, int on_walker) {
  // The samplers first: AsyncGetCallTrace walks only while ClassLoad
  // events are on (a sample after would be lost).
  samples_stop();
  // Nothing of the agent's stays in the application's path: events off,
  // natives bound back to the JVM's functions; the rewritten methods of classes
  // (Thread.join, Semaphore) check orca_recording() and pass through.
  for (int i = 0; i < NEVENTS; i++) (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, events[i].ev, NULL);
  precise_jit(0);
  vthread_disable();
  natives_report();
  natives_restore(env);
  pending_stop_walker();
  // Its round may be naming a wait: the next recording starts from what it left.
  for (int i = 0; i < 200 && !on_walker && pending_walker_alive(); i++) usleep(10000);
  attached_forget(env);
  counters_prop(ORCA_INFO_STOPPED, "true");
  counters_prop(ORCA_INFO_STOPPED_BY, by);
  lease_close();
  writer_stopped_now();
  writer_stop();
  mark("");
}

// attach_stop ends the running recording, options "stop" or
// "stop,prefix=PREFIX" (only if it records to PREFIX).
static jint attach_stop(JNIEnv *env, const char *options) {
  const char *want = !strncmp(options, "stop,prefix=", 12) ? options + 12 : NULL;
  if (!orca_recording() || (want && strcmp(want, writer_prefix()) && strcmp(want, opt.prefix))) return START_NOT_RECORDING;
  int on = 1;
  if (!atomic_compare_exchange_strong(&orca_state, &on, 0)) return START_NOT_RECORDING;
  stop_recording(env, "stop", 0);
  return START_OK;
}

// on_round runs on the walker after each round: the states of the attach
// that are over, and the lease (lease.h), tested under rec_lock, which a
// start or stop holds while it opens or closes the lease: an attach
// command under way defers the test to the next round.
static void on_round(JNIEnv *env) {
  attached_poll(env);
  clinit_round(env);
  if (pthread_mutex_trylock(&rec_lock) != 0) return;
  int on = 1;
  if (orca_recording() && lease_lost() && atomic_compare_exchange_strong(&orca_state, &on, 0)) {
    orca_log("the recording to %s stops: orca record --pid, which started it, is gone (killed, or it let go of this JVM) "
             "and no longer holds its lease (%s.lease); the files are complete (.info stopped_by=lease)",
             writer_prefix(), writer_prefix());
    stop_recording(env, "lease", 1);
  }
  pthread_mutex_unlock(&rec_lock);
}

// attach_core is core_init for an attach: 1, or 0 with why told on the
// JVM's stderr and its code in *code.
static int attach_core(JavaVM *vm, const char *options, int *code) {
  const char *err = core_init(vm, options, code);
  if (!err) return 1;
  if (*code == START_BAD_OPTIONS) fprintf(stderr, "orca: %s\n%s\n", err, options_usage);
  else if (*err) orca_fail("%s", err);
  return 0;
}

// attach_facts writes the JVM's facts to .info and returns the calling
// thread (the Attach Listener).
static jthread attach_facts(void) {
  java_version();
  prop(ORCA_INFO_JAVA_VM, "java.vm.name");
  prop(ORCA_INFO_JAVA_VM_VERSION, "java.vm.version");
  prop(ORCA_INFO_JAVA_HOME, "java.home");
  prop(ORCA_INFO_COMMAND, "sun.java.command");
  jthread self = NULL;
  (*jvmti)->GetCurrentThread(jvmti, &self);
  return self;
}

// snapshot_now writes what every thread alive is doing now, at one time
// (jvm/snapshot.h), and its counts for .info.
static void snapshot_now(JNIEnv *env, jthread self) {
  park_init(env, self);
  vthread_init(env, self);   // virtual threads' names (their ids)
  int64_t ts = clock_now();
  char n[24];
  int alive = threads_existing_at(env, ts);
  if (opt.snapshot) writer_drain();
  int blocked = snapshot_threads(env, ts, blocker_of);
  at_attach va = {.ts = ts};
  int64_t listed = 0;
  const char *unseen = vthread_each(env, virtual_at_attach, &va, &listed);
  threads_virtual_listed_free();
  snprintf(n, sizeof n, "%d", alive + va.alive);
  counters_prop(ORCA_INFO_ALIVE_AT_ATTACH, n);
  snprintf(n, sizeof n, "%d", blocked + va.blocked);
  counters_prop(ORCA_INFO_BLOCKED_AT_ATTACH, n);
  if (hs_has(HS_VIRTUAL_THREADS)) {
    snprintf(n, sizeof n, "%d", va.alive);
    counters_prop(ORCA_INFO_VIRTUAL_AT_ATTACH, n);
    snprintf(n, sizeof n, "%d", va.skipped);
    if (va.skipped) counters_prop(ORCA_INFO_VIRTUAL_SKIPPED_AT_ATTACH, n);
    if (unseen) counters_prop(ORCA_INFO_VIRTUAL_UNSEEN_AT_ATTACH, unseen);
  }
}

// attach_snapshot is `orca threads` (snapshot=yes): phases 1 and 2 of an
// attach (no class rewritten: way_snapshot), the snapshot, and the files
// finished before it returns, written on this thread (writer_drain, then
// writer_stop). No event is enabled and no thread of the agent's is
// started (no writer, walker, sampler or lease): the caller reads the
// files once the load returns, and nothing of the agent's runs in the JVM
// after it; the library stays mapped, as after any attach.
static jint attach_snapshot(JavaVM *vm, JNIEnv *env, const char *options) {
  static int hooked;
  int code;
  const char *err;
  if (!attach_core(vm, options, &code)) return code;
  if (!hooked && (err = hooks(&way_snapshot))) {
    orca_fail("%s", err);
    writer_stop();
    mark("");
    return START_NO_JVMTI;
  }
  hooked = 1;
  counters_prop(ORCA_INFO_ATTACHED, "true");
  jthread self = attach_facts();
  int64_t t0 = clock_now();
  snapshot_now(env, self);
  attached_forget(env);   // no event will end its states: the walker is not started
  char ms[24];
  snprintf(ms, sizeof ms, "%.1f", ms_since(t0));
  counters_prop(ORCA_INFO_ATTACH_MS, ms);
  writer_stopped_now();
  writer_stop();
  mark("");
  return START_OK;
}

// attach_start makes a new recording: phases 1-4 of the start-up, the hooks
// that need the JVM's load left out and their live forms used instead.
static jint attach_start(JavaVM *vm, JNIEnv *env, const char *options) {
  static int hooked;
  int code;
  // A walker that ended a recording by its lease leaves its loop after
  // its round: a new one must not start before it has.
  for (int i = 0; i < 200 && pending_walker_alive(); i++) usleep(10000);
  if (!options_parse(options, &opt) && opt.standby) {
    // An option of the JVM's start (-agentpath), not of an attach.
    fprintf(stderr, "orca: bad agent options: standby=yes is for -agentpath at the JVM's start; an attach records\n");
    return START_BAD_OPTIONS;
  }
  if (!attach_core(vm, options, &code)) return code;
  const char *err;
  counters_prop(ORCA_INFO_ATTACHED, "true");
  inject_attaching();
  if (opt.lease && (err = lease_open())) {
    orca_fail("%s; the recording does not start", err);
    writer_stop();
    mark("");
    return START_CANNOT_WRITE;
  }
  if (!hooked && (err = hooks(&way_attach))) {
    orca_fail("%s", err);
    lease_close();
    writer_stop();
    mark("");
    return START_NO_JVMTI;
  }
  hooked = 1;
  jthread self = attach_facts();
  // The threads alive now and what they are doing, at one time before
  // any event: the ring takes them before the writer runs, and every
  // event after has a later time.
  int64_t t0 = clock_now();
  sampling();
  snapshot_now(env, self);
  // ORCA_TEST_ATTACH_GAP_MS (a test aid): the time between the snapshot
  // and the events' start, widened so a test can block a thread in it.
  if (switches.test_attach_gap_ms) usleep((useconds_t)switches.test_attach_gap_ms * 1000);
  double snapshot = ms_since(t0);
  if ((err = start_recording(&way_attach))) {
    orca_fail("%s", err);
    samples_stop();
    attached_forget(env);
    lease_close();
    writer_stop();
    mark("");
    return START_NO_THREAD;
  }
  live_init(env, self, 1);
  int64_t t1 = clock_now();
  natives_live(env);
  double natives = ms_since(t1);
  t1 = clock_now();
  // Thread.join, Semaphore, VirtualThread: rewritten in place (once a JVM).
  if ((err = inject_live(env))) {
    counters_prop(ORCA_INFO_WARNING, err);
    fact(ORCA_INFO_WARNING, err);
  }
  // What the attach's start cost the Attach Listener thread, by phase
  // (issue 31 item 5: the first attach's cost to a loaded server).
  char times[300];
  snprintf(times, sizeof times,
           "%.1f: snapshot %.1f (threads, states), start %.1f (threads %.1f, jmethodIDs of %d classes %.1f), "
           "natives %.1f, class hooks %.1f",
           ms_since(t0), snapshot, live_times.all, live_times.threads, live_times.classes, live_times.ids, natives,
           ms_since(t1));
  counters_prop(ORCA_INFO_ATTACH_MS, times);
  return START_OK;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  // HotSpot runs one attach command at a time (its Attach Listener thread).
  JNIEnv *env = NULL;
  jint got = get_env(vm, (void **)&env, JNI_VERSION_1_6);
  if (got == JNI_EDETACHED) return START_NOT_LIVE;
  if (got != JNI_OK || !env) return START_NO_JVMTI;
  const char *o = options ? options : "";
  options_switches();
  pthread_mutex_lock(&rec_lock);
  jint code;
  if (!strcmp(o, "stop") || !strncmp(o, "stop,", 5)) code = attach_stop(env, o);
  else if (orca_recording()) {
    orca_log("a recording is running already (to %s): stop it first (orca stop %d)", writer_prefix(), (int)getpid());
    code = START_BUSY;
  } else if (!options_parse(o, &opt) && opt.snapshot) code = attach_snapshot(vm, env, o);
  else code = attach_start(vm, env, o);
  pthread_mutex_unlock(&rec_lock);
  return code;
}

// The copy of the library that orca makes for a JVM of another user or in a
// container, /tmp/orca-RANDOM/liborca.so (docs/attach.md, "Where the library
// is"), serves that JVM only: it is kept while the JVM runs (a later attach
// or stop loads it again by its path) and removed when the process exits, or
// /tmp would keep one per JVM ever attached to. Removed only when the library
// has exactly that name, the directory and the file are this process's
// user's and no link, and the directory holds nothing else. A JVM killed
// (SIGKILL, a crash) leaves it to the system's /tmp cleaning.
__attribute__((destructor)) static void remove_own_copy(void) {
  Dl_info di;
  if (!dladdr((void *)remove_own_copy, &di) || !di.dli_fname) return;
  const char *p = di.dli_fname, *r = p + 10;
  if (strncmp(p, "/tmp/orca-", 10) != 0 || strspn(r, "0123456789abcdefghijklmnopqrstuvwxyz") != 16 ||
      strcmp(r + 16, "/liborca.so") != 0)
    return;
  char name[32];
  snprintf(name, sizeof name, "orca-%.16s", r);
  int tmp = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (tmp < 0) return;
  int dir = openat(tmp, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat d, f;
  if (dir >= 0 && fstat(dir, &d) == 0 && d.st_uid == geteuid() && fstatat(dir, "liborca.so", &f, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISREG(f.st_mode) && f.st_uid == geteuid() && unlinkat(dir, "liborca.so", 0) == 0)
    (void)unlinkat(tmp, name, AT_REMOVEDIR);
  if (dir >= 0) close(dir);
  close(tmp);
}
