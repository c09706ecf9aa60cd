package integration

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/report"
)

// TestClassInit is issue 20's items 6 and 7: ClassInit.java has two threads touch a class while a
// third runs its slow static initializer. HotSpot makes them wait on the class's init lock (an
// int[]; JDK 17 and 22+) and posts only the end of each wait (MonitorWaited, no MonitorWait). The
// agent names the lock after the class the waiting frame asked for (ClassInitLock) and records
// each wait's end (ClassInitWaited); the report shows class initialisation of ClassInit$Slow,
// never an int[] lock, and says what cannot be seen. Before, the recording had nothing of it:
// the touchers were running while they waited.
func TestClassInit(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "ClassInit")
		r := load(t, prefix)
		r.logOnFailure(t)
		r.checkParse(t)
		r.checkInvariants(t)
		class := e.str(t, "class")
		var lock format.ObjectID
		for _, ev := range r.events {
			if ev.Kind == format.ClassInitLock && ev.Class == class {
				lock = ev.Object
			}
		}
		if lock == 0 {
			t.Fatalf("no ClassInitLock names %s", class)
		}
		waits := map[format.ThreadID]bool{}
		for i, ev := range r.events {
			if ev.Kind == format.ClassInitWaited && ev.Object == lock {
				if waits[ev.Thread] {
					t.Errorf("two ClassInitWaited of %v:\n%s", ev.Thread, r.describe(i))
				}
				waits[ev.Thread] = true
			}
		}
		if len(waits) != e.int(t, "touchers") {
			t.Errorf("%d threads' ClassInitWaited on %v, want %d", len(waits), lock, e.int(t, "touchers"))
		}
		rec, built := buildModel(t, prefix)
		ci := built.Model.InitLock(lock)
		if ci == nil || ci.Class != class || ci.Waits != e.int(t, "touchers") {
			t.Errorf("model's class initialisation of %v: %+v", lock, ci)
		}
		var txt bytes.Buffer
		if err := report.New(rec, built, report.Options{}).WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		want := "class initialisation of " + format.JavaName(class) + " (the JVM's init lock, int[] " + lock.String() + "): 2 waits by 2 threads ended"
		// The agent looks for waits still open (.info class_init_open): the text says what it
		// sees of them (HOLD_MS, 300 ms, may be more or less than two of its rounds).
		if !strings.Contains(txt.String(), want) || !strings.Contains(txt.String(), "HotSpot posts no event when such a wait begins: the agent looks") {
			t.Errorf("report lacks %q:\n%s", want, txt.String())
		}
		checkNoBareIntArray(t, txt.String())
	})
}

// checkNoBareIntArray fails when a report names an int[] lock other than as the JVM's init
// lock of a class (issue 20 item 7: every figure says what it counts).
func checkNoBareIntArray(t *testing.T, txt string) {
	t.Helper()
	for _, line := range strings.Split(txt, "\n") {
		if strings.Contains(line, "int[]") && !strings.Contains(line, "the JVM's init lock, int[]") {
			t.Errorf("report names an unexplained int[] lock: %s", line)
		}
	}
}

