package model

import (
	"cmp"
	"encoding/binary"
	"slices"

	"orca/internal/format"
)

// A lock's waiters (issue 34): each thread that blocked or waited on it
// gives it its first time as the thread ends (threadAgg.flushFirsts), an
// entry a thread for every lock: on a 5 GB recording of 1.33 M threads,
// 0.33 GB at the fold's end (lockAgg.waiters, waitedBy), and the lists of
// threads they make (Lock.Waiters, WaitedBy) 0.13 GB of the report's.
// With Options.SpillOwners they go the owners' way (ownerspill.go): once
// the locks' lists hold ownerBudget entries in all, each of at least
// ownerRunMin is written to the spill as a run sorted by thread, and
// begun again; at Finalize a lock's runs and list are merged by thread
// (each thread's earliest), put in order of first time, and a list of
// more than ownersInMemory threads is written to the spill, the Lock's
// nil: Model.WaitersOf and WaitedByOf read it back (orca report: the
// locks it lists, the waits it ranks). A group's WaitedBy, the union of
// its members', goes there too.

// compareFirst orders a run of firsts: by thread, then time.
func compareFirst(a, b *firstAt) int {
	return cmp.Or(cmp.Compare(a.th, b.th), cmp.Compare(a.at, b.at))
}

// appendFirst packs f after prev (in compareFirst's order): the
// differences of its thread and time, as varints.
func appendFirst(b []byte, f, prev *firstAt) []byte {
	b = binary.AppendVarint(b, int64(f.th)-int64(prev.th))
	return binary.AppendVarint(b, int64(f.at-prev.at))
}

// readFirst unpacks a first appendFirst packed after prev, and its bytes'
// count (0: b holds no whole one).
func readFirst(b []byte, prev *firstAt) (firstAt, int) {
	th, n1 := binary.Varint(b)
	at, n2 := binary.Varint(b[max(n1, 0):])
	if n1 <= 0 || n2 <= 0 {
		return firstAt{}, 0
	}
	return firstAt{th: prev.th + format.ThreadID(th), at: prev.at + format.Time(at)}, n1 + n2
}

// addedFirst counts an entry added to a's waiters or waitedBy, and, with
// a spill, writes the locks' lists out when they hold ownerBudget.
func (a *lockAgg) addedFirst() {
	if a.sp == nil {
		return
	}
	ag := a.ag
	if ag.firstEntries++; ag.firstEntries <= ag.firstLeft+ownerBudget {
		return
	}
	n := 0
	if ag.ownerSpill.err == nil {
		for x := range ag.byN.all() {
			if x == nil {
				continue // dormant (dormant.go)
			}
			if c := x.c; c != nil {
				n += x.spillFirsts(&c.waiters, &c.waiterRuns)
			}
			n += x.spillFirsts(&x.waitedBy, &x.waitedByRuns)
		}
	}
	if ag.ownerSpill.err != nil {
		n = 1 << 62 // kept in memory: the lists grow on
	}
	// The next pass waits for ownerBudget more (spillOwners).
	ag.firstEntries, ag.firstLeft = n, n
}

// spillFirsts writes the list *fs out as a run sorted by thread, added to
// *runs, when it has ownerRunMin entries or more, and lets it go; it
// returns the entries it leaves.
func (a *lockAgg) spillFirsts(fs *[]firstAt, runs *[][]ScratchRef) int {
	if len(*fs) < ownerRunMin {
		return len(*fs)
	}
	slices.SortFunc(*fs, func(x, y firstAt) int { return compareFirst(&x, &y) })
	run, ok := putRun(a.sp, *fs, appendFirst)
	if !ok {
		return len(*fs)
	}
	*runs = append(*runs, run)
	a.ag.ownerRuns = true
	*fs = nil
	return 0
}

// firstsOf returns the threads of fs and runs (the runs read back and
// merged with fs) in order of their first (the earliest of a thread's),
// then id, with those times, in fs's room. The spill must be readable:
// a failed one fails Build (its runs are not read).
func (a *lockAgg) firstsOf(fs []firstAt, runs [][]ScratchRef) []firstAt {
	// In order of thread alone: merged with the runs (in compareFirst's
	// order), the threads still come in order, a thread's firsts in a row.
	sortFirsts(fs, false)
	if len(runs) > 0 && a.sp.err == nil {
		tab := fs
		fs = make([]firstAt, 0, len(tab))
		mergeRuns(a.sp, runs, tab, compareFirst, readFirst, func(f firstAt) {
			fs = append(fs, f)
		})
	}
	// Each thread's earliest.
	n := 0
	for i := range fs {
		if n > 0 && fs[n-1].th == fs[i].th {
			fs[n-1].at = min(fs[n-1].at, fs[i].at)
			continue
		}
		fs[n] = fs[i]
		n++
	}
	fs = fs[:n]
	// By time, then thread (inFirstOrder): they are in order of thread.
	sortFirsts(fs, true)
	return fs
}

