package model

import (
	"cmp"
	"encoding/binary"
	"math"
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
	// this very monitor, or parked in Condition.await on a condition of
	// this very java.util.concurrent lock (Model.Releases); and of a
	// java.util.concurrent lock, its hand-offs: from the unpark that ended
	// a park in its acquire to that park's end (Interval.HandOff, the
	// stretches of the lock's contentions merged), whoever the holder
	// named and whatever it did then. It had let the lock go, and the next
	// owner was not in yet (the blocked threads name their owner until the
	// fold learns of the next: the hand-off). Not the holder's Waiting,
	// Parked, Idle or runnable time: it did not hold the lock then.
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
// lock of the View (a semaphore has no holder; with View.HoldersOf, for
// those of them it names), what its holders did while the View's threads
// were blocked on it. One pass over the threads' intervals collects the
// locks' blame spans. A Model built with
// Options.Spill reads each thread's intervals and samples from its spill,
// one thread at a time; with Options.DropIntervals too, the intervals of
// a thread of more than ivPiece by pieces (ivStream: the first pass in
// order, the holders' fold a window over a holder's spans, which come in
// order of start), so that its memory does not grow with a thread's life.
func (v *View) HoldersDoing() map[LockRef]*Doing {
	return v.holdersDoing(v.Model.spill != nil, true, nil)
}

// HoldersDoingWith is HoldersDoing, and calls each with every interval of
// the View's threads as its one pass reads them (thread by thread in the
// View's order, each thread's in order), with the interval's blame spans
// that have time (a Blocked or Acquire interval's, of any lock, named by
// View.HoldersOf or not; none for the others):
// another fold over all the intervals (the wait chains' edges,
// analysis.HoldersAndChains) then reads none again. Neither iv nor spans
// may be kept or changed after the call. Its Doings have no Spans (the
// report reads none: the union of every lock's spans is not held at once).
// It lets go the blame spans the fold logged (blameLog), unless
// View.KeepBlame: a later call reads the owner changes back instead, for
// the same Doings.
func (v *View) HoldersDoingWith(each func(t *Thread, iv *Interval, spans []OwnerSpan)) map[LockRef]*Doing {
	return v.holdersDoing(v.Model.spill != nil, false, each)
}

// HoldersDoingInMemory is HoldersDoing from the intervals and samples in
// memory, whether the Model has a spill or not: the validator's check that
// the spill gives the same (modeltest.Validate). With the intervals
// dropped (Options.DropIntervals), it is HoldersDoing.
func (v *View) HoldersDoingInMemory() map[LockRef]*Doing {
	return v.holdersDoing(v.Model.dropped, true, nil)
}

// Spilled reports whether the Model was built with a spill that was
// written whole (Options.Spill).
func (m *Model) Spilled() bool { return m.spill != nil }

// The steps of HoldersDoing that View.Progress names: the threads'
// intervals read (the locks' blame spans taken), then the holders' spans
// folded, bucket by bucket.
const (
	StepHoldersThreads = "what the lock holders did: the threads' intervals"
	StepHoldersSpans   = "what the lock holders did: their spans"
)

// progressEvery is how many threads HoldersDoing reads between two calls
// of View.Progress (the first threads, the long-lived, take seconds of a
// large recording's 256).
const progressEvery = 16

// holdersDoing is HoldersDoing; keep: each Doing keeps its Spans.
func (v *View) holdersDoing(spill, keep bool, each func(*Thread, *Interval, []OwnerSpan)) map[LockRef]*Doing {
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
	lc := &lockChanges{pk: map[*Lock]*ownerPack{}}
	// Each lock's blame spans, as they come thread by thread, packed
	// (spanLog: about 10 bytes a span, not 24) and cut into runs in order
	// of start: a 1 GB recording has ~20 M of them (docs/streaming.md).
	logs := map[LockRef]*spanLog{}
	var ssp *spanSpill
	if m.spill != nil {
		ssp = &spanSpill{m: m, max: spanChunkMax, logs: logs}
	}
	var lastRef LockRef
	var last *spanLog // lastRef's log; nil: its holders are not folded (View.HoldersOf)
	haveLast := false
	near := make([]logCache, 1<<logCacheBits)
	var ivSpans []OwnerSpan
	var br blameReader
	var pc parkCursor
	hs := heldSort{sp: m.spill, progress: func(done, total int) { v.progress(StepHoldersSpans, done, total) }}
	nt, it := v.Len(), 0
	var waiterIvs func(t *Thread, ivs []Interval) // a thread's intervals, in order, after those given before
	var st ivStream                               // a long thread's intervals, by pieces (byPieces)
	waiter := func(t *Thread) {
		if it%progressEvery == 0 {
			v.progress(StepHoldersThreads, it, nt)
		}
		it++
		if spill && m.byPieces(t) {
			h := m.spilledSome(t, &sp, false, false)
			br.reset(&h.folded().blame)
			st.reset(m, t, sp.ahead)
			for st.more() {
				h.Intervals = st.ivs
				waiterIvs(h, st.ivs)
				st.ivs = st.ivs[:0]
			}
			h.Intervals = nil
			return
		}
		t = load(t, &sp, false)
		br.reset(&t.folded().blame)
		waiterIvs(t, t.Intervals)
	}
	waiterIvs = func(t *Thread, ivs []Interval) {
		for i := range ivs {
			iv := &ivs[i]
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
			if ref != lastRef || !haveLast {
				// A thread's intervals mostly repeat one lock; the logs
				// of the locks met lately in a cache before the map
				// (its look-ups were 0.55 of c1G's CPU-s).
				c := &near[logSlot(ref)]
				if !c.set || c.ref != ref {
					c.l = nil
					if v.HoldersOf == nil || v.HoldersOf[ref] {
						if c.l = logs[ref]; c.l == nil {
							c.l = &spanLog{}
							logs[ref] = c.l
						}
					}
					c.ref, c.set = ref, true
				}
				last, lastRef, haveLast = c.l, ref, true
			}
			if last == nil && each == nil {
				// A lock whose holders are not folded: its spans are
				// not made, its entry passed by (the next interval of
				// its start is not given it).
				if logKind(iv) != 0 {
					br.passBy(iv)
				}
				continue
			}
			ivSpans = m.blameSpansLogged(t.ID, iv, lc, &br, &pc, ivSpans[:0])
			n := 0
			for _, sp := range ivSpans {
				if sp.End > sp.Start {
					ivSpans[n] = sp
					n++
				}
			}
			ivSpans = ivSpans[:n]
			if last != nil {
				for _, s := range ivSpans {
					last.add(s, ssp)
				}
				if from, ok := iv.HandOff(); ok && iv.End > from {
					// After its span, in order: from is not before Start.
					last.addHandOff(from, iv.End, ssp)
				}
			}
			if each != nil {
				each(t, iv, ivSpans)
			}
		}
	}
	if spill {
		// The threads' blocks staged many threads' at a time
		// (spillAhead), read in the same order.
		sp.ahead = &spillAhead{}
		want := [spillKinds]bool{spillIvs: true, spillBlame: true}
		var ws []uint32 // with the View of all threads: each one's weight (heldSort.at)
		if v.all && m.thIdx != nil && m.byThread == nil && len(m.Threads) > 0 {
			ws = make([]uint32, len(m.Threads))
		}
		eachAhead(m, v.All(), sp.ahead, &want, func(i int, t *Thread) {
			if ws != nil && t != nil {
				ws[i] = uint32(min(t.spill.count(spillIvs), math.MaxUint32-1)) + 1
			}
			waiter(t)
		})
		sp.ahead = nil
		if ws != nil {
			hs.m, hs.at = m, heldBucketsAt(ws)
		}
	} else {
		for _, t := range v.All() {
			waiter(t)
		}
	}
	// Each lock's spans become their union, merged from its runs (the
	// order of a stable sort by start of the spans as they came), and
	// the packed spans are let go lock by lock. Each union's spans are
	// sorted by holder as they are made (heldSort; the union is kept in
	// Doing.Spans when asked alone). Then the holders'
	// spans are folded holder by holder, so that one cursor per holder
	// walks its intervals and samples forward, lock after lock (a
	// holder's spans of two locks may overlap: the cursor steps back a
	// little), instead of a search of the whole per span; the fold adds
	// integers, in any order.
	out := make(map[LockRef]*Doing, len(logs))
	folds := make([]*doingFold, 0, len(logs))
	var osp *onSpill
	if m.spill != nil {
		osp = &onSpill{m: m}
	}

	var fpc parkCursor // the folds' (foldSpan)
	mg := spanMerge{m: m}
	lives := lifeCache{m: m}
	var kept []OwnerSpan // a union, when the Doings keep it
	for r, lg := range logs {
		d := &Doing{}
		f := &doingFold{d: d, lock: r, lc: lc, pc: &fpc, sp: osp, top: v.OnTop}
		k := int32(len(folds))
		out[r] = d
		folds = append(folds, f)
		kept = kept[:0]
		mg.union(lg, func(s OwnerSpan, hand []OwnerSpan) {
			if keep {
				kept = append(kept, s)
			}
			// Its hand-off stretches are released, folded here (the
			// holder's life alone is read); the rest by holder below.
			handOffParts(s, hand, func(p OwnerSpan, released bool) {
				if released {
					f.released(&p, lives.of(p.Owner))
				} else {
					hs.add(k, p)
				}
			})
		})
		if keep {
			d.Spans = append(make([]OwnerSpan, 0, len(kept)), kept...)
		}
		delete(logs, r)
	}
	mg = spanMerge{}
	if osp != nil {
		osp.folds = folds
	}
	var bx blameIndex
	var h *Thread
	var c Cursor
	var hst ivStream // h's intervals by pieces, when pieces (byPieces)
	pieces := false
	hid, started := format.ThreadID(0), false
	// A piece's holders (heldSort.ahead), staged as the fold reaches
	// them, aheadBytes of blocks at a time: with hs.m, a bucket's
	// holders are threads next to each other in Threads, their blocks
	// near each other in the spill. pre is the threads of ids[preAt:],
	// staged; pi the next holder's place in ids.
	var ids []format.ThreadID
	var pre []*Thread
	pi, preAt := 0, 0
	want := [spillKinds]bool{spillIvs: true, spillSmp: true, spillBlame: true, spillWins: true}
	stage := func() {
		pre, preAt = pre[:0], pi
		for j := pi; j < len(ids); j++ {
			t := m.Thread(ids[j])
			pre = append(pre, t)
			n := sp.ahead.n
			if t != nil {
				n = sp.ahead.add(t, &want)
			}
			if n >= aheadBytes || len(pre) >= aheadThreads {
				break
			}
		}
		sp.ahead.read(m.spill)
	}
	if spill && hs.m != nil {
		sp.ahead = &spillAhead{}
		hs.ahead = func(x []format.ThreadID) {
			ids, pre, pi, preAt = append(ids[:0], x...), pre[:0], 0, 0
		}
	}
	hs.each(func(k int32, s OwnerSpan) {
		if !started || s.Owner != hid {
			hid, started = s.Owner, true
			var t *Thread
			if pi < len(ids) && ids[pi] == hid {
				if pi-preAt >= len(pre) {
					stage()
				}
				t = pre[pi-preAt]
				pre[pi-preAt] = nil
				pi++
			} else {
				t = m.Thread(hid)
			}
			pieces = spill && m.byPieces(t)
			if pieces {
				h = m.spilledSome(t, &sp, true, false)
				hst.reset(m, t, sp.ahead)
			} else {
				h = load(t, &sp, true)
			}
			c = Cursor{}
			if h != nil {
				bx.reset(&h.folded().blame, h.Intervals)
				c.blame = &bx
			}
		}
		if pieces {
			hst.cover(s.Start, s.End, &c, &bx)
			h.Intervals = hst.ivs
		}
		m.foldSpan(folds[k], &s, h, &c)
	})
	sp.ahead, pre, ids = nil, nil, nil
	for _, f := range folds {
		f.finish()
	}
	if each != nil && !v.KeepBlame {
		// The report's one pass: the blame logs are let go (a later pass
		// reads the owner changes back, as before them), so that they
		// are not held beside what the report makes next (the chains:
		// c1G's live peak).
		m.dropBlame()
	}
	return out
}

// logCache is a slot of HoldersDoing's cache of span logs by lock: set,
// ref's log l (nil: ref's holders are not folded, View.HoldersOf).
type logCache struct {
	ref LockRef
	l   *spanLog
	set bool
}

// logCacheBits is the bits of that cache's slot.
const logCacheBits = 10

// logSlot is ref's slot in that cache.
func logSlot(ref LockRef) int {
	return int((uint64(ref.Object)*0x9e3779b97f4a7c15 + uint64(ref.Kind)) >> (64 - logCacheBits))
}

// heldSort groups the holders' union spans (HoldersDoing) by holder, so
// that they are folded holder by holder, each holder's by start. With a
// spill, the spans are written as they come into one of heldBuckets
// buckets by a hash of their holder (with m set, by its index:
// bucketOf), heldBlock bytes of a bucket at a time (packed,
// heldBucket); at the end each bucket is read back in
// pieces of at most heldPiece spans, each piece sorted in memory by
// holder (in order of their IDs) and each holder's by start. A bucket of
// one piece (all but a few: heldPiece) is folded so; a longer one's
// pieces are written out as sorted runs and merged (mergeRuns) as they
// are folded. A bucket holds every span of its holders, and a holder
// that holds a contended lock the recording long makes its bucket grow
// with the recording (c5G-slow5's longest, 4.3 M spans, was read back
// whole three times over: 406 MB, the report's peak); a piece is two
// arrays of heldPiece spans (8 MB each) and a run's cursor a block
// (docs/perf/2026-12-01-issue-34-holders-bounded.md). No global sort:
// the external sort by (holder, start) the buckets replaced (radix-sorted
// runs of 32 MB, merged through a heap) was 2.6 of c1G's ~84 CPU-s
// (issue 34, docs/perf/2026-12-01-issue-34-holders-cpu.md), and the fold
// adds integers, so the holders may come in any order. Nothing is kept
// per holder until its bucket is read (a record each of c5G-slow5's
// 1.33 M holders was 0.10 GB of the report). Without a spill, in a log of
// each holder's (heldLog).
type heldSort struct {
	sp     *spillFile
	bk     []heldBucket
	recs   []heldRec       // a piece of a bucket's, read back
	grp    []heldRec       // the piece sorted (recs the merges' room)
	room   []byte          // a block read back
	byH    probeTab[int32] // a piece's holders, numbered
	groups []heldGroup
	gi     []int32 // each span's holder's number
	ord    []int32 // the holders' numbers in order of their IDs
	held   map[format.ThreadID]*heldLog
	last   *heldLog
	// m, when set, buckets the holders by their index in m.Threads (a
	// bucket a range of them, heldBucketsAt) rather than a hash of their
	// IDs: a bucket's holders' blocks then lie near each other in the
	// spill, and ahead, when set, is given each piece's holders in the
	// order they are folded, before (their blocks staged as the fold
	// reaches them: spillAhead), and nil before a bucket merged from runs.
	m     *Model
	at    []uint32 // the bucket of each index (heldBucketsAt)
	ahead func(ids []format.ThreadID)
	near  []heldNear // the buckets of the holders met lately
	// progress, if set, is told each bucket's number before it is folded,
	// of how many (View.Progress).
	progress func(done, total int)
}

// heldNear is a slot of heldSort's cache of holders' buckets.
type heldNear struct {
	id format.ThreadID
	b  int32
	ok bool
}

// heldNearBits is the bits of that cache's slot.
const heldNearBits = 12

// bucketOf is the bucket of holder h: by its index in hs.m.Threads
// (heldBucketAt) when hs.m is set, else heldBucketOf.
func (hs *heldSort) bucketOf(h format.ThreadID) int {
	if hs.m == nil {
		return heldBucketOf(h)
	}
	if hs.near == nil {
		hs.near = make([]heldNear, 1<<heldNearBits)
	}
	c := &hs.near[(uint64(h)*0x9e3779b97f4a7c15)>>(64-heldNearBits)]
	if !c.ok || c.id != h {
		c.id, c.ok = h, true
		if i := hs.m.threadIndex(h); i >= 0 {
			c.b = int32(hs.at[i])
		} else {
			c.b = int32(heldBucketOf(h))
		}
	}
	return int(c.b)
}

// heldBucketsAt turns ws, the weights of the threads by index, into each
// one's bucket, in place: the buckets ranges of indexes of about equal
// weight (a thread's intervals), in order. Not of equal length: the
// threads that live the recording long, which hold most spans, come
// first (c128's first 210 of 34 721), and ranges of equal length put
// them all in its first three buckets (at c1G, with ~8 times the spans,
// to be sorted in many pieces and merged).
func heldBucketsAt(ws []uint32) []uint32 {
	var tot uint64
	for _, w := range ws {
		tot += uint64(w)
	}
	var cum uint64
	for i, w := range ws {
		ws[i] = uint32(cum * heldBuckets / tot)
		cum += uint64(w)
	}
	return ws
}

// heldBucket is a bucket of heldSort's: its spans packed as they came
// (appendHeld, each against the one before in the bucket), the blocks
// written out first (refs), then those in b.
type heldBucket struct {
	b    []byte
	prev heldRec // the last packed
	refs []ScratchRef
	n    int  // its spans
	kept bool // a write failed: its blocks stay in b
}

// heldGroup is a holder's spans in a piece: the holder, their count,
// where they begin in the piece sorted (then end, once moved there),
// whether they came in order of start, and the last one's start.
type heldGroup struct {
	h      format.ThreadID
	n, at  int32
	sorted bool
	last   format.Time
}

// heldRec is a span of holder h in fold k.
type heldRec struct {
	h    format.ThreadID
	s, e format.Time
	k    int32
}

// compareHeld orders heldRecs by holder, then start: the order of a
// bucket's pieces and their merge.
func compareHeld(a, b *heldRec) int {
	return cmp.Or(cmp.Compare(a.h, b.h), cmp.Compare(a.s, b.s))
}

// heldBuckets is the buckets of heldSort's with a spill; heldBlock the
// bytes of a bucket's held before they are written out (a var: the tests
// write a block at each span). At most heldBuckets × heldBlock bytes are
// held (8 MB).
const heldBuckets = 1 << heldBucketBits

const heldBucketBits = 9

var heldBlock = 16 << 10

// heldPiece is the most spans of a bucket read back and sorted at once
// (a var: the tests cut pieces of a span or a few). c1G's buckets have
// 6 000 spans at the median, 130 000 at the 99th centile and 0.95 M at
// most (with every lock's holders folded, --top 0): a bucket past it is
// merged from runs, a write and a read more of its spans. Its two arrays
// of 1<<18 were 16 MB of c5G-slow5's report at its peak (the holders'
// spans, the wait chains' edges held beside them).
var heldPiece = 1 << 17

// heldMerged, when set (the tests), is told the runs of each bucket
// merged from more than one piece.
var heldMerged func(runs int)

// heldBucketOf is the bucket of holder h: the top bits of a hash of its
// ID (not probeHash's multiplier, which groups a bucket's holders by
// again).
func heldBucketOf(h format.ThreadID) int {
	return int((uint64(h) * 0xff51afd7ed558ccd) >> (64 - heldBucketBits))
}

func (hs *heldSort) add(k int32, s OwnerSpan) {
	if hs.sp == nil {
		hl := hs.last
		if hl == nil || s.Owner != hl.id {
			if hs.held == nil {
				hs.held = map[format.ThreadID]*heldLog{}
			}
			if hl = hs.held[s.Owner]; hl == nil {
				hl = &heldLog{id: s.Owner}
				hs.held[s.Owner] = hl
			}
			hs.last = hl
		}
		hl.add(k, s)
		return
	}
	if hs.bk == nil {
		hs.bk = make([]heldBucket, heldBuckets)
	}
	bk := &hs.bk[hs.bucketOf(s.Owner)]
	r := heldRec{h: s.Owner, s: s.Start, e: s.End, k: k}
	if bk.b == nil {
		bk.b = make([]byte, 0, heldBlock+4*binary.MaxVarintLen64)
	}
	bk.b = appendHeld(bk.b, &r, &bk.prev)
	bk.prev = r
	bk.n++
	if len(bk.b) >= heldBlock && !bk.kept {
		ref, ok := hs.sp.put(bk.b)
		if !ok {
			bk.kept = true // the rest stay in b, in order
			return
		}
		bk.refs = append(bk.refs, ref)
		bk.b = bk.b[:0]
	}
}

// each calls fold with every span added, holder by holder, each holder's
// by start (a tie in the order added); with a spill, a bucket's holders
// in order of their IDs; without, every holder's in order of their IDs,
// each holder's in the order added.
func (hs *heldSort) each(fold func(k int32, s OwnerSpan)) {
	if hs.sp == nil {
		ids := make([]format.ThreadID, 0, len(hs.held))
		for id := range hs.held {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			hl := hs.held[id]
			delete(hs.held, id)
			hl.each(fold)
		}
		return
	}
	for i := range hs.bk {
		if hs.progress != nil {
			hs.progress(i, len(hs.bk))
		}
		hs.bucket(&hs.bk[i], fold)
		hs.bk[i] = heldBucket{}
	}
	hs.bk, hs.recs, hs.grp, hs.room, hs.groups = nil, nil, nil, nil, nil
	hs.byH, hs.gi, hs.ord = probeTab[int32]{}, nil, nil
}

// bucket calls fold with bk's spans, by holder and start: read back a
// piece of heldPiece at a time; the pieces but the last sorted and
// written out as runs, then merged with the last.
func (hs *heldSort) bucket(bk *heldBucket, fold func(k int32, s OwnerSpan)) {
	if bk.n == 0 {
		return
	}
	rd := heldReader{r: runReader{refs: bk.refs, room: hs.room}, tail: bk.b}
	piece := heldPiece
	var runs [][]ScratchRef
	recs := roomOf(hs.recs, min(bk.n, piece))
	for left := bk.n; left > 0; left-- {
		recs = append(recs, rd.next(hs.sp))
		if len(recs) < piece || left == 1 {
			continue
		}
		hs.recs = recs
		sorted := hs.sortPiece()
		if run, ok := putRun(hs.sp, sorted, appendHeld); ok {
			runs = append(runs, run)
			recs = recs[:0]
			continue
		}
		// The spill takes no more: the rest is read into memory after
		// the piece (in order: they came after it), as a bucket's spans
		// stay in memory once its blocks are not written (kept).
		recs = recs[:copy(recs, sorted)]
		piece = math.MaxInt
	}
	hs.room, hs.recs = rd.r.room, recs
	sorted := hs.sortPiece()
	if len(runs) == 0 {
		if hs.ahead != nil {
			ids := make([]format.ThreadID, 0, len(hs.ord))
			for _, g := range hs.ord {
				ids = append(ids, hs.groups[g].h)
			}
			hs.ahead(ids)
		}
		for _, r := range sorted {
			fold(r.k, OwnerSpan{Owner: r.h, Start: r.s, End: r.e})
		}
		return
	}
	if heldMerged != nil {
		heldMerged(len(runs) + 1)
	}
	if hs.ahead != nil {
		hs.ahead(nil) // merged: its holders read on their own
	}
	mergeRuns(hs.sp, runs, sorted, compareHeld, readHeld, func(r heldRec) {
		fold(r.k, OwnerSpan{Owner: r.h, Start: r.s, End: r.e})
	})
}

// roomOf returns s emptied, or a new slice of room for n when s has
// less: of n exactly (slices.Grow rounds up, to twice as many at first).
func roomOf[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}

// heldReader reads a bucket's spans back in the order they came: its
// blocks written out, a block at a time, then those it kept (tail).
type heldReader struct {
	r    runReader
	tail []byte
	prev heldRec
}

// next returns the next span (the caller knows how many there are).
func (rd *heldReader) next(sp *spillFile) heldRec {
	if !rd.r.more(sp) {
		rd.r.b, rd.tail = rd.tail, nil
	}
	r, n := readHeld(rd.r.b, &rd.prev)
	if n <= 0 {
		panic(&SpillError{errRun}) // a span short
	}
	rd.prev, rd.r.b = r, rd.r.b[n:]
	return r
}

// sortPiece sorts the spans of hs.recs by holder (in order of their IDs)
// and each holder's by start, stably, into hs.grp, and returns them: the
// holders numbered as they come and counted, their spans moved to their
// places (a counting sort), then each holder's that did not come in order
// merged from its runs (a holder's spans come lock by lock, each lock's
// in order), with hs.recs as the room.
func (hs *heldSort) sortPiece() []heldRec {
	rs := hs.recs
	hs.byH.reset()
	hs.groups = hs.groups[:0]
	hs.gi = roomOf(hs.gi, cap(rs))[:len(rs)]
	for i := range rs {
		x, added := hs.byH.find(uint64(rs[i].h))
		if added {
			*x = int32(len(hs.groups))
			hs.groups = append(hs.groups, heldGroup{h: rs[i].h, sorted: true})
		}
		g := &hs.groups[*x]
		if rs[i].s < g.last {
			g.sorted = false
		}
		g.last = rs[i].s
		g.n++
		hs.gi[i] = *x
	}
	hs.ord = hs.ord[:0]
	for i := range hs.groups {
		hs.ord = append(hs.ord, int32(i))
	}
	slices.SortFunc(hs.ord, func(a, b int32) int { return cmp.Compare(hs.groups[a].h, hs.groups[b].h) })
	at := int32(0)
	for _, i := range hs.ord {
		g := &hs.groups[i]
		g.at, at = at, at+g.n
	}
	grp := roomOf(hs.grp, cap(rs))[:len(rs)]
	for i := range rs {
		g := &hs.groups[hs.gi[i]]
		grp[g.at] = rs[i]
		g.at++
	}
	for i := range hs.groups {
		if g := &hs.groups[i]; !g.sorted {
			sortHeldRuns(grp[g.at-g.n:g.at], rs[:0])
		}
	}
	hs.grp = grp
	return grp
}

// sortHeldRuns sorts rs by start, stably, by merging its runs in order
// of start (a holder's spans come lock by lock, each lock's in order):
// O(n log runs), where a holder of a hundred thousand spans made the
// sort in place (slices.SortStableFunc's rotations) 2.5 of c1G's CPU-s.
// buf is room to merge into, returned for the next call.
func sortHeldRuns(rs, buf []heldRec) []heldRec {
	var room [64]int
	bounds := append(room[:0], 0)
	for i := 1; i < len(rs); i++ {
		if rs[i].s < rs[i-1].s {
			bounds = append(bounds, i)
		}
	}
	if len(bounds) == 1 {
		return buf
	}
	bounds = append(bounds, len(rs))
	buf = slices.Grow(buf[:0], len(rs))[:len(rs)]
	src, dst := rs, buf
	for len(bounds) > 2 {
		next := bounds[:1]
		for k := 0; k+1 < len(bounds); k += 2 {
			lo, mid := bounds[k], bounds[k+1]
			hi := mid
			if k+2 < len(bounds) {
				hi = bounds[k+2]
			}
			a, b, d := src[lo:mid], src[mid:hi], dst[lo:hi]
			i, j, n := 0, 0, 0
			for i < len(a) && j < len(b) {
				if b[j].s < a[i].s {
					d[n] = b[j]
					j++
				} else {
					d[n] = a[i]
					i++
				}
				n++
			}
			n += copy(d[n:], a[i:])
			copy(d[n:], b[j:])
			next = append(next, hi)
		}
		bounds = next
		src, dst = dst, src
	}
	if &src[0] != &rs[0] {
		copy(rs, src)
	}
	return buf
}

// appendHeld packs r after prev: the differences of its holder, fold and
// start, and its length, as varints.
func appendHeld(b []byte, r, prev *heldRec) []byte {
	b = binary.AppendVarint(b, int64(r.h)-int64(prev.h))
	b = binary.AppendVarint(b, int64(r.k-prev.k))
	b = binary.AppendVarint(b, int64(r.s-prev.s))
	return binary.AppendVarint(b, int64(r.e-r.s))
}

// readHeld unpacks a record appendHeld packed after prev, and its bytes'
// count (0: b holds no whole one).
func readHeld(b []byte, prev *heldRec) (heldRec, int) {
	h, n1 := varint(b)
	k, n2 := varint(b[max(n1, 0):])
	s, n3 := varint(b[max(n1+n2, 0):])
	ln, n4 := varint(b[max(n1+n2+n3, 0):])
	if n1 <= 0 || n2 <= 0 || n3 <= 0 || n4 <= 0 {
		return heldRec{}, 0
	}
	r := heldRec{h: prev.h + format.ThreadID(h), k: prev.k + int32(k), s: prev.s + format.Time(s)}
	r.e = r.s + format.Time(ln)
	return r, n1 + n2 + n3 + n4
}

// heldLog is a holder's union spans (HoldersDoing without a spill),
// packed in the order they come, lock by lock: for each, the difference
// of its fold's number from the one before, of its start from the one
// before (zigzag) and its length, as varints.
type heldLog struct {
	id    format.ThreadID
	b     []byte
	k     int32       // the last span's fold
	start format.Time // and start
}

func (hl *heldLog) add(k int32, s OwnerSpan) {
	hl.b = binary.AppendUvarint(hl.b, uint64(k-hl.k))
	hl.b = binary.AppendVarint(hl.b, int64(s.Start-hl.start))
	hl.b = binary.AppendUvarint(hl.b, uint64(s.End-s.Start))
	hl.k, hl.start = k, s.Start
}

// each calls fold with hl's spans, in order.
func (hl *heldLog) each(fold func(k int32, s OwnerSpan)) {
	var k int32
	s := OwnerSpan{Owner: hl.id}
	for b := hl.b; len(b) > 0; {
		dk, n1 := uvarint(b)
		ds, n2 := varint(b[n1:])
		ln, n3 := uvarint(b[n1+n2:])
		b = b[n1+n2+n3:]
		k += int32(dk)
		s.Start += format.Time(ds)
		s.End = s.Start + format.Time(ln)
		fold(k, s)
	}
}

// spanLog is a lock's blame spans packed as they come (HoldersDoing):
// each the difference of its start from the one before (zigzag varint),
// its length and its holder (varints), in blocks that double up to
// spanBlock bytes (no copy as it grows). runs marks where a run of spans
// in order of start begins: a thread's spans come in order, so a run
// ends where the next span begins earlier (mostly where a thread's end).
// With a spill (sp), each spanChunkSize bytes of them are sorted into one
// run and written out (spilt), as an external sort's runs: the logs of a
// 5 GB recording were 1.11 GB of the report's live peak.
//
// A j.u.c. lock's log holds its hand-off stretches too (Interval.HandOff),
// each after its contention's span, as spans of handOffOwner: the merge
// reads them in order with the spans (spanMerge.union). An owner is packed
// plus one, so that handOffOwner takes a byte.
type spanLog struct {
	blocks [][]byte
	runs   []spanRun
	prev   format.Time // the last span's start
	size   int         // the bytes in blocks
	spilt  []spanChunk
	// handOffs: it has hand-off stretches (addHandOff).
	handOffs bool
}

// handOffOwner is the owner of a hand-off stretch in a spanLog: no
// thread's.
const handOffOwner = ^format.ThreadID(0)

// addHandOff adds the hand-off stretch [from, to] of the contention whose
// span was added last (Interval.HandOff).
func (l *spanLog) addHandOff(from, to format.Time, sp *spanSpill) {
	l.handOffs = true
	l.add(OwnerSpan{from, to, handOffOwner}, sp)
}

// spanChunk is spans of a spanLog sorted by start (stably) and written to
// the spill: its blocks, each of whole spans, the first's start packed
// against 0, each next's against the span before (across blocks too).
type spanChunk struct {
	refs []ScratchRef
	n    int32
}

// spanRun is a run of a spanLog: where it begins (its block, the offset
// in it), its length, and the start before its first span (what its
// first's is packed against). Runs are consecutive pieces of the spans as
// they came, each in order of start: a merge that takes the earlier run
// first at equal starts gives the order of a stable sort.
type spanRun struct {
	block, off int32
	n          int32 // its spans
	prev       format.Time
}

// spanChunkMax is a spanLog's bytes in memory, with a spill: more are
// written out as a chunk (a var: the tests make chunks of a span or two).
var spanChunkMax = 1 << 20

const (
	spanBlock   = 64 << 10
	spanMaxSize = 3 * binary.MaxVarintLen64
	// spanChunkBlock is a spilt chunk's block: what the merge's cursor
	// of a chunk holds at a time.
	spanChunkBlock = 8 << 10
)

// RoomFor returns blocks with room for need more bytes in its last block: a
// new block is added when the last has less, its capacity first for the first
// block, then double the last's up to most (a log of packed records grows
// without copying what it holds).
func RoomFor(blocks [][]byte, need, first, most int) [][]byte {
	nb := len(blocks)
	if nb > 0 && cap(blocks[nb-1])-len(blocks[nb-1]) >= need {
		return blocks
	}
	size := first
	if nb > 0 {
		size = min(2*cap(blocks[nb-1]), most)
	}
	return append(blocks, make([]byte, 0, max(size, need)))
}

// add packs s at the end of l; with sp (a Model with a spill), the spans
// in memory go out as a chunk once they are spanChunkMax bytes.
func (l *spanLog) add(s OwnerSpan, sp *spanSpill) {
	l.blocks = RoomFor(l.blocks, spanMaxSize, 128, spanBlock)
	nb := len(l.blocks)
	b := l.blocks[nb-1]
	if len(l.runs) == 0 || s.Start < l.prev {
		l.runs = append(l.runs, spanRun{block: int32(nb - 1), off: int32(len(b)), prev: l.prev})
	}
	l.runs[len(l.runs)-1].n++
	n := len(b)
	b = binary.AppendVarint(b, int64(s.Start-l.prev))
	b = binary.AppendUvarint(b, uint64(s.End-s.Start))
	b = binary.AppendUvarint(b, uint64(s.Owner+1))
	l.blocks[nb-1] = b
	l.prev = s.Start
	if sp == nil {
		return
	}
	l.size += len(b) - n
	sp.held += len(b) - n
	if l.size >= sp.max {
		sp.chunk(l)
	} else if sp.held > sp.left+spanBudget && !sp.failed {
		sp.chunkAll()
	}
}

// decode reads the span spanLog.add packed at b's start, its start against
// s's (the span before it), into s; returns the bytes it took.
func (s *OwnerSpan) decode(b []byte) int {
	d, n1 := varint(b)
	ln, n2 := uvarint(b[n1:])
	o, n3 := uvarint(b[n1+n2:])
	s.Start += format.Time(d)
	s.End = s.Start + format.Time(ln)
	s.Owner = format.ThreadID(o) - 1
	return n1 + n2 + n3
}

// spanBudget is the bytes of spans the logs hold in all, with a spill:
// more, and each log of at least spanChunkMin goes out as a chunk (a 1 GB
// recording has thousands of locks of less than spanChunkMax: 113 MB).
var spanBudget, spanChunkMin = 32 << 20, 4 << 10

// chunkAll writes each log of at least spanChunkMin bytes out.
func (sp *spanSpill) chunkAll() {
	for _, l := range sp.logs {
		if l.size >= spanChunkMin {
			sp.chunk(l)
		}
	}
	sp.held = 0
	for _, l := range sp.logs {
		sp.held += l.size
	}
	// The next pass waits for spanBudget more: the logs too short to
	// write out stay (a pass at each span, over the logs of a few bytes
	// each, stalled c5G-slow5's report).
	sp.left = sp.held
}

// spanSpill writes spanLogs' spans out in sorted chunks (spanLog.add):
// to the Model's spill (ScratchWrite), with its room kept from chunk to
// chunk.
type spanSpill struct {
	m       *Model
	max     int // a log's bytes that make a chunk
	ss, tmp []OwnerSpan
	b       []byte
	failed  bool // a write failed: the logs stay in memory
	logs    map[LockRef]*spanLog
	held    int // the bytes the logs hold in memory
	left    int // of them, those the last chunkAll left
}

// chunk sorts l's spans in memory stably by start and writes them out as
// one chunk, in blocks of about spanChunkBlock bytes.
func (sp *spanSpill) chunk(l *spanLog) {
	if sp.failed {
		return
	}
	ss := sp.ss[:0]
	for k, r := range l.runs {
		c := spanCursor{block: r.block, off: r.off, run: int32(k), left: r.n}
		c.s.Start = r.prev
		for c.left > 0 {
			l.read(&c)
			ss = append(ss, c.s)
		}
	}
	sortByStart(ss, &sp.tmp)
	ch := spanChunk{n: int32(len(ss))}
	b := sp.b[:0]
	prev := format.Time(0)
	for i, s := range ss {
		b = binary.AppendVarint(b, int64(s.Start-prev))
		b = binary.AppendUvarint(b, uint64(s.End-s.Start))
		b = binary.AppendUvarint(b, uint64(s.Owner+1))
		prev = s.Start
		if len(b) >= spanChunkBlock-spanMaxSize || i == len(ss)-1 {
			r, ok := sp.m.ScratchWrite(b)
			if !ok {
				sp.failed = true
				sp.ss, sp.b = ss[:0], b[:0]
				return // l is as it was: it stays in memory
			}
			ch.refs = append(ch.refs, r)
			b = b[:0]
		}
	}
	sp.ss, sp.b = ss[:0], b[:0]
	l.spilt = append(l.spilt, ch)
	sp.held -= l.size
	// The spans before are packed against none now: the next is a run's
	// first, against 0.
	l.blocks, l.runs, l.prev, l.size = l.blocks[:0], l.runs[:0], 0, 0
}

// spanCursor reads a run of a spanLog, or a chunk of it written out.
type spanCursor struct {
	s     OwnerSpan // the span read, the next in the merge
	block int32     // a run's: its block and the offset in it
	off   int32
	run   int32 // its run's number: the order of equal starts
	left  int32 // the spans of the run after s
	// A chunk's (spilt): chunk is set, r reads its blocks back.
	chunk bool
	r     runReader
}

// spanMerge merges a lock's runs into the stable order by start and makes
// their union; its room is kept from lock to lock.
type spanMerge struct {
	curs  []spanCursor // a lock's runs' cursors, by run
	heap  []spanHead
	rooms [][]byte // the chunks' cursors' room to read blocks into
	m     *Model   // whose spill holds the chunks
	// A lock with hand-off stretches (spanLog.handOffs): done, the union's
	// spans made and not yet emitted (from di on), hand, the stretches
	// read, merged, that may reach them (from hi on).
	done, hand []OwnerSpan
	di, hi     int
}

// union calls emit with each span of the union of l's spans, in order
// (each instant the holder of the span that began first, in the order the
// spans came at equal starts: as newDoingFold's and unionAdd's), as the
// merge makes it: the union is not held (the largest lock's of a 1 GB
// recording was 156 MB); l's blocks are let go. The chunks written out
// came before the spans in memory: they are the first runs.
//
// With each span come l's hand-off stretches that reach into it (merged:
// in order, disjoint, possibly reaching out of it; none for a lock
// without them). A stretch can begin after the span that covers it began,
// so a span made waits until the merge is past its end (flush): the spans
// made and not emitted are those that end after the next span read
// begins, about as many as the contentions at once.
func (mg *spanMerge) union(l *spanLog, emit func(s OwnerSpan, hand []OwnerSpan)) {
	cs, h := mg.curs[:0], mg.heap[:0]
	for k, ch := range l.spilt {
		if k == len(mg.rooms) {
			mg.rooms = append(mg.rooms, make([]byte, 0, spanChunkBlock))
		}
		cs = append(cs, spanCursor{run: int32(k), left: ch.n, chunk: true, r: runReader{refs: ch.refs, room: mg.rooms[k]}})
	}
	for _, r := range l.runs {
		c := spanCursor{block: r.block, off: r.off, run: int32(len(cs)), left: r.n}
		c.s.Start = r.prev
		cs = append(cs, c)
	}
	for k := range cs {
		mg.read(l, &cs[k])
		h = append(h, spanHead{cs[k].s.Start, int32(k)})
	}
	// A binary heap by (start, run) of each cursor's next span: its
	// start and its run, which is its cursor's place in cs (16 bytes an
	// entry, compared in place; a heap of the cursors themselves moved
	// ~90 bytes at each step, compared through a pointer).
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftSpanHeads(h, i)
	}
	out := func(s OwnerSpan) {
		if l.handOffs {
			mg.done = append(mg.done, s)
		} else {
			emit(s, nil)
		}
	}
	// cur is the union's last span, still growing (unionAdd's u[n-1]).
	var cur OwnerSpan
	have := false
	for len(h) > 0 {
		c := &cs[h[0].run]
		s := c.s
		if l.handOffs {
			// No stretch read from here on reaches a span that ends by
			// s's start.
			mg.flush(s.Start, emit)
		}
		if have {
			s.Start = max(s.Start, cur.End)
		}
		switch {
		case c.s.Owner == handOffOwner:
			mg.addHand(c.s)
		case s.End <= s.Start:
		case have && cur.Owner == s.Owner && cur.End == s.Start:
			cur.End = s.End
		default:
			if have {
				out(cur)
			}
			cur, have = s, true
		}
		if c.left == 0 {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		} else {
			mg.read(l, c)
			h[0].start = c.s.Start
		}
		siftSpanHeads(h, 0)
	}
	if have {
		out(cur)
	}
	mg.flush(math.MaxInt64, emit)
	for k := range cs {
		cs[k] = spanCursor{}
	}
	mg.curs, mg.heap = cs[:0], h[:0]
	mg.done, mg.hand, mg.di, mg.hi = mg.done[:0], mg.hand[:0], 0, 0
	l.blocks, l.runs, l.spilt = nil, nil, nil
}

