package model

import (
	"cmp"
	"slices"
	"strings"

	"github.com/DataDog/sketches-go/ddsketch"

	"orca/internal/format"
	"orca/internal/reader"
)

// Hold times (issue 36, item 3): how long the holders of a contended lock
// held it. A hold begins when a thread gets a monitor or a
// java.util.concurrent lock after waiting for it (a MonitorContendedEntered,
// the end of a park in a lock's acquire) while other threads are still
// blocked on it, and ends when the next thread gets it after waiting, if the
// holder's release is what let that thread in (the owner it waited for last:
// Interval.Other, or the unparker of its park). While others wait, the
// holder's release lets one of them in, so that next acquisition ends the
// hold; the agent sees no monitor exit, so a hold also counts the
// microseconds the next thread took to wake.
//
// Left out, because their beginning or end is not seen: a hold begun
// without waiting or with nobody else waiting (an uncontended enter has no
// event); one that a thread the waiters did not name took over (a barging
// thread); one still going on at the end. A holder that released and took
// the lock again while no one waited, not seen, is one hold. A read-write
// lock has none: its readers hold it together.
//
// The fold computes them as its events come, from what it keeps anyway
// (the threads blocked on each monitor, the parks on each j.u.c. lock and
// who ended them): constant work an acquisition, and per lock and holding
// stack a distribution of bounded size (holdDist). The report's figures
// (Lock.Hold) group the stacks by call site when the locks are aggregated.

// Hold is the distribution of a lock's hold times: all of them and per
// holding site. Its percentiles are exact for at most ExactHolds holds and
// within 1 % (relative) above (DDSketch); the count, mean and max are
// always exact.
type Hold struct {
	HoldFigures
	// Sites: per call site where the holder took the lock (the stack of
	// its contended enter or acquire, grouped as Lock.Sites), most total
	// hold time first.
	Sites []HoldSite
}

// HoldSite is the hold times of the holders that took a lock at Stack.
type HoldSite struct {
	Stack StackID
	HoldFigures
}

// HoldFigures summarise a set of hold times.
type HoldFigures struct {
	Count    int
	Total    format.Time // their sum, exact
	P50, P99 format.Time
	Max      format.Time
}

// Mean returns Total/Count.
func (f HoldFigures) Mean() format.Time {
	if f.Count == 0 {
		return 0
	}
	return f.Total / format.Time(f.Count)
}

// ExactHolds is how many hold times a distribution keeps exactly: up to
// this many (per lock or per site) its percentiles are exact; past it they
// come from a DDSketch of relative accuracy HoldAccuracy.
//
// Why a sketch: an hour of a busy server (~100 000 events/s) can make tens
// of millions of contended acquisitions, 8 bytes each if kept to sort; a
// DDSketch keeps one counter per 2 % wide bucket of values (from a
// nanosecond to an hour at most about 1 450, typically a few hundred),
// whatever the count, and two merge exactly (the sites of one lock into the lock). DataDog's
// sketches-go is its reference implementation, maintained and fuzzed; a
// hand-written quantile sketch would be code to prove.
const ExactHolds = 1024

// HoldAccuracy is the relative accuracy of the percentiles of more than
// ExactHolds holds.
const HoldAccuracy = 0.01

// holdDist is a distribution of hold times (ns): exact values while there
// are at most ExactHolds, then a DDSketch.
type holdDist struct {
	n        int
	sum, max format.Time
	vals     []format.Time
	sk       *ddsketch.DDSketch
}

func newSketch() *ddsketch.DDSketch {
	sk, err := ddsketch.NewDefaultDDSketch(HoldAccuracy)
	if err != nil {
		panic(err) // only for an accuracy outside (0, 1)
	}
	return sk
}

func (d *holdDist) add(v format.Time) {
	d.n++
	d.sum += v
	d.max = max(d.max, v)
	if d.sk == nil && len(d.vals) < ExactHolds {
		d.vals = append(d.vals, v)
		return
	}
	d.sketch()
	d.sk.Add(float64(v)) // an error only for a value it cannot index: none here
}

// sketch moves d's exact values into its sketch.
func (d *holdDist) sketch() {
	if d.sk != nil {
		return
	}
	d.sk = newSketch()
	for _, x := range d.vals {
		d.sk.Add(float64(x))
	}
	d.vals = nil
}

// merge adds o's holds to d; o is unchanged.
func (d *holdDist) merge(o *holdDist) {
	d.n += o.n
	d.sum += o.sum
	d.max = max(d.max, o.max)
	if d.sk == nil && o.sk == nil && len(d.vals)+len(o.vals) <= ExactHolds {
		d.vals = append(d.vals, o.vals...)
		return
	}
	d.sketch()
	for _, x := range o.vals {
		d.sk.Add(float64(x))
	}
	if o.sk != nil {
		d.sk.MergeWith(o.sk) // the same mapping: cannot fail
	}
}

