package model

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"runtime"
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

// TestFinishOwners: a lock's owners in runs (Options.SpillOwners) are
// summed by thread, sorted as Lock.Owners and written to the spill
// holding at most ownerChunk of them at once, and read back (OwnersOf)
// as the same owners sorted in memory. Fails with them all merged into
// memory first (their 32 bytes each, and a sort's copy).
func TestFinishOwners(t *testing.T) {
	s, err := openSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.f.Close()
	old := ownerChunk
	defer func() { ownerChunk = old }()
	ownerChunk = 4096
	r := rand.New(rand.NewPCG(9, 10))
	sum := map[format.ThreadID]Blame{}
	a := &lockAgg{l: &Lock{}, sp: s}
	const n = 100_000
	for range 4 {
		var run []Blame
		th := format.ThreadID(0)
		for range n / 2 {
			th += format.ThreadID(1 + r.IntN(8))
			bl := Blame{Thread: th, Contentions: 1 + r.IntN(3), Blamed: format.Time(r.IntN(1000)), Open: r.IntN(2)}
			run = append(run, bl)
			u := sum[th]
			u.Thread, u.Contentions, u.Blamed, u.Open = th, u.Contentions+bl.Contentions, u.Blamed+bl.Blamed, u.Open+bl.Open
			sum[th] = u
		}
		rs, ok := putRun(s, run, func(b []byte, bl, prev *Blame) []byte { return appendOwner(b, bl, prev.Thread) })
		if !ok {
			t.Fatal("the spill took no run")
		}
		a.cont().ownerRuns = append(a.cont().ownerRuns, rs)
	}
	var want []Blame
	for _, bl := range sum {
		want = append(want, bl)
	}
	sortOwners(want)
	var l Lock
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	a.finishOwners(&l)
	runtime.ReadMemStats(&after)
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	if got := (&Model{spill: s}).OwnersOf(&l); !slices.Equal(got, want) || l.OwnerCount() != len(want) {
		t.Fatalf("%d owners read back (%d counted), want %d", len(got), l.OwnerCount(), len(want))
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > uint64(len(want))*32/4 {
		t.Errorf("%d bytes allocated for %d owners, in chunks of %d", a, len(want), ownerChunk)
	}
}

// TestUnparkedSize: a lock's table of its unparkers keeps 16 bytes beside
// each thread's key (a thread each of the many that ever unparked a
// waiter), not a Blame of 32. Fails with the Blame kept.
func TestUnparkedSize(t *testing.T) {
	if n := reflect.TypeOf(unparkAgg{}).Size(); n > 16 {
		t.Errorf("%d bytes an unparker, want 16", n)
	}
	u := unparkAgg{n: 3, blamed: 7}
	if got, want := u.blame(5), (Blame{Thread: 5, Contentions: 3, Blamed: 7}); got != want {
		t.Errorf("blame %+v, want %+v", got, want)
	}
}

// TestUnparkTab: a lock's unparkers, listed while few and in a map once
// more than unparkFew, sum as one map would, each thread once.
func TestUnparkTab(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, threads := range []int{1, unparkFew, unparkFew + 1, 100} {
		var tab unparkTab
		want := map[format.ThreadID]unparkAgg{}
		for range 20 * threads {
			th, d := format.ThreadID(1+r.IntN(threads)), format.Time(r.IntN(1000))
			tab.add(th, d)
			u := want[th]
			u.n, u.blamed = u.n+1, u.blamed+d
			want[th] = u
		}
		got := map[format.ThreadID]unparkAgg{}
		for th, u := range tab.all {
			if _, ok := got[th]; ok {
				t.Fatalf("%d threads: %d listed twice", threads, th)
			}
			got[th] = u
		}
		if !reflect.DeepEqual(got, want) || tab.len() != len(want) {
			t.Errorf("%d threads: %d unparkers %v, want %v", threads, tab.len(), got, want)
		}
		if (tab.many != nil) != (len(want) > unparkFew) {
			t.Errorf("%d threads: map %v with %d unparkers", threads, tab.many != nil, len(want))
		}
	}
}
