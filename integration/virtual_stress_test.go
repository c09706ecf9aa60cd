package integration

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"orca/internal/crash"
	"orca/internal/format"
	"orca/internal/testjvm"
)

// stressConfig is one way a stress pass (TestVirtualStress, TestSampleStress) runs the JVM: a
// collector, or a compilation mode with the default collector.
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
	var rows []*stressRow
	runs := stressPass(t, "the virtual-thread stress pass", func(name, note string) { rows = append(rows, &stressRow{config: name, note: note}) })
	defer func() { writeStressSummary(t, rows) }()
	forEachJDK(t, func(t *testing.T, j jdk) {
		if f := jdkFeature(t, j); f < 21 {
			rows = append(rows, &stressRow{config: j.name, note: fmt.Sprintf("skipped: JDK %d has no virtual threads", f)})
			skipf(t, "%s: JDK %d has no virtual threads", j.name, f)
		}
		runConfigs(t, j, stressConfigs, runs, func(c stressConfig) configRun {
			row := &stressRow{config: j.name + " " + c.name}
			rows = append(rows, row)
			n := 0
			return configRun{
				skip: func(note string) { row.note = note },
				run:  func(t *testing.T) { n++; stressRun(t, j, c, n, row) },
				done: func() string { return fmt.Sprintf("%d runs, %d crashed, %d failed", row.runs, row.crashes, row.failed) },
			}
		})
	})
}

// stressPass begins a stress pass (what names it): skipped without ORCA_STRESS=1 (make stress),
// it records as users do (no verification of each stack walk). It returns the runs of each
// configuration (ORCA_STRESS_RUNS, 3 by default) and gives absent, for the summary, each absent
// JDK's name and why it did not run.
func stressPass(t *testing.T, what string, absent func(name, note string)) (runs int) {
	t.Helper()
	if os.Getenv("ORCA_STRESS") != "1" {
		skipf(t, "%s runs with ORCA_STRESS=1 (make stress)", what)
	}
	userPath(t)
	for _, j := range jdks() {
		if j.home == "" {
			absent(j.name, "skipped: no JDK at "+j.want)
		}
	}
	return envCount(t, "ORCA_STRESS_RUNS", 3)
}

// configRun is what a stress pass does with one configuration on one JDK.
type configRun struct {
	skip func(note string)  // the JVM does not start with the configuration's options
	run  func(t *testing.T) // one run
	done func() string      // the outcome, logged after the runs
}

// runConfigs runs each of configs on j as a subtest of its name, once j's JVM has started with the
// configuration's options (else it is skipped, saying so), with runs runs (run-1, run-2, ...).
func runConfigs(t *testing.T, j jdk, configs []stressConfig, runs int, each func(c stressConfig) configRun) {
	t.Helper()
	for _, c := range configs {
		cr := each(c)
		t.Run(c.name, func(t *testing.T) {
			if out, err := exec.Command(j.java(), append(slices.Clone(c.args), "-version")...).CombinedOutput(); err != nil {
				cr.skip("skipped: " + strings.Join(c.args, " ") + " not supported")
				skipf(t, "%s does not run with %s: %v\n%s", j.name, strings.Join(c.args, " "), err, out)
			}
			for i := 1; i <= runs; i++ {
				t.Run(fmt.Sprintf("run-%d", i), cr.run)
			}
			t.Logf("%s %s: %s", j.name, c.name, cr.done())
		})
	}
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
			notRun(&b, r.config, r.note)
			continue
		}
		fmt.Fprintf(&b, "%-36s %5d %8d %7d %10d %8d %8.1fs %11d %14d\n", r.config, r.runs, r.crashes, r.failed,
			r.events/int64(r.runs), r.dropped, (r.wall / time.Duration(r.runs)).Seconds(), r.cycles, r.unknownOwns)
	}
	writeSummary(t, "virtual-thread stress pass", "summary.txt", b.String())
}

// notRun is a summary's line of a configuration that did not run, and why.
func notRun(b *strings.Builder, config, note string) {
	if note == "" {
		note = "not run"
	}
	fmt.Fprintf(b, "%-36s %s\n", config, note)
}

// writeSummary logs a stress pass's table (what names the pass) and writes it to
// $ORCA_STRESS_DIR/file.
func writeSummary(t *testing.T, what, file, table string) {
	t.Logf("%s:\n%s", what, table)
	if dir := os.Getenv("ORCA_STRESS_DIR"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Errorf("writing the summary: %v", err)
		} else if err := os.WriteFile(filepath.Join(dir, file), []byte(table), 0o644); err != nil {
			t.Errorf("writing the summary: %v", err)
		}
	}
}

