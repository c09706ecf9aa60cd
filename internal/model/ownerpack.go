package model

import (
	"encoding/binary"

	"orca/internal/format"
)

// ownerPack is a lock's owner changes read back from the spill and kept
// packed while HoldersDoing folds the contentions on it (a 1 GB recording
// has ~12 M of them: 192 MB as OwnerChanges of 16 bytes, held the whole
// pass): each change the difference of its time from the one before
// (zigzag varint: lines of two threads can be out of order by a little)
// and its owner's number in owners (varint), and every ownerMarkEvery-th
// change a mark of where it begins, so that a contention's changes
// (Interval.ownFrom to ownTo) are decoded from the mark before them.
type ownerPack struct {
	n      int
	b      []byte
	marks  []ownerMark
	owners []format.ThreadID
	// While it is packed: the owners' numbers, the last change's time.
	num  map[format.ThreadID]uint32
	prev format.Time
}

// ownerMark is where change k·ownerMarkEvery begins in ownerPack.b, and
// the time of the change before it (what its time is packed against).
type ownerMark struct {
	off  int
	prev format.Time
}

const ownerMarkEvery = 16

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
	p.marks = append(make([]ownerMark, 0, len(p.marks)), p.marks...)
	return p
}

// add packs c, the next change.
func (p *ownerPack) add(c OwnerChange) {
	if p.n%ownerMarkEvery == 0 {
		p.marks = append(p.marks, ownerMark{len(p.b), p.prev})
	}
	k, ok := p.num[c.Owner]
	if !ok {
		k = uint32(len(p.owners))
		p.num[c.Owner] = k
		p.owners = append(p.owners, c.Owner)
	}
	p.b = binary.AppendVarint(p.b, int64(c.At-p.prev))
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
	mk := p.marks[from/ownerMarkEvery]
	b, at := p.b[mk.off:], mk.prev
	for i := from / ownerMarkEvery * ownerMarkEvery; i < to; i++ {
		d, n1 := binary.Varint(b)
		k, n2 := binary.Uvarint(b[n1:])
		b = b[n1+n2:]
		at += format.Time(d)
		if i >= from {
			dst = append(dst, OwnerChange{At: at, Owner: p.owners[k]})
		}
	}
	return dst
}