// figures returns d's count, total, percentiles and max. The percentile p
// is the nearest rank's: the smallest hold with at least p % of the holds
// at or below it (the p99 of 50 holds is their max). A sketch is asked for
// the same rank: DDSketch returns the value of rank q·(n−1) rounded down,
// so it is asked for that rank and a half.
func (d *holdDist) figures() HoldFigures {
	f := HoldFigures{Count: d.n, Total: d.sum, Max: d.max}
	if d.n == 0 {
		return f
	}
	rank := func(p int) int { return max((p*d.n+99)/100-1, 0) } // ceil(p·n/100) − 1
	if d.sk == nil {
		vs := slices.Clone(d.vals)
		slices.Sort(vs)
		f.P50, f.P99 = vs[rank(50)], vs[rank(99)]
		return f
	}
	at := func(p int) format.Time {
		v, err := d.sk.GetValueAtQuantile(min((float64(rank(p))+0.5)/float64(d.n-1), 1))
		if err != nil {
			return 0
		}
		return min(max(format.Time(v+0.5), 0), d.max)
	}
	f.P50, f.P99 = at(50), at(99)
	return f
}

// lockHolds are a lock's hold times as the fold made them, by the raw
// stack where the holder took the lock (grouped by call site only when
// the figures are made: Model.holdFigures).
type lockHolds struct {
	by map[StackID]*holdDist
}

// holdState is the fold's state of a lock's holds.
type holdState struct {
	// holder took the lock at since, at stack, while others waited: its
	// hold is in progress (0: none is).
	holder format.ThreadID
	since  format.Time
	stack  StackID
	// released: the holder let the lock go at releasedAt, waiting on it
	// (Object.wait on the monitor, Condition.await on a condition of the
	// j.u.c. lock: Model.Releases), and has not taken it back: the hold
	// ends there if the next thread it let in takes it.
	released   bool
	releasedAt format.Time
	// parked: the threads parked in an acquire of this j.u.c. lock now;
	// shared: those of them in a shared acquire (a read lock's: a hold of
	// many at once, which begins no hold).
	parked int
	shared []format.ThreadID
	acc    *lockHolds
	// last: acc's distribution of the stack lastStack, the one added to
	// last (a lock's holds come from a few stacks: one look-up less).
	last      *holdDist
	lastStack StackID
	// juc: the lock is a JUCLock (Builder.lock), known without a read
	// of the Lock (a miss of the cache at each took).
	juc bool
	// rw: the lock's class, rwOf, is a ReentrantReadWriteLock's (known
	// once rwOf is set: a class is looked at once, not at every took).
	rwOf        string
	rw, rwKnown bool
	// clock: the latest acquisition that took (below) has seen; none is
	// folded before it.
	clock format.Time
}

// readWrite reports whether class, the lock's, is a
// ReentrantReadWriteLock's or a StampedLock (readers hold it together).
func (h *holdState) readWrite(class string) bool {
	if !h.rwKnown || class != h.rwOf {
		h.rwOf, h.rw, h.rwKnown = class, strings.Contains(class, "ReentrantReadWriteLock") || strings.Contains(class, "/StampedLock;"), true
	}
	return h.rw
}

// took says that thread th got the lock ls at at, after waiting at stack,
// let in by releaser's release (0: unknown); others: threads still wait
// for it. It ends the hold in progress if releaser is its holder, and
// begins th's if others wait and th holds it alone.
func (b *Builder) took(ls *lstate, th, releaser format.ThreadID, stack StackID, at format.Time, others, alone bool) {
	if b.noLockFigures {
		return // no hold times (Options.NoLockFigures)
	}
	h := &ls.hold
	if h.juc && h.readWrite(ls.l.Class) {
		// Its readers hold it together, and the recording does not say
		// which parks were a reader's (a park naming the writer as owner
		// has no mode): a hold of one reader would end at the next.
		return
	}
	// The holds of a lock follow one another, so they add up to at most
	// the recording (modeltest's holds): an acquisition behind the lock's
	// latest one is taken at it. Lines of two threads out of order by a
	// little end a hold at its beginning (nothing, as before: below) and
	// begin the next one there; a thread whose lines jumped ahead and
	// were folded at its latest time (Event: "time goes back") makes no
	// hold that overlaps the one after it. FuzzModelText's
	// holds-overlap-thread-ahead: a thread's ContendedEntered at 60 s
	// among lines at 11-13 s folded its later lines at 60 s; the holds of
	// 0000BEEF ended by them, [11 s, 60 s] and [12.5 s, 60 s], added up
	// to 96.5 s of a 60 s recording.
	at = max(at, h.clock)
	h.clock = at
	if h.holder != 0 && h.holder != th && releaser == h.holder {
		if h.acc == nil {
			if b.m.holds == nil {
				b.m.holds = map[lockKey]*lockHolds{}
			}
			h.acc = &lockHolds{by: map[StackID]*holdDist{}}
			b.m.holds[lockOf(ls.l.Object, ls.l.Kind)] = h.acc
		}
		d := h.last
		if d == nil || h.lastStack != h.stack {
			if d = h.acc.by[h.stack]; d == nil {
				d = &holdDist{}
				h.acc.by[h.stack] = d
			}
			h.last, h.lastStack = d, h.stack
		}
		// The release that let the next one in: the holder's wait on the
		// lock, else (a monitor's exit, an unlock: no event) the next
		// one's acquisition, its wake-up included.
		end := at
		if h.released {
			end = min(end, h.releasedAt)
		}
		// Lines of two threads can be out of order by a little: never
		// less than nothing.
		d.add(max(end-h.since, 0))
	}
	h.holder, h.released = 0, false
	if others && alone {
		h.holder, h.since, h.stack = th, at, stack
	}
}

