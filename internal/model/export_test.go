package model

import (
	"os"
	"reflect"
	"slices"
	"unsafe"

	"orca/internal/format"
)

// What the tests of package model_test reach inside the model for. They
// are not part of this package because they import internal/testrec,
// which imports it.

// The model's tests seal after every event (Builder.seal).
// They give up a thread's samples to the spill as soon as its windows are
// split past them (releaseSamples), its windows between ThreadCPU lines
// and scheduler times as they are split (releaseWins), and its blame
// log's entries as they are made (giveBlame), a lock's hand-offs one at a
// time (releaseHandOffs).
func init() { SetSealEveryEvent() }

// HandOffsSpilled is how many hand-offs of the j.u.c. locks m gave up to
// the spill (Builder.releaseHandOffs), and in how many pieces.
func HandOffsSpilled(m *Model) (n, pieces int) {
	for _, sp := range m.handSpill {
		n, pieces = n+sp.n, pieces+len(sp.blks)
	}
	return n, pieces
}

// LateEntries is how many late entries m keeps.
func LateEntries(m *Model) int { return len(m.lateEntries) }

// LateAtEnd returns m's late entries that hold after its end.
func LateAtEnd(m *Model) []lateEntry {
	var out []lateEntry
	for _, e := range m.lateEntries {
		if e.To > m.End {
			out = append(out, e)
		}
	}
	return out
}

// GroupSites groups the model's stacks into call sites by line, as Build
// does with the recording's line table, and aggregates the locks again.
func (m *Model) GroupSites(line func(format.Frame) string) {
	m.siteOf = nil
	newSiteGrouper(line).extend(m, m.Stacks)
	ag := &aggregator{m: m, by: map[uint64]*lockAgg{}, all: true}
	for _, t := range m.Threads {
		ag.thread(t)
	}
	m.setLocks(ag)
}

// FoldTables is what ContTables counts.
type FoldTables struct {
	// Blockers and Others: the locks the fold's aggregator summed; of
	// them, BlockersCont and OthersCont made a table of contentions
	// (lockAgg.c), Dormant are blockers kept as records (dormant.go).
	Blockers, BlockersCont, Others, OthersCont, Dormant int
	// OwnedMerged, OwnedEnded: the threads' first waits let go as a
	// thread merged its firsts and as it ended, a dormant blocker's
	// record holding each (dormant.go: owned firsts).
	OwnedMerged, OwnedEnded int
	// StateOdd: the locks whose fold state (lstate) has a monitor's, j.u.c.
	// lock's or semaphore's part (lockState) and are a blocker, or have
	// none and are not.
	StateOdd int
}

// ContTables runs f and counts the fold's tables of the last build.
func ContTables(f func()) (ft FoldTables) {
	foldedAggs = func(b *Builder) {
		ft.OwnedMerged, ft.OwnedEnded = b.ag.ownedMerged, b.ag.ownedEnded
		for a := range b.ag.byN.all() {
			if a == nil {
				ft.Dormant++
				continue
			}
			n, c := &ft.Others, &ft.OthersCont
			if a.l.Kind == Blocker {
				n, c = &ft.Blockers, &ft.BlockersCont
			}
			*n++
			if a.c != nil {
				*c++
			}
		}
		for _, o := range b.objs.all() {
			for k, ls := range (*o).ls {
				if ls != nil && (ls.lockState == nil) != (LockKind(k) == Blocker) {
					ft.StateOdd++
				}
			}
		}
	}
	defer func() { foldedAggs = nil }()
	f()
	return ft
}

// MoveOwnFrom moves the start of iv's range of owner changes one on: the
// interval then names an owner it did not wait for.
func MoveOwnFrom(iv *Interval) { iv.ownFrom++ }

// IndexThread adds t to the index behind Model.Thread under id (in a map
// again, as the fold's: the index by hash names each thread by its own).
func IndexThread(m *Model, id format.ThreadID, t *Thread) {
	if m.byThread == nil {
		m.byThread = map[format.ThreadID]*Thread{}
		for _, t := range m.Threads {
			m.byThread[t.ID] = t
		}
	}
	m.byThread[id] = t
}

