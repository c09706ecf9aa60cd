package jfrimport

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"orca/internal/crash"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/reader"
	"orca/internal/testjvm"
)

// The tests record testdata/java/jfr/JfrDemo.java under JFR with orca.jfc
// on every JDK present, import the recording and compare it with what the
// program says it did (its EXPECT line).

const (
	jdk17   = testjvm.JDK17
	javaDir = "../../testdata/java/jfr"
)

// jdkHomes are testjvm's JDKs, an absent one by the path looked for (demo
// skips it).
var jdkHomes = func() []string {
	var out []string
	for _, j := range testjvm.All() {
		out = append(out, cmp.Or(j.Home, j.Want))
	}
	return out
}()

var (
	workDir   string // shared by the tests, removed by TestMain
	compileMu sync.Mutex
	compiled  string // class directory, once compiled
	recMu     sync.Mutex
	recorded  = map[string]*demoRun{} // by JDK home
)

func TestMain(m *testing.M) {
	var err error
	if workDir, err = os.MkdirTemp("", "orca-jfrimport-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(workDir)
	os.Exit(code)
}

// demoRun is one recording of JfrDemo.
type demoRun struct {
	jfr    string            // the .jfr file
	expect map[string]string // the program's EXPECT line
	err    error
}

// errNoJDK is why a recording cannot be made here: the test skips.
var errNoJDK = errors.New("no JDK")

// demo records JfrDemo on the JDK at home, once per test process; it skips
// the test when the JDK (or JDK 17's javac) is absent.
func demo(t testing.TB, home string) *demoRun {
	t.Helper()
	r, err := recordDemo(home)
	crash.Check(t, workDir) // JfrDemo's JVM and javac put their crash files there
	if errors.Is(err, errNoJDK) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func recordDemo(home string) (*demoRun, error) {
	if _, err := os.Stat(filepath.Join(home, "bin", "java")); err != nil {
		return nil, fmt.Errorf("%w at %s: %v", errNoJDK, home, err)
	}
	classes, err := compile()
	if err != nil {
		return nil, err
	}
	recMu.Lock()
	defer recMu.Unlock()
	if r := recorded[home]; r != nil {
		return r, r.err
	}
	r := &demoRun{jfr: filepath.Join(workDir, filepath.Base(home)+".jfr")}
	recorded[home] = r
	r.err = r.record(home, classes)
	return r, r.err
}

func (r *demoRun) record(home, classes string) error {
	jfc, _ := filepath.Abs("orca.jfc") // the settings built into orca (JFC)
	// No test at hand (one recording per process): demo checks workDir after it.
	cmd := testjvm.Command(nil, workDir, testjvm.Argv(filepath.Join(home, "bin", "java"), workDir,
		"-XX:StartFlightRecording=filename="+r.jfr+",settings="+jfc,
		"-Xlog:jfr+startup=warning", "-cp", classes, "JfrDemo")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("java JfrDemo on %s: %v\n%s%s", home, err, out, stderr.Bytes())
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "EXPECT "); ok {
			r.expect = map[string]string{}
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				r.expect[k] = v
			}
		}
	}
	if r.expect == nil {
		return fmt.Errorf("java JfrDemo on %s printed no EXPECT line:\n%s", home, out)
	}
	return nil
}

// compile compiles JfrDemo, DeadlockDemo and BurnDemo once per process.
func compile() (string, error) {
	compileMu.Lock()
	defer compileMu.Unlock()
	if compiled != "" {
		return compiled, nil
	}
	if _, err := testjvm.Javac(); err != nil {
		return "", fmt.Errorf("%w: %v", errNoJDK, err)
	}
	dir := filepath.Join(workDir, "classes")
	if err := testjvm.Compile(dir, workDir, filepath.Join(javaDir, "JfrDemo.java"), filepath.Join(javaDir, "DeadlockDemo.java"), filepath.Join(javaDir, "BurnDemo.java")); err != nil {
		return "", err
	}
	compiled = dir
	return dir, nil
}