// spanHead is a spanMerge cursor's next span in the merge's heap: its
// start, and the cursor's run (its place in spanMerge.curs).
type spanHead struct {
	start format.Time
	run   int32
}

// siftSpanHeads moves h[i] down to its place in the heap h, by start,
// then run (siftDown, its comparison written out).
func siftSpanHeads(h []spanHead, i int) {
	for {
		j := 2*i + 1
		if j >= len(h) {
			return
		}
		if k := j + 1; k < len(h) && (h[k].start < h[j].start || h[k].start == h[j].start && h[k].run < h[j].run) {
			j = k
		}
		if !(h[j].start < h[i].start || h[j].start == h[i].start && h[j].run < h[i].run) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// addHand adds a hand-off stretch, read in order of start, to mg.hand.
func (mg *spanMerge) addHand(s OwnerSpan) {
	if n := len(mg.hand); n > mg.hi && s.Start <= mg.hand[n-1].End {
		mg.hand[n-1].End = max(mg.hand[n-1].End, s.End)
		return
	}
	mg.hand = append(mg.hand, s)
}

// flush emits the spans made (mg.done) that end by upTo, each with the
// hand-off stretches that reach into it, and lets go those behind.
func (mg *spanMerge) flush(upTo format.Time, emit func(OwnerSpan, []OwnerSpan)) {
	for mg.di < len(mg.done) && mg.done[mg.di].End <= upTo {
		s := mg.done[mg.di]
		mg.di++
		for mg.hi < len(mg.hand) && mg.hand[mg.hi].End <= s.Start {
			mg.hi++
		}
		j := mg.hi
		for j < len(mg.hand) && mg.hand[j].Start < s.End {
			j++
		}
		emit(s, mg.hand[mg.hi:j])
	}
	// Their room is reused: what is left is moved to the front once
	// more is behind than left.
	if mg.di > 0 && 2*mg.di >= len(mg.done) {
		mg.done = mg.done[:copy(mg.done, mg.done[mg.di:])]
		mg.di = 0
	}
	if mg.hi > 0 && 2*mg.hi >= len(mg.hand) {
		mg.hand = mg.hand[:copy(mg.hand, mg.hand[mg.hi:])]
		mg.hi = 0
	}
}

// handOffParts calls part with the pieces of s, a span of a lock's
// union, in order: those in a hand-off stretch of hand (in order,
// disjoint) released, the others not.
func handOffParts(s OwnerSpan, hand []OwnerSpan, part func(p OwnerSpan, released bool)) {
	at := s.Start
	for _, h := range hand {
		a, b := max(h.Start, at), min(h.End, s.End)
		if b <= a {
			continue
		}
		if a > at {
			part(OwnerSpan{at, a, s.Owner}, false)
		}
		part(OwnerSpan{a, b, s.Owner}, true)
		at = b
	}
	if at < s.End {
		part(OwnerSpan{at, s.End, s.Owner}, false)
	}
}

// mergeHandOffs returns the union of the stretches hand (reordered), in
// order and disjoint, as spanMerge.addHand makes it.
func mergeHandOffs(hand []OwnerSpan) []OwnerSpan {
	slices.SortStableFunc(hand, func(a, b OwnerSpan) int { return cmp.Compare(a.Start, b.Start) })
	out := hand[:0]
	for _, h := range hand {
		if h.End <= h.Start {
			continue
		}
		if n := len(out); n > 0 && h.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, h.End)
			continue
		}
		out = append(out, h)
	}
	return out
}

