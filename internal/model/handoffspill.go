package model

import (
	"slices"

	"orca/internal/format"
)

// The j.u.c. locks' hand-offs (Model.handOffs) given up to the spill as
// the fold goes, with Options.DropIntervals: every hand-off of every lock
// held to the end grew with the recording (c5G: 103 MB at the fold's
// end). At each seal a lock's hand-offs before the earliest start of a
// park in an acquire of it that the aggregation has still to read
// (releaseHandOffs) go to the spill, a piece at a time; the readers after
// the fold read back the pieces around the park they want (handOffsOver).

// handOffSpill is a lock's hand-offs in the spill, in time order: piece k
// is blks[k], its first hand-off's time at[k]; last is the last given up.
type handOffSpill struct {
	blks []spillBlock
	at   []format.Time
	last OwnerChange
	n    int // how many
}

// handOffBatch is how many of a lock's hand-offs the fold gives up at
// once, at least (unless all it holds): a piece each, read back whole.
var handOffBatch = 128

// acqPark is an open park of thread th in an acquire of a j.u.c. lock,
// from at (lstate.acqOpen).
type acqPark struct {
	th format.ThreadID
	at format.Time
}

// parkBegun notes ts's park in an acquire of ls from at, open
// (releaseHandOffs reads its start).
func (b *Builder) parkBegun(ls *lstate, ts *tstate, at format.Time) {
	if b.dropIntervals && ls != nil {
		ls.acqOpen = append(ls.acqOpen, acqPark{ts.id, at})
	}
}

// parkEnded notes that ts's park in an acquire of ls ended (parkBegun).
func (b *Builder) parkEnded(ls *lstate, ts *tstate) {
	if ls == nil || len(ls.acqOpen) == 0 {
		return
	}
	if i := slices.IndexFunc(ls.acqOpen, func(p acqPark) bool { return p.th == ts.id }); i >= 0 {
		ls.acqOpen = slices.Delete(ls.acqOpen, i, i+1)
		if len(ls.acqOpen) == 0 && cap(ls.acqOpen) > 64 {
			ls.acqOpen = nil
		}
	}
}

// releaseHandOffs gives up to the spill, with Options.DropIntervals, the
// hand-offs of each lock (b.handing) that no park still to be aggregated
// reads (aggregator.jucContention reads those after the first park of an
// acquire): before the earliest start of a park in an acquire of the lock
// open now (lstate.acqOpen), not fed yet (behind an open state of its
// thread), or fed in an acquire not yet added (threadAgg.juc); and before
// the seal's watermark w, which later parks begin after.
func (b *Builder) releaseHandOffs(w format.Time) {
	if !b.dropIntervals || b.spill.err != nil || len(b.handing) == 0 {
		return
	}
	need := map[format.ObjectID]format.Time{}
	note := func(obj format.ObjectID, at format.Time) {
		if t, ok := need[obj]; !ok || at < t {
			need[obj] = at
		}
	}
	for _, ts := range b.feeding {
		ts.body.ivs.each(ts.body.fed, func(blk []Interval) bool {
			for i := range blk {
				if iv := &blk[i]; iv.Acquire {
					note(iv.Object, iv.Start)
				}
			}
			return true
		})
	}
	if b.ag != nil {
		keep := b.ag.jucOpen[:0]
		for _, st := range b.ag.jucOpen {
			if len(st.juc) > 0 {
				note(st.juc[0].Object, st.juc[0].Start)
				keep = append(keep, st)
			} else {
				st.jucListed = false
			}
		}
		clear(b.ag.jucOpen[len(keep):])
		b.ag.jucOpen = keep
	}
	m := b.m
	keep := b.handing[:0]
	for _, ls := range b.handing {
		obj := ls.l.Object
		hs := m.handOffs[obj]
		cut := w
		if t, ok := need[obj]; ok {
			cut = min(cut, t)
		}
		for _, p := range ls.acqOpen {
			cut = min(cut, p.at)
		}
		n := handOffAfter(hs, cut-1) // those before cut
		if n > 0 && (n >= handOffBatch || n == len(hs)) {
			b.giveHandOffs(obj, hs[:n])
			hs = keepRest(hs, n)
			if len(hs) == 0 {
				delete(m.handOffs, obj)
			} else {
				m.handOffs[obj] = hs
			}
		}
		if len(hs) > 0 {
			keep = append(keep, ls)
		} else {
			ls.handing = false
		}
	}
	clear(b.handing[len(keep):])
	b.handing = keep
}

