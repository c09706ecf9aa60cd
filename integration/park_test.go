package integration

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
)

// The blockers' classes in Parking.java (the object a park names is the
// lock's sync, the condition, the latch's sync, the future itself).
const (
	clsLockSync  = "Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;"
	clsRWSync    = "Ljava/util/concurrent/locks/ReentrantReadWriteLock$NonfairSync;"
	clsCondition = "Ljava/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject;"
	clsLatchSync = "Ljava/util/concurrent/CountDownLatch$Sync;"
	clsFuture    = "Ljava/util/concurrent/FutureTask;"
	clsMarker    = "LParking$Marker;"
)

// TestParking is issue 14's parking test: Parking.java blocks in java.util.concurrent with exact
// counts and known holders (its header says which), on every JDK found, also compiled at once
// (-Xcomp: the wrapped Unsafe.park is reached from compiled callers) and under -Xcheck:jni. The
// recording must have each park with its blocker's class, the owner of a lock when the thread
// parked, how it ended and the unpark that ended it; the model must count every parked
// nanosecond as parked (none as runnable) and name the unparker of each park.
func TestParking(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		for _, variant := range [][]string{nil, {"-Xcomp"}, {"-Xcheck:jni"}} {
			name := "default"
			if variant != nil {
				name = variant[0]
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel() // the variants one beside another: harness_test.go, "Two at a time"
				res, prefix := recordJVM(t, j, variant, "Parking")
				if res.code != 0 {
					t.Fatalf("orca record failed:\n%s", res)
				}
				if strings.Contains(res.stdout, "woke early") {
					t.Fatalf("parkNanos returned before its timeout:\n%s", res)
				}
				for _, l := range strings.Split(res.stderr, "\n") {
					if strings.Contains(l, "Re-registering") || strings.Contains(l, "WARNING") && strings.Contains(l, "JNI") {
						t.Errorf("the JVM warned: %s", l)
					}
				}
				checkParking(t, parseExpect(t, res), prefix)
			})
		}
	})
}

// TestParkingSeedKinds: with --kinds seed the recording has only the manual's 16 kinds.
func TestParkingSeedKinds(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		bin, cls := orcaBin(t), classes(t)
		dir := newDir(t)
		prefix := dir + "/x"
		res := run(t, dir, bin, append([]string{"record", "-o", prefix, "--kinds", "seed", "--"}, j.argv(dir, "-cp", cls, "Parking")...)...)
		if res.code != 0 {
			t.Fatalf("orca record failed:\n%s", res)
		}
		r := load(t, prefix)
		r.checkParse(t)
		for _, ev := range r.events {
			if !ev.Kind.Seed() {
				t.Fatalf("kinds=seed recorded a %s", ev.Kind)
			}
		}
		if len(r.sel(format.ThreadSleep, nil)) == 0 {
			t.Fatalf("kinds=seed recorded no sleeps: %s", r.kindCounts())
		}
		if !strings.Contains(r.info["agent_options"], "kinds=seed") {
			t.Errorf(".info: agent_options=%q, want kinds=seed", r.info["agent_options"])
		}
		// The report says parks are not seen (they are runnable time).
		rec, built := buildModel(t, prefix)
		var txt strings.Builder
		if err := report.New(rec, built, report.Options{}).WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(txt.String(), "such as I/O or LockSupport.park") {
			t.Errorf("the report of a kinds=seed recording does not say parks are not recorded:\n%s", txt.String())
		}
	})
}

