package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"orca/internal/agentlib"
	"orca/internal/format"
)

// version is orca's and its agent's (ORCA_VERSION in agent/core/events.h, generated from it).
const version = format.AgentVersion

// usageError is a mistake on the command line: main prints it and exits 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// exitError ends orca with a given status after its message (if any) is printed.
type exitError struct {
	code int
	msg  string
}

// childStatus is orca record's COMMAND's own exit status, which orca exits
// with.
type childStatus int

func (c childStatus) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

func (e exitError) Error() string { return e.msg }

// ui is where a command reads and writes: os.Std* in main, buffers in tests.
type ui struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one subcommand of orca.
type command struct {
	name    string
	summary string
	run     func(u ui, args []string) error
}

func commands() []command {
	return []command{
		{"record", "run a command with the agent in every JVM it starts, or attach to a running JVM (--pid)", runRecord},
		{"threads", "print what every thread of a running JVM does now: deadlocks, wait chains, stacks, held locks", runThreads},
		{"stop", "stop a recording that orca record --pid --detach left running", runStop},
		{"report", "show deadlocks, hangs, contended locks and thread states of a recording", runReport},
		{"dump", "print a recording's events, decoded, with stacks", runDump},
		{"import", "convert a JDK Flight Recorder (.jfr) file into an Orca recording", runImport},
		{"view", "browse a recording in a web browser: timeline, locks, deadlocks, flame graph", runView},
		{"export", "write a recording as a pprof profile, Perfetto or Chrome trace, or folded stacks", runExport},
		{"push", "send a recording to an OpenTelemetry Collector as OTLP profiles, with the owner of every contention", runPush},
		{"agent-path", "print the path of the agent library, for -agentpath", runAgentPath},
		{"version", "print orca's version", runVersion},
		{"help", "show help for a command", runHelp},
	}
}

func main() {
	os.Exit(run(ui{os.Stdin, os.Stdout, os.Stderr}, os.Args[1:]))
}

// run executes one orca command line and returns the exit status.
func run(u ui, args []string) int {
	if len(args) == 0 {
		mainUsage(u.stderr)
		return 2
	}
	name := args[0]
	if name == "-h" || name == "-help" || name == "--help" {
		mainUsage(u.stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == name {
			defer startCPUProfile(u.stderr)()
			return exitStatus(u, c.run(u, args[1:]))
		}
	}
	return exitStatus(u, usagef("unknown command %q (run 'orca help')", name))
}

// exitStatus prints err, if any, and returns orca's exit status. Its text
// may quote what another user controls (the JVM's answers, its files' names,
// a recording's words): no control character of theirs reaches the terminal
// (termSafeLines).
func exitStatus(u ui, err error) int {
	var ue usageError
	var ee exitError
	var cs childStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &cs):
		return int(cs)
	case errors.As(err, &ue):
		fmt.Fprintf(u.stderr, "orca: %s\n", termSafeLines(ue.msg))
		return 2
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintf(u.stderr, "orca: %s\n", termSafeLines(ee.msg))
		}
		return ee.code
	default:
		fmt.Fprintf(u.stderr, "orca: %s\n", termSafeLines(err.Error()))
		return 1
	}
}

