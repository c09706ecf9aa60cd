package analysis

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"orca/internal/format"
	"orca/internal/model"
)

// Chain is one root of the wait chains (issue 36, item 1): a thread that
// other threads waited behind, directly or through threads that waited
// themselves. A chain starts at a thread blocked on a lock (behind its
// holder) or joining a thread (behind that thread); when that thread was
// blocked or joining too, or waiting, parked or acquiring a semaphore
// (behind the thread that notified, unparked or released it), the chain
// goes on through it. It is followed, at each instant, to the thread that
// was not behind anyone then: running, ready, in I/O or native code, sleeping, idle, or in
// a wait or park that no thread ended (ownerless). A cycle (a deadlock,
// for as long as it lasts) is its own root: the thread of the cycle with
// the smallest id. A join is no step while its joiner holds the joined
// Thread object's monitor (chainWalk.joinHeld): the joiner runs then.
type Chain struct {
	Root format.ThreadID
	// RootState is what the root was doing for most of the time others
	// were behind it: a model.State's name ("runnable": on a CPU, ready or
	// in native code; "sleeping", "waiting", "parked", "idle", …), or
	// "cycle" (a deadlock), "ended" (the root had ended, the waiter still
	// waited), "not_started" (the root had not started yet: the waiter
	// waited for a thread to come, such as a notify from a thread started
	// later), "unknown" (a thread with no events of its own), "released"
	// (the holder a contention blamed had released that very lock: in
	// Object.wait on the monitor, parked in Condition.await on a condition
	// of the j.u.c. lock; Model.Releases. The chain ends there: it does
	// not go on through that wait or park to whoever ended it).
	RootState string
	// Threads are the threads behind the root, by id; a cycle's root has
	// its cycle's threads among them.
	Threads []format.ThreadID
	// Time is the sum of the time those threads spent behind the root.
	Time format.Time
	// Depth is the longest chain to the root: 1 when every thread behind
	// it waited for the root itself; a cycle counts as one step, so that
	// a deadlock's threads are at depth 1 and a thread waiting for one of
	// them at 2.
	Depth int
	// Links are the steps of the chains to the root, the time of the
	// threads behind it that went through each, most first: all of them,
	// or the first of them in a ChainList that cuts them.
	Links []Link
	// LinksTotal is how many steps the chains to the root have.
	LinksTotal int
}

// Link is one step of a wait chain: From waited for To.
type Link struct {
	From, To format.ThreadID
	// How From waited: "monitor" (blocked on a synchronized), "lock" (a
	// java.util.concurrent lock's acquire), "join", "wait" (Object.wait,
	// To notified it), "park" (To unparked it), "semaphore" (To released
	// it).
	How    string
	Object format.ObjectID // the monitor, lock, waited object or semaphore; 0 for a join
	Time   format.Time
}

// hop is one step being followed: from waited for to, how (an index in
// hows), on obj.
type hop struct {
	from, to format.ThreadID
	obj      format.ObjectID
	how      uint8
}

var hows = []string{"monitor", "lock", "join", "wait", "park", "semaphore"}

const (
	howMonitor uint8 = iota
	howLock
	howJoin
	howWait
	howPark
	howSemaphore
)

// The root states past the model's: rootCycle, rootEnded, rootUnknown,
// rootReleased (a holder that had released the lock its waiter was blocked
// on: Model.Releases), rootNotStarted (before the root's start:
// NestedWait.java's waiter was notified by a thread started 300 ms into
// its wait, which the report called "not recorded").
const (
	rootCycle = int(model.NumStates) + iota
	rootEnded
	rootUnknown
	rootReleased
	rootNotStarted
	numRootStates
)

var rootStateNames = [numRootStates - int(model.NumStates)]string{"cycle", "ended", "unknown", "released", "not_started"}

func rootStateName(i int) string {
	if i < int(model.NumStates) {
		return model.State(i).String()
	}
	return rootStateNames[i-int(model.NumStates)]
}

// maxChainDepth bounds a chain's length: a longer one is cut there, its
// last thread taken as the root (never seen: chains are a few steps).
const maxChainDepth = 64