// read reads c's next span: from l's blocks, or a chunk's, read back
// from the spill a block at a time into its room.
func (mg *spanMerge) read(l *spanLog, c *spanCursor) {
	if !c.chunk {
		l.read(c)
		return
	}
	if !c.r.more(mg.m.spill) {
		panic(&SpillError{errRun}) // a span short
	}
	c.r.b = c.r.b[c.s.decode(c.r.b):]
	c.left--
}

// read reads c's next span (its start packed against c.s.Start).
func (l *spanLog) read(c *spanCursor) {
	c.off += int32(c.s.decode(l.blocks[c.block][c.off:]))
	if int(c.off) == len(l.blocks[c.block]) {
		c.block, c.off = c.block+1, 0
	}
	c.left--
}

// DoingIn returns what the holders of lock did in the spans ss (one
// contention's BlameSpans: the viewer's "what the holder was doing" of a
// blocked interval), folded as HoldersDoing folds a lock's, the time in
// the hand-off stretches hand (from each one's HandOff to its End: the
// contention's own) released; ss and hand are not changed. The holders'
// intervals and samples are where the caller put them (a Model built with
// Options.DropIntervals: Thread.Intervals and Samples set from the spill);
// their windows are read back here (ReadRun).
func (m *Model) DoingIn(lock LockRef, ss, hand []OwnerSpan) *Doing {
	return m.doingIn(lock, ss, hand, nil)
}

