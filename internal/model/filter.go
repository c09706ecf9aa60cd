package model

import (
	"iter"

	"orca/internal/format"
)

// A View is the Model seen through a thread filter, the way pprof filters
// samples before any report: the threads kept, the locks aggregated once
// from their intervals (Aggregate), and the membership test the lists of
// deadlocks, hangs and edges use. orca report --thread renders a View, and
// so does orca view with ?thread=, so both show the same figures for the
// same filter.
type View struct {
	Model *Model
	// Threads are the threads kept, in Model.Threads order: with no
	// filter, Model.Threads itself, nil where a Thread is packed
	// (Options.PackThreads): the readers go through Len, At and All.
	Threads []*Thread
	Locks   []*Lock // Aggregate(keep); Model.Locks when nothing is filtered
	// Groups are the transient objects of Locks grouped (groups.go):
	// Model.Groups when nothing is filtered.
	Groups []*Group
	// Filtered is false when there was no filter (keep nil).
	Filtered bool
	// OnTop, if not 0, is how many of each Doing.On HoldersDoing keeps
	// (the report's: it lists those).
	OnTop int
	// HoldersOf, if not nil, is the locks whose holders HoldersDoing folds
	// (the report's: it lists those alone, --top): the blame spans of the
	// others are not kept, merged nor folded, and they have no Doing.
	HoldersOf map[LockRef]bool
	// Progress, if set, is told how far HoldersDoing (and the wait chains'
	// sweep over its pass, analysis.HoldersAndChainList) has gone now and
	// then: the step, and done of total (total 0: not counted); orca
	// report's line on a terminal once the recording is read.
	Progress func(step string, done, total int)
	// KeepBlame: HoldersDoingWith keeps the threads' blame logs when it
	// calls each (orca view: an interval's panel reads its spans from
	// them after a lock's detail made the fold, not from the owner
	// changes read back).
	KeepBlame bool
	// kept: the threads kept by ID; with all (no filter) the Model's
	// map says it.
	kept    map[format.ThreadID]bool
	all     bool
	groupOf map[*Lock]*Group
}

// Filter returns the View of the threads keep accepts; keep nil keeps
// them all (the View's Locks and Groups are then Model.Locks and
// Model.Groups themselves).
func (m *Model) Filter(keep func(*Thread) bool) *View {
	v := &View{Model: m}
	if keep == nil {
		// Every thread: the Model's list and map themselves (a copy of
		// each was 50 MB of 1.3 M threads).
		v.Threads, v.all = m.Threads, true
		v.Locks, v.Groups = m.Locks, m.Groups
	} else {
		v.kept = map[format.ThreadID]bool{}
		for _, t := range m.AllThreads() {
			if keep(t) {
				v.Threads = append(v.Threads, t)
				v.kept[t.ID] = true
			}
		}
		v.Filtered = true
		v.Locks, v.Groups = m.aggregateGroups(keep)
	}
	v.groupOf = map[*Lock]*Group{}
	for _, g := range v.Groups {
		for _, l := range g.locks {
			v.groupOf[l] = g
		}
	}
	return v
}

// Len returns how many threads v keeps.
func (v *View) Len() int { return len(v.Threads) }

// At returns v's thread of index i (Model.ThreadAt: a packed one
// unpacked, a copy of its own).
func (v *View) At(i int) *Thread {
	if v.all {
		return v.Model.ThreadAt(i)
	}
	return v.Threads[i]
}

// All yields v's threads with their index in v.Threads, one at a time
// (At).
func (v *View) All() iter.Seq2[int, *Thread] {
	if v.all {
		return v.Model.AllThreads()
	}
	return func(yield func(int, *Thread) bool) {
		for i, t := range v.Threads {
			if !yield(i, t) {
				return
			}
		}
	}
}

// Has reports whether the thread id is kept.
func (v *View) Has(id format.ThreadID) bool {
	if v.all {
		return v.Model.hasThread(id)
	}
	return v.kept[id]
}

// GroupOf returns the group of a lock, nil when it has none: lists of
// waits show the group in place of its members. A member the model keeps
// as a record (not in Locks: Model.Lock made its Lock) is in the group of
// its kind, class and site.
func (v *View) GroupOf(l *Lock) *Group {
	if g := v.groupOf[l]; g != nil || v.Filtered || l == nil || l.Kind != Blocker || len(l.WaitSites) == 0 || !v.Model.hasRec(l.Object) {
		return g
	}
	for _, g := range v.Groups {
		if g.Kind == l.Kind && g.Class == l.Class && g.Site == l.WaitSites[0].Stack {
			return g
		}
	}
	return nil
}

// StackTimes are the nanoseconds spent at one stack, per state.
type StackTimes [NumStates]int64

// StackQuery selects the intervals StackTime sums: the states wanted, one
// lock's (Object, 0 for all), and the part of them within [From, To).
type StackQuery struct {
	States   [NumStates]bool
	Object   format.ObjectID
	From, To format.Time
	// Skip leaves a kept thread out (the viewer's JDK service threads).
	Skip func(*Thread) bool
}

// StackTime sums the time the View's threads spent at each stack in the
// states asked for: the fold of the flame graph and of the collapsed-stack
// export. It returns the sums, the intervals and the threads that
// contributed.
func (v *View) StackTime(q StackQuery) (by map[StackID]*StackTimes, intervals, threads int) {
	return stackTime(v, q, func(iv *Interval) StackID { return iv.Stack })
}

// StackClass is a stack and the class signature of the object a thread
// was blocked, waiting or parked on there ("" for none or unknown).
type StackClass struct {
	Stack StackID
	Class string
}

// StackClassTime is StackTime by stack and class name of the interval's
// object (Model.ClassName, a Java name): the collapsed-stack export's fold,
// whose stacks end with the lock's class, as async-profiler's lock
// profiles do.
func (v *View) StackClassTime(q StackQuery) map[StackClass]*StackTimes {
	classes := map[format.ObjectID]string{}
	by, _, _ := stackTime(v, q, func(iv *Interval) StackClass {
		c, ok := classes[iv.Object]
		if !ok {
			c = v.Model.ClassName(iv.Object)
			classes[iv.Object] = c
		}
		return StackClass{iv.Stack, c}
	})
	return by
}

// stackTime is the one fold of StackTime and StackClassTime, by key.
func stackTime[K comparable](v *View, q StackQuery, key func(*Interval) K) (by map[K]*StackTimes, intervals, threads int) {
	by = map[K]*StackTimes{}
	for _, t := range v.All() {
		if q.Skip != nil && q.Skip(t) {
			continue
		}
		used := false
		for k := range t.Intervals {
			iv := &t.Intervals[k]
			if !q.States[iv.Shown()] || (q.Object != 0 && iv.Object != q.Object) {
				continue
			}
			lo, hi := max(iv.Start, q.From), min(iv.End, q.To)
			if hi <= lo {
				continue
			}
			kk := key(iv)
			acc := by[kk]
			if acc == nil {
				acc = new(StackTimes)
				by[kk] = acc
			}
			acc[iv.Shown()] += int64(hi - lo)
			intervals++
			used = true
		}
		if used {
			threads++
		}
	}
	return by, intervals, threads
}

// progress tells v.Progress, if set, how far step has gone.
func (v *View) progress(step string, done, total int) {
	if v.Progress != nil {
		v.Progress(step, done, total)
	}
}
