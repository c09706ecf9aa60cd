package jfr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// decoder reads JFR's primitive encodings from a chunk's bytes. Every read
// is bounds-checked; a failed read returns an error and leaves pos unspecified.
type decoder struct {
	b   []byte
	pos int
	end int // reads stop here (the end of the event being decoded)
}

var errShort = errors.New("data ends inside a value")

// varint reads JFR's compressed integer: little-endian groups of 7 bits with
// a continuation bit, at most 9 bytes, the 9th carrying 8 bits. Negative
// numbers are written as their 64-bit two's complement (no zigzag).
func (d *decoder) varint() (uint64, error) {
	var v uint64
	for i := 0; i < 9; i++ {
		if d.pos >= d.end {
			return 0, errShort
		}
		c := d.b[d.pos]
		d.pos++
		if i == 8 {
			return v | uint64(c)<<56, nil
		}
		v |= uint64(c&0x7F) << (7 * i)
		if c < 0x80 {
			return v, nil
		}
	}
	panic("unreachable")
}

func (d *decoder) long() (int64, error) {
	v, err := d.varint()
	return int64(v), err
}

// count reads an array length or element count and checks it against the
// bytes left, each element taking at least min bytes: a bogus count then
// costs an error, not an allocation or a long loop.
func (d *decoder) count(min int) (int, error) {
	v, err := d.varint()
	if err != nil {
		return 0, err
	}
	if v > uint64(d.end-d.pos)/uint64(min) {
		return 0, fmt.Errorf("count %d exceeds the %d bytes left", v, d.end-d.pos)
	}
	return int(v), nil
}

func (d *decoder) byte() (byte, error) {
	if d.pos >= d.end {
		return 0, errShort
	}
	c := d.b[d.pos]
	d.pos++
	return c, nil
}

func (d *decoder) fixed(n int) ([]byte, error) {
	if d.end-d.pos < n {
		return nil, errShort
	}
	b := d.b[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

// String encodings, the first byte of every java.lang.String value.
const (
	strNull   = 0
	strEmpty  = 1
	strPool   = 2 // a key into the java.lang.String constant pool
	strUTF8   = 3
	strChars  = 4 // UTF-16 code units, each a compressed int
	strLatin1 = 5
)

// str reads a string value. A pool reference comes back as ref with the key
// in key; the caller resolves it once the pools are loaded.
func (d *decoder) str() (s string, key int64, kind byte, err error) {
	kind, err = d.byte()
	if err != nil {
		return "", 0, 0, err
	}
	switch kind {
	case strNull, strEmpty:
		return "", 0, kind, nil
	case strPool:
		key, err = d.long()
		return "", key, kind, err
	case strUTF8:
		n, err := d.count(1)
		if err != nil {
			return "", 0, kind, err
		}
		b, _ := d.fixed(n)
		return mutf8String(b), 0, kind, nil
	case strLatin1:
		n, err := d.count(1)
		if err != nil {
			return "", 0, kind, err
		}
		b, _ := d.fixed(n)
		r := make([]rune, n)
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r), 0, kind, nil
	case strChars:
		n, err := d.count(1)
		if err != nil {
			return "", 0, kind, err
		}
		u := make([]uint16, n)
		for i := range u {
			c, err := d.varint()
			if err != nil {
				return "", 0, kind, err
			}
			u[i] = uint16(c)
		}
		return utf16String(u), 0, kind, nil
	}
	return "", 0, kind, fmt.Errorf("unknown string encoding %d", kind)
}

// mutf8String decodes the JVM's modified UTF-8, in which a character
// outside the BMP is two 3-byte surrogate halves (ED A0-AF xx ED B0-BF xx)
// and NUL is C0 80; anything else passes through as UTF-8.
func mutf8String(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		if i+5 < len(b) && b[i] == 0xED && b[i+1]&0xF0 == 0xA0 && b[i+3] == 0xED && b[i+4]&0xF0 == 0xB0 {
			hi := 0xD000 | rune(b[i+1]&0x3F)<<6 | rune(b[i+2]&0x3F)
			lo := 0xD000 | rune(b[i+4]&0x3F)<<6 | rune(b[i+5]&0x3F)
			out = utf8.AppendRune(out, 0x10000+(hi-0xD800)<<10+(lo-0xDC00))
			i += 6
			continue
		}
		if i+1 < len(b) && b[i] == 0xC0 && b[i+1] == 0x80 {
			out = append(out, 0)
			i += 2
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		out = utf8.AppendRune(out, r)
		i += n
	}
	return string(out)
}

// utf16String decodes UTF-16 code units; unpaired surrogates become U+FFFD.
func utf16String(u []uint16) string {
	b := make([]byte, 0, len(u))
	for i := 0; i < len(u); i++ {
		r := rune(u[i])
		if r >= 0xD800 && r < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000 {
			r = 0x10000 + (r-0xD800)<<10 + rune(u[i+1]-0xDC00)
			i++
		} else if r >= 0xD800 && r < 0xE000 {
			r = utf8.RuneError
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// be64 reads a big-endian signed 64-bit number (the chunk header's fields).
func be64(b []byte) int64 { return int64(binary.BigEndian.Uint64(b)) }

// float32bits / float64bits read JFR's float and double: big-endian IEEE.
func (d *decoder) float32bits() (uint64, error) {
	b, err := d.fixed(4)
	if err != nil {
		return 0, err
	}
	return uint64(binary.BigEndian.Uint32(b)), nil
}

func (d *decoder) float64bits() (uint64, error) {
	b, err := d.fixed(8)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(b), nil
}
