package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"orca/internal/agentlib"
	"orca/internal/export"
	"orca/internal/format"
	"orca/internal/reader"
)

const recordHelp = `Usage: orca record [-o PREFIX] [--depth N] [--flush MS] [--buffer MB] [--kinds all|seed] [--format seed|compact] [--cpu D|off] [--wall D|off] [--lock-order[=monitors|off]] [--max-size SIZE] [--max-age DURATION] [--force] [--quiet] -- COMMAND [ARGS...]
       orca record --pid PID [--duration D | --detach] [-o PREFIX] [the options above]
       orca record --otlp URL [--push-every D] [--otlp-header K=V] [--otlp-compression gzip|none] [--otlp-max-request SIZE] [--service NAME] --max-size SIZE|--max-age D ... (either form, not --detach)

Runs COMMAND with the Orca agent loaded into every JVM it starts, waits for
it, and prints what was recorded. COMMAND may be java itself or any script
that starts java. When COMMAND is java, orca puts -agentpath:... first on its
command line; any other COMMAND (a script, mvn, catalina.sh) gets it in
JAVA_TOOL_OPTIONS, added to any value already set, and every JVM that reads it
prints "Picked up JAVA_TOOL_OPTIONS: -agentpath:..." on its stderr: that line
is the JVM saying it loaded orca's agent (no JVM option hides it). The JVMs
that java starts get JAVA_TOOL_OPTIONS from the agent, and print the line.
stdin, stdout and stderr are COMMAND's, and orca exits with its exit status
(128+N if it was killed by signal N). When orca itself fails it exits 125, a
status no program is likely to use (as env and timeout do): a usage mistake,
a recording's name refused, COMMAND succeeded but started no JVM that loaded
the agent, or a JVM of it could not be recorded (the agent's message is
repeated at the end). 126: COMMAND could not be run; 127: it was not found.
orca checks before it starts COMMAND that the recording's directory exists
and is writable (exit status 125 when not).

The first JVM writes PREFIX.orca, PREFIX.methods, PREFIX.classtable and
PREFIX.info; further JVMs write PREFIX-2.*, PREFIX-3.* and so on. Without -o,
PREFIX is orca-YYYYMMDD-HHMMSS in the current directory. orca refuses to start
when PREFIX.orca exists, unless --force, which first deletes PREFIX.* and
PREFIX-N.* recording files: only regular files of the recording's user. A
recording's name taken by anything else (a symbolic link, another user's file,
a directory: someone else put it there) is refused, --force or not (exit
status 125). The files are created mode 0600, never through a symbolic link.

With --max-size or --max-age the recording stays on within bounds: events go
to chunk files PREFIX.orca.000001, PREFIX.orca.000002, ..., each readable on its
own (the state of every thread at its start), and the oldest are deleted so
that all PREFIX.* files stay within SIZE and about DURATION of history is
kept. orca report, view and export read what is kept and say which span it
covers (docs/format.md, "Bounded recordings").

Every thread's stack is also sampled (docs/agent.md, "The sample path"): by
its CPU time, every 10 ms of the CPU each thread uses (--cpu; a thread that
does not run is not sampled; by each thread's perf_events task clock where
the kernel allows it, else by a POSIX CPU timer, which a loaded machine makes
take fewer, heavier samples: PREFIX.info sample_cpu_clock), and, every 50 ms of wall-clock time, up to 8
threads that are off a CPU in no state Orca records (I/O, a socket read,
native code: --wall). The samples are Sample events with their stacks, Java,
native and the VM's frames; --cpu off and --wall off turn them off, --kinds
seed too. The agent uses SIGPROF: with another profiler in the JVM that uses
it (async-profiler, JFR's jdk.CPUTimeSample) the agent takes no samples and
says so in PREFIX.info (warning).

SIGTERM and SIGHUP sent to orca are passed on to COMMAND. Ctrl-C and Ctrl-\ on
a terminal reach COMMAND directly; when orca does not run in the terminal's
foreground, SIGINT and SIGQUIT are passed on too.

With --pid, orca attaches to a JVM that is already running (HotSpot, JDK 17+,
started without any agent or option) instead of starting one: it loads the
agent with HotSpot's attach protocol (the one jcmd uses; no JDK tool needed),
prints a line once the agent records, records until D has passed (--duration)
or orca gets Ctrl-C (SIGINT) or SIGTERM, then stops the recording, waits for
its files to be complete, prints what was recorded and exits 0. The JVM goes
on running; a later attach starts a new recording. A second Ctrl-C while the
recording stops only says so: orca never leaves the JVM recording — unless the
JVM is stopped (SIGSTOP), which orca says at once; then a second Ctrl-C, or
10 s, lets orca go, and the lease (below) ends the recording once the JVM
continues. orca must
run as the JVM's user or as root. The JVM's user writes the files, so -o must
name a directory that user can write (checked before attaching). Without -o
the prefix is orca-PID-YYYYMMDD-HHMMSS in the current directory, or in /tmp
inside the container for a JVM in a container (orca reads it there through
/proc/PID/root). A JVM started with -XX:+DisableAttachMechanism cannot be
attached to. JDK 21 and later print a WARNING on the JVM's own stderr (its log)
that an agent was loaded dynamically: it is expected, and starting the JVM
with -XX:+EnableDynamicAgentLoading hides it (and keeps attaching possible
should a later JDK disallow it by default).

--detach leaves the recording running and exits once it has started; stop it
later with orca stop PID, which prints the summary. Bound such a recording
with --max-size and --max-age; without either, --max-size 256MB is applied
(orca says so): its files never grow past it, keeping the latest events.

Without --detach, orca holds a lease on the recording (a lock on the file
PREFIX.lease the agent creates): when orca ends without stopping it (kill -9,
or a second Ctrl-C while a stopped JVM does not answer), the agent stops the
recording itself, its files complete, and says so on the JVM's stderr.

With --otlp URL, orca pushes the recording as it goes to an OpenTelemetry
Collector (its OTLP/HTTP base endpoint, as orca push takes it): every
--push-every (10s) the chunk files closed since the last push, as OTLP
profiles, and the rest at the end. It needs --max-size or --max-age (only
chunk files close while the JVM runs) and refuses --detach (no orca would be
left to push). The URL is checked, and the collector asked, before anything
starts. A collector that is away is retried with back-off; at most 32 pushes
wait for it, the oldest dropped past that; at the end orca says what it
pushed and what it dropped. The local recording is never touched, and its
exit status is COMMAND's whatever the collector did. 'orca help push' lists
what is sent.

Examples:
  orca record -- java -cp build/demo Demo
  orca record -o /tmp/run1 -- java -jar app.jar --port 8080
  orca record -o /tmp/tomcat --depth 32 -- catalina.sh run
  orca record -o build/run --force --quiet -- mvn -q exec:java
  orca record -o /var/tmp/srv --max-size 64MB --max-age 10m -- catalina.sh run
  orca record -o /tmp/cpu --cpu 1ms --wall off -- java -jar app.jar
  orca dump /tmp/run1 | less
  orca record --pid 4242 --duration 30s -o /tmp/srv
  orca record --pid 4242 -o /tmp/srv --force         (Ctrl-C stops)
  orca record --pid 4242 -o /var/tmp/srv --max-size 256MB --max-age 1h --detach
  orca stop 4242
  orca record --otlp http://127.0.0.1:4318 --max-age 10m -o /var/tmp/srv -- java -jar app.jar
  orca record --pid 4242 --otlp http://127.0.0.1:4318 --push-every 30s --max-size 256MB -o /var/tmp/srv
`

