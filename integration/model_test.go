package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/model/modeltest"
)

// TestScenarioModel builds the model of a Scenario recording and checks what
// the program's EXPECT line implies about it: who blocked whom and for how
// long, who woke whom, which joins and releases let whom go on, how long
// main slept, and that the model is valid with no deadlock and no problem.
// TestScenarioModel builds the model of Scenario twice: as it runs, its
// measured contentions are timed by HotSpot's timer (JDK 11-18); with
// monitoring-off it turns ThreadMXBean contention monitoring off before
// them, and the agent must fall back to its Entered callback in time.
func TestScenarioModel(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	for _, variant := range []struct{ arg, timer string }{{"", "hotspot"}, {"monitoring-off", "stopped"}} {
		t.Run("timer="+variant.timer, func(t *testing.T) {
			forEachJDK(t, func(t *testing.T, j jdk) {
				var args []string
				if variant.arg != "" {
					args = append(args, variant.arg)
				}
				e, prefix := recordExpect(t, j, "Scenario", args...)
				_, built := buildModel(t, prefix)
				if built.Malformed > 0 || built.Truncated {
					t.Errorf("%d malformed lines (%v), truncated %v", built.Malformed, built.ParseErrors, built.Truncated)
				}
				checkScenarioModel(t, built.Model, e)
				checkEnteredTimer(t, load(t, prefix), variant.timer)
			})
		})
	}
}

