package web

import (
	"net/http"
	"sort"
	"strconv"

	"orca/internal/format"
	"orca/internal/model"
)

// The wait-for graph at an instant: every thread that is blocked, waiting,
// joining or acquiring then points at what it waits on — a lock node for a
// monitor or semaphore, which points at the owner the contention named; the
// joined thread for a join. Cycles (strongly connected components) are
// deadlocks at that instant.

type nodeJSON struct {
	ID     string `json:"id"`   // "t12" (thread index 12) or "o1A2B3C4D" (object)
	Kind   string `json:"kind"` // thread, monitor, semaphore
	Thread int    `json:"thread,omitempty"`
	Name   string `json:"name"`
	State  string `json:"state,omitempty"` // a thread's state at t
	Since  int64  `json:"since"`           // when that state began
	Stack  int    `json:"stack,omitempty"` // where the thread was
	// Interval is the index of the thread's interval at t, -1 when runnable.
	Interval int    `json:"interval"`
	Object   string `json:"object,omitempty"`
	Class    string `json:"class,omitempty"`
	Cycle    bool   `json:"cycle"`
	JDK      bool   `json:"jdk,omitempty"` // a JDK service thread
}

type graphEdgeJSON struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Kind  string `json:"kind"` // blocked, waiting, acquiring, joining (thread → what it waits on); owner (lock → thread)
	Cycle bool   `json:"cycle"`
}

type waitForJSON struct {
	T      int64           `json:"t"`
	Nodes  []nodeJSON      `json:"nodes"`
	Edges  []graphEdgeJSON `json:"edges"`
	Cycles [][]string      `json:"cycles"` // node ids of each cycle
}

func (s *Server) waitFor(r *http.Request) (any, error) {
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
	out := &waitForJSON{T: d.rel(T), Nodes: []nodeJSON{}, Edges: []graphEdgeJSON{}, Cycles: [][]string{}}
	index := map[string]int{}
	threadNode := func(i int) string {
		id := "t" + strconv.Itoa(i)
		if _, ok := index[id]; ok {
			return id
		}
		t := d.m.Threads[i]
		n := nodeJSON{ID: id, Kind: "thread", Thread: i, Name: t.Name, State: "runnable", Interval: -1, JDK: d.jdkThread[i]}
		if T < t.Start || T > t.End || (t.Ended && T == t.End) {
			n.State = "not alive"
		} else if k := at(t, T); k >= 0 {
			iv := t.Intervals[k]
			n.State, n.Since, n.Stack, n.Interval = iv.State.String(), d.rel(iv.Since), int(iv.Stack), k
			if iv.Object != 0 {
				n.Object, n.Class = iv.Object.String(), d.objectClass(iv.Object)
			}
		}
		index[id] = len(out.Nodes)
		out.Nodes = append(out.Nodes, n)
		return id
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
	seen := map[[2]string]bool{}
	edge := func(from, to, kind string) {
		if seen[[2]string{from, to}] {
			return
		}
		seen[[2]string{from, to}] = true
		out.Edges = append(out.Edges, graphEdgeJSON{From: from, To: to, Kind: kind})
	}
	for i, t := range d.m.Threads {
		if T < t.Start || T > t.End {
			continue
		}
		k := at(t, T)
		if k < 0 {
			continue
		}
		iv := t.Intervals[k]
		switch iv.State {
		case model.Blocked:
			from := threadNode(i)
			lk := objNode(iv.Object, model.Monitor)
			edge(from, lk, "blocked")
			if oi := d.threadIndex(d.m.OwnerAt(t.ID, &iv, T)); oi >= 0 {
				edge(lk, threadNode(oi), "owner")
			}
		case model.Waiting:
			edge(threadNode(i), objNode(iv.Object, model.Monitor), "waiting")
		case model.Acquiring:
			edge(threadNode(i), objNode(iv.Object, model.Semaphore), "acquiring")
		case model.Joining:
			if oi := d.threadIndex(iv.Other); oi >= 0 {
				edge(threadNode(i), threadNode(oi), "joining")
			}
		}
	}
	// Tarjan's strongly connected components.
	adj := make([][]int, len(out.Nodes))
	for _, e := range out.Edges {
		adj[index[e.From]] = append(adj[index[e.From]], index[e.To])
	}
	comp := sccs(adj)
	size := map[int]int{}
	for _, c := range comp {
		size[c]++
	}
	cycles := map[int][]string{}
	for i, c := range comp {
		if size[c] > 1 {
			out.Nodes[i].Cycle = true
			cycles[c] = append(cycles[c], out.Nodes[i].ID)
		}
	}
	for k := range out.Edges {
		e := &out.Edges[k]
		a, b := index[e.From], index[e.To]
		e.Cycle = comp[a] == comp[b] && size[comp[a]] > 1
	}
	keys := make([]int, 0, len(cycles))
	for c := range cycles {
		keys = append(keys, c)
	}
	sort.Ints(keys)
	for _, c := range keys {
		out.Cycles = append(out.Cycles, cycles[c])
	}
	return out
}

// sccs returns each node's strongly connected component number.
func sccs(adj [][]int) []int {
	n := len(adj)
	idx, low, comp := make([]int, n), make([]int, n), make([]int, n)
	on := make([]bool, n)
	for i := range idx {
		idx[i], comp[i] = -1, -1
	}
	var stack []int
	next, ncomp := 0, 0
	var visit func(v int)
	visit = func(v int) {
		idx[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, w := range adj[v] {
			if idx[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], idx[w])
			}
		}
		if low[v] == idx[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	for v := range n {
		if idx[v] < 0 {
			visit(v)
		}
	}
	return comp
}