// sortFirsts sorts fs by thread, or by time (byAt), keeping the order of
// equal keys: an LSD radix sort as sortKeys, with its room allocated (a
// sort by comparisons of a lock's owners and waiters was a fifth of its
// end, setLocks), a list of fewer than 32 by insertion. A radix sort of
// any type, its key a function, was a call an element a pass, and zeroed
// and summed its 256 counts a pass for the few waiters most locks have:
// 66 instructions an event at 32 MB.
func sortFirsts(fs []firstAt, byAt bool) {
	if len(fs) < 32 {
		for i := 1; i < len(fs); i++ {
			for j := i; j > 0 && firstKey(&fs[j], byAt) < firstKey(&fs[j-1], byAt); j-- {
				fs[j], fs[j-1] = fs[j-1], fs[j]
			}
		}
		return
	}
	k0 := firstKey(&fs[0], byAt)
	var diff uint64
	for i := range fs {
		diff |= firstKey(&fs[i], byAt) ^ k0
	}
	if diff == 0 {
		return
	}
	src, dst := fs, make([]firstAt, len(fs))
	for shift := uint(0); shift < 64; shift += 8 {
		if (diff>>shift)&0xff == 0 {
			continue
		}
		var c [256]int32 // a lock's firsts: a thread each
		for i := range src {
			c[byte(firstKey(&src[i], byAt)>>shift)]++
		}
		prefixSums(&c)
		for i := range src {
			b := byte(firstKey(&src[i], byAt) >> shift)
			dst[c[b]] = src[i]
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &fs[0] {
		copy(fs, src)
	}
}

// firstKey is f's key of sortFirsts: its thread, or its time (byAt) as
// an unsigned number in the same order.
func firstKey(f *firstAt, byAt bool) uint64 {
	if byAt {
		return signedKey(int64(f.at))
	}
	return uint64(f.th)
}

// spiltIDs is a list of threads written to the spill: its blocks and
// its length.
type spiltIDs struct {
	bs []spillBlock
	n  int
}

// spiltLists are the lists of a lock of many threads in the spill.
type spiltLists struct {
	waiters, waitedBy spiltIDs
}

// putThreads returns the threads of fs, in its order, as a list in
// memory, or, with a spill (sp) and more than ownersInMemory of them,
// written to it (the list nil).
func putThreads(fs []firstAt, sp *spillFile) ([]format.ThreadID, spiltIDs) {
	if len(fs) == 0 {
		return nil, spiltIDs{}
	}
	if sp == nil || sp.err != nil || len(fs) <= ownersInMemory {
		out := make([]format.ThreadID, len(fs))
		for i, f := range fs {
			out[i] = f.th
		}
		return out, spiltIDs{}
	}
	ids := spiltIDs{n: len(fs)}
	b := make([]byte, 0, ownerPiece)
	prev := format.ThreadID(0)
	for i := range fs {
		b = binary.AppendVarint(b, int64(fs[i].th)-int64(prev))
		prev = fs[i].th
		if len(b) > ownerPiece-binary.MaxVarintLen64 || i == len(fs)-1 {
			sp.add(&ids.bs, b)
			b = b[:0]
		}
	}
	return nil, ids
}

// putWaiters sets l's lists of threads from ws and wb (in order of
// first time): in Waiters and WaitedBy, or, with a spill (sp), a long
// one written to it (putThreads).
func putWaiters(l *Lock, ws, wb []firstAt, sp *spillFile) {
	var w, b spiltIDs
	l.Waiters, w = putThreads(ws, sp)
	l.WaitedBy, b = putThreads(wb, sp)
	l.spilt = nil
	if w.n > 0 || b.n > 0 {
		l.spilt = &spiltLists{waiters: w, waitedBy: b}
	}
}

// readThreads reads the list ids back from m's spill; a failed read
// panics with its *SpillError (as IntervalsOf).
func (m *Model) readThreads(ids *spiltIDs) []format.ThreadID {
	b, err := spillRead(m.spill, ids.bs, []byte(nil))
	if err != nil {
		panic(&SpillError{err})
	}
	out := make([]format.ThreadID, 0, ids.n)
	prev := format.ThreadID(0)
	for len(b) > 0 {
		d, n := binary.Varint(b)
		if n <= 0 {
			panic(&SpillError{errRun})
		}
		prev += format.ThreadID(d)
		out = append(out, prev)
		b = b[n:]
	}
	return out
}

// WaitersOf returns l's waiters (Lock.Waiters): with Options.SpillOwners,
// those of a lock of many read back from the spill, in a new slice; a
// failed read panics with its *SpillError (as IntervalsOf).
func (m *Model) WaitersOf(l *Lock) []format.ThreadID {
	if l.spilt == nil || l.spilt.waiters.n == 0 {
		return l.Waiters
	}
	return m.readThreads(&l.spilt.waiters)
}

// WaitedByOf returns the threads that waited on l (Lock.WaitedBy, a
// Group's too), as WaitersOf.
func (m *Model) WaitedByOf(l *Lock) []format.ThreadID {
	if l.spilt == nil || l.spilt.waitedBy.n == 0 {
		return l.WaitedBy
	}
	return m.readThreads(&l.spilt.waitedBy)
}

// WaiterCount is len(WaitersOf(l)), nothing read.
func (l *Lock) WaiterCount() int {
	if l.spilt != nil && l.spilt.waiters.n > 0 {
		return l.spilt.waiters.n
	}
	return len(l.Waiters)
}

// WaitedByCount is len(WaitedByOf(l)), nothing read.
func (l *Lock) WaitedByCount() int {
	if l.spilt != nil && l.spilt.waitedBy.n > 0 {
		return l.spilt.waitedBy.n
	}
	return len(l.WaitedBy)
}
