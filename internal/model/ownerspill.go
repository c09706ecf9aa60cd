package model

import (
	"cmp"
	"encoding/binary"
	"slices"

	"orca/internal/format"
)

// A lock's owners (issue 34): its blame table (lockAgg.owners) has an
// entry for every thread that ever held it while others were blocked:
// on a 5 GB recording of 1.33 M threads, 0.99 GB at the fold's end, and
// its sorted list (Lock.Owners) 0.49 GB of the report's. With
// Options.SpillOwners, once the locks' tables hold ownerBudget entries in
// all, each of at least ownerRunMin is written to the spill as a run
// sorted by thread, and begun again (a 1 GB recording has hundreds of
// locks of thousands of owners, not one of millions); at
// Finalize the runs and the table are merged by thread (their figures
// summed: integers, in any order), sorted as Lock.Owners is, and written
// to the spill, where Model.OwnersOf reads a lock's back (orca report:
// the locks it lists). A lock of few owners keeps them in memory.

// ownerBudget is the locks' owners held in their blame tables while the
// fold goes, with Options.SpillOwners (~60 bytes each, with the index);
// ownerRunMin the fewest a lock's table writes out as a run (vars: the
// tests make runs of one).
var ownerBudget, ownerRunMin = 1 << 18, 32

// ownersInMemory is the most owners a lock keeps in Lock.Owners with
// Options.SpillOwners: more go to the spill.
var ownersInMemory = 8

// ownerPiece is the bytes of a run written at once (putRun): what its
// cursor holds when the runs are merged.
const ownerPiece = 4 << 10

// ownerMaxSize is an owner's most bytes packed (appendOwner), and a
// bound of any record's of a run.
const ownerMaxSize = 4 * binary.MaxVarintLen64

// appendOwner packs bl after one of thread prev: the difference of its
// thread from prev (threads in order) and its figures, as varints.
func appendOwner(b []byte, bl *Blame, prev format.ThreadID) []byte {
	b = binary.AppendVarint(b, int64(bl.Thread-prev))
	b = binary.AppendVarint(b, int64(bl.Contentions))
	b = binary.AppendVarint(b, int64(bl.Blamed))
	return binary.AppendVarint(b, int64(bl.Open))
}

// readOwner unpacks an owner appendOwner packed after prev, and returns
// its bytes' count (0: b holds no whole owner).
func readOwner(b []byte, prev format.ThreadID) (Blame, int) {
	th, n1 := binary.Varint(b)
	c, n2 := binary.Varint(b[max(n1, 0):])
	bl, n3 := binary.Varint(b[max(n1+n2, 0):])
	o, n4 := binary.Varint(b[max(n1+n2+n3, 0):])
	if n1 <= 0 || n2 <= 0 || n3 <= 0 || n4 <= 0 {
		return Blame{}, 0
	}
	return Blame{Thread: prev + format.ThreadID(th), Contentions: int(c), Blamed: format.Time(bl), Open: int(o)}, n1 + n2 + n3 + n4
}

// spillOwners writes every lock's blame table of at least ownerRunMin
// entries out (lockAgg.spillOwners).
func (ag *aggregator) spillOwners() {
	if ag.ownerSpill.err != nil {
		ag.ownerEntries, ag.ownerLeft = 0, 1<<62 // kept in memory: the tables grow on
		return
	}
	n := 0
	for a := range ag.byN.all() {
		// The logs too (merged, not counted: counted here).
		if a == nil || a.c == nil {
			continue // no owners
		}
		if k := a.c.owners.len(); k >= ownerRunMin {
			a.spillOwners()
		} else {
			n += k
		}
	}
	// The next pass waits for ownerBudget more: the tables too small to
	// write out stay (a pass at each entry would scan every lock).
	ag.ownerEntries, ag.ownerLeft = n, n
}