// DoingInWith is DoingIn with the windows of the holders' runnable time
// given for the threads of wins (their RunWindows, or a part over the
// spans), not the Model's own: a model of a time range answering for the
// whole recording (orca view's interval detail from its range) has a
// window that began before the range cut at its start; the whole's is
// given, so that the holders' split is the whole's.
func (m *Model) DoingInWith(lock LockRef, ss, hand []OwnerSpan, wins map[format.ThreadID][]RunWindow) *Doing {
	return m.doingIn(lock, ss, hand, wins)
}

func (m *Model) doingIn(lock LockRef, ss, hand []OwnerSpan, wins map[format.ThreadID][]RunWindow) *Doing {
	f := newDoingFold(lock, slices.Clone(ss), nil)
	hand = mergeHandOffs(slices.Clone(hand))
	f.lc = &lockChanges{oc: m.ownerCache()}
	cursors := map[format.ThreadID]*Cursor{}
	holders := map[format.ThreadID]*Thread{}
	for i := range f.d.Spans {
		s := &f.d.Spans[i]
		c := cursors[s.Owner]
		if c == nil {
			c = &Cursor{}
			cursors[s.Owner] = c
			t := m.Thread(s.Owner)
			if t != nil && t.spill.has(spillWins) {
				h := *t
				if err := m.ReadRun(t, &h); err != nil {
					panic(&SpillError{err})
				}
				t = &h
			}
			if ws, ok := wins[s.Owner]; ok && t != nil {
				h := *t
				h.SetRunWindows(ws)
				t = &h
			}
			holders[s.Owner] = t
		}
		for len(hand) > 0 && hand[0].End <= s.Start {
			hand = hand[1:]
		}
		handOffParts(*s, hand, func(p OwnerSpan, released bool) {
			if released {
				f.released(&p, holders[p.Owner])
			} else {
				m.foldSpan(f, &p, holders[p.Owner], c)
			}
		})
	}
	f.finish()
	return f.d
}

