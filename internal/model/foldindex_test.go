package model

import (
	"math/rand"
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
