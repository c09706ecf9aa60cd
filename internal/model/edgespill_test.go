package model

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"orca/internal/format"
)

// TestEdgeSpill puts edges with many of one ToTime, some to and from the
// same threads, through the edges' spill (runs of 5, marks every 3, and
// the sizes orca view uses) and checks what the model reads back against
// the same edges in memory, sorted as Finalize sorts Model.Edges: every
// edge in order, each thread's, the start and join ones, and those of
// time ranges.
//
// Wide: times, thread ids and objects over their whole range (a run
// sorted by comparison, not by keys: sortRun), the flag set at random.
func TestEdgeSpill(t *testing.T) {
	for _, wide := range []bool{false, true} {
		testEdgeSpill(t, wide)
	}
}

func testEdgeSpill(t *testing.T, wide bool) {
	for _, sizes := range [][2]int{{5, 3}, {1, 1}, {64, 7}, {edgeRunLen, edgeIndexEvery}} {
		restore := SetEdgeSpillSizes(sizes[0], sizes[1])
		for _, n := range []int{0, 1, 4, 5, 6, 300, 2000} {
			s, err := openSpill(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(uint64(n), 7))
			l := edgeList{sp: &edgeSpill{s: s}}
			var all []Edge
			for i := range n {
				e := Edge{Kind: EdgeKind(r.IntN(int(NumEdgeKinds))), From: format.ThreadID(1 + r.IntN(5)), To: format.ThreadID(1 + r.IntN(5)),
					ToTime: format.Time(r.IntN(40)), Object: format.ObjectID(i)}
				e.FromTime = e.ToTime - format.Time(r.IntN(30))
				if r.IntN(10) == 0 {
					e.FromTime = e.ToTime + format.Time(r.IntN(20)) // clocks that disagree
				}
				if wide {
					e.To, e.From = format.ThreadID(1+r.IntN(5))<<40, format.ThreadID(r.Uint64())
					e.ToTime = format.Time(r.IntN(40))<<50 - 1<<52
					e.FromTime = e.ToTime + format.Time(r.Int64N(1<<46)) - 1<<45
					e.Object, e.Ambiguous = format.ObjectID(r.Uint32()), r.IntN(2) == 0
				}
				all = append(all, e)
				l.add(e)
			}
			mem := &Model{Edges: slices.Clone(all)}
			slices.SortStableFunc(mem.Edges, func(a, b Edge) int { return cmp.Compare(a.ToTime, b.ToTime) })
			sj := l.all()
			out, err := l.sp.finish(sj, l.seqs)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.done(); err != nil {
				t.Fatal(err)
			}
			m := &Model{spill: s, edges: out}
			if m.NumEdges() != n || !m.EdgesSpilled() {
				t.Fatalf("%v n=%d: %d edges, spilled %v", sizes, n, m.NumEdges(), m.EdgesSpilled())
			}
			collect := func(m *Model, t0, t1 format.Time) (idx []int, got []Edge) {
				for i, e := range m.EdgesFrom(t0, t1) {
					if max(e.FromTime, e.ToTime) >= t0 && min(e.FromTime, e.ToTime) <= t1 {
						idx, got = append(idx, i), append(got, e)
					}
				}
				return
			}
			ranges := [][2]format.Time{{math.MinInt64, math.MaxInt64}, {-100, -50}, {0, 0}, {7, 9}, {20, 20}, {39, 100}, {41, 60}, {-5, 15}}
			if wide {
				ranges = [][2]format.Time{{math.MinInt64, math.MaxInt64}, {-1 << 52, -1 << 51}, {0, 1 << 55}, {1 << 54, 1 << 54}}
			}
			for _, rg := range ranges {
				wi, we := collect(mem, rg[0], rg[1])
				gi, ge := collect(m, rg[0], rg[1])
				if !slices.Equal(wi, gi) || !slices.Equal(we, ge) {
					t.Errorf("%v n=%d: edges of %v from the spill\n%v %v\nin memory\n%v %v", sizes, n, rg, gi, ge, wi, we)
				}
			}
			var want []Edge
			for i, e := range m.AllEdges() {
				if e != mem.Edges[i] {
					t.Fatalf("%v n=%d: edge %d from the spill %+v, in memory %+v", sizes, n, i, e, mem.Edges[i])
				}
				want = append(want, e)
			}
			if len(want) != n {
				t.Errorf("%v n=%d: %d edges read back", sizes, n, len(want))
			}
			var buf, buf2 []Edge
			for th := format.ThreadID(0); th <= 6; th++ {
				if wide {
					th := th << 40
					if got, w := m.EdgesTo(th, &buf), mem.EdgesTo(th, &buf2); !slices.Equal(got, w) {
						t.Errorf("%v n=%d: edges to %v from the spill\n%v\nin memory\n%v", sizes, n, th, got, w)
					}
					continue
				}
				if got, w := m.EdgesTo(th, &buf), mem.EdgesTo(th, &buf2); !slices.Equal(got, w) {
					t.Errorf("%v n=%d: edges to %v from the spill\n%v\nin memory\n%v", sizes, n, th, got, w)
				}
			}
			if got, w := m.StartJoinEdges(), mem.StartJoinEdges(); !slices.Equal(got, w) {
				t.Errorf("%v n=%d: start and join edges from the spill\n%v\nin memory\n%v", sizes, n, got, w)
			}
			s.f.Close()
		}
		restore()
	}
}