// The agent's defaults (agent/core/options.c), for help and summary texts.
const (
	agentDefaultBuffer = 32  // MB
	agentDefaultFlush  = 200 // ms
)

// childToolEnv names the environment variable that holds, when orca record
// put the agent on java's command line, what JAVA_TOOL_OPTIONS would have
// been: the agent sets JAVA_TOOL_OPTIONS to it (pass_to_children in
// agent/jvm/entry.c), so that the JVMs java starts record too.
const childToolEnv = "ORCA_JAVA_TOOL_OPTIONS"

// isJava reports whether COMMAND is the java launcher (java, /usr/bin/java,
// $JAVA_HOME/bin/java): it takes the agent on its command line. A script,
// a build tool or anything else gets it through JAVA_TOOL_OPTIONS.
func isJava(command string) bool { return filepath.Base(command) == "java" }

// recordEnv names the environment variable orca record sets for COMMAND: the
// prefix it records to. A nested orca record finds it and adds no second
// agent (the agent would refuse to load twice in one JVM anyway).
const recordEnv = "ORCA_RECORD"

// recordOptions are the flags of orca record.
type recordOptions struct {
	prefix    string
	depth     int
	flush     int           // ms; 0: the agent's default
	buffer    int           // MB; 0: the agent's default
	kinds     string        // "all" or "seed"
	format    string        // .orca's encoding: "seed" (text) or "compact"
	maxSize   string        // --max-size as given ("" none)
	maxAge    time.Duration // --max-age (0 none)
	cpu       string        // --cpu: a duration or "off" ("": the agent's default, 10ms)
	lockOrder lockOrderFlag // --lock-order: what a contending thread holds (the agent's lockorder=)
	wall      string        // --wall: likewise (the agent's default, 50ms)
	force     bool
	quiet     bool

	pid      int           // --pid: attach to this running JVM (0: start COMMAND)
	duration time.Duration // --duration: stop an attached recording after it (0: at Ctrl-C)
	detach   bool          // --detach: leave an attached recording running

	sizeByDefault bool // maxSize is detachMaxSize, given by default

	// --otlp: push the closed chunks to an OpenTelemetry Collector as the
	// recording goes (pushloop.go).
	otlp      string
	headers   headerFlags
	compress  string
	service   string
	pushEvery time.Duration
	maxReq    string
}

