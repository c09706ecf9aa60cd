package model

import (
	"math/rand"
	"testing"
)

// TestSpillRefDrop: a list of blocks with one kind dropped in place is the
// list made anew of the others (putBlock, as drop did before), with no
// allocation, and with appends after it (addTo's) never past its own
// bytes, in a list kept by Builder.keep among others; random lists, the
// offsets' differences and lengths from 0 to 2^40. Fails with a block kept
// written over the next one still to read, or the length left as it was.
func TestSpillRefDrop(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	b := New()
	for range 2000 {
		type blk struct {
			off, n, c int64
			k         spillKind
		}
		var blks []blk
		var bs []byte
		end := int64(0)
		for range rng.Intn(12) {
			d := rng.Int63n(1 << uint(rng.Intn(41)))
			n := rng.Int63n(1<<uint(rng.Intn(41))) + 1
			k := spillKind(rng.Intn(6))
			c := int64(0)
			if k == spillIvs {
				c = rng.Int63n(1 << uint(rng.Intn(33)))
			}
			bs = putBlock(bs, end, end+d, n, k, c)
			blks = append(blks, blk{end + d, n, c, k})
			end += d + n
		}
		// Kept between two others' lists, as finishThread keeps it.
		before := b.keep([]byte{0xaa, 0xbb})
		var r spillRef
		r.set(b.keep(bs))
		after := b.keep([]byte{0xcc, 0xdd})
		k := spillKind(rng.Intn(6))
		var want []byte
		wantEnd := int64(0)
		for _, x := range blks {
			if x.k != k {
				want = putBlock(want, wantEnd, x.off, x.n, x.k, x.c)
				wantEnd = x.off + x.n
			}
		}
		scratch := make([]byte, len(bs))
		if a := testing.AllocsPerRun(2, func() {
			copy(scratch, bs)
			var c spillRef
			c.set(scratch)
			c.drop(k)
		}); a != 0 {
			t.Fatalf("drop allocated %v times", a)
		}
		r.drop(k)
		if got := r.bytes(); string(got) != string(want) {
			t.Fatalf("%d blocks, kind %d dropped: % x, want % x", len(blks), k, got, want)
		}
		var wantC int64
		for _, x := range blks {
			if x.k != k && x.k == spillIvs {
				wantC += x.c
			}
		}
		if got := r.count(spillIvs); got != wantC {
			t.Fatalf("kind %d dropped: %d intervals counted, want %d", k, got, wantC)
		}
		if len(blks) > 0 && r.has(k) {
			t.Fatalf("kind %d still there", k)
		}
		// An append where it was: within its room, or copied.
		var sp spillFile
		sp.buf = make([]byte, 0, 16)
		sp.off = end
		sp.addTo(&r, spillSmp, []byte{1, 2, 3})
		if string(before) != "\xaa\xbb" || string(after) != "\xcc\xdd" {
			t.Fatalf("the lists beside it written: % x, % x", before, after)
		}
		if got := r.of(spillSmp); len(got) == 0 || got[len(got)-1].off+got[len(got)-1].len != end+3 {
			t.Fatalf("the block appended: %+v", got)
		}
	}
}

// TestKeep: a copy kept by Builder.keep has the bytes, and no room after
// them (an append copies it); an empty one is nil.
func TestKeep(t *testing.T) {
	b := New()
	if b.keep(nil) != nil {
		t.Fatal("an empty copy kept is not nil")
	}
	x := b.keep([]byte("abc"))
	y := b.keep([]byte("def"))
	if string(x) != "abc" || cap(x) != 3 || string(y) != "def" {
		t.Fatalf("kept %q (room %d), %q", x, cap(x), y)
	}
	_ = append(x, 'z')
	if string(y) != "def" {
		t.Fatalf("an append to one wrote the next: %q", y)
	}
	big := make([]byte, 3*tailBlock)
	if z := b.keep(big); len(z) != len(big) {
		t.Fatalf("one larger than a block: %d bytes", len(z))
	}
}
