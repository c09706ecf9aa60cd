package model

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"sort"
	"sync"

	"orca/internal/format"
)

// The edges' spill (issue 34, Options.SpillEdges): the wake, owner,
// release and unpark edges (all but a few: c1G's 21 M, 677 MB held whole)
// go to the model's spill as the fold makes them, a run of edgeRunLen at
// a time, each sorted twice (by ToTime; by target thread, then ToTime)
// and written in both orders. The start and join edges, few, stay in
// memory: the fold sets a start's ToTime when its target's first event
// comes, and Finalize a join's FromTime. Finalize merges the runs and
// those into two runs of the whole: every edge by ToTime, as Model.Edges
// is sorted, with a sparse index (every edgeIndexEvery-th edge's ToTime
// and the least FromTime of the edges up to the next), and every edge by
// target thread, with a table of each thread's place. Edges of the same
// ToTime keep the order the fold made them in (the stable sort of
// Model.Edges): each run's edge carries its number in that order.
//
// An edge is written as zig-zag varints (edgeCodec: BenchmarkEdgeSpill's
// four writes 67.2 bytes an edge), not as its record (48 bytes in a run,
// 40 in the model's orders: the hour of Tomcat's 64.7 M edges, 11.4 GB
// written): each block read at once (a run; a mark's edges; a thread's)
// begins from zero.
//
// The readers go through Model.EdgesFrom (a time range: /api/edges, the
// report's counts through a filter, the timelines), Model.EdgesTo (an
// interval's detail) and Model.StartJoinEdges (a thread's detail), which
// read Model.Edges when the model keeps them.

// edgeRunLen is the edges of a run, edgeIndexEvery those between two
// marks of the index (vars: the tests make them small).
var edgeRunLen, edgeIndexEvery = 1 << 17, 1024

// SetEdgeSpillSizes sets the edges of a run of the fold's and between two
// marks of the index, and returns a func that restores them: for the tests
// of the packages that read a model's edges, which need many runs and
// marks from a small recording.
func SetEdgeSpillSizes(run, every int) (restore func()) {
	r, e := edgeRunLen, edgeIndexEvery
	edgeRunLen, edgeIndexEvery = run, every
	return func() { edgeRunLen, edgeIndexEvery = r, e }
}

// edgeRec is an edge with its number in the order the fold made them:
// the order of edges of the same ToTime.
type edgeRec struct {
	Edge
	seq uint64
}

// edgeRun is where a run of the fold's is in the spill: its edges by
// ToTime, and by target thread.
type edgeRun struct {
	byTime, byTo spillBlock
}

// edgeSpill is the fold's side of the edges' spill.
type edgeSpill struct {
	s    *spillFile
	buf  []edgeRec // the run being filled
	runs []edgeRun
	// tmp, keys and keys2: a run's room for its sorts by key (sortRun);
	// enc for its bytes.
	tmp         []edgeRec
	keys, keys2 []uint64
	enc         []byte
}

// edgeCodec writes and reads edges as zig-zag varints: the ToTime from
// the edge's before, the FromTime from the ToTime, the target from the
// edge's before, the source, the object, a byte of the kind and the flag,
// and in a run of the fold's the seq from the edge's before. The zero
// codec begins a block.
type edgeCodec struct {
	to  format.Time
	id  format.ThreadID
	seq uint64
}

// put appends e (seq with withSeq).
func (c *edgeCodec) put(b []byte, e *Edge, seq uint64, withSeq bool) []byte {
	// Written in place, the room grown once, not an append a byte that
	// checks the room each time (BenchmarkEdgeSpill/spill −4 %).
	n := len(b)
	b = slices.Grow(b, edgeMaxBytes)[:n+edgeMaxBytes]
	n += binary.PutVarint(b[n:], int64(e.ToTime-c.to))
	n += binary.PutVarint(b[n:], int64(e.ToTime-e.FromTime))
	n += binary.PutVarint(b[n:], int64(e.To-c.id))
	n += binary.PutUvarint(b[n:], uint64(e.From))
	n += binary.PutUvarint(b[n:], uint64(e.Object))
	k := byte(e.Kind)
	if e.Ambiguous {
		k |= 0x80
	}
	b[n] = k
	n++
	if withSeq {
		n += binary.PutVarint(b[n:], int64(seq-c.seq))
		c.seq = seq
	}
	c.to, c.id = e.ToTime, e.To
	return b[:n]
}

// edgeMaxBytes bounds an edge's bytes (with its seq).
const edgeMaxBytes = 6*binary.MaxVarintLen64 + 1

