package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"orca/internal/format"
)

// stressConfig is one way TestVirtualStress runs the JVM: a collector, or a compilation mode with
// the default collector.
type stressConfig struct {
	name string
	args []string // the JVM's options
	orca []string // orca record's (the samplers' intervals)
}

// stressConfigs are issue 19's item 4: every collector, -Xcomp and -Xint.
var stressConfigs = []stressConfig{
	{"G1", []string{"-XX:+UseG1GC"}, nil},
	{"Serial", []string{"-XX:+UseSerialGC"}, nil},
	{"Parallel", []string{"-XX:+UseParallelGC"}, nil},
	{"ZGC", []string{"-XX:+UseZGC"}, nil},
	{"Shenandoah", []string{"-XX:+UseShenandoahGC"}, nil},
	{"Xcomp", []string{"-Xcomp"}, nil},
	{"Xint", []string{"-Xint"}, nil},
	// The samplers (on in every configuration above, at 10 ms of CPU and 50 ms of wall-clock
	// time) at 1 ms each: a signal in every state a thread of the stress can be in (issue 33).
	{"G1-samples-1ms", []string{"-XX:+UseG1GC"}, samples1ms},
	{"ZGC-samples-1ms", []string{"-XX:+UseZGC"}, samples1ms},
	{"Xcomp-samples-1ms", []string{"-Xcomp"}, samples1ms},
	{"Xint-samples-1ms", []string{"-Xint"}, samples1ms},
}

var samples1ms = []string{"--cpu", "1ms", "--wall", "1ms"}

// stressTimeout bounds one stress run: about 20 s under -Xint on 2 cores; a hang is a failure.
const stressTimeout = 10 * time.Minute

// stressRow is one line of the summary TestVirtualStress prints.
type stressRow struct {
	config                string
	note                  string // why it did not run
	runs, crashes, failed int
	events, dropped       int64
	wall                  time.Duration
	cycles, unknownOwns   int // the model's transient wait-for cycles; owner_unknown
}

// envCount reads a positive count from the environment, def when unset.
func envCount(t *testing.T, key string, def int) int {
	t.Helper()
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive count", key, v)
	}
	return n
}

// TestVirtualStress is issue 19's stress pass (item 4): VirtualStress.java's 100 000 virtual
// threads contend on monitors and ReentrantLocks, sleep, park and are unparked, wait (shorter and
// longer than the agent's flush period) and notify, among collections, recorded under every
// collector the JDK has, -Xcomp and -Xint, ORCA_STRESS_RUNS times each (3 by default). Each run
// must end with status 0 and no hs_err file, and its recording must say exactly what the program
// did (checkStress). Long: it runs only with ORCA_STRESS=1 (make stress). The summary (per
// configuration: runs, crashes, failed runs, events, dropped, wall time) is logged and, with
// ORCA_STRESS_DIR, written to summary.txt there, beside the hs_err file of any crash.
func TestVirtualStress(t *testing.T) {
	if os.Getenv("ORCA_STRESS") != "1" {
		skipf(t, "the virtual-thread stress pass runs with ORCA_STRESS=1 (make stress)")
	}
	userPath(t) // as users record: no verification of each stack walk
	runs := envCount(t, "ORCA_STRESS_RUNS", 3)
	var rows []*stressRow
	defer func() { writeStressSummary(t, rows) }()
	for _, j := range jdks() {
		if j.home == "" {
			rows = append(rows, &stressRow{config: j.name, note: "skipped: no JDK at " + j.want})
		}
	}
	for _, j := range jdks() {
		if j.home == "" {
			rows = append(rows, &stressRow{config: j.name, note: "skipped: no JDK at " + j.want})
		}
	}
	forEachJDK(t, func(t *testing.T, j jdk) {
		if f := jdkFeature(t, j); f < 21 {
			rows = append(rows, &stressRow{config: j.name, note: fmt.Sprintf("skipped: JDK %d has no virtual threads", f)})
			skipf(t, "%s: JDK %d has no virtual threads", j.name, f)
		}
		for _, c := range stressConfigs {
			row := &stressRow{config: j.name + " " + c.name}
			rows = append(rows, row)
			t.Run(c.name, func(t *testing.T) {
				if out, err := exec.Command(j.java(), append(c.args, "-version")...).CombinedOutput(); err != nil {
					row.note = "skipped: " + strings.Join(c.args, " ") + " not supported"
					skipf(t, "%s does not run with %s: %v\n%s", j.name, strings.Join(c.args, " "), err, out)
				}
				for i := 1; i <= runs; i++ {
					t.Run(fmt.Sprintf("run-%d", i), func(t *testing.T) { stressRun(t, j, c, i, row) })
				}
				t.Logf("%s %s: %d runs, %d crashed, %d failed", j.name, c.name, row.runs, row.crashes, row.failed)
			})
		}
	})
}

