package model

import (
	"math/rand"
	"slices"
	"sort"
	"testing"

	"orca/internal/format"
)

// TestReadIntervalsAt: Model.ReadIntervalsAt's window of a thread's
// intervals in the spill, read by a search of its blocks, holds at every
// instant the interval the whole holds there (IntervalAt's answer the
// same, at its place less the window's), the first that ends after it and
// the one before that, and no more than a few blocks; ReadInterval gives
// every interval as the whole has it; EachIntervalIn gives every one
// over a range, in runs of the thread's of about a piece. The intervals are in chunks of
// random sizes, blocks grown to ivBlockMax or cut by another kind's, with
// runs of zero-length intervals and long ones, and open ones nested at
// the end over several blocks. Fails without the block
// before (an interval that holds the instant in it, or the one before
// the first that ends after it), without the block after, or with the
// search's block one off.
func TestReadIntervalsAt(t *testing.T) {
	defer SetIvBlockMax(20)()
	rng := rand.New(rand.NewSource(7))
	s, th, other := testSpill(t)
	var all []Interval
	at := format.Time(1000)
	for len(all) < 2000 {
		var ivs []Interval
		for range 1 + rng.Intn(12) {
			at += format.Time(rng.Intn(3) * rng.Intn(50)) // often none: the next starts at the end
			for range rng.Intn(3) * rng.Intn(2) {
				ivs = append(ivs, Interval{Start: at, End: at, Since: at, State: Blocked})
			}
			d := format.Time(1 + rng.Intn(100))
			if rng.Intn(40) == 0 {
				d *= 100
			}
			ivs = append(ivs, Interval{Start: at, End: at + d, Since: at, State: State(rng.Intn(int(NumStates))), Stack: StackID(len(all) + len(ivs))})
			at += d
		}
		s.addCount(&th.spill, spillIvs, appendIvChunk(nil, ivs), int64(len(ivs)))
		all = append(all, ivs...)
		if rng.Intn(2) == 0 {
			s.addTo(&other.spill, spillSmp, make([]byte, 1+rng.Intn(100)))
		}
	}
	// The open segments at the end: nested states, each begun before the
	// next, all ending at the thread's end, over several blocks.
	end := at + 1000
	for c := range 3 {
		var ivs []Interval
		for i := range 12 {
			st := at + format.Time(30*(12*c+i))
			ivs = append(ivs, Interval{Start: st, End: end, Since: st, State: Waiting, Open: true})
		}
		s.addCount(&th.spill, spillIvs, appendIvChunk(nil, ivs), int64(len(ivs)))
		s.addTo(&other.spill, spillSmp, make([]byte, 10))
		all = append(all, ivs...)
	}
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	if n := len(ivBlocksOf(th).bs); n < 50 {
		t.Fatalf("%d blocks: the test wants many", n)
	}
	th.Start, th.End = all[0].Start+5, all[len(all)-1].End
	m := &Model{spill: s, dropped: true}
	var instants []format.Time
	for a := th.Start - 10; a < th.End+10; a += 7 {
		instants = append(instants, a)
	}
	for _, iv := range all {
		instants = append(instants, iv.Start-1, iv.Start, iv.End-1, iv.End)
	}
	for _, a := range instants {
		ivs, from, err := m.ReadIntervalsAt(th, a, nil)
		if err != nil {
			t.Fatalf("at %d: %v", a, err)
		}
		if from < 0 || from+len(ivs) > len(all) || !slices.Equal(ivs, all[from:from+len(ivs)]) {
			t.Fatalf("at %d: the window [%d, %d) is not the thread's", a, from, from+len(ivs))
		}
		want := th.intervalAt(all, a)
		got := th.IntervalAtIn(ivs, a)
		if got >= 0 {
			got += from
		}
		if got != want {
			t.Fatalf("at %d: the interval at it %d in the window [%d, %d), the whole's %d", a, got, from, from+len(ivs), want)
		}
		i := sort.Search(len(all), func(i int) bool { return all[i].End > a })
		for _, j := range []int{i - 1, i} {
			if j >= 0 && j < len(all) && (j < from || j >= from+len(ivs)) {
				t.Fatalf("at %d: interval %d (the first that ends after it: %d) not in the window [%d, %d)", a, j, i, from, from+len(ivs))
			}
		}
		if a < th.End && len(ivs) > 3*ivBlockMax+3*12 { // the nested ones at the end too
			t.Fatalf("at %d: %d intervals read", a, len(ivs))
		}
	}
	// EachIntervalIn over ranges: runs of the thread's, in order, each
	// once, of at most a piece and a block, holding every interval over
	// the range.
	defer SetIvPiece(50)()
	for q := range 3000 {
		a := th.Start - 10 + format.Time(rng.Int63n(int64(th.End-th.Start+20)))
		b := a + format.Time(rng.Intn(3)*rng.Intn(2000))
		if q%50 == 0 {
			a, b = th.Start-10, th.End+10 // the whole
		}
		next := -1
		var got []Interval
		err := m.EachIntervalIn(th, a, b, func(ivs []Interval, from int) bool {
			if next >= 0 && from != next {
				t.Fatalf("[%d, %d): a run from %d after one that ended at %d", a, b, from, next)
			}
			if len(ivs) > ivPiece+2*ivBlockMax+3*12 {
				t.Fatalf("[%d, %d): a run of %d intervals", a, b, len(ivs))
			}
			if from+len(ivs) > len(all) || !slices.Equal(ivs, all[from:from+len(ivs)]) {
				t.Fatalf("[%d, %d): the run [%d, %d) is not the thread's", a, b, from, from+len(ivs))
			}
			if next < 0 {
				next = from
				got = append(got, make([]Interval, from)...) // before the first run: none wanted
			}
			got = append(got, ivs...)
			next = from + len(ivs)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range all {
			if all[i].End > a && all[i].Start < b && i >= len(got) {
				t.Fatalf("[%d, %d): interval %d [%d, %d) not given (runs to %d)", a, b, i, all[i].Start, all[i].End, len(got))
			}
			if all[i].End > a && all[i].Start < b && got[i] != all[i] {
				t.Fatalf("[%d, %d): interval %d not given", a, b, i)
			}
		}
	}
	for k := range all {
		iv, err := m.ReadInterval(th, k)
		if err != nil || iv != all[k] {
			t.Fatalf("ReadInterval %d: %+v, %v; want %+v", k, iv, err, all[k])
		}
	}
}
