package model

import (
	"fmt"
	"slices"
	"unsafe"

	"orca/internal/format"
)

// Dormant blockers. A busy server parks on a new object for most waits
// (a request's CountDownLatch, a CompletableFuture's Signaller, the
// condition of a lock made for one call): ~5.6 M in an hour of a loaded
// Tomcat, each a Lock (608 bytes), its fold state, its aggregate and
// their entries in two maps, all of them marked by the collector at every
// cycle. Once such a blocker has no park open and its parks are all
// summed (fed), and it may still be grouped (groups.go: at most
// GroupMaxWaits waits, at one wait site), its figures go to a record of
// fixed size with no pointer (blkRec) and its Lock, state and aggregate
// are let go: the blocker is dormant. Parked on again, or given a thread's
// first wait the record has no room for, it is made a Lock again, exactly
// what it was (wakeRec); at the end (Finalize) every record is. The records
// hold what the Lock and its aggregate held, no more: exact by
// construction (TestDormant compares a fold with and without them).

// recUnparkers and recFirsts are the most unparkers and waiting threads
// a dormant blocker's record holds: a future is parked on by the thread
// that gets it and unparked by the one that completes it (an hour of a
// loaded ActiveMQ: 725 094 of 743 020 records had one waiter, 725 038
// one unparker; ten minutes of a Tomcat 849 797 and 849 467 of 849 956).
// A blocker with more stays a Lock: a record of 80 bytes, not 160.
const recUnparkers, recFirsts = 1, 1

// blkRec is a dormant blocker: its Lock's wait figures, its aggregate's
// number (lockAgg.n), one wait site (whose figures are the Lock's), its
// unparkers and the first waits of the threads that ended since it was
// parked on. 80 bytes, no pointer (TestDormantFields).
type blkRec struct {
	obj  format.ObjectID
	n    int32
	site StackID
	cls  int32 // its class, blkRecs.classes' (settled at the end: recClasses)
	// The Lock's counts (at most GroupMaxWaits each).
	waits, notified, timedOut, interrupted, spurious, still, idle, before uint8
	nUnp, nFirst, solo                                                    uint8
	unpN                                                                  [recUnparkers]uint8
	waitTime, maxWait                                                     format.Time
	unpTh                                                                 [recUnparkers]format.ThreadID
	unpT                                                                  [recUnparkers]format.Time
	firsts                                                                [recFirsts]firstAt
}

// blkRecs holds the records, in chunks (a slice grown by doubling would
// copy hundreds of MB), their free slots reused. With a file (Options.Spill)
// only the last recHot chunks stay in memory: the older ones are written
// to a private temporary file of their own (openSpill) and read back a
// record at a time when a blocker is named again, a chunk at a time at the
// end (each). An hour of a loaded Tomcat made 5.6 M records (~450 MB), all
// kept to the end for the groups, and read back mostly once.
type blkRecs struct {
	b *Builder // wakes them (lock)
	// chunks[:cold] are nil: in f, chunk j at j × its size.
	chunks [][]blkRec
	cold   int
	bits   int        // a chunk has 1<<bits records (recChunkBits)
	hot    int        // chunks kept in memory with a file (recHot)
	dir    string     // where f is made ("": os.TempDir())
	toFile bool       // older chunks go to f
	f      *spillFile // made with the first chunk written
	used   int32      // the slots handed out, from 1
	free   []int32    // the slots given back
	made   int        // the chunks made (a chunk written out is the next one's)
	// classes: the records' classes (blkRec.cls), clsIdx their numbers.
	classes []string
	clsIdx  map[string]int32
}

// intern returns the number of class in r.classes.
func (r *blkRecs) intern(class string) int32 {
	k, ok := r.clsIdx[class]
	if !ok {
		if r.clsIdx == nil {
			r.clsIdx = map[string]int32{}
		}
		k = int32(len(r.classes))
		r.classes = append(r.classes, class)
		r.clsIdx[class] = k
	}
	return k
}

