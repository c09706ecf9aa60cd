package analysis

import (
	"cmp"
	"slices"
	"sort"

	"orca/internal/format"
	"orca/internal/model"
)

// The wait chains by one sweep over time (Chains). Every stretch in which
// a thread waited for another is an edge from it to that thread (a
// "behind" edge: a contention's blame span, a join, a wait a thread
// notified, a park a thread unparked, a semaphore a thread released).
// A thread has one edge at a time, so at each instant the edges make a
// forest whose roots are the threads nobody is behind further: the
// chains' roots. The sweep takes the edges' starts and ends in time order
// and keeps that forest: each thread's parent, and the number of waiters
// (the View's blocked threads, whose time is blamed) in its subtree. A
// root's time is that number times the time it stays the same, added when
// it changes; the root's own intervals, read with a cursor, split it by
// what the root was doing. An edge that would close a cycle is kept
// aside: its thread is then the root of a cycle (a deadlock, as long as
// it lasts). This costs a few steps per edge, where a walk of every
// waiter's chain (chainWalk) searched each holder's intervals at every
// step of every chain.

// sweepEdge is one stretch [a, b) in which thread from (a node) waited
// for thread to (to&^srcBit; srcBit set when from is a waiter whose time
// the chains blame: one of the View's threads blocked on a lock). A
// recording of millions of contentions has as many: 24 bytes each.
type sweepEdge struct {
	a, b format.Time
	from int32
	to   uint32
}

const srcBit = 1 << 31

// target is the node e waits for.
func (e *sweepEdge) target() int32 { return int32(e.to &^ srcBit) }

// sweepEv is an event of the sweep: an edge's index times two, plus one
// for its start (so that, at one instant, the ends go first).
type sweepEv = int32

type chainSweep struct {
	m   *model.Model
	ids []format.ThreadID  // by node: Model.Threads, then the threads waited for that it has not
	ivs [][]model.Interval // by node, the thread's intervals (Model.IntervalsOf); nil past Model.Threads
	es  []sweepEdge
	ev  []sweepEv

	// The forest: by node, its parent (-1 for a root), its edge now (an
	// index in es, -1 for none; a root with an edge is a cycle's, the edge
	// closing it), and the waiters in its subtree, itself included.
	par []int32
	cur []int32
	cnt []int32
	// last: by root, when its count, its being a root or its cycle last
	// changed: its time since is not yet added.
	last []format.Time
	// pos: by node, the cursor over its intervals that split its time as
	// a root by state.
	pos []int32
	// hist: by node, its subtree's waiters by their distance to it (the
	// chains' depths).
	hist [][]int32
	// cycAcc: by cycle root, the cycle's root in accs (its thread of the
	// smallest id).
	cycAcc []int32
	// dirty: the roots whose tree changed at this instant, whose depth
	// is taken when the instant is done.
	dirty []int32

	accs  []chainAcc
	accOf map[format.ThreadID]int32
	// nodeAcc: by node, its thread's entry in accs, -1 before it has one.
	nodeAcc []int32
	// accEnd: by entry of accs, the last instant it gained time (pass
	// 1); stop: the last of the roots kept's, where pass 2 is done.
	accEnd []format.Time
	stop   format.Time

	// Pass 2, for the roots kept: by node, whether it is on a cycle,
	// its children (kids) and its index among its parent's (kidAt), and
	// since when its edge's time at its rate now is not yet added.
	pass2  bool
	onCyc  []bool
	kids   [][]int32
	kidAt  []int32
	edgeAt []format.Time
	links  []map[hop]format.Time // by acc kept (acc.lastTop's index)
}

