package integration

import (
	"bytes"
	"strings"
	"testing"

	"orca/internal/format"
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
		if !strings.Contains(txt.String(), want) || !strings.Contains(txt.String(), "Only their ends are seen") {
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