// recChunkBits: a chunk has 1<<recChunkBits records; recHot chunks are
// kept in memory with a file (the tests make both small: RecsCold).
var recChunkBits, recHot = 12, 32

// newBlkRecs returns the records of b's fold, in a file in dir when
// toFile (Options.Spill; recsColdDir in the tests).
func newBlkRecs(b *Builder) *blkRecs {
	return &blkRecs{b: b, bits: recChunkBits, hot: recHot, toFile: recsColdDir != "", dir: recsColdDir}
}

// recsColdDir, when set (the tests), gives every fold's records a file in
// it.
var recsColdDir string

const recSize = int64(unsafe.Sizeof(blkRec{}))

// where returns slot i's chunk and its place in it.
func (r *blkRecs) where(i int32) (j, k int) {
	i--
	return int(i >> r.bits), int(i & (1<<r.bits - 1))
}

// get returns the record of slot i (from 1).
func (r *blkRecs) get(i int32) blkRec {
	if j, k := r.where(i); r.chunks[j] != nil {
		return r.chunks[j][k]
	}
	var x blkRec
	r.io(unsafe.Slice(&x, 1), int64(i-1)*recSize, false)
	return x
}

// set writes x to slot i.
func (r *blkRecs) set(i int32, x blkRec) {
	if j, k := r.where(i); r.chunks[j] != nil {
		r.chunks[j][k] = x
		return
	}
	r.io(unsafe.Slice(&x, 1), int64(i-1)*recSize, true)
}

// io reads (or writes) the records xs at off in the file. A record
// written there cannot be lost for the report's sake: the build fails
// (SpillError).
func (r *blkRecs) io(xs []blkRec, off int64, write bool) {
	var err error
	if write {
		_, err = r.f.f.WriteAt(bytesOf(xs), off)
	} else {
		_, err = r.f.readAt(bytesOf(xs), off)
	}
	if err != nil {
		panic(&SpillError{fmt.Errorf("the dormant blockers' records: %w", err)})
	}
}

// take returns a free slot.
func (r *blkRecs) take() int32 {
	if n := len(r.free); n > 0 {
		i := r.free[n-1]
		r.free = r.free[:n-1]
		return i
	}
	if int(r.used)>>r.bits == len(r.chunks) {
		var c []blkRec
		if r.toFile && len(r.chunks)-r.cold >= r.hot {
			// Its memory is the next chunk's: the records an hour of a
			// loaded Tomcat wrote out (~450 MB) were each new memory.
			c = r.evict()
		}
		if c != nil {
			clear(c)
		} else {
			c = make([]blkRec, 1<<r.bits)
			r.made++
		}
		r.chunks = append(r.chunks, c)
	}
	r.used++
	return r.used
}

// evict writes the oldest chunk in memory to the file and returns it, let
// go; a file that cannot be made or written keeps them all in memory (nil).
func (r *blkRecs) evict() []blkRec {
	if r.f == nil {
		f, err := openSpill(r.dir)
		if err != nil {
			r.toFile = false
			return nil
		}
		f.buf = nil // written at places, not appended
		r.f = f
	}
	c := r.chunks[r.cold]
	if _, err := r.f.f.WriteAt(bytesOf(c), int64(r.cold)*int64(len(c))*recSize); err != nil {
		r.toFile = false
		return nil
	}
	r.chunks[r.cold] = nil
	r.cold++
	return c
}

// live is how many records r holds.
func (r *blkRecs) live() int { return int(r.used) - len(r.free) }

// give frees slot i.
func (r *blkRecs) give(i int32) {
	r.set(i, blkRec{})
	r.free = append(r.free, i)
}

