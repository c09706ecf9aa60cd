package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"orca/internal/agentlib"
	"orca/internal/attach"
	"orca/internal/format"
	"orca/internal/hostfs"
	"orca/internal/model"
	"orca/internal/reader"
)

const threadsHelp = `Usage: orca threads [--json] [--depth N] PID

Attaches to the running JVM with process id PID and prints what every thread
does now: platform threads one by one, jstack-like, and virtual threads grouped
by what they do and where; each thread's state and stack, what it waits on and
the thread that holds it (so the monitors and java.util.concurrent locks each
thread holds that others wait for). Deadlocks come first — cycles of threads
blocked on monitors, parked on java.util.concurrent locks, or both — each line
with the word "deadlock" and the threads' names; then the wait chains: each
thread that others wait behind (directly or through other waiting threads),
with the threads behind it. --json prints one object: "deadlocks" (each
cycle's kind and threads, their ids and names), "chains", "platform_threads",
"virtual_threads" (groups); docs/attach.md, "orca threads --json", lists every
field.

The JVM runs on. The agent takes one snapshot and returns: it enables no event,
rewrites no class and starts no thread, and the files it wrote (in a new
directory of the JVM's /tmp) are read and removed before orca exits. The
library stays loaded, as after any attach; HotSpot's Attach Listener thread
stays, as after any jcmd.

Exit status: 0 when the snapshot was taken (deadlock or not), 1 when it could
not be (no such process, not a JVM, attach refused or disabled, a recording
running in it), 2 for a usage error. Orca must run as the JVM's user or as
root.

Examples:
  orca threads 4242
  orca threads 4242 --json | jq '.deadlocks'
  orca threads --depth 64 4242
`

// threadsDepth bounds --depth: the agent's frames per stack.
const threadsDepth = 256

func runThreads(u ui, args []string) error {
	fs := newFlagSet("threads", threadsHelp)
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	depth := fs.Int("depth", 32, "at most `N` frames per stack, 1-256")
	pid, err := parsePID(u, fs, args)
	if err != nil {
		return err
	}
	if *depth < 1 || *depth > threadsDepth {
		return usagef("threads: --depth %d: want 1-%d", *depth, threadsDepth)
	}
	start := time.Now()
	snap, err := takeSnapshot(pid, *depth)
	if err != nil {
		return err
	}
	snap.took = time.Since(start)
	v := newThreadsView(snap)
	snap.phase("view")
	bw := bufio.NewWriter(u.stdout)
	if *asJSON {
		err = v.writeJSON(bw)
	} else {
		// The names are the JVM's: no escape sequence of theirs reaches the terminal.
		tw := newTermSafeWriter(u.stdout)
		bw = bufio.NewWriter(tw)
		err = v.writeText(bw)
		defer tw.Flush()
	}
	if err == nil {
		err = bw.Flush()
	}
	snap.phase("write")
	snap.printPhases()
	return err
}

// phases is orca threads' time by phase, for bench/threads.sh (hidden:
// ORCA_THREADS_TIMES=1 prints them on stderr at the end).
type phases struct {
	on    bool
	last  time.Time
	names []string
	ms    []float64
}

func newPhases() *phases {
	return &phases{on: os.Getenv("ORCA_THREADS_TIMES") == "1", last: time.Now()}
}

// phase ends the phase named name.
func (p *phases) phase(name string) {
	if p == nil || !p.on {
		return
	}
	now := time.Now()
	p.names = append(p.names, name)
	p.ms = append(p.ms, float64(now.Sub(p.last).Microseconds())/1000)
	p.last = now
}

func (p *phases) printPhases() {
	if p == nil || !p.on {
		return
	}
	var b strings.Builder
	b.WriteString("orca threads phases (ms):")
	for i, n := range p.names {
		fmt.Fprintf(&b, " %s %.1f", n, p.ms[i])
	}
	fmt.Fprintln(os.Stderr, b.String())
}

// snapshot is what an orca threads attach read: the recording of one
// instant, folded.
type snapshot struct {
	pid     int
	command string
	rec     *reader.Recording
	m       *model.Model
	// collapsed: the virtual threads the fold left out, each doing what
	// another does (model.Options.Collapse).
	collapsed []model.Collapsed
	took      time.Duration // the whole command, attach to model
	agentMS   string        // the agent's own time (.info attach_ms)
	*phases
}

