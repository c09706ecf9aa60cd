package model

import (
	"cmp"
	"slices"

	"orca/internal/format"
)

// LockRef names a lock: Model.Lock(r.Object, r.Kind).
type LockRef struct {
	Object format.ObjectID
	Kind   LockKind
}

// Doing is what the holders of a lock did while threads were blocked on
// it (issue 33): the time at least one thread was blocked, split by the
// holder then (the contentions' blame spans, Model.BlameSpans) and by
// what that holder was doing. Time, Released and Unknown add up to
// Blocked; Time[Runnable] is split in Run.
type Doing struct {
	Blocked format.Time // the union of the lock's contentions (of the View's threads)
	Unknown format.Time // of it, the time no holder was named, or the holder's life did not cover
	// Released: of it, the time the holder named was in Object.wait on
	// this very monitor. It had let the monitor go, and the next owner
	// was not in yet (the blocked threads name their owner until the
	// fold learns of the next: the hand-off). Not the holder's Waiting:
	// it did not hold the lock then.
	Released format.Time
	Time     [NumStates]format.Time
	Run      RunSplit
	// On: the holders' time blocked on another lock (a monitor or a
	// java.util.concurrent lock) by that lock and its holder then, most
	// first.
	On []HeldOn
	// Samples: the holders' samples in that time by stack and kind, most
	// Weight first.
	Samples []DoingSamples
	// Spans: the time by holder (0: unknown), in time order, disjoint: the
	// viewer shows a holder's lane and its samples for one.
	Spans []OwnerSpan
}

// HeldOn is time a lock's holder spent blocked on another lock.
type HeldOn struct {
	Lock  LockRef
	Owner format.ThreadID // that lock's holder, 0 when unknown
	Time  format.Time
}

// DoingSamples is a holder's samples of one stack and kind.
type DoingSamples struct {
	Stack   StackID
	Kind    format.SampleKind
	Samples int
	Weight  format.Time
}

// HoldersDoing returns, for every contended monitor and java.util.concurrent
// lock of the View (a semaphore has no holder), what its holders did
// while the View's threads were blocked on it. One pass over the threads'
// intervals collects every lock's blame spans. A Model built with
// Options.Spill reads each thread's intervals and samples from its spill,
// one thread at a time.
func (v *View) HoldersDoing() map[LockRef]*Doing {
	return v.holdersDoing(v.Model.spill != nil, nil)
}

// HoldersDoingWith is HoldersDoing, and calls each with every interval of
// the View's threads as its one pass reads them (thread by thread in the
// View's order, each thread's in order), with the interval's blame spans
// that have time (a Blocked or Acquire interval's; none for the others):
// another fold over all the intervals (the wait chains' edges,
// analysis.HoldersAndChains) then reads none again. Neither iv nor spans
// may be kept or changed after the call.
func (v *View) HoldersDoingWith(each func(t *Thread, iv *Interval, spans []OwnerSpan)) map[LockRef]*Doing {
	return v.holdersDoing(v.Model.spill != nil, each)
}

// HoldersDoingInMemory is HoldersDoing from the intervals and samples in
// memory, whether the Model has a spill or not: the validator's check that
// the spill gives the same (modeltest.Validate). With the intervals
// dropped (Options.DropIntervals), it is HoldersDoing.
func (v *View) HoldersDoingInMemory() map[LockRef]*Doing { return v.holdersDoing(v.Model.dropped, nil) }

// Spilled reports whether the Model was built with a spill that was
// written whole (Options.Spill).
func (m *Model) Spilled() bool { return m.spill != nil }