// sampleStressConfigs: TestVirtualStress's collectors, -Xcomp and -Xint (stressConfigs), each with
// the samplers at 1 ms; and one recording attached to the running program (orca record --pid, G1).
var sampleStressConfigs = func() []stressConfig {
	var cs []stressConfig
	for _, c := range stressConfigs {
		if c.orca == nil {
			cs = append(cs, stressConfig{c.name, c.args, samples1ms})
		}
	}
	return append(cs, stressConfig{"attach", []string{"-XX:+UseG1GC"}, samples1ms})
}()

// sampleStormSeconds is how long SampleStorm storms a run: the whole run (the JVM's start, -Xcomp's
// compilations, the recording's read and checks) is 6-25 s on 2 cores.
const sampleStormSeconds = "4"

// sampleStressTimeout bounds one run: a hang is a failure.
const sampleStressTimeout = 3 * time.Minute

// sampleRow is one line of the summary TestSampleStress prints.
type sampleRow struct {
	config                     string
	note                       string // why it did not run
	runs, crashes, hangs, fail int
	cpu, wall                  int64            // samples in the recordings
	lost                       map[string]int64 // samples_lost by reason
	redefinitions, generations int64            // SampleStorm's storms
	dur                        time.Duration
}

var stormHot2 javacOnce

// stormFiles makes what SampleStorm needs beside the scenarios' classes, in dir: the test's
// -javaagent jar (a manifest naming SampleStorm as its Premain-Class and Agent-Class, able to
// redefine) and, once, the class file of SampleStormHot's second version.
func stormFiles(t *testing.T, dir string) (jar, hot2 string) {
	t.Helper()
	v2 := stormHot2.get(t, "samplestorm", func() ([]string, error) {
		return []string{filepath.Join("..", "testdata", "java", "samplestorm", "SampleStormHot.java")}, nil
	})
	jar = filepath.Join(dir, "storm.jar")
	if err := writeAgentJar(jar, filepath.Join(classes(t), "SampleStorm.class")); err != nil {
		t.Fatal(err)
	}
	return jar, filepath.Join(v2, "SampleStormHot.class")
}