// each calls fn for every record in use, a chunk at a time, in the order
// of their slots: a chunk in the file is read whole into buf and written
// back when fn changed a record (it reports so). fn must not read or
// write records through r.
func (r *blkRecs) each(fn func(i int32, x *blkRec) (changed bool)) {
	var buf []blkRec
	for j := range r.chunks {
		c := r.chunk(j, &buf)
		base := int32(j<<r.bits) + 1
		changed := false
		for k := range c {
			i := base + int32(k)
			if i > r.used {
				break
			}
			if c[k].obj != 0 && fn(i, &c[k]) {
				changed = true
			}
		}
		if changed {
			r.putChunk(j, c)
		}
	}
}

// chunk returns chunk j: in memory, or read from the file into *buf
// (made when nil).
func (r *blkRecs) chunk(j int, buf *[]blkRec) []blkRec {
	if c := r.chunks[j]; c != nil {
		return c
	}
	if *buf == nil {
		*buf = make([]blkRec, 1<<r.bits)
	}
	r.io(*buf, int64(j)<<r.bits*recSize, false)
	return *buf
}

// putChunk writes c, chunk j changed, back to the file when it is there.
func (r *blkRecs) putChunk(j int, c []blkRec) {
	if r.chunks[j] == nil {
		r.io(c, int64(j)<<r.bits*recSize, true)
	}
}

// Owned firsts. A thread's first wait on each lock is kept in the thread
// (threadAgg.firsts) until it ends: a server's pool threads live to the
// end, and each kept one for every object it ever parked on (~200 MB of
// the fold's peak for an hour of a loaded Tomcat). A blocker parked on by
// one thread alone (lockAgg.solo) holds that thread's first wait in its
// record when it sleeps, and the thread lets its own go (its lock's bit in
// aggregator.owned, read as it merges its firsts and as it ends). Woken,
// the blocker's Lock has the first in its waitedBy (the thread's may come
// again as it ends: a thread's earliest counts, lockAgg.firstsOf).

const (
	soloNone = iota
	soloOne
	soloMany
)

// parkedBy notes a park by thread th from since on a, a blocker.
func (a *lockAgg) parkedBy(th format.ThreadID, since format.Time) {
	switch {
	case a.solo == soloNone:
		a.solo, a.soloTh, a.soloAt = soloOne, th, since
	case a.solo == soloOne && a.soloTh == th:
		a.soloAt = min(a.soloAt, since)
	default:
		a.solo = soloMany
	}
}

// isOwned reports whether the record of lock number n holds its one
// thread's first wait.
func (ag *aggregator) isOwned(n int32) bool {
	w := int(n >> 6)
	return w < len(ag.owned) && ag.owned[w]&(1<<(n&63)) != 0
}

// setOwned sets (or clears) lock number n's bit of ag.owned.
func (ag *aggregator) setOwned(n int32, on bool) {
	w := int(n >> 6)
	if on {
		for len(ag.owned) <= w {
			ag.owned = append(ag.owned, 0)
		}
		ag.owned[w] |= 1 << (n & 63)
	} else if w < len(ag.owned) {
		ag.owned[w] &^= 1 << (n & 63)
	}
}

// noDormant, when set (the tests), keeps every blocker a Lock; noReuse
// makes every lock's and object's memory anew (freeList).
var noDormant, noReuse bool

// fedPark notes that a park on a, a blocker, was fed: it may be dormant
// after the feed (Builder.sleepBlockers).
func (ag *aggregator) fedPark(a *lockAgg) {
	if ag.recs == nil || a.listed || a.l.Waits > GroupMaxWaits || a.c != nil {
		return
	}
	a.listed = true
	ag.sleepy = append(ag.sleepy, a)
}

