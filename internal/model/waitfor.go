package model

import (
	"slices"
	"sort"

	"orca/internal/format"
)

// The wait-for graph at an instant. The fold finds deadlocks as the
// cycles of the graph form (deadlock.go), once; WaitGraphAt gives the graph
// at any instant after it, for the views that draw it, with the Deadlocks
// standing then as its cycles. Both decide "thread X waits for thread Y"
// with waitsOn and waitee, so that the edges of the graph at T close
// exactly those cycles (modeltest.Validate checks it): a view never shows a
// different truth beside the report's.

// waitsOn reports whether a thread in state iv waits for another thread,
// and on what object: a monitor it is blocked on (waiting for its owner), a
// java.util.concurrent lock it parks to acquire (for the owner it named),
// a join (object 0, for the joined thread). Object.wait, Semaphore.acquire
// and the other parks wait for no thread in particular. It is the one
// definition of a thread → thread edge of the wait-for graph: the fold's
// deadlock detection (Builder.rewait) and WaitGraphAt both ask it.
func waitsOn(iv *Interval) (obj format.ObjectID, ok bool) {
	switch {
	case iv.State == Blocked, iv.State == Parked && iv.Acquire:
		return iv.Object, true
	case iv.State == Joining:
		return 0, true
	}
	return 0, false
}

// waitee is the thread that a thread in state iv (waitsOn) waits for,
// given who owned its monitor at that instant (a contention's owner
// changes while it lasts: the fold knows the current one, Model.OwnerAt
// tells it after); 0 when unknown.
func waitee(iv *Interval, owner format.ThreadID) format.ThreadID {
	switch iv.State {
	case Blocked:
		return owner
	case Parked:
		return iv.First
	}
	return iv.Other
}

// IntervalAt returns the index of t's interval at instant at, -1 when it
// is runnable then or not alive. An interval holds [Start, End): the
// instant a state ends the thread is past it. At the end of the recording
// the thread is in the innermost of the states it ended in (the first of
// its open segments, even one that began then); the empty segments of the
// states around it are skipped.
func (t *Thread) IntervalAt(at format.Time) int { return t.intervalAt(t.Intervals, at) }

// IntervalAtIn is IntervalAt in ivs, a window of t's intervals that holds
// every one that holds at (Model.ReadIntervalsAt): an index in ivs.
func (t *Thread) IntervalAtIn(ivs []Interval, at format.Time) int { return t.intervalAt(ivs, at) }

// intervalAt is IntervalAt in ivs, t's intervals (Model.IntervalsOf).
func (t *Thread) intervalAt(ivs []Interval, at format.Time) int {
	if at < t.Start || at > t.End {
		return -1
	}
	i := sort.Search(len(ivs), func(i int) bool { return ivs[i].End > at })
	if i < len(ivs) && ivs[i].Start <= at {
		return i
	}
	if at == t.End {
		// The open segments at the end: the innermost state's first.
		j := len(ivs)
		for j > 0 && ivs[j-1].Open && ivs[j-1].End == at {
			j--
		}
		if j < len(ivs) {
			return j
		}
	}
	return -1
}

// Waits reports whether a thread in state s is in the wait-for graph:
// blocked, waiting, joining, acquiring or parked; not runnable, sleeping
// or idle (a pool's worker waiting for work waits for nobody).
func (s State) Waits() bool {
	switch s {
	case Blocked, Waiting, Joining, Acquiring, Parked:
		return true
	}
	return false
}

// Wait is a thread waiting at an instant: an edge of the wait-for graph
// from the thread to what it waits on, and from that to the thread it
// waits for.
type Wait struct {
	Thread   format.ThreadID
	Interval int   // the thread's interval (index in Thread.Intervals, or Model.IntervalsOf's)
	State    State // Blocked, Waiting, Joining, Acquiring or Parked
	// Object is the monitor blocked on or waited on, the semaphore, the
	// j.u.c. lock or park blocker; 0 for a join (and a park without one).
	Object format.ObjectID
	Kind   LockKind // Object's: Monitor, Semaphore, JUCLock or Blocker
	// For is the thread it waits for: the owner of the monitor or j.u.c.
	// lock, the joined thread; 0 when none is known or it waits for no
	// thread in particular (Object.wait, a semaphore, a condition).
	For format.ThreadID
}

// WaitCycle is a cycle of the wait-for graph: a deadlock.
type WaitCycle struct {
	Threads []format.ThreadID // each waits for the next, the last for the first
	// Deadlock is its index in Model.Deadlocks: the cycles of the graph
	// at an instant are the deadlocks standing then (formed at or before
	// it, not yet broken).
	Deadlock int
}