func (r *demoRun) int(t *testing.T, k string) int {
	t.Helper()
	n, err := strconv.Atoi(r.expect[k])
	if err != nil {
		t.Fatalf("EXPECT %s=%q: %v", k, r.expect[k], err)
	}
	return n
}

// imported is an imported recording read back with internal/reader.
type imported struct {
	rec      *reader.Recording
	events   []reader.Event
	ext      []reader.ExtEvent
	names    map[format.ThreadID]string
	javaID   map[format.ThreadID]int64
	byJava   map[int64]format.ThreadID
	objClass map[format.ObjectID]string
}

func readBack(t *testing.T, prefix string) *imported {
	t.Helper()
	rec, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range rec.Warnings {
		t.Errorf("reader warning: %s", w)
	}
	im := &imported{rec: rec, names: map[format.ThreadID]string{}, javaID: map[format.ThreadID]int64{},
		byJava: map[int64]format.ThreadID{}, objClass: map[format.ObjectID]string{}}
	evs, c, err := rec.Events()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading events: %v", err)
		}
		im.events = append(im.events, ev)
		if ev.Kind == format.ThreadStarted {
			if _, dup := im.names[ev.Thread]; dup {
				t.Errorf("line %d: second ThreadStarted for %v", ev.Line, ev.Thread)
			}
			im.names[ev.Thread] = ev.Name
		}
	}
	if evs.Truncated() {
		t.Error("events: last line truncated")
	}
	xs, c2, err := rec.Ext()
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	for {
		x, err := xs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading ext: %v", err)
		}
		if x.Kind == format.ExtUnknown {
			t.Errorf("ext line %d: unknown kind %q", x.Line, x.Name)
		}
		im.ext = append(im.ext, x)
		switch x.Kind {
		case format.ExtJavaThread:
			im.javaID[x.Thread] = x.JavaID
			im.byJava[x.JavaID] = x.Thread
		case format.ExtObjectClass:
			im.objClass[x.Object] = x.Class
		}
	}
	return im
}

// userLine returns the source line of the innermost frame in class JfrDemo
// (or one of its nested classes), and the method's name; 0 if none.
func (im *imported) userLine(stack []format.Frame) (line int, method string) {
	return im.lineIn(stack, "LJfrDemo")
}

// lineIn is userLine for the class whose signature begins with prefix.
func (im *imported) lineIn(stack []format.Frame, prefix string) (line int, method string) {
	for _, f := range stack {
		m := im.rec.Methods[f.Method]
		if m == nil {
			continue
		}
		if c := im.rec.Classes[m.Class]; c != nil && strings.HasPrefix(c.Signature, prefix) {
			_, l := im.rec.Line(f)
			return l, m.Name
		}
	}
	return 0, ""
}

