package model

import (
	"math"
	"slices"

	"orca/internal/format"
	"orca/internal/reader"
)

// lstate is a lock being folded: what every lock's fold reads, and a
// monitor's, a j.u.c. lock's or a semaphore's state (lockState), which
// a blocker has none of (nil): most objects of a busy server are
// parked on and nothing else (a request's future, ~750 000 in an hour
// of a loaded ActiveMQ), 296 bytes less each.
type lstate struct {
	l *Lock
	// clock: the latest time the monitor changed hands (a contention
	// ended, an owner named): a contention is not folded before it. A
	// j.u.c. lock's: the latest end of a park in an acquire of it, which
	// a hand-off is not noted before (handOff).
	clock format.Time
	// cond: a blocker's conditionOf, as of Builder.condGen condGen
	// (blockerCondition).
	cond    *lstate
	condGen uint32
	// parks: a blocker's parks begun (Builder.park): its Lock's Waits
	// once they are all fed (sleepBlockers).
	parks int32
	// agg: its aggregate while the fold goes (aggregator.get), not in
	// aggregator.by until Finalize.
	agg *lockAgg
	*lockState
}

// lockState is the fold's state of a lock on which threads block, wait
// or acquire (Builder.lock: every kind but Blocker).
type lockState struct {
	// Threads blocked on the monitor now, sorted by ID: newOwner splits
	// their intervals in that order (it decides the order in which the
	// wait-for graph's cycles are found).
	blocked []*tstate
	// Object.wait bookkeeping: the threads waiting now, sorted.
	waiting threadSet
	tokens  []token
	nextSeq int
	storm   []format.Time // recent notifyAll times
	// Semaphore: the releases not yet matched to an acquire, oldest
	// first, at most maxReleases: rels[relHead:]. The room before relHead
	// held the oldest ones, forgotten; the array, once full, is compacted
	// (released): the 64 kept shifted at every release were ~1 kB each.
	rels    []release
	relHead int
	hold    holdState // its hold times (hold.go)
	// ownRoom: how many owner changes the lock held when the fold last
	// gave them up (releaseChanges), the room newOwner makes for the next
	// ones at once (grown by doubling from none after each seal, the
	// appends were ~1 % of orca report at 128 MB).
	ownRoom int
	// acqOpen: the parks in an acquire of it open now, with
	// Options.DropIntervals (releaseHandOffs); handing: it has hand-offs
	// in memory (Builder.handing).
	acqOpen []acqPark
	handing bool
}

// release is a semaphore's release by thread by at at. upto is the
// latest time of the releases kept before it and of itself when it was
// kept: it never decreases along lstate.rels (a release matched and
// removed leaves the others' as they were, still at least their own
// prefix's latest), so that endAcquiring finds by a binary search the
// first that can have come after an acquire began, without reading the
// older ones (a semaphore's 64 kept were ~840 instructions an acquire).
type release struct {
	by   *tstate
	at   format.Time
	upto format.Time
}

// maxReleases bounds a semaphore's unmatched releases: a release lets one
// acquire through, and one that none waited for is forgotten in time.
const maxReleases = 64

// objFold is what the fold knows of an object: the class its ObjectClass
// line gave ("" when none yet) and its locks, by kind. One look-up an
// object for both: a park on an object of its own (a FutureTask's, a
// CompletableFuture's Signaller: most objects of a busy server's push)
// looked its class up, and each kind of lock apart, in three maps.
type objFold struct {
	class string
	ls    [JUCLock + 1]*lstate
	num   int32 // its number in the build, from 1 (Model.Object)
	// acqParked: the parks in an acquire of it (a j.u.c. lock's) open
	// now, saturated (endParked: a hand-off while others stay parked is
	// noted, Model.handOffs).
	acqParked uint16
	// parked: a park named it, its blocker or the j.u.c. lock it
	// acquires, whose Lock the fold does not keep (Options.NoParkLocks):
	// a lock's object all the same (Model.Class).
	parked bool
	// rec: its blocker is dormant, in that record (blkRecs, from 1).
	rec int32
}

