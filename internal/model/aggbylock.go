package model

import "orca/internal/format"

// The seal's aggregation lock by lock (issue 34). feed comes to the
// contentions and waits in the order of the threads, and each added to its
// lock's figures, tables and logs at once: a lock's few hot lines (940
// locks at 1 GB) did not stay in the cache from one contention of it to
// the next, and each contention's first touch of them was a miss (the
// "Why only -20 %" of docs/perf/2026-12-01-agg-dense.md). Now feed writes
// each as a record (aggRec) into a buffer; sumRecs sorts the buffer by the
// lock's number (a counting sort) and adds the records lock by lock, its
// figures and its tables' logs in the cache from one to the next. What
// depends on the thread's order (a j.u.c. acquire's re-parks, a
// Semaphore.acquire's segments, a wait's segments, the thread's firsts,
// its blame log) is still done by feed. Every figure is a sum, a maximum
// or a flag: added in another order, the same.

// aggRec is a contention or a wait as feed writes it, for sumRecs: 64
// bytes.
type aggRec struct {
	since format.Time // its start (Since): the befores' (aggregator.before)
	// d: a contention's length; a wait's time to add (a later segment's:
	// its own).
	d format.Time
	// o1, d1: a contention's first blame span, its owner and length (more
	// in aggregator.more when nSpans > 1). A park: o1 its unparker. A
	// wait: d1 its length so far (Lock.MaxWait).
	o1  format.ThreadID
	d1  format.Time
	end format.ThreadID // a contention's owner it is counted to (blamed once)
	n   int32           // the lock's number (lockAgg.n)
	// site: the contention's or wait's call site (Model.SiteStack).
	site StackID
	// more: the index in aggregator.more of the spans after the first;
	// nSpans: how many spans in all.
	more, nSpans int32
	kind         uint8
	flags        uint8
	wake         Wake
}

// aggRec.kind.
const (
	recContention = iota // a monitor's, a j.u.c. lock's or a Semaphore's
	recWait              // an Object.wait's segment
	recPark              // a park not in a j.u.c. lock's acquire
)

// aggRec.flags.
const (
	recAttach  = 1 << iota // begun before the attach (Model.BeforeStart when fed)
	recEvents              // a contention begun before the events (Interval.BeforeEvents)
	recOpen                // a contention still going on at the end
	recHeld                // a contention that entered the monitor at its site
	recUnknown             // a contention whose owner is unknown (Lock.OwnerUnknown)
	recCont                // a wait's later segment: its time alone
	recIdle                // a park of an idle thread (Lock.IdleWaits)
)

// recSpan is a blame span after a contention's first: its owner and length.
type recSpan struct {
	owner format.ThreadID
	d     format.Time
}

// recBatch is how many records feed writes before they are summed: ~a
// seal's (sealEvery events: ~16 000 at 1 GB), 2 MB with their sorted
// copy (1 << 15 gave c1G's report a peak RSS ~9 MB over main's in four
// runs, and no share of the profile clearly less). A variable: the
// model's tests sum every few (export_test.go).
var recBatch = 1 << 14

// rec appends a record of kind on the lock of number n at site, begun at
// since, and returns it to fill: valid until the next rec.
func (ag *aggregator) rec(n int32, kind uint8, site StackID, since format.Time) *aggRec {
	if ag.recs == nil {
		ag.recs = make([]aggRec, 0, recBatch+recBatch/8)
	}
	var flags uint8
	if ag.m.BeforeStart(since) {
		flags = recAttach
	}
	ag.recs = append(ag.recs, aggRec{since: since, n: n, site: site, kind: kind, flags: flags})
	return &ag.recs[len(ag.recs)-1]
}

// recSpans sets the blame spans of r, a contention's: ss, every one (an
// empty one names its owner in the lock's table too).
func (ag *aggregator) recSpans(r *aggRec, ss []OwnerSpan) {
	r.nSpans = int32(len(ss))
	if len(ss) == 0 {
		return
	}
	r.o1, r.d1 = ss[0].Owner, ss[0].End-ss[0].Start
	if len(ss) > 1 {
		r.more = int32(len(ag.more))
		for _, sp := range ss[1:] {
			ag.more = append(ag.more, recSpan{sp.Owner, sp.End - sp.Start})
		}
	}
}

// sumRecs adds the records feed and endThread wrote to their locks, lock
// by lock (each lock's in the order written), and empties the buffers.
func (ag *aggregator) sumRecs() {
	ag.sumFirsts()
	recs := ag.recs
	if len(recs) == 0 {
		return
	}
	// A counting sort by the lock's number, stable: the records copied
	// in order (their indexes sorted, each record read through its index
	// was a miss: 2 s of c1G).
	if cap(ag.recSorted) < len(recs) {
		ag.recSorted = make([]aggRec, cap(recs))
	}
	sorted := ag.recSorted[:len(recs)]
	byLock(ag, recs, sorted, func(r *aggRec) int32 { return r.n })
	var a *lockAgg
	for i := range sorted {
		r := &sorted[i]
		if a == nil || a.n != r.n {
			a = ag.byN[r.n]
			ag.recent.next()
		}
		switch r.kind {
		case recContention:
			ag.sumContention(a, r)
		case recWait:
			ag.sumWait(a, r)
		case recPark:
			ag.sumPark(a, r)
		}
	}
	ag.recs, ag.more = recs[:0], ag.more[:0]
}

