package web

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// TestSpillAnswers checks that the viewer answers the same, byte for byte,
// from a model built as orca view builds it (ModelOptions: the intervals
// in the spill alone, read back as asked) as from one that keeps them in
// memory (the one every other test serves): every API of every thread,
// interval, lock and tile level, whole and through thread filters, on
// the hand-written cases of the report and the model and a synthetic
// recording.
func TestSpillAnswers(t *testing.T) {
	prefixes := spillCases(t)
	// Runs of the edges' spill of 7 edges and marks every 5: many of each
	// in a small recording, and a run that ends between two marks.
	defer model.SetEdgeSpillSizes(7, 5)()
	// Sealed after every event, as the model's tests build: what the
	// fold gives up to the spill as it goes (owner changes, hand-offs,
	// the threads' intervals) is read back by these answers too, not
	// only what one seal at the end wrote.
	defer model.SetSealEveryEvent()()
	// Blocks of at most 3 intervals: an interval at an instant, or the
	// k-th, is read from the blocks that hold it (model.ReadIntervalsAt,
	// ReadInterval), found by a search of many.
	defer model.SetIvBlockMax(3)()
	// Tiles of threads of more than 5 intervals cut from the blocks over
	// them (laneByBlocks), not from the thread read whole.
	defer func(n int) { laneWholeMax = n }(laneWholeMax)
	laneWholeMax = 5
	compared, dropped, edges := 0, 0, 0
	for name, prefix := range prefixes {
		rec, res, rec2, res2, ok := bothModels(t, name, prefix)
		if !ok {
			continue
		}
		if res2.Model.IntervalsDropped() {
			dropped++
		}
		if res2.Model.EdgesSpilled() {
			edges += res2.Model.NumEdges()
		}
		mem := httptest.NewServer(New(rec, res, Options{}))
		spill := httptest.NewServer(New(rec2, res2, Options{}))
		for _, u := range spillURLs(res.Model) {
			a, b := getBody(t, mem.URL+u), getBody(t, spill.URL+u)
			if a != b {
				i := 0
				for i < min(len(a), len(b)) && a[i] == b[i] {
					i++
				}
				i = max(i-100, 0)
				t.Errorf("%s: %s differs with the intervals in the spill, at byte %d:\nin memory: %.300q\nspilled:   %.300q", name, u, i, a[i:], b[i:])
			}
			compared++
		}
		mem.Close()
		spill.Close()
	}
	if edges < 1000 {
		t.Errorf("only %d edges in the spill: the test compares little", edges)
	}
	if dropped < len(prefixes)/2 {
		t.Errorf("only %d of %d models were built with their intervals dropped: the test compares little", dropped, len(prefixes))
	}
	t.Logf("%d answers compared, %d models with their intervals dropped, %d edges spilled", compared, dropped, edges)
}

// getBody returns the status and body of a GET.
func getBody(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, b)
}

// spillURLs are the requests TestSpillAnswers compares: every API, on
// every thread, interval (up to 60 a thread), lock and zoom level.
func spillURLs(m *model.Model) []string {
	u := []string{"/api/summary", "/api/threads", "/api/overview", "/api/overview?buckets=37", "/api/locks", "/api/groups",
		"/api/deadlocks", "/api/edges", "/api/flame", "/api/flame?states=blocked,waiting,parked,sleeping,joining,acquiring,idle",
		"/api/flame?jdk=1", "/api/flame/samples", "/api/flame/samples?kind=all"}
	names := map[string]bool{}
	graphs := 0
	for i, t := range m.Threads {
		u = append(u, fmt.Sprintf("/api/threads/%d", i))
		for k, iv := range t.Intervals[:min(len(t.Intervals), 60)] {
			u = append(u, fmt.Sprintf("/api/intervals/%d/%d", i, k), fmt.Sprintf("/api/chain/%d/%d", i, k))
			if iv.State.Waits() && k >= 3 && graphs < 40 && iv.End > iv.Start {
				// The graph in a wait past the thread's first blocks.
				graphs++
				u = append(u, fmt.Sprintf("/api/waitfor?t=%d", int64(iv.Start+(iv.End-iv.Start)/2-m.Start)))
			}
		}
		u = append(u, fmt.Sprintf("/api/intervals/%d/%d", i, len(t.Intervals)))
		if n := strings.Fields(t.Name); len(n) > 0 && !names[n[0]] && len(names) < 4 {
			names[n[0]] = true
		}
	}
	for n := range names {
		q := "?thread=" + url.QueryEscape(n)
		u = append(u, "/api/summary"+q, "/api/locks"+q, "/api/groups"+q, "/api/flame"+q, "/api/flame/samples"+q)
	}
	for _, l := range m.Locks {
		u = append(u, fmt.Sprintf("/api/locks/%s/%s", l.Kind, l.Object), fmt.Sprintf("/api/flame?lock=%s", l.Object))
		if l.Kind == model.Monitor {
			u = append(u, fmt.Sprintf("/api/flame/samples?lock=%s", l.Object))
		}
	}
	dur := int64(m.End - m.Start)
	for _, f := range []int64{0, 1, 2, 3, 5, 8} {
		u = append(u, fmt.Sprintf("/api/waitfor?t=%d", dur*f/8))
	}
	// The edges over ranges (one before the start, one after the end,
	// an instant), by kind, of some threads, and cut by a limit.
	for _, r := range [][2]int64{{0, dur / 7}, {dur / 3, dur / 2}, {dur / 2, dur / 2}, {dur * 5 / 8, dur}, {-dur, -1}, {dur + 1, 2*dur + 1}, {-dur, 2 * dur}} {
		q := fmt.Sprintf("/api/edges?t0=%d&t1=%d", r[0], r[1])
		u = append(u, q, q+"&limit=3", q+"&kinds=wake,unpark", q+"&kinds=owner,release&limit=2", q+"&kinds=start,join")
		if len(m.Threads) > 3 {
			u = append(u, q+"&threads=1,3", fmt.Sprintf("%s&threads=%d-%d&limit=5", q, len(m.Threads)/2, len(m.Threads)-1))
		}
	}
	all := fmt.Sprintf("0-%d", len(m.Threads)-1)
	for level := 0; level <= MaxLevel; level += 3 {
		span := int64(1) << level * TileWidth
		for k := int64(0); k <= min(dur/span, 3); k++ {
			u = append(u, fmt.Sprintf("/api/tiles?level=%d&tile=%d&threads=%s", level, k, all))
		}
	}
	if len(m.Locks) > 0 {
		u = append(u, fmt.Sprintf("/api/tiles?level=20&tile=0&threads=%s&lock=%s", all, m.Locks[0].Object))
	}
	return u
}

