package analysis

import "math/bits"

// onIndex finds a wait chains' lock (onKey) by its key (onKey.word) among
// chainSweep.ons: an open-addressed table of their indexes + 1 (0: an empty
// slot), the keys read from ons, 4 bytes a slot. A lock per object parked
// on: the map of key and index it replaces took ~25 bytes each (its slots
// of 16, its control words, its load), for the 6.3 M objects an hour of a
// loaded Tomcat parked on; this one takes 5 to 11 (64 MB of slots there).
type onIndex struct {
	slots []uint32 // a power of two of them, or none
	n     int
	shift uint8 // 64 - log2(len(slots))
}

func onHash(w uint64, shift uint8) int { return int(w * 0x9e3779b97f4a7c15 >> shift) }

// find returns the index in ons of the lock whose key is w.
func (x *onIndex) find(w uint64, ons []onKey) (uint32, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := len(x.slots) - 1
	for j := onHash(w, x.shift); ; j = (j + 1) & mask {
		k := x.slots[j]
		if k == 0 {
			return 0, false
		}
		if ons[k-1].word() == w {
			return k - 1, true
		}
	}
}

// add adds ons[k], whose key is in x no more.
func (x *onIndex) add(k uint32, ons []onKey) {
	if 4*(x.n+1) > 3*len(x.slots) {
		x.grow(ons[:k])
	}
	x.put(ons[k].word(), k)
	x.n++
}

func (x *onIndex) put(w uint64, k uint32) {
	mask := len(x.slots) - 1
	j := onHash(w, x.shift)
	for x.slots[j] != 0 {
		j = (j + 1) & mask
	}
	x.slots[j] = k + 1
}

// grow doubles the slots (1024 at first) and puts ons, those in x, in again.
func (x *onIndex) grow(ons []onKey) {
	n := max(2*len(x.slots), 1024)
	x.slots, x.shift = make([]uint32, n), uint8(65-bits.Len(uint(n)))
	for k := range ons {
		x.put(ons[k].word(), uint32(k))
	}
}
