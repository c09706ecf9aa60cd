package integration

import (
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// TestManyThreads records 300 short-lived threads: each must be seen starting, sleeping once,
// ending and being joined, exactly once.
func TestManyThreads(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "ManyThreads")
		r := load(t, prefix)
		defer func() {
			if t.Failed() {
				t.Logf("found: %s", r.kindCounts())
			}
		}()
		r.checkParse(t)
		r.checkInfo(t, true, true)
		r.checkInvariants(t)

		n := e.int(t, "threads")
		pfx := e.str(t, "prefix")
		c := counter{t, r}
		workers := map[format.ThreadID]bool{}
		started := r.sel(format.ThreadStarted, func(_ int, ev reader.Event) bool { return strings.HasPrefix(ev.Name, pfx) })
		c.want("ThreadStarted named "+pfx+"*", started, n)
		for _, i := range started {
			workers[r.events[i].Thread] = true
		}
		if len(workers) != len(started) {
			t.Logf("note: %d workers share hashes with others (identity hashes may collide)", len(started)-len(workers))
		}
		isWorker := func(_ int, ev reader.Event) bool { return workers[ev.Thread] }
		targetsWorker := func(_ int, ev reader.Event) bool { return workers[ev.Target] }
		c.want("ThreadEnded of workers", r.sel(format.ThreadEnded, isWorker), n)
		c.want("ThreadSleep by workers", r.sel(format.ThreadSleep, isWorker), e.int(t, "sleeps"))
		c.want("ThreadSlept by workers", r.sel(format.ThreadSlept, isWorker), e.int(t, "sleeps"))
		c.want("ThreadStart of workers", r.sel(format.ThreadStart, targetsWorker), e.int(t, "starts"))
		c.want("ThreadJoin of workers", r.sel(format.ThreadJoin, targetsWorker), e.int(t, "joins"))
		c.want("ThreadJoined of workers", r.sel(format.ThreadJoined, targetsWorker), e.int(t, "joins"))
	})
}
