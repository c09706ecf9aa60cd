package model_test

import (
	"testing"

	. "orca/internal/model"
)

// TestThreadIndex: a built Model's index of its threads by ID is the
// fold's own table, renumbered in the Threads' final order (at most 3/4
// full), not one made again at twice as many slots as threads; every
// thread, packed or not, is found at its index, and IDs not in the model
// are not found. Fails with the index made again (its size), or the
// fold's table not renumbered (a thread found at its number in the fold).
func TestThreadIndex(t *testing.T) {
	smaller := 0
	eachCaseAndSynth(t, func(t *testing.T, prefix string) {
		pm, m := packedAndPlain(t, prefix)
		for _, m := range []*Model{pm, m} {
			n := m.NumThreads()
			for i := range n {
				id := m.ThreadIDAt(i)
				if got := m.IndexOf(id); got != i {
					t.Fatalf("thread %v of index %d found at %d", id, i, got)
				}
				if th := m.Thread(id); th == nil || th.ID != id {
					t.Fatalf("thread %v not found by ID", id)
				}
			}
			if m.IndexOf(0xdead_beef_0bad) >= 0 {
				t.Fatal("an ID of no thread found")
			}
			slots := ThreadIndexSlots(m)
			if 4*n > 3*slots || slots > 16 && 3*slots/2 >= 4*n {
				t.Fatalf("%d slots for %d threads, want the fold's: at most 3/4 full", slots, n)
			}
			if slots < 2*n {
				smaller++
			}
		}
	})
	if smaller == 0 {
		t.Fatal("no model's index is smaller than twice its threads: the test tells the two apart nowhere")
	}
}