// sweepChains is Chains by the sweep.
func sweepChains(v *model.View, n int) ([]Chain, int) {
	m := v.Model
	s := &chainSweep{m: m, accOf: map[format.ThreadID]int32{}}
	s.edges(v)
	s.order()
	nn := len(s.ids)
	s.par, s.cur, s.cnt = make([]int32, nn), make([]int32, nn), make([]int32, nn)
	s.last, s.pos, s.hist, s.cycAcc = make([]format.Time, nn), make([]int32, nn), make([][]int32, nn), make([]int32, nn)
	s.nodeAcc = make([]int32, nn)
	for i := range s.nodeAcc {
		s.nodeAcc[i] = -1
	}
	s.reset()
	s.run()
	order, total := rankRoots(s.accs, n)
	if len(order) == 0 {
		return []Chain{}, total
	}

	// Pass 2: the same sweep again, for the threads and links of the
	// roots kept.
	s.links = make([]map[hop]format.Time, len(order))
	for k, ai := range order {
		a := &s.accs[ai]
		a.sel, a.lastTop = true, int32(k)
		s.links[k] = map[hop]format.Time{}
		s.stop = max(s.stop, s.accEnd[ai])
	}
	s.pass2 = true
	s.onCyc, s.kids, s.kidAt, s.edgeAt = make([]bool, nn), make([][]int32, nn), make([]int32, nn), make([]format.Time, nn)
	s.reset()
	s.run()

	out := make([]Chain, 0, len(order))
	for k, ai := range order {
		out = append(out, s.accs[ai].chain(s.links[k]))
	}
	return out, total
}

// reset makes every node a root with no edge and no waiter behind it.
func (s *chainSweep) reset() {
	for i := range s.par {
		s.par[i], s.cur[i], s.cnt[i], s.last[i], s.pos[i] = -1, -1, 0, 0, 0
		s.hist[i] = s.hist[i][:0]
	}
}

// edges collects every thread's edges, in time order thread by thread
// (a thread's intervals do not overlap, nor do a contention's blame
// spans): each part of an interval in which the thread waited for
// another (chainWalk.links), within the thread's life.
func (s *chainSweep) edges(v *model.View) {
	m := s.m
	node := make(map[format.ThreadID]int32, len(m.Threads))
	s.ids = make([]format.ThreadID, len(m.Threads))
	s.ivs = make([][]model.Interval, len(m.Threads))
	for i, t := range m.Threads {
		node[t.ID] = int32(i)
		s.ids[i] = t.ID
	}
	n := 0
	for _, t := range m.Threads {
		n += len(t.Intervals) // an edge or none each, mostly (0 when dropped: append grows it)
	}
	s.es = make([]sweepEdge, 0, n)
	kept := make([]bool, len(m.Threads))
	for _, t := range v.Threads {
		kept[node[t.ID]] = true
	}
	var lastTo format.ThreadID // a thread mostly waits for one other in a row
	var lastTi int32
	for xi, t := range m.Threads {
		var buf []model.Interval // each thread's own: the sweep reads them all at once
		ivs := m.IntervalsOf(t, &buf)
		s.ivs[xi] = ivs
		for i := range ivs {
			iv := &ivs[i]
			lo, hi := max(iv.Start, t.Start), min(iv.End, t.End)
			emit := func(a, b format.Time, to format.ThreadID, src bool) {
				a, b = max(a, lo), min(b, hi)
				if b <= a || to == 0 || to == t.ID {
					return
				}
				ti := lastTi
				if to != lastTo {
					var ok bool
					if ti, ok = node[to]; !ok {
						ti = int32(len(s.ids))
						s.ids = append(s.ids, to)
						node[to] = ti
					}
					lastTo, lastTi = to, ti
				}
				e := sweepEdge{a: a, b: b, from: int32(xi), to: uint32(ti)}
				if src {
					e.to |= srcBit
				}
				s.es = append(s.es, e)
			}
			switch {
			case iv.State == model.Blocked || iv.Acquire:
				for sp := range m.BlameSpans(t.ID, iv) {
					emit(sp.Start, sp.End, sp.Owner, kept[xi])
				}
			case iv.State == model.Joining && !iv.SelfJoin,
				iv.State == model.Waiting && !iv.SelfJoin && !m.IdleWaits[iv.Stack],
				iv.State == model.Parked, iv.State == model.Acquiring:
				emit(iv.Start, iv.End, iv.Other, false)
			}
		}
	}
}

