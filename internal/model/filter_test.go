package model_test

import (
	"math"
	"reflect"
	"testing"

	. "orca/internal/model"
)

// TestFilter checks that a View's locks are the aggregate of its threads
// and nothing else, and that no filter gives the Model's own figures.
func TestFilter(t *testing.T) {
	m := foldLines(t, contentionLines)
	all := m.Filter(nil)
	if all.Filtered || len(all.Threads) != len(m.Threads) || !reflect.DeepEqual(all.Locks, m.Locks) {
		t.Errorf("Filter(nil): %d threads, filtered %v; want the Model's %d threads and locks", len(all.Threads), all.Filtered, len(m.Threads))
	}
	keepB := func(th *Thread) bool { return th.Name == "b" }
	v := m.Filter(keepB)
	if !v.Filtered || len(v.Threads) != 1 || v.Threads[0].Name != "b" {
		t.Fatalf("Filter(b): threads %v, want b alone", v.Threads)
	}
	if !v.Has(v.Threads[0].ID) || v.Has(m.Threads[0].ID) && m.Threads[0].Name != "b" {
		t.Errorf("Has disagrees with Threads")
	}
	if !reflect.DeepEqual(v.Locks, m.Aggregate(keepB)) {
		t.Errorf("Filter(b).Locks differ from Aggregate(b)")
	}
	nobody := m.Filter(func(*Thread) bool { return false })
	if len(nobody.Threads) != 0 || len(nobody.Locks) != 0 {
		t.Errorf("a filter that keeps nobody: %d threads, %d locks", len(nobody.Threads), len(nobody.Locks))
	}
}

// TestStackTime checks the fold by stack against the threads' own time per
// state, and that a range and a lock narrow it.
func TestStackTime(t *testing.T) {
	m := foldLines(t, contentionLines)
	q := StackQuery{From: math.MinInt64, To: math.MaxInt64}
	for st := State(1); st < NumStates; st++ {
		q.States[st] = true
	}
	by, n, threads := m.Filter(nil).StackTime(q)
	var want, got [NumStates]int64
	for _, th := range m.Threads {
		for st := State(1); st < NumStates; st++ {
			want[st] += int64(th.Time[st])
		}
	}
	for _, acc := range by {
		for st, v := range acc {
			got[st] += v
		}
	}
	if got != want || n == 0 || threads == 0 {
		t.Errorf("StackTime: %v over %d intervals of %d threads; the threads' time per state: %v", got, n, threads, want)
	}
	// Nothing outside [From, To), and one lock's only.
	q.From, q.To = s2t(2), s2t(3)
	by, _, _ = m.Filter(nil).StackTime(q)
	for id, acc := range by {
		for st, v := range acc {
			if v > int64(s2t(1)) {
				t.Errorf("stack %d, %v: %d ns within a 1 s range", id, State(st), v)
			}
		}
	}
	q.From, q.To, q.Object = math.MinInt64, math.MaxInt64, 0xAAAA
	by, _, _ = m.Filter(nil).StackTime(q)
	var lockTime int64
	for _, acc := range by {
		for _, v := range acc {
			lockTime += v
		}
	}
	var blocked int64
	for _, l := range m.Locks {
		if l.Object == 0xAAAA {
			blocked += int64(l.Blocked + l.OpenTime)
		}
	}
	if lockTime < blocked || lockTime == 0 {
		t.Errorf("lock AAAA: %d ns at its stacks, less than its %d ns blocked", lockTime, blocked)
	}
}
