package format

import "strings"

// Version is the format of the files, the value of the .info key "format".
// A reader warns about a recording of another format.
const Version = "orca-1"

// AgentVersion is the version of the agent (the .info key "agent_version")
// and of the orca command that carries it.
const AgentVersion = "0.1.0"

// The suffixes of a recording's files after its prefix.
const (
	SuffixEvents  = ".orca"       // one event per line
	SuffixMethods = ".methods"    // one method per line
	SuffixClasses = ".classtable" // one class per line
	SuffixInfo    = ".info"       // key=value lines
	SuffixExt     = ".ext"        // what an import knows and .orca has no field for (ext.go)
)

// The keys of PREFIX.info (docs/format.md, ".info"). Values are written
// verbatim up to the end of the line; a key may repeat only where it says
// so (InfoWarning). Readers ignore keys they do not know.
const (
	// Written by the agent.
	InfoFormat   = "format"   // Version
	InfoEncoding = "encoding" // how .orca is encoded: "compact" (EncodingCompact); absent or "seed" for the text
	// A bounded recording (maxsize=, maxage=): its events are in chunk
	// files PREFIX.orca.N (ChunkFileName), the oldest deleted past the bounds.
	InfoMaxSize         = "max_size"       // bytes all PREFIX.* files may take (maxsize=)
	InfoMaxAge          = "max_age_s"      // seconds of history kept (maxage=)
	InfoChunksDeleted   = "chunks_deleted" // chunk files deleted past the bounds
	InfoChunksKept      = "chunks_kept"    // FIRST-LAST: the numbers of the chunk files kept
	InfoKeptFrom        = "kept_from_s"    // the start of the oldest chunk kept (seconds like the events)
	InfoUnrestated      = "unrestated"     // thread states or object classes a chunk could not restate (no memory, nested too deep)
	InfoAgentVersion    = "agent_version"  // AgentVersion ("synth" from the generator)
	InfoAgentOptions    = "agent_options"  // the agent's parsed options
	InfoSession         = "session"        // the token orca record passed (session= option)
	InfoPID             = "pid"
	InfoCommand         = "command" // sun.java.command
	InfoJavaVersion     = "java_version"
	InfoJavaVM          = "java_vm"
	InfoJavaVMVersion   = "java_vm_version"
	InfoJavaHome        = "java_home"
	InfoRefused         = "refused"                   // the agent did not record, and why
	InfoOriginMonoNS    = "origin_mono_ns"            // a CLOCK_MONOTONIC reading, ns
	InfoOriginUnixNS    = "origin_unix_ns"            // the wall clock at the same instant, ns since the Unix epoch
	InfoStart           = "start_s"                   // first timestamp written, seconds like the events
	InfoEnd             = "end_s"                     // last timestamp written
	InfoComplete        = "complete"                  // true once the VM ended normally, or the recording was stopped (InfoStopped)
	InfoAttached        = "attached"                  // "true": the agent was loaded into the running JVM (orca record --pid); the ThreadStarted lines at start_s are the threads alive then
	InfoAliveAtAttach   = "alive_at_attach"           // with InfoAttached: the threads alive at the attach (their ThreadStarted lines come first)
	InfoBlockedAtAttach = "blocked_at_attach"         // with InfoAttached: the threads blocked, waiting, parked or sleeping at the attach (their states begin at it)
	InfoVirtualAtAttach = "virtual_at_attach"         // with InfoAttached, JDK 21+: of alive_at_attach, the virtual threads unmounted at the attach (found in the JDK's registry of virtual threads)
	InfoVirtualSkipped  = "virtual_skipped_at_attach" // with InfoAttached: virtual threads unmounted at the attach blocked on a monitor or waiting (24+), whose state is not written
	InfoVirtualUnseen   = "virtual_unseen_at_attach"  // with InfoAttached: why virtual threads at the attach were not looked for, or not all (jdk.trackAllThreads=false, ...)
	InfoAttachedWithout = "attached_without"          // with InfoAttached: the JVMTI capabilities the agent uses that HotSpot offers only at start-up, comma-separated
	InfoAttachedMissed  = "attached_missed"           // with InfoAttached: objects left unnamed because a capability of attached_without was missing
	InfoUnreadAtAttach  = "monitor_unread_at_attach"  // with InfoAttached: threads blocked on a monitor or waiting in Object.wait at the attach whose monitor could not be read, whose state is not written
	InfoAttachTimes     = "attach_ms"                 // with InfoAttached: the attach's start on the JVM's Attach Listener thread, by phase, in ms
	InfoStopped         = "stopped"                   // "true": the recording was stopped before the JVM ended (orca record --pid's end, orca stop)
	InfoStoppedBy       = "stopped_by"                // with InfoStopped: "stop" (an attach's stop: orca record --pid's end, orca stop) or "lease" (orca record --pid was gone: docs/attach.md, "The lease")
	InfoDroppedTotal    = "dropped_total"
	InfoDroppedAtExit   = "dropped_at_exit"
	InfoDroppedAfter    = "dropped_after_cut"
	InfoWrittenEarly    = "written_early"
	InfoWrittenLate     = "written_late" // event lines written after a later event line of an earlier flush: put more than the writer's hold-back after their time (docs/agent.md, "Buffers and the writer")
	InfoWrites          = "writes"       // the writer's flushes that wrote records (a batch of samples alone waits up to 1 s: docs/agent.md, "Buffers and the writer")
	InfoWriteErrors     = "write_errors" // failed writes
	InfoWriteError      = "write_error"  // the first failed write: "FILE: error"
	InfoCut             = "cut_s"        // with write_error: the last event line written completely
	InfoOwnerUnknown    = "owner_unknown"
	InfoOwnerTableFull  = "owner_table_full"
	InfoThreadKeysFull  = "thread_keys_full" // threads named by their identity hash alone: the agent's table of threads was full
	InfoOwnerUnlocking  = "owner_unlocking"  // anonymous owners named by the lock stack's entry just above its top: a thread inside a fast unlock or lock (docs/agent.md)
	// Of owner_unknown, why the agent named no owner (docs/format.md).
	InfoOwnerReleased   = "owner_unknown.released"      // _owner was empty: the owner had just released the monitor
	InfoOwnerAnonymous  = "owner_unknown.anonymous"     // an anonymous owner (lightweight locking) found on no thread's lock stack
	InfoOwnerNotInTable = "owner_unknown.not_in_table"  // _owner named a thread not in the agent's table (or a carrier that switched threads)
	InfoOwnerUnreadable = "owner_unknown.unreadable"    // no pending monitor, a failed read, the deflater's marker
	InfoOwnerBefore     = "owner_unknown.before_events" // the thread blocked before the events were on (an attach's snapshot or the agent's start); its enter is written at its Entered
	InfoUnattributed    = "unattributed_total"
	InfoVirtualThreads  = "virtual_threads"
	InfoSuppressed      = "suppressed_waits"
	InfoMethods         = "methods" // lines of .methods
	InfoClasses         = "classes" // lines of .classtable
	InfoMetaDropped     = "metadata_dropped"
	InfoMethodsUnloaded = "methods_unloaded" // .methods lines of methods whose class unloaded before the writer named them
	InfoOwnStacks       = "own_stacks_by_jvmti"
	InfoVerifStacks     = "verified_stacks"
	InfoVerifStacksDif  = "verified_stacks_differ"
	InfoEnteredClock    = "entered_clock"
	InfoEnteredTimer    = "entered_timer"
	InfoEnteredOrigin   = "entered_timer_origin_ns" // how wide the calibration's bracket of HotSpot's clock origin was
	InfoEnteredByTimer  = "entered_by_timer"
	InfoEnteredLate     = "entered_late"
	InfoEnteredLost     = "entered_lost"
	InfoVerifEntered    = "verified_entered"
	InfoVerifAfter      = "verified_entered_after"
	InfoVerifSlow       = "verified_entered_slow"
	InfoBoundedWaits    = "bounded_waits"       // an application thread's waits (for the agent's writer, walker, method table) that hit their bound
	InfoWaitsNoStack    = "waits_without_stack" // ObjectWait lines written without a stack: the thread left the wait while the walker walked it, or the walker was stuck (docs/agent.md)
	InfoWarning         = "warning"             // repeatable
	// InfoWaitTimeouts: "yes" when every timed Object.wait has its
	// ObjectWaitTimeout line, so a wait without one is untimed.
	InfoWaitTimeouts = "wait_timeouts"
	// InfoClassInitOpen: "yes" when the agent's walker wrote the
	// class-initialisation waits it found still open (a
	// MonitorContendedEnter on the class's init lock, owned by the thread
	// that runs its initialiser, ended by the thread's ClassInitWaited:
	// docs/agent.md, "Class initialisation"), so a wait longer than two of
	// its rounds is seen from when it was found.
	InfoClassInitOpen = "class_init_open"
	// InfoHeldMonitors: "yes" when every MonitorContendedEnter is followed
	// by the MonitorHeld lines of the monitors its thread held then (none
	// when it held none), with orca record --lock-order or
	// --lock-order=monitors; "no: WHY" when the agent did not or could not
	// ask (off by default: "no: off (orca record --lock-order turns it
	// on)", or "no: off (orca record --lock-order=off)" from the orca whose
	// default was the monitors; an attached agent: HotSpot offers JVMTI's
	// owned-monitor capabilities only at the JVM's start; kinds=seed).
	// Absent in older recordings.
	InfoHeldMonitors = "held_monitors"
	// InfoHeldUnread counts the contended enters whose held monitors JVMTI
	// did not give (their MonitorHeld lines are missing); listed when not 0.
	InfoHeldUnread = "held_monitors_unread"
	// InfoHeldSkipped counts the contended enters whose monitor was free
	// again when the agent would have asked for the held monitors: not
	// asked (no MonitorHeld lines), as the call would only have kept the
	// monitors the thread holds from the others; listed when not 0.
	InfoHeldSkipped = "held_monitors_skipped"
	// InfoHeldRetimed counts the contended enters timed after the agent's
	// read of the held monitors, not at the callback's entry: the read may
	// have waited (a JVMTI call in the thread) and the monitor came free or
	// changed owner meanwhile; their owner is the one read then (since
	// 2026-12-02); listed when not 0.
	InfoHeldRetimed = "held_monitors_retimed"
	// InfoHeldDropped counts the contended enters whose held monitors the
	// agent's held thread could not take while the thread still blocked
	// (it had its monitor before the answer, the queue of requests was
	// full, or the writer gave up waiting): no MonitorHeld lines after
	// them; listed when not 0.
	InfoHeldDropped = "held_monitors_dropped"
	// InfoHeldRead counts the contended enters whose held monitors the
	// agent read from the thread's own frames (no JVMTI call); listed when
	// not 0.
	InfoHeldRead = "held_monitors_read"
	// InfoHeldAsked counts the contended enters whose held monitors JVMTI
	// was asked for (a monitor not hashed yet or of a class not named yet,
	// a frame the agent does not read): the others are read; listed when
	// not 0.
	InfoHeldAsked = "held_monitors_asked"
	// InfoHeldVirtualRead and InfoHeldVirtualAsked: of held_monitors_read
	// and held_monitors_asked, the virtual threads' enters (asked: some of
	// the thread's frames still in its continuation's stack chunk, or as a
	// platform thread's); listed when not 0.
	InfoHeldVirtualRead  = "held_monitors_virtual_read"
	InfoHeldVirtualAsked = "held_monitors_virtual_asked"
	// InfoHeldJNI: of held_monitors_asked, the enters of a thread that held
	// a monitor it entered through JNI's MonitorEnter (in no frame: JVMTI
	// lists it); listed when not 0.
	InfoHeldJNI = "held_monitors_jni"
	// InfoHeldLocks: "yes" when every contended acquisition (a
	// MonitorContendedEnter, a ThreadPark in a ReentrantLock's or a
	// ReentrantReadWriteLock's acquire) is followed by the LockHeld lines of
	// the java.util.concurrent locks its thread held then; "no: WHY" else
	// (off by default: only orca record --lock-order writes them). Absent in
	// older recordings.
	InfoHeldLocks = "held_locks"
	// InfoHeldLocksLost counts the acquires of a thread that held 16 j.u.c.
	// locks already (not kept: their LockHeld lines are missing); listed
	// when not 0.
	InfoHeldLocksLost = "held_locks_lost"
	// InfoClassHooks: how Thread.join, Semaphore and VirtualThread's methods
	// are wrapped: "load" (new methods, at class load) or "live ..." (an
	// attach, or ORCA_VERIFY_LIVE_HOOKS=1: Semaphore's and VirtualThread's
	// bodies rewritten in place where that is cheap, none on JDK 17-22
	// without standby=yes; Thread.join seen in its wait).
	InfoClassHooks = "class_hooks"
	// Sampling (issue 33, docs/format.md "Samples"): the intervals in
	// nanoseconds (0: off), the wall sampler's cap of threads signalled per
	// tick, the period of the ThreadCPU lines. Lost samples are counted by
	// reason under InfoSamplesLost, samples written by kind under InfoSamples.
	InfoSampleCPU         = "sample_cpu_ns"
	InfoSampleWall        = "sample_wall_ns"
	InfoSampleWallThreads = "sample_wall_threads"
	InfoThreadCPUPeriod   = "thread_cpu_period_ms"
	// InfoSampleWallSamplerCPU: the wall sampler thread's own CPU time in
	// nanoseconds (its scans and signals), written when it stops.
	InfoSampleWallSamplerCPU = "sample_wall_sampler_cpu_ns"
	// InfoSampleWallRepeated: of the wall samples (samples.wall), those
	// that repeat their thread's last one, which had not run since.
	InfoSampleWallRepeated = "sample_wall_repeated"
	// InfoSampleWallTicks, InfoSampleWallWakeups: the wall intervals the
	// wall sampler covered and the times it woke for them (fewer: it sleeps
	// over ticks while every candidate is a repeat), written when it stops.
	InfoSampleWallTicks   = "sample_wall_ticks"
	InfoSampleWallWakeups = "sample_wall_wakeups"
	// InfoSampleWallRuns, InfoSampleWallStatesRead: the runs of those ticks
	// (one look at the threads each: several ticks when it slept over
	// them) and the HotSpot thread states they read: one a live thread a
	// run, but for the threads a hook had in a park, sleep or wait then
	// (docs/agent.md, "The sample path"), written when it stops.
	InfoSampleWallRuns       = "sample_wall_runs"
	InfoSampleWallStatesRead = "sample_wall_states_read"
	// InfoSampleWallSlotsRead: the threads' slots those runs looked at: every
	// live thread's at a run after a hook took a mark away (a park, sleep or
	// wait ended) or a thread was registered, else only those of the threads
	// not marked at the last such run; written when it stops.
	InfoSampleWallSlotsRead = "sample_wall_slots_read"
	// InfoSampleWallLate: the wall sampler's signals whose thread was by
	// then in a recorded state (a park, sleep or wait its hook had marked,
	// or a monitor enter: HotSpot's _thread_blocked), begun between the
	// tick's look and the signal: no sample taken, that time is the
	// state's (docs/agent.md, "The sample path"); written when it stops.
	InfoSampleWallLate = "sample_wall_late"
	// InfoSampleWallQuietWakeups: of those wake-ups, the ones of a quiet
	// sampler (the writer's drains run the ticks while it sleeps) that the
	// writer did not call for: 0 but for a spurious wake-up (it woke each
	// second before); written when it stops.
	InfoSampleWallQuietWakeups = "sample_wall_quiet_wakeups"
	// InfoSampleDrainSlots: the threads' sample slots the writer's drains
	// visited: those with a sample, a repeat or their thread's end to
	// drain, not every slot (docs/agent.md, "The sample path"); written
	// when the samplers stop.
	InfoSampleDrainSlots = "sample_drain_slots"
	// InfoSampleRingsKept: when the samplers stopped, a signal handler was
	// still running after a second, so the threads' sample rings were
	// kept (not freed) rather than freed under it; 1 when so, absent else.
	InfoSampleRingsKept = "sample_rings_kept"
	// The CPU sampler's clock: "perf" (perf_events' task clock, kernel and
	// user time), "perf_user" (user time alone: perf_event_paranoid 2), or
	// "timer" / "timer: REASON" (POSIX CPU timers, checked at the kernel's
	// tick); the threads on the timer though the clock is perf (a
	// descriptor refused); the clock's expiries carried by the weight of
	// another CPU sample (a timer's overrun, a task clock's interval that
	// gave no signal of its own), absent when 0.
	InfoSampleCPUClock        = "sample_cpu_clock"
	InfoSampleCPUTimerThreads = "sample_cpu_timer_threads"
	InfoSampleCPUFolded       = "sample_cpu_folded"

	// What the agent's HotSpot layer found (docs/format.md, also under InfoHotSpot).
	InfoHotSpotWalker     = "hotspot.walker"
	InfoHotSpotSafeRead   = "hotspot.safe_read"
	InfoHotSpotFaults     = "hotspot.faults"
	InfoHotSpotWalkFaults = "hotspot.walk_faults"
	// InfoHotSpotHeldFaults: the held monitors' walks (a contended enter's
	// read of its thread's own frames) ended by a fault: asked of JVMTI
	// instead (held_monitors_asked); listed when not 0.
	InfoHotSpotHeldFaults = "hotspot.held_walk_faults"
	// Samples (issue 33) whose Java frames AsyncGetCallTrace gave only
	// from the caller of a compiled method's prolog or epilog or of a stub
	// (unwound); samples written with their native frames alone, their
	// Java part unreadable (native_only: not in samples_lost).
	InfoHotSpotSamplesUnwound    = "hotspot.samples_unwound"
	InfoHotSpotSamplesNativeOnly = "hotspot.samples_native_only"
	// Samples (issue 33) of a thread in Java code whose Java frames the
	// own walker could not take from the signal's context (a stub, code it
	// does not decode): AsyncGetCallTrace's (docs/agent.md, "The sample
	// path").
	InfoHotSpotSamplesASGCT = "hotspot.samples_asgct"
	// Java frames of samples (issue 33) left out because the method the
	// walk read from the signal's context was not one the JVM names (a
	// frame half built, a word that is no jmethodID): the writer checks a
	// walked jmethodID against its class before it asks JVMTI about it
	// (docs/agent.md, "The sample path").
	InfoHotSpotSampleFramesInvalid = "hotspot.sample_frames_invalid"
	// Whether the JIT records the debug records of compiled code at every
	// instruction it can, not only at safepoints ("yes": the agent enabled
	// JVMTI's CompiledMethodLoad, which turns HotSpot's DebugNonSafepoints
	// on where the command line left it at its default; "no: WHY"): a
	// sample in compiled code names its method and line from the record
	// nearest its pc (docs/agent.md, "The sample path").
	InfoHotSpotDebugNonSafepoints = "hotspot.debug_non_safepoints"
	InfoHotSpotOwner              = "hotspot.owner"
	InfoHotSpotMonitorHash        = "hotspot.monitor_hash"
	InfoHotSpotFacts              = "hotspot.facts"
	InfoHotSpotArch               = "hotspot.arch"

	// Written by orca import (docs/jfr.md).
	InfoSource            = "source" // "jfr"
	InfoJFRFile           = "jfr_file"
	InfoJFRVersion        = "jfr_version"
	InfoJFRChunks         = "jfr_chunks"
	InfoJVMArguments      = "jvm_arguments"
	InfoJFRDataLoss       = "jfr_data_loss_bytes"
	InfoJFRLostBytes      = "jfr_lost_bytes"
	InfoTruncatedStacks   = "truncated_stacks"
	InfoJoinsFromWaits    = "joins_from_waits"
	InfoNotifiesFromWaits = "notifies_from_waits"
	InfoNotifiesDropped   = "notifies_from_waits_dropped"
	InfoThreads           = "threads"
	InfoObjects           = "objects"
	// Of owner_unknown, why an import named no owner (docs/jfr.md, "Owner").
	InfoOwnerNoPrevious = "owner_unknown.no_previous_owner" // JFR's previousOwner was empty
	InfoOwnerSelf       = "owner_unknown.self"              // … was the blocked thread itself
	InfoOwnerEnded      = "owner_unknown.ended"             // … had ended before the contention began
	// What the source of an import could not see (docs/jfr.md, "What an
	// import cannot show"); with the prefixes InfoThresholdNS,
	// InfoNotRecorded, InfoNoStacks, InfoJFRSettings.
	InfoEndedOnly      = "ended_only"      // true: a state is recorded when it ends; one still going on at the end is not in the recording
	InfoParkEnds       = "park_ends"       // unknown: no park says who unparked it, or how it ended
	InfoSourceSettings = "source_settings" // known or unknown: whether the source's settings were found
)

