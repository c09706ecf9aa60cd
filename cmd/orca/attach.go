package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"orca/internal/agentlib"
	"orca/internal/attach"
	"orca/internal/format"
	"orca/internal/hostfs"
)

// The codes the agent's Agent_OnAttach returns (docs/attach.md, "The agent's side").
const (
	attachOK        = 0 // recording (start), or stopped (stop)
	attachBadOption = 1 // the options string was refused
	attachRunning   = 2 // a recording already runs in this JVM
	attachCannotOut = 3 // the JVM's user cannot write the prefix's directory
	attachJVMTI     = 4 // the JVM lacks a capability or event the agent needs
	attachNoneToEnd = 5 // stop: no recording runs (or none with the given prefix)
	attachNotLive   = 6 // the JVM did not reach JVMTI's live phase while the agent waited (JDK 17-20)
	attachNoThread  = 7 // the agent could not start its writer thread (the process at its limit of threads)
)

// notLiveWait bounds how long orca loads the agent again into a JVM that refuses it until it is
// live (JDK 21+); JDK 17-20 call the agent, which waits as long itself (agent/jvm/entry.c,
// get_env).
const notLiveWait = 10 * time.Second

// stopPollEvery is how often orca record --pid checks that the JVM still runs.
const stopPollEvery = 200 * time.Millisecond

// stoppedWait bounds how long a stop waits for a JVM that is stopped
// (SIGSTOP): it answers nothing until it continues.
const stoppedWait = 10 * time.Second

