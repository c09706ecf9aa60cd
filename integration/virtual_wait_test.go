package integration

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"orca/internal/format"
)

// longWaitGCs are the collectors TestVirtualLongWait runs under: the stop-the-world ones, under
// which the walker names a long wait's object from the wait native's argument (waitobj.c).
var longWaitGCs = []string{"G1", "Serial", "Parallel"}

// longWaitRuns is how many times TestVirtualLongWait records per collector: 1 in make test,
// ORCA_LONG_WAIT_RUNS in the long tests (make stress), enough to catch a one-in-ten defect.
func longWaitRuns(t *testing.T) int {
	v := os.Getenv("ORCA_LONG_WAIT_RUNS")
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("ORCA_LONG_WAIT_RUNS=%q: want a positive count", v)
	}
	return n
}

// TestVirtualLongWait is issue 19's test: VirtualLongWait.java's virtual threads wait, half longer
// than the flush period on a new object each round (so the walker writes their waits, and names
// each object's class, while they are unmounted on 24+), half briefly among collections, beside
// two platform threads waiting long. Before the fix the walker resolved a virtual thread's wait
// native argument after the native had returned (a slot its carrier reuses): every run on 25 named
// LongMon objects with other objects' classes (ForkJoinTask$AdaptedRunnableAction, ShortMon,
// ConcurrentHashMap$Node), and most crashed the JVM in jni_GetObjectClass. Here: no crash under
// G1, Serial and Parallel; every wait recorded exactly on its own object, paired, its object's
// class the program's, the long ones with their stacks.
//
// As users run it (userPath): the crash was on the path users get.
func TestVirtualLongWait(t *testing.T) {
	userPath(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		runs := longWaitRuns(t)
		for _, gc := range longWaitGCs {
			t.Run(gc, func(t *testing.T) {
				if runs == 1 {
					checkLongWait(t, j, gc)
					return
				}
				failed := 0
				for i := 1; i <= runs; i++ {
					if !t.Run(fmt.Sprintf("run-%d", i), func(t *testing.T) { checkLongWait(t, j, gc) }) {
						failed++
					}
				}
				t.Logf("%s: %d of %d runs failed", gc, failed, runs)
			})
		}
	})
}

// checkLongWait records VirtualLongWait once under gc and checks it.
func checkLongWait(t *testing.T, j jdk, gc string) {
	t.Helper()
	e, r := loadVirtualJVM(t, j, []string{"-XX:+Use" + gc + "GC", "-Xmx64m"}, "VirtualLongWait")
	r.checkInvariants(t)
	classes := map[format.ObjectID]string{}
	want := map[format.ObjectID]int{}
	for _, g := range []struct{ key, class, rounds string }{
		{"long", "LVirtualLongWait$LongMon;", ""}, // one wait each
		{"short", "LVirtualLongWait$ShortMon;", "shortRounds"},
		{"platform", "LVirtualLongWait$PlatformMon;", "longRounds"},
	} {
		for _, h := range e.hashes(t, g.key) {
			classes[format.ObjectID(h)] = g.class
			want[format.ObjectID(h)] = 1
			if g.rounds != "" {
				want[format.ObjectID(h)] = e.int(t, g.rounds)
			}
		}
	}
	waits, waited := map[format.ObjectID]int{}, map[format.ObjectID]int{}
	waiter := map[format.ObjectID]format.ThreadID{}
	named := map[format.ObjectID]bool{}
	virtual := r.virtualThreads()
	bad, stackless := 0, 0
	fail := func(format string, args ...any) {
		t.Helper()
		if bad++; bad <= 10 {
			t.Errorf(format, args...)
		}
	}
	for i, ev := range r.events {
		switch ev.Kind {
		case format.ObjectClass:
			if c, ok := classes[ev.Object]; ok {
				if ev.Class != c {
					fail("ObjectClass of %v names %s, want %s (a stale reference names another object):\n%s", ev.Object, ev.Class, c, r.describe(i))
				}
				named[ev.Object] = true
			}
		case format.ObjectWait, format.ObjectWaited:
			if _, ok := want[ev.Object]; !ok {
				if thread := ev.Thread; virtual[thread] {
					fail("a virtual thread's %v on %v, not one of the program's objects:\n%s", ev.Kind, ev.Object, r.describe(i))
				}
				continue
			}
			if w, ok := waiter[ev.Object]; ok && w != ev.Thread {
				fail("%v on %v by %v and %v: each object has one waiter", ev.Kind, ev.Object, w, ev.Thread)
			}
			waiter[ev.Object] = ev.Thread
			if ev.Kind == format.ObjectWait {
				waits[ev.Object]++
				if classes[ev.Object] != "LVirtualLongWait$ShortMon;" && !r.hasMethod(i, "LVirtualLongWait;", "waitRounds") {
					if len(ev.Stack) > 0 {
						fail("a long wait's stack without VirtualLongWait.waitRounds:\n%s", r.describe(i))
					}
					stackless++
				}
			} else {
				waited[ev.Object]++
			}
		}
	}
	for o, n := range want {
		if waits[o] != n || waited[o] != n {
			fail("%v (%s): %d ObjectWait, %d ObjectWaited, want %d each", o, classes[o], waits[o], waited[o], n)
		}
		if !named[o] {
			fail("%v: no ObjectClass line (want %s)", o, classes[o])
		}
	}
	// A long wait is written without a stack only when its thread left it while the walker walked
	// it, and so counted (docs/format.md).
	if n, _ := strconv.Atoi(r.info["waits_without_stack"]); stackless > n {
		fail("%d long waits without a stack, .info waits_without_stack=%d", stackless, n)
	}
	nv := 0
	for o := range want {
		if virtual[waiter[o]] {
			nv++
		}
	}
	if got := len(e.hashes(t, "long")) + len(e.hashes(t, "short")); nv != got {
		fail("%d objects waited on by virtual threads, want %d", nv, got)
	}
}