func checkScenarioModel(t *testing.T, m *model.Model, e expect) {
	for _, err := range modeltest.Validate(m) {
		t.Errorf("invalid model: %v", err)
	}
	// Every event of a complete recording pairs up, per thread in order (the
	// reader-level test checks the lines): the fold has nothing to complain of.
	for _, p := range m.Problems {
		t.Errorf("problem: %s", p)
	}
	if d := analysis.Deadlocks(m); len(d) > 0 {
		t.Errorf("deadlocks in a program without any: %+v", d)
	}

	mainT := format.ThreadID(e.hash(t, "main"))
	thread := func(id format.ThreadID, what string) *model.Thread {
		th := m.Thread(id)
		if th == nil {
			t.Fatalf("no thread %v (%s) in the model", id, what)
		}
		return th
	}
	main := thread(mainT, "main")
	names := e.names(t)
	byName := map[string]format.ThreadID{}
	for h, name := range names {
		byName[name] = format.ThreadID(h)
		if th := thread(format.ThreadID(h), name); th.Name != name {
			t.Errorf("thread %v is named %q, want %q", th.ID, th.Name, name)
		}
	}

	// Thread.start: an edge from main to every thread it started.
	starts := edges(m, model.EdgeStart)
	for _, h := range e.hashes(t, "startTargets") {
		to := format.ThreadID(h)
		if n := count(starts, mainT, to); n != 1 {
			t.Errorf("start edges %v -> %v: %d, want 1", mainT, to, n)
		}
		if th := thread(to, "started"); th.Parent != mainT {
			t.Errorf("thread %v: parent %v, want main %v", to, th.Parent, mainT)
		}
	}

	// Monitor contention on lock: every contention is the contender's,
	// blocked by the owner (the owner holds lock until the contender is
	// BLOCKED, and nobody else touches it), so all the blame is the owner's.
	lockObj := format.ObjectID(e.hash(t, "lock"))
	owner, contender := format.ThreadID(e.hash(t, "owner")), format.ThreadID(e.hash(t, "contender"))
	n := e.int(t, "contentions")
	if l := m.Lock(lockObj, model.Monitor); l == nil {
		t.Errorf("no monitor %v in the model", lockObj)
	} else {
		if l.Contentions != n || l.OwnerUnknown != 0 {
			t.Errorf("lock %v: %d contentions (%d owner unknown), want %d", lockObj, l.Contentions, l.OwnerUnknown, n)
		}
		if len(l.Owners) != 1 || l.Owners[0].Thread != owner || l.Owners[0].Contentions != n || l.Owners[0].Blamed != l.Blocked {
			t.Errorf("lock %v: owners %+v, want all %d contentions and %v blamed on %v", lockObj, l.Owners, n, l.Blocked, owner)
		}
		if len(l.Waiters) != 1 || l.Waiters[0] != contender {
			t.Errorf("lock %v: waiters %v, want the contender %v", lockObj, l.Waiters, contender)
		}
		if l.Blocked <= 0 || l.MaxBlocked > l.Blocked {
			t.Errorf("lock %v: blocked %v, max %v", lockObj, l.Blocked, l.MaxBlocked)
		}
	}
	blocked := 0
	ends := map[format.Time]format.Time{} // a contention's start -> its end
	for _, th := range m.Threads {
		for _, iv := range th.Intervals {
			if iv.State != model.Blocked || iv.Object != lockObj {
				continue
			}
			if !iv.Cont {
				blocked++
			}
			ends[iv.Since] = max(ends[iv.Since], iv.End)
			if th.ID != contender || iv.Other != owner || iv.Open {
				t.Errorf("blocked on lock: thread %v owner %v open %v (%v..%v), want thread %v owner %v", th.ID, iv.Other, iv.Open, iv.Start, iv.End, contender, owner)
			}
		}
	}
	if blocked != n {
		t.Errorf("%d blocked intervals on lock, want %d", blocked, n)
	}
	checkBlockedTimes(t, ends, e.nanos(t, "contend.held.ns"), e.nanos(t, "contend.enter.ns"))
	var onLock, elsewhere []model.Edge
	for _, ed := range edges(m, model.EdgeOwner) {
		if ed.Object == lockObj {
			onLock = append(onLock, ed)
		} else if ed.From == owner || ed.To == contender {
			elsewhere = append(elsewhere, ed)
		}
	}
	if c := count(onLock, owner, contender); c != n || len(onLock) != n {
		t.Errorf("owner edges on lock: %+v, want %d from %v to %v", onLock, n, owner, contender)
	}
	if len(elsewhere) > 0 {
		// Seen once in ~50 runs: the two threads met on another monitor,
		// most likely a class loading lock; the events are real.
		t.Logf("owner edges of the owner or the contender on other monitors: %+v", elsewhere)
	}

	// wait/notify on waitObj: main notifies the waiter once per untimed
	// round and the three all-waiters with one notifyAll; its own timed
	// waits time out. A spurious wake-up would add a wait no notify ended,
	// counted by the program in untimed or all: the formula allows for it.
	wo := format.ObjectID(e.hash(t, "waitObj"))
	untimed, timed, all := e.int(t, "waits.untimed"), e.int(t, "waits.timed"), e.int(t, "waits.all")
	notifies, waiters := e.int(t, "notifies"), e.int(t, "waiters")
	wh := m.Lock(wo, model.Monitor)
	if wh == nil || wh.Waits == 0 {
		t.Fatalf("no waits on waitObj %v", wo)
	}
	waits := untimed + timed + all
	if wh.Waits != waits || wh.Notified != notifies+waiters || wh.Ambiguous != 0 || wh.StillWaiting != 0 ||
		wh.TimedOut != timed+(untimed+all-notifies-waiters) || wh.Notifies != notifies || wh.NotifyAlls != e.int(t, "notifyAlls") {
		t.Errorf("waitObj: %d waits, %d notified, %d ambiguous, %d timed out, %d still waiting, %d notifies; want %d waits, %d notified, %d timed out, %d notifies",
			wh.Waits, wh.Notified, wh.Ambiguous, wh.TimedOut, wh.StillWaiting, wh.Notifies, waits, notifies+waiters, timed, notifies)
	}
	wakes := edges(m, model.EdgeWake)
	waiter := byName["orca-waiter\nsecond line"]
	if c := count(wakes, mainT, waiter); c != notifies {
		t.Errorf("wake edges main -> waiter %v: %d, want %d (one per notify)", waiter, c, notifies)
	}
	for i := range waiters {
		w := byName[fmt.Sprintf("orca-allwaiter-%d", i)]
		if c := count(wakes, mainT, w); c != 1 {
			t.Errorf("wake edges main -> all-waiter %v: %d, want 1 (the notifyAll)", w, c)
		}
	}
	for _, iv := range main.Intervals {
		if iv.State == model.Waiting && iv.Object == wo && iv.Wake != model.WakeTimeout {
			t.Errorf("main's wait(20) at %v ended %s, want timeout", iv.Start, iv.Wake)
		}
	}

	// Thread.join: an edge from each joined thread to main, the one that had
	// already ended included, starting when the target ended.
	joins := edges(m, model.EdgeJoin)
	for _, h := range e.hashes(t, "joinTargets") {
		target := thread(format.ThreadID(h), "joined")
		var found []model.Edge
		for _, ed := range joins {
			if ed.From == target.ID && ed.To == mainT {
				found = append(found, ed)
			}
		}
		if len(found) != 1 || !target.Ended || found[0].FromTime != target.End {
			t.Errorf("join edges %v -> main: %+v; want one from its end %v (ended %v)", target.ID, found, target.End, target.Ended)
		}
	}
	if len(joins) != e.int(t, "joins") {
		t.Errorf("%d join edges, want %d", len(joins), e.int(t, "joins"))
	}

	// Semaphore: main's own acquires never wait; the acquirer's waits until
	// main's release: one contention, blamed on main, with a release edge.
	sem := format.ObjectID(e.hash(t, "sem"))
	acquirer := format.ThreadID(e.hash(t, "semAcquirer"))
	if l := m.Lock(sem, model.Semaphore); l == nil {
		t.Errorf("no semaphore %v", sem)
	} else {
		if l.Acquires != e.int(t, "acquires") || l.Releases != e.int(t, "releases") || l.Contentions != 1 ||
			len(l.Owners) != 1 || l.Owners[0].Thread != mainT || len(l.Waiters) != 1 || l.Waiters[0] != acquirer {
			t.Errorf("semaphore: %+v; want %d acquires, %d releases, 1 contention of %v blamed on main", *l, e.int(t, "acquires"), e.int(t, "releases"), acquirer)
		}
	}
	rels := edges(m, model.EdgeRelease)
	if len(rels) != 1 || count(rels, mainT, acquirer) != 1 {
		t.Errorf("release edges %+v; want one main -> %v", rels, acquirer)
	}

	// Thread.sleep: main slept at least what it asked: 1 + 0 + 2.5 + 3 ms.
	if got, want := main.Time[model.Sleeping], format.Time(6_500_000); got < want {
		t.Errorf("main slept %v, want at least %v", got, want)
	}
	sleeps := 0
	for _, iv := range main.Intervals {
		if iv.State == model.Sleeping {
			sleeps++
		}
	}
	if sleeps < e.int(t, "sleeps") {
		t.Errorf("main has %d sleeps, want at least %d", sleeps, e.int(t, "sleeps"))
	}

	// No thread of the scenario is still inside a blocking state at the end.
	for _, h := range analysis.Hangs(m) {
		if _, ours := names[uint32(h.Thread)]; ours || h.Thread == mainT {
			t.Errorf("hang of a scenario thread: %+v", h)
		}
	}
	t.Logf("model: %d threads, %d locks, %d edges, %d cycles; lock %v blocked %v; waitObj %+v; main slept %v",
		len(m.Threads), len(m.Locks), len(m.Edges), len(m.Deadlocks), lockObj, m.Lock(lockObj, model.Monitor).Blocked, *wh, main.Time[model.Sleeping])
	if t.Failed() {
		var b strings.Builder
		for _, th := range m.Threads {
			fmt.Fprintf(&b, "\n%v %q ended=%v times=%v", th.ID, th.Name, th.Ended, th.Time)
		}
		t.Logf("threads:%s", b.String())
	}
}

