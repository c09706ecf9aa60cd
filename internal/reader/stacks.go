package reader

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"

	"orca/internal/format"
)

// StackTable numbers distinct stacks in the order they first appear;
// 0 is the stack without frames. Given to EachEvent (EachOptions.Stacks),
// it is filled while the file is read and each event carries its stack's
// number: a fold then needs no hashing of frames per event, as EachEvent
// looks up each distinct stack of a chunk once.
type StackTable struct {
	// Frames holds the stacks by number; Frames[0] is nil. Read-only for
	// users.
	Frames [][]format.Frame
	ids    map[string]uint32 // the frames' bytes -> number
	key    []byte
}

// NewStackTable returns a table holding only the empty stack.
func NewStackTable() *StackTable {
	return &StackTable{Frames: [][]format.Frame{nil}, ids: map[string]uint32{}}
}

// ID returns fr's number, adding a copy of fr to the table when it is new.
func (t *StackTable) ID(fr []format.Frame) uint32 {
	if len(fr) == 0 {
		return 0
	}
	k := t.key[:0]
	for _, f := range fr {
		k = binary.LittleEndian.AppendUint32(k, uint32(f.Method))
		k = binary.LittleEndian.AppendUint32(k, f.Location)
	}
	t.key = k
	if id, ok := t.ids[string(k)]; ok {
		return id
	}
	id := uint32(len(t.Frames))
	t.Frames = append(t.Frames, append([]format.Frame(nil), fr...))
	t.ids[string(k)] = id
	return id
}

// stackKeys finds a stack cache's entries by their bytes (a stack record
// from its depth on, or a stack's text): an open-addressed table of words
// holding a hash's top 32 bits and the entry + 1, the keys one after
// another in one array. A Go map of strings cost 12 % of the compact
// reader's time on the 128 MB synthetic recording (a chunk defines each
// of its stacks again: 1.2 M look-ups of 10 M events), its keys each a
// string of their own.
type stackKeys struct {
	slots []uint64 // 0: empty
	keys  []byte
	ends  []int // by entry: the end of its key in keys
	seed  maphash.Seed
}

func newStackKeys() *stackKeys {
	return &stackKeys{slots: make([]uint64, 1<<10), seed: maphash.MakeSeed()}
}

// key returns entry i's key.
func (t *stackKeys) key(i int) []byte {
	start := 0
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.keys[start:t.ends[i]]
}

// get returns the entry of key, if any.
func (t *stackKeys) get(key []byte) (int, bool) {
	h := maphash.Bytes(t.seed, key)
	mask := uint64(len(t.slots) - 1)
	for p := h & mask; ; p = (p + 1) & mask {
		s := t.slots[p]
		if s == 0 {
			return 0, false
		}
		if s>>32 == h>>32 {
			if i := int(uint32(s)) - 1; bytes.Equal(t.key(i), key) {
				return i, true
			}
		}
	}
}

// add adds key as the next entry, len(t.ends), which it must not hold.
func (t *stackKeys) add(key []byte) {
	t.keys = append(t.keys, key...)
	t.ends = append(t.ends, len(t.keys))
	if 2*len(t.ends) > len(t.slots) {
		t.slots = make([]uint64, 2*len(t.slots))
		for i := range t.ends {
			t.put(i)
		}
		return
	}
	t.put(len(t.ends) - 1)
}

// put places entry i in the table.
func (t *stackKeys) put(i int) {
	h := maphash.Bytes(t.seed, t.key(i))
	mask := uint64(len(t.slots) - 1)
	p := h & mask
	for t.slots[p] != 0 {
		p = (p + 1) & mask
	}
	t.slots[p] = h>>32<<32 | uint64(i+1)
}

// reset empties the table.
func (t *stackKeys) reset() {
	clear(t.slots)
	t.keys, t.ends = t.keys[:0], t.ends[:0]
}
