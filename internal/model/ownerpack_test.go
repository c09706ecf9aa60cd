package model

import (
	"math/rand/v2"
	"slices"
	"testing"

	"orca/internal/format"
)

// TestOwnerPack checks a lock's owner changes packed (HoldersDoing's)
// against the changes: every range decoded, across the marks, with times
// out of order by a little and owners of both parts of a ThreadID.
func TestOwnerPack(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 100, 5000} {
		var cs []OwnerChange
		p := &ownerPack{num: map[format.ThreadID]uint32{}}
		at := format.Time(r.IntN(1 << 40))
		for range n {
			at += format.Time(r.IntN(1<<20)) - 1000
			c := OwnerChange{At: at, Owner: format.NewThreadID(r.Uint32(), uint32(r.IntN(2)))}
			if r.IntN(4) > 0 && len(cs) > 0 {
				c.Owner = cs[r.IntN(len(cs))].Owner
			}
			cs = append(cs, c)
			p.add(c)
		}
		var buf []OwnerChange
		for from := 0; from <= n; from += 1 + r.IntN(7) {
			for to := from; to <= n && to <= from+40; to += 1 + r.IntN(5) {
				buf = p.decode(from, to, buf)
				if !slices.Equal(buf, cs[from:to]) {
					t.Fatalf("%d changes: [%d:%d] decoded %v, want %v", n, from, to, buf, cs[from:to])
				}
			}
		}
	}
}
