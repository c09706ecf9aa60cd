package analysis

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"orca/internal/format"
	"orca/internal/model"
)

// The wait chains by one sweep over time (Chains). Every stretch in which
// a thread waited for another is an edge from it to that thread (a
// "behind" edge: a contention's blame span, a join, a wait a thread
// notified, a park a thread unparked, a semaphore a thread released).
// A thread has one edge at a time, so at each instant the edges make a
// forest whose roots are the threads nobody is behind further: the
// chains' roots. The sweep takes the edges' starts and ends in time order
// and keeps that forest: each thread's parent, and the number of waiters
// (the View's blocked threads, whose time is blamed) in its subtree. A
// root's time is that number times the time it stays the same, added when
// it changes; for the roots kept, their intervals, read once the sweep is
// done, split it by what the root was doing. An edge that would close a
// cycle is kept aside: its thread is then the root of a cycle (a
// deadlock, as long as it lasts). This costs a few steps per edge, where
// a walk of every waiter's chain (chainWalk) searched each holder's
// intervals at every step of every chain.
//
// The edges are kept in time order of their starts as they come (in
// buckets of time, each sorted before the sweep), and their ends are
// taken from a heap of the edges under way, so that the sweep reads them
// in order, once per pass, and keeps what it needs of each thread's edge
// under way beside the thread: it reads no edge again, and no interval
// but the roots kept's. Taking the edges as the holders' fold reads the
// intervals (HoldersAndChains), `orca report` reads each thread's
// intervals once for both (docs/streaming.md).

// sweepEdge is one stretch [a, b) in which thread from (a node) waited
// for thread to (to&^srcBit; srcBit set when from is a waiter whose time
// the chains blame: one of the View's threads blocked on a lock), on lk
// (an index in chainSweep.ons: how it waited, on what). A recording of
// millions of contentions has as many: they are kept packed (edgeLog,
// ~11 bytes each, not 32: 24 M edges at 1 GB), a bucket's decoded into
// a sweepEdge each when it is sorted or swept.
type sweepEdge struct {
	a, b format.Time
	from int32
	to   uint32
	lk   uint32
}

const srcBit = 1 << 31

// onKey is how a thread waited, on what: a step's (hop's) lock.
type onKey struct {
	obj format.ObjectID
	how uint8
}

// word is k as a map's key (a word's hash, not a struct's).
func (k onKey) word() uint64 { return uint64(k.obj)<<8 | uint64(k.how) }

// onSlot is a slot of chainSweep.onNear: key+1 (0 empty), its index.
type onSlot struct {
	key uint64
	k   uint32
}

// toSlot is a slot of chainSweep.toNear: a thread's ID, of rank 0 (its
// identity hash: format.ThreadID.Hash; a thread of a rank above is looked
// up in the index each time), and its node + 1 (0: empty). 8 bytes, not
// 16: twice as many slots in the same room (c128's look-ups in the index
// 591 K of 3.34 M edges with 4 096 slots, ~240 K with 32 768).
type toSlot struct {
	h uint32
	n int32
}

// toNearBits is log2 of chainSweep.toNear's slots (256 kB).
const toNearBits = 15

// rootSeg is a stretch [a, b) in which a root kept (pass 2) had n waiters
// behind it and was no cycle's: split by what it was doing at the end
// (rootStates).
type rootSeg struct {
	a, b format.Time
	n    format.Time
}

// segLog is a root kept's stretches (rootSeg), in time order: the last in
// last (n 0 for none), grown while the next one goes on from it with as
// many waiters; those before packed in b, each as the zigzag varint of its
// a less the one's before's b, then b-a and n (uvarints): ~8 bytes where a
// rootSeg is 24, one for each change of a root kept's waiters (3.6 M at
// c5G-slow5: 86 MB). Once b holds segBlock bytes they go to the Model's
// spill (spilt, read back by rootStates alone, once): held, they were
// 26 MB of c5G-slow5's report at its peak, the end of pass 2.
type segLog struct {
	b     []byte
	last  rootSeg
	prevB format.Time // the last packed's b
	spilt []model.ScratchRef
}

// segBlock is the bytes of a segLog's b written to the spill at a time
// (a var: the tests write each stretch alone).
var segBlock = 4 << 10

// add adds [a, b) with n waiters; sp: the spill (nil: none).
func (l *segLog) add(a, b, n format.Time, sp *model.Model) {
	if l.last.n == n && l.last.b == a {
		l.last.b = b
		return
	}
	l.put(sp)
	l.last = rootSeg{a, b, n}
}

// put packs last; a block of segBlock bytes goes to sp, when not nil
// and the write does not fail.
func (l *segLog) put(sp *model.Model) {
	if l.last.n == 0 {
		return
	}
	g := l.last
	l.b = binary.AppendVarint(l.b, int64(g.a-l.prevB))
	l.b = binary.AppendUvarint(l.b, uint64(g.b-g.a))
	l.b = binary.AppendUvarint(l.b, uint64(g.n))
	l.prevB, l.last = g.b, rootSeg{}
	if len(l.b) >= segBlock && sp != nil {
		if r, ok := sp.ScratchWrite(l.b); ok {
			l.spilt = append(l.spilt, r)
			l.b = l.b[:0]
		}
	}
}

// empty reports whether l has no stretch.
func (l *segLog) empty() bool { return len(l.b) == 0 && len(l.spilt) == 0 && l.last.n == 0 }

// all yields the stretches in order, last included: those spilt read
// back from sp into room.
func (l *segLog) all(sp *model.Model, room *[]byte) func(yield func(rootSeg) bool) {
	return func(yield func(rootSeg) bool) {
		l.put(nil)
		prev := format.Time(0)
		for i := 0; i <= len(l.spilt); i++ {
			b := l.b
			if i < len(l.spilt) {
				*room = sp.ScratchRead(l.spilt[i], *room)
				b = *room
			}
			for len(b) > 0 {
				da, n1 := binary.Varint(b)
				ln, n2 := binary.Uvarint(b[n1:])
				n, n3 := binary.Uvarint(b[n1+n2:])
				b = b[n1+n2+n3:]
				a := prev + format.Time(da)
				prev = a + format.Time(ln)
				if !yield(rootSeg{a, prev, format.Time(n)}) {
					return
				}
			}
		}
	}
}

// linkKey is a step of a root kept's chains as the sweep knows it: node x
// waited for node to (srcBit clear) on ons[lk] (hopOf): 12 bytes where a
// hop is 32, for each of the roots kept's links (3.07 M at c5G-slow5,
// 194 MB in a map[hop]); two nodes may be one hop (a holder's released
// node has its ID), added up at the end (chainSweep.chainOf).
type linkKey struct {
	x, to int32
	lk    uint32
}

// linkWord is a linkKey packed in a word, x's and to's nodeBits each and
// lk's lkBits: a map's slot of 16 bytes where a linkKey's is 24 with its
// time (c5G-slow5's 3.07 M links: 125 MB at the report's peak, the end of
// the sweep's pass 2). When the bits are more than a word's (more nodes
// or locks than any recording seen), the sweep keeps linkKeys
// (chainSweep.wide).
func linkWord(x, to int32, lk uint32, nodeBits, lkBits uint8) uint64 {
	return uint64(x)<<(nodeBits+lkBits) | uint64(to)<<lkBits | uint64(lk)
}

// linkWordBits is the bits of a linkWord: a var, as the tests take the
// linkKeys' way too (0).
var linkWordBits = 64

// linkOf is the linkKey of w (linkWord).
func linkOf(w uint64, nodeBits, lkBits uint8) linkKey {
	return linkKey{x: int32(w >> (nodeBits + lkBits)), to: int32(w >> lkBits & (1<<nodeBits - 1)), lk: uint32(w & (1<<lkBits - 1))}
}

// linkSums is a root kept's links' time by linkWord, summed by sort, not
// in a map: the times added since the last merge in log, as they come;
// the sums before, by key, packed in chunks (linkPack). When log holds as
// many as an eighth of the keys packed (linkLogShare), it is sorted, its
// repeats summed, and merged with the chunks into new ones, each old
// chunk let go once read (what the merge holds beside them is log and a
// chunk). ~10 bytes a link where a map[uint64]format.Time's slot was ~26
// with its slack (c5G-slow5's 3.07 M links: 80.9 MB at the report's
// peak, the end of pass 2). pass 2 adds ~1.5 times for each link (c128:
// 192 K for 124 K links), so the merges' decode and pack again (about
// linkLogShare times the links all told) are less than the map's misses
// of the cache they take the place of.
type linkSums struct {
	log    []linkAdd
	chunks [][]byte
	n      int // the keys packed
}

// linkAdd is a time added to a link, by linkWord.
type linkAdd struct {
	w uint64
	d format.Time
}

// linkLogShare: a linkSums' log is merged when it holds a 1/linkLogShare
// of the keys packed, or linkLogMin adds (vars: the tests merge at every
// add, or at a few).
var linkLogShare, linkLogMin = 8, 256

// linkChunk is a linkSums' chunk's bytes, at most (and at least, but the
// last): the first grows as the links are added, the next are made of
// that size.
const linkChunk = 16 << 10

// linkMaxSize is a link's most bytes packed.
const linkMaxSize = 4 * binary.MaxVarintLen64

// add adds d to link w's time.
func (l *linkSums) add(w uint64, d format.Time, nodeBits, lkBits uint8) {
	l.log = append(l.log, linkAdd{w, d})
	if len(l.log) >= max(linkLogMin, l.n/linkLogShare) {
		l.merge(nodeBits, lkBits)
	}
}

// merge sorts log, sums its repeats and merges it with the chunks.
func (l *linkSums) merge(nodeBits, lkBits uint8) {
	if len(l.log) == 0 {
		return
	}
	slices.SortFunc(l.log, func(x, y linkAdd) int { return cmp.Compare(x.w, y.w) })
	log, j := l.log, 0
	for i := 1; i < len(log); i++ {
		if log[i].w == log[j].w {
			log[j].d += log[i].d
		} else {
			j++
			log[j] = log[i]
		}
	}
	log = log[:j+1]
	old := l.chunks
	r := linkReader{chunks: old, nodeBits: nodeBits, lkBits: lkBits, free: true}
	// The first chunk made the size the links will be (the old ones'
	// bytes and ~20 a link added; at most a chunk), not grown from
	// nothing by appends: their copies were 266 MB of ten minutes of a
	// loaded Tomcat's report's 1.66 GB allocated.
	size := len(log) * linkMaxSize / 2
	for _, c := range old {
		size += len(c)
	}
	w := linkWriter{cur: make([]byte, 0, min(size, linkChunk)), nodeBits: nodeBits, lkBits: lkBits}
	pw, pd, ok := r.next()
	for _, a := range log {
		for ok && pw < a.w {
			w.put(pw, pd)
			pw, pd, ok = r.next()
		}
		if ok && pw == a.w {
			w.put(pw, pd+a.d)
			pw, pd, ok = r.next()
		} else {
			w.put(a.w, a.d)
		}
	}
	for ; ok; pw, pd, ok = r.next() {
		w.put(pw, pd)
	}
	l.chunks, l.n = w.chunks(), w.n
	l.log = l.log[:0]
}

// all yields each link's sum, by key (merged first).
func (l *linkSums) all(nodeBits, lkBits uint8) func(yield func(uint64, format.Time) bool) {
	return func(yield func(uint64, format.Time) bool) {
		l.merge(nodeBits, lkBits)
		r := linkReader{chunks: l.chunks, nodeBits: nodeBits, lkBits: lkBits}
		for w, d, ok := r.next(); ok; w, d, ok = r.next() {
			if !yield(w, d) {
				return
			}
		}
	}
}

// A link packed (linkSums' chunks), after the one before (x, to and lk
// 0 before the first): x less the one before's x; to, less the one
// before's if x is the same (the keys are in order); lk, less the one
// before's if x and to are; then the sum (uvarints, ~10 bytes a link at
// c5G-slow5: 1 for x, 3 for to and 2 for lk mostly, a few for the sum).

// linkWriter packs links in order.
type linkWriter struct {
	full             [][]byte
	cur              []byte
	x, to            uint64
	lk               uint64
	n                int
	nodeBits, lkBits uint8
}

// put packs link w's sum d, w after the one before.
func (p *linkWriter) put(w uint64, d format.Time) {
	k := linkOf(w, p.nodeBits, p.lkBits)
	x, to, lk := uint64(k.x), uint64(k.to), uint64(k.lk)
	if len(p.cur)+linkMaxSize > linkChunk {
		p.full = append(p.full, p.cur)
		p.cur = make([]byte, 0, linkChunk)
	}
	b := binary.AppendUvarint(p.cur, x-p.x)
	switch {
	case x != p.x:
		b = binary.AppendUvarint(b, to)
		b = binary.AppendUvarint(b, lk)
	case to != p.to:
		b = binary.AppendUvarint(b, to-p.to)
		b = binary.AppendUvarint(b, lk)
	default:
		b = binary.AppendUvarint(b, 0)
		b = binary.AppendUvarint(b, lk-p.lk)
	}
	p.cur = binary.AppendUvarint(b, uint64(d))
	p.x, p.to, p.lk = x, to, lk
	p.n++
}

// chunks returns the chunks packed.
func (p *linkWriter) chunks() [][]byte {
	if len(p.cur) == 0 {
		return p.full
	}
	return append(p.full, p.cur)
}

// linkReader reads the links packed in chunks, in order; free: each
// chunk let go (nil in chunks) once read.
type linkReader struct {
	chunks           [][]byte
	i                int
	b                []byte
	x, to, lk        uint64
	nodeBits, lkBits uint8
	free             bool
}

