package format

import (
	"fmt"
	"testing"
)

// TestHex: Hex writes what fmt's %08X does, at the edges and between.
func TestHex(t *testing.T) {
	for _, v := range []uint32{0, 1, 0xF, 0x10, 0xABCDEF, 0x5CDA6869, 0x80000000, 0xFFFFFFFF} {
		if got, want := Hex(v), fmt.Sprintf("%08X", v); got != want {
			t.Errorf("Hex(%#x) = %q, want %q", v, got, want)
		}
	}
	for w := uint64(1); w < 1<<32; w = w*3 + 1 {
		v := uint32(w)
		if got, want := Hex(v), fmt.Sprintf("%08X", v); got != want {
			t.Fatalf("Hex(%#x) = %q, want %q", v, got, want)
		}
	}
}