// byLock copies src to dst sorted by their lock's number, lockOf (a
// counting sort, stable).
func byLock[R any](ag *aggregator, src, dst []R, lockOf func(*R) int32) {
	nl := len(ag.byN)
	if cap(ag.recAt) < nl+1 {
		ag.recAt = make([]int32, nl+1, 2*nl+1)
	}
	at := ag.recAt[:nl+1]
	clear(at)
	for i := range src {
		at[lockOf(&src[i])+1]++
	}
	for i := 1; i <= nl; i++ {
		at[i] += at[i-1]
	}
	for i := range src {
		k := lockOf(&src[i])
		dst[at[k]] = src[i]
		at[k]++
	}
}

// sumFirsts adds the threads' firsts flushFirsts wrote to their locks'
// waiters and waitedBy, lock by lock.
func (ag *aggregator) sumFirsts() {
	fs := ag.firstRecs
	if len(fs) == 0 {
		return
	}
	if cap(ag.firstSorted) < len(fs) {
		ag.firstSorted = make([]firstRec, cap(fs))
	}
	sorted := ag.firstSorted[:len(fs)]
	byLock(ag, fs, sorted, func(f *firstRec) int32 { return f.n })
	var a *lockAgg
	for i := range sorted {
		f := &sorted[i]
		if a == nil || a.n != f.n {
			a = ag.byN[f.n]
		}
		if f.wait {
			a.waitedBy = append(a.waitedBy, firstAt{f.th, f.at})
		} else {
			a.waiters = append(a.waiters, firstAt{f.th, f.at})
		}
		a.addedFirst()
	}
	ag.firstRecs = fs[:0]
}

// sumContention adds a contention to a.
func (ag *aggregator) sumContention(a *lockAgg, r *aggRec) {
	if r.nSpans > 0 {
		a.blame(r.o1, 0, r.d1)
		if r.o1 == 0 {
			a.l.OwnerUnknownTime += r.d1
		}
		for _, sp := range ag.more[r.more : r.more+r.nSpans-1] {
			a.blame(sp.owner, 0, sp.d)
			if sp.owner == 0 {
				a.l.OwnerUnknownTime += sp.d
			}
		}
	}
	if r.flags&recUnknown != 0 {
		a.l.OwnerUnknown++
	}
	open := r.flags&recOpen != 0
	a.contention(r.site, r.d, open)
	ag.before(a, r.site, r.since, r.flags&recAttach != 0, r.flags&recEvents != 0)
	if open {
		a.blameOpen(r.end) // still blocked at the end, by its last owner
		return
	}
	a.blame(r.end, 1, 0)
	if r.flags&recHeld != 0 {
		a.site(r.site).held = true // the thread entered the monitor there
	}
}

// sumWait adds a segment of an Object.wait to a.
func (ag *aggregator) sumWait(a *lockAgg, r *aggRec) {
	ws := a.waitSite(r.site)
	a.l.WaitTime += r.d
	ws.Time += r.d
	a.l.MaxWait = max(a.l.MaxWait, r.d1)
	if r.flags&recCont != 0 {
		return
	}
	a.l.Waits++
	ws.Waits++
	ag.waitBefore(a, ws, r.site, r.since, r.flags&recAttach != 0)
	switch r.wake {
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
}

// sumPark adds a park (not a j.u.c. lock's acquire) to a, its blocker.
func (ag *aggregator) sumPark(a *lockAgg, r *aggRec) {
	ws := a.waitSite(r.site)
	a.l.Waits++
	ws.Waits++
	a.l.WaitTime += r.d
	a.l.MaxWait = max(a.l.MaxWait, r.d)
	ws.Time += r.d
	if r.flags&recIdle != 0 {
		a.l.IdleWaits++
	}
	ag.waitBefore(a, ws, r.site, r.since, r.flags&recAttach != 0)
	switch r.wake {
	case WakeUnpark:
		a.l.Notified++
		if a.unparked == nil {
			a.unparked = map[format.ThreadID]Blame{}
		}
		u := a.unparked[r.o1]
		u.Thread, u.Contentions, u.Blamed = r.o1, u.Contentions+1, u.Blamed+r.d
		a.unparked[r.o1] = u
	case WakeNever:
		a.l.StillWaiting++
		ws.StillWaiting++
	default:
		a.l.TimedOut++
		ws.TimedOut++
	}
}
