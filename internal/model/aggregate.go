package model

import (
	"cmp"
	"encoding/binary"
	"slices"

	"orca/internal/format"
)

// Aggregation: the figures of Lock (contentions, blame, call sites, waits)
// are summed here, from the threads' intervals, and nowhere else. The
// Model's Locks hold them for every thread (Finalize calls Aggregate);
// orca report --thread asks Aggregate for the matching threads' only, as
// pprof filters samples before it aggregates. The transient objects waited
// on are then grouped (groups.go), from the same sums. The report and the
// viewer render these figures, so they agree by construction.

// Aggregate returns the locks with the figures of the threads keep
// accepts (all threads when keep is nil): those on which a kept thread
// blocked, acquired after a wait, or waited; with keep nil, every lock of
// the Model. The owners blamed may be any thread. The counts of notify and
// semaphore calls are the whole recording's (the fold does not keep who
// notified). The locks are new values, sorted as Model.Locks; keep nil
// gives the figures Model.Locks holds, and those of the groups' members
// the model keeps as records (Model.Lock makes their Locks).
func (m *Model) Aggregate(keep func(*Thread) bool) []*Lock {
	locks, _ := m.aggregateGroups(keep)
	return locks
}

// aggregateGroups is Aggregate, and the groups of its transient wait
// objects (groupWaits), sorted as Model.Groups.
func (m *Model) aggregateGroups(keep func(*Thread) bool) ([]*Lock, []*Group) {
	// handSpill: a lock's hand-offs given up to the spill as the fold went
	// are read back for the parks before them (jucContention), here as in
	// the fold's own aggregation.
	ag := aggregator{m: m, by: make(map[uint64]*lockAgg, len(m.Locks)), all: keep == nil, handSpill: m.spill}
	if keep == nil {
		for _, l := range m.Locks {
			ag.get(l.Object, l.Kind)
		}
	}
	for _, t := range m.AllThreads() {
		if keep == nil || keep(t) {
			ag.thread(t)
		}
	}
	return ag.locks()
}

// locks ends the aggregation: the locks with their figures, sorted as
// Model.Locks, and the groups of their transient wait objects.
func (ag *aggregator) locks() ([]*Lock, []*Group) {
	ag.owners.flush(ag) // the tables are read from here on
	ag.settle()
	out := make([]*Lock, 0, len(ag.by))
	for _, a := range ag.by {
		a.facts()
		a.l.Hold = ag.m.holdFigures(a.l.Object, a.l.Kind)
		out = append(out, a.finish())
	}
	groups, loose, kept := ag.groupWaits()
	for _, k := range loose {
		// A dormant blocker not grouped: a Lock again.
		obj := format.ObjectID(k >> 32)
		ag.recs.b.wakeLoose(obj, int32(uint32(k)))
		a := ag.by[uint64(obj)<<2|uint64(Blocker)]
		a.l.Hold = ag.m.holdFigures(obj, Blocker)
		out = append(out, a.finish())
	}
	if ag.recs != nil {
		ag.keepRecs(kept)
	}
	sortLocks(out)
	return out, groups
}

// setLocks sets the figures of m.Locks and m.Groups from ag, which summed
// every thread, and sorts them.
func (m *Model) setLocks(ag *aggregator) {
	for _, l := range m.Locks {
		ag.get(l.Object, l.Kind) // every lock, the ones no thread waited on too
	}
	locks, groups := ag.locks()
	for _, a := range locks {
		if l := m.byObject[lockOf(a.Object, a.Kind)]; l != a {
			*l = *a
		}
	}
	for _, g := range groups {
		// The members are the Model's own locks, not the aggregate's copies.
		for i, l := range g.locks {
			g.locks[i] = m.byObject[lockOf(l.Object, l.Kind)]
		}
	}
	m.Groups = groups
	sortLocks(m.Locks)
}

// sortLocks orders locks by time blocked (open contentions included),
// then contentions, then object and kind.
func sortLocks(ls []*Lock) {
	slices.SortFunc(ls, func(a, c *Lock) int {
		if x := cmp.Compare(c.Blocked+c.OpenTime, a.Blocked+a.OpenTime); x != 0 {
			return x
		}
		if x := cmp.Compare(c.Contentions+c.Open, a.Contentions+a.Open); x != 0 {
			return x
		}
		if x := cmp.Compare(a.Object, c.Object); x != 0 {
			return x
		}
		return cmp.Compare(a.Kind, c.Kind)
	})
}

type aggregator struct {
	m  *Model
	by map[uint64]*lockAgg // key: object<<2 | kind, as the Builder's
	// fold: the Builder whose fold feeds this aggregator, until its
	// Finalize: a lock's aggregate is its fold state's (lstate.agg), not
	// in by (made from byN then: Builder.indexLocks). The fold finds its
	// locks by object already, and most of a server's are an object
	// parked on once, soon dormant: a store and a delete in by for each.
	fold *Builder
	// jucOpen: the threads whose parks of an acquire may be in juc, not
	// yet added (Builder.releaseHandOffs reads the first's start), when
	// listJuc (Options.DropIntervals).
	jucOpen []*threadAgg
	listJuc bool
	// all: every thread is aggregated (by has every lock of the Model,
	// with the whole recording's figures). inPlace: the figures are
	// summed into the Model's locks (lockAgg.l): the fold's own, once.
	all, inPlace bool
	// last is the lock of the latest get: a thread's intervals mostly
	// repeat one lock. near: the locks of the latest gets, each in a slot
	// of its key's hash (a miss: the map by): a recording's locks are
	// mostly a few hundred, met in no order.
	last *lockAgg
	near []aggNear
	// early: the aggregator is fed as the fold goes (Builder.feed), before
	// the Model's Start is final; befores are the counts it made of states
	// begun at or before Start then, undone at the end for those that the
	// final Start is before (BeforeStart only turns false).
	early   bool
	befores []before
	spans   []OwnerSpan // a contention's, as ownerSpans gives them (feed)
	// ownNeed: a contention fed whose spans a reader makes again from the
	// lock's owner changes notes them (Lock.ownNeed; Options.SpansFromLogs).
	ownNeed bool
	// handSpill: the spill the j.u.c. locks' hand-offs go to as the fold
	// goes (Builder.releaseHandOffs), read back into handWin for a park
	// behind them (jucContention).
	handSpill *spillFile
	handWin   handOffWindow
	// ownerSpill: the spill the locks' owners go to (Options.SpillOwners);
	// ownerEntries: the entries of their tables in memory.
	ownerSpill   *spillFile
	ownerEntries int
	ownerRuns    bool // some were written out (the waiters' too)
	ownerLeft    int  // the entries the last spillOwners left
	// byN: the locks by number (lockAgg.n); firstIdx:
	// threadAgg.mergeFirsts' index of them.
	byN      numTab[*lockAgg]
	firstIdx numTab[int32]
	// firstEntries, firstLeft: the same of the locks' waiters and
	// waitedBy (lockAgg.addedFirst).
	firstEntries, firstLeft int
	// owners: the locks' blames of their owners added to lately, before
	// their tables (blameCache).
	owners blameCache
	// recs: the dormant blockers' records (dormant.go), nil when there
	// are none; recOf: a lock's record by its number (lockAgg.n), 0 when
	// it has none; sleepy: the blockers fed a park since the last
	// Builder.sleepBlockers.
	recs   *blkRecs
	recOf  numTab[int32]
	sleepy []*lockAgg
	// aggFree: the aggregates of the blockers made dormant (Builder.sleep),
	// for the next locks (get).
	aggFree freeList[lockAgg]
	// owned: by lock number, a bit set while the lock is a dormant
	// blocker whose record holds its one waiting thread's first wait
	// (dormant.go): the thread's entry of it let go; ownedMerged and
	// ownedEnded count the entries let go as a thread merged its firsts
	// and as it ended (the tests).
	owned                   []uint64
	ownedMerged, ownedEnded int
}

