package integration

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
)

// virtualThreads returns the threads of the recording that are virtual (a VirtualThreadMounted
// line names them).
func (r *recording) virtualThreads() map[format.ThreadID]bool {
	v := map[format.ThreadID]bool{}
	for _, ev := range r.events {
		if ev.Kind == format.VirtualThreadMounted {
			v[ev.Thread] = true
		}
	}
	return v
}

// checkVirtualBalance requires, of every thread, as many Entered as Enters, and no events
// counted as unattributed.
func checkVirtualBalance(t *testing.T, r *recording) {
	t.Helper()
	balance := map[format.ThreadID]int{}
	for _, ev := range r.events {
		switch ev.Kind {
		case format.MonitorContendedEnter:
			balance[ev.Thread]++
		case format.MonitorContendedEntered:
			balance[ev.Thread]--
		}
	}
	for th, d := range balance {
		if d != 0 {
			t.Errorf("thread %v: %d more Enters than Entered", th, d)
		}
	}
	if v := r.info["unattributed_total"]; v != "" && v != "0" {
		t.Errorf(".info: unattributed_total=%s, want 0 (every virtual thread's event has its identity)", v)
	}
}

// TestVirtualContention records testdata/java/scenarios/VirtualContention.java: once the agent
// trusts HotSpot's timer of contended enters, virtual threads contend with main. Their enters are
// recorded with the virtual thread's own identity and main as owner; they are not timed by the
// carrier's timer (their Entered comes from the callback) and do not stop the timer's use for
// platform threads (before, the first one switched the Entered callback back on for good).
func TestVirtualContention(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "VirtualContention")
		if e.str(t, "virtual") == "no" {
			skipf(t, "%s has no virtual threads", j.name)
		}
		r := load(t, prefix)
		r.checkParse(t)
		r.checkInfo(t, true, true)
		r.checkInvariants(t)
		checkEnteredTimer(t, r, "hotspot")
		checkVirtualBalance(t, r)
		c := counter{t, r}
		virtual := r.virtualThreads()
		lock, n := e.hash(t, "lock"), e.int(t, "contentions")
		onLock := func(_ int, ev reader.Event) bool { return ev.Object == format.ObjectID(lock) }
		enters := r.sel(format.MonitorContendedEnter, onLock)
		c.want("MonitorContendedEnter on lock", enters, n)
		c.want("MonitorContendedEntered on lock", r.sel(format.MonitorContendedEntered, onLock), n)
		for _, i := range enters {
			if ev := r.events[i]; !virtual[ev.Thread] || ev.Owner == 0 {
				t.Errorf("an Enter on lock: want a virtual thread's, owner main:\n%s", r.describe(i))
			}
		}
	})
}

// TestVirtualMix is issue 12's item 5, and issue 14's item 5: VirtualMix.java runs 10 000 virtual
// threads that sleep, 100 that wait (notified by another virtual thread), 50 that contend among
// themselves and one on a platform thread's lock, next to platform threads that sleep, wait and
// contend with exact counts, one of them blocked on a virtual thread's lock. The platform threads'
// events are exact and paired; the virtual threads' events are recorded with their own identity
// (none unattributed), exact in number, every thread has as many Entered as Enters, and the model
// places every event.
func TestVirtualMix(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) { checkVirtualMix(t, j) })
}

