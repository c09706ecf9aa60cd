package model_test

import (
	"slices"
	"testing"

	"orca/internal/format"
	. "orca/internal/model"
	"orca/internal/testrec"
)

// TestThreadSamplesByStack: one thread's samples of samples.txtar summed by
// stack, by kind, as the model's sum over every thread with a filter
// sums them.
func TestThreadSamplesByStack(t *testing.T) {
	_, res := testrec.Build(t, testrec.Parse(t, "testdata/cases/samples.txtar"), "samples")
	m := res.Model
	s1, s2 := StackID(1), StackID(2)
	for _, c := range []struct {
		id   format.ThreadID
		kind format.SampleKind
		want []StackSamples
	}{
		{1, format.SampleNone, []StackSamples{{s2, 1, 50e6}, {s1, 3, 30e6}}},
		{1, format.SampleCPU, []StackSamples{{s1, 3, 30e6}}},
		{1, format.SampleWall, []StackSamples{{s2, 1, 50e6}}},
		{0xA1, format.SampleCPU, []StackSamples{{s1, 1, 10e6}}},
		{0xC1, format.SampleCPU, nil},
	} {
		th := m.Thread(c.id)
		got := th.SamplesByStack(c.kind)
		if !slices.Equal(got, c.want) {
			t.Errorf("%v %q: %v, want %v", c.id, c.kind, got, c.want)
		}
		filtered := m.SamplesByStack(SampleQuery{Threads: func(x *Thread) bool { return x == th }, Kind: c.kind})
		if !slices.Equal(got, filtered) {
			t.Errorf("%v %q: %v, the filtered model's sum %v", c.id, c.kind, got, filtered)
		}
	}
}