func TestImportJDK(t *testing.T) {
	testjvm.Each(t, func(t *testing.T, j testjvm.JDK) {
		run := demo(t, j.Home)
		prefix := filepath.Join(t.TempDir(), "imported")
		res, err := ImportFile(run.jfr, prefix, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Chunks != 1 || len(res.Damage) != 0 {
			t.Errorf("chunks %d, damage %v", res.Chunks, res.Damage)
		}
		im := readBack(t, prefix)
		checkDemo(t, run, im)
		checkFrames(t, im)
		checkWakes(t, run, im, checkModel(t, im.rec))
		// java_version is java.version, as orca record writes it (the
		// import wrote JFR's whole "OpenJDK 64-Bit Server VM (17.0.15+6-…)
		// for linux-amd64 JRE (…), built on …" there, and the report's
		// headline showed it)
		if v, err := j.Version(); err != nil {
			t.Error(err)
		} else if got := im.rec.Info.JavaVersion(); got != v {
			t.Errorf("java_version=%q, want %q (java.version)", got, v)
		}
		if vm := im.rec.Info[format.InfoJavaVMVersion]; !strings.HasPrefix(vm, im.rec.Info.JavaVersion()) || strings.ContainsAny(vm, " ()") {
			t.Errorf("java_vm_version=%q, want the runtime's version", vm)
		}
	})
}

// TestJVMVersions: jdk.JVMInformation's jvmVersion of JDK 17 and 25, and
// a string of another form (kept whole as java_version).
func TestJVMVersions(t *testing.T) {
	for _, c := range []struct{ in, vm, java string }{
		{`OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1) for linux-amd64 JRE (17.0.15+6-Debian-1deb12u1), built on May  1 2025 09:21:09 by "buildd" with gcc 12.2.0`, "17.0.15+6-Debian-1deb12u1", "17.0.15"},
		{`OpenJDK 64-Bit Server VM (25.0.3+9-LTS) for linux-amd64 JRE (25.0.3+9-LTS), built on 2026-04-14T00:00:00Z by "admin" with gcc 14.2.0`, "25.0.3+9-LTS", "25.0.3"},
		{`OpenJDK 64-Bit Server VM (26-ea+3-123) for linux-amd64`, "26-ea+3-123", "26-ea"},
		{"an unknown VM", "", "an unknown VM"},
	} {
		if vm, java := jvmVersions(c.in); vm != c.vm || java != c.java {
			t.Errorf("jvmVersions(%q) = %q, %q; want %q, %q", c.in, vm, java, c.vm, c.java)
		}
	}
}

func checkDemo(t *testing.T, run *demoRun, im *imported) {
	mainJava, _ := strconv.ParseInt(run.expect["main"], 10, 64)
	main, ok := im.byJava[mainJava]
	if !ok {
		t.Fatalf("no JavaThread line for main (java id %d)", mainJava)
	}
	if im.names[main] != "main" {
		t.Errorf("main is named %q", im.names[main])
	}
	name := func(id format.ThreadID) string { return strings.ReplaceAll(im.names[id], " ", "_") }
	wantName := func(id format.ThreadID) string { return run.expect["thread."+strconv.FormatInt(im.javaID[id], 10)] }

	// Monitor contention on Lock: each contender blocked by that round's owner.
	var enters, entered, unknown int
	for _, ev := range im.events {
		if im.objClass[ev.Object] != "LJfrDemo$Lock;" {
			continue
		}
		switch ev.Kind {
		case format.MonitorContendedEnter:
			enters++
			if ev.Owner == 0 {
				unknown++ // JFR's previousOwner named the contender itself
			}
			if !strings.HasPrefix(name(ev.Thread), "jfr-contender") || (ev.Owner != 0 && !strings.HasPrefix(name(ev.Owner), "jfr-owner")) {
				t.Errorf("line %d: enter by %q, owner %q; want a contender blocked by an owner", ev.Line, name(ev.Thread), name(ev.Owner))
			}
			if line, _ := im.userLine(ev.Stack); line != run.int(t, "line.contend") {
				t.Errorf("line %d: enter at source line %d, want %d", ev.Line, line, run.int(t, "line.contend"))
			}
		case format.MonitorContendedEntered:
			entered++
		}
	}
	if unknown == enters {
		t.Errorf("no enter names its owner (%d enters)", enters)
	}
	if want := run.int(t, "contentions"); enters != want || entered != want {
		t.Errorf("Lock: %d MonitorContendedEnter, %d Entered; want %d", enters, entered, want)
	}

	// Waits on WaitBox: the waiter's, notified by main, and main's timed one.
	var waits, waited, waiterWaits, mainWaits int
	for _, ev := range im.events {
		if im.objClass[ev.Object] != "LJfrDemo$WaitBox;" {
			continue
		}
		switch ev.Kind {
		case format.ObjectWait:
			waits++
			line, _ := im.userLine(ev.Stack)
			switch {
			case ev.Thread == main && line == run.int(t, "line.timedwait"):
				mainWaits++
			case name(ev.Thread) == "jfr-waiter" && line == run.int(t, "line.wait"):
				waiterWaits++
			default:
				t.Errorf("line %d: wait by %q at source line %d", ev.Line, name(ev.Thread), line)
			}
		case format.ObjectWaited:
			waited++
		}
	}
	if n, tn := run.int(t, "notifiedWaits"), run.int(t, "timedWaits"); waits != n+tn || waited != n+tn || waiterWaits != n || mainWaits != tn {
		t.Errorf("WaitBox: %d ObjectWait (%d by the waiter, %d by main), %d Waited; want %d+%d", waits, waiterWaits, mainWaits, waited, n, tn)
	}
	var notified, timedOut int
	for _, x := range im.ext {
		if x.Kind != format.ExtWaitNotifier || im.objClass[x.Object] != "LJfrDemo$WaitBox;" {
			continue
		}
		switch {
		case x.TimedOut && x.Other == 0 && x.Timeout == 30e6 && x.Thread == main:
			timedOut++
		case !x.TimedOut && x.Other == main && x.Timeout == -1:
			notified++
		default:
			t.Errorf("ext line %d: WaitNotifier %+v", x.Line, x)
		}
	}
	if notified != run.int(t, "notifiedWaits") || timedOut != run.int(t, "timedWaits") {
		t.Errorf("WaitNotifier: %d notified by main, %d timed out", notified, timedOut)
	}

	// Sleeps by main.
	var sleeps, slept, sleepTimes int
	for _, ev := range im.events {
		switch ev.Kind {
		case format.ThreadSleep:
			sleeps++
			if line, _ := im.userLine(ev.Stack); ev.Thread != main || line != run.int(t, "line.sleep") {
				t.Errorf("line %d: sleep by %q at source line %d", ev.Line, name(ev.Thread), line)
			}
		case format.ThreadSlept:
			slept++
		}
	}
	for _, x := range im.ext {
		if x.Kind == format.ExtSleepTime && x.Thread == main && x.Timeout == 5e6 {
			sleepTimes++
		}
	}
	if want := run.int(t, "sleeps"); sleeps != want || slept != want || sleepTimes != want {
		t.Errorf("%d ThreadSleep, %d Slept, %d SleepTime of 5 ms; want %d", sleeps, slept, sleepTimes, want)
	}

	// Parks on the Blocker: ThreadPark and ThreadUnparked (the .orca
	// kinds beyond the manual's), the blocker's class from ObjectClass.
	var parks, unparks int
	for _, x := range im.events {
		if im.objClass[x.Object] != "LJfrDemo$Blocker;" {
			continue
		}
		switch x.Kind {
		case format.ThreadPark:
			parks++
			if line, _ := im.userLine(x.Stack); name(x.Thread) != "jfr-parker" || line != run.int(t, "line.park") || x.Timeout != 2e6 {
				t.Errorf("line %d: park by %q at source line %d, timeout %d", x.Line, name(x.Thread), line, x.Timeout)
			}
		case format.ThreadUnparked:
			unparks++
		}
	}
	if want := run.int(t, "parks"); parks != want || unparks != want {
		t.Errorf("Blocker: %d ThreadPark, %d ThreadUnparked; want %d", parks, unparks, want)
	}

	// Every thread the program started: ThreadStart by main at Thread.start,
	// its name, its end.
	started := map[format.ThreadID]bool{}
	ended := map[format.ThreadID]bool{}
	for _, ev := range im.events {
		switch ev.Kind {
		case format.ThreadStart:
			if wantName(ev.Target) == "" {
				continue // a JVM thread
			}
			started[ev.Target] = true
			line, meth := im.userLine(ev.Stack)
			if ev.Thread != main || meth != "start" || line != run.int(t, "line.start") {
				t.Errorf("line %d: start of %q by %q in %s at source line %d", ev.Line, name(ev.Target), name(ev.Thread), meth, line)
			}
			if name(ev.Target) != wantName(ev.Target) {
				t.Errorf("thread %v is named %q, want %q", ev.Target, name(ev.Target), wantName(ev.Target))
			}
		case format.ThreadEnded:
			ended[ev.Thread] = true
		}
	}
	if want := run.int(t, "starts"); len(started) != want {
		t.Errorf("%d ThreadStart of the program's threads, want %d", len(started), want)
	}
	for id := range started {
		if !ended[id] {
			t.Errorf("thread %v (%q) has no ThreadEnded", id, name(id))
		}
	}
}

// checkWakes checks how the model says waits ended and joins went: the
// waiter's waits woken by main's notifies, main's timed wait by its
// timeout, joins of the program's threads.
func checkWakes(t *testing.T, run *demoRun, im *imported, m *model.Model) {
	var notified, timedOut, joins int
	for _, th := range m.Threads {
		for _, iv := range th.Intervals {
			if iv.Cont {
				continue
			}
			switch {
			case iv.State == model.Waiting && im.objClass[iv.Object] == "LJfrDemo$WaitBox;":
				switch {
				case iv.Wake == model.WakeNotify && im.names[th.ID] == "jfr-waiter" && im.names[iv.Other] == "main":
					notified++
				case iv.Wake == model.WakeTimeout && im.names[th.ID] == "main":
					timedOut++
				default:
					t.Errorf("wait of %q on WaitBox: %+v", im.names[th.ID], iv)
				}
			case iv.State == model.Waiting && im.objClass[iv.Object] == "Ljava/lang/Thread;":
				t.Errorf("wait of %q on a Thread, not a join: %+v", im.names[th.ID], iv)
			case iv.State == model.Joining:
				joins++
				if im.names[th.ID] != "main" || run.expect["thread."+strconv.FormatInt(im.javaID[iv.Other], 10)] == "" {
					t.Errorf("join of %v by %q: %+v", iv.Other, im.names[th.ID], iv)
				}
			}
		}
	}
	if notified != run.int(t, "notifiedWaits") || timedOut != run.int(t, "timedWaits") || joins == 0 {
		t.Errorf("model: %d waits woken by main's notify, %d timed out, %d joins", notified, timedOut, joins)
	}
}

// checkFrames checks that every frame names a known method of a known
// class, and per thread that time never goes back.
func checkFrames(t *testing.T, im *imported) {
	last := map[format.ThreadID]format.Time{}
	for _, ev := range im.events {
		for _, f := range ev.Stack {
			if s := im.rec.Resolve(f); strings.Contains(s, "<unknown") {
				t.Fatalf("line %d: frame %s", ev.Line, s)
			}
		}
		if ev.Time < last[ev.Thread] {
			t.Errorf("line %d: thread %v goes back in time", ev.Line, ev.Thread)
		}
		last[ev.Thread] = ev.Time
	}
}

// checkModel builds the model (what orca report shows) and runs its validator.
func checkModel(t *testing.T, rec *reader.Recording) *model.Model {
	t.Helper()
	res, err := model.Build(rec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Malformed > 0 || res.Truncated {
		t.Errorf("model: %d malformed lines, truncated %v: %v", res.Malformed, res.Truncated, res.ParseErrors)
	}
	for _, e := range modeltest.Validate(res.Model) {
		t.Errorf("model: %v", e)
	}
	for _, p := range res.Model.Problems {
		t.Errorf("model problem: %s", p)
	}
	return res.Model
}

// TestImportDamaged imports cut-short and concatenated recordings.
func TestImportDamaged(t *testing.T) {
	run := demo(t, jdk17)
	data, err := os.ReadFile(run.jfr)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// One chunk, cut anywhere: nothing to import, nothing written.
	for _, cut := range []int{0, 3, 40, 67, 68, 500, len(data) / 2, len(data) - 1} {
		prefix := filepath.Join(dir, fmt.Sprintf("cut%d", cut))
		for _, size := range []int64{int64(cut), -1} {
			_, err := Import(bytes.NewReader(data[:cut]), size, prefix, Options{Source: "x.jfr"})
			if err == nil {
				t.Errorf("cut at %d (size %d): no error", cut, size)
			} else if !strings.HasPrefix(err.Error(), "x.jfr: ") {
				t.Errorf("cut at %d: error does not name the file: %v", cut, err)
			}
			if m, _ := filepath.Glob(prefix + "*"); len(m) > 0 {
				t.Errorf("cut at %d: files left: %v", cut, m)
			}
		}
	}
	// Two chunks (JFR files concatenate), the second cut short: the first
	// is imported and the error says what was lost.
	two := append(append([]byte(nil), data...), data[:len(data)/2]...)
	prefix := filepath.Join(dir, "two")
	res, err := Import(bytes.NewReader(two), int64(len(two)), prefix, Options{Source: "two.jfr"})
	var de *DamageError
	if !errors.As(err, &de) {
		t.Fatalf("want a DamageError, got %v", err)
	}
	if res == nil || res.Chunks != 1 || de.Lost != int64(len(data)/2) {
		t.Errorf("chunks %v, lost %d; want 1 chunk, %d bytes lost", res, de.Lost, len(data)/2)
	}
	t.Log(err)
	im := readBack(t, prefix)
	if im.rec.Info["complete"] != "false" || im.rec.Info["jfr_lost_bytes"] != strconv.Itoa(len(data)/2) {
		t.Errorf(".info: complete=%s jfr_lost_bytes=%s", im.rec.Info["complete"], im.rec.Info["jfr_lost_bytes"])
	}
	one := filepath.Join(dir, "one")
	if _, err := ImportFile(run.jfr, one, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(readBack(t, one).events); len(im.events) != n {
		t.Errorf("%d events from the damaged file, %d from its first chunk alone", len(im.events), n)
	}
	// Not JFR at all.
	_, err = Import(strings.NewReader("PK\x03\x04 this is a zip file, not a recording. Lorem ipsum dolor sit amet, consectetur adipiscing elit"), -1, filepath.Join(dir, "zip"), Options{Source: "a.zip"})
	if err == nil || !strings.Contains(err.Error(), "not a JFR") || !strings.Contains(err.Error(), "jfr summary") {
		t.Errorf("zip: %v", err)
	}
}

// TestImportTwoChunks imports a recording of two complete chunks: the same
// threads and monitors keep their ids, and threads are introduced once.
func TestImportTwoChunks(t *testing.T) {
	run := demo(t, jdk17)
	data, err := os.ReadFile(run.jfr)
	if err != nil {
		t.Fatal(err)
	}
	two := append(append([]byte(nil), data...), data...)
	prefix := filepath.Join(t.TempDir(), "two")
	res, err := Import(bytes.NewReader(two), -1, prefix, Options{})
	if err != nil || res.Chunks != 2 {
		t.Fatalf("chunks %v: %v", res, err)
	}
	im := readBack(t, prefix) // fails on a second ThreadStarted for a thread
	one, err := ImportFile(run.jfr, filepath.Join(t.TempDir(), "one"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Objects != one.Objects || res.Threads != one.Threads || res.Methods != one.Methods {
		t.Errorf("two chunks: %d objects, %d threads, %d methods; one: %d, %d, %d",
			res.Objects, res.Threads, res.Methods, one.Objects, one.Threads, one.Methods)
	}
	if got, want := res.Events[format.MonitorContendedEnter], 2*one.Events[format.MonitorContendedEnter]; got != want {
		t.Errorf("%d MonitorContendedEnter, want %d", got, want)
	}
	_ = im
}

// TestProgress checks that a slow import reports progress and a fast one
// does not.
func TestProgress(t *testing.T) {
	run := demo(t, jdk17)
	var b bytes.Buffer
	if _, err := ImportFile(run.jfr, filepath.Join(t.TempDir(), "p"), Options{Progress: &b}); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 0 {
		t.Errorf("a fast import printed progress: %q", b.String())
	}
	p := newProgress(&b, 100<<20)
	p.last = p.last.Add(-2 * time.Second)
	p.report(50<<20, 3, 1000)
	p.done(100<<20, 6, 2000)
	if want := "orca import: 50 of 100 MB (50%), 3 chunks, 1000 events\norca import: done: 100 of 100 MB (100%), 6 chunks, 2000 events"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("progress:\n%s\nwant:\n%s", b.String(), want)
	}
}

// FuzzImport feeds damaged recordings to the import: it must return an
// error or write files the reader accepts, never panic.
func FuzzImport(f *testing.F) {
	for _, s := range syntheticSeeds() {
		f.Add(s)
	}
	if data, err := seedRecording(); err != nil {
		f.Logf("seeding with synthetic chunks only: %v", err)
	} else {
		for _, cut := range []int{len(data), len(data) - 1, len(data) * 3 / 4, len(data) / 2, len(data) / 8, 200, 68, 60, 4} {
			f.Add(data[:cut])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, bufs := bufferFiles("fuzz", format.EncodingSeed)
		res, err := convert(bytes.NewReader(data), int64(len(data)), fs, Options{Source: "fuzz.jfr"})
		var de *DamageError
		if err != nil && !errors.As(err, &de) {
			if res != nil {
				t.Fatalf("error %v with a result", err)
			}
			return
		}
		if res == nil || res.Chunks == 0 {
			t.Fatalf("no error but no chunk imported: %+v", res)
		}
		seed := checkOutput(t, bufs)
		// The compact encoding (orca import's default): the same events.
		fs, bufs = bufferFiles("fuzz", format.EncodingCompact)
		if _, err := convert(bytes.NewReader(data), int64(len(data)), fs, Options{Source: "fuzz.jfr"}); err != nil && !errors.As(err, &de) {
			t.Fatalf("compact: %v, seed: no error", err)
		}
		if compact := checkOutput(t, bufs); !reflect.DeepEqual(seed, compact) {
			t.Fatalf("%d events in seed, %d in compact, or they differ", len(seed), len(compact))
		}
	})
}

// checkOutput reads the files an import wrote, fails on any line the
// readers reject and returns the events.
func checkOutput(t *testing.T, bufs map[string]*bytes.Buffer) []reader.Event {
	var all []reader.Event
	evs := reader.NewEvents(bytes.NewReader(bufs[".orca"].Bytes()), "fuzz.orca")
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%v\n%q", err, bufs[".orca"])
		}
		all = append(all, ev)
	}
	if evs.Truncated() {
		t.Fatalf("the last event is cut short\n%q", bufs[".orca"])
	}
	xs := reader.NewExtEvents(bytes.NewReader(bufs[".ext"].Bytes()), "fuzz.ext")
	for {
		x, err := xs.Next()
		if err == io.EOF {
			break
		}
		if err != nil || x.Kind == format.ExtUnknown {
			t.Fatalf("%v %q\n%s", err, x.Name, bufs[".ext"])
		}
	}
	if _, errs := reader.ReadMethods(bytes.NewReader(bufs[".methods"].Bytes()), "fuzz.methods"); len(errs) > 0 {
		t.Fatalf("%v\n%s", errs, bufs[".methods"])
	}
	if _, errs := reader.ReadClasses(bytes.NewReader(bufs[".classtable"].Bytes()), "fuzz.classtable"); len(errs) > 0 {
		t.Fatalf("%v\n%s", errs, bufs[".classtable"])
	}
	info := reader.ReadInfo(bytes.NewReader(bufs[".info"].Bytes()))
	if info["format"] != "orca-1" {
		t.Fatalf(".info:\n%s", bufs[".info"])
	}
	return all
}

// seedRecording returns a recording of JfrDemo for the fuzz corpus. Each
// fuzz worker calls it, so it is kept on disk between processes.
func seedRecording() ([]byte, error) {
	src, err := os.ReadFile(filepath.Join(javaDir, "JfrDemo.java"))
	if err != nil {
		return nil, err
	}
	cache := filepath.Join(os.TempDir(), fmt.Sprintf("orca-jfrimport-seed-%08x.jfr", classHash(string(src))))
	if b, err := os.ReadFile(cache); err == nil {
		return b, nil
	}
	run, err := recordDemo(jdk17)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(run.jfr)
	if err != nil {
		return nil, err
	}
	tmp := cache + strconv.Itoa(os.Getpid())
	if os.WriteFile(tmp, b, 0o644) == nil {
		os.Rename(tmp, cache)
	}
	return b, nil
}

// BenchmarkImport converts the JfrDemo recording (JDK 17) in memory.
func BenchmarkImport(b *testing.B) {
	data, err := seedRecording()
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		fs, _ := bufferFiles("bench", format.EncodingCompact)
		if _, err := convert(bytes.NewReader(data), int64(len(data)), fs, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