// before is a count of a state in progress at the attach (Model.BeforeStart),
// made before the Model's Start was final: a contention's at its site, or
// a wait's at its wait site.
type before struct {
	a     *lockAgg
	since format.Time
	site  StackID // a contention's, or a wait's (wait)
	wait  bool
}

// threadAgg is what the aggregation of one thread's intervals carries from
// one to the next: it is fed them in order, in one call or many (feed),
// then ended (endThread).
type threadAgg struct {
	id format.ThreadID
	// blame: the thread's log of its contentions' blame spans, when the
	// Builder keeps one (Thread.blame).
	blame *blameLog
	// acq is the thread's Semaphore.acquire calls not yet added: the
	// segments of one share its Since, and the last says how it ended.
	acq []acquire
	// juc is the thread's parks of one j.u.c. lock acquire (its
	// consecutive re-parks), not yet added; jucPrev: the interval fed
	// last is juc's last.
	juc     []Interval
	jucPrev bool
	// jucListed: it is in aggregator.jucOpen.
	jucListed bool
	waitEnd   format.Time // end of the thread's latest wait segment
	waitLen   format.Time // length of the thread's latest wait, its segments so far
	// firsts: the locks the thread blocked or waited on, with its first
	// time on each, until endThread gives them to the locks
	// (lockAgg.waiters, waitedBy): a short list of the thread's own, not
	// a map of every thread per lock looked up at each contention (1 GB:
	// ~280 000 threads, 100 MB of maps). flog: its contentions and waits
	// since, appended (a look-up of the lock in firsts at each was a miss
	// of the cache: 2.5 of c1G's ~86 CPU-s), summed into firsts once half
	// as many as firsts (mergeFirsts).
	firsts []aggFirst
	flog   []firstOp
}

// firstOp is a contention (block) or a wait of a thread from at on the
// lock of number n (lockAgg.n): 16 bytes.
type firstOp struct {
	at   format.Time
	n    int32
	wait bool
}

// aggFirst is a thread's first contention (block) and first wait on the
// lock of number n (lockAgg.n), each if it had one. The lock's number,
// not a pointer to it: mergeFirsts reads each first's lock twice a merge,
// and the lock's n read through a pointer was a miss of the cache each
// (mergeFirsts' 1.28 first-level misses an event at 32 MB, 0.23 so;
// threadAgg.firsts of 24 bytes, not 32, with no pointer for the
// collector).
type aggFirst struct {
	block, wait     format.Time
	n               int32
	blocked, waited bool
}

// firstsLogMin is the fewest contentions and waits a thread's flog
// holds before they are summed into its firsts.
const firstsLogMin = 32

// block notes a contention of the thread on a from since.
func (st *threadAgg) block(a *lockAgg, since format.Time) { st.note(a, since, false) }

// waited notes a wait of the thread on a from since.
func (st *threadAgg) waited(a *lockAgg, since format.Time) { st.note(a, since, true) }

// note logs a contention or a wait (wait) of the thread on a from at.
func (st *threadAgg) note(a *lockAgg, at format.Time, wait bool) {
	if n := len(st.flog); n > 0 && st.flog[n-1].n == a.n && st.flog[n-1].wait == wait {
		st.flog[n-1].at = min(st.flog[n-1].at, at)
		return
	}
	if len(st.flog) >= max(firstsLogMin, len(st.firsts)/2) {
		st.mergeFirsts(a.ag)
	}
	if st.flog == nil {
		st.flog = make([]firstOp, 0, firstsLogMin) // not grown from 1 for each thread
	}
	st.flog = append(st.flog, firstOp{at: at, n: a.n, wait: wait})
}

// mergeFirsts sums the thread's flog into its firsts: each lock's found
// by its number (lockAgg.n) in ag.firstIdx, which holds the index + 1 in
// firsts of those being merged and is zero again after.
func (st *threadAgg) mergeFirsts(ag *aggregator) {
	if len(st.flog) == 0 {
		return
	}
	// All zero between two merges; a lock per object parked on (5.6 M
	// in an hour of a busy Tomcat).
	ag.firstIdx.reach(ag.byN.len())
	idx := &ag.firstIdx
	if len(ag.owned) > 0 {
		// Those a dormant blocker's record holds (owned) let go.
		n := len(st.firsts)
		st.firsts = slices.DeleteFunc(st.firsts, func(f aggFirst) bool { return !f.blocked && ag.isOwned(f.n) })
		ag.ownedMerged += n - len(st.firsts)
	}
	for i := range st.firsts {
		*idx.at(st.firsts[i].n) = int32(i + 1)
	}
	if st.firsts == nil {
		st.firsts = make([]aggFirst, 0, 8) // not grown from 1 for each thread
	}
	for _, op := range st.flog {
		if op.wait && ag.isOwned(op.n) {
			ag.ownedMerged++
			continue
		}
		x := idx.at(op.n)
		k := *x
		if k == 0 {
			st.firsts = append(st.firsts, aggFirst{n: op.n})
			k = int32(len(st.firsts))
			*x = k
		}
		f := &st.firsts[k-1]
		if op.wait {
			if !f.waited || op.at < f.wait {
				f.wait, f.waited = op.at, true
			}
		} else if !f.blocked || op.at < f.block {
			f.block, f.blocked = op.at, true
		}
	}
	for i := range st.firsts {
		*idx.at(st.firsts[i].n) = 0
	}
	st.flog = st.flog[:0]
}

