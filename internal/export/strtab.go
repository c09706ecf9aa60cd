package export

import "hash/maphash"

// strTab numbers strings in the order first seen (a profile's string
// table): their bytes one after another in one arena, each string's end
// in ends, and an open-addressing table of 4-byte slots (a string's
// number + 1, 0 for none) probed linearly from the string's hash, the
// string compared in the arena. A pprof of every state of an hour of
// Tomcat labels 6.3 million objects, each its own string: a map of them
// and a list of their headers were ~60 bytes a string besides the string
// itself (354 MB of the export's 1.4 GB); here ~16.
type strTab struct {
	arena []byte
	ends  []int // string i is arena[ends[i-1]:ends[i]] (from 0 for the first)
	slots []uint32
	seed  maphash.Seed
}

// strMin is the fewest slots of a table with strings.
const strMin = 256

// index returns v's number, numbering it at first sight.
func (t *strTab) index(v string) int64 {
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
		t.slots = make([]uint32, strMin)
	}
	mask := len(t.slots) - 1
	i := int(maphash.String(t.seed, v)) & mask
	for ; t.slots[i] != 0; i = (i + 1) & mask {
		if n := int(t.slots[i] - 1); string(t.bytes(n)) == v {
			return int64(n)
		}
	}
	n := len(t.ends)
	t.arena = append(t.arena, v...)
	t.ends = append(t.ends, len(t.arena))
	t.slots[i] = uint32(n + 1)
	if 2*len(t.ends) > len(t.slots) {
		t.grow()
	}
	return int64(n)
}

// bytes returns string n's bytes, in the arena: not to be changed, valid
// until the next index.
func (t *strTab) bytes(n int) []byte {
	lo := 0
	if n > 0 {
		lo = t.ends[n-1]
	}
	return t.arena[lo:t.ends[n]]
}

// len is how many strings are numbered.
func (t *strTab) len() int { return len(t.ends) }

// grow doubles the slots and places every string again.
func (t *strTab) grow() {
	t.slots = make([]uint32, 2*len(t.slots))
	mask := len(t.slots) - 1
	for n := range t.ends {
		i := int(maphash.Bytes(t.seed, t.bytes(n))) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(n + 1)
	}
}
