package model

import (
	"bytes"
	"errors"
	"math/rand"
	"slices"
	"testing"
)

// TestSpillAhead: the blocks of many threads, written interleaved as a
// fold writes them (a thread's a few at a time, some threads' large),
// read back by spillFill through eachAhead's stages give each thread's
// bytes of each kind wanted, in order, as spillFill alone does; the
// threads come to fn in order, with their indexes; the stages take fewer
// reads of the file than the threads' own (a stage a read for each run,
// not a thread's blocks each); a thread of more than aheadBytes is read on
// its own. A read that fails fails the thread's own read as before: no
// block is copied from a stage that was not read. Fails when a stage
// copies the wrong bytes (a run's offset, a block across two runs), skips
// a thread, or when a failed stage is used.
func TestSpillAhead(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	s, err := openSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.f.Close()
	const nth = 300
	ths := make([]*Thread, nth)
	want := make([][spillKinds][]byte, nth)
	for i := range ths {
		ths[i] = &Thread{}
	}
	next := byte(1)
	put := func(i int, k spillKind, n int) {
		p := make([]byte, n)
		for j := range p {
			p[j] = next
			next++
		}
		s.addTo(&ths[i].spill, k, p)
		want[i][k] = append(want[i][k], p...)
	}
	// Threads 0 and 1 are large (more than aheadBytes of intervals), the
	// others small; written as a fold does, a few at a time, interleaved.
	for round := range 40 {
		put(0, spillIvs, aheadBytes/30)
		put(1, spillIvs, aheadBytes/30)
		for i := 2 + round*7; i < 2+round*7+7 && i < nth; i++ {
			put(i, spillIvs, 1+rng.Intn(2000))
			if rng.Intn(3) == 0 {
				put(i, spillBlame, 1+rng.Intn(200))
			}
			put(i, spillSmp, 1+rng.Intn(500))
			put(i, spillWins, 72)
		}
	}
	for i := 2 + 40*7; i < nth; i++ {
		put(i, spillIvs, 1+rng.Intn(3000))
		put(i, spillWins, 72)
	}
	if err := s.done(); err != nil {
		t.Fatal(err)
	}
	all := func(yield func(int, *Thread) bool) {
		for i, th := range ths {
			if !yield(i, th) {
				return
			}
		}
	}
	wantKinds := [spillKinds]bool{spillIvs: true, spillBlame: true, spillWins: true}
	readAll := func(a *spillAhead) (reads int64, err error) {
		defer func(c *spillCounts) { spillStats = c }(spillStats)
		EnableSpillStats()
		var stage []byte
		var bs []spillKBlock
		seen := 0
		fn := func(i int, th *Thread) {
			if i != seen || th != ths[i] {
				t.Fatalf("thread %d came as %d", seen, i)
			}
			seen++
			bs = th.spill.decode(bs[:0])
			var dst [spillKinds][]byte
			for k := range spillKinds {
				if wantKinds[k] && len(want[i][k]) > 0 {
					dst[k] = make([]byte, len(want[i][k]))
				}
			}
			if e := spillFill(s, bs, &dst, &stage, a); e != nil {
				if err == nil {
					err = e
				}
				return
			}
			for k := range spillKinds {
				if dst[k] != nil && !bytes.Equal(dst[k], want[i][k]) {
					t.Errorf("thread %d kind %d read back differs", i, k)
				}
			}
		}
		if a == nil {
			for i, th := range all {
				fn(i, th)
			}
		} else {
			eachAhead(&Model{spill: s}, all, a, &wantKinds, fn)
		}
		if seen != nth {
			t.Errorf("%d threads read, want %d", seen, nth)
		}
		for _, c := range spillStats.reads {
			reads += c.calls
		}
		return reads, err
	}
	own, err := readAll(nil)
	if err != nil {
		t.Fatal(err)
	}
	staged, err := readAll(&spillAhead{})
	if err != nil {
		t.Fatal(err)
	}
	// The two large threads' blocks are far apart: a read each, as on
	// their own.
	large := int64(len(ths[0].spill.of(spillIvs)) + len(ths[1].spill.of(spillIvs)))
	if staged >= own || staged > large+own/4 {
		t.Errorf("%d reads staged, %d on their own (the large threads' %d)", staged, own, large)
	}
	t.Logf("reads: %d on their own, %d staged", own, staged)

	// A stage whose read fails stages nothing: the threads' own reads
	// fail (spillReadFault fails them all), none is copied from an old
	// stage.
	fail := errors.New("the disk is gone")
	spillReadFault = fail
	defer func() { spillReadFault = nil }()
	a := &spillAhead{}
	for _, th := range ths[2:10] {
		a.add(th, &wantKinds)
	}
	a.read(s)
	if len(a.runs) != 0 {
		t.Errorf("a failed stage kept %d runs", len(a.runs))
	}
	if _, err := readAll(&spillAhead{}); !errors.Is(err, fail) {
		t.Errorf("a failing spill read through stages: %v, want %v", err, fail)
	}
}

// TestSpillAheadGet: get copies a block that lies within a run staged,
// and no other (before, after, across two runs, past a run's end).
func TestSpillAheadGet(t *testing.T) {
	a := &spillAhead{buf: []byte("abcdefghijKLMNOP"), runs: []aheadRun{{100, 10, 0}, {200, 6, 10}}}
	for _, c := range []struct {
		off  int64
		n    int
		want string // "": not staged
	}{
		{100, 3, "abc"}, {107, 3, "hij"}, {200, 6, "KLMNOP"}, {103, 1, "d"}, {205, 1, "P"},
		{99, 2, ""}, {108, 3, ""}, {110, 1, ""}, {150, 1, ""}, {199, 2, ""}, {204, 3, ""}, {300, 1, ""},
		{100, 3, "abc"}, // back to the first after the second
	} {
		p := make([]byte, c.n)
		ok := a.get(p, c.off)
		if ok != (c.want != "") || ok && string(p) != c.want {
			t.Errorf("get(%d, %d) = %q, %v; want %q", c.off, c.n, p, ok, c.want)
		}
	}
	var none *spillAhead
	if none.get(make([]byte, 1), 100) {
		t.Error("a nil stage has a block")
	}
}