// Chains follows the wait chain of every blocked interval of the View's
// threads (a monitor's contention or a java.util.concurrent lock's
// acquire, each stretch behind its blamed holder) to its roots, and
// returns the first n roots (0: all), most Time first, and how many there
// are. It sweeps the edges of the chains once in time order (chainSweep,
// chainsweep.go); doing is no longer used (it was the walk's, below).
func Chains(v *model.View, doing map[model.LockRef]*model.Doing, n int) ([]Chain, int) {
	return sweepChains(v, n)
}

// The walk below follows each chain from its waiter, as Chains did before
// the sweep: the reference the sweep is checked against (TestChainsSweep),
// and the chain of one wait followed alone.
//
// It is done once per span of each lock's union (View.HoldersDoing's
// spans: the holder's cursor moves forward through its intervals as the
// spans go), not once per waiter: what the holder did then, and whom it
// waited for in turn, is the same for every thread blocked behind it, so
// each waiter only adds its own time to the pieces of its holder's walk.
// A waiter met in its own chain (a cycle through it) and a stretch whose
// holder is not the union's are walked for the waiter alone. The threads
// and links of a root are gathered in a second pass, for the first n
// roots only.

// chains is Chains; everyAlone walks every waiter's stretch for it alone,
// as a check of the walk per union span (TestChainsAlone).
func chains(v *model.View, doing map[model.LockRef]*model.Doing, n int, everyAlone bool) ([]Chain, int) {
	m := v.Model
	if doing == nil {
		doing = v.HoldersDoing()
	}
	w := &chainWalk{m: m, idx: make(map[format.ThreadID]int32, m.NumThreads()), on: make([]int32, m.NumThreads()),
		ends: make([][]format.Time, m.NumThreads()), everyAlone: everyAlone,
		accOf: map[format.ThreadID]int32{}, nodes: []pathNode{{}}, child: map[pathKey]int32{}}
	for i, t := range m.AllThreads() {
		w.idx[t.ID] = int32(i)
	}
	// The locks in a fixed order, and each one's blocked intervals of the
	// View's threads, thread by thread in time order.
	w.refs = make([]model.LockRef, 0, len(doing))
	for r := range doing {
		w.refs = append(w.refs, r)
	}
	slices.SortFunc(w.refs, func(x, y model.LockRef) int {
		return cmp.Or(cmp.Compare(x.Object, y.Object), cmp.Compare(x.Kind, y.Kind))
	})
	lockOf := make(map[model.LockRef]int32, len(w.refs))
	for i, r := range w.refs {
		lockOf[r] = int32(i)
	}
	w.waits = make([][]lockWait, len(w.refs))
	var lastRef model.LockRef
	last := int32(-1)
	for _, t := range v.All() {
		ti := w.idx[t.ID]
		ivs := w.intervals(ti)
		for i := range ivs {
			iv := &ivs[i]
			ref := model.LockRef{Object: iv.Object, Kind: model.Monitor}
			switch {
			case iv.State == model.Blocked:
			case iv.Acquire:
				ref.Kind = model.JUCLock
			default:
				continue
			}
			if ref != lastRef || last < 0 {
				li, ok := lockOf[ref]
				if !ok {
					continue // no span of it: none ended, none with time
				}
				lastRef, last = ref, li
			}
			// Credited through no span yet: a lock whose spans all
			// lack time is not walked at all, and pass 2 must skip it.
			w.waits[last] = append(w.waits[last], lockWait{t: ti, iv: int32(i), g0: math.MaxInt32, g1: -1})
		}
	}
	w.spanRoot = make([][]int32, len(w.refs))
	for li := range w.refs {
		w.spanRoot[li] = make([]int32, len(doing[w.refs[li]].Spans))
	}

	// Pass 1: every root's time, state and depth.
	for li, r := range w.refs {
		w.lock(int32(li), doing[r].Spans)
	}
	order, total := rankRoots(w.accs, n)
	if len(order) == 0 {
		return []Chain{}, total
	}

	// Pass 2: the threads and links of the roots kept.
	for _, ai := range order {
		a := &w.accs[ai]
		a.sel, a.lastTop, a.first, a.tail = true, -1, map[hop]format.Time{}, map[int32]format.Time{}
	}
	w.pass2 = true
	for li, r := range w.refs {
		// A contention pass 2 needs is one with a stretch walked alone, or
		// on a span that ends at a root kept or at more than one: need
		// counts those spans.
		roots := w.spanRoot[li]
		w.need = append(w.need[:0], 0)
		for _, ai := range roots {
			n := w.need[len(w.need)-1]
			if ai < 0 || w.accs[ai].sel {
				n++
			}
			w.need = append(w.need, n)
		}
		for _, lw := range w.waits[li] {
			if w.needs(lw) {
				w.lock(int32(li), doing[r].Spans)
				break
			}
		}
	}
	out := make([]Chain, 0, len(order))
	for _, ai := range order {
		acc := &w.accs[ai]
		links := acc.first
		for p, d := range acc.tail {
			for n := p; n != 0; n = w.nodes[n].parent {
				links[w.nodes[n].h] += d
			}
		}
		out = append(out, acc.chain(links))
	}
	return out, total
}