// checkVirtualMix records VirtualMix on j, checks it (TestVirtualMix) and returns the recording.
func checkVirtualMix(t *testing.T, j jdk) *recording {
	t.Helper()
	e, r := recordVirtual(t, j, "VirtualMix")
	c := counter{t, r}
	virtual := r.virtualThreads()
	obj := func(key string) func(int, reader.Event) bool {
		o := format.ObjectID(e.hash(t, key))
		return func(_ int, ev reader.Event) bool { return ev.Object == o }
	}
	thread := func(key string) func(int, reader.Event) bool {
		th := format.ThreadID(e.hash(t, key))
		return func(_ int, ev reader.Event) bool { return ev.Thread == th }
	}
	isVirtual := func(_ int, ev reader.Event) bool { return virtual[ev.Thread] }
	rounds := e.int(t, "rounds")
	// Platform threads: exact.
	c.want("ThreadSleep of orca-psleeper", r.sel(format.ThreadSleep, thread("psleeper")), rounds)
	c.want("ThreadSlept of orca-psleeper", r.sel(format.ThreadSlept, thread("psleeper")), rounds)
	c.want("ObjectWait on pmon", r.sel(format.ObjectWait, obj("pmon")), rounds)
	c.want("ObjectWaited on pmon", r.sel(format.ObjectWaited, obj("pmon")), rounds)
	c.want("ObjectNotify on pmon", r.sel(format.ObjectNotify, obj("pmon")), rounds)
	c.want("MonitorContendedEnter on plock", r.sel(format.MonitorContendedEnter, obj("plock")), rounds)
	c.want("MonitorContendedEntered on plock", r.sel(format.MonitorContendedEntered, obj("plock")), rounds)
	// The platform thread blocked on a virtual thread's lock: its owner on the line is that
	// virtual thread, or unknown (00000000) where the lock is fast-locked by it while unmounted
	// (JDK 24+: HotSpot names no owner then; a MonitorOwned line of the holder names it, below);
	// never the carrier, nor another platform thread.
	vl := r.sel(format.MonitorContendedEnter, obj("vlock"))
	c.want("MonitorContendedEnter on vlock", vl, 1)
	c.want("MonitorContendedEntered on vlock", r.sel(format.MonitorContendedEntered, obj("vlock")), 1)
	for _, i := range vl {
		if ev := r.events[i]; ev.Thread != format.ThreadID(e.hash(t, "pblocked")) || ev.Owner != 0 && ev.Owner != format.ThreadID(e.hash(t, "vowner")) {
			t.Errorf("the Enter on vlock: want thread orca-pblocked, owner the virtual vowner (%08X) or 00000000:\n%s", e.hash(t, "vowner"), r.describe(i))
		}
	}
	// Virtual threads: recorded with their own identity, exact.
	sleepers, waiters, contenders := e.int(t, "sleepers"), e.int(t, "waiters"), e.int(t, "contenders")
	c.want("ThreadSleep of virtual threads", r.sel(format.ThreadSleep, isVirtual), sleepers)
	c.want("ThreadSlept of virtual threads", r.sel(format.ThreadSlept, isVirtual), sleepers)
	c.want("ObjectWait of virtual threads", r.sel(format.ObjectWait, isVirtual), waiters)
	c.want("ObjectWaited of virtual threads", r.sel(format.ObjectWaited, isVirtual), waiters)
	c.want("ObjectNotify of virtual threads", r.sel(format.ObjectNotify, isVirtual), waiters)
	vv := r.sel(format.MonitorContendedEnter, obj("vvlock"))
	c.want("MonitorContendedEnter on vvlock (virtual threads)", vv, contenders)
	ml := r.sel(format.MonitorContendedEnter, obj("mlock"))
	c.want("MonitorContendedEnter on mlock (a virtual thread)", ml, 1)
	for _, i := range append(vv, ml...) {
		if ev := r.events[i]; !virtual[ev.Thread] || ev.Owner != 0 && ev.Owner != format.ThreadID(e.hash(t, "main")) && !virtual[ev.Owner] {
			t.Errorf("an Enter of a virtual thread: want a virtual thread's, its owner main, a virtual thread or 00000000:\n%s", r.describe(i))
		}
	}
	if got, want := len(virtual), e.int(t, "vthreads"); got < want {
		t.Errorf("%d virtual threads in the recording, want at least the %d the program started", got, want)
	}
	if got, _ := strconv.Atoi(r.info["virtual_threads"]); got < len(virtual) {
		t.Errorf(".info: virtual_threads=%d, want at least the %d in the recording", got, len(virtual))
	}
	m := placedModel(t, r)
	// Every contention has its owner in the model, none unknown: the lines' owners, or the
	// holder's MonitorOwned line (issue 14 item 5). vlock's is vowner; vvlock's the virtual
	// holder (it lets go once all 50 are blocked); mlock's main.
	// Where objects move concurrently (ZGC, Shenandoah) the agent reads no headers: not here.
	want := map[format.ObjectID]func(format.ThreadID) bool{
		format.ObjectID(e.hash(t, "vlock")):  func(o format.ThreadID) bool { return o == format.ThreadID(e.hash(t, "vowner")) },
		format.ObjectID(e.hash(t, "vvlock")): func(o format.ThreadID) bool { return o == format.ThreadID(e.hash(t, "vholder")) },
		format.ObjectID(e.hash(t, "mlock")):  func(o format.ThreadID) bool { return o == format.ThreadID(e.hash(t, "main")) },
	}
	// But for those the agent found released as it read the owner (.info
	// owner_unknown.released: the holder let go between the contender's
	// block and the read; vvlock's holder lets go as the last of the 50
	// blocks): their owner is unknown (00000000), as many as it counted.
	released, _ := strconv.Atoi(r.info["owner_unknown.released"])
	var unknown []string
	for _, th := range m.Threads {
		for _, iv := range th.Intervals {
			ok, mine := want[iv.Object]
			if !mine || iv.State != model.Blocked || iv.Cont {
				continue
			}
			if iv.First == 0 {
				unknown = append(unknown, fmt.Sprintf("%v blocked on %v at %.6f", th.ID, iv.Object, iv.Start.Seconds()))
			} else if !ok(iv.First) {
				t.Errorf("model: %v blocked on %v at %.6f with owner %v, want the holder", th.ID, iv.Object, iv.Start.Seconds(), iv.First)
			}
		}
	}
	if len(unknown) > released {
		t.Errorf("model: %d contentions with the owner unknown, want the holder (the agent found %d released):\n%s",
			len(unknown), released, strings.Join(unknown, "\n"))
	}

	nv := 0
	for _, th := range m.Threads {
		if th.Virtual {
			nv++
		}
	}
	if nv != len(virtual) {
		t.Errorf("model: %d virtual threads, the recording has %d", nv, len(virtual))
	}
	return r
}

