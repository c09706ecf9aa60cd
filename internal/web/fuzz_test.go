package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/testrec"
)

// FuzzViewSpilled: whatever .orca text it reads, the viewer answers
// every request TestSpillAnswers makes (every API, on every thread,
// interval, lock and zoom level, whole and through thread filters) the
// same, byte for byte, from the model orca view builds (ModelOptions: the
// intervals, owners and edges in the spill, the threads packed) as from
// the model built in memory. TestSpillAnswers checks this on the cases;
// the fuzzer on lines out of order, lost ends, owners named late and
// threads that come back, where the fold's late rules meet the spill's
// readers. So does the viewer's index written from that model (the
// first screen's answers and tiles of every level). A hash of the input picks a time range in a third of the
// inputs (orca view --from and --to: between two of its events' times,
// or from one to the end). Seeded with the model cases and FuzzModelText's
// corpus.
func FuzzViewSpilled(f *testing.F) {
	testrec.FuzzText(f, "../model", func(t *testing.T, data []byte, dir, prefix string) bool {
		return viewDiffers(t, dir, prefix, data, false)
	})
}

// FuzzViewSynth is FuzzViewSpilled on recordings orca-gen writes
// (testrec.SynthShape: the agent's mix, compact in seven eighths, a lock
// convoy in an eighth).
func FuzzViewSynth(f *testing.F) {
	testrec.FuzzSynth(f, func(t *testing.T, s testrec.SynthShape, dir, prefix string) bool {
		return viewDiffers(t, dir, prefix, s.Key(), true)
	})
}

// viewDiffers compares the viewer's answers, and those of its index, for
// the recording prefix (its directory dir takes the spill and the index)
// from the model orca view builds with the model in memory's, a time
// range picked by key's hash, and fails t, returning true, where they
// differ. A recording that cannot be read or built skips t, or fails it
// when strict.
func viewDiffers(t *testing.T, dir, prefix string, key []byte, strict bool) bool {
	t.Helper()
	// Both models sealed after every event, as the model's own tests
	// are: the spilled one gives up what it holds as the fold goes, and
	// the viewer reads it back.
	defer model.SetSealEveryEvent()()
	build := func(o model.Options) (*reader.Recording, *model.Result, error) {
		rec, err := reader.Open(prefix)
		if err != nil {
			return nil, nil, err
		}
		if from, to, ok := testrec.FuzzRange(t, rec, testrec.NewFuzzPick(key)); ok {
			if o.Span, err = rec.Span(from, to); err != nil {
				t.Fatal(err)
			}
		}
		o.Workers = 1
		res, err := model.Build(rec, o)
		return rec, res, err
	}
	rec, res, err := build(model.Options{})
	if err != nil {
		if strict {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	// Runs of the edges' spill of 7 edges and marks every 5, as
	// TestSpillAnswers has them.
	restore := model.SetEdgeSpillSizes(7, 5)
	o := ModelOptions(rec)
	o.SpillDir = dir
	rec2, res2, err := build(o)
	restore()
	if err != nil {
		t.Fatalf("built as orca view builds it: %v", err)
	}
	mem, spill := New(rec, res, Options{}), New(rec2, res2, Options{})
	get := func(h http.Handler, u string) string {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", u, nil))
		return fmt.Sprintf("%d %s", w.Code, w.Body.Bytes())
	}
	for _, u := range spillURLs(res.Model) {
		a, b := get(mem, u), get(spill, u)
		if a != b {
			i := 0
			for i < min(len(a), len(b)) && a[i] == b[i] {
				i++
			}
			i = max(i-100, 0)
			t.Errorf("%s differs with the intervals in the spill, at byte %d:\nin memory: %.300q\nspilled:   %.300q", u, i, a[i:], b[i:])
		}
	}
	// The viewer's index, written from the model orca view builds, as
	// it writes it: its answers (the first screen's, the tiles of the
	// levels it keeps whole, tiles of the finer ones cut from its
	// lanes) are the model's in memory.
	root := filepath.Join(dir, "cache", "orca", "view")
	ikey := IndexKey("sig", "")
	st, err := spill.WriteIndex(root, ikey)
	if err != nil {
		t.Fatalf("writing the index: %v", err)
	}
	idx, err := OpenIndex(root, ikey)
	if err != nil || idx == nil {
		t.Fatalf("opening the index: %v", err)
	}
	defer idx.Close()
	fromIdx := NewFromIndex(idx, Options{})
	fromIdx.BuildOnDemand(func() {})
	m := res.Model
	n := len(m.Threads)
	urls := append(append([]string{}, indexBodies...), spill.cur.Load().d.indexAnswers(spill.cur.Load().d.keptLocks())...)
	// The levels kept whole, and every finer one (cut from the lanes).
	levels := slices.Clone(st.Levels)
	for l := st.Levels[len(st.Levels)-1] - 1; l >= 0; l-- {
		levels = append(levels, l)
	}
	for _, l := range levels {
		last := int64(m.End-m.Start) / (int64(TileWidth) << l)
		for _, k := range []int64{0, 1, last / 2, last} {
			if k <= last {
				urls = append(urls, fmt.Sprintf("/api/tiles?level=%d&tile=%d&threads=0-%d", l, k, max(n-1, 0)),
					fmt.Sprintf("/api/tiles?level=%d&tile=%d&threads=%d,0", l, k, max(n-1, 0)))
			}
		}
	}
	for _, u := range urls {
		if a, b := get(mem, u), get(fromIdx, u); a != b {
			t.Errorf("%s from the index differs:\nmodel: %.300q\nindex: %.300q", u, a, b)
		}
	}
	if t.Failed() {
		t.Logf("range %+v", res.Span)
	}
	return t.Failed()
}
