package web

import (
	"sort"

	"orca/internal/format"
	"orca/internal/model"
)

// A thread of more intervals than a piece (model.IntervalWindow: a Tomcat
// poller of an hour, 11.6 M intervals, was 839 MB read whole, the
// viewer's peak while it built its index) is read by pieces for the
// index: its lanes of every tile of the levels kept whole (at most
// indexMaxTiles tiles each) are cut as its intervals come, a levelCut a
// level, each tile's segments by a segCutter, the tiles' lanes the same
// as lane cuts them from the whole thread.

// levelCut cuts one thread's lanes of the tiles of one level, over the
// thread's span, from its intervals given in order: each tile's segments
// (tileSegments), pieces of runnable time (runPieces) and records (the
// intervals over it and the samples in it: writeKept's count), given to
// done in order of tile, each once no later interval can be over it.
type levelCut struct {
	level             int
	origin, span, rpx format.Time
	t                 *model.Thread // its samples, scheduler times and windows (data.runOf)
	split             bool
	last              int64 // the level's last tile
	next              int64 // the first tile not yet done
	open              []openTile
	done              func(k int64, segs []segment, runs []runPiece, n int)
	// keepMin: a tile's lane is wanted only when it has more than this
	// many records (a level of kept tiles alone, writeKept's
	// laneKeepMin), -1: every tile's. Then its intervals are counted as
	// they come, not cut, and the few tiles of more are cut once done
	// from their intervals read again (reread: the blocks of the spill
	// over the tile, model.EachIntervalIn), not held meanwhile: holding
	// each tile's first laneKeepMin at every such level cost an hour of
	// Tomcat's index 45 CPU-s more than reading its threads whole.
	keepMin int
	reread  func(a0, a1 format.Time, add func(iv *model.Interval, i int))
}

// openTile is a tile of a levelCut's that has intervals and may have
// more: open[i] is tile next+i.
type openTile struct {
	c segCutter
	n int
}

// newLevelCut starts a levelCut of thread t (data.runOf: no intervals)
// at level, for a recording that starts at origin and lasts dur, from
// tile lo's (the thread's span's start: its start, or its first
// interval's).
func newLevelCut(level int, t *model.Thread, split bool, origin, dur, lo format.Time, done func(k int64, segs []segment, runs []runPiece, n int)) *levelCut {
	rpx := format.Time(1) << level
	span := rpx * TileWidth
	return &levelCut{level: level, origin: origin, span: span, rpx: rpx, t: t, split: split,
		last: int64(dur / span), next: int64(max(lo-origin, 0) / span), done: done, keepMin: -1}
}

// add gives c interval iv, the thread's i-th (in order of start, as its
// intervals are): the tiles before its start are done.
func (c *levelCut) add(iv *model.Interval, i int) {
	s, e := iv.Start-c.origin, iv.End-c.origin
	// Every tile that ends by iv's start is done: no later interval
	// begins before it.
	for c.next <= c.last && s >= format.Time(c.next+1)*c.span {
		c.finish()
	}
	// The tiles over it: a tile [a0, a1) has it when it ends after a0
	// and begins before a1, as tileSegments and writeKept find them.
	if e <= 0 {
		return
	}
	// Shifts, not divisions (both numbers are at least 0), for every
	// interval at every level kept whole: the hour of Tomcat's first open
	// sampled 5.6 of its 139 CPU-s on the divisions' line; with shifts,
	// add's own time 10.01 -> 8.24 s in one pair.
	sh := uint(c.level) + tileShift // span is 1<<sh
	kf, kl := int64(max(s, 0)>>sh), min(int64((e-1)>>sh), c.last)
	kf = max(kf, c.next)
	for k := kf; k <= kl; k++ {
		j := int(k - c.next)
		for len(c.open) <= j {
			c.open = append(c.open, openTile{c: segCutter{r: c.rpx}})
		}
		o := &c.open[j]
		o.n++
		if c.keepMin < 0 {
			o.c.add(iv, i)
		}
	}
}

// finish gives done tile next's lane, and moves on.
func (c *levelCut) finish() {
	var o openTile
	if len(c.open) > 0 {
		o = c.open[0]
		c.open = c.open[1:]
	}
	a0 := c.origin + format.Time(c.next)*c.span
	a1 := a0 + c.span
	smp := c.t.Samples
	n := o.n + sort.Search(len(smp), func(i int) bool { return smp[i].At >= a1 }) -
		sort.Search(len(smp), func(i int) bool { return smp[i].At >= a0 })
	if c.keepMin >= 0 {
		if n <= c.keepMin {
			c.done(c.next, nil, nil, n) // not wanted: not cut
			c.next++
			return
		}
		o.c = segCutter{r: c.rpx}
		c.reread(a0, a1, func(iv *model.Interval, i int) {
			if iv.End > a0 && iv.Start < a1 {
				o.c.add(iv, i)
			}
		})
	}
	o.c.flush()
	var runs []runPiece
	if c.split {
		runs = runPieces(c.t, a0, a1, c.rpx, o.c.out, nil)
	}
	c.done(c.next, o.c.out, runs, n)
	c.next++
}

// end gives done every tile left to hi's, the thread's span's end (its
// end, or its last interval's).
func (c *levelCut) end(hi format.Time) {
	for k := min(int64((hi-c.origin)/c.span), c.last); c.next <= k; {
		c.finish()
	}
}
