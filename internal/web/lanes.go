package web

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"

	"orca/internal/format"
	"orca/internal/model"
)

// The index's lanes (docs/web.md, "The index"): each thread's intervals,
// samples, scheduler times and windows of its runnable-time split, what a
// tile's lane is cut from (tileSegments, runPieces), in blocks of
// laneBlock records by time, so that a tile of any level is cut from the
// index alone by reading, for each of its threads, only the blocks over
// its span: the tiles of the levels finer than those the index keeps whole,
// in memory bounded by what the tile covers.
//
// A thread's lane record (laneRecBytes, one per thread, in thread order,
// all of them before the lanes since index version 5, little-endian): i64 start, i64 end (ns since the recording's start),
// u32 flags (laneSplit: its runnable time is split, hasSplit), u32 0, then
// for each of its four columns (intervals, samples, scheduler times,
// windows) u64 the offset of its block table, u32 blocks, u32 records;
// then u64 the offset of its kept tiles' table, u32 their number, u32 0,
// and u64 the offset of the lane's first byte. A lane's bytes are its
// columns, each its blocks then its table, then its kept tiles and their
// table, from that first byte to the end of the last table.
// A block table is blocks+1 entries of i64 first, i64 last (the block's
// first and last time), u64 offset (the last entry's: the column's end);
// block b holds records b*laneBlock on. Within a block, records are
// zig-zag varints, each time from the one before (0 at the block's start):
//
//	interval: start-prev, end-start, u8 state (Shown, flagOpen)
//	sample (cpu and wall only): at-prev, weight, u8 kind
//	scheduler time: at-prev
//	window: start-prev, end-start, running, ready, other, virtual, unsplit, cpu, wall
//
// The kept tiles: the thread's lane of a tile of a coarse level cut whole
// when the index is written (tileSegments, runPieces of the whole thread),
// for each tile over which the thread has more than laneKeepMin intervals
// and samples: a long-lived thread's lane at a coarse level, which would
// otherwise be cut from all its records at every request (a million
// intervals and samples for a 1 GB recording's whole at level 28: 1 s and
// 50 MB a thread), while what it is cut to is at most a few segments a
// pixel. Each is its segments (segBytes each, as in a tile kept whole)
// then its pieces of runnable time (runBytes each); the table, in the
// order written (the coarsest level first, tiles in order), has an entry
// of u32 level, u32 tile, u64 offset, u32 segments, u32 pieces for each.
const (
	laneBlock    = 256
	laneRecBytes = 8 + 8 + 4 + 4 + laneCols*16 + 16 + 8
	laneCols     = 4
	laneSplit    = 1
	keptBytes    = 4 + 4 + 8 + 4 + 4
)

// laneKeepMin: a thread's lane of a tile is kept whole above this many
// intervals and samples in the tile's span (cut at a request, they take
// 40-120 ns each: at 16 384, c1G's first 4096 threads at levels 24-23,
// 200 lanes of 6-13 K records each, took 242-351 ms; the goal is 300).
// A variable, that a test makes smaller.
var laneKeepMin = 4096

// laneWhole: a lane of at most this many bytes is read at once, not
// column by column (a thread's record, then one read).
const laneWhole = 256 << 10

// laneRecBlock: the lane records an index's build holds before it puts
// them in their place (posWriter.writeAt). A variable, that a test makes
// smaller.
var laneRecBlock = 4096

// posWriter writes through a buffer and counts the bytes written; f, when
// set, is the file, for writeAt.
type posWriter struct {
	w   *bufio.Writer
	f   *os.File
	n   int64
	err error
}

// writeAt writes b at off, before what was written (n), in place of what
// was there: the buffer is written out first.
func (p *posWriter) writeAt(b []byte, off int64) {
	if p.err != nil || len(b) == 0 {
		return
	}
	if p.f == nil || off+int64(len(b)) > p.n {
		p.err = errors.New("the viewer's index: a write back past the end or without its file")
		return
	}
	if p.err = p.w.Flush(); p.err == nil {
		_, p.err = p.f.WriteAt(b, off)
	}
}

func (p *posWriter) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.w.Write(b)
	p.n += int64(n)
	p.err = err
	return n, err
}

