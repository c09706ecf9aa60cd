package model

import (
	"slices"
	"testing"
)

// TestNumTab: a numTab holds what a slice grown by append would, across
// its chunks' edges, and its entries reached are zero.
func TestNumTab(t *testing.T) {
	var tab numTab[int64]
	var want []int64
	for i := range 3*numChunk + 5 {
		v := int64(i)*7 + 1
		if n := tab.push(v); n != int32(i) {
			t.Fatalf("push %d numbered %d", i, n)
		}
		want = append(want, v)
		if i%1000 == 999 {
			*tab.at(int32(i / 2)) = -1
			want[i/2] = -1
		}
	}
	if tab.len() != int32(len(want)) {
		t.Fatalf("len %d, want %d", tab.len(), len(want))
	}
	if got := slices.Collect(tab.all()); !slices.Equal(got, want) {
		t.Fatalf("all: %d entries, want %d (or not equal)", len(got), len(want))
	}
	for i, v := range want {
		if *tab.at(int32(i)) != v {
			t.Fatalf("at(%d) = %d, want %d", i, *tab.at(int32(i)), v)
		}
	}
	tab.reach(int32(len(want)) + 2*numChunk)
	for i := len(want); i < int(tab.len()); i++ {
		if *tab.at(int32(i)) != 0 {
			t.Fatalf("at(%d) = %d after reach, want 0", i, *tab.at(int32(i)))
		}
	}
	if tab.len() != int32(len(want))+2*numChunk || len(tab.chunks) != 6 {
		t.Fatalf("reach: len %d in %d chunks", tab.len(), len(tab.chunks))
	}
	tab.reach(3) // never shrinks
	if tab.len() != int32(len(want))+2*numChunk {
		t.Fatalf("reach(3) made len %d", tab.len())
	}
	n := 0
	for range tab.all() {
		if n++; n == 10 {
			break
		}
	}
	var empty numTab[*lockAgg]
	for range empty.all() {
		t.Fatal("an empty table yields")
	}
}
