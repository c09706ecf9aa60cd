package model

import (
	"math/rand"
	"slices"
	"testing"

	"orca/internal/format"
)

// TestIvStreamCover: ivStream.cover, the holders' pass's window over a
// long holder's intervals read by pieces, holds for each span every
// interval that ends after its start and begins before its end, and the
// intervals of the first one's start before it (blameIndex counts
// them), each at its place less the window's; it lets go of the others
// a piece at a time, so that spans in order of start hold no more than
// they cover and two pieces; and a span that begins before the intervals
// let go ended reads the thread again. The intervals are written in
// chunks of random sizes, among other kinds' blocks or after the chunk
// before (a block grown to ivBlockMax), with runs of zero-length
// intervals at the start of the next. Fails with the run of
// one start not kept, without the read again, with the cursor or the
// blame index not moved with the window, or a block grown past
// ivBlockMax.
func TestIvStreamCover(t *testing.T) {
	old, oldBlock := ivPiece, ivBlockMax
	ivPiece, ivBlockMax = 7, 20
	defer func() { ivPiece, ivBlockMax = old, oldBlock }()
	rng := rand.New(rand.NewSource(5))
	s, th, other := testSpill(t)
	var all []Interval
	at := format.Time(1000)
	for len(all) < 3000 {
		var ivs []Interval
		for range 1 + rng.Intn(12) {
			at += format.Time(rng.Intn(50))
			for range rng.Intn(3) * rng.Intn(2) { // zero-length ones at its start
				ivs = append(ivs, Interval{Start: at, End: at, Since: at, State: Blocked})
			}
			d := format.Time(1 + rng.Intn(100))
			if rng.Intn(40) == 0 {
				d *= 100 // a long one
			}
			ivs = append(ivs, Interval{Start: at, End: at + d, Since: at, State: State(rng.Intn(int(NumStates)))})
			at += d
		}
		s.addCount(&th.spill, spillIvs, appendIvChunk(nil, ivs), int64(len(ivs)))
		all = append(all, ivs...)
		if rng.Intn(2) == 0 && (len(all) < 1000 || len(all) > 2000) {
			// Else the next chunk follows this one: the block grows to
			// ivBlockMax.
			s.addTo(&other.spill, spillSmp, make([]byte, 1+rng.Intn(100)))
		}
	}
	if err := s.flush(); err != nil { // as Finalize
		t.Fatal(err)
	}
	m := &Model{spill: s, dropped: true}
	end := all[len(all)-1].End
	// Model.WindowOf's window (the wait chains' roots): from and the
	// intervals hold each stretch's, asked in order.
	var w IntervalWindow
	m.WindowOf(th, &w)
	for a := all[0].Start; a < end; a += 97 {
		ivs, from := w.Cover(a, a+150)
		for i := range all {
			if all[i].End > a && all[i].Start < a+150 && (i < from || i >= from+len(ivs) || ivs[i-from] != all[i]) {
				t.Fatalf("WindowOf: [%d, %d): interval %d not in the window [%d, %d)", a, a+150, i, from, from+len(ivs))
			}
		}
		if len(ivs) > 3*ivPiece+2*ivBlockMax+3*12+150 {
			t.Fatalf("WindowOf: [%d, %d): %d intervals held", a, a+150, len(ivs))
		}
	}
	for _, back := range []bool{false, true} {
		var st ivStream
		var c Cursor
		x := blameIndex{last: -1}
		st.reset(m, th, nil)
		a := all[0].Start - 10
		var maxB format.Time // the latest end asked since the thread was read from its first
		for q := range 2000 {
			switch {
			case back && rng.Intn(50) == 0:
				a -= format.Time(rng.Intn(3000)) // before: read again
			case rng.Intn(3) > 0:
				a += format.Time(rng.Intn(250))
			}
			if a > end+10 {
				a = all[0].Start - 10
			}
			b := a + format.Time(1+rng.Intn(300))
			if rng.Intn(30) == 0 {
				b += 5000
			}
			wantC := c.iv + st.from           // the cursor's place in the thread
			x.last = min(c.iv, len(st.ivs)-1) // the blame index's interval asked last
			wantLast := x.last + st.from
			rewound := st.from > 0 && a < st.floor
			if rewound {
				maxB = 0 // read again from the first
			}
			st.cover(a, b, &c, &x)
			maxB = max(maxB, b)
			if rewound && (c.iv != 0 || x.last != -1) {
				t.Fatalf("span %d [%d, %d): read again, the cursor at %d, the blame index's last %d", q, a, b, c.iv, x.last)
			}
			if !rewound && c.iv+st.from != wantC && c.iv != 0 {
				t.Fatalf("span %d [%d, %d): the cursor at %d of the thread, was %d", q, a, b, c.iv+st.from, wantC)
			}
			if !rewound && (x.last >= 0 && x.last+st.from != wantLast || x.last < 0 && wantLast >= st.from) {
				t.Fatalf("span %d [%d, %d): the blame index's last asked at %d of the thread, was %d", q, a, b, x.last+st.from, wantLast)
			}
			if !slices.Equal(st.ivs, all[st.from:st.from+len(st.ivs)]) || len(st.ivs) == 0 || &x.ivs[0] != &st.ivs[0] {
				t.Fatalf("span %d [%d, %d): the window [%d, %d) is not the thread's", q, a, b, st.from, st.from+len(st.ivs))
			}
			first, n := -1, 0
			for i := range all {
				if all[i].End > a && all[i].Start < maxB {
					n++ // held for this span or one before
				}
				if all[i].End > a && all[i].Start < b {
					if first < 0 {
						first = i
					}
					if i < st.from || i >= st.from+len(st.ivs) {
						t.Fatalf("span %d [%d, %d): interval %d [%d, %d) not in the window [%d, %d)", q, a, b, i, all[i].Start, all[i].End, st.from, st.from+len(st.ivs))
					}
				}
			}
			if first > 0 {
				for j := first - 1; j >= 0 && all[j].Start == all[first].Start; j-- {
					if j < st.from {
						t.Fatalf("span %d [%d, %d): interval %d of the first's start let go", q, a, b, j)
					}
				}
			}
			if len(st.ivs) > n+3*ivPiece+2*ivBlockMax+3*12 {
				t.Fatalf("span %d [%d, %d): %d intervals held for %d covered", q, a, b, len(st.ivs), n)
			}
			c.iv = searchEndAfter(st.ivs, c.iv, a) // as foldSpan moves it
		}
	}
}

// testSpill opens a spill in a temporary directory, with a small buffer
// (so that its blocks are written as they come), and two threads to
// give blocks to: a test's, and another whose blocks cut the first's.
func testSpill(t *testing.T) (s *spillFile, th, other *Thread) {
	s, err := openSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.buf = make([]byte, 0, 4<<10)
	return s, &Thread{ID: 1}, &Thread{ID: 2}
}
