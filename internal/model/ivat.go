package model

import (
	"encoding/binary"
	"slices"
	"sort"

	"orca/internal/format"
)

// An interval at an instant, or the k-th of a thread's, is what the
// viewer's clicks ask (the wait-for graph at an instant, an interval's
// panel, the chain through it): read back whole, a Tomcat worker of an
// hour was 3.17 M intervals each time (the wait-for graph of the hour's
// threads at an instant 14.23 s and 2.27 GB of the viewer). The spill's
// blocks of a thread's intervals (spillIvs, at most ivBlockMax each) are
// in order of start, and each decodes alone, its first interval against
// the zero Interval: a block's first start is a read of a few bytes, and
// the blocks that hold an instant are found by a search of them.

// spillIvBlocks is a thread's blocks of intervals, in order, and the index of
// each one's first interval among the thread's.
type spillIvBlocks struct {
	bs    []spillKBlock
	first []int
	// starts: the blocks' first intervals' starts, those read (known)
	// by a search (blockAt) or after.
	starts []format.Time
	known  []bool
}

// ivBlocksOf returns t's blocks of intervals in the spill.
func ivBlocksOf(t *Thread) spillIvBlocks {
	var x spillIvBlocks
	n := 0
	for _, b := range t.spill.decode(nil) {
		if b.k == spillIvs {
			x.bs = append(x.bs, b)
			x.first = append(x.first, n)
			n += int(b.c)
		}
	}
	x.starts, x.known = make([]format.Time, len(x.bs)), make([]bool, len(x.bs))
	return x
}

// blockAt returns the last of x's blocks whose first interval starts at
// or before at (the first block when none does): a search of the
// blocks' first starts, each read once (x.starts).
func (m *Model) blockAt(x *spillIvBlocks, at format.Time, room *[]byte) (int, error) {
	var serr error
	j := sort.Search(len(x.bs), func(i int) bool {
		if serr != nil {
			return true
		}
		if !x.known[i] {
			x.starts[i], serr = m.blockStart(x.bs[i], room)
			x.known[i] = true
		}
		return serr != nil || x.starts[i] > at
	}) - 1
	return max(j, 0), serr
}

// blockStart returns the start of block b's first interval.
func (m *Model) blockStart(b spillKBlock, room *[]byte) (format.Time, error) {
	if spillReadFault != nil {
		return 0, spillReadFault
	}
	n := min(b.n, int64(binary.MaxVarintLen64+ivPackMax))
	*room = slices.Grow((*room)[:0], int(n))[:n]
	if _, err := m.spill.readAt(*room, b.off); err != nil {
		return 0, err
	}
	var one [1]Interval
	ivs, err := decodeIvs(one[:0], *room, 0, 1)
	if err != nil {
		return 0, err
	}
	return ivs[0].Start, nil
}

// readBlocks reads x's blocks lo to hi (included) into dst's room.
func (m *Model) readBlocks(x *spillIvBlocks, lo, hi int, dst []Interval, room *[]byte) ([]Interval, error) {
	bs := x.bs[lo : hi+1]
	var n int64
	for _, b := range bs {
		n += b.n
	}
	var to [spillKinds][]byte
	*room = slices.Grow((*room)[:0], int(n))[:n]
	to[spillIvs] = *room
	var stage []byte
	if err := spillFill(m.spill, bs, &to, &stage, nil); err != nil {
		return dst[:0], err
	}
	ivs, err := decodeIvsOf(dst, *room, bs)
	if err == nil && !startsInOrder(ivs) {
		err = spillErr("a thread's intervals read back from the model's temporary file are not in order")
	}
	return ivs, err
}

// blocked reports whether t's intervals are read back a block at a time:
// a Model built with Options.DropIntervals, t's intervals in order of
// start in more than one block.
func (m *Model) blocked(t *Thread) bool {
	return m.dropped && m.spill != nil && !t.ivsUnsorted && t.spill.count(spillIvs) > 0
}