// stressRun records VirtualStress once under c, checks it and adds the outcome to row.
func stressRun(t *testing.T, j jdk, c stressConfig, n int, row *stressRow) {
	start := time.Now()
	crashed := false
	defer func() { // also after a Fatal
		row.runs++
		row.wall += time.Since(start)
		switch {
		case crashed:
			row.crashes++
		case t.Failed():
			row.failed++
		}
	}()
	bin, cls := orcaBin(t), classes(t)
	dir := newDir(t)
	prefix := filepath.Join(dir, "x")
	argv := append(append([]string{"record", "-o", prefix}, c.orca...), "--")
	argv = append(argv, j.argv(dir, append(slices.Clone(c.args), "-Xmx512m", "-cp", cls, "VirtualStress")...)...)
	res := runFor(t, stressTimeout, dir, bin, argv...)
	logs, _ := filepath.Glob(filepath.Join(dir, "hs_err_pid*.log"))
	if len(logs) > 0 || res.code < 0 || res.code >= 128 {
		crashed = true
		kept := keepCrash(t, fmt.Sprintf("%s-%s-run%d", j.name, c.name, n), dir, res)
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Errorf("JVM crashed (%s):\n%s", kept, hsErrSummary(string(b)))
		}
		t.Fatalf("orca record: exit status %d:\n%s", res.code, res)
	}
	if res.code != 0 {
		t.Fatalf("orca record failed:\n%s", res)
	}
	if strings.Contains(res.stdout, "BROKEN") {
		t.Errorf("VirtualStress found mutual exclusion broken:\n%s", res)
	}
	e := parseExpect(t, res)
	r := loadStacks(t, prefix, false)
	row.events += int64(len(r.events))
	d, _ := strconv.ParseInt(r.info["dropped_total"], 10, 64)
	row.dropped += d
	u, _ := strconv.Atoi(r.info["owner_unknown"])
	row.unknownOwns += u
	checkStress(t, e, r, row)
	if !t.Failed() {
		os.RemoveAll(dir) // 200 MB a run
	} else {
		t.Logf("%.600s…\nrecording: %s (ORCA_KEEP=1 keeps it)", e.line, prefix)
	}
}