// BenchmarkEdgeSpill is the edges' cost from the fold's add to the model's
// order, per edge: in memory (blocks, joined and sorted stably by
// Finalize) and through the spill (runs sorted twice, merged twice). The
// edges come nearly in ToTime order, as the fold makes them, of c1G's
// kinds (2.3 % start and join, which the spill keeps in memory; a third
// of them before stop 96) on objects of a 4-byte identity hash.
func BenchmarkEdgeSpill(b *testing.B) {
	const n = 1 << 21
	r := rand.New(rand.NewPCG(1, 2))
	edges := make([]Edge, n)
	kinds := []EdgeKind{EdgeWake, EdgeRelease, EdgeOwner, EdgeOwner, EdgeOwner, EdgeOwner, EdgeUnpark}
	for i := range edges {
		to := format.Time(i*100 + r.IntN(5000))
		k := kinds[r.IntN(len(kinds))]
		if r.IntN(1000) < 23 {
			k = EdgeStart + EdgeKind(r.IntN(2))
		}
		edges[i] = Edge{Kind: k, From: format.ThreadID(1 + r.IntN(50000)), To: format.ThreadID(1 + r.IntN(50000)),
			FromTime: to - format.Time(r.IntN(100000)), ToTime: to, Object: format.ObjectID(r.Uint32())}
	}
	b.Run("memory", func(b *testing.B) {
		for b.Loop() {
			var l edgeList
			for _, e := range edges {
				l.add(e)
			}
			all := l.all()
			slices.SortStableFunc(all, func(a, b Edge) int { return cmp.Compare(a.ToTime, b.ToTime) })
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/edge")
	})
	b.Run("spill", func(b *testing.B) {
		var written int64
		for b.Loop() {
			s, err := openSpill(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			l := edgeList{sp: &edgeSpill{s: s}}
			for _, e := range edges {
				l.add(e)
			}
			if _, err := l.sp.finish(l.all(), l.seqs); err != nil {
				b.Fatal(err)
			}
			written = s.off
			s.f.Close()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/edge")
		b.ReportMetric(float64(written)/n, "written-B/edge")
	})
}

// TestEdgeCodec: each edge read back as written, with its seq or without,
// from its bytes alone; every shorter part of them is no edge yet (0, the
// codec unchanged), a kind past the last and an object past 32 bits are
// no edge (-1).
func TestEdgeCodec(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, withSeq := range []bool{false, true} {
		var w, rd edgeCodec
		for i := range 2000 {
			e := Edge{ToTime: format.Time(r.Uint64()), FromTime: format.Time(r.Uint64()), To: format.ThreadID(r.Uint64()),
				From: format.ThreadID(r.Uint64()), Object: format.ObjectID(r.Uint32()), Kind: EdgeKind(r.IntN(int(NumEdgeKinds))), Ambiguous: r.IntN(2) == 0}
			if i%3 == 0 {
				e.ToTime, e.To = w.to+format.Time(r.IntN(100)), w.id
			}
			seq := r.Uint64()
			b := w.put(nil, &e, seq, withSeq)
			for k := range len(b) {
				was := rd
				var got Edge
				if n := rd.get(b[:k], &got, new(uint64), withSeq); n != 0 || rd != was {
					t.Fatalf("edge %d (seq %v): %d of its %d bytes read as %d, the codec %+v from %+v", i, withSeq, k, len(b), n, rd, was)
				}
			}
			var got Edge
			var gotSeq uint64
			if n := rd.get(b, &got, &gotSeq, withSeq); n != len(b) || got != e || withSeq && gotSeq != seq {
				t.Fatalf("edge %d (seq %v): %d of %d bytes, %+v seq %d; wrote %+v seq %d", i, withSeq, n, len(b), got, gotSeq, e, seq)
			}
		}
	}
	var c edgeCodec
	bad := c.put(nil, &Edge{Kind: EdgeUnpark}, 0, false)
	bad[len(bad)-1] = byte(NumEdgeKinds)
	if n := c.get(bad, new(Edge), nil, false); n != -1 {
		t.Errorf("kind %d read: %d", NumEdgeKinds, n)
	}
	big := binary.AppendVarint(nil, 0)
	big = binary.AppendVarint(big, 0)
	big = binary.AppendVarint(big, 0)
	big = binary.AppendUvarint(big, 0)
	big = binary.AppendUvarint(big, 1<<32)
	big = append(big, byte(EdgeWake))
	if n := c.get(big, new(Edge), nil, false); n != -1 {
		t.Errorf("object 1<<32 read: %d", n)
	}
}

// TestRadixSortKeys: keys of 0 to 32 bits above their places sorted as
// slices.Sort sorts them, whatever room is given.
func TestRadixSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, bits := range []int{0, 1, 10, 11, 12, 22, 23, 31, 32} {
		for _, n := range []int{0, 1, 2, 100, 5000} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = r.Uint64()>>(64-bits)<<32 | uint64(i)
				if bits == 0 {
					keys[i] = uint64(i)
				}
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			got, room := radixSortKeys(keys, make([]uint64, n))
			if !slices.Equal(got, want) || len(room) != n {
				t.Errorf("%d bits, %d keys: sorted %v, want %v (room %d)", bits, n, got[:min(n, 8)], want[:min(n, 8)], len(room))
			}
		}
	}
}

// TestEdgeSpillBadBytes: a run whose bytes end inside an edge, or are no
// edge, makes finish fail with errEdgeBytes, not a short or wrong list.
func TestEdgeSpillBadBytes(t *testing.T) {
	restore := SetEdgeSpillSizes(64, 7)
	defer restore()
	for _, bad := range []string{"cut", "garbage"} {
		s, err := openSpill(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		l := edgeList{sp: &edgeSpill{s: s}}
		for i := range 300 {
			l.add(Edge{Kind: EdgeUnpark, From: 1, To: format.ThreadID(2 + i%3), FromTime: format.Time(i), ToTime: format.Time(i + 5), Object: format.ObjectID(i)})
		}
		l.sp.writeRun()
		if err := s.flush(); err != nil {
			t.Fatal(err)
		}
		r := &l.sp.runs[1].byTo
		switch bad {
		case "cut":
			r.len--
		case "garbage":
			if _, err := s.f.WriteAt([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, r.off); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := l.sp.finish(l.all(), l.seqs); !errors.Is(err, errEdgeBytes) {
			t.Errorf("%s: finish: %v, want %v", bad, err, errEdgeBytes)
		}
		s.f.Close()
	}
}
