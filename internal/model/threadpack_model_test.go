package model_test

import (
	"reflect"
	"testing"

	. "orca/internal/model"
	"orca/internal/testrec"
)

// TestThreadPackModel builds a Model as orca report does, its ended
// Threads packed, and reads each back as the Model without packing has
// it: by index, by ID, its name; and again after its tails are let go and
// its blame blocks dropped (packed again in place). Again with blocks of
// 1 kB, in the spill once full, read back through a cache of 3 pieces of
// 64 bytes: records across pieces, pieces read back and written back
// changed, as the blocks of c5G-slow5's 1.3 M threads are.
func TestThreadPackModel(t *testing.T) {
	t.Run("memory", func(t *testing.T) { threadPackModel(t, false) })
	t.Run("spilt", func(t *testing.T) {
		ThreadPackSizes(1<<10, 64, 3, func() { threadPackModel(t, true) })
	})
}

// packedAndPlain builds prefix as orca report does, with its ended
// Threads packed (pm), and without packing (m).
func packedAndPlain(t *testing.T, prefix string) (pm, m *Model) {
	opt := Options{Spill: true, SpillDir: t.TempDir(), DropIntervals: true, StackMark: testMark}
	_, plain := testrec.OpenWith(t, prefix, opt)
	opt.PackThreads, opt.SpillDir = true, t.TempDir()
	_, packed := testrec.OpenWith(t, prefix, opt)
	return packed.Model, plain.Model
}

func threadPackModel(t *testing.T, spilt bool) {
	eachCaseAndSynth(t, func(t *testing.T, prefix string) {
		pm, m := packedAndPlain(t, prefix)
		ended := 0
		for _, th := range m.AllThreads() {
			if th.Ended {
				ended++
			}
		}
		if pm.PackedThreads() == 0 && ended > 0 {
			t.Fatalf("no thread packed of %d ended", ended)
		}
		if spilt && pm.PackedThreads() > 40 && PackBlocksSpilt(pm) == 0 {
			t.Fatalf("%d threads packed, no block in the spill", pm.PackedThreads())
		}
		if got, want := pm.Filter(nil).HoldersDoing(), m.Filter(nil).HoldersDoing(); !reflect.DeepEqual(got, want) {
			t.Error("what the holders did differs with the Threads packed")
		}
		if pm.NumThreads() != m.NumThreads() {
			t.Fatalf("%d threads, want %d", pm.NumThreads(), m.NumThreads())
		}
		check := func(when string) {
			for i, want := range m.AllThreads() {
				got := pm.ThreadAt(i)
				if !SameSpilled(pm, got, m, want) {
					t.Fatalf("%s: thread %d: %+v, want %+v", when, i, *got, *want)
				}
				if byID := pm.Thread(want.ID); !SameSpilled(pm, byID, m, want) {
					t.Fatalf("%s: Thread(%v): %+v", when, want.ID, byID)
				}
				if n := pm.NameOf(want.ID); n == nil || *n != want.Name {
					t.Fatalf("%s: NameOf(%v) %v, want %q", when, want.ID, n, want.Name)
				}
			}
			if pm.Thread(1<<62) != nil || pm.NameOf(1<<62) != nil || pm.Filter(nil).Has(1<<62) {
				t.Fatalf("%s: a thread that is not", when)
			}
		}
		check("built")
		if spilt && PackBlocksSpilt(pm) > 0 && !NamedAll(pm) {
			t.Fatalf("%d blocks spilt, %d threads named, each on its own", PackBlocksSpilt(pm), pm.NumThreads())
		}
		m.LetGoTails()
		pm.LetGoTails()
		check("tails let go")
		m.DropBlame()
		pm.DropBlame()
		check("blame dropped")
	})
}

// TestThreadPackLend: with the ended threads packed, IndexOf finds each
// thread's index by ID (and none for an ID not there), and Lend has the
// readers (ThreadAt, Thread, AllThreads, Filter(nil)'s View) read the
// copies lent for the packed threads until it is done, the others'
// Threads themselves, then the packed records as they were.
func TestThreadPackLend(t *testing.T) {
	eachCaseAndSynth(t, func(t *testing.T, prefix string) {
		opt := Options{Spill: true, SpillDir: t.TempDir(), DropIntervals: true, PackThreads: true, StackMark: testMark}
		_, res := testrec.OpenWith(t, prefix, opt)
		m := res.Model
		if m.IndexOf(1<<62) != -1 {
			t.Fatal("IndexOf of an ID not there")
		}
		lent := map[int]*Thread{}
		for i, th := range m.AllThreads() {
			if got := m.IndexOf(th.ID); got != i {
				t.Fatalf("IndexOf(%v) %d, want %d", th.ID, got, i)
			}
			if m.ThreadIDAt(i) != th.ID {
				t.Fatalf("ThreadIDAt(%d) %v, want %v", i, m.ThreadIDAt(i), th.ID)
			}
			lent[i] = th
		}
		if m.PackedThreads() == 0 {
			return
		}
		done := m.Lend(lent)
		v := m.Filter(nil)
		for i, th := range lent {
			if m.ThreadAt(i) != th || m.Thread(th.ID) != th || v.At(i) != th {
				t.Fatalf("thread %d: not the one lent", i)
			}
		}
		for i, th := range m.AllThreads() {
			if th != lent[i] {
				t.Fatalf("AllThreads: thread %d not the one lent", i)
			}
		}
		done()
		packed := 0
		for i, th := range lent {
			got := m.ThreadAt(i)
			if got == th {
				packed-- // not packed: the Thread itself
			} else {
				packed++
			}
			if !SamePacked(got, th) {
				t.Fatalf("thread %d after the loan: %+v, want %+v", i, *got, *th)
			}
		}
		if want := 2*m.PackedThreads() - m.NumThreads(); packed != want {
			t.Fatalf("%d packed less unpacked after the loan, want %d", packed, want)
		}
	})
}