// spillOwners writes a's blame table out as a run sorted by thread, and
// lets it go; a table the spill takes no more of stays.
func (a *lockAgg) spillOwners() {
	tab := a.ownersTo(nil) // in order of thread
	run, ok := putRun(a.sp, tab, func(b []byte, bl, prev *Blame) []byte { return appendOwner(b, bl, prev.Thread) })
	if !ok {
		return
	}
	a.c.ownerRuns = append(a.c.ownerRuns, run)
	a.ag.ownerRuns = true
	// Let go: a table of many owners need not keep its room.
	a.c.owners = blameTab{}
}

// putRun writes the records rs (sorted) to the spill as a run, packed by
// pack each against the one before (the first against T's zero value),
// in blocks of about ownerPiece bytes: what mergeRuns reads a run back
// by. ok is false when the spill takes no more: the run is then not
// whole (what it put is not read).
func putRun[T any](s *spillFile, rs []T, pack func(b []byte, r, prev *T) []byte) (run []ScratchRef, ok bool) {
	b := make([]byte, 0, ownerPiece)
	var zero T
	prev := &zero
	for i := range rs {
		b = pack(b, &rs[i], prev)
		prev = &rs[i]
		if len(b) > ownerPiece-ownerMaxSize || i == len(rs)-1 {
			r, ok := s.put(b)
			if !ok {
				return nil, false
			}
			run = append(run, r)
			b = b[:0]
		}
	}
	return run, true
}

// mergedOwners returns the lock's owners: its runs and its table merged
// by thread, each thread's figures summed, into dst's room.
func (a *lockAgg) mergedOwners(dst []Blame) []Blame {
	dst = dst[:0]
	if a.c == nil || len(a.c.ownerRuns) == 0 || a.sp.err != nil {
		// A spill that failed fails Build (DropIntervals): its runs are
		// not read.
		return a.ownersTo(dst)
	}
	a.eachOwner(a.sp, func(bl Blame) {
		if !sumOwner(dst, bl) {
			dst = append(dst, bl)
		}
	})
	return dst
}

// eachOwner gives each owner of a's table and runs merged in order of
// thread to f, a thread's figures in as many calls as it has entries
// (sumOwner adds them up), and lets the runs go.
func (a *lockAgg) eachOwner(sp *spillFile, f func(Blame)) {
	tab := a.ownersTo(nil) // in order of thread
	mergeRuns(sp, a.c.ownerRuns, tab,
		func(x, y *Blame) int { return cmp.Compare(x.Thread, y.Thread) },
		func(b []byte, prev *Blame) (Blame, int) { return readOwner(b, prev.Thread) },
		f)
	a.c.ownerRuns = nil
}

// sumOwner adds bl to the last of l when it is of the same thread, and
// reports whether it did.
func sumOwner(l []Blame, bl Blame) bool {
	n := len(l)
	if n == 0 || l[n-1].Thread != bl.Thread {
		return false
	}
	d := &l[n-1]
	d.Contentions += bl.Contentions
	d.Blamed += bl.Blamed
	d.Open += bl.Open
	return true
}

// ownerChunk is the most owners of a lock finishOwners sorts at once: a
// lock of more has them sorted in runs of this many in the spill, merged
// as they are written out (a var: the tests make runs of a few).
var ownerChunk = 1 << 16