func checkParking(t *testing.T, e expect, prefix string) {
	t.Helper()
	r := load(t, prefix)
	r.logOnFailure(t)
	r.checkParse(t)
	r.checkInfo(t, true, true)
	r.checkInvariants(t)
	names := map[format.ThreadID]string{}
	classOf := map[format.ObjectID]string{}
	for _, ev := range r.events {
		switch ev.Kind {
		case format.ThreadStarted:
			names[ev.Thread] = ev.Name
		case format.ObjectClass:
			classOf[ev.Object] = ev.Class
		}
	}
	// The parks of each thread, with their ends.
	type park struct {
		begin, end reader.Event
		// permit: an unpark of the thread came after its previous park and
		// before this one, which returned at once, consuming it. The
		// program cannot prevent these (an AQS release unparks a queued
		// thread that then takes the lock without parking): they are
		// parks, but not the waits the program counts.
		permit bool
	}
	parks := map[string][]park{}
	open := map[format.ThreadID]reader.Event{}
	permit := map[format.ThreadID]bool{} // an unpark not yet consumed by a park
	for _, ev := range r.events {
		switch ev.Kind {
		case format.ThreadUnpark:
			if _, parked := open[ev.Target]; !parked {
				permit[ev.Target] = true
			}
		case format.ThreadPark:
			if ev.Object != 0 && classOf[ev.Object] == "" {
				t.Errorf("line %d: park on %v, whose class no ObjectClass line before it names", ev.Line, ev.Object)
			}
			open[ev.Thread] = ev
		case format.ThreadUnparked:
			b, ok := open[ev.Thread]
			if !ok {
				t.Errorf("line %d: ThreadUnparked without its park", ev.Line)
				continue
			}
			delete(open, ev.Thread)
			parks[names[ev.Thread]] = append(parks[names[ev.Thread]], park{b, ev, permit[ev.Thread]})
			delete(permit, ev.Thread)
		}
	}
	on := func(who, class string) []park {
		var out []park
		for _, p := range parks[who] {
			if classOf[p.begin.Object] == class && !p.permit {
				out = append(out, p)
			}
		}
		return out
	}
	want := func(who, class string, n int, owner uint32, how format.ParkEnd) []park {
		t.Helper()
		ps := on(who, class)
		if len(ps) != n {
			t.Errorf("%s: %d parks on a %s, want %d (all its parks: %d)", who, len(ps), class, n, len(parks[who]))
		}
		for _, p := range ps {
			if uint32(p.begin.Owner) != owner {
				t.Errorf("%s: park on %s at line %d names owner %v, want %08X", who, class, p.begin.Line, p.begin.Owner, owner)
			}
			if p.end.How != how {
				t.Errorf("%s: park on %s at line %d ended %q, want %q", who, class, p.begin.Line, p.end.How, how)
			}
			if p.begin.Timeout != -1 && class != clsMarker {
				t.Errorf("%s: park at line %d has timeout %d, want none", who, p.begin.Line, p.begin.Timeout)
			}
		}
		return ps
	}
	rounds := e.int(t, "rounds")
	holders, waiters := e.hashes(t, "rl_holders"), e.hashes(t, "rl_waiters")
	var sync format.ObjectID // the ReentrantLock's sync, the object its waiters park on
	for i := 0; i < rounds; i++ {
		for _, p := range want(names[format.ThreadID(waiters[i])], clsLockSync, 1, holders[i], format.ParkEndUnparked) {
			if sync != 0 && p.begin.Object != sync {
				t.Errorf("the rl-waiters parked on %v and %v", sync, p.begin.Object)
			}
			sync = p.begin.Object
		}
	}
	want("rw-reader", clsRWSync, 1, e.hash(t, "rw_writer"), format.ParkEndUnparked)
	for _, p := range want("cond-waiter", clsCondition, e.int(t, "awaits"), 0, format.ParkEndUnparked) {
		if uint32(p.begin.Object) != e.hash(t, "cond") {
			t.Errorf("cond-waiter parked on %v, want the condition %08X", p.begin.Object, e.hash(t, "cond"))
		}
	}
	want("latch-waiter", clsLatchSync, 1, 0, format.ParkEndUnparked)
	for _, p := range want("future-getter", clsFuture, 1, 0, format.ParkEndUnparked) {
		if uint32(p.begin.Object) != e.hash(t, "future") {
			t.Errorf("future-getter parked on %v, want the future %08X", p.begin.Object, e.hash(t, "future"))
		}
	}
	want("queue-taker", clsCondition, 1, 0, format.ParkEndUnparked)
	for _, p := range want("intr-parker", clsMarker, 1, 0, format.ParkEndInterrupted) {
		if uint32(p.begin.Object) != e.hash(t, "marker2") || p.begin.Timeout != -1 {
			t.Errorf("intr-parker parked on %v with timeout %d, want the marker %08X and none", p.begin.Object, p.begin.Timeout, e.hash(t, "marker2"))
		}
	}
	for _, p := range want("nanos-parker", clsMarker, 1, 0, format.ParkEndTimeout) {
		if ns := int64(e.int(t, "nanos_ms")) * 1e6; p.begin.Timeout != ns {
			t.Errorf("nanos-parker: timeout %d, want %d", p.begin.Timeout, ns)
		}
		if uint32(p.begin.Object) != e.hash(t, "marker") {
			t.Errorf("nanos-parker parked on %v, want the marker %08X", p.begin.Object, e.hash(t, "marker"))
		}
	}
	// Every park's stack starts at Unsafe.park, and the end repeats it.
	for i, ev := range r.events {
		if ev.Kind == format.ThreadPark && !r.hasMethod(i, "Ljdk/internal/misc/Unsafe;", "park") {
			t.Errorf("line %d: park stack %s", ev.Line, r.describe(i))
		}
	}

	// The model: states and who unparked whom.
	rec, built := buildModel(t, prefix)
	m := built.Model
	for _, p := range m.Problems {
		t.Errorf("model problem: %s", p)
	}
	byName := map[string]*model.Thread{}
	for _, th := range m.Threads {
		byName[th.Name] = th
	}
	hold := format.Time(e.int(t, "hold_ms")) * 1e6
	unparker := map[string]string{"rw-reader": "rw-writer", "cond-waiter": "cond-signaller", "latch-waiter": "latch-opener",
		"future-getter": "future-runner", "queue-taker": "queue-putter"}
	for i := 0; i < rounds; i++ {
		unparker[names[format.ThreadID(waiters[i])]] = names[format.ThreadID(holders[i])]
	}
	for who, by := range unparker {
		th := byName[who]
		if th == nil {
			t.Errorf("no thread %q in the model", who)
			continue
		}
		var parked format.Time
		for _, p := range parks[who] {
			parked += p.end.Time - p.begin.Time
		}
		// A lock's waiter is blocked (Interval.Shown: a lock is a lock), a queue's taker idle
		// (it waits for work), the others parked.
		st := parkState(who)
		if lockWaiter(who) {
			if th.Time[model.Parked] != 0 {
				t.Errorf("%s: parked %v in the model, want 0 (its parks are a lock's contentions)", who, th.Time[model.Parked])
			}
		}
		var got format.Time
		for _, iv := range th.Intervals {
			if iv.State == model.Parked || iv.State == model.Idle {
				got += iv.Duration()
			}
		}
		if got != parked {
			t.Errorf("%s: parks of %v in the model, its parks last %v", who, got, parked)
		}
		if th.Time[st] < hold {
			t.Errorf("%s: %s %v, want at least %v (its releaser waited that long)", who, st, th.Time[st], hold)
		}
		if th.Time[model.Runnable] >= th.Life()-th.Time[st]+1 {
			t.Errorf("%s: runnable %v of a life of %v with %v %s", who, th.Time[model.Runnable], th.Life(), th.Time[st], st)
		}
		for _, iv := range th.Intervals {
			if (iv.State == model.Parked || iv.State == model.Idle) && iv.Duration() >= hold/2 {
				if iv.Wake != model.WakeUnpark || m.Thread(iv.Other) == nil || m.Thread(iv.Other).Name != by {
					t.Errorf("%s: park %v..%v ended %s by %v, want an unpark by %s", who, iv.Start, iv.End, iv.Wake, iv.Other, by)
				}
			}
		}
	}
	// nanos-parker's one park timed out, intr-parker's was interrupted:
	// neither names an unparker.
	for _, p := range []struct {
		name string
		wake model.Wake
	}{{"nanos-parker", model.WakeTimeout}, {"intr-parker", model.WakeInterrupted}} {
		th := byName[p.name]
		if th == nil {
			continue
		}
		n := 0
		for _, iv := range th.Intervals {
			if iv.State == model.Parked {
				n++
				if iv.Wake != p.wake || iv.Other != 0 {
					t.Errorf("%s: park ended %s by %v, want %s", p.name, iv.Wake, iv.Other, p.wake)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d parks in the model, want 1", p.name, n)
		}
	}

	// The report: states, the blockers in the waits with their classes and unparkers.
	rep := report.New(rec, built, report.Options{Top: 0})
	for _, th := range rep.Threads {
		if _, ok := unparker[th.Name]; !ok {
			continue
		}
		if lockWaiter(th.Name) && (th.StatesS.Blocked <= 0 || th.StatesS.Parked != 0) {
			t.Errorf("report: %s (a lock's waiter) is not blocked only: %+v", th.Name, th.StatesS)
		} else if parkState(th.Name) == model.Parked && th.StatesS.Parked <= 0 {
			t.Errorf("report: %s has no parked time: %+v", th.Name, th.StatesS)
		} else if parkState(th.Name) == model.Idle && (th.StatesS.Idle <= 0 || th.StatesS.Parked != 0) {
			t.Errorf("report: %s (a queue's taker) is not idle only: %+v", th.Name, th.StatesS)
		}
	}
	// The locks are contentions (locks[], kind juc) with their holders blamed; the other
	// blockers are waits (waits[], kind park) with who unparked them.
	found := map[string]bool{}
	for _, w := range rep.Waits {
		if w.Kind != "park" || w.Class == nil {
			continue
		}
		found[*w.Class] = true
		if *w.Class == clsLockSync || *w.Class == clsRWSync {
			obj := "(a group)"
			if w.Object != nil {
				obj = *w.Object
			}
			t.Errorf("report: a lock's sync %s among the waits: %+v", obj, w)
		}
	}
	for _, c := range []string{clsCondition, clsLatchSync, clsFuture, clsMarker} {
		if !found[c] {
			t.Errorf("report: no waits entry for a blocker of class %s", c)
		}
	}
	// The two markers' parks ended without an unpark: nanos-parker's by its
	// timeout, intr-parker's by main's interrupt, which the report counts.
	for _, mk := range []struct {
		key         string
		interrupted int
	}{{"marker", 0}, {"marker2", 1}} {
		obj := format.ObjectID(e.hash(t, mk.key)).String()
		var w *report.Wait
		for i := range rep.Waits {
			if o := rep.Waits[i].Object; o != nil && *o == obj {
				w = &rep.Waits[i]
			}
		}
		if w == nil {
			t.Errorf("report: no waits entry for %s %s", mk.key, obj)
		} else if w.Waits != 1 || w.TimedOut != 1 || w.Interrupted != mk.interrupted || w.Spurious != 0 {
			t.Errorf("report: %s %s: %d parks, %d ended without an unpark, %d interrupted, %d spurious; want 1, 1, %d, 0",
				mk.key, obj, w.Waits, w.TimedOut, w.Interrupted, w.Spurious, mk.interrupted)
		}
	}
	var lockSeen, rwSeen bool
	for _, l := range rep.Locks {
		switch {
		case l.Kind == "juc" && l.Object == sync.String():
			lockSeen = true
			blamed := map[string]int{}
			for _, o := range l.Owners {
				blamed[o.Thread] = o.Contentions
			}
			if l.Class == nil || *l.Class != clsLockSync || l.Contentions != rounds || l.OwnerUnknown != 0 || len(l.Owners) != rounds {
				t.Errorf("report: the ReentrantLock: %+v, want %d contentions, each with its holder", l, rounds)
			}
			for _, h := range holders {
				if blamed[format.ThreadID(h).String()] != 1 {
					t.Errorf("report: holder %08X blamed for %d contentions of the ReentrantLock, want 1", h, blamed[format.ThreadID(h).String()])
				}
			}
		case l.Kind == "juc" && l.Class != nil && *l.Class == clsRWSync:
			rwSeen = true
			if l.Contentions != 1 || len(l.Owners) != 1 || l.Owners[0].Thread != format.ThreadID(e.hash(t, "rw_writer")).String() {
				t.Errorf("report: the read-write lock: %+v, want 1 contention blamed on the writer", l)
			}
		}
	}
	if !lockSeen || !rwSeen {
		t.Errorf("report: the ReentrantLock (%v) or the read-write lock (%v) is not among the contended locks", lockSeen, rwSeen)
	}
	for _, h := range rep.Hangs {
		if h.Name != nil && unparker[*h.Name] != "" {
			t.Errorf("report: %s hangs", *h.Name)
		}
	}
	checkIdle(t, m, rep)
	checkDeadlock(t, e, rep)
}

// checkDeadlock: dl-a (blocked on the monitor dl-b holds) and dl-b (parked in the acquire of the
// ReentrantLock dl-a holds: blocked on a lock, Locks true) are a deadlock at the end.
func checkDeadlock(t *testing.T, e expect, rep *report.Report) {
	t.Helper()
	a, b := format.ThreadID(e.hash(t, "dl_a")).String(), format.ThreadID(e.hash(t, "dl_b")).String()
	mon := format.ObjectID(e.hash(t, "dl_monitor")).String()
	for _, d := range rep.Deadlocks {
		if !d.AtEnd || len(d.Threads) != 2 {
			continue
		}
		for i := range d.Threads {
			j := 1 - i
			if d.Threads[i] == a && d.Threads[j] == b {
				if d.States[i] != "blocked" || d.Objects[i] == nil || *d.Objects[i] != mon || d.States[j] != "blocked" ||
					len(d.Locks) != 2 || d.Locks[i] || !d.Locks[j] {
					t.Errorf("report: the deadlock of dl-a and dl-b: %+v, want dl-a blocked on monitor %s, dl-b blocked on a lock", d, mon)
				}
				return
			}
		}
	}
	t.Errorf("report: no deadlock of dl-a and dl-b at the end: %+v", rep.Deadlocks)
}

// TestParkingJFR records Parking with JFR (jdk.ThreadPark at 0 ms, as TestOrcaVsJFR) and
// imports it: the same parks per thread and blocker class as Orca records, in .orca
// ThreadPark/ThreadUnparked lines with ObjectClass; JFR knows no owner and no unparker, so
// those are 00000000 and the parks end "timeout" (the timed one) or unknown. The model counts
// the parked time as parked.
func TestParkingJFR(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		bin, cls := orcaBin(t), classes(t)
		dir := newDir(t)
		jfc := dir + "/compare.jfc"
		if err := os.WriteFile(jfc, []byte(jfcCompare), 0o644); err != nil {
			t.Fatal(err)
		}
		jfrFile := dir + "/run.jfr"
		res := runJVM(t, dir, j.argv(dir, "-XX:StartFlightRecording=filename="+jfrFile+",settings="+jfc,
			"-Xlog:jfr+startup=warning", "-cp", cls, "Parking"))
		checkNoCrashLog(t, res)
		if res.code != 0 {
			t.Fatalf("java with JFR failed:\n%s", res)
		}
		e := parseExpect(t, res)
		prefix := dir + "/imp"
		if ir := run(t, dir, bin, "import", jfrFile, "-o", prefix); ir.code != 0 {
			t.Fatalf("orca import failed:\n%s", ir)
		}
		r := load(t, prefix)
		r.logOnFailure(t)
		r.checkParse(t)
		r.checkInvariants(t)
		names := map[format.ThreadID]string{}
		classOf := map[format.ObjectID]string{}
		count := map[string]int{} // "thread class" -> parks
		for _, ev := range r.events {
			switch ev.Kind {
			case format.ThreadStarted:
				names[ev.Thread] = ev.Name
			case format.ObjectClass:
				classOf[ev.Object] = ev.Class
			case format.ThreadPark:
				count[names[ev.Thread]+" "+classOf[ev.Object]]++
				if ev.Owner != 0 {
					t.Errorf("line %d: an imported park names owner %v (JFR has none)", ev.Line, ev.Owner)
				}
			case format.ThreadUnparked:
				if want := format.ParkEndUnknown; names[ev.Thread] == "nanos-parker" {
					if ev.How != format.ParkEndTimeout {
						t.Errorf("nanos-parker's park ended %q, want timeout", ev.How)
					}
				} else if ev.How != want && ev.How != format.ParkEndTimeout {
					t.Errorf("line %d: imported park ended %q", ev.Line, ev.How)
				}
			}
		}
		for i := 0; i < e.int(t, "rounds"); i++ {
			if n := count["rl-waiter-"+strconv.Itoa(i)+" "+clsLockSync]; n != 1 {
				t.Errorf("rl-waiter-%d: %d parks on the lock, want 1", i, n)
			}
		}
		for who, n := range map[string]int{"rw-reader " + clsRWSync: 1, "cond-waiter " + clsCondition: e.int(t, "awaits"),
			"latch-waiter " + clsLatchSync: 1, "future-getter " + clsFuture: 1, "queue-taker " + clsCondition: 1, "nanos-parker " + clsMarker: 1, "intr-parker " + clsMarker: 1} {
			if count[who] != n {
				t.Errorf("%s: %d parks, want %d", who, count[who], n)
			}
		}
		_, built := buildModel(t, prefix)
		for _, th := range built.Model.Threads {
			switch th.Name {
			case "rw-reader", "latch-waiter", "future-getter", "queue-taker", "nanos-parker":
				st := parkState(th.Name)
				if th.Time[st] < format.Time(e.int(t, "hold_ms"))*1e6 {
					t.Errorf("%s: %s %v in the model of the import", th.Name, st, th.Time[st])
				}
			}
		}
	})
}

