package model

import (
	"cmp"
	"fmt"
	"slices"

	"orca/internal/format"
	"orca/internal/reader"
)

// Builder folds events into a Model: New, then Event for each event in
// file order, then Finalize. In-progress state stays private.
type Builder struct {
	lastThread *tstate // the last thread looked up: events come in runs
	m          *Model
	edges      edgeList // Model.Edges until Finalize
	threads    map[format.ThreadID]*tstate
	locks      map[uint64]*lstate // key: object<<1 | kind (a struct key hashes slower)
	stacks     stackTable
	first      bool
	// Pending ThreadStart edges, completed when the target appears.
	starts map[format.ThreadID]int // target -> index in b.edges
	// Joins that returned before the line of their target's ThreadEnded
	// was read (two flushes interleave): the edge is made at ThreadEnded.
	joins map[format.ThreadID][]pendingJoin
	wf    waitFor
	// ext, when set (Build), numbers the stacks instead of b.stacks: the
	// events carry their number in it (reader.Event.StackID).
	ext *reader.StackTable
}

type pendingJoin struct {
	by format.ThreadID
	at format.Time // the ThreadJoined
}

// tstate is a thread being folded. The Thread is in it, not pointed to:
// each event touches both.
type tstate struct {
	t Thread
	// open is the stack of states the thread is in, innermost last (a
	// Joining thread can block on the Thread's monitor: Joining ⊃ Blocked).
	// It starts in openBuf, next to the rest of the thread's state.
	open    []openIv
	openBuf [2]openIv
	ivs     ivList      // its intervals until Finalize puts them in t
	last    format.Time // time of its latest event, when seen
	seen    bool        // it has had an event of its own
	// floor is the end of its latest segment. Another thread's event can
	// split a segment later than this thread's next line (lines of two
	// threads may be out of order by a little); that line is folded at
	// floor so segments never overlap.
	floor format.Time
	wf    wfEdge // what it waits for (see waitFor)
	num   uint32 // numbers the threads from 0 in order of appearance
}

type openIv struct {
	// iv.Since is when the state began; iv.Start is where its current
	// segment begins (it moves when the state is split).
	iv Interval
	// ls is the lock of a Blocked, Waiting or Acquiring state, so that
	// its end need not look it up.
	ls *lstate
	// other is iv.Other's tstate for a Blocked or Joining state (nil when
	// unknown), for the wait-for graph.
	other *tstate
	// Blocked: the current owner's blame on ls, nil when the owner is
	// unknown, and since when it is blamed; since when the thread waits
	// for that owner (where its span in Model.OwnerSpans begins).
	blame      *Blame
	blameSince format.Time
	spanStart  format.Time
	// Waiting: the notify tokens this wait can consume start after this.
	seq  int
	segs int // segments emitted so far
}

// lstate is a lock being folded.
type lstate struct {
	l         *Lock
	lastBlame *Blame   // see blameOf
	owners    []*Blame // in order of first blame
	// byThread has, by thread number, whether the thread is among the
	// waiters (bit 0) and its index+1 in owners (the other bits).
	byThread numMap
	// Sites by stack: sites[siteIdx[stack]-1]; lastSite is the index of the
	// latest one.
	sites    []siteRef
	siteIdx  numMap
	lastSite int
	// Threads blocked on the monitor now, sorted by ID: newOwner splits
	// their intervals in that order (it decides the order in which the
	// wait-for graph's cycles are found).
	blocked []*tstate
	// Object.wait bookkeeping: the threads waiting now, sorted.
	waiting threadSet
	tokens  []token
	nextSeq int
	storm   []format.Time // recent notifyAll times
	// Semaphore: the latest release not yet matched to an acquire.
	rel     *tstate
	relTime format.Time
	relUsed bool
}

// siteRef is a Site of a lock while folding.
type siteRef struct {
	Site
	held bool // an owner entered the monitor at this stack (Lock.HeldAt)
}

// token is a notify or notifyAll that can end waits.
type token struct {
	seq        int
	all        bool
	by         format.ThreadID
	at         format.Time
	candidates threadSet // waiters when it was sent, less those whose wait ended since
	used       bool
}

