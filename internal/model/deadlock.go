package model

import (
	"sort"
	"strings"

	"orca/internal/format"
)

// waitFor is the wait-for graph while folding: each blocked or joining
// thread points at the thread it waits for (tstate.wf). A cycle is a
// deadlock; it is recorded when it forms and marked AtEnd if it is still
// there at the end.
type waitFor struct {
	n      int            // threads that wait for one
	active map[string]int // cycle key -> index in Model.Deadlocks
	path   []*tstate      // reused by set
}

// wfEdge is what a thread waits for.
type wfEdge struct {
	to    *tstate // nil: it waits for no one
	obj   format.ObjectID
	stack StackID
}

func newWaitFor() waitFor {
	return waitFor{active: map[string]int{}}
}

// set makes th wait for to (on obj, 0 for a join) and looks for a cycle
// through th.
// A thread waiting for nobody known (to == nil) waits for no one.
func (w *waitFor) set(th, to *tstate, obj format.ObjectID, stack StackID, at format.Time, m *Model) {
	if to == nil || to == th {
		w.clear(th, at, m)
		return
	}
	if e := th.wf; e.to == to && e.obj == obj {
		return // the same wait: a cycle through it still stands
	}
	w.breakCycles(th, at, m)
	if th.wf.to == nil {
		w.n++
	}
	th.wf = wfEdge{to, obj, stack}
	if e := to.wf; e.to != nil && obj != 0 && e.obj == obj {
		// The VM names as owner a thread we still see blocked on the same
		// monitor: it has acquired it, and its MonitorContendedEntered is
		// late (it is posted after the acquisition; a safepoint or a busy
		// CPU can delay it by milliseconds). It no longer waits.
		w.clear(to, at, m)
	}
	path := append(w.path[:0], th)
	defer func() { w.path = path[:0] }()
	for u := to; ; {
		if u == th {
			w.found(path, at, m)
			return
		}
		if u.wf.to == nil || len(path) > w.n {
			return
		}
		path = append(path, u)
		u = u.wf.to
	}
}

// clear ends th's wait.
func (w *waitFor) clear(th *tstate, at format.Time, m *Model) {
	if th.wf.to == nil {
		return
	}
	w.breakCycles(th, at, m)
	th.wf = wfEdge{}
	w.n--
}

func cycleKey(ids []format.ThreadID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}

func (w *waitFor) found(path []*tstate, at format.Time, m *Model) {
	ids := make([]format.ThreadID, len(path))
	for i, ts := range path {
		ids[i] = ts.t.ID
	}
	key := cycleKey(ids)
	if _, ok := w.active[key]; ok {
		return
	}
	d := Deadlock{At: at, Threads: ids}
	for _, ts := range path {
		d.Objects = append(d.Objects, ts.wf.obj)
		d.Stacks = append(d.Stacks, ts.wf.stack)
		st := Blocked
		if n := len(ts.open); n > 0 {
			st = ts.open[n-1].iv.State
		}
		d.States = append(d.States, st)
	}
	w.active[key] = len(m.Deadlocks)
	m.Deadlocks = append(m.Deadlocks, d)
}

// breakCycles forgets the active cycles through th (its wait changes).
func (w *waitFor) breakCycles(th *tstate, at format.Time, m *Model) {
	if len(w.active) == 0 {
		return
	}
	id := th.t.ID.String()
	for key, i := range w.active {
		if strings.Contains(key, id) {
			m.Deadlocks[i].Resolved = at
			delete(w.active, key)
		}
	}
}

// finish marks the cycles still intact at the end of the recording.
func (w *waitFor) finish(m *Model) {
	for _, i := range w.active {
		m.Deadlocks[i].AtEnd = true
	}
}

// rewait points the thread's wait-for edge at what its innermost state
// waits for (waitsOn, waitee): the owner of the monitor it blocks on or of
// the j.u.c. lock it parks to acquire, or the thread it joins. o.other is
// that thread (waitee's, with the monitor's current owner).
func (b *Builder) rewait(ts *tstate, at format.Time) {
	if n := len(ts.open); n > 0 {
		o := &ts.open[n-1]
		if obj, ok := waitsOn(&o.iv); ok {
			b.wf.set(ts, o.other, obj, o.iv.Stack, at, b.m)
			return
		}
	}
	b.wf.clear(ts, at, b.m)
}