// checkIdle: the pool's workers and the ForkJoinPool's end the recording idle (state Idle, parked
// in ThreadPoolExecutor.getTask / ForkJoinPool.awaitWork), never parked, and are no hangs.
func checkIdle(t *testing.T, m *model.Model, rep *report.Report) {
	t.Helper()
	idle := 0
	for _, th := range m.Threads {
		if !strings.HasPrefix(th.Name, "pool-worker-") && !strings.HasPrefix(th.Name, "ForkJoinPool-1-worker-") {
			continue
		}
		idle++
		if th.Time[model.Idle] <= 0 || th.Time[model.Parked] != 0 {
			t.Errorf("%s: idle %v, parked %v; want idle only", th.Name, th.Time[model.Idle], th.Time[model.Parked])
		}
		if n := len(th.Intervals); n == 0 || th.Intervals[n-1].State != model.Idle || !th.Intervals[n-1].Open {
			t.Errorf("%s: does not end idle", th.Name)
		}
	}
	if idle < 3 {
		t.Errorf("%d pool workers in the model, want at least 3 (2 in the pool, 1 in the ForkJoinPool)", idle)
	}
	for _, h := range rep.Hangs {
		if h.Name != nil && strings.Contains(*h.Name, "pool") {
			t.Errorf("report: the idle worker %s is a hang", *h.Name)
		}
	}
}

// lockWaiter tells the Parking threads that wait for a java.util.concurrent lock: the model
// shows their parks as blocked (model.Interval.Shown), the others' as parked.
func lockWaiter(name string) bool {
	return strings.HasPrefix(name, "rl-waiter-") || name == "rw-reader"
}

// parkState is the state the model gives the parks of a Parking thread: blocked for a lock's
// waiter, idle for the queue's taker (a consumer waiting for work: model.TakeStack, issue 31
// item 4), parked for the others.
func parkState(name string) model.State {
	switch {
	case lockWaiter(name):
		return model.Blocked
	case name == "queue-taker":
		return model.Idle
	}
	return model.Parked
}
