package integration

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"orca/internal/format"
	"orca/internal/reader"
)

// jfcCompare enables the JFR events the comparison needs, at 0 ms with stack traces (the same
// as internal/jfrimport/orca.jfc, written here so the test says what it measures).
const jfcCompare = `<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="orca-compare" description="Orca vs JFR comparison" provider="Orca">
  <event name="jdk.JavaMonitorEnter"><setting name="enabled">true</setting><setting name="stackTrace">true</setting><setting name="threshold">0 ms</setting></event>
  <event name="jdk.JavaMonitorWait"><setting name="enabled">true</setting><setting name="stackTrace">true</setting><setting name="threshold">0 ms</setting></event>
  <event name="jdk.ThreadPark"><setting name="enabled">true</setting><setting name="stackTrace">true</setting><setting name="threshold">0 ms</setting></event>
  <event name="jdk.ThreadSleep"><setting name="enabled">true</setting><setting name="stackTrace">true</setting><setting name="threshold">0 ms</setting></event>
  <event name="jdk.ThreadStart"><setting name="enabled">true</setting><setting name="stackTrace">true</setting></event>
  <event name="jdk.ThreadEnd"><setting name="enabled">true</setting></event>
  <event name="jdk.VirtualThreadStart"><setting name="enabled">true</setting></event>
  <event name="jdk.VirtualThreadEnd"><setting name="enabled">true</setting></event>
  <event name="jdk.VirtualThreadPinned"><setting name="enabled">true</setting><setting name="stackTrace">true</setting><setting name="threshold">0 ms</setting></event>
</configuration>
`

// side is one of the two recordings of Scenario, with what the comparison needs to name threads
// and objects: JFR has no identity hashes, so threads are matched by name and objects by class.
type side struct {
	r        *recording
	e        expect // the EXPECT line of this run (its own hashes)
	names    map[format.ThreadID]string
	byName   map[string]format.ThreadID
	objClass map[format.ObjectID]string // from ObjectClass lines (.orca; the import's .ext too)
	ext      []reader.ExtEvent          // import only
	wall     time.Duration              // the run's wall-clock time
}

func newSide(t *testing.T, r *recording, e expect, wall time.Duration) *side {
	t.Helper()
	s := &side{r: r, e: e, wall: wall, names: map[format.ThreadID]string{}, byName: map[string]format.ThreadID{},
		objClass: map[format.ObjectID]string{}}
	for _, ev := range r.events {
		switch ev.Kind {
		case format.ThreadStarted:
			s.names[ev.Thread] = ev.Name
			s.byName[ev.Name] = ev.Thread
		case format.ObjectClass:
			s.objClass[ev.Object] = ev.Class
		}
	}
	rec, err := reader.Open(r.prefix)
	if err != nil {
		t.Fatal(err)
	}
	xs, c, err := rec.Ext()
	if reader.HasNoExt(err) {
		return s
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for {
		x, err := xs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s.ext: %v", r.prefix, err)
		}
		s.ext = append(s.ext, x)
		if x.Kind == format.ExtObjectClass {
			s.objClass[x.Object] = x.Class
		}
	}
	return s
}

// scenarioFrame reports whether event i has a frame of Scenario or one of its nested or lambda
// classes (JFR stacks have no source file, so the class is what both recordings share).
func (s *side) scenarioFrame(i int) bool {
	for _, f := range s.r.stacks[i] {
		if strings.HasPrefix(f.Class, "LScenario;") || strings.HasPrefix(f.Class, "LScenario$") {
			return true
		}
	}
	return false
}

// thread finds a thread by the name Scenario gave it, also when the import lost its
// characters outside the BMP: JFR writes thread names in the JVM's modified UTF-8 (such a
// character as two 3-byte surrogates), which the import (like `jfr print`) does not decode.
func (s *side) thread(name string) (format.ThreadID, bool) {
	if id, ok := s.byName[name]; ok {
		return id, true
	}
	id, ok := s.byName[bmpOnly(name)]
	return id, ok
}

// bmpOnly is name as the import writes it from JFR's modified UTF-8: each run of characters
// outside the Basic Multilingual Plane becomes one U+FFFD.
func bmpOnly(name string) string {
	var b strings.Builder
	prev := false
	for _, r := range name {
		if r > 0xFFFF {
			if !prev {
				b.WriteRune(0xFFFD)
			}
			prev = true
			continue
		}
		prev = false
		b.WriteRune(r)
	}
	return b.String()
}

func (s *side) count(k format.Kind, keep func(i int, ev reader.Event) bool) int {
	return len(s.r.sel(k, keep))
}

