package model

import (
	"sort"
	"testing"
)

// TestSearchFrom checks the galloping search against sort.Search for every
// length up to 70, every answer and every place it starts from, before,
// at and past the answer.
func TestSearchFrom(t *testing.T) {
	for n := 0; n <= 70; n++ {
		for answer := 0; answer <= n; answer++ {
			f := func(i int) bool { return i >= answer }
			want := sort.Search(n, f)
			for from := -1; from <= n+1; from++ {
				if got := searchFrom(n, from, f); got != want {
					t.Fatalf("searchFrom(%d, %d) with the answer %d: %d", n, from, want, got)
				}
			}
		}
	}
}
