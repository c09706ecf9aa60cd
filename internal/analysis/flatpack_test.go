package analysis

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// TestPackFlat: a bucket's starts and ends packed (packFlat, as order
// writes them to the spill) unpack to the same records (unpackFlat, as
// the sweep reads them back), whatever their fields: times out of order,
// threads and places apart by up to 2^31 either way, to with srcBit,
// empty buckets; and bytes more, fewer, or a varint cut fail.
func TestPackFlat(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	i32 := func() int32 {
		switch rng.Intn(3) {
		case 0:
			return int32(rng.Intn(100))
		case 1:
			return math.MinInt32 + int32(rng.Intn(3))
		}
		return int32(rng.Uint32())
	}
	var b []byte
	for range 3000 {
		fs := make([]flatStart, rng.Intn(20))
		fe := make([]flatEnd, rng.Intn(20))
		a := uint32(0)
		for i := range fs {
			if rng.Intn(4) > 0 {
				a += uint32(rng.Intn(1000))
			} else {
				a = rng.Uint32()
			}
			fs[i] = flatStart{a: a, from: i32(), to: rng.Uint32(), lk: uint32(i32())}
		}
		for i := range fe {
			fe[i] = flatEnd{b: rng.Uint32(), from: i32(), e: i32()}
		}
		b = packFlat(b[:0], fs, fe)
		gs, ge := make([]flatStart, len(fs)), make([]flatEnd, len(fe))
		if !unpackFlat(b, gs, ge) || !slices.Equal(gs, fs) || !slices.Equal(ge, fe) {
			t.Fatalf("packed and unpacked:\n%v %v\nwant\n%v %v", gs, ge, fs, fe)
		}
		if len(b) > 0 {
			if unpackFlat(b[:len(b)-1], gs, ge) {
				t.Fatal("a bucket cut short unpacked")
			}
			if unpackFlat(append(b, 0), gs, ge) {
				t.Fatal("a bucket with a byte more unpacked")
			}
		}
	}
	if unpackFlat([]byte{0x80}, make([]flatStart, 1), nil) {
		t.Fatal("a cut varint unpacked")
	}
}