// The keys that are a prefix followed by a name: InfoEvents+"ObjectWait"
// (or InfoKindKey(InfoEvents, ObjectWait)).
const (
	InfoEvents         = "events."       // lines written, per event kind
	InfoDropped        = "dropped."      // events not written, per kind
	InfoUnattributedOf = "unattributed." // events on virtual threads, counted not recorded, per kind
	InfoExtLines       = "ext."          // .ext lines written, per .ext kind (orca import)
	InfoJFREvents      = "jfr_events."   // JFR events converted, per JFR type (orca import)
	InfoHotSpot        = "hotspot."      // what the agent's HotSpot layer found (walker, owner, safe_read, facts, faults, …)
	InfoThresholdNS    = "threshold_ns." // per kind (the start of a state): the source recorded only states that lasted this long, ns (orca import)
	InfoNotRecorded    = "not_recorded." // per kind: the source did not record it, and why (orca import)
	InfoNoStacks       = "no_stacks."    // per kind: the source recorded it without stacks (orca import)
	InfoJFRSettings    = "jfr_settings." // per JFR type: its settings in the recording (orca import)
	// InfoSamples: samples written, per SampleKind ("samples.cpu"); InfoSamplesLost:
	// samples not taken or not written, per reason ("samples_lost.full": the
	// thread's sample buffer was full; "walk": the stack walk failed; "state":
	// the thread was in a state the walker cannot read; "no_thread": the thread
	// had no sample buffer yet; "timer": a thread's timer could not be made).
	InfoSamples     = "samples."
	InfoSamplesLost = "samples_lost."
)

