package integration

import (
	"testing"
	"time"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// userPath runs the JVMs of the calling test as users run them: without ORCA_VERIFY_STACKS
// (TestMain sets it for every other run) and without ORCA_VERIFY_ENTERED, which keeps the
// Entered callback on and so hides what happens once HotSpot's timer is trusted.
func userPath(t *testing.T) {
	t.Helper()
	withEnv(t, "ORCA_VERIFY_STACKS=0", "ORCA_VERIFY_ENTERED=0")
}

// TestEarlyBlocked is issue 12's item 1, a false deadlock: EarlyBlocked.java blocks four threads
// on lock a at start-up, before the agent trusts HotSpot's timer of contended enters, then lets
// the agent trust it (100 handshaked contentions on lock b) and only then releases a. Their
// Entered must come from the MonitorContendedEntered callback, so the agent may not switch it off
// while they are blocked. Before the fix (agent 3e605c4) the recording had 4 Enters and 0 Entered
// on a, and the model a deadlock. Runs on the path users get (userPath).
func TestEarlyBlocked(t *testing.T) {
	userPath(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "EarlyBlocked")
		r := load(t, prefix)
		r.logOnFailure(t)
		r.checkParse(t)
		r.checkInfo(t, true, true)
		r.checkInvariants(t)
		checkEnteredTimer(t, r, "hotspot")
		if v := r.info["entered_lost"]; v != "0" {
			t.Errorf(".info: entered_lost=%q, want 0", v)
		}
		a, b := format.ObjectID(e.hash(t, "a")), format.ObjectID(e.hash(t, "b"))
		c := counter{t, r}
		on := func(o format.ObjectID) func(int, reader.Event) bool {
			return func(_ int, ev reader.Event) bool { return ev.Object == o }
		}
		warm := e.int(t, "warm")
		c.want("MonitorContendedEnter on b", r.sel(format.MonitorContendedEnter, on(b)), warm)
		c.want("MonitorContendedEntered on b", r.sel(format.MonitorContendedEntered, on(b)), warm)
		early, enterNs, held := e.hashes(t, "early"), e.nanos(t, "early.enter.ns"), e.nanos(t, "held.ns")[0]
		c.want("MonitorContendedEnter on a", r.sel(format.MonitorContendedEnter, on(a)), len(early))
		c.want("MonitorContendedEntered on a", r.sel(format.MonitorContendedEntered, on(a)), len(early))
		// Each early thread was blocked at least while main held a after seeing all four
		// blocked, at most as long as its synchronized statement took (+50 µs: docs/agent.md).
		for k, h := range early {
			th := format.ThreadID(h)
			mine := func(_ int, ev reader.Event) bool { return ev.Object == a && ev.Thread == th }
			en, ed := r.sel(format.MonitorContendedEnter, mine), r.sel(format.MonitorContendedEntered, mine)
			if len(en) != 1 || len(ed) != 1 {
				t.Errorf("thread %v: %d Enters and %d Entered on a, want 1 and 1", th, len(en), len(ed))
				continue
			}
			d := int64(r.events[ed[0]].Time - r.events[en[0]].Time)
			if d < held || d > enterNs[k]+50_000 {
				t.Errorf("thread %v: blocked %v on a, want between %v (main's hold) and %v (its enter)", th,
					time.Duration(d), time.Duration(held), time.Duration(enterNs[k]))
			}
		}
		_, built := buildModel(t, prefix)
		m := built.Model
		for _, p := range m.Problems {
			t.Errorf("problem: %s", p)
		}
		if d := analysis.Deadlocks(m); len(d) > 0 {
			t.Errorf("%d deadlocks in a program without any: %+v", len(d), d)
		}
		var most int64
		for _, n := range enterNs {
			most += n + 50_000
		}
		if l := m.Lock(a, model.Monitor); l == nil {
			t.Errorf("no lock %v in the model", a)
		} else if int64(l.Blocked) < int64(len(early))*held || int64(l.Blocked) > most {
			t.Errorf("lock a: %v blocked, want between %v and %v", time.Duration(l.Blocked),
				time.Duration(int64(len(early))*held), time.Duration(most))
		}
	})
}
