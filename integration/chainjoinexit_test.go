package integration

import (
	"fmt"
	"strings"
	"testing"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
)

// TestChainJoinExit (JoinExit.java): a thread's exit blocks on its own Thread object while main,
// inside Thread.join, holds it: a wait-for cycle of a few µs (main joining the thread, the thread
// blocked on main) that is no deadlock. Main holds the monitor, so it is not in its wait but
// running: every exiting thread blocked so is behind main, a root "runnable", and no root of the
// chains is a cycle ("in a deadlock"), as DEADLOCKS says none. Before, main was a cycle's root
// for the time of those contentions (TestChainRelease met one on 25 at load, 220 µs). Fails if
// none of the THREADS exits met main in the monitor (nothing checked): 146-236 of 2 000 did on 17
// (bench/java/JoinTimed.java).
func TestChainJoinExit(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "JoinExit")
		_, built := buildModel(t, prefix)
		m := built.Model
		mainID := format.ThreadID(0)
		for _, th := range m.Threads {
			if th.ID.Hash() == e.hash(t, "main") && th.Name == "main" {
				mainID = th.ID
			}
		}
		if mainID == 0 {
			t.Fatalf("no thread main in the recording")
		}
		// The exits that blocked on their own Thread naming main while main joined them: their
		// time blamed on main.
		exits := map[format.ThreadID]bool{}
		var blamed format.Time
		for _, th := range m.Threads {
			if !strings.HasPrefix(th.Name, "exiting-") {
				continue
			}
			for i := range th.Intervals {
				iv := &th.Intervals[i]
				if iv.State != model.Blocked || iv.Object != format.ObjectID(th.ID.Hash()) {
					continue
				}
				for sp := range m.BlameSpans(th.ID, iv) {
					if a, b := max(sp.Start, th.Start, iv.Start), min(sp.End, th.End, iv.End); b > a && sp.Owner == mainID {
						exits[th.ID] = true
						blamed += b - a
					}
				}
			}
		}
		t.Logf("%d exits of %d blocked on their Thread held by main, %v", len(exits), e.int(t, "threads"), blamed)
		if len(exits) == 0 {
			t.Fatalf("no exit of %d blocked on its Thread held by main: nothing to check", e.int(t, "threads"))
		}
		_, chains, _ := analysis.HoldersAndChains(m.Filter(nil), 0)
		var all []string
		for _, c := range chains {
			all = append(all, fmt.Sprintf("%v %s %.6f s depth %d, %d threads", c.Root, c.RootState, c.Time.Seconds(), c.Depth, len(c.Threads)))
		}
		show := strings.Join(all, "\n  ")
		for _, c := range chains {
			if c.RootState == "cycle" {
				t.Errorf("root %v is a cycle's (\"in a deadlock\"), %v:\n  %s", c.Root, c.Time, show)
			}
			if c.Root != mainID {
				continue
			}
			behind := map[format.ThreadID]bool{}
			for _, x := range c.Threads {
				behind[x] = true
			}
			for x := range exits {
				if !behind[x] {
					t.Errorf("exit %v, blocked on its Thread held by main, is not behind main:\n  %s", x, show)
				}
			}
			// Through the exits (the JDK's other monitors may add a little: class
			// initialisation, none of the program's), at least their blame on main.
			if c.Time < blamed {
				t.Errorf("main: %v behind it, want at least the exits' %v:\n  %s", c.Time, blamed, show)
			}
		}
		if len(analysis.Deadlocks(m)) != 0 {
			t.Errorf("DEADLOCKS: %d, want none", len(analysis.Deadlocks(m)))
		}
	})
}
