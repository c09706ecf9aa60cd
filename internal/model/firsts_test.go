package model

import (
	"slices"
	"testing"

	"orca/internal/format"
)

// TestFirstsOnce checks that a thread whose firsts reach a lock twice (a
// thread brought back after it was finished: Builder.revive) is among the
// lock's waiters once, at its earliest, as are the threads of a long
// list of locks (threadAgg.mergeFirsts).
func TestFirstsOnce(t *testing.T) {
	ag := &aggregator{m: &Model{}, by: map[uint64]*lockAgg{}, all: true}
	blocked := func(obj format.ObjectID, since format.Time) Interval {
		return Interval{Start: since, Since: since, End: since + 1, State: Blocked, Object: obj}
	}
	a := threadAgg{id: 7}
	ag.feed(&a, []Interval{blocked(1, 10)})
	ag.endThread(&a)
	ag.feed(&a, []Interval{blocked(1, 5), {Start: 30, Since: 30, End: 40, State: Waiting, Object: 1, Wake: WakeTimeout}})
	ag.endThread(&a)
	b := threadAgg{id: 3}
	var ivs []Interval
	for obj := format.ObjectID(100); obj < 100+2*firstsLogMin; obj++ {
		ivs = append(ivs, blocked(obj, 20), blocked(1, 7))
	}
	ivs = append(ivs, blocked(100, 2))
	ag.feed(&b, ivs)
	ag.endThread(&b)
	locks, _ := ag.locks()
	for _, l := range locks {
		switch l.Object {
		case 1:
			if want := []format.ThreadID{7, 3}; !slices.Equal(l.Waiters, want) {
				t.Errorf("lock 1: waiters %v, want %v", l.Waiters, want)
			}
			if want := []format.ThreadID{7}; !slices.Equal(l.WaitedBy, want) {
				t.Errorf("lock 1: waited by %v, want %v", l.WaitedBy, want)
			}
		default:
			if want := []format.ThreadID{3}; !slices.Equal(l.Waiters, want) {
				t.Errorf("lock %v: waiters %v, want %v", l.Object, l.Waiters, want)
			}
		}
	}
}