// flushFirsts gives the thread's firsts to their locks.
func (st *threadAgg) flushFirsts(ag *aggregator) {
	st.mergeFirsts(ag)
	for i := range st.firsts {
		f := &st.firsts[i]
		if !f.blocked && ag.isOwned(f.n) {
			ag.ownedEnded++
			continue // the record holds it
		}
		a := *ag.byN.at(f.n)
		if a == nil {
			// A dormant blocker's: no contention on it.
			if !f.blocked {
				ag.firstToRec(f.n, st.id, f.wait)
				continue
			}
			a = ag.wakeN(f.n)
		}
		if f.blocked {
			c := a.cont()
			c.waiters = append(c.waiters, firstAt{st.id, f.block})
			a.addedFirst()
		}
		if f.waited {
			a.waitedBy = append(a.waitedBy, firstAt{st.id, f.wait})
			a.addedFirst()
		}
	}
	st.firsts = nil // let go: given
}

// firstAt is a thread's first contention or wait on a lock. A thread's
// can be given more than once (a thread brought back after it was
// finished: Builder.revive): the earliest counts.
type firstAt struct {
	th format.ThreadID
	at format.Time
}

// ReparkGap is the longest gap between two parks of one thread on one
// j.u.c. lock, the second at once after the first (no other state
// between), that makes them one contention: the acquire woke, lost the
// lock to another thread and parked again. AQS re-parks within
// microseconds; a thread that took the lock, ran and came back to it
// contended again is two contentions (it cannot be told apart below this).
const ReparkGap = format.Time(50_000) // 50 µs

// Reparked reports whether p, the interval after last among a thread's,
// is a park of the same java.util.concurrent acquire as last: a park in
// the acquire of the same lock at most ReparkGap after last ended, last
// not timed out. A park the agent says timed out ends its acquire however
// soon the next begins: it says so only once the time asked for is past,
// and an acquire asks for what is left to its deadline, so it took the
// lock or gave up (GiveUp.java's tryLock(50 ms) three times in a loop:
// the next park 68–160 µs after a timeout, the third try's the shortest;
// once two tries were one contention). A recording that does not say how
// parks ended (a JFR import) has each "timed out": the gap alone decides
// there.
func (m *Model) Reparked(last, p *Interval) bool {
	return p.State == Parked && p.Acquire && p.Object == last.Object && p.Start-last.End <= ReparkGap &&
		(last.Wake != WakeTimeout || m.parkEndsUnknown)
}

// lockAgg accumulates one lock.
type lockAgg struct {
	// l: the figures summed. The fold's own aggregator (inPlace) sums
	// into the Model's lock itself (src): a blocker parked on once (a
	// request's future: most locks of a busy server's hour) was two
	// Locks of 608 bytes.
	l   *Lock
	n   int32 // its number, in the order the aggregator made them
	src *Lock // the Model's lock: its owner changes, as the fold adds them
	// c: the contentions' figures (contAgg), nil until the first: most
	// objects of a busy server are only parked on.
	c *contAgg
	// ws1: the figures of the waits at the lock's one wait site, while
	// it has one (ws1On); wsites: of each, once it has more (ws1 then
	// added to them). An object parked on once (a request's future:
	// most of a busy server's) made a table of one: ~120 bytes in two
	// allocations.
	ws1    waitAgg
	ws1On  bool
	listed bool // in aggregator.sleepy
	// solo: the threads that parked on it (a blocker): soloNone, soloOne
	// (soloTh, first at soloAt) or soloMany; a dormant blocker's record
	// holds its one thread's first wait (dormant.go: owned firsts).
	solo   uint8
	soloTh format.ThreadID
	soloAt format.Time
	wsites sumTab[waitAgg, *waitAgg]
	// waitedBy: each thread's first wait, as the threads end
	// (threadAgg.flushFirsts); waitedByRuns: runs of them written to the
	// spill (sp, Options.SpillOwners; waiterspill.go).
	waitedBy     []firstAt
	waitedByRuns [][]ScratchRef
	// sp: the spill the owners and waiters are written out to as they
	// grow (Options.SpillOwners, ownerspill.go).
	sp *spillFile
	ag *aggregator // whose ownerEntries count the table's, with sp
	// unparked: the parks each unparker ended, and their time: 16 bytes
	// beside its key, where a Blame (its thread again, and Open, never
	// set) was 32; a lock's entries are a thread each of the many that
	// ever unparked a waiter (~0.4 M at c5G-slow5: 18 MB of the fold's
	// live peak as Blames).
	unparked unparkTab
}

// contAgg is what a lockAgg sums of the contentions on its lock: a
// monitor's, a j.u.c. lock's, a semaphore's acquires. An object only
// parked on (a request's future: ~750 000 of an hour of a loaded
// ActiveMQ) has none: 216 bytes less each.
type contAgg struct {
	// owners: the blame of each owner, in one table holding no pointer:
	// ~3 M at 1 GB, which as a Blame each were as many objects for the
	// collector to mark at every cycle; summed from a log (sumTab): the
	// owners are nearly all new to the table or met long before. sites:
	// the figures of each contention's site, summed so (a wait's:
	// lockAgg.wsites).
	owners   blameTab
	sites    sumTab[siteAgg, *siteAgg]
	siteRare sumTab[siteRare, *siteRare] // the sites' rarer figures (siteAgg)
	// waiters: each thread's first block, as the threads end
	// (threadAgg.flushFirsts); waiterRuns: runs of them written to the
	// spill (lockAgg.sp).
	waiters    []firstAt
	waiterRuns [][]ScratchRef
	// ownerRuns: the runs of owners written to the spill
	// (Options.SpillOwners, ownerspill.go).
	ownerRuns [][]ScratchRef
}

// foldedAggs, when set (the tests), is given the fold's Builder before
// its aggregator's locks are finished.
var foldedAggs func(*Builder)

// cont returns a's contentions' figures to add to, made at the first.
func (a *lockAgg) cont() *contAgg {
	if a.c == nil {
		a.c = &contAgg{}
	}
	return a.c
}