// doingFold is one lock's Doing being folded: its spans' union is set,
// their holders' states and samples are added span by span (foldSpan),
// in any order, then sorted (finish).
type doingFold struct {
	lc   *lockChanges // the owner changes read back (blameSpans)
	pc   *parkCursor  // the parks' hand-offs (ParkSpans), nil: searched
	d    *Doing
	lock LockRef // the lock whose holders these are
	on   onTab
	// samples: by stack and kind (the stack's ID above the kind's byte), in place (probeTab):
	// the fold of a lock's holders looks one up for each of their
	// samples while it was held.
	samples probeTab[DoingSamples]
	// onKey's time not yet added to on (addOn): a holder's spans in a
	// row mostly find it blocked on one lock by one owner.
	onKey  HeldOn
	onTime format.Time
	spans  []OwnerSpan // a contention's, read from its holder's blameLog
	// sp: the spill on goes to as it grows (onspill.go), in onRuns; top:
	// how many of On finish keeps (0: all).
	sp     *onSpill
	onRuns [][]ScratchRef
	top    int
}

// addOn adds d to the holders' time blocked on k.
func (f *doingFold) addOn(k HeldOn, d format.Time) {
	if k != f.onKey {
		f.flushOn()
		f.onKey = k
	}
	f.onTime += d
}

