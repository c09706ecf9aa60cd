package model

import (
	"math"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"orca/internal/format"
)

// randIv is an interval whose every field is random: small, 0, equal to
// another, or anything of its type (extremes included), for TestIvCodec.
func randIv(rng *rand.Rand, prev *Interval) Interval {
	u64 := func() uint64 {
		switch rng.Intn(6) {
		case 0:
			return 0
		case 1:
			return math.MaxUint64 - uint64(rng.Intn(3))
		case 2:
			return uint64(rng.Intn(300))
		case 3:
			return uint64(1)<<63 + uint64(rng.Intn(3)) - 1
		case 4:
			return uint64(rng.Uint32())
		}
		return rng.Uint64()
	}
	tm := func() format.Time {
		if rng.Intn(3) > 0 {
			return prev.End + format.Time(rng.Intn(1<<30)-1<<20) // near the one before: backwards too
		}
		return format.Time(u64())
	}
	b := func() bool { return rng.Intn(4) == 0 }
	iv := Interval{
		Start: tm(), Object: format.ObjectID(u64()), objNum: uint32(u64()),
		Other: format.ThreadID(u64()), First: format.ThreadID(u64()), Stack: StackID(u64()),
		ownFrom: uint32(u64()), ownTo: uint32(u64()),
		State: State(rng.Intn(int(NumStates))), Wake: Wake(rng.Intn(int(NumWakes))), Timeout: Timeout(rng.Intn(3)),
		Cont: b(), Open: b(), Forced: b(), Pinned: b(), SelfJoin: b(), Acquire: b(), BeforeEvents: b(), Restated: b(),
	}
	switch rng.Intn(3) {
	case 0:
		iv.End = iv.Start + format.Time(rng.Intn(1<<20))
	case 1:
		iv.End = tm()
	default:
		iv.End = format.Time(u64())
	}
	iv.Since = iv.Start
	if rng.Intn(3) == 0 {
		iv.Since = tm()
	}
	if rng.Intn(3) == 0 {
		iv.First = iv.Other
	}
	if rng.Intn(8) == 0 { // out of their kinds' range: kept all the same
		iv.State, iv.Wake, iv.Timeout = State(rng.Intn(256)), Wake(rng.Intn(256)), Timeout(rng.Intn(256))
	}
	if rng.Intn(4) == 0 {
		iv.ownFrom, iv.ownTo = 0, 0
	}
	return iv
}

// TestIvCodec: intervals packed (appendIvChunk, ivcodec.go) come back as
// they were, every field, the unexported ones too: random ones (every
// field anything of its type, times backwards, End before Start), the
// zero Interval, one of every field at its largest; chunks one after the
// other in a block, read whole or from any place on (decodeIvs' skip and
// want, Builder.readSpilled's); and a block cut short, or one with a
// byte changed, is an error, never a panic.
func TestIvCodec(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	maxIv := Interval{
		Start: math.MaxInt64, End: math.MinInt64, Since: math.MinInt64, Object: math.MaxUint32, objNum: math.MaxUint32,
		Other: math.MaxUint64, First: math.MaxUint64 - 1, Stack: math.MaxUint32, ownFrom: math.MaxUint32, ownTo: 0,
		State: 255, Cont: true, Open: true, Wake: 255, Forced: true, Pinned: true, SelfJoin: true, Acquire: true,
		BeforeEvents: true, Restated: true, Timeout: 255,
	}
	for round := range 3000 {
		var all []Interval
		var p []byte
		for range 1 + rng.Intn(4) { // chunks
			var ivs []Interval
			prev := Interval{}
			for range rng.Intn(40) {
				iv := randIv(rng, &prev)
				switch rng.Intn(20) {
				case 0:
					iv = Interval{}
				case 1:
					iv = maxIv
				}
				ivs = append(ivs, iv)
				prev = iv
			}
			p = appendIvChunk(p, ivs)
			all = append(all, ivs...)
		}
		got, err := decodeIvs(nil, p, 0, -1)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(got) != len(all) {
			t.Fatalf("round %d: %d intervals back, %d packed", round, len(got), len(all))
		}
		for i := range all {
			if got[i] != all[i] {
				t.Fatalf("round %d, interval %d: back %+v, packed %+v", round, i, got[i], all[i])
			}
		}
		if len(all) > 0 {
			from := rng.Intn(len(all))
			n := 1 + rng.Intn(len(all)-from)
			got, err := decodeIvs(make([]Interval, 0, 1), p, from, n)
			if err != nil || len(got) != n {
				t.Fatalf("round %d: [%d, %d) of %d: %d back, %v", round, from, from+n, len(all), len(got), err)
			}
			for i := range got {
				if got[i] != all[from+i] {
					t.Fatalf("round %d: interval %d from %d: back %+v, packed %+v", round, i, from, got[i], all[from+i])
				}
			}
			if _, err := decodeIvs(nil, p, from, len(all)-from+1); err == nil {
				t.Fatalf("round %d: one more than packed asked, and no error", round)
			}
			// Cut short: an error (or, cut between chunks, fewer back).
			cut := rng.Intn(len(p))
			got, err = decodeIvs(nil, p[:cut], 0, -1)
			if err == nil && len(got) >= len(all) {
				t.Fatalf("round %d: cut at %d of %d bytes, all %d back", round, cut, len(p), len(got))
			}
			// A byte changed: no panic (anything back).
			q := append([]byte(nil), p...)
			q[rng.Intn(len(q))] = byte(rng.Intn(256))
			decodeIvs(nil, q, 0, -1)
		}
	}
}

