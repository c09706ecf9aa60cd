package model

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"orca/internal/format"
)

// heldRecs returns n records of holders drawn from m, whose identity
// hashes are random (31 bits) and a few of rank 1, as a recording's.
func heldRecs(r *rand.Rand, n, m int) []heldRec {
	ids := make([]format.ThreadID, m)
	for i := range ids {
		ids[i] = format.NewThreadID(r.Uint32()>>1, uint32(r.IntN(50)/49))
	}
	rs := make([]heldRec, n)
	for i := range rs {
		at := format.Time(1<<40 + r.IntN(1<<36))
		if r.IntN(4) == 0 && i > 0 {
			at = rs[i-1].s // equal starts keep their order
		}
		rs[i] = heldRec{h: ids[r.IntN(m)], s: at, e: at + format.Time(r.IntN(100)), k: int32(r.IntN(1000))}
	}
	return rs
}

// TestHeldSort checks heldSort.each with a spill (its buckets written a
// block at a time, or at each span; read back in pieces of a span, a few,
// many, or whole) and without: every span comes once, holder by holder
// (each holder's together, in order of their IDs within a bucket), each
// holder's in a stable order by start. One holder, holders close
// together, apart (random hashes, of two ranks); runs in order of start
// as a lock's come, and random. With pieces, a bucket of more spans is
// merged from as many runs as it has pieces, and what a piece holds in
// memory is at most a piece's. And so with a spill whose writes fail
// (after its first buffer, 1 MB): a bucket's blocks then stay in memory,
// and its pieces after the last written are merged from memory.
func TestHeldSort(t *testing.T) {
	s, err := openSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.f.Close()
	if err := s.done(); err != nil {
		t.Fatal(err)
	}
	oldBlock, oldPiece, oldHook := heldBlock, heldPiece, heldMerged
	defer func() { heldBlock, heldPiece, heldMerged = oldBlock, oldPiece, oldHook }()
	r := rand.New(rand.NewPCG(3, 4))
	merged, failedMidway := 0, 0
	for _, way := range []string{"memory", "spill", "failing"} {
		for _, block := range []int{0, 100, 16 << 10} {
			heldBlock = block
			for _, piece := range []int{1, 2, 7, 1000, oldPiece} {
				if way == "memory" && piece != oldPiece {
					continue
				}
				heldPiece = piece
				for _, n := range []int{0, 1, 2, 3, 100, 5000, 70000} {
					for _, m := range []int{1, 2, 40, 3000} {
						if piece < 7 && n > 5000 {
							continue // a run a span or two: slow
						}
						in := heldRecs(r, n, m)
						if m == 40 {
							for i := range in {
								in[i].h = 1000 + in[i].h%40 // close: a digit, two
							}
						}
						if n%2 == 1 {
							// Runs in order of start, as a lock's union comes.
							for lo := 0; lo < len(in); lo += 1 + r.IntN(500) {
								part := in[lo:min(lo+500, len(in))]
								slices.SortStableFunc(part, func(a, b heldRec) int { return cmp.Compare(a.s, b.s) })
							}
						}
						var sp *spillFile
						switch way {
						case "spill":
							sp = s
						case "failing":
							sp = failingSpill(t)
						}
						name := fmt.Sprintf("%s, block %d, piece %d, n %d, m %d", way, block, piece, n, m)
						hs := heldSort{sp: sp}
						inBucket := make([]int, heldBuckets)
						for _, rec := range in {
							hs.add(rec.k, OwnerSpan{rec.s, rec.e, rec.h})
							inBucket[heldBucketOf(rec.h)]++
						}
						wantRuns, gotRuns := 0, 0
						for _, c := range inBucket {
							if c > piece {
								wantRuns += (c + piece - 1) / piece
							}
						}
						heldMerged = func(runs int) { gotRuns += runs }
						var got []heldRec
						hs.each(func(k int32, s OwnerSpan) {
							got = append(got, heldRec{h: s.Owner, s: s.Start, e: s.End, k: k})
							// A piece's two arrays, their capacity rounded up
							// to the allocator's size (once a write failed,
							// the rest of the bucket).
							if most := piece + piece/8 + 1; way != "failing" && (cap(hs.recs) > most || cap(hs.grp) > most) {
								t.Fatalf("%s: a piece of %d spans held in arrays of %d and %d", name, piece, cap(hs.recs), cap(hs.grp))
							}
						})
						switch {
						case way == "spill" && gotRuns != wantRuns:
							t.Fatalf("%s: %d runs merged, want %d", name, gotRuns, wantRuns)
						case way == "failing" && gotRuns > 1 && gotRuns < wantRuns:
							failedMidway++
						}
						merged += gotRuns
						// Within a bucket (with a spill) the holders in
						// order of their IDs, each's by start, stably.
						key := func(h format.ThreadID) int {
							if sp == nil {
								return 0
							}
							return heldBucketOf(h)
						}
						want := slices.Clone(in)
						slices.SortStableFunc(want, func(a, b heldRec) int {
							c := cmp.Or(cmp.Compare(key(a.h), key(b.h)), cmp.Compare(a.h, b.h))
							if c == 0 && sp != nil {
								c = cmp.Compare(a.s, b.s)
							}
							return c
						})
						if !slices.Equal(got, want) {
							t.Fatalf("%s: not grouped by holder, each's stably by start", name)
						}
					}
				}
			}
		}
	}
	if merged == 0 || failedMidway == 0 {
		t.Errorf("%d buckets merged from pieces, %d of them with runs given up as the spill failed", merged, failedMidway)
	}
}