// unparkTab is a lock's unparkers and their figures: the first few in a
// list, more in a map. Most objects a busy server parks on are a
// request's future or latch, unparked once: a map each was ~190 bytes of
// every such object (an hour of a loaded ActiveMQ: ~750 000 of them,
// 142 MB of the fold's peak).
type unparkTab struct {
	few  []unparkEnt
	many map[format.ThreadID]unparkAgg
}

// unparkFew is the most unparkers an unparkTab lists before its map.
const unparkFew = 8

// unparkEnt is an unparker of unparkTab.few.
type unparkEnt struct {
	th format.ThreadID
	u  unparkAgg
}

// add counts a park of length d that th's unpark ended.
func (t *unparkTab) add(th format.ThreadID, d format.Time) {
	if t.many == nil {
		for i := range t.few {
			if e := &t.few[i]; e.th == th {
				e.u.n, e.u.blamed = e.u.n+1, e.u.blamed+d
				return
			}
		}
		if len(t.few) < unparkFew {
			t.few = append(t.few, unparkEnt{th, unparkAgg{1, d}})
			return
		}
		t.many = make(map[format.ThreadID]unparkAgg, 2*unparkFew)
		for _, e := range t.few {
			t.many[e.th] = e.u
		}
		t.few = nil
	}
	u := t.many[th]
	u.n, u.blamed = u.n+1, u.blamed+d
	t.many[th] = u
}

// len is the number of unparkers.
func (t *unparkTab) len() int { return len(t.few) + len(t.many) }

// all yields each unparker and its figures, in no order.
func (t *unparkTab) all(yield func(format.ThreadID, unparkAgg) bool) {
	for _, e := range t.few {
		if !yield(e.th, e.u) {
			return
		}
	}
	for th, u := range t.many {
		if !yield(th, u) {
			return
		}
	}
}

// unparkAgg is what a lock's unparker's Blame in Lock.UnparkedBy sums.
type unparkAgg struct {
	n      int // Contentions
	blamed format.Time
}

// blame returns the unparker th's Blame.
func (u unparkAgg) blame(th format.ThreadID) Blame {
	return Blame{Thread: th, Contentions: u.n, Blamed: u.blamed}
}

// blameTab is a lock's table of owners.
type blameTab = sumTab[blameAgg, *blameAgg]

// aggNear is a slot of aggregator.near: a lock and its key in by.
type aggNear struct {
	k uint64
	a *lockAgg
}

// nearAggBits: aggregator.near has 1<<nearAggBits slots.
const nearAggBits = 10

func (ag *aggregator) get(obj format.ObjectID, kind LockKind) *lockAgg {
	if a := ag.last; a != nil && a.l.Object == obj && a.l.Kind == kind {
		return a
	}
	k := uint64(obj)<<2 | uint64(kind)
	if ag.near == nil {
		ag.near = make([]aggNear, 1<<nearAggBits)
	}
	slot := &ag.near[probeHash(k+1, 64-nearAggBits)]
	if slot.a != nil && slot.k == k {
		ag.last = slot.a
		return slot.a
	}
	var ls *lstate
	var a *lockAgg
	if ag.fold != nil {
		if o := ag.fold.objPeek(obj); o != nil {
			ls = o.ls[kind]
		}
	}
	if ls != nil && ls.agg != nil {
		a = ls.agg
	} else if len(ag.by) > 0 {
		a = ag.by[k] // made before its fold state, or after the fold
	}
	if a == nil {
		if ag.byN.len() == 0 {
			ag.owners.make() // the first lock: its blames go through the cache
		}
		a = ag.aggFree.take()
		a.n = ag.byN.push(a)
		// The fold's own facts, of every thread, are copied when the
		// aggregation ends (facts): the fold may still be adding to them.
		if ag.fold != nil {
			if ls != nil {
				a.src = ls.l
			}
		} else {
			a.src = ag.m.byObject[lockOf(obj, kind)]
		}
		if ag.inPlace && a.src != nil {
			a.l = a.src // its facts are there already
		} else {
			a.l = &Lock{Object: obj, Kind: kind}
			if r, ok := ag.m.rec(obj); ok && kind == Blocker {
				a.l.Class = ag.m.recs.classes[r.cls] // a group's member, kept as a record (dormant.go)
			}
			if kind == Semaphore {
				a.l.Class = "Ljava/util/concurrent/Semaphore;"
			}
		}
		a.sp, a.ag = ag.ownerSpill, ag
		if ls != nil {
			ls.agg = a
		} else {
			ag.by[k] = a
		}
	}
	*slot = aggNear{k, a}
	ag.last = a
	return a
}

// acquire is one Semaphore.acquire of a thread across its segments (a
// class initialisation can block inside it).
type acquire struct {
	object     format.ObjectID
	stack      StackID
	since, end format.Time
	other      format.ThreadID // the releaser that let it through; 0: none
}

// thread adds the contentions and waits of t.
func (ag *aggregator) thread(t *Thread) {
	st := threadAgg{id: t.ID}
	ag.feed(&st, t.Intervals)
	ag.endThread(&st)
}

// changes returns the owner changes of a lock as the fold has them now.
func (a *lockAgg) changes() []OwnerChange {
	if a.src != nil {
		return a.src.OwnerChanges
	}
	return nil
}

// changesBase is the index of the first of changes among the lock's owner
// changes: those before are given up (Builder.releaseChanges).
func (a *lockAgg) changesBase() int {
	if a.src != nil {
		return a.src.ownBase
	}
	return 0
}

