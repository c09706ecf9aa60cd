package model

import "orca/internal/format"

// foldIndex is the fold's threads (Builder.th): in order of appearance
// (byNum, tstate.num), and found by ID in a table of their numbers + 1 (0:
// an empty slot) by the IDs' hash, probed in turn, at most 3/4 full
// (threadSlot, as Model.thIdx after the fold). 4 to 8 bytes a thread ever
// seen, where a map[format.ThreadID]*tstate was ~28 (38 MB of c5G-slow5's
// 1.33 M threads at the fold's end, its live peak with the report's).
// Model.foldTh is the same until Finalize.
type foldIndex struct {
	slots []uint32
	byNum []*tstate
}

// get returns the thread id, nil when none was seen.
func (x *foldIndex) get(id format.ThreadID) *tstate {
	if len(x.slots) == 0 {
		return nil
	}
	mask := len(x.slots) - 1
	for i := threadSlot(id, len(x.slots)); ; i = (i + 1) & mask {
		n := x.slots[i]
		if n == 0 {
			return nil
		}
		if ts := x.byNum[n-1]; ts.id == id {
			return ts
		}
	}
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
	for k, ts := range x.byNum {
		x.put(ts.id, uint32(k+1))
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