// dormant reports whether a may be a record: a blocker's, summed in
// place, waited on at most GroupMaxWaits times at one wait site, with at
// most recFirsts waiting threads ended and recUnparkers unparkers,
// nothing in a spill, and no figure a record does not hold.
func (a *lockAgg) dormant() bool {
	l := a.l
	if l.Kind != Blocker || l.Object == 0 || a.src != l || l.Waits < 1 || l.Waits > GroupMaxWaits {
		return false
	}
	if a.c != nil || !a.ws1On || len(a.wsites.log)+len(a.wsites.ents) != 0 || a.waitedByRuns != nil ||
		len(a.waitedBy) > recFirsts || a.unparked.many != nil || len(a.unparked.few) > recUnparkers {
		return false
	}
	if w := &a.ws1; w.Waits != l.Waits || w.TimedOut != l.TimedOut || w.StillWaiting != l.StillWaiting ||
		w.Time != l.WaitTime || w.BeforeAttach != l.WaitsBeforeAttach {
		return false
	}
	return l.Contentions == 0 && l.Blocked == 0 && l.MaxBlocked == 0 && l.Open == 0 && l.OpenTime == 0 &&
		l.Waiters == nil && l.Owners == nil && l.Sites == nil && l.HeldAt == nil && l.OwnerUnknown == 0 &&
		l.NoUnpark == 0 && l.NoUnparkInterrupted == 0 && l.NoUnparkSpurious == 0 && l.LeftLocked == nil &&
		l.BeforeEvents == 0 && l.BeforeAttach == 0 && l.OwnerUnknownTime == 0 && l.OwnerChanges == nil &&
		l.ownBase == 0 && l.ownSpill == nil && l.ownAt == nil && l.ownNeed == nil && l.ownersSpill == nil &&
		l.ownersN == 0 && l.ownersBlamed == 0 && l.spilt == nil && l.Ambiguous == 0 && l.WaitSites == nil &&
		l.WaitedBy == nil && l.UnparkedBy == nil && l.Notifies == 0 && l.NotifyAlls == 0 &&
		l.NotifiesWokeNobody == 0 && l.MaxNotifyAllBurst == 0 && l.Acquires == 0 && l.Releases == 0 && l.Hold == nil
}

// sleepBlockers makes dormant the blockers fed a park since the last
// call whose parks are all fed and none open (the fold's count of them,
// lstate.parks, is the Lock's Waits) and which may be records.
func (b *Builder) sleepBlockers() {
	ag := b.ag
	if len(ag.sleepy) == 0 {
		return
	}
	var pinned map[*lockAgg]bool
	if len(ag.befores) > 0 {
		// A wait counted before the attach is settled at the end on its
		// aggregate (aggregator.settle).
		pinned = map[*lockAgg]bool{}
		for _, bf := range ag.befores {
			pinned[bf.a] = true
		}
	}
	for i, a := range ag.sleepy {
		ag.sleepy[i] = nil
		a.listed = false
		if pinned[a] || !a.dormant() {
			continue
		}
		o := b.objFind(a.l.Object)
		if o == nil || o.rec != 0 {
			continue
		}
		ls := o.ls[Blocker]
		if ls == nil || ls.l != a.l || int(ls.parks) != a.l.Waits || ls.clock != 0 || ls.lockState != nil || a.l.Class != o.class {
			continue
		}
		b.sleep(o, ls, a)
	}
	ag.sleepy = ag.sleepy[:0]
	if b.deadLocks > 1024 && b.deadLocks > len(b.m.Locks)/2 {
		b.dropDead()
	}
}

// sleep writes a, the aggregate of ls, o's blocker, to a record and lets
// them go.
func (b *Builder) sleep(o *objFold, ls *lstate, a *lockAgg) {
	ag, l := b.ag, a.l
	i := ag.recs.take()
	r := a.record()
	r.cls = ag.recs.intern(o.class) // settled at the end (sleepAll)
	ag.recs.set(i, r)
	if r.solo == soloOne {
		ag.setOwned(a.n, true)
	}
	o.rec, o.ls[Blocker] = i, nil
	if o.ls == [len(o.ls)]*lstate{} && !o.parked && o.acqParked == 0 {
		b.forget(l.Object, o, i)
	}
	k := uint64(l.Object)<<2 | uint64(Blocker)
	delete(ag.by, k)
	if ag.near != nil {
		if s := &ag.near[probeHash(k+1, 64-nearAggBits)]; s.a == a {
			*s = aggNear{}
		}
	}
	if ag.last == a {
		ag.last = nil
	}
	*ag.byN.at(a.n) = nil
	ag.recOf.reach(a.n + 1)
	*ag.recOf.at(a.n) = i
	delete(b.m.byObject, lockOf(l.Object, Blocker))
	l.Waits = -1 // dead: dropDead takes it out of Model.Locks
	b.deadLocks++
	if b.lockSlab == nil && !noReuse {
		b.lsFree.put(ls)
		ag.aggFree.put(a)
	}
}

