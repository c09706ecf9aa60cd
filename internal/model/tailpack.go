package model

import (
	"encoding/binary"
	"unsafe"

	"orca/internal/format"
)

// A thread's tail (Thread.tail, Model.TailOf) is kept packed: every
// thread ever seen has one in a Model built with Options.DropIntervals
// (1.33 M at 5 GB), an interval or two, which as Intervals were 72 bytes
// each in an array of their own (0.10 GB at 5 GB, at the fold's end and
// in the report's making: issue 34). Packed, an interval is ~25 bytes,
// the tails one after the other in the Builder's blocks (tailBlock).

// tailBlock is the size of a block of packed tails: a tail that does not
// fit in what is left of one begins the next (one larger than it alone).
const tailBlock = 64 << 10

// The bits of an interval's flags word, below its State, Wake and Timeout.
const (
	tailCont = 1 << iota
	tailOpen
	tailForced
	tailPinned
	tailSelfJoin
	tailAcquire
	tailBeforeEvents
	tailRestated
)

// An Interval is packed field by field (packTail): one more field would be
// lost in the tails, unless packed too. The size checks it (a compile
// error otherwise: the index is out of range), TestTailPack each field.
var _ = [1]struct{}{}[unsafe.Sizeof(Interval{})-72]

// appendTail appends ivs packed to dst.
func appendTail(dst []byte, ivs []Interval) []byte {
	for i := range ivs {
		iv := &ivs[i]
		f := uint64(iv.State)<<8 | uint64(iv.Wake)<<16 | uint64(iv.Timeout)<<24
		for _, b := range [...]struct {
			on  bool
			bit uint64
		}{{iv.Cont, tailCont}, {iv.Open, tailOpen}, {iv.Forced, tailForced}, {iv.Pinned, tailPinned},
			{iv.SelfJoin, tailSelfJoin}, {iv.Acquire, tailAcquire}, {iv.BeforeEvents, tailBeforeEvents}, {iv.Restated, tailRestated}} {
			if b.on {
				f |= b.bit
			}
		}
		dst = binary.AppendUvarint(dst, f)
		dst = binary.AppendVarint(dst, int64(iv.Start))
		dst = binary.AppendVarint(dst, int64(iv.End-iv.Start))
		dst = binary.AppendVarint(dst, int64(iv.Start-iv.Since))
		dst = binary.AppendUvarint(dst, uint64(iv.Object))
		dst = binary.AppendUvarint(dst, uint64(iv.Other))
		dst = binary.AppendUvarint(dst, uint64(iv.First))
		dst = binary.AppendUvarint(dst, uint64(iv.Stack))
		dst = binary.AppendUvarint(dst, uint64(iv.ownFrom))
		dst = binary.AppendUvarint(dst, uint64(iv.ownTo))
	}
	return dst
}

// packReader reads the varints of a packed record from its start on.
type packReader []byte

// u reads an unsigned varint.
func (r *packReader) u() uint64 {
	v, n := uvarint(*r)
	*r = (*r)[n:]
	return v
}

// s reads a signed varint.
func (r *packReader) s() int64 {
	v, n := varint(*r)
	*r = (*r)[n:]
	return v
}

// unpackTail appends to dst the intervals packed in p (appendTail).
func unpackTail(dst []Interval, p []byte) []Interval {
	r := packReader(p)
	u, s := r.u, r.s
	for len(r) > 0 {
		f := u()
		var iv Interval
		iv.State, iv.Wake, iv.Timeout = State(f>>8), Wake(f>>16), Timeout(f>>24)
		iv.Cont, iv.Open, iv.Forced, iv.Pinned = f&tailCont != 0, f&tailOpen != 0, f&tailForced != 0, f&tailPinned != 0
		iv.SelfJoin, iv.Acquire, iv.BeforeEvents, iv.Restated = f&tailSelfJoin != 0, f&tailAcquire != 0, f&tailBeforeEvents != 0, f&tailRestated != 0
		iv.Start = format.Time(s())
		iv.End = iv.Start + format.Time(s())
		iv.Since = iv.Start - format.Time(s())
		iv.Object = format.ObjectID(u())
		iv.Other = format.ThreadID(u())
		iv.First = format.ThreadID(u())
		iv.Stack = StackID(u())
		iv.ownFrom = uint32(u())
		iv.ownTo = uint32(u())
		dst = append(dst, iv)
	}
	return dst
}

// keepTail packs ivs as t's tail, in b's block of tails.
func (b *Builder) keepTail(t *Thread, ivs []Interval) {
	b.tailScratch = appendTail(b.tailScratch[:0], ivs)
	t.tail, t.tailN = unsafe.SliceData(keepIn(&b.tailBuf, b.tailScratch)), uint32(len(b.tailScratch))
}

// keep returns a copy of p in b's blocks of lists (nil for none): its
// capacity its length, so that an append to it copies it first. The
// threads' lists of spill blocks once complete (finishThread) are kept
// so, ~20 bytes for every thread ever seen, which as an allocation each
// were rounded up to the next size class.
func (b *Builder) keep(p []byte) []byte { return keepIn(&b.listBuf, p) }

// keepIn returns a copy of p in the blocks *buf is the last of (nil for
// none), its capacity its length. The tails' blocks are apart from the
// lists' (Builder.keep): the tails are let go before the lists
// (Model.LetGoTails).
func keepIn(buf *[]byte, p []byte) []byte {
	n := len(p)
	if n == 0 {
		return nil
	}
	if cap(*buf)-len(*buf) < n {
		*buf = make([]byte, 0, max(tailBlock, n))
	}
	at := len(*buf)
	*buf = append(*buf, p...)
	return (*buf)[at : at+n : at+n]
}

// tails appends t's tail to dst.
func (t *Thread) tails(dst []Interval) []Interval {
	if t.tail == nil {
		return dst
	}
	return unpackTail(dst, unsafe.Slice(t.tail, t.tailN))
}