// takeSnapshot attaches to pid, has the agent write the snapshot into a
// new directory of the JVM's /tmp, reads it and removes it.
func takeSnapshot(pid, depth int) (*snapshot, error) {
	ph := newPhases()
	j, err := attach.ReadProc("/proc", pid)
	if err == nil {
		err = j.CheckUser(os.Geteuid())
	}
	if err != nil {
		return nil, exitError{1, "threads: " + err.Error()}
	}
	if j.Stopped() {
		return nil, exitError{1, fmt.Sprintf("threads: pid %d is stopped (SIGSTOP): it answers nothing until it continues (kill -CONT %d)", pid, pid)}
	}
	if p := j.RunningPrefix(); p != "" {
		return nil, exitError{1, fmt.Sprintf("threads: pid %d records to %s: orca threads cannot attach while a recording runs; "+
			"orca report %s reads what it recorded so far, orca stop %d ends it", pid, termSafe(j.Host(p)), termSafe(j.Host(p)), pid)}
	}
	// Everything that can fail is done before the attach starts the JVM's
	// attach listener.
	lib, err := j.PlaceAgent(agentlib.Bytes(), agentlib.Checksum(), agentlib.Path)
	if ue := (*attach.UncheckedAgentError)(nil); errors.As(err, &ue) {
		return nil, exitError{1, "threads: " + ue.Error()}
	}
	if err != nil {
		return nil, exitError{1, "threads: " + err.Error()}
	}
	defer j.RemovePlaced() // unless the JVM loaded it
	dir, err := newSnapDir(j)
	if err != nil {
		return nil, exitError{1, fmt.Sprintf("threads: cannot make a directory for the snapshot in pid %d's /tmp (%s): %v", pid, j.Host("/tmp"), err)}
	}
	defer dir.remove()
	ph.phase("checks")
	vm, err := attach.Attach(pid)
	if err != nil {
		return nil, exitError{1, "threads: " + err.Error()}
	}
	ph.phase("attach")
	prefix := "/tmp/" + dir.name + "/threads"
	opts := fmt.Sprintf("prefix=%s,clobber=no,snapshot=yes,format=compact,depth=%d,cpu=off,wall=off,thread_cpu=off", prefix, depth)
	code, err := load(vm, lib, opts)
	if err != nil {
		return nil, exitError{1, "threads: " + err.Error()}
	}
	ph.phase("load")
	switch code {
	case attachOK:
	case attachRunning:
		return nil, exitError{1, fmt.Sprintf("threads: pid %d runs a recording (orca record --pid --detach, or a JVM started with the agent): "+
			"orca threads cannot attach while it runs; orca stop %d ends it", pid, pid)}
	case attachJVMTI:
		return nil, exitError{1, fmt.Sprintf("threads: the JVM (pid %d) lacks a JVMTI capability the agent needs (which: on the JVM's stderr): "+
			"another agent may hold it, or this JVM is not a HotSpot JDK 17+", pid)}
	case attachNotLive:
		return nil, exitError{1, "threads: " + notLiveMsg(pid)}
	default:
		return nil, exitError{1, fmt.Sprintf("threads: the agent in pid %d did not take the snapshot (Agent_OnAttach returned %d; the reason is on the JVM's stderr)", pid, code)}
	}
	s := &snapshot{pid: pid, phases: ph}
	err = readAsJVMUser(j, func() error { return s.read(j.Host(prefix)) })
	if err != nil {
		return nil, exitError{1, fmt.Sprintf("threads: reading the snapshot of pid %d: %v", pid, err)}
	}
	// The program's name from the agent's .info (sun.java.command, read
	// with JVMTI), not from the attach's `properties` command: that runs
	// Java code in the JVM (VMSupport's serialisation of the properties),
	// which on a JVM never attached before loads and interprets it cold:
	// 1.1 s of a first attach at load 15.
	s.command = mainName(s.rec.Info[format.InfoCommand])
	if s.command == "" {
		s.command = "?"
		if b, err := os.ReadFile(j.Path("comm")); err == nil {
			s.command = strings.TrimSpace(string(b))
		}
	}
	return s, nil
}

// read reads the snapshot's recording at prefix and folds it.
func (s *snapshot) read(prefix string) error {
	rec, err := reader.Open(prefix)
	if err != nil {
		return err
	}
	s.phase("open")
	alive, _ := rec.Info.Int(format.InfoAliveAtAttach)
	// Decoded in the fold's goroutine, 4 096 events at a time
	// (reader's stream, for one worker with Buffers): the snapshot is one
	// chunk, which the parallel decoding reads into one batch whole
	// (300 000 Events of 152 bytes for 100 000 virtual threads, 46 MB,
	// each page first touched by the decoding: most of its time).
	res, err := model.Build(rec, model.Options{NoEdges: true, NoLockFigures: true, Threads: int(min(alive, 1<<22)),
		Collapse: os.Getenv("ORCA_THREADS_COLLAPSE") != "0", Workers: 1, Buffers: &reader.Buffers{}})
	if err != nil {
		return err
	}
	s.phase("model")
	s.rec, s.m, s.collapsed = rec, res.Model, res.Collapsed
	s.agentMS = rec.Info[format.InfoAttachTimes]
	return nil
}

// snapDir is the directory of one snapshot, made by orca in the JVM's
// /tmp as the JVM's user, with a name nobody can foresee (mode 0700).
type snapDir struct {
	j        *attach.Proc
	tmp, dir int // descriptors of the JVM's /tmp and of the directory
	name     string
}

func newSnapDir(j *attach.Proc) (*snapDir, error) {
	root, err := hostfs.OpenRoot(j.Path("root"))
	if err != nil {
		return nil, err
	}
	defer unix.Close(root)
	tmp, err := hostfs.OpenIn(root, "tmp", unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	name, dir, err := hostfs.MkdirTemp(tmp, "orca-threads-", 0o700, j.UID, j.GID)
	if err != nil {
		unix.Close(tmp)
		return nil, err
	}
	return &snapDir{j: j, tmp: tmp, dir: dir, name: name}, nil
}

// remove removes the files the agent wrote in the directory and the
// directory, through the descriptors opened when it was made (no name
// resolved again), as the JVM's user.
func (d *snapDir) remove() {
	if d.dir < 0 {
		return
	}
	hostfs.As(d.j.UID, d.j.GID, func() error {
		names, err := dirNames(d.dir)
		if err == nil {
			for _, n := range names {
				unix.Unlinkat(d.dir, n, 0)
			}
		}
		return unix.Unlinkat(d.tmp, d.name, unix.AT_REMOVEDIR)
	})
	unix.Close(d.dir)
	unix.Close(d.tmp)
	d.dir = -1
}

// dirNames lists the names in the directory open at fd (from its start).
func dirNames(fd int) ([]string, error) {
	dup, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), filepath.Join("/proc/self/fd", strconv.Itoa(dup)))
	defer f.Close()
	return f.Readdirnames(-1)
}
