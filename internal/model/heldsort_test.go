package model

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"orca/internal/format"
)

// heldRecs returns n records of holders drawn from m, whose identity
// hashes are random (31 bits) and a few of rank 1, as a recording's.
func heldRecs(r *rand.Rand, n, m int) []heldRec {
	ids := make([]format.ThreadID, m)
	for i := range ids {
		ids[i] = format.NewThreadID(r.Uint32()>>1, uint32(r.IntN(50)/49))
	}
	rs := make([]heldRec, n)
	for i := range rs {
		at := format.Time(1<<40 + r.IntN(1<<36))
		if r.IntN(4) == 0 && i > 0 {
			at = rs[i-1].s // equal starts keep their order
		}
		rs[i] = heldRec{h: ids[r.IntN(m)], s: at, e: at + format.Time(r.IntN(100)), k: int32(r.IntN(1000))}
	}
	return rs
}

// TestHeldSort checks heldSort.sort against a stable comparison sort by
// holder and start: one holder, holders close together, apart (random hashes, of
// two ranks), and the buffers reused from one sort to the next.
func TestHeldSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var hs heldSort
	for _, n := range []int{0, 1, 2, 3, 100, 5000, 70000} {
		for _, m := range []int{1, 2, 40, 3000} {
			want := heldRecs(r, n, m)
			if m == 40 {
				for i := range want {
					want[i].h = 1000 + want[i].h%40 // close: a digit, two
				}
			}
			hs.recs = append(hs.recs[:0], want...)
			hs.sort()
			slices.SortStableFunc(want, func(a, b heldRec) int { return cmp.Or(cmp.Compare(a.h, b.h), cmp.Compare(a.s, b.s)) })
			if !slices.Equal(hs.recs, want) {
				t.Fatalf("n %d, m %d: not sorted by holder, stably", n, m)
			}
		}
	}
}

// BenchmarkHeldSort sorts a buffer of heldBudget bytes of records of
// 5000 holders.
func BenchmarkHeldSort(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	in := heldRecs(r, heldBudget/heldRecSize, 5000)
	var hs heldSort
	for b.Loop() {
		hs.recs = append(hs.recs[:0], in...)
		hs.sort()
	}
}