// record returns a's record (a.dormant()).
func (a *lockAgg) record() blkRec {
	l := a.l
	r := blkRec{obj: l.Object, n: a.n, site: a.ws1.Stack,
		waits: uint8(l.Waits), notified: uint8(l.Notified), timedOut: uint8(l.TimedOut), interrupted: uint8(l.Interrupted),
		spurious: uint8(l.Spurious), still: uint8(l.StillWaiting), idle: uint8(l.IdleWaits), before: uint8(l.WaitsBeforeAttach),
		waitTime: l.WaitTime, maxWait: l.MaxWait}
	for _, e := range a.unparked.few {
		r.unpTh[r.nUnp], r.unpN[r.nUnp], r.unpT[r.nUnp] = e.th, uint8(e.u.n), e.u.blamed
		r.nUnp++
	}
	r.nFirst = uint8(copy(r.firsts[:], a.waitedBy))
	r.solo = a.solo
	if a.solo == soloOne {
		// Its one thread's first wait held here (owned firsts), beside
		// the one it gave as it ended, if it did.
		switch {
		case r.nFirst == 0:
			r.firsts[0], r.nFirst = firstAt{a.soloTh, a.soloAt}, 1
		case r.firsts[0].th == a.soloTh:
			r.firsts[0].at = min(r.firsts[0].at, a.soloAt)
		default:
			r.solo = soloMany // another thread's there: not held
		}
	}
	return r
}

// forget lets o, the fold's entry of obj, go: obj's blocker is dormant,
// in record i, and obj is nothing else to the fold. objFind makes it
// again from the record when obj is named again (objBack). An entry
// (objFold, 64 bytes, and its slot in Builder.objs) for each object ever
// parked on was ~470 MB of an hour of a loaded Tomcat's 5.6 M.
func (b *Builder) forget(obj format.ObjectID, o *objFold, i int32) {
	b.objs.del(uint64(obj))
	if n := &b.objNear[objSlot(obj)]; n.o == o {
		*n = objNear{}
	}
	if b.lastFold == o {
		b.lastFold, b.lastObj = nil, 0
	}
	b.dormObjs.put(obj, i)
	if b.objSlab == nil && b.m.byNum == nil && !noReuse {
		b.objFree.put(o)
	}
}

// objBack makes the fold's entry of obj again, whose blocker is dormant
// in record i: its class the record's, numbered anew (Model.Object's
// numbers are a Reuse build's, which has no records).
func (b *Builder) objBack(obj format.ObjectID, i int32) *objFold {
	b.dormObjs.del(obj)
	rs := b.ag.recs
	o := b.objFree.take()
	o.class, o.rec = rs.classes[rs.get(i).cls], i
	b.nobjs++
	o.num = b.nobjs
	p, _ := b.objs.find(uint64(obj))
	*p = o
	b.objNear[objSlot(obj)] = objNear{obj, o}
	return o
}

// wakeLoose makes obj's blocker, dormant in record i and grouped with no
// other (aggregator.locks), a Lock again: its object's fold entry made
// again from the record if it was forgotten (dormObjs is let go by then).
func (b *Builder) wakeLoose(obj format.ObjectID, i int32) {
	if b.objFind(obj) == nil {
		b.objBack(obj, i)
	}
	b.lock(obj, Blocker)
}

