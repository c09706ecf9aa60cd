package web

import (
	"net/http"
	"strconv"

	"orca/internal/format"
	"orca/internal/model"
)

// The wait-for graph at an instant, as the model computes it
// (model.Model.WaitGraphAt, the graph whose cycles are the deadlocks):
// every thread that is blocked, waiting, joining, acquiring or parked then
// points at what it waits on — a lock node for a monitor, semaphore,
// j.u.c. lock or park blocker, which points at the owner the thread waits
// for; the joined thread for a join. This file only renders it.

type nodeJSON struct {
	ID     string `json:"id"`   // "t12" (thread index 12) or "o1A2B3C4D" (object)
	Kind   string `json:"kind"` // thread, monitor, semaphore, juc, blocker
	Thread int    `json:"thread,omitempty"`
	Name   string `json:"name"`
	State  string `json:"state,omitempty"` // a thread's state at t
	Since  int64  `json:"since"`           // when that state began
	Stack  int    `json:"stack,omitempty"` // where the thread was
	// Interval is the index of the thread's interval at t, -1 when runnable.
	Interval int    `json:"interval"`
	Object   string `json:"object,omitempty"`
	Class    string `json:"class,omitempty"`
	LockKind string `json:"lockKind,omitempty"` // a thread's: the kind of its Object
	Cycle    bool   `json:"cycle"`
	JDK      bool   `json:"jdk,omitempty"` // a JDK service thread
	// BeforeAttach: the thread was in that state when orca attached
	// (model.BeforeStart): Since is the attach, the time in it a lower
	// bound, as the report's hangs say.
	BeforeAttach bool `json:"beforeAttach,omitempty"`
}

type graphEdgeJSON struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Kind  string `json:"kind"` // the thread's shown state, blocked, waiting, acquiring, parked or joining (thread → what it waits on); owner (lock → thread)
	Cycle bool   `json:"cycle"`
}

type waitForJSON struct {
	T      int64           `json:"t"`
	Nodes  []nodeJSON      `json:"nodes"`
	Edges  []graphEdgeJSON `json:"edges"`
	Cycles [][]string      `json:"cycles"` // node ids of each cycle, each waits for the next
	// Deadlocks gives, for each cycle, its index in the deadlocks list
	// (/api/deadlocks, the report's), -1 for a cycle that stood too short
	// to be reported (see analysis.Deadlocks).
	Deadlocks []int `json:"deadlocks"`
}

func (s *site) waitFor(r *http.Request) (any, error) {
	d := s.d
	t, err := intParam(r, "t", -1, 0, d.rel(d.m.End))
	if err == nil && t < 0 {
		err = badRequest("t: missing (ns since the recording's start, 0 to %d)", d.rel(d.m.End))
	}
	if err != nil {
		return nil, err
	}
	return d.waitFor(d.abs(t)), nil
}

func (d *data) waitFor(T format.Time) *waitForJSON {
	out := &waitForJSON{T: d.rel(T), Nodes: []nodeJSON{}, Edges: []graphEdgeJSON{}, Cycles: [][]string{}, Deadlocks: []int{}}
	var g *model.WaitGraph
	d.locked(func() { g = d.m.WaitGraphAt(T) })
	index := map[string]int{}
	threadNode := func(id format.ThreadID) string {
		i := d.threadIndex(id) // the model has every thread it names
		key := "t" + strconv.Itoa(i)
		if _, ok := index[key]; ok {
			return key
		}
		t := d.m.ThreadAt(i)
		n := nodeJSON{ID: key, Kind: "thread", Thread: i, Name: t.Name, State: "not alive", Interval: -1, JDK: d.jdkThread[i]}
		if T >= t.Start && T <= t.End && !(t.Ended && T == t.End) {
			n.State = "runnable"
		}
		if iv, k := d.intervalAt(i, T); k >= 0 {
			n.State, n.Since, n.Stack, n.Interval = iv.Shown().String(), d.rel(iv.Since), int(iv.Stack), k
			n.BeforeAttach = d.m.BeforeStart(iv.Since)
			if iv.Object != 0 {
				n.Object, n.Class = iv.Object.String(), d.objectClass(iv.Object)
			}
		}
		index[key] = len(out.Nodes)
		out.Nodes = append(out.Nodes, n)
		return key
	}
	objNode := func(o format.ObjectID, kind model.LockKind) string {
		id := "o" + o.String()
		if _, ok := index[id]; ok {
			return id
		}
		index[id] = len(out.Nodes)
		out.Nodes = append(out.Nodes, nodeJSON{ID: id, Kind: kind.String(), Name: o.String(), Object: o.String(), Class: d.objectClass(o), Interval: -1})
		return id
	}
	seen := map[[2]string]int{}
	edge := func(from, to, kind string) int {
		if k, ok := seen[[2]string{from, to}]; ok {
			return k
		}
		seen[[2]string{from, to}] = len(out.Edges)
		out.Edges = append(out.Edges, graphEdgeJSON{From: from, To: to, Kind: kind})
		return len(out.Edges) - 1
	}
	// The edges of each wait: thread → lock → owner, or thread → thread.
	type path struct {
		nodes []string
		edges []int
	}
	paths := map[format.ThreadID]path{}
	for _, w := range g.Waits {
		from := threadNode(w.Thread)
		p := path{nodes: []string{from}}
		switch {
		case w.Object != 0:
			out.Nodes[index[from]].LockKind = w.Kind.String()
			lk := objNode(w.Object, w.Kind)
			p.nodes = append(p.nodes, lk)
			// Named by the state the thread is shown in: blocked for a
			// park in a j.u.c. lock's acquire, as on the timeline.
			p.edges = append(p.edges, edge(from, lk, out.Nodes[index[from]].State))
			if w.For != 0 {
				p.edges = append(p.edges, edge(lk, threadNode(w.For), "owner"))
			}
		case w.For != 0: // a join
			p.edges = append(p.edges, edge(from, threadNode(w.For), w.State.String()))
		}
		paths[w.Thread] = p
	}
	for _, c := range g.Cycles {
		var ids []string
		for _, th := range c.Threads {
			p := paths[th]
			ids = append(ids, p.nodes...)
			for _, n := range p.nodes {
				out.Nodes[index[n]].Cycle = true
			}
			for _, e := range p.edges {
				out.Edges[e].Cycle = true
			}
		}
		out.Cycles = append(out.Cycles, ids)
		out.Deadlocks = append(out.Deadlocks, d.reported[c.Deadlock])
	}
	return out
}