// obj returns what the fold knows of obj, made when it knows nothing.
func (b *Builder) obj(obj format.ObjectID) *objFold {
	if o := b.lastFold; o != nil && b.lastObj == obj {
		return o
	}
	o := b.objFind(obj)
	if o == nil {
		if b.objSlab != nil {
			o = &b.objSlab.take(1, true)[0]
		} else {
			o = b.objFree.take()
		}
		b.nobjs++
		o.num = b.nobjs
		if b.m.byNum != nil {
			b.m.byNum = append(b.m.byNum, o) // at o.num
		}
		p, _ := b.objs.find(uint64(obj))
		*p = o
		b.objNear[objSlot(obj)] = objNear{obj, o}
	}
	b.lastObj, b.lastFold = obj, o
	return o
}

// objFind returns b.objs[obj]: from objNear when it is there, and put
// there from the map when not. A busy server's events are mostly on a
// few objects (a pool's queue and its locks) among the thousands a push
// parks on once (a request's future, each an entry of the map): a look-up
// of the map was a miss of the caches (3-4 % of a push's CPU).
func (b *Builder) objFind(obj format.ObjectID) *objFold {
	n := &b.objNear[objSlot(obj)]
	if n.o != nil && n.id == obj {
		return n.o
	}
	p := b.objs.lookup(uint64(obj))
	if p == nil {
		if i := b.dormObjs.get(obj); i != 0 {
			return b.objBack(obj, i) // a dormant blocker's, forgotten
		}
		return nil
	}
	*n = objNear{obj, *p}
	return *p
}

// objPeek returns b.objs[obj] as objFind does, but nil for an object
// forgotten (dormant.go): nothing made again.
func (b *Builder) objPeek(obj format.ObjectID) *objFold {
	if n := &b.objNear[objSlot(obj)]; n.o != nil && n.id == obj {
		return n.o
	}
	if p := b.objs.lookup(uint64(obj)); p != nil {
		return *p
	}
	return nil
}

// objNear is an entry of Builder.objNear: an object and its objFold.
type objNear struct {
	id format.ObjectID
	o  *objFold
}

// objSlots is the size of Builder.objNear: 4 kB.
const objSlots = 256

func objSlot(id format.ObjectID) uint32 { return uint32(id) * 0x9E3779B1 >> 24 }

// lockIf returns the lock of that kind on obj, nil when none is.
func (b *Builder) lockIf(obj format.ObjectID, kind LockKind) *lstate {
	if o := b.lastFold; o != nil && b.lastObj == obj {
		return o.ls[kind]
	}
	if o := b.objFind(obj); o != nil {
		return o.ls[kind]
	}
	return nil
}

// classOf returns the class an ObjectClass line gave obj, "" when none.
func (b *Builder) classOf(obj format.ObjectID) string {
	if o := b.objFind(obj); o != nil {
		return o.class
	}
	return ""
}

func (b *Builder) lock(obj format.ObjectID, kind LockKind) *lstate {
	o := b.obj(obj)
	ls := o.ls[kind]
	if ls == nil {
		// A semaphore's class is its ObjectClass line's (a subclass, say);
		// recordings before the agent wrote it have none: Semaphore.
		var l *Lock
		if b.lockSlab != nil {
			lm := &b.lockSlab.take(1, true)[0]
			l, ls = &lm.l, &lm.ls
			if kind != Blocker {
				ls.lockState = &lm.st
			}
		} else {
			l, ls = b.lockFree.take(), b.lsFree.take()
			if kind != Blocker {
				ls.lockState = &lockState{}
			}
		}
		l.Object, l.Kind, l.Class = obj, kind, o.class
		if kind == Semaphore && l.Class == "" {
			l.Class = "Ljava/util/concurrent/Semaphore;"
		}
		ls.l = l
		if kind != Blocker {
			ls.hold.juc = kind == JUCLock
		}
		o.ls[kind] = ls
		if kind == Blocker && o.rec != 0 {
			b.wakeRec(o, ls)
		}
		if kind == JUCLock {
			b.condChanged() // a condition's lock may be it
		}
		if !b.m.locksInObjs && b.m.foldObjs == nil {
			b.m.byObject[lockOf(obj, kind)] = l // made at Finalize (a group's member woken)
		}
		b.m.Locks = append(b.m.Locks, l)
	}
	return ls
}