// attachSignals end an attached recording (a second one only says that the
// stop is under way: the JVM is never left recording, unless it is stopped:
// awaitStop).
var attachSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// recordPID is orca record --pid: it attaches to the running JVM o.pid,
// starts a recording, and stops it after o.duration or a signal — or, with
// o.detach, leaves it running.
func recordPID(u ui, o recordOptions) error {
	// Caught from the start: a Ctrl-C while the agent loads stops the
	// recording as soon as it runs, rather than leave it behind.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, attachSignals...)
	defer signal.Stop(sigs)

	if o.prefix != "" {
		if err := checkPrefixSyntax(o.prefix); err != nil {
			return err
		}
	}
	j, err := attach.ReadProc("/proc", o.pid)
	if err == nil {
		err = j.CheckUser(os.Geteuid())
	}
	if err != nil {
		return exitError{1, "record --pid: " + err.Error()}
	}
	prefix, err := attachPrefix(j, o.prefix, time.Now())
	if err != nil {
		return err
	}
	if err := checkAttachPrefix(j, o.prefix, prefix); err != nil {
		return err
	}
	if err := j.CheckWritableBy(prefix); err != nil {
		return exitError{2, "record --pid: " + err.Error()}
	}
	hostPrefix := j.Host(prefix)
	if err := checkRecordingNames(hostPrefix, j.UID, "nothing was attached"); err != nil {
		return err
	}
	if _, err := os.Stat(hostPrefix + format.SuffixEvents); err == nil && !o.force {
		return exitError{2, fmt.Sprintf("%s.orca already exists: choose another prefix with -o, "+
			"or pass --force to delete it and the other files of earlier recordings (%s.*, %s-N.*)", hostPrefix, hostPrefix, hostPrefix)}
	}
	if o.force {
		removed, err := removeRecordings(hostPrefix, j.UID, j.GID)
		if err != nil {
			return removeError(err)
		}
		if len(removed) > 0 && !o.quiet {
			fmt.Fprintf(u.stderr, "orca: removed %d files of earlier recordings with prefix %s\n", len(removed), hostPrefix)
		}
	}

	var push *pusher
	if o.otlp != "" {
		if push, err = o.newPusher(u, hostPrefix); err != nil {
			return err
		}
	}

	// Everything that can fail is done before the attach starts the JVM's
	// attach listener (a thread it keeps for good).
	lib, err := j.PlaceAgent(agentlib.Bytes(), agentlib.Checksum(), agentlib.Path)
	if ue := (*attach.UncheckedAgentError)(nil); errors.As(err, &ue) {
		return exitError{2, ue.Error()}
	}
	if err != nil {
		return err
	}
	defer j.RemovePlaced() // unless the JVM loaded it
	session, err := newSession()
	if err != nil {
		return err
	}
	vm, err := attach.Attach(o.pid)
	if err != nil {
		return exitError{1, "record --pid: " + err.Error()}
	}
	facts := readJVMFacts(vm, j)
	select {
	case s := <-sigs:
		// While orca waited for the JVM's attach listener (up to 10 s).
		return exitError{1, fmt.Sprintf("record --pid: %v before the agent was loaded into pid %d: nothing recorded", s, o.pid)}
	default:
	}
	opts := agentOptions(prefix, o) + ",session=" + session
	if !o.detach {
		// Ended by the agent once this orca is gone (lease.go).
		opts += ",lease=yes"
	}
	code, err := load(vm, lib, opts)
	if err != nil {
		return exitError{1, "record --pid: " + err.Error()}
	}
	if code != attachOK {
		return startError(code, j, prefix, opts)
	}

	// Taken before orca says it records: from then on, orca's end ends
	// the recording.
	var leaseErr error
	if !o.detach {
		lease, err := takeLease(j, prefix)
		if err != nil {
			if p := j.RunningPrefix(); p != "" && p != prefix {
				lease, err = takeLease(j, p)
			}
		}
		if err != nil {
			leaseErr = err
			fmt.Fprintf(u.stderr, "orca: cannot hold the recording's lease (%s): stopping it now\n", termSafe(err.Error()))
		} else {
			defer lease.Close()
		}
	}

	where := prefix
	if j.Contained {
		where += fmt.Sprintf(" (in its container; here %s)", hostPrefix)
	}
	switch {
	case o.detach:
		fmt.Fprintf(u.stderr, "orca: recording pid %d (%s) to %s, left running\n", o.pid, facts.command, where)
	case o.duration > 0:
		fmt.Fprintf(u.stderr, "orca: recording pid %d (%s) to %s for %v; Ctrl-C stops it sooner\n", o.pid, facts.command, where, o.duration)
	default:
		fmt.Fprintf(u.stderr, "orca: recording pid %d (%s) to %s; Ctrl-C stops\n", o.pid, facts.command, where)
	}
	if push != nil && !o.detach {
		// Finished after the recording's stop and summary: its last
		// chunk closed.
		push.start()
		defer push.finish()
	}
	if facts.warned && !o.quiet {
		fmt.Fprintf(u.stderr, "orca: (the JVM prints a WARNING about a dynamically loaded agent on its own stderr, as JDK 21+ does for every attach; starting it with -XX:+EnableDynamicAgentLoading hides it)\n")
	}

	if o.detach {
		select {
		case s := <-sigs:
			// Interrupted before orca could tell how to stop: stop now.
			fmt.Fprintf(u.stderr, "orca: %v: stopping the recording of pid %d\n", s, o.pid)
		default:
			fmt.Fprintf(u.stderr, "orca: stop it with: orca stop %d\n", o.pid)
			if o.sizeByDefault {
				fmt.Fprintf(u.stderr, "orca: no --max-size or --max-age given: its files are kept within %s (--detach's default), the oldest events deleted\n", detachMaxSize)
			}
			return nil
		}
	} else if leaseErr == nil {
		var timer <-chan time.Time
		if o.duration > 0 {
			timer = time.After(o.duration)
		}
		tick := time.NewTicker(stopPollEvery)
		defer tick.Stop()
	wait:
		for {
			select {
			case <-sigs:
				break wait
			case <-timer:
				break wait
			case <-tick.C:
				if !j.Alive() {
					fmt.Fprintf(u.stderr, "orca: pid %d ended during the recording\n", o.pid)
					return printAttached(u, o, j, hostPrefix, session)
				}
			}
		}
	}

	type stopped struct {
		code int
		err  error
	}
	done := make(chan stopped, 1)
	go func() {
		code, err := load(vm, lib, "stop")
		done <- stopped{code, err}
	}()
	var st stopped
	answered := make(chan struct{})
	go func() {
		st = <-done
		close(answered)
	}()
	leave := func() error {
		end := "the recording ends by its lease as soon as it continues (kill -CONT %[1]d)"
		if o.detach {
			end = "it may go on recording: once it continues (kill -CONT %[1]d), stop it with orca stop %[1]d"
		}
		return exitError{1, fmt.Sprintf("pid %[1]d is stopped (SIGSTOP) and did not stop its recording; orca lets go: "+end, o.pid)}
	}
	if err := awaitStop(u, j, answered, sigs, leave); err != nil {
		return err
	}
	switch {
	case st.err != nil && !j.Alive():
		fmt.Fprintf(u.stderr, "orca: pid %d ended while the recording stopped\n", o.pid)
	case st.err != nil:
		return exitError{1, fmt.Sprintf("stopping the recording of pid %d: %v; it may still be running: orca stop %d", o.pid, st.err, o.pid)}
	case st.code == attachNoneToEnd:
		fmt.Fprintf(u.stderr, "orca: the recording of pid %d had stopped already (orca stop?)\n", o.pid)
	case st.code != attachOK:
		return exitError{1, fmt.Sprintf("stopping the recording of pid %d: the agent answered %d (its reason is on the JVM's stderr); it may still be running: orca stop %d", o.pid, st.code, o.pid)}
	}
	if err := printAttached(u, o, j, hostPrefix, session); err != nil {
		return err
	}
	if leaseErr != nil {
		return exitError{1, fmt.Sprintf("record --pid: the recording of pid %d was stopped at once: orca could not hold its lease (%v)", o.pid, leaseErr)}
	}
	return nil
}