// startCPUProfile writes a CPU profile of the command, whichever it is,
// to ORCA_CPUPROFILE's file (hidden, for bench/pgo.sh: the profile the
// compiler builds orca with, cmd/orca/default.pgo), created as the
// report's (createProfile: exclusively, never through a symlink). It
// returns what stops it.
func startCPUProfile(stderr io.Writer) (stop func()) {
	path := os.Getenv("ORCA_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := createProfile(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "orca: ORCA_CPUPROFILE: %v (no profile written)\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

func mainUsage(w io.Writer) {
	fmt.Fprint(w, `Orca records how the threads of a Java program block each other, with a JVMTI
agent: synchronized blocks (contention with the owner to blame), Object.wait and
notify, java.util.concurrent locks, conditions, latches, semaphores and every
LockSupport park (with the lock's owner), Thread.sleep and join, thread start and
end, virtual threads (JDK 21+), and class initialisation — each with a stack.
It finds deadlocks, hangs and the locks that cost the most, and who held them.

Usage: orca COMMAND [ARGUMENTS]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Start here:
  orca record -o /tmp/run1 -- java -jar app.jar
  orca report /tmp/run1
  orca view /tmp/run1
  orca dump /tmp/run1 | less

Run 'orca help COMMAND' (or 'orca COMMAND --help') for a command's options and examples.

Exit status: 0 done; 1 an error (a file that is not a recording, a recording
cut short); 2 a usage error or a refusal. orca record -- COMMAND exits with
COMMAND's status, or 125 when orca itself failed (no JVM recorded, a JVM that
could not be recorded, a usage error), 126 COMMAND not runnable, 127 not found.
`)
}

// newFlagSet returns a FlagSet whose usage text is the command's help.
// Parse errors are reported by parseFlags, not by the flag package.
func newFlagSet(name, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	helps[name] = func(w io.Writer) {
		fmt.Fprint(w, help)
		printFlags(w, fs)
	}
	return fs
}

// printFlags lists fs's flags as "--name ARG  usage (default D)"; one-letter
// flags keep a single dash.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	type row struct{ name, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if len(f.Name) == 1 {
			name = "-" + f.Name
		}
		if arg != "" {
			name += " " + arg
		}
		// a zero duration is no default either ("--max-age … (default 0s)" read as a bound of 0)
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "0s" && f.DefValue != "false" && !strings.Contains(usage, "default") {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		rows = append(rows, row{name, usage})
		width = max(width, len(name))
	})
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nOptions:")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.name, r.usage)
	}
}

// helps holds each command's help printer, registered by newFlagSet.
var helps = map[string]func(io.Writer){}

// errHelp tells exitStatus that help was printed on request.
var errHelp = exitError{code: 0}

// parseFlags parses args; on -h/--help it prints the help to stdout.
func parseFlags(u ui, fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		helps[fs.Name()](u.stdout)
		return errHelp
	}
	if err != nil {
		return usagef("%s: %v (run 'orca %s --help')", fs.Name(), err, fs.Name())
	}
	return nil
}

// parseArgs parses the arguments of a command whose other arguments are
// operands (a PREFIX, a file), and returns the operands. Flags may come
// before, between or after them (orca view rec --no-browser); after "--"
// everything is an operand. orca record does not use it: what follows
// its COMMAND is the command's.
func parseArgs(u ui, fs *flag.FlagSet, args []string) ([]string, error) {
	var ops []string
	for {
		if err := parseFlags(u, fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return ops, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(ops, rest...), nil
		}
		ops = append(ops, rest[0])
		args = rest[1:]
	}
}

func runHelp(u ui, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		mainUsage(u.stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(u, []string{"--help"})
		}
	}
	return usagef("help: unknown command %q", args[0])
}