// endBlocked ends a contention at at (returned: not before the span of
// its current owner began).
func (b *Builder) endBlocked(ts *tstate, o *openIv, at format.Time, how ending) format.Time {
	at = max(at, o.spanStart)
	ls := o.ls
	ls.clock = max(ls.clock, at)
	ls.unblock(ts.id)
	o.iv.ownTo = uint32(ls.l.ownLen())
	if how != endNormal {
		return at
	}
	if o.iv.Other != 0 {
		// From the segment's start: when the thread began waiting for that owner.
		b.edges.add(Edge{Kind: EdgeOwner, From: o.iv.Other, To: ts.id, FromTime: o.spanStart, ToTime: at, Object: o.iv.Object})
	}
	// The thread owns the monitor now: the others still blocked on it
	// wait for it from here on. Its own wait ends here first: still
	// blocked on the monitor for waitFor.set, it would be held to have
	// entered it late, at the time the others wait for it from
	// (FuzzModelText's deadlock-ended-entered-late).
	b.wf.clear(ts, at, b.m)
	b.changedHands(o.iv.Object, ts)
	b.newOwner(ls, ts, at)
	b.tookMonitor(ts, o, at)
	return at
}

// owned folds a MonitorOwned line: ts holds the monitor, fast-locked since
// before the threads blocked on it now inflated it (HotSpot named them no
// owner: ts was unmounted). Those blocked without an owner waited for ts
// from their start; later ones without an owner too, until the monitor
// changes hands.
func (b *Builder) owned(ts *tstate, ev *reader.Event) {
	b.heldBy[ev.Object] = held{ts, ev.Time}
	ls := b.lockIf(ev.Object, Monitor)
	if ls == nil {
		return // nobody blocked on it yet
	}
	owner := ts.id
	// namedSince: since when the other threads blocked on it now that name
	// an owner all name ts (the latest start of their spans; the end of
	// time when one names another, the start of time when none names one).
	// Before then the monitor had another owner, or ts's word is not theirs.
	namedSince := format.Time(math.MinInt64)
	for _, bts := range ls.blocked {
		for i := range bts.body.open {
			if o := &bts.body.open[i]; bts != ts && o.iv.State == Blocked && o.ls == ls && o.iv.Other != 0 {
				if o.iv.Other != owner {
					namedSince = math.MaxInt64
				}
				namedSince = max(namedSince, o.spanStart)
			}
		}
	}
	for _, bts := range ls.blocked {
		if bts == ts {
			continue
		}
		for i := range bts.body.open {
			o := &bts.body.open[i]
			if o.iv.State != Blocked || o.ls != ls || o.iv.Other != 0 {
				continue
			}
			if o.segs > 0 || int(o.iv.ownFrom) != ls.l.ownLen() || ls.clock > o.iv.Since {
				// Its owner was known for a while, or the monitor
				// changed hands since it began (a contention there
				// ended, naming its owner up to then: FuzzModelText's
				// owned-after-other-ended): newOwner below.
				continue
			}
			if namedSince > o.iv.Since {
				// Another thread blocked on it named another owner
				// since this one blocked: ts owns it from now on only.
				continue
			}
			o.iv.First, o.iv.Other, o.other = owner, owner, ts
			if i == len(bts.body.open)-1 {
				// Its interval waits for ts from its start; the fold
				// (its deadlocks) from now: the wait-for graph at an
				// instant leaves it out until then (FuzzModelText's
				// owned-late-closes-cycle).
				b.wf.hideWait(bts, ev.Object, o.spanStart, ev.Time, b.m)
				b.rewait(bts, ev.Time)
			}
		}
	}
	// As a contention's line behind the monitor's latest change of hands
	// (Builder.Event), the word holds from then: before it, the threads
	// blocked there named another owner, and their spans up to it stand
	// (FuzzModelText's owned-behind-clock).
	b.newOwner(ls, ts, max(ev.Time, ls.clock))
}