// indexLocks ends the fold's way of finding a lock and its aggregate by
// its object alone (Model.foldObjs, aggregator.fold): Model.byObject and
// aggregator.by made from the Locks and aggregates alive.
func (b *Builder) indexLocks() {
	m, ag := b.m, b.ag
	if m.foldObjs == nil {
		return
	}
	m.foldObjs, ag.fold = nil, nil
	if !m.locksInObjs {
		for _, l := range m.Locks {
			if l.Waits >= 0 { // not dead (sleep)
				m.byObject[lockOf(l.Object, l.Kind)] = l
			}
		}
	}
	for a := range ag.byN.all() {
		if a != nil {
			ag.by[uint64(a.l.Object)<<2|uint64(a.l.Kind)] = a
		}
	}
}

// dropDead takes the Locks of dormant blockers out of Model.Locks.
func (b *Builder) dropDead() {
	b.m.Locks = slices.DeleteFunc(b.m.Locks, func(l *Lock) bool {
		if l.Waits >= 0 {
			return false
		}
		if b.lockSlab == nil && !noReuse {
			b.lockFree.put(l) // nothing points at it now
		}
		return true
	})
	b.deadLocks = 0
}

// wakeRec makes ls, o's blocker's new fold state and Lock, what o's record
// held, and its aggregate again, and frees the record.
func (b *Builder) wakeRec(o *objFold, ls *lstate) {
	ag := b.ag
	r := ag.recs.get(o.rec)
	a := r.agg(ls.l)
	a.sp, a.ag = ag.ownerSpill, ag
	ls.parks = int32(r.waits)
	if ag.fold != nil {
		ls.agg = a
	} else {
		ag.by[uint64(ls.l.Object)<<2|uint64(Blocker)] = a
	}
	*ag.byN.at(r.n) = a
	*ag.recOf.at(r.n) = 0
	ag.setOwned(r.n, false)
	ag.recs.give(o.rec)
	o.rec = 0
}

// firstToRec gives thread th's first wait (at at) to the record of the
// dormant blocker of number n: made a Lock again when it has no room (a
// second thread that parked on it ended, or a thread brought back after
// it ended gives its firsts again).
func (ag *aggregator) firstToRec(n int32, th format.ThreadID, at format.Time) {
	rs := ag.recs
	i := *ag.recOf.at(n)
	if r := rs.get(i); int(r.nFirst) < len(r.firsts) {
		r.firsts[r.nFirst] = firstAt{th, at}
		r.nFirst++
		rs.set(i, r)
		return
	}
	ag.wakeN(n).gotFirst(firstAt{th, at})
}

// gotFirst gives a a thread's first wait.
func (a *lockAgg) gotFirst(f firstAt) {
	a.waitedBy = append(a.waitedBy, f)
	a.addedFirst()
}

// wakeN makes the dormant blocker of number n a Lock again and returns
// its aggregate.
func (ag *aggregator) wakeN(n int32) *lockAgg {
	ag.recs.b.lock(ag.recs.get(*ag.recOf.at(n)).obj, Blocker)
	return *ag.byN.at(n)
}

// sleepAll makes dormant, at the end, every blocker that may be a
// record (its parks are all fed then) and drops the dead Locks: Finalize,
// before the aggregation ends (aggregator.locks groups them, settling
// their classes).
func (b *Builder) sleepAll() {
	ag := b.ag
	r := ag.recs
	if r == nil {
		return
	}
	for _, a := range ag.by {
		if a.l.Kind == Blocker && !a.listed {
			a.listed = true
			ag.sleepy = append(ag.sleepy, a)
		}
	}
	b.sleepBlockers()
	b.dropDead()
	b.lockFree.s, b.lsFree.s, ag.aggFree.s, b.objFree.s = nil, nil, nil, nil
	// No event names an object again: the forgotten ones' index goes
	// (64 MB of an hour of a loaded Tomcat's, at the groups' peak).
	b.dormObjs = recTab{}
}