// lockOrderFlag is --lock-order: a flag that may stand alone (all: the
// monitors and the java.util.concurrent locks) or take a value, monitors or
// off. Unset (""): the agent's default, the monitors (read from the
// contender's own frames).
type lockOrderFlag string

func (f *lockOrderFlag) String() string { return string(*f) }

// IsBoolFlag lets --lock-order stand alone (flag sets "true").
func (f *lockOrderFlag) IsBoolFlag() bool { return true }

func (f *lockOrderFlag) Set(s string) error {
	switch s {
	case "true", "all":
		*f = "all"
	case "monitors":
		*f = "monitors"
	case "off", "false":
		*f = "off"
	default:
		return fmt.Errorf("want --lock-order (the monitors and the java.util.concurrent locks), --lock-order=monitors (the monitors only, the default) or --lock-order=off (none)")
	}
	return nil
}

// on: given, and not off (an attached agent cannot read held monitors).
func (f lockOrderFlag) on() bool { return f == "all" || f == "monitors" }

// agentValue is the agent's lockorder= for it, "" for the agent's default
// (the monitors: unset or --lock-order=monitors).
func (f lockOrderFlag) agentValue() string {
	switch f {
	case "all":
		return "yes"
	case "off":
		return "no"
	}
	return ""
}

// detachMaxSize bounds a --detach recording given no --max-size or
// --max-age: it runs until orca stop, unwatched (about 19 minutes of a
// busy server's events at 230 kB/s).
const detachMaxSize = "256MB"

