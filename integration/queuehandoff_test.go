package integration

import (
	"testing"

	"orca/internal/report"
)

// TestQueueHandoff (docs/perf/2026-12-02-unseen-programs.md): QueueHandoff.java's producers
// park in a SynchronousQueue's put and a full LinkedBlockingQueue's put a known number of
// times, each park ended by its consumer's take. The report's wait objects have exactly those
// parks, unparked by the consumer, and name the call they parked in on every JDK: on JDK 21+ a
// SynchronousQueue's put parks in LinkedTransferQueue's node, which the report named
// "LinkedTransferQueue$DualNode.await" before.
func TestQueueHandoff(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "QueueHandoff")
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		check := func(prod, cons, call string, parks int) {
			var found *report.Wait
			for i := range rep.Waits {
				w := &rep.Waits[i]
				for _, u := range w.UnparkedBy {
					if u.Thread == hexOf(e, t, cons) {
						found = w
					}
				}
			}
			if found == nil {
				t.Errorf("no wait object unparked by %s (%s)", cons, hexOf(e, t, cons))
				return
			}
			w := found
			t.Logf("%s: %s %v, %d waits, %d notified, call %q, unparked by %+v", prod, w.Kind, *w.Class, w.Waits, w.Notified, w.Call, w.UnparkedBy)
			if w.Kind != "park" || w.Waits != parks || w.Notified != parks || w.Idle != 0 || len(w.UnparkedBy) != 1 || w.UnparkedBy[0].Parks != parks {
				t.Errorf("%s: %d parks, %d unparked (by %+v), %d idle; want %d parks, all unparked by %s, none idle", prod, w.Waits, w.Notified, w.UnparkedBy, w.Idle, parks, cons)
			}
			if w.Call != call {
				t.Errorf("%s: parked on %s in %q, want %q", prod, *w.Class, w.Call, call)
			}
		}
		check("sqProd", "sqCons", "java.util.concurrent.SynchronousQueue.put", e.int(t, "sq_parks"))
		check("lbProd", "lbCons", "java.util.concurrent.LinkedBlockingQueue.put", e.int(t, "lbq_parks"))
	})
}