// next returns the next link's key and sum, ok false after the last.
func (r *linkReader) next() (w uint64, d format.Time, ok bool) {
	for len(r.b) == 0 {
		if r.i == len(r.chunks) {
			return 0, 0, false
		}
		r.b = r.chunks[r.i]
		if r.free {
			r.chunks[r.i] = nil
		}
		r.i++
	}
	dx, n1 := binary.Uvarint(r.b)
	v2, n2 := binary.Uvarint(r.b[n1:])
	v3, n3 := binary.Uvarint(r.b[n1+n2:])
	sum, n4 := binary.Uvarint(r.b[n1+n2+n3:])
	r.b = r.b[n1+n2+n3+n4:]
	switch {
	case dx != 0:
		r.x, r.to, r.lk = r.x+dx, v2, v3
	case v2 != 0:
		r.to, r.lk = r.to+v2, v3
	default:
		r.lk += v3
	}
	return linkWord(int32(r.x), int32(r.to), uint32(r.lk), r.nodeBits, r.lkBits), format.Time(sum), true
}

// edgeLog is a bucket's edges packed, in the order they were added: for
// each, the difference of its a from the edge's before (zigzag varint;
// the first's from the bucket's start), b-a, the difference of its from
// from the edge's before (zigzag), to<<1|src and lk (varints): the edges
// come thread by thread, each thread's in time order, so the differences
// are small. The block being filled, cur, doubles up to edgeBlock bytes
// (copied as it grows); an edge is never split between two blocks. What
// an edge's add reads and writes is in the first 40 bytes and the end of
// cur (the blocks in a slice of their own were one more miss of the cache
// an edge: the buckets are taken at random, ~30 ns an edge at 1 GB).
type edgeLog struct {
	cur  []byte
	n    int32 // its edges
	from int32 // the last edge's from and a
	a    format.Time
	// spilt: its blocks written to the Model's spill (sp), before full
	// (HoldersAndChains: the edges of a 1 GB recording, 274 MB, are not
	// held beside the holders' spans); full: those kept in memory, before
	// cur (no spill, or a write to it that failed).
	spilt []model.ScratchRef
	full  [][]byte
}

// flatBucket is a bucket of edges once ordered (chainSweep.order), flat,
// as the sweep's two passes read it: the starts of its edges (flatStart,
// in the order of the sweep) and the ends in it of the edges begun in it
// or before (flatEnd, in the order of the sweep), their times less t0, in
// the spill as one block of their bytes (flat, ns starts then ne ends),
// else in memory (starts, ends). A pass reads it back with one read, no
// decode and no heap of the edges under way (the varints' decode at each
// of the two passes, packing them again, and the heap were 4.6 s of c1G's
// report: issue 34). Apart from the edgeLogs, whose headers the
// collection reads at random (one line of the cache each). A bucket whose
// times span 2^32 ns or more is cut into flatBuckets that do not.
type flatBucket struct {
	t0     format.Time
	flat   model.ScratchRef
	ns, ne int32
	starts []flatStart
	ends   []flatEnd
}

// flatStart is the start of an edge as the sweep reads it: sweepEdge
// but its end (in a flatEnd), its a less its flatBucket's t0; 16 bytes
// (28 MB a million edges with its end, the spill's bytes written once and
// read twice).
type flatStart struct {
	a    uint32
	from int32
	to   uint32
	lk   uint32
}

// flatSpan is the most a flatBucket's times go past its t0 (a var: the
// tests cut buckets into many, at most math.MaxUint32).
var flatSpan format.Time = math.MaxUint32

// flatEnd is an endEv as the sweep reads it, its b less its flatBucket's
// t0.
type flatEnd struct {
	b    uint32
	from int32
	e    int32
}

const (
	edgeBlock   = 4 << 10
	edgeMaxSize = 2*binary.MaxVarintLen64 + 3*binary.MaxVarintLen32
)

// add packs e at the end of l; base is the bucket's start. With sp, a
// block that is full is written out to it.
func (l *edgeLog) add(e *sweepEdge, base format.Time, sp *model.Model) {
	if l.n == 0 {
		l.a, l.from = base, 0
	}
	if cap(l.cur)-len(l.cur) < edgeMaxSize {
		l.grow(sp)
	}
	b := l.cur
	b = binary.AppendVarint(b, int64(e.a-l.a))
	b = binary.AppendUvarint(b, uint64(e.b-e.a))
	b = binary.AppendVarint(b, int64(e.from-l.from))
	to := uint64(e.to&^srcBit) << 1
	if e.to&srcBit != 0 {
		to |= 1
	}
	b = binary.AppendUvarint(b, to)
	b = binary.AppendUvarint(b, uint64(e.lk))
	l.cur = b
	l.a, l.from = e.a, e.from
	l.n++
}

// grow makes room for an edge in cur: twice as large (up to edgeBlock
// bytes), or, when it is a full one of edgeBlock bytes, written out to
// sp (read back by one read) and cur emptied, else kept in full.
func (l *edgeLog) grow(sp *model.Model) {
	if c := cap(l.cur); c < edgeBlock {
		l.cur = append(make([]byte, 0, max(2*c, 64, edgeMaxSize)), l.cur...)
		return
	}
	if sp != nil {
		if r, ok := sp.ScratchWrite(l.cur); ok {
			l.spilt = append(l.spilt, r)
			l.cur = l.cur[:0]
			return
		}
	}
	l.full = append(l.full, l.cur)
	l.cur = make([]byte, 0, edgeBlock)
}

// decode appends l's edges, in order, to buf; base is the bucket's start;
// the blocks spilt are read back from sp into room (kept for the next).
func (l *edgeLog) decode(buf []sweepEdge, base format.Time, sp *model.Model, room *[]byte) []sweepEdge {
	buf = slices.Grow(buf, int(l.n))
	a, from := base, int32(0)
	for _, r := range l.spilt {
		*room = sp.ScratchRead(r, *room)
		buf, a, from = decodeEdges(buf, *room, a, from)
	}
	for _, b := range l.full {
		buf, a, from = decodeEdges(buf, b, a, from)
	}
	buf, a, from = decodeEdges(buf, l.cur, a, from)
	return buf
}

// decodeEdges appends the edges packed in b (edgeLog) to buf, after an
// edge that began at a, of from; it returns buf and the last's a and
// from. Each varint's byte is read in line, one byte the common case (a
// closure calling binary's was 2.3 s of c1G's report).
func decodeEdges(buf []sweepEdge, b []byte, a format.Time, from int32) ([]sweepEdge, format.Time, int32) {
	i := 0
	uv := func() uint64 {
		c := b[i]
		i++
		if c < 0x80 {
			return uint64(c)
		}
		x, sh := uint64(c&0x7f), uint(7)
		for {
			c = b[i]
			i++
			if c < 0x80 {
				return x | uint64(c)<<sh
			}
			x |= uint64(c&0x7f) << sh
			sh += 7
		}
	}
	for i < len(b) {
		ua := uv()
		ln := uv()
		uf := uv()
		to := uv()
		lk := uv()
		a += format.Time(int64(ua>>1) ^ -int64(ua&1))
		from += int32(int64(uf>>1) ^ -int64(uf&1))
		buf = append(buf, sweepEdge{a: a, b: a + format.Time(ln), from: from, to: uint32(to>>1) | uint32(to&1)<<31, lk: uint32(lk)})
	}
	return buf, a, from
}

// edgeBuckets is how many buckets of time the recording's span is cut
// into: each is sorted alone before the sweep (a few hundred edges each
// at 128 MB).
const edgeBuckets = 4096

// endEv is the end of an edge: the sweep takes them by end, then thread
// (at one instant, as the edges' starts, in the order of the threads),
// then the edge's place in the sweep (its start's, e).
type endEv struct {
	b    format.Time
	from int32
	e    int32
}

type chainSweep struct {
	m *model.Model
	// progress is the View's (model.View.Progress), nil for none: told the
	// sweep's steps.
	progress func(step string, done, total int)
	ids      []format.ThreadID // by node: Model.Threads, then the threads waited for that it has not
	node     nodeIndex
	// The edges, by bucket of time of their starts ([lo, lo+width) the
	// first; earlier or later ones go to the first or last), packed.
	lo, width format.Time
	buckets   []edgeLog
	flat      []flatBucket // by bucket, once ordered
	sp        *model.Model // the Model whose spill the buckets' full blocks go to (nil: none)
	room      []byte       // a spilt block read back
	// ons: the steps' locks by index (sweepEdge.lk); onOf indexes them.
	ons  []onKey
	onOf onIndex
	// onNear and toNear: the locks and the threads waited for met lately,
	// in front of onOf and node (a slot by a hash of each): a look-up
	// for every edge collected, most of them repeats that the map or the
	// index (a table of millions of IDs at 1 GB) found with misses of
	// the cache (1.4 s of c1G's report).
	onNear [1024]onSlot
	toNear [1 << toNearBits]toSlot

	// The edges' collection (interval): the thread last given (its ID,
	// not the Thread: the holders' pass gives its copy read back from
	// the spill, whose intervals are in the room the pass read every
	// thread's into, as large as the most any had, 43 MB of c5G-slow5's
	// report, held so through the holders' fold to the end of pass 2),
	// its node and whether its contentions are the View's (src edges),
	// its last edge's start and end; the last thread waited for and the
	// last lock, which mostly repeat.
	lastID     format.ThreadID
	haveLastT  bool
	lastXi     int32
	lastKept   bool
	lastTo     format.ThreadID
	lastTi     int32
	lastOn     onKey
	lastOnIdx  uint32
	haveLastOn bool

	// cur2: room for a bucket read back (run), kept from pass to pass.
	cur2 []uint64

	// The forest, by slot (sweepNode): a node takes a slot at its first
	// edge, from it or to it, and the slot is another's once its last
	// has ended (order: spans), so that nd holds the nodes under way, not
	// every node ever seen (a 64-byte node for each of c5G-slow5's 1.36 M
	// threads was 87 MB of its report's peak, pass 2). slotOf: by node,
	// its slot (what an edge's from and to name, taken when read: take);
	// slotNode: by slot, its node now (-1: none yet this pass); nacc: by
	// node, its thread's entry in accs, -1 before it has one (a node's
	// entry outlives its slot: sweepNode.nodeAcc is its copy in the slot's
	// line of the cache, which the sweep reads at every change of a root,
	// where nacc would be a miss more).
	nd       []sweepNode
	slotOf   []int32
	slotNode []int32
	nacc     []int32
	// spans: by node, the first and the last instant of its edges (order:
	// span), from it or to it, in units of 2^spanShift ns from lo,
	// spanFirst rounded down and spanLast up (0: no edge), and spanBy the
	// nodes in the order of their first: what slots gives out the slots
	// by, let go then.
	spanFirst, spanLast []uint32
	spanBy              []int32
	spanShift           uint8
	// hist: by slot that has one (histOf), its subtree's waiters by their
	// distance to it (the chains' depths), from 2 on: its [i] is distance
	// i+2 (0 is x's own edge, a waiter's or not: ownWaiter; 1 is
	// sweepNode.h1). histOf: by slot, its entry in hist + 1, 0 for none:
	// 4 bytes a node where a slice each was 24, for nodes most of which
	// never have waiters at distance 2 (33 MB of c5G-slow5's report at
	// pass 1's peak).
	hist   [][]int32
	histOf []int32
	// dirty: the roots whose tree changed at this instant, whose depth
	// is taken when the instant is done.
	dirty []int32

	// accs: the roots' time and depth (pass 1), one for each thread ever
	// a root; kept: the roots kept's chainAcc, by rank (accKept): pass
	// 2's states and threads, their root, time and depth set from accs
	// at the end (top).
	accs []sweepAcc
	kept []chainAcc
	// accKept: in pass 2, by entry of accs, its rank among the roots kept
	// of the batch, else -1: all pass 2 asks of accs, 4 bytes an entry
	// where accs and accEnd are 32 (with their growth's slack, 46 MB of
	// c5G-slow5's report at its peak, the end of pass 2: both let go once
	// pass 1 is ranked, and pass 2 makes no entry: those it would, for
	// the nodes pass 1 gave none, are no root kept's: noAcc); top: the
	// roots kept's entries of accs, by rank.
	accKept []int32
	top     []sweepAcc
	// same: in pass 2, by node without one, the node its ID names when
	// another (the index by ID let go).
	same map[int32]int32
	// accEnd: by entry of accs, the last instant it gained time (pass
	// 1); stop: the last of the roots kept's, where pass 2 is done.
	accEnd []format.Time
	stop   format.Time

	pass2 bool
	// links: by acc kept (its kept), its links' time, by linkWord (wide
	// false) or by linkKey (wide).
	links            []linkSums
	wideLinks        []map[linkKey]format.Time
	wide             bool
	nodeBits, lkBits uint8
	// segs: by acc kept, its stretches as a root that was no cycle's, in
	// time order, split by what the root was doing once pass 2 is done
	// (rootStates): the roots' intervals are read for those alone.
	segs []segLog

	// The releases (Model.Released): by node of Model.Threads, its
	// intervals in which it had released a lock that threads contended
	// for, in time order, within its life. A contention's edge to a
	// holder in a release of that very lock goes, for that stretch, to
	// the holder's released node instead (order): a root with no edge,
	// its time the holder's, state rootReleased. relNode: by node, its
	// released node, 0 before it has one; the released nodes are those
	// from relBase on.
	//
	// A thread's releases are packed as they come (relPend, of node
	// relPendX) and, once its intervals are all in, put to the Model's
	// spill with the runs before it (relRun, a piece of a chunk:
	// writeReleases); order reads a holder's back
	// as far as the edges it orders ask (its window) and lets go of those
	// ended before the bucket it orders: what it holds is what is under
	// way then, not every release of the run (0.59 GB of c5G-slow5's
	// report, 120 MB of c1G's, held until the sweep). relOf: by node, its
	// run in rels + 1 (0 for none) and the gap after its window in which
	// it released nothing (relGate); relLocks: the locks by their index in a run
	// (relLockOf).
	relOf    []relGate
	relShift uint8
	rels     []relRun
	relWins  []relWin  // by relRun.win; relFree: those let go
	relExp   [][]int32 // by bucket, the runs whose windows are looked at again at its start (relWin.expK)
	relFree  []int32
	// relSpare: the arrays larger than relWinKeep of the windows let go,
	// by the power of two of their size, for the windows that grow.
	relSpare   [48][][]relSpan
	relMem     [][]byte // without a spill: by run, its bytes still to read
	relLocks   []model.LockRef
	relLockOf  map[model.LockRef]uint32
	relPend    []byte
	relChunk   []byte // runs not yet written (writeReleases), relChunkAt where each begins
	relChunkAt []int32
	relPendX   int32
	relPrevB   format.Time // the last release packed's end
	relRoom    []byte
	relNear    model.ScratchCache // the releases' pieces of the spill (ScratchReadNear)
	relReads   int                // the pieces read from the spill (the tests count them)
	relNode    []int32
	relBase    int32

	// selfHeld: by node, the stretches in which its thread was blocked on
	// its own Thread object's monitor, each with the holder blamed, in
	// time order: cut from that holder's join edges to it (order, cutJoin;
	// chainWalk.joinHeld); joinCut: by node, the stretches cut from its
	// join edges so, in which it ran (rootStates).
	selfHeld map[int32][]selfHold
	joinCut  map[int32][]heldSpan
}

