package model

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"

	"orca/internal/format"
)

// The holders' time blocked on other locks (Doing.On) is summed per lock
// by the other lock and its holder then: every doingFold's map (on) is
// held until the last holder is folded, as many entries as pairs of
// locks and owners ever seen (c1G: 196 MB, the report's live peak once
// the span logs went to the spill). With a spill, once the folds' maps
// hold onBudget entries in all, each of at least onRunMin is written out
// as a run sorted by key and begun again; finish merges a fold's runs
// and map (sums of integers: any order), and keeps the first View.OnTop.

// onBudget is the folds' entries held in their maps (~55 bytes each);
// onRunMin the fewest a fold writes out as a run (vars: the tests make
// runs of one).
var onBudget, onRunMin = 1 << 18, 32

// onSpill is the holders' pass's spill of its folds' maps.
type onSpill struct {
	m       *Model
	folds   []*doingFold
	entries int // in the folds' maps
	left    int // of them, those the last pass left
	buf     []HeldOn
}

// added counts an entry added to a fold's map, and writes the maps out
// when they hold onBudget.
func (sp *onSpill) added() {
	if sp.entries++; sp.entries <= sp.left+onBudget {
		return
	}
	n := 0
	for _, f := range sp.folds {
		if f.on.n >= onRunMin && f.spillOn() {
			continue
		}
		n += f.on.n
	}
	// The next pass waits for onBudget more (spanSpill.chunkAll).
	sp.entries, sp.left = n, n
}

// compareOn orders entries by lock and owner: a run's order.
// (Each field compared only when those before are equal: cmp.Or's
// arguments are all computed first, and the sorts of a fold's entries
// written out were half a second of c1G's report.)
func compareOn(x, y HeldOn) int {
	if x.Lock.Object != y.Lock.Object {
		return cmp.Compare(x.Lock.Object, y.Lock.Object)
	}
	if x.Lock.Kind != y.Lock.Kind {
		return cmp.Compare(x.Lock.Kind, y.Lock.Kind)
	}
	return cmp.Compare(x.Owner, y.Owner)
}

// appendOn packs h after prev (in compareOn's order): the differences of
// its object and owner, its kind and time, as varints.
func appendOn(b []byte, h, prev *HeldOn) []byte {
	b = binary.AppendVarint(b, int64(h.Lock.Object)-int64(prev.Lock.Object))
	b = binary.AppendUvarint(b, uint64(h.Lock.Kind))
	b = binary.AppendVarint(b, int64(h.Owner)-int64(prev.Owner))
	return binary.AppendVarint(b, int64(h.Time))
}

// readOn unpacks an entry appendOn packed after prev, and its bytes'
// count (0: b holds no whole entry).
func readOn(b []byte, prev *HeldOn) (HeldOn, int) {
	o, n1 := binary.Varint(b)
	k, n2 := binary.Uvarint(b[max(n1, 0):])
	w, n3 := binary.Varint(b[max(n1+n2, 0):])
	t, n4 := binary.Varint(b[max(n1+n2+n3, 0):])
	if n1 <= 0 || n2 <= 0 || n3 <= 0 || n4 <= 0 {
		return HeldOn{}, 0
	}
	return HeldOn{Lock: LockRef{prev.Lock.Object + format.ObjectID(o), LockKind(k)}, Owner: prev.Owner + format.ThreadID(w), Time: format.Time(t)},
		n1 + n2 + n3 + n4
}

// spillOn writes f's map out as a run, in blocks of about ownerPiece
// bytes, and lets it go; false when the spill takes no more.
func (f *doingFold) spillOn() bool {
	sp := f.sp
	hs := f.on.appendTo(sp.buf[:0])
	slices.SortFunc(hs, compareOn)
	run, ok := putRun(sp.m.spill, hs, appendOn)
	sp.buf = hs[:0]
	if !ok {
		return false // the map stays: nothing of it is in a run
	}
	f.onRuns = append(f.onRuns, run)
	f.on.reset()
	return true
}

// mergedOn returns f's entries, its runs' and its map's, each key's
// times summed, in compareOn's order.
func (f *doingFold) mergedOn() []HeldOn {
	tab := f.on.appendTo(make([]HeldOn, 0, f.on.n))
	slices.SortFunc(tab, compareOn)
	var out []HeldOn
	runs := f.onRuns
	f.onRuns = nil
	mergeRuns(f.sp.m.spill, runs, tab, func(x, y *HeldOn) int { return compareOn(*x, *y) }, readOn, func(x HeldOn) {
		if n := len(out); n > 0 && compareOn(out[n-1], x) == 0 {
			out[n-1].Time += x.Time
			return
		}
		out = append(out, x)
	})
	return out
}

// onTab is a fold's time by the other lock and its owner (doingFold.on):
// open addressing, each entry in its slot, probed linearly from a hash
// of the lock and owner. A Go map's assignment, a probe of its control
// word then of the slot, was 1 of c1G's CPU-s, for a fold's entries
// each added to once per run of a holder's spans (flushOn). The order of
// the slots is the hash's: every reader sorts the entries.
type onTab struct {
	slots []onSlot // a power of two of them, or none
	n     int
	shift uint8 // 64 - log2(len(slots))
}

// onSlot is a slot of an onTab: its entry (the time summed in Time), if
// used.
type onSlot struct {
	h    HeldOn
	used bool
}

// onSlotOf is h's first slot in a table of 1<<(64-shift) slots.
func onSlotOf(h *HeldOn, shift uint8) int {
	x := uint64(h.Lock.Object)*0x9e3779b97f4a7c15 + uint64(h.Owner)
	x = (x ^ x>>29 ^ uint64(h.Lock.Kind)) * 0xbf58476d1ce4e5b9
	return int((x ^ x>>32) * 0x94d049bb133111eb >> shift)
}

// add adds d to the time of h's lock and owner, and reports whether the
// entry is new.
func (t *onTab) add(h HeldOn, d format.Time) bool {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	for i := onSlotOf(&h, t.shift); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if !s.used {
			h.Time = d
			s.h, s.used = h, true
			t.n++
			return true
		}
		if s.h.Lock == h.Lock && s.h.Owner == h.Owner {
			s.h.Time += d
			return false
		}
	}
}

// grow doubles the slots and puts the entries in again.
func (t *onTab) grow() {
	old := t.slots
	n := max(2*len(old), 16)
	t.slots = make([]onSlot, n)
	t.shift = uint8(64 - bits.TrailingZeros(uint(n)))
	mask := n - 1
	for j := range old {
		if !old[j].used {
			continue
		}
		i := onSlotOf(&old[j].h, t.shift)
		for t.slots[i].used {
			i = (i + 1) & mask
		}
		t.slots[i] = old[j]
	}
}

// reset empties t and lets its slots go (a fold written out begins
// again small).
func (t *onTab) reset() { *t = onTab{} }

// appendTo appends the entries to dst, in the order of the slots.
func (t *onTab) appendTo(dst []HeldOn) []HeldOn {
	for i := range t.slots {
		if t.slots[i].used {
			dst = append(dst, t.slots[i].h)
		}
	}
	return dst
}
