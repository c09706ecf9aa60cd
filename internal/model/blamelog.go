package model

import (
	"encoding/binary"
	"math"
	"slices"

	"orca/internal/format"
)

// blameLog is a thread's contentions' blame spans as the seal's aggregator
// made them (ownerSpans over the lock's owner changes, in memory then), so
// that the holders' pass (View.HoldersDoingWith, foldSpan) reads them
// instead of reading the lock's owner changes back from the spill and
// decoding each contention's (contentionChanges: ~8 % of orca report's
// CPU on the 128 MB synthetic recording, docs/streaming.md, eleventh
// session). Only a Blocked interval with owner changes (ownTo > ownFrom)
// has an entry; without, its one span is made from the interval alone.
//
// An entry, in the order the thread's intervals were fed (their order of
// start): its interval's start, the difference from the entry before's
// (uvarint); the number of spans after the first (uvarint); the first
// span's length; then each later span's length and owner (uvarints; the
// owner as ownerCode writes it). The
// spans are contiguous from the interval's start, the first's owner the
// interval's First: an interval whose spans are not so is not logged, nor
// one that begins before the entry before, and its reader falls back to
// the owner changes (blameSpans). A reader matches an entry to its
// interval by its start, entries and intervals walked together in order.
type blameLog struct {
	b    []byte
	last format.Time // the last entry's start
}

// add logs the spans ss of the Blocked interval iv (ownerSpans', every
// one: empty ones too), if they can be.
func (l *blameLog) add(iv *Interval, ss []OwnerSpan) {
	if len(ss) == 0 || iv.Start < l.last || ss[0].Start != iv.Start || ss[0].Owner != iv.First {
		return
	}
	for i := 1; i < len(ss); i++ {
		if ss[i].Start != ss[i-1].End {
			return
		}
	}
	for i := range ss {
		if ss[i].End < ss[i].Start || ss[i].Owner > math.MaxUint64-3 {
			return // or ownerCode would wrap
		}
	}
	// The entry is made in room on the stack, then appended at once.
	var room [64]byte
	e := room[:0]
	e = binary.AppendUvarint(e, uint64(iv.Start-l.last))
	e = binary.AppendUvarint(e, uint64(len(ss)-1))
	e = binary.AppendUvarint(e, uint64(ss[0].End-ss[0].Start))
	for _, s := range ss[1:] {
		e = binary.AppendUvarint(e, uint64(s.End-s.Start))
		e = binary.AppendUvarint(e, ownerCode(iv, s.Owner))
	}
	l.b = append(l.b, e...)
	l.last = iv.Start
}

// ownerCode is how a blameLog writes the owner of a later span of iv's:
// 0 for none, 1 for iv.Other (mostly the last span's: the owner whose
// release let it in), 2 for iv.First, else the owner's ID + 3: one byte,
// not five, for the most.
func ownerCode(iv *Interval, o format.ThreadID) uint64 {
	switch o {
	case 0:
		return 0
	case iv.Other:
		return 1
	case iv.First:
		return 2
	}
	return uint64(o) + 3
}

// ownerOf is the owner ownerCode wrote as c.
func ownerOf(iv *Interval, c uint64) format.ThreadID {
	switch c {
	case 0:
		return 0
	case 1:
		return iv.Other
	case 2:
		return iv.First
	}
	return format.ThreadID(c - 3)
}

// blameReader walks a thread's blameLog with its intervals.
type blameReader struct {
	b     []byte
	start format.Time // the next entry's start (ok)
	ok    bool        // an entry is read: start, and b at its span count
}

func (r *blameReader) reset(l *blameLog) {
	*r = blameReader{b: l.b}
	r.next(0)
}

// next reads the start of the entry at r.b (the one before's prev).
func (r *blameReader) next(prev format.Time) {
	if len(r.b) == 0 {
		r.ok = false
		return
	}
	d, n := binary.Uvarint(r.b)
	r.b = r.b[n:]
	r.start, r.ok = prev+format.Time(d), true
}

// skip passes the spans of the entry read.
func (r *blameReader) skip() {
	k, n := binary.Uvarint(r.b)
	r.b = r.b[n:]
	_, n = binary.Uvarint(r.b)
	r.b = r.b[n:]
	for ; k > 0; k-- {
		_, n = binary.Uvarint(r.b)
		r.b = r.b[n:]
		_, n = binary.Uvarint(r.b)
		r.b = r.b[n:]
	}
	r.next(r.start)
}

// spans appends to dst the spans of iv, a Blocked interval with owner
// changes of the thread whose log r walks (its intervals in order), and
// reports whether its entry was found; r passes the entries before it.
func (r *blameReader) spans(iv *Interval, dst []OwnerSpan) ([]OwnerSpan, bool) {
	for r.ok && r.start < iv.Start {
		r.skip()
	}
	if !r.ok || r.start != iv.Start {
		return dst, false
	}
	k, n := binary.Uvarint(r.b)
	r.b = r.b[n:]
	ln, n := binary.Uvarint(r.b)
	r.b = r.b[n:]
	s := OwnerSpan{Start: iv.Start, End: iv.Start + format.Time(ln), Owner: iv.First}
	dst = append(dst, s)
	for ; k > 0; k-- {
		ln, n := binary.Uvarint(r.b)
		r.b = r.b[n:]
		o, m := binary.Uvarint(r.b)
		r.b = r.b[m:]
		s = OwnerSpan{Start: s.End, End: s.End + format.Time(ln), Owner: ownerOf(iv, o)}
		dst = append(dst, s)
	}
	r.next(r.start)
	return dst, true
}