// TestVirtualWaitReenter records VirtualWaitReenter.java: virtual threads that wait with a
// timeout on a monitor others notify and hold take it back contended. On 24+ HotSpot posts a
// MonitorContendedEntered for each such re-entry without its Enter; written, it could not be
// placed (seen on Tomcat with virtual threads: 1000+ such lines). Every Enter has its Entered,
// every thread as many of each, the waits are exact and the model places every event.
func TestVirtualWaitReenter(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, r := recordVirtual(t, j, "VirtualWaitReenter")
		c := counter{t, r}
		mon := func(_ int, ev reader.Event) bool { return ev.Object == format.ObjectID(e.hash(t, "mon")) }
		c.want("ObjectWait on mon", r.sel(format.ObjectWait, mon), e.int(t, "waits"))
		c.want("ObjectWaited on mon", r.sel(format.ObjectWaited, mon), e.int(t, "waits"))
		placedModel(t, r)
	})
}

// TestVirtualDeadlock records VirtualDeadlock.java (issue 14 item 5, "deadlocks"): two virtual
// threads deadlocked through monitors each took fast, and two through a monitor and a
// ReentrantLock. Each Enter names the other thread as owner — on 24+ the holder is unmounted,
// its lock stack in its stack chunk, and HotSpot names no owner: the agent noted its fast locks
// as it blocked (vheld.c) — and the model finds both cycles, open at the end.
func TestVirtualDeadlock(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, r := loadVirtual(t, j, "VirtualDeadlock")
		h := func(key string) format.ThreadID { return format.ThreadID(e.hash(t, key)) }
		owners := map[format.ObjectID][2]format.ThreadID{ // object: its contender, its owner
			format.ObjectID(e.hash(t, "a")): {h("vy"), h("vx")},
			format.ObjectID(e.hash(t, "b")): {h("vx"), h("vy")},
			format.ObjectID(e.hash(t, "c")): {h("vw"), h("vz")},
		}
		seen := map[format.ObjectID]int{}
		for i, ev := range r.events {
			want, ok := owners[ev.Object]
			if ev.Kind != format.MonitorContendedEnter || !ok {
				continue
			}
			seen[ev.Object]++
			if ev.Thread != want[0] || ev.Owner != want[1] {
				t.Errorf("want %v blocked on %v owned by %v:\n%s", want[0], ev.Object, want[1], r.describe(i))
			}
		}
		for obj := range owners {
			if seen[obj] != 1 {
				t.Errorf("%d MonitorContendedEnter on %v, want 1", seen[obj], obj)
			}
		}
		cycles := map[string]bool{}
		for _, d := range placedModel(t, r).Deadlocks {
			ths := slices.Sorted(slices.Values(d.Threads))
			cycles[fmt.Sprint(ths)] = d.AtEnd
		}
		for _, pair := range [][]format.ThreadID{{h("vx"), h("vy")}, {h("vz"), h("vw")}} {
			slices.Sort(pair)
			if atEnd, ok := cycles[fmt.Sprint(pair)]; !ok || !atEnd {
				t.Errorf("model: no deadlock of %v open at the end; deadlocks: %v", pair, cycles)
			}
		}
		if len(cycles) != 2 {
			t.Errorf("model: %d deadlocks, want 2: %v", len(cycles), cycles)
		}
	})
}