// TestClassInitDeadlock (h153; ClassInitDeadlock.java): class-initialisation waits still open,
// which HotSpot posts no event for until they end. dlA runs A.<clinit>, which reads B.v while dlB
// runs B.<clinit>, which reads A.v: each waits for the other's initialisation for ever. The
// agent's walker sees both waits (a thread _thread_blocked waiting on an int[], in no
// Object.wait, in two rounds running) and writes each as a contended enter of the class's init
// lock owned by the thread whose stack runs that class's <clinit>: the report's DEADLOCKS has the
// cycle, each thread waiting for the initialisation of the class the other initialises, and both
// are hangs. Slow.<clinit> sleeps 1.5 s (longer than two of the walker's rounds) while 3 waiters
// read Slow.v: each has one contention of Slow's init lock, owned by slow-init when it began and
// ended by its ClassInitWaited. Before, the recording had no start of any of these waits: "No
// deadlocks", "No hangs", the waiters and dlA, dlB running.
func TestClassInitDeadlock(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "ClassInitDeadlock")
		r := load(t, prefix)
		r.logOnFailure(t)
		r.checkParse(t)
		r.checkInvariants(t)
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		dlA, dlB, slowInit := hexOf(e, t, "dlA"), hexOf(e, t, "dlB"), hexOf(e, t, "slowinit")
		classA, classB, slow := e.str(t, "a"), e.str(t, "b"), e.str(t, "slow")
		// What each deadlocked thread waits for: the other's class.
		waitsFor := map[string]string{dlA: classB, dlB: classA}
		if len(rep.Deadlocks) != 1 {
			t.Fatalf("%d deadlocks, want 1: %+v", len(rep.Deadlocks), rep.Deadlocks)
		}
		d := rep.Deadlocks[0]
		if !d.AtEnd || !slices.Equal(slices.Sorted(slices.Values(d.Threads)), slices.Sorted(slices.Values([]string{dlA, dlB}))) {
			t.Errorf("deadlock of %v (at end %v), want %s and %s at the end", d.Threads, d.AtEnd, dlA, dlB)
		}
		for k, th := range d.Threads {
			if d.Objects[k] == nil || d.Locks[k] || d.ClassInits == nil || d.ClassInits[k] == nil || *d.ClassInits[k] != waitsFor[th] {
				t.Errorf("deadlocked %s waits on %v (class init %v), want the init lock of %s", th, d.Objects[k], d.ClassInits, waitsFor[th])
			}
		}
		hangs := 0
		for _, h := range rep.Hangs {
			want, ok := waitsFor[h.Thread]
			if !ok {
				continue
			}
			hangs++
			other := dlA
			if h.Thread == dlA {
				other = dlB
			}
			if h.Deadlock == nil || h.ClassInit == nil || *h.ClassInit != want || h.Other == nil || *h.Other != other {
				t.Errorf("hang %s: class init %v, run by %v, deadlock %v; want %s run by %s", h.Thread, h.ClassInit, h.Other, h.Deadlock, want, other)
			}
		}
		if hangs != 2 {
			t.Errorf("%d of dlA, dlB among the hangs, want 2", hangs)
		}
		var txt bytes.Buffer
		if err := rep.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		for th, class := range waitsFor {
			other := dlA
			if th == dlA {
				other = dlB
			}
			re := regexp.MustCompile(`"dl[AB]" \(` + th + `\) waiting for the initialisation of class ` + regexp.QuoteMeta(format.JavaName(class)) +
				` \(the JVM's init lock, int\[\] [0-9A-F]{8}\), run by "dl[AB]" \(` + other + `\)`)
			if n := len(re.FindAllString(txt.String(), -1)); n != 2 { // DEADLOCKS and HANGS
				t.Errorf("%d lines of the text say %s waits for %s's initialisation run by %s, want 2 (%s):\n%s", n, th, class, other, re, txt.String())
			}
		}
		checkNoBareIntArray(t, txt.String())
		// Slow's waiters: one contention each of Slow's init lock, owned by slow-init when it
		// began, ended by the thread's ClassInitWaited.
		m := built.Model
		var lock format.ObjectID
		for _, ci := range m.ClassInits {
			if ci.Class == slow {
				lock = ci.Object
			}
		}
		if lock == 0 {
			t.Fatalf("no class initialisation of %s in the model", slow)
		}
		waiters := 0
		for _, th := range m.Threads {
			if !strings.HasPrefix(th.Name, "slow-W-") {
				continue
			}
			waiters++
			n := 0
			for i := range th.Intervals {
				iv := &th.Intervals[i]
				if iv.State != model.Blocked || iv.Object != lock || iv.Since != iv.Start {
					continue
				}
				n++
				if iv.First.String() != slowInit || iv.Open {
					t.Errorf("%s blocked on %v from %v: owner %v when it began (want %s), open %v", th.Name, lock, iv.Start, iv.First, slowInit, iv.Open)
				}
			}
			if n != 1 {
				t.Errorf("%s blocked %d times on the init lock of %s, want 1", th.Name, n, slow)
			}
		}
		if waiters != e.int(t, "waiters") {
			t.Errorf("%d waiters in the recording, want %d", waiters, e.int(t, "waiters"))
		}
		for _, l := range rep.Locks {
			if l.Object != lock.String() {
				continue
			}
			if l.InitOf == nil || *l.InitOf != slow || l.Contentions != e.int(t, "waiters") || len(l.Owners) == 0 || l.Owners[0].Thread != slowInit {
				t.Errorf("lock %s: class init %v, %d contentions, owners %+v; want %s, %d, %s first", l.Object, l.InitOf, l.Contentions, l.Owners, slow, e.int(t, "waiters"), slowInit)
			}
		}
	})
}
