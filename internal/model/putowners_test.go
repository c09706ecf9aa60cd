package model

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"orca/internal/format"
)

// TestPutOwners: a lock's owners, given in order of thread, are sorted by
// time blamed (most first), then thread, as a stable sort by time puts
// them (many blamed the same), in place: no copy of them is made (a lock
// of 1.2 M owners at c5G-slow5). Fails with a sort that copies them (the
// radix sort's 32 bytes an owner), or one that loses the order of
// thread among those of the same time.
func TestPutOwners(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 20_000
	os := make([]Blame, n)
	th := format.ThreadID(0)
	for i := range os {
		th += format.ThreadID(1 + r.IntN(1<<20))
		if i%7 == 0 {
			th |= 1 << 40 // both parts of a ThreadID
		}
		os[i] = Blame{Thread: th, Contentions: r.IntN(5), Blamed: format.Time(r.IntN(50))}
	}
	want := slices.Clone(os)
	slices.SortStableFunc(want, func(a, b Blame) int { return cmp.Compare(b.Blamed, a.Blamed) })
	l := &Lock{Owners: make([]Blame, 0, n)}
	in := slices.Clone(os)
	if a := testing.AllocsPerRun(1, func() {
		copy(in, os)
		l.Owners = l.Owners[:0]
		putOwners(l, in, nil)
	}); a != 0 {
		t.Errorf("%v allocations to sort %d owners, want none", a, n)
	}
	if !slices.Equal(l.Owners, want) {
		t.Error("the owners are not in the order of a stable sort by time blamed")
	}
}
