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

// TestSpillTail: a list added to through a spillTail (spillFed's) is the
// list added to from its start (addCount), byte for byte, whatever comes
// between: other threads' writes, blocks of other kinds (some merged into
// the last), drops (the tail forgotten, as dropLive does), the list
// copied elsewhere (keep); random sequences.
func TestSpillTail(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var a, b spillFile
	// Their buffers are emptied after each step, never written to a
	// file: the offsets are what counts.
	a.buf, b.buf = make([]byte, 0, 1<<13), make([]byte, 0, 1<<13)
	write := func(s *spillFile, n int) { s.write(make([]byte, n)) }
	for seq := range 300 {
		var ra, rb spillRef
		var tl spillTail
		hits, taken := 0, a.tailTaken
		for op := range 200 {
			p := make([]byte, 1+rng.Intn(1<<uint(rng.Intn(12))))
			switch x := rng.Intn(20); {
			case x < 10:
				c := int64(1 + rng.Intn(1<<uint(rng.Intn(12))))
				if tl.p != nil && tl.p == ra.p && tl.n == ra.n {
					hits++
				}
				a.addTail(&ra, spillIvs, p, c, &tl)
				b.addCount(&rb, spillIvs, p, c)
			case x < 14:
				k := spillKind(1 + rng.Intn(int(spillRest)))
				a.addTo(&ra, k, p)
				b.addTo(&rb, k, p)
			case x < 17:
				write(&a, len(p)) // another thread's
				write(&b, len(p))
			case x < 19:
				k := spillKind(rng.Intn(int(spillRest) + 1))
				ra.drop(k)
				rb.drop(k)
				tl = spillTail{}
			default:
				ra.set(append([]byte(nil), ra.bytes()...))
				rb.set(append([]byte(nil), rb.bytes()...))
			}
			a.buf, b.buf = a.buf[:0], b.buf[:0]
			if a.err != nil || b.err != nil || a.off != b.off {
				t.Fatalf("sequence %d, op %d: %v, %v, offsets %d, %d", seq, op, a.err, b.err, a.off, b.off)
			}
			if string(ra.bytes()) != string(rb.bytes()) {
				t.Fatalf("sequence %d, op %d: % x, want % x", seq, op, ra.bytes(), rb.bytes())
			}
		}
		// Taken whenever the list is as it was.
		if taken = a.tailTaken - taken; hits == 0 || taken != hits {
			t.Fatalf("sequence %d: the tail taken %d times, want %d (> 0)", seq, taken, hits)
		}
	}
}