// owns: ts, blocked on ls, is named its owner at at (newOwner): from
// here OwnerSpans blames its span on no one (the wait for the owner
// before was its Entered's delay), though iv.Other still names that
// owner. It has entered the monitor: its wait for the owner before ends
// then in the fold too (a contention's naming ended it in waitFor.set;
// FuzzModelText's owned-names-blocked-owner: a MonitorOwned line named
// it, and the cycle through it stood in the fold while its owner spans
// named none).
func (b *Builder) owns(ts *tstate, ls *lstate, at format.Time) {
	for i := range ts.body.open {
		o := &ts.body.open[i]
		if o.iv.State != Blocked || o.ls != ls || o.iv.Other == 0 || o.named {
			continue
		}
		o.named, o.namedAt = true, max(at, o.spanStart)
		if e := ts.waits(); i == len(ts.body.open)-1 && e.to != nil && e.obj == o.iv.Object && e.kind == Monitor {
			b.wf.entered(ts, o.iv.Object, o.namedAt, b.m)
		}
	}
}

// held is the holder of a monitor that a MonitorOwned line named at at.
type held struct {
	ts *tstate
	at format.Time
}

// ownerUnknown returns the owner of a contention of ts on obj that names
// none: the holder of a MonitorOwned line of obj and its line's time, or
// none.
func (b *Builder) ownerUnknown(obj format.ObjectID, ts *tstate) held {
	if h := b.heldBy[obj]; h.ts != nil && h.ts != ts && !b.tOf(h.ts).Ended {
		return h
	}
	return held{}
}

// changedHands says ts owns the monitor obj now (it acquired it, waits on
// it or notifies): a MonitorOwned line of another thread no longer names
// its owner.
func (b *Builder) changedHands(obj format.ObjectID, ts *tstate) {
	if h, ok := b.heldBy[obj]; ok && h.ts != ts {
		delete(b.heldBy, obj)
	}
}

// endAcquiring ends an acquire that returned at at. One that a release by
// another thread let through waited: that is a semaphore contention, with
// the releaser in Other.
func (b *Builder) endAcquiring(ts *tstate, o *openIv, at format.Time) {
	ls := o.ls
	// The earliest release by another thread since it began: two waiting
	// acquires let through by two releases close together are two
	// contentions (the latest release alone made the second none). None
	// before the first whose upto is at or after its start is.
	rels := ls.rels[ls.relHead:]
	since := o.iv.Since
	lo, hi := 0, len(rels)
	for lo < hi {
		if h := int(uint(lo+hi) >> 1); rels[h].upto < since {
			lo = h + 1
		} else {
			hi = h
		}
	}
	for i := lo; i < len(rels); i++ {
		if rel := rels[i]; rel.by != ts && rel.at >= since && rel.at <= at {
			n := copy(rels[i:], rels[i+1:])
			rels[i+n] = release{}
			ls.rels = ls.rels[:len(ls.rels)-1]
			b.edges.add(Edge{Kind: EdgeRelease, From: rel.by.id, To: ts.id, FromTime: rel.at, ToTime: at, Object: o.iv.Object})
			o.iv.Other = rel.by.id
			break
		}
	}
}

// released keeps a semaphore's release by ts at at, forgetting the
// oldest of maxReleases kept.
func (ls *lstate) released(ts *tstate, at format.Time) {
	if len(ls.rels)-ls.relHead == maxReleases {
		ls.rels[ls.relHead] = release{}
		ls.relHead++
	}
	if len(ls.rels) == cap(ls.rels) && ls.relHead > 0 {
		// Full, the oldest forgotten before relHead: the ones kept to
		// the front, in an array of twice as many (a copy every
		// maxReleases releases, not a shift at each).
		dst := ls.rels
		if cap(dst) < 2*maxReleases {
			dst = make([]release, len(ls.rels)-ls.relHead, 2*maxReleases)
		}
		n := copy(dst, ls.rels[ls.relHead:])
		clear(dst[n:len(ls.rels)])
		ls.rels, ls.relHead = dst[:n], 0
	}
	upto := at
	if n := len(ls.rels); n > ls.relHead {
		upto = max(upto, ls.rels[n-1].upto)
	}
	ls.rels = append(ls.rels, release{ts, at, upto})
}

// block adds ts to the threads blocked on the monitor.
func (ls *lstate) block(ts *tstate) {
	ls.hold.blocks(ts.id)
	i, found := ls.blockedAt(ts.id)
	if found {
		ls.blocked[i] = ts
		return
	}
	ls.blocked = slices.Insert(ls.blocked, i, ts)
}