// New returns an empty Builder.
func New() *Builder {
	return &Builder{
		m: &Model{
			byThread: map[format.ThreadID]*Thread{},
			byObject: map[lockKey]*Lock{},
			Stacks:   [][]format.Frame{nil},
		},
		threads: map[format.ThreadID]*tstate{},
		locks:   map[uint64]*lstate{},
		stacks:  newStackTable(),
		starts:  map[format.ThreadID]int{},
		joins:   map[format.ThreadID][]pendingJoin{},
		first:   true,
		wf:      newWaitFor(),
	}
}

func (b *Builder) problem(ev *reader.Event, format string, args ...any) {
	if len(b.m.Problems) < 1000 {
		b.m.Problems = append(b.m.Problems, fmt.Sprintf("line %d: %s: ", ev.Line, ev.Kind)+fmt.Sprintf(format, args...))
	}
}

// thread returns the thread id, creating it as first seen at at (by its
// own event or as another event's owner, target or joined thread).
func (b *Builder) thread(id format.ThreadID, at format.Time) *tstate {
	if b.lastThread != nil && b.lastThread.t.ID == id {
		return b.lastThread
	}
	ts := b.threads[id]
	if ts == nil {
		ts = &tstate{t: Thread{ID: id, Start: at}, num: uint32(len(b.m.Threads))}
		ts.open = ts.openBuf[:0]
		b.threads[id] = ts
		b.m.byThread[id] = &ts.t
		b.m.Threads = append(b.m.Threads, &ts.t)
	}
	b.lastThread = ts
	return ts
}

func (b *Builder) lock(obj format.ObjectID, kind LockKind) *lstate {
	k := uint64(obj)<<1 | uint64(kind)
	ls := b.locks[k]
	if ls == nil {
		l := &Lock{Object: obj, Kind: kind}
		if kind == Semaphore {
			l.Class = "Ljava/util/concurrent/Semaphore;"
		}
		ls = &lstate{l: l}
		b.locks[k] = ls
		b.m.byObject[lockKey{obj, kind}] = l
		b.m.Locks = append(b.m.Locks, l)
	}
	return ls
}

// push starts an interval, splitting the enclosing one so intervals never
// overlap. Only a contention nests in another state (Thread.join and
// Object.wait take a monitor back before they return; Semaphore.acquire can
// block on a class initialisation); any other state opening in one means
// the open one's closing event was lost: it ends here, with a problem.
func (b *Builder) push(ts *tstate, iv Interval, ls *lstate, other *tstate, ev *reader.Event) *openIv {
	for n := len(ts.open); n > 0; n-- {
		if top := ts.open[n-1].iv.State; iv.State == Blocked && top != Blocked && top != Sleeping {
			break
		}
		b.problem(ev, "thread %v still %s: its end is missing", ev.Thread, ts.open[n-1].iv.State)
		b.end(ts, iv.Start, endForced)
	}
	iv.Since = iv.Start
	if n := len(ts.open); n > 0 {
		outer := &ts.open[n-1]
		b.segment(ts, outer, iv.Start, false)
		outer.iv.Start = iv.Start // resumes when the inner one ends
	}
	ts.open = append(ts.open, openIv{iv: iv, ls: ls, other: other, blameSince: iv.Start, spanStart: iv.Start})
	o := &ts.open[len(ts.open)-1]
	if iv.State == Blocked {
		o.iv.First = iv.Other
		o.iv.ownFrom = uint32(len(ls.l.OwnerChanges))
		if other != nil {
			// Looked up now rather than at each change of what it is blamed:
			// every owner a contention waits for is blamed, if only 0.
			o.blame = ls.blameOf(other)
		}
	}
	b.rewait(ts, iv.Start)
	return o
}

// segment appends a segment of state o ending at end. An empty one is
// kept too: it says who was waited for at that instant, or how the state
// ended.
func (b *Builder) segment(ts *tstate, o *openIv, end format.Time, open bool) {
	iv := o.iv
	if end < iv.Start {
		end = iv.Start
	}
	iv.End, iv.Open, iv.Cont = end, open, o.segs > 0
	o.segs++
	ts.ivs.add(iv)
	ts.floor = max(ts.floor, end)
}

