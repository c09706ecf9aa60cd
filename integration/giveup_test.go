package integration

import (
	"bytes"
	"strings"
	"testing"

	"orca/internal/report"
)

// TestGiveUp (docs/perf/2026-12-02-unseen-programs.md): GiveUp.java's tryer calls tryLock with
// a timeout on a fair ReentrantLock another thread holds: each call parks and gives up. The
// report counts those contentions, their time blamed on the holder, and says that no release
// ended them (no_unpark; before, nothing told them from acquires that got the lock, and the
// holder's "contentions that ended when it let go" counted them). The awaiter's awaitNanos
// timeouts and signalled awaits are counted apart in the condition's parks.
func TestGiveUp(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "GiveUp")
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		tries, tryS := e.int(t, "tries"), float64(e.int(t, "try_ms"))/1e3
		var lock *report.Lock
		for i := range rep.Locks {
			if l := &rep.Locks[i]; l.Kind == "juc" && l.Class != nil && strings.HasSuffix(*l.Class, "ReentrantLock$FairSync;") {
				lock = l
			}
		}
		if lock == nil {
			t.Fatal("no contention of the fair ReentrantLock in the report")
		}
		t.Logf("lock %s: %d contentions, %.3f s, no_unpark %d, owners %+v", lock.Object, lock.Contentions, lock.BlockedS, lock.NoUnpark, lock.Owners)
		if lock.Contentions != tries || lock.NoUnpark != tries || lock.OwnerUnknown != 0 || lock.BlockedS < float64(tries)*tryS*0.99 {
			t.Errorf("the fair lock: %d contentions, %d ended by no unpark, %d owner unknown, %.3f s; want %d, %d, 0, at least %d × %.3f s",
				lock.Contentions, lock.NoUnpark, lock.OwnerUnknown, lock.BlockedS, tries, tries, tries, tryS)
		}
		if len(lock.Owners) != 1 || lock.Owners[0].Thread != hexOf(e, t, "holder") || lock.Owners[0].BlamedS != lock.BlockedS {
			t.Errorf("the fair lock's owners %+v; want holder (%s) blamed for all %.3f s", lock.Owners, hexOf(e, t, "holder"), lock.BlockedS)
		}
		var cond *report.Wait
		for i := range rep.Waits {
			if w := &rep.Waits[i]; w.Object != nil && *w.Object == hexOf(e, t, "cond") {
				cond = w
			}
		}
		if cond == nil {
			t.Fatalf("no parks on the condition %s in the report", hexOf(e, t, "cond"))
		}
		timeouts, signals := e.int(t, "timeouts"), e.int(t, "signals")
		if cond.Waits != timeouts+signals || cond.TimedOut != timeouts || cond.Notified != signals ||
			len(cond.UnparkedBy) != 1 || cond.UnparkedBy[0].Thread != hexOf(e, t, "signaller") {
			t.Errorf("the condition: %d parks, %d without an unpark, %d unparked by %+v; want %d, %d, %d by signaller (%s)",
				cond.Waits, cond.TimedOut, cond.Notified, cond.UnparkedBy, timeouts+signals, timeouts, signals, hexOf(e, t, "signaller"))
		}
		var txt bytes.Buffer
		if err := rep.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if want := "3 contentions ended by no release's unpark (a tryLock's timeout"; !strings.Contains(txt.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, txt.String())
		}
	})
}
