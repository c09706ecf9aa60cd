package model

import (
	"fmt"
	"sort"

	"orca/internal/format"
	"orca/internal/reader"
)

// Builder folds events into a Model: New, then Event for each event in
// file order, then Finalize. In-progress state stays private.
type Builder struct {
	m       *Model
	threads map[format.ThreadID]*tstate
	locks   map[lockKey]*lstate
	stacks  stackTable
	first   bool
	// Pending ThreadStart edges, completed when the target appears.
	starts map[format.ThreadID]int // target -> index in m.Edges
	wf     waitFor
	// tokenTime is the time of the notify wake() matched last.
	tokenTime format.Time
}

// tstate is a thread being folded.
type tstate struct {
	t *Thread
	// open is the stack of states the thread is in, innermost last (a
	// Joining thread can block on the Thread's monitor: Joining ⊃ Blocked).
	open []openIv
	last format.Time
}

type openIv struct {
	iv    Interval
	begin format.Time // iv.Start moves when the interval is split; this does not
	// Blocked: since when the current owner is blamed.
	blameSince format.Time
	// Waiting: the notify tokens this wait can consume start after this.
	seq int
}

// lstate is a lock being folded.
type lstate struct {
	l      *Lock
	owner  format.ThreadID // last known owner (monitors)
	owners map[format.ThreadID]*Blame
	sites  map[StackID]*Site
	held   map[StackID]bool
	seen   map[format.ThreadID]bool
	// Threads blocked on the monitor now.
	blocked map[format.ThreadID]*tstate
	// Object.wait bookkeeping.
	waiting map[format.ThreadID]format.Time // thread -> wait start
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
	candidates map[format.ThreadID]bool // waiters when it was sent
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
		locks:   map[lockKey]*lstate{},
		stacks:  newStackTable(),
		starts:  map[format.ThreadID]int{},
		first:   true,
		wf:      newWaitFor(),
	}
}

func (b *Builder) problem(ev *reader.Event, format string, args ...any) {
	if len(b.m.Problems) < 1000 {
		b.m.Problems = append(b.m.Problems, fmt.Sprintf("line %d: %s: ", ev.Line, ev.Kind)+fmt.Sprintf(format, args...))
	}
}

func (b *Builder) thread(id format.ThreadID, at format.Time) *tstate {
	ts := b.threads[id]
	if ts == nil {
		t := &Thread{ID: id, Start: at}
		ts = &tstate{t: t, last: at}
		b.threads[id] = ts
		b.m.byThread[id] = t
		b.m.Threads = append(b.m.Threads, t)
	}
	return ts
}

func (b *Builder) lock(obj format.ObjectID, kind LockKind) *lstate {
	k := lockKey{obj, kind}
	ls := b.locks[k]
	if ls == nil {
		l := &Lock{Object: obj, Kind: kind}
		if kind == Semaphore {
			l.Class = "Ljava/util/concurrent/Semaphore;"
		}
		ls = &lstate{l: l, owners: map[format.ThreadID]*Blame{}, sites: map[StackID]*Site{},
			held: map[StackID]bool{}, seen: map[format.ThreadID]bool{}, blocked: map[format.ThreadID]*tstate{}, waiting: map[format.ThreadID]format.Time{}}
		b.locks[k] = ls
		b.m.byObject[k] = l
		b.m.Locks = append(b.m.Locks, l)
	}
	return ls
}

// push starts an interval, splitting the enclosing one so intervals never
// overlap.
func (b *Builder) push(ts *tstate, iv Interval) {
	if n := len(ts.open); n > 0 {
		outer := &ts.open[n-1]
		b.emit(ts, outer.iv, iv.Start, false)
		outer.iv.Start = iv.Start // resumes when the inner one ends
	}
	ts.open = append(ts.open, openIv{iv: iv, begin: iv.Start, blameSince: iv.Start})
}

