package export

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"orca/internal/format"
)

// TestTLSortRun checks sortRun against a comparison sort of the same
// records: times close together and far apart (the radix sort's passes),
// many at one time and phase (its stability), and what it leaves to the
// comparison sort (times 2^62 ns apart, records not in the order of seq).
func TestTLSortRun(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 34))
	for _, c := range []struct {
		name   string
		n      int
		span   int64 // the times' range
		base   int64
		seqOff bool // records not in the order of their seq
	}{
		{"one", 1, 10, 0, false},
		{"close", 5000, 50, 1_000_000, false},
		{"ten minutes", 20000, 600e9, 5e15, false},
		{"negative", 3000, 1e12, -1e12, false},
		{"wide", 3000, math.MaxInt64, -1 << 62, false},
		{"seq out of order", 3000, 100, 0, true},
	} {
		recs := make([]tlRec, c.n)
		seqs := r.Perm(c.n)
		for i := range recs {
			recs[i] = tlRec{key: tlKey{ts: format.Time(c.base + r.Int64N(c.span)), phase: uint8(r.IntN(3)), seq: i}, aux: uint64(i)}
			if c.seqOff {
				recs[i].key.seq = seqs[i]
			}
		}
		want := slices.Clone(recs)
		slices.SortFunc(want, func(a, b tlRec) int { return a.key.compare(b.key) })
		var s tlSort
		for round := range 2 { // the second with the first's keys
			s.recs = slices.Clone(recs)
			s.sortRun()
			if g, w := fmt.Sprint(s.recs), fmt.Sprint(want); g != w {
				t.Errorf("%s, round %d: sortRun differs from a comparison sort", c.name, round)
			}
		}
	}
}
