package model

import (
	"encoding/binary"
	"math"
	"math/bits"
	"runtime"
	"slices"

	"orca/internal/format"
)

// The threads' intervals in the spill (spillIvs) are packed, not written
// as they are in memory (72 bytes each): most of their fields are 0,
// small, or close to the interval's before, and c1G's 26 M intervals were
// 1.86 GB of the spill's 4 GB, read back ~2.5 times (the holders' pass,
// the report's readers); c5G-slow5's passed the page cache
// (docs/perf/2026-12-04-spill-ivs.md). Packed, one is ~19 bytes.
//
// A run of intervals packed at once (a chunk: Builder.spillFed's) is a
// uvarint of their count, then each interval, each against the one before
// it in the chunk (the first against the zero Interval), so that a chunk
// decodes alone, and a block of the spill (chunks one after the other in
// the file, spillFile.addTo) decodes from its start. An interval is:
//
//	h0     State (3 bits) | Wake<<3 (4 bits) | ext<<7
//	h1     Timeout (2 bits) | obj<<2 | other<<3 | first<<4 (2 bits) | own<<6 | Acquire<<7
//	[ext]  Cont | Open<<1 | Forced<<2 | Pinned<<3 | SelfJoin<<4 | BeforeEvents<<5 | Restated<<6 | more<<7
//	[more] since | objNum<<1 | otherWide<<2 | firstWide<<3 | raw<<4
//	[raw]  State, Wake, Timeout, a byte each (when one does not fit its bits)
//	lens   lenCode(start's bytes) | lenCode(end's)<<3 | stackCode<<6
//	start  zigzag(Start - the interval before's End), its bytes (0–8, little endian)
//	end    End - Start (as uint64: any End comes back), likewise
//	[since]  uvarint zigzag(Start - Since)
//	[obj]    Object, 4 bytes
//	[objNum] uvarint objNum
//	[other]  Other, 4 bytes (8 when otherWide)
//	first: 0 First is 0, 1 First is Other, 2 First follows: 4 bytes (8 when firstWide)
//	[own]    uvarint ownFrom, uvarint zigzag(ownTo - ownFrom)
//	stack  Stack, 0, 1, 2 or 4 bytes (stackCode 0–3)
//
// The three fields every interval has are not varints but their bytes,
// their lengths in lens (lenCode: 0–6 bytes as they are, 7 for 8): a
// varint is read a byte at a time, a test, a mask and a shift each, and
// the holders' pass reads every thread's intervals twice (the times in
// nanoseconds, several bytes each): about half the decoder's instructions
// were its varints' (cachegrind, foldcost.sh;
// docs/perf/2026-12-05-holders-decode.md). The rarer fields stay varints.
//
// Every field comes back as it was (TestIvCodec), the unexported ones
// too: the holders' pass reads ownFrom and ownTo.

// ivPackMax is the most bytes an interval packs into (each of its
// fixed-width fields written 8 bytes wide, then cut: appendIv).
const ivPackMax = 2 + 2 + 3 + 1 + 8 + 8 + 10 + 4 + 5 + 8 + 8 + 5 + 10 + 8

// ivPackMin is the fewest bytes an interval packs into: h0, h1 and lens.
const ivPackMin = 3

// lenBytes is the bytes lens' 3-bit codes of start and end stand for,
// stackBytes its 2-bit code of stack's.
var (
	lenBytes   = [8]int{0, 1, 2, 3, 4, 5, 6, 8}
	stackBytes = [4]int{0, 1, 2, 4}
)

// lenMask keeps the low n bytes of a uint64.
var lenMask = [9]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff, 0xffffffffffff, 0xffffffffffffff, math.MaxUint64}

// lenCode is the code of x's bytes in lens, and how many it writes.
func lenCode(x uint64) (byte, int) {
	n := (bits.Len64(x) + 7) >> 3
	if n >= 7 {
		return 7, 8
	}
	return byte(n), n
}