func runRecord(u ui, args []string) (err error) {
	var o recordOptions
	flags := newFlagSet("record", recordHelp)
	flags.StringVar(&o.prefix, "o", "", "output `PREFIX` (default orca-YYYYMMDD-HHMMSS)")
	flags.IntVar(&o.depth, "depth", 16, "keep `N` stack frames per event, 0-256")
	flags.IntVar(&o.flush, "flush", 0, fmt.Sprintf("write buffered events every `MS` milliseconds, 10-1000 (agent default %d)", agentDefaultFlush))
	flags.IntVar(&o.buffer, "buffer", 0, fmt.Sprintf("event buffer in `MB`, 1-1024 (agent default %d); raise it when events are dropped; "+
		"the JVM's resident memory grows by up to about 3.8 x MB", agentDefaultBuffer))
	flags.StringVar(&o.kinds, "kinds", "all", "`all` (every kind Orca records) or seed: only the 16 kinds of the original Orca format (monitors, wait/notify, sleep, join, threads, semaphores; no java.util.concurrent locks, parks, classes, virtual threads), for tools that read only those")
	flags.StringVar(&o.format, "format", "compact", "the encoding of PREFIX.orca: `compact` (binary, each stack and thread written once per chunk: "+
		"6-12 x smaller than the text, less of the agent's CPU; orca dump prints it as text) or seed (the original Orca's text, one line an event, stacks inline; "+
		"orca export --format seed converts a compact recording to it), docs/format.md")
	flags.StringVar(&o.maxSize, "max-size", "", "keep all PREFIX.* files within `SIZE` (e.g. 16MB, 1G; at least 1MB; k, M, G are powers of 1024): chunk files, the oldest deleted")
	flags.DurationVar(&o.maxAge, "max-age", 0, "keep about `DURATION` of history (e.g. 30s, 10m, 2h; at least 1s): chunk files older than that deleted")
	flags.StringVar(&o.cpu, "cpu", "", "sample each thread's stack every `D` of its CPU time (e.g. 10ms, 1ms, 500us; 100us-10s), or off (default 10ms)")
	flags.StringVar(&o.wall, "wall", "", "every `D` of wall-clock time (1ms-10s), sample up to 8 threads that are off a CPU in no recorded state (I/O, native code), or off (default 50ms)")
	flags.Var(&o.lockOrder, "lock-order", "what a contending thread holds, for the report's potential deadlocks (lock-order inversions of a run "+
		"that did not deadlock). By default (=monitors) the monitors it holds at each contended monitor enter, read from its own frames "+
		"(2-8 µs at the median, about a stack walk; a monitor not hashed yet is asked of JVMTI by an agent thread while it blocks, and an "+
		"answer that comes after it got its monitor is dropped and counted). "+
		"--lock-order also records the ReentrantLock and ReentrantReadWriteLock locks it holds, and both at each park in their acquire: a native "+
		"call on every acquire and release of those locks, and at such a park a JVMTI call in the thread. --lock-order=off records none (the report "+
		"then says potential deadlocks were not looked for). Started with the JVM only: an attached agent cannot read them")
	flags.BoolVar(&o.force, "force", false, "replace an existing recording with this prefix")
	flags.BoolVar(&o.quiet, "quiet", false, "print no summary")
	flags.IntVar(&o.pid, "pid", 0, "attach to the running JVM with process id `PID` instead of starting a COMMAND")
	flags.DurationVar(&o.duration, "duration", 0, "with --pid: stop recording after `D` (e.g. 30s, 5m; default: at Ctrl-C)")
	flags.BoolVar(&o.detach, "detach", false, "with --pid: leave the recording running and exit; orca stop PID stops it (without --max-size or --max-age: --max-size 256MB)")
	flags.StringVar(&o.otlp, "otlp", "", "push the recording as it goes, its closed chunks every --push-every, as OTLP profiles to the collector at `URL` (its OTLP/HTTP base endpoint; needs --max-size or --max-age; orca push --help)")
	flags.Var(&o.headers, "otlp-header", "with --otlp: send the HTTP header `K=V` (repeat for more)")
	flags.StringVar(&o.compress, "otlp-compression", "", "with --otlp: send the bodies gzipped or as they are: `gzip|none` (default $"+otlpCompressionEnv+", else gzip; none for a collector on the same host: less CPU, more bytes)")
	flags.StringVar(&o.service, "service", "", "with --otlp: the resource's service.name `NAME` (default the JVM's main class or jar)")
	flags.DurationVar(&o.pushEvery, "push-every", 10*time.Second, "with --otlp: push the chunks closed every `D`")
	flags.StringVar(&o.maxReq, "otlp-max-request", "", "with --otlp: send requests of at most `SIZE` (encoded, before gzip), a larger push split into several (default 16MB)")
	if err := parseFlags(u, flags, args); err != nil {
		if attachArgs(args) {
			return err
		}
		return ownFailure(err)
	}
	argv := flags.Args()
	pidGiven, pushFlag := false, ""
	flags.Visit(func(f *flag.Flag) {
		pidGiven = pidGiven || f.Name == "pid"
		if f.Name == "push-every" || f.Name == "otlp-header" || f.Name == "otlp-compression" || f.Name == "service" || f.Name == "otlp-max-request" {
			pushFlag = f.Name
		}
	})
	if pushFlag != "" && o.otlp == "" {
		err := usagef("record: --%s goes with --otlp URL (orca help push)", pushFlag)
		if pidGiven {
			return err
		}
		return ownFailure(err)
	}
	if pidGiven {
		if o.detach && o.otlp != "" {
			return usagef("record: --otlp goes without --detach: a detached recording has no orca left to push it; " +
				"record with --otlp and without --detach (Ctrl-C or --duration ends it), or push the detached recording's chunks later with orca push --last D")
		}
		if o.detach && o.maxSize == "" && o.maxAge == 0 {
			if o.format == "seed" {
				return usagef("record: --detach without --max-size or --max-age is bounded to the last %s, which needs the compact encoding: leave out --format seed, "+
					"and convert the kept chunks later with orca export --format seed", detachMaxSize)
			}
			// Left running, nothing else would bound its files.
			o.maxSize, o.sizeByDefault = detachMaxSize, true
		}
		if err := o.checkAttach(argv); err != nil {
			return err
		}
		return recordPID(u, o)
	}
	// From here on orca runs COMMAND, whose own statuses pass through: orca's
	// failures exit exitFailed.
	defer func() { err = ownFailure(err) }()
	if o.duration != 0 || o.detach {
		return usagef("record: --duration and --detach go with --pid PID (example: orca record --pid 4242 --duration 30s)")
	}
	if len(argv) == 0 {
		return usagef("record: no COMMAND given (example: orca record -o /tmp/run1 -- java -jar app.jar)")
	}
	if err := o.check(); err != nil {
		return err
	}
	if outer := os.Getenv(recordEnv); outer != "" {
		// orca record -- orca record -- java …: the outer agent records.
		fmt.Fprintf(u.stderr, "orca: already inside orca record (recording to %s): running %s without a second agent\n", outer, argv[0])
		code, err := runChild(u, argv, os.Environ())
		if err != nil {
			return err
		}
		return childStatus(code)
	}
	if o.prefix == "" {
		o.prefix = defaultPrefix(time.Now())
	}
	if err := checkPrefix(o.prefix); err != nil {
		return err
	}
	if err := checkWritable(o.prefix); err != nil {
		return err
	}

	if err := checkRecordingNames(o.prefix, os.Geteuid(), "nothing was started"); err != nil {
		return err
	}
	if _, err := os.Stat(o.prefix + format.SuffixEvents); err == nil && !o.force {
		return exitError{2, fmt.Sprintf("%s.orca already exists: choose another prefix with -o, "+
			"or pass --force to delete it and the other files of earlier recordings (%s.*, %s-N.*)", o.prefix, o.prefix, o.prefix)}
	}
	if o.force {
		removed, err := removeRecordings(o.prefix, os.Geteuid(), os.Getegid())
		if err != nil {
			return removeError(err)
		}
		if len(removed) > 0 && !o.quiet {
			fmt.Fprintf(u.stderr, "orca: removed %d files of earlier recordings with prefix %s\n", len(removed), o.prefix)
		}
	}

	lib, err := agentlib.Path()
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(o.prefix)
	if err != nil {
		return err
	}
	var push *pusher
	if o.otlp != "" {
		if push, err = o.newPusher(u, abs); err != nil {
			return err
		}
	}
	session, err := newSession()
	if err != nil {
		return err
	}
	// The agent appends to errs why a JVM could not be recorded; told again
	// at the end, after the program's own output.
	errs, err := os.CreateTemp("", "orca-record-*.errors")
	if err != nil {
		return err
	}
	errs.Close()
	defer os.Remove(errs.Name())
	agent := agentOption(lib, abs, o) + ",session=" + session + ",errors=" + errs.Name()
	tool, err := javaToolOptions(os.Getenv("JAVA_TOOL_OPTIONS"), agent)
	if err != nil {
		return err
	}
	env := setEnv(os.Environ(), recordEnv, abs)
	if isJava(argv[0]) {
		// On java's own command line the agent needs no JAVA_TOOL_OPTIONS,
		// whose "Picked up JAVA_TOOL_OPTIONS: -agentpath:..." line every JVM
		// prints on the program's stderr. The JVMs java starts get it there
		// from the agent (childToolEnv).
		argv = append([]string{argv[0], agent}, argv[1:]...)
		env = setEnv(env, childToolEnv, tool)
	} else {
		env = setEnv(env, "JAVA_TOOL_OPTIONS", tool)
	}

	before, err := findRecordings(o.prefix)
	if err != nil {
		return err
	}
	if push != nil {
		push.start()
	}
	code, err := runChild(u, argv, env)
	if push != nil {
		// After the JVM's end: its last chunk is closed.
		defer push.finish()
	}
	if err != nil {
		return err
	}
	after, err := findRecordings(o.prefix)
	if err != nil {
		return err
	}
	recs, unstarted := dropUnstarted(ownRecordings(newRecordings(before, after), session))
	for _, r := range unstarted {
		fmt.Fprintf(u.stderr, "orca: the JVM of %s stopped before it started (its error is above, exit status %d): nothing was recorded; its empty files were removed\n", termSafe(r.prefix), code)
	}
	failed, _ := os.ReadFile(errs.Name())
	switch {
	case len(recs) == 0 && len(unstarted) == 0 && len(failed) == 0:
		fmt.Fprint(u.stderr, noRecordingText(argv[0], code))
		if code == 0 {
			// COMMAND succeeded, but what orca was asked to do was not done.
			code = exitFailed
		}
	case !o.quiet:
		for _, r := range recs {
			printSummary(u.stderr, r)
		}
	}
	if len(failed) > 0 {
		// The agent printed it when it happened, amid the program's output.
		fmt.Fprintf(u.stderr, "orca: the agent could not record:\n")
		for _, l := range strings.Split(strings.TrimSpace(string(failed)), "\n") {
			fmt.Fprintf(u.stderr, "  %s\n", termSafe(l))
		}
		if code == 0 {
			code = exitFailed
		}
	}
	if len(unstarted) > 0 && code == 0 {
		code = exitFailed
	}
	if code == exitFailed {
		return exitError{code: code}
	}
	return childStatus(code)
}

