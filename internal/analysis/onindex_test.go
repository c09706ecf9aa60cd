package analysis

import (
	"testing"

	"orca/internal/format"
)

// TestOnIndex: onIndex finds every lock added, across its growths, and
// none that was not, as a map of key and index does.
func TestOnIndex(t *testing.T) {
	var x onIndex
	var ons []onKey
	want := map[uint64]uint32{}
	for i := range 50000 {
		// Objects that collide in their low bits, and two kinds each.
		on := onKey{obj: format.ObjectID(uint32(i/2) << 12), how: uint8(i % 2)}
		if _, ok := x.find(on.word(), ons); ok {
			t.Fatalf("%v found before it was added", on)
		}
		k := uint32(len(ons))
		ons = append(ons, on)
		x.add(k, ons)
		want[on.word()] = k
		if i%997 == 0 {
			for w, k := range want {
				if got, ok := x.find(w, ons); !ok || got != k {
					t.Fatalf("after %d: key %x found %d, %v; want %d", i+1, w, got, ok, k)
				}
			}
		}
	}
	if x.n != len(want) || 4*x.n > 3*len(x.slots) {
		t.Fatalf("%d entries in %d slots", x.n, len(x.slots))
	}
	for _, w := range []uint64{onKey{obj: 1}.word(), onKey{obj: 5 << 12, how: 2}.word()} {
		if _, ok := x.find(w, ons); ok {
			t.Fatalf("key %x found, never added", w)
		}
	}
	var empty onIndex
	if _, ok := empty.find(0, nil); ok {
		t.Fatal("an empty index finds")
	}
}