// colRef is where a column is: its block table's offset, its blocks and
// records.
type colRef struct {
	off          int64
	blocks, recs uint32
}

// writeColumn writes n records in blocks, then their table. key gives
// record i's first and last time, enc appends it (prev: the time before).
func writeColumn(w *posWriter, n int, key func(i int) (lo, hi format.Time), enc func(b []byte, i int, prev *format.Time) []byte) colRef {
	c := colWriter{w: w}
	for i := range n {
		lo, hi := key(i)
		c.add(lo, hi, func(b []byte, prev *format.Time) []byte { return enc(b, i, prev) })
	}
	return c.done()
}

// colWriter writes a column's records as they come, in blocks of
// laneBlock, then their table (done): a thread read by pieces writes its
// intervals' column a piece at a time.
type colWriter struct {
	w     *posWriter
	tab   []colEntry
	b     []byte
	n     int         // records
	prev  format.Time // the block's record before
	first format.Time // the block's first record's first time
	last  format.Time // the last record's last time
}

// colEntry is a column's block in its table.
type colEntry struct {
	first, last format.Time
	off         int64
}

// add appends a record whose first and last times are lo and hi, enc
// appending its bytes.
func (c *colWriter) add(lo, hi format.Time, enc func(b []byte, prev *format.Time) []byte) {
	if c.n%laneBlock == 0 {
		c.put()
		c.first, c.prev = lo, 0
	}
	c.b = enc(c.b, &c.prev)
	c.last = hi
	c.n++
}

// put writes the block pending (the records since the last block's),
// if any.
func (c *colWriter) put() {
	if len(c.tab)*laneBlock == c.n {
		return
	}
	c.tab = append(c.tab, colEntry{c.first, c.last, c.w.n})
	c.w.Write(c.b)
	c.b = c.b[:0]
}

// done writes the last block and the table, and returns the column's
// place.
func (c *colWriter) done() colRef {
	c.put()
	ref := colRef{blocks: uint32(len(c.tab)), recs: uint32(c.n)}
	c.tab = append(c.tab, colEntry{off: c.w.n})
	ref.off = c.w.n
	var e [24]byte
	le := binary.LittleEndian
	for _, t := range c.tab {
		le.PutUint64(e[0:], uint64(t.first))
		le.PutUint64(e[8:], uint64(t.last))
		le.PutUint64(e[16:], uint64(t.off))
		c.w.Write(e[:])
	}
	return ref
}

// ivColumn writes a lane's column of intervals (times less origin) as
// they come.
type ivColumn struct {
	c      colWriter
	origin format.Time
}

// add appends ivs, the thread's next intervals.
func (x *ivColumn) add(ivs []model.Interval) {
	for i := range ivs {
		iv := &ivs[i]
		st := uint8(iv.Shown())
		if iv.Open {
			st |= flagOpen
		}
		start := iv.Start - x.origin
		x.c.add(start, iv.End-x.origin, func(b []byte, prev *format.Time) []byte {
			b = binary.AppendVarint(b, int64(start-*prev))
			b = binary.AppendVarint(b, int64(iv.End-iv.Start))
			*prev = start
			return append(b, st)
		})
	}
}

// writeLane writes thread t's columns, times less origin, and its kept
// tiles of levels (coarsest first; the recording dur ns long), and returns
// its lane record; split says whether its runnable time is split
// (hasSplit).
func writeLane(w *posWriter, t *model.Thread, split bool, origin format.Time, levels []int, dur format.Time) []byte {
	laneStart := w.n
	ivs := ivColumn{c: colWriter{w: w}, origin: origin}
	ivs.add(t.Intervals)
	return writeLaneRest(w, t, laneStart, &ivs, split, origin, func() (int64, int) {
		return writeKept(w, t, split, origin, levels, dur)
	})
}