// blameIndex finds a holder's contentions' entries in its blameLog by the
// interval's index (the holders' fold reads its intervals out of order).
// It notes the entries alone, not each interval's (a walk of the whole
// life of each holder: 0.42 of c1G's CPU-s, for the few contentions its
// pieces visit), and finds an interval's as a blameReader walking the
// intervals in order would: the entry of its start, the j-th of them for
// the j-th contention with owner changes of that start (an interval with
// none passes them by; docs/perf/2026-12-01-holders-cut.md). The entries
// are noted as far as the contentions asked reach, not all at reset: the
// holders' fold visits a few per cent of a holder's intervals, and the
// walk of every entry of every holder was 0.25 of c1G's CPU-s.
type blameIndex struct {
	b     []byte
	ivs   []Interval
	start []format.Time // each entry's start, in order, those noted
	at    []int32       // and its offset in b (at its span count)
	r     blameReader   // at the first entry not noted (r.ok: one is)
	// last: the contention spansAt was asked of last (-1: none), the
	// lastJ-th of its start.
	last, lastJ int
}

// reset indexes the entries of t, whose intervals are ivs.
func (x *blameIndex) reset(l *blameLog, ivs []Interval) {
	x.b, x.ivs, x.last = l.b, ivs, -1
	x.start, x.at = x.start[:0], x.at[:0]
	x.r.reset(l)
}

// upTo notes the entries up to the first that starts after t, or all.
// The entries are in order of start: those noted are then every entry of
// a start up to t, and the first after.
func (x *blameIndex) upTo(t format.Time) {
	for x.r.ok && (len(x.start) == 0 || x.start[len(x.start)-1] <= t) {
		x.start = append(x.start, x.r.start)
		x.at = append(x.at, int32(len(x.b)-len(x.r.b)))
		x.r.skip()
	}
}

// spansAt appends to dst the spans of ivs[i] (iv), and reports whether
// it has an entry.
func (x *blameIndex) spansAt(i int, iv *Interval, dst []OwnerSpan) ([]OwnerSpan, bool) {
	if iv.State != Blocked || iv.ownTo <= iv.ownFrom {
		return dst, false
	}
	x.upTo(iv.Start)
	if len(x.start) == 0 {
		return dst, false
	}
	// The contentions with owner changes of its start before it: back to
	// the last asked of the same start, whose count is known (a run of
	// many intervals of one start is not walked again for each).
	j, stop := 0, -1
	if x.last >= 0 && x.last < i && x.ivs[x.last].Start == iv.Start {
		j, stop = x.lastJ+1, x.last
	}
	for k := i - 1; k > stop && x.ivs[k].Start == iv.Start; k-- {
		if x.ivs[k].State == Blocked && x.ivs[k].ownTo > x.ivs[k].ownFrom {
			j++
		}
	}
	x.last, x.lastJ = i, j
	// The first entry of its start or after (sort.Search, written out).
	lo, hi := 0, len(x.start)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if x.start[h] < iv.Start {
			lo = h + 1
		} else {
			hi = h
		}
	}
	e := lo + j
	if e >= len(x.start) || x.start[e] != iv.Start {
		return dst, false
	}
	r := blameReader{b: x.b[x.at[e]:], start: iv.Start, ok: true}
	return r.spans(iv, dst)
}

// giveBlame lets go of the blame log of t, a thread that ended, until the
// holders' pass: with Options.DropIntervals, to the spill, which the pass
// reads it back from with t's intervals (Model.spilledThread; the logs
// were 240 MB at c1G's fold's end), else the room it grew by (clip). A
// thread brought back (revive) logs on after what it gave up: the entries
// are in order, each from the one before. With Options.DropIntervals a
// thread alive gives it up too, blameBatch bytes or more at a time, as
// its intervals are fed (Builder.feedSealed): the threads alive for an
// hour of a busy server held 0.53 GB of logs at the fold's end.
func (b *Builder) giveBlame(t *Thread) {
	f := t.fold
	if f == nil {
		return
	}
	if b.dropIntervals && b.spill != nil && b.spill.err == nil {
		if len(f.blame.b) > 0 {
			b.spill.addTo(&t.spill, spillBlame, f.blame.b)
			f.blame.b = nil
		}
		return
	}
	f.blame.clip()
}

// clip lets go of the room the log grew by beyond an eighth of its length,
// once its thread has ended (the log is held until the holders' pass).
func (l *blameLog) clip() {
	if cap(l.b)-len(l.b) > len(l.b)/8 {
		l.b = slices.Clone(l.b)
	}
}

// blameBatch is the fewest bytes of its blame log a thread alive gives up
// to the spill at once (giveBlame): a write each, and a read each when the
// holders' pass reads the log back (the model's tests give up every
// entry: export_test.go).
var blameBatch = 8 << 10
