package model

import (
	"math/rand"
	"testing"

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