func (v *View) holdersDoing(spill bool, each func(*Thread, *Interval, []OwnerSpan)) map[LockRef]*Doing {
	m := v.Model
	load := func(t *Thread, sp *spilled, samples bool) *Thread {
		if !spill {
			return t
		}
		return m.spilledThread(t, sp, samples)
	}
	var sp spilled
	// The locks' owner changes, read back from the spill as the spans
	// need them (Options.DropIntervals), held while they are folded.
	oc := ownerCache{}
	spans := map[LockRef]*[]OwnerSpan{}
	var lastRef LockRef
	var last *[]OwnerSpan
	for _, t := range v.Threads {
		t := load(t, &sp, false)
		for i := range t.Intervals {
			iv := &t.Intervals[i]
			var ref LockRef
			switch {
			case iv.State == Blocked:
				ref = LockRef{iv.Object, Monitor}
			case iv.Acquire:
				ref = LockRef{iv.Object, JUCLock}
			default:
				if each != nil {
					each(t, iv, nil)
				}
				continue
			}
			if ref != lastRef || last == nil {
				// A thread's intervals mostly repeat one lock.
				if last = spans[ref]; last == nil {
					last = &[]OwnerSpan{}
					spans[ref] = last
				}
				lastRef = ref
			}
			n0 := len(*last)
			m.blameSpans(t.ID, iv, oc, func(sp OwnerSpan) bool {
				if sp.End > sp.Start {
					*last = append(*last, sp)
				}
				return true
			})
			if each != nil {
				each(t, iv, (*last)[n0:])
			}
		}
	}
	// Each lock's spans become their union; then all locks' spans are
	// folded holder by holder in time order, so that one cursor per
	// holder walks its intervals and samples forward (a holder's spans of
	// two locks may overlap: the cursor steps back a little) instead of
	// a search of the whole per span.
	// The sort's keys are in the entries: a compare reads no span. A
	// lock's fold is its number in folds, not a pointer: 24 bytes an
	// entry, not 32 (the entries are as many as the unions' spans: 16 M
	// in a 1 GB recording's report, at its peak of memory).
	type ref struct {
		start format.Time
		owner format.ThreadID
		span  int32
		fold  int32
	}
	// The unions first, then the index of theirs: the sorts' buffer is
	// free by then, and the index is as long as the unions, not the
	// spans.
	out := make(map[LockRef]*Doing, len(spans))
	folds := make([]*doingFold, 0, len(spans))
	var buf []OwnerSpan
	n := 0
	for r, ss := range spans {
		f := newDoingFold(r, *ss, &buf)
		// The union is written over the spans, in their array: a copy
		// of its length frees that array (a fifth more spans than the
		// union, and the appends' room) before the index below is made,
		// the peak of a big recording's report (docs/streaming.md).
		f.d.Spans, *ss = slices.Clone(f.d.Spans), nil
		f.oc = oc
		out[r] = f.d
		folds = append(folds, f)
		n += len(f.d.Spans)
	}
	buf = nil
	all := make([]ref, 0, n)
	for k, f := range folds {
		for i, s := range f.d.Spans {
			all = append(all, ref{s.Start, s.Owner, int32(i), int32(k)})
		}
	}
	slices.SortFunc(all, func(x, y ref) int {
		return cmp.Or(cmp.Compare(x.owner, y.owner), cmp.Compare(x.start, y.start))
	})
	var c Cursor
	var h *Thread
	for i, r := range all {
		if i == 0 || all[i-1].owner != r.owner {
			c = Cursor{}
			h = load(m.Thread(r.owner), &sp, true)
		}
		f := folds[r.fold]
		m.foldSpan(f, &f.d.Spans[r.span], h, &c)
	}
	for _, f := range folds {
		f.finish()
	}
	return out
}

// DoingIn returns what the holders of lock did in the spans ss (one
// contention's BlameSpans: the viewer's "what the holder was doing" of a
// blocked interval), folded as HoldersDoing folds a lock's; ss is not
// changed.
func (m *Model) DoingIn(lock LockRef, ss []OwnerSpan) *Doing {
	f := newDoingFold(lock, slices.Clone(ss), nil)
	f.oc = m.ownerCache()
	cursors := map[format.ThreadID]*Cursor{}
	for i := range f.d.Spans {
		s := &f.d.Spans[i]
		c := cursors[s.Owner]
		if c == nil {
			c = &Cursor{}
			cursors[s.Owner] = c
		}
		m.foldSpan(f, s, m.Thread(s.Owner), c)
	}
	f.finish()
	return f.d
}

// doingFold is one lock's Doing being folded: its spans' union is set,
// their holders' states and samples are added span by span (foldSpan),
// in any order, then sorted (finish).
type doingFold struct {
	oc      ownerCache // the owner changes read back (blameSpans)
	d       *Doing
	lock    LockRef // the lock whose holders these are
	on      map[HeldOn]format.Time
	samples map[stackKind]*DoingSamples
}

type stackKind struct {
	stack StackID
	kind  format.SampleKind
}

// newDoingFold begins the fold of lock's blame spans ss (reordered and
// overwritten): their union, each instant the holder of the span that
// began first. buf, if not nil, is room for the sort, kept for the next.
func newDoingFold(lock LockRef, ss []OwnerSpan, buf *[]OwnerSpan) *doingFold {
	if buf == nil {
		buf = new([]OwnerSpan)
	}
	sortByStart(ss, buf)
	// The union is written over ss as it is read: it never gets ahead.
	d := &Doing{Spans: ss[:0]}
	for _, s := range ss {
		n := len(d.Spans)
		if n > 0 {
			s.Start = max(s.Start, d.Spans[n-1].End)
		}
		if s.End <= s.Start {
			continue
		}
		if n > 0 && d.Spans[n-1].Owner == s.Owner && d.Spans[n-1].End == s.Start {
			d.Spans[n-1].End = s.End
		} else {
			d.Spans = append(d.Spans, s)
		}
	}
	return &doingFold{d: d, lock: lock, on: map[HeldOn]format.Time{}, samples: map[stackKind]*DoingSamples{}}
}