// flushOn adds the time addOn holds to on.
func (f *doingFold) flushOn() {
	if f.onTime != 0 {
		added := f.on.add(f.onKey, f.onTime)
		f.onTime = 0
		if f.sp != nil && added {
			f.sp.added()
		}
	}
}

// lockChanges is the owner changes of the monitor blameSpans asked for
// last, read back into oc (Model.ownerChanges): a thread's contentions
// mostly repeat one lock. With pk (HoldersDoing's), the changes read back
// are kept packed instead, and each contention's own decoded into buf.
type lockChanges struct {
	oc      ownerCache
	obj     format.ObjectID
	known   bool
	changes []OwnerChange
	pk      map[*Lock]*ownerPack
	pack    *ownerPack // obj's, packed (pk)
	buf     []OwnerChange
}

// monitorChanges returns the owner changes of the monitor obj.
func (m *Model) monitorChanges(c *lockChanges, obj format.ObjectID) []OwnerChange {
	if c.known && c.obj == obj {
		return c.changes
	}
	var ch []OwnerChange
	if l := m.Lock(obj, Monitor); l != nil {
		ch = m.ownerChanges(l, c.oc)
	}
	c.obj, c.known, c.changes = obj, true, ch
	return ch
}

// contentionChanges returns owner changes of iv's monitor and the number
// of the first (ownerSpans' all and base) that hold iv's: with c.pk, those
// from the spill decoded alone; else all of them (monitorChanges).
func (m *Model) contentionChanges(c *lockChanges, iv *Interval) ([]OwnerChange, int) {
	if m.ownSparse {
		// Those of iv alone, the changes a reader reads kept alone
		// (Options.SpansFromLogs): few contentions are not logged.
		if l := m.Lock(iv.Object, Monitor); l != nil {
			return m.ownerRange(l, int(iv.ownFrom), int(iv.ownTo), &c.buf)
		}
		return nil, 0
	}
	if c.pk == nil {
		return m.monitorChanges(c, iv.Object), 0
	}
	if !c.known || c.obj != iv.Object {
		c.obj, c.known, c.changes, c.pack = iv.Object, true, nil, nil
		if l := m.Lock(iv.Object, Monitor); l != nil {
			if len(l.ownSpill) == 0 {
				c.changes = l.OwnerChanges
			} else if c.pack = c.pk[l]; c.pack == nil {
				c.pack = m.packOwnerChanges(l)
				c.pk[l] = c.pack
			}
		}
	}
	p := c.pack
	if p == nil {
		return c.changes, 0
	}
	from, to := int(iv.ownFrom), int(iv.ownTo)
	if to > p.n || to <= 0 || from > to {
		return nil, 0 // as ownerSpans takes all's: none
	}
	c.buf = p.decode(from, to, c.buf)
	return c.buf, from
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
		d.Spans = unionAdd(d.Spans, s)
	}
	return &doingFold{d: d, lock: lock}
}

