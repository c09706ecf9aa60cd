package model

import (
	"iter"
	"math"
	"math/bits"

	"orca/internal/format"
)

// probeTab is a table of records found by a key, each record in its slot:
// open addressing, probed linearly from the key's hash. The seal's
// aggregator looks a lock's call site and blamed owner up for every
// contention (~20 M of each at 1 GB), and a lock has hundreds to
// thousands of each (the 128 MB synthetic recording: a median of ~500
// sites and ~500 owners a lock), nearly all met once per seal, so each
// look-up is a miss of the cache: a map's was its control word, its slot
// and then the record behind the slot's pointer or index (issue 34,
// docs/perf/2026-12-01-issue-34-cpu2.md). Here it is the record's slot
// alone. The order of the slots is the hash's: whoever lists the records
// sorts them.
type probeTab[E any] struct {
	slots []probeSlot[E] // a power of two of them, or none
	n     int            // the records, last's included
	shift uint8          // 64 - log2(len(slots))
	// last: the record of the key math.MaxUint64, whose key + 1 is an
	// empty slot's (a thread's ID is any 64 bits in a damaged recording).
	last    E
	hasLast bool
}

// probeSlot is a slot of a probeTab: key is the record's key + 1, 0 for
// an empty slot.
type probeSlot[E any] struct {
	key uint64
	e   E
}

// probeMin is the fewest slots of a table that has records.
const probeMin = 8

// find returns the record of key, and whether it was added (then E's zero
// value): valid until the next find adds one.
func (t *probeTab[E]) find(key uint64) (*E, bool) {
	if key == math.MaxUint64 {
		added := !t.hasLast
		if added {
			t.hasLast = true
			t.n++
		}
		return &t.last, added
	}
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	k := key + 1
	mask := len(t.slots) - 1
	for i := probeHash(k, t.shift); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == k {
			return &s.e, false
		}
		if s.key == 0 {
			s.key = k
			t.n++
			return &s.e, true
		}
	}
}

// lookup returns the record of key, nil when it has none.
func (t *probeTab[E]) lookup(key uint64) *E {
	if key == math.MaxUint64 && t.hasLast {
		return &t.last
	}
	if len(t.slots) == 0 || key == math.MaxUint64 {
		return nil
	}
	k := key + 1
	mask := len(t.slots) - 1
	for i := probeHash(k, t.shift); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == k {
			return &s.e
		}
		if s.key == 0 {
			return nil
		}
	}
}

