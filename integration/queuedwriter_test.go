package integration

import (
	"strings"
	"testing"

	"orca/internal/report"
)

// TestQueuedWriter (docs/perf/2026-12-02-unseen-programs-3.md, RWStarve): QueuedWriter.java's
// readers q-0 and q-1 block in a ReentrantReadWriteLock's read lock while a writer is queued for
// it, not yet in (two readers hold it): they park in a shared acquire naming no owner, as a latch's
// await does. They are contentions of the lock all the same, ended by the writer's unlock: 3
// contentions on the lock (the writer's and the two readers'), the readers' counted on the
// writer, each reader blocked at least 2 × HOLD_MS (the readers' hold, then the writer's), none
// parked. Before, the readers' parks were "parked on ReentrantReadWriteLock$NonfairSync" and the
// lock had 1 contention.
func TestQueuedWriter(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "QueuedWriter")
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		hold := float64(e.int(t, "hold_ms")) / 1e3
		writer, q0, q1 := hexOf(e, t, "writer"), hexOf(e, t, "q0"), hexOf(e, t, "q1")
		var rw *report.Lock
		for i := range rep.Locks {
			if l := &rep.Locks[i]; l.Kind == "juc" && l.Class != nil && strings.HasSuffix(*l.Class, "ReentrantReadWriteLock$NonfairSync;") {
				rw = l
			}
		}
		if rw == nil {
			t.Fatalf("no contended ReentrantReadWriteLock among the report's locks")
		}
		queued := e.int(t, "queued")
		if rw.Contentions != 1+queued || rw.OwnerUnknown != 0 {
			t.Errorf("the read-write lock: %d contentions, %d owner unknown; want %d (the writer's and %d readers'), all with an owner", rw.Contentions, rw.OwnerUnknown, 1+queued, queued)
		}
		found := false
		for _, o := range rw.Owners {
			if o.Thread == writer {
				found = true
				if o.Contentions != queued || o.BlamedS < float64(queued)*2*hold*0.99 {
					t.Errorf("the writer as an owner: %d contentions, %.3f s blamed; want %d, at least %d × 2 × %.1f s", o.Contentions, o.BlamedS, queued, queued, hold)
				}
			}
		}
		if !found {
			t.Errorf("the writer %s is not among the lock's owners %+v", writer, rw.Owners)
		}
		for _, th := range rep.Threads {
			if th.ID != q0 && th.ID != q1 {
				continue
			}
			if th.StatesS.Blocked < 2*hold*0.99 || th.StatesS.Parked > 0.01 {
				t.Errorf("reader %s: blocked %.3f s, parked %.3f s; want blocked at least 2 × %.1f s, not parked", th.Name, th.StatesS.Blocked, th.StatesS.Parked, hold)
			}
		}
	})
}
