package integration

import (
	"archive/zip"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"orca/internal/crash"
	"orca/internal/format"
	"orca/internal/testjvm"
)

// sampleStressConfigs: every collector, -Xcomp and -Xint, each with the samplers at 1 ms; and one
// recording attached to the running program (orca record --pid, G1).
var sampleStressConfigs = []stressConfig{
	{"G1", []string{"-XX:+UseG1GC"}, samples1ms},
	{"Serial", []string{"-XX:+UseSerialGC"}, samples1ms},
	{"Parallel", []string{"-XX:+UseParallelGC"}, samples1ms},
	{"ZGC", []string{"-XX:+UseZGC"}, samples1ms},
	{"Shenandoah", []string{"-XX:+UseShenandoahGC"}, samples1ms},
	{"Xcomp", []string{"-Xcomp"}, samples1ms},
	{"Xint", []string{"-Xint"}, samples1ms},
	{"attach", []string{"-XX:+UseG1GC"}, samples1ms},
}

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

// stormFiles is what SampleStorm needs beside the scenarios' classes: the test's -javaagent jar
// (a manifest naming SampleStorm as its Premain-Class and Agent-Class, able to redefine) and the
// class file of SampleStormHot's second version.
type stormFiles struct {
	once      sync.Once
	jar, hot2 string
	err       error
}

var storm stormFiles

func (s *stormFiles) get(t *testing.T) (jar, hot2 string) {
	t.Helper()
	cls := classes(t)
	s.once.Do(func() {
		dir := filepath.Join(workDir, "samplestorm")
		if s.err = testjvm.Compile(filepath.Join(dir, "v2"), dir, filepath.Join("..", "testdata", "java", "samplestorm", "SampleStormHot.java")); s.err != nil {
			return
		}
		s.hot2 = filepath.Join(dir, "v2", "SampleStormHot.class")
		s.jar = filepath.Join(dir, "storm.jar")
		s.err = writeAgentJar(s.jar, filepath.Join(cls, "SampleStorm.class"))
	})
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.jar, s.hot2
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
	if os.Getenv("ORCA_STRESS") != "1" {
		skipf(t, "the sampling stress pass runs with ORCA_STRESS=1 (make stress)")
	}
	userPath(t) // as users record: no verification of each stack walk
	runs := envCount(t, "ORCA_STRESS_RUNS", 3)
	var rows []*sampleRow
	defer func() { writeSampleSummary(t, rows) }()
	for _, j := range jdks() {
		if j.home == "" {
			rows = append(rows, &sampleRow{config: j.name, note: "skipped: no JDK at " + j.want})
		}
	}
	forEachJDK(t, func(t *testing.T, j jdk) {
		jar, hot2 := storm.get(t)
		for _, c := range sampleStressConfigs {
			row := &sampleRow{config: j.name + " " + c.name, lost: map[string]int64{}}
			rows = append(rows, row)
			t.Run(c.name, func(t *testing.T) {
				if out, err := testjvm.Command(t, t.TempDir(), j.argv(t.TempDir(), append(slices.Clone(c.args), "-version")...)...).CombinedOutput(); err != nil {
					row.note = "skipped: " + strings.Join(c.args, " ") + " not supported"
					skipf(t, "%s does not run with %s: %v\n%s", j.name, strings.Join(c.args, " "), err, out)
				}
				for i := 1; i <= runs; i++ {
					t.Run(fmt.Sprintf("run-%d", i), func(t *testing.T) { sampleStressRun(t, j, c, jar, hot2, row) })
				}
				t.Logf("%s %s: %d runs, %d crashed, %d hung, %d failed", j.name, c.name, row.runs, row.crashes, row.hangs, row.fail)
			})
		}
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
	pid := strconv.Itoa(a.cmd.Process.Pid)
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
	if got := r.info[format.InfoSamples+"cpu"]; cpu == 0 || got != strconv.FormatInt(cpu, 10) {
		t.Errorf(".info %scpu=%q, the recording has %d CPU samples; want as many, more than 0", format.InfoSamples, got, cpu)
	}
	if got := r.info[format.InfoSamples+"wall"]; got != strconv.FormatInt(wall, 10) {
		t.Errorf(".info %swall=%q, the recording has %d wall samples", format.InfoSamples, got, wall)
	}
	var lost int64
	var why []string
	for k, v := range r.info {
		if reason, ok := strings.CutPrefix(k, format.InfoSamplesLost); ok {
			l, _ := strconv.ParseInt(v, 10, 64)
			lost += l
			row.lost[reason] += l
			why = append(why, reason+"="+v)
		}
	}
	sort.Strings(why)
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
			note := r.note
			if note == "" {
				note = "not run"
			}
			fmt.Fprintf(&b, "%-36s %s\n", r.config, note)
			continue
		}
		var lost []string
		for _, k := range slices.Sorted(maps.Keys(r.lost)) {
			lost = append(lost, fmt.Sprintf("%s=%d", k, r.lost[k]))
		}
		if len(lost) == 0 {
			lost = []string{"none"}
		}
		fmt.Fprintf(&b, "%-36s %5d %8d %6d %7d %9d %9d %-40s %8d %8.1fs\n", r.config, r.runs, r.crashes, r.hangs, r.fail,
			r.cpu/int64(r.runs), r.wall/int64(r.runs), strings.Join(lost, " "), r.redefinitions/int64(r.runs),
			(r.dur / time.Duration(r.runs)).Seconds())
	}
	t.Logf("sampling stress pass (SampleStorm, --cpu 1ms --wall 1ms):\n%s", b.String())
	if dir := os.Getenv("ORCA_STRESS_DIR"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Errorf("writing the summary: %v", err)
		} else if err := os.WriteFile(filepath.Join(dir, "sample-summary.txt"), []byte(b.String()), 0o644); err != nil {
			t.Errorf("writing the summary: %v", err)
		}
	}
}