// TestHeldBucketsAt: the buckets of the threads by index are in order,
// from 0, below heldBuckets, and of about equal weight: a thread of a
// large weight alone in its bucket, the light ones many to a bucket.
// Fails when the buckets are ranges of equal length (the heavy threads,
// first, in one bucket) or out of order.
func TestHeldBucketsAt(t *testing.T) {
	ws := make([]uint32, 20000)
	for i := range ws {
		ws[i] = 1
		if i < 200 {
			ws[i] = 20000 // the long-lived threads, first
		}
	}
	tot := uint64(0)
	for _, w := range ws {
		tot += uint64(w)
	}
	orig := slices.Clone(ws)
	bk := heldBucketsAt(ws)
	load := make([]uint64, heldBuckets)
	for i, b := range bk {
		if b >= heldBuckets || i > 0 && b < bk[i-1] {
			t.Fatalf("thread %d in bucket %d after %d", i, b, bk[max(i-1, 0)])
		}
		load[b] += uint64(orig[i])
	}
	if bk[0] != 0 {
		t.Errorf("the first thread in bucket %d", bk[0])
	}
	for b, l := range load {
		if l > 2*tot/heldBuckets+20000 {
			t.Errorf("bucket %d holds %d of %d", b, l, tot)
		}
	}
	if bk[0] == bk[1] {
		t.Error("two heavy threads in one bucket")
	}
}

// TestScratchReadNear: blocks put in the spill read back through a
// ScratchCache are the bytes put, whether in a piece kept, across two
// pieces, or still in the write buffer; and fewer reads of the file
// than ScratchRead's for small blocks near each other, none for those
// in pieces kept (across two too). Fails when a
// piece kept is copied from at the wrong place, or a piece read past
// what was written is kept.
func TestScratchReadNear(t *testing.T) {
	m := &Model{}
	s, err := openSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.f.Close()
	m.spill = s
	rng := rand.New(rand.NewSource(4))
	var refs []ScratchRef
	var want [][]byte
	for i := range 3000 {
		p := make([]byte, 1+rng.Intn(300))
		rng.Read(p)
		if i%500 == 0 {
			p = make([]byte, scratchCachePiece+100) // across pieces
			rng.Read(p)
		}
		r, ok := m.ScratchWrite(p)
		if !ok {
			t.Fatal("no spill")
		}
		refs, want = append(refs, r), append(want, p)
	}
	defer func(c *spillCounts) { spillStats = c }(spillStats)
	var c ScratchCache
	var room []byte
	check := func(order []int) int64 {
		EnableSpillStats()
		for _, i := range order {
			room = m.ScratchReadNear(&c, refs[i], room)
			if !bytes.Equal(room, want[i]) {
				t.Fatalf("block %d read back differs", i)
			}
		}
		var n int64
		for _, c := range spillStats.reads {
			n += c.calls
		}
		return n
	}
	// The last blocks first: some still in the buffer (read flushes it).
	last := []int{len(refs) - 1, len(refs) - 2}
	check(last)
	order := make([]int, len(refs))
	for i := range order {
		order[i] = i
	}
	n := check(order)
	if n >= int64(len(refs))/4 {
		t.Errorf("%d reads for %d small blocks in order", n, len(refs))
	}
	// Again, the pieces all kept (~0.5 MB): a small block across two
	// is copied from both, read from the file no more; the 6 blocks
	// larger than a piece may span three (read so).
	if n := check(order); n > 6 {
		t.Errorf("%d reads for %d blocks in pieces kept, want at most 6", n, len(refs))
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	check(order)
}

// TestReadBuffered: the fold's reads of what it wrote (readBuffered) give
// the bytes written, whether they are in the file, in the write buffer,
// or across the two, without a flush: the file has no more written than
// the buffers filled. Fails when the buffer's part is read from the file
// (not there yet: a short read) or copied from the wrong place.
func TestReadBuffered(t *testing.T) {
	s, err := openSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.f.Close()
	rng := rand.New(rand.NewSource(5))
	var all []byte
	var r spillRef
	for len(all) < 3*spillBufSize+spillBufSize/2 {
		p := make([]byte, 1+rng.Intn(40000))
		rng.Read(p)
		s.addTo(&r, spillIvs, p)
		all = append(all, p...)
		for range 3 {
			off := rng.Int63n(int64(len(all)))
			n := 1 + rng.Int63n(min(int64(len(all))-off, 3*spillBufSize/2))
			got := make([]byte, n)
			if err := s.readBuffered(got, off); err != nil {
				t.Fatalf("read %d at %d of %d: %v", n, off, len(all), err)
			}
			if !bytes.Equal(got, all[off:off+n]) {
				t.Fatalf("read %d at %d of %d (%d in the buffer) differs", n, off, len(all), len(s.buf))
			}
		}
		if st, err := s.f.Stat(); err != nil || st.Size() != s.off-int64(len(s.buf)) {
			t.Fatalf("the file has %d bytes, %d written out (%v)", st.Size(), s.off-int64(len(s.buf)), err)
		}
	}
}