// removeError is --force's failure: a refusal as it is, another error
// wrapped.
func removeError(err error) error {
	var ee exitError
	if errors.As(err, &ee) {
		return err
	}
	return fmt.Errorf("removing earlier recording: %w", err)
}

// exitFailed is orca record's exit status when orca itself fails: a usage
// mistake, a prefix refused, no JVM recorded though COMMAND succeeded, a JVM
// of it that could not be recorded (recordHelp). COMMAND's own statuses pass
// through, so orca's must be one no program is likely to use: 125, as env,
// nohup and timeout use it (126 and 127 keep their shell meaning: COMMAND
// could not be run, or was not found).
const exitFailed = 125

// ownFailure gives err, a failure of orca record's own while it runs
// COMMAND, the status exitFailed; COMMAND's status (and 126, 127: COMMAND
// could not be started) passes through.
func ownFailure(err error) error {
	var ee exitError
	var ue usageError
	var cs childStatus
	switch {
	case err == nil, errors.As(err, &cs):
		return err
	case errors.As(err, &ee) && (ee.code == 0 || ee.code == 126 || ee.code == 127 || ee.code == exitFailed):
		return err
	case errors.As(err, &ee):
		return exitError{code: exitFailed, msg: ee.msg}
	case errors.As(err, &ue):
		return exitError{code: exitFailed, msg: ue.msg}
	default:
		return exitError{code: exitFailed, msg: err.Error()}
	}
}