// blocks says thread th waits for the lock again: it does not hold it, so
// a hold of its in progress ended unseen (it released the lock and nobody
// the fold saw got it).
func (h *holdState) blocks(th format.ThreadID) {
	if h.holder == th {
		h.holder, h.released = 0, false
	}
}

// releases says thread th began to wait on the lock at at (Model.Releases:
// it let it go): when th holds it, its hold ends there if the next thread
// gets it before th has it back.
func (h *holdState) releases(th format.ThreadID, at format.Time) {
	if h.holder == th && !h.released {
		h.released, h.releasedAt = true, at
	}
}

// retakes says thread th's wait on the lock ended and th holds it again
// (an Object.wait returns in the monitor; a condition's park ends and th
// takes the lock back, or parks in its acquire: blocks): its hold goes
// on.
func (h *holdState) retakes(th format.ThreadID) {
	if h.holder == th {
		h.released = false
	}
}

// tookMonitor is took for a contention of ts on a monitor that ended
// normally at at: ts entered it.
func (b *Builder) tookMonitor(ts *tstate, o *openIv, at format.Time) {
	b.took(o.ls, ts.id, o.iv.Other, o.iv.Stack, at, len(o.ls.blocked) > 0, true)
}

// parkedOn says ts parked in an acquire of the j.u.c. lock ls.
func (b *Builder) parkedOn(ls *lstate, ts *tstate, ev *reader.Event) {
	h := &ls.hold
	h.blocks(ts.id)
	h.parked++
	if ev.Mode == format.ModeShared {
		h.shared = append(h.shared, ts.id)
	}
}

// unparkedFrom ends a park of ts in an acquire of a j.u.c. lock at at
// (after Builder.endParked). Unless it timed out or was interrupted, or
// its end is missing (forced) or still to come (open), ts got the lock
// then (a re-park, the lock lost to a barging thread, undoes that:
// blocks), let in by the thread whose unpark ended the park, or else by
// its owner when it parked.
func (b *Builder) unparkedFrom(ts *tstate, o *openIv, at format.Time, how ending) {
	h := &o.ls.hold
	h.parked = max(h.parked-1, 0)
	alone := true
	if i := slices.Index(h.shared, ts.id); i >= 0 {
		h.shared = slices.Delete(h.shared, i, i+1)
		alone = false
	}
	if how != endNormal || ts.body.parkHow == format.ParkEndTimeout || ts.body.parkHow == format.ParkEndInterrupted {
		return
	}
	releaser := o.iv.Other
	if releaser == 0 {
		releaser = o.iv.First
	}
	b.took(o.ls, ts.id, releaser, o.iv.Stack, at, h.parked > 0, alone)
}

// holdFigures returns the hold times of the lock (obj, kind), per call
// site (SiteStack), or nil when none was measured.
func (m *Model) holdFigures(obj format.ObjectID, kind LockKind) *Hold {
	acc := m.holds[lockOf(obj, kind)]
	if acc == nil {
		return nil
	}
	var all holdDist
	sites := map[StackID]*holdDist{}
	for stack, d := range acc.by {
		site := m.SiteStack(stack)
		s := sites[site]
		if s == nil {
			s = &holdDist{}
			sites[site] = s
		}
		s.merge(d)
		all.merge(d)
	}
	h := &Hold{HoldFigures: all.figures()}
	for site, d := range sites {
		h.Sites = append(h.Sites, HoldSite{Stack: site, HoldFigures: d.figures()})
	}
	slices.SortFunc(h.Sites, func(a, b HoldSite) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Stack, b.Stack))
	})
	return h
}