// How a state ends.
type ending uint8

const (
	endNormal ending = iota // by its closing event
	endForced               // the closing event is missing (ThreadEnded, or an outer state closed)
	endOpen                 // still in it when the recording ended
)

// pop ends the innermost open state s of ts at the event. States opened inside
// it lost their closing events: they end too, each with a problem. It
// returns false when the thread is not in state s.
func (b *Builder) pop(ts *tstate, s State, ev *reader.Event) bool {
	i := len(ts.open) - 1
	for i >= 0 && ts.open[i].iv.State != s {
		i--
	}
	if i < 0 {
		return false
	}
	for len(ts.open)-1 > i {
		b.problem(ev, "thread %v still %s: its end is missing", ev.Thread, ts.open[len(ts.open)-1].iv.State)
		b.end(ts, ev.Time, endForced)
	}
	o := ts.open[i].iv
	if ev.Kind.Has(format.FObject) && o.Object != ev.Object {
		b.problem(ev, "thread %v ends %s on %v but was %s on %v", ev.Thread, s, ev.Object, s, o.Object)
	}
	if ev.Kind.Has(format.FTarget) && o.Other != ev.Target {
		b.problem(ev, "thread %v ends joining %v but was joining %v", ev.Thread, ev.Target, o.Other)
	}
	b.end(ts, ev.Time, endNormal)
	return true
}

// end closes the innermost open state of ts at at: the bookkeeping of its
// kind, its last segment; the enclosing state, if any, resumes.
func (b *Builder) end(ts *tstate, at format.Time, how ending) {
	n := len(ts.open)
	o := ts.open[n-1]
	ts.open = ts.open[:n-1]
	th := ts.t.ID
	if at < o.iv.Start {
		at = o.iv.Start
	}
	switch o.iv.State {
	case Blocked:
		at = max(at, o.spanStart)
		ls := o.ls
		ls.unblock(th)
		o.iv.ownTo = uint32(len(ls.l.OwnerChanges))
		o.addBlame(at - o.blameSince)
		if how == endOpen {
			// Still blocked: the owner is blamed until the end, but the
			// contention is not counted (it has no length yet).
			break
		}
		// The thread is among the lock's waiters since its
		// MonitorContendedEnter.
		site := b.contended(ls, o.blame, o.iv.Stack, at-o.iv.Since)
		if how == endNormal {
			if o.iv.Other != 0 {
				// From the segment's start: when the thread began waiting for that owner.
				b.edges.add(Edge{Kind: EdgeOwner, From: o.iv.Other, To: th, FromTime: o.spanStart, ToTime: at, Object: o.iv.Object})
			}
			site.held = true
			// The thread owns the monitor now: the others still blocked on
			// it wait for it from here on.
			b.newOwner(ls, ts, at)
		}
	case Waiting:
		ls := o.ls
		ls.waiting.remove(th)
		ls.l.WaitTime += at - o.iv.Since
		switch how {
		case endOpen:
			o.iv.Wake = WakeNever
		case endForced:
			b.unwait(ls, th)
			o.iv.Wake = WakeTimeout
		default:
			var tokAt format.Time
			o.iv.Wake, o.iv.Other, tokAt = b.wake(ls, th, o.seq, at)
			if o.iv.Other != 0 {
				b.edges.add(Edge{Kind: EdgeWake, From: o.iv.Other, To: th, FromTime: tokAt, ToTime: at,
					Object: o.iv.Object, Ambiguous: o.iv.Wake == WakeAmbiguous})
			}
		}
	case Acquiring:
		if how != endNormal {
			break
		}
		ls := o.ls
		// An acquire that a release by another thread let through waited:
		// that is a semaphore contention.
		if rel := ls.rel; !ls.relUsed && rel != nil && rel != ts && ls.relTime >= o.iv.Since && ls.relTime <= at {
			ls.relUsed = true
			d := at - o.iv.Since
			ls.saw(ts)
			bl := ls.blameOf(rel)
			b.contended(ls, bl, o.iv.Stack, d)
			bl.Blamed += d
			b.edges.add(Edge{Kind: EdgeRelease, From: rel.t.ID, To: th, FromTime: ls.relTime, ToTime: at, Object: o.iv.Object})
			o.iv.Other = rel.t.ID
		}
	case Joining:
		if how != endNormal || o.iv.Other == 0 {
			break
		}
		// A join returns because its target ended, or because it timed
		// out or was interrupted: only the first is an edge.
		if tt := b.threads[o.iv.Other]; tt != nil && tt.t.Ended {
			if tt.t.End <= at {
				b.edges.add(Edge{Kind: EdgeJoin, From: o.iv.Other, To: th, FromTime: tt.t.End, ToTime: at})
			}
		} else {
			b.joins[o.iv.Other] = append(b.joins[o.iv.Other], pendingJoin{th, at})
		}
	}
	// At the end of the recording, the innermost state's open segment
	// comes first, then the empty ones of the states around it.
	b.segment(ts, &o, at, how == endOpen)
	if o.iv.State == Waiting || o.iv.State == Acquiring {
		// The earlier segments of a split wait learn how it ended.
		ts.ivs.back(func(iv *Interval) bool {
			if iv.End < o.iv.Since {
				return false
			}
			if iv.State == o.iv.State && iv.Since == o.iv.Since && iv.Object == o.iv.Object {
				iv.Wake, iv.Other = o.iv.Wake, o.iv.Other
				return iv.Cont
			}
			return true
		})
	}
	if n > 1 {
		ts.open[n-2].iv.Start = at
	}
	if how != endOpen {
		b.rewait(ts, at)
	}
}