// feed adds the contentions and waits of the intervals ivs of thread st,
// the ones after those fed before, in order.
func (ag *aggregator) feed(st *threadAgg, ivs []Interval) {
	m := ag.m
	for i := range ivs {
		iv := &ivs[i]
		if len(st.juc) > 0 {
			if last := &st.juc[len(st.juc)-1]; !st.jucPrev || !m.Reparked(last, iv) {
				ag.jucContention(st)
			}
		}
		st.jucPrev = false
		switch iv.State {
		case Blocked:
			// One interval per contention, however often the owner changed.
			a := ag.get(iv.Object, Monitor)
			d := iv.End - iv.Since
			n, open := 1, 0
			if iv.Open {
				n, open = 0, 1 // still blocked at the end, by its last owner
			}
			if iv.ownTo == iv.ownFrom {
				// No owner changes while it was blocked: ownerSpans' one
				// span, the owner when it blocked (First), made here.
				one := [1]OwnerSpan{{iv.Start, max(iv.End, iv.Start), iv.First}}
				a.blameContention(one[:], iv.Other, n, open)
			} else {
				ss := appendOwnerSpans(ag.spans[:0], st.id, iv, a.changes(), a.changesBase())
				a.blameContention(ss, iv.Other, n, open)
				if iv.ownTo > iv.ownFrom {
					logged := st.blame != nil && st.blame.add(iv, ss)
					if l := a.src; ag.ownNeed && l != nil && (!logged || iv.Open) {
						// Its spans are made again from the owner changes:
						// the holders' pass's, or WaitGraphAt's at the end.
						l.ownNeed = append(l.ownNeed, ownRange{int(iv.ownFrom), int(iv.ownTo)})
					}
				}
				ag.spans = ss
			}
			if iv.First == 0 {
				a.l.OwnerUnknown++
			}
			site := m.SiteStack(iv.Stack)
			st.block(a, iv.Since)
			// A contention that ended in the monitor entered it at its
			// site (held): not forced out, not still going on.
			a.contention(site, d, iv.Open, !iv.Open && !iv.Forced)
			ag.before(a, site, iv.Since, iv.BeforeEvents)
		case Acquiring:
			// The segments of one acquire share Since; the last one says
			// how it ended (Other, on every segment).
			if iv.Cont {
				for j := len(st.acq) - 1; j >= 0; j-- {
					if c := &st.acq[j]; c.since == iv.Since && c.object == iv.Object {
						c.end, c.other = iv.End, iv.Other
						break
					}
				}
				continue
			}
			// The acquires before this one have had their last segment:
			// a state's segments come before the next state of its kind.
			ag.acquires(st, len(st.acq))
			st.acq = append(st.acq, acquire{object: iv.Object, stack: iv.Stack, since: iv.Since, end: iv.End, other: iv.Other})
		case Waiting:
			a := ag.get(iv.Object, Monitor)
			site := m.SiteStack(iv.Stack)
			ws := a.waitSite(site)
			if iv.Cont {
				// A later segment of a wait split around the contention
				// that took the monitor back: only its time counts.
				d := iv.End - st.waitEnd
				a.l.WaitTime += d
				ws.Time += d
				st.waitEnd = iv.End
				st.waitLen += d
				a.l.MaxWait = max(a.l.MaxWait, st.waitLen)
				continue
			}
			st.waitEnd = iv.End
			st.waitLen = iv.Duration()
			a.l.MaxWait = max(a.l.MaxWait, st.waitLen)
			st.waited(a, iv.Since)
			a.l.Waits++
			ws.Waits++
			a.l.WaitTime += iv.Duration()
			ws.Time += iv.Duration()
			ag.waitBefore(a, ws, site, iv.Since)
			switch iv.Wake {
			case WakeNotify, WakeNotifyAll:
				a.l.Notified++
			case WakeAmbiguous:
				a.l.Notified++
				a.l.Ambiguous++
			case WakeTimeout:
				a.l.TimedOut++
				ws.TimedOut++
			case WakeNever:
				a.l.StillWaiting++
				ws.StillWaiting++
			}
		case Parked, Idle:
			if iv.Acquire {
				if ag.listJuc && !st.jucListed {
					st.jucListed = true
					ag.jucOpen = append(ag.jucOpen, st)
				}
				st.juc = append(st.juc, *iv)
				st.jucPrev = true
				continue
			}
			// A park is one segment: nothing nests in it.
			a := ag.get(iv.Object, Blocker)
			site := m.SiteStack(iv.Stack)
			ws := a.waitSite(site)
			st.waited(a, iv.Since)
			a.parkedBy(st.id, iv.Since)
			a.l.Waits++
			ws.Waits++
			a.l.WaitTime += iv.Duration()
			a.l.MaxWait = max(a.l.MaxWait, iv.Duration())
			ws.Time += iv.Duration()
			if iv.State == Idle {
				a.l.IdleWaits++
			}
			ag.fedPark(a)
			ag.waitBefore(a, ws, site, iv.Since)
			switch iv.Wake {
			case WakeUnpark:
				a.l.Notified++
				a.unparked.add(iv.Other, iv.Duration())
			case WakeNever:
				a.l.StillWaiting++
				ws.StillWaiting++
			case WakeInterrupted:
				a.l.TimedOut++
				a.l.Interrupted++
				ws.TimedOut++
			case WakeSpurious:
				a.l.TimedOut++
				a.l.Spurious++
				ws.TimedOut++
			default:
				a.l.TimedOut++
				ws.TimedOut++
			}
		}
	}
}

// endThread adds what st still holds: the thread has no more intervals.
func (ag *aggregator) endThread(st *threadAgg) {
	if len(st.juc) > 0 {
		ag.jucContention(st)
	}
	ag.acquires(st, len(st.acq))
	st.flushFirsts(ag)
}

// acquires adds the first n of st's Semaphore.acquire calls and forgets
// them.
func (ag *aggregator) acquires(st *threadAgg, n int) {
	m := ag.m
	for _, c := range st.acq[:n] {
		// An acquire is a contention only when a release by another thread
		// let it through; one still open at the end has no releaser yet
		// and shows as a hang.
		if c.other == 0 {
			continue
		}
		a := ag.get(c.object, Semaphore)
		a.blame(c.other, 1, c.end-c.since)
		st.block(a, c.since)
		a.contention(m.SiteStack(c.stack), c.end-c.since, false, false)
		ag.before(a, m.SiteStack(c.stack), c.since, false)
	}
	st.acq = append(st.acq[:0], st.acq[n:]...)
}

// before counts a contention of a, just added at site, that began at
// since, if it began before the attach (Model.BeforeStart) or before the
// events were on (events: Interval.BeforeEvents).
func (ag *aggregator) before(a *lockAgg, site StackID, since format.Time, events bool) {
	attach := ag.m.BeforeStart(since)
	if attach && ag.early {
		ag.befores = append(ag.befores, before{a: a, since: since, site: site})
	}
	a.before(site, attach, events)
}

// waitBefore counts a wait of a at site (ws its figures) that began at
// since, if it began before the attach (Model.BeforeStart).
func (ag *aggregator) waitBefore(a *lockAgg, ws *waitAgg, site StackID, since format.Time) {
	if !ag.m.BeforeStart(since) {
		return
	}
	if ag.early {
		ag.befores = append(ag.befores, before{a: a, since: since, site: site, wait: true})
	}
	a.l.WaitsBeforeAttach++
	ws.BeforeAttach++
}

