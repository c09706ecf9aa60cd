package analysis

import (
	"math/rand/v2"
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

// TestNodeIndexSparse: IDs below the slice's limit few and spread over it
// (identity hashes) are in the table, with the others: no slice.
func TestNodeIndexSparse(t *testing.T) {
	var ids []format.ThreadID
	for i := range 4000 {
		ids = append(ids, format.ThreadID(1<<31+uint64(i)*2654435761%(1<<31)))
	}
	ids = append(ids, 3, 9000, 16000) // below 4*len+1024, far apart
	var x nodeIndex
	x.reset(ids)
	if len(x.by) != 0 {
		t.Errorf("a slice by ID of %d entries for %d IDs below its limit", len(x.by), 3)
	}
	for i, id := range ids {
		if n, ok := x.lookup(id); !ok || n != int32(i) {
			t.Errorf("node of %d: %d, %v; want %d", id, n, ok, i)
		}
	}
	// IDs of more than 32 bits (nodeIndex.huge): none of them is the
	// node of the ID of their low 32 bits.
	for _, id := range []format.ThreadID{0, 1, 4, 8999, 1 << 40, ids[0] + 1<<32, ids[1] + 1<<33} {
		if n, ok := x.lookup(id); ok {
			t.Errorf("node of %d: %d, want none", id, n)
		}
	}
	x.set(5, int32(len(ids)))
	if n, ok := x.lookup(5); !ok || n != int32(len(ids)) {
		t.Errorf("node of 5 set after: %d, %v", n, ok)
	}
	x.set(ids[2]+1<<32, int32(len(ids)+1))
	if n, ok := x.lookup(ids[2] + 1<<32); !ok || n != int32(len(ids)+1) {
		t.Errorf("node of %d set after: %d, %v", ids[2]+1<<32, n, ok)
	}
	if n, ok := x.lookup(ids[2]); !ok || n != 2 {
		t.Errorf("node of %d after %d's set: %d, %v", ids[2], ids[2]+1<<32, n, ok)
	}
}

// TestLinkWord: a linkKey packed in a word comes back, at the extremes of
// its bits and between; fails with a field's bits off by one (x's taken
// for to's, lk cut).
func TestLinkWord(t *testing.T) {
	for _, b := range []struct{ node, lk uint8 }{{1, 1}, {21, 12}, {22, 20}, {31, 2}, {24, 16}} {
		top := int32(1)<<b.node - 1
		lkTop := uint32(1)<<b.lk - 1
		for _, k := range []linkKey{{0, 0, 0}, {top, 0, 0}, {0, top, 0}, {0, 0, lkTop}, {top, top, lkTop}, {top / 3, top / 2, lkTop / 2}, {1, top - 1, 1}} {
			if got := linkOf(linkWord(k.x, k.to, k.lk, b.node, b.lk), b.node, b.lk); got != k {
				t.Errorf("%d and %d bits: %+v came back as %+v", b.node, b.lk, k, got)
			}
		}
	}
}

// TestNodeIndexModel: the nodes of a Model's threads found by its index
// (Model.ThreadIndexWith), the threads waited for that it lacks by the
// chains' own, give what an index of them all gives (the plain one), for
// every ID and for IDs of none; fails with the Model's index not asked
// first or an ID of its taken for another.
func TestNodeIndexModel(t *testing.T) {
	m := spilledModel(t)
	ids := make([]format.ThreadID, m.NumThreads())
	for i, th := range m.AllThreads() {
		ids[i] = th.ID
	}
	if len(ids) < 2 {
		t.Fatalf("%d threads", len(ids))
	}
	var plain, via nodeIndex
	plain.reset(ids)
	if _, ok := m.ThreadIndexWith(0, ids); !ok {
		t.Fatal("the model has no index of its threads")
	}
	via.reset(nil)
	via.m, via.ids, via.nm = m, &ids, len(ids)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 500 { // the threads waited for that the Model lacks
		id := format.ThreadID(rng.Uint64N(1 << 33))
		if i%3 == 0 {
			id = format.ThreadID(rng.Uint64N(4096))
		}
		if _, ok := plain.lookup(id); ok {
			continue
		}
		n := int32(len(ids))
		ids = append(ids, id) // the chains' ids grow so (emit)
		plain.set(id, n)
		via.set(id, n)
	}
	for _, id := range ids {
		pn, pok := plain.lookup(id)
		vn, vok := via.lookup(id)
		if pn != vn || pok != vok || !vok {
			t.Fatalf("node of %d: %d, %v by the Model's index; %d, %v by the plain one", id, vn, vok, pn, pok)
		}
	}
	for range 2000 {
		id := format.ThreadID(rng.Uint64N(1 << 34))
		pn, pok := plain.lookup(id)
		vn, vok := via.lookup(id)
		if pn != vn && pok || pok != vok {
			t.Fatalf("node of %d: %d, %v by the Model's index; %d, %v by the plain one", id, vn, vok, pn, pok)
		}
	}
}