// checkStress checks a VirtualStress recording against the program's EXPECT line: it parses, is
// complete, nothing dropped or unattributed; every thread's contended enters are matched; the
// exact counts (sleeps, waits and notifies on the program's objects, parks on its blockers,
// starts by main, virtual threads started and ended; unparks at least the program's); each of
// its objects named with its own class; the per-thread invariants; the model places every event
// and finds no deadlock intact at the end (the program takes its monitors in order).
func checkStress(t *testing.T, e expect, r *recording, row *stressRow) {
	t.Helper()
	r.logOnFailure(t)
	r.checkParse(t)
	r.checkInfo(t, true, true)
	checkVirtualBalance(t, r)
	sets := map[string]string{ // EXPECT key: class of its objects
		"mons": "LVirtualStress$StressMon;", "waitMons": "LVirtualStress$WaitMon;", "longMons": "LVirtualStress$LongMon;",
		"parkBlockers": "LVirtualStress$ParkBlocker;", "handoffBlockers": "LVirtualStress$HandoffBlocker;",
	}
	setOf := map[format.ObjectID]string{}
	for key := range sets {
		for _, h := range e.hashes(t, key) {
			o := format.ObjectID(h)
			if k, dup := setOf[o]; dup && k != key {
				setOf[o] = "" // two objects share a hash: neither is checked by class
				continue
			}
			setOf[o] = key
		}
	}
	main, virtual := format.ThreadID(e.hash(t, "main")), r.virtualThreads()
	type kk struct {
		kind format.Kind
		set  string
	}
	n := map[kk]int{}
	named := map[format.ObjectID]bool{}
	used := map[format.ObjectID]bool{}
	starts, started, ended, badOwner, badClass := 0, 0, 0, 0, 0
	syncParks := 0
	syncs := map[format.ObjectID]bool{} // ReentrantLock$NonfairSync objects
	for i, ev := range r.events {
		set := ""
		if ev.Kind.Has(format.FObject) {
			set = setOf[ev.Object]
		}
		n[kk{ev.Kind, set}]++
		switch ev.Kind {
		case format.ObjectClass:
			if set == "" {
				if ev.Class == "Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;" {
					syncs[ev.Object] = true
				}
				continue
			}
			named[ev.Object] = true
			if ev.Class != sets[set] {
				if badClass++; badClass <= 10 {
					t.Errorf("ObjectClass of %v (one of %s) names %s, want %s:\n%s", ev.Object, set, ev.Class, sets[set], r.describe(i))
				}
			}
		case format.ThreadStart: // main also starts the scheduler's carriers
			if ev.Thread == main && virtual[ev.Target] {
				starts++
			}
		case format.ThreadStarted:
			if virtual[ev.Thread] {
				started++
			}
		case format.ThreadEnded:
			if virtual[ev.Thread] {
				ended++
			}
		case format.MonitorContendedEnter:
			if set == "mons" && ev.Owner != 0 && !virtual[ev.Owner] {
				if badOwner++; badOwner <= 10 {
					t.Errorf("a contended enter on a StressMon names a non-virtual owner:\n%s", r.describe(i))
				}
			}
		case format.ThreadPark:
			if syncs[ev.Object] {
				syncParks++
				if ev.Owner != 0 && !virtual[ev.Owner] {
					if badOwner++; badOwner <= 10 {
						t.Errorf("a park on a ReentrantLock names a non-virtual owner:\n%s", r.describe(i))
					}
				}
			}
		}
		if set != "" && ev.Kind != format.ObjectClass {
			used[ev.Object] = true
		}
	}
	want := func(what string, got, want int) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %d, want %d", what, got, want)
		}
	}
	want("ThreadSleep", n[kk{format.ThreadSleep, ""}], e.int(t, "sleeps"))
	want("ThreadSlept", n[kk{format.ThreadSlept, ""}], e.int(t, "sleeps"))
	for _, c := range []struct {
		kind      format.Kind
		set, want string
	}{
		{format.ObjectWait, "waitMons", "waits"},
		{format.ObjectWaited, "waitMons", "waits"},
		{format.ObjectNotify, "waitMons", "notifies"},
		{format.ObjectNotifyAll, "waitMons", "notifyAlls"},
		{format.ObjectWait, "longMons", "longWaits"},
		{format.ObjectWaited, "longMons", "longWaits"},
		{format.ObjectNotifyAll, "longMons", "longWaits"},
		{format.ThreadPark, "parkBlockers", "timedParks"},
		{format.ThreadUnparked, "parkBlockers", "timedParks"},
		{format.ThreadPark, "handoffBlockers", "handoffParks"},
		{format.ThreadUnparked, "handoffBlockers", "handoffParks"},
	} {
		want(fmt.Sprintf("%s on %s", c.kind, c.set), n[kk{c.kind, c.set}], e.int(t, c.want))
	}
	want("ThreadStart of virtual threads by main", starts, e.int(t, "started"))
	want("ThreadStarted of virtual threads", started, e.int(t, "started"))
	want("ThreadEnded of virtual threads", ended, e.int(t, "started"))
	if got, _ := strconv.Atoi(r.info["virtual_threads"]); got < e.int(t, "started") {
		t.Errorf(".info: virtual_threads=%d, want at least %d", got, e.int(t, "started"))
	}
	if got, mine := n[kk{format.ThreadUnpark, ""}], e.int(t, "unparks"); got < mine {
		t.Errorf("ThreadUnpark: %d, want at least the program's %d", got, mine)
	}
	enters, entered := n[kk{format.MonitorContendedEnter, "mons"}], n[kk{format.MonitorContendedEntered, "mons"}]
	if enters == 0 || enters != entered || enters > e.int(t, "monEntries") {
		t.Errorf("StressMon: %d contended enters, %d entered; want as many, more than 0, at most the %d entries", enters, entered, e.int(t, "monEntries"))
	}
	if syncParks == 0 {
		t.Errorf("no park on a ReentrantLock (%d locked)", e.int(t, "lockEntries"))
	}
	for o, key := range setOf {
		if used[o] && key != "" && !named[o] {
			if badClass++; badClass <= 10 {
				t.Errorf("%v (one of %s) named by events, but no ObjectClass line", o, key)
			}
		}
	}
	checkInvariantsDistinct(t, r)
	_, built := buildModel(t, r.prefix)
	for i, p := range built.Model.Problems {
		if i == 10 {
			t.Errorf("… %d problems in all", len(built.Model.Problems))
			break
		}
		t.Errorf("model problem: %s", p)
	}
	// A cycle that breaks is no deadlock: an owner the recording no longer knew (it released the
	// monitor, another thread took it without contention, which records nothing; model.Deadlock).
	// Counted; one intact at the end would be a false hang.
	for _, d := range built.Model.Deadlocks {
		row.cycles++
		if d.AtEnd {
			t.Errorf("model: a deadlock of %v from %.6f s to the end; VirtualStress takes its monitors in order and cannot deadlock", d.Threads, d.At.Seconds())
		}
	}
}

