package model_test

import (
	"testing"

	. "orca/internal/model"
	"orca/internal/testrec"
)

// TestHoldersRunSplit builds every case, and a synthetic recording shaped
// like a busy server's, in memory, and checks that each lock's holders'
// runnable split (Doing.Run, which the holders' fold makes from the
// runnable time and samples its own walk of a span found) is the sum of
// RunIn over the lock's spans, each asked alone (out of the lock's
// hand-off stretches: released). It fails when the fold
// takes a span's part of a window for the whole span where the span
// crosses a window's end, or the samples of another range.
func TestHoldersRunSplit(t *testing.T) {
	inside, crossing := 0, 0
	check := func(t *testing.T, prefix string) {
		_, res := testrec.Open(t, prefix)
		m := res.Model
		v := m.Filter(nil)
		hand := map[LockRef][]OwnerSpan{}
		for _, th := range v.Threads {
			for i := range th.Intervals {
				if iv := &th.Intervals[i]; iv.Acquire {
					if from, ok := iv.HandOff(); ok {
						ref := LockRef{Object: iv.Object, Kind: JUCLock}
						hand[ref] = append(hand[ref], OwnerSpan{Start: from, End: iv.End})
					}
				}
			}
		}
		for ref, d := range v.HoldersDoing() {
			var want RunSplit
			for _, s := range d.Spans {
				h := m.Thread(s.Owner)
				if h == nil {
					continue
				}
				// The hand-offs are released: no run split.
				for _, p := range HandOffParts(s, hand[ref]) {
					if !p.Released {
						want.Add(h.RunIn(p.Start, p.End))
					}
				}
				// Where the span lies against the windows between
				// ThreadCPU lines: inside one (not the whole), or across.
				for k := 1; k < len(h.Sched); k++ {
					p, q := h.Sched[k-1].At, h.Sched[k].At
					switch {
					case p <= s.Start && s.End <= q && (p != s.Start || q != s.End):
						inside++
					case s.Start < q && q < s.End:
						crossing++
					}
				}
			}
			if d.Run != want {
				t.Errorf("lock %v %v: the holders' run split %+v, RunIn's over its spans %+v", ref.Object, ref.Kind, d.Run, want)
			}
		}
	}
	eachCaseAndSynth(t, check)
	// Both shapes of span are there to be checked.
	if inside == 0 || crossing == 0 {
		t.Errorf("%d spans inside a window, %d across a window's end: both wanted", inside, crossing)
	}
	t.Logf("%d spans inside a window, %d across a window's end", inside, crossing)
}
