package integration

import (
	"fmt"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/report"
)

// TestHoldersHandOff (HandOff.java): a ReentrantLock's holder unlocks, which unparks the thread
// parked behind it, and at once parks on a CountDownLatch until that thread is in. Each waiter's
// park names the holder to its end, and ends by the holder's unpark: its hand-off
// (model.Interval.HandOff) runs from that unpark to the park's end. What the holder did while
// the waiters were blocked has no "parked" at all — its park on the latch began after its
// unlock, in a hand-off or after it — and exactly the hand-offs' time (they do not overlap: one
// waiter a round) is "released". The blame is the waiters' parks, on the holder, as before.
// Before the hand-off rule the holder's latch park in each hand-off was "parked".
func TestHoldersHandOff(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "HandOff")
		rec, built := buildModel(t, prefix)
		m := built.Model
		holder := format.ThreadID(e.hash(t, "holder"))
		rounds := e.int(t, "rounds")
		var ref model.LockRef
		var parks, hand, wantReleased format.Time
		var show []string
		waiters := 0
		for _, th := range m.Threads {
			if !strings.HasPrefix(th.Name, "waiter-") {
				continue
			}
			waiters++
			for i := range th.Intervals {
				iv := &th.Intervals[i]
				if !iv.Acquire {
					continue
				}
				ref = model.LockRef{Object: iv.Object, Kind: model.JUCLock}
				parks += iv.End - iv.Start
				from, ok := iv.HandOff()
				show = append(show, fmt.Sprintf("%s %d..%d wake %s by %v hand-off from %d (%v)", th.Name, iv.Start-m.Start, iv.End-m.Start, iv.Wake, iv.Other, from-m.Start, ok))
				// A waiter's last park (it may have re-parked, a spurious wake-up) ends by the
				// holder's unpark: a hand-off.
				if i == len(th.Intervals)-1 || !th.Intervals[i+1].Acquire {
					if !ok || iv.Other != holder || from < iv.Start || from > iv.End {
						t.Errorf("%s: its last park %d..%d ends by %s of %v, hand-off from %d (%v); want the holder's unpark", th.Name, iv.Start-m.Start, iv.End-m.Start, iv.Wake, iv.Other, from-m.Start, ok)
					}
				}
				if ok {
					hand += iv.End - from
				}
			}
		}
		if waiters != rounds || ref.Object == 0 {
			t.Fatalf("%d waiters, lock %v; want %d waiters parked on the lock", waiters, ref.Object, rounds)
		}
		wantReleased = hand
		d := m.Filter(nil).HoldersDoing()[ref]
		if d == nil {
			t.Fatalf("no holders' doing for lock %v: %s", ref.Object, strings.Join(show, "; "))
		}
		got := fmt.Sprintf("blocked %v, released %v, by state %v, run %+v, unknown %v; parks: %s", d.Blocked, d.Released, d.Time, d.Run, d.Unknown, strings.Join(show, "; "))
		if d.Time[model.Parked] != 0 || d.Time[model.Idle] != 0 || d.Time[model.Waiting] != 0 {
			t.Errorf("the holder parked, idle or waiting while it held the lock: %s", got)
		}
		if d.Released == 0 || d.Released != wantReleased {
			t.Errorf("released %v, want the hand-offs' %v (> 0): %s", d.Released, wantReleased, got)
		}
		if d.Blocked != parks || d.Unknown != 0 {
			t.Errorf("blocked %v (unknown %v), want the parks' %v: %s", d.Blocked, d.Unknown, parks, got)
		}
		// The report says so, and its blame is the parks', on the holder.
		rep := report.New(rec, built, report.Options{})
		for _, l := range rep.Locks {
			if l.Object != ref.Object.String() {
				continue
			}
			if l.HoldersDoing["parked"] != 0 || l.HoldersDoing["released"] <= 0 {
				t.Errorf("report: holders_doing %v, want no parked, released > 0", l.HoldersDoing)
			}
			if len(l.Owners) != 1 || l.Owners[0].Thread != holder.String() || l.Contentions != rounds {
				t.Errorf("report: %d contentions, owners %+v; want %d, all on the holder %v", l.Contentions, l.Owners, rounds, holder)
			}
		}
	})
}