// rewait points the thread's wait-for edge at what its innermost state
// waits for: the owner of the monitor it blocks on, or the thread it joins.
func (b *Builder) rewait(ts *tstate, at format.Time) {
	if n := len(ts.open); n > 0 {
		o := &ts.open[n-1]
		switch o.iv.State {
		case Blocked:
			b.wf.set(ts, o.other, o.iv.Object, o.iv.Stack, at, b.m)
			return
		case Joining:
			b.wf.set(ts, o.other, 0, o.iv.Stack, at, b.m)
			return
		}
	}
	b.wf.clear(ts, at, b.m)
}

// CutAt says the recording was cut at at (0: at its last event) because
// of reason; call it before the first Event. Later events are counted in
// Model.Cut.After, not folded.
func (b *Builder) CutAt(at format.Time, reason string) {
	b.m.Cut = &Cut{At: at, Reason: reason}
}

// Event folds one event. Events must come in file order.
func (b *Builder) Event(ev *reader.Event) {
	m := b.m
	if m.Cut != nil && m.Cut.At != 0 && ev.Time > m.Cut.At {
		m.Cut.After++
		return
	}
	m.Events++
	if b.first || ev.Time < m.Start {
		m.Start = ev.Time
	}
	if b.first || ev.Time > m.End {
		m.End = ev.Time
	}
	b.first = false
	if ev.Thread == 0 || ev.Object == 0 && ev.Kind.Has(format.FObject) {
		// No identity hash is 0: 00000000 stands for "unknown".
		b.problem(ev, "thread %v, object %v: 00000000 names no thread or object", ev.Thread, ev.Object)
		return
	}
	ts := b.thread(ev.Thread, ev.Time)
	t := &ts.t
	t.Events++
	if t.Ended {
		// After posting ThreadEnd, HotSpot's thread exit (ensure_join) locks
		// the Thread object to notify its joiners, and can block on it (the
		// starter may still be in synchronized Thread.start): the thread
		// lives until then. Nothing else may follow; an identity hash
		// shared by two threads looks like this.
		exit := (ev.Kind == format.MonitorContendedEnter || ev.Kind == format.MonitorContendedEntered) &&
			uint32(ev.Object) == uint32(ev.Thread)
		if !exit {
			b.problem(ev, "event after ThreadEnded of %v", ev.Thread)
			return
		}
		t.End = max(t.End, ev.Time, ts.last)
	}
	if ts.seen && ev.Time < ts.last {
		// Lines of one thread are always in order; fold this one at the
		// thread's latest time so its intervals cannot overlap.
		b.problem(ev, "time goes back %.9fs on thread %v", (ts.last - ev.Time).Seconds(), ev.Thread)
		e := *ev
		e.Time = ts.last
		ev = &e
	}
	if ev.Time < ts.floor {
		e := *ev
		e.Time = ts.floor
		ev = &e
	}
	if ev.Kind == format.ThreadStarted && !ts.seen || ev.Time < t.Start {
		t.Start = ev.Time
	}
	ts.seen, ts.last = true, ev.Time
	var stack StackID
	if b.ext != nil {
		stack = StackID(ev.StackID)
	} else {
		stack = b.stacks.intern(ev.Stack, &m.Stacks)
	}

	switch ev.Kind {
	case format.ThreadStarted:
		t.Name = ev.Name
		if i, ok := b.starts[ev.Thread]; ok {
			e := b.edges.at(i)
			e.ToTime = max(t.Start, e.FromTime)
		}
	case format.ThreadEnded:
		for len(ts.open) > 0 {
			b.problem(ev, "thread %v ended while %s", ev.Thread, ts.open[len(ts.open)-1].iv.State)
			b.end(ts, ev.Time, endForced)
		}
		t.End, t.Ended = ev.Time, true
		b.wf.clear(ts, ev.Time, m)
		for _, j := range b.joins[ev.Thread] {
			if j.at >= ev.Time {
				b.edges.add(Edge{Kind: EdgeJoin, From: ev.Thread, To: j.by, FromTime: ev.Time, ToTime: j.at})
			}
		}
		delete(b.joins, ev.Thread)
	case format.ThreadStart:
		if ev.Target == 0 || ev.Target == ev.Thread {
			b.problem(ev, "thread %v starts thread %v", ev.Thread, ev.Target)
			break
		}
		tt := b.thread(ev.Target, ev.Time)
		tt.t.Parent, tt.t.StartedAt = ev.Thread, stack
		to := ev.Time
		if tt.seen {
			to = max(tt.t.Start, ev.Time)
		}
		b.starts[ev.Target] = b.edges.add(Edge{Kind: EdgeStart, From: ev.Thread, To: ev.Target, FromTime: ev.Time, ToTime: to})
	case format.ThreadSleep:
		b.push(ts, Interval{Start: ev.Time, State: Sleeping, Stack: stack}, nil, nil, ev)
	case format.ThreadJoin:
		target := ev.Target
		if target == ev.Thread {
			b.problem(ev, "thread %v joins itself", ev.Thread)
			target = 0
		}
		var tts *tstate
		if target != 0 {
			tts = b.thread(target, ev.Time)
		}
		b.push(ts, Interval{Start: ev.Time, State: Joining, Other: target, Stack: stack}, nil, tts, ev)
	case format.SemaphoreAcquire:
		ls := b.lock(ev.Object, Semaphore)
		ls.l.Acquires++
		b.push(ts, Interval{Start: ev.Time, State: Acquiring, Object: ev.Object, Stack: stack}, ls, nil, ev)
	case format.SemaphoreRelease:
		ls := b.lock(ev.Object, Semaphore)
		ls.l.Releases++
		ls.rel, ls.relTime, ls.relUsed = ts, ev.Time, false
	case format.MonitorContendedEnter:
		ls := b.lock(ev.Object, Monitor)
		owner := ev.Owner
		if owner == ev.Thread {
			b.problem(ev, "thread %v blocks on monitor %v that it owns", ev.Thread, ev.Object)
			owner = 0
		}
		var ots *tstate
		if owner == 0 {
			ls.l.OwnerUnknown++
		} else {
			ots = b.thread(owner, ev.Time)
		}
		ls.saw(ts)
		b.push(ts, Interval{Start: ev.Time, State: Blocked, Object: ev.Object, Other: owner, Stack: stack}, ls, ots, ev)
		ls.block(ts)
		if ots != nil {
			// The freshest word on who owns the monitor: the threads
			// already blocked on it wait for that one now.
			b.newOwner(ls, ots, ev.Time)
		}
	case format.ObjectWait:
		ls := b.lock(ev.Object, Monitor)
		ls.l.Waits++
		ls.waiting.add(ev.Thread)
		b.push(ts, Interval{Start: ev.Time, State: Waiting, Object: ev.Object, Stack: stack}, ls, nil, ev).seq = ls.nextSeq
	case format.ObjectNotify, format.ObjectNotifyAll:
		all := ev.Kind == format.ObjectNotifyAll
		ls := b.lock(ev.Object, Monitor)
		if all {
			ls.l.NotifyAlls++
			ls.storm = append(ls.storm, ev.Time)
			i := 0
			for i < len(ls.storm) && ev.Time-ls.storm[i] > NotifyAllStormWindow {
				i++
			}
			ls.storm = ls.storm[i:]
			if len(ls.storm) > ls.l.MaxNotifyAllBurst {
				ls.l.MaxNotifyAllBurst = len(ls.storm)
			}
		} else {
			ls.l.Notifies++
		}
		cands := ls.waiting.without(ev.Thread)
		if len(cands) == 0 {
			ls.l.NotifiesWokeNobody++
			break
		}
		ls.tokens = append(ls.tokens, token{seq: ls.nextSeq, all: all, by: ev.Thread, at: ev.Time, candidates: cands})
		ls.nextSeq++
	default:
		// The end of an interval: the event table pairs it with its begin
		// (format.Specs, End), which opened the state beganState names.
		if begin := ev.Kind.Begin(); begin != format.KindNone && !b.pop(ts, beganState[begin], ev) {
			b.problem(ev, "no %s before it", begin)
		}
	}
}

