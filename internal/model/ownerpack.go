package model

import (
	"encoding/binary"

	"orca/internal/format"
)

// ownerPack is a lock's owner changes read back from the spill and kept
// packed while HoldersDoing folds the contentions on it (a 1 GB recording
// has ~12 M of them: 192 MB as OwnerChanges of 16 bytes, held the whole
// pass): each change its time and its owner's number in owners, as
// varints; every ownerMarkEvery-th change's time is its difference from
// base, the first change's, the others' from the change before (zigzag:
// lines of two threads can be out of order by a little), and marks holds
// where each ownerMarkEvery-th change begins, so that a contention's
// changes (Interval.ownFrom to ownTo, 1.5 on average) are decoded from the
// mark before them, which needs nothing else.
type ownerPack struct {
	n      int
	b      []byte
	marks  []int
	owners []format.ThreadID
	base   format.Time
	// While it is packed: the owners' numbers, the last change's time.
	num  map[format.ThreadID]uint32
	prev format.Time
}

// ownerMarkEvery: a mark every 8 changes, not 16 (its own time, 8 bytes,
// kept in the mark before), halves the changes decoded to reach a
// contention's (7.5 on average for its 1.5 at 128 MB: decode was 7 % of
// orca report's CPU) for about the same bytes (an 8-byte mark and a
// time's varint of ~6 bytes against ~2 every 8 changes, where it was a
// 16-byte mark every 16).
const ownerMarkEvery = 8

// ownerReadBlock is how many changes are read from the spill at a time
// while one is packed (the largest lock's are not read whole).
const ownerReadBlock = 4096

// packOwnerChanges reads l's owner changes back from the spill, packed.
func (m *Model) packOwnerChanges(l *Lock) *ownerPack {
	p := &ownerPack{num: map[format.ThreadID]uint32{}}
	buf := make([]OwnerChange, ownerReadBlock)
	err := spillEach(m.spill, l.ownSpill, buf, func(cs []OwnerChange) {
		for _, c := range cs {
			p.add(c)
		}
	})
	if err != nil {
		panic(&SpillError{err}) // as spilledThread
	}
	// Exactly sized: the locks' packs are held together (an append's
	// room is up to half of one).
	p.num = nil
	p.b = append(make([]byte, 0, len(p.b)), p.b...)
	p.marks = append(make([]int, 0, len(p.marks)), p.marks...)
	return p
}

// add packs c, the next change.
func (p *ownerPack) add(c OwnerChange) {
	prev := p.prev
	if p.n == 0 {
		p.base = c.At
	}
	if p.n%ownerMarkEvery == 0 {
		p.marks = append(p.marks, len(p.b))
		prev = p.base
	}
	k, ok := p.num[c.Owner]
	if !ok {
		k = uint32(len(p.owners))
		p.num[c.Owner] = k
		p.owners = append(p.owners, c.Owner)
	}
	p.b = binary.AppendVarint(p.b, int64(c.At-prev))
	p.b = binary.AppendUvarint(p.b, uint64(k))
	p.prev = c.At
	p.n++
}

// decode returns changes from to to (to ≤ p.n) in dst's room.
func (p *ownerPack) decode(from, to int, dst []OwnerChange) []OwnerChange {
	dst = dst[:0]
	if to <= from {
		return dst
	}
	b, at := p.b[p.marks[from/ownerMarkEvery]:], p.base
	for i := from / ownerMarkEvery * ownerMarkEvery; i < to; i++ {
		d, n1 := binary.Varint(b)
		k, n2 := binary.Uvarint(b[n1:])
		b = b[n1+n2:]
		if i%ownerMarkEvery == 0 {
			at = p.base
		}
		at += format.Time(d)
		if i >= from {
			dst = append(dst, OwnerChange{At: at, Owner: p.owners[k]})
		}
	}
	return dst
}
