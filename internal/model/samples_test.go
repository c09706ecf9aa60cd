package model_test

import (
	"slices"
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

// TestRunIn: a part of a window gets its share of the window's split
// (samples.txtar: W's window 0..1 has 0.5 s runnable, 0.3 running, 0.1
// ready, 0.1 other, cpu samples of 0.02 s at 0.1 and 0.2, a wall sample of
// 0.05 s at 0.3; 1..2 has 1 s, all running, a cpu sample at 1.5).
//   - 0..0.25 (0.25 s runnable, half the window's): running 0.02 placed
//     by the samples, both in it, and half the other 0.28: 0.16; ready
//     half: 0.05; other: half of the 0.05 the wall sample does not
//     place, 0.025, and the 0.015 left: 0.04.
//   - 0.25..1.5: in 0..1, running 0.14 (the other half of 0.28), ready
//     0.05, other 0.05 placed by the wall sample and half of 0.05 is
//     0.075, cut to the 0.06 left; in 1..1.5, running at least the 0.5
//     the rest of its window cannot hold (its sample at 1.5 is not in
//     it).
func TestRunIn(t *testing.T) {
	_, res := testrec.Build(t, testrec.Parse(t, "testdata/cases/samples.txtar"), "samples")
	m := res.Model
	at := func(s float64) format.Time { return m.Start + format.Time(s*1e9) }
	w := m.Thread(1)
	for _, c := range []struct {
		from, to float64
		want     RunSplit
	}{
		{0, 0.25, RunSplit{Running: 160e6, Ready: 50e6, Other: 40e6}},
		{0.25, 1.5, RunSplit{Running: 640e6, Ready: 50e6, Other: 60e6}},
		{0.5, 1, RunSplit{}}, // asleep
		{0, 2, w.Run},
	} {
		if got := w.RunIn(at(c.from), at(c.to)); got != c.want {
			t.Errorf("RunIn(%g, %g) = %+v, want %+v", c.from, c.to, got, c.want)
		}
	}
}

// TestHoldersDoing: holder-doing.txtar's monitor M, blocked on 0..1.2:
// its holder H (0..1) running 0.6, ready 0.05, other 0.3, blocked 0.05 on
// N held by X; B1 and B2 (1..1.2) runnable, unsplit 0.2; H's samples in
// 0..1 only.
func TestHoldersDoing(t *testing.T) {
	_, res := testrec.Build(t, testrec.Parse(t, "testdata/cases/holder-doing.txtar"), "holder")
	m := res.Model
	all := m.Filter(nil).HoldersDoing()
	d := all[LockRef{0xAAAA, Monitor}]
	if d == nil {
		t.Fatalf("no Doing for monitor AAAA: %v", all)
	}
	if d.Blocked != 1200e6 || d.Unknown != 0 {
		t.Errorf("blocked %v, unknown %v; want 1.2s, 0", d.Blocked, d.Unknown)
	}
	var want [NumStates]format.Time
	want[Runnable], want[Blocked] = 1150e6, 50e6
	if d.Time != want {
		t.Errorf("time by state %v, want %v", d.Time, want)
	}
	if r := (RunSplit{Running: 600e6, Ready: 50e6, Other: 300e6, Unsplit: 200e6}); d.Run != r {
		t.Errorf("run %+v, want %+v", d.Run, r)
	}
	if len(d.On) != 1 || d.On[0] != (HeldOn{LockRef{0xBBBB, Monitor}, 9, 50e6}) {
		t.Errorf("on %+v, want N held by X 0.05 s", d.On)
	}
	wantS := []DoingSamples{{2, format.SampleCPU, 3, 600e6}, {3, format.SampleWall, 1, 300e6}}
	if len(d.Samples) != 2 || d.Samples[0] != wantS[0] || d.Samples[1] != wantS[1] {
		t.Errorf("samples %+v, want %+v", d.Samples, wantS)
	}
	wantSp := []OwnerSpan{{m.Start, m.Start + 1e9, 1}, {m.Start + 1e9, m.Start + 1100e6, 0xB}, {m.Start + 1100e6, m.Start + 1200e6, 0xC}}
	if len(d.Spans) != 3 || d.Spans[0] != wantSp[0] || d.Spans[1] != wantSp[1] || d.Spans[2] != wantSp[2] {
		t.Errorf("spans %+v, want %+v", d.Spans, wantSp)
	}
	// N: X holds it, X has no scheduler times: 0.05 s runnable, unsplit.
	if n := all[LockRef{0xBBBB, Monitor}]; n == nil || n.Blocked != 50e6 || n.Run.Unsplit != 50e6 {
		t.Errorf("N: %+v", n)
	}
	// Through a filter of the waiters B3 alone: its contention 0.2..1.2, H 0.2..1.
	d = m.Filter(func(th *Thread) bool { return th.ID == 0xD }).HoldersDoing()[LockRef{0xAAAA, Monitor}]
	// H's runnable time in 0.2..1 is 0.75 of the window's 0.95: its cpu
	// samples in it are 0.4 s of the window's 0.6 s (running 0.4), its wall
	// sample all of the window's (other 0.3), ready 0.05 × 0.75 ÷ 0.95.
	// The 0.0105… s left is not other (the window has no more of it: the
	// rule before made it 0.3105…) but what the window has left of running
	// (0.2) and ready (0.0105…), in proportion: running 0.41, ready 0.04.
	if r := (RunSplit{Running: 410e6, Ready: 40e6, Other: 300e6, Unsplit: 200e6}); d.Blocked != 1000e6 || d.Run != r {
		t.Errorf("B3 only: blocked %v, run %+v", d.Blocked, d.Run)
	}
}

// handOffOf is iv's hand-off stretch (Interval.HandOff), as DoingIn
// takes it: none when it has none.
func handOffOf(iv *Interval) []OwnerSpan {
	if from, ok := iv.HandOff(); ok {
		return []OwnerSpan{{Start: from, End: iv.End}}
	}
	return nil
}

// holdersDoingOf builds testdata/cases/NAME.txtar and returns its model
// and what the holders of ref did (HoldersDoing), failing when none is told.
func holdersDoingOf(t *testing.T, name string, ref LockRef) (*Model, *Doing) {
	t.Helper()
	_, res := testrec.Build(t, testrec.Parse(t, "testdata/cases/"+name+".txtar"), name)
	d := res.Model.Filter(nil).HoldersDoing()[ref]
	if d == nil {
		t.Fatalf("%s: no Doing for %v", name, ref)
	}
	return res.Model, d
}

// TestHoldersReleased: holder-released.txtar's monitor M, blocked on
// 0..0.7 by B, names H its holder throughout; H waited on another monitor
// 0.2..0.3 holding M (waiting), then on M itself from 0.5, letting it go:
// released 0.2, not waiting. The viewer's fold of B's contention
// (DoingIn) says the same.
func TestHoldersReleased(t *testing.T) {
	ref := LockRef{0xAAAA, Monitor}
	m, d := holdersDoingOf(t, "holder-released", ref)
	var want [NumStates]format.Time
	want[Runnable], want[Waiting] = 400e6, 100e6
	if d.Blocked != 700e6 || d.Released != 200e6 || d.Unknown != 0 || d.Time != want {
		t.Errorf("blocked %v, released %v, unknown %v, by state %v; want 0.7 s, 0.2 s, 0, %v", d.Blocked, d.Released, d.Unknown, d.Time, want)
	}
	b := m.Thread(0xB)
	in := m.DoingIn(ref, slices.Collect(m.BlameSpans(b.ID, &b.Intervals[0])), nil)
	if in.Released != d.Released || in.Time != d.Time {
		t.Errorf("DoingIn: released %v, by state %v; want HoldersDoing's %v, %v", in.Released, in.Time, d.Released, d.Time)
	}
}

// TestHoldersReleasedCondition: condition-release.txtar. While C was
// blocked on sync BEEF (1.0..1.6) its holder B was runnable 0.2, parked on
// F0F0 (a condition of another lock, FEED: it held BEEF) 0.2 and parked on
// C0DE (BEEF's own condition: Condition.await released BEEF) 0.2: released,
// not parked. While A and B were blocked (0..0.4) holder H (their parks
// name it) ran to 0.1, when it let A in while B stayed parked (a hand-off:
// B's park waits for A from then), and A ran to 0.3; from 0.3, when A's
// await released BEEF and unparked B, to B's acquire at 0.4, BEEF was
// handed off: released 0.1. Before ConditionLock, the 0.2 s on C0DE were
// parked.
func TestHoldersReleasedCondition(t *testing.T) {
	ref := LockRef{0xBEEF, JUCLock}
	m, d := holdersDoingOf(t, "condition-release", ref)
	var want [NumStates]format.Time
	want[Runnable], want[Parked] = 500e6, 200e6
	if d.Blocked != 1000e6 || d.Released != 300e6 || d.Unknown != 0 || d.Time != want {
		t.Errorf("blocked %v, released %v, unknown %v, by state %v; want 1 s, 0.3 s, 0, %v", d.Blocked, d.Released, d.Unknown, d.Time, want)
	}
	c := m.Thread(0xC)
	in := m.DoingIn(ref, slices.Collect(m.BlameSpans(c.ID, &c.Intervals[0])), handOffOf(&c.Intervals[0]))
	if in.Released != 200e6 || in.Time[Parked] != 200e6 {
		t.Errorf("DoingIn C's contention: released %v, by state %v; want 0.2 s released, 0.2 s parked", in.Released, in.Time)
	}
	// The same park, seen from the lock of its own condition: F0F0 is
	// FEED's, so it releases FEED, not BEEF.
	b := m.Thread(0xB)
	for i := range b.Intervals {
		iv := &b.Intervals[i]
		if iv.Object == 0xF0F0 && (m.Releases(iv, ref) || !m.Releases(iv, LockRef{0xFEED, JUCLock})) {
			t.Errorf("B's park on F0F0: releases BEEF %v, FEED %v; want false, true", m.Releases(iv, ref), m.Releases(iv, LockRef{0xFEED, JUCLock}))
		}
	}
}

// TestHoldersHandOff: juc-handoff.txtar. While W and X were blocked on
// sync BEEF (0..1.1), their parks naming H: H runnable 0.5; released 0.4,
// the hand-offs 0.5..0.8 (H's unlock unparked W, then H parked on latch
// CAFE) and 1.0..1.1 (W's unparked X); W, which held the lock 0.8..1.0
// while X stayed parked (Model.handOffs: X's park waits for W from W's
// park's end), runnable 0.2 (before, X's park named H all along, and that
// was "parked 0.2", H on its latch). The viewer's fold of each
// contention, with its own hand-off: W's 0.5 runnable, 0.3 released; X's
// 0.5 runnable (H 0.3, W 0.2), 0.3 parked (H on the latch during W's
// hand-off, which is not X's), 0.1 released.
func TestHoldersHandOff(t *testing.T) {
	ref := LockRef{0xBEEF, JUCLock}
	m, d := holdersDoingOf(t, "juc-handoff", ref)
	var want [NumStates]format.Time
	want[Runnable] = 700e6
	if d.Blocked != 1100e6 || d.Released != 400e6 || d.Unknown != 0 || d.Time != want {
		t.Errorf("blocked %v, released %v, unknown %v, by state %v; want 1.1 s, 0.4 s, 0, %v", d.Blocked, d.Released, d.Unknown, d.Time, want)
	}
	for _, c := range []struct {
		th                        format.ThreadID
		run, parked, released, at format.Time
	}{{0xA, 500e6, 0, 300e6, 500e6}, {0xB, 500e6, 300e6, 100e6, 1000e6}} {
		iv := &m.Thread(c.th).Intervals[0]
		if from, ok := iv.HandOff(); !ok || from != m.Start+c.at {
			t.Errorf("%v's park: hand-off from %v (%v), want %v", c.th, from-m.Start, ok, c.at)
		}
		in := m.DoingIn(ref, slices.Collect(m.BlameSpans(c.th, iv)), handOffOf(iv))
		if in.Time[Runnable] != c.run || in.Time[Parked] != c.parked || in.Released != c.released {
			t.Errorf("DoingIn %v's contention: runnable %v, parked %v, released %v; want %v, %v, %v", c.th, in.Time[Runnable], in.Time[Parked], in.Released, c.run, c.parked, c.released)
		}
	}
	// The latch's park of H itself is no acquire: no hand-off.
	if _, ok := m.Thread(1).Intervals[0].HandOff(); ok {
		t.Errorf("H's park on the latch has a hand-off")
	}
}

// TestHoldersDoingJUC: juc-lock.txtar's java.util.concurrent locks and the
// deadlock through a monitor. Sync BEEF is blocked on 1..2 (holder A) and
// 2.00001..2.5 (C), both runnable then; sync F00D on 1.5..3 (A, runnable)
// and 4..5 (B, blocked on monitor 0B0B held by A); monitor 0B0B on 3.5..5
// (A: runnable to 4, then blocked on F00D held by B). No scheduler times:
// runnable is unsplit.
func TestHoldersDoingJUC(t *testing.T) {
	_, res := testrec.Build(t, testrec.Parse(t, "testdata/cases/juc-lock.txtar"), "juc")
	all := res.Model.Filter(nil).HoldersDoing()
	for _, c := range []struct {
		ref                LockRef
		blocked, run, held format.Time
		on                 []HeldOn
	}{
		{LockRef{0xBEEF, JUCLock}, 1_499_990_000, 1_499_990_000, 0, nil},
		{LockRef{0xF00D, JUCLock}, 2500e6, 1500e6, 1000e6, []HeldOn{{LockRef{0xB0B, Monitor}, 0xA, 1000e6}}},
		{LockRef{0xB0B, Monitor}, 1500e6, 500e6, 1000e6, []HeldOn{{LockRef{0xF00D, JUCLock}, 0xB, 1000e6}}},
	} {
		d := all[c.ref]
		if d == nil {
			t.Errorf("%v: no Doing", c.ref)
			continue
		}
		if d.Blocked != c.blocked || d.Time[Runnable] != c.run || d.Run.Unsplit != c.run || d.Time[Blocked] != c.held || d.Unknown != 0 {
			t.Errorf("%v: blocked %v, runnable %v (%+v), blocked on others %v, unknown %v; want %v, %v, %v", c.ref, d.Blocked, d.Time[Runnable], d.Run, d.Time[Blocked], d.Unknown, c.blocked, c.run, c.held)
		}
		if len(d.On) != len(c.on) || len(c.on) > 0 && d.On[0] != c.on[0] {
			t.Errorf("%v: on %+v, want %+v", c.ref, d.On, c.on)
		}
	}
	if len(all) != 3 {
		t.Errorf("%d locks with holders, want 3", len(all))
	}
}
