package model

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestSpillFill: a thread's blocks of every kind, written among another
// thread's with gaps from none to 3*spillGapMax bytes, read back by
// spillFill for random sets of kinds give each kind's bytes in order, and
// in as many reads of the file as there are runs of wanted blocks with at
// most spillGapMax bytes between two (a gap's bytes never in a kind's);
// the list decoded once is the blocks written. Fails when a run is read a
// block at a time, reads through a larger gap, or copies a gap's bytes
// out.
func TestSpillFill(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	s, err := openSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.f.Close()
	var r, other spillRef
	var want [spillKinds][]byte
	var wrote []spillKBlock
	next := byte(1)
	bytesOfLen := func(n int) []byte {
		p := make([]byte, n)
		for i := range p {
			p[i] = next
			next++
		}
		return p
	}
	for range 400 {
		if rng.Intn(2) == 0 {
			gaps := []int{0, 1, spillGapMax / 2, spillGapMax, spillGapMax + 1, 3 * spillGapMax}
			if g := gaps[rng.Intn(len(gaps))]; g > 0 {
				s.addTo(&other, spillIvs, bytesOfLen(g))
			}
		}
		k := spillKind(rng.Intn(spillKinds))
		p := bytesOfLen(1 + rng.Intn(300))
		s.addTo(&r, k, p)
		want[k] = append(want[k], p...)
		if n := len(wrote); n > 0 && wrote[n-1].k == k && wrote[n-1].off+wrote[n-1].n == s.off-int64(len(p)) {
			wrote[n-1].n += int64(len(p))
		} else {
			wrote = append(wrote, spillKBlock{off: s.off - int64(len(p)), n: int64(len(p)), k: k})
		}
	}
	if err := s.done(); err != nil {
		t.Fatal(err)
	}
	bs := r.decode(nil)
	if len(bs) != len(wrote) {
		t.Fatalf("decoded %d blocks, wrote %d", len(bs), len(wrote))
	}
	for i := range bs {
		if bs[i] != wrote[i] {
			t.Fatalf("block %d decoded %+v, wrote %+v", i, bs[i], wrote[i])
		}
	}
	defer func(c *spillCounts) { spillStats = c }(spillStats)
	var stage []byte
	for set := 1; set < 1<<spillKinds; set++ {
		var dst [spillKinds][]byte
		for k := range spillKinds {
			if set&(1<<k) != 0 && len(want[k]) > 0 {
				dst[k] = make([]byte, len(want[k]))
			}
		}
		// The runs: wanted blocks in order, a new one after a larger gap.
		runs, end := 0, int64(-1)
		for _, b := range bs {
			if dst[b.k] == nil {
				continue
			}
			if end < 0 || b.off-end > spillGapMax {
				runs++
			}
			end = b.off + b.n
		}
		EnableSpillStats()
		if err := spillFill(s, bs, &dst, &stage, nil); err != nil {
			t.Fatal(err)
		}
		reads := int64(0)
		for _, c := range spillStats.reads {
			reads += c.calls
		}
		if reads != int64(runs) {
			t.Errorf("kinds %06b: %d reads, want %d", set, reads, runs)
		}
		for k := range spillKinds {
			if dst[k] != nil && !bytes.Equal(dst[k], want[k]) {
				t.Errorf("kinds %06b: kind %d read back differs", set, k)
			}
		}
	}
}