// hopOf is edge e's step: how its thread waited, on what (its interval
// then says).
func (s *chainSweep) hopOf(e *sweepEdge) hop {
	ivs := s.ivs[e.from]
	iv := &ivs[sort.Search(len(ivs), func(i int) bool { return ivs[i].End > e.a })]
	h := hop{from: s.ids[e.from], to: s.ids[e.target()], obj: iv.Object}
	switch {
	case iv.State == model.Blocked:
		h.how = howMonitor
	case iv.Acquire:
		h.how = howLock
	case iv.State == model.Joining:
		h.how, h.obj = howJoin, 0
	case iv.State == model.Waiting:
		h.how = howWait
	case iv.State == model.Parked:
		h.how = howPark
	default:
		h.how = howSemaphore
	}
	return h
}

// at is event k's instant.
func (s *chainSweep) at(k sweepEv) format.Time {
	if k&1 != 0 {
		return s.es[k>>1].a
	}
	return s.es[k>>1].b
}

// order sorts the edges' starts and ends by time, ends first at one
// instant: a counting sort into buckets of equal length of time, then a
// sort of each bucket (most hold one or two).
func (s *chainSweep) order() {
	if len(s.es) == 0 {
		return
	}
	lo, hi := s.es[0].a, s.es[0].b
	for i := range s.es {
		lo, hi = min(lo, s.es[i].a), max(hi, s.es[i].b)
	}
	nb := len(s.es)/2 + 1 // four events a bucket, on average
	width := (hi-lo)/format.Time(nb) + 1
	count := make([]int32, nb+1)
	for i := range s.es {
		count[(s.es[i].a-lo)/width+1]++
		count[(s.es[i].b-lo)/width+1]++
	}
	for i := 1; i <= nb; i++ {
		count[i] += count[i-1]
	}
	s.ev = make([]sweepEv, 2*len(s.es))
	for i := range s.es {
		ka, kb := (s.es[i].a-lo)/width, (s.es[i].b-lo)/width
		s.ev[count[kb]] = sweepEv(2 * i)
		count[kb]++
		s.ev[count[ka]] = sweepEv(2*i + 1)
		count[ka]++
	}
	less := func(x, y sweepEv) int {
		return cmp.Or(cmp.Compare(s.at(x), s.at(y)), cmp.Compare(x&1, y&1), cmp.Compare(x, y))
	}
	from := 0
	for _, to := range count[:nb] {
		b := s.ev[from:to]
		from = int(to)
		if len(b) < 2 {
			continue
		}
		if len(b) > 12 {
			slices.SortFunc(b, less)
			continue
		}
		for i := 1; i < len(b); i++ {
			for j := i; j > 0 && less(b[j-1], b[j]) > 0; j-- {
				b[j-1], b[j] = b[j], b[j-1]
			}
		}
	}
}

// run sweeps the events in time order.
func (s *chainSweep) run() {
	for i := 0; i < len(s.ev); {
		now := s.at(s.ev[i])
		for ; i < len(s.ev) && s.at(s.ev[i]) == now; i++ {
			k := s.ev[i]
			e := k >> 1
			x := s.es[e].from
			if k&1 == 0 {
				if s.cur[x] == e {
					s.detach(x, now)
				}
				continue
			}
			if s.cur[x] >= 0 { // edges of one thread that overlap: the later wins
				s.detach(x, now)
			}
			s.attach(x, e, now)
		}
		if !s.pass2 {
			for _, r := range s.dirty {
				if s.par[r] < 0 && s.cnt[r] > 0 {
					a := &s.accs[s.accOf2(r)]
					a.depth = max(a.depth, s.depth(r))
				}
			}
		}
		s.dirty = s.dirty[:0]
		if s.pass2 && now >= s.stop {
			// The roots kept gain no time after: each one's last stretch
			// ended at an event in its tree, which added up the time of
			// the edges it changed, and of every waiter's way that ended.
			return
		}
	}
}