// beganState is the state each interval-beginning kind opens (the cases
// above that push); format.Kind.Begin finds the begin of an end.
var beganState = [format.NumKinds]State{
	format.ThreadSleep:           Sleeping,
	format.ThreadJoin:            Joining,
	format.SemaphoreAcquire:      Acquiring,
	format.MonitorContendedEnter: Blocked,
	format.ObjectWait:            Waiting,
}

// wake decides which notify ended the wait of th (begun at token sequence
// seq) at at: the first one sent since, to a set of waiters th was in.
func (b *Builder) wake(ls *lstate, th format.ThreadID, seq int, at format.Time) (Wake, format.ThreadID, format.Time) {
	for i := range ls.tokens {
		tk := &ls.tokens[i]
		if tk.used || tk.seq < seq || !tk.candidates.has(th) || tk.at > at {
			continue
		}
		w := WakeNotifyAll
		if !tk.all {
			w = WakeNotify
			if len(tk.candidates) > 1 {
				w = WakeAmbiguous
			}
			tk.used = true
		}
		by, tokAt := tk.by, tk.at
		b.unwait(ls, th)
		return w, by, tokAt
	}
	b.unwait(ls, th)
	return WakeTimeout, 0, 0
}

// unwait removes th, whose wait ended, from the waiters every pending
// notify could still wake, and forgets the notifies that can wake nobody.
func (b *Builder) unwait(ls *lstate, th format.ThreadID) {
	k := 0
	for _, tk := range ls.tokens {
		tk.candidates.remove(th)
		if !tk.used && len(tk.candidates) > 0 {
			ls.tokens[k] = tk
			k++
		}
	}
	clear(ls.tokens[k:])
	ls.tokens = ls.tokens[:k]
}