// stackCode is the code of stack's bytes in lens, and how many it writes.
func stackCode(x StackID) (byte, int) {
	switch {
	case x == 0:
		return 0, 0
	case x <= 0xff:
		return 1, 1
	case x <= 0xffff:
		return 2, 2
	}
	return 3, 4
}

// fixedAt reads the n bytes (0–8) at p[i:], little endian, and returns
// them and the index after; past p's end it panics (decodeIvs recovers).
func fixedAt(p []byte, i, n int) (uint64, int) {
	if len(p)-i >= 8 {
		return binary.LittleEndian.Uint64(p[i:]) & lenMask[n], i + n
	}
	return fixedShort(p, i, n)
}

// fixedShort is fixedAt within 8 bytes of p's end.
func fixedShort(p []byte, i, n int) (uint64, int) {
	if n > len(p)-i {
		panic(errIvs) // p[i:i+n] would read past len(p) up to cap(p)
	}
	var x uint64
	for k, c := range p[i : i+n] {
		x |= uint64(c) << (8 * k)
	}
	return x, i + n
}

const (
	ivExt       = 1 << 7 // h0
	ivObj       = 1 << 2 // h1
	ivOther     = 1 << 3
	ivFirstOne  = 1 << 4 // First is Other
	ivFirstSet  = 2 << 4 // First follows
	ivFirstMask = 3 << 4
	ivOwn       = 1 << 6
	ivAcquire   = 1 << 7
	ivMore      = 1 << 7 // ext
	ivSince     = 1 << 0 // more
	ivObjNum    = 1 << 1
	ivOtherWide = 1 << 2
	ivFirstWide = 1 << 3
	ivRaw       = 1 << 4
)

// putThreadID puts id into b, 8 bytes when wide, else 4, and returns how
// many.
func putThreadID(b []byte, id format.ThreadID, wide bool) int {
	if wide {
		binary.LittleEndian.PutUint64(b, uint64(id))
		return 8
	}
	binary.LittleEndian.PutUint32(b, uint32(id))
	return 4
}

// threadIDAt reads the id putThreadID put at p[i:], and the index after it.
func threadIDAt(p []byte, i int, wide bool) (format.ThreadID, int) {
	if wide {
		return format.ThreadID(binary.LittleEndian.Uint64(p[i:])), i + 8
	}
	return format.ThreadID(binary.LittleEndian.Uint32(p[i:])), i + 4
}

func zigzag(x int64) uint64   { return uint64(x<<1) ^ uint64(x>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// appendIvChunk appends the chunk of ivs to dst.
func appendIvChunk(dst []byte, ivs []Interval) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ivs)))
	prevEnd := format.Time(0)
	for i := range ivs {
		dst = appendIv(dst, &ivs[i], prevEnd)
		prevEnd = ivs[i].End
	}
	return dst
}