// awaitStop waits until answered is closed — the agent's answer to a
// stop — while it watches the JVM: one that is stopped (SIGSTOP, SIGTSTP,
// a debugger) answers nothing until it continues, so orca says so at once,
// waits for it at most stoppedWait, and a signal (sigs) then lets go: the
// error of leave. Any other signal only says that the stop is under way
// (the JVM is never left recording by a running orca).
func awaitStop(u ui, j *attach.Proc, answered <-chan struct{}, sigs <-chan os.Signal, leave func() error) error {
	tick := time.NewTicker(stopPollEvery)
	defer tick.Stop()
	var since time.Time // when the JVM was first seen stopped
	check := func() {
		switch stopped := j.Stopped(); {
		case stopped && since.IsZero():
			since = time.Now()
			fmt.Fprintf(u.stderr, "orca: the JVM is stopped (SIGSTOP): pid %d cannot stop its recording until it continues (kill -CONT %d); "+
				"orca waits %v for it, Ctrl-C lets go at once\n", j.PID, j.PID, stoppedWait)
		case !stopped:
			since = time.Time{}
		}
	}
	check()
	for {
		select {
		case <-answered:
			return nil
		case <-sigs:
			if check(); !since.IsZero() {
				return leave()
			}
			fmt.Fprintf(u.stderr, "orca: stopping the recording of pid %d: the agent writes its last events; it is not left running\n", j.PID)
		case <-tick.C:
			if check(); !since.IsZero() && time.Since(since) > stoppedWait {
				return leave()
			}
		}
	}
}

// load loads the agent lib into vm with opts and returns Agent_OnAttach's
// code. The agent rebinds natives the JVM bound already (and binds them
// back at the stop), which HotSpot warns of on the application's stdout:
// those warnings are kept off it.
//
// An attach can come before the JVM is live: HotSpot catches SIGQUIT and runs its attach
// listener before it sets up the module system and the system class loader, and only a live
// JVM takes an agent. JDK 21+ refuse the load then (attach.ErrNotLive): load tries again,
// for at most notLiveWait.
func load(vm *attach.VM, lib, opts string) (code int, err error) {
	return loadWithin(vm, lib, opts, notLiveWait)
}

// loadWithin is load with its bound on the JVM's start.
func loadWithin(vm *attach.VM, lib, opts string, wait time.Duration) (code int, err error) {
	werr := vm.WithoutRebindWarnings(func() error {
		deadline := time.Now().Add(wait)
		for delay := 5 * time.Millisecond; ; delay = min(2*delay, 200*time.Millisecond) {
			code, _, err = vm.Load(lib, opts)
			if !errors.Is(err, attach.ErrNotLive) || time.Now().After(deadline) {
				return err
			}
			time.Sleep(delay)
		}
	})
	if errors.Is(err, attach.ErrNotLive) {
		err = fmt.Errorf("%w: pid %d did not finish starting within %v (JVMTI's live phase, where an agent may be loaded): attach again once it runs",
			err, vm.PID, wait)
	}
	if err == nil {
		err = werr
	}
	return code, err
}