// TestVirtualLocks records VirtualLocks.java (issue 14 item 5): contention between virtual
// threads on a monitor and on a ReentrantLock, with exact counts and owners that are the virtual
// holders (none unknown); virtual threads' sleeps and parks with the unparker named; sleeps
// pinned to their carrier (in a class initializer) marked pinned; a platform thread blocked on a
// virtual thread's monitor names it.
func TestVirtualLocks(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, r := recordVirtual(t, j, "VirtualLocks")
		c := counter{t, r}
		virtual := r.virtualThreads()
		h := func(key string) uint32 { return e.hash(t, key) }
		isVirtual := func(_ int, ev reader.Event) bool { return virtual[ev.Thread] }
		n, sleepers, rounds, pinned := e.int(t, "contenders"), e.int(t, "sleepers"), e.int(t, "rounds"), e.int(t, "pinned")
		// The monitor: every contender virtual, every owner the virtual holder.
		mon := func(_ int, ev reader.Event) bool { return ev.Object == format.ObjectID(h("mon")) }
		enters := r.sel(format.MonitorContendedEnter, mon)
		c.want("MonitorContendedEnter on mon", enters, n)
		c.want("MonitorContendedEntered on mon", r.sel(format.MonitorContendedEntered, mon), n)
		for _, i := range enters {
			if ev := r.events[i]; !virtual[ev.Thread] || ev.Owner != format.ThreadID(h("mholder")) {
				t.Errorf("an Enter on mon: want a virtual thread's, owner orca-vmholder (%08X):\n%s", h("mholder"), r.describe(i))
			}
		}
		pl := r.sel(format.MonitorContendedEnter, func(_ int, ev reader.Event) bool { return ev.Object == format.ObjectID(h("plmon")) })
		c.want("MonitorContendedEnter on plmon", pl, 1)
		for _, i := range pl {
			if ev := r.events[i]; ev.Thread != format.ThreadID(h("pblocked")) || ev.Owner != format.ThreadID(h("vowner")) {
				t.Errorf("the Enter on plmon: want orca-pblocked's, owner orca-vowner (%08X):\n%s", h("vowner"), r.describe(i))
			}
		}
		// Sleeps (the pinned ones sleep too) and the unparks of the parker, exact.
		c.want("ThreadSleep of virtual threads", r.sel(format.ThreadSleep, isVirtual), sleepers+pinned)
		c.want("ThreadSlept of virtual threads", r.sel(format.ThreadSlept, isVirtual), sleepers+pinned)
		c.want("ThreadUnpark of orca-vparker by orca-vunparker", r.sel(format.ThreadUnpark, func(_ int, ev reader.Event) bool {
			return ev.Thread == format.ThreadID(h("unparker")) && ev.Target == format.ThreadID(h("parker"))
		}), rounds)
		if got := len(r.sel(format.ThreadPark, func(_ int, ev reader.Event) bool {
			return ev.Thread == format.ThreadID(h("parker")) && ev.Object == format.ObjectID(h("blocker"))
		})); got < rounds {
			t.Errorf("ThreadPark of orca-vparker on blocker: %d, want at least %d", got, rounds)
		}
		// A virtual thread's parkNanos: its timeout in the ThreadPark, ended by it (before, the
		// hook saw no argument: no timeout, how unknown).
		timed := r.sel(format.ThreadPark, func(_ int, ev reader.Event) bool {
			return ev.Thread == format.ThreadID(h("timed")) && ev.Object == format.ObjectID(h("timed_blocker"))
		})
		c.want("ThreadPark of orca-vtimed on its blocker", timed, 1)
		for _, i := range timed {
			if got, want := r.events[i].Timeout, int64(e.int(t, "timed_ns")); got != want {
				t.Errorf("orca-vtimed's park: timeout %d, want %d:\n%s", got, want, r.describe(i))
			}
			for _, ev := range r.events[i+1:] {
				if ev.Kind == format.ThreadUnparked && ev.Thread == r.events[i].Thread {
					if ev.How != format.ParkEndTimeout {
						t.Errorf("orca-vtimed's park ended %q, want %q (line %d)", ev.How, format.ParkEndTimeout, ev.Line)
					}
					break
				}
			}
		}
		// Every virtual thread the program started has its ThreadStart (Thread.start of a virtual
		// thread does not reach start0: VirtualThread.start is wrapped).
		started := map[format.ThreadID]bool{}
		for _, i := range r.sel(format.ThreadStart, nil) {
			started[r.events[i].Target] = true
		}
		for _, key := range []string{"mholder", "rholder", "parker", "unparker", "vowner"} {
			if !started[format.ThreadID(h(key))] {
				t.Errorf("no ThreadStart of %s (%08X)", key, h(key))
			}
		}
		if got := len(r.sel(format.VirtualThreadPinned, nil)); got < pinned {
			t.Errorf("VirtualThreadPinned: %d, want at least %d", got, pinned)
		}
		m := placedModel(t, r)
		// The ReentrantLock: a lock of kind juc, n contentions by virtual threads, none with owner
		// unknown; each contender's first park on it names the virtual holder (later re-parks,
		// after losing the lock to another contender, name that one).
		found := false
		for _, l := range m.Locks {
			if l.Kind != model.JUCLock {
				continue
			}
			found = true
			if l.Contentions != n || l.OwnerUnknown != 0 {
				t.Errorf("juc lock %v: %d contentions, %d with owner unknown; want %d, 0", l.Object, l.Contentions, l.OwnerUnknown, n)
			}
			first := map[format.ThreadID]bool{}
			for _, i := range r.sel(format.ThreadPark, func(_ int, ev reader.Event) bool { return ev.Object == l.Object }) {
				ev := r.events[i]
				if first[ev.Thread] {
					continue
				}
				first[ev.Thread] = true
				if !virtual[ev.Thread] || ev.Owner != format.ThreadID(h("rholder")) {
					t.Errorf("a first park on the ReentrantLock: want a virtual thread's, owner orca-vrholder (%08X):\n%s", h("rholder"), r.describe(i))
				}
			}
			if len(first) != n {
				t.Errorf("%d threads parked on the ReentrantLock, want %d", len(first), n)
			}
		}
		if !found {
			t.Errorf("no juc lock in the model")
		}
		// Pinned sleeps: each orca-vpinned-* sleeps once, pinned.
		np := 0
		for _, th := range m.Threads {
			if !strings.HasPrefix(th.Name, "orca-vpinned-") {
				continue
			}
			if !th.Virtual {
				t.Errorf("thread %q: not virtual", th.Name)
			}
			for _, iv := range th.Intervals {
				if iv.State == model.Sleeping && iv.Pinned {
					np++
				}
			}
		}
		if np != pinned {
			t.Errorf("model: %d pinned sleeps of orca-vpinned-*, want %d", np, pinned)
		}
		// The report says so (docs/perf/2026-12-02-unseen-programs.md: its text and JSON had the
		// pinned parks nowhere but threads[].pinned): each orca-vpinned-* in its pinned list, and
		// the headline's line.
		rec, built := buildModel(t, r.prefix)
		rep := report.New(rec, built, report.Options{})
		listed := 0
		for _, p := range rep.Pinned {
			if strings.HasPrefix(p.Name, "orca-vpinned-") && p.Pinned >= 1 {
				listed++
			}
		}
		var txt bytes.Buffer
		if err := rep.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if listed != pinned || !regexp.MustCompile(`\d+ parks and sleeps of virtual threads pinned their carrier threads \(VirtualThreadPinned: .*"orca-vpinned-`).MatchString(txt.String()) {
			t.Errorf("report: pinned %+v (%d of orca-vpinned-*, want %d); the headline:\n%s", rep.Pinned, listed, pinned, txt.String()[:min(txt.Len(), 1500)])
		}
	})
}