// selfHold is a stretch [a, b) in which a thread blocked on its own
// Thread object's monitor blamed node holder.
type selfHold struct {
	a, b   format.Time
	holder int32
}

// sweepNode is a node of the sweep's forest: what the sweep reads and
// changes of it at an edge's start or end, in one line of the cache (64
// bytes; in a slice each, one miss of the cache for each at 1 GB, where
// the nodes are ~10 MB: issue 34).
type sweepNode struct {
	// last: for a root, when its count, its being a root or its cycle
	// last changed: its time since is not yet added. edgeAt (pass 2):
	// since when its edge's time at its rate now is not yet added.
	last, edgeAt format.Time
	// par: its parent (-1 for a root); cur: its edge now (its place in
	// the sweep, -1 for none; a root with an edge is a cycle's, the edge
	// closing it), with that edge's to and lk (curTo, curLk).
	par, cur     int32
	curTo, curLk uint32
	// cnt: the waiters in its subtree, itself included; cycAcc: for a
	// cycle's root, the cycle's root in accs (its thread of the smallest
	// id); nodeAcc: its thread's entry in accs, -1 before it has one.
	cnt, cycAcc, nodeAcc int32
	// Pass 2, for the roots kept: its children, a list through the
	// nodes: kid, its first child + 1 (0: none), next and prev, its
	// siblings' + 1 (where a slice of each node's children and its index
	// in its parent's were 28 bytes and the slices' arrays: 53 MB of
	// c5G-slow5's report at its peak; the order of the children is no
	// figure's: flushTree adds the same times in another order); onCyc:
	// whether it is on a cycle.
	kid, next, prev int32
	onCyc           bool
	// Pass 2: selNode, whether its entry in accs (nodeAcc, set) is a
	// root kept's; selCyc, whether its cycAcc is, for a cycle's root. The
	// sweep asks at every edge's start and end, for two nodes or three:
	// asked of accs (8 MB at c1G), each was a miss of the cache.
	selNode, selCyc bool
	// h1 (pass 1): its children whose edge is a waiter's, its subtree's
	// waiters at distance 1 (hist). Most trees are a root and waiters
	// behind it alone (95 % of the edges' starts at 128 MB go to a root,
	// 80 % from a thread with no waiter behind it): their depths are
	// here, in the node the sweep reads anyway; the slices of hist, two
	// misses of the cache a node, hold the deeper ones alone.
	h1 int32
}

// relRun is a holder's releases in the spill: ref the bytes not yet read,
// prevB the end of the last release read (the next is packed against
// it): one for every thread that released a contended lock (1.33 M at 5
// GB), where a window in each was 56 bytes a run (135 MB of c5G-slow5's
// report's live heap at its peak). Its window, while it holds releases,
// is relWins[win-1] (0: none): where a map by run held it, its look-up
// was ~0.41 CPU-s of c1G's report; the index costs 8 bytes a run (as
// padded: 2.2 MB of c1G's 277 K threads at most).
type relRun struct {
	ref   model.ScratchRef
	prevB format.Time
	win   int32
}

// relWin is a run's window while it holds releases: win those read that
// may still cut an edge, in time order (each begun before the end of an
// edge that asked, none ended before the bucket it was trimmed for last,
// trimK). A run whose window is empty has none (relRun.win): a window held
// the first release that begins after the edges asked for alone, for
// every holder with releases left, and the releases no edge asked for
// again since, with the largest arrays a window had had (162 MB of
// c5G-slow5's report at its peak, in order, where they were live ~2 K of
// c128's 25 K).
type relWin struct {
	win []relSpan
	// buf: win's array from its start, which the trims of win leave
	// behind (growWin).
	buf []relSpan
	// rest: the run's bytes next (relRun.ref's first), as read with
	// the releases taken last, at most relPiece.
	rest  []byte
	trimK int32
	// expK: the bucket at whose start it is looked at again (in
	// chainSweep.relExp: let go if all its releases ended before, as a
	// window no edge asks of again held them to the end of order), 0 for
	// none.
	expK int32
}

// relWinKeep is the most releases a window's array may hold to be kept
// for the next window (a larger one is let go with its window).
const relWinKeep = 64

// sweepAcc is a root's figures of pass 1 (chainAcc's time and depth):
// one for each thread ever a root (1.33 M at 5 GB), where a chainAcc is
// 170 bytes.
type sweepAcc struct {
	root  format.ThreadID
	time  format.Time
	depth int32
}

// noAcc is sweepNode.nodeAcc (and cycAcc) in pass 2 for a node whose
// thread pass 1 gave no entry in accs: no root kept's (-1 is not yet
// asked).
const noAcc = -2

// relGate is a node's entry of chainSweep.relOf: its run in rels + 1 (0:
// it released no lock others contended for), and the gap between its
// releases that splitReleased last read: w, where the last of its window
// ends (none: chainSweep.lo), less lo, shifted right by relShift (rounded
// up: a bound above); q, where the first release after the window begins
// (its next, not yet read): 0 when not known, math.MaxUint32 when none is
// left, else 1 + that start less lo, shifted right by relShift (rounded
// down: a bound below). An edge that begins at or after w and ends at or
// before q overlaps none of the node's releases (splitReleased): most of
// c128's edges to holders with releases (95 % with q alone), told so by
// this one entry of 12 bytes, where the window's (relRun, its relSpans)
// were two misses of the cache or three. With q alone the start of the
// window's first release, the edges after a release still in the window
// (1.01 M of the 1.47 M calls of releasesIn at c128, which cut 1 935)
// each looked the window up to find none: 0.77 M calls now; w costs 4
// bytes a node (1.1 MB at c1G).
type relGate struct {
	run  int32
	q, w uint32
}

// relSpan is a stretch [a, b) in which a thread had released
// relLocks[lock].
type relSpan struct {
	a, b format.Time
	lock uint32
}

// relPiece is the bytes of a holder's releases read back at a time:
// the most its window reads ahead of what an edge asks (a var: the tests
// cut every release between two, relMaxSize).
var relPiece = 256

// threadsCompact is the fewest threads behind a root kept that are made
// unique when their room is full (a var: the tests make them so at each).
var threadsCompact = 1024

// relChunkSize is the most bytes of the releases' runs written to the
// spill as one block (a run larger alone).
const relChunkSize = 64 << 10

// relMaxSize is a release's most bytes packed.
const relMaxSize = 3 * binary.MaxVarintLen64

// nodeIndex is each thread's node by its ID: in a slice by ID where the
// IDs are few enough (a JVM numbers its threads from 1), else in a map: a
// look-up for every edge the sweep takes (the thread waited for), which
// in the map was a quarter of the edges' cost on the 128 MB synthetic
// recording. IDs above (the identity hashes a recording's threads may
// have) are in a table probed in place, as model's probeTab: a map's
// look-up was two misses of the cache or three (its control word, its
// slot), ~2 s of the 1 GB synthetic recording's report (issue 34). IDs
// of more than 32 bits (none in a recording seen: a JVM's thread IDs and
// identity hashes are 32-bit) are in a map (huge), so that a slot of the
// table is 8 bytes, not 16 (32 MB of c5G-slow5's report at the peak of
// order, the report's once pass 2's was cut).
type nodeIndex struct {
	// m, when set, finds the nodes of its threads (node i its thread i,
	// below nm) by its index of them (Model.ThreadIndexWith, *ids the
	// nodes' IDs): the rest below holds the others alone, the threads
	// waited for that it has not (the same index twice was 16 MB of
	// c5G-slow5's report at its peaks).
	m   *model.Model
	ids *[]format.ThreadID
	nm  int
	by  []int32 // by ID: the node + 1, 0 for none
	far []farNode
	// farN: the IDs in far; farShift: 64 - log2(len(far)).
	farN     int
	farShift uint8
	huge     map[format.ThreadID]int32
}

// farNode is a slot of nodeIndex.far: id, and its node + 1 (0: an empty
// slot).
type farNode struct {
	id uint32
	n  int32
}

// reset indexes ids, node i's ID at i.
func (x *nodeIndex) reset(ids []format.ThreadID) {
	// The slice is at most 4 entries a thread (and 1024): IDs above go
	// to the map.
	lim := format.ThreadID(4*len(ids) + 1024)
	hi, far, huge := format.ThreadID(0), 0, 0
	for _, id := range ids {
		switch {
		case id < lim:
			hi = max(hi, id)
		case id>>32 == 0:
			far++
		default:
			huge++
		}
	}
	x.huge = nil
	if near := len(ids) - far - huge; near < int(hi+1)/16 && hi >= 1024 {
		// Few IDs below lim, spread over it (identity hashes: 1 in 800
		// of 32-bit ones is below 5.3 M, c5G's lim; its slice was 21 MB
		// for ~1 600 of them, at the report's peak): all in the table.
		far = len(ids) - huge
		x.by = nil
	} else {
		x.by = make([]int32, hi+1)
	}
	// A third more slots than IDs at least (up to 3/4 full, set grows
	// it): at most 2/3 full at first, a probe or two a look-up, in one
	// cache line mostly (4 slots a line). Twice as many was 67 MB at
	// 5 GB's 1.33 M threads, at the report's peak (issue 34).
	size := 8
	for size < far+far/3 {
		size *= 2
	}
	x.far, x.farN = make([]farNode, size), 0
	x.farShift = uint8(64 - bits.TrailingZeros(uint(size)))
	for i, id := range ids {
		x.set(id, int32(i))
	}
}

// lookup returns id's node, and whether it has one.
func (x *nodeIndex) lookup(id format.ThreadID) (int32, bool) {
	if x.m != nil {
		if i, _ := x.m.ThreadIndexWith(id, (*x.ids)[:x.nm]); i >= 0 {
			return int32(i), true
		}
	}
	if id < format.ThreadID(len(x.by)) {
		n := x.by[id]
		return n - 1, n > 0
	}
	if id>>32 != 0 {
		n, ok := x.huge[id]
		return n, ok
	}
	mask := len(x.far) - 1
	for i := farHash(id, x.farShift); ; i = (i + 1) & mask {
		if f := &x.far[i]; f.n == 0 || f.id == uint32(id) {
			return f.n - 1, f.n > 0
		}
	}
}

// farHash is id's first slot in a nodeIndex.far of 1<<(64-shift) slots.
func farHash(id format.ThreadID, shift uint8) int {
	return int((uint64(id) * 0x9e3779b97f4a7c15) >> shift)
}

// get returns id's node, 0 when it has none (as a map's look-up).
func (x *nodeIndex) get(id format.ThreadID) int32 {
	n, ok := x.lookup(id)
	if !ok {
		return 0
	}
	return n
}

// set makes n id's node.
func (x *nodeIndex) set(id format.ThreadID, n int32) {
	if id < format.ThreadID(len(x.by)) {
		x.by[id] = n + 1
		return
	}
	if id>>32 != 0 {
		if x.huge == nil {
			x.huge = map[format.ThreadID]int32{}
		}
		x.huge[id] = n
		return
	}
	if 4*(x.farN+1) > 3*len(x.far) {
		x.growFar()
	}
	mask := len(x.far) - 1
	for i := farHash(id, x.farShift); ; i = (i + 1) & mask {
		if f := &x.far[i]; f.n == 0 || f.id == uint32(id) {
			if f.n == 0 {
				x.farN++
			}
			f.id, f.n = uint32(id), n+1
			return
		}
	}
}

// growFar doubles far's slots and puts the IDs in again.
func (x *nodeIndex) growFar() {
	old := x.far
	x.far, x.farN = make([]farNode, 2*len(old)), 0
	x.farShift--
	for _, f := range old {
		if f.n > 0 {
			x.set(format.ThreadID(f.id), f.n-1)
		}
	}
}

