package web

import (
	"encoding/binary"
	"math"
	"net/http"
	"sort"

	"orca/internal/format"
	"orca/internal/model"
)

// The timeline asks for tiles: TileWidth pixels of time at a zoom level L
// where one pixel is 2^L ns, for a list of threads. A tile holds each
// thread's intervals in its span, with intervals narrower than a pixel
// merged: a run of them whose gaps are under a pixel too becomes one
// "mixed" segment, drawn in the colour of the state that fills most of it,
// the runnable gaps between them counted (a mixed segment mostly runnable
// is drawn as a thread's runnable time not split: timeline.js).
// So a tile never has more than about 2 segments per pixel per thread,
// whatever the recording's size, and the browser draws only what shows.

// TileWidth is a tile's width in pixels, 1<<tileShift.
const (
	TileWidth = 1 << tileShift
	tileShift = 10
)

// MaxLevel bounds the zoom levels (2^40 ns is about 18 minutes per pixel).
const MaxLevel = 40

// tileMagic starts every tile ("ORCT" read as a little-endian uint32).
const tileMagic = 0x5443524F

// Flags in a segment's state byte, above the state in the low 4 bits.
const (
	flagOpen      = 0x40 // the recording ended in this state
	flagHighlight = 0x80 // the segment matches the request's lock (or, mixed, contains one that does)
)

type segment struct {
	start, end format.Time
	first      uint32 // index of the first interval in the thread
	n          uint32 // intervals merged (1: a single interval)
	state      uint8
}

// tileSegments returns one thread's segments in [a0, a1) at r ns per pixel.
func tileSegments(t *model.Thread, a0, a1, r format.Time, hl format.ObjectID, out []segment) []segment {
	ivs := t.Intervals
	i := sort.Search(len(ivs), func(i int) bool { return ivs[i].End > a0 })
	c := segCutter{r: r, hl: hl, out: out}
	for ; i < len(ivs) && ivs[i].Start < a1; i++ {
		c.add(&ivs[i], i)
	}
	c.flush()
	return c.out
}

// segCutter cuts a thread's segments of a tile (tileSegments) from the
// intervals over it, given in order (i: the interval's index in the
// thread), at r ns per pixel: the index's build of a thread read by
// pieces gives each tile's as they come (levelCut).
type segCutter struct {
	r     format.Time
	hl    format.ObjectID
	pend  segment
	times [model.NumStates]format.Time
	out   []segment
}

// add adds interval iv, the thread's i-th.
func (c *segCutter) add(iv *model.Interval, i int) {
	if iv.End == iv.Start && !iv.Open {
		return
	}
	st := uint8(iv.Shown())
	if iv.Open {
		st |= flagOpen
	}
	if c.hl != 0 && iv.Object == c.hl {
		st |= flagHighlight
	}
	if iv.End-iv.Start >= c.r {
		c.flush()
		c.out = append(c.out, segment{iv.Start, iv.End, uint32(i), 1, st})
		return
	}
	if c.pend.n > 0 && iv.Start-c.pend.end < c.r {
		if iv.Start > c.pend.end {
			c.times[model.Runnable] += iv.Start - c.pend.end
		}
		c.pend.end = max(c.pend.end, iv.End)
		c.pend.n++
		c.pend.state |= st & flagHighlight
	} else {
		c.flush()
		c.pend = segment{iv.Start, iv.End, uint32(i), 1, st}
	}
	c.times[iv.Shown()] += iv.End - iv.Start + 1 // +1: zero-length segments count too
}

// flush ends the run of merged intervals pending, if any.
func (c *segCutter) flush() {
	if c.pend.n == 0 {
		return
	}
	if c.pend.n > 1 {
		// Runnable counts: the gaps between the merged intervals. A
		// thread blocked a tenth of the time in thousands of short
		// contentions (Tomcat 25's Poller) was a solid blocked bar.
		best := model.Runnable
		for s := model.State(0); s < model.NumStates; s++ {
			if c.times[s] > c.times[best] {
				best = s
			}
		}
		c.pend.state = c.pend.state&(flagHighlight) | uint8(best)
	}
	c.out = append(c.out, c.pend)
	c.pend = segment{}
	c.times = [model.NumStates]format.Time{}
}

// runPiece is a stretch of a thread's runnable time with its split into
// running, ready and other (model.Thread.RunIn).
type runPiece struct {
	start, end format.Time
	split      model.RunSplit
}

// hasSplit reports whether t's runnable time is split at all (scheduler
// times or samples): a thread without is drawn as before, one runnable
// bar, and sends no pieces.
func hasSplit(t *model.Thread) bool {
	return t.SchedCount() >= 2 || t.Run.Unsplit != t.Time[model.Runnable]
}