func edges(m *model.Model, k model.EdgeKind) []model.Edge {
	var out []model.Edge
	for _, e := range m.Edges {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func count(es []model.Edge, from, to format.ThreadID) int {
	n := 0
	for _, e := range es {
		if e.From == from && e.To == to {
			n++
		}
	}
	return n
}

// checkBlockedTimes checks each contention's recorded blocked time (its
// Enter to its Entered) against what the program measured with
// System.nanoTime, the same clock: at least as long as the owner held the
// monitor after seeing the contender blocked, at most as long as the
// contender's synchronized statement took (plus 50 µs: the agent converts
// the Entered time from the CPU's counter, docs/agent.md).
func checkBlockedTimes(t *testing.T, ends map[format.Time]format.Time, held, enter []int64) {
	t.Helper()
	starts := make([]format.Time, 0, len(ends))
	for s := range ends {
		starts = append(starts, s)
	}
	slices.Sort(starts)
	if len(starts) != len(held) || len(held) != len(enter) {
		t.Fatalf("%d contentions recorded, the program measured %d and %d", len(starts), len(held), len(enter))
	}
	for i, s := range starts {
		d := int64(ends[s] - s)
		// HotSpot shows the contender BLOCKED before it posts MonitorContendedEnter, whose
		// callback reads the clock: the owner's measure can begin before the Enter's time by
		// that callback's latency: the contender can be preempted between the two (CI, both
		// cores busy, two JVMs at a time: 40 µs once, 233 µs once). A millisecond is a fifth
		// of the owner's 5 ms hold: an Enter or Entered time taken from the wrong moment still
		// fails. Entered times are no longer biased late by the timer's origin (hsstat.c),
		// which used to hide it.
		const enterLatency = 1_000_000
		if d < held[i]-enterLatency || d > enter[i]+50_000 {
			t.Errorf("contention %d: blocked %d ns, want between %d (held after the contender blocked) and %d (its enter)", i, d, held[i], enter[i])
		}
	}
}
