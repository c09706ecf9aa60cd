package model_test

import (
	"cmp"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"orca/internal/format"
	. "orca/internal/model"
	"orca/internal/testrec"
)

// spanRuns makes n blame spans as the holders' fold collects a lock's:
// thread by thread (runs), each thread's in time order, with equal starts
// across threads (and within one) so that stability matters.
func spanRuns(r *rand.Rand, n, runs int) []OwnerSpan {
	ss := make([]OwnerSpan, 0, n)
	for k := 0; k < runs; k++ {
		at := format.Time(r.IntN(50))
		for i := 0; i < n/runs; i++ {
			at += format.Time(r.IntN(3))
			ss = append(ss, OwnerSpan{Start: at, End: at + 1, Owner: format.ThreadID(len(ss))})
		}
	}
	return ss
}

// TestSortByStart checks the holders' fold's sort of a lock's spans
// against slices.SortStableFunc: the same order, ties included (the
// union takes the holder of the span that came first).
func TestSortByStart(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ n, runs int }{{0, 1}, {1, 1}, {10, 1}, {10, 10}, {100, 3}, {1000, 7}, {1000, 1000}, {5000, 64}} {
		for range 5 {
			ss := spanRuns(r, c.n, c.runs)
			if c.runs == 1000 {
				r.Shuffle(len(ss), func(i, j int) { ss[i], ss[j] = ss[j], ss[i] })
			}
			want := slices.Clone(ss)
			slices.SortStableFunc(want, func(a, b OwnerSpan) int { return cmp.Compare(a.Start, b.Start) })
			SortByStart(ss)
			if !reflect.DeepEqual(ss, want) && len(ss)+len(want) > 0 {
				t.Fatalf("%d spans in %d runs: sorted %v, stably %v", c.n, c.runs, ss, want)
			}
		}
	}
}

// BenchmarkSortByStart: 100 000 spans in 200 runs (a hot lock's of the
// synthetic recording), against the sort in place it replaced.
func BenchmarkSortByStart(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	in := spanRuns(r, 100_000, 200)
	ss := make([]OwnerSpan, len(in))
	b.Run("merge", func(b *testing.B) {
		for b.Loop() {
			copy(ss, in)
			SortByStart(ss)
		}
	})
	b.Run("stable", func(b *testing.B) {
		for b.Loop() {
			copy(ss, in)
			slices.SortStableFunc(ss, func(a, b OwnerSpan) int { return cmp.Compare(a.Start, b.Start) })
		}
	})
}

// TestHoldersDoingUnionOwnArray: each lock's union of blame spans
// (Doing.Spans) is in an array of its own length, not in the array its
// spans were collected in (longer: spans merged into the union, and the
// appends' room), which it would keep alive with the index of every
// union made after it: a big recording's report peaked there
// (docs/streaming.md). Every model case.
func TestHoldersDoingUnionOwnArray(t *testing.T) {
	paths, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	locks := 0
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		_, res := testrec.Build(t, testrec.Parse(t, path), name)
		for ref, d := range res.Model.Filter(nil).HoldersDoing() {
			locks++
			if cap(d.Spans) != len(d.Spans) {
				t.Errorf("%s: lock %v: its union of %d spans holds an array of %d", name, ref, len(d.Spans), cap(d.Spans))
			}
		}
	}
	if locks == 0 {
		t.Fatal("no lock with holders in the cases")
	}
}

