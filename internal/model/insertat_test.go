package model

import (
	"slices"
	"testing"

	"orca/internal/format"
)

// TestInsertAt: a sample in time order goes at the end, one that comes
// late among the earlier ones at its place, after those of its time.
func TestInsertAt(t *testing.T) {
	at := func(s *Sample) format.Time { return s.At }
	var s []Sample
	for i, x := range []format.Time{10, 20, 30, 15, 20, 5, 40} {
		s = insertAt(s, Sample{At: x, Stack: StackID(i)}, x, at)
	}
	var got []format.Time
	var stacks []StackID
	for _, x := range s {
		got = append(got, x.At)
		stacks = append(stacks, x.Stack)
	}
	if want := []format.Time{5, 10, 15, 20, 20, 30, 40}; !slices.Equal(got, want) {
		t.Errorf("times %v, want %v", got, want)
	}
	if want := []StackID{5, 0, 3, 1, 4, 2, 6}; !slices.Equal(stacks, want) {
		t.Errorf("order %v, want %v (of equal times, the later added after)", stacks, want)
	}
	if n := testing.AllocsPerRun(100, func() {
		s := make([]Sample, 0, 4)
		s = insertAt(s, Sample{At: 2}, 2, at)
		s = insertAt(s, Sample{At: 1}, 1, at)
		_ = s
	}); n > 1 {
		t.Errorf("%v allocations for two samples in room for four, want the room's alone", n)
	}
}