// printAttached prints the summary of the recording of session at prefix,
// reading it as the JVM's user (readAsJVMUser).
func printAttached(u ui, o recordOptions, j *attach.Proc, hostPrefix, session string) error {
	if o.quiet {
		return nil
	}
	return readAsJVMUser(j, func() error { return printOwn(u, hostPrefix, session) })
}

// readAsJVMUser runs f, which reads a recording the JVM wrote, with the
// JVM's user's file system ids when orca is root: the recording's names are
// in a directory that user controls, and a name swapped for a link to a file
// only root may read must not bring that file to the terminal.
func readAsJVMUser(j *attach.Proc, f func() error) error { return hostfs.As(j.UID, j.GID, f) }

// printOwn prints the summaries of session's recordings at hostPrefix.
func printOwn(u ui, hostPrefix, session string) error {
	all, err := findRecordings(hostPrefix)
	if err != nil {
		return err
	}
	recs := ownRecordings(all, session)
	if len(recs) == 0 {
		return exitError{1, fmt.Sprintf("no recording files found at %s.*", hostPrefix)}
	}
	for _, r := range recs {
		printSummary(u.stderr, r)
	}
	return nil
}

// attachPrefix returns the prefix of an attached recording as the JVM sees
// it: -o made absolute against orca's working directory, or by default
// orca-PID-YYYYMMDD-HHMMSS there — in the container's /tmp for a JVM in a
// container, where orca's working directory is unlikely to exist.
func attachPrefix(j *attach.Proc, o string, now time.Time) (string, error) {
	if o == "" {
		name := fmt.Sprintf("orca-%d-%s", j.PID, now.Format("20060102-150405"))
		if j.Contained {
			return "/tmp/" + name, nil
		}
		o = name
	}
	return filepath.Abs(o)
}

// checkAttachPrefix is checkPrefix for a prefix the JVM sees, whose syntax
// was checked: given is -o as typed ("" for the default), abs the prefix
// made absolute.
func checkAttachPrefix(j *attach.Proc, given, abs string) error {
	if strings.Contains(abs, ",") {
		return usagef("record: the prefix %s may not contain a comma (it separates agent options): give -o a path without one", abs)
	}
	if fi, err := os.Stat(j.Host(abs)); err == nil && fi.IsDir() {
		return usagef("record: -o %q is a directory: want a file name prefix (e.g. %s)", given, filepath.Join(abs, "run1"))
	}
	return nil
}

// startError explains an Agent_OnAttach's refusal to start recording.
func startError(code int, j *attach.Proc, prefix, opts string) error {
	var msg string
	switch code {
	case attachBadOption:
		msg = fmt.Sprintf("the agent in pid %d refused the options %q: the reason is on the JVM's stderr (a prefix too long?); "+
			"otherwise it is a bug of orca: report it with orca version's output", j.PID, opts)
	case attachRunning:
		what := "another recording"
		if p := j.RunningPrefix(); p != "" {
			what = "a recording to " + termSafe(j.Host(p))
		}
		msg = fmt.Sprintf("pid %d already runs %s (orca record --pid --detach, or a JVM started with the agent): one recording at a time; "+
			"stop it with orca stop %d, then attach again", j.PID, what, j.PID)
	case attachCannotOut:
		msg = fmt.Sprintf("the JVM (pid %d, user %s) cannot create %s.*: choose a directory that user can write with -o (e.g. -o /tmp/%s), "+
			"or another prefix when a name of it was taken since orca looked (the JVM's stderr says why)",
			j.PID, attach.UserName(j.UID), prefix, filepath.Base(prefix))
	case attachJVMTI:
		msg = fmt.Sprintf("the JVM (pid %d) lacks a JVMTI capability or event the agent needs (which: on the JVM's stderr): "+
			"another agent may hold it, or this JVM is not a HotSpot JDK 17+; start it with the agent instead (orca record -- COMMAND)", j.PID)
	case attachNotLive:
		msg = notLiveMsg(j.PID)
	case attachNoThread:
		msg = fmt.Sprintf("the agent in pid %d could not start its writer thread (why: on the JVM's stderr; EAGAIN is a limit of threads: "+
			"the user's ulimit -u, kernel.threads-max, a cgroup's pids.max): nothing was recorded and the JVM runs on; "+
			"raise the limit or attach when it runs fewer threads", j.PID)
	default:
		msg = fmt.Sprintf("the agent in pid %d did not start (Agent_OnAttach returned %d; the reason is on the JVM's stderr): "+
			"an orca built before attaching was supported? rebuild with make", j.PID, code)
	}
	return exitError{1, "record --pid: " + msg}
}