// writeLaneRest writes the lane of thread t begun at laneStart, its
// intervals given to ivs: their column's table, t's other columns, then
// its kept tiles (kept writes them and their table and returns its offset
// and entries); it returns the lane's record.
func writeLaneRest(w *posWriter, t *model.Thread, laneStart int64, ivs *ivColumn, split bool, origin format.Time, kept func() (int64, int)) []byte {
	rel := func(v format.Time) format.Time { return v - origin }
	put := func(b []byte, v format.Time) []byte { return binary.AppendVarint(b, int64(v)) }
	var cols [laneCols]colRef
	cols[0] = ivs.c.done()
	var smp []model.Sample
	for _, s := range t.Samples {
		if s.Kind == format.SampleCPU || s.Kind == format.SampleWall {
			smp = append(smp, s)
		}
	}
	cols[1] = writeColumn(w, len(smp), func(i int) (format.Time, format.Time) { return rel(smp[i].At), rel(smp[i].At) },
		func(b []byte, i int, prev *format.Time) []byte {
			s := &smp[i]
			b = put(b, rel(s.At)-*prev)
			b = put(b, s.Weight)
			*prev = rel(s.At)
			return append(b, uint8(s.Kind))
		})
	sc := t.Sched
	cols[2] = writeColumn(w, len(sc), func(i int) (format.Time, format.Time) { return rel(sc[i].At), rel(sc[i].At) },
		func(b []byte, i int, prev *format.Time) []byte {
			b = put(b, rel(sc[i].At)-*prev)
			*prev = rel(sc[i].At)
			return b
		})
	ws := t.RunWindows()
	cols[3] = writeColumn(w, len(ws), func(i int) (format.Time, format.Time) { return rel(ws[i].Start), rel(ws[i].End) },
		func(b []byte, i int, prev *format.Time) []byte {
			x := &ws[i]
			b = put(b, rel(x.Start)-*prev)
			for _, v := range []format.Time{x.End - x.Start, x.Split.Running, x.Split.Ready, x.Split.Other, x.Split.Virtual, x.Split.Unsplit, x.CPU, x.Wall} {
				b = put(b, v)
			}
			*prev = rel(x.Start)
			return b
		})
	keptAt, nkept := kept()
	rec := make([]byte, laneRecBytes)
	le := binary.LittleEndian
	le.PutUint64(rec[24+16*laneCols:], uint64(keptAt))
	le.PutUint32(rec[24+16*laneCols+8:], uint32(nkept))
	le.PutUint64(rec[24+16*laneCols+16:], uint64(laneStart))
	le.PutUint64(rec[0:], uint64(rel(t.Start)))
	le.PutUint64(rec[8:], uint64(rel(t.End)))
	if split {
		le.PutUint32(rec[16:], laneSplit)
	}
	for c, r := range cols {
		p := rec[24+16*c:]
		le.PutUint64(p, uint64(r.off))
		le.PutUint32(p[8:], r.blocks)
		le.PutUint32(p[12:], r.recs)
	}
	return rec
}

// writeKept writes thread t's kept tiles of levels (coarsest first) and
// their table, and returns the table's offset and entries (split: hasSplit).
func writeKept(w *posWriter, t *model.Thread, split bool, origin format.Time, levels []int, dur format.Time) (int64, int) {
	ivs, smp := t.Intervals, t.Samples
	lo, hi := t.Start, t.End
	if len(ivs) > 0 {
		lo, hi = min(lo, ivs[0].Start), max(hi, ivs[len(ivs)-1].End)
	}
	var tab []byte
	var b []byte
	for _, level := range levels {
		rpx := format.Time(1) << level
		span := rpx * TileWidth
		any := false
		// The tiles with anything in them alone, each found from the
		// last: a thread alive a day with a burst in it has ~10⁸ tiles
		// of 0.5 ms, and the burst's are kept at that level.
		var next format.Time
		for k := max(lo-origin, 0) / span; k <= (hi-origin)/span && k <= dur/span; k = next {
			a0 := origin + k*span
			a1 := a0 + span
			// The intervals over [a0, a1) and the samples in it, as a
			// tile's cut reads them.
			sEnd := sort.Search(len(smp), func(i int) bool { return smp[i].At >= a1 })
			n := sort.Search(len(ivs), func(i int) bool { return ivs[i].Start >= a1 }) -
				sort.Search(len(ivs), func(i int) bool { return ivs[i].End > a0 })
			n += sEnd - sort.Search(len(smp), func(i int) bool { return smp[i].At >= a0 })
			// The next tile with an interval or a sample: the first
			// interval that ends after this tile's end (over the next
			// tile, or in a later one), the first sample after it.
			next = math.MaxInt64
			if i := sort.Search(len(ivs), func(i int) bool { return ivs[i].End > a1 }); i < len(ivs) {
				next = max(k+1, (max(ivs[i].Start, origin)-origin)/span)
			}
			if sEnd < len(smp) {
				next = min(next, (smp[sEnd].At-origin)/span)
			}
			if n <= laneKeepMin {
				continue
			}
			any = true
			l := lanes{counts: make([]uint32, 1), runCounts: make([]uint32, 1)}
			l.laneWith(0, t, split, a0, a1, rpx, 0)
			b = appendKeptTile(b[:0], l.segs, l.runs, origin)
			tab = appendKeptEntry(tab, level, int64(k), w.n, len(l.segs), len(l.runs))
			w.Write(b)
		}
		if !any {
			break // a finer level's tiles hold fewer
		}
	}
	off := w.n
	w.Write(tab)
	return off, len(tab) / keptBytes
}