// appendIv appends iv packed, after an interval that ended at prevEnd.
func appendIv(dst []byte, iv *Interval, prevEnd format.Time) []byte {
	h0 := byte(iv.State&7) | byte(iv.Wake&15)<<3
	h1 := byte(iv.Timeout&3) | b2u(iv.Acquire)<<7
	ext := b2u(iv.Cont) | b2u(iv.Open)<<1 | b2u(iv.Forced)<<2 | b2u(iv.Pinned)<<3 |
		b2u(iv.SelfJoin)<<4 | b2u(iv.BeforeEvents)<<5 | b2u(iv.Restated)<<6
	var more byte
	if iv.State > 7 || iv.Wake > 15 || iv.Timeout > 3 {
		more |= ivRaw
	}
	if iv.Since != iv.Start {
		more |= ivSince
	}
	if iv.Object != 0 {
		h1 |= ivObj
	}
	if iv.objNum != 0 {
		more |= ivObjNum
	}
	if iv.Other != 0 {
		h1 |= ivOther
		if iv.Other > 0xffffffff {
			more |= ivOtherWide
		}
	}
	switch {
	case iv.First == 0:
	case iv.First == iv.Other:
		h1 |= ivFirstOne
	default:
		h1 |= ivFirstSet
		if iv.First > 0xffffffff {
			more |= ivFirstWide
		}
	}
	if iv.ownFrom != 0 || iv.ownTo != 0 {
		h1 |= ivOwn
	}
	if more != 0 {
		ext |= ivMore
	}
	// Written into room for the most an interval takes, then cut.
	n := len(dst)
	dst = slices.Grow(dst, ivPackMax)[:n+ivPackMax]
	b := dst[n:]
	w := 2
	if ext != 0 {
		h0 |= ivExt
		b[2] = ext
		w = 3
		if more != 0 {
			b[3] = more
			w = 4
			if more&ivRaw != 0 {
				b[4], b[5], b[6] = byte(iv.State), byte(iv.Wake), byte(iv.Timeout)
				w = 7
			}
		}
	}
	b[0], b[1] = h0, h1
	sv, ev := zigzag(int64(iv.Start-prevEnd)), uint64(iv.End-iv.Start)
	sc, sn := lenCode(sv)
	ec, en := lenCode(ev)
	kc, kn := stackCode(iv.Stack)
	b[w] = sc | ec<<3 | kc<<6
	w++
	binary.LittleEndian.PutUint64(b[w:], sv)
	w += sn
	binary.LittleEndian.PutUint64(b[w:], ev)
	w += en
	if more&ivSince != 0 {
		w += binary.PutUvarint(b[w:], zigzag(int64(iv.Start-iv.Since)))
	}
	if h1&ivObj != 0 {
		binary.LittleEndian.PutUint32(b[w:], uint32(iv.Object))
		w += 4
	}
	if more&ivObjNum != 0 {
		w += binary.PutUvarint(b[w:], uint64(iv.objNum))
	}
	if h1&ivOther != 0 {
		w += putThreadID(b[w:], iv.Other, more&ivOtherWide != 0)
	}
	if h1&ivFirstMask == ivFirstSet {
		w += putThreadID(b[w:], iv.First, more&ivFirstWide != 0)
	}
	if h1&ivOwn != 0 {
		w += binary.PutUvarint(b[w:], uint64(iv.ownFrom))
		w += binary.PutUvarint(b[w:], zigzag(int64(iv.ownTo)-int64(iv.ownFrom)))
	}
	binary.LittleEndian.PutUint32(b[w:], uint32(iv.Stack))
	w += kn
	return dst[:n+w]
}

// errIvs is a block of intervals read back that does not decode.
var errIvs = spillErr("intervals read back from the model's temporary file do not decode")

// uvAt reads the uvarint at p[i:] and returns it and the index after it;
// past p's end it panics (decodeIvs recovers).
func uvAt(p []byte, i int) (uint64, int) {
	if x := p[i]; x < 0x80 {
		return uint64(x), i + 1
	}
	return uvAtLong(p, i)
}

func uvAtLong(p []byte, i int) (uint64, int) {
	var x uint64
	for s := uint(0); s < 64; s += 7 {
		b := p[i]
		i++
		if b < 0x80 {
			return x | uint64(b)<<s, i
		}
		x |= uint64(b&0x7f) << s
	}
	panic(errIvs) // longer than a uint64's
}