// notLiveMsg explains attachNotLive.
func notLiveMsg(pid int) string {
	return fmt.Sprintf("the JVM (pid %d) did not finish starting within %v of the attach (JVMTI's live phase, where an agent may run; "+
		"its attach listener runs before: a slow system class loader, a loaded machine?): attach again once it runs", pid, notLiveWait)
}

// jvmFacts is what orca tells about the JVM it attached to.
type jvmFacts struct {
	command string // its main class or jar
	warned  bool   // it prints JDK 21+'s warning about dynamically loaded agents
}

// readJVMFacts asks the JVM for its system properties: the main class
// (sun.java.command) and the Java release (JDK 21+ warns of a dynamically
// loaded agent unless started with -XX:+EnableDynamicAgentLoading).
func readJVMFacts(vm *attach.VM, j *attach.Proc) jvmFacts {
	f := jvmFacts{command: "?"}
	if b, err := os.ReadFile(j.Path("comm")); err == nil {
		f.command = strings.TrimSpace(string(b))
	}
	code, out, err := vm.Command("properties")
	if err != nil || code != 0 {
		return f
	}
	props := parseProperties(out)
	if c := mainName(props["sun.java.command"]); c != "" {
		f.command = c
	}
	f.command = termSafe(f.command) // the JVM's user chose it: no escape sequence reaches the terminal
	feature, _ := strconv.Atoi(strings.TrimPrefix(props["java.specification.version"], "1."))
	if feature >= 21 {
		cmdline, _ := os.ReadFile(j.Path("cmdline"))
		environ, _ := os.ReadFile(j.Path("environ"))
		f.warned = !strings.Contains(string(cmdline)+string(environ), "EnableDynamicAgentLoading")
	}
	return f
}

// mainName is the program of a sun.java.command value: its main class, or
// its jar's file name.
func mainName(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return ""
	}
	if strings.HasSuffix(f[0], ".jar") {
		return filepath.Base(f[0])
	}
	return f[0]
}

// parseProperties reads the properties command's answer, in
// java.util.Properties' store format (key=value lines, # comments,
// backslash escapes); enough for the values orca reads.
func parseProperties(s string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' || l[0] == '!' {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		out[unescapeProperty(k)] = unescapeProperty(v)
	}
	return out
}