// saw adds ts to the lock's waiters unless it is there.
func (ls *lstate) saw(ts *tstate) {
	if v := ls.byThread.get(ts.num); v&1 == 0 {
		ls.byThread.set(ts.num, v|1)
		ls.l.Waiters = append(ls.l.Waiters, ts.t.ID)
	}
}

// contended records one contention on the lock (blocked d at stack) by a
// thread already among its waiters, and returns its site; bl is the
// owner's blame, nil when the owner is unknown.
func (b *Builder) contended(ls *lstate, bl *Blame, stack StackID, d format.Time) *siteRef {
	l := ls.l
	l.Contentions++
	l.Blocked += d
	if d > l.MaxBlocked {
		l.MaxBlocked = d
	}
	s := ls.site(stack)
	s.Contentions++
	s.Blocked += d
	if bl != nil {
		bl.Contentions++
	}
	return s
}

// site returns the lock's site at stack, adding it if it is new. The
// pointer is valid until the next call.
func (ls *lstate) site(stack StackID) *siteRef {
	// Contentions on one lock mostly repeat one call site.
	if i := ls.lastSite; i < len(ls.sites) && ls.sites[i].Stack == stack {
		return &ls.sites[i]
	}
	i := int(ls.siteIdx.get(uint32(stack))) - 1
	if i < 0 {
		i = len(ls.sites)
		ls.sites = append(ls.sites, siteRef{Site: Site{Stack: stack}})
		ls.siteIdx.set(uint32(stack), int32(len(ls.sites)))
	}
	ls.lastSite = i
	return &ls.sites[i]
}