// runMinPx is the narrowest, in pixels, a piece of runnable time is cut
// to at a scheduler time: windows narrower than that are drawn together.
const runMinPx = 2

// runPieces returns t's runnable time in [a0, a1) that its segments segs
// (tileSegments) leave uncovered, cut at its scheduler times (the model's
// windows) at r ns a pixel, each piece with the model's split of it
// (RunIn). A piece is no finer than a window: the model places a sample's
// weight within the window it fell in, and a piece of a pixel would hold a
// sample standing for more time than the pixel's. Nor narrower than
// runMinPx pixels where windows are (a long recording's whole, zoomed
// out): RunIn of whole windows is their sum, so a piece of several is
// exact, and a lane's pieces stay about as many as its pixels. The
// runnable time under a mixed segment is not drawn, as before.
func runPieces(t *model.Thread, a0, a1, r format.Time, segs []segment, out []runPiece) []runPiece {
	lo, hi := max(a0, t.Start), min(a1, t.End)
	sc := t.Sched
	add := func(a, b format.Time) {
		for a < b {
			e := b
			// The first scheduler time at least runMinPx pixels on.
			if i := sort.Search(len(sc), func(i int) bool { return sc[i].At >= a+runMinPx*r }); i < len(sc) && sc[i].At < b {
				e = sc[i].At
			}
			if sp := t.RunIn(a, e); sp.Total() > 0 {
				out = append(out, runPiece{a, e, sp})
			}
			a = e
		}
	}
	at := lo
	for _, sg := range segs {
		if sg.start > at {
			add(at, min(sg.start, hi))
		}
		at = max(at, sg.end)
	}
	add(at, hi)
	return out
}

