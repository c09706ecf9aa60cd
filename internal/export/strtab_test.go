package export

import (
	"fmt"
	"testing"
)

// TestStrTab: strings numbered in the order first seen, the same number
// for the same string however often asked, through the table's growths;
// each read back as given, the empty string among them.
func TestStrTab(t *testing.T) {
	var tab strTab
	want := map[string]int64{}
	var order []string
	ask := func(v string) {
		n := tab.index(v)
		if w, ok := want[v]; ok {
			if n != w {
				t.Fatalf("index(%q) = %d, first %d", v, n, w)
			}
			return
		}
		if n != int64(len(order)) {
			t.Fatalf("index(%q) = %d, the %d-th new string", v, n, len(order))
		}
		want[v] = n
		order = append(order, v)
	}
	ask("")
	for i := range 20000 {
		ask(fmt.Sprintf("%08X", i*7919))
		ask(fmt.Sprintf("%08X", i/3*7919)) // seen before, most of them
		if i%1000 == 0 {
			ask("")
			ask("thread")
		}
	}
	if tab.len() != len(order) {
		t.Fatalf("len %d, want %d", tab.len(), len(order))
	}
	for n, v := range order {
		if got := string(tab.bytes(n)); got != v {
			t.Fatalf("bytes(%d) = %q, want %q", n, got, v)
		}
	}
	if len(tab.slots) < 2*tab.len() {
		t.Errorf("%d slots for %d strings: the table fuller than half", len(tab.slots), tab.len())
	}
}
