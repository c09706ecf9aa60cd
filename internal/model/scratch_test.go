package model

import (
	"bytes"
	"os"
	"testing"
)

// TestScratch: blocks ScratchWrite takes (several slices each, more than
// its buffer in all) read back as written, whether still in the buffer,
// written out, or kept in memory after a write that failed.
func TestScratch(t *testing.T) {
	s, err := openSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.f.Close()
	s.add(&[]spillBlock{}, []byte("the fold's bytes"))
	if err := s.done(); err != nil {
		t.Fatal(err)
	}
	m := &Model{spill: s}
	r := uint64(1)
	next := func() uint64 { r = r*6364136223846793005 + 1442695040888963407; return r >> 11 }
	var refs []ScratchRef
	var want [][]byte
	write := func(n int) {
		for range n {
			var ps [][]byte
			var all []byte
			for range 1 + next()%3 {
				p := make([]byte, next()%9000)
				for i := range p {
					p[i] = byte(next())
				}
				ps = append(ps, p)
				all = append(all, p...)
			}
			ref, ok := m.ScratchWrite(ps...)
			if !ok {
				t.Fatal("ScratchWrite failed")
			}
			refs, want = append(refs, ref), append(want, all)
		}
	}
	check := func(what string) {
		var room []byte
		for i := len(refs) - 1; i >= 0; i-- { // the last first: in the buffer
			if room = m.ScratchRead(refs[i], room); !bytes.Equal(room, want[i]) {
				t.Fatalf("%s: block %d of %d read back differs", what, i, len(refs))
			}
		}
	}
	write(400) // ~2.7 MB: the buffer written out twice
	check("written")
	write(100)
	// The next write out fails: the buffer is kept, the blocks read from it.
	f := s.f
	ro, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	s.f = ro
	if err := m.spill.flushKeep(); err == nil {
		t.Fatal("a write to a read-only file did not fail")
	}
	if _, ok := m.ScratchWrite([]byte("x")); ok {
		t.Fatal("ScratchWrite took a block after a failed write")
	}
	s.f = f // the blocks written before are read from the file
	check("kept")
	ro.Close()
}
