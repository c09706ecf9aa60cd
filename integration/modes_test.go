package integration

import (
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/report"
)

// TestAcquireModes is issue 20's item 3: AcquireModes.java parks threads on an
// AbstractQueuedSynchronizer of a neutral name in shared mode (a latch of its own), on one in
// exclusive mode that keeps no owner, and on a read lock blocked by a writer. The agent
// records each park's acquire mode (ThreadPark's mode field, from the thread's node in the
// synchronizer's queue); the report takes the shared synchronizer nobody holds as a wait (in
// waits, not locks, whatever its class: before, a class list decided, and it was a "lock" whose
// "owners" were its waiters and opener), the exclusive one as a lock blamed on the thread whose
// release ended the park (its park names no owner), and the read lock as a lock blamed on the
// writer.
func TestAcquireModes(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "AcquireModes")
		r := loadComplete(t, prefix)
		r.checkInvariants(t)
		names := map[format.ThreadID]string{}
		for _, ev := range r.events {
			if ev.Kind == format.ThreadStarted {
				names[ev.Thread] = ev.Name
			}
		}
		type want struct {
			mode  format.AcquireMode
			owner uint32
			n     int
		}
		// A park that names an owner has no mode (the agent skips the lookup: a lock either way).
		wants := map[string]*want{
			"gate-waiter-": {format.ModeShared, 0, e.int(t, "gate_waiters")},
			"mutex-waiter": {format.ModeExclusive, 0, 1},
			"rw-reader":    {format.ModeNone, e.hash(t, "rw_writer"), 1},
		}
		got := map[string]int{}
		for i, ev := range r.events {
			if ev.Kind != format.ThreadPark {
				continue
			}
			for prefix, w := range wants {
				if !strings.HasPrefix(names[ev.Thread], prefix) {
					continue
				}
				got[prefix]++
				if ev.Mode != w.mode || uint32(ev.Owner) != w.owner {
					t.Errorf("%s's park: mode %q owner %v, want mode %q owner %08X:\n%s", names[ev.Thread], ev.Mode, ev.Owner, w.mode, w.owner, r.describe(i))
				}
			}
		}
		for prefix, w := range wants {
			if got[prefix] != w.n {
				t.Errorf("%s*: %d parks, want %d", prefix, got[prefix], w.n)
			}
		}

		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		gate, mutex := e.str(t, "gate"), e.str(t, "mutex")
		owners := map[string][]string{}
		for _, l := range rep.Locks {
			for _, o := range l.Owners {
				if o.Name != nil {
					owners[l.Object] = append(owners[l.Object], *o.Name)
				}
			}
			if l.Class != nil && strings.HasSuffix(*l.Class, "ReentrantReadWriteLock$NonfairSync;") {
				owners["rw"] = owners[l.Object]
			}
		}
		if o, ok := owners[gate]; ok {
			t.Errorf("the shared synchronizer %s (AcquireModes$Gate) is among the locks, owners %v: want it among the waits", gate, o)
		}
		inWaits := false
		for _, w := range rep.Waits {
			if w.Object != nil && *w.Object == gate {
				inWaits = true
				if w.Waits != e.int(t, "gate_waiters") {
					t.Errorf("waits on the gate: %d, want %d", w.Waits, e.int(t, "gate_waiters"))
				}
			}
		}
		if !inWaits {
			t.Errorf("the shared synchronizer %s is not among the waits", gate)
		}
		// Its park names no owner; the releaser whose unpark ended it is blamed (it held it).
		if o := owners[mutex]; len(o) != 1 || o[0] != "mutex-holder" {
			t.Errorf("the exclusive synchronizer's owners: %v, want [mutex-holder] (the releaser)", o)
		}
		if o := owners["rw"]; len(o) != 1 || o[0] != "rw-writer" {
			t.Errorf("the read-write lock's owners: %v, want [rw-writer]", o)
		}
	})
}