// writeAgentJar writes a java.lang.instrument agent's jar: its manifest and the class file.
func writeAgentJar(path, class string) error {
	b, err := os.ReadFile(class)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	z := zip.NewWriter(f)
	for _, e := range []struct {
		name string
		data []byte
	}{
		{"META-INF/MANIFEST.MF", []byte("Manifest-Version: 1.0\r\nPremain-Class: SampleStorm\r\nAgent-Class: SampleStorm\r\n" +
			"Can-Redefine-Classes: true\r\nCan-Retransform-Classes: true\r\n\r\n")},
		{filepath.Base(class), b},
	} {
		w, err := z.Create(e.name)
		if err == nil {
			_, err = w.Write(e.data)
		}
		if err != nil {
			f.Close()
			return err
		}
	}
	if err := z.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// TestSampleStress is issue 33's signal-safety pass: SampleStorm (testdata/java/scenarios) keeps
// threads in every state a SIGPROF can find them in — the interpreter, compiled and inlined code,
// stubs, natives (file I/O, arraycopy, identity hashes), the VM (exceptions, allocation, class
// loading and unloading), monitors and ReentrantLocks, safepoints — while a storm redefines a hot
// class every ~2 ms with Instrumentation (obsolete methods on stacks, deoptimisation) and another
// loads classes that break class hierarchy analysis's assumptions in compiled code that runs; on
// 21+ also virtual threads. Recorded with --cpu 1ms --wall 1ms under every collector the JDK has,
// -Xcomp, -Xint, and once attached to (orca record --pid), ORCA_STRESS_RUNS times each (3 by
// default), on every JDK found. Each run must end with status 0, no hs_err file, no hang (a run
// over sampleStressTimeout is one), a complete recording that parses, whose frames all resolve,
// with exactly the program's blocking events (checkSampleStorm) and CPU samples (.info's count
// that of the file); samples lost (.info samples_lost.REASON) are logged, and fail the run past
// half of those taken. Long: it runs only with ORCA_STRESS=1 (make stress); the summary is
// logged and, with ORCA_STRESS_DIR, written to sample-summary.txt there.
func TestSampleStress(t *testing.T) {
	var rows []*sampleRow
	runs := stressPass(t, "the sampling stress pass", func(name, note string) { rows = append(rows, &sampleRow{config: name, note: note}) })
	defer func() { writeSampleSummary(t, rows) }()
	forEachJDK(t, func(t *testing.T, j jdk) {
		jar, hot2 := stormFiles(t, newDir(t))
		runConfigs(t, j, sampleStressConfigs, runs, func(c stressConfig) configRun {
			row := &sampleRow{config: j.name + " " + c.name, lost: map[string]int64{}}
			rows = append(rows, row)
			return configRun{
				skip: func(note string) { row.note = note },
				run:  func(t *testing.T) { sampleStressRun(t, j, c, jar, hot2, row) },
				done: func() string {
					return fmt.Sprintf("%d runs, %d crashed, %d hung, %d failed", row.runs, row.crashes, row.hangs, row.fail)
				},
			}
		})
	})
}

// sampleStressRun records SampleStorm once under c, checks it and adds the outcome to row.
func sampleStressRun(t *testing.T, j jdk, c stressConfig, jar, hot2 string, row *sampleRow) {
	start := time.Now()
	crashed, hung := false, false
	dir := newDir(t)
	defer func() { // also after a Fatal
		row.runs++
		row.dur += time.Since(start)
		if files, _ := crash.Find(dir); len(files) > 0 {
			crashed = true // a crash file not yet moved (newDir's check does it when the test ends)
		}
		if c.name == "attach" {
			hung = hung && time.Since(start) >= sampleStressTimeout
		}
		switch {
		case crashed:
			row.crashes++
		case hung:
			row.hangs++
		case t.Failed():
			row.fail++
		}
	}()
	prefix := filepath.Join(dir, "x")
	jvm := append(slices.Clone(c.args), "-Xmx512m", "-javaagent:"+jar, "-cp", classes(t), "SampleStorm", sampleStormSeconds, hot2)
	var res *result
	if c.name == "attach" {
		hung = true
		res = sampleStormAttached(t, j, dir, prefix, c, jvm)
		hung = false
	} else {
		argv := append(append([]string{"record", "-o", prefix}, c.orca...), "--")
		argv = append(argv, j.argv(dir, jvm...)...)
		hung = true // runFor fails the test when the run outlasts its bound
		res = runFor(t, sampleStressTimeout, dir, orcaBin(t), argv...)
		hung = false
	}
	// runFor's crash.Check has shown and moved a crash file (build/crash): the run's test failed.
	if t.Failed() || res.code < 0 || res.code >= 128 {
		crashed = true
		t.Fatalf("exit status %d (crash files, if any, in build/crash or $ORCA_CRASH_DIR):\n%s", res.code, res)
	}
	if res.code != 0 {
		t.Fatalf("exit status %d:\n%s", res.code, res)
	}
	if strings.Contains(res.stdout, "BROKEN") {
		t.Errorf("SampleStorm failed:\n%s", res)
	}
	e := parseExpect(t, res)
	checkSampleStorm(t, e, prefix, c.name == "attach", row)
	if !t.Failed() {
		os.RemoveAll(dir)
	} else {
		t.Logf("%s\nrecording: %s (ORCA_KEEP=1 keeps it)", e.line, prefix)
	}
}

// sampleStormAttached runs SampleStorm without Orca's agent, attaches orca record --pid to it,
// lets it storm, stops the recording and lets it end: the run as a result (its stdout the
// program's, its exit status the JVM's).
func sampleStormAttached(t *testing.T, j jdk, dir, prefix string, c stressConfig, jvm []string) *result {
	t.Helper()
	cmd := testjvm.Command(t, dir, j.argv(dir, append(jvm, "wait")...)...)
	a := startAttacheeCmd(t, cmd, dir)
	pid := fmt.Sprint(a.cmd.Process.Pid)
	o := startOrca(t, dir, "orca: recording pid "+pid+" (SampleStorm) to ", append([]string{"record", "--pid", pid, "-o", prefix}, c.orca...)...)
	// An attach's samples begin at the writer's first flush (docs/agent.md, "The sample path").
	time.Sleep(time.Second)
	if _, err := io.WriteString(a.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	a.expectLineWithin(t, "EXPECT ", sampleStressTimeout)
	code := o.stop(t)
	io.WriteString(a.stdin, "exit\n")
	select {
	case <-a.done:
	case <-time.After(sampleStressTimeout):
		t.Fatalf("SampleStorm did not exit after its recording stopped; stderr:\n%s", a.stderr)
	}
	res := &result{cmd: strings.Join(cmd.Args, " "), dir: dir, stdout: a.stdout.String(), stderr: a.stderr.String()}
	crash.Check(t, dir)
	res.code = a.cmd.ProcessState.ExitCode()
	if code != 0 {
		t.Errorf("orca record --pid: exit %d:\n%s", code, o.stderr)
	}
	return res
}

// checkSampleStorm checks a SampleStorm recording against its EXPECT line: it parses, is complete,
// nothing dropped, every frame resolves; each of the program's platform threads started and ended
// once, main started its virtual threads, which started and ended; exactly one contended enter
// (and its entered) a round on its StormMon objects, one park (and its unpark) a round on its
// ReentrantLocks' Sync objects, each wait and notify on its StormWaitMon objects, each sleep; the
// per-thread invariants. Samples were taken, .info's count is the file's, and samples lost are
// at most half of those taken.
func checkSampleStorm(t *testing.T, e expect, prefix string, attached bool, row *sampleRow) {
	t.Helper()
	r := load(t, prefix)
	r.logOnFailure(t)
	r.checkParse(t)
	r.checkInfo(t, true, true)
	if attached && r.info[format.InfoAttached] != "true" {
		t.Errorf(".info: %s=%q, want true", format.InfoAttached, r.info[format.InfoAttached])
	}
	sets := map[string]string{"mons": "mons", "waitMons": "waitMons", "syncs": "syncs"}
	setOf := map[format.ObjectID]string{}
	for key := range sets {
		for _, h := range e.hashes(t, key) {
			setOf[format.ObjectID(h)] = key
		}
	}
	mine := map[format.ThreadID]bool{}
	for _, h := range e.hashes(t, "threads") {
		mine[format.ThreadID(h)] = true
	}
	main, virtual := format.ThreadID(e.hash(t, "main")), r.virtualThreads()
	type kk struct {
		kind format.Kind
		set  string
	}
	n := map[kk]int{}
	started, ended := map[format.ThreadID]int{}, map[format.ThreadID]int{}
	vstarts, vstarted, vended, unresolved := 0, 0, 0, 0
	var cpu, wall int64
	for i, ev := range r.events {
		set := ""
		if ev.Kind.Has(format.FObject) {
			set = setOf[ev.Object]
		}
		n[kk{ev.Kind, set}]++
		for _, f := range r.stacks[i] {
			if f.Method == "" && !isNative(f) {
				if unresolved++; unresolved <= 5 {
					t.Errorf("a frame that does not resolve:\n%s", r.describe(i))
				}
			}
		}
		switch ev.Kind {
		case format.Sample:
			switch ev.Sampled {
			case format.SampleCPU:
				cpu++
			case format.SampleWall:
				wall++
			}
		case format.ThreadStart:
			if ev.Thread == main && virtual[ev.Target] {
				vstarts++
			}
		case format.ThreadStarted:
			started[ev.Thread]++
			if virtual[ev.Thread] {
				vstarted++
			}
		case format.ThreadEnded:
			ended[ev.Thread]++
			if virtual[ev.Thread] {
				vended++
			}
		}
	}
	if unresolved > 5 {
		t.Errorf("… %d frames that do not resolve", unresolved)
	}
	want := func(what string, got, want int) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %d, want %d", what, got, want)
		}
	}
	for th := range mine {
		if started[th] != 1 || ended[th] != 1 {
			t.Errorf("SampleStorm's thread %v: %d ThreadStarted, %d ThreadEnded, want 1 each", th, started[th], ended[th])
		}
	}
	mons, locks := e.int(t, "monRounds"), e.int(t, "lockRounds")
	want("MonitorContendedEnter on StormMon", n[kk{format.MonitorContendedEnter, "mons"}], mons)
	want("MonitorContendedEntered on StormMon", n[kk{format.MonitorContendedEntered, "mons"}], mons)
	want("ThreadPark on the locks' Sync", n[kk{format.ThreadPark, "syncs"}], locks)
	want("ThreadUnparked on the locks' Sync", n[kk{format.ThreadUnparked, "syncs"}], locks)
	want("ObjectWait on StormWaitMon", n[kk{format.ObjectWait, "waitMons"}], e.int(t, "waits"))
	want("ObjectWaited on StormWaitMon", n[kk{format.ObjectWaited, "waitMons"}], e.int(t, "waits"))
	want("ObjectNotify on StormWaitMon", n[kk{format.ObjectNotify, "waitMons"}], e.int(t, "notifies"))
	want("ThreadSleep", n[kk{format.ThreadSleep, ""}], e.int(t, "sleeps"))
	want("ThreadSlept", n[kk{format.ThreadSlept, ""}], e.int(t, "sleeps"))
	if e.str(t, "virtual") == "yes" {
		v := e.int(t, "vstarted")
		want("ThreadStart of virtual threads by main", vstarts, v)
		want("ThreadStarted of virtual threads", vstarted, v)
		want("ThreadEnded of virtual threads", vended, v)
	}
	if mons == 0 || locks == 0 || e.int(t, "redefinitions") == 0 || e.int(t, "chaGenerations") == 0 {
		t.Errorf("SampleStorm did too little: %s", e.line)
	}
	r.checkInvariants(t)

	// The samples.
	row.cpu += cpu
	row.wall += wall
	row.redefinitions += int64(e.int(t, "redefinitions"))
	row.generations += int64(e.int(t, "chaGenerations"))
	if r.info[format.InfoSampleCPU] != "1000000" || r.info[format.InfoSampleWall] != "1000000" {
		t.Errorf(".info: %s=%q %s=%q, want 1000000 each", format.InfoSampleCPU, r.info[format.InfoSampleCPU], format.InfoSampleWall, r.info[format.InfoSampleWall])
	}
	if got := r.info[format.InfoSamples+"cpu"]; cpu == 0 || got != fmt.Sprint(cpu) {
		t.Errorf(".info %scpu=%q, the recording has %d CPU samples; want as many, more than 0", format.InfoSamples, got, cpu)
	}
	if got := r.info[format.InfoSamples+"wall"]; got != fmt.Sprint(wall) {
		t.Errorf(".info %swall=%q, the recording has %d wall samples", format.InfoSamples, got, wall)
	}
	var lost int64
	var why []string
	for k, v := range r.info {
		if reason, ok := strings.CutPrefix(k, format.InfoSamplesLost); ok {
			var l int64
			if _, err := fmt.Sscan(v, &l); err != nil {
				t.Errorf(".info %s=%q: not a count", k, v)
			}
			lost += l
			row.lost[reason] += l
			why = append(why, reason+"="+v)
		}
	}
	slices.Sort(why)
	t.Logf("samples: %d cpu, %d wall; lost %d (%s); %d redefinitions, %d CHA generations, %d+%d rounds",
		cpu, wall, lost, strings.Join(why, " "), e.int(t, "redefinitions"), e.int(t, "chaGenerations"), mons, locks)
	if lost*2 > cpu+wall {
		t.Errorf("%d samples lost (%s) against %d taken: more than half", lost, strings.Join(why, " "), cpu+wall)
	}
}

