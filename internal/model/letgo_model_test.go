package model_test

import (
	"reflect"
	"testing"

	. "orca/internal/model"
)

// TestLetGo builds every case as orca report does, its retired threads'
// fold state let go (Builder.letGo) and the garbage collected before each
// thread let go is found again, so that those nothing held are made again
// from their state at rest (Builder.wakeThread; every test of the package
// also compares the two where the first is still held): the threads,
// their lock figures and what the holders did are those of the build
// without packing. Some threads must be let go and some made again, or
// the test proves nothing.
func TestLetGo(t *testing.T) {
	let, woken := 0, 0
	WakeAfterGC(func() {
		eachCaseAndSynth(t, func(t *testing.T, prefix string) {
			pm, m := packedAndPlain(t, prefix)
			let, woken = let+pm.LetGoThreads, woken+pm.WokenThreads
			if pm.NumThreads() != m.NumThreads() {
				t.Fatalf("%d threads, want %d", pm.NumThreads(), m.NumThreads())
			}
			for i, want := range m.AllThreads() {
				if got := pm.ThreadAt(i); !SameSpilled(pm, got, m, want) {
					t.Fatalf("thread %d: %+v, want %+v", i, *got, *want)
				}
			}
			if !reflect.DeepEqual(pm.Locks, m.Locks) {
				t.Error("the locks differ with the threads let go")
			}
			if !reflect.DeepEqual(pm.Deadlocks, m.Deadlocks) || !reflect.DeepEqual(pm.Problems, m.Problems) {
				t.Error("the deadlocks or the problems differ with the threads let go")
			}
			if got, want := pm.Filter(nil).HoldersDoing(), m.Filter(nil).HoldersDoing(); !reflect.DeepEqual(got, want) {
				t.Error("what the holders did differs with the threads let go")
			}
		})
	})
	t.Logf("%d threads let go, %d made again", let, woken)
	if let == 0 || woken == 0 {
		t.Fatalf("%d threads let go, %d made again: the test reaches neither way", let, woken)
	}
}