// newChainSweep returns a sweep of v's chains with no edge yet.
func newChainSweep(v *model.View) *chainSweep {
	m := v.Model
	s := &chainSweep{m: m, lastXi: -1, progress: v.Progress}
	s.ids = make([]format.ThreadID, m.NumThreads())
	for i, t := range m.AllThreads() {
		s.ids[i] = t.ID
	}
	if _, ok := m.ThreadIndexWith(0, s.ids); ok {
		s.node.reset(nil)
		s.node.m, s.node.ids, s.node.nm = m, &s.ids, len(s.ids)
	} else {
		s.node.reset(s.ids)
	}
	s.lo = m.Start
	s.width = max(m.End-m.Start, 0)/edgeBuckets + 1
	s.buckets = make([]edgeLog, edgeBuckets)
	if m.Spilled() {
		// The edges to the spill (a View of some threads too: its
		// ordered buckets, flat, are ~40 bytes an edge).
		s.sp = m
	}
	return s
}

// HoldersAndChains returns what the holders did (View.HoldersDoing) and
// the wait chains (Chains) from one read of the threads' intervals: the
// sweep's edges are taken as the holders' fold reads each thread's
// intervals (View.HoldersDoingWith), so that, with the intervals in the
// Model's spill alone, the chains read none again. A View of some threads
// (--thread) takes the edges of all (Chains).
func HoldersAndChains(v *model.View, n int) (map[model.LockRef]*model.Doing, []Chain, int) {
	doing, l, total := HoldersAndChainList(v, n, 0)
	return doing, l.All(), total
}

// HoldersAndChainList is HoldersAndChains with the chains as a ChainList,
// each root's links cut to its first links (0: all of them; Chain.Links,
// LinksTotal): orca report --top 0 lists every root's, whose links made
// all at once were c1G's report's peak.
func HoldersAndChainList(v *model.View, n, links int) (map[model.LockRef]*model.Doing, *ChainList, int) {
	if v.Filtered {
		doing := v.HoldersDoing()
		l, total := sweepChainList(v, n, links)
		return doing, l, total
	}
	s := newChainSweep(v)
	doing := v.HoldersDoingWith(func(t *model.Thread, iv *model.Interval, spans []model.OwnerSpan) {
		s.interval(t, iv, spans, true)
	})
	l, total := s.list(n, links)
	return doing, l, total
}

// ChainListOf is Chains as a ChainList (HoldersAndChainList).
func ChainListOf(v *model.View, n, links int) (*ChainList, int) { return sweepChainList(v, n, links) }

// sweepChains is Chains by the sweep: the edges of every thread, read
// one at a time, a piece at a time (Model.WindowOf).
func sweepChains(v *model.View, n int) ([]Chain, int) {
	l, total := sweepChainList(v, n, 0)
	return l.All(), total
}

// sweepChainList is sweepChains as a ChainList (HoldersAndChainList).
func sweepChainList(v *model.View, n, links int) (*ChainList, int) {
	m := v.Model
	s := newChainSweep(v)
	kept := make([]bool, m.NumThreads())
	for _, t := range v.All() {
		kept[s.node.get(t.ID)] = true
	}
	var win model.IntervalWindow
	var hands model.HandOffs
	var spans []model.OwnerSpan
	for xi, t := range m.AllThreads() {
		m.WindowOf(t, &win)
		for ivs, ok := win.Next(); ok; ivs, ok = win.Next() {
			for i := range ivs {
				iv := &ivs[i]
				spans = spans[:0]
				for sp := range m.BlameSpansIn(&hands, t.ID, iv) {
					if sp.End > sp.Start {
						spans = append(spans, sp)
					}
				}
				s.interval(t, iv, spans, kept[xi])
			}
		}
	}
	return s.list(n, links)
}

// list sweeps the edges collected, and returns the first n roots (0:
// all), most time first, and how many there are. With links > 0 each
// root's Chain is made once pass 2 is done with it, its first links
// Links alone kept (Chain.LinksTotal counts them all), and pass 2 is run
// for chainBatch roots at a time: its links and stretches by root kept
// are every root's with --top 0 (0.77 GB of c1G's report at its peak).
func (s *chainSweep) list(n, links int) (*ChainList, int) {
	s.endReleases()
	s.step(StepChainsOrder, 0, 0)
	s.order()
	// The holders' released stretches cut the edges in order alone:
	// let go before the sweep, with the released nodes' index (relNode,
	// 5.5 MB of c5G-slow5's report at its peak, the end of pass 2); the
	// ids, grown by one at each released node, copied to their size (of
	// 12.7 MB there, ~2.5 MB the growth's slack).
	s.relNode = nil
	s.ids = slices.Clone(s.ids)
	s.relOf, s.rels, s.relMem, s.relLocks, s.relLockOf, s.relPend, s.relRoom = nil, nil, nil, nil, nil, nil, nil
	s.relWins, s.relFree, s.relExp = nil, nil, nil
	s.relNear = model.ScratchCache{}
	nn := len(s.ids)
	ns := s.slots()
	if slotsMade != nil {
		slotsMade(nn, ns)
	}
	s.nd, s.slotNode, s.hist, s.histOf = make([]sweepNode, ns), make([]int32, ns), nil, make([]int32, ns)
	s.nacc = make([]int32, nn)
	for i := range s.nacc {
		s.nacc[i] = -1
	}
	s.reset()
	s.step(StepChainsRoots, 0, 0)
	s.run()
	order, total := rankBy(len(s.accs), func(i int32) (format.Time, format.ThreadID) { return s.accs[i].time, s.accs[i].root }, n)
	if len(order) == 0 {
		return &ChainList{}, total
	}

	// Pass 2: the same sweep again, for the threads, links and states of
	// the roots kept.
	s.nodeBits, s.lkBits = uint8(bits.Len(uint(nn))), uint8(bits.Len(uint(len(s.ons))))
	s.wide = 2*int(s.nodeBits)+int(s.lkBits) > linkWordBits
	s.pass2 = true
	// The depths are pass 1's: its histograms let go (24 bytes a node
	// and their counts, 51 MB of c5G-slow5's report).
	s.hist, s.histOf = nil, nil
	// The index of nodes by ID let go too (34 MB of c5G-slow5's report
	// at its peak, the end of pass 2): the roots kept's nodes found now,
	// and for nodeAccOf the nodes another node's ID names (a released
	// node's holder) among those pass 1 gave no entry.
	roots := make([]int32, len(order))
	for k, ai := range order {
		roots[k] = s.node.get(s.accs[ai].root)
	}
	ends := []int{len(order)}
	if links > 0 {
		ends = s.batches(order)
	}
	// Pass 1's entries let go (accs, accEnd): what pass 2 reads of them
	// kept alone, each batch's stop and the roots kept's figures (top).
	stops := make([]format.Time, len(ends))
	b0 := 0
	for bi, b1 := range ends {
		for _, ai := range order[b0:b1] {
			stops[bi] = max(stops[bi], s.accEnd[ai])
		}
		b0 = b1
	}
	s.top = make([]sweepAcc, len(order))
	for k, ai := range order {
		s.top[k] = s.accs[ai]
	}
	s.accKept = make([]int32, len(s.accs))
	for i := range s.accKept {
		s.accKept[i] = -1
	}
	s.accs, s.accEnd = nil, nil
	s.same = map[int32]int32{}
	for x, ai := range s.nacc {
		if ai >= 0 {
			continue
		}
		if p := s.node.get(s.ids[x]); p != int32(x) {
			s.same[int32(x)] = p
		}
	}
	s.node = nodeIndex{}
	l := &ChainList{ids: s.ids, ons: s.ons, wide: s.wide, nodeBits: s.nodeBits, lkBits: s.lkBits}
	if links > 0 {
		l.cs = make([]Chain, 0, len(order))
	}
	b0 = 0
	for bi, b1 := range ends {
		if len(ends) > 1 {
			s.step(StepChainsLinks, bi, len(ends))
		} else {
			s.step(StepChainsLinks, 0, 0)
		}
		s.stop = stops[bi]
		s.pass2Batch(order[b0:b1], roots[b0:b1], s.top[b0:b1], b1 == len(order))
		if links == 0 {
			l.kept, l.links, l.wideLinks = s.kept, s.links, s.wideLinks
			break
		}
		l.kept, l.links, l.wideLinks = s.kept, s.links, s.wideLinks
		for k, ai := range order[b0:b1] {
			c := l.at(k)
			c.Links = slices.Clone(c.Links[:min(links, len(c.Links))]) // not the array of them all
			if cap(c.Threads) > 2*len(c.Threads) {
				c.Threads = slices.Clone(c.Threads)
			}
			l.cs = append(l.cs, c)
			s.accKept[ai] = -1
			l.kept[k] = chainAcc{}
			if l.wide {
				l.wideLinks[k] = nil
			} else {
				l.links[k] = linkSums{}
			}
		}
		l.kept, l.links, l.wideLinks = nil, nil, nil
		s.kept, s.links, s.wideLinks, s.segs = nil, nil, nil, nil
		b0 = b1
	}
	s.top, s.accKept = nil, nil
	return l, total
}

// The steps of the wait chains' sweep that model.View.Progress names:
// the edges put in time order, pass 1 (the roots and their times), pass 2
// (the links of the roots kept, in batches).
const (
	StepChainsOrder = "the wait chains: the waits in time order"
	StepChainsRoots = "the wait chains: their roots"
	StepChainsLinks = "the wait chains: the links of the roots listed"
)

// step tells the View's Progress, if any, how far step has gone.
func (s *chainSweep) step(step string, done, total int) {
	if s.progress != nil {
		s.progress(step, done, total)
	}
}

// chainBatches is in how many sweeps pass 2 follows the roots kept when
// their links are cut (list) and they are more than chainBatchMin (the
// tests make them more and smaller): each sweep costs as much as pass 2
// alone.
var chainBatches, chainBatchMin = 2, 4096