// get reads an edge from b into e (and seq, withSeq) and returns its
// bytes: 0, e and c as they were, when b does not hold it whole; -1 when
// b's bytes are no edge.
func (c *edgeCodec) get(b []byte, e *Edge, seq *uint64, withSeq bool) int {
	// The ToTime's and target's steps and the span (zig-zag), the source
	// and the object.
	var v [5]uint64
	n := 0
	for f := range v {
		var k int
		if f < 3 {
			var x int64
			x, k = binary.Varint(b[n:])
			v[f] = uint64(x)
		} else {
			v[f], k = binary.Uvarint(b[n:])
		}
		if k <= 0 {
			return min(k, 0) // 0: cut; -1: no varint
		}
		n += k
	}
	dTo, span, dID, from, obj := int64(v[0]), int64(v[1]), int64(v[2]), v[3], v[4]
	if n >= len(b) {
		return 0
	}
	kb := b[n]
	n++
	if obj > math.MaxUint32 || EdgeKind(kb&0x7f) >= NumEdgeKinds {
		return -1
	}
	var dSeq int64
	if withSeq {
		var k int
		if dSeq, k = binary.Varint(b[n:]); k <= 0 {
			return min(k, 0)
		}
		n += k
	}
	c.to += format.Time(dTo)
	c.id += format.ThreadID(dID)
	*e = Edge{ToTime: c.to, FromTime: c.to - format.Time(span), To: c.id, From: format.ThreadID(from),
		Object: format.ObjectID(obj), Kind: EdgeKind(kb & 0x7f), Ambiguous: kb&0x80 != 0}
	if withSeq {
		c.seq += uint64(dSeq)
		*seq = c.seq
	}
	return n
}

// add puts e, the fold's seq-th edge, in the run being filled, and writes
// the run out when full.
func (sp *edgeSpill) add(e Edge, seq uint64) {
	if sp.buf == nil {
		sp.buf = make([]edgeRec, 0, edgeRunLen)
	}
	sp.buf = append(sp.buf, edgeRec{e, seq})
	if len(sp.buf) >= edgeRunLen {
		sp.writeRun()
	}
}

// byTimeSeqV orders edges by ToTime, then as made; byToTimeSeqV by target
// thread first. As mergeKey's order.
func byTimeSeqV(a, b edgeRec) int {
	return cmp.Or(cmp.Compare(a.ToTime, b.ToTime), cmp.Compare(a.seq, b.seq))
}

func byToTimeSeqV(a, b edgeRec) int {
	return cmp.Or(cmp.Compare(a.To, b.To), cmp.Compare(a.ToTime, b.ToTime), cmp.Compare(a.seq, b.seq))
}

// writeRun writes the run being filled, sorted in both orders.
func (sp *edgeSpill) writeRun() {
	if len(sp.buf) == 0 {
		return
	}
	var r edgeRun
	for k, order := range []func(a, b edgeRec) int{byTimeSeqV, byToTimeSeqV} {
		if !sp.sortRun(k == 1) {
			slices.SortFunc(sp.buf, order)
		}
		var c edgeCodec
		b := sp.enc[:0]
		for i := range sp.buf {
			b = c.put(b, &sp.buf[i].Edge, sp.buf[i].seq, true)
		}
		sp.enc = b
		var bs []spillBlock
		sp.s.add(&bs, b)
		if len(bs) == 1 {
			if k == 0 {
				r.byTime = bs[0]
			} else {
				r.byTo = bs[0]
			}
		}
	}
	sp.runs = append(sp.runs, r)
	sp.buf = sp.buf[:0]
}