// attachArgs reports whether orca record's arguments ask for an attach
// (--pid before any "--"): it runs no COMMAND, and its failures keep
// orca's usual statuses (1, 2 for usage).
func attachArgs(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if n := strings.TrimLeft(a, "-"); n != a && (n == "pid" || strings.HasPrefix(n, "pid=")) {
			return true
		}
	}
	return false
}

// dropUnstarted separates the recordings of JVMs that stopped before they
// started (a bad JVM option, or a second agent that refused its options:
// the JVM ends in its initialisation) — no events, no java_version in
// .info, which the agent writes at VMInit — and removes their files, which
// would only make a corrected retry fail with "already exists".
func dropUnstarted(recs []recording) (kept, unstarted []recording) {
	for _, r := range recs {
		in, err := reader.LoadInfo(r.prefix + format.SuffixInfo)
		if err != nil || in.JavaVersion() != "" || !in.Incomplete() || !r.empty() {
			kept = append(kept, r)
			continue
		}
		for _, f := range r.files {
			os.Remove(f.path)
		}
		unstarted = append(unstarted, r)
	}
	return kept, unstarted
}

// checkWritable makes sure, before COMMAND starts, that the agent can
// create the recording's files: the prefix's directory exists and takes a
// new file.
func checkWritable(prefix string) error {
	return checkOutDir("record: -o "+prefix, prefix, "nothing was started")
}

// newSession returns a random token that the agent writes to each .info of
// this run (session=), so that concurrent runs with one prefix each list
// only their own recordings.
func newSession() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// ownRecordings keeps the recordings whose .info names session; one whose
// .info cannot be read is kept (it cannot be told apart).
func ownRecordings(recs []recording, session string) []recording {
	var out []recording
	for _, r := range recs {
		in, err := reader.LoadInfo(r.prefix + format.SuffixInfo)
		if err != nil || in.Session() == session {
			out = append(out, r)
		}
	}
	return out
}

// newPusher checks --otlp and its options and the collector (before
// anything is recorded) and returns the pusher of prefix.
func (o recordOptions) newPusher(u ui, prefix string) (*pusher, error) {
	target, err := newOTLPTarget(o.otlp, o.headers, o.compress)
	if err != nil {
		return nil, usagef("record: %v", err)
	}
	if o.maxSize == "" && o.maxAge == 0 {
		return nil, usagef("record: --otlp pushes the chunks of a bounded recording as they close: add --max-size or --max-age " +
			"(e.g. --max-age 10m: chunks of 75 s; --max-size 256MB), or push a whole recording afterwards with orca push")
	}
	if target.maxRequest, err = parseMaxRequest(o.maxReq); err != nil {
		return nil, usagef("record: %v", err)
	}
	if o.pushEvery < 100*time.Millisecond {
		return nil, usagef("record: --push-every %v: want at least 100ms (e.g. 10s)", o.pushEvery)
	}
	host, _ := os.Hostname()
	return newPusher(u, prefix, target, export.OTLPOptions{Samples: true, Service: o.service, Host: host, Version: version}, o.pushEvery)
}

func (o recordOptions) check() error {
	if o.depth < 0 || o.depth > 256 {
		return usagef("record: --depth %d: want 0-256", o.depth)
	}
	if o.flush != 0 && (o.flush < 10 || o.flush > 1000) {
		return usagef("record: --flush %d: want 10-1000 milliseconds", o.flush)
	}
	if o.buffer != 0 && (o.buffer < 1 || o.buffer > 1024) {
		return usagef("record: --buffer %d: want 1-1024 MB", o.buffer)
	}
	if o.kinds != "" && o.kinds != "all" && o.kinds != "seed" {
		return usagef("record: --kinds %q: want all or seed", o.kinds)
	}
	if o.format != "" && o.format != "seed" && o.format != "compact" {
		return usagef("record: --format %q: want seed or compact", o.format)
	}
	if o.lockOrder.on() && o.pid != 0 {
		return usagef("record: --lock-order with --pid: an attached agent cannot read the monitors a thread holds (HotSpot gives that capability only at the JVM's start); start the JVM with orca record --lock-order -- java ...")
	}
	if _, err := sampleOption("cpu", o.cpu, 100*time.Microsecond); err != nil {
		return err
	}
	if _, err := sampleOption("wall", o.wall, time.Millisecond); err != nil {
		return err
	}
	if o.maxSize != "" {
		if _, err := parseSize(o.maxSize); err != nil {
			return usagef("record: --max-size %q: %v", o.maxSize, err)
		}
	}
	if o.maxAge != 0 && o.maxAge < time.Second {
		return usagef("record: --max-age %v: want at least 1s (e.g. 30s, 10m, 2h)", o.maxAge)
	}
	if (o.maxSize != "" || o.maxAge != 0) && o.format == "seed" {
		return usagef("record: --max-size and --max-age need the compact encoding (its chunks read on their own); leave out --format seed, " +
			"and convert the kept chunks later with orca export --format seed")
	}
	return nil
}

