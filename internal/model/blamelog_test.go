package model_test

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"orca/internal/format"
	. "orca/internal/model"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// TestBlameLog builds every case, and a synthetic recording shaped like a
// busy server's, with the spill and Options.DropIntervals (orca report's
// way) and checks that each contention with owner changes, and each park
// in a java.util.concurrent lock's acquire, has its blame spans in its
// thread's blameLog, the very spans BlameSpans makes from the owner
// changes or the lock's hand-offs (ParkSpans); and that what the holders
// did, read with the logs, is what the pass gives reading every
// contention's owner changes back and searching every park's hand-offs
// (the logs dropped). It fails with a span's length or owner logged or
// read wrong, or an entry matched to the wrong interval (a re-park's
// spans logged from the end of the park before, as the aggregator blames
// them, not from its start: the case juc-repark-handoff).
func TestBlameLog(t *testing.T) {
	logged, changes := 0, 0
	parks, parksLogged, parkSpans := 0, 0, 0
	check := func(t *testing.T, prefix string) {
		_, res := testrec.OpenWith(t, prefix, Options{Spill: true, SpillDir: t.TempDir(), DropIntervals: true, StackMark: testMark})
		m := res.Model
		var buf []Interval
		for _, th := range m.Threads {
			ivs := m.IntervalsOf(th, &buf)
			for i := range ivs {
				iv := &ivs[i]
				if ParkLogged(iv) {
					parks++
					got, ok := BlameLogged(m, th, ivs, i)
					if !ok {
						continue
					}
					parksLogged++
					parkSpans += len(got)
					want := slices.Collect(m.BlameSpans(th.ID, iv))
					if !reflect.DeepEqual(got, want) {
						t.Errorf("thread %v, park at %d: logged %v, from the hand-offs %v", th.ID, iv.Start, got, want)
					}
					continue
				}
				if !HasOwnerChanges(iv) {
					continue
				}
				changes++
				got, ok := BlameLogged(m, th, ivs, i)
				if !ok {
					continue
				}
				logged++
				want := slices.Collect(m.OwnerSpans(th.ID, iv))
				if !reflect.DeepEqual(got, want) {
					t.Errorf("thread %v, contention at %d: logged %v, from the owner changes %v", th.ID, iv.Start, got, want)
				}
			}
		}
		got := m.Filter(nil).HoldersDoing()
		var hd map[LockRef]*Doing
		with := m.Filter(nil).HoldersDoingWith(func(*Thread, *Interval, []OwnerSpan) {})
		DropBlameLogs(m)
		want := m.Filter(nil).HoldersDoing()
		hd = m.Filter(nil).HoldersDoingWith(func(*Thread, *Interval, []OwnerSpan) {})
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(with, hd) {
			t.Errorf("what the holders did, with the blame logs, differs from the owner changes read back")
		}
	}
	eachCaseAndSynth(t, check)
	// Every contention with owner changes is logged (the aggregator is
	// fed each in order of start).
	if logged == 0 || logged != changes {
		t.Errorf("%d contentions with owner changes, %d of them logged", changes, logged)
	}
	// And every park of an acquire, some with hand-offs.
	if parks == 0 || parksLogged != parks || parkSpans == parks {
		t.Errorf("%d parks in acquires, %d of them logged, %d spans", parks, parksLogged, parkSpans)
	}
	t.Logf("%d contentions with owner changes logged; %d parks, %d spans", logged, parksLogged, parkSpans)
}

// eachCaseAndSynth runs check, a subtest each, on the recording of every
// case and on a synthetic one shaped like a busy server's (8 threads, 6
// monitors, 2 semaphores, 1 MB compact).
func eachCaseAndSynth(t *testing.T, check func(t *testing.T, prefix string)) {
	t.Helper()
	paths, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			prefix := filepath.Join(t.TempDir(), name)
			testrec.Write(t, testrec.Parse(t, path), prefix)
			check(t, prefix)
		})
	}
	t.Run("synth", func(t *testing.T) {
		prefix := filepath.Join(t.TempDir(), "synth")
		if _, err := synth.WriteRecording(prefix, synth.Options{Seed: 11, Threads: 8, Monitors: 6, Semaphores: 2, Size: 1 << 20, Encoding: format.EncodingCompact}); err != nil {
			t.Fatal(err)
		}
		check(t, prefix)
	})
}

// TestKeepBlame: HoldersDoingWith with an each lets go every thread's blame
// log (the report's one pass), unless View.KeepBlame (orca view's: its
// panels read them after), and either way gives the same Doings.
func TestKeepBlame(t *testing.T) {
	logged := 0
	eachCaseAndSynth(t, func(t *testing.T, prefix string) {
		opt := Options{Spill: true, SpillDir: t.TempDir(), DropIntervals: true, PackThreads: true, StackMark: testMark}
		bytes := func(m *Model) int {
			n := 0
			for _, th := range m.AllThreads() {
				n += len(BlameBytes(m, th))
			}
			return n
		}
		var doings [2]map[LockRef]*Doing
		for k, keep := range []bool{true, false} {
			_, res := testrec.OpenWith(t, prefix, opt)
			m := res.Model
			before := bytes(m)
			v := m.Filter(nil)
			v.KeepBlame = keep
			doings[k] = v.HoldersDoingWith(func(*Thread, *Interval, []OwnerSpan) {})
			after := bytes(m)
			if keep && after != before || !keep && after != 0 {
				t.Errorf("KeepBlame %v: the blame logs %d bytes, %d before", keep, after, before)
			}
			if keep {
				logged += before
			}
		}
		if !reflect.DeepEqual(doings[0], doings[1]) {
			t.Error("the Doings differ with the blame logs kept")
		}
	})
	if logged == 0 {
		t.Error("no blame log in any case: the test sees nothing")
	}
}