// decodeIvRun decodes the len(ivs) intervals at p[i:] into ivs (every
// field set), the first after an interval that ended at prevEnd, and
// returns the index after them; past p's end it panics (decodeIvs
// recovers). A run at a call, not an interval a call: decodeIvs' loop
// about the call of each was ~50 instructions an interval beside its
// decode's ~330 (cachegrind, foldcost.sh).
func decodeIvRun(ivs []Interval, p []byte, i int, prevEnd format.Time) int {
	for k := range ivs {
		iv := &ivs[k]
		h0, h1 := p[i], p[i+1]
		i += 2
		var ext, more byte
		st, wk, to := State(h0&7), Wake(h0>>3&15), Timeout(h1&3)
		if h0&ivExt != 0 {
			ext = p[i]
			i++
			if ext&ivMore != 0 {
				more = p[i]
				i++
				if more&ivRaw != 0 {
					st, wk, to = State(p[i]), Wake(p[i+1]), Timeout(p[i+2])
					i += 3
				}
			}
		}
		lens := p[i]
		var x uint64
		x, i = fixedAt(p, i+1, lenBytes[lens&7])
		start := prevEnd + format.Time(unzigzag(x))
		x, i = fixedAt(p, i, lenBytes[lens>>3&7])
		end, since := start+format.Time(x), start
		if more&ivSince != 0 {
			x, i = uvAt(p, i)
			since = start - format.Time(unzigzag(x))
		}
		var obj format.ObjectID
		if h1&ivObj != 0 {
			obj = format.ObjectID(binary.LittleEndian.Uint32(p[i:]))
			i += 4
		}
		var num uint32
		if more&ivObjNum != 0 {
			x, i = uvAt(p, i)
			num = uint32(x)
		}
		var other, first format.ThreadID
		if h1&ivOther != 0 {
			other, i = threadIDAt(p, i, more&ivOtherWide != 0)
		}
		switch h1 & ivFirstMask {
		case ivFirstOne:
			first = other
		case ivFirstSet:
			first, i = threadIDAt(p, i, more&ivFirstWide != 0)
		case ivFirstMask:
			panic(errIvs)
		}
		var from, upto uint32
		if h1&ivOwn != 0 {
			x, i = uvAt(p, i)
			from = uint32(x)
			x, i = uvAt(p, i)
			upto = uint32(int64(from) + unzigzag(x))
		}
		x, i = fixedAt(p, i, stackBytes[lens>>6])
		*iv = Interval{
			Start: start, End: end, Since: since, Object: obj, objNum: num, Other: other, First: first,
			Stack: StackID(x), ownFrom: from, ownTo: upto,
			State: st, Wake: wk, Acquire: h1&ivAcquire != 0, Timeout: to,
		}
		if ext != 0 {
			// Its flags, set on few intervals (every one false without ext).
			iv.Cont, iv.Open, iv.Forced, iv.Pinned = ext&1 != 0, ext&2 != 0, ext&4 != 0, ext&8 != 0
			iv.SelfJoin, iv.BeforeEvents, iv.Restated = ext&16 != 0, ext&32 != 0, ext&64 != 0
		}
		prevEnd = end
	}
	return i
}

// decodeIvs appends to dst the intervals of the block p (chunks one after
// the other) from the skip-th on, at most want of them (want < 0: all); it
// stops decoding once it has them. A block that does not decode (cut
// short, or not one) is an error.
func decodeIvs(dst []Interval, p []byte, skip, want int) (_ []Interval, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(runtime.Error); !ok && r != errIvs {
				panic(r)
			}
			err = errIvs
		}
	}()
	var tmp [1]Interval
	for i := 0; i < len(p) && want != 0; {
		var u uint64
		u, i = uvAt(p, i)
		grow := u
		if want >= 0 {
			grow = min(u, uint64(want))
		}
		if grow > uint64(len(p)-i)/ivPackMin {
			// More than the bytes left hold: dst is grown by the
			// count at once (a run), not as the intervals decode. Of
			// a run's first few (want), the bytes may be the run's
			// start alone (Model.blockStart).
			return dst, errIvs
		}
		n := int(u)
		prevEnd := format.Time(0)
		for ; n > 0 && skip > 0; n, skip = n-1, skip-1 {
			i = decodeIvRun(tmp[:], p, i, prevEnd)
			prevEnd = tmp[0].End
		}
		if want >= 0 {
			n = min(n, want)
			want -= n
		}
		if n > 0 {
			at := len(dst)
			dst = slices.Grow(dst, n)[:at+n]
			i = decodeIvRun(dst[at:], p, i, prevEnd)
		}
	}
	if want > 0 {
		return dst, errIvs // fewer than asked
	}
	return dst, nil
}
