package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"

	"orca/internal/format"
)

// TestRelWinGrow: a window trimmed from the front and appended to at the
// back (releasesIn's) holds what a plain slice would, and in a steady state
// (as many added as trimmed) keeps its array, which a window let go
// hands on to the next that grows as large. Fails with growWin always
// making an array anew, or spareWin keeping none.
func TestRelWinGrow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s chainSweep
	var w relWin
	var want []relSpan
	next := format.Time(0)
	add := func() {
		next++
		if len(w.win) == cap(w.win) {
			s.growWin(&w)
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
	// Let go (letGoWin's), a window that grows as large again takes its
	// array.
	c := cap(w.buf)
	s.spareWin(w.buf)
	w, want = relWin{}, nil
	for len(w.win) <= c/2 {
		add()
	}
	if &w.buf[:1][0] != p || !slices.Equal(w.win, want) {
		t.Errorf("a window grown after one let go: %v in an array made anew (%v), want %v in its array", w.win, &w.buf[:1][0] != p, want)
	}
}