// settle undoes the counts of states begun before the attach that were
// made early against a Start that has since moved before them.
func (ag *aggregator) settle() {
	for _, bf := range ag.befores {
		if ag.m.BeforeStart(bf.since) {
			continue
		}
		if bf.wait {
			bf.a.l.WaitsBeforeAttach--
			bf.a.waitSite(bf.site).BeforeAttach--
			continue
		}
		bf.a.l.BeforeAttach--
		bf.a.cont().siteRare.at(uint64(bf.site)).BeforeAttach--
	}
	ag.befores = nil
}

// facts copies each lock's facts the fold keeps of every thread.
func (a *lockAgg) facts() {
	if src := a.src; src != nil && src != a.l {
		a.l.Class, a.l.OwnerChanges, a.l.ownBase, a.l.ownSpill, a.l.ownAt = src.Class, src.OwnerChanges, src.ownBase, src.ownSpill, src.ownAt
		a.l.Notifies, a.l.NotifyAlls, a.l.NotifiesWokeNobody, a.l.MaxNotifyAllBurst = src.Notifies, src.NotifyAlls, src.NotifiesWokeNobody, src.MaxNotifyAllBurst
		a.l.Acquires, a.l.Releases = src.Acquires, src.Releases
		a.l.LeftLocked = src.LeftLocked
	}
}

// jucContention adds the contention of thread th made of the parks in
// ag.juc (one acquire of a j.u.c. lock): from the first park to the last,
// at the first's site. Each park's time (and the gap before it) is blamed
// on the lock's owner when the thread parked, or, unknown, on the thread
// whose unpark ended it, then on each waiter the lock was handed to while
// it stayed parked (ParkSpans); the contention is counted to the owner at its end
// (the last park's Other: the thread that released the lock, its unparker
// or, for a wake-up a reader passed on, the releaser that let that reader
// in: endParked).
func (ag *aggregator) jucContention(st *threadAgg) {
	ps := st.juc
	st.juc = st.juc[:0]
	first, last := &ps[0], &ps[len(ps)-1]
	a := ag.get(first.Object, JUCLock)
	if first.First == 0 && first.Other == 0 {
		// Neither the owner when it parked (it had just released the lock)
		// nor the releaser whose unpark ended the park: unknown.
		a.l.OwnerUnknown++
	}
	hs := ag.m.handOffs[first.Object]
	if sp := ag.m.handSpill[first.Object]; sp != nil && first.Start < sp.last.At {
		// A park that began before hand-offs already given up to the
		// spill (Builder.releaseHandOffs gives up those before the parks
		// it knows of, and before the seal's watermark): its thread's line
		// came later than the seal's margin. Those it waited through are
		// read back, as the readers after the fold do (FuzzReportStreamed's
		// late-park-behind-handoffs-spilled).
		hs = handOffsIn(ag.handSpill, hs, sp, first.Start, last.End, &ag.handWin)
	}
	from := first.Start
	var now format.ThreadID // the owner at the last park's end
	ss := ag.spans[:0]
	add := func(sp OwnerSpan) bool {
		ss = append(ss, sp)
		return true
	}
	for i := range ps {
		p := &ps[i]
		k := handOffAfter(hs, from)
		ss = ss[:0]
		parkSpansAt(st.id, k, from, p.End, p.ParkOwner(), hs, add)
		for _, sp := range ss {
			a.blame(sp.Owner, 0, sp.End-sp.Start)
			if sp.Owner == 0 {
				a.l.OwnerUnknownTime += sp.End - sp.Start
			}
			now = sp.Owner
		}
		if st.blame != nil {
			// The park's spans logged for the holders' pass (blameLog):
			// ParkSpans' from its start. A re-park's blame above is from
			// the end of the park before (the gap's too): its own are
			// made again from its start, its first hand-off found from
			// the gap's.
			if from != p.Start {
				k = handOffFrom(hs, k, p.Start)
				ss = ss[:0]
				parkSpansAt(st.id, k, p.Start, p.End, p.ParkOwner(), hs, add)
			}
			st.blame.addPark(p, ss)
		}
		from = p.End
	}
	ag.spans = ss
	st.block(a, first.Start)
	a.contention(ag.m.SiteStack(first.Stack), last.End-first.Start, last.Open, false)
	ag.before(a, ag.m.SiteStack(first.Stack), first.Start, false)
	end := last.Other
	if end == 0 {
		if !last.Open {
			a.l.NoUnpark++ // no release let it in: it gave up, or woke without an unpark
			switch last.Wake {
			case WakeInterrupted:
				a.l.NoUnparkInterrupted++
			case WakeSpurious:
				a.l.NoUnparkSpurious++
			}
		}
		end = last.First
	}
	if last.Open {
		// Still blocked at the end: on the owner it was blocked by last
		// (a hand-off's since it parked, ParkSpans).
		if now != 0 && last.Other == 0 {
			end = now
		}
		a.blameOpen(end)
		return
	}
	a.blame(end, 1, 0)
}

// siteAgg is a lock's figures at a site (Site) as the aggregation adds
// them up: in its record (32 bytes with its key, two a cache line) those
// of every contention, and held: a contention there entered the monitor
// (Lock.HeldAt); those of few, in the lock's siteRare. A lock's sites
// were ~45 MB of slots of 64 bytes at 128 MB (353 000 sites of 940
// locks), beside a map of the sites held.
type siteAgg struct {
	Contentions int
	Blocked     format.Time
	held        bool
}

func (s *siteAgg) add(o *siteAgg) {
	s.Contentions += o.Contentions
	s.Blocked += o.Blocked
	s.held = s.held || o.held
}

// siteRare is a site's figures of few contentions: those still going on
// at the end, and those begun before the attach or the events.
type siteRare struct {
	Open                       int
	OpenTime                   format.Time
	BeforeEvents, BeforeAttach int
}

func (r *siteRare) add(o *siteRare) {
	r.Open += o.Open
	r.OpenTime += o.OpenTime
	r.BeforeEvents += o.BeforeEvents
	r.BeforeAttach += o.BeforeAttach
}

// rareOf returns the rare figures of site to add to (a site with some
// has its siteAgg too).
func (a *lockAgg) rareOf(site StackID) *siteRare {
	return a.cont().siteRare.at(uint64(site))
}

