package export

import "math/bits"

// pairTab is a kind's pairs of samples by key (kindProfiles.pairs): open
// addressing, probed linearly from a hash of the key's words, the key and
// its pair in the slot. A push looks up a key for each value the ring of
// recent keys misses (tens of thousands a request); a Go map of these
// 32-byte keys hashed each as memory of any length and probed its control
// word, then its slot (h104's profile: 0.37 s of the 1.80 s of get).
type pairTab struct {
	slots []pairSlot // a power of two of them, or none
	n     int
	shift uint8 // 64 - log2(len(slots))
}

// pairSlot is a slot of a pairTab: p nil for an empty one.
type pairSlot struct {
	key stateKey
	p   *statePair
}

// pairMin is the fewest slots of a table with pairs.
const pairMin = 64

// hash returns k's slot in a table of 1<<(64-shift) slots.
func (k *stateKey) hash(shift uint8) int {
	h := uint64(k.thread)*0x9E3779B97F4A7C15 ^ uint64(k.other)
	h = h*0xBF58476D1CE4E5B9 ^ uint64(k.stack)<<32 ^ uint64(k.object) ^ k.open<<63
	h *= 0x94D049BB133111EB
	return int(h >> shift)
}

// get returns the pair of k, nil for none.
func (t *pairTab) get(k stateKey) *statePair {
	if t.n == 0 {
		return nil
	}
	mask := len(t.slots) - 1
	for i := k.hash(t.shift); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.p == nil {
			return nil
		}
		if s.key == k {
			return s.p
		}
	}
}

// put sets k's pair to p (not nil); k has none.
func (t *pairTab) put(k stateKey, p *statePair) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	t.n++
	mask := len(t.slots) - 1
	i := k.hash(t.shift)
	for t.slots[i].p != nil {
		i = (i + 1) & mask
	}
	t.slots[i] = pairSlot{k, p}
}

// grow doubles the slots (to pairMin from none) and puts the pairs back.
func (t *pairTab) grow() {
	old := t.slots
	n := max(2*len(old), pairMin)
	t.slots, t.n = make([]pairSlot, n), 0
	t.shift = uint8(64 - bits.TrailingZeros(uint(n)))
	for i := range old {
		if s := &old[i]; s.p != nil {
			t.put(s.key, s.p)
		}
	}
}

// reset empties t, its slots kept for the next request.
func (t *pairTab) reset() {
	if t.n > 0 {
		clear(t.slots)
		t.n = 0
	}
}
