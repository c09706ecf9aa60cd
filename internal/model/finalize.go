package model

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"orca/internal/format"
)

// Finalize closes what is still open at the end of the recording and
// returns the Model. The Builder must not be used afterwards.
func (b *Builder) Finalize() *Model {
	m := b.m
	b.indexLocks()
	if b.ext != nil {
		m.Stacks = b.ext.Frames
	}
	b.lockOrderClasses()
	if c := m.Cut; c != nil && !b.first {
		// The recording lasted to the cut, whatever its last event.
		if c.At == 0 {
			c.At = m.End
		}
		m.End = max(m.End, c.At)
	}
	if b.stoppedAt > m.End && !b.first && m.Cut == nil {
		m.End = b.stoppedAt
	}
	m.Edges = b.edges.all()
	m.EdgeCounts = b.edges.counts
	for _, ci := range m.ClassInits {
		ci.seenWaiter, ci.seenSite = nil, nil // the fold's alone
	}
	for _, ts := range b.th.byNum {
		if ts != nil && ts.body.hasUnpark { // nil: let go, its unpark given (giveBody)
			b.unparks[ts.id] = ts.body.unpark
		}
	}
	for th, u := range b.unparks {
		if m.Unparked == nil {
			m.Unparked = map[format.ThreadID]format.Time{}
		}
		m.Unparked[th] = u.at
	}
	if b.line != nil {
		if b.sites == nil {
			b.sites = newSiteGrouper(b.line)
		}
		b.sites.extend(m, b.frames())
	}
	dropped := b.gaveUp // a thread's intervals are in the spill alone
	// letStart: by number, the start of the threads let go (letGo), read
	// from their records here, for the sort by start below.
	var letStart []format.Time
	for i, t := range m.Threads {
		ts := b.th.byNum[i]
		if t == nil {
			// Packed as it retired (packRetired), its events counted:
			// its state at rest dropped from its record.
			pt := m.dropPacked(i, spillRest)
			if ts == nil {
				if letStart == nil {
					letStart = make([]format.Time, len(m.Threads))
				}
				letStart[i] = pt.Start
			}
			dropped = true
			continue
		}
		t.Events = ts.events
		if ts.retired {
			// Finished as it ended (retire); nothing brings it back now:
			// its state at rest is read no more.
			t.spill.drop(spillRest)
			dropped = true
			if t.fold != nil {
				t.fold.lent = nil
				t.unfold()
			}
			continue
		}
		// A thread that ended can be in a state only when its exit blocked
		// on its Thread object: it is stuck there to the end.
		if !t.Ended || len(ts.body.open) > 0 {
			t.End = m.End
		}
		for len(ts.body.open) > 0 {
			b.end(ts, t.End, endOpen)
		}
		if b.finishThread(ts) {
			// Its list of blocks is complete: the room appends left is
			// a quarter of it on average, kept for every thread ever
			// seen; so is the rounding of an allocation of its own
			// (keep).
			t.spill.set(b.keep(t.spill.bytes()))
			// Its windows split, the virtual threads' cpu samples it
			// carried are read no more.
			dropped = true
			if t.fold != nil {
				t.fold.lent = nil
				t.unfold()
			}
		}
	}
	// The Threads are in slabs of their own (Builder.thread), not in the
	// tstates: the Model keeps none of the fold's state, and they need no
	// copy (100 000 threads: 42 MB copied and as many pages touched).
	// A join edge starts when its target ended, its exit included (known
	// only now when the exit came after the join's line).
	for i := range m.Edges { // with the edges' spill, the start and join ones
		if e := &m.Edges[i]; e.Kind == EdgeJoin {
			e.FromTime = min(m.Thread(e.From).End, e.ToTime)
		}
	}
	b.findShutdown()
	b.wf.finish(m)

	// Each thread once (by ID): no two compare equal, and an unstable sort
	// gives the same order as a stable one, in n log n (a stable one's
	// merges took a third of Finalize with 100 000 threads). Sorted by
	// keys copied beside each pointer: comparing through the pointers
	// missed the cache at most comparisons (100 000 threads).
	// The keys are the tstate's (a packed Thread has none in memory).
	type byStartKey struct {
		start format.Time
		id    format.ThreadID
		i     int
	}
	keys := make([]byStartKey, len(m.Threads))
	for i := range m.Threads {
		if ts := b.th.byNum[i]; ts != nil {
			keys[i] = byStartKey{ts.start, ts.id, i}
		} else {
			keys[i] = byStartKey{letStart[i], b.th.idOf(i), i}
		}
	}
	letStart = nil
	slices.SortFunc(keys, func(a, b byStartKey) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	sorted := make([]*Thread, len(m.Threads))
	for i := range keys {
		sorted[i] = m.Threads[keys[i].i]
	}
	// Its own array, not copied back: the appends' room is let go (a
	// quarter of them, for every thread ever seen).
	m.Threads = sorted
	if tp := m.packed; tp != nil {
		loc, ids := make([]uint32, len(m.Threads)), make([]format.ThreadID, len(m.Threads))
		for i := range keys {
			if k := keys[i].i; k < len(tp.loc) {
				loc[i], ids[i] = tp.loc[k], tp.ids[k]
			}
		}
		tp.loc, tp.ids = loc, ids
	}
	// Each tstate numbered as its Thread is now (Model.Thread of a
	// packed one: ThreadAt), and the fold's index in that order, for the
	// threads let go, whose number is their place in it.
	for i := range keys {
		if ts := b.th.byNum[keys[i].i]; ts != nil {
			ts.num = uint32(i)
		}
	}
	b.th.renumber(func(i int) int { return keys[i].i })
	b.indexThreads()
	b.feeding = nil
	if b.dropIntervals && b.spill.err == nil {
		// Every contention is fed: the owner changes go to the spill, and
		// the readers read a lock's back (Model.ownerChanges).
		for _, ls := range b.owning {
			l := ls.l
			b.giveChanges(l, len(l.OwnerChanges))
			l.ownBase += len(l.OwnerChanges)
			l.OwnerChanges, l.ownNeed = nil, nil
		}
		b.owning = nil
	}
	if !b.noLockFigures {
		// The blames in the aggregator's cache to their tables first:
		// some may go to the spill as runs (putOwner).
		b.ag.owners.flush(b.ag)
		if b.ag.ownerSpill != nil {
			// The owners' runs are read back (lockAgg.mergedOwners): a
			// spill that failed lost some, and the report would be short
			// of their blame.
			if err := b.spill.flush(); err != nil && b.ag.ownerRuns {
				b.lost = fmt.Errorf("writing the model's temporary file: %w", err)
			}
		}
		b.sleepAll()
		if foldedAggs != nil {
			foldedAggs(b)
		}
		m.setLocks(b.ag)
	}
	if sp := b.edges.sp; sp != nil {
		// The edges to the spill, in their two orders (edgespill.go).
		var err error
		if m.edges, err = sp.finish(m.Edges, b.edges.seqs); err != nil {
			b.lost = fmt.Errorf("writing the model's temporary file: %w", err)
		}
		m.Edges, b.edges.seqs, b.edges.sp = nil, nil, nil
	} else {
		slices.SortStableFunc(m.Edges, func(a, b Edge) int { return cmp.Compare(a.ToTime, b.ToTime) })
		m.memEdges = &memEdges{}
	}
	if b.spill != nil {
		// A spill that could not be written is given up: the intervals
		// and samples are still in memory, and the holders' fold reads
		// them there. One written whole takes the intervals' place when
		// asked: the readers after Finalize read them back
		// (Model.IntervalsOf).
		if err := b.spill.done(); err == nil {
			m.spill, m.dropped, m.ownSparse = b.spill, dropped, b.ownSparse
		} else {
			b.spill.f.Close()
			if dropped || m.edges != nil {
				// Some threads' intervals are in neither: Build fails.
				b.lost = fmt.Errorf("writing the model's temporary file: %w", err)
			}
		}
		b.spill = nil
	}
	if b.packThreads && m.dropped && m.spill != nil {
		m.packThreads()
	}
	if b.reused != nil {
		b.reused.byNum = m.byNum // for the next build's
	}
	return m
}

// finishThread ends the fold of ts, a thread in no state any more: it
// feeds the intervals the seals did not take and what its aggregation
// still held, splits its runnable time, and, with Options.DropIntervals,
// gives up its intervals and samples, which the spill has (the tail kept):
// it reports whether it did. Finalize calls it for each thread, and
// retire for a thread that ended, as the fold goes.
func (b *Builder) finishThread(ts *tstate) bool {
	t := b.tOf(ts)
	// The intervals the seals did not take, then what the thread's
	// aggregation still held.
	if !b.noThreadTimes {
		ts.body.ivs.each(ts.body.fed, func(blk []Interval) bool {
			b.feed(ts, blk)
			return true
		})
	}
	b.spillFed(ts)
	if !b.noLockFigures {
		b.ag.endThread(&ts.body.agg)
	}
	b.giveBlame(t)
	if !b.noRunSplit {
		b.splitTo(ts, math.MaxInt64, t.End)
	}
	t.ivsUnsorted = ts.body.ivs.unsorted
	drop := b.dropIntervals && b.spill.err == nil
	if drop {
		// In the spill: only a thread with no windows between ThreadCPU
		// lines and samples reads its back, for the samples taken in
		// none of its states (splitRun).
		if t.SchedCount() < 2 && len(t.Samples) > 0 {
			b.spillBuf = b.readSpilled(t, 0, ts.body.ivs.len(), b.spillBuf)
			t.Intervals = b.spillBuf
			if !slices.IsSortedFunc(t.Intervals, byStart) {
				slices.SortStableFunc(t.Intervals, byStart)
			}
		}
		b.tail(ts)
		b.held -= ts.body.ivs.held()
		// Given up, all: a thread brought back (revive) adds after them.
		ts.body.ivs = ivList{base: ts.body.ivs.len(), unsorted: ts.body.ivs.unsorted, prev: ts.body.ivs.prev}
	} else {
		if b.ivsNow != nil {
			b.ivsNow[t.ID] = ts.body.ivs.len()
		}
		// Sorted unless one was added before the one added before it
		// (ivList.unsorted): not checked again by reading every interval
		// back from memory (~1 % of a push's CPU).
		unsorted := ts.body.ivs.unsorted
		t.Intervals = ts.body.ivs.all(b.ivSlab)
		if unsorted && !slices.IsSortedFunc(t.Intervals, byStart) {
			slices.SortStableFunc(t.Intervals, byStart)
		}
	}
	if r := t.Life() - ts.body.busy; r > 0 && !b.noThreadTimes {
		t.Time[Runnable] = r
	}
	bySampleAt := func(a, b Sample) int { return cmp.Compare(a.At, b.At) }
	if len(t.Samples) > 1 && !slices.IsSortedFunc(t.Samples, bySampleAt) {
		slices.SortStableFunc(t.Samples, bySampleAt) // samples written ahead of a held-back line (builder.go)
	}
	if b.spill != nil {
		b.spill.addTo(&t.spill, spillSmp, bytesOf(t.Samples))
	}
	if !b.noRunSplit {
		t.splitRun(&ts.body.win)
	}
	ts.body.win.marks = nil // the windows are split to the end
	if drop {
		// Read only by RunIn (the holders' pass, the viewer) and the
		// viewer, on a copy of the thread read back (spilledThread,
		// ReadRun): 72 + 24 bytes a window, one a ThreadCPU line (every
		// thread_cpu_period_ms) of each thread's life; the rest count them
		// (SchedCount).
		b.spill.addTo(&t.spill, spillWins, bytesOf(t.folded().wins))
		b.spill.addTo(&t.spill, spillSched, bytesOf(t.Sched))
		t.nSched += int32(len(t.Sched))
		t.Sched = nil
		if t.fold != nil {
			t.fold.wins = nil
		}
	}
	if drop {
		// Thread by thread, so that the intervals of all are never
		// both in the fold's lists and in the Threads; the samples
		// are read back from the spill (Model.SamplesOf).
		b.heldSamples -= len(t.Samples)
		t.Intervals, t.Samples = nil, nil
	}
	return drop
}

// findShutdown sets Model.Shutdown: the earliest start of a thread that
// runs a SIGTERM or SIGINT handler (ShutdownThread), of a thread started
// from a stack of the shutdown (a shutdown hook), or of a state entered in
// one (ShutdownStack: b.shutAt, noted as the fold fed its intervals).
func (b *Builder) findShutdown() {
	m := b.m
	at := func(t format.Time) {
		if m.Shutdown == 0 || t < m.Shutdown {
			m.Shutdown = t
		}
	}
	for _, t := range m.AllThreads() {
		if ShutdownThread(t.Name) || b.shutdown != nil && b.stackBits(t.StartedAt).shut {
			at(t.Start)
		}
		if since, ok := b.shutAt[t.ID]; ok {
			at(since)
		}
	}
}

// tail keeps, with Options.DropIntervals, the last of ts's intervals that
// the readers at the end want (Model.TailOf): its open segments at the
// end, and from the last that began before the thread's end. From what
// the fold still holds of them, and the copies of the last given up
// (ivList.last); where that is not enough, or the intervals were not
// added in order (Finalize would sort them), none: the readers read the
// thread's back.
func (b *Builder) tail(ts *tstate) {
	l, t := &ts.body.ivs, b.tOf(ts)
	if l.unsorted {
		return
	}
	mem := make([]Interval, 0, len(l.last)+l.held())
	mem = append(mem, l.last...)
	l.each(l.base, func(blk []Interval) bool {
		mem = append(mem, blk...)
		return true
	})
	lo := l.len() - len(mem) // the index of mem[0] among the thread's intervals
	j := len(mem)
	for j > 0 && mem[j-1].Open {
		j--
	}
	k := len(mem) - 1
	for k >= 0 && mem[k].Start >= t.End {
		k--
	}
	if lo > 0 && (j == 0 || k < 0) {
		return // the open segments, or the ones at the end, may go on before
	}
	j = min(j, max(k, 0))
	b.keepTail(t, mem[j:])
	t.tailAt, t.tailOK = int32(lo+j), true
}

// indexThreads gives the Model its index of the threads by ID (thIdx), once
// Threads is in its final order: the fold's own table (foldIndex.slots,
// probed the same way, renumbered in that order: renumber), not one made
// again at twice as many slots (16 MB of c5G-slow5's 1.33 M threads, kept
// to the report's end).
func (b *Builder) indexThreads() {
	m := b.m
	if len(b.th.slots) == 0 || 4*len(m.Threads) > 3*len(b.th.slots) {
		m.indexThreads()
		return
	}
	m.thIdx, m.byThread, m.foldTh = b.th.slots, nil, nil
	b.th.slots = nil
}
