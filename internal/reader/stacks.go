package reader

import (
	"encoding/binary"

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