// settle sets x's class, a record's at the end, to its object's now when
// the fold still has an entry of the object (an ObjectClass line may come
// after the park; the others' is the one they were forgotten with, and
// objBack makes the entry again for a later line): it reports whether it
// changed. groupWaits settles each record as it counts it.
func (r *blkRecs) settle(x *blkRec) bool {
	if p := r.b.objs.lookup(uint64(x.obj)); p != nil {
		if c := r.intern((*p).class); c != x.cls {
			x.cls = c
			return true
		}
	}
	return false
}

// keepRecs gives the model the records left, the groups' members, kept
// (object << 32 | slot, from groupWaits): sorted by object (recBy), the
// Builder no longer theirs.
func (ag *aggregator) keepRecs(kept []uint64) {
	r := ag.recs
	ag.recs, ag.recOf = nil, numTab[int32]{}
	if len(kept) == 0 {
		return
	}
	r.b = nil
	slices.Sort(kept)
	ag.m.recs, ag.m.recBy = r, kept
}

// rec returns the record of obj's blocker, ok false when it has none.
func (m *Model) rec(obj format.ObjectID) (r blkRec, ok bool) {
	if i := m.recSlot(obj); i != 0 {
		return m.recs.get(i), true
	}
	return r, false
}

// hasRec reports whether obj's blocker is a record.
func (m *Model) hasRec(obj format.ObjectID) bool { return m.recSlot(obj) != 0 }

// recSlot returns the slot of obj's blocker's record, 0 when it has none.
func (m *Model) recSlot(obj format.ObjectID) int32 {
	i, _ := slices.BinarySearch(m.recBy, uint64(obj)<<32)
	if i == len(m.recBy) || m.recBy[i]>>32 != uint64(obj) {
		return 0
	}
	return int32(uint32(m.recBy[i]))
}

// recLock returns a Lock of obj's blocker made from its record, nil when
// it has none: what the aggregation would have finished it as.
func (m *Model) recLock(obj format.ObjectID) *Lock {
	r, ok := m.rec(obj)
	if !ok {
		return nil
	}
	a := r.agg(&Lock{Object: obj, Kind: Blocker, Class: m.recs.classes[r.cls]})
	l := a.finish()
	l.Hold = m.holdFigures(obj, Blocker)
	return l
}

// figures sets the wait figures of l, r's blocker's Lock.
func (r *blkRec) figures(l *Lock) {
	l.Waits, l.Notified, l.TimedOut, l.Interrupted = int(r.waits), int(r.notified), int(r.timedOut), int(r.interrupted)
	l.Spurious, l.StillWaiting, l.IdleWaits, l.WaitsBeforeAttach = int(r.spurious), int(r.still), int(r.idle), int(r.before)
	l.WaitTime, l.MaxWait = r.waitTime, r.maxWait
}

// waitSite returns the figures of r's one wait site: those of l, its
// Lock (figures), as dormant checked.
func (r *blkRec) waitSite(l *Lock) WaitSite {
	return WaitSite{Stack: r.site, Waits: l.Waits, TimedOut: l.TimedOut, StillWaiting: l.StillWaiting, Time: l.WaitTime, BeforeAttach: l.WaitsBeforeAttach}
}

// agg returns a lockAgg holding what r holds, summing into l (the
// blocker's Lock, its Object, Kind and Class set): a's number is r's,
// its spill and aggregator unset.
func (r *blkRec) agg(l *Lock) *lockAgg {
	r.figures(l)
	a := &lockAgg{n: r.n, l: l, src: l, ws1On: true,
		ws1: waitAgg(r.waitSite(l)), solo: r.solo}
	if r.solo == soloOne {
		a.soloTh, a.soloAt = r.firsts[0].th, r.firsts[0].at
	}
	if r.nFirst > 0 {
		a.waitedBy = append([]firstAt(nil), r.firsts[:r.nFirst]...)
	}
	for j := range r.nUnp {
		a.unparked.few = append(a.unparked.few, unparkEnt{r.unpTh[j], unparkAgg{int(r.unpN[j]), r.unpT[j]}})
	}
	return a
}
