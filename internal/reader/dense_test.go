package reader

import (
	"math/rand/v2"
	"testing"

	"orca/internal/format"
)

// TestDenseThreads numbers threads that start, end and come back, more
// of them than denseThreads.near has entries, and wants each number what
// the map alone gives (numberOf): a number the cache kept for a thread
// after it ended, and given since to another, fails.
func TestDenseThreads(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	d := &denseThreads{num: map[format.ThreadID]uint32{}}
	ref := &denseThreads{num: map[format.ThreadID]uint32{}}
	for i := range 200_000 {
		id := format.ThreadID(r.IntN(3 * denseNear))
		if r.IntN(2) == 0 {
			id = format.ThreadID(r.IntN(8)) // a few busy threads
		}
		n, want := d.number(id), ref.numberOf(id)
		if n != want {
			t.Fatalf("event %d: thread %d numbered %d, want %d", i, id, n, want)
		}
		if r.IntN(5) == 0 {
			d.end(n)
			ref.end(want)
		}
	}
}