// appendKeptTile appends a kept tile's lane: its segments (segBytes each),
// then its pieces of runnable time (runBytes each), times less origin.
func appendKeptTile(b []byte, segs []segment, runs []runPiece, origin format.Time) []byte {
	le := binary.LittleEndian
	for _, sg := range segs {
		b = le.AppendUint64(b, uint64(sg.start-origin))
		b = le.AppendUint64(b, uint64(sg.end-origin))
		b = le.AppendUint32(b, sg.first)
		b = le.AppendUint32(b, sg.n)
		b = append(b, sg.state)
	}
	for _, r := range runs {
		for _, v := range []format.Time{r.start - origin, r.end - origin, r.split.Running, r.split.Ready, r.split.Other, r.split.Virtual, r.split.Unsplit} {
			b = le.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// appendKeptEntry appends the kept tiles' table's entry (keptBytes) of
// tile k of level, written at off with its segments and pieces.
func appendKeptEntry(tab []byte, level int, k int64, off int64, segs, runs int) []byte {
	le := binary.LittleEndian
	tab = le.AppendUint32(tab, uint32(level))
	tab = le.AppendUint32(tab, uint32(k))
	tab = le.AppendUint64(tab, uint64(off))
	tab = le.AppendUint32(tab, uint32(segs))
	return le.AppendUint32(tab, uint32(runs))
}

var errDamaged = errors.New("damaged")

// laneSrc is where a lane's bytes are read from: the whole lane read at
// once (b, from base), or the index's file.
type laneSrc struct {
	x    *Index
	b    []byte
	base int64
}

// read returns n bytes from off.
func (s *laneSrc) read(off int64, n int) ([]byte, error) {
	if s.b != nil && off >= s.base && off+int64(n) <= s.base+int64(len(s.b)) {
		return s.b[off-s.base : off-s.base+int64(n)], nil
	}
	b := make([]byte, n)
	if _, err := s.x.f.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// laneOf reads thread ti's lane record and, when the lane is small, the
// whole lane.
func (x *Index) laneOf(ti int) (rec []byte, src *laneSrc, err error) {
	lo, hi := x.dir.LaneData[0], x.dir.LaneData[1]
	if ti < 0 || ti >= x.dir.Threads {
		return nil, nil, errDamaged
	}
	rec = make([]byte, laneRecBytes)
	if _, err := x.f.ReadAt(rec, x.dir.Lanes+int64(ti)*laneRecBytes); err != nil {
		return nil, nil, err
	}
	le := binary.LittleEndian
	kept, nkept := int64(le.Uint64(rec[24+16*laneCols:])), int64(le.Uint32(rec[24+16*laneCols+8:]))
	from, to := int64(le.Uint64(rec[24+16*laneCols+16:])), kept+nkept*keptBytes
	if from < lo || to > hi || to < from || kept < from {
		return nil, nil, errDamaged
	}
	src = &laneSrc{x: x}
	if to-from <= laneWhole {
		src.b = make([]byte, to-from)
		if _, err := x.f.ReadAt(src.b, from); err != nil {
			return nil, nil, err
		}
		src.base = from
	}
	return rec, src, nil
}

// keptLane returns thread ti's kept lane of tile k of level, if it has
// one (rec, src: its record and bytes, laneOf).
func (x *Index) keptLane(rec []byte, src *laneSrc, level, k int) (segs []segment, runs []runPiece, ok bool, err error) {
	le := binary.LittleEndian
	kept, nkept := int64(le.Uint64(rec[24+16*laneCols:])), int(le.Uint32(rec[24+16*laneCols+8:]))
	if nkept == 0 {
		return nil, nil, false, nil
	}
	tab, err := src.read(kept, nkept*keptBytes)
	if err != nil {
		return nil, nil, false, err
	}
	for e := tab; len(e) > 0; e = e[keptBytes:] {
		if int(le.Uint32(e)) != level || int(le.Uint32(e[4:])) != k {
			continue
		}
		off, ns, nr := int64(le.Uint64(e[8:])), int(le.Uint32(e[16:])), int(le.Uint32(e[20:]))
		if off < x.dir.LaneData[0] || off+int64(ns)*segBytes+int64(nr)*runBytes > kept {
			return nil, nil, false, errDamaged
		}
		b, err := src.read(off, ns*segBytes+nr*runBytes)
		if err != nil {
			return nil, nil, false, err
		}
		segs = make([]segment, ns)
		for i := range segs {
			p := b[i*segBytes:]
			segs[i] = segment{start: format.Time(le.Uint64(p)), end: format.Time(le.Uint64(p[8:])),
				first: le.Uint32(p[16:]), n: le.Uint32(p[20:]), state: p[24]}
		}
		b = b[ns*segBytes:]
		runs = make([]runPiece, nr)
		for i := range runs {
			p := b[i*runBytes:]
			v := func(k int) format.Time { return format.Time(le.Uint64(p[8*k:])) }
			runs[i] = runPiece{start: v(0), end: v(1), split: model.RunSplit{Running: v(2), Ready: v(3), Other: v(4), Virtual: v(5), Unsplit: v(6)}}
		}
		return segs, runs, true, nil
	}
	return nil, nil, false, nil
}

// lanePart reads the part of a thread's lane over [a0, a1] (ns since
// the recording's start), rec its record and src its bytes (laneOf): a
// Thread of its intervals, samples, scheduler times and windows there
// (whole blocks of them), base the index of its first interval in the
// thread's, and whether its runnable time is split.
func (x *Index) lanePart(rec []byte, src *laneSrc, a0, a1 format.Time) (t *model.Thread, base int, split bool, err error) {
	lo, hi := x.dir.LaneData[0], x.dir.LaneData[1]
	le := binary.LittleEndian
	t = &model.Thread{Start: format.Time(le.Uint64(rec)), End: format.Time(le.Uint64(rec[8:]))}
	split = le.Uint32(rec[16:])&laneSplit != 0
	// read returns column c's records over [a0, a1]: the bytes of the
	// blocks that hold them, the blocks' record counts, the first block.
	read := func(c int) (b []byte, counts []int, first int, err error) {
		p := rec[24+16*c:]
		off, blocks, recs := int64(le.Uint64(p)), int(le.Uint32(p[8:])), int(le.Uint32(p[12:]))
		if blocks == 0 {
			return nil, nil, 0, nil
		}
		if (recs+laneBlock-1)/laneBlock != blocks || off < lo || off+int64(blocks+1)*24 > hi {
			return nil, nil, 0, errDamaged
		}
		tab, err := src.read(off, (blocks+1)*24)
		if err != nil {
			return nil, nil, 0, err
		}
		ent := func(i, f int) int64 { return int64(le.Uint64(tab[24*i+8*f:])) }
		b0 := sort.Search(blocks, func(i int) bool { return format.Time(ent(i, 1)) >= a0 })
		b1 := sort.Search(blocks, func(i int) bool { return format.Time(ent(i, 0)) > a1 })
		if b0 >= b1 {
			return nil, nil, b0, nil
		}
		from, to := ent(b0, 2), ent(b1, 2)
		if from < lo || to > off || to < from {
			return nil, nil, 0, errDamaged
		}
		if b, err = src.read(from, int(to-from)); err != nil {
			return nil, nil, 0, err
		}
		for i := b0; i < b1; i++ {
			counts = append(counts, min(laneBlock, recs-i*laneBlock))
		}
		return b, counts, b0, nil
	}
	// Each column's blocks, decoded with next (its fields, zig-zag
	// varints and bytes, each block's times from 0).
	var bad bool
	decode := func(c int, pre func(n int), rec func(next func() format.Time, byt func() uint8, prev *format.Time)) (first int) {
		b, counts, first, e := read(c)
		if e != nil {
			err = e
			return 0
		}
		total := 0
		for _, n := range counts {
			total += n
		}
		pre(total)
		next := func() format.Time {
			v, n := binary.Varint(b)
			if n <= 0 {
				bad = true
				return 0
			}
			b = b[n:]
			return format.Time(v)
		}
		byt := func() uint8 {
			if len(b) == 0 {
				bad = true
				return 0
			}
			v := b[0]
			b = b[1:]
			return v
		}
		for _, n := range counts {
			var prev format.Time
			for range n {
				rec(next, byt, &prev)
			}
		}
		if len(b) != 0 {
			bad = true
		}
		return first
	}
	b0 := decode(0, func(n int) { t.Intervals = make([]model.Interval, 0, n) }, func(next func() format.Time, byt func() uint8, prev *format.Time) {
		s := *prev + next()
		e := s + next()
		st := byt()
		*prev = s
		t.Intervals = append(t.Intervals, model.Interval{Start: s, End: e, State: model.State(st &^ (flagOpen | flagHighlight)), Open: st&flagOpen != 0})
	})
	decode(1, func(n int) { t.Samples = make([]model.Sample, 0, n) }, func(next func() format.Time, byt func() uint8, prev *format.Time) {
		at := *prev + next()
		w := next()
		*prev = at
		t.Samples = append(t.Samples, model.Sample{At: at, Weight: w, Kind: format.SampleKind(byt())})
	})
	decode(2, func(n int) { t.Sched = make([]model.SchedTime, 0, n) }, func(next func() format.Time, byt func() uint8, prev *format.Time) {
		*prev += next()
		t.Sched = append(t.Sched, model.SchedTime{At: *prev})
	})
	var ws []model.RunWindow
	decode(3, func(n int) { ws = make([]model.RunWindow, 0, n) }, func(next func() format.Time, byt func() uint8, prev *format.Time) {
		var w model.RunWindow
		w.Start = *prev + next()
		w.End = w.Start + next()
		for _, v := range []*format.Time{&w.Split.Running, &w.Split.Ready, &w.Split.Other, &w.Split.Virtual, &w.Split.Unsplit, &w.CPU, &w.Wall} {
			*v = next()
		}
		*prev = w.Start
		ws = append(ws, w)
	})
	if err == nil && bad {
		err = errDamaged
	}
	if err != nil {
		return nil, 0, false, err
	}
	t.SetRunWindows(ws)
	return t, b0 * laneBlock, split, nil
}

// laneTile cuts tile k of level for threads from the index's lanes.
func (x *Index) laneTile(level, k int, threads []int) ([]byte, error) {
	rpx := format.Time(1) << level
	a0 := format.Time(k) * rpx * TileWidth
	a1 := a0 + rpx*TileWidth
	l := lanes{counts: make([]uint32, len(threads)), runCounts: make([]uint32, len(threads))}
	for j, ti := range threads {
		rec, src, err := x.laneOf(ti)
		if err != nil {
			return nil, fmt.Errorf("the viewer's index, thread %d's lane: %w", ti, err)
		}
		segs, runs, ok, err := x.keptLane(rec, src, level, k)
		if err != nil {
			return nil, fmt.Errorf("the viewer's index, thread %d's lane: %w", ti, err)
		}
		if ok {
			l.segs, l.runs = append(l.segs, segs...), append(l.runs, runs...)
			l.counts[j], l.runCounts[j] = uint32(len(segs)), uint32(len(runs))
			continue
		}
		t, base, split, err := x.lanePart(rec, src, a0, a1)
		if err != nil {
			return nil, fmt.Errorf("the viewer's index, thread %d's lane: %w", ti, err)
		}
		n := len(l.segs)
		l.laneWith(j, t, split, a0, a1, rpx, 0)
		for i := n; i < len(l.segs); i++ {
			l.segs[i].first += uint32(base)
		}
	}
	return encodeTile(0, threads, l), nil
}
