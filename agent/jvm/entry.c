// Agent entry: options, capabilities, the callback table, and the VM
// life cycle (start recording at load, finish the files at VM death).
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
#include "stacks/methods.h"
#include "hooks/monitor.h"
#include "hooks/natives.h"
#include "hotspot/objhash.h"
#include "core/orca.h"
#include "hotspot/owner.h"
#include "hooks/park.h"
#include "threads/pending.h"
#include "record/ring.h"
#include "hotspot/safe.h"
#include "threads/threads.h"
#include "hotspot/vmstructs.h"
#include "hotspot/vthread.h"
#include "hotspot/walk.h"
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

// Phase 3, in the live phase: what needs a running VM and a Java thread
// (env, t) — the identity-hash and collector facts, HotSpot's timer, the
// threads alive now, the fields parks read, the jmethodIDs of the classes
// loaded so far, the walker of long waits. At load, from VMInit; an attach
// (issue 24) calls it at once.
static void live_init(JNIEnv *env, jthread t) {
  methods_live();
  objhash_ready();
  hsstat_enable(env);
  vthread_init(env, t);
  threads_existing(env);
  park_init(env, t);
  clinit_init(env);
  asgct_ready(env);
  const char *err = pending_start_walker(env, t);
  if (err) {
    counters_prop(ORCA_INFO_WARNING, err);
    orca_log("%s: a wait longer than a second is written without its stack", err);
  }
}

static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j;
  java_version();
  prop(ORCA_INFO_JAVA_VM, "java.vm.name");
  prop(ORCA_INFO_JAVA_VM_VERSION, "java.vm.version");
  prop(ORCA_INFO_JAVA_HOME, "java.home");
  prop(ORCA_INFO_COMMAND, "sun.java.command");
  if (orca_recording()) live_init(env, t);
}

static void JNICALL on_class_prepare(jvmtiEnv *j, JNIEnv *env, jthread t, jclass c) {
  asgct_on_class_prepare(j, env, t, c);
  vthread_class_prepared(env, c);
}

static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  (void)j; (void)env;
  if (atomic_exchange(&orca_state, 2) != 1) return;
  pending_stop_walker();
  natives_report();
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

// core_init is phase 1: NULL, or why the agent does not record (then
// *fatal says whether the JVM must stop: bad options; "" when it was told
// already: another agent records this JVM).
static const char *core_init(JavaVM *vm, const char *options, int *fatal) {
  static char why[8400];
  const char *err = options_parse(options, &opt);
  *fatal = 0;
  if (err) {
    *fatal = 1;
    snprintf(why, sizeof why, "bad agent options: %s", err);
    return why;
  }
  orca_vm = vm;
  // A second copy of the agent (orca record inside orca record, or two
  // -agentpath options) is another library instance with its own statics:
  // the mark is in the process's environment, with the pid, so a JVM the
  // application starts (which inherits it) is not mistaken for this one.
  char mark[64];
  int ml = snprintf(mark, sizeof mark, "%d:", (int)getpid());
  const char *loaded = getenv("ORCA_AGENT_LOADED");
  if (loaded && !strncmp(loaded, mark, (size_t)ml)) {
    snprintf(why, sizeof why, "an Orca agent already records this JVM (to %s); this one (%s) does not record",
             loaded + ml, opt.prefix);
    orca_log("%s", why);
    writer_refused(why);
    return "";   // told: not a failure of this JVM's recording
  }
  if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK) return "this JVM has no JVMTI 11; the agent is disabled";
  if ((err = ring_init((size_t)opt.buffer_mb << 20)) || (err = methods_init())) {
    snprintf(why, sizeof why, "%s; the agent is disabled", err);
    return why;
  }
  // A buffer of its own (RING_THREAD_BYTES, 2 MB) for each of the first
  // buffer=/2 threads: as much again as the shards, touched as used.
  ring_threads(opt.buffer_mb / 2 > 0 ? opt.buffer_mb / 2 : 1);
  if ((err = writer_open())) {
    snprintf(why, sizeof why, "%s; the agent is disabled and the application runs without recording", err);
    return why;
  }
  {
    char val[4300];
    snprintf(val, sizeof val, "%s%s", mark, writer_prefix());
    setenv("ORCA_AGENT_LOADED", val, 1);
  }
  char *spec = NULL;
  if ((*jvmti)->GetSystemProperty(jvmti, "java.vm.specification.version", &spec) == JVMTI_ERROR_NONE && spec) {
    orca_feature = atoi(spec);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)spec);
  }
  counters_prop(ORCA_INFO_ENTERED_CLOCK, clock_init());
  hsstat_init();
  monitor_init();
  // The wiring: the lower modules take callbacks and tables (docs/agent.md,
  // "Module structure").
  natives_add(monitor_bind, monitor_report);
  natives_add(park_bind, park_report);
  inject_add("java/lang/VirtualThread", vpark_specs);
  writer_set_sources(&(writer_sources){.deferred = pending_flush, .walker_alive = pending_walker_alive,
                                        .walk_all = pending_walk, .meta = methods_take,
                                        .describe = methods_describe, .thread_exit = methods_detach});
  hs_init();
  // Before anything reads VM memory. -Xcheck:jni reports a SIGSEGV handler
  // other than the JVM's (signals_posix.cpp, check_signal_handler).
  counters_prop(ORCA_INFO_HOTSPOT_SAFE_READ, safe_init(vms_flag("CheckJNICalls") == 1));
  counters_source(CNT_HOTSPOT_FAULTS, safe_faults);
  if ((err = owner_init())) counters_prop(ORCA_INFO_WARNING, err);
  if ((err = asgct_init())) counters_prop(ORCA_INFO_WARNING, err);
  walk_init();
  counters_prop(ORCA_INFO_HOTSPOT_WALKER, walk_status());
  counters_prop(ORCA_INFO_HOTSPOT_OWNER, owner_caps());
  counters_prop(ORCA_INFO_HOTSPOT_MONITOR_HASH, owner_hash_caps());
  counters_prop(ORCA_INFO_HOTSPOT_FACTS, hs_facts_text());
  counters_prop(ORCA_INFO_HOTSPOT_ARCH, ARCH_NAME);
  // Every timed Object.wait gets its ObjectWaitTimeout line (pending.c).
  if (!opt.seed_only) counters_prop(ORCA_INFO_WAIT_TIMEOUTS, "yes");
  return NULL;
}

