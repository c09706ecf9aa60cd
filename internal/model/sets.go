package model

import (
	"math"
	"slices"

	"orca/internal/format"
)

// Small collections of the fold, in place of maps: they are kept in
// order so that no map iteration order can leak into the Model, and they
// avoid the hashing and pointer chasing of maps per event.

// threadSet is a set of threads, sorted. The sets it stands for (the
// threads waiting on one object, the ones a notify could wake) are small.
type threadSet []format.ThreadID

func (s threadSet) has(th format.ThreadID) bool {
	_, found := slices.BinarySearch(s, th)
	return found
}

func (s *threadSet) add(th format.ThreadID) {
	if i, found := slices.BinarySearch(*s, th); !found {
		*s = slices.Insert(*s, i, th)
	}
}

func (s *threadSet) remove(th format.ThreadID) {
	if i, found := slices.BinarySearch(*s, th); found {
		*s = slices.Delete(*s, i, i+1)
	}
}

// without returns a copy of s without th, nil if that is empty.
func (s threadSet) without(th format.ThreadID) threadSet {
	n := len(s)
	if s.has(th) {
		n--
	}
	if n == 0 {
		return nil
	}
	c := make(threadSet, 0, n)
	for _, t := range s {
		if t != th {
			c = append(c, t)
		}
	}
	return c
}

// edgeBlock is the number of edges in a block of an edgeList.
const edgeBlock = 4096

// edgeList collects the Model's edges in blocks, joined once at the end:
// one slice of a million edges would be copied again at each growth, and
// the old copies would make the fold's peak memory.
type edgeList struct {
	blocks [][]Edge
	n      int
	// counts are the edges added by kind; with drop set (Options.NoEdges)
	// they are all that is kept.
	counts [NumEdgeKinds]int
	drop   bool
	// sp, with Options.SpillEdges: the edges but the start and join ones
	// go to the spill (edgespill.go); seq numbers every edge in the order
	// made, and seqs is that of each one kept in blocks.
	sp   *edgeSpill
	seq  uint64
	seqs []uint64
}

// add appends e and returns its index, -1 when the list drops its edges.
func (l *edgeList) add(e Edge) int {
	l.counts[e.Kind]++
	if l.drop {
		return -1
	}
	if l.sp != nil {
		seq := l.seq
		l.seq++
		if e.Kind != EdgeStart && e.Kind != EdgeJoin {
			l.sp.add(e, seq)
			return -1
		}
		l.seqs = append(l.seqs, seq)
	}
	if l.n%edgeBlock == 0 {
		l.blocks = append(l.blocks, make([]Edge, 0, edgeBlock))
	}
	last := &l.blocks[len(l.blocks)-1]
	*last = append(*last, e)
	l.n++
	return l.n - 1
}

// at returns the edge with index i.
func (l *edgeList) at(i int) *Edge { return &l.blocks[i/edgeBlock][i%edgeBlock] }

// all returns the edges in one slice and empties the list.
func (l *edgeList) all() []Edge {
	if l.n == 0 {
		return nil
	}
	all := make([]Edge, 0, l.n)
	for i, b := range l.blocks {
		all = append(all, b...)
		l.blocks[i] = nil // copied: the collector may take it
	}
	*l = edgeList{counts: l.counts, drop: l.drop, sp: l.sp, seq: l.seq, seqs: l.seqs}
	return all
}

// maxIvBlock bounds the blocks of an ivList: with the spill, a thread
// alive holds its last block or two (release gives up whole blocks): at
// 256 (18 kB), the 200 threads of the 128 MB synthetic recording that live
// all along hold ~100 000 intervals, not the ~500 000 of blocks of 1024.
const maxIvBlock = 256

// ivList is a thread's intervals while folding: the full blocks and the
// one being filled, joined once by Finalize. A busy thread has thousands
// of intervals; one slice would be copied again at each growth. With the
// spill and Options.DropIntervals, the blocks fed to the spill and behind
// every reader of the fold are given up (dropFront): base counts the
// intervals so given up, which the spill alone has (Builder.ivsFrom).
type ivList struct {
	full [][]Interval
	cur  []Interval
	base int
	grow int // the capacity of the block before cur, when cur was given up
	// last: copies of the last intervals given up with cur (at most
	// tailKeep), for the thread's tail at the end (Builder.tail).
	last []Interval
	// unsorted: an interval was added before the one added before it
	// (Finalize sorts them then); prev is the start of the last added.
	unsorted bool
	prev     format.Time
	// hint: the size of the first block when more than add's (a
	// thread's intervals at the last build of a Reuse: ivsWas).
	hint int
}

// tailKeep is how many of the last intervals given up an ivList keeps
// copies of: a thread's tail is its open segments at the end (a few
// states nested) and the one before.
const tailKeep = 8

// ivFree is the blocks of maxIvBlock given up (ivList.dropFront), in the
// spill, which the next lists to fill a block take (ivList.add): a thread
// alive all along fills a block every 256 intervals, and a new one each
// time was an allocation of 18 kB, zeroed, and the collector's work
// (makeslice, 1.4 % of orca report at 1 GB). Intervals hold no pointer,
// so a block given up is not cleared.
type ivFree struct{ blks [][]Interval }

// ivFreeMax bounds the blocks kept in an ivFree (256: 4.6 MB): those
// given up at a seal are taken again before the next.
const ivFreeMax = 256

func (f *ivFree) put(blk []Interval) {
	if f != nil && cap(blk) == maxIvBlock && len(f.blks) < ivFreeMax {
		f.blks = append(f.blks, blk[:0])
	}
}