// tiles answers GET /api/tiles?level=L&tile=K&threads=LIST[&lock=HEX] with
// the binary tile described in docs/web.md.
func (s *site) tiles(w http.ResponseWriter, r *http.Request) {
	level, err := intParam(r, "level", -1, 0, MaxLevel)
	if err == nil && level < 0 {
		err = badRequest("level: missing (0 to %d)", MaxLevel)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	rpx := format.Time(1) << level
	span := rpx * TileWidth
	last := s.duration() / int64(span)
	k, err := intParam(r, "tile", -1, 0, last)
	if err == nil && k < 0 {
		err = badRequest("tile: missing (0 to %d at level %d)", last, level)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	q := r.URL.Query()
	threads, err := s.threadList(q.Get("threads"), 4096)
	if err != nil {
		writeError(w, err)
		return
	}
	var hl format.ObjectID
	if v := q.Get("lock"); v != "" {
		if hl, err = objectParam("lock", v); err != nil {
			writeError(w, err)
			return
		}
	}
	var b []byte
	if s.idx != nil && hl == 0 {
		b, err = s.idx.tile(int(level), int(k), threads)
	}
	if b == nil && err == nil {
		if s.d == nil {
			err = s.reading()
		} else {
			b = encodeTile(s.d.m.Start, threads, s.d.tileLanes(int(level), k, threads, hl))
		}
	}
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

// lanes are a tile's threads' segments and pieces of runnable time, each
// lane's after the one before.
type lanes struct {
	counts, runCounts []uint32
	segs              []segment
	runs              []runPiece
}

// tileLanes cuts tile k of level for threads from the model.
func (d *data) tileLanes(level int, k int64, threads []int, hl format.ObjectID) lanes {
	rpx := format.Time(1) << level
	a0 := d.m.Start + format.Time(k)*rpx*TileWidth
	a1 := a0 + rpx*TileWidth
	l := lanes{counts: make([]uint32, len(threads)), runCounts: make([]uint32, len(threads))}
	for j, ti := range threads {
		if t := d.m.ThreadAt(ti); d.m.IntervalsDropped() && d.m.IntervalCount(t) > laneWholeMax {
			d.laneByBlocks(&l, j, ti, t, a0, a1, rpx, hl)
			continue
		}
		l.lane(j, d.threadWith(ti), a0, a1, rpx, hl)
	}
	return l
}

// laneWholeMax: a thread of more intervals than this has its lane of a
// tile cut from the model by laneByBlocks, not from threadWith (which
// keeps none of more than a quarter of its cache). A variable, that a
// test makes smaller.
var laneWholeMax = ivCacheMax / 4

// laneByBlocks is lane j's, thread ti's, t, in [a0, a1), of a thread too
// large for threadWith's cache, which it reads whole each time (a Tomcat poller
// of an hour, 11.6 M intervals, for each tile of a lock's highlight): its
// intervals over the tile alone (model.EachIntervalIn, a run of the
// spill's blocks at a time), with its samples, scheduler times and
// windows (data.runOf).
func (d *data) laneByBlocks(l *lanes, j, ti int, t *model.Thread, a0, a1, rpx format.Time, hl format.ObjectID) {
	h := d.runOf(ti)
	n := len(l.segs)
	c := segCutter{r: rpx, hl: hl, out: l.segs}
	err := d.m.EachIntervalIn(t, a0, a1, func(ivs []model.Interval, from int) bool {
		for i := range ivs {
			iv := &ivs[i]
			if iv.Start >= a1 {
				return false
			}
			if iv.End > a0 {
				c.add(iv, from+i)
			}
		}
		return true
	})
	if err != nil {
		panic(&model.SpillError{Err: err})
	}
	c.flush()
	l.segs = c.out
	l.counts[j] = uint32(len(l.segs) - n)
	l.runsOf(j, h, hasSplit(h), a0, a1, rpx)
}

// lane appends lane j's: thread t's in [a0, a1) at rpx ns a pixel.
func (l *lanes) lane(j int, t *model.Thread, a0, a1, rpx format.Time, hl format.ObjectID) {
	l.laneWith(j, t, hasSplit(t), a0, a1, rpx, hl)
}

// laneWith is lane with split saying whether t's runnable time is split
// (hasSplit: of the whole thread, where t is a part of it).
func (l *lanes) laneWith(j int, t *model.Thread, split bool, a0, a1, rpx format.Time, hl format.ObjectID) {
	n := len(l.segs)
	l.segs = tileSegments(t, a0, a1, rpx, hl, l.segs)
	l.counts[j] = uint32(len(l.segs) - n)
	l.runsOf(j, t, split, a0, a1, rpx)
}

// runsOf appends lane j's pieces of runnable time, thread t's in [a0, a1)
// around the lane's segments (the last ones appended), when split.
func (l *lanes) runsOf(j int, t *model.Thread, split bool, a0, a1, rpx format.Time) {
	if split {
		n := len(l.runs)
		l.runs = runPieces(t, a0, a1, rpx, l.segs[len(l.segs)-int(l.counts[j]):], l.runs)
		l.runCounts[j] = uint32(len(l.runs) - n)
	}
}

// encodeTile lays a tile out in columns, little-endian:
//
//	u32 magic, u32 version (1), u32 lanes, u32 segments
//	u32 thread[lanes], u32 count[lanes], padding to 8 bytes
//	f64 start[segments], f64 end[segments]   ns since the recording's start
//	u32 first[segments], u32 n[segments]
//	u8 state[segments]
//	padding to 8 bytes, u32 runs[lanes], padding to 8 bytes
//	f64 runStart[R], f64 runEnd[R]           the pieces of runnable time (runPieces)
//	f64 running[R], ready[R], other[R], virtual[R], unsplit[R]   ns of each piece
//
// Float64Array and friends read the columns without copying.
func encodeTile(origin format.Time, threads []int, l lanes) []byte {
	counts, segs, runCounts, runs := l.counts, l.segs, l.runCounts, l.runs
	lanes, n := len(threads), len(segs)
	head := 16 + 8*lanes
	head = (head + 7) &^ 7
	mid := (head + n*(8+8+4+4+1) + 7) &^ 7
	rhead := (mid + 4*lanes + 7) &^ 7
	b := make([]byte, rhead+len(runs)*7*8)
	le := binary.LittleEndian
	le.PutUint32(b[0:], tileMagic)
	le.PutUint32(b[4:], 2)
	le.PutUint32(b[8:], uint32(lanes))
	le.PutUint32(b[12:], uint32(n))
	for j, t := range threads {
		le.PutUint32(b[16+4*j:], uint32(t))
		le.PutUint32(b[16+4*lanes+4*j:], counts[j])
	}
	p := head
	for _, sg := range segs {
		le.PutUint64(b[p:], math.Float64bits(float64(sg.start-origin)))
		p += 8
	}
	for _, sg := range segs {
		le.PutUint64(b[p:], math.Float64bits(float64(sg.end-origin)))
		p += 8
	}
	for _, sg := range segs {
		le.PutUint32(b[p:], sg.first)
		p += 4
	}
	for _, sg := range segs {
		le.PutUint32(b[p:], sg.n)
		p += 4
	}
	for _, sg := range segs {
		b[p] = sg.state
		p++
	}
	for j, c := range runCounts {
		le.PutUint32(b[mid+4*j:], c)
	}
	p = rhead
	col := func(f func(r *runPiece) float64) {
		for i := range runs {
			le.PutUint64(b[p:], math.Float64bits(f(&runs[i])))
			p += 8
		}
	}
	col(func(r *runPiece) float64 { return float64(r.start - origin) })
	col(func(r *runPiece) float64 { return float64(r.end - origin) })
	col(func(r *runPiece) float64 { return float64(r.split.Running) })
	col(func(r *runPiece) float64 { return float64(r.split.Ready) })
	col(func(r *runPiece) float64 { return float64(r.split.Other) })
	col(func(r *runPiece) float64 { return float64(r.split.Virtual) })
	col(func(r *runPiece) float64 { return float64(r.split.Unsplit) })
	return b
}

// overviewJSON is the number of threads in each state over the recording,
// in equal buckets: what the strip above the timeline draws.
type overviewJSON struct {
	Buckets int         `json:"buckets"`
	Width   float64     `json:"width"` // ns per bucket
	Threads [][]float32 `json:"threads"`
	// Threads[state][bucket] is the mean number of threads in that state
	// (runnable: alive and in no other state).
}

// overviewBuckets are the overview's bucket counts the page asks (the
// most that fit its strip, timeline.js) and the index keeps.
var overviewBuckets = []int{100, 200, 400, 800, 1600, 3200}

func (s *site) overview(r *http.Request) (any, error) {
	nb, err := intParam(r, "buckets", 800, 1, 4000)
	if err != nil {
		return nil, err
	}
	d := s.d
	d.mu.Lock()
	ov := d.overview[int(nb)]
	d.mu.Unlock()
	if ov != nil {
		return ov, nil
	}
	a := d.newOverview(int(nb))
	// A thread at a time, a piece at a time (Model.WindowOf): a thread of
	// an hour of a server read whole was 490 MB, and the hour's overview
	// held the largest one's room (839 MB).
	var win model.IntervalWindow
	for _, t := range d.m.AllThreads() {
		a.life(t)
		d.m.WindowOf(t, &win)
		for ivs, ok := win.Next(); ok; ivs, ok = win.Next() {
			a.intervals(ivs)
		}
	}
	return a.done(), nil
}

// overviewAcc sums an overview of n buckets a thread at a time, in the
// model's order of threads (the index's build sums its overviews as it
// reads each thread for its lane: the same sums, the same bytes).
type overviewAcc struct {
	d     *data
	n     int
	width float64
	acc   [][]float64
}

func (d *data) newOverview(n int) *overviewAcc {
	dur := float64(d.m.End - d.m.Start)
	a := &overviewAcc{d: d, n: n, width: max(dur/float64(n), 1), acc: make([][]float64, model.NumStates)}
	for i := range a.acc {
		a.acc[i] = make([]float64, n)
	}
	return a
}

func (a *overviewAcc) span(st model.State, lo, hi format.Time) {
	start := a.d.m.Start
	x0 := float64(lo-start) / a.width
	x1 := float64(hi-start) / a.width
	for x := int(x0); x < a.n && float64(x) < x1; x++ {
		lo, hi := max(x0, float64(x)), min(x1, float64(x+1))
		if hi > lo {
			a.acc[st][x] += hi - lo
		}
	}
}

// add sums thread t, whose intervals are ivs.
func (a *overviewAcc) add(t *model.Thread, ivs []model.Interval) {
	a.life(t)
	a.intervals(ivs)
}

// life adds thread t's life, as runnable (done takes its states out).
func (a *overviewAcc) life(t *model.Thread) { a.span(model.Runnable, t.Start, t.End) }

// intervals adds intervals of a thread's, its whole or a piece of them.
func (a *overviewAcc) intervals(ivs []model.Interval) {
	for k := range ivs {
		iv := &ivs[k]
		if iv.End > iv.Start {
			a.span(iv.State, iv.Start, iv.End)
		}
	}
}

// done is the overview of the threads summed, kept for the next request.
func (a *overviewAcc) done() *overviewJSON {
	n := a.n
	ov := &overviewJSON{Buckets: n, Width: a.width, Threads: make([][]float32, model.NumStates)}
	for st := range a.acc {
		ov.Threads[st] = make([]float32, n)
		for x := range n {
			v := a.acc[st][x]
			if st == int(model.Runnable) {
				// Runnable is life minus the other states.
				for o := 1; o < int(model.NumStates); o++ {
					v -= a.acc[o][x]
				}
			}
			ov.Threads[st][x] = float32(max(v, 0))
		}
	}
	d := a.d
	d.mu.Lock()
	d.overview[n] = ov
	d.mu.Unlock()
	return ov
}