// pop ends the innermost interval of state s; nil if the thread is not in it.
func (b *Builder) pop(ts *tstate, s State, at format.Time) *openIv {
	n := len(ts.open)
	if n == 0 || ts.open[n-1].iv.State != s {
		return nil
	}
	o := ts.open[n-1]
	ts.open = ts.open[:n-1]
	b.emit(ts, o.iv, at, false)
	if n > 1 {
		ts.open[n-2].iv.Start = at
	}
	return &o
}

// emit appends a finished (or, at the end, open) interval segment.
func (b *Builder) emit(ts *tstate, iv Interval, end format.Time, open bool) {
	if end < iv.Start {
		end = iv.Start
	}
	iv.End = end
	iv.Open = open
	ts.t.Intervals = append(ts.t.Intervals, iv)
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
	ts := b.thread(ev.Thread, ev.Time)
	t := ts.t
	t.Events++
	if ev.Time < ts.last {
		b.problem(ev, "time goes back %.9fs on thread %v", (ts.last - ev.Time).Seconds(), ev.Thread)
	} else {
		ts.last = ev.Time
	}
	if t.Ended && ev.Kind != format.ThreadStarted {
		b.problem(ev, "event after ThreadEnded of %v", ev.Thread)
	}
	stack := b.stacks.intern(ev.Stack, &m.Stacks)

	switch ev.Kind {
	case format.ThreadStarted:
		t.Name = ev.Name
		if t.Events == 1 || ev.Time < t.Start {
			t.Start = ev.Time
		}
		if i, ok := b.starts[ev.Thread]; ok {
			m.Edges[i].ToTime = ev.Time
		}
	case format.ThreadEnded:
		t.End, t.Ended = ev.Time, true
		for len(ts.open) > 0 {
			o := ts.open[len(ts.open)-1]
			b.problem(ev, "thread %v ended while %s", ev.Thread, o.iv.State)
			b.pop(ts, o.iv.State, ev.Time)
		}
		b.wf.clear(ev.Thread, ev.Time, m)
	case format.ThreadStart:
		tt := b.thread(ev.Target, ev.Time)
		tt.t.Parent, tt.t.StartedAt = ev.Thread, stack
		to := ev.Time
		if tt.t.Events > 0 {
			to = tt.t.Start
		}
		b.starts[ev.Target] = len(m.Edges)
		m.Edges = append(m.Edges, Edge{Kind: EdgeStart, From: ev.Thread, To: ev.Target, FromTime: ev.Time, ToTime: to})
	case format.ThreadSleep:
		b.push(ts, Interval{Start: ev.Time, State: Sleeping, Stack: stack})
	case format.ThreadSlept:
		if b.pop(ts, Sleeping, ev.Time) == nil {
			b.problem(ev, "no ThreadSleep before it")
		}
	case format.ThreadJoin:
		b.push(ts, Interval{Start: ev.Time, State: Joining, Other: ev.Target, Stack: stack})
		b.wf.set(ev.Thread, ev.Target, 0, stack, ev.Time, m)
	case format.ThreadJoined:
		if b.pop(ts, Joining, ev.Time) == nil {
			b.problem(ev, "no ThreadJoin before it")
			break
		}
		b.wf.clear(ev.Thread, ev.Time, m)
		from := ev.Time
		if tt := b.threads[ev.Target]; tt != nil && tt.t.Ended {
			from = tt.t.End
		}
		m.Edges = append(m.Edges, Edge{Kind: EdgeJoin, From: ev.Target, To: ev.Thread, FromTime: from, ToTime: ev.Time})
	case format.SemaphoreAcquire:
		ls := b.lock(ev.Object, Semaphore)
		ls.l.Acquires++
		b.push(ts, Interval{Start: ev.Time, State: Acquiring, Object: ev.Object, Stack: stack})
	case format.SemaphoreAcquired:
		o := b.pop(ts, Acquiring, ev.Time)
		if o == nil {
			b.problem(ev, "no SemaphoreAcquire before it")
			break
		}
		ls := b.lock(ev.Object, Semaphore)
		// An acquire that a release by another thread let through waited:
		// that is a semaphore contention.
		if !ls.relUsed && ls.rel != 0 && ls.rel != ev.Thread && ls.relTime >= o.begin {
			ls.relUsed = true
			d := ev.Time - o.begin
			b.contended(ls, ev.Thread, ls.rel, o.iv.Stack, d)
			b.blame(ls, ls.rel, d)
			m.Edges = append(m.Edges, Edge{Kind: EdgeRelease, From: ls.rel, To: ev.Thread, FromTime: ls.relTime, ToTime: ev.Time, Object: ev.Object})
			b.fixOther(ts, Acquiring, o.begin, ls.rel)
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
			ls.owner = owner
		}
		b.push(ts, Interval{Start: ev.Time, State: Blocked, Object: ev.Object, Other: owner, Stack: stack})
		ls.blocked[ev.Thread] = ts
		if owner != 0 {
			b.wf.set(ev.Thread, owner, ev.Object, stack, ev.Time, m)
		}
	case format.MonitorContendedEntered:
		o := b.pop(ts, Blocked, ev.Time)
		if o == nil {
			b.problem(ev, "no MonitorContendedEnter before it")
			break
		}
		b.wf.clear(ev.Thread, ev.Time, m)
		ls := b.lock(ev.Object, Monitor)
		delete(ls.blocked, ev.Thread)
		b.blame(ls, o.iv.Other, ev.Time-o.blameSince)
		b.contended(ls, ev.Thread, o.iv.Other, o.iv.Stack, ev.Time-o.begin)
		if o.iv.Other != 0 {
			m.Edges = append(m.Edges, Edge{Kind: EdgeOwner, From: o.iv.Other, To: ev.Thread, FromTime: o.begin, ToTime: ev.Time, Object: ev.Object})
		}
		ls.held[o.iv.Stack] = true
		// The thread owns the monitor now: the others still blocked on it
		// wait for it from here on.
		ls.owner = ev.Thread
		b.newOwner(ls, ev.Thread, ev.Time)
	case format.ObjectWait:
		ls := b.lock(ev.Object, Monitor)
		ls.l.Waits++
		ls.waiting[ev.Thread] = ev.Time
		b.push(ts, Interval{Start: ev.Time, State: Waiting, Object: ev.Object, Stack: stack})
		ts.open[len(ts.open)-1].seq = ls.nextSeq
	case format.ObjectWaited:
		n := len(ts.open)
		if n == 0 || ts.open[n-1].iv.State != Waiting {
			b.problem(ev, "no ObjectWait before it")
			break
		}
		ls := b.lock(ev.Object, Monitor)
		o := &ts.open[n-1]
		o.iv.Wake, o.iv.Other = b.wake(ls, ev.Thread, o.seq, ev.Time)
		iv := b.pop(ts, Waiting, ev.Time)
		delete(ls.waiting, ev.Thread)
		ls.l.WaitTime += ev.Time - iv.begin
		if iv.iv.Other != 0 {
			m.Edges = append(m.Edges, Edge{Kind: EdgeWake, From: iv.iv.Other, To: ev.Thread, FromTime: b.tokenTime, ToTime: ev.Time,
				Object: ev.Object, Ambiguous: iv.iv.Wake == WakeAmbiguous})
		}
	case format.ObjectNotify, format.ObjectNotifyAll:
		all := ev.Kind == format.ObjectNotifyAll
		ls := b.lock(ev.Object, Monitor)
		if all {
			ls.l.NotifyAlls++
			ls.storm = append(ls.storm, ev.Time)
			for len(ls.storm) > 0 && ev.Time-ls.storm[0] > NotifyAllStormWindow {
				ls.storm = ls.storm[1:]
			}
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

// wake decides which notify ended a wait that began with token sequence seq.
func (b *Builder) wake(ls *lstate, th format.ThreadID, seq int, at format.Time) (Wake, format.ThreadID) {
	b.tokenTime = 0
	for i := range ls.tokens {
		tk := &ls.tokens[i]
		if tk.used || tk.seq < seq || !tk.candidates[th] {
			continue
		}
		b.tokenTime = tk.at
		w := WakeNotifyAll
		if !tk.all {
			w = WakeNotify
			if len(tk.candidates) > 1 {
				w = WakeAmbiguous
			}
			tk.used = true
		} else {
			delete(tk.candidates, th)
			if len(tk.candidates) == 0 {
				tk.used = true
			}
		}
		by := tk.by
		b.dropUsed(ls)
		return w, by
	}
	// No token: drop this thread from the tokens it could have consumed.
	for i := range ls.tokens {
		delete(ls.tokens[i].candidates, th)
		if len(ls.tokens[i].candidates) == 0 {
			ls.tokens[i].used = true
		}
	}
	b.dropUsed(ls)
	return WakeTimeout, 0
}

func (b *Builder) dropUsed(ls *lstate) {
	k := 0
	for _, tk := range ls.tokens {
		if !tk.used {
			ls.tokens[k] = tk
			k++
		}
	}
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
	s := ls.sites[stack]
	if s == nil {
		s = &Site{Stack: stack}
		ls.sites[stack] = s
	}
	s.Contentions++
	s.Blocked += d
	if owner != 0 {
		b.blame(ls, owner, 0)
		ls.owners[owner].Contentions++
	}
}

func (b *Builder) blame(ls *lstate, owner format.ThreadID, d format.Time) {
	if owner == 0 {
		return
	}
	bl := ls.owners[owner]
	if bl == nil {
		bl = &Blame{Thread: owner}
		ls.owners[owner] = bl
	}
	bl.Blamed += d
}

// newOwner moves the blame of threads still blocked on ls to the new owner.
func (b *Builder) newOwner(ls *lstate, owner format.ThreadID, at format.Time) {
	for id, ts := range ls.blocked {
		if id == owner {
			continue
		}
		for i := range ts.open {
			o := &ts.open[i]
			if o.iv.State != Blocked || o.iv.Object != ls.l.Object {
				continue
			}
			b.blame(ls, o.iv.Other, at-o.blameSince)
			o.blameSince = at
			if o.iv.Other != owner {
				// Close the segment with the old owner so the timeline
				// shows who was waited for when.
				b.emit(ts, o.iv, at, false)
				o.iv.Start = at
				o.iv.Other = owner
				b.wf.set(id, owner, ls.l.Object, o.iv.Stack, at, b.m)
			}
		}
	}
}

// fixOther sets Other on the last emitted interval of a state that started
// at start (the releaser of a semaphore, known only at the end).
func (b *Builder) fixOther(ts *tstate, s State, start format.Time, other format.ThreadID) {
	ivs := ts.t.Intervals
	for i := len(ivs) - 1; i >= 0 && ivs[i].End >= start; i-- {
		if ivs[i].State == s && ivs[i].Start >= start {
			ivs[i].Other = other
		}
	}
}

// Finalize closes what is still open at the end of the recording and
// returns the Model. The Builder must not be used afterwards.
func (b *Builder) Finalize() *Model {
	m := b.m
	for _, ts := range b.threads {
		t := ts.t
		if !t.Ended {
			t.End = m.End
		}
		for i := len(ts.open) - 1; i >= 0; i-- {
			o := ts.open[i]
			if o.iv.State == Waiting {
				o.iv.Wake = WakeNever
			}
			if o.iv.State == Blocked {
				b.blame(b.locks[lockKey{o.iv.Object, Monitor}], o.iv.Other, t.End-o.blameSince)
			}
			b.emit(ts, o.iv, t.End, true)
			// The enclosing states' remaining segments start where the
			// inner one started; they end with the thread too.
			if i > 0 {
				ts.open[i-1].iv.Start = t.End
			}
		}
		ts.open = nil
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