// spillCases are the recordings the spill's tests serve, by name: the
// hand-written cases of the report and the model and a synthetic one.
func spillCases(t *testing.T) map[string]string {
	var cases []string
	for _, dir := range []string{"../report/testdata", "../model/testdata/cases"} {
		m, _ := filepath.Glob(filepath.Join(dir, "*.txtar"))
		cases = append(cases, m...)
	}
	prefixes := map[string]string{}
	for _, path := range cases {
		prefixes[path] = testrec.Files(t, path)
	}
	prefixes["synthetic small"] = synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20}).prefix
	return prefixes
}

// bothModels builds the recording at prefix twice: its intervals in
// memory, and as orca view builds it (ModelOptions); false when the first
// cannot be built (a case of malformed input).
func bothModels(t *testing.T, name, prefix string) (*reader.Recording, *model.Result, *reader.Recording, *model.Result, bool) {
	rec, err := reader.Open(prefix)
	if err != nil {
		return nil, nil, nil, nil, false
	}
	res, err := model.Build(rec, model.Options{})
	if err != nil {
		return nil, nil, nil, nil, false
	}
	rec2, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	res2, err := model.Build(rec2, ModelOptions(rec2))
	if err != nil {
		t.Fatalf("%s: built as orca view builds it: %v", name, err)
	}
	return rec, res, rec2, res2, true
}

// TestObjectUse: a lock's detail's threads and span (data.objectUse), made
// with the holders' fold for every contended lock's object or read for one
// object alone, are
// those of every interval on the object, found in a model that keeps its
// intervals in memory, for every lock of the report's and the model's
// cases and a synthetic recording, the model built as orca view builds it
// with blocks of 3 intervals.
func TestObjectUse(t *testing.T) {
	prefixes := spillCases(t)
	defer model.SetIvBlockMax(3)()
	locks, contended, threads := 0, 0, 0
	for name, prefix := range prefixes {
		_, res, rec2, res2, ok := bothModels(t, name, prefix)
		if !ok {
			continue
		}
		m := res.Model
		d := newData(rec2, res2)
		for _, l := range res2.Model.Locks {
			want := objUse{first: m.End, last: m.Start}
			for i, th := range m.Threads {
				in := false
				for _, iv := range th.Intervals {
					if iv.Object == l.Object {
						in = true
						want.first, want.last = min(want.first, iv.Start), max(want.last, iv.End)
					}
				}
				if in {
					want.threads = append(want.threads, int32(i))
				}
			}
			for _, kept := range []bool{l.Contended(), false} {
				got, err := d.objectUse(l.Object, kept)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(*got) != fmt.Sprint(want) {
					t.Errorf("%s: %s %s (read for every contended lock: %v): %+v, want %+v", name, l.Kind, l.Object, kept, *got, want)
				}
			}
			locks++
			if l.Contended() {
				contended++
				if d.uses[l.Object] == nil {
					t.Errorf("%s: %s %s: contended, its use not made with the holders' fold", name, l.Kind, l.Object)
				}
			}
			threads += len(want.threads)
		}
	}
	if contended == 0 || locks == contended || threads == 0 {
		t.Errorf("%d locks, %d contended, %d threads: the test sees too little", locks, contended, threads)
	}
}
