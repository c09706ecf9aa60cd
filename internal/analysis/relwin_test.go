package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"

	"orca/internal/format"
)

// TestRelWinGrow: a window trimmed from the front and appended to at the
// back (releasesIn's) holds what a plain slice would, and in a steady state
// (as many added as trimmed) keeps its array. Fails with grow always
// making an array anew.
func TestRelWinGrow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var w relWin
	var want []relSpan
	next := format.Time(0)
	add := func() {
		next++
		if len(w.win) == cap(w.win) {
			w.grow()
		}
		w.win = append(w.win, relSpan{next, next, 0})
		want = append(want, relSpan{next, next, 0})
	}
	trim := func(i int) { w.win, want = w.win[i:], want[i:] }
	for range 20_000 {
		if rng.IntN(3) > 0 || len(want) == 0 {
			add()
		} else {
			trim(rng.IntN(len(want) + 1))
		}
		if !slices.Equal(w.win, want) {
			t.Fatalf("window %v, want %v", w.win, want)
		}
	}
	for range 100 {
		add()
	}
	steady := func() {
		for range 1000 {
			trim(3)
			add()
			add()
			add()
		}
	}
	steady() // the room it needs made
	p := &w.buf[:1][0]
	steady()
	if !slices.Equal(w.win, want) {
		t.Fatalf("window %v, want %v", w.win, want)
	}
	if &w.buf[:1][0] != p {
		t.Errorf("a window of %d, as many trimmed as added: its array made anew", len(w.win))
	}
}