// siteList returns the lock's sites (in order of stack), its logs merged.
func (a *lockAgg) siteList() []Site {
	c := a.c
	if c == nil {
		return nil
	}
	rare := c.siteRare.sorted()
	var out []Site
	for _, s := range c.sites.sorted() {
		if out == nil {
			out = make([]Site, 0, c.sites.len())
		}
		st := Site{Stack: StackID(s.key), Contentions: s.e.Contentions, Blocked: s.e.Blocked}
		for len(rare) > 0 && rare[0].key < s.key {
			rare = rare[1:] // none: each rare site is a site
		}
		if len(rare) > 0 && rare[0].key == s.key {
			r := &rare[0].e
			st.Open, st.OpenTime, st.BeforeEvents, st.BeforeAttach = r.Open, r.OpenTime, r.BeforeEvents, r.BeforeAttach
		}
		out = append(out, st)
	}
	return out
}

// contention adds one contention at site (its thread's first:
// threadAgg.block); held: the thread entered the monitor there.
func (a *lockAgg) contention(site StackID, d format.Time, open, held bool) {
	s := a.site(site)
	s.held = s.held || held
	l := a.l
	if open {
		l.Open++
		l.OpenTime += d
		r := a.rareOf(site)
		r.Open++
		r.OpenTime += d
	} else {
		l.Contentions++
		l.Blocked += d
		l.MaxBlocked = max(l.MaxBlocked, d)
		s.Contentions++
		s.Blocked += d
	}
}

// site returns the figures of the contentions at site to add to.
func (a *lockAgg) site(site StackID) *siteAgg {
	return a.cont().sites.at(uint64(site))
}

// before counts a contention just added at site that began before the
// attach (attach: in it at the attach, Model.BeforeStart) or before the
// events were on (events: Interval.BeforeEvents).
func (a *lockAgg) before(site StackID, attach, events bool) {
	if !attach && !events {
		return
	}
	a.site(site) // a site with rare figures is a site
	r := a.rareOf(site)
	if attach {
		a.l.BeforeAttach++
		r.BeforeAttach++
	}
	if events {
		a.l.BeforeEvents++
		r.BeforeEvents++
	}
}

// blame adds n contentions and d blocked time to owner's blame (none for
// an unknown owner).
func (a *lockAgg) blame(owner format.ThreadID, n int, d format.Time) {
	a.addBlame(owner, n, d, 0)
}

// blameContention blames each span of a contention, ss (one at least),
// on its owner, and the contention, n of them ended and open still going
// on, on other, its owner at the end: with its last span's time when it
// is that span's owner, as most are, one addition of the blame cache, not
// two (a blame is sums).
func (a *lockAgg) blameContention(ss []OwnerSpan, other format.ThreadID, n, open int) {
	for i := range ss {
		sp := &ss[i]
		if sp.Owner == 0 {
			a.l.OwnerUnknownTime += sp.End - sp.Start
		}
		if i == len(ss)-1 && sp.Owner == other {
			a.addBlame(other, n, sp.End-sp.Start, open)
			return
		}
		a.blame(sp.Owner, 0, sp.End-sp.Start)
	}
	a.addBlame(other, n, 0, open)
}

// blameOpen counts a contention still going on at the end on owner.
func (a *lockAgg) blameOpen(owner format.ThreadID) {
	a.addBlame(owner, 0, 0, 1)
}

// addBlame adds n contentions, d blocked time and open contentions still
// going on at the end to owner's blame on the lock (none for an unknown
// owner): in the aggregator's cache, which gives it to the lock's table
// (putOwner) when another takes its slot.
func (a *lockAgg) addBlame(owner format.ThreadID, n int, d format.Time, open int) {
	if owner == 0 {
		return
	}
	c, an, k := &a.ag.owners, a.n+1, uint64(owner)
	sl := c.slot(an, k)
	if sl.n != an || sl.owner != k {
		c.take(sl, a.ag, an, k)
	}
	sl.bl.Contentions += n
	sl.bl.Blamed += d
	sl.bl.Open += open
}

// putOwner adds bl, the blame of owner, to a's table of owners (addBlame,
// blameCache). The locks' tables are written out, with
// Options.SpillOwners, once an owner new to its table has made them hold
// more than ownerBudget: after its figures are in (a run holds some of an
// owner's figures, the table or later runs the rest; Finalize sums them).
func putOwner(a *lockAgg, owner uint64, bl *blameAgg) {
	t := &a.cont().owners
	if k := len(t.log); k == 0 || t.log[k-1].key != owner {
		// A record more in the log (at).
		if t.full() {
			a.mergeOwners()
		}
		if a.sp != nil {
			if a.ag.ownerEntries++; a.ag.ownerEntries > a.ag.ownerLeft+ownerBudget {
				a.ag.spillOwners()
			}
		}
	}
	t.at(owner).add(bl)
}

// mergeOwners merges the log of a's table of owners. The records of the
// table and its log count to ownerBudget (addBlame): those the merge sums
// into others are no more.
func (a *lockAgg) mergeOwners() {
	t := &a.cont().owners
	n := len(t.ents) + len(t.log)
	t.merge()
	if a.sp != nil {
		a.ag.ownerEntries -= n - len(t.ents)
	}
}

// blameAgg is an owner's Blame on a lock as the aggregation adds it up,
// its Thread the key of its record in lockAgg.owners.
type blameAgg struct {
	Contentions int
	Blamed      format.Time
	Open        int
}

func (b *blameAgg) add(o *blameAgg) {
	b.Contentions += o.Contentions
	b.Blamed += o.Blamed
	b.Open += o.Open
}

// ownersTo appends a's blame table to dst, as Blames, in order of thread.
func (a *lockAgg) ownersTo(dst []Blame) []Blame {
	if a.c == nil {
		return dst
	}
	es := a.c.owners.sorted()
	dst = grown(dst, len(es))
	for i := range es {
		b := &es[i].e
		dst = append(dst, Blame{Thread: format.ThreadID(es[i].key), Contentions: b.Contentions, Blamed: b.Blamed, Open: b.Open})
	}
	return dst
}

// waitAgg is a WaitSite as the aggregation adds it up, its Stack unset:
// the key of its record in lockAgg.wsites.
type waitAgg WaitSite

func (w *waitAgg) add(o *waitAgg) {
	w.Waits += o.Waits
	w.TimedOut += o.TimedOut
	w.StillWaiting += o.StillWaiting
	w.Time += o.Time
	w.BeforeAttach += o.BeforeAttach
}