func (f *ivFree) take() []Interval {
	if f == nil || len(f.blks) == 0 {
		return nil
	}
	blk := f.blks[len(f.blks)-1]
	f.blks[len(f.blks)-1] = nil
	f.blks = f.blks[:len(f.blks)-1]
	return blk
}

// add appends iv (slot).
func (l *ivList) add(iv Interval, s *slab[Interval], free *ivFree) { *l.slot(iv.Start, s, free) = iv }

// slot appends an interval that starts at start and returns it, for the
// caller to fill (every field: a block taken from free holds old ones),
// which the caller does in place: an Interval is 72 bytes, and segment's
// copy of it handed to add, then appended, was two copies more. Its
// blocks come from s when not nil (Options.Reuse), else from free, the
// blocks given up, when one of maxIvBlock is due.
func (l *ivList) slot(start format.Time, s *slab[Interval], free *ivFree) *Interval {
	if len(l.cur) == cap(l.cur) {
		if l.cur != nil {
			l.full = append(l.full, l.cur)
		}
		n := min(max(2*cap(l.cur), 2*l.grow, 4), maxIvBlock)
		if s != nil && l.hint > n && l.cur == nil && l.full == nil {
			// A quarter more than the last build's, up to an eighth of
			// the slab's block: a take that does not fit in what is left
			// of the block skips that rest (at a half, a push allocated
			// 8 % more).
			n = min(l.hint+l.hint/4+4, s.size/8)
		}
		l.hint = 0
		switch {
		case s != nil:
			l.cur = s.take(n, false)[:0]
		case n == maxIvBlock && free != nil && len(free.blks) > 0:
			l.cur = free.take()
		default:
			l.cur = make([]Interval, 0, n)
		}
	}
	if start < l.prev {
		l.unsorted = true
	}
	l.prev = start
	l.cur = l.cur[:len(l.cur)+1]
	return &l.cur[len(l.cur)-1]
}

// back calls fn with each interval from the last one backwards until fn
// returns false.
func (l *ivList) back(fn func(*Interval) bool) {
	for k := len(l.full); k >= 0; k-- {
		blk := l.cur
		if k < len(l.full) {
			blk = l.full[k]
		}
		for i := len(blk) - 1; i >= 0; i-- {
			if !fn(&blk[i]) {
				return
			}
		}
	}
}

// len returns the number of intervals in the list, those given up
// included.
func (l *ivList) len() int {
	n := l.base + len(l.cur)
	for _, b := range l.full {
		n += len(b)
	}
	return n
}

// each calls fn with the intervals from index from on, a block at a time,
// until fn returns false. from is at least base: those before are given up.
func (l *ivList) each(from int, fn func([]Interval) bool) {
	from -= l.base
	for k := 0; k <= len(l.full); k++ {
		blk := l.cur
		if k < len(l.full) {
			blk = l.full[k]
		}
		if from >= len(blk) {
			from -= len(blk)
			continue
		}
		if !fn(blk[from:]) {
			return
		}
		from = 0
	}
}

// held returns the number of intervals in memory.
func (l *ivList) held() int { return l.len() - l.base }

// firstEnd returns the index after the first block in memory (dropFront
// gives up none before upto reaches it).
func (l *ivList) firstEnd() int {
	if len(l.full) > 0 {
		return l.base + len(l.full[0])
	}
	if len(l.cur) > 0 {
		return l.base + len(l.cur)
	}
	return math.MaxInt
}

// dropFront gives up the blocks whose intervals are all before index upto,
// into free when not nil, and returns how many intervals it gave up.
func (l *ivList) dropFront(upto int, free *ivFree) int {
	n := 0
	for len(l.full) > 0 && l.base+len(l.full[0]) <= upto {
		l.base += len(l.full[0])
		n += len(l.full[0])
		l.keepLast(l.full[0])
		free.put(l.full[0])
		l.full[0] = nil
		l.full = l.full[1:]
	}
	if len(l.full) == 0 && len(l.cur) > 0 && l.base+len(l.cur) <= upto {
		// The last block too: the next one grows as if it were kept.
		l.base += len(l.cur)
		n += len(l.cur)
		l.keepLast(l.cur)
		free.put(l.cur)
		l.grow, l.cur = cap(l.cur), nil
	}
	if len(l.full) == 0 {
		l.full = nil // its array held the blocks given up
	}
	return n
}

// keepLast keeps copies of the last intervals of blk, a block given up,
// in last: with those kept before, the last tailKeep given up.
func (l *ivList) keepLast(blk []Interval) {
	blk = blk[max(len(blk)-tailKeep, 0):]
	if k := len(l.last) + len(blk) - tailKeep; k > 0 {
		l.last = append(l.last[:0], l.last[min(k, len(l.last)):]...)
	}
	l.last = append(l.last, blk...)
}

// all returns the intervals in one slice and empties the list; none may
// have been given up. The slice is from s when not nil (Options.Reuse).
func (l *ivList) all(s *slab[Interval]) []Interval {
	all := l.cur
	if len(l.full) > 0 {
		n := len(l.cur)
		for _, b := range l.full {
			n += len(b)
		}
		if s != nil {
			all = s.take(n, false)[:0]
		} else {
			all = make([]Interval, 0, n)
		}
		for _, b := range l.full {
			all = append(all, b...)
		}
		all = append(all, l.cur...)
	}
	*l = ivList{}
	return all
}