// SpillNoTmpfile makes the spill take the way of a file system without
// O_TMPFILE (a directory of its own) while f runs.
func SpillNoTmpfile(f func()) {
	spillNoTmpfile = true
	defer func() { spillNoTmpfile = false }()
	f()
}

// SpillFile returns the model's spill file, nil without one.
func SpillFile(m *Model) *os.File {
	if m.spill == nil {
		return nil
	}
	return m.spill.f
}

// Bare returns a copy of t without its intervals, samples and windows,
// where the spill has them, the cpu samples of the virtual threads it
// carried, its tail and its stacks' marks: what a model built with
// Options.DropIntervals (and Options.StackMark) keeps of a thread beside.
func Bare(t *Thread) Thread {
	c := *t
	c.Intervals, c.Samples, c.spill = nil, nil, spillRef{}
	c.Sched, c.nSched = nil, 0
	c.tail, c.tailN, c.tailAt, c.tailOK, c.StackMarks = nil, 0, 0, false, 0
	// Its windows, carried samples and blame log: the spill's or let go
	// (a thread of a spilled Model that ended keeps no threadFold).
	c.fold = nil
	return c
}

// MaxIvBlock is the size of the largest block of a thread's
// intervals in the fold (ivList).
const MaxIvBlock = maxIvBlock

// SortByStart is the holders' fold's stable sort of a lock's blame spans.
func SortByStart(ss []OwnerSpan) { sortByStart(ss, new([]OwnerSpan)) }

// OwnerChangesOf returns all of l's owner changes, read back from the
// spill where the model gave them up.
func OwnerChangesOf(m *Model, l *Lock) []OwnerChange { return m.ownerChanges(l, ownerCache{}) }

// SpillReadFault makes every read of a spill fail with err while f runs.
func SpillReadFault(err error, f func()) {
	spillReadFault = err
	defer func() { spillReadFault = nil }()
	f()
}

// HandOffOwner marks a hand-off stretch among the spans UnionOfRuns and
// UnionSorted are given: [Interval.HandOff, End] of a contention.
const HandOffOwner = handOffOwner

// Part is a piece of a lock's union: in a hand-off stretch (Released) or
// not (handOffParts).
type Part struct {
	OwnerSpan
	Released bool
}

// UnionOfRuns is the union HoldersDoing makes of a lock's spans ss, as
// they came: packed (spanLog), then merged from their runs; and its
// pieces in and out of the hand-off stretches among ss (of HandOffOwner).
func UnionOfRuns(ss []OwnerSpan) ([]OwnerSpan, []Part) {
	l := &spanLog{}
	for _, s := range ss {
		logSpan(l, s, nil)
	}
	var mg spanMerge
	u, parts := unionParts(&mg, l)
	return append(make([]OwnerSpan, 0, len(u)), u...), parts // as HoldersDoing keeps it
}

// logSpan adds s to l: a hand-off stretch if of HandOffOwner.
func logSpan(l *spanLog, s OwnerSpan, sp *spanSpill) {
	if s.Owner == handOffOwner {
		l.addHandOff(s.Start, s.End, sp)
	} else {
		l.add(s, sp)
	}
}

// HandOffParts is handOffParts: the pieces of s in and out of the
// hand-off stretches hand, merged first (mergeHandOffs).
func HandOffParts(s OwnerSpan, hand []OwnerSpan) []Part {
	var parts []Part
	handOffParts(s, mergeHandOffs(slices.Clone(hand)), func(p OwnerSpan, r bool) { parts = append(parts, Part{p, r}) })
	return parts
}

// unionParts is mg's union of l and its pieces.
func unionParts(mg *spanMerge, l *spanLog) ([]OwnerSpan, []Part) {
	var u []OwnerSpan
	var parts []Part
	mg.union(l, func(s OwnerSpan, hand []OwnerSpan) {
		u = append(u, s)
		handOffParts(s, hand, func(p OwnerSpan, r bool) { parts = append(parts, Part{p, r}) })
	})
	return u, parts
}

