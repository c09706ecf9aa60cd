package model

import (
	"math/rand"
	"slices"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// TestClassInitWaiters: a class's waiters are the distinct threads that
// waited on it, in order, whether a thread knows every class it waited on
// (its own list, tbody.inits) or not (brought back: its list lost; more
// than initsMost classes), against a set of each class's waiters; and no
// class keeps a set of its waiters while every thread knows its own.
// Fails with a thread's list asked when it is not whole (a waiter twice),
// or with the sets made for every class (a slot for every thread ever
// seen).
func TestClassInitWaiters(t *testing.T) {
	for _, revive := range []bool{false, true} {
		rng := rand.New(rand.NewSource(3))
		b := &Builder{m: &Model{}}
		const nThreads, nClasses = 40, 100
		ts := make([]*tstate, nThreads)
		for i := range ts {
			ts[i] = &tstate{id: format.ThreadID(1000 + i), body: &tbody{initsAll: true}}
		}
		want := map[format.ObjectID][]format.ThreadID{}
		for range 20_000 {
			i := rng.Intn(nThreads)
			if revive && rng.Intn(50) == 0 {
				ts[i].body = &tbody{} // brought back: its list lost
			}
			// Thread 0 waits on 90 classes, more than initsMost, the
			// others on 10.
			obj := format.ObjectID(1 + nClasses/10 + rng.Intn(nClasses-nClasses/10))
			if i > 0 {
				obj = format.ObjectID(1 + rng.Intn(nClasses/10))
			}
			th := ts[i].id
			if !slices.Contains(want[obj], th) {
				want[obj] = append(want[obj], th)
			}
			b.classInit(ts[i], &reader.Event{Kind: format.ClassInitWaited, Object: obj, Thread: th}, 1)
		}
		sets := 0
		for _, ci := range b.m.ClassInits {
			if !slices.Equal(ci.Waiters, want[ci.Object]) {
				t.Fatalf("revive %v: class %v: waiters %v, want %v", revive, ci.Object, ci.Waiters, want[ci.Object])
			}
			if ci.seenWaiter != nil && ci.Object <= nClasses/10 {
				sets++
			}
		}
		if len(b.m.ClassInits) != len(want) {
			t.Fatalf("%d classes, want %d", len(b.m.ClassInits), len(want))
		}
		if !revive && sets > 0 {
			t.Errorf("%d classes of %d keep a set of their waiters, every thread of theirs knowing its own", sets, nClasses/10)
		}
		if revive && sets == 0 {
			t.Error("no class made a set of its waiters: the test reaches no thread brought back")
		}
	}
}
