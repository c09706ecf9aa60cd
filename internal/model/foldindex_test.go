package model

import (
	"math/rand"
	"runtime"
	"testing"
	"unsafe"

	"orca/internal/format"
)

// TestFoldIndex: the fold's threads found by ID as a map of them would
// find them, across the table's growth (and from a table grown first, as
// Build with Options.Threads makes it), the IDs' of one hash's slot
// and random ones; an ID not added is not found. Fails with a number off
// by one, or the growth losing one.
func TestFoldIndex(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, pre := range []int{0, 100, 5000} {
		var x foldIndex
		x.grow(pre)
		want := map[format.ThreadID]*tstate{}
		for i := range 3000 {
			id := format.ThreadID(rng.Uint64())
			if i%3 == 0 {
				id = format.ThreadID(i) << 40 // the low bits the same
			}
			if want[id] != nil || id == 0 {
				continue
			}
			ts := &tstate{id: id, num: uint32(len(x.byNum))}
			x.add(ts)
			want[id] = ts
		}
		for id, ts := range want {
			if got := x.get(id); got != ts {
				t.Fatalf("pre %d: %v found %p, want %p", pre, id, got, ts)
			}
		}
		for range 1000 {
			if id := format.ThreadID(rng.Uint64()); want[id] == nil && x.get(id) != nil {
				t.Fatalf("pre %d: %v found, never added", pre, id)
			}
		}
		for i, ts := range x.byNum {
			if ts.num != uint32(i) {
				t.Fatalf("pre %d: byNum[%d] is number %d", pre, i, ts.num)
			}
		}
	}
}

// TestThreadSlab: a slab of Threads fills whole pages (threadSlab), for
// sizes of a Thread other than today's too.
func TestThreadSlab(t *testing.T) {
	for _, size := range []int{int(unsafe.Sizeof(Thread{})), 64, 72, 296, 304, 312, 8 << 10, 40 << 10} {
		n := slabOfPages(size, 256)
		if n < 256 || n*size%(8<<10) != 0 || n >= 256+8<<10 {
			t.Errorf("size %d: %d elements, %d bytes", size, n, n*size)
		}
	}
	if n := threadSlab * int(unsafe.Sizeof(Thread{})); n%(8<<10) != 0 {
		t.Errorf("a slab of %d Threads is %d bytes, not whole pages", threadSlab, n)
	}
}

// TestFoldIndexWeak: the weak pointers of threads let go whose tstate the
// collector took are dropped as more are let go, so that wk stays the
// size of those still held, not of every thread let go; a tstate still
// held is found again, the same pointer, and one taken is not. Fails
// with every weak pointer kept (a slot by number: 100 000 here).
func TestFoldIndexWeak(t *testing.T) {
	var x foldIndex
	ids := []format.ThreadID{}
	x.ids = &ids
	var held []*tstate
	const n = 100_000
	for i := range n {
		ts := &tstate{id: format.ThreadID(i + 1), num: uint32(i)}
		x.add(ts)
		ids = append(ids, ts.id)
		if i%1000 == 0 {
			held = append(held, ts)
		}
		x.keepWeak(ts)
		x.byNum[i] = nil
		if i%10_000 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	x.prune()
	if len(x.wk) > 2*len(held) {
		t.Errorf("%d weak pointers kept of %d threads let go, %d held", len(x.wk), n, len(held))
	}
	for _, ts := range held {
		if got := x.weakOf(int(ts.num)); got != ts {
			t.Fatalf("thread %d held: found %p, want %p", ts.num, got, ts)
		}
	}
	if got := x.weakOf(1); got != nil {
		t.Errorf("thread 1, taken by the collector: found %p", got)
	}
	runtime.KeepAlive(held)
}