// ReadIntervalsAt returns a window of t's intervals around instant at, and
// the index of its first among the thread's: every interval that holds at
// (Thread.IntervalAt finds the same in it), with the first of the thread's
// that ends after at and the one before that (a runnable stretch's
// bounds, the chain's root's). Of a Model built with Options.DropIntervals
// it reads the spill's blocks that hold them, a search of the blocks'
// first starts, not the whole thread; at or after the thread's end, its
// tail (TailOf: its open segments) when kept. Any number of goroutines may
// call it at once (the viewer's handlers); a failed read is its error.
func (m *Model) ReadIntervalsAt(t *Thread, at format.Time, dst []Interval) (ivs []Interval, from int, err error) {
	if !m.dropped {
		return t.Intervals, 0, nil
	}
	if at >= t.End && t.tailOK {
		return t.tails(dst[:0]), int(t.tailAt), nil
	}
	if at >= t.End || !m.blocked(t) {
		// At the end without the tail: its open segments, which may
		// be more than a block's last, read whole.
		ivs, err = m.ReadIntervals(t, dst)
		return ivs, 0, err
	}
	x := ivBlocksOf(t)
	var room []byte
	j, err := m.blockAt(&x, at, &room)
	if err != nil {
		return dst[:0], 0, err
	}
	lo, hi := j, j
	for {
		ivs, err = m.readBlocks(&x, lo, hi, dst, &room)
		if err != nil {
			return dst[:0], 0, err
		}
		i := sort.Search(len(ivs), func(i int) bool { return ivs[i].End > at })
		switch {
		case i == 0 && lo > 0:
			lo-- // the one before, or an interval of a block before that holds at
		case i == len(ivs) && hi < len(x.bs)-1:
			hi++ // the next, the first that ends after at
		default:
			return ivs, x.first[lo], nil
		}
	}
}

// ReadInterval returns t's k-th interval (0 <= k < IntervalCount(t)): of
// a Model built with Options.DropIntervals, read back from the spill's
// block that holds it alone. Any number of goroutines may call it at
// once; a failed read is its error.
func (m *Model) ReadInterval(t *Thread, k int) (Interval, error) {
	if !m.dropped {
		return t.Intervals[k], nil
	}
	if !m.blocked(t) {
		ivs, err := m.ReadIntervals(t, nil)
		if err != nil {
			return Interval{}, err
		}
		return ivs[k], nil
	}
	x := ivBlocksOf(t)
	j := sort.Search(len(x.first), func(i int) bool { return x.first[i] > k }) - 1
	var room []byte
	ivs, err := m.readBlocks(&x, j, j, nil, &room)
	if err != nil {
		return Interval{}, err
	}
	if k-x.first[j] >= len(ivs) {
		return Interval{}, spillErr("a thread's interval is not where its blocks' counts say")
	}
	return ivs[k-x.first[j]], nil
}

// EachIntervalIn calls fn with t's intervals over [a, b), every one that
// ends after a and begins before b, in order, with others around them
// (the spill's blocks that hold them are read whole): a run of blocks at
// a time, about a piece of intervals (ivPiece), and the index of each
// run's first among the thread's; it stops when fn returns false. Of a
// Model built with Options.DropIntervals, it reads those blocks alone,
// found by a search of their first starts (ReadIntervalsAt), in the
// memory of a run (fn's ivs valid until it returns): a tile of the viewer's cut from the model (a lock's
// highlight) or a lane's kept tile cut again read a Tomcat poller of an
// hour (11.6 M intervals, 839 MB) whole. Of a thread not in order or a
// Model that keeps them, fn has the whole once. Any number of goroutines
// may call it at once; a failed read is its error.
func (m *Model) EachIntervalIn(t *Thread, a, b format.Time, fn func(ivs []Interval, from int) bool) error {
	if !m.dropped {
		fn(t.Intervals, 0)
		return nil
	}
	if !m.blocked(t) {
		ivs, err := m.ReadIntervals(t, nil)
		if err == nil {
			fn(ivs, 0)
		}
		return err
	}
	x := ivBlocksOf(t)
	var room []byte
	// lo: the block of the last interval that begins by a, or one before
	// it that holds an interval that ends after a.
	lo, serr := m.blockAt(&x, a, &room)
	if serr != nil {
		return serr
	}
	start := func(i int) format.Time {
		if !x.known[i] && serr == nil {
			x.starts[i], serr = m.blockStart(x.bs[i], &room)
			x.known[i] = true
		}
		return x.starts[i]
	}
	var buf []Interval
	for {
		ivs, err := m.readBlocks(&x, lo, lo, buf, &room)
		if err != nil {
			return err
		}
		buf = ivs
		if lo == 0 || len(ivs) == 0 || ivs[0].End <= a {
			break
		}
		lo--
	}
	for i := lo; i < len(x.bs); {
		if i > lo && start(i) >= b {
			break // begins at or after b, and every block after it
		}
		if serr != nil {
			return serr
		}
		// A run: blocks from i, about a piece of intervals, none that
		// begins at or after b.
		j, n := i+1, x.bs[i].c
		for j < len(x.bs) && n+x.bs[j].c <= int64(ivPiece) {
			if start(j) >= b {
				break
			}
			n += x.bs[j].c
			j++
		}
		if serr != nil {
			return serr
		}
		ivs, err := m.readBlocks(&x, i, j-1, buf, &room)
		if err != nil {
			return err
		}
		buf = ivs
		if !fn(ivs, x.first[i]) {
			return nil
		}
		i = j
	}
	return nil
}