// finishOwners sets l's owners from a's table and runs (mergedOwners,
// putOwners), holding at most ownerChunk of them at once: a lock of more
// has them summed by thread as the runs merge, sorted as Lock.Owners in
// chunks written to the spill as runs, and those merged as they are
// written out. The owners of c5G-slow5's lock of 1.2 M threads, 32 bytes
// each and grown by appends, were 39 MB of the fold's live peak
// (Finalize, issue 34).
func (a *lockAgg) finishOwners(l *Lock) {
	sp := a.sp
	if a.c == nil || len(a.c.ownerRuns) == 0 || sp == nil || sp.err != nil {
		putOwners(l, a.mergedOwners(nil), sp)
		return
	}
	chunk := make([]Blame, 0, min(ownerChunk, 1024))
	var runs [][]ScratchRef
	a.eachOwner(sp, func(bl Blame) {
		if sumOwner(chunk, bl) {
			return
		}
		if len(chunk) == ownerChunk && sp.err == nil {
			// Its last is whole: bl is of another thread. A spill
			// that failed takes no more (its chunk grows on).
			sortOwners(chunk)
			if run, ok := putRun(sp, chunk, func(b []byte, bl, prev *Blame) []byte { return appendOwner(b, bl, prev.Thread) }); ok {
				runs, chunk = append(runs, run), chunk[:0]
			}
		}
		chunk = append(chunk, bl)
	})
	if len(runs) == 0 {
		putOwners(l, chunk, sp)
		return
	}
	sortOwners(chunk)
	read := func(b []byte, prev *Blame) (Blame, int) { return readOwner(b, prev.Thread) }
	if sp.err != nil {
		// A spill that failed fails Build (DropIntervals): the runs are
		// not read back (as mergedOwners), the last chunk kept.
		putOwners(l, chunk, sp)
		return
	}
	b := make([]byte, 0, ownerPiece)
	prev := format.ThreadID(0)
	var total format.Time
	n := 0
	mergeRuns(sp, runs, chunk, compareOwners, read, func(bl Blame) {
		n++
		total += bl.Blamed
		b = appendOwner(b, &bl, prev)
		prev = bl.Thread
		if len(b) > ownerPiece-ownerMaxSize {
			sp.add(&l.ownersSpill, b)
			b = b[:0]
		}
	})
	sp.add(&l.ownersSpill, b)
	l.Owners, l.ownersN, l.ownersBlamed = nil, n, total
}

// compareOwners is the order of Lock.Owners: by time blamed, most first,
// then thread.
func compareOwners(a, b *Blame) int {
	if c := cmp.Compare(b.Blamed, a.Blamed); c != 0 {
		return c
	}
	return cmp.Compare(a.Thread, b.Thread)
}

// sortOwners sorts os, each thread once, as Lock.Owners (compareOwners).
func sortOwners(os []Blame) {
	slices.SortFunc(os, func(a, b Blame) int { return compareOwners(&a, &b) })
}

// putOwners sets l's owners, os in order of thread, sorted as
// Lock.Owners (by time blamed, most first, then thread): in l.Owners, or,
// with a spill (sp) and more than ownersInMemory of them, written to it.
// Sorted in place: each thread once, the order of time and thread is the
// stable sort's by time, and a radix sort's copy of them was the fold's
// live peak at c5G-slow5 (33 MB for its lock of 1.2 M owners, at
// Finalize, issue 34).
func putOwners(l *Lock, os []Blame, sp *spillFile) {
	sortOwners(os)
	if sp == nil || sp.err != nil || len(os) <= ownersInMemory {
		l.Owners = append(grown(l.Owners, len(os)), os...)
		return
	}
	b := make([]byte, 0, ownerPiece)
	prev := format.ThreadID(0)
	var total format.Time
	for i := range os {
		b = appendOwner(b, &os[i], prev)
		prev = os[i].Thread
		total += os[i].Blamed
		if len(b) > ownerPiece-ownerMaxSize || i == len(os)-1 {
			sp.add(&l.ownersSpill, b)
			b = b[:0]
		}
	}
	l.Owners, l.ownersN, l.ownersBlamed = nil, len(os), total
}

// OwnersOf returns l's owners (Lock.Owners): with Options.SpillOwners,
// those of a lock of many read back from the spill, in a new slice; a
// failed read panics with its *SpillError (as IntervalsOf).
func (m *Model) OwnersOf(l *Lock) []Blame {
	if len(l.ownersSpill) == 0 {
		return l.Owners
	}
	b, err := spillRead(m.spill, l.ownersSpill, []byte(nil))
	if err != nil {
		panic(&SpillError{err})
	}
	out := make([]Blame, 0, l.ownersN)
	prev := format.ThreadID(0)
	for len(b) > 0 {
		bl, n := readOwner(b, prev)
		if n == 0 {
			panic(&SpillError{errRun})
		}
		out = append(out, bl)
		prev, b = bl.Thread, b[n:]
	}
	return out
}

// OwnerCount is len(OwnersOf(l)), nothing read.
func (l *Lock) OwnerCount() int {
	if len(l.ownersSpill) > 0 {
		return l.ownersN
	}
	return len(l.Owners)
}