func unescapeProperty(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 < len(s) {
				if r, err := strconv.ParseUint(s[i+1:i+5], 16, 32); err == nil {
					b.WriteRune(rune(r))
					i += 4
					continue
				}
			}
			b.WriteByte('u')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// parsePID parses the arguments of a command whose one operand is a JVM's
// pid (orca stop, orca threads), flags before or after it.
func parsePID(u ui, fs *flag.FlagSet, args []string) (int, error) {
	name := fs.Name()
	ops, err := parseArgs(u, fs, args)
	if err != nil {
		return 0, err
	}
	if len(ops) != 1 {
		return 0, usagef("%s: want one PID (example: orca %s 4242)", name, name)
	}
	pid, err := strconv.Atoi(ops[0])
	if err != nil || pid <= 0 {
		return 0, usagef("%s: %q is no pid: want the JVM's process id (example: orca %s 4242)", name, ops[0], name)
	}
	return pid, nil
}

const stopHelp = `Usage: orca stop [-o PREFIX] [--quiet] PID

Stops the recording running in the JVM with process id PID — one that
orca record --pid PID --detach left running, or one of a JVM started with the
agent — and prints what it recorded, as orca record does. The JVM keeps
running, and can be attached to again. When the command returns, the
recording's files are complete.

With -o, it stops the recording only if it writes to PREFIX (made absolute
against the current directory; for a JVM in a container, the path inside
it). orca stop exits 1, having stopped nothing, when no recording runs in
PID (or none to PREFIX).

Like orca record --pid, it attaches with HotSpot's attach protocol: orca
must run as the JVM's user or as root.

Examples:
  orca record --pid 4242 -o /var/tmp/srv --max-size 256MB --max-age 1h --detach
  orca stop 4242
  orca stop -o /var/tmp/srv 4242
  orca report /var/tmp/srv
`

func runStop(u ui, args []string) error {
	flags := newFlagSet("stop", stopHelp)
	prefixFlag := flags.String("o", "", "stop only the recording to `PREFIX`")
	quiet := flags.Bool("quiet", false, "print no summary")
	pid, err := parsePID(u, flags, args)
	if err != nil {
		return err
	}
	j, err := attach.ReadProc("/proc", pid)
	if err == nil {
		err = j.CheckUser(os.Geteuid())
	}
	if err != nil {
		return exitError{1, "stop: " + err.Error()}
	}
	prefix := ""
	if *prefixFlag != "" {
		if prefix, err = filepath.Abs(*prefixFlag); err != nil {
			return err
		}
	}
	running := j.RunningPrefix()
	mapped, anyAgent := j.MappedAgents()
	if !anyAgent {
		return exitError{1, fmt.Sprintf("stop: pid %d has no Orca agent loaded: no recording to stop", pid)}
	}
	var libs, why []string
	for _, l := range mapped {
		if l.Err == nil {
			libs = append(libs, l.Path)
		} else {
			why = append(why, l.Err.Error())
		}
	}
	if len(libs) == 0 {
		// The stop must reach the agent that records: loading any other copy
		// would reach another agent (and run a file orca did not check).
		if len(why) == 0 {
			why = append(why, "its file was deleted since it was loaded")
		}
		return exitError{1, fmt.Sprintf("stop: pid %d maps an Orca agent that orca cannot reach: %s; its recording ends with the JVM "+
			"(or at its --max-size/--max-age bounds)", pid, strings.Join(why, "; "))}
	}
	vm, err := attach.Attach(pid)
	if err != nil {
		return exitError{1, "stop: " + err.Error()}
	}
	opts := "stop"
	if prefix != "" {
		opts += ",prefix=" + escapePrefix(prefix)
	}
	code := attachNoneToEnd
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		for _, lib := range libs {
			if code, err = load(vm, lib, opts); err != nil || code != attachNoneToEnd {
				return
			}
		}
	}()
	leave := func() error {
		return exitError{1, fmt.Sprintf("stop: pid %[1]d is stopped (SIGSTOP) and did not answer; orca lets go: its recording may go on: "+
			"once it continues (kill -CONT %[1]d), orca stop %[1]d again", pid)}
	}
	if err := awaitStop(u, j, answered, nil, leave); err != nil {
		return err
	}
	if err != nil {
		return exitError{1, "stop: " + err.Error()}
	}
	if err := stopError(code, pid, prefix, running, j); err != nil {
		return err
	}
	if running == "" {
		fmt.Fprintf(u.stderr, "orca: stopped the recording of pid %d\n", pid)
		return nil
	}
	if *quiet {
		return nil
	}
	return readAsJVMUser(j, func() error {
		recs, err := findRecordings(j.Host(running))
		if err != nil {
			return err
		}
		for _, r := range recs {
			if r.prefix == j.Host(running) {
				printSummary(u.stderr, r)
			}
		}
		return nil
	})
}

// stopError explains a stop's answer other than 0.
func stopError(code, pid int, prefix, running string, j *attach.Proc) error {
	switch {
	case code == attachOK:
		return nil
	case code == attachNoneToEnd && prefix != "" && running != "" && running != prefix:
		return exitError{1, fmt.Sprintf("stop: pid %d records to %s, not to %s: nothing stopped (orca stop %d stops it whatever its prefix)", pid, termSafe(j.Host(running)), termSafe(prefix), pid)}
	case code == attachNoneToEnd && prefix != "":
		return exitError{1, fmt.Sprintf("stop: pid %d has no recording to %s running: nothing stopped", pid, termSafe(prefix))}
	case code == attachNoneToEnd:
		return exitError{1, fmt.Sprintf("stop: pid %d has no recording running: nothing stopped", pid)}
	}
	return exitError{1, fmt.Sprintf("stop: the agent in pid %d answered %d (the reason is on the JVM's stderr)", pid, code)}
}
