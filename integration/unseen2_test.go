package integration

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"orca/internal/analysis"
	"orca/internal/report"
)

// Programs a demanding user wrote, second round (docs/perf/2026-12-02-unseen-programs-2.md):
// each checks, with the counts and owners the program makes, a statement the report got wrong
// or left out, on JDK 17 and 25.

// TestClassMonitor: HotKey.java. computeIfAbsent on one hot key of a ConcurrentHashMap: the
// computing thread holds the bin's ReservationNode monitor while 3 others block on it (3
// contentions, "computer" blamed for the most and counted once); then a synchronized static
// method held by "statHolder" while 2 threads block on its lock, the Class object HotKey.class:
// the report names that monitor's class (class_object "LHotKey;", "(HotKey.class)" in the text;
// before, "monitor java.lang.Class 7EE8290B" alone).
func TestClassMonitor(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "HotKey")
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		var node, cls *report.Lock
		for i := range rep.Locks {
			l := &rep.Locks[i]
			switch {
			case l.Class != nil && *l.Class == "Ljava/util/concurrent/ConcurrentHashMap$ReservationNode;":
				node = l
			case l.Object == hexOf(e, t, "cls"):
				cls = l
			}
		}
		if node == nil || cls == nil {
			t.Fatalf("the report lacks the ReservationNode's contention (%v) or HotKey.class's (%v)", node != nil, cls != nil)
		}
		computer := hexOf(e, t, "computer")
		if node.Contentions != e.int(t, "waiters") || len(node.Owners) == 0 || node.Owners[0].Thread != computer || node.Owners[0].Contentions != 1 {
			t.Errorf("the bin's node: %d contentions, owners %+v; want %d, computer (%s) blamed most, counted once", node.Contentions, node.Owners, e.int(t, "waiters"), computer)
		}
		if cls.ClassObject == nil || *cls.ClassObject != "LHotKey;" || cls.Contentions != e.int(t, "stat_waiters") ||
			len(cls.Owners) == 0 || cls.Owners[0].Thread != hexOf(e, t, "statHolder") {
			t.Errorf("HotKey.class's monitor: class_object %v, %d contentions, owners %+v; want LHotKey;, %d, statHolder first",
				cls.ClassObject, cls.Contentions, cls.Owners, e.int(t, "stat_waiters"))
		}
		var txt bytes.Buffer
		if err := rep.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if want := "monitor java.lang.Class " + cls.Object + " (HotKey.class): "; !strings.Contains(txt.String(), want) {
			t.Errorf("the text lacks %q", want)
		}
	})
}

// TestLeftLocked: LeftLocked.java's "ghost" locks a ReentrantLock and ends; "orphan" then calls
// tryLock(150 ms) on it and gives up. The agent reads the owner when it parks: ghost, which had
// ended. The report said ghost held it and nothing of its end; it now says the lock was left
// locked (left_locked: ghost, 1 park). The monitor and the lock "holder" held across a sleep,
// each with 2 threads behind it, are blamed on holder; "brief", ended by then, is named the owner
// of the contentions its monitor had while it lived, and left nothing locked.
func TestLeftLocked(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "LeftLocked")
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		ghost, holder, brief := hexOf(e, t, "ghost"), hexOf(e, t, "holder"), hexOf(e, t, "brief")
		// The ReentrantLocks are their syncs in the report (the agent's blocker): told apart
		// by their owner.
		found := 0
		for _, l := range rep.Locks {
			juc := l.Kind == "juc" && l.Class != nil && strings.HasSuffix(*l.Class, "ReentrantLock$NonfairSync;")
			switch {
			case juc && len(l.Owners) > 0 && l.Owners[0].Thread == ghost:
				found++
				if len(l.LeftLocked) != 1 || l.LeftLocked[0].Thread != ghost || l.LeftLocked[0].Parks != 1 || l.Contentions != 1 || l.NoUnpark != 1 {
					t.Errorf("G: left locked %+v, %d contentions, %d given up; want ghost (%s) with 1 park, 1, 1", l.LeftLocked, l.Contentions, l.NoUnpark, ghost)
				}
			case juc || l.Object == hexOf(e, t, "M"):
				found++
				want := e.int(t, "mw")
				if juc {
					want = e.int(t, "lw")
				}
				if l.Contentions != want || len(l.Owners) == 0 || l.Owners[0].Thread != holder || l.LeftLocked != nil {
					t.Errorf("%s %s: %d contentions, owners %+v, left locked %+v; want %d, holder (%s) first, none", l.Kind, l.Object, l.Contentions, l.Owners, l.LeftLocked, want, holder)
				}
			case l.Object == hexOf(e, t, "M2"):
				found++
				if l.Contentions != 2 || !slices.ContainsFunc(l.Owners, func(o report.Owner) bool { return o.Thread == brief }) || l.LeftLocked != nil {
					t.Errorf("M2: %d contentions, owners %+v, left locked %+v; want 2, brief (%s) among them, none", l.Contentions, l.Owners, l.LeftLocked, brief)
				}
			}
		}
		if found != 4 {
			t.Errorf("%d of the 4 locks M, L, M2, G in the report", found)
		}
		var txt bytes.Buffer
		if err := rep.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if want := `left locked: "ghost" (` + ghost + ") ended at "; !strings.Contains(txt.String(), want) {
			t.Errorf("the text lacks %q", want)
		}
	})
}