// checkInvariantsDistinct runs checkInvariants on the events of the threads whose identity is
// theirs alone. A thread's identity is its object's identity hash (31 bits): among 100 000 virtual
// threads two share one in about one run of two, and their events interleave under one
// identity in the recording — the format's limit, not the agent's.
func checkInvariantsDistinct(t *testing.T, r *recording) {
	t.Helper()
	starts := map[format.ThreadID]int{}
	for _, ev := range r.events {
		if ev.Kind == format.ThreadStarted {
			starts[ev.Thread]++
		}
	}
	shared := map[format.ThreadID]bool{}
	for th, k := range starts {
		if k > 1 {
			shared[th] = true
		}
	}
	if len(shared) == 0 {
		r.checkInvariants(t)
		return
	}
	t.Logf("%d thread identities shared by two threads each: their events are left out of the per-thread invariants", len(shared))
	d := &recording{prefix: r.prefix, info: r.info}
	for i, ev := range r.events {
		if !shared[ev.Thread] {
			d.events = append(d.events, ev)
			d.stacks, d.text = append(d.stacks, r.stacks[i]), append(d.text, r.text[i])
		}
	}
	d.checkInvariants(t)
}

// keepCrash copies a crashed run's hs_err files and output to $ORCA_STRESS_DIR/crash-NAME (kept
// when the test's temporary directory is removed) and returns where they are.
func keepCrash(t *testing.T, name, dir string, res *result) string {
	t.Helper()
	root := os.Getenv("ORCA_STRESS_DIR")
	if root == "" {
		return dir + " (set ORCA_STRESS_DIR to keep it)"
	}
	dst := filepath.Join(root, "crash-"+name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Errorf("keeping the crash: %v", err)
		return dir
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "hs_err_pid*.log"))
	for _, l := range logs {
		if b, err := os.ReadFile(l); err == nil {
			os.WriteFile(filepath.Join(dst, filepath.Base(l)), b, 0o644)
		}
	}
	os.WriteFile(filepath.Join(dst, "output.txt"), []byte(res.String()), 0o644)
	return dst
}

// hsErrSummary is the part of an hs_err file that says what crashed: its header up to the
// current thread's native frames.
func hsErrSummary(s string) string {
	if i := strings.Index(s, "\n\n---------------  P R O C E S S"); i > 0 {
		s = s[:i]
	}
	return tail(s, 8000)
}

// writeStressSummary logs the table of the stress pass and writes it to $ORCA_STRESS_DIR/summary.txt.
func writeStressSummary(t *testing.T, rows []*stressRow) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-36s %5s %8s %7s %10s %8s %9s %11s %14s\n", "configuration", "runs", "crashes", "failed", "events/run", "dropped", "wall/run", "cycles", "owner unknown")
	for _, r := range rows {
		if r.runs == 0 {
			note := r.note
			if note == "" {
				note = "not run"
			}
			fmt.Fprintf(&b, "%-36s %s\n", r.config, note)
			continue
		}
		fmt.Fprintf(&b, "%-36s %5d %8d %7d %10d %8d %8.1fs %11d %14d\n", r.config, r.runs, r.crashes, r.failed,
			r.events/int64(r.runs), r.dropped, (r.wall / time.Duration(r.runs)).Seconds(), r.cycles, r.unknownOwns)
	}
	t.Logf("virtual-thread stress pass:\n%s", b.String())
	if dir := os.Getenv("ORCA_STRESS_DIR"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Errorf("writing the summary: %v", err)
		} else if err := os.WriteFile(filepath.Join(dir, "summary.txt"), []byte(b.String()), 0o644); err != nil {
			t.Errorf("writing the summary: %v", err)
		}
	}
}
