package web

import (
	"net/http"
	"sort"
	"strings"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
)

// flameNode is one frame of the flame graph: the time spent with it on the
// stack, below its parent's frame.
type flameNode struct {
	N int          `json:"n"`           // index in names
	V int64        `json:"v"`           // ns
	S []int64      `json:"s,omitempty"` // ns per state (summary.states order), trailing zeros cut
	C []*flameNode `json:"c,omitempty"`

	kids  map[int]*flameNode
	state [model.NumStates]int64
}

type flameJSON struct {
	Total     int64      `json:"total"`
	Intervals int        `json:"intervals"`
	Threads   int        `json:"threads"` // threads that contributed
	Names     []string   `json:"names"`
	JDK       []bool     `json:"jdk"`
	Root      *flameNode `json:"root"`
}

// flame answers GET /api/flame: blocked and waiting time (or the states
// asked for) by stack, root (outermost frame) first, optionally only one
// lock's, some threads', or a time range's.
func (s *Server) flame(r *http.Request) (any, error) {
	d := s.d
	q := r.URL.Query()
	var want [model.NumStates]bool
	states := q.Get("states")
	if states == "" {
		states = "blocked,waiting"
	}
	for name := range strings.SplitSeq(states, ",") {
		ok := false
		for st := model.State(1); st < model.NumStates; st++ {
			if st.String() == name {
				want[st], ok = true, true
			}
		}
		if !ok {
			return nil, badRequest("states=%q: %q is not one of blocked, waiting, sleeping, joining, acquiring, parked, idle", states, name)
		}
	}
	var lock format.ObjectID
	if v := q.Get("lock"); v != "" {
		var err error
		if lock, err = objectParam("lock", v); err != nil {
			return nil, err
		}
	}
	keep := analysis.ThreadFilter(d.m, q.Get("thread"))
	// The JDK's service threads idle in Object.wait all run (often since
	// before the VM could take stacks): left out unless asked for, or named.
	withJDK := q.Get("jdk") == "1" || q.Get("thread") != ""
	t0, t1, err := s.timeRange(r)
	if err != nil {
		return nil, err
	}
	a0, a1 := d.abs(t0), d.abs(t1)

	// The model sums the time per stack (the one fold, as the collapsed
	// export's); this builds the tree of frames from the sums.
	out := &flameJSON{Names: []string{"all"}, JDK: []bool{false}}
	jdkOf := make(map[*model.Thread]bool, len(d.jdkThread))
	for ti, t := range d.m.Threads {
		jdkOf[t] = d.jdkThread[ti]
	}
	byStack, intervals, threads := d.m.Filter(keep).StackTime(model.StackQuery{States: want, Object: lock, From: a0, To: a1,
		Skip: func(t *model.Thread) bool { return !withJDK && jdkOf[t] }})
	out.Intervals, out.Threads = intervals, threads

	nameOf := map[format.Frame]int{}
	index := map[string]int{}
	name := func(s string) int {
		if i, ok := index[s]; ok {
			return i
		}
		index[s] = len(out.Names)
		out.Names = append(out.Names, s)
		out.JDK = append(out.JDK, isJDK(s))
		return index[s]
	}
	frameName := func(f format.Frame) int {
		if i, ok := nameOf[f]; ok {
			return i
		}
		i := name(d.resolveFrame(f))
		nameOf[f] = i
		return i
	}
	root := &flameNode{N: 0}
	add := func(n *flameNode, acc *model.StackTimes) {
		for st, v := range acc {
			n.state[st] += v
			n.V += v
		}
	}
	for id, acc := range byStack {
		add(root, acc)
		node := root
		frames := d.m.Stacks[id]
		if len(frames) == 0 {
			node = child(node, name("(no stack)"))
			add(node, acc)
			continue
		}
		for k := len(frames) - 1; k >= 0; k-- {
			node = child(node, frameName(frames[k]))
			add(node, acc)
		}
	}
	finish(root)
	out.Total = root.V
	out.Root = root
	return out, nil
}

func child(n *flameNode, name int) *flameNode {
	if n.kids == nil {
		n.kids = map[int]*flameNode{}
	}
	c := n.kids[name]
	if c == nil {
		c = &flameNode{N: name}
		n.kids[name] = c
	}
	return c
}

// finish turns the children maps into slices, largest first, and fills S.
func finish(n *flameNode) {
	last := -1
	for st, v := range n.state {
		if v != 0 {
			last = st
		}
	}
	if last >= 0 {
		n.S = n.state[:last+1]
	}
	for _, c := range n.kids {
		n.C = append(n.C, c)
	}
	n.kids = nil
	sortNodes(n.C)
	for _, c := range n.C {
		finish(c)
	}
}

func sortNodes(c []*flameNode) {
	// Largest first, then by name index, so the same request draws the same graph.
	sort.Slice(c, func(i, j int) bool {
		if c[i].V != c[j].V {
			return c[i].V > c[j].V
		}
		return c[i].N < c[j].N
	})
}
