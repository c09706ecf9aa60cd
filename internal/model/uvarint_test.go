package model

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestUvarintAsBinary holds uvarint, varint and uvAt to encoding/binary's
// decoders: values of every length from 1 to 10 bytes, overlong and cut
// short encodings, at every offset of a buffer, with bytes after them or
// not (uvarintLong's bytes written out, and binary's loop).
func TestUvarintAsBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var bufs [][]byte
	for bits := 0; bits <= 64; bits++ {
		for k := 0; k < 20; k++ {
			v := rng.Uint64()
			if bits < 64 {
				v &= 1<<bits - 1
			}
			bufs = append(bufs, binary.AppendUvarint(nil, v))
		}
	}
	for k := 0; k < 2000; k++ {
		b := make([]byte, rng.IntN(14))
		for i := range b {
			b[i] = byte(rng.Uint32())
			if rng.IntN(3) > 0 {
				b[i] |= 0x80 // long runs of continued bytes
			}
		}
		bufs = append(bufs, b)
	}
	bufs = append(bufs, []byte{0x80, 0x00}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})
	for _, b := range bufs {
		for pad := 0; pad <= 9; pad++ {
			p := append(append([]byte(nil), b...), make([]byte, pad)...)
			for i := 0; i < len(p); i++ {
				wv, wn := binary.Uvarint(p[i:])
				if v, n := uvarint(p[i:]); v != wv || n != wn {
					t.Fatalf("uvarint(% x) = %d, %d, binary.Uvarint %d, %d", p[i:], v, n, wv, wn)
				}
				sv, sn := binary.Varint(p[i:])
				if v, n := varint(p[i:]); v != sv || n != sn {
					t.Fatalf("varint(% x) = %d, %d, binary.Varint %d, %d", p[i:], v, n, sv, sn)
				}
				if wn <= 0 || wn > 9 {
					continue // uvAt's own rules past binary's (decodeIvs)
				}
				if v, j := uvAt(p, i); v != wv || j != i+wn {
					t.Fatalf("uvAt(% x, %d) = %d, %d, want %d, %d", p, i, v, j, wv, i+wn)
				}
			}
		}
	}
}
