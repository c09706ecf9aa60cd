package web

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"orca/internal/model"
	"orca/internal/testrec"
)

// TestBrowserIndex opens the page on a server that answers from the
// recording's index alone (NewFromIndex, the model still being read): it
// loads and draws the timeline's lanes from the index's tiles, the
// overview (which needs the model) waits without an error, and comes once
// the model is ready.
func TestBrowserIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	prefix := testrec.Files(t, "../report/testdata/contention.txtar")
	rec, res := testrec.OpenWith(t, prefix, model.Options{})
	root := filepath.Join(t.TempDir(), "orca", "view")
	key := IndexKey("contention", "")
	// The coarsest level alone kept whole: the finer ones are cut from
	// the lanes.
	budget := indexBudget
	indexBudget = 1
	_, err := New(rec, res, Options{}).WriteIndex(root, key)
	indexBudget = budget
	if err != nil {
		t.Fatal(err)
	}
	idx, err := OpenIndex(root, key)
	if err != nil || idx == nil {
		t.Fatalf("opening the index: %v", err)
	}
	defer idx.Close()
	srv := NewFromIndex(idx, Options{})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	ctx := newBrowser(t, 1400, 900)
	open(t, ctx, ts.URL+"/")
	waitJS(t, ctx, "lanes drawn from the index", `window.orca && window.orca.timeline &&
		[...window.orca.timeline.cache.values()].some((c) => c.lanes.size > 0)`)
	if eval[bool](t, ctx, `!!document.querySelector('.fatal') || !!document.querySelector('.toast.error')`) {
		t.Fatalf("the page shows an error: %s", eval[string](t, ctx, `document.body.textContent.slice(0, 300)`))
	}
	if eval[bool](t, ctx, `!!window.orca.timeline.ovData`) {
		t.Fatal("the overview was answered before the model was ready")
	}
	// Zoomed in far below the levels kept whole, on an interval's start:
	// its lane from the index.
	kept := idx.Levels()
	m := res.Model
	var at float64
	for _, th := range m.Threads {
		if ivs, _ := m.ReadIntervals(th, nil); len(ivs) > 0 {
			at = float64(ivs[0].Start - m.Start)
			break
		}
	}
	level := eval[float64](t, ctx, fmt.Sprintf(`(orca.timeline.setRange(%f, %f), orca.timeline.idle().then(() => orca.timeline.level()))`, at-5e3, at+5e3))
	if int(level) >= kept[len(kept)-1] {
		t.Fatalf("zoomed in to level %v, not below the finest kept whole (%v)", level, kept)
	}
	waitJS(t, ctx, "an interval of the finer level from the index", `(() => { const tl = window.orca.timeline, l = tl.level();
		return [...tl.cache.values()].some((c) => c.level === l && c.segs > 0); })()`)
	if eval[bool](t, ctx, `!!document.querySelector('.fatal') || !!document.querySelector('.toast.error')`) {
		t.Fatalf("zoomed in, the page shows an error: %s", eval[string](t, ctx, `document.body.textContent.slice(0, 300)`))
	}
	srv.Ready(rec, res)
	waitJS(t, ctx, "the overview once the model is ready", `!!window.orca.timeline.ovData`)
	if eval[bool](t, ctx, `!!document.querySelector('.toast.error')`) {
		t.Errorf("the page shows an error: %s", eval[string](t, ctx, `document.querySelector('.toast.error').textContent`))
	}
	screenshot(t, ctx, "index.png")
}