// failingSpill is a spill whose writes fail: its file is open to read.
func failingSpill(t *testing.T) *spillFile {
	path := filepath.Join(t.TempDir(), "spill")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &spillFile{f: f}
}

// BenchmarkHeldSort adds and folds 1 M spans of 5000 holders, in runs
// of 500 in order of start, with a spill.
func BenchmarkHeldSort(b *testing.B) {
	s, err := openSpill(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.f.Close()
	if err := s.done(); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	in := heldRecs(r, 1<<20, 5000)
	for lo := 0; lo < len(in); lo += 500 {
		part := in[lo:min(lo+500, len(in))]
		slices.SortStableFunc(part, func(a, b heldRec) int { return cmp.Compare(a.s, b.s) })
	}
	for b.Loop() {
		hs := heldSort{sp: s}
		for _, rec := range in {
			hs.add(rec.k, OwnerSpan{rec.s, rec.e, rec.h})
		}
		hs.each(func(int32, OwnerSpan) {})
	}
}

// TestFirstOf checks firstOf against a sort of every entry and its first
// n, on distinct keys in random order (a total order, as Doing.On's).
func TestFirstOf(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	cmpInt := func(a, b *int) int { return cmp.Compare(*a, *b) }
	for _, size := range []int{2, 3, 10, 11, 100, 5000} {
		for _, n := range []int{1, 2, 5, 10, size - 1} {
			if n < 1 || n >= size {
				continue
			}
			xs := r.Perm(size)
			want := slices.Sorted(slices.Values(xs))[:n]
			if got := firstOf(slices.Clone(xs), n, cmpInt); !slices.Equal(got, want) {
				t.Fatalf("size %d, n %d: %v, want %v", size, n, got, want)
			}
		}
	}
}

// TestOnTab checks onTab against a map: entries of few locks and many
// owners (0 among them, and the largest IDs), added to many times.
func TestOnTab(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var tab onTab
	want := map[HeldOn]format.Time{}
	for i := range 200000 {
		h := HeldOn{Lock: LockRef{format.ObjectID(r.IntN(30)), LockKind(r.IntN(2))}, Owner: format.ThreadID(r.IntN(5000))}
		if i%1000 == 0 {
			h.Owner, h.Lock.Object = ^format.ThreadID(0)-format.ThreadID(r.IntN(2)), ^format.ObjectID(0)
		}
		d := format.Time(r.IntN(1000))
		_, had := want[h]
		if added := tab.add(h, d); added == had {
			t.Fatalf("entry %v: added %v, the map had it %v", h, added, had)
		}
		want[h] += d
	}
	if tab.n != len(want) {
		t.Fatalf("%d entries, want %d", tab.n, len(want))
	}
	for _, h := range tab.appendTo(nil) {
		k := h
		k.Time = 0
		if want[k] != h.Time {
			t.Fatalf("entry %v: %d, want %d", k, h.Time, want[k])
		}
	}
}