// waitSite returns the figures of the waits at stack to add to.
func (a *lockAgg) waitSite(stack StackID) *waitAgg {
	t := &a.wsites
	if len(t.log)+len(t.ents) == 0 {
		switch {
		case !a.ws1On:
			a.ws1, a.ws1On = waitAgg{Stack: stack}, true
			return &a.ws1
		case a.ws1.Stack == stack:
			return &a.ws1
		}
		t.at(uint64(a.ws1.Stack)).add(&a.ws1)
		a.ws1On = false
	}
	return t.at(uint64(stack))
}

// finish puts the accumulated lists in their orders.
func (a *lockAgg) finish() *Lock {
	l := a.l
	c := a.c
	if c == nil {
		c = &contAgg{} // read alone: nothing kept
	}
	ws := a.firstsOf(c.waiters, c.waiterRuns)
	wb := a.firstsOf(a.waitedBy, a.waitedByRuns)
	putWaiters(l, ws, wb, a.sp)
	// The threads' first waits stay for a group's member alone
	// (groupWaits: at most GroupMaxWaits of them).
	c.waiters, c.waiterRuns, a.waitedBy, a.waitedByRuns = nil, nil, nil, nil
	if len(wb) <= GroupMaxWaits {
		a.waitedBy = wb
	}
	a.finishOwners(l)
	c.owners = blameTab{}
	nHeld := 0
	for _, s := range c.sites.sorted() {
		if s.e.held {
			nHeld++
		}
	}
	if sites := a.siteList(); l.Sites == nil {
		l.Sites = sites
	} else {
		l.Sites = append(l.Sites, sites...)
	}
	slices.SortFunc(l.Sites, func(a, b Site) int {
		if c := cmp.Compare(b.Blocked+b.OpenTime, a.Blocked+a.OpenTime); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Contentions, a.Contentions); c != 0 {
			return c
		}
		return cmp.Compare(a.Stack, b.Stack)
	})
	l.UnparkedBy = grown(l.UnparkedBy, a.unparked.len())
	for th, u := range a.unparked.all {
		l.UnparkedBy = append(l.UnparkedBy, u.blame(th))
	}
	sortUnparkers(l.UnparkedBy)
	l.HeldAt = grown(l.HeldAt, nHeld)
	for _, s := range c.sites.sorted() {
		if s.e.held {
			l.HeldAt = append(l.HeldAt, StackID(s.key))
		}
	}
	slices.Sort(l.HeldAt)
	wss := a.wsites.sorted()
	if a.ws1On {
		l.WaitSites = append(grown(l.WaitSites, 1), WaitSite(a.ws1))
	}
	l.WaitSites = grown(l.WaitSites, len(wss))
	for i := range wss {
		w := WaitSite(wss[i].e)
		w.Stack = StackID(wss[i].key)
		l.WaitSites = append(l.WaitSites, w)
	}
	slices.SortFunc(l.WaitSites, func(a, b WaitSite) int {
		if c := cmp.Compare(b.Time, a.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Stack, b.Stack)
	})
	return l
}

// grown returns s with room for n more elements: s itself when n is 0,
// so that a list with nothing to add stays nil.
func grown[E any](s []E, n int) []E {
	if n == 0 {
		return s
	}
	return slices.Grow(s, n)
}

// sortUnparkers orders the unparkers of a blocker: most parks first, then
// by thread.
func sortUnparkers(us []Blame) {
	slices.SortFunc(us, func(a, b Blame) int {
		if c := cmp.Compare(b.Contentions, a.Contentions); c != 0 {
			return c
		}
		return cmp.Compare(a.Thread, b.Thread)
	})
}

// byFirst returns the entries of first (thread -> time of its first
// entry) in order of that time, then thread.
func byFirst(first map[format.ThreadID]format.Time) []firstAt {
	fs := make([]firstAt, 0, len(first))
	for th, at := range first {
		fs = append(fs, firstAt{th: th, at: at})
	}
	slices.SortFunc(fs, inFirstOrder)
	return fs
}

// inFirstOrder orders firsts by time, then thread: the order of
// Lock.Waiters and WaitedBy.
func inFirstOrder(a, b firstAt) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.th, b.th)) }

// SiteStack returns the call site of stack id: the first stack of the
// recording whose frames are at the same source lines (class, method,
// file and line; the method alone where the line is unknown). Two
// bytecodes of one line are one call site to the user.
func (m *Model) SiteStack(id StackID) StackID {
	if int(id) < len(m.siteOf) {
		return m.siteOf[id]
	}
	return id
}

// siteGrouper fills siteOf as stacks come (extend): each stack's site is
// the first stack, by id, with the same source line in every frame, and
// ids are given in order, so a stack's site is known when it comes. line
// names a frame by its source line and returns "" when the line is
// unknown.
type siteGrouper struct {
	line func(format.Frame) string
	// A number per distinct source line (or frame, when its line is
	// unknown), so that each frame is resolved once, not once per stack.
	lineNum  map[string]uint32
	frameNum map[format.Frame]uint32
	first    map[string]StackID
	key      []byte
}

func newSiteGrouper(line func(format.Frame) string) *siteGrouper {
	return &siteGrouper{line: line, lineNum: map[string]uint32{}, frameNum: map[format.Frame]uint32{}, first: map[string]StackID{}}
}

func (g *siteGrouper) num(f format.Frame) uint32 {
	if n, ok := g.frameNum[f]; ok {
		return n
	}
	// A frame whose line is unknown (code compiled without line numbers,
	// a native method) is its method: its bytecode index is never
	// printed, and a synchronized method's entry is recorded at one index
	// interpreted and another compiled, so keeping indexes apart made two
	// sites print the same frames (HSQLDB: ValuePool.getInt, 128 and 4
	// contentions).
	k := g.line(f)
	if k == "" {
		k = f.Method.String()
	}
	n, ok := g.lineNum[k]
	if !ok {
		n = uint32(len(g.lineNum))
		g.lineNum[k] = n
	}
	g.frameNum[f] = n
	return n
}

// extend sets m.siteOf for the stacks after those it has.
func (g *siteGrouper) extend(m *Model, stacks [][]format.Frame) {
	for id := len(m.siteOf); id < len(stacks); id++ {
		g.key = g.key[:0]
		for _, f := range stacks[id] {
			g.key = binary.LittleEndian.AppendUint32(g.key, g.num(f))
		}
		site, ok := g.first[string(g.key)]
		if !ok {
			site = StackID(id)
			g.first[string(g.key)] = site
		}
		m.siteOf = append(m.siteOf, site)
	}
}