// giveHandOffs writes hs, obj's first hand-offs in memory, to the spill:
// a piece.
func (b *Builder) giveHandOffs(obj format.ObjectID, hs []OwnerChange) {
	m := b.m
	if m.handSpill == nil {
		m.handSpill = map[format.ObjectID]*handOffSpill{}
	}
	sp := m.handSpill[obj]
	if sp == nil {
		sp = &handOffSpill{}
		m.handSpill[obj] = sp
	}
	var blk []spillBlock
	b.spill.add(&blk, bytesOf(hs))
	if len(blk) == 0 {
		return // the spill failed: Build fails
	}
	sp.blks = append(sp.blks, blk[0])
	sp.at = append(sp.at, hs[0].At)
	sp.last = hs[len(hs)-1]
	sp.n += len(hs)
}

// handOffWindow is a stretch of a lock's hand-offs, read back from the
// spill (those in memory after them): every one after lo and before hi
// is in hs, in order.
type handOffWindow struct {
	hs     []OwnerChange
	lo, hi format.Time
	room   []OwnerChange // what the spill's are read into (hs can be the Model's)
}

// covers reports whether w has every hand-off after from and before end.
func (w *handOffWindow) covers(from, end format.Time) bool {
	return w.lo <= from && end <= w.hi
}

// handOffsOver returns obj's hand-offs after from and before end, and
// maybe more about them, in order with none between left out (what
// parkSpans reads of a park from from to end), read back into w's room
// when some are in the spill; w says what they cover.
func (m *Model) handOffsOver(obj format.ObjectID, from, end format.Time, w *handOffWindow) []OwnerChange {
	return handOffsIn(m.spill, m.handOffs[obj], m.handSpill[obj], from, end, w)
}

// handOffsIn is handOffsOver of a lock whose hand-offs in memory are mem
// and in the spill s are sp's; the fold's aggregation reads them while s
// is written (aggregator.jucContention).
func handOffsIn(s *spillFile, mem []OwnerChange, sp *handOffSpill, from, end format.Time, w *handOffWindow) []OwnerChange {
	if sp == nil || from >= sp.last.At {
		// None of the spill's: they are at or before from.
		w.hs, w.lo, w.hi = mem, sp.lastAt(), maxTime
		return mem
	}
	// k0: the last piece that begins at or before from (those before it
	// end there too); k1: the last that begins before end.
	k0 := max(timesAtOrBefore(sp.at, from)-1, 0)
	k1 := max(timesBefore(sp.at, end)-1, k0)
	// A few pieces more, read as well: the next park on the lock is
	// likely after this one.
	var size int64
	for k := k0; k <= k1; k++ {
		size += sp.blks[k].len
	}
	for k1+1 < len(sp.blks) && size+sp.blks[k1+1].len <= handOffReadAhead {
		k1++
		size += sp.blks[k1].len
	}
	hs := slices.Grow(w.room[:0], int(size)/ownerChangeSize)[:size/int64(ownerChangeSize)]
	p := bytesOf(hs)
	for _, blk := range sp.blks[k0 : k1+1] {
		if err := s.readBuffered(p[:blk.len], blk.off); err != nil {
			panic(&SpillError{err}) // as spilledThread
		}
		p = p[blk.len:]
	}
	w.lo, w.hi = minTime, maxTime
	if k0 > 0 {
		w.lo = sp.at[k0]
	}
	if k1+1 < len(sp.blks) {
		w.hi = sp.at[k1+1]
	} else {
		hs = append(hs, mem...)
	}
	w.hs, w.room = hs, hs
	return hs
}

// handOffReadAhead is the most bytes of a lock's hand-offs handOffsOver
// reads past those a park needs.
const handOffReadAhead = 64 << 10

const (
	minTime = format.Time(-1 << 63)
	maxTime = format.Time(1<<63 - 1)
)

// lastAt is the time of the last hand-off given up (minTime: none).
func (sp *handOffSpill) lastAt() format.Time {
	if sp == nil {
		return minTime
	}
	return sp.last.At
}

// timesAtOrBefore returns how many of ts (in order) are at or before t.
func timesAtOrBefore(ts []format.Time, t format.Time) int {
	i, _ := slices.BinarySearchFunc(ts, t, func(a, t format.Time) int {
		if a <= t {
			return -1
		}
		return 1
	})
	return i
}

// timesBefore returns how many of ts (in order) are before t.
func timesBefore(ts []format.Time, t format.Time) int {
	i, _ := slices.BinarySearchFunc(ts, t, func(a, t format.Time) int {
		if a < t {
			return -1
		}
		return 1
	})
	return i
}