// unionAdd adds s, the next span in order of start, to the union u.
func unionAdd(u []OwnerSpan, s OwnerSpan) []OwnerSpan {
	n := len(u)
	if n > 0 {
		s.Start = max(s.Start, u[n-1].End)
	}
	if s.End <= s.Start {
		return u
	}
	if n > 0 && u[n-1].Owner == s.Owner && u[n-1].End == s.Start {
		u[n-1].End = s.End
		return u
	}
	return append(u, s)
}

// released adds s, a piece of the union in a hand-off stretch, of holder
// t (nil when unknown): released while t was alive, else unknown.
// lifeCache gives the holders' Threads for their lives alone (Start,
// End: doingFold.released), the latest asked for by ID in a slot of its
// hash. A packed thread's Model.Thread is its record unpacked, a copy:
// one for each released stretch of a hand-off was 166 MB of garbage at
// the report's peak of an hour of a loaded ActiveMQ.
type lifeCache struct {
	m     *Model
	slots [lifeSlots]struct {
		id format.ThreadID
		t  *Thread
	}
}

// lifeSlots is the size of lifeCache: 16 kB.
const lifeSlots = 1024

// of returns the thread id (nil when none), its Start and End to read.
func (c *lifeCache) of(id format.ThreadID) *Thread {
	sl := &c.slots[threadSlot(id, lifeSlots)]
	if sl.t == nil || sl.id != id {
		sl.id, sl.t = id, c.m.Thread(id)
	}
	return sl.t
}

func (f *doingFold) released(s *OwnerSpan, t *Thread) {
	if a, b, ok := f.d.inLife(s, t); ok {
		f.d.Released += b - a
	}
}

// inLife adds s to d's Blocked and the part of it outside the life of its
// holder t (nil when unknown) to Unknown, and returns the part inside,
// [a, b), ok when there is one.
func (d *Doing) inLife(s *OwnerSpan, t *Thread) (a, b format.Time, ok bool) {
	d.Blocked += s.End - s.Start
	if t == nil {
		d.Unknown += s.End - s.Start
		return 0, 0, false
	}
	a, b = max(s.Start, t.Start), min(s.End, t.End)
	if b <= a {
		d.Unknown += s.End - s.Start
		return 0, 0, false
	}
	d.Unknown += s.End - s.Start - (b - a)
	return a, b, true
}