const agentPathHelp = `Usage: orca agent-path

Prints the path of the agent library, extracted from the orca binary into a
cache directory. Use it to start a JVM with the agent yourself:

  java -agentpath:$(orca agent-path)=/tmp/run2 Main
  java -agentpath:$(orca agent-path)=prefix=/tmp/run3,depth=32 -jar app.jar
  orca dump /tmp/run2

The agent's options follow the '=': a bare PREFIX (as /tmp/run2 above), or
key=value pairs separated by commas (docs/agent.md):

  prefix=PATH       write PATH.orca, .methods, .classtable, .info (default
                    orca-%p in the JVM's directory; %p is the pid, %% a %)
  depth=N           stack frames per event, 0-256 (default 16)
  flush=MS          write buffered events every MS milliseconds, 10-1000
                    (default 200)
  buffer=MB         event buffer in MB, 1-1024 (default 32); the JVM's resident
                    memory grows by up to about 3.8 x MB
  kinds=all|seed    all (default), or only the 16 kinds of the original Orca
                    format
  format=seed|compact
                    PREFIX.orca's encoding: seed, the text (the default here;
                    orca record's default is compact), or compact (docs/format.md)
  maxsize=SIZE      keep the files within SIZE (k, M or G; at least 1M): chunk
                    files PREFIX.orca.N, the oldest deleted (implies compact)
  maxage=DURATION   keep about DURATION of history (s, m, h or d; at least 1s)
  cpu=D|off         sample each thread's stack every D of its CPU time (us, ms
                    or s; 100us-10s; default 10ms)
  cpu_clock=perf|timer
                    the CPU sampler's clock: perf (default), each thread's
                    perf_events task clock (the POSIX timer when refused);
                    timer: POSIX CPU timers, checked at the kernel's tick
  wall=D|off        every D of wall-clock time (1ms-10s; default 50ms), sample
                    threads off a CPU in no recorded state (I/O, native code)
  wall_threads=N    at most N threads a wall sample tick, 1-1024 (default 8)
  clobber=yes|no    yes (default): overwrite an earlier recording with this
                    PREFIX; no: write PREFIX-2, PREFIX-3, ... (a recording
                    another running JVM writes is never overwritten)
  thread_cpu=MS|off read each thread's CPU and ready time from the kernel
                    (ThreadCPU lines) every MS ms, 100-60000, when they
                    changed, and at each thread's start and end (default
                    1000); off: none
  standby=yes       record nothing now: only make the JVM ready for a later
                    'orca record --pid' (alone, at the JVM's start). On JDK
                    17-22 the attach then rewrites Semaphore (and records
                    it), deoptimising only the code that inlined it; without,
                    it rewrites nothing (docs/attach.md, "What an attach
                    rewrites")
  lockorder=yes|monitors|no
                    the locks a contending thread holds, for the report's
                    potential deadlocks. monitors (default): at each
                    contended monitor enter, the monitors it holds
                    (MonitorHeld lines; read from its own frames, p50 2-8 us;
                    a monitor not hashed yet asked of JVMTI by an agent
                    thread while it blocks). yes: also at each park in a
                    ReentrantLock's or ReentrantReadWriteLock's acquire, and
                    those locks it holds (LockHeld lines; a native call on
                    every acquire and release of them). no: none. At the
                    JVM's start only
  snapshot=yes      (an attach: orca threads) write what every thread does now,
                    its stack and monitors, and stop at once: no event, no
                    class rewritten, no thread left

orca record sets these from its own options (--depth, --flush, --buffer,
--kinds, --format, --cpu, --wall, --lock-order, --max-size, --max-age; 'orca help record') and adds
session=, errors= and lease=, which tell its recordings apart, collect why a
JVM could not be recorded and end an attached recording when orca is gone.
A wrong option stops the JVM at its start with this list.
`

func runAgentPath(u ui, args []string) error {
	fs := newFlagSet("agent-path", agentPathHelp)
	ops, err := parseArgs(u, fs, args)
	if err != nil {
		return err
	}
	if len(ops) > 0 {
		return usagef("agent-path takes no arguments")
	}
	p, err := agentlib.Path()
	if err != nil {
		return err
	}
	fmt.Fprintln(u.stdout, p)
	return nil
}

const versionHelp = `Usage: orca version

Prints orca's version, the Go toolchain and the checksum of the embedded agent.
`

func runVersion(u ui, args []string) error {
	fs := newFlagSet("version", versionHelp)
	ops, err := parseArgs(u, fs, args)
	if err != nil {
		return err
	}
	if len(ops) > 0 {
		return usagef("version takes no arguments")
	}
	rev := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = " " + s.Value[:min(12, len(s.Value))] + rev
			case "vcs.modified":
				if s.Value == "true" {
					rev += "+dirty"
				}
			}
		}
	}
	fmt.Fprintf(u.stdout, "orca %s%s (%s), agent sha256 %s\n", version, rev, runtime.Version(), agentlib.Checksum()[:16])
	return nil
}
