package model

import (
	"weak"

	"orca/internal/format"
)

// foldIndex is the fold's threads (Builder.th): in order of appearance
// (byNum, tstate.num), and found by ID in a table of their numbers + 1 (0:
// an empty slot) by the IDs' hash, probed in turn, at most 3/4 full
// (threadSlot, as Model.thIdx after the fold). 4 to 8 bytes a thread ever
// seen, where a map[format.ThreadID]*tstate was ~28 (38 MB of c5G-slow5's
// 1.33 M threads at the fold's end, its live peak with the report's).
// Model.foldTh is the same until Finalize.
//
// A thread retired and packed is let go (Builder.letGo): byNum has nil in
// its place, its ID is the packed one's (ids, Model.packed's), and wk a
// weak pointer to its tstate, which is the thread's again while anything
// still holds it (Builder.wakeThread): 8 bytes for a thread let go, where its
// tstate was 64 (1.33 M threads at c5G-slow5, the fold's largest part of
// its live heap, issue 34).
//
// wk holds only the weak pointers whose tstate may still be held: those
// the collector took are dropped (prune) once wk has doubled since, for a
// weak pointer keeps the runtime's handle of 8 to 16 bytes, and a slot of
// 8 by number was kept for every thread let go (27 MB of c5G-slow5's
// fold, for the few tstates something still holds).
type foldIndex struct {
	slots []uint32
	byNum []*tstate
	ids   *[]format.ThreadID              // by number, of the threads let go: threadPack.ids
	wk    map[uint32]weak.Pointer[tstate] // by number, of the threads let go and maybe held
	// pruned: len(wk) after the last prune.
	pruned int
}

// pruneMin is the fewest weak pointers of foldIndex.wk a prune looks at.
var pruneMin = 1024

// keepWeak puts the weak pointer to ts, let go, in wk, first dropping
// those whose tstate the collector took when wk has doubled since the
// last time: a look at each weak pointer kept a thread let go.
func (x *foldIndex) keepWeak(ts *tstate) {
	if x.wk == nil {
		x.wk = map[uint32]weak.Pointer[tstate]{}
	}
	if len(x.wk) >= max(2*x.pruned, pruneMin) {
		x.prune()
	}
	x.wk[ts.num] = weak.Make(ts)
}

// prune drops the weak pointers of wk whose tstate the collector took: a
// thread of those is made again from its state at rest, as it would be
// with the weak pointer kept (Builder.wakeThread).
func (x *foldIndex) prune() {
	for n, w := range x.wk {
		if w.Value() == nil {
			delete(x.wk, n)
		}
	}
	x.pruned = len(x.wk)
}

// weakOf returns the tstate of the thread numbered n, let go, when
// something still holds it; nil else. Its weak pointer is dropped: the
// thread is the index's again.
func (x *foldIndex) weakOf(n int) *tstate {
	w, ok := x.wk[uint32(n)]
	if !ok {
		return nil
	}
	delete(x.wk, uint32(n))
	return w.Value()
}

// get returns the thread id, nil when none was seen or it was let go.
func (x *foldIndex) get(id format.ThreadID) *tstate {
	ts, _ := x.find(id)
	return ts
}

// find returns the thread id and its number: nil and its number when it
// was let go; nil and -1 when none was seen.
func (x *foldIndex) find(id format.ThreadID) (*tstate, int) {
	if len(x.slots) == 0 {
		return nil, -1
	}
	mask := len(x.slots) - 1
	for i := threadSlot(id, len(x.slots)); ; i = (i + 1) & mask {
		n := x.slots[i]
		if n == 0 {
			return nil, -1
		}
		if ts := x.byNum[n-1]; ts != nil {
			if ts.id == id {
				return ts, int(n - 1)
			}
		} else if (*x.ids)[n-1] == id {
			return nil, int(n - 1)
		}
	}
}

// idOf returns the ID of the thread numbered n.
func (x *foldIndex) idOf(n int) format.ThreadID {
	if ts := x.byNum[n]; ts != nil {
		return ts.id
	}
	return (*x.ids)[n]
}

// add adds ts, numbered len(byNum) (tstate.num), of an ID not in x.
func (x *foldIndex) add(ts *tstate) {
	x.byNum = append(x.byNum, ts)
	if 4*len(x.byNum) > 3*len(x.slots) {
		x.grow(len(x.byNum))
		return
	}
	x.put(ts.id, uint32(len(x.byNum)))
}

// grow makes room for n threads at most 3/4 full, and puts those of
// byNum in again.
func (x *foldIndex) grow(n int) {
	size := 16
	for 3*size < 4*n {
		size *= 2
	}
	if size <= len(x.slots) {
		return
	}
	x.slots = make([]uint32, size)
	for k := range x.byNum {
		x.put(x.idOf(k), uint32(k+1))
	}
}

// put puts the number n (+ 1) of id in its slot.
func (x *foldIndex) put(id format.ThreadID, n uint32) {
	mask := len(x.slots) - 1
	i := threadSlot(id, len(x.slots))
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = n
}

// renumber puts the threads in a new order, the one of number old(i)
// numbered i, in the table alone (slots: an ID's slot is its hash's, its
// number changes): Finalize then hands the table to the Model
// (Builder.indexThreads) and lets byNum and wk go, not made again in the
// new order (11 MB of c5G-slow5's 1.33 M threads at Finalize's live peak).
func (x *foldIndex) renumber(old func(i int) int) {
	inv := make([]uint32, len(x.byNum))
	for i := range inv {
		inv[old(i)] = uint32(i)
	}
	for j, n := range x.slots {
		if n != 0 {
			x.slots[j] = inv[n-1] + 1
		}
	}
	x.byNum, x.wk, x.pruned = nil, nil, 0
}
