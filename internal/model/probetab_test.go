package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"orca/internal/format"
)

// TestProbeTab checks probeTab against a map: keys in a row, spread and
// the extremes (0 and math.MaxUint64, whose key + 1 is an empty slot's).
func TestProbeTab(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 100, 5000} {
		var tab probeTab[Blame]
		want := map[uint64]int{}
		for i := range 4 * n {
			var k uint64
			switch i % 4 {
			case 0:
				k = uint64(r.IntN(n + 1))
			case 1:
				k = r.Uint64()
			case 2:
				k = math.MaxUint64 - uint64(r.IntN(2))
			default:
				k = uint64(i)
			}
			e, added := tab.find(k)
			if _, ok := want[k]; added == ok {
				t.Fatalf("n %d: key %d: added %v, in the map %v", n, k, added, ok)
			}
			e.Thread = 0
			e.Contentions++
			want[k]++
		}
		if tab.n != len(want) {
			t.Errorf("n %d: %d records, want %d", n, tab.n, len(want))
		}
		for k, c := range want {
			if e := tab.lookup(k); e == nil || e.Contentions != c {
				t.Errorf("n %d: key %d: %v, want %d contentions", n, k, e, c)
			}
		}
		if e := tab.lookup(1 << 40); e != nil && want[1<<40] == 0 {
			t.Errorf("n %d: an absent key found: %v", n, e)
		}
		got := tab.appendTo(nil)
		cs := make([]int, 0, len(want))
		for _, c := range want {
			cs = append(cs, c)
		}
		gs := make([]int, 0, len(got))
		for _, e := range got {
			gs = append(gs, e.Contentions)
		}
		slices.Sort(cs)
		slices.Sort(gs)
		if !slices.Equal(cs, gs) {
			t.Errorf("n %d: appendTo's counts %v, want %v", n, gs, cs)
		}
	}
}

// TestProbeTabDel adds and deletes keys at random, checked against a map:
// a record lost or found again after its deletion fails.
func TestProbeTabDel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 8, 100, 5000} {
		var tab probeTab[int]
		want := map[uint64]int{}
		for i := range 20 * n {
			k := uint64(r.IntN(2 * n)) // collisions and runs
			if i%7 == 0 {
				k = math.MaxUint64 - uint64(r.IntN(2))
			}
			if r.IntN(3) == 0 {
				tab.del(k)
				delete(want, k)
				continue
			}
			e, _ := tab.find(k)
			*e = i
			want[k] = i
		}
		if tab.n != len(want) {
			t.Errorf("n %d: %d records, want %d", n, tab.n, len(want))
		}
		for k := range uint64(2 * n) {
			e, v := tab.lookup(k), want[k]
			if _, ok := want[k]; ok != (e != nil) || ok && *e != v {
				t.Fatalf("n %d: key %d: %v, want %d (%v)", n, k, e, v, ok)
			}
		}
	}
}

// TestRecTab checks recTab against a map: objects in runs that collide,
// the largest, put again, deleted (the backward shift), through growth.
func TestRecTab(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 8, 100, 5000} {
		var tab recTab
		want := map[format.ObjectID]int32{}
		key := func() format.ObjectID {
			if r.IntN(9) == 0 {
				return math.MaxUint32 - format.ObjectID(r.IntN(2))
			}
			return format.ObjectID(1 + r.IntN(2*n))
		}
		for i := range 20 * n {
			k := key()
			if r.IntN(3) == 0 {
				tab.del(k)
				delete(want, k)
				continue
			}
			tab.put(k, int32(i+1))
			want[k] = int32(i + 1)
		}
		if tab.n != len(want) {
			t.Errorf("n %d: %d entries, want %d", n, tab.n, len(want))
		}
		for k := range format.ObjectID(2*n + 1) {
			if got := tab.get(k); got != want[k] {
				t.Fatalf("n %d: object %d: %d, want %d", n, k, got, want[k])
			}
		}
		for _, k := range []format.ObjectID{math.MaxUint32, math.MaxUint32 - 1} {
			if got := tab.get(k); got != want[k] {
				t.Fatalf("n %d: object %d: %d, want %d", n, k, got, want[k])
			}
		}
	}
}

// TestKeySet checks keySet against a map: keys in a row, spread and the
// extremes (0 and math.MaxUint64, whose key + 1 is an empty slot's), each
// added twice; fails with a key added again reported new, or one lost as
// the slots grow.
func TestKeySet(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 8, 100, 5000} {
		var set keySet
		want := map[uint64]bool{}
		for i := range 4 * n {
			var k uint64
			switch i % 4 {
			case 0:
				k = uint64(r.IntN(n + 1))
			case 1:
				k = r.Uint64()
			case 2:
				k = math.MaxUint64 - uint64(r.IntN(2))
			default:
				k = uint64(i)
			}
			if added := set.add(k); added == want[k] {
				t.Fatalf("n %d: %d added %v, in the set before %v", n, k, added, want[k])
			}
			want[k] = true
			if set.add(k) {
				t.Fatalf("n %d: %d added twice", n, k)
			}
		}
		for k := range want {
			if set.add(k) {
				t.Fatalf("n %d: %d lost", n, k)
			}
		}
	}
}
