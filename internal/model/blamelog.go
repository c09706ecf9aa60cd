package model

import (
	"encoding/binary"
	"fmt"
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
// session); and its parks' in the acquires of java.util.concurrent locks
// (parkLogged: ParkSpans over the lock's hand-offs, which the aggregator
// searched for them: jucContention), so that the pass searches no
// hand-offs again (parkCursor's 1.39 of c1G's CPU-s,
// docs/perf/2026-12-02-park-spans.md). Only a Blocked interval with
// owner changes (ownTo > ownFrom) and a park of an acquire have an entry;
// another contention's one span is made from the interval alone.
//
// An entry, in the order the thread's intervals were fed (their order of
// start): its interval's start, the difference from the entry before's
// (uvarint); its tag, the number of spans after the first, k, times two,
// plus one for a park's (uvarint: its first byte's low bit tells the
// kind). A contention's then: the first span's length; then each later
// span's length and owner (uvarints; the owner as ownerCode writes it). A
// park's, when it has later spans: each span's length but the last's
// (which ends at the park's end, or its start: parkSpans), each followed
// by the next span's owner; a park of one span (most: 78 % at c128) is
// its start and tag alone. The spans are contiguous from the interval's
// start, the first's owner the interval's First (a park's ParkOwner): an
// interval whose spans are not so is not logged, nor one that begins
// before the entry before, and its reader falls back to the owner changes
// (blameSpans) or the hand-offs (ParkSpans). A reader matches an entry to
// its interval by its start, entries and intervals walked together in
// order.
type blameLog struct {
	b    []byte
	last format.Time // the last entry's start
	// floor: the latest start of the intervals offered (add, addPark),
	// once one was (offered).
	floor   format.Time
	offered bool
}

// offer notes iv offered to the log and reports whether it can have an
// entry by its start: only if it starts after every interval offered
// before it, so that each entry's start is the start of no other
// interval offered, and a reader falls back to the owner changes for
// exactly the intervals not logged (Options.SpansFromLogs keeps theirs
// alone).
func (l *blameLog) offer(iv *Interval) bool {
	ok := iv.Start >= l.last && (!l.offered || iv.Start > l.floor)
	if !l.offered || iv.Start > l.floor {
		l.floor, l.offered = iv.Start, true
	}
	return ok
}

// add logs the spans ss of the Blocked interval iv (ownerSpans', every
// one: empty ones too), if they can be, and reports whether it did.
func (l *blameLog) add(iv *Interval, ss []OwnerSpan) bool {
	if !l.offer(iv) || len(ss) == 0 || ss[0].Start != iv.Start || ss[0].Owner != iv.First {
		return false
	}
	for i := 1; i < len(ss); i++ {
		if ss[i].Start != ss[i-1].End {
			return false
		}
	}
	for i := range ss {
		if ss[i].End < ss[i].Start || ss[i].Owner > math.MaxUint64-3 {
			return false // or ownerCode would wrap
		}
	}
	// The entry is written in the log's room, grown once for most: made
	// on the stack and appended, it was copied by a call of memmove.
	e := slices.Grow(l.b, 64)
	e = binary.AppendUvarint(e, uint64(iv.Start-l.last))
	e = binary.AppendUvarint(e, uint64(len(ss)-1)<<1)
	e = binary.AppendUvarint(e, uint64(ss[0].End-ss[0].Start))
	for _, s := range ss[1:] {
		e = binary.AppendUvarint(e, uint64(s.End-s.Start))
		e = binary.AppendUvarint(e, ownerCode(iv, s.Owner))
	}
	l.b = e
	l.last = iv.Start
	return true
}

// parkLogged reports whether iv is an interval the aggregator logs the
// blame spans of as a park's (a park in a java.util.concurrent lock's
// acquire: aggregator.feed's, jucContention's).
func parkLogged(iv *Interval) bool {
	return (iv.State == Parked || iv.State == Idle) && iv.Acquire
}

// addPark logs the spans ss of iv, a park in a java.util.concurrent lock's
// acquire (parkLogged), as ParkSpans gives them from its start (every
// one), if they can be, and reports whether it did.
func (l *blameLog) addPark(iv *Interval, ss []OwnerSpan) bool {
	n := len(ss)
	if !l.offer(iv) || n == 0 || ss[0].Start != iv.Start || ss[0].Owner != iv.ParkOwner() ||
		ss[n-1].End != max(iv.End, ss[n-1].Start) {
		return false
	}
	for i := range ss {
		if ss[i].End < ss[i].Start || ss[i].Owner > math.MaxUint64-3 || i > 0 && ss[i].Start != ss[i-1].End {
			return false // not contiguous, or ownerCode would wrap
		}
	}
	e := binary.AppendUvarint(l.b, uint64(iv.Start-l.last))
	e = binary.AppendUvarint(e, uint64(n-1)<<1|1)
	for i := 1; i < n; i++ {
		e = binary.AppendUvarint(e, uint64(ss[i-1].End-ss[i-1].Start))
		e = binary.AppendUvarint(e, ownerCode(iv, ss[i].Owner))
	}
	l.b = e
	l.last = iv.Start
	return true
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
	ok    bool        // an entry is read: start, and b at its tag
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
	d, n := uvarint(r.b)
	r.b = r.b[n:]
	r.start, r.ok = prev+format.Time(d), true
}

// skip passes the spans of the entry read.
func (r *blameReader) skip() {
	t, n := uvarint(r.b)
	r.b = r.b[n:]
	k := t + 1 // a contention's uvarints: its first span's length, then 2k
	if t&1 != 0 {
		k = t - 1 // a park's: 2k
	}
	for ; k > 0; k-- {
		_, n = uvarint(r.b)
		r.b = r.b[n:]
	}
	r.next(r.start)
}

// park reports whether the entry read is a park's.
func (r *blameReader) park() bool { return len(r.b) > 0 && r.b[0]&1 != 0 }

// spans appends to dst the spans of iv, a Blocked interval with owner
// changes of the thread whose log r walks (its intervals in order), and
// reports whether its entry was found; r passes the entries before it,
// and the entry of its start, if any (a park's, when it is not iv's: see
// blameIndex).
func (r *blameReader) spans(iv *Interval, dst []OwnerSpan) ([]OwnerSpan, bool) {
	for r.ok && r.start < iv.Start {
		r.skip()
	}
	if !r.ok || r.start != iv.Start {
		return dst, false
	}
	if r.park() {
		r.skip()
		return dst, false
	}
	k, n := uvarint(r.b)
	r.b = r.b[n:]
	ln, n := uvarint(r.b)
	r.b = r.b[n:]
	s := OwnerSpan{Start: iv.Start, End: iv.Start + format.Time(ln), Owner: iv.First}
	dst = append(dst, s)
	for k >>= 1; k > 0; k-- {
		ln, n := uvarint(r.b)
		r.b = r.b[n:]
		o, m := uvarint(r.b)
		r.b = r.b[m:]
		s = OwnerSpan{Start: s.End, End: s.End + format.Time(ln), Owner: ownerOf(iv, o)}
		dst = append(dst, s)
	}
	r.next(r.start)
	return dst, true
}

// parkSpans is spans of iv, a park in a java.util.concurrent lock's
// acquire (parkLogged): ParkSpans from its start, as the aggregator
// logged them (addPark).
func (r *blameReader) parkSpans(iv *Interval, dst []OwnerSpan) ([]OwnerSpan, bool) {
	for r.ok && r.start < iv.Start {
		r.skip()
	}
	if !r.ok || r.start != iv.Start {
		return dst, false
	}
	if !r.park() {
		r.skip()
		return dst, false
	}
	k, n := uvarint(r.b)
	r.b = r.b[n:]
	s := OwnerSpan{Start: iv.Start, Owner: iv.ParkOwner()}
	for k >>= 1; k > 0; k-- {
		ln, n := uvarint(r.b)
		r.b = r.b[n:]
		o, m := uvarint(r.b)
		r.b = r.b[m:]
		s.End = s.Start + format.Time(ln)
		dst = append(dst, s)
		s = OwnerSpan{Start: s.End, Owner: ownerOf(iv, o)}
	}
	s.End = max(iv.End, s.Start)
	dst = append(dst, s)
	r.next(r.start)
	return dst, true
}

// passBy passes the entry of iv, an interval of a kind logged (a Blocked
// one with owner changes, or parkLogged) whose spans are not read, as
// spans or parkSpans would: the next interval of its start is not given
// its entry.
func (r *blameReader) passBy(iv *Interval) {
	for r.ok && r.start < iv.Start {
		r.skip()
	}
	if r.ok && r.start == iv.Start {
		r.skip()
	}
}

// blameIndex finds a holder's contentions' and parks' entries in its
// blameLog by the interval's index (the holders' fold reads its intervals
// out of order). It notes the entries alone, not each interval's (a walk
// of the whole life of each holder: 0.42 of c1G's CPU-s, for the few
// contentions its pieces visit), and finds an interval's as a blameReader
// walking the intervals in order would: the entry of its start, the j-th
// of them for the j-th interval of that start of a kind logged (logKind;
// an interval of neither passes them by;
// docs/perf/2026-12-01-holders-cut.md), none if that entry is of the
// other kind. The entries
// are noted as far as the contentions asked reach, not all at reset: the
// holders' fold visits a few per cent of a holder's intervals, and the
// walk of every entry of every holder was 0.25 of c1G's CPU-s.
type blameIndex struct {
	b     []byte
	ivs   []Interval
	start []format.Time // each entry's start, in order, those noted
	at    []int32       // and its offset in b (at its tag)
	r     blameReader   // at the first entry not noted (r.ok: one is)
	// last: the interval spansAt was asked of last (-1: none), the
	// lastJ-th of its start with an entry's kind.
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

// logKind is which entries of a blameLog iv takes: 1 a contention's (a
// Blocked interval with owner changes), 2 a park's (parkLogged), 0 none.
func logKind(iv *Interval) int {
	switch {
	case iv.State == Blocked:
		if iv.ownTo > iv.ownFrom {
			return 1
		}
	case parkLogged(iv):
		return 2
	}
	return 0
}

// spansAt appends to dst the spans of ivs[i] (iv), and reports whether
// it has an entry: a contention's or a park's (logKind), the entry a
// blameReader walking the intervals in order would give it.
func (x *blameIndex) spansAt(i int, iv *Interval, dst []OwnerSpan) ([]OwnerSpan, bool) {
	kind := logKind(iv)
	if kind == 0 {
		return dst, false
	}
	x.upTo(iv.Start)
	if len(x.start) == 0 {
		return dst, false
	}
	// The intervals with entries of its start before it: back to the
	// last asked of the same start, whose count is known (a run of many
	// intervals of one start is not walked again for each).
	j, stop := 0, -1
	if x.last >= 0 && x.last < i && x.ivs[x.last].Start == iv.Start {
		j, stop = x.lastJ+1, x.last
	}
	for k := i - 1; k > stop && x.ivs[k].Start == iv.Start; k-- {
		if logKind(&x.ivs[k]) != 0 {
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
	// The walk passes an entry of the other kind (spans, parkSpans):
	// none.
	r := blameReader{b: x.b[x.at[e]:], start: iv.Start, ok: true}
	if kind == 2 {
		return r.parkSpans(iv, dst)
	}
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

// CheckBlameLogs reports the first interval whose blame spans its
// thread's blameLog holds and are not BlameSpans' (the owner changes, or
// the lock's hand-offs searched), read as the holders' pass reads them
// (the intervals in order): the validator's proof that the pass, which
// reads the logs and neither the owner changes nor the hand-offs, blames
// as the viewer and the exports do (modeltest.Validate). Nil when every
// entry matches, or the logs were let go (the report's pass).
func (m *Model) CheckBlameLogs() error {
	var buf []Interval
	var r blameReader
	var got []OwnerSpan
	for _, t := range m.Threads {
		l := t.folded().blame
		if t.spill.has(spillBlame) && m.spill != nil {
			b, err := m.blameBytes(t, nil)
			if err != nil {
				return err
			}
			l.b = b
		}
		if len(l.b) == 0 {
			continue
		}
		r.reset(&l)
		ivs := m.IntervalsOf(t, &buf)
		for i := range ivs {
			iv := &ivs[i]
			ok := false
			switch logKind(iv) {
			case 1:
				got, ok = r.spans(iv, got[:0])
			case 2:
				got, ok = r.parkSpans(iv, got[:0])
			}
			if !ok {
				continue
			}
			n := 0
			for sp := range m.BlameSpans(t.ID, iv) {
				if n >= len(got) || got[n] != sp {
					return fmt.Errorf("thread %v, interval at %d (%s on %v): logged blame spans %v, BlameSpans' differ at %d (%v)", t.ID, iv.Start, iv.State, iv.Object, got, n, sp)
				}
				n++
			}
			if n != len(got) {
				return fmt.Errorf("thread %v, interval at %d (%s on %v): logged blame spans %v, BlameSpans gives %d", t.ID, iv.Start, iv.State, iv.Object, got, n)
			}
		}
	}
	return nil
}