// sortRun sorts the run being filled by ToTime, then as made (byTime),
// or, the run in that order, by target thread, then as it is (byTo: the
// order byToTimeSeqV), through keys of 8 bytes, the order's key above the
// edge's place in the run, sorted and then the edges put in their order:
// a sort of the edges themselves by a comparison was 16 of the 178 CPU-s
// of an hour of Tomcat's first open in orca view (its 64.7 M edges), each
// comparison a call through a func value on 56-byte records.
// It reports false, having done nothing, when a key does not fit in 32
// bits (a run spanning more than 4.29 s, a thread id of 2^32 or more), or
// the run is not as made (the edges' seqs not rising): then the
// comparison sort.
func (sp *edgeSpill) sortRun(byTo bool) bool {
	buf := sp.buf
	if len(buf) > math.MaxUint32 {
		return false
	}
	keys := slices.Grow(sp.keys[:0], len(buf))[:len(buf)]
	if !byTo {
		lo, hi := buf[0].ToTime, buf[0].ToTime
		for i := range buf {
			lo, hi = min(lo, buf[i].ToTime), max(hi, buf[i].ToTime)
			if i > 0 && buf[i].seq <= buf[i-1].seq {
				return false
			}
		}
		if uint64(hi-lo) > math.MaxUint32 {
			return false
		}
		for i := range buf {
			keys[i] = uint64(buf[i].ToTime-lo)<<32 | uint64(i)
		}
	} else {
		for i := range buf {
			if buf[i].To > math.MaxUint32 {
				return false
			}
			keys[i] = uint64(buf[i].To)<<32 | uint64(i)
		}
	}
	other := slices.Grow(sp.keys2[:0], len(buf))[:len(buf)]
	keys, other = radixSortKeys(keys, other)
	tmp := slices.Grow(sp.tmp[:0], len(buf))[:len(buf)]
	for i, k := range keys {
		tmp[i] = buf[uint32(k)]
	}
	sp.buf, sp.tmp, sp.keys, sp.keys2 = tmp, buf[:0], keys[:0], other[:0]
	return true
}

