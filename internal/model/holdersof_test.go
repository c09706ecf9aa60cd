package model_test

import (
	"cmp"
	"maps"
	"math"
	"reflect"
	"slices"
	"testing"

	"orca/internal/format"
	. "orca/internal/model"
	"orca/internal/testrec"
)

// TestHoldersOf checks the holders' pass of some locks alone
// (View.HoldersOf, orca report's --top): each lock named has the very
// Doing the pass of every lock gives it, no other lock has one, and the
// pass calls its callback (the wait chains' edges) with the same
// intervals and spans, on every case and a synthetic recording, built as
// orca report builds it (the spill, DropIntervals) and in memory, of all
// threads and of some. It fails if a lock's figures depend on the others
// folded beside it, or if the spans the chains read lose a lock's.
func TestHoldersOf(t *testing.T) {
	folded := 0
	eachCaseAndSynth(t, func(t *testing.T, prefix string) {
		for _, way := range []string{"memory", "spill"} {
			opt := Options{}
			if way == "spill" {
				opt = Options{Spill: true, SpillDir: t.TempDir(), DropIntervals: true, StackMark: testMark}
			}
			_, res := testrec.OpenWith(t, prefix, opt)
			m := res.Model
			odd := func(th *Thread) bool { return th.ID%2 == 1 }
			for _, keep := range []func(*Thread) bool{nil, odd} {
				view := func(of map[LockRef]bool) *View {
					v := m.Filter(keep)
					v.OnTop, v.HoldersOf = 2, of
					return v
				}
				want := view(nil).HoldersDoing()
				wantWith, wantSeen := holdersWith(view(nil))
				refs := slices.SortedFunc(maps.Keys(want), func(a, b LockRef) int {
					return cmp.Or(cmp.Compare(a.Object, b.Object), cmp.Compare(a.Kind, b.Kind))
				})
				var every, other, first []LockRef
				for i, r := range refs {
					every = append(every, r)
					if i%2 == 1 {
						other = append(other, r)
					}
				}
				first = refs[:min(1, len(refs))]
				for _, of := range [][]LockRef{{}, first, other, every} {
					set := map[LockRef]bool{{Object: 0x7fffffff, Kind: Monitor}: true} // none such: no Doing
					for _, r := range of {
						set[r] = true
					}
					got := view(set).HoldersDoing()
					gotWith, gotSeen := holdersWith(view(set))
					if len(got) != len(of) || len(gotWith) != len(of) {
						t.Errorf("%s, filtered %v: %d locks asked for, %d and %d Doings", way, keep != nil, len(of), len(got), len(gotWith))
					}
					for _, r := range of {
						if !reflect.DeepEqual(got[r], want[r]) {
							t.Errorf("%s, filtered %v, lock %v %s of %d: %+v, of all %+v", way, keep != nil, r.Object, r.Kind, len(of), got[r], want[r])
						}
						if !reflect.DeepEqual(gotWith[r], wantWith[r]) {
							t.Errorf("%s, filtered %v, lock %v %s of %d, with each: %+v, of all %+v", way, keep != nil, r.Object, r.Kind, len(of), gotWith[r], wantWith[r])
						}
						folded++
					}
					if !slices.EqualFunc(gotSeen, wantSeen, seenEqual) {
						t.Errorf("%s, filtered %v, %d locks: the intervals and spans given to each differ (%d, of all %d)", way, keep != nil, len(of), len(gotSeen), len(wantSeen))
					}
				}
			}
		}
	})
	if folded == 0 {
		t.Error("no lock's holders folded")
	}
}

// seenIv is an interval HoldersDoingWith gave its callback, with its
// spans.
type seenIv struct {
	th    format.ThreadID
	iv    Interval
	spans []OwnerSpan
}

func seenEqual(a, b seenIv) bool {
	return a.th == b.th && reflect.DeepEqual(a.iv, b.iv) && slices.Equal(a.spans, b.spans)
}

// holdersWith is v.HoldersDoingWith, and what it gave its callback.
func holdersWith(v *View) (map[LockRef]*Doing, []seenIv) {
	var seen []seenIv
	d := v.HoldersDoingWith(func(th *Thread, iv *Interval, spans []OwnerSpan) {
		seen = append(seen, seenIv{th.ID, *iv, slices.Clone(spans)})
	})
	return d, seen
}

// TestHeldPieces checks the holders' pass with its buckets of spans by
// holder read back in pieces (a span, a few, many at a time), the pieces
// merged: on every case and a synthetic recording (holders of many spans
// of several locks), built as orca report builds it, every lock's Doing is
// the one the pass gives with each bucket read whole. It fails if a
// holder's spans over several pieces fold other than in one.
func TestHeldPieces(t *testing.T) {
	merged := 0
	eachCaseAndSynth(t, func(t *testing.T, prefix string) {
		opt := Options{Spill: true, SpillDir: t.TempDir(), DropIntervals: true, StackMark: testMark}
		_, res := testrec.OpenWith(t, prefix, opt)
		m := res.Model
		var want map[LockRef]*Doing
		if n := HeldPieces(math.MaxInt, func() { want = m.Filter(nil).HoldersDoing() }); n != 0 {
			t.Fatalf("buckets read whole: %d merged from pieces", n)
		}
		for _, n := range []int{1, 2, 5, 64} {
			var got map[LockRef]*Doing
			merged += HeldPieces(n, func() { got = m.Filter(nil).HoldersDoing() })
			if !reflect.DeepEqual(got, want) {
				for ref, d := range want {
					if !reflect.DeepEqual(got[ref], d) {
						t.Errorf("pieces of %d: lock %v %s: %+v, read whole %+v", n, ref.Object, ref.Kind, got[ref], *d)
					}
				}
				t.Fatalf("pieces of %d: %d locks' holders, read whole %d", n, len(got), len(want))
			}
		}
	})
	if merged == 0 {
		t.Error("no bucket merged from pieces")
	}
}