// foldSpan adds what the holder of s, t (nil when unknown), did in it; c
// is the holder's cursor.
func (m *Model) foldSpan(f *doingFold, s *OwnerSpan, t *Thread, c *Cursor) {
	d := f.d
	d.Blocked += s.End - s.Start
	if t == nil {
		d.Unknown += s.End - s.Start
		return
	}
	a, b := max(s.Start, t.Start), min(s.End, t.End)
	if b <= a {
		d.Unknown += s.End - s.Start
		return
	}
	d.Unknown += s.End - s.Start - (b - a)
	d.Run.Add(t.RunInFrom(a, b, c))
	ivs := t.Intervals
	i := searchFrom(len(ivs), c.iv, func(i int) bool { return ivs[i].End > a })
	c.iv = i
	busy := format.Time(0)
	for ; i < len(ivs) && ivs[i].Start < b; i++ {
		iv := &ivs[i]
		in := min(iv.End, b) - max(iv.Start, a)
		busy += in
		if iv.State == Waiting && f.lock.Kind == Monitor && iv.Object == f.lock.Object {
			d.Released += in
			continue
		}
		d.Time[iv.Shown()] += in
		if iv.Shown() != Blocked {
			continue
		}
		ref := LockRef{iv.Object, Monitor}
		if iv.Acquire {
			ref.Kind = JUCLock
		}
		m.blameSpans(t.ID, iv, f.oc, func(sp OwnerSpan) bool {
			if x, y := max(sp.Start, a), min(sp.End, b); y > x {
				f.on[HeldOn{Lock: ref, Owner: sp.Owner}] += y - x
			}
			return true
		})
	}
	d.Time[Runnable] += b - a - busy
	for _, smp := range t.samplesIn(a, b, c) {
		k := stackKind{smp.Stack, smp.Kind}
		ds := f.samples[k]
		if ds == nil {
			ds = &DoingSamples{Stack: smp.Stack, Kind: smp.Kind}
			f.samples[k] = ds
		}
		ds.Samples++
		ds.Weight += smp.Weight
	}
}

// finish orders the fold's lock holdings and samples, most first.
func (f *doingFold) finish() {
	d := f.d
	d.On = make([]HeldOn, 0, len(f.on))
	for h, tm := range f.on {
		h.Time = tm
		d.On = append(d.On, h)
	}
	slices.SortFunc(d.On, func(x, y HeldOn) int {
		return cmp.Or(cmp.Compare(y.Time, x.Time), cmp.Compare(x.Lock.Object, y.Lock.Object),
			cmp.Compare(x.Lock.Kind, y.Lock.Kind), cmp.Compare(x.Owner, y.Owner))
	})
	for _, ds := range f.samples {
		d.Samples = append(d.Samples, *ds)
	}
	slices.SortFunc(d.Samples, func(x, y DoingSamples) int {
		return cmp.Or(cmp.Compare(y.Weight, x.Weight), cmp.Compare(y.Samples, x.Samples),
			cmp.Compare(x.Stack, y.Stack), cmp.Compare(x.Kind, y.Kind))
	})
}

// blameSpans is BlameSpans without the iterator's allocation: HoldersDoing
// calls it for every contention.
// oc holds the owner changes read back from the spill, the caller's.
func (m *Model) blameSpans(th format.ThreadID, iv *Interval, oc ownerCache, yield func(OwnerSpan) bool) {
	switch {
	case iv.State == Blocked:
		var changes []OwnerChange
		if l := m.Lock(iv.Object, Monitor); l != nil {
			changes = m.ownerChanges(l, oc)
		}
		ownerSpans(th, iv, changes, 0, yield)
	case iv.Acquire:
		yield(OwnerSpan{iv.Start, iv.End, iv.ParkOwner()})
	}
}

// sortByStart sorts ss by Start, stably, as slices.SortStableFunc would:
// by merging its runs already in order, with a buffer. A lock's blame
// spans come thread by thread, each thread's in time order, so there are
// about as many runs as threads blocked on it: O(n log runs) and plain
// copies, where the sort in place (insertion sorts and rotations) took
// 3-4 % of orca report's CPU on the 128 MB synthetic recording. buf is
// the room it merges into (grown to len(ss) when needed, and kept).
func sortByStart(ss []OwnerSpan, buf *[]OwnerSpan) {
	// The runs' bounds: run k is ss[bounds[k]:bounds[k+1]].
	bounds := []int{0}
	for i := 1; i < len(ss); i++ {
		if ss[i].Start < ss[i-1].Start {
			bounds = append(bounds, i)
		}
	}
	if len(bounds) == 1 {
		return // in order already
	}
	bounds = append(bounds, len(ss))
	if cap(*buf) < len(ss) {
		*buf = make([]OwnerSpan, len(ss))
	}
	src, dst := ss, (*buf)[:len(ss)]
	for len(bounds) > 2 {
		next := bounds[:1]
		for k := 0; k+1 < len(bounds); k += 2 {
			lo, mid := bounds[k], bounds[k+1]
			hi := mid
			if k+2 < len(bounds) {
				hi = bounds[k+2]
			}
			mergeByStart(dst[lo:hi], src[lo:mid], src[mid:hi])
			next = append(next, hi)
		}
		bounds = next
		src, dst = dst, src
	}
	if &src[0] != &ss[0] {
		copy(ss, src)
	}
}

// mergeByStart merges a and b, each in order of Start, into dst, a's
// first at equal starts (stable).
func mergeByStart(dst, a, b []OwnerSpan) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j].Start < a[i].Start {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}
