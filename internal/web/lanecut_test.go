package web

import (
	"math/rand"
	"slices"
	"sort"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
)

// TestLevelCut: a levelCut fed a thread's intervals one at a time gives
// every tile of the thread's span its lane as lane cuts it from the whole
// thread (tileSegments, runPieces) and its records as writeKept counts
// them, at levels whose tiles its intervals span several of or fall
// within, on times that often fall on tiles' bounds (intervals that end
// where a tile begins, zero-length ones on a bound, open ones at the end).
// With keepMin, a tile of more records is cut the same from its
// intervals read again, one of fewer not at all. Fails with a tile given
// an interval that ends at its start, or one that starts at its end, with
// its samples not counted, or with the intervals read again not only
// those over the tile.
func TestLevelCut(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, c := range [][2]int{{0, -1}, {2, -1}, {5, -1}, {0, 3}, {2, 3}, {5, 12}} {
		level, keepMin := c[0], c[1]
		span := format.Time(TileWidth) << level
		grain := span / 4
		th := &model.Thread{Start: 3 * grain, End: 0}
		at := th.Start
		for range 400 {
			at += grain * format.Time(rng.Intn(3))
			if rng.Intn(5) == 0 {
				at += format.Time(rng.Intn(int(grain)))
			}
			d := grain * format.Time(rng.Intn(4))
			if rng.Intn(6) == 0 {
				d = span * format.Time(1+rng.Intn(5)) // over several tiles
			}
			th.Intervals = append(th.Intervals, model.Interval{Start: at, End: at + d, Since: at, State: model.State(1 + rng.Intn(int(model.NumStates)-1))})
			at += d
		}
		th.End = at + grain
		th.Intervals = append(th.Intervals, model.Interval{Start: th.End, End: th.End, State: model.Waiting, Open: true})
		for s := th.Start; s < th.End; s += grain / 2 {
			if rng.Intn(2) == 0 {
				th.Samples = append(th.Samples, model.Sample{At: s, Kind: format.SampleCPU, Weight: 1})
			}
		}
		dur := th.End + span
		type got struct {
			segs []segment
			runs []runPiece
			n    int
		}
		tiles := map[int64]got{}
		lo := min(th.Start, th.Intervals[0].Start)
		lc := newLevelCut(level, th, true, 0, dur, lo, func(k int64, segs []segment, runs []runPiece, n int) {
			if _, ok := tiles[k]; ok {
				t.Fatalf("level %d: tile %d given twice", level, k)
			}
			tiles[k] = got{segs, runs, n}
		})
		if keepMin >= 0 {
			lc.keepMin = keepMin
			lc.reread = func(a0, a1 format.Time, add func(iv *model.Interval, i int)) {
				for i := range th.Intervals { // the whole: add takes those over the tile
					add(&th.Intervals[i], i)
				}
			}
		}
		for i := range th.Intervals {
			lc.add(&th.Intervals[i], i)
		}
		lc.end(max(th.End, th.Intervals[len(th.Intervals)-1].End))
		ivs, smp := th.Intervals, th.Samples
		k0, k1 := int64(lo/span), int64(th.End/span)
		if len(tiles) != int(k1-k0+1) {
			t.Fatalf("level %d: %d tiles given, want %d (%d to %d)", level, len(tiles), k1-k0+1, k0, k1)
		}
		for k := k0; k <= k1; k++ {
			a0, a1 := format.Time(k)*span, format.Time(k+1)*span
			segs := tileSegments(th, a0, a1, format.Time(1)<<level, 0, nil)
			runs := runPieces(th, a0, a1, format.Time(1)<<level, segs, nil)
			n := sort.Search(len(ivs), func(i int) bool { return ivs[i].Start >= a1 }) -
				sort.Search(len(ivs), func(i int) bool { return ivs[i].End > a0 }) +
				sort.Search(len(smp), func(i int) bool { return smp[i].At >= a1 }) -
				sort.Search(len(smp), func(i int) bool { return smp[i].At >= a0 })
			g := tiles[k]
			if keepMin >= 0 && n <= keepMin {
				segs, runs = nil, nil // not wanted: not cut
			}
			if !slices.Equal(g.segs, segs) || !slices.Equal(g.runs, runs) || g.n != n {
				t.Fatalf("level %d, tile %d: cut %v, %v, %d records; the whole's %v, %v, %d", level, k, g.segs, g.runs, g.n, segs, runs, n)
			}
		}
	}
}
