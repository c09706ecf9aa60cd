package model

import "orca/internal/format"

// stackTable interns stacks: most events repeat a few call paths, so each
// distinct stack is stored once and events refer to it by StackID.
type stackTable struct {
	ids map[uint64][]StackID // hash -> candidates (collisions are checked)
}

func newStackTable() stackTable { return stackTable{ids: map[uint64][]StackID{}} }

func hashFrames(fr []format.Frame) uint64 {
	h := uint64(14695981039346656037)
	for _, f := range fr {
		h ^= uint64(f.Method)<<32 | uint64(f.Location)
		h *= 1099511628211
	}
	return h
}

func sameFrames(a, b []format.Frame) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// intern returns the id of fr, adding a copy to *all when it is new.
func (s *stackTable) intern(fr []format.Frame, all *[][]format.Frame) StackID {
	if len(fr) == 0 {
		return 0
	}
	h := hashFrames(fr)
	for _, id := range s.ids[h] {
		if sameFrames((*all)[id], fr) {
			return id
		}
	}
	id := StackID(len(*all))
	*all = append(*all, append([]format.Frame(nil), fr...))
	s.ids[h] = append(s.ids[h], id)
	return id
}