// TestIvCodecSize: the synthetic recordings' usual intervals (a contended
// monitor with its owner as First and Other, a park of a j.u.c. lock's
// acquire, ~1 ms apart), a chunk of 256 as spillFed writes them, pack
// into at most 24 bytes each (21), not 72.
func TestIvCodecSize(t *testing.T) {
	var ivs []Interval
	at := format.Time(1_000_000_000_000)
	for i := range 256 {
		iv := Interval{Start: at, End: at + 200_000, Object: format.ObjectID(0x7a3b9c1d + i*7919), Other: format.ThreadID(0x194ED9E1 + i), Stack: StackID(12345 + i%5000), State: Blocked, Timeout: TimeoutNone}
		if i%2 == 0 {
			iv.First, iv.ownFrom, iv.ownTo = iv.Other, uint32(70000+i), uint32(70003+i)
		} else {
			iv.State, iv.Wake, iv.Acquire = Parked, WakeUnpark, true
		}
		iv.Since = iv.Start
		ivs = append(ivs, iv)
		at += 1_300_000
	}
	p := appendIvChunk(nil, ivs)
	if per := float64(len(p)) / float64(len(ivs)); per > 24 {
		t.Errorf("%.1f bytes an interval packed, want at most 24", per)
	} else {
		t.Logf("%.1f bytes an interval packed", per)
	}
}

// TestReadSpilled: Builder.readSpilled reads any range [from, to) of a
// thread's intervals back, packed in blocks among other threads' and
// other kinds' (some blocks grown by the next chunk, some not), those
// still in the write buffer too: each block that holds some decoded from
// its start, those before from in it skipped. Fails with the skip left
// out (from taken as a block's start) or a block's count wrong.
func TestReadSpilled(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	s, err := openSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.buf = make([]byte, 0, 4<<10) // a small buffer: many reads from the file, some from it
	b := New()
	b.spill = s
	th, other := &Thread{ID: 1}, &Thread{ID: 2}
	var all []Interval
	prev := Interval{}
	for range 200 {
		var ivs []Interval
		for range 1 + rng.Intn(30) {
			iv := randIv(rng, &prev)
			ivs = append(ivs, iv)
			prev = iv
		}
		s.addCount(&th.spill, spillIvs, appendIvChunk(nil, ivs), int64(len(ivs)))
		all = append(all, ivs...)
		switch rng.Intn(3) {
		case 0: // the next chunk grows this block
		case 1:
			s.addTo(&other.spill, spillSmp, make([]byte, 1+rng.Intn(100)))
		default:
			s.addTo(&th.spill, spillBlame, make([]byte, 1+rng.Intn(100)))
		}
	}
	if got := th.spill.count(spillIvs); got != int64(len(all)) {
		t.Fatalf("%d intervals counted, %d written", got, len(all))
	}
	if n := len(th.spill.of(spillIvs)); n < 20 || n > 190 {
		t.Fatalf("%d blocks of intervals: want some grown, some not", n)
	}
	var dst []Interval
	for range 500 {
		from := rng.Intn(len(all))
		to := from + 1 + rng.Intn(min(len(all)-from, 300))
		dst = b.readSpilled(th, from, to, dst)
		if len(dst) != to-from {
			t.Fatalf("[%d, %d): %d back", from, to, len(dst))
		}
		for i := range dst {
			if dst[i] != all[from+i] {
				t.Fatalf("[%d, %d): interval %d back %+v, written %+v", from, to, from+i, dst[i], all[from+i])
			}
		}
	}
	if got := b.readSpilled(th, 0, len(all), nil); len(got) != len(all) || got[len(got)-1] != all[len(all)-1] {
		t.Fatalf("all: %d back, %d written", len(got), len(all))
	}
}

// TestIvCodecFields: the packing (appendIv, decodeIvRun) writes each of
// Interval's fields by name; a field added to Interval would come back
// from the spill as its zero value, silently. Fails with a field the
// codec was not written for: pack it in ivcodec.go (and in randIv), then
// add it here.
func TestIvCodecFields(t *testing.T) {
	packed := []string{"Start", "End", "Since", "Object", "objNum", "Other", "First", "Stack", "ownFrom", "ownTo",
		"State", "Cont", "Open", "Wake", "Forced", "Pinned", "SelfJoin", "Acquire", "BeforeEvents", "Restated", "Timeout"}
	ty := reflect.TypeOf(Interval{})
	var have []string
	for i := range ty.NumField() {
		have = append(have, ty.Field(i).Name)
	}
	if !slices.Equal(have, packed) {
		t.Fatalf("Interval's fields %v, the packing's %v", have, packed)
	}
}

// TestIvPackMin: zero intervals pack into ivPackMin bytes each, the
// fewest decodeIvs lets a chunk's count claim, and come back.
func TestIvPackMin(t *testing.T) {
	ivs := make([]Interval, 5)
	p := appendIvChunk(nil, ivs)
	if len(p) != 1+len(ivs)*ivPackMin {
		t.Fatalf("%d zero intervals packed into %d bytes, want %d", len(ivs), len(p), 1+len(ivs)*ivPackMin)
	}
	got, err := decodeIvs(nil, p, 0, -1)
	if err != nil || !slices.Equal(got, ivs) {
		t.Fatalf("back %v, %v", got, err)
	}
}