// del removes the record of key, if it has one: the records after it in
// its run move back (linear probing's backward shift), each to where a
// look-up from its own first slot finds it.
func (t *probeTab[E]) del(key uint64) {
	var zero E
	if key == math.MaxUint64 {
		if t.hasLast {
			t.last, t.hasLast = zero, false
			t.n--
		}
		return
	}
	if len(t.slots) == 0 {
		return
	}
	k := key + 1
	mask := len(t.slots) - 1
	i := probeHash(k, t.shift)
	for ; t.slots[i].key != k; i = (i + 1) & mask {
		if t.slots[i].key == 0 {
			return
		}
	}
	for j := (i + 1) & mask; t.slots[j].key != 0; j = (j + 1) & mask {
		// j's record may fill the hole at i when i is no nearer its
		// first slot than j is.
		if h := probeHash(t.slots[j].key, t.shift); (j-h)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = probeSlot[E]{}
	t.n--
}

// reset empties t, its slots kept.
func (t *probeTab[E]) reset() {
	clear(t.slots)
	var zero E
	t.n, t.last, t.hasLast = 0, zero, false
}

// probeHash is k's first slot of a table of 1<<(64-shift) (Fibonacci
// hashing: keys in a row, as stack IDs are, spread over the table).
func probeHash(k uint64, shift uint8) int {
	return int((k * 0x9e3779b97f4a7c15) >> shift)
}

// grow doubles the slots and puts the records in again.
func (t *probeTab[E]) grow() {
	old := t.slots
	n := max(2*len(old), probeMin)
	t.slots = make([]probeSlot[E], n)
	t.shift = uint8(64 - bits.TrailingZeros(uint(n)))
	mask := n - 1
	for j := range old {
		if old[j].key == 0 {
			continue
		}
		i := probeHash(old[j].key, t.shift)
		for t.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = old[j]
	}
}

// all yields t's records with their keys, in the order appendTo appends
// them.
func (t *probeTab[E]) all() iter.Seq2[uint64, *E] {
	return func(yield func(uint64, *E) bool) {
		for i := range t.slots {
			if s := &t.slots[i]; s.key != 0 && !yield(s.key-1, &s.e) {
				return
			}
		}
		if t.hasLast {
			yield(math.MaxUint64, &t.last)
		}
	}
}

// appendTo appends the records to dst, in the order of the slots.
func (t *probeTab[E]) appendTo(dst []E) []E {
	dst = grown(dst, t.n)
	for i := range t.slots {
		if t.slots[i].key != 0 {
			dst = append(dst, t.slots[i].e)
		}
	}
	if t.hasLast {
		dst = append(dst, t.last)
	}
	return dst
}

// keySet is a set of keys, probed as probeTab's (a slot is the key + 1, 0
// for an empty one): 8 bytes a slot, where a probeTab[struct{}]'s is 16
// (a struct that ends in a field of no size is padded). ClassInit's sets
// of its waiters: a thread a slot, 38 MB of c5G-slow5's fold's end as a
// probeTab.
type keySet struct {
	slots  []uint64 // a power of two of them, or none
	n      int
	shift  uint8
	hasMax bool // math.MaxUint64, whose key + 1 is an empty slot's
}

// add adds key, and reports whether it was not in the set.
func (t *keySet) add(key uint64) bool {
	if key == math.MaxUint64 {
		added := !t.hasMax
		t.hasMax = true
		return added
	}
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	k := key + 1
	mask := len(t.slots) - 1
	for i := probeHash(k, t.shift); ; i = (i + 1) & mask {
		switch t.slots[i] {
		case k:
			return false
		case 0:
			t.slots[i] = k
			t.n++
			return true
		}
	}
}

// grow doubles the slots and puts the keys in again.
func (t *keySet) grow() { t.slots, t.shift = growSlots(t.slots, probeHash) }

// growSlots returns twice old's slots (probeMin at least) and their
// shift, each slot of old that is not 0 put in again from where hash
// places it (keySet, recTab).
func growSlots(old []uint64, hash func(s uint64, shift uint8) int) ([]uint64, uint8) {
	n := max(2*len(old), probeMin)
	slots := make([]uint64, n)
	shift := uint8(64 - bits.TrailingZeros(uint(n)))
	mask := n - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := hash(s, shift)
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = s
	}
	return slots, shift
}

// recTab is a table of dormant blockers' record slots by object
// (Builder.dormObjs), probed as probeTab's: a slot is the object << 32 |
// the record's slot, 0 for an empty one (a record's slot is from 1), 8
// bytes where a probeTab[int32]'s is 16 (its key and value padded): an
// hour of a loaded Tomcat forgot 5.6 M objects, 128 MB of the fold's live
// peak as a probeTab.
type recTab struct {
	slots []uint64 // a power of two of them, or none
	n     int
	shift uint8
}

func recHash(obj format.ObjectID, shift uint8) int { return probeHash(uint64(obj)+1, shift) }

// put sets obj's record slot to i (> 0).
func (t *recTab) put(obj format.ObjectID, i int32) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	for j := recHash(obj, t.shift); ; j = (j + 1) & mask {
		s := &t.slots[j]
		if *s == 0 {
			t.n++
		} else if format.ObjectID(*s>>32) != obj {
			continue
		}
		*s = uint64(obj)<<32 | uint64(uint32(i))
		return
	}
}

// get returns obj's record slot, 0 when it has none.
func (t *recTab) get(obj format.ObjectID) int32 {
	if t.n == 0 {
		return 0
	}
	mask := len(t.slots) - 1
	for j := recHash(obj, t.shift); ; j = (j + 1) & mask {
		s := t.slots[j]
		if s == 0 {
			return 0
		}
		if format.ObjectID(s>>32) == obj {
			return int32(uint32(s))
		}
	}
}

// del removes obj's slot, if it has one (probeTab.del's backward shift).
func (t *recTab) del(obj format.ObjectID) {
	if t.n == 0 {
		return
	}
	mask := len(t.slots) - 1
	i := recHash(obj, t.shift)
	for ; format.ObjectID(t.slots[i]>>32) != obj; i = (i + 1) & mask {
		if t.slots[i] == 0 {
			return
		}
	}
	for j := (i + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		if h := recHash(format.ObjectID(t.slots[j]>>32), t.shift); (j-h)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = 0
	t.n--
}

// grow doubles the slots and puts the entries in again.
func (t *recTab) grow() {
	t.slots, t.shift = growSlots(t.slots, func(s uint64, shift uint8) int { return recHash(format.ObjectID(s>>32), shift) })
}