// TestOrcaVsJFR records Scenario once with orca record and once with JFR at 0 ms thresholds,
// imports the JFR file and compares what the two captures saw: the same named threads, the
// same contentions and waits (matched on the thread and the object's class, as JFR has no
// identity hashes), the same sleeps, and — asserted, since docs/format.md ("What each capture
// misses") states them — the differences: notifies, joins of ended threads, uncontended
// semaphore operations (Orca only) and parks (JFR only).
func TestOrcaVsJFR(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		bin, cls := orcaBin(t), classes(t)

		// Orca.
		start := time.Now()
		ores, oprefix := record(t, j, "Scenario")
		owall := time.Since(start)
		if ores.code != 0 {
			t.Fatalf("orca record failed:\n%s", ores)
		}
		oe := parseExpect(t, ores)
		or := load(t, oprefix)
		or.checkParse(t)
		or.checkInfo(t, true, true)

		// JFR, then import.
		dir := newDir(t)
		jfc := filepath.Join(dir, "compare.jfc")
		if err := os.WriteFile(jfc, []byte(jfcCompare), 0o644); err != nil {
			t.Fatal(err)
		}
		jfrFile := filepath.Join(dir, "run.jfr")
		start = time.Now()
		jres := runJVM(t, dir, j.argv(dir, "-XX:StartFlightRecording=filename="+jfrFile+",settings="+jfc,
			"-Xlog:jfr+startup=warning", "-cp", cls, "Scenario"))
		jwall := time.Since(start)
		checkNoCrashLog(t, jres)
		if jres.code != 0 {
			t.Fatalf("java with JFR failed:\n%s", jres)
		}
		je := parseExpect(t, jres)
		jprefix := filepath.Join(dir, "imp")
		if ir := run(t, dir, bin, "import", jfrFile, "-o", jprefix); ir.code != 0 {
			t.Fatalf("orca import failed:\n%s", ir)
		}
		jr := load(t, jprefix)
		jr.checkParse(t)
		jr.checkInvariants(t)

		// A plain run, for the start-up cost of each capture (logged, never asserted).
		start = time.Now()
		pd := newDir(t)
		pres := runJVM(t, pd, j.argv(pd, "-cp", cls, "Scenario"))
		pwall := time.Since(start)
		if pres.code != 0 {
			t.Fatalf("plain java failed:\n%s", pres)
		}

		o, f := newSide(t, or, oe, owall), newSide(t, jr, je, jwall)
		defer func() {
			if t.Failed() {
				t.Logf("orca %s: %s\njfr %s: %s\n%s\n(set ORCA_KEEP=1 to keep them)", oprefix, or.kindCounts(), jprefix, jr.kindCounts(), oe.line)
			}
		}()
		compareOrcaJFR(t, o, f, pwall)
	})
}

// row is one line of the comparison table.
type row struct {
	what      string
	expect    int // what Scenario says it did; -1 when it says nothing
	orca, jfr int
}

