package model

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"orca/internal/format"
)

// TestParkCursorAsSearched: the holders' pass's parkCursor finds, for each
// park on a lock, the first hand-off after its start as a search of the
// lock's whole hand-offs does (slices.BinarySearchFunc, as parkSpans
// searched before handOffAfter), whatever the parks' order: a thread's
// parks in order (the cursor's probes forward, far and near), one that
// starts before the last (probes back), another thread's or lock's
// between.
func TestParkCursorAsSearched(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 34))
	for round := 0; round < 300; round++ {
		m := &Model{handOffs: map[format.ObjectID][]OwnerChange{}}
		for obj := format.ObjectID(1); obj <= 3; obj++ {
			n := rng.IntN(1 << rng.IntN(12))
			hs := make([]OwnerChange, n)
			at := format.Time(rng.IntN(50))
			for i := range hs {
				hs[i] = OwnerChange{At: at, Owner: format.ThreadID(rng.IntN(5))}
				at += format.Time(rng.IntN(3)) // equal times too
			}
			m.handOffs[obj] = hs
		}
		var c parkCursor
		th, obj := format.ThreadID(1), format.ObjectID(1)
		start := format.Time(0)
		for k := 0; k < 400; k++ {
			switch r := rng.IntN(100); {
			case r < 3:
				th++
				start = format.Time(rng.IntN(40))
			case r < 6:
				obj = format.ObjectID(1 + rng.IntN(4)) // 4: no hand-offs
			case r < 9:
				start -= format.Time(rng.IntN(100)) // before the last
			case r < 60:
				start += format.Time(rng.IntN(4))
			default:
				start += format.Time(rng.IntN(1 << rng.IntN(14)))
			}
			iv := &Interval{Start: start, End: start + 5, Object: obj, Acquire: true}
			hs := m.handOffs[obj]
			want, _ := slices.BinarySearchFunc(hs, start, func(h OwnerChange, t format.Time) int { return cmp.Compare(h.At, t+1) })
			if got, ghs := c.at(m, iv); got != want || len(ghs) != len(hs) {
				t.Fatalf("round %d, park %d (thread %d, lock %d, start %d): first hand-off after it %d (of %d), want %d of %d",
					round, k, th, obj, start, got, len(ghs), want, len(hs))
			}
			if got := handOffAfter(hs, start); got != want {
				t.Fatalf("handOffAfter(%d) = %d, want %d", start, got, want)
			}
		}
	}
}

// TestSearchEndAfterAsSearchFrom: foldSpan's search of a holder's
// intervals, its test written out, finds what searchFrom with the test as
// a function finds, from any cursor, for any time, the ends in order or
// not (intervals that overlap).
func TestSearchEndAfterAsSearchFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 34))
	for round := 0; round < 2000; round++ {
		ivs := make([]Interval, rng.IntN(1<<rng.IntN(10)))
		end := format.Time(rng.IntN(20))
		for i := range ivs {
			end += format.Time(rng.IntN(4))
			if rng.IntN(20) == 0 {
				end -= format.Time(rng.IntN(10)) // out of order
			}
			ivs[i].End = end
		}
		for k := 0; k < 50; k++ {
			from := rng.IntN(len(ivs)+3) - 1
			a := format.Time(rng.IntN(int(end) + 30))
			want := searchFrom(len(ivs), from, func(i int) bool { return ivs[i].End > a })
			if got := searchEndAfter(ivs, from, a); got != want {
				t.Fatalf("round %d: %d intervals, from %d, after %d: %d, want %d", round, len(ivs), from, a, got, want)
			}
		}
	}
}

// TestSearchSampleFromAsSearchFrom: samplesIn's search, its test written
// out, finds what searchFrom finds, from any cursor, the times in order or
// not.
func TestSearchSampleFromAsSearchFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 34))
	for round := 0; round < 2000; round++ {
		s := make([]Sample, rng.IntN(1<<rng.IntN(10)))
		at := format.Time(rng.IntN(20))
		for i := range s {
			at += format.Time(rng.IntN(4))
			if rng.IntN(20) == 0 {
				at -= format.Time(rng.IntN(10)) // out of order
			}
			s[i].At = at
		}
		for k := 0; k < 50; k++ {
			from := rng.IntN(len(s)+3) - 1
			x := format.Time(rng.IntN(int(at) + 30))
			want := searchFrom(len(s), from, func(i int) bool { return s[i].At >= x })
			if got := searchSampleFrom(s, from, x); got != want {
				t.Fatalf("round %d: %d samples, from %d, at %d: %d, want %d", round, len(s), from, x, got, want)
			}
		}
	}
}