// writeSampleSummary logs the table of the sampling stress pass and writes it to
// $ORCA_STRESS_DIR/sample-summary.txt.
func writeSampleSummary(t *testing.T, rows []*sampleRow) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-36s %5s %8s %6s %7s %9s %9s %-40s %8s %9s\n", "configuration", "runs", "crashes", "hangs", "failed",
		"cpu/run", "wall/run", "lost (by reason, all runs)", "redefs/run", "time/run")
	for _, r := range rows {
		if r.runs == 0 {
			notRun(&b, r.config, r.note)
			continue
		}
		var lost []string
		for k, n := range r.lost {
			lost = append(lost, fmt.Sprintf("%s=%d", k, n))
		}
		slices.Sort(lost)
		if len(lost) == 0 {
			lost = []string{"none"}
		}
		fmt.Fprintf(&b, "%-36s %5d %8d %6d %7d %9d %9d %-40s %8d %8.1fs\n", r.config, r.runs, r.crashes, r.hangs, r.fail,
			r.cpu/int64(r.runs), r.wall/int64(r.runs), strings.Join(lost, " "), r.redefinitions/int64(r.runs),
			(r.dur / time.Duration(r.runs)).Seconds())
	}
	writeSummary(t, "sampling stress pass (SampleStorm, --cpu 1ms --wall 1ms)", "sample-summary.txt", b.String())
}
