package model

import (
	"fmt"
	"slices"
	"sort"

	"orca/internal/format"
	"orca/internal/reader"
)

// Builder folds events into a Model: New, then Event for each event in
// file order, then Finalize. In-progress state stays private.
type Builder struct {
	lastThread *tstate           // the last thread looked up: events come in runs
	scratch    []format.ThreadID // reused by newOwner
	m          *Model
	threads    map[format.ThreadID]*tstate
	locks      map[uint64]*lstate // key: object<<1 | kind (a struct key hashes slower)
	stacks     stackTable
	first      bool
	// Pending ThreadStart edges, completed when the target appears.
	starts map[format.ThreadID]int // target -> index in m.Edges
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

// tstate is a thread being folded.
type tstate struct {
	t *Thread
	// open is the stack of states the thread is in, innermost last (a
	// Joining thread can block on the Thread's monitor: Joining ⊃ Blocked).
	open []openIv
	last format.Time // time of its latest event, when seen
	seen bool        // it has had an event of its own
	// floor is the end of its latest segment. Another thread's event can
	// split a segment later than this thread's next line (lines of two
	// threads may be out of order by a little); that line is folded at
	// floor so segments never overlap.
	floor format.Time
}

type openIv struct {
	// iv.Since is when the state began; iv.Start is where its current
	// segment begins (it moves when the state is split).
	iv Interval
	// Blocked: since when the current owner is blamed.
	blameSince format.Time
	// Waiting: the notify tokens this wait can consume start after this.
	seq  int
	segs int // segments emitted so far
}

// lstate is a lock being folded.
type lstate struct {
	l         *Lock
	lastBlame *Blame // see blameOf
	lastSite  *Site  // see contended
	owners    map[format.ThreadID]*Blame
	sites     map[StackID]*Site
	held      map[StackID]bool
	seen      map[format.ThreadID]bool
	// Threads blocked on the monitor now.
	blocked map[format.ThreadID]*tstate
	// Object.wait bookkeeping.
	waiting map[format.ThreadID]bool
	tokens  []token
	nextSeq int
	storm   []format.Time // recent notifyAll times
	// Semaphore: the latest release not yet matched to an acquire.
	rel     format.ThreadID
	relTime format.Time
	relUsed bool
}

// token is a notify or notifyAll that can end waits.
type token struct {
	seq        int
	all        bool
	by         format.ThreadID
	at         format.Time
	candidates map[format.ThreadID]bool // waiters when it was sent, less those whose wait ended since
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
	defer func() { b.lastThread = ts }()
	if ts == nil {
		t := &Thread{ID: id, Start: at}
		ts = &tstate{t: t}
		b.threads[id] = ts
		b.m.byThread[id] = t
		b.m.Threads = append(b.m.Threads, t)
	}
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
		ls = &lstate{l: l, owners: map[format.ThreadID]*Blame{}, sites: map[StackID]*Site{},
			held: map[StackID]bool{}, seen: map[format.ThreadID]bool{}, blocked: map[format.ThreadID]*tstate{}, waiting: map[format.ThreadID]bool{}}
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
func (b *Builder) push(ts *tstate, iv Interval, ev *reader.Event) {
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
	ts.open = append(ts.open, openIv{iv: iv, blameSince: iv.Start})
	b.rewait(ts, iv.Start)
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
	ts.t.Intervals = append(ts.t.Intervals, iv)
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
		ls := b.lock(o.iv.Object, Monitor)
		delete(ls.blocked, th)
		b.blame(ls, o.iv.Other, at-o.blameSince)
		if how == endOpen {
			// Still blocked: the owner is blamed until the end, but the
			// contention is not counted (it has no length yet).
			break
		}
		b.contended(ls, th, o.iv.Other, o.iv.Stack, at-o.iv.Since)
		if how == endNormal {
			if o.iv.Other != 0 {
				// From the segment's start: when the thread began waiting for that owner.
				b.m.Edges = append(b.m.Edges, Edge{Kind: EdgeOwner, From: o.iv.Other, To: th, FromTime: o.iv.Start, ToTime: at, Object: o.iv.Object})
			}
			ls.held[o.iv.Stack] = true
			// The thread owns the monitor now: the others still blocked on
			// it wait for it from here on.
			b.newOwner(ls, th, at)
		}
	case Waiting:
		ls := b.lock(o.iv.Object, Monitor)
		delete(ls.waiting, th)
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
				b.m.Edges = append(b.m.Edges, Edge{Kind: EdgeWake, From: o.iv.Other, To: th, FromTime: tokAt, ToTime: at,
					Object: o.iv.Object, Ambiguous: o.iv.Wake == WakeAmbiguous})
			}
		}
	case Acquiring:
		if how != endNormal {
			break
		}
		ls := b.lock(o.iv.Object, Semaphore)
		// An acquire that a release by another thread let through waited:
		// that is a semaphore contention.
		if !ls.relUsed && ls.rel != 0 && ls.rel != th && ls.relTime >= o.iv.Since && ls.relTime <= at {
			ls.relUsed = true
			d := at - o.iv.Since
			b.contended(ls, th, ls.rel, o.iv.Stack, d)
			b.blame(ls, ls.rel, d)
			b.m.Edges = append(b.m.Edges, Edge{Kind: EdgeRelease, From: ls.rel, To: th, FromTime: ls.relTime, ToTime: at, Object: o.iv.Object})
			o.iv.Other = ls.rel
		}
	case Joining:
		if how != endNormal || o.iv.Other == 0 {
			break
		}
		// A join returns because its target ended, or because it timed
		// out or was interrupted: only the first is an edge.
		if tt := b.threads[o.iv.Other]; tt != nil && tt.t.Ended {
			if tt.t.End <= at {
				b.m.Edges = append(b.m.Edges, Edge{Kind: EdgeJoin, From: o.iv.Other, To: th, FromTime: tt.t.End, ToTime: at})
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
		ivs := ts.t.Intervals
		for i := len(ivs) - 1; i >= 0 && ivs[i].End >= o.iv.Since; i-- {
			if iv := &ivs[i]; iv.State == o.iv.State && iv.Since == o.iv.Since && iv.Object == o.iv.Object {
				iv.Wake, iv.Other = o.iv.Wake, o.iv.Other
				if !iv.Cont {
					break
				}
			}
		}
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
	th := ts.t.ID
	if n := len(ts.open); n > 0 {
		o := &ts.open[n-1].iv
		switch o.State {
		case Blocked:
			b.wf.set(th, o.Other, o.Object, o.Stack, at, b.m)
			return
		case Joining:
			b.wf.set(th, o.Other, 0, o.Stack, at, b.m)
			return
		}
	}
	b.wf.clear(th, at, b.m)
}

// Event folds one event. Events must come in file order.
func (b *Builder) Event(ev *reader.Event) {
	m := b.m
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
	t := ts.t
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
			m.Edges[i].ToTime = max(t.Start, m.Edges[i].FromTime)
		}
	case format.ThreadEnded:
		for len(ts.open) > 0 {
			b.problem(ev, "thread %v ended while %s", ev.Thread, ts.open[len(ts.open)-1].iv.State)
			b.end(ts, ev.Time, endForced)
		}
		t.End, t.Ended = ev.Time, true
		b.wf.clear(ev.Thread, ev.Time, m)
		for _, j := range b.joins[ev.Thread] {
			if j.at >= ev.Time {
				m.Edges = append(m.Edges, Edge{Kind: EdgeJoin, From: ev.Thread, To: j.by, FromTime: ev.Time, ToTime: j.at})
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
		b.starts[ev.Target] = len(m.Edges)
		m.Edges = append(m.Edges, Edge{Kind: EdgeStart, From: ev.Thread, To: ev.Target, FromTime: ev.Time, ToTime: to})
	case format.ThreadSleep:
		b.push(ts, Interval{Start: ev.Time, State: Sleeping, Stack: stack}, ev)
	case format.ThreadSlept:
		if !b.pop(ts, Sleeping, ev) {
			b.problem(ev, "no ThreadSleep before it")
		}
	case format.ThreadJoin:
		target := ev.Target
		if target == ev.Thread {
			b.problem(ev, "thread %v joins itself", ev.Thread)
			target = 0
		}
		if target != 0 {
			b.thread(target, ev.Time)
		}
		b.push(ts, Interval{Start: ev.Time, State: Joining, Other: target, Stack: stack}, ev)
	case format.ThreadJoined:
		if !b.pop(ts, Joining, ev) {
			b.problem(ev, "no ThreadJoin before it")
		}
	case format.SemaphoreAcquire:
		ls := b.lock(ev.Object, Semaphore)
		ls.l.Acquires++
		b.push(ts, Interval{Start: ev.Time, State: Acquiring, Object: ev.Object, Stack: stack}, ev)
	case format.SemaphoreAcquired:
		if !b.pop(ts, Acquiring, ev) {
			b.problem(ev, "no SemaphoreAcquire before it")
		}
	case format.SemaphoreRelease:
		ls := b.lock(ev.Object, Semaphore)
		ls.l.Releases++
		ls.rel, ls.relTime, ls.relUsed = ev.Thread, ev.Time, false
	case format.MonitorContendedEnter:
		ls := b.lock(ev.Object, Monitor)
		owner := ev.Owner
		if owner == ev.Thread {
			b.problem(ev, "thread %v blocks on monitor %v that it owns", ev.Thread, ev.Object)
			owner = 0
		}
		if owner == 0 {
			ls.l.OwnerUnknown++
		} else {
			b.thread(owner, ev.Time)
		}
		if !ls.seen[ev.Thread] {
			ls.seen[ev.Thread] = true
			ls.l.Waiters = append(ls.l.Waiters, ev.Thread)
		}
		b.push(ts, Interval{Start: ev.Time, State: Blocked, Object: ev.Object, Other: owner, Stack: stack}, ev)
		ls.blocked[ev.Thread] = ts
		if owner != 0 {
			// The freshest word on who owns the monitor: the threads
			// already blocked on it wait for that one now.
			b.newOwner(ls, owner, ev.Time)
		}
	case format.MonitorContendedEntered:
		if !b.pop(ts, Blocked, ev) {
			b.problem(ev, "no MonitorContendedEnter before it")
		}
	case format.ObjectWait:
		ls := b.lock(ev.Object, Monitor)
		ls.l.Waits++
		ls.waiting[ev.Thread] = true
		b.push(ts, Interval{Start: ev.Time, State: Waiting, Object: ev.Object, Stack: stack}, ev)
		ts.open[len(ts.open)-1].seq = ls.nextSeq
	case format.ObjectWaited:
		if !b.pop(ts, Waiting, ev) {
			b.problem(ev, "no ObjectWait before it")
		}
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
		cands := map[format.ThreadID]bool{}
		for w := range ls.waiting {
			if w != ev.Thread {
				cands[w] = true
			}
		}
		if len(cands) == 0 {
			ls.l.NotifiesWokeNobody++
			break
		}
		ls.tokens = append(ls.tokens, token{seq: ls.nextSeq, all: all, by: ev.Thread, at: ev.Time, candidates: cands})
		ls.nextSeq++
	}
}

// wake decides which notify ended the wait of th (begun at token sequence
// seq) at at: the first one sent since, to a set of waiters th was in.
func (b *Builder) wake(ls *lstate, th format.ThreadID, seq int, at format.Time) (Wake, format.ThreadID, format.Time) {
	for i := range ls.tokens {
		tk := &ls.tokens[i]
		if tk.used || tk.seq < seq || !tk.candidates[th] || tk.at > at {
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
		delete(tk.candidates, th)
		if !tk.used && len(tk.candidates) > 0 {
			ls.tokens[k] = tk
			k++
		}
	}
	clear(ls.tokens[k:])
	ls.tokens = ls.tokens[:k]
}

// contended records one contention of lock by th (blocked d at stack).
func (b *Builder) contended(ls *lstate, th, owner format.ThreadID, stack StackID, d format.Time) {
	l := ls.l
	l.Contentions++
	l.Blocked += d
	if d > l.MaxBlocked {
		l.MaxBlocked = d
	}
	if !ls.seen[th] {
		ls.seen[th] = true
		l.Waiters = append(l.Waiters, th)
	}
	s := ls.lastSite
	if s == nil || s.Stack != stack {
		// Contentions on one lock mostly repeat one call site.
		if s = ls.sites[stack]; s == nil {
			s = &Site{Stack: stack}
			ls.sites[stack] = s
		}
		ls.lastSite = s
	}
	s.Contentions++
	s.Blocked += d
	if owner != 0 {
		ls.blameOf(owner).Contentions++
	}
}

func (b *Builder) blame(ls *lstate, owner format.ThreadID, d format.Time) {
	if owner == 0 {
		return
	}
	ls.blameOf(owner).Blamed += d
}

// blameOf returns owner's Blame on the lock; consecutive look-ups are
// mostly for the same owner, so the last one is remembered.
func (ls *lstate) blameOf(owner format.ThreadID) *Blame {
	if ls.lastBlame != nil && ls.lastBlame.Thread == owner {
		return ls.lastBlame
	}
	bl := ls.owners[owner]
	if bl == nil {
		bl = &Blame{Thread: owner}
		ls.owners[owner] = bl
	}
	ls.lastBlame = bl
	return bl
}

// newOwner makes the threads still blocked on ls wait for owner from at
// on: the old owner's blame stops there and their intervals are split.
func (b *Builder) newOwner(ls *lstate, owner format.ThreadID, at format.Time) {
	if len(ls.blocked) == 0 {
		return
	}
	ids := b.scratch[:0]
	defer func() { b.scratch = ids[:0] }()
	for id := range ls.blocked {
		if id != owner {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids) // map order would make the wait-for graph's cycles come in random order
	for _, id := range ids {
		ts := ls.blocked[id]
		for i := range ts.open {
			o := &ts.open[i]
			if o.iv.State != Blocked || o.iv.Object != ls.l.Object {
				continue
			}
			// Lines of two threads can be out of order by a little; never
			// split before the segment began.
			t := max(at, o.iv.Start)
			b.blame(ls, o.iv.Other, t-o.blameSince)
			o.blameSince = t
			if o.iv.Other != owner {
				// Close the segment with the old owner so the timeline
				// shows who was waited for when.
				b.segment(ts, o, t, false)
				o.iv.Start = t
				o.iv.Other = owner
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
		sort.SliceStable(t.Intervals, func(i, j int) bool { return t.Intervals[i].Start < t.Intervals[j].Start })
		var busy format.Time
		for _, iv := range t.Intervals {
			t.Time[iv.State] += iv.Duration()
			busy += iv.Duration()
		}
		if r := t.Life() - busy; r > 0 {
			t.Time[Runnable] = r
		}
	}
	// A join edge starts when its target ended, its exit included (known
	// only now when the exit came after the join's line).
	for i := range m.Edges {
		if e := &m.Edges[i]; e.Kind == EdgeJoin {
			e.FromTime = min(m.byThread[e.From].End, e.ToTime)
		}
	}
	b.wf.finish(m)
	for _, ls := range b.locks {
		l := ls.l
		for _, bl := range ls.owners {
			l.Owners = append(l.Owners, *bl)
		}
		sort.Slice(l.Owners, func(i, j int) bool {
			if l.Owners[i].Blamed != l.Owners[j].Blamed {
				return l.Owners[i].Blamed > l.Owners[j].Blamed
			}
			return l.Owners[i].Thread < l.Owners[j].Thread
		})
		for _, s := range ls.sites {
			l.Sites = append(l.Sites, *s)
		}
		sort.Slice(l.Sites, func(i, j int) bool {
			if l.Sites[i].Blocked != l.Sites[j].Blocked {
				return l.Sites[i].Blocked > l.Sites[j].Blocked
			}
			return l.Sites[i].Stack < l.Sites[j].Stack
		})
		for s := range ls.held {
			l.HeldAt = append(l.HeldAt, s)
		}
		sort.Slice(l.HeldAt, func(i, j int) bool { return l.HeldAt[i] < l.HeldAt[j] })
	}
	sort.SliceStable(m.Threads, func(i, j int) bool {
		if m.Threads[i].Start != m.Threads[j].Start {
			return m.Threads[i].Start < m.Threads[j].Start
		}
		return m.Threads[i].ID < m.Threads[j].ID
	})
	sort.SliceStable(m.Locks, func(i, j int) bool {
		a, c := m.Locks[i], m.Locks[j]
		if a.Blocked != c.Blocked {
			return a.Blocked > c.Blocked
		}
		if a.Contentions != c.Contentions {
			return a.Contentions > c.Contentions
		}
		if a.Object != c.Object {
			return a.Object < c.Object
		}
		return a.Kind < c.Kind
	})
	sort.SliceStable(m.Edges, func(i, j int) bool { return m.Edges[i].ToTime < m.Edges[j].ToTime })
	return m
}
