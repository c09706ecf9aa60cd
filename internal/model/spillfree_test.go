package model

import (
	"bytes"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSpillFree: the runs freed give their whole pages back (a hole
// punched: read back as zeros, the file's blocks fewer), a batch at a
// time; the parts of pages they share with blocks still live are kept
// until those are freed too, and so is a run still in the write buffer
// until it is written out; the blocks around are read back whole. Fails
// without the punch (the pages freed still read their bytes).
func TestSpillFree(t *testing.T) {
	defer func(m int64) { spillPunchMin = m }(spillPunchMin)
	spillPunchMin = spillPage
	s, err := openSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.f.Close()
	if unix.Fallocate(int(s.f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 0, spillPage) != nil {
		t.Skip("no holes punched on this file system")
	}
	fill := func(n int, c byte) []byte { return bytes.Repeat([]byte{c}, n) }
	// a: [0, 10000), b: [10000, 10000+3*4096+100), c after it.
	a, _ := s.put(fill(10000, 'a'))
	b, _ := s.put(fill(3*spillPage+100, 'b'))
	c, _ := s.put(fill(5000, 'c'))
	if err := s.flushKeep(); err != nil {
		t.Fatal(err)
	}
	blocks := func() int64 {
		var st unix.Stat_t
		if err := unix.Fstat(int(s.f.Fd()), &st); err != nil {
			t.Fatal(err)
		}
		return st.Blocks
	}
	read := func(r ScratchRef) []byte { return s.read(r, nil) }
	before := blocks()
	s.free(b.off, int64(b.len))
	if len(s.freed) != 1 {
		t.Fatalf("a run freed below the batch: %d runs pending, want 1", len(s.freed))
	}
	s.punch()
	// b's whole pages: [12288, 20480) (b is [10000, 22388)).
	got := read(b)
	for i, v := range got {
		at := b.off + int64(i)
		inHole := at >= 12288 && at < 20480
		if inHole && v != 0 || !inHole && v != 'b' {
			t.Fatalf("b's byte at %d: %q (in the hole: %v)", at, v, inHole)
		}
	}
	if after := blocks(); after >= before {
		t.Errorf("the file's blocks %d -> %d: no pages given back", before, after)
	}
	if !bytes.Equal(read(a), fill(10000, 'a')) || !bytes.Equal(read(c), fill(5000, 'c')) {
		t.Fatal("a block beside the run freed changed")
	}
	// b's parts of pages shared with a and c are kept, merged with a's
	// and c's when they are freed.
	if len(s.freed) != 2 {
		t.Fatalf("pending after the punch: %v, want b's two ends", s.freed)
	}
	s.free(a.off, int64(a.len))
	s.free(c.off, int64(c.len))
	// d, still in the buffer: kept until written out.
	d, _ := s.put(fill(2*spillPage, 'd'))
	s.free(d.off, int64(d.len))
	s.punch()
	end := c.off + int64(c.len) // 27388: pages up to 24576 whole
	for _, r := range []ScratchRef{a, b, c} {
		for i, v := range read(r) {
			if at := r.off + int64(i); at < end/spillPage*spillPage && v != 0 {
				t.Fatalf("byte %d of the runs freed together not in a hole: %q", at, v)
			}
		}
	}
	if n := len(s.freed); n != 1 || s.freed[0].off != end/spillPage*spillPage || s.freed[0].off+s.freed[0].len != d.off+int64(d.len) {
		t.Fatalf("pending: %v, want [%d, %d) (c's last page and d, unwritten)", s.freed, end/spillPage*spillPage, d.off+int64(d.len))
	}
	if err := s.flushKeep(); err != nil {
		t.Fatal(err)
	}
	s.punch()
	if n := len(s.freed); n != 1 || s.freed[0].off+s.freed[0].len != d.off+int64(d.len) || s.freed[0].len >= spillPage {
		t.Fatalf("pending once d is written: %v, want the last part of a page", s.freed)
	}
	// Fewer whole pages than spillPunchMin wait for more.
	spillPunchMin = 4 * spillPage
	e, _ := s.put(fill(2*spillPage+spillPage/2, 'e'))
	if err := s.flushKeep(); err != nil {
		t.Fatal(err)
	}
	s.free(e.off, int64(e.len))
	s.punch()
	if v := read(e); !bytes.Equal(v, fill(len(v), 'e')) {
		t.Fatal("a run of fewer pages than spillPunchMin punched")
	}
	f, _ := s.put(fill(spillPage, 'f'))
	if err := s.flushKeep(); err != nil {
		t.Fatal(err)
	}
	s.free(f.off, int64(f.len))
	s.punch()
	if v := read(f); v[0] != 0 {
		t.Fatal("the runs freed together, enough pages, not punched")
	}
}

// TestSpillFreeRuns: a merge of runs read for the last time (mergeRuns'
// free) frees each block once read through, and one that reads them
// again (MergeScratchRuns) frees none; a kind dropped with dropIn frees
// its blocks, the others' kept.
func TestSpillFreeRuns(t *testing.T) {
	s, err := openSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.f.Close()
	var runs [][]ScratchRef
	for k := range 3 {
		var run []ScratchRef
		for j := range 4 {
			r, _ := s.put([]byte{byte(k*10 + j)})
			run = append(run, r)
		}
		runs = append(runs, run)
	}
	read := func(b []byte, _ *byte) (byte, int) {
		if len(b) == 0 {
			return 0, 0
		}
		return b[0], 1
	}
	var got []byte
	less := func(a, b *byte) int { return int(*a) - int(*b) }
	mergeRuns(s, runs, nil, less, read, func(v byte) { got = append(got, v) }, false)
	if len(s.freed) != 0 {
		t.Fatalf("a merge without free freed %v", s.freed)
	}
	got = got[:0]
	mergeRuns(s, runs, nil, less, read, func(v byte) { got = append(got, v) }, true)
	if len(got) != 12 || len(s.freed) != 12 {
		t.Fatalf("merged %d records, freed %d blocks, want 12 and 12", len(got), len(s.freed))
	}
	s.freed = nil
	var r spillRef
	s.addTo(&r, spillIvs, []byte("iv"))
	s.addTo(&r, spillLent, []byte("lent"))
	s.addTo(&r, spillSmp, []byte("smp"))
	r.dropIn(s, spillLent)
	if len(s.freed) != 1 || s.freed[0].len != 4 || r.has(spillLent) || !r.has(spillIvs) || !r.has(spillSmp) {
		t.Fatalf("dropIn: freed %v; the list has lent %v, ivs %v, smp %v", s.freed, r.has(spillLent), r.has(spillIvs), r.has(spillSmp))
	}
}