// TestUnionOfRuns checks the union HoldersDoing makes of a lock's spans,
// merged from their packed runs, against the union of the spans sorted
// stably by start (as it was made before, and as DoingIn makes it): the
// same spans, ties included, with holders that differ at equal starts,
// spans long and short, far apart and overlapping; and so with the spans
// written out in sorted chunks of a few spans to many as they come. A
// third of the spans have a hand-off stretch after them (the end of the
// span, from a point in it: a j.u.c. lock's): the union's pieces in and
// out of the stretches are DoingIn's, the stretches merged after a sort.
func TestUnionOfRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ n, runs int }{{0, 1}, {1, 1}, {10, 1}, {10, 10}, {100, 3}, {1000, 7}, {1000, 1000}, {5000, 64}, {20000, 300}} {
		for range 5 {
			ss := make([]OwnerSpan, 0, c.n)
			for k := 0; k < c.runs; k++ {
				at := format.Time(r.IntN(1000)) - 500
				for i := 0; i < c.n/c.runs; i++ {
					at += format.Time(r.IntN(3))
					long := format.Time(1 + r.IntN(4))
					if r.IntN(50) == 0 {
						long = 1 << (33 + r.IntN(20))
					}
					ss = append(ss, OwnerSpan{Start: at, End: at + long, Owner: format.ThreadID(r.IntN(4)) << (r.IntN(2) * 40)})
					if r.IntN(3) == 0 {
						from := at + format.Time(r.Int64N(int64(long)+1))
						ss = append(ss, OwnerSpan{Start: from, End: at + long, Owner: HandOffOwner})
					}
				}
			}
			if c.runs == 1000 {
				r.Shuffle(len(ss), func(i, j int) { ss[i], ss[j] = ss[j], ss[i] })
			}
			got, gotParts := UnionOfRuns(ss)
			want, wantParts := UnionSorted(ss)
			if !slices.Equal(got, want) {
				t.Fatalf("%d spans in %d runs: union %d spans, sorted %d spans", c.n, c.runs, len(got), len(want))
			}
			if !slices.Equal(gotParts, wantParts) {
				t.Fatalf("%d spans in %d runs: %d pieces, sorted %d pieces", c.n, c.runs, len(gotParts), len(wantParts))
			}
			if cap(got) != len(got) {
				t.Errorf("%d spans: the union of %d holds an array of %d", c.n, len(got), cap(got))
			}
			for _, chunk := range []int{1, 40, 3000, 1 << 20} {
				spilt, spiltParts, err := UnionOfRunsSpilt(t.TempDir(), ss, chunk)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(spilt, want) || !slices.Equal(spiltParts, wantParts) {
					t.Fatalf("%d spans in %d runs, chunks of %d bytes spilt: union %d spans, sorted %d spans; %d pieces, %d", c.n, c.runs, chunk, len(spilt), len(want), len(spiltParts), len(wantParts))
				}
			}
		}
	}
}

// TestHoldersDoingAsDoingIn: on every model case, each lock's Doing
// (HoldersDoing: spans packed and merged, folded holder by holder) is
// DoingIn of the lock's blame spans and hand-off stretches collected
// thread by thread (sorted stably, folded span by span): the two ways
// agree.
func TestHoldersDoingAsDoingIn(t *testing.T) {
	paths, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	locks := 0
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		_, res := testrec.Build(t, testrec.Parse(t, path), name)
		m := res.Model
		v := m.Filter(nil)
		spans, hand := map[LockRef][]OwnerSpan{}, map[LockRef][]OwnerSpan{}
		for _, th := range v.Threads {
			for i := range th.Intervals {
				iv := &th.Intervals[i]
				ref := LockRef{Object: iv.Object, Kind: Monitor}
				if iv.Acquire {
					ref.Kind = JUCLock
				} else if iv.State != Blocked {
					continue
				}
				for sp := range m.BlameSpans(th.ID, iv) {
					if sp.End > sp.Start {
						spans[ref] = append(spans[ref], sp)
					}
				}
				if from, ok := iv.HandOff(); ok {
					hand[ref] = append(hand[ref], OwnerSpan{Start: from, End: iv.End})
				}
			}
		}
		for ref, d := range v.HoldersDoing() {
			locks++
			want := m.DoingIn(ref, spans[ref], hand[ref])
			if len(want.Spans) == 0 && len(d.Spans) == 0 {
				want.Spans = d.Spans
			}
			if !reflect.DeepEqual(d, want) {
				t.Errorf("%s: lock %v: HoldersDoing %+v, DoingIn %+v", name, ref, d, want)
			}
		}
	}
	if locks == 0 {
		t.Fatal("no lock with holders in the cases")
	}
}
