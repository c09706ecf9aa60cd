package model

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"orca/internal/format"
)

// TestSumTab checks a sumTab against a map summed at each addition:
// keys of one byte to all 64 bits, repeated in a row and far apart, read
// back at every size (its log merged or not).
func TestSumTab(t *testing.T) {
	for _, bits := range []uint{4, 12, 24, 64} {
		r := rand.New(rand.NewPCG(1, uint64(bits)))
		var tab sumTab[blameAgg, *blameAgg]
		want := map[uint64]blameAgg{}
		for i := range 20000 {
			k := r.Uint64() >> (64 - bits)
			if i%97 == 0 {
				k = math.MaxUint64
			}
			n := 1 + r.IntN(3)
			for range n {
				b := tab.at(k)
				b.Contentions++
				b.Blamed += 3
				w := want[k]
				w.Contentions++
				w.Blamed += 3
				want[k] = w
			}
			if i%1000 == 999 || i == 7 {
				es := tab.sorted()
				if len(es) != len(want) {
					t.Fatalf("bits %d, %d additions: %d keys, want %d", bits, i, len(es), len(want))
				}
				for j := range es {
					if j > 0 && es[j-1].key >= es[j].key {
						t.Fatalf("bits %d: keys out of order: %x before %x", bits, es[j-1].key, es[j].key)
					}
					if es[j].e != want[es[j].key] {
						t.Fatalf("bits %d: key %x: %+v, want %+v", bits, es[j].key, es[j].e, want[es[j].key])
					}
				}
				if b := tab.lookup(k); b == nil || *b != want[k] {
					t.Fatalf("bits %d: lookup %x: %v, want %+v", bits, k, b, want[k])
				}
			}
		}
	}
}

// TestSortFirsts checks sortFirsts against slices.SortStableFunc by time
// and by thread, on lists short (insertion) and long (radix) and keys of
// every width, negative times too, equal keys kept in their order.
func TestSortFirsts(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	for _, n := range []int{0, 1, 2, 31, 32, 1000} {
		for _, bits := range []uint{1, 9, 40, 64} {
			fs := make([]firstAt, n)
			for i := range fs {
				// Each thread twice or more, with times of other threads
				// in between: a sort that is not stable, or by the other
				// key, moves one.
				fs[i] = firstAt{th: format.ThreadID(r.Uint64() >> (64 - bits) % uint64(n/2+1)), at: format.Time(r.Uint64() >> (64 - bits))}
			}
			want := slices.Clone(fs)
			slices.SortStableFunc(want, func(x, y firstAt) int { return cmp.Compare(x.at, y.at) })
			got := slices.Clone(fs)
			sortFirsts(got, true)
			if !slices.Equal(got, want) {
				t.Fatalf("by time: n %d, bits %d: %v, want %v", n, bits, got, want)
			}
			slices.SortStableFunc(want, func(x, y firstAt) int { return cmp.Compare(x.th, y.th) })
			sortFirsts(got, false)
			if !slices.Equal(got, want) {
				t.Fatalf("by thread: n %d, bits %d: %v, want %v", n, bits, got, want)
			}
		}
	}
}

// TestSortKeys checks sortKeys against slices.SortFunc on logs short
// (insertion) and long (radix) and keys of every width, the top bits too.
func TestSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	for _, n := range []int{31, 32, 64, 200, 255, 256, 1000} {
		for _, bits := range []uint{1, 6, 7, 13, 40, 63, 64} {
			s := make([]sumEnt[blameAgg], n)
			for i := range s {
				s[i] = sumEnt[blameAgg]{key: r.Uint64() >> (64 - bits), e: blameAgg{Contentions: i}}
			}
			want := slices.Clone(s)
			slices.SortStableFunc(want, func(x, y sumEnt[blameAgg]) int { return cmp.Compare(x.key, y.key) })
			sortKeys(s, make([]sumEnt[blameAgg], n))
			for i := range s {
				if s[i].key != want[i].key {
					t.Fatalf("n %d, bits %d: key %d is %x, want %x", n, bits, i, s[i].key, want[i].key)
				}
			}
		}
	}
}