// checkAttach checks the flags of orca record --pid; argv is what follows
// them.
func (o recordOptions) checkAttach(argv []string) error {
	switch {
	case len(argv) > 0:
		return usagef("record: --pid %d attaches to a running JVM, COMMAND %q would start one: give one of them", o.pid, argv[0])
	case o.pid <= 0:
		return usagef("record: --pid %d: want the process id of a running JVM (jps or ps -C java lists them)", o.pid)
	case o.duration < 0:
		return usagef("record: --duration %v: want a positive duration (e.g. 30s, 5m)", o.duration)
	case o.detach && o.duration != 0:
		return usagef("record: --detach leaves the recording running, --duration stops it: give one of them (bound a detached recording with --max-size or --max-age)")
	}
	return o.check()
}

// maxSizeBytes is the largest size parseSize takes, the agent's limit.
const maxSizeBytes = 9e18

// parseSize reads a size: bytes, or a number with k, K, kB, KB, M, MB, G,
// GB (powers of 1024), at least 1 MB.
func parseSize(s string) (int64, error) {
	return parseSizeAtLeast(s, 1<<20)
}

// parseSizeAtLeast is parseSize with another least size, least.
func parseSizeAtLeast(s string, least int64) (int64, error) {
	units := []struct {
		suffix string
		f      float64
	}{{"KB", 1 << 10}, {"kB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"k", 1 << 10}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	num, f := s, 1.0
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, f = n, u.f
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("want a size such as 16MB or 1G")
	}
	b := int64(v * f)
	// The agent takes at most 9e18 bytes (agent/core/options.c); a float
	// beyond int64 converts to a negative number.
	if v*f > maxSizeBytes {
		return 0, fmt.Errorf("%s is too large: the largest is %d bytes (7.8 EB)", s, int64(maxSizeBytes))
	}
	if b < least {
		return 0, fmt.Errorf("want at least %s", sizeName(least))
	}
	return b, nil
}

// defaultPrefix names a recording after the time it started.
func defaultPrefix(t time.Time) string {
	return t.Format("orca-20060102-150405")
}

// checkPrefix refuses prefixes the agent's option syntax cannot carry, and
// directories.
func checkPrefix(p string) error {
	if err := checkPrefixSyntax(p); err != nil {
		return err
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return usagef("record: -o %q is a directory: want a file name prefix (e.g. %s)", p, filepath.Join(p, "run1"))
	}
	return nil
}

// checkPrefixSyntax refuses prefixes the agent's option syntax cannot carry
// and names of directories.
func checkPrefixSyntax(p string) error {
	switch {
	case strings.Contains(p, ","):
		return usagef("record: -o %q: the prefix may not contain a comma (it separates agent options)", p)
	case strings.HasSuffix(p, "/") || filepath.Base(p) == "." || filepath.Base(p) == "..":
		return usagef("record: -o %q: want a file name prefix, not a directory (e.g. %s)", p, filepath.Join(p, "run1"))
	}
	return nil
}

// agentOption is the -agentpath option that loads the agent with o.
func agentOption(lib, prefix string, o recordOptions) string {
	return "-agentpath:" + lib + "=" + agentOptions(prefix, o)
}

// agentOptions is the agent's options string for o, as -agentpath and an
// attach's load pass it. clobber=no makes each further JVM of COMMAND pick
// PREFIX-2, PREFIX-3, ...
func agentOptions(prefix string, o recordOptions) string {
	s := fmt.Sprintf("prefix=%s,clobber=no,depth=%d", escapePrefix(prefix), o.depth)
	if o.flush != 0 {
		s += ",flush=" + strconv.Itoa(o.flush)
	}
	if o.buffer != 0 {
		s += ",buffer=" + strconv.Itoa(o.buffer)
	}
	if o.kinds == "seed" {
		s += ",kinds=seed"
	}
	if o.format == "compact" {
		s += ",format=compact"
	}
	if v := o.lockOrder.agentValue(); v != "" {
		s += ",lockorder=" + v
	}
	for _, f := range []struct{ name, v string }{{"cpu", o.cpu}, {"wall", o.wall}} {
		if v, _ := sampleOption(f.name, f.v, 0); v != "" { // checked
			s += "," + f.name + "=" + v
		}
	}
	if o.maxSize != "" {
		n, _ := parseSize(o.maxSize) // checked
		s += ",maxsize=" + strconv.FormatInt(n, 10)
	}
	if o.maxAge != 0 {
		s += fmt.Sprintf(",maxage=%ds", int64((o.maxAge+time.Second-1)/time.Second))
	}
	return s
}

// sampleOption turns --cpu or --wall (flag name) as given into the agent's
// option value: "off", or the interval in microseconds ("10000us"); "" when
// not given (the agent's default). An interval below least or above 10 s, or
// not a duration, is a usage error.
func sampleOption(name, v string, least time.Duration) (string, error) {
	if v == "" || v == "off" {
		return v, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < least || d > 10*time.Second || d%time.Microsecond != 0 {
		lo := "100us"
		if name == "wall" {
			lo = "1ms"
		}
		return "", usagef("record: --%s %q: want a duration %s-10s (e.g. 10ms) or off", name, v, lo)
	}
	return strconv.FormatInt(d.Microseconds(), 10) + "us", nil
}

// escapePrefix keeps every % of a prefix literal: the agent expands %p
// (pid) in it, but the recording files are named by orca.
func escapePrefix(prefix string) string {
	return strings.ReplaceAll(prefix, "%", "%%")
}

// javaToolOptions appends opt to an existing JAVA_TOOL_OPTIONS value. The
// JVM splits the variable at white space but honours '…' and "…" quotes.
func javaToolOptions(existing, opt string) (string, error) {
	if strings.ContainsAny(opt, " \t\n\r\f\v'\"") {
		switch {
		case !strings.Contains(opt, `"`):
			opt = `"` + opt + `"`
		case !strings.Contains(opt, `'`):
			opt = `'` + opt + `'`
		default:
			return "", fmt.Errorf("cannot pass %q in JAVA_TOOL_OPTIONS: it contains both kinds of quotes", opt)
		}
	}
	if strings.TrimSpace(existing) == "" {
		return opt, nil
	}
	return existing + " " + opt, nil
}

// setEnv returns env with key set to value (replacing every earlier entry).
func setEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}

// runChild runs argv with env, connected to u, passing signals on as
// recordHelp describes, and returns its exit status.
func runChild(u ui, argv []string, env []string) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = u.stdin, u.stdout, u.stderr

	// Catch (never ignore) the signals: an ignored SIGINT would stay ignored
	// in the child across exec, and the JVM would then ignore Ctrl-C.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return 0, exitError{127, fmt.Sprintf("%s: command not found", argv[0])}
		}
		return 0, exitError{126, fmt.Sprintf("starting %s: %v", argv[0], err)}
	}
	// A terminal sends Ctrl-C and Ctrl-\ to its whole foreground process
	// group, the child included: passing them on would deliver them twice.
	fromTTY := inForeground()
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if fromTTY && (s == syscall.SIGINT || s == syscall.SIGQUIT) {
					continue
				}
				cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 0, fmt.Errorf("waiting for %s: %w", argv[0], err)
	}
	return exitCode(cmd.ProcessState), nil
}

