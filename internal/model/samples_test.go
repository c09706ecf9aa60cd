package model_test

import (
	"testing"

	"orca/internal/format"
	. "orca/internal/model"
	"orca/internal/testrec"
)

// TestSamplesByStack: the case samples.txtar's samples summed by stack,
// for every thread, for one thread and a time range, and by kind.
func TestSamplesByStack(t *testing.T) {
	_, res := testrec.Build(t, testrec.Parse(t, "testdata/cases/samples.txtar"), "samples")
	m := res.Model
	if m.Samples != 5 || !m.SchedTimes {
		t.Fatalf("Samples %d, SchedTimes %v; want 5, true", m.Samples, m.SchedTimes)
	}
	s1, s2 := StackID(1), StackID(2)
	check := func(name string, q SampleQuery, want []StackSamples) {
		t.Helper()
		got := m.SamplesByStack(q)
		if len(got) != len(want) {
			t.Fatalf("%s: got %v, want %v", name, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: got %v, want %v", name, got, want)
			}
		}
	}
	at := func(s float64) format.Time { return m.Start + format.Time(s*1e9) }
	check("all", SampleQuery{}, []StackSamples{{s2, 1, 50e6}, {s1, 4, 40e6}})
	check("cpu", SampleQuery{Kind: format.SampleCPU}, []StackSamples{{s1, 4, 40e6}})
	worker := func(th *Thread) bool { return th.ID == 1 }
	// [0.2, 1.5): the sample at 0.2 and the wall one; not the one at 1.5.
	check("worker 0.2-1.5", SampleQuery{Threads: worker, From: at(0.2), To: at(1.5)}, []StackSamples{{s2, 1, 50e6}, {s1, 1, 10e6}})
	check("worker from 1", SampleQuery{Threads: worker, From: at(1)}, []StackSamples{{s1, 1, 10e6}})
	if n := len(m.Thread(1).SamplesIn(at(0.1), at(0.3))); n != 2 {
		t.Errorf("SamplesIn(0.1, 0.3): %d samples, want 2", n)
	}
}