// hooks is phase 2: the capabilities and the callbacks. at_load: the JVM
// is loading (OnLoad), so the hooks that need it are asked for too.
static const char *hooks(int at_load) {
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
  want.can_get_line_numbers = 1;
  want.can_get_bytecodes = 1;       // clinit.c: the frame at an int[] monitor
  want.can_get_constant_pool = 1;   // clinit.c: the class it initialises
  want.can_get_source_file_name = 1;
  want.can_generate_all_class_hook_events = have.can_generate_all_class_hook_events;
  if (at_load) {
    // Thread is loaded before any other phase: wrapping Thread.join needs the
    // class hook in the primordial phase.
    want.can_generate_early_class_hook_events = have.can_generate_early_class_hook_events;
    want.can_generate_early_vmstart = have.can_generate_early_vmstart;
  }
  vthread_capabilities(&want, &have);
  jvmtiError e = (*jvmti)->AddCapabilities(jvmti, &want);
  if (e != JVMTI_ERROR_NONE) {
    snprintf(why, sizeof why, "cannot get the JVMTI capabilities it needs (error %d); the agent is disabled", (int)e);
    return why;
  }
  if (at_load && !want.can_generate_early_class_hook_events)
    counters_prop(ORCA_INFO_WARNING, "no early class hook: Thread.join is not recorded");

  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
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
  threads_virtual_init();
  if ((e = vthread_set_callbacks(&cb)) != JVMTI_ERROR_NONE) {
    snprintf(why, sizeof why, "cannot set JVMTI callbacks (error %d); the agent is disabled", (int)e);
    return why;
  }
  return NULL;
}

// start_recording is phase 4: the writer runs and the events are enabled.
static const char *start_recording(void) {
  const char *err = writer_start();
  if (err) return err;
  atomic_store(&orca_state, 1);
  enable(JVMTI_EVENT_VM_INIT, "VMInit");
  enable(JVMTI_EVENT_VM_DEATH, "VMDeath");
  enable(JVMTI_EVENT_THREAD_START, "ThreadStart");
  enable(JVMTI_EVENT_THREAD_END, "ThreadEnd");
  enable(JVMTI_EVENT_MONITOR_WAITED, "MonitorWaited");
  enable(JVMTI_EVENT_MONITOR_CONTENDED_ENTER, "MonitorContendedEnter");
  enable(JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, "MonitorContendedEntered");
  enable(JVMTI_EVENT_NATIVE_METHOD_BIND, "NativeMethodBind");
  enable(JVMTI_EVENT_GARBAGE_COLLECTION_START, "GarbageCollectionStart");
  enable(JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, "GarbageCollectionFinish");
  enable(JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, "ClassFileLoadHook");
  enable(JVMTI_EVENT_CLASS_PREPARE, "ClassPrepare");
  enable(JVMTI_EVENT_CLASS_LOAD, "ClassLoad");
  vthread_enable();
  return NULL;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  int fatal;
  const char *err = core_init(vm, options, &fatal);
  if (err && fatal) {
    // The JVM stops (JNI_ERR): the reason, then what is valid.
    orca_fail("%s", err);
    fprintf(stderr, "%s\n", options_usage);
    return JNI_ERR;
  }
  // Phase 3 comes with VMInit (on_vm_init).
  if (!err && !(err = hooks(1)) && !(err = start_recording())) return JNI_OK;
  if (*err) orca_fail("%s%s", err, strstr(err, "disabled") ? "" : "; the agent is disabled");
  return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved) {
  (void)vm; (void)options; (void)reserved;
  // jcmd JVMTI.agent_load prints only the number returned ("return code:
  // -1"); HotSpot gives the caller no text, so the reason goes to the
  // target's stderr.
  fprintf(stderr, "orca: attaching to a running JVM (jcmd JVMTI.agent_load, the Attach API) is not supported "
                  "yet, the caller sees return code -1: start the JVM with -agentpath (or `orca record -- COMMAND`)\n");
  fflush(stderr);
  return JNI_ERR;
}