// unblock removes thread th from the threads blocked on the monitor.
func (ls *lstate) unblock(th format.ThreadID) {
	if i, found := ls.blockedAt(th); found {
		ls.blocked = slices.Delete(ls.blocked, i, i+1)
	}
}

// blockedAt is slices.BinarySearchFunc(ls.blocked, id, …) by thread ID,
// written out: the generic one, its comparison called through a pointer,
// was ~25 instructions an event.
func (ls *lstate) blockedAt(id format.ThreadID) (int, bool) {
	s := ls.blocked
	lo, hi := 0, len(s)
	for lo < hi {
		if h := int(uint(lo+hi) >> 1); s[h].id < id {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo, lo < len(s) && s[lo].id == id
}

// newOwner makes the threads still blocked on ls wait for owner from at
// on: their owner spans (Model.OwnerSpans) change there.
// namedOwner is the owner the threads blocked on the monitor now wait
// for (the first of them that names one), 0 for none. A blocked thread
// named the owner itself (newOwner: named) still names the owner before
// in iv.Other; the word since is that it owns the monitor
// (FuzzModelText's owner-blocked-named-late: A blocked naming 10, then
// named by B; E's late line took 10 over B's A).
func (ls *lstate) namedOwner() format.ThreadID {
	for _, ts := range ls.blocked {
		for i := range ts.body.open {
			if o := &ts.body.open[i]; o.iv.State == Blocked && o.ls == ls && o.iv.Other != 0 {
				if o.named {
					return ts.id
				}
				return o.iv.Other
			}
		}
	}
	return 0
}

func (b *Builder) newOwner(ls *lstate, ots *tstate, at format.Time) {
	owner := ots.id
	ls.clock = max(ls.clock, at)
	if len(ls.blocked) == 0 || len(ls.blocked) == 1 && ls.blocked[0] == ots {
		return // nobody waits for it
	}
	// Once for the lock; the intervals of the threads blocked now refer
	// to it (Model.OwnerSpans repeats the decisions below).
	if len(ls.l.OwnerChanges) == 0 && b.dropIntervals {
		b.owning = append(b.owning, ls) // its changes to give up (releaseChanges)
	}
	if cap(ls.l.OwnerChanges) == 0 && ls.ownRoom > 0 {
		ls.l.OwnerChanges = make([]OwnerChange, 0, ls.ownRoom)
	}
	ls.l.OwnerChanges = append(ls.l.OwnerChanges, OwnerChange{at, owner})
	if b.heldChanges++; b.heldChanges > b.m.PeakOwnerChanges {
		b.m.PeakOwnerChanges = b.heldChanges
	}
	// The owner first, when blocked here itself: the others' waits for it
	// below must find its own wait ended (owns), not take it for entered
	// late at their times (waitFor.set).
	if i, found := ls.blockedAt(owner); found && ls.blocked[i] == ots {
		b.owns(ots, ls, at)
	}
	// In order of thread ID: map order would make the wait-for graph's
	// cycles come in random order. Nothing here changes ls.blocked.
	for _, ts := range ls.blocked {
		if ts == ots {
			continue
		}
		for i := range ts.body.open {
			o := &ts.body.open[i]
			if o.iv.State != Blocked || o.ls != ls {
				continue
			}
			// Lines of two threads can be out of order by a little; never
			// split before the span began.
			t := max(at, o.spanStart)
			if o.named {
				t = max(t, o.namedAt)
			}
			if o.iv.Other != owner || o.named {
				// A new span: the thread's later events fold after it, as
				// they would after a segment. After the thread was named
				// the owner (named), one that names iv.Other again is one
				// too, as for OwnerSpans: FuzzModelText's
				// owner-named-again-after-end: E blocked on AAAA, named
				// its owner by C at 0, C's line at 60 named C again,
				// E's ThreadEnded at 20 was not folded after it, and E's
				// span for C began at 60, after its interval's end.
				ts.floor = max(ts.floor, t)
				o.spanStart = t
				o.iv.Other, o.other, o.named = owner, ots, false
				if i == len(ts.body.open)-1 {
					b.rewait(ts, t)
				}
			}
		}
	}
}