// OwnerRuns runs f with the locks' owners (Options.SpillOwners) written
// out once n are in memory, a table of one or more, those of a lock of
// more than keep kept in the spill, and sorted at Finalize two at a time
// (finishOwners: runs of two, merged).
func OwnerRuns(n, keep int, f func()) {
	oldN, oldMin, oldKeep, oldChunk := ownerBudget, ownerRunMin, ownersInMemory, ownerChunk
	ownerBudget, ownerRunMin, ownersInMemory, ownerChunk = n, 1, keep, 2
	defer func() {
		ownerBudget, ownerRunMin, ownersInMemory, ownerChunk = oldN, oldMin, oldKeep, oldChunk
	}()
	f()
}

// OnRuns runs f with the holders' pass writing its folds' Doing.On out
// once n entries are held, a fold of one or more.
func OnRuns(n int, f func()) {
	oldN, oldMin := onBudget, onRunMin
	onBudget, onRunMin = n, 1
	defer func() { onBudget, onRunMin = oldN, oldMin }()
	f()
}

// SpanChunks runs f with the holders' pass writing the locks' blame
// spans out in sorted chunks once n bytes of them are in memory in all
// (spanBudget), a log of one or more, and the holders' logs once they
// hold any, read back two spans at a time (heldPiece).
func SpanChunks(n int, f func()) {
	oldMax, oldBudget, oldMin, oldHeld, oldPiece := spanChunkMax, spanBudget, spanChunkMin, heldBlock, heldPiece
	spanChunkMax, spanBudget, spanChunkMin, heldBlock, heldPiece = 1<<30, n, 1, 0, 2
	defer func() {
		spanChunkMax, spanBudget, spanChunkMin, heldBlock, heldPiece = oldMax, oldBudget, oldMin, oldHeld, oldPiece
	}()
	f()
}

// HeldPieces runs f with the holders' pass reading its buckets of spans
// by holder back n spans at a time (heldPiece), and returns how many
// buckets it merged from more than one piece.
func HeldPieces(n int, f func()) (merged int) {
	old, oldHook := heldPiece, heldMerged
	heldPiece, heldMerged = n, func(int) { merged++ }
	defer func() { heldPiece, heldMerged = old, oldHook }()
	f()
	return merged
}

// UnionOfRunsSpilt is UnionOfRuns with the spans written to a spill in
// sorted chunks of about chunk bytes (spanSpill) as they come, the rest
// in memory.
func UnionOfRunsSpilt(dir string, ss []OwnerSpan, chunk int) ([]OwnerSpan, []Part, error) {
	s, err := openSpill(dir)
	if err != nil {
		return nil, nil, err
	}
	defer s.f.Close()
	if err := s.done(); err != nil {
		return nil, nil, err
	}
	m := &Model{spill: s}
	sp := &spanSpill{m: m, max: chunk}
	l := &spanLog{}
	for _, s := range ss {
		logSpan(l, s, sp)
	}
	mg := spanMerge{m: m}
	u, parts := unionParts(&mg, l)
	return u, parts, nil
}

// UnionSorted is the union newDoingFold makes of ss: sorted stably by
// start (sortByStart), then folded; and its pieces in and out of the
// hand-off stretches among ss, as DoingIn makes them.
func UnionSorted(ss []OwnerSpan) ([]OwnerSpan, []Part) {
	var spans, hand []OwnerSpan
	for _, s := range ss {
		if s.Owner == handOffOwner {
			hand = append(hand, s)
		} else {
			spans = append(spans, s)
		}
	}
	u := newDoingFold(LockRef{}, spans, nil).d.Spans
	hand = mergeHandOffs(hand)
	var parts []Part
	for _, s := range u {
		for len(hand) > 0 && hand[0].End <= s.Start {
			hand = hand[1:]
		}
		handOffParts(s, hand, func(p OwnerSpan, r bool) { parts = append(parts, Part{p, r}) })
	}
	return u, parts
}