// foldSpan adds what the holder of s, t (nil when unknown), did in it; c
// is the holder's cursor.
func (m *Model) foldSpan(f *doingFold, s *OwnerSpan, t *Thread, c *Cursor) {
	d := f.d
	a, b, ok := d.inLife(s, t)
	if !ok {
		return
	}
	ivs := t.Intervals
	i := searchEndAfter(ivs, c.iv, a)
	c.iv = i
	busy := format.Time(0)
	for ; i < len(ivs) && ivs[i].Start < b; i++ {
		iv := &ivs[i]
		in := min(iv.End, b) - max(iv.Start, a)
		busy += in
		if m.Releases(iv, f.lock) {
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
		if (iv.State == Blocked || iv.Acquire) && c.blame != nil {
			// Its spans from the holder's blameLog (a park's too), or
			// the one span of a contention without owner changes
			// (blameSpansLogged).
			ss, ok := f.spans[:0], false
			switch {
			case iv.State == Blocked && iv.ownTo == iv.ownFrom:
				ss, ok = append(ss, OwnerSpan{iv.Start, max(iv.End, iv.Start), iv.First}), true
			default:
				ss, ok = c.blame.spansAt(i, iv, ss)
			}
			if ok {
				for _, sp := range ss {
					if x, y := max(sp.Start, a), min(sp.End, b); y > x {
						f.addOn(HeldOn{Lock: ref, Owner: sp.Owner}, y-x)
					}
				}
				f.spans = ss
				continue
			}
		}
		on := func(sp OwnerSpan) bool {
			if x, y := max(sp.Start, a), min(sp.End, b); y > x {
				f.addOn(HeldOn{Lock: ref, Owner: sp.Owner}, y-x)
			}
			return true
		}
		if iv.State != Blocked && iv.Acquire && f.pc != nil {
			// ParkSpans, by the cursor (a holder's spans come in order
			// of start).
			i, hs := f.pc.at(m, iv)
			parkSpansAt(t.ID, i, iv.Start, iv.End, iv.ParkOwner(), hs, on)
			continue
		}
		m.blameSpans(t.ID, iv, f.lc, on)
	}
	// Its run split (RunInFrom) from the runnable time and the samples
	// found here, not walked again.
	d.Time[Runnable] += b - a - busy
	smps := t.samplesIn(a, b, c)
	d.Run.Add(t.runIn(a, b, b-a-busy, smps, true, c))
	for _, smp := range smps {
		ds, added := f.samples.find(uint64(smp.Stack)<<8 | uint64(smp.Kind))
		if added {
			ds.Stack, ds.Kind = smp.Stack, smp.Kind
		}
		ds.Samples++
		ds.Weight += smp.Weight
	}
}

// searchEndAfter is searchFrom(len(ivs), from, func(i int) bool { return
// ivs[i].End > a }), probe for probe, its test written out: foldSpan's,
// at each span of a holder (the call through a pointer at each probe was
// a sixth of foldSpan's time at c1G).
func searchEndAfter(ivs []Interval, from int, a format.Time) int {
	n := len(ivs)
	from = min(max(from, 0), n)
	lo, hi := from, from
	if from > 0 && ivs[from-1].End > a {
		// ivs[hi] holds; every index below lo is false.
		lo, hi = from-1, from-1
		for step := 1; lo > 0; step *= 2 {
			lo = max(hi-step, 0)
			if ivs[lo].End <= a {
				lo++
				break
			}
			hi = lo
		}
	} else {
		for step := 1; hi < n && ivs[hi].End <= a; step *= 2 {
			lo = hi + 1
			hi += step
		}
		hi = min(hi, n)
	}
	// sort.Search(hi-lo, ...) from lo.
	i, j := 0, hi-lo
	for i < j {
		h := int(uint(i+j) >> 1)
		if ivs[lo+h].End <= a {
			i = h + 1
		} else {
			j = h
		}
	}
	return lo + i
}

// finish orders the fold's lock holdings and samples, most first.
func (f *doingFold) finish() {
	f.flushOn()
	d := f.d
	if len(f.onRuns) > 0 {
		d.On = f.mergedOn()
	} else {
		d.On = f.on.appendTo(make([]HeldOn, 0, f.on.n))
	}
	f.on = onTab{}
	order := func(x, y *HeldOn) int {
		return cmp.Or(cmp.Compare(y.Time, x.Time), cmp.Compare(x.Lock.Object, y.Lock.Object),
			cmp.Compare(x.Lock.Kind, y.Lock.Kind), cmp.Compare(x.Owner, y.Owner))
	}
	if f.top > 0 && len(d.On) > f.top {
		// The first top alone, by a heap of them: the order is total
		// (each lock and owner once), so they are the sort's first.
		d.On = firstOf(d.On, f.top, order)
	} else {
		slices.SortFunc(d.On, func(x, y HeldOn) int { return order(&x, &y) })
	}
	d.Samples = f.samples.appendTo(d.Samples)
	slices.SortFunc(d.Samples, func(x, y DoingSamples) int {
		return cmp.Or(cmp.Compare(y.Weight, x.Weight), cmp.Compare(y.Samples, x.Samples),
			cmp.Compare(x.Stack, y.Stack), cmp.Compare(x.Kind, y.Kind))
	})
}

// firstOf returns a new slice of the first n of xs (more than n) in the
// total order of cmp, sorted: xs is reordered. A binary heap of the n
// first so far, its last (by cmp) at the root: O(len(xs) log n), where a
// sort of every entry was half a second of c1G's report for the ten its
// Doings list.
func firstOf[T any](xs []T, n int, cmp func(a, b *T) int) []T {
	h := xs[:n]
	after := func(a, b *T) bool { return cmp(a, b) > 0 }
	heapify(h, after)
	for i := n; i < len(xs); i++ {
		if cmp(&xs[i], &h[0]) < 0 {
			h[0] = xs[i]
			siftDown(h, 0, after)
		}
	}
	out := slices.Clone(h)
	slices.SortFunc(out, func(a, b T) int { return cmp(&a, &b) })
	return out
}

// blameSpansLogged appends to dst the blame spans of iv, an interval of
// thread th whose blameLog r walks (the intervals in order), as blameSpans
// gives them: from the log when iv has an entry, else from the owner
// changes (lc).
func (m *Model) blameSpansLogged(th format.ThreadID, iv *Interval, lc *lockChanges, r *blameReader, pc *parkCursor, dst []OwnerSpan) []OwnerSpan {
	add := func(sp OwnerSpan) bool {
		dst = append(dst, sp)
		return true
	}
	switch {
	case iv.State == Blocked:
		if iv.ownTo == iv.ownFrom {
			// No owner changes: ownerSpans' one span, the owner when it
			// blocked.
			return append(dst, OwnerSpan{iv.Start, max(iv.End, iv.Start), iv.First})
		}
		if iv.ownTo > iv.ownFrom {
			if ss, ok := r.spans(iv, dst); ok {
				return ss
			}
		}
		all, base := m.contentionChanges(lc, iv)
		ownerSpans(th, iv, all, base, add)
	case iv.Acquire:
		if parkLogged(iv) {
			if ss, ok := r.parkSpans(iv, dst); ok {
				return ss
			}
		}
		// ParkSpans, its first hand-off found from the last park's on
		// the lock.
		i, hs := pc.at(m, iv)
		parkSpansAt(th, i, iv.Start, iv.End, iv.ParkOwner(), hs, add)
	}
	return dst
}

// parkCursor finds the first hand-off after each park on a
// java.util.concurrent lock (ParkSpans) from where the last park on the
// same lock found its: a thread's parks come in order of start, and the
// threads in the View's order, those of one time mostly together. A
// search of the lock's whole hand-offs at each park (a binary search, a
// miss at each step of a long one: most threads park a few times) was a
// tenth of c1G's holders' pass. Its last place on each of the locks met
// lately, in a cache by the lock.
type parkCursor struct {
	slots []parkSlot
}

// parkSlot is a slot of parkCursor's: obj's hand-offs hs (Model.handOffs)
// and the first after the last park's start on it, i.
type parkSlot struct {
	obj format.ObjectID
	ok  bool
	hs  []OwnerChange
	i   int
	// w: what hs covers, read back from the spill when some of the
	// lock's hand-offs are there (Model.handOffsOver).
	w handOffWindow
}

// parkSlotBits is the bits of parkCursor's slot.
const parkSlotBits = 12

// at returns handOffAfter(hs, iv.Start) for iv, a park in a lock's
// acquire, and hs, that lock's hand-offs (those about iv's time, when
// some are in the spill: Model.handOffsOver).
func (c *parkCursor) at(m *Model, iv *Interval) (int, []OwnerChange) {
	return c.find(m, iv.Object, iv.Start, iv.End)
}

// find returns handOffAfter(hs, from) and hs, lock obj's hand-offs about
// a park's stretch from from to end: those of its slot, when it holds
// that lock and covers the stretch, else read (Model.handOffsOver).
func (c *parkCursor) find(m *Model, obj format.ObjectID, from, end format.Time) (int, []OwnerChange) {
	if c.slots == nil {
		c.slots = make([]parkSlot, 1<<parkSlotBits)
	}
	x := &c.slots[(uint64(obj)*0x9e3779b97f4a7c15)>>(64-parkSlotBits)]
	if !x.ok || x.obj != obj || !x.w.covers(from, end) {
		x.obj, x.ok = obj, true
		x.hs = m.handOffsOver(obj, from, end, &x.w)
		x.i = handOffAfter(x.hs, from)
	} else {
		x.i = handOffFrom(x.hs, x.i, from)
	}
	return x.i, x.hs
}

// reset empties c for another Model's reader, the slots' rooms kept.
func (c *parkCursor) reset() {
	for i := range c.slots {
		x := &c.slots[i]
		x.ok, x.hs, x.w.hs = false, nil, nil
	}
}

// handOffFrom is handOffAfter(hs, t) found from i, where it usually is or
// is near: probes 1, 2, 4, ... places from there, forward or back, then a
// binary search of the last step.
func handOffFrom(hs []OwnerChange, i int, t format.Time) int {
	n := len(hs)
	i = min(max(i, 0), n)
	lo, hi := i, i
	if i > 0 && hs[i-1].At > t {
		// Before i: hs[hi] is after t; lo, once set, the first not
		// known to be at or before it.
		hi = i - 1
		for step := 1; ; step *= 2 {
			p := hi - step
			if p < 0 {
				lo = 0
				break
			}
			if hs[p].At <= t {
				lo = p + 1
				break
			}
			hi = p
		}
	} else {
		// At or after i: every hand-off before lo is at or before t.
		for step := 1; ; step *= 2 {
			p := lo + step - 1
			if p >= n {
				hi = n
				break
			}
			if hs[p].At > t {
				hi = p
				break
			}
			lo = p + 1
		}
	}
	return lo + handOffAfter(hs[lo:hi], t)
}

// blameSpans is BlameSpans without the iterator's allocation: HoldersDoing
// calls it for every contention.
// lc holds the owner changes read back from the spill, the caller's.
func (m *Model) blameSpans(th format.ThreadID, iv *Interval, lc *lockChanges, yield func(OwnerSpan) bool) {
	switch {
	case iv.State == Blocked:
		all, base := m.contentionChanges(lc, iv)
		ownerSpans(th, iv, all, base, yield)
	case iv.Acquire:
		m.ParkSpans(th, iv.Start, iv, yield)
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

// heapify orders h as a binary heap by less (its least first).
func heapify[T any](h []T, less func(a, b *T) bool) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i, less)
	}
}

// siftDown moves h[i] down to its place in the heap h (by less): after
// the least was taken or read on.
func siftDown[T any](h []T, i int, less func(a, b *T) bool) {
	for {
		j := 2*i + 1
		if j >= len(h) {
			return
		}
		if j+1 < len(h) && less(&h[j+1], &h[j]) {
			j++
		}
		if !less(&h[j], &h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}
