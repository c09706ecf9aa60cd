package model

import (
	"cmp"
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
func TestEdgeSpill(t *testing.T) {
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
// edges come nearly in ToTime order, as the fold makes them.
func BenchmarkEdgeSpill(b *testing.B) {
	const n = 1 << 21
	r := rand.New(rand.NewPCG(1, 2))
	edges := make([]Edge, n)
	for i := range edges {
		to := format.Time(i*100 + r.IntN(5000))
		edges[i] = Edge{Kind: EdgeKind(r.IntN(int(NumEdgeKinds))), From: format.ThreadID(1 + r.IntN(50000)), To: format.ThreadID(1 + r.IntN(50000)),
			FromTime: to - format.Time(r.IntN(100000)), ToTime: to}
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
			s.f.Close()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/edge")
	})
}