// BlameLogged returns the blame spans t's blameLog holds for its
// interval iv (a Blocked one with owner changes, or a park in an
// acquire), false if it has none.
func BlameLogged(m *Model, t *Thread, ivs []Interval, i int) ([]OwnerSpan, bool) {
	var x blameIndex
	l := t.folded().blame
	if t.spill.has(spillBlame) {
		l.b = BlameBytes(m, t)
	}
	x.reset(&l, ivs)
	return x.spansAt(i, &ivs[i], nil)
}

// BlameGiven is how many bytes of its blame log t gave up to the spill.
func BlameGiven(t *Thread) int64 {
	var n int64
	for _, b := range t.spill.of(spillBlame) {
		n += b.len
	}
	return n
}

// BlameBytes returns t's blame log's bytes, those given up to the spill
// (Builder.giveBlame) read back first.
func BlameBytes(m *Model, t *Thread) []byte {
	if m.spill == nil {
		return t.folded().blame.b
	}
	b, err := m.blameBytes(t, nil)
	if err != nil {
		panic(err)
	}
	return b
}

// HasOwnerChanges reports whether iv is a contention during which its
// monitor's owner changed (Interval.ownFrom < ownTo).
func HasOwnerChanges(iv *Interval) bool { return iv.State == Blocked && iv.ownTo > iv.ownFrom }

// ParkLogged reports whether iv is a park whose blame spans the
// aggregator logs (a park in a java.util.concurrent lock's acquire).
func ParkLogged(iv *Interval) bool { return parkLogged(iv) }

// DropBlameLogs empties every thread's blameLog: the holders' pass then
// reads every contention's owner changes back.
func DropBlameLogs(m *Model) {
	for _, t := range m.Threads {
		if t.fold != nil {
			t.fold.blame = blameLog{}
		}
		t.spill.drop(spillBlame)
	}
}

// RunOf returns t's scheduler times and windows between them, read back
// from m's spill where Finalize gave them up (Model.ReadRun), and whether
// it had.
func RunOf(m *Model, t *Thread) ([]SchedTime, []RunWindow, bool) {
	h := *t
	if err := m.ReadRun(t, &h); err != nil {
		panic(err)
	}
	return h.Sched, h.RunWindows(), t.spill.has(spillWins) || t.spill.has(spillSched)
}

// RestState is what a thread retired keeps of its fold's state in the
// spill (TestSpillPlain).
type RestState = restState

// SamePacked is samePacked: a and b the same Thread, their lists and
// tails by their bytes.
func SamePacked(a, b *Thread) bool { return samePacked(a, b) }

// DropBlame is Model.dropBlame: what the holders' pass lets go once done.
func (m *Model) DropBlame() { m.dropBlame() }

// OwnerChangesKept returns how many of l's owner changes, all of them,
// are in the spill (with Options.SpansFromLogs, those a reader reads).
func OwnerChangesKept(l *Lock) (kept, all int) {
	for _, b := range l.ownSpill {
		kept += int(b.len) / ownerChangeSize
	}
	return kept, l.ownBase
}

// ThreadPackSizes runs f with blocks of packed Threads of block bytes
// and a cache of slots pieces of piece bytes read back (packBlock,
// packPiece, packCacheSlots).
func ThreadPackSizes(block, piece, slots int, f func()) {
	b, p, s := packBlock, packPiece, packCacheSlots
	packBlock, packPiece, packCacheSlots = block, piece, slots
	defer func() { packBlock, packPiece, packCacheSlots = b, p, s }()
	f()
}

// PackBlocksSpilt returns how many blocks of m's packed Threads are in
// the spill.
// NamedAll reports whether NameOf read every packed thread's name in one
// pass (threadPack.nameAll).
func NamedAll(m *Model) bool { return m.packed != nil && m.packed.named }

func PackBlocksSpilt(m *Model) (n int) {
	if tp := m.packed; tp != nil {
		for k, b := range tp.blocks {
			if b == nil && k < len(tp.spilt) {
				n++
			}
		}
	}
	return n
}

