package analysis

import (
	"testing"

	"orca/internal/format"
)

// TestNodeIndex: a thread's node by ID, in the slice and in the table beyond
// it (a virtual thread's large ID, hundreds of them), as a map of them all would say; fails
// with a node off by one or an ID past the slice taken for another's.
func TestNodeIndex(t *testing.T) {
	ids := []format.ThreadID{1, 7, 3, 1 << 40, 5000, 2}
	var x nodeIndex
	x.reset(ids)
	want := map[format.ThreadID]int32{}
	for i, id := range ids {
		want[id] = int32(i)
	}
	x.set(9, 6) // a thread waited for that Model.Threads lacks
	want[9] = 6
	x.set(1<<41, 7)
	want[1<<41] = 7
	for i := range 300 { // the table beyond the slice grown
		id := format.ThreadID(1<<42 + i*7919)
		x.set(id, int32(8+i))
		want[id] = int32(8 + i)
	}
	for id := range want {
		if n, ok := x.lookup(id); !ok || n != want[id] {
			t.Errorf("node of %d: %d, %v; want %d", id, n, ok, want[id])
		}
	}
	for _, id := range []format.ThreadID{0, 1, 2, 3, 4, 7, 9, 5000, 5001, 1 << 40, 1 << 41, 1<<40 + 1} {
		n, ok := x.lookup(id)
		w, wok := want[id]
		if n != w && ok || ok != wok || x.get(id) != w {
			t.Errorf("node of %d: %d, %v (get %d); want %d, %v", id, n, ok, x.get(id), w, wok)
		}
	}
	if len(x.by) > 4*len(ids)+1024 {
		t.Errorf("the slice by ID has %d entries for %d threads", len(x.by), len(ids))
	}
}