// radixSortKeys sorts keys, each a key of 32 bits above its place in the
// input (rising), by the key, which keeps them in place order within a
// key: a sort by digits of radixBits from the lowest (each pass stable),
// as many as the largest key has, through other; it returns the keys
// sorted and the other room. On a run's 131 072 edges, 2-3 passes where
// slices.Sort of the keys took 5.9 of the 157 CPU-s of an hour of
// Tomcat's first open in orca view.
func radixSortKeys(keys, other []uint64) (sorted, room []uint64) {
	var hi uint64
	for _, k := range keys {
		hi |= k >> 32
	}
	var count [1 << radixBits]int
	for shift := 32; shift < 64 && hi>>(shift-32) != 0; shift += radixBits {
		clear(count[:])
		for _, k := range keys {
			count[k>>shift&(1<<radixBits-1)]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, k := range keys {
			d := k >> shift & (1<<radixBits - 1)
			other[count[d]] = k
			count[d]++
		}
		keys, other = other, keys
	}
	return keys, other
}

// radixBits is the digit of radixSortKeys.
const radixBits = 11

// spilledEdges is where a Model's edges are in its spill.
type spilledEdges struct {
	n      int   // edges
	byTime int64 // offset of the n edges by ToTime
	marks  []edgeMark
	every  int         // the edges between two marks (edgeIndexEvery then)
	back   format.Time // the most an edge's FromTime is after its ToTime (0: none)
	byTo   int64       // offset of the n edges by target thread, then ToTime
	end    int64       // where they end
	to     []edgeDir
	// startJoin: the start and join edges, by ToTime (as in byTime).
	startJoin []Edge
}

// edgeMark is the index's mark of the edges from the k-th edgeIndexEvery
// of the run by ToTime up to the next: the first's ToTime, the least of
// their FromTimes and ToTimes, and the offset of their bytes.
type edgeMark struct {
	to, minFrom format.Time
	off         int64
}

// edgeDir is a thread's n edges in the run by target thread, their bytes
// from off.
type edgeDir struct {
	id  format.ThreadID
	off int64
	n   int
}

// edgeSrc is a source of a merge: a run's block read a piece at a time,
// or edges in memory.
type edgeSrc struct {
	left spillBlock
	raw  []byte // read from left, not yet decoded: a part of room
	room []byte
	dec  edgeCodec
	buf  []edgeRec
	i    int
	// mem, when set, fills buf from memory instead: the start and join
	// edges (finish).
	mem func(dst []edgeRec) []edgeRec
}

// edgeSrcBuf is the edges decoded at once from a run, edgeSrcRead the
// bytes read at once.
const edgeSrcBuf, edgeSrcRead = 512, 16 << 10

// errEdgeBytes: a run's bytes that are no edge, or end inside one.
var errEdgeBytes = errors.New("the edges' spill: bytes that are no edge")

func (r *edgeSrc) fill(s *spillFile) error {
	if r.buf == nil {
		r.buf = make([]edgeRec, 0, edgeSrcBuf)
	}
	if r.mem != nil {
		r.buf, r.i = r.mem(r.buf[:0]), 0
		return nil
	}
	r.buf, r.i = r.buf[:0], 0
	for len(r.buf) < edgeSrcBuf {
		var e edgeRec
		n := r.dec.get(r.raw, &e.Edge, &e.seq, true)
		if n < 0 {
			return errEdgeBytes
		}
		if n > 0 {
			r.buf = append(r.buf, e)
			r.raw = r.raw[n:]
			continue
		}
		if r.left.len == 0 {
			if len(r.raw) > 0 {
				return errEdgeBytes
			}
			break
		}
		if r.room == nil {
			r.room = make([]byte, edgeSrcRead)
		}
		k := copy(r.room, r.raw)
		m := min(r.left.len, int64(len(r.room)-k))
		if spillReadFault != nil {
			return spillReadFault
		}
		if _, err := s.readAt(r.room[k:k+int(m)], r.left.off); err != nil {
			return err
		}
		r.raw = r.room[:k+int(m)]
		r.left.off, r.left.len = r.left.off+m, r.left.len-m
	}
	return nil
}

// mergeEdges merges the sources, each by ToTime then seq (byTimeSeqV),
// or by target thread first (byTo: byToTimeSeqV), and calls out with each
// edge in turn.
func mergeEdges(s *spillFile, srcs []*edgeSrc, byTo bool, out func(*edgeRec)) error {
	// A heap of the sources with an edge left, by their next, whose key
	// each holds: an hour of Tomcat's 64.7 M edges, from ~500 runs, were
	// 3.5 CPU-s of comparisons through a func value and two pointers.
	type head struct {
		k mergeKey
		r *edgeSrc
	}
	var h []head
	for _, r := range srcs {
		if r.i >= len(r.buf) {
			if err := r.fill(s); err != nil {
				return err
			}
		}
		if r.i < len(r.buf) {
			h = append(h, head{keyOf(&r.buf[r.i], byTo), r})
		}
	}
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			if r := l + 1; r < len(h) && h[r].k.less(&h[l].k) {
				l = r
			}
			if !h[l].k.less(&h[i].k) {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(h) > 0 {
		r := h[0].r
		out(&r.buf[r.i])
		if r.i++; r.i >= len(r.buf) {
			if err := r.fill(s); err != nil {
				return err
			}
			if len(r.buf) == 0 {
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
				down(0)
				continue
			}
		}
		h[0].k = keyOf(&r.buf[r.i], byTo)
		down(0)
	}
	return nil
}

// mergeKey is an edge's place in a merge, as numbers compared in turn:
// its ToTime (its sign bit flipped: unsigned) and seq, or its target
// thread, ToTime and seq (byTo).
type mergeKey [3]uint64

func keyOf(e *edgeRec, byTo bool) mergeKey {
	t := uint64(e.ToTime) ^ 1<<63
	if byTo {
		return mergeKey{uint64(e.To), t, e.seq}
	}
	return mergeKey{t, e.seq}
}

func (k *mergeKey) less(o *mergeKey) bool {
	if k[0] != o[0] {
		return k[0] < o[0]
	}
	if k[1] != o[1] {
		return k[1] < o[1]
	}
	return k[2] < o[2]
}

// edgeOutBuf is the bytes written to the spill at once by finish.
const edgeOutBuf = 64 << 10

// finish writes the model's edges to the spill in their two orders: the
// runs and mem, the start and join edges (mem[i] the fold's seq[i]-th).
func (sp *edgeSpill) finish(mem []Edge, seq []uint64) (*spilledEdges, error) {
	sp.writeRun()
	sp.buf, sp.tmp, sp.keys, sp.keys2, sp.enc = nil, nil, nil, nil, nil
	s := sp.s
	if err := s.flush(); err != nil {
		return nil, err
	}
	// The start and join edges sorted in place, by ToTime, and kept so
	// (out.startJoin): no copy of them with their seqs (edgeRec), nor
	// another of the edges (c5G-slow5's 1.33 M: 91 and 76 MB held at
	// once beside mem, at the fold's end); by target thread, an order
	// of their indexes.
	sort.Sort(edgePairs{mem, seq})
	byTo := make([]int32, len(mem))
	for i := range byTo {
		byTo[i] = int32(i)
	}
	slices.SortFunc(byTo, func(a, b int32) int {
		return byToTimeSeqV(edgeRec{mem[a], seq[a]}, edgeRec{mem[b], seq[b]})
	})
	// memSrc yields the edges of mem in order (nil: as they are).
	memSrc := func(order []int32) func(dst []edgeRec) []edgeRec {
		i := 0
		return func(dst []edgeRec) []edgeRec {
			for ; i < len(mem) && len(dst) < cap(dst); i++ {
				k := i
				if order != nil {
					k = int(order[i])
				}
				dst = append(dst, edgeRec{mem[k], seq[k]})
			}
			return dst
		}
	}
	out := &spilledEdges{every: edgeIndexEvery}
	sources := func(to bool) []*edgeSrc {
		srcs := make([]*edgeSrc, 0, len(sp.runs)+1)
		for _, r := range sp.runs {
			b := r.byTime
			if to {
				b = r.byTo
			}
			srcs = append(srcs, &edgeSrc{left: b})
		}
		if to {
			return append(srcs, &edgeSrc{mem: memSrc(byTo)})
		}
		return append(srcs, &edgeSrc{mem: memSrc(nil)})
	}
	// The edges written through w, n edges so far of a block begun by a
	// zero codec (c) at each mark and each thread's first.
	var w []byte
	var c edgeCodec
	at := func() int64 { return s.off + int64(len(w)) }
	put := func(e *Edge) {
		if w = c.put(w, e, 0, false); len(w) >= edgeOutBuf {
			s.write(w)
			w = w[:0]
		}
	}

	// By ToTime, with the index.
	out.startJoin = mem
	out.byTime = at()
	n := 0
	err := mergeEdges(s, sources(false), false, func(e *edgeRec) {
		lo := min(e.FromTime, e.ToTime)
		if n%out.every == 0 {
			out.marks = append(out.marks, edgeMark{e.ToTime, lo, at()})
			c = edgeCodec{}
		} else if m := &out.marks[len(out.marks)-1]; lo < m.minFrom {
			m.minFrom = lo
		}
		out.back = max(out.back, e.FromTime-e.ToTime)
		put(&e.Edge)
		n++
	})
	if err != nil {
		return nil, err
	}
	out.n = n

	// By target thread.
	out.byTo = at()
	n = 0
	err = mergeEdges(s, sources(true), true, func(e *edgeRec) {
		if k := len(out.to); k == 0 || out.to[k-1].id != e.To {
			out.to = append(out.to, edgeDir{id: e.To, off: at()})
			c = edgeCodec{}
		}
		out.to[len(out.to)-1].n++
		put(&e.Edge)
		n++
	})
	if err != nil {
		return nil, err
	}
	out.end = at()
	if len(w) > 0 {
		s.write(w)
	}
	out.marks = slices.Clip(out.marks)
	out.to = slices.Clip(out.to)
	sp.runs = nil
	if n != out.n {
		return nil, fmt.Errorf("the edges' spill: %d edges by ToTime, %d by thread", out.n, n)
	}
	return out, s.flush()
}

// edgePairs sorts edges and their seqs together, by ToTime, then as made.
type edgePairs struct {
	e   []Edge
	seq []uint64
}

func (p edgePairs) Len() int { return len(p.e) }
func (p edgePairs) Less(i, j int) bool {
	return byTimeSeqV(edgeRec{p.e[i], p.seq[i]}, edgeRec{p.e[j], p.seq[j]}) < 0
}
func (p edgePairs) Swap(i, j int) {
	p.e[i], p.e[j] = p.e[j], p.e[i]
	p.seq[i], p.seq[j] = p.seq[j], p.seq[i]
}

// NumEdges returns the count of the edges the model keeps (none with
// Options.NoEdges; EdgeCounts counts them by kind, kept or not).
func (m *Model) NumEdges() int {
	if m.edges != nil {
		return m.edges.n
	}
	return len(m.Edges)
}

// EdgesSpilled reports whether the model's edges are in its spill
// (Options.SpillEdges), not in Edges.
func (m *Model) EdgesSpilled() bool { return m.edges != nil }

// AllEdges yields every edge, sorted by ToTime, with its index in that
// order (Model.Edges' own when it keeps them).
func (m *Model) AllEdges() iter.Seq2[int, Edge] {
	return m.EdgesFrom(math.MinInt64, math.MaxInt64)
}

// EdgesFrom yields, sorted by ToTime, each with its index in that order,
// the edges that end or begin at t0 or later and begin or end by t1 (an
// edge's FromTime may come after its ToTime when the clocks of its two
// threads disagree), and maybe others, which the caller leaves out. A
// part of the spill of none such is not read. A read of the spill that
// fails panics with a *SpillError.
func (m *Model) EdgesFrom(t0, t1 format.Time) iter.Seq2[int, Edge] {
	return func(yield func(int, Edge) bool) {
		sp := m.edges
		if sp == nil {
			// The first that ends at t0 less the most any begins after its
			// end: one before it neither begins nor ends at t0 or later.
			from := t0
			if t0 != math.MinInt64 {
				if back := m.memIndex().back; t0 > math.MinInt64+back {
					from = t0 - back
				}
			}
			i, _ := slices.BinarySearchFunc(m.Edges, from, func(e Edge, t format.Time) int {
				if e.ToTime < t {
					return -1
				}
				return 1
			})
			for ; i < len(m.Edges); i++ {
				if !yield(i, m.Edges[i]) {
					return
				}
			}
			return
		}
		from := t0
		if t0 > math.MinInt64+sp.back {
			from = t0 - sp.back
		}
		// The block before the first mark at from or later may hold edges
		// that end then.
		k := sort.Search(len(sp.marks), func(k int) bool { return sp.marks[k].to >= from })
		k = max(k-1, 0)
		buf := make([]Edge, sp.every)
		var raw []byte
		for ; k < len(sp.marks); k++ {
			if sp.marks[k].minFrom > t1 {
				continue
			}
			first := k * sp.every
			part := buf[:min(sp.every, sp.n-first)]
			end := sp.byTo
			if k+1 < len(sp.marks) {
				end = sp.marks[k+1].off
			}
			if err := m.readEdges(sp.marks[k].off, end, part, &raw); err != nil {
				panic(&SpillError{err})
			}
			for j := range part {
				if part[j].ToTime >= from && !yield(first+j, part[j]) {
					return
				}
			}
		}
	}
}

// readEdges reads the edges of dst from the bytes [off, end) of the
// spill, a block begun by a zero codec, through raw.
func (m *Model) readEdges(off, end int64, dst []Edge, raw *[]byte) error {
	if len(dst) == 0 {
		return nil
	}
	if spillReadFault != nil {
		return spillReadFault
	}
	b := slices.Grow((*raw)[:0], int(end-off))[:end-off]
	*raw = b
	if _, err := m.spill.readAt(b, off); err != nil {
		return err
	}
	var c edgeCodec
	for i := range dst {
		n := c.get(b, &dst[i], nil, false)
		if n <= 0 {
			return errEdgeBytes
		}
		b = b[n:]
	}
	if len(b) > 0 {
		return errEdgeBytes
	}
	return nil
}

// memEdges is the index of the edges of a model that keeps them
// (Model.Edges) that EdgesTo and StartJoinEdges read, made at their first
// call.
type memEdges struct {
	once      sync.Once
	to        map[format.ThreadID][]int32
	startJoin []Edge
	back      format.Time // as spilledEdges'
}

func (m *Model) memIndex() *memEdges {
	x := m.memEdges
	if x == nil {
		x = &memEdges{} // a Model made by hand: not kept
	}
	x.once.Do(func() {
		x.to = map[format.ThreadID][]int32{}
		for i, e := range m.Edges {
			x.back = max(x.back, e.FromTime-e.ToTime)
			x.to[e.To] = append(x.to[e.To], int32(i))
			if e.Kind == EdgeStart || e.Kind == EdgeJoin {
				x.startJoin = append(x.startJoin, e)
			}
		}
	})
	return x
}

// EdgesTo returns the edges to the thread id, sorted by ToTime, in buf's
// room (valid until buf is used again). A read of the spill that fails
// panics with a *SpillError.
func (m *Model) EdgesTo(id format.ThreadID, buf *[]Edge) []Edge {
	sp := m.edges
	if sp == nil {
		x := m.memIndex()
		out := (*buf)[:0]
		for _, i := range x.to[id] {
			out = append(out, m.Edges[i])
		}
		*buf = out
		return out
	}
	k, ok := slices.BinarySearchFunc(sp.to, id, func(d edgeDir, id format.ThreadID) int { return cmp.Compare(d.id, id) })
	if !ok {
		return (*buf)[:0]
	}
	d := sp.to[k]
	end := sp.end
	if k+1 < len(sp.to) {
		end = sp.to[k+1].off
	}
	out := slices.Grow((*buf)[:0], d.n)[:d.n]
	var raw []byte
	if err := m.readEdges(d.off, end, out, &raw); err != nil {
		panic(&SpillError{err})
	}
	*buf = out
	return out
}

// StartJoinEdges returns the start and join edges, sorted by ToTime (the
// few a thread's detail reads: they stay in memory). Not to be changed.
func (m *Model) StartJoinEdges() []Edge {
	if m.edges != nil {
		return m.edges.startJoin
	}
	return m.memIndex().startJoin
}