// root returns x's root.
func (s *chainSweep) root(x int32) int32 {
	for s.par[x] >= 0 {
		x = s.par[x]
	}
	return x
}

// acc returns root's entry in accs, made when new.
func (s *chainSweep) acc(root format.ThreadID) int32 {
	ai, ok := s.accOf[root]
	if !ok {
		ai = int32(len(s.accs))
		s.accs = append(s.accs, chainAcc{root: root})
		s.accEnd = append(s.accEnd, 0)
		s.accOf[root] = ai
	}
	return ai
}

// accOf2 returns root r's entry in accs: its cycle's or its own.
func (s *chainSweep) accOf2(r int32) int32 {
	if s.cur[r] >= 0 {
		return s.cycAcc[r]
	}
	return s.nodeAccOf(r)
}

// nodeAccOf returns node x's thread's entry in accs.
func (s *chainSweep) nodeAccOf(x int32) int32 {
	if s.nodeAcc[x] < 0 {
		s.nodeAcc[x] = s.acc(s.ids[x])
	}
	return s.nodeAcc[x]
}

// isSrc reports whether edge e's time is blamed (a waiter's).
func (s *chainSweep) isSrc(e int32) bool { return s.es[e].to&srcBit != 0 }

// attach starts x's edge e (x is a root with no edge) at now.
func (s *chainSweep) attach(x, e int32, now format.Time) {
	y := s.es[e].target()
	s.flush(x, now)
	r := s.root(y)
	cyc := int32(-1)
	if r == x {
		// A cycle: y's chain leads back to x. Its root is its thread of
		// the smallest id.
		id := s.ids[x]
		for u := y; u != x; u = s.par[u] {
			id = min(id, s.ids[u])
		}
		cyc = s.acc(id)
	}
	if s.pass2 {
		// x's tree goes to r's root (or becomes a cycle); the rates on
		// r's way change.
		to := cyc
		if cyc < 0 {
			to = s.accOf2(r)
		}
		if s.sel(s.nodeAccOf(x)) || s.sel(to) {
			s.flushTree(x, now)
		}
		if cyc < 0 && s.sel(to) {
			s.flushPath(y, r, now)
		}
		s.edgeAt[x] = now
	}
	s.cur[x] = e
	if s.isSrc(e) {
		s.addSelf(x, 1)
	}
	if cyc >= 0 {
		if s.pass2 {
			for u := y; u != x; u = s.par[u] {
				s.onCyc[u] = true
			}
			s.onCyc[x] = true
		}
		s.cycAcc[x] = cyc
		s.dirty = append(s.dirty, x)
		return
	}
	s.flush(r, now)
	s.link(x, y, 1)
	s.dirty = append(s.dirty, r)
}

// sel reports whether accs[ai] is a root kept (pass 2): the time of the
// edges of its tree is added up, those of the others' trees are not, and
// are taken as new when they go to a kept root's tree.
func (s *chainSweep) sel(ai int32) bool { return s.accs[ai].sel }

