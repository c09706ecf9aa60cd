package integration

import (
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// TestOwnerLeft: a contended enter timed after the agent's reading of the contender's held
// monitors (ORCA_TEST_SLOW_HELD_MS: 300 ms) names the owner at that time, not the one read
// before it, which let the monitor go and ended meanwhile (testdata/java/scenarios/OwnerLeft.java).
// Before, the enter named "orca-left", whose ThreadEnded came ~300 ms before the enter's time;
// now the owner is unknown (released: the monitor was free at the enter's time).
func TestOwnerLeft(t *testing.T) {
	t.Setenv("ORCA_TEST_SLOW_HELD_MS", "300")
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "OwnerLeft")
		r := load(t, prefix)
		lock := format.ObjectID(e.hash(t, "lock"))
		left, contender := format.ThreadID(e.hash(t, "left")), format.ThreadID(e.hash(t, "contender"))
		var leftEnd format.Time
		for _, ev := range r.events {
			if ev.Kind == format.ThreadEnded && ev.Thread == left {
				leftEnd = ev.Time
			}
		}
		if leftEnd == 0 {
			t.Fatalf("no ThreadEnded of orca-left")
		}
		enters := r.sel(format.MonitorContendedEnter, func(_ int, ev reader.Event) bool {
			return ev.Thread == contender && ev.Object == lock
		})
		if len(enters) != 1 {
			t.Fatalf("%d contended enters of orca-contender on the lock, want 1", len(enters))
		}
		ev := r.events[enters[0]]
		if ev.Owner == left && leftEnd < ev.Time {
			t.Errorf("the enter at %v names orca-left, which ended at %v, %v before", ev.Time, leftEnd, ev.Time-leftEnd)
		}
		if ev.Owner != 0 && ev.Owner != left {
			t.Errorf("the enter names %v, neither orca-left nor unknown", ev.Owner)
		}
	})
}