// TestYoungDeadlocks: Cycles.java makes two deadlocks that never end: a monitor and a
// ReentrantLock between "mixA" and "mixB", and a cycle of three, "cyc1" (monitor M2, wants L2),
// "cyc2" (L2, wants M3), "cyc3" (M3, wants M2); then it exits 300 ms later. Both are found with
// their threads and what each waits on; the five threads are hangs, and the HANGS heading, "stuck
// for 1.00 s or more", says "(or in a deadlock)" of those stuck less (it said nothing of them).
func TestYoungDeadlocks(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "Cycles")
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		want := map[string][]string{
			"mix": {hexOf(e, t, "mixA"), hexOf(e, t, "mixB")},
			"cyc": {hexOf(e, t, "cyc1"), hexOf(e, t, "cyc2"), hexOf(e, t, "cyc3")},
		}
		// The monitor each waits on; "" for a ReentrantLock (its sync in the report, the agent's
		// blocker, whose hash the program does not print).
		waitsOn := map[string]string{
			hexOf(e, t, "mixA"): "", hexOf(e, t, "mixB"): hexOf(e, t, "M1"),
			hexOf(e, t, "cyc1"): "", hexOf(e, t, "cyc2"): hexOf(e, t, "M3"), hexOf(e, t, "cyc3"): hexOf(e, t, "M2"),
		}
		if len(rep.Deadlocks) != 2 {
			t.Fatalf("%d deadlocks, want 2: %+v", len(rep.Deadlocks), rep.Deadlocks)
		}
		for _, d := range rep.Deadlocks {
			got := slices.Sorted(slices.Values(d.Threads))
			if !d.AtEnd || !slices.Equal(got, slices.Sorted(slices.Values(want["mix"]))) && !slices.Equal(got, slices.Sorted(slices.Values(want["cyc"]))) {
				t.Errorf("deadlock of %v (at end %v); want %v or %v", d.Threads, d.AtEnd, want["mix"], want["cyc"])
			}
			for k, th := range d.Threads {
				lock := waitsOn[th] == ""
				if d.Objects[k] == nil || !lock && *d.Objects[k] != waitsOn[th] || d.Locks[k] != lock ||
					lock && (d.Classes == nil || d.Classes[k] == nil || !strings.HasSuffix(*d.Classes[k], "ReentrantLock$NonfairSync;")) {
					t.Errorf("thread %s waits on %v (lock %v); want %s", th, d.Objects[k], d.Locks[k], waitsOn[th])
				}
			}
		}
		young := false
		n := 0
		for _, h := range rep.Hangs {
			if _, ok := waitsOn[h.Thread]; ok {
				n++
				young = young || h.ForS < analysis.MinHang.Seconds()
				if h.Deadlock == nil {
					t.Errorf("hang %s not in a deadlock", h.Thread)
				}
			}
		}
		if n != 5 {
			t.Errorf("%d of the 5 deadlocked threads among the hangs", n)
		}
		var txt bytes.Buffer
		if err := rep.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if heading := "stuck for 1.00 s or more at the end (or in a deadlock)"; young && !strings.Contains(txt.String(), heading) {
			t.Errorf("deadlocked threads stuck less than %v, and the text lacks %q", analysis.MinHang, heading)
		}
	})
}

// TestFairConvoy: Convoy.java's fair ReentrantLock is held by "lockHolder" while lockQ-0, lockQ-1
// and lockQ-2 queue on it in that order; then each holds it in turn. Each waiter waited for the
// holder, then for every waiter before it: lockQ-0 held it while lockQ-1 and lockQ-2 waited,
// lockQ-1 while lockQ-2 did. The blame names them (before, every park was blamed whole on the
// owner when it parked, lockHolder, and lockQ-0 and lockQ-1 had 0 s); each contention is counted
// on the releaser that let it in. The fair Semaphore's 3 acquires are counted on their releasers.
func TestFairConvoy(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "Convoy")
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		n := e.int(t, "n")
		var lock, sem *report.Lock
		for i := range rep.Locks {
			l := &rep.Locks[i]
			switch {
			case l.Kind == "juc" && l.Class != nil && strings.HasSuffix(*l.Class, "ReentrantLock$FairSync;"):
				lock = l
			case l.Object == hexOf(e, t, "sem"):
				sem = l
			}
		}
		if lock == nil || sem == nil {
			t.Fatalf("the report lacks the fair lock (%v) or the semaphore (%v)", lock != nil, sem != nil)
		}
		blamed := map[string]report.Owner{}
		for _, o := range lock.Owners {
			blamed[o.Thread] = o
		}
		for _, k := range []string{"lockHolder", "lockQ0", "lockQ1"} {
			if o, ok := blamed[hexOf(e, t, k)]; !ok || o.Contentions != 1 || o.BlamedS <= 0 {
				t.Errorf("the fair lock's owner %s: %+v; want 1 contention and some blame", k, o)
			}
		}
		if lock.Contentions != n || len(lock.Owners) != 3 || lock.OwnerUnknown != 0 || lock.NoUnpark != 0 {
			t.Errorf("the fair lock: %d contentions, owners %+v, %d unknown, %d no unpark; want %d, 3 owners, 0, 0",
				lock.Contentions, lock.Owners, lock.OwnerUnknown, lock.NoUnpark, n)
		}
		if sem.Contentions != n || len(sem.Owners) != 3 {
			t.Errorf("the semaphore: %d contentions, owners %+v; want %d on 3 releasers", sem.Contentions, sem.Owners, n)
		}
	})
}