// SameSpilled is SamePacked for a of ma and b of mb, Models with a spill
// each: their lists the same by the bytes of each kind read back, not by
// where (a spill with packed Threads' blocks has the others elsewhere).
func SameSpilled(ma *Model, a *Thread, mb *Model, b *Thread) bool {
	read := func(m *Model, t *Thread) (out [spillKinds][]byte) {
		for _, bl := range t.spill.decode(nil) {
			p := make([]byte, bl.n)
			if _, err := m.spill.readAt(p, bl.off); err != nil {
				panic(err)
			}
			out[bl.k] = append(out[bl.k], p...)
		}
		return out
	}
	ra, rb := read(ma, a), read(mb, b)
	// The samples by their fields: the bytes of a Sample's padding are
	// whatever the memory held.
	samples := func(p []byte) []Sample {
		return unsafe.Slice((*Sample)(unsafe.Pointer(unsafe.SliceData(p))), len(p)/int(unsafe.Sizeof(Sample{})))
	}
	if !slices.Equal(samples(ra[spillSmp]), samples(rb[spillSmp])) {
		return false
	}
	ra[spillSmp], rb[spillSmp] = nil, nil
	if !reflect.DeepEqual(ra, rb) {
		return false
	}
	x, y := *a, *b
	x.spill, y.spill = spillRef{}, spillRef{}
	return samePacked(&x, &y)
}

// Every test of the package has wakeThread make a thread let go again from
// its state at rest, and compare it with the tstate still held.
func init() { checkWake = true }

// WakeAfterGC has wakeThread collect the garbage first, for f: a thread
// let go that nothing holds is made again from its state at rest.
func WakeAfterGC(f func()) {
	wakeGC = true
	defer func() { wakeGC = false }()
	f()
}

// ThreadIndexSlots returns the slots of m's index of its threads by ID
// (thIdx).
func ThreadIndexSlots(m *Model) int { return len(m.thIdx) }

// RecsCold runs f with the dormant blockers' records in chunks of two,
// all but the last chunk in a file in dir (dormant.go).
func RecsCold(dir string, f func()) {
	bits, hot := recChunkBits, recHot
	recChunkBits, recHot, recsColdDir = 1, 1, dir
	defer func() { recChunkBits, recHot, recsColdDir = bits, hot, "" }()
	f()
}

// SealEvery runs f with a seal every n events (the tests seal after each).
func SealEvery(n int, f func()) {
	s := sealEvery
	sealEvery = n
	defer func() { sealEvery = s }()
	f()
}

// ColdRecs is how many chunks of m's records are in a file.
func (m *Model) ColdRecs() int {
	if m.recs == nil {
		return 0
	}
	return m.recs.cold
}

// RecChunks is how many chunks of records m's fold made, and how many it
// has.
func (m *Model) RecChunks() (made, all int) {
	if m.recs == nil {
		return 0, 0
	}
	return m.recs.made, len(m.recs.chunks)
}

// NoDormant runs f with every blocker kept a Lock (dormant.go).
func NoDormant(f func()) {
	noDormant = true
	defer func() { noDormant = false }()
	f()
}

// NoReuse runs f with every blocker's Lock and aggregate made anew.
func NoReuse(f func()) {
	noReuse = true
	defer func() { noReuse = false }()
	f()
}

// Indexed is how many locks Model.byObject and the fold's aggregates
// aggregator.by index (none while the fold goes: indexLocks), and the
// model b folds into.
func (b *Builder) Indexed() (locks, aggs int, m *Model) {
	return len(b.m.byObject), len(b.ag.by), b.m
}

// OrdersTaken is how many LockOrders b took again (Builder.orderFree).
func (b *Builder) OrdersTaken() int { return b.ordersTaken }

// Reused is how many Locks, fold states, aggregates and objects' entries
// b took again from dormant blockers' (freeList).
func (b *Builder) Reused() (locks, states, aggs, objs int) {
	return b.lockFree.taken, b.lsFree.taken, b.ag.aggFree.taken, b.objFree.taken
}