// addBlame blames the current owner of a Blocked state for d.
func (o *openIv) addBlame(d format.Time) {
	if o.blame != nil {
		o.blame.Blamed += d
	}
}

// blameOf returns owner's Blame on the lock; consecutive look-ups are
// mostly for the same owner, so the last one is remembered.
func (ls *lstate) blameOf(owner *tstate) *Blame {
	if ls.lastBlame != nil && ls.lastBlame.Thread == owner.t.ID {
		return ls.lastBlame
	}
	v := ls.byThread.get(owner.num)
	var bl *Blame
	if i := v >> 1; i > 0 {
		bl = ls.owners[i-1]
	} else {
		bl = &Blame{Thread: owner.t.ID}
		ls.owners = append(ls.owners, bl)
		ls.byThread.set(owner.num, int32(len(ls.owners))<<1|v)
	}
	ls.lastBlame = bl
	return bl
}

// block adds ts to the threads blocked on the monitor.
func (ls *lstate) block(ts *tstate) {
	i, found := slices.BinarySearchFunc(ls.blocked, ts.t.ID, byThreadID)
	if found {
		ls.blocked[i] = ts
		return
	}
	ls.blocked = slices.Insert(ls.blocked, i, ts)
}

// unblock removes thread th from the threads blocked on the monitor.
func (ls *lstate) unblock(th format.ThreadID) {
	if i, found := slices.BinarySearchFunc(ls.blocked, th, byThreadID); found {
		ls.blocked = slices.Delete(ls.blocked, i, i+1)
	}
}

func byThreadID(ts *tstate, id format.ThreadID) int { return cmp.Compare(ts.t.ID, id) }

// newOwner makes the threads still blocked on ls wait for owner from at
// on: the old owner's blame stops there and their intervals are split.
func (b *Builder) newOwner(ls *lstate, ots *tstate, at format.Time) {
	owner := ots.t.ID
	if len(ls.blocked) == 0 || len(ls.blocked) == 1 && ls.blocked[0] == ots {
		return // nobody waits for it
	}
	// Once for the lock; the intervals of the threads blocked now refer
	// to it (Model.OwnerSpans repeats the decisions below).
	ls.l.OwnerChanges = append(ls.l.OwnerChanges, OwnerChange{at, owner})
	var bl *Blame // owner's, looked up when first needed
	// In order of thread ID: map order would make the wait-for graph's
	// cycles come in random order. Nothing here changes ls.blocked.
	for _, ts := range ls.blocked {
		if ts == ots {
			continue
		}
		for i := range ts.open {
			o := &ts.open[i]
			if o.iv.State != Blocked || o.ls != ls {
				continue
			}
			// Lines of two threads can be out of order by a little; never
			// split before the span began.
			t := max(at, o.spanStart)
			o.addBlame(t - o.blameSince)
			o.blameSince = t
			if o.iv.Other != owner {
				// A new span: the thread's later events fold after it, as
				// they would after a segment.
				ts.floor = max(ts.floor, t)
				o.spanStart = t
				o.iv.Other, o.other = owner, ots
				if bl == nil {
					bl = ls.blameOf(ots)
				}
				o.blame = bl
				if i == len(ts.open)-1 {
					b.rewait(ts, t)
				}
			}
		}
	}
}