// exitCode maps a process's end to a shell-style status: its exit code, or
// 128+N when signal N killed it.
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// inForeground reports whether orca belongs to the foreground process group
// of its controlling terminal.
func inForeground() bool {
	f, err := os.Open("/dev/tty")
	if err != nil {
		return false
	}
	defer f.Close()
	var pgrp int32
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp)))
	return e == 0 && int(pgrp) == syscall.Getpgrp()
}

func noRecordingText(command string, code int) string {
	if code != 0 {
		return fmt.Sprintf(`orca: nothing was recorded: %s exited with status %d before any JVM loaded the agent.
orca: If a JVM printed an error above (an unknown option, a missing class), correct it and run again.
orca: If %s is a script, it must start java with JAVA_TOOL_OPTIONS kept in its environment.
`, command, code, command)
	}
	return fmt.Sprintf(`orca: no recording was written: %s (exit status 0) started no JVM that loaded the agent.
orca: Is %s a Java program, or a script that starts java and keeps JAVA_TOOL_OPTIONS in its
orca: environment? A JVM that loads the agent prints "Picked up JAVA_TOOL_OPTIONS: -agentpath:..."
orca: on stderr; if it did and then stopped, the JVM's or the agent's error is printed above it.
`, command, command)
}

// sizeName writes a size of whole kB or MB as parseSize reads it.
func sizeName(n int64) string {
	if n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + "MB"
	}
	return strconv.FormatInt(n>>10, 10) + "KB"
}