// rankRoots returns the roots with time, by index in accs, most time
// first, the first n (0: all), and how many there are.
func rankRoots(accs []chainAcc, n int) ([]int32, int) {
	return rankBy(len(accs), func(i int32) (format.Time, format.ThreadID) { return accs[i].time, accs[i].root }, n)
}

// rankBy is rankRoots of count roots whose time and thread at gives.
func rankBy(count int, at func(int32) (format.Time, format.ThreadID), n int) ([]int32, int) {
	order := make([]int32, 0, count)
	for i := range int32(count) {
		if t, _ := at(i); t > 0 {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(x, y int32) int {
		tx, rx := at(x)
		ty, ry := at(y)
		return cmp.Or(cmp.Compare(ty, tx), cmp.Compare(rx, ry))
	})
	total := len(order)
	if n > 0 && len(order) > n {
		// A copy: the array of them all (4 bytes a root, 5 MB of
		// c5G-slow5's report) is not held to the end of pass 2 for n.
		order = slices.Clone(order[:n])
	}
	return order, total
}

// chain makes the root's Chain, with the time of each step of its chains.
func (acc *chainAcc) chain(links map[hop]format.Time) Chain {
	c := Chain{Root: acc.root, Time: acc.time, Depth: acc.depth}
	var best format.Time
	for st, d := range acc.states {
		if d > best {
			c.RootState, best = rootStateName(st), d
		}
	}
	slices.Sort(acc.threads)
	c.Threads = slices.Compact(acc.threads)
	c.Links = make([]Link, 0, len(links))
	for k, d := range links {
		c.Links = append(c.Links, Link{From: k.from, To: k.to, How: hows[k.how], Object: k.obj, Time: d})
	}
	// Compared field by field as far as they differ (cmp.Or's arguments,
	// all computed, the strings' compare with them, were 0.5 s of c1G's
	// report: issue 34).
	slices.SortFunc(c.Links, func(x, y Link) int {
		switch {
		case x.Time != y.Time:
			return cmp.Compare(y.Time, x.Time)
		case x.From != y.From:
			return cmp.Compare(x.From, y.From)
		case x.To != y.To:
			return cmp.Compare(x.To, y.To)
		case x.How != y.How:
			return cmp.Compare(x.How, y.How)
		}
		return cmp.Compare(x.Object, y.Object)
	})
	c.LinksTotal = len(c.Links)
	return c
}

// lockWait is a blocked interval: thread index, interval index; pass 1
// sets the union spans it was credited through, g0 to g1, g0 -1 when a
// stretch of it was walked alone.
type lockWait struct{ t, iv, g0, g1 int32 }

// needs reports whether pass 2 needs the contention lw (chainWalk.need
// counting the lock's spans that it needs).
func (w *chainWalk) needs(lw lockWait) bool {
	return lw.g0 < 0 || lw.g1 >= lw.g0 && w.need[lw.g1+1] > w.need[lw.g0]
}

type chainAcc struct {
	root   format.ThreadID
	time   format.Time
	depth  int
	states [numRootStates]format.Time
	// Pass 2, for a root kept (sel): the threads behind it (repeated, to
	// be sorted and made unique), the time of each first step (a waiter's
	// step to its holder), and of each path after it (a node of
	// chainWalk.nodes), made into the links at the end.
	sel     bool
	lastTop int32
	threads []format.ThreadID
	first   map[hop]format.Time
	tail    map[int32]format.Time
}

// pathNode is a path of the walk after its first step: its last step and
// the path before it.
type pathNode struct {
	parent int32
	h      hop
}

type pathKey struct {
	parent int32
	h      hop
}

// piece is a stretch of a union span's walk ending at one root: from the
// previous piece's end (the span's start for the first) to end.
type piece struct {
	end   format.Time
	acc   int32 // the root, an index in chainWalk.accs
	node  int32 // the path from the holder to the root
	depth int32 // the chain's depth for a waiter behind the holder
	state uint8
	// seen has a bit for each thread the path reaches (seenBit): a waiter
	// whose bit is set may be in it, a cycle through the waiter that the
	// piece does not know.
	seen uint64
}

func seenBit(xi int32) uint64 { return 1 << (uint32(xi) * 0x9E3779B1 >> 26) }

type chainWalk struct {
	m *model.Model
	// ivs: the intervals of the threads the walk has read (by Model.Threads'
	// index), when the Model keeps them in its spill alone
	// (Model.IntervalsOf): read once each, when first needed.
	ivs   [][]model.Interval
	read  []bool
	idx   map[format.ThreadID]int32 // Model.Threads' index of each thread
	refs  []model.LockRef
	waits [][]lockWait // by lock (refs' index)
	// spanRoot: by lock and union span, the root of its walk when it has
	// one only and reaches no other thread (pass 2 skips those of roots
	// not kept), else -1; set by pass 1.
	spanRoot [][]int32
	pass2    bool
	need     []int32 // pass 2: of the lock's first g spans, how many it needs
	lw       *lockWait
	// everyAlone: no union span is walked, every waiter alone (chains).
	everyAlone bool

	accs  []chainAcc
	accOf map[format.ThreadID]int32

	// The walk: path is the steps from the waiter (path[0]; its from is
	// 0 in a union span's walk, whose waiter is any) to the thread being
	// resolved; node is path[1:] as a node of nodes; on[i] is 1 + the
	// index in path of the step from thread i, 0 when it is on none.
	path  []hop
	node  int32
	on    []int32
	nodes []pathNode // node 0 is the empty path
	child map[pathKey]int32
	// top: the waiter (its index) whose wait is credited; -1 while a
	// union span is walked, its pieces gathered in pieces.
	top    int32
	pieces []piece
	tails  []int32 // by union span of the lock walked, the end of its pieces
	// ends: by thread, the end of each block of its intervals (find).
	ends [][]format.Time
	// at: ChainAt's answer, taken at the walk's one emit instead of a
	// credit; instant: its instant, around which it reads the threads'
	// intervals (intervals).
	at      *Path
	instant format.Time
}

// lock walks lock li's union spans ss (its spans' tails, as its waiters
// need them) and credits its waiters.
func (w *chainWalk) lock(li int32, ss []model.OwnerSpan) {
	if len(ss) == 0 {
		return
	}
	roots := w.spanRoot[li]
	ref := w.refs[li]
	// The spans are walked in time order first, so that each holder's
	// cursor moves forward; tails[g] ends span g's pieces in w.pieces.
	w.pieces = w.pieces[:0]
	tails := w.tails[:0]
	w.top = -1
	for g, s := range ss {
		from := int32(len(w.pieces))
		if _, ok := w.idx[s.Owner]; ok && s.Owner != 0 && !w.everyAlone && !(w.pass2 && roots[g] >= 0 && !w.accs[roots[g]].sel) {
			// The step's lock, which the holder may have released
			// (resolve); its waiter (from) is any.
			w.path = append(w.path[:0], hop{to: s.Owner, obj: ref.Object, how: lockHow(ref.Kind)})
			w.node = 0
			w.resolve(s.Owner, s.Start, s.End)
		}
		tails = append(tails, int32(len(w.pieces)))
		if !w.pass2 {
			roots[g] = -1
			if p := w.pieces[from:]; len(p) > 0 && p[0].seen == 0 {
				roots[g] = p[0].acc
				for _, q := range p[1:] {
					if q.acc != p[0].acc || q.seen != 0 {
						roots[g] = -1
						break
					}
				}
			}
		}
	}
	w.tails = tails
	waits := w.waits[li]
	var how uint8
	pos := 0
	for k := range waits {
		lw := &waits[k]
		if k == 0 || waits[k-1].t != lw.t {
			pos = 0
		}
		if w.pass2 && !w.needs(*lw) {
			continue
		}
		if !w.pass2 {
			lw.g0, lw.g1 = math.MaxInt32, -1
		}
		w.lw = lw
		t := w.m.ThreadAt(int(lw.t))
		iv := &w.intervals(lw.t)[lw.iv]
		lo, hi := max(iv.Start, t.Start), min(iv.End, t.End)
		if iv.Acquire {
			how = howLock
		} else {
			how = howMonitor
		}
		for sp := range w.m.BlameSpans(t.ID, iv) {
			a, b := max(sp.Start, lo), min(sp.End, hi)
			if b <= a || sp.Owner == 0 || sp.Owner == t.ID {
				continue
			}
			h := hop{from: t.ID, to: sp.Owner, obj: iv.Object, how: how}
			bit := seenBit(lw.t)
			// The union spans from the one a falls in: after those of
			// the waiter's stretches before.
			pos += sort.Search(len(ss)-pos, func(i int) bool { return ss[pos+i].End > a })
			for at := a; at < b; {
				if pos >= len(ss) || ss[pos].Start > at {
					e := b
					if pos < len(ss) {
						e = min(b, ss[pos].Start)
					}
					w.alone(lw.t, h, at, e)
					at = e
					continue
				}
				s := ss[pos]
				e := min(b, s.End)
				if !w.pass2 && lw.g0 >= 0 {
					lw.g0, lw.g1 = min(lw.g0, int32(pos)), int32(pos)
				}
				switch {
				case s.Owner != sp.Owner || w.everyAlone:
					w.alone(lw.t, h, at, e)
				case w.pass2 && roots[pos] >= 0 && !w.accs[roots[pos]].sel:
				default:
					from := int32(0)
					if pos > 0 {
						from = tails[pos-1]
					}
					ps := w.pieces[from:tails[pos]]
					i := sort.Search(len(ps), func(i int) bool { return ps[i].end > at })
					for p := at; p < e && i < len(ps); i++ {
						q := min(e, ps[i].end)
						if ps[i].seen&bit != 0 {
							w.alone(lw.t, h, p, q)
						} else {
							w.credit(lw.t, h, &ps[i], q-p)
						}
						p = q
					}
				}
				at = e
				if e == s.End {
					pos++
				}
			}
		}
	}
}

// alone walks waiter ti's step h over [a, b) for it alone.
func (w *chainWalk) alone(ti int32, h hop, a, b format.Time) {
	if b <= a {
		return
	}
	if !w.pass2 {
		w.lw.g0 = -1
	}
	w.top = ti
	w.path = append(w.path[:0], h)
	w.node = 0
	w.on[ti] = 1
	w.resolve(h.to, a, b)
	w.on[ti] = 0
}

// credit adds d of waiter ti's wait, its first step h, to piece p's root.
func (w *chainWalk) credit(ti int32, h hop, p *piece, d format.Time) {
	if d <= 0 {
		return
	}
	acc := &w.accs[p.acc]
	if !w.pass2 {
		acc.time += d
		acc.depth = max(acc.depth, int(p.depth))
		acc.states[p.state] += d
		return
	}
	if !acc.sel {
		return
	}
	if acc.lastTop != ti {
		acc.threads = append(acc.threads, w.m.ThreadAt(int(ti)).ID)
		acc.lastTop = ti
	}
	acc.first[h] += d
	if p.node != 0 {
		acc.tail[p.node] += d
	}
}

// descend returns the node of the path parent then h.
func (w *chainWalk) descend(parent int32, h hop) int32 {
	k := pathKey{parent, h}
	n, ok := w.child[k]
	if !ok {
		n = int32(len(w.nodes))
		w.nodes = append(w.nodes, pathNode{parent, h})
		w.child[k] = n
	}
	return n
}

// links calls fn for each part [a, b) of t's interval iv, within [lo, hi),
// in which t waited for another thread, with the step to it.
func (w *chainWalk) links(t *model.Thread, iv *model.Interval, lo, hi format.Time, fn func(a, b format.Time, h hop)) {
	emit := func(a, b format.Time, to format.ThreadID, how uint8, obj format.ObjectID) {
		a, b = max(a, lo), min(b, hi)
		if b > a && to != 0 && to != t.ID {
			fn(a, b, hop{from: t.ID, to: to, obj: obj, how: how})
		}
	}
	switch {
	case iv.State == model.Blocked || iv.Acquire:
		how := howMonitor
		if iv.Acquire {
			how = howLock
		}
		for sp := range w.m.BlameSpans(t.ID, iv) {
			emit(sp.Start, sp.End, sp.Owner, how, iv.Object)
		}
	case iv.State == model.Joining && !iv.SelfJoin:
		at := iv.Start
		for _, h := range w.joinHeld(t, iv, lo, hi) {
			emit(at, h.a, iv.Other, howJoin, 0)
			at = h.b
		}
		emit(at, iv.End, iv.Other, howJoin, 0)
	case iv.State == model.Waiting && !iv.SelfJoin && !w.m.IdleWaits[iv.Stack]:
		emit(iv.Start, iv.End, iv.Other, howWait, iv.Object)
	case iv.State == model.Parked:
		emit(iv.Start, iv.End, iv.Other, howPark, iv.Object)
	case iv.State == model.Acquiring:
		emit(iv.Start, iv.End, iv.Other, howSemaphore, iv.Object)
	}
}

// heldSpan is a stretch [a, b) in which a thread held a Thread object's
// monitor, inside Thread.join.
type heldSpan struct{ a, b format.Time }

// joinHeld returns the stretches of [lo, hi), in time order, in which t,
// in its Joining interval iv, held the monitor of the Thread object it
// joins: the joined thread was blocked on its own Thread object blaming t
// (HotSpot's exit, ensure_join, takes that monitor to notify the joiners,
// after ThreadEnd: model.Thread.End). Thread.join is synchronized on that
// object and waits on it: a joiner that holds the monitor is not in its
// wait but running (toward its wait, or back from it to see the thread
// gone), and waits for no one. Its join is no step of a chain then, and
// the joined thread, blocked behind it, closes no cycle through it: the
// chains called such a joiner "in a deadlock" for the 220 µs of a
// thread's exit while main, inside join, held its Thread (TestChainRelease
// on 25, CI). Of a thread's contentions on that monitor only its own are
// looked at (the joiner of a contention of another thread on it, a second
// joiner, is the chain's root through that contention all the same: the
// walk and the sweep would have to read every thread's).
func (w *chainWalk) joinHeld(t *model.Thread, iv *model.Interval, lo, hi format.Time) []heldSpan {
	xi, ok := w.idx[iv.Other]
	if !ok || iv.Other == t.ID {
		return nil
	}
	o := w.m.ThreadAt(int(xi))
	obj := format.ObjectID(iv.Other.Hash())
	lo, hi = max(lo, iv.Start), min(hi, iv.End)
	var out []heldSpan
	ivs := w.intervals(xi)
	for i := w.find(xi, ivs, lo); i < len(ivs) && ivs[i].Start < hi; i++ {
		c := &ivs[i]
		if c.State != model.Blocked || c.Object != obj {
			continue
		}
		clo, chi := max(c.Start, o.Start), min(c.End, o.End)
		for sp := range w.m.BlameSpans(o.ID, c) {
			if sp.Owner != t.ID {
				continue
			}
			if a, b := max(sp.Start, clo, lo), min(sp.End, chi, hi); b > a {
				out = append(out, heldSpan{a, b})
			}
		}
	}
	return out
}

// findBlock is how many intervals of a thread an entry of
// chainWalk.ends stands for.
const findBlock = 16

// intervals returns thread xi's intervals: Thread.Intervals, or, when the
// Model keeps them in its spill alone, read back once and kept for the
// walk (the waiters' and the threads they wait for: Model.IntervalsOf).
func (w *chainWalk) intervals(xi int32) []model.Interval {
	t := w.m.ThreadAt(int(xi))
	if !w.m.IntervalsDropped() {
		return t.Intervals
	}
	if w.read == nil {
		w.ivs, w.read = make([][]model.Interval, w.m.NumThreads()), make([]bool, w.m.NumThreads())
	}
	if !w.read[xi] {
		var buf []model.Interval
		if w.at != nil {
			// ChainAt: the walk of one instant reads the intervals that
			// hold it, a block of the spill's or two, not the thread.
			ivs, _, err := w.m.ReadIntervalsAt(t, w.instant, nil)
			if err != nil {
				panic(&model.SpillError{Err: err})
			}
			w.ivs[xi], w.read[xi] = ivs, true
			return ivs
		}
		w.ivs[xi], w.read[xi] = w.m.IntervalsOf(t, &buf), true
	}
	return w.ivs[xi]
}

// find returns the first of ivs, thread xi's intervals, that ends after
// a: a search of the ends of its blocks of findBlock intervals (dense,
// made at the thread's first search), then of the block. A search of
// the intervals themselves missed the cache at each step.
func (w *chainWalk) find(xi int32, ivs []model.Interval, a format.Time) int {
	if len(ivs) <= findBlock {
		return sort.Search(len(ivs), func(i int) bool { return ivs[i].End > a })
	}
	ends := w.ends[xi]
	if ends == nil {
		ends = make([]format.Time, 0, (len(ivs)+findBlock-1)/findBlock)
		for j := findBlock; j < len(ivs)+findBlock; j += findBlock {
			ends = append(ends, ivs[min(j, len(ivs))-1].End)
		}
		w.ends[xi] = ends
	}
	j := sort.Search(len(ends), func(j int) bool { return ends[j] > a })
	if j == len(ends) {
		return len(ivs)
	}
	lo := j * findBlock
	hi := min(lo+findBlock, len(ivs))
	return lo + sort.Search(hi-lo, func(i int) bool { return ivs[lo+i].End > a })
}

// lockHow is the step of a contention on a lock of kind k.
func lockHow(k model.LockKind) uint8 {
	if k == model.JUCLock {
		return howLock
	}
	return howMonitor
}

// contended returns the lock of the walk's last step when it is a
// contention's (a monitor or a java.util.concurrent lock).
func (w *chainWalk) contended() (model.LockRef, bool) {
	if len(w.path) == 0 {
		return model.LockRef{}, false
	}
	switch h := w.path[len(w.path)-1]; h.how {
	case howMonitor:
		return model.LockRef{Object: h.obj, Kind: model.Monitor}, true
	case howLock:
		return model.LockRef{Object: h.obj, Kind: model.JUCLock}, true
	}
	return model.LockRef{}, false
}

// resolve follows the chain through thread x over [a, b): w.path leads
// to x; each part of [a, b) is credited to the root it ends at. When the
// last step is a contention and x, its blamed holder, was then in a
// release of that lock (Model.Releases: Object.wait on the monitor,
// Condition.await on a condition of the lock), x had let it go: that part
// ends at x, rootReleased, whatever x's wait or park waited for (before a
// cycle through x is looked for: a waiter behind a released lock is in no
// cycle through it).
func (w *chainWalk) resolve(x format.ThreadID, a, b format.Time) {
	ref, ok := w.contended()
	xi, known := w.idx[x]
	if !ok || !known {
		w.follow(x, a, b)
		return
	}
	t := w.m.ThreadAt(int(xi))
	ivs := w.intervals(xi)
	at := a
	for i := w.find(xi, ivs, a); i < len(ivs) && ivs[i].Start < b; i++ {
		iv := &ivs[i]
		p, q := max(iv.Start, at, t.Start), min(iv.End, b, t.End)
		if q <= p || !w.m.Releases(iv, ref) {
			continue
		}
		w.follow(x, at, p)
		w.emit(x, rootReleased, p, q, len(w.path))
		at = q
	}
	w.follow(x, at, b)
}

// follow is resolve without the look for a release.
func (w *chainWalk) follow(x format.ThreadID, a, b format.Time) {
	if b <= a {
		return
	}
	xi, ok := w.idx[x]
	if !ok {
		w.emit(x, rootUnknown, a, b, len(w.path))
		return
	}
	if i := int(w.on[xi]) - 1; i >= 0 { // a cycle: path[i:] and back to x
		root := x
		for _, c := range w.path[i:] {
			root = min(root, c.from)
		}
		w.emit(root, rootCycle, a, b, i+1)
		return
	}
	t := w.m.ThreadAt(int(xi))
	if len(w.path) >= maxChainDepth {
		w.emit(x, int(model.Runnable), a, b, len(w.path))
		return
	}
	// Before its start or after its end, the waiter waited on a thread
	// that was not there: the root is that thread all the same.
	if a < t.Start {
		w.emit(x, rootNotStarted, a, min(b, t.Start), len(w.path))
		a = min(b, t.Start)
	}
	var tail format.Time = -1
	if b > t.End {
		tail, b = b, max(a, t.End)
	}
	ivs := w.intervals(xi)
	i := w.find(xi, ivs, a)
	at := a
	for ; i < len(ivs) && ivs[i].Start < b; i++ {
		iv := &ivs[i]
		p, q := max(iv.Start, a), min(iv.End, b)
		if q <= p {
			continue
		}
		if p > at {
			w.emit(x, int(model.Runnable), at, p, len(w.path))
		}
		state := int(iv.Shown())
		c0 := p
		depth, node := len(w.path), w.node
		var held []heldSpan
		if iv.State == model.Joining && !iv.SelfJoin {
			held = w.joinHeld(t, iv, p, q)
		}
		gap := func(c, d format.Time) {
			// A joiner holding the joined Thread's monitor runs
			// (joinHeld).
			for _, h := range held {
				if p, q := max(c, h.a), min(d, h.b); q > p {
					w.emit(x, state, c, p, depth)
					w.emit(x, int(model.Runnable), p, q, depth)
					c = q
				}
			}
			w.emit(x, state, c, d, depth)
		}
		w.links(t, iv, p, q, func(c, d format.Time, h hop) {
			if c > c0 {
				gap(c0, c)
			}
			w.path = append(w.path[:depth], h)
			w.on[xi] = int32(depth) + 1
			if w.pass2 {
				// The path's node is for the links, of pass 2 only.
				w.node = w.descend(node, h)
			}
			w.resolve(h.to, c, d)
			w.path, w.node = w.path[:depth], node
			w.on[xi] = 0
			c0 = max(c0, d)
		})
		if q > c0 {
			gap(c0, q)
		}
		at = max(at, q)
	}
	if b > at {
		w.emit(x, int(model.Runnable), at, b, len(w.path))
	}
	if tail > b {
		w.emit(x, rootEnded, b, tail, len(w.path))
	}
}

// emit ends [a, b) of the walk at root, in state, with the chain's depth
// (for a cycle, the steps to it and one: a deadlock's own threads wait
// for it at depth 1): a piece of the union span being walked, or the
// waiter's own time.
func (w *chainWalk) emit(root format.ThreadID, state int, a, b format.Time, depth int) {
	if b <= a {
		return
	}
	if w.at != nil {
		w.at.Root, w.at.RootState = root, rootStateName(state)
		for _, h := range w.path {
			w.at.Links = append(w.at.Links, Link{From: h.from, To: h.to, How: hows[h.how], Object: h.obj})
		}
		return
	}
	ai, ok := w.accOf[root]
	if !ok {
		ai = int32(len(w.accs))
		w.accs = append(w.accs, chainAcc{root: root})
		w.accOf[root] = ai
	}
	p := piece{end: b, acc: ai, node: w.node, depth: int32(depth), state: uint8(state)}
	if w.top < 0 {
		for _, h := range w.path[1:] {
			p.seen |= seenBit(w.idx[h.to])
		}
		w.pieces = append(w.pieces, p)
		return
	}
	w.credit(w.top, w.path[0], &p, b-a)
}

// Path is the wait chain of one thread at one instant (ChainAt).
type Path struct {
	// Links are the steps from the thread to the root, in order: Links[0]
	// is the thread's own (its From the thread), each next one's From the
	// one before's To; their Time is 0. None when the thread waited for no
	// one then: it is its own root.
	Links []Link
	// Root is the thread the chain ends at; RootState what it was doing
	// then, as Chain.RootState says it ("cycle": the last link's To is a
	// thread of the chain, which waited for the next as the links say).
	Root      format.ThreadID
	RootState string
}

// ChainAt follows thread th's wait chain at instant at to its root: the
// walk per waiter (Chains' sweep gives the same) of each stretch of a
// blocked interval, made for the one instant [at, at+1 ns), so that each
// step is one Chains counts (a contention to its blamed holder, a join, a
// wait to its notifier, a park to its unparker, a semaphore's acquire to
// its releaser) and the root the one Chains blames then. It costs a
// search of each chain thread's intervals: a viewer asks it per click.
func ChainAt(m *model.Model, th format.ThreadID, at format.Time) Path {
	var p Path
	w := &chainWalk{m: m, idx: make(map[format.ThreadID]int32, m.NumThreads()), on: make([]int32, m.NumThreads()),
		ends: make([][]format.Time, m.NumThreads()), accOf: map[format.ThreadID]int32{}, nodes: []pathNode{{}},
		child: map[pathKey]int32{}, at: &p, instant: at}
	for i, t := range m.AllThreads() {
		w.idx[t.ID] = int32(i)
	}
	w.resolve(th, at, at+1)
	return p
}