// detach ends x's edge at now.
func (s *chainSweep) detach(x int32, now format.Time) {
	e := s.cur[x]
	if s.par[x] < 0 { // the edge that closed a cycle
		s.flush(x, now)
		if s.pass2 {
			if s.sel(s.cycAcc[x]) || s.sel(s.nodeAccOf(x)) {
				s.flushTree(x, now)
			}
			s.uncycle(x)
		}
		s.cur[x] = -1
		if s.isSrc(e) {
			s.addSelf(x, -1)
		}
		s.dirty = append(s.dirty, x)
		return
	}
	r := s.root(x)
	s.flush(r, now)
	cyc := s.cur[r] >= 0
	if s.pass2 {
		to := s.sel(s.nodeAccOf(x)) // x's tree goes to x's root
		if cyc {
			if to || s.sel(s.cycAcc[r]) {
				s.flushTree(r, now)
			}
			if s.onCyc[x] {
				s.uncycle(r) // x is on the cycle, which its end breaks
			}
		} else if from := s.sel(s.nodeAccOf(r)); from || to {
			s.flushTree(x, now)
			if from {
				s.flushPath(s.par[x], r, now)
			}
		}
	}
	s.link(x, s.par[x], -1)
	s.cur[x] = -1
	if s.isSrc(e) {
		s.addSelf(x, -1)
	}
	s.last[x] = now
	s.dirty = append(s.dirty, x)
	if cyc && s.root(s.es[s.cur[r]].target()) != r {
		// x was on r's cycle: it is broken, r's edge closes none now
		// and r is behind x's tree.
		s.link(r, s.es[s.cur[r]].target(), 1)
	}
}

// uncycle clears the marks of cycle root r's cycle (pass 2).
func (s *chainSweep) uncycle(r int32) {
	for u := s.es[s.cur[r]].target(); u != r && u >= 0; u = s.par[u] {
		s.onCyc[u] = false
	}
	s.onCyc[r] = false
}

// addSelf adds d to root x's own count of waiters (its edge is a
// waiter's).
func (s *chainSweep) addSelf(x int32, d int32) {
	s.cnt[x] += d
	if !s.pass2 {
		if len(s.hist[x]) == 0 {
			s.hist[x] = append(s.hist[x], 0)
		}
		s.hist[x][0] += d
	}
}

// link makes y x's parent (sign 1) or x no longer y's child (sign -1):
// x's waiters are added to or taken from y's ancestors'.
func (s *chainSweep) link(x, y int32, sign int32) {
	c := s.cnt[x] * sign
	hx := trim(s.hist[x])
	s.hist[x] = hx
	for u, j := y, 1; u >= 0; u, j = s.par[u], j+1 {
		s.cnt[u] += c
		if !s.pass2 && c != 0 {
			hu := s.hist[u]
			for len(hu) < len(hx)+j {
				hu = append(hu, 0)
			}
			for k, n := range hx {
				hu[k+j] += n * sign
			}
			s.hist[u] = trim(hu)
		}
	}
	if sign > 0 {
		s.par[x] = y
		if s.pass2 {
			s.kidAt[x] = int32(len(s.kids[y]))
			s.kids[y] = append(s.kids[y], x)
		}
		return
	}
	s.par[x] = -1
	if s.pass2 {
		ks := s.kids[y]
		i := s.kidAt[x]
		last := ks[len(ks)-1]
		ks[i], s.kidAt[last] = last, i
		s.kids[y] = ks[:len(ks)-1]
	}
}

// trim returns h without its zeros at the end: a subtree's depths would
// otherwise grow with every move of a deeper one through it.
func trim(h []int32) []int32 {
	for len(h) > 0 && h[len(h)-1] == 0 {
		h = h[:len(h)-1]
	}
	return h
}

// depth returns the longest chain to root r: its waiters' greatest
// distance to it; for a cycle's root, to the first thread of the cycle
// on their way, plus one.
func (s *chainSweep) depth(r int32) int {
	h := s.hist[r]
	if s.cur[r] < 0 {
		for k := len(h) - 1; k >= 0; k-- {
			if h[k] > 0 {
				return k
			}
		}
		return 0
	}
	d := 0
	for u := r; ; {
		// u's waiters not behind the next thread of the cycle (c).
		c := int32(-1)
		if y := s.es[s.cur[r]].target(); y != u {
			for c = y; s.par[c] != u; c = s.par[c] {
			}
		}
		hu := s.hist[u]
		for k := len(hu) - 1; k >= 0; k-- {
			n := hu[k]
			if c >= 0 && k >= 1 && k-1 < len(s.hist[c]) {
				n -= s.hist[c][k-1]
			}
			if n > 0 {
				d = max(d, k+1)
				break
			}
		}
		if c < 0 {
			return d
		}
		u = c
	}
}