// InfoKeys lists every key above, for the generated C header and the tests
// that keep the agent, the docs and this list in step.
var InfoKeys = []string{
	InfoFormat, InfoEncoding, InfoMaxSize, InfoMaxAge, InfoChunksDeleted, InfoChunksKept, InfoKeptFrom, InfoUnrestated,
	InfoAgentVersion, InfoAgentOptions, InfoSession, InfoPID, InfoCommand,
	InfoJavaVersion, InfoJavaVM, InfoJavaVMVersion, InfoJavaHome, InfoRefused,
	InfoOriginMonoNS, InfoOriginUnixNS, InfoStart, InfoEnd, InfoComplete, InfoAttached, InfoAliveAtAttach, InfoBlockedAtAttach, InfoVirtualAtAttach, InfoVirtualSkipped, InfoVirtualUnseen, InfoAttachedWithout, InfoAttachedMissed, InfoUnreadAtAttach, InfoAttachTimes, InfoStopped, InfoStoppedBy,
	InfoDroppedTotal, InfoDroppedAtExit, InfoDroppedAfter, InfoWrittenEarly, InfoWrittenLate, InfoWrites,
	InfoWriteErrors, InfoWriteError, InfoCut, InfoOwnerUnknown, InfoOwnerTableFull, InfoThreadKeysFull, InfoOwnerUnlocking,
	InfoOwnerReleased, InfoOwnerAnonymous, InfoOwnerNotInTable, InfoOwnerUnreadable, InfoOwnerBefore,
	InfoUnattributed, InfoVirtualThreads, InfoSuppressed, InfoMethods, InfoClasses,
	InfoMetaDropped, InfoMethodsUnloaded, InfoOwnStacks, InfoVerifStacks, InfoVerifStacksDif,
	InfoEnteredClock, InfoEnteredTimer, InfoEnteredOrigin, InfoEnteredByTimer, InfoEnteredLate, InfoEnteredLost,
	InfoVerifEntered, InfoVerifAfter, InfoVerifSlow, InfoBoundedWaits, InfoWaitsNoStack, InfoWarning, InfoWaitTimeouts, InfoClassInitOpen, InfoHeldMonitors, InfoHeldUnread, InfoHeldSkipped, InfoHeldRetimed, InfoHeldDropped, InfoHeldRead, InfoHeldAsked, InfoHeldVirtualRead, InfoHeldVirtualAsked, InfoHeldJNI, InfoHeldLocks, InfoHeldLocksLost, InfoClassHooks,
	InfoSampleCPU, InfoSampleWall, InfoSampleWallThreads, InfoSampleWallSamplerCPU, InfoSampleWallRepeated, InfoSampleWallTicks, InfoSampleWallWakeups, InfoSampleWallRuns, InfoSampleWallStatesRead, InfoSampleWallSlotsRead, InfoSampleWallLate, InfoSampleWallQuietWakeups, InfoSampleDrainSlots, InfoSampleRingsKept, InfoThreadCPUPeriod, InfoSampleCPUClock, InfoSampleCPUTimerThreads, InfoSampleCPUFolded,
	InfoHotSpotWalker, InfoHotSpotSafeRead, InfoHotSpotFaults, InfoHotSpotWalkFaults, InfoHotSpotHeldFaults,
	InfoHotSpotSamplesUnwound, InfoHotSpotSamplesNativeOnly, InfoHotSpotSamplesASGCT, InfoHotSpotSampleFramesInvalid, InfoHotSpotDebugNonSafepoints,
	InfoHotSpotOwner, InfoHotSpotMonitorHash, InfoHotSpotFacts, InfoHotSpotArch,
	InfoSource, InfoJFRFile, InfoJFRVersion, InfoJFRChunks, InfoJVMArguments,
	InfoJFRDataLoss, InfoJFRLostBytes, InfoTruncatedStacks, InfoJoinsFromWaits,
	InfoNotifiesFromWaits, InfoNotifiesDropped, InfoThreads, InfoObjects,
	InfoOwnerNoPrevious, InfoOwnerSelf, InfoOwnerEnded, InfoEndedOnly, InfoParkEnds, InfoSourceSettings,
}

// InfoPrefixes lists the prefix keys above.
var InfoPrefixes = []string{InfoEvents, InfoDropped, InfoUnattributedOf, InfoExtLines, InfoJFREvents, InfoHotSpot,
	InfoThresholdNS, InfoNotRecorded, InfoNoStacks, InfoJFRSettings, InfoSamples, InfoSamplesLost}

// InfoKindKey returns the key of a per-kind count: InfoKindKey(InfoEvents,
// ObjectWait) is "events.ObjectWait".
func InfoKindKey(prefix string, k Kind) string { return prefix + k.String() }

// InfoKnown reports whether key is one of InfoKeys or starts with one of
// InfoPrefixes.
func InfoKnown(key string) bool {
	for _, k := range InfoKeys {
		if k == key {
			return true
		}
	}
	for _, p := range InfoPrefixes {
		if strings.HasPrefix(key, p) && len(key) > len(p) {
			return true
		}
	}
	return false
}
