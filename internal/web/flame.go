package web

import (
	"maps"
	"net/http"
	"slices"
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
	S []int64      `json:"s,omitempty"` // ns per state (summary.states order), trailing zeros cut; of samples, per kind
	K int          `json:"k,omitempty"` // samples (/api/flame/samples)
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
func (s *site) flame(r *http.Request) (any, error) {
	d := s.d
	fa, err := s.newFlame(r)
	if err != nil {
		return nil, err
	}
	// The View's fold, a thread at a time (its intervals read back one
	// at a time from a model that keeps them in its spill alone), summed.
	var buf []model.Interval
	for ti, t := range d.m.AllThreads() {
		if !fa.wants(ti, t) {
			continue
		}
		if d.m.IntervalsDropped() {
			ivs, err := d.m.ReadIntervals(t, buf)
			if err != nil {
				return nil, err
			}
			h := *t
			h.Intervals, buf, t = ivs, ivs, &h
		}
		fa.add(t)
	}
	return fa.done(), nil
}

// flameAcc sums a flame graph a thread at a time (the index's build sums
// the one it keeps as it reads each thread for its lane).
type flameAcc struct {
	d       *data
	keep    func(*model.Thread) bool
	withJDK bool
	q       model.StackQuery
	byStack map[model.StackID]*model.StackTimes
	out     *flameJSON
}

// newFlame reads the parameters of /api/flame.
func (s *site) newFlame(r *http.Request) (*flameAcc, error) {
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
	return &flameAcc{d: d, keep: keep, withJDK: withJDK,
		q:       model.StackQuery{States: want, Object: lock, From: a0, To: a1},
		byStack: map[model.StackID]*model.StackTimes{},
		out:     &flameJSON{Names: []string{"all"}, JDK: []bool{false}}}, nil
}

// wants says whether thread ti, t, is summed.
func (fa *flameAcc) wants(ti int, t *model.Thread) bool {
	return fa.keep(t) && (fa.withJDK || !fa.d.jdkThread[ti])
}

// add sums thread t (with its intervals), one that wants.
func (fa *flameAcc) add(t *model.Thread) {
	if fa.addPiece(t) {
		fa.out.Threads++
	}
}

// addPiece sums thread t with its intervals, or some of them (a thread
// read by pieces: each piece a copy of t with those), and reports
// whether any was summed: the thread counts once.
func (fa *flameAcc) addPiece(t *model.Thread) bool {
	// The model sums the time per stack (the one fold, as the collapsed
	// export's); done builds the tree of frames from the sums.
	by, intervals, threads := (&model.View{Model: fa.d.m, Threads: []*model.Thread{t}}).StackTime(fa.q)
	fa.out.Intervals += intervals
	for id, acc := range by {
		if sum := fa.byStack[id]; sum != nil {
			for st := range acc {
				sum[st] += acc[st]
			}
		} else {
			fa.byStack[id] = acc
		}
	}
	return threads > 0
}

// done is the flame graph of the threads summed.
func (fa *flameAcc) done() *flameJSON {
	out := fa.out
	ft := newFlameTree(fa.d, &out.Names, &out.JDK)
	// In order of stack: the names' indexes, and so the order of equal
	// children (sortNodes), follow the order the tree is built in, and a
	// map's order would give the same request other bytes each time.
	for _, id := range slices.Sorted(maps.Keys(fa.byStack)) {
		acc := fa.byStack[id]
		ft.addStack(id, func(n *flameNode) {
			for st, v := range acc {
				n.state[st] += v
				n.V += v
			}
		})
	}
	finish(ft.root)
	out.Total = ft.root.V
	out.Root = ft.root
	return out
}

// flameTree builds a flame graph's tree of frames from sums per stack:
// the model aggregates, this only arranges.
type flameTree struct {
	d      *data
	names  *[]string
	jdk    *[]bool
	nameOf map[format.Frame]int
	index  map[string]int
	root   *flameNode
}

func newFlameTree(d *data, names *[]string, jdk *[]bool) *flameTree {
	return &flameTree{d: d, names: names, jdk: jdk, nameOf: map[format.Frame]int{}, index: map[string]int{}, root: &flameNode{N: 0}}
}

func (ft *flameTree) name(s string) int {
	if i, ok := ft.index[s]; ok {
		return i
	}
	ft.index[s] = len(*ft.names)
	*ft.names = append(*ft.names, s)
	*ft.jdk = append(*ft.jdk, isJDK(s))
	return ft.index[s]
}

func (ft *flameTree) frameName(f format.Frame) int {
	if i, ok := ft.nameOf[f]; ok {
		return i
	}
	i := ft.name(ft.d.resolveFrame(f))
	ft.nameOf[f] = i
	return i
}

// addStack calls add on the root and on each node of stack id's path,
// outermost frame first.
func (ft *flameTree) addStack(id model.StackID, add func(*flameNode)) {
	add(ft.root)
	node := ft.root
	var frames []format.Frame
	if int(id) < len(ft.d.m.Stacks) {
		frames = ft.d.m.Stacks[id]
	}
	if len(frames) == 0 {
		add(child(node, ft.name("(no stack)")))
		return
	}
	for k := len(frames) - 1; k >= 0; k-- {
		node = child(node, ft.frameName(frames[k]))
		add(node)
	}
}

// samplesFlameJSON is the flame graph of samples: a node's v is the time
// its samples stand for (their weights, ns), k their number, s the time
// by kind (index: 1 cpu, 2 wall).
type samplesFlameJSON struct {
	Kind    string     `json:"kind"`
	Total   int64      `json:"total"`
	Samples int        `json:"samples"`
	Names   []string   `json:"names"`
	JDK     []bool     `json:"jdk"`
	Root    *flameNode `json:"root"`
}

// sampleKinds are the kind parameter's values of /api/flame/samples.
var sampleKinds = map[string]format.SampleKind{"cpu": format.SampleCPU, "wall": format.SampleWall, "all": format.SampleNone}

// samplesFlame answers GET /api/flame/samples: the samples (cpu, wall or
// all) by stack, of some threads in a time range (model.SamplesByStack),
// or of a lock's holders while others were blocked on it
// (model.View.HoldersDoing: lock and lockKind).
func (s *site) samplesFlame(r *http.Request) (any, error) {
	d := s.d
	q := r.URL.Query()
	kindName := q.Get("kind")
	if kindName == "" {
		kindName = "cpu"
	}
	kind, ok := sampleKinds[kindName]
	if !ok {
		return nil, badRequest("kind=%q: want cpu, wall or all", kindName)
	}
	out := &samplesFlameJSON{Kind: kindName, Names: []string{"all"}, JDK: []bool{false}}
	ft := newFlameTree(d, &out.Names, &out.JDK)
	add := func(id model.StackID, k format.SampleKind, samples int, w format.Time) {
		ft.addStack(id, func(n *flameNode) {
			n.V += int64(w)
			n.K += samples
			n.state[k] += int64(w)
		})
	}
	if v := q.Get("lock"); v != "" {
		obj, err := objectParam("lock", v)
		if err != nil {
			return nil, err
		}
		lk := model.Monitor
		switch k := q.Get("lockKind"); k {
		case "", "monitor":
		case "juc":
			lk = model.JUCLock
		default:
			return nil, badRequest("lockKind=%q: want monitor or juc (a lock with holders)", k)
		}
		for _, p := range []string{"thread", "t0", "t1"} {
			if q.Has(p) {
				return nil, badRequest("%s with lock: the holders' samples are those of the time others were blocked on it", p)
			}
		}
		if dg := d.holdersDoing()[model.LockRef{Object: obj, Kind: lk}]; dg != nil {
			for _, ds := range dg.Samples {
				if kind == format.SampleNone || ds.Kind == kind {
					add(ds.Stack, ds.Kind, ds.Samples, ds.Weight)
				}
			}
		} else if d.m.Lock(obj, lk) == nil {
			return nil, notFound("no %s %s in this recording", lk, obj)
		}
	} else {
		keep := analysis.ThreadFilter(d.m, q.Get("thread"))
		withJDK := q.Get("jdk") == "1" || q.Get("thread") != ""
		t0, t1, err := s.timeRange(r)
		if err != nil {
			return nil, err
		}
		sq := model.SampleQuery{From: d.abs(t0), Kind: kind}
		if q.Has("t1") {
			sq.To = d.abs(t1)
		}
		// By ID: a packed thread is a copy of its own at each read.
		jdkOf := func(t *model.Thread) bool {
			i := d.threadIndex(t.ID)
			return i >= 0 && d.jdkThread[i]
		}
		sq.Threads = func(t *model.Thread) bool { return keep(t) && (withJDK || !jdkOf(t)) }
		// SamplesByStack sums both kinds of a stack together; the tree
		// keeps each kind's share, so "all" asks for each kind apart.
		kinds := []format.SampleKind{kind}
		if kind == format.SampleNone {
			kinds = []format.SampleKind{format.SampleCPU, format.SampleWall}
		}
		for _, k := range kinds {
			sq.Kind = k
			for _, ss := range d.m.SamplesByStack(sq) {
				add(ss.Stack, k, ss.Samples, ss.Weight)
			}
		}
	}
	finish(ft.root)
	out.Total, out.Samples, out.Root = ft.root.V, ft.root.K, ft.root
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