// batches splits order, the roots kept, into chainBatches runs of about
// the same time, and returns the end of each. A root's links, what pass 2
// holds of it, go with its time: on the 128 MB synthetic the first 100 of
// 34 276 roots have 40.5 % of the time and 38.5 % of the links, the first
// 200 79.1 % and 75.7 %; runs of as many roots gave one 0.97 of them.
func (s *chainSweep) batches(order []int32) []int {
	if len(order) <= chainBatchMin || chainBatches <= 1 {
		return []int{len(order)}
	}
	var all format.Time
	for _, ai := range order {
		all += s.accs[ai].time
	}
	var ends []int
	var sum format.Time
	for k, ai := range order {
		sum += s.accs[ai].time
		// The end of run j once its share is in (float: the sum of
		// the times, ns, times chainBatches may pass an int64).
		j := len(ends) + 1
		if j < chainBatches && float64(sum) >= float64(all)*float64(j)/float64(chainBatches) {
			ends = append(ends, k+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(order) {
		ends = append(ends, len(order))
	}
	return ends
}

// pass2Batch runs pass 2 for the roots of accs order (nodes roots, pass
// 1's figures top) up to s.stop, then splits their time by what they
// did; last: the last batch, after which the forest is let go before the
// roots' intervals are read.
func (s *chainSweep) pass2Batch(order, roots []int32, top []sweepAcc, last bool) {
	if s.wide {
		s.wideLinks = make([]map[linkKey]format.Time, len(order))
	} else {
		s.links = make([]linkSums, len(order))
	}
	s.segs = make([]segLog, len(order))
	s.kept = make([]chainAcc, len(order))
	for k, ai := range order {
		s.accKept[ai] = int32(k)
		if s.wide {
			s.wideLinks[k] = map[linkKey]format.Time{}
		}
	}
	// A batch after another: its forest from nothing (reset: every
	// slot given again, what a run stopped at s.stop left forgotten).
	s.reset()
	s.run()
	if last {
		// The forest let go before the roots' intervals are read and
		// their links made (~100 bytes a node).
		s.flat, s.cur2, s.dirty = nil, nil, nil
		s.nd, s.slotNode, s.slotOf, s.nacc, s.same = nil, nil, nil, nil, nil
	}
	s.rootStates(roots)
	for k := range order {
		c, a := &s.kept[k], &top[k]
		c.root, c.time, c.depth = a.root, a.time, int(a.depth)
	}
}

// ChainList is the roots of the wait chains, most time first (Chains'
// order). Without a cut of their links (HoldersAndChainList's links 0)
// each root's Chain is made when it is asked for (At) from what the sweep
// kept of it: its waiters' ids and its links' times by the sweep's nodes;
// with one, made once pass 2 is done with it, its first links alone kept.
// The Chains of every root made at once, every link a Link of 48 bytes,
// were 0.92 GB of c1G's report --top 0 at its peak.
type ChainList struct {
	cs               []Chain // made, with a cut of their links
	ids              []format.ThreadID
	ons              []onKey
	kept             []chainAcc
	links            []linkSums
	wideLinks        []map[linkKey]format.Time
	wide             bool
	nodeBits, lkBits uint8
}

// Len is the number of roots listed.
func (l *ChainList) Len() int {
	if l.cs != nil {
		return len(l.cs)
	}
	return len(l.kept)
}

// At returns the k-th root's Chain. It may be asked again: the same
// Chain, whose Threads and Links are the list's own (read, not to be
// changed).
func (l *ChainList) At(k int) Chain {
	if l.cs != nil {
		return l.cs[k]
	}
	return l.at(k)
}

// at makes the k-th root's Chain of kept and links.
func (l *ChainList) at(k int) Chain {
	acc := &l.kept[k]
	c := acc.chain(l.hops(k))
	acc.threads = c.Threads // sorted and unique: so again
	return c
}

// All makes every root's Chain.
func (l *ChainList) All() []Chain {
	out := make([]Chain, 0, l.Len())
	for k := range l.Len() {
		out = append(out, l.At(k))
	}
	return out
}

// hops returns root kept k's links by hop.
func (l *ChainList) hops(k int) map[hop]format.Time {
	var links map[hop]format.Time
	add := func(key linkKey, d format.Time) {
		on := l.ons[key.lk]
		links[hop{from: l.ids[key.x], to: l.ids[key.to], obj: on.obj, how: on.how}] += d
	}
	if l.wide {
		links = make(map[hop]format.Time, len(l.wideLinks[k]))
		for key, d := range l.wideLinks[k] {
			add(key, d)
		}
		return links
	}
	ls := &l.links[k]
	ls.merge(l.nodeBits, l.lkBits)
	links = make(map[hop]format.Time, ls.n)
	for w, d := range ls.all(l.nodeBits, l.lkBits) {
		add(linkOf(w, l.nodeBits, l.lkBits), d)
	}
	return links
}

// reset makes every slot free: each node a root with no edge and no
// waiter behind it until its first edge of the pass (take).
func (s *chainSweep) reset() {
	for i := range s.slotNode {
		s.slotNode[i] = -1
	}
}

// take returns node n's slot, given to n when another's (its first edge
// this pass: the one before in it has had its last).
func (s *chainSweep) take(n int32) int32 {
	x := s.slotOf[n]
	if s.slotNode[x] != n {
		s.slotNode[x] = n
		d := &s.nd[x]
		*d = sweepNode{par: -1, cur: -1, nodeAcc: s.nacc[n]}
		if s.pass2 {
			d.selNode = s.sel(d.nodeAcc)
		} else if i := s.histOf[x]; i > 0 { // pass 2 has none: pass 1's depths
			s.hist[i-1] = s.hist[i-1][:0]
		}
	}
	return x
}

// interval adds the edges of t's interval iv (spans: its blame spans with
// time, for a Blocked or Acquire one): each part of it, within t's life,
// in which t waited for another thread (chainWalk.links). The intervals
// come thread by thread in Model.Threads' order, each thread's in time
// order (they do not overlap, nor do a contention's blame spans); kept
// says t is one of the View's threads (its contentions' time is blamed).
func (s *chainSweep) interval(t *model.Thread, iv *model.Interval, spans []model.OwnerSpan, kept bool) {
	if t.ID != s.lastID || !s.haveLastT {
		s.lastID, s.haveLastT, s.lastXi, s.lastKept = t.ID, true, s.node.get(t.ID), kept
	}
	if ref, ok := s.m.Released(iv); ok {
		if l := s.m.Lock(ref.Object, ref.Kind); l != nil && (l.Contentions > 0 || l.Open > 0) {
			if a, b := max(iv.Start, t.Start), min(iv.End, t.End); b > a {
				s.addRelease(a, b, ref)
			}
		}
	}
	var on onKey
	switch {
	case iv.State == model.Blocked:
		on = onKey{iv.Object, howMonitor}
	case iv.Acquire:
		on = onKey{iv.Object, howLock}
	case iv.State == model.Joining && !iv.SelfJoin:
		on = onKey{0, howJoin}
	case iv.State == model.Waiting && !iv.SelfJoin && !s.m.IdleWaits[iv.Stack]:
		on = onKey{iv.Object, howWait}
	case iv.State == model.Parked:
		on = onKey{iv.Object, howPark}
	case iv.State == model.Acquiring:
		on = onKey{iv.Object, howSemaphore}
	default:
		return
	}
	lo, hi := max(iv.Start, t.Start), min(iv.End, t.End)
	if on.how == howMonitor || on.how == howLock {
		for _, sp := range spans {
			s.emit(t, lo, hi, sp.Start, sp.End, sp.Owner, on, s.lastKept)
		}
		return
	}
	s.emit(t, lo, hi, iv.Start, iv.End, iv.Other, on, false)
}

// addRelease packs the release [a, b) of lock by the thread of the
// interval given last (interval): a thread's come together, in time
// order, and go out as one run when the next thread's begin.
func (s *chainSweep) addRelease(a, b format.Time, lock model.LockRef) {
	if s.relOf == nil {
		s.relOf = make([]relGate, s.m.NumThreads())
		for s.width*edgeBuckets>>s.relShift >= math.MaxUint32-1 {
			s.relShift++
		}
		s.relLockOf = map[model.LockRef]uint32{}
	}
	if s.lastXi != s.relPendX || len(s.relPend) == 0 {
		s.putReleases()
		if s.relOf[s.lastXi].run != 0 {
			panic("analysis: a thread's intervals came twice to the chains' sweep")
		}
		s.relPendX = s.lastXi
	}
	k, ok := s.relLockOf[lock]
	if !ok {
		k = uint32(len(s.relLocks))
		s.relLocks = append(s.relLocks, lock)
		s.relLockOf[lock] = k
	}
	s.relPend = binary.AppendUvarint(s.relPend, uint64(a-s.relPrevB))
	s.relPend = binary.AppendUvarint(s.relPend, uint64(b-a))
	s.relPend = binary.AppendUvarint(s.relPend, uint64(k))
	s.relPrevB = b
}

// putReleases ends the run of the releases packed (relPend): to the
// chunk of runs (relChunk), written to the spill when full
// (writeReleases), else kept in memory.
func (s *chainSweep) putReleases() {
	if len(s.relPend) == 0 {
		return
	}
	if s.sp != nil && len(s.relChunk)+len(s.relPend) > relChunkSize {
		s.writeReleases()
	}
	s.rels = append(s.rels, relRun{})
	s.relOf[s.relPendX].run = int32(len(s.rels))
	if s.sp != nil {
		s.relChunkAt = append(s.relChunkAt, int32(len(s.relChunk)))
		s.relChunk = append(s.relChunk, s.relPend...)
	} else {
		s.relMem = append(s.relMem, make([][]byte, len(s.rels)-len(s.relMem))...)
		s.relMem[len(s.rels)-1] = append([]byte(nil), s.relPend...)
	}
	s.relPend, s.relPrevB = s.relPend[:0], 0
}

// writeReleases writes the chunk of runs (relChunk, its last
// len(relChunkAt) runs') to the spill as one block, each run's ref a
// piece of it: the runs' bytes together, in a few pieces of
// ScratchReadNear, where a block each, between the edges' blocks, were
// ~1/7 of the bytes of the pieces read. Kept in memory when the write
// fails.
func (s *chainSweep) writeReleases() {
	if len(s.relChunkAt) == 0 {
		return
	}
	ref, ok := s.sp.ScratchWrite(s.relChunk)
	if !ok && len(s.relMem) < len(s.rels) {
		s.relMem = append(s.relMem, make([][]byte, len(s.rels)-len(s.relMem))...)
	}
	first := len(s.rels) - len(s.relChunkAt)
	for j, at := range s.relChunkAt {
		end := len(s.relChunk)
		if j+1 < len(s.relChunkAt) {
			end = int(s.relChunkAt[j+1])
		}
		if ok {
			s.rels[first+j].ref = ref.Slice(int(at), end)
		} else {
			s.relMem[first+j] = append([]byte(nil), s.relChunk[at:end]...)
		}
	}
	s.relChunk, s.relChunkAt = s.relChunk[:0], s.relChunkAt[:0]
}

// endReleases ends the releases' runs: the last put and written.
func (s *chainSweep) endReleases() {
	s.putReleases()
	if s.sp != nil {
		s.writeReleases()
	}
	s.relChunk, s.relChunkAt = nil, nil
}

// releasesIn returns node y's releases that may cut an edge of bucket k
// ending at b: its window, those ended before bucket k let go, read on
// while they begin before b; and the start of the first after them
// (next), more false when none is left. The first that begins at or
// after b is not taken (read again when an edge asks, and told the gate:
// splitReleased), and a run's window is let go when it holds none, so
// that a holder waited for now and then holds nothing between. A piece
// read is decoded that far alone, the rest kept as its bytes with the
// window (relWin.rest, at most relPiece), decoded when an edge asks:
// decoded whole, a piece's ~40 releases, most never asked for, stayed in
// the window until their bucket (125–156 MB of the windows at
// c5G-slow5's report's peak, in order); read again from the spill for
// each edge, they were 4.3 GB read for c1G's 38 MB of releases.
func (s *chainSweep) releasesIn(y int32, k int, b format.Time) (_ []relSpan, next format.Time, more bool) {
	x := s.relOf[y].run - 1
	r := &s.rels[x]
	wi, open := r.win-1, r.win != 0
	if !open && !s.relLeft(x) {
		return nil, 0, false // read and let go
	}
	// An edge of bucket k begins at its base or after: a release ended
	// before it cuts none (splitReleased finds an edge's first release
	// by a search, whatever win holds before it). Trimmed once a bucket.
	base := s.base(k)
	var rw *relWin
	if open {
		rw = &s.relWins[wi]
		if k > int(rw.trimK) {
			rw.trimK = int32(k)
			i, n := 0, len(rw.win)
			for i < n {
				h := int(uint(i+n) >> 1)
				if rw.win[h].b <= base {
					i = h + 1
				} else {
					n = h
				}
			}
			rw.win = rw.win[i:]
		}
	}
	mem := int(x) < len(s.relMem) && s.relMem[x] != nil
	cut := false // rw.rest ends in a release cut: read on from the spill
	for {
		var p []byte
		read := false
		switch {
		case mem:
			p = s.relMem[x]
		case rw != nil && len(rw.rest) > 0 && !cut:
			p = rw.rest
		case r.ref.Len() > 0:
			s.relRoom = s.sp.ScratchReadNear(&s.relNear, r.ref.Slice(0, min(relPiece, r.ref.Len())), s.relRoom)
			p, read = s.relRoom, true
			s.relReads++
		}
		if len(p) == 0 {
			more = false
			break
		}
		used, stop := 0, false
		for used < len(p) {
			da, n1 := binary.Uvarint(p[used:])
			ln, n2 := binary.Uvarint(p[used+max(n1, 0):])
			lk, n3 := binary.Uvarint(p[used+max(n1, 0)+max(n2, 0):])
			if n1 <= 0 || n2 <= 0 || n3 <= 0 {
				break // cut by the piece's end: read again with the next
			}
			a := r.prevB + format.Time(da)
			if a >= b {
				next, more, stop = a, true, true
				break
			}
			r.prevB = a + format.Time(ln)
			used += n1 + n2 + n3
			if k > 0 && r.prevB <= base {
				continue // ended before the bucket: as trimmed
			}
			if rw == nil {
				if n := len(s.relFree); n > 0 {
					wi, s.relFree = s.relFree[n-1], s.relFree[:n-1]
				} else {
					wi = int32(len(s.relWins))
					s.relWins = append(s.relWins, relWin{})
				}
				r.win, open = wi+1, true
				rw = &s.relWins[wi]
				rw.trimK = int32(k)
			}
			if len(rw.win) == cap(rw.win) {
				s.growWin(rw)
			}
			rw.win = append(rw.win, relSpan{a, r.prevB, uint32(lk)})
		}
		if mem {
			if s.relMem[x] = s.relMem[x][used:]; len(s.relMem[x]) == 0 {
				s.relMem[x] = nil
			}
		} else {
			r.ref = r.ref.Slice(used, r.ref.Len())
			// What is left of the piece is the run's next bytes: kept
			// with the window, if it has one, for the edges that ask of
			// it next (each read again from the spill, 16 M reads of c1G's
			// 18 M took no release: the one that stops an edge).
			if rw != nil {
				rw.rest = append(rw.rest[:0], p[used:]...)
			}
		}
		if stop {
			break
		}
		if used == 0 {
			if !read && !mem {
				cut = true
				continue // the rest kept ends in a release cut: read on
			}
			more = false
			break // no whole release in what is left: none more
		}
	}
	if !open {
		return nil, next, more
	}
	if len(rw.win) == 0 {
		s.letGoWin(x, wi)
		return nil, next, more
	}
	if rw.expK == 0 {
		s.expireAt(x, rw)
	}
	return rw.win, next, more
}

// growWin makes room in w's window for one more release: its releases
// moved to its array's start when the trims left half of the array
// before them, else to an array twice as large, of a power of two, one a
// window let go had (relSpare) when there is one. A window filled to a
// hundred releases, let go and filled again (an append to a slice
// trimmed from the front, the largest let go) made 150 000 arrays anew
// in ten minutes of a loaded Tomcat's report, 4 of the 133 CPU-s of its
// hour and their garbage.
func (s *chainSweep) growWin(w *relWin) {
	n := len(w.win)
	if 2*n <= cap(w.buf) && cap(w.buf) > 0 {
		w.win = append(w.buf[:0], w.win...)
		return
	}
	c := bits.Len(uint(max(2*n, 8) - 1)) // 1 << c: the size
	var buf []relSpan
	if sp := s.relSpare[c]; len(sp) > 0 {
		buf, sp[len(sp)-1] = sp[len(sp)-1][:0], nil
		s.relSpare[c] = sp[:len(sp)-1]
	} else {
		buf = make([]relSpan, 0, 1<<c)
	}
	old := w.buf
	w.buf = buf
	w.win = append(buf, w.win...)
	s.spareWin(old)
}

// spareWin keeps buf, a window's array no longer used, for the windows
// that grow when it is larger than relWinKeep (a smaller one is the
// garbage collector's).
func (s *chainSweep) spareWin(buf []relSpan) {
	if c := cap(buf); c > relWinKeep {
		k := bits.Len(uint(c)) - 1 // a power of two: growWin's
		s.relSpare[k] = append(s.relSpare[k], buf[:0])
	}
}

// letGoWin lets run x's window wi go: it holds no release that may cut an
// edge (the next read goes on from the run).
func (s *chainSweep) letGoWin(x, wi int32) {
	rw := &s.relWins[wi]
	if cap(rw.buf) > relWinKeep {
		s.spareWin(rw.buf)
		rw.buf = nil
	}
	rw.win, rw.rest, rw.expK = rw.buf[:0], rw.rest[:0], 0
	s.rels[x].win = 0
	s.relFree = append(s.relFree, wi)
}

// expireAt puts run x's window rw to be looked at again at the start of
// the first bucket that begins after its last release ends (none past
// the last bucket).
func (s *chainSweep) expireAt(x int32, rw *relWin) {
	end := rw.win[len(rw.win)-1].b
	// Bucket 0 trims none: its edges may begin before lo.
	k := max(int((end-s.lo+s.width-1)/s.width), 1)
	if k >= edgeBuckets {
		return
	}
	if s.relExp == nil {
		s.relExp = make([][]int32, edgeBuckets)
	}
	s.relExp[k] = append(s.relExp[k], x)
	rw.expK = int32(k)
}

// expire looks again, at the start of bucket k, at the windows put to
// it (expireAt): one whose releases all ended before it begins is let
// go, the others put to the bucket their last ends in now.
func (s *chainSweep) expire(k int) {
	if s.relExp == nil || len(s.relExp[k]) == 0 {
		return
	}
	base := s.base(k)
	for _, x := range s.relExp[k] {
		wi := s.rels[x].win - 1
		if wi < 0 {
			continue
		}
		rw := &s.relWins[wi]
		if rw.expK != int32(k) {
			continue // let go and made again since, or put to another
		}
		rw.expK = 0
		if n := len(rw.win); n == 0 || rw.win[n-1].b <= base {
			s.letGoWin(x, wi)
		} else {
			s.expireAt(x, rw)
		}
	}
	s.relExp[k] = nil
}

// relLeft reports whether run x has releases not read yet: in the spill
// (ref) or in memory (relMem, without a spill).
func (s *chainSweep) relLeft(x int32) bool {
	return s.rels[x].ref.Len() > 0 || int(x) < len(s.relMem) && s.relMem[x] != nil
}

// emit adds the edge from t to thread to over [a, b) within [lo, hi).
func (s *chainSweep) emit(t *model.Thread, lo, hi, a, b format.Time, to format.ThreadID, on onKey, src bool) {
	a, b = max(a, lo), min(b, hi)
	if b <= a || to == 0 || to == t.ID {
		return
	}
	ti := s.lastTi // a thread mostly waits for one other in a row
	if to != s.lastTo {
		if sl := &s.toNear[uint64(to)*0x9e3779b97f4a7c15>>(64-toNearBits)]; sl.h == uint32(to) && sl.n > 0 && to>>32 == 0 {
			ti = sl.n - 1
		} else {
			var ok bool
			if ti, ok = s.node.lookup(to); !ok {
				ti = int32(len(s.ids))
				s.ids = append(s.ids, to)
				s.node.set(to, ti)
			}
			if to>>32 == 0 {
				sl.h, sl.n = uint32(to), ti+1
			}
		}
		s.lastTo, s.lastTi = to, ti
	}
	if on != s.lastOn || !s.haveLastOn {
		w := on.word()
		sl := &s.onNear[w*0x9e3779b97f4a7c15>>54]
		k := sl.k
		if sl.key != w+1 {
			var ok bool
			if k, ok = s.onOf.find(w, s.ons); !ok {
				k = uint32(len(s.ons))
				s.ons = append(s.ons, on)
				s.onOf.add(k, s.ons)
			}
			sl.key, sl.k = w+1, k
		}
		s.lastOn, s.lastOnIdx, s.haveLastOn = on, k, true
	}
	if on.how == howMonitor && uint32(on.obj) == t.ID.Hash() {
		// Blocked on its own Thread object (its exit): a joiner holding
		// it is not waiting for it (chainWalk.joinHeld).
		if s.selfHeld == nil {
			s.selfHeld, s.joinCut = map[int32][]selfHold{}, map[int32][]heldSpan{}
		}
		s.selfHeld[s.lastXi] = append(s.selfHeld[s.lastXi], selfHold{a, b, ti})
	}
	e := sweepEdge{a: a, b: b, from: s.lastXi, to: uint32(ti), lk: s.lastOnIdx}
	if src {
		e.to |= srcBit
	}
	k := int(min(max(a-s.lo, 0)/s.width, edgeBuckets-1))
	s.buckets[k].add(&e, s.base(k), s.sp)
}

// base is bucket k's start, what its first edge's a is packed against.
func (s *chainSweep) base(k int) format.Time { return s.lo + format.Time(k)*s.width }

// order sorts each bucket's edges by start, stably: at one instant in
// the order they came, which is the threads' (a thread's edges come in
// time order, and when they do not the later of two starts at one
// instant wins, as it came later). A counting sort of the bucket into
// pieces of time of about two edges each, then an insertion sort of each
// piece.
func (s *chainSweep) order() {
	var buf, tmp []sweepEdge
	var count []int32
	var ends, endTmp []endEv
	var fs []flatStart
	var fe []flatEnd
	// pend: by bucket, the ends in it of edges begun in one before: as
	// many as the edges under way when a bucket is ordered.
	pend := make([][]endEv, len(s.buckets))
	s.flat = nil
	place := int32(0)
	s.relBase = int32(len(s.ids))
	joinLk, haveJoin := s.onOf.find(onKey{0, howJoin}.word(), s.ons)
	// Every step is collected (emit): the index of the locks is read no
	// more, and let go before the sweeps (a lock per object parked on, a
	// map of millions of them in an hour of a loaded Tomcat).
	s.onOf = onIndex{}
	for s.width*edgeBuckets>>s.spanShift >= math.MaxUint32-1 {
		s.spanShift++
	}
	for k := range s.buckets {
		s.expire(k)
		l := &s.buckets[k]
		if l.n == 0 && len(pend[k]) == 0 {
			continue
		}
		buf = l.decode(buf[:0], s.base(k), s.sp, &s.room)
		if s.rels != nil {
			for i := 0; i < len(buf); i++ {
				buf = s.splitReleased(buf, i, k)
			}
		}
		if s.selfHeld != nil && haveJoin {
			for i := 0; i < len(buf); {
				var gone bool
				if buf[i].lk == joinLk {
					buf, gone = s.cutJoin(buf, i, k)
				}
				if !gone {
					i++
				}
			}
		}
		tmp = tmp[:0]
		if len(buf) > 0 {
			lo, hi := buf[0].a, buf[0].a
			for i := range buf {
				lo, hi = min(lo, buf[i].a), max(hi, buf[i].a)
			}
			np := len(buf)/2 + 1
			width := (hi-lo)/format.Time(np) + 1
			count = append(count[:0], make([]int32, np+1)...)
			for i := range buf {
				count[(buf[i].a-lo)/width+1]++
			}
			for i := 1; i <= np; i++ {
				count[i] += count[i-1]
			}
			tmp = append(tmp, make([]sweepEdge, len(buf))...)
			for i := range buf {
				p := (buf[i].a - lo) / width
				tmp[count[p]] = buf[i]
				count[p]++
			}
			for i := 1; i < len(tmp); i++ {
				for j := i; j > 0 && tmp[j].a < tmp[j-1].a; j-- {
					tmp[j], tmp[j-1] = tmp[j-1], tmp[j]
				}
			}
		}
		// The ends of the edges begun to their buckets, those in this
		// one sorted with those of the buckets before; the unsorted
		// blocks let go.
		*l = edgeLog{}
		ends = append(ends[:0], pend[k]...)
		pend[k] = nil
		for i := range tmp {
			e := &tmp[i]
			s.span(e.from, e.a, e.b)
			s.span(int32(e.to&^srcBit), e.a, e.b)
			v := endEv{b: e.b, from: e.from, e: place}
			place++
			if kb := s.bucketOf(e.b); kb == k {
				ends = append(ends, v)
			} else {
				pend[kb] = append(pend[kb], v)
			}
		}
		ends, endTmp, count = sortEnds(ends, endTmp, count)
		// Then flat, its times less the first's (in pieces of less
		// than 2^32 ns), written to the spill as one block each (read
		// back by one read each of the sweep's two passes over it): held
		// in memory, the ordered buckets were 250 MB of c1G's live peak,
		// the report's.
		for i, j := 0, 0; i < len(tmp) || j < len(ends); {
			var t0 format.Time
			switch {
			case i == len(tmp):
				t0 = ends[j].b
			case j == len(ends):
				t0 = tmp[i].a
			default:
				t0 = min(tmp[i].a, ends[j].b)
			}
			fs, fe = fs[:0], fe[:0]
			for ; i < len(tmp) && tmp[i].a-t0 <= flatSpan; i++ {
				e := &tmp[i]
				fs = append(fs, flatStart{a: uint32(e.a - t0), from: e.from, to: e.to, lk: e.lk})
			}
			for ; j < len(ends) && ends[j].b-t0 <= flatSpan; j++ {
				v := &ends[j]
				fe = append(fe, flatEnd{b: uint32(v.b - t0), from: v.from, e: v.e})
			}
			f := flatBucket{t0: t0, ns: int32(len(fs)), ne: int32(len(fe))}
			ok := false
			if s.sp != nil {
				f.flat, ok = s.sp.ScratchWrite(flatBytes(fs), flatBytes(fe))
			}
			if !ok {
				f.starts, f.ends = slices.Clone(fs), slices.Clone(fe)
			}
			s.flat = append(s.flat, f)
		}
	}
	s.buckets = nil // every edge is in s.flat now
}

// span adds the edge [a, b) of node n (from it or to it) to n's span: the
// edges come in the order of their starts (order).
func (s *chainSweep) span(n int32, a, b format.Time) {
	if int(n) >= len(s.spanLast) {
		s.spanFirst = append(s.spanFirst, make([]uint32, len(s.ids)-len(s.spanFirst))...)
		s.spanLast = append(s.spanLast, make([]uint32, len(s.ids)-len(s.spanLast))...)
	}
	// last: above b (its units' next), never 0.
	last := uint32(min(max(b-s.lo, 0)>>s.spanShift+1, math.MaxUint32))
	if s.spanLast[n] == 0 {
		s.spanFirst[n] = uint32(min(max(a-s.lo, 0)>>s.spanShift, math.MaxUint32))
		s.spanBy = append(s.spanBy, n)
	}
	s.spanLast[n] = max(s.spanLast[n], last)
}

// slots gives each node with edges its slot (slotOf) and returns how many
// there are: the nodes in the order of their first edge, each given a slot
// whose node's last edge ended before (spanLast at most its spanFirst: its
// b before its a), else a new one. A slot is so another's at an instant
// after the last of its node's, never at it: the sweep is done with a node
// once the instant of its last end is (its depth taken, its time flushed).
func (s *chainSweep) slots() int {
	s.slotOf = make([]int32, len(s.ids))
	for i := range s.slotOf {
		s.slotOf[i] = -1
	}
	var busy slotHeap
	var free []int32
	ns := int32(0)
	for _, n := range s.spanBy {
		for len(busy) > 0 && busy[0].last <= s.spanFirst[n] {
			free = append(free, heap.Pop(&busy).(slotEnd).slot)
		}
		x := ns
		if len(free) > 0 {
			x, free = free[len(free)-1], free[:len(free)-1]
		} else {
			ns++
		}
		s.slotOf[n] = x
		heap.Push(&busy, slotEnd{last: s.spanLast[n], slot: x})
	}
	s.spanFirst, s.spanLast, s.spanBy = nil, nil, nil
	return int(ns)
}

// slotsMade, when set (tests), is told the nodes and the slots of each
// sweep (slots).
var slotsMade func(nodes, slots int)

// slotEnd is a slot given out (slots) and where its node's span ends.
type slotEnd struct {
	last uint32
	slot int32
}

// slotHeap is the slots given out, the one whose node's span ends first
// on top (container/heap).
type slotHeap []slotEnd

func (h slotHeap) Len() int           { return len(h) }
func (h slotHeap) Less(i, j int) bool { return h[i].last < h[j].last }
func (h slotHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *slotHeap) Push(x any)        { *h = append(*h, x.(slotEnd)) }
func (h *slotHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// sortEnds sorts ends by lessEnd as order sorts a bucket's starts: a
// counting sort by end into pieces of time of about two ends each, then
// an insertion sort of each piece (a sort by comparisons was a third of
// order's time at 128 MB). It returns the ends sorted, and tmp and count
// for the next.
func sortEnds(ends, tmp []endEv, count []int32) ([]endEv, []endEv, []int32) {
	if len(ends) < 2 {
		return ends, tmp, count
	}
	lo, hi := ends[0].b, ends[0].b
	for i := range ends {
		lo, hi = min(lo, ends[i].b), max(hi, ends[i].b)
	}
	np := len(ends)/2 + 1
	width := (hi-lo)/format.Time(np) + 1
	count = append(count[:0], make([]int32, np+1)...)
	for i := range ends {
		count[(ends[i].b-lo)/width+1]++
	}
	for i := 1; i <= np; i++ {
		count[i] += count[i-1]
	}
	tmp = append(tmp[:0], make([]endEv, len(ends))...)
	for i := range ends {
		p := (ends[i].b - lo) / width
		tmp[count[p]] = ends[i]
		count[p]++
	}
	for i := 1; i < len(tmp); i++ {
		for j := i; j > 0 && lessEnd(&tmp[j], &tmp[j-1]); j-- {
			tmp[j], tmp[j-1] = tmp[j-1], tmp[j]
		}
	}
	return tmp, ends, count
}

// bucketOf is the bucket of the edges that begin (or the ends) at a.
func (s *chainSweep) bucketOf(a format.Time) int {
	return int(min(max(a-s.lo, 0)/s.width, edgeBuckets-1))
}

// flatBytes is es's memory as bytes (a flatStart or flatEnd holds no
// pointer), to write to the spill.
func flatBytes[E flatStart | flatEnd](es []E) []byte {
	if len(es) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&es[0])), len(es)*int(unsafe.Sizeof(es[0])))
}

// ordered returns flat bucket k's starts and ends (order), read back
// from the spill into the room of s.cur2 (grown as needed).
func (s *chainSweep) ordered(k int) ([]flatStart, []flatEnd) {
	l := &s.flat[k]
	if l.flat.Len() == 0 {
		return l.starts, l.ends
	}
	const ss, es = int(unsafe.Sizeof(flatStart{})), int(unsafe.Sizeof(flatEnd{}))
	n := l.flat.Len()
	if n != int(l.ns)*ss+int(l.ne)*es || ss%4 != 0 || es%4 != 0 {
		panic("analysis: an ordered bucket of the chains of another size")
	}
	if 8*len(s.cur2) < n {
		s.cur2 = make([]uint64, (n+n/4)/8+1)
	}
	room := unsafe.Slice((*byte)(unsafe.Pointer(&s.cur2[0])), n)
	if b := s.sp.ScratchRead(l.flat, room[:0]); len(b) != n || &b[0] != &room[0] {
		panic("analysis: an ordered bucket of the chains read back short or elsewhere")
	}
	var starts []flatStart
	if l.ns > 0 {
		starts = unsafe.Slice((*flatStart)(unsafe.Pointer(&room[0])), l.ns)
	}
	var ends []flatEnd
	if l.ne > 0 {
		ends = unsafe.Slice((*flatEnd)(unsafe.Pointer(&room[int(l.ns)*ss])), l.ne)
	}
	return starts, ends
}

// splitReleased cuts edge buf[i], of bucket k, where it is a contention's
// on a lock its holder had released (rel): those stretches go to the
// holder's released node. The first piece stays buf[i]; the others, later,
// are added to buf when they start in bucket k, else to their bucket (a
// later one, not yet ordered). It returns buf.
func (s *chainSweep) splitReleased(buf []sweepEdge, i, k int) []sweepEdge {
	e := buf[i]
	y := e.to &^ srcBit
	if int(y) >= len(s.relOf) {
		return buf
	}
	g := &s.relOf[y]
	if g.run == 0 || g.q > 0 && (g.q == math.MaxUint32 || format.Time(g.q-1)<<s.relShift >= e.b-s.lo) &&
		format.Time(g.w)<<s.relShift <= e.a-s.lo {
		return buf // e is in the gap between y's releases (relGate)
	}
	on := s.ons[e.lk]
	var ref model.LockRef
	switch on.how {
	case howMonitor:
		ref = model.LockRef{Object: on.obj, Kind: model.Monitor}
	case howLock:
		ref = model.LockRef{Object: on.obj, Kind: model.JUCLock}
	default:
		return buf
	}
	rs, next, more := s.releasesIn(int32(y), k, e.b)
	g.q, g.w = math.MaxUint32, 0
	if more {
		g.q = 1 + uint32(min(max(next-s.lo, 0)>>s.relShift, math.MaxUint32-2))
	}
	if len(rs) > 0 {
		unit := format.Time(1)<<s.relShift - 1
		if w := (max(rs[len(rs)-1].b-s.lo, 0) + unit) >> s.relShift; w < math.MaxUint32 {
			g.w = uint32(w)
		} else {
			g.q = 0 // no bound: not known
		}
	}
	j, n := 0, len(rs)
	for j < n { // the first release that ends after e.a
		h := int(uint(j+n) >> 1)
		if rs[h].b <= e.a {
			j = h + 1
		} else {
			n = h
		}
	}
	first := true
	put := func(a, b format.Time, to uint32) {
		if b > a {
			buf = s.putPiece(buf, i, k, &first, sweepEdge{a: a, b: b, from: e.from, to: to | e.to&srcBit, lk: e.lk})
		}
	}
	at := e.a
	for ; j < len(rs) && rs[j].a < e.b; j++ {
		if s.relLocks[rs[j].lock] != ref {
			continue
		}
		p, q := max(rs[j].a, at), min(rs[j].b, e.b)
		if q <= p {
			continue
		}
		put(at, p, y)
		put(p, q, uint32(s.released(int32(y))))
		at = q
	}
	if at == e.a {
		return buf // no release in it
	}
	put(at, e.b, y)
	return buf
}

// putPiece places piece p of edge buf[i], of bucket k, cut by
// splitReleased or cutJoin: the first piece (*first) in buf[i]'s place,
// one of bucket k at buf's end, the others in their buckets.
func (s *chainSweep) putPiece(buf []sweepEdge, i, k int, first *bool, p sweepEdge) []sweepEdge {
	switch kp := s.bucketOf(p.a); {
	case *first:
		buf[i], *first = p, false
	case kp == k:
		buf = append(buf, p)
	default:
		s.buckets[kp].add(&p, s.base(kp), s.sp)
	}
	return buf
}

// cutJoin cuts from join edge buf[i], of bucket k, the stretches in which
// its joiner held the joined thread's Thread object's monitor (selfHeld,
// chainWalk.joinHeld), kept in joinCut. The first piece left stays
// buf[i], the others are added as splitReleased adds its pieces; with
// none left buf[i] is taken out (gone).
func (s *chainSweep) cutJoin(buf []sweepEdge, i, k int) (_ []sweepEdge, gone bool) {
	e := buf[i]
	hs := s.selfHeld[int32(e.to&^srcBit)]
	if len(hs) == 0 {
		return buf, false
	}
	first := true
	put := func(a, b format.Time) {
		if b > a {
			buf = s.putPiece(buf, i, k, &first, sweepEdge{a: a, b: b, from: e.from, to: e.to, lk: e.lk})
		}
	}
	at := e.a
	for _, h := range hs {
		if h.holder != e.from {
			continue
		}
		p, q := max(h.a, at), min(h.b, e.b)
		if q <= p {
			continue
		}
		put(at, p)
		s.joinCut[e.from] = append(s.joinCut[e.from], heldSpan{p, q})
		at = q
	}
	if at == e.a {
		return buf, false // not held in it
	}
	put(at, e.b)
	if first {
		return slices.Delete(buf, i, i+1), true
	}
	return buf, false
}

// released returns node y's released node, made when new.
func (s *chainSweep) released(y int32) int32 {
	if len(s.relNode) <= int(y) {
		s.relNode = append(s.relNode, make([]int32, int(y)+1-len(s.relNode))...)
	}
	if s.relNode[y] == 0 {
		s.relNode[y] = int32(len(s.ids))
		s.ids = append(s.ids, s.ids[y])
	}
	return s.relNode[y]
}

// lessEnd orders the heap of ends: by end, then thread, then place.
func lessEnd(x, y *endEv) bool {
	if x.b != y.b {
		return x.b < y.b
	}
	if x.from != y.from {
		return x.from < y.from
	}
	return x.e < y.e
}

// run sweeps the edges in time order: at each instant the ends of the
// edges under way, then the starts, each by thread; bucket by bucket, its
// starts and ends already in that order (order).
func (s *chainSweep) run() {
	e := int32(0) // the next start's place in the sweep
	for k := range s.flat {
		starts, ends := s.ordered(k)
		t0 := s.flat[k].t0
		i, j := 0, 0
		for i < len(starts) || j < len(ends) {
			var at uint32 // now less t0
			switch {
			case i == len(starts):
				at = ends[j].b
			case j == len(ends):
				at = starts[i].a
			default:
				at = min(starts[i].a, ends[j].b)
			}
			now := t0 + format.Time(at)
			for ; j < len(ends) && ends[j].b == at; j++ {
				if v := &ends[j]; s.nd[s.slotOf[v.from]].cur == v.e {
					s.detach(s.slotOf[v.from], now)
				}
			}
			for ; i < len(starts) && starts[i].a == at; i++ {
				v := &starts[i]
				x := s.take(v.from)
				if s.nd[x].cur >= 0 { // edges of one thread that overlap: the later wins
					s.detach(x, now)
				}
				s.attach(x, e, uint32(s.take(int32(v.to&^srcBit)))|v.to&srcBit, v.lk, now)
				e++
			}
			if !s.pass2 {
				for _, r := range s.dirty {
					if s.nd[r].par < 0 && s.nd[r].cnt > 0 {
						a := &s.accs[s.accOf2(r)]
						a.depth = max(a.depth, int32(s.depth(r)))
					}
				}
			}
			s.dirty = s.dirty[:0]
			if s.pass2 && now >= s.stop {
				// The roots kept gain no time after: each one's last
				// stretch ended at an event in its tree, which added up
				// the time of the edges it changed, and of every
				// waiter's way that ended.
				return
			}
		}
	}
}

// root returns x's root.
func (s *chainSweep) root(x int32) int32 {
	nd := s.nd // in registers: s.nd read again at each step otherwise
	for nd[x].par >= 0 {
		x = nd[x].par
	}
	return x
}

// accOf2 returns root r's entry in accs: its cycle's or its own.
func (s *chainSweep) accOf2(r int32) int32 {
	if s.nd[r].cur >= 0 {
		return s.nd[r].cycAcc
	}
	return s.nodeAccOf(r)
}

// nodeAccOf returns node x's thread's entry in accs, made when new: by
// its thread's node (a released node's thread is its holder's), not by a
// map of IDs (one entry for each thread ever a root: 1.3 M at 5 GB). In
// pass 2 none is made: noAcc for a thread pass 1 gave none.
func (s *chainSweep) nodeAccOf(x int32) int32 {
	if s.nd[x].nodeAcc == -1 {
		n := s.slotNode[x]
		if s.nacc[n] == -1 {
			var p int32
			if s.pass2 {
				// The index let go (chains): the node of n's ID is n but
				// where same says.
				p = n
				if q, ok := s.same[n]; ok {
					p = q
				}
			} else {
				p = s.node.get(s.ids[n])
			}
			switch {
			case s.nacc[p] >= 0:
			case s.pass2:
				s.nacc[p] = noAcc
			default:
				s.nacc[p] = int32(len(s.accs))
				s.accs = append(s.accs, sweepAcc{root: s.ids[p]})
				s.accEnd = append(s.accEnd, 0)
			}
			s.nacc[n] = s.nacc[p]
		}
		s.nd[x].nodeAcc = s.nacc[n]
		if s.pass2 {
			s.nd[x].selNode = s.sel(s.nacc[n])
		}
	}
	return s.nd[x].nodeAcc
}

// selOf reports whether node x's thread's entry in accs is a root kept's
// (pass 2): sel(nodeAccOf(x)), read in x's node.
func (s *chainSweep) selOf(x int32) bool {
	if s.nd[x].nodeAcc == -1 {
		s.nodeAccOf(x)
	}
	return s.nd[x].selNode
}

// selRoot reports whether root r's entry in accs (accOf2) is a root
// kept's (pass 2).
func (s *chainSweep) selRoot(r int32) bool {
	if s.nd[r].cur >= 0 {
		return s.nd[r].selCyc
	}
	return s.selOf(r)
}

// isSrc reports whether x's edge now is a waiter's (its time is blamed).
func (s *chainSweep) isSrc(x int32) bool { return s.nd[x].curTo&srcBit != 0 }

// target is the thread x waits for now.
func (s *chainSweep) target(x int32) int32 { return int32(s.nd[x].curTo &^ srcBit) }

// attach starts x's edge e, to thread to&^srcBit on lk (sweepEdge), at
// now (x is a root with no edge).
func (s *chainSweep) attach(x, e int32, to, lk uint32, now format.Time) {
	y := int32(to &^ srcBit)
	s.flush(x, now)
	r := s.root(y)
	cyc, isCyc := int32(-1), r == x // cyc noAcc: a cycle's of no entry (pass 2)
	if isCyc {
		// A cycle: y's chain leads back to x. Its root is its thread of
		// the smallest id.
		m := x
		for u := y; u != x; u = s.nd[u].par {
			if s.ids[s.slotNode[u]] < s.ids[s.slotNode[m]] {
				m = u
			}
		}
		cyc = s.nodeAccOf(m)
	}
	if s.pass2 {
		// x's tree goes to r's root (or becomes a cycle); the rates on
		// r's way change.
		var to bool
		if isCyc {
			to = s.sel(cyc)
		} else {
			to = s.selRoot(r)
		}
		if s.selOf(x) || to {
			s.flushTree(x, now)
		}
		if !isCyc && to {
			s.flushPath(y, r, now)
		}
		s.nd[x].edgeAt = now
	}
	s.nd[x].cur, s.nd[x].curTo, s.nd[x].curLk = e, to, lk
	if s.isSrc(x) {
		s.addSelf(x, 1)
	}
	if isCyc {
		if s.pass2 {
			for u := y; u != x; u = s.nd[u].par {
				s.nd[u].onCyc = true
			}
			s.nd[x].onCyc = true
		}
		s.nd[x].cycAcc = cyc
		if s.pass2 {
			s.nd[x].selCyc = s.sel(cyc)
		}
		s.dirty = append(s.dirty, x)
		return
	}
	s.flush(r, now)
	s.link(x, y, 1)
	s.dirty = append(s.dirty, r)
}

// sel reports whether accs[ai] is a root kept (pass 2): the time of the
// edges of its tree is added up, those of the others' trees are not, and
// are taken as new when they go to a kept root's tree.
func (s *chainSweep) sel(ai int32) bool { return s.keptOf(ai) >= 0 }

// keptOf is accs[ai]'s rank among the roots kept (pass 2), -1 for none
// (ai noAcc or -1 too).
func (s *chainSweep) keptOf(ai int32) int32 {
	if ai < 0 {
		return -1
	}
	return s.accKept[ai]
}

// detach ends x's edge at now.
func (s *chainSweep) detach(x int32, now format.Time) {
	src := s.isSrc(x)
	if s.nd[x].par < 0 { // the edge that closed a cycle
		s.flush(x, now)
		if s.pass2 {
			if s.nd[x].selCyc || s.selOf(x) {
				s.flushTree(x, now)
			}
			s.uncycle(x)
		}
		s.nd[x].cur = -1
		if src {
			s.addSelf(x, -1)
		}
		s.dirty = append(s.dirty, x)
		return
	}
	r := s.root(x)
	s.flush(r, now)
	cyc := s.nd[r].cur >= 0
	if s.pass2 {
		to := s.selOf(x) // x's tree goes to x's root
		if cyc {
			if to || s.nd[r].selCyc {
				s.flushTree(r, now)
			}
			if s.nd[x].onCyc {
				s.uncycle(r) // x is on the cycle, which its end breaks
			}
		} else if from := s.selOf(r); from || to {
			s.flushTree(x, now)
			if from {
				s.flushPath(s.nd[x].par, r, now)
			}
		}
	}
	s.link(x, s.nd[x].par, -1)
	s.nd[x].cur = -1
	if src {
		s.addSelf(x, -1)
	}
	s.nd[x].last = now
	s.dirty = append(s.dirty, x)
	if cyc && s.root(s.target(r)) != r {
		// x was on r's cycle: it is broken, r's edge closes none now
		// and r is behind x's tree.
		s.link(r, s.target(r), 1)
	}
}

// uncycle clears the marks of cycle root r's cycle (pass 2).
func (s *chainSweep) uncycle(r int32) {
	for u := s.target(r); u != r && u >= 0; u = s.nd[u].par {
		s.nd[u].onCyc = false
	}
	s.nd[r].onCyc = false
}

// addSelf adds d to root x's own count of waiters (its edge is a
// waiter's).
func (s *chainSweep) addSelf(x int32, d int32) {
	s.nd[x].cnt += d
}

// ownWaiter is x's waiters at distance 0 (hist): 1 when its edge now is a
// waiter's, else 0.
func (s *chainSweep) ownWaiter(x int32) int32 {
	if d := &s.nd[x]; d.cur >= 0 && d.curTo&srcBit != 0 {
		return 1
	}
	return 0
}

// deep returns x's waiters at distance 2 and more (hist[x]), nil when
// none: read only when its count says there are (pass 1).
func (s *chainSweep) deep(x int32) []int32 {
	d := &s.nd[x]
	if d.cnt-s.ownWaiter(x)-d.h1 == 0 {
		return nil
	}
	h := trim(s.histAt(x))
	s.setHist(x, h)
	return h
}

// histAt returns x's histogram (hist), nil for none.
func (s *chainSweep) histAt(x int32) []int32 {
	if i := s.histOf[x]; i > 0 {
		return s.hist[i-1]
	}
	return nil
}

// setHist makes h x's histogram, an entry in hist given x when it has
// none and h is not empty.
func (s *chainSweep) setHist(x int32, h []int32) {
	i := s.histOf[x]
	if i == 0 {
		if cap(h) == 0 {
			return
		}
		s.hist = append(s.hist, nil)
		i = int32(len(s.hist))
		s.histOf[x] = i
	}
	s.hist[i-1] = h
}

// level is x's waiters at distance k (pass 1).
func (s *chainSweep) level(x int32, k int) int32 {
	switch k {
	case 0:
		return s.ownWaiter(x)
	case 1:
		return s.nd[x].h1
	}
	if h := s.deep(x); k-2 < len(h) {
		return h[k-2]
	}
	return 0
}

// levels is one more than x's farthest distance that may have waiters
// (pass 1).
func (s *chainSweep) levels(x int32) int { return 2 + len(s.deep(x)) }

// addDeep adds n to x's waiters at distance k >= 2 (hist).
func (s *chainSweep) addDeep(x int32, k int, n int32) {
	h := s.histAt(x)
	for len(h) <= k-2 {
		h = append(h, 0)
	}
	h[k-2] += n
	s.setHist(x, h)
}

// link makes y x's parent (sign 1) or x no longer y's child (sign -1):
// x's waiters are added to or taken from y's ancestors'.
func (s *chainSweep) link(x, y int32, sign int32) {
	c := s.nd[x].cnt * sign
	var x0, x1 int32
	var hx []int32
	if !s.pass2 && c != 0 {
		x0, x1, hx = s.ownWaiter(x)*sign, s.nd[x].h1*sign, s.deep(x)
	}
	// nd in registers (s.nd read again after each store otherwise); with
	// c 0 the walk up would add nothing.
	nd := s.nd
	for u, j := y, 1; u >= 0 && c != 0; u, j = nd[u].par, j+1 {
		nd[u].cnt += c
		if !s.pass2 {
			// x's distance k is u's k+j.
			if j == 1 {
				nd[u].h1 += x0
			} else if x0 != 0 {
				s.addDeep(u, j, x0)
			}
			if x1 != 0 {
				s.addDeep(u, j+1, x1)
			}
			for k, n := range hx {
				if n != 0 {
					s.addDeep(u, k+2+j, n*sign)
				}
			}
			if j > 1 || x1 != 0 || len(hx) > 0 {
				s.setHist(u, trim(s.histAt(u)))
			}
		}
	}
	if sign > 0 {
		s.nd[x].par = y
		if s.pass2 {
			// x first among y's children.
			f := s.nd[y].kid
			s.nd[x].next, s.nd[x].prev = f, 0
			if f > 0 {
				s.nd[f-1].prev = x + 1
			}
			s.nd[y].kid = x + 1
		}
		return
	}
	s.nd[x].par = -1
	if s.pass2 {
		p, n := s.nd[x].prev, s.nd[x].next
		if p > 0 {
			s.nd[p-1].next = n
		} else {
			s.nd[y].kid = n
		}
		if n > 0 {
			s.nd[n-1].prev = p
		}
		s.nd[x].next, s.nd[x].prev = 0, 0
	}
}

// trim returns h without its zeros at the end: a subtree's depths would
// otherwise grow with every move of a deeper one through it.
func trim(h []int32) []int32 {
	for len(h) > 0 && h[len(h)-1] == 0 {
		h = h[:len(h)-1]
	}
	return h
}

// depth returns the longest chain to root r: its waiters' greatest
// distance to it; for a cycle's root, to the first thread of the cycle
// on their way, plus one.
func (s *chainSweep) depth(r int32) int {
	if s.nd[r].cur < 0 {
		// As the loop below over levels and level, with deep read once
		// (level read it, trimmed it and stored it again at each
		// distance from 2 on) and distance 0 not asked: its answer is 0
		// either way. Most roots have no deep levels: h1 alone.
		h := s.deep(r)
		for k := len(h) - 1; k >= 0; k-- {
			if h[k] > 0 {
				return k + 2
			}
		}
		if s.nd[r].h1 > 0 {
			return 1
		}
		return 0
	}
	d := 0
	for u := r; ; {
		// u's waiters not behind the next thread of the cycle (c).
		c := int32(-1)
		if y := s.target(r); y != u {
			for c = y; s.nd[c].par != u; c = s.nd[c].par {
			}
		}
		for k := s.levels(u) - 1; k >= 0; k-- {
			n := s.level(u, k)
			if c >= 0 && k >= 1 {
				n -= s.level(c, k-1)
			}
			if n > 0 {
				d = max(d, k+1)
				break
			}
		}
		if c < 0 {
			return d
		}
		u = c
	}
}

// flush adds root r's time since last, its waiters' count each instant,
// to its entry (pass 1); for a root kept (pass 2), a cycle's to its
// states, another's as a stretch to split by what it was doing
// (rootStates).
func (s *chainSweep) flush(r int32, now format.Time) {
	a := s.nd[r].last
	s.nd[r].last = now
	n := format.Time(s.nd[r].cnt)
	if n == 0 || now <= a || s.pass2 && !s.selRoot(r) {
		return
	}
	ai := s.nd[r].cycAcc
	if s.nd[r].cur < 0 {
		ai = s.nodeAccOf(r)
	}
	if !s.pass2 {
		s.accEnd[ai] = now
		s.accs[ai].time += n * (now - a)
		return
	}
	switch k := s.keptOf(ai); {
	case k < 0:
	case s.nd[r].cur >= 0:
		s.kept[k].states[rootCycle] += n * (now - a)
	case s.slotNode[r] >= s.relBase:
		s.kept[k].states[rootReleased] += n * (now - a)
	default:
		s.segs[k].add(a, now, n, s.sp)
	}
}

// rootStates splits the stretches of each root kept (segs) by what the
// root was doing: its intervals' states, runnable between them, ended
// after its end, unknown before its start or for a thread with no events
// of its own. Each root's intervals are read once, one root at a time, a
// long root's by pieces (Model.WindowOf).
func (s *chainSweep) rootStates(roots []int32) {
	var win model.IntervalWindow
	for k, r := range roots {
		acc := &s.kept[k]
		segs := s.segs[k].all(s.sp, &s.room)
		if s.segs[k].empty() {
			continue
		}
		add := func(st int, n, p, q format.Time) {
			if q > p {
				acc.states[st] += n * (q - p)
			}
		}
		if int(r) >= s.m.NumThreads() {
			for g := range segs {
				add(rootUnknown, g.n, g.a, g.b)
			}
			s.segs[k] = segLog{}
			continue
		}
		t := s.m.ThreadAt(int(r))
		s.m.WindowOf(t, &win)
		cuts := s.joinCut[r]
		slices.SortFunc(cuts, func(x, y heldSpan) int { return cmp.Compare(x.a, y.a) })
		i := 0
		for g := range segs {
			a, b, n := g.a, g.b, g.n
			if a < t.Start {
				add(rootNotStarted, n, a, min(b, t.Start))
				a = min(b, t.Start)
			}
			if b > t.End {
				add(rootEnded, n, max(a, t.End), b)
				b = max(a, t.End)
			}
			// A long root's intervals by pieces (Model.WindowOf): those
			// of the stretch, i the first's place in the thread.
			ivs, from := win.Cover(a, b)
			li := max(i-from, 0)
			for li < len(ivs) && ivs[li].End <= a {
				li++
			}
			i = from + li
			at := a
			for j := li; j < len(ivs) && ivs[j].Start < b; j++ {
				p, q := max(ivs[j].Start, a), min(ivs[j].End, b)
				if q <= p {
					continue
				}
				add(int(model.Runnable), n, at, p)
				at = max(at, q)
				st := int(ivs[j].Shown())
				if ivs[j].State == model.Joining && !ivs[j].SelfJoin {
					// Cut from its join: it held the joined Thread's
					// monitor, running (cutJoin).
					for _, h := range cuts {
						if c, d := max(p, h.a), min(q, h.b); d > c {
							add(st, n, p, c)
							add(int(model.Runnable), n, c, d)
							p = d
						}
					}
				}
				add(st, n, p, q)
			}
			add(int(model.Runnable), n, at, b)
		}
		s.segs[k] = segLog{}
	}
}

// flushEdge adds x's edge's time since edgeAt, at its rate (the waiters
// that went through it: those of its subtree, or all of its cycle's), to
// its root's links, and x to its threads if it is a waiter (pass 2).
func (s *chainSweep) flushEdge(x, ai, n int32, now format.Time) {
	if s.nd[x].cur < 0 {
		return
	}
	a := s.nd[x].edgeAt
	s.nd[x].edgeAt = now
	k := s.keptOf(ai)
	if now <= a || n == 0 || k < 0 {
		return
	}
	acc := &s.kept[k]
	// The links by node, not by slot (the forest's).
	xn, to := s.slotNode[x], s.slotNode[s.target(x)]
	if s.wide {
		s.wideLinks[k][linkKey{xn, to, s.nd[x].curLk}] += format.Time(n) * (now - a)
	} else {
		s.links[k].add(linkWord(xn, to, s.nd[x].curLk, s.nodeBits, s.lkBits), format.Time(n)*(now-a), s.nodeBits, s.lkBits)
	}
	if s.isSrc(x) {
		if len(acc.threads) == cap(acc.threads) && len(acc.threads) >= threadsCompact {
			// Made unique as they come, not once at the end: a root's
			// waiters are repeated at each step of its tree (55 MB of
			// c1G's report for the ten roots kept, growing with the run).
			slices.Sort(acc.threads)
			acc.threads = slices.Compact(acc.threads)
			if len(acc.threads) > cap(acc.threads)/2 {
				acc.threads = slices.Grow(acc.threads, len(acc.threads))
			}
		}
		acc.threads = append(acc.threads, s.ids[xn])
	}
}

// rate returns the waiters that go through x's edge, in root r's tree.
func (s *chainSweep) rate(x, r int32) int32 {
	if s.nd[x].onCyc {
		return s.nd[r].cnt
	}
	return s.nd[x].cnt
}

// flushTree flushes the edges of x's subtree (pass 2), x's own included.
func (s *chainSweep) flushTree(x int32, now format.Time) {
	r := s.root(x)
	ai := s.accOf2(r)
	var walk func(u int32)
	walk = func(u int32) {
		s.flushEdge(u, ai, s.rate(u, r), now)
		for k := s.nd[u].kid; k > 0; k = s.nd[k-1].next {
			walk(k - 1)
		}
	}
	walk(x)
}

// flushPath flushes the edges from y up to its root r (pass 2), and, r a
// cycle's root, its cycle's: their rates are about to change.
func (s *chainSweep) flushPath(y, r int32, now format.Time) {
	ai := s.accOf2(r)
	for u := y; u >= 0; u = s.nd[u].par {
		s.flushEdge(u, ai, s.rate(u, r), now)
	}
	if s.nd[r].cur >= 0 {
		for u := s.target(r); u != r; u = s.nd[u].par {
			s.flushEdge(u, ai, s.rate(u, r), now)
		}
	}
}
