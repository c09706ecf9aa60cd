package model

import (
	"encoding/binary"
)

// uvarint is binary.Uvarint, the same value and count for every input:
// its first byte's test inlined, the next bytes' written out when b has 8
// (uvarintLong). The holders' pass reads varints by the tens of millions
// (the spans' logs, OwnerSpan.decode; the blame logs, blameReader; the
// threads' blocks, spillRef.next), many of 2–6 bytes (times in
// nanoseconds, thread IDs that are 32-bit tags), where binary.Uvarint's
// loop took ~15 instructions a byte and binary.Varint was a call.
func uvarint(b []byte) (x uint64, n int) {
	// Written so that it is inlined (the compiler's cost 79 of 80): most
	// are a byte.
	for _, c := range b {
		if c < 0x80 {
			return uint64(c), 1
		}
		break
	}
	x, n = uvarintLong(b)
	return
}

// uvarintLong is uvarint past its first byte's test: with 8 bytes in b,
// the tests of its bytes 2 to 6 written out one after the other
// (binary.Uvarint's loop also tests its index against the longest
// varint's at each byte); a longer varint, or a shorter b, by
// binary.Uvarint.
func uvarintLong(b []byte) (uint64, int) {
	if len(b) < 8 || b[0] < 0x80 {
		return binary.Uvarint(b)
	}
	all := b
	b = b[:8]
	x := uint64(b[0] & 0x7f)
	c := b[1]
	if c < 0x80 {
		return x | uint64(c)<<7, 2
	}
	x |= uint64(c&0x7f) << 7
	c = b[2]
	if c < 0x80 {
		return x | uint64(c)<<14, 3
	}
	x |= uint64(c&0x7f) << 14
	c = b[3]
	if c < 0x80 {
		return x | uint64(c)<<21, 4
	}
	x |= uint64(c&0x7f) << 21
	c = b[4]
	if c < 0x80 {
		return x | uint64(c)<<28, 5
	}
	x |= uint64(c&0x7f) << 28
	c = b[5]
	if c < 0x80 {
		return x | uint64(c)<<35, 6
	}
	return binary.Uvarint(all)
}

// varint is binary.Varint by uvarint.
func varint(b []byte) (int64, int) {
	ux, n := uvarint(b)
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x, n
}