// WaitGraph is the wait-for graph at an instant.
type WaitGraph struct {
	At     format.Time
	Waits  []Wait      // in the order of Model.Threads
	Cycles []WaitCycle // in order of their first thread in Waits
}

// WaitGraphAt returns the wait-for graph at instant at: every thread then
// in a state that Waits (blocked on a monitor, in Object.wait, joining,
// acquiring a semaphore or parked), what it waits on and for whom; and
// its cycles, which are the Deadlocks standing at at, no more and no
// fewer.
//
// As in the fold, a thread blocked on (or parked to acquire) the object
// a thread waiting on it named as owner waits no more: it has acquired it,
// and the event that says so is late (see waitFor.set); the fold's spans
// of these (Model.lateEntries) say when.
func (m *Model) WaitGraphAt(at format.Time) *WaitGraph {
	if at < m.lateFloor {
		panic("model: WaitGraphAt before the end of a Model built with Options.EndGraphOnly")
	}
	g := &WaitGraph{At: at}
	var buf []Interval
	for _, t := range m.AllThreads() {
		if at < t.Start || at > t.End {
			continue // not alive: nothing read
		}
		// The intervals around at (at its end, its tail: its open
		// segments), not the thread's whole.
		ivs, off, err := m.ReadIntervalsAt(t, at, buf)
		if err != nil {
			panic(&SpillError{err})
		}
		if m.dropped {
			buf = ivs // its room, for the next; else t.Intervals
		}
		k := t.intervalAt(ivs, at)
		if k < 0 {
			continue
		}
		iv := &ivs[k]
		if !iv.State.Waits() {
			continue
		}
		w := Wait{Thread: t.ID, Interval: off + k, State: iv.State, Object: iv.Object}
		switch iv.State {
		case Blocked, Waiting:
			w.Kind = Monitor
		case Acquiring:
			w.Kind = Semaphore
		case Parked:
			w.Kind = Blocker
			if iv.Acquire {
				w.Kind = JUCLock
			}
		}
		if _, ok := waitsOn(iv); ok {
			owner := iv.Other
			if iv.State == Blocked {
				owner = m.OwnerAt(t.ID, iv, at)
			}
			if w.For = waitee(iv, owner); w.For == t.ID {
				w.For = 0
			}
		}
		g.Waits = append(g.Waits, w)
	}
	// The late entries: a thread the fold held to have entered the
	// object it waits on (another thread named it the owner), from then
	// until its wait changed. The fold's own spans, not a rule applied
	// again here: the graph at an instant and the deadlocks agree.
	late := map[format.ThreadID]format.ObjectID{}
	for _, e := range m.lateEntries {
		if e.From <= at && at < e.To {
			late[e.Thread] = e.Object
		}
	}
	g.Waits = slices.DeleteFunc(g.Waits, func(w Wait) bool {
		o, ok := late[w.Thread]
		return ok && w.For != 0 && w.Object == o
	})
	g.Cycles = m.standing(g.Waits, at)
	return g
}

// standing returns the cycles of the graph of waits at at: the Deadlocks
// standing then (formed at or before at, not yet broken), which the fold
// found as they formed (deadlock.go): the model finds deadlocks once. Each
// starts at its thread first in waits, in the order of those threads.
// (modeltest.Validate checks that the waits' own cycles are these.)
func (m *Model) standing(waits []Wait, at format.Time) []WaitCycle {
	pos := make(map[format.ThreadID]int, len(waits))
	for i, w := range waits {
		pos[w.Thread] = i
	}
	type cycle struct {
		c     WaitCycle
		first int // its first thread's place in waits
	}
	var cs []cycle
	for k, d := range m.Deadlocks {
		if d.At > at || !d.AtEnd && at >= d.Resolved {
			continue
		}
		i, first := 0, len(waits)
		for j, th := range d.Threads {
			if p, ok := pos[th]; ok && p < first {
				i, first = j, p
			}
		}
		cs = append(cs, cycle{WaitCycle{Threads: append(slices.Clone(d.Threads[i:]), d.Threads[:i]...), Deadlock: k}, first})
	}
	slices.SortStableFunc(cs, func(a, b cycle) int { return a.first - b.first })
	out := make([]WaitCycle, len(cs))
	for i, c := range cs {
		out[i] = c.c
	}
	return out
}
