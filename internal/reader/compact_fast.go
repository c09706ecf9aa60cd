package reader

import (
	"encoding/binary"
	"math/bits"

	"orca/internal/format"
)

// The compact reader's fast path (issue 34: ≥ 10 M events a CPU-second).
// An event record of a kind the reader knows, laid out as its own table
// says, is decoded by decodeOwn (compact_kinds.go, generated from the
// table): one decoder a layout, no dispatch per field, its bounds checked
// once, a value's 1–2 bytes decoded inline. Anything else it leaves to
// decodeEvent, which decodes what decodeOwn decodes the same (the records
// of every kind: TestCompactFastSame), and says what is wrong with the rest.

// compactFast turns the fast path on in the decoders made after it is set
// (a variable for tests: off, every record is decoded by decodeEvent and
// every stack record decoded again).
var compactFast = true

// uvAt decodes the uv at b[i:], where at least 10 bytes are, and returns
// the index after it; a malformed one sets *bad. (decodeOwn has its 1–2
// bytes inline.)
func uvAt(b []byte, i int, bad *bool) (uint64, int) {
	if c := b[i]; c < 0x80 {
		return uint64(c), i + 1
	}
	return uvLong(b, i, bad)
}

// uvLong is uvAt for a value of 2 bytes or more, as dec.uv decodes it: it
// reads at most 10 bytes.
//
//go:noinline
func uvLong(b []byte, i int, bad *bool) (uint64, int) {
	if b := b[i : i+3]; b[1] < 0x80 {
		return uint64(b[0]&0x7F) | uint64(b[1])<<7, i + 2
	} else if b[2] < 0x80 {
		return uint64(b[0]&0x7F) | uint64(b[1]&0x7F)<<7 | uint64(b[2])<<14, i + 3
	}
	var v uint64
	for s := 0; s < 70; s += 7 {
		c := b[i]
		i++
		if s == 63 && c > 1 {
			break
		}
		v |= uint64(c&0x7F) << s
		if c < 0x80 {
			return v, i
		}
	}
	*bad = true
	return 0, i
}

// textAt decodes the text at b[i:] (a uv length, its bytes), of which rest
// bytes at least must be left after it; a malformed one, or one that b does
// not hold with rest after it, sets *bad.
func (r *compactRecords) textAt(b []byte, i, rest int, bad *bool) (string, int) {
	n, i := uvAt(b, i, bad)
	if *bad || n > uint64(len(b)-i-rest) {
		*bad = true
		return "", i
	}
	return r.intern(b[i : i+int(n)]), i + int(n)
}

// Texts (thread names, class signatures) are kept by their bytes, so that
// a name repeated is not allocated again: a decoder keeps at most
// maxInterned of them, of at most maxInternLen bytes.
const (
	maxInterned  = 4096
	maxInternLen = 256
)

// intern returns b as a string, the same one each time while it is kept.
func (r *compactRecords) intern(b []byte) string {
	if len(b) > maxInternLen {
		return string(b)
	}
	if s, ok := r.texts[string(b)]; ok {
		return s
	}
	if r.texts == nil || len(r.texts) >= maxInterned {
		r.texts = make(map[string]string, maxInterned/4)
	}
	s := string(b)
	r.texts[s] = s
	return s
}

// own ends the decoding of an event record by decodeOwn, as decodeEvent
// does: its thread, time and stack by the chunk's definitions. It returns
// false, having changed nothing but *ev, where decodeEvent would refuse
// the record.
func (r *compactRecords) own(ev *Event, delta int64, th, stack uint64) bool {
	if !r.inChunk || th-1 >= uint64(len(r.threads)) || stack > uint64(len(r.stacks)) {
		return false
	}
	t := int64(r.prev) + delta
	if (delta > 0 && t < int64(r.prev)) || t < 0 {
		return false
	}
	ev.Thread = r.threads[th-1]
	r.timed(ev, format.Time(t), stack)
	return true
}

// timed gives ev its time t and its stack (stack, defined in the chunk;
// 0: none), and counts it in the chunk's records and time range.
func (r *compactRecords) timed(ev *Event, t format.Time, stack uint64) {
	ev.Time = t
	if stack > 0 {
		s := &r.stacks[stack-1]
		if r.sc != nil {
			if s.stamp != r.sc.stamp {
				s.cfr, s.local = r.sc.number(s.ent)
				s.stamp = r.sc.stamp
			}
			ev.Stack, ev.StackID = s.cfr, s.local
		} else {
			ev.Stack = s.frames
		}
	}
	r.prev = ev.Time
	r.records++
	r.lo, r.hi = min(r.lo, ev.Time), max(r.hi, ev.Time)
}

// varintsEnd returns the index after the n varints at b[i:] (n > 0),
// counting their last bytes (below 0x80), or -1 when b ends before them.
// It does not check them: a varint longer than 10 bytes counts as one.
func varintsEnd(b []byte, i, n int) int {
	const high = 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		m := ^binary.LittleEndian.Uint64(b[i:]) & high // the last bytes' high bits
		c := bits.OnesCount64(m)
		if c < n {
			n -= c
			continue
		}
		for ; n > 1; n-- {
			m &= m - 1
		}
		return i + bits.TrailingZeros64(m)>>3 + 1
	}
	for ; i < len(b); i++ {
		if b[i] < 0x80 {
			if n--; n == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// uv3 decodes the uv whose first bytes are x's low ones (little-endian,
// as read at its first byte) when it has 1–3 bytes, without a branch: it
// returns its value and length, or a length of 4 when it is longer (then
// uvLong decodes it). Two thirds of the time deltas and half the thread
// indexes of a recording take 2 bytes, the rest mostly 1: a branch on the
// length was mispredicted about once an event field.
func uv3(x uint32) (uint64, int) {
	n := bits.TrailingZeros32(^x&0x808080|0x80000000)>>3 + 1
	v := x&0x7F | x>>1&0x3F80 | x>>2&0x1FC000
	return uint64(v & uv3Mask[n&3]), n
}

// uv3Mask keeps a uv's value bits by its length (uv3's n, 1–3).
var uv3Mask = [4]uint32{0x7F, 0x7F, 0x3FFF, 0x1FFFFF}
