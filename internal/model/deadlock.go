package model

import (
	"slices"
	"sort"
	"strings"

	"orca/internal/format"
)

// waitFor is the wait-for graph while folding: each blocked or joining
// thread points at the thread it waits for. A cycle is a deadlock; it is
// recorded when it forms and marked AtEnd if it is still there at the end.
type waitFor struct {
	next   map[format.ThreadID]wfEdge
	active map[string]int // cycle key -> index in Model.Deadlocks
}

type wfEdge struct {
	to    format.ThreadID
	obj   format.ObjectID
	stack StackID
}

func newWaitFor() waitFor {
	return waitFor{next: map[format.ThreadID]wfEdge{}, active: map[string]int{}}
}

// set makes th wait for to (on obj, 0 for a join) and looks for a cycle
// through th.
// A thread waiting for nobody known (to == 0) waits for no one.
func (w *waitFor) set(th, to format.ThreadID, obj format.ObjectID, stack StackID, at format.Time, m *Model) {
	if to == 0 || to == th {
		w.clear(th, at, m)
		return
	}
	if e, ok := w.next[th]; ok && e.to == to && e.obj == obj {
		return // the same wait: a cycle through it still stands
	}
	w.breakCycles(th, at, m)
	w.next[th] = wfEdge{to, obj, stack}
	if e, ok := w.next[to]; ok && obj != 0 && e.obj == obj {
		// The VM names as owner a thread we still see blocked on the same
		// monitor: it has acquired it, and its MonitorContendedEntered is
		// late (it is posted after the acquisition; a safepoint or a busy
		// CPU can delay it by milliseconds). It no longer waits.
		w.clear(to, at, m)
	}
	path := []format.ThreadID{th}
	for u := to; ; {
		if u == th {
			w.found(path, at, m)
			return
		}
		e, ok := w.next[u]
		if !ok || len(path) > len(w.next) {
			return
		}
		path = append(path, u)
		u = e.to
	}
}

// clear ends th's wait.
func (w *waitFor) clear(th format.ThreadID, at format.Time, m *Model) {
	if _, ok := w.next[th]; !ok {
		return
	}
	w.breakCycles(th, at, m)
	delete(w.next, th)
}

func cycleKey(ids []format.ThreadID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}

func (w *waitFor) found(path []format.ThreadID, at format.Time, m *Model) {
	key := cycleKey(path)
	if _, ok := w.active[key]; ok {
		return
	}
	d := Deadlock{At: at, Threads: slices.Clone(path)}
	for _, th := range path {
		e := w.next[th]
		d.Objects = append(d.Objects, e.obj)
		d.Stacks = append(d.Stacks, e.stack)
	}
	w.active[key] = len(m.Deadlocks)
	m.Deadlocks = append(m.Deadlocks, d)
}

// breakCycles forgets the active cycles through th (its wait changes).
func (w *waitFor) breakCycles(th format.ThreadID, at format.Time, m *Model) {
	for key, i := range w.active {
		if strings.Contains(key, th.String()) {
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