// recordVirtual records a program of virtual threads (skipping a JDK without them) and runs the
// checks every such recording must pass: it parses, its .info is complete without drops, the
// model's invariants hold, and each thread's Enters and Entered balance.
func recordVirtual(t *testing.T, j jdk, main string) (expect, *recording) {
	t.Helper()
	e, r := loadVirtual(t, j, main)
	r.checkInvariants(t)
	checkVirtualBalance(t, r)
	return e, r
}

// loadVirtual records main on j (skipped where it has no virtual threads) and checks what every
// recording must be: parsed, complete, nothing dropped.
func loadVirtual(t *testing.T, j jdk, main string) (expect, *recording) {
	t.Helper()
	return loadVirtualJVM(t, j, nil, main)
}

// loadVirtualJVM is loadVirtual with JVM options.
func loadVirtualJVM(t *testing.T, j jdk, jvmArgs []string, main string) (expect, *recording) {
	t.Helper()
	e, prefix := recordExpectJVM(t, j, jvmArgs, main)
	if e.str(t, "virtual") == "no" {
		skipf(t, "%s has no virtual threads", j.name)
	}
	return e, loadComplete(t, prefix)
}

// loadComplete loads the recording at prefix and checks what every recording of a program that
// ended normally must be: parsed, complete, nothing dropped; a failed test logs its events.
func loadComplete(t *testing.T, prefix string) *recording {
	t.Helper()
	r := load(t, prefix)
	r.logOnFailure(t)
	r.checkParse(t)
	r.checkInfo(t, true, true)
	return r
}

// placedModel builds r's model and requires every event placed (none "could not be placed" in
// the report).
func placedModel(t *testing.T, r *recording) *model.Model {
	t.Helper()
	_, built := buildModel(t, r.prefix)
	for _, p := range built.Model.Problems {
		t.Errorf("problem: %s", p)
	}
	return built.Model
}