// flush adds root r's time since last, its waiters' count each instant,
// to its entry, by what it was doing (pass 1).
func (s *chainSweep) flush(r int32, now format.Time) {
	a := s.last[r]
	s.last[r] = now
	n := format.Time(s.cnt[r])
	if s.pass2 || n == 0 || now <= a {
		return
	}
	if s.cur[r] >= 0 {
		acc := &s.accs[s.cycAcc[r]]
		s.accEnd[s.cycAcc[r]] = now
		acc.time += n * (now - a)
		acc.states[rootCycle] += n * (now - a)
		return
	}
	acc := &s.accs[s.nodeAccOf(r)]
	s.accEnd[s.nodeAccOf(r)] = now
	acc.time += n * (now - a)
	add := func(st int, p, q format.Time) {
		if q > p {
			acc.states[st] += n * (q - p)
		}
	}
	if int(r) >= len(s.m.Threads) {
		add(rootUnknown, a, now)
		return
	}
	t := s.m.Threads[r]
	b := now
	if a < t.Start {
		add(rootUnknown, a, min(b, t.Start))
		a = min(b, t.Start)
	}
	if b > t.End {
		add(rootEnded, max(a, t.End), b)
		b = max(a, t.End)
	}
	ivs := s.ivs[r]
	i := int(s.pos[r])
	for i < len(ivs) && ivs[i].End <= a {
		i++
	}
	s.pos[r] = int32(i)
	at := a
	for ; i < len(ivs) && ivs[i].Start < b; i++ {
		p, q := max(ivs[i].Start, a), min(ivs[i].End, b)
		if q <= p {
			continue
		}
		add(int(model.Runnable), at, p)
		add(int(ivs[i].Shown()), p, q)
		at = max(at, q)
	}
	add(int(model.Runnable), at, b)
}

// flushEdge adds x's edge's time since edgeAt, at its rate (the waiters
// that went through it: those of its subtree, or all of its cycle's), to
// its root's links, and x to its threads if it is a waiter (pass 2).
func (s *chainSweep) flushEdge(x, ai, n int32, now format.Time) {
	e := s.cur[x]
	if e < 0 {
		return
	}
	a := s.edgeAt[x]
	s.edgeAt[x] = now
	if now <= a || n == 0 || !s.accs[ai].sel {
		return
	}
	acc := &s.accs[ai]
	s.links[acc.lastTop][s.hopOf(&s.es[e])] += format.Time(n) * (now - a)
	if s.isSrc(e) {
		acc.threads = append(acc.threads, s.ids[x])
	}
}

// rate returns the waiters that go through x's edge, in root r's tree.
func (s *chainSweep) rate(x, r int32) int32 {
	if s.onCyc[x] {
		return s.cnt[r]
	}
	return s.cnt[x]
}

// flushTree flushes the edges of x's subtree (pass 2), x's own included.
func (s *chainSweep) flushTree(x int32, now format.Time) {
	r := s.root(x)
	ai := s.accOf2(r)
	var walk func(u int32)
	walk = func(u int32) {
		s.flushEdge(u, ai, s.rate(u, r), now)
		for _, k := range s.kids[u] {
			walk(k)
		}
	}
	walk(x)
}

// flushPath flushes the edges from y up to its root r (pass 2), and, r a
// cycle's root, its cycle's: their rates are about to change.
func (s *chainSweep) flushPath(y, r int32, now format.Time) {
	ai := s.accOf2(r)
	for u := y; u >= 0; u = s.par[u] {
		s.flushEdge(u, ai, s.rate(u, r), now)
	}
	if s.cur[r] >= 0 {
		for u := s.es[s.cur[r]].target(); u != r; u = s.par[u] {
			s.flushEdge(u, ai, s.rate(u, r), now)
		}
	}
}