func compareOrcaJFR(t *testing.T, o, f *side, plain time.Duration) {
	var rows []row
	add := func(what string, expect, orca, jfr int) { rows = append(rows, row{what, expect, orca, jfr}) }

	// The counts of the two runs are the program's, not the capture's: they must agree.
	for _, k := range []string{"waits.untimed", "waits.timed", "waits.all", "notifies", "notifyAlls", "sleeps",
		"joins", "acquires", "releases", "contentions", "starts"} {
		if a, b := o.e.int(t, k), f.e.int(t, k); a != b {
			t.Errorf("EXPECT %s: %d in the orca run, %d in the JFR run", k, a, b)
		}
	}
	e := o.e

	// (1) Threads: every thread Scenario named, and main, in both, with the same names.
	want := []string{"main"}
	for _, n := range e.names(t) {
		want = append(want, n)
	}
	sort.Strings(want)
	scen := func(s *side) map[format.ThreadID]bool {
		m := map[format.ThreadID]bool{}
		for _, n := range want {
			if id, ok := s.thread(n); ok {
				m[id] = true
			}
		}
		return m
	}
	oT, fT := scen(o), scen(f)
	exact := 0
	for _, n := range want {
		_, inO := o.byName[n]
		_, inF := f.byName[n]
		if inF {
			exact++
		}
		if !inO {
			t.Errorf("orca: no thread named %q", n)
		}
		if _, ok := f.thread(n); !ok {
			t.Errorf("JFR import: no thread named %q", n)
		} else if !inF {
			// The import decodes JFR's modified UTF-8, so names come through whole.
			t.Errorf("JFR import: thread %q is named %q (characters outside the BMP lost)", n, bmpOnly(n))
		}
	}
	add("named threads (incl. main)", len(want), len(oT), len(fT))
	add("  … with the exact name", len(want), len(oT), exact)
	startedBy := func(s *side, th map[format.ThreadID]bool) (starts, ends int) {
		mainT := s.byName["main"]
		starts = s.count(format.ThreadStart, func(_ int, ev reader.Event) bool { return ev.Thread == mainT && th[ev.Target] })
		ends = s.count(format.ThreadEnded, func(_ int, ev reader.Event) bool { return th[ev.Thread] && ev.Thread != mainT })
		return
	}
	os_, oe_ := startedBy(o, oT)
	fs_, fe_ := startedBy(f, fT)
	starts := e.int(t, "starts")
	add("ThreadStart by main", starts, os_, fs_)
	add("ThreadEnded (named threads but main)", starts, oe_, fe_)
	if os_ != starts || fs_ != starts {
		t.Errorf("ThreadStart of the named threads by main: orca %d, JFR %d, want %d", os_, fs_, starts)
	}
	if oe_ != starts || fe_ != starts {
		t.Errorf("ThreadEnded of the named threads: orca %d, JFR %d, want %d", oe_, fe_, starts)
	}

	// The classes of lock and waitObj (Scenario.java), which both name.
	const lockSig, waitSig = "LScenario$Lock;", "Ljava/lang/String;"
	fClassIs := func(sig string) func(int, reader.Event) bool {
		return func(_ int, ev reader.Event) bool { return f.objClass[ev.Object] == sig }
	}

	// (2) Contention on lock: Orca exactly, on the object; JFR on the contender and the class.
	lock := format.ObjectID(e.hash(t, "lock"))
	nCont := e.int(t, "contentions")
	oContender, _ := o.thread(Scenario.contender)
	oOwner, _ := o.thread(Scenario.owner)
	fContender, _ := f.thread(Scenario.contender)
	fOwner, _ := f.thread(Scenario.owner)
	oc := o.r.sel(format.MonitorContendedEnter, func(_ int, ev reader.Event) bool {
		return ev.Object == lock && ev.Thread == oContender
	})
	fc := f.r.sel(format.MonitorContendedEnter, func(i int, ev reader.Event) bool {
		return ev.Thread == fContender && fClassIs(lockSig)(i, ev)
	})
	add("contended enters on lock (JFR: contender, class Scenario$Lock)", nCont, len(oc), len(fc))
	if len(oc) != nCont {
		t.Errorf("orca: %d MonitorContendedEnter on lock, want %d", len(oc), nCont)
	}
	// JFR writes JavaMonitorEnter at the end of every blocking enter above the threshold (0 ms):
	// with nothing still blocked at exit, it misses none. It may add enters on other classes
	// (class-init locks), hence the class filter.
	if len(fc) < nCont {
		t.Errorf("JFR: %d JavaMonitorEnter by the contender on %s, want >= %d", len(fc), lockSig, nCont)
	}
	ownerOK := func(s *side, idx []int, owner format.ThreadID) int {
		n := 0
		for _, i := range idx {
			if s.r.events[i].Owner == owner {
				n++
			}
		}
		return n
	}
	oOwn, fOwn := ownerOK(o, oc, oOwner), ownerOK(f, fc, fOwner)
	add("  … naming the owner thread (JFR: previousOwner)", nCont, oOwn, fOwn)
	if oOwn != nCont {
		t.Errorf("orca: %d of %d contended enters name the owner", oOwn, len(oc))
	}
	// With one owner and one waiter, the last releaser (JFR's previousOwner) is the owner.
	if fOwn != len(fc) {
		t.Errorf("JFR: %d of %d contended enters have the owner as previousOwner", fOwn, len(fc))
	}
	oAll := o.count(format.MonitorContendedEnter, func(_ int, ev reader.Event) bool { return oT[ev.Thread] })
	fAll := f.count(format.MonitorContendedEnter, func(_ int, ev reader.Event) bool { return fT[ev.Thread] })
	add("contended enters, all (named threads; timing-dependent)", -1, oAll, fAll)

	// (3) Waits on waitObj: all end before the program does, so JFR (which writes a wait when it
	// ends) has each one; both record the timed-out ones.
	waitObj := format.ObjectID(e.hash(t, "waitObj"))
	nWaits := e.int(t, "waits.untimed") + e.int(t, "waits.timed") + e.int(t, "waits.all")
	ow := o.count(format.ObjectWait, func(_ int, ev reader.Event) bool { return ev.Object == waitObj })
	fwIdx := f.r.sel(format.ObjectWait, func(i int, ev reader.Event) bool {
		return fT[ev.Thread] && fClassIs(waitSig)(i, ev) && f.scenarioFrame(i)
	})
	add("ObjectWait on waitObj (JFR: class String)", nWaits, ow, len(fwIdx))
	if ow != nWaits || len(fwIdx) != nWaits {
		t.Errorf("ObjectWait on waitObj: orca %d, JFR %d, want %d", ow, len(fwIdx), nWaits)
	}
	// Both name the classes: Orca's ObjectClass lines, JFR's monitorClass.
	for _, c := range []struct {
		what string
		obj  format.ObjectID
		sig  string
	}{{"lock", lock, lockSig}, {"waitObj", waitObj, waitSig}} {
		if got := o.objClass[c.obj]; got != c.sig {
			t.Errorf("orca: the class of %s is %q, want %q (as JFR's)", c.what, got, c.sig)
		}
	}
	timedOut := 0
	for _, x := range f.ext {
		if x.Kind == format.ExtWaitNotifier && x.TimedOut && fT[x.Thread] && f.objClass[x.Object] == waitSig {
			timedOut++
		}
	}
	add("  … timed out (orca: implied, no notify)", e.int(t, "waits.timed"), -1, timedOut)
	if timedOut != e.int(t, "waits.timed") {
		t.Errorf("JFR: %d timed-out waits, want %d", timedOut, e.int(t, "waits.timed"))
	}

	// Waits still open when the VM ended (daemon threads such as the Reference Handler's):
	// Orca writes the ObjectWait when the wait begins, JFR writes a wait only when it ends.
	open := func(s *side) int {
		return s.count(format.ObjectWait, nil) - s.count(format.ObjectWaited, nil)
	}
	oOpen, fOpen := open(o), open(f)
	add("waits still open at exit (any thread)", -1, oOpen, fOpen)
	if fOpen != 0 {
		t.Errorf("JFR import: %d waits without an end, want 0 (JFR writes a wait when it ends)", fOpen)
	}

	// (4) Sleeps from Scenario's code.
	nSleeps := e.int(t, "sleeps")
	osl := o.count(format.ThreadSleep, func(i int, ev reader.Event) bool { return oT[ev.Thread] && o.scenarioFrame(i) })
	fsl := f.count(format.ThreadSleep, func(i int, ev reader.Event) bool { return fT[ev.Thread] && f.scenarioFrame(i) })
	add("ThreadSleep from Scenario (sleep(0) included)", nSleeps, osl, fsl)
	if osl != nSleeps || fsl != nSleeps {
		t.Errorf("ThreadSleep from Scenario: orca %d, JFR %d, want %d", osl, fsl, nSleeps)
	}

	// (5) What only one side has.
	// notify/notifyAll: Orca records the calls; JFR records none, the import makes one ObjectNotify
	// per wait a notifier ended, and never an ObjectNotifyAll.
	nNotify, nNotifyAll := e.int(t, "notifies"), e.int(t, "notifyAlls")
	on := o.count(format.ObjectNotify, func(_ int, ev reader.Event) bool { return ev.Object == waitObj })
	ona := o.count(format.ObjectNotifyAll, func(_ int, ev reader.Event) bool { return ev.Object == waitObj })
	fn := f.count(format.ObjectNotify, func(i int, ev reader.Event) bool { return fClassIs(waitSig)(i, ev) })
	fna := f.count(format.ObjectNotifyAll, nil)
	woken := e.int(t, "waits.untimed") + e.int(t, "waits.all")
	add("ObjectNotify (JFR: 1 per notified wait, by the import)", nNotify, on, fn)
	add("ObjectNotifyAll", nNotifyAll, ona, fna)
	if on != nNotify || ona != nNotifyAll {
		t.Errorf("orca: %d ObjectNotify, %d ObjectNotifyAll on waitObj, want %d, %d", on, ona, nNotify, nNotifyAll)
	}
	if fna != 0 || fn != woken {
		t.Errorf("JFR import: %d ObjectNotifyAll (want 0), %d ObjectNotify on %s (want %d, one per woken wait)", fna, fn, waitSig, woken)
	}

	// Joins: Orca records every call; JFR only a join that waited (not the one on a thread that
	// had already ended), as a wait on the Thread, which the import turns back into a join.
	nJoins := e.int(t, "joins")
	mainO, mainF := o.byName["main"], f.byName["main"]
	oj := o.count(format.ThreadJoin, func(_ int, ev reader.Event) bool { return ev.Thread == mainO })
	fj := f.count(format.ThreadJoin, func(_ int, ev reader.Event) bool { return ev.Thread == mainF })
	fThreadWaits := f.count(format.ObjectWait, func(i int, ev reader.Event) bool { return fClassIs("Ljava/lang/Thread;")(i, ev) })
	add("ThreadJoin by main (JFR: waits on a Thread, converted)", nJoins, oj, fj)
	add("  … left as ObjectWait on a Thread", 0, 0, fThreadWaits)
	if oj != nJoins {
		t.Errorf("orca: %d ThreadJoin by main, want %d", oj, nJoins)
	}
	if fj != nJoins-1 || fThreadWaits != 0 {
		t.Errorf("JFR import: %d ThreadJoin by main (want %d: the join of an ended thread waits for nothing), %d waits on a Thread left (want 0)",
			fj, nJoins-1, fThreadWaits)
	}

	// Semaphore: Orca records every acquire and release; JFR only parks, and only when an
	// acquire blocks (one, by orca-sem-acquirer).
	sem := format.ObjectID(e.hash(t, "sem"))
	nAcq, nRel := e.int(t, "acquires"), e.int(t, "releases")
	oa := o.count(format.SemaphoreAcquire, func(_ int, ev reader.Event) bool { return ev.Object == sem })
	orl := o.count(format.SemaphoreRelease, func(_ int, ev reader.Event) bool { return ev.Object == sem })
	fa := f.count(format.SemaphoreAcquire, nil) + f.count(format.SemaphoreRelease, nil)
	// Parks: both record them now (ThreadPark), matched on the thread and the blocker's class.
	parksOf := func(s *side, named map[format.ThreadID]bool) (semParks, semParksOther, parks int) {
		acquirer, _ := s.thread(Scenario.acquirer)
		for _, i := range s.r.sel(format.ThreadPark, func(_ int, ev reader.Event) bool { return named[ev.Thread] }) {
			ev := s.r.events[i]
			if s.scenarioFrame(i) {
				parks++
			}
			if strings.Contains(s.objClass[ev.Object], "Semaphore") {
				if ev.Thread == acquirer {
					semParks++
				} else {
					semParksOther++
				}
			}
		}
		return
	}
	oSemParks, oSemParksOther, oParks := parksOf(o, oT)
	semParks, semParksOther, parks := parksOf(f, fT)
	add("SemaphoreAcquire", nAcq, oa, 0)
	add("SemaphoreRelease", nRel, orl, 0)
	add("park on a Semaphore (the 1 contended acquire)", -1, oSemParks+oSemParksOther, semParks+semParksOther)
	add("parks from Scenario code (latches, parkNanos)", -1, oParks, parks)
	if oSemParks < 1 || oSemParksOther != 0 {
		t.Errorf("orca: %d parks on a Semaphore by the contended acquirer (want >= 1), %d by others (want 0)", oSemParks, oSemParksOther)
	}
	if oParks == 0 {
		t.Errorf("orca: no ThreadPark from Scenario's code (CountDownLatch.await, parkNanos polling)")
	}
	if oa != nAcq || orl != nRel {
		t.Errorf("orca: %d SemaphoreAcquire, %d SemaphoreRelease on sem, want %d, %d", oa, orl, nAcq, nRel)
	}
	if fa != 0 {
		t.Errorf("JFR import: %d semaphore events, want 0", fa)
	}
	if semParks < 1 || semParksOther != 0 {
		t.Errorf("JFR: %d parks on a Semaphore by the contended acquirer (want >= 1), %d by others (want 0: uncontended acquires do not park)",
			semParks, semParksOther)
	}
	if parks == 0 {
		t.Errorf("JFR: no ThreadPark from Scenario's code (CountDownLatch.await, parkNanos polling)")
	}

	// The table.
	var b strings.Builder
	fmt.Fprintf(&b, "Java %s\n%-58s %7s %7s %7s\n", o.r.info["java_version"], "", "EXPECT", "orca", "JFR")
	num := func(n int) string {
		if n < 0 {
			return "-"
		}
		return fmt.Sprint(n)
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "%-58s %7s %7s %7s\n", r.what, num(r.expect), num(r.orca), num(r.jfr))
	}
	fmt.Fprintf(&b, "wall time: plain java %v, orca record %v, java+JFR %v (one run each, start-up included)",
		plain.Round(time.Millisecond), o.wall.Round(time.Millisecond), f.wall.Round(time.Millisecond))
	t.Logf("Orca vs JFR at 0 ms:\n%s", b.String())
}

// Scenario's thread names (testdata/java/scenarios/Scenario.java).
var Scenario = struct{ owner, contender, acquirer string }{
	owner:     "orca-owner,\"Žluť-線程\"",
	contender: "orca-contender \"🐋\", x",
	acquirer:  "orca-sem-acquirer",
}