// Finalize closes what is still open at the end of the recording and
// returns the Model. The Builder must not be used afterwards.
func (b *Builder) Finalize() *Model {
	m := b.m
	if b.ext != nil {
		m.Stacks = b.ext.Frames
	}
	if c := m.Cut; c != nil && !b.first {
		// The recording lasted to the cut, whatever its last event.
		if c.At == 0 {
			c.At = m.End
		}
		m.End = max(m.End, c.At)
	}
	m.Edges = b.edges.all()
	for _, t := range m.Threads {
		ts := b.threads[t.ID]
		// A thread that ended can be in a state only when its exit blocked
		// on its Thread object: it is stuck there to the end.
		if !t.Ended || len(ts.open) > 0 {
			t.End = m.End
		}
		for len(ts.open) > 0 {
			b.end(ts, t.End, endOpen)
		}
		t.Intervals = ts.ivs.all()
		byStart := func(a, b Interval) int { return cmp.Compare(a.Start, b.Start) }
		if !slices.IsSortedFunc(t.Intervals, byStart) {
			slices.SortStableFunc(t.Intervals, byStart)
		}
		var busy format.Time
		for _, iv := range t.Intervals {
			t.Time[iv.State] += iv.Duration()
			busy += iv.Duration()
		}
		if r := t.Life() - busy; r > 0 {
			t.Time[Runnable] = r
		}
	}
	// The Threads move out of the tstates, which the Model would otherwise
	// keep, and with them what they point to of the fold's state.
	threads := make([]Thread, len(m.Threads))
	for i, t := range m.Threads {
		threads[i] = *t
		m.Threads[i] = &threads[i]
		m.byThread[t.ID] = &threads[i]
	}
	// A join edge starts when its target ended, its exit included (known
	// only now when the exit came after the join's line).
	for i := range m.Edges {
		if e := &m.Edges[i]; e.Kind == EdgeJoin {
			e.FromTime = min(m.byThread[e.From].End, e.ToTime)
		}
	}
	b.wf.finish(m)
	// The orders below are total (a lock has one Blame per thread and one
	// Site per stack), so the sorts need not be stable.
	for _, ls := range b.locks {
		l := ls.l
		for _, bl := range ls.owners {
			l.Owners = append(l.Owners, *bl)
		}
		slices.SortFunc(l.Owners, func(a, b Blame) int {
			if c := cmp.Compare(b.Blamed, a.Blamed); c != 0 {
				return c
			}
			return cmp.Compare(a.Thread, b.Thread)
		})
		for _, s := range ls.sites {
			l.Sites = append(l.Sites, s.Site)
			if s.held {
				l.HeldAt = append(l.HeldAt, s.Stack)
			}
		}
		slices.SortFunc(l.Sites, func(a, b Site) int {
			if c := cmp.Compare(b.Blocked, a.Blocked); c != 0 {
				return c
			}
			return cmp.Compare(a.Stack, b.Stack)
		})
		slices.Sort(l.HeldAt)
	}
	slices.SortStableFunc(m.Threads, func(a, b *Thread) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	slices.SortStableFunc(m.Locks, func(a, c *Lock) int {
		if a.Blocked != c.Blocked {
			return cmp.Compare(c.Blocked, a.Blocked)
		}
		if a.Contentions != c.Contentions {
			return cmp.Compare(c.Contentions, a.Contentions)
		}
		if a.Object != c.Object {
			return cmp.Compare(a.Object, c.Object)
		}
		return cmp.Compare(a.Kind, c.Kind)
	})
	slices.SortStableFunc(m.Edges, func(a, b Edge) int { return cmp.Compare(a.ToTime, b.ToTime) })
	return m
}
