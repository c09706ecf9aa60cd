package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"orca/internal/model"
	"orca/internal/testrec"
)

// TestBrowserIndex opens the page on a server that answers from the
// recording's index alone (NewFromIndex, the model not read): it loads and
// draws the timeline's lanes and its overview from the index, and the
// other tabs as they first show, without reading the model; a thread's
// detail has it read (BuildOnDemand), the page noting meanwhile that it
// is read, and shows once it is.
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
	srv, idx := reopenedServer(t, root, key)
	// The model is read when a detail asks it: here it is given at once.
	ready := make(chan bool)
	var builds atomic.Int32
	srv.BuildOnDemand(func() {
		builds.Add(1)
		<-ready
		srv.Ready(rec, res)
	})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	ctx := newBrowser(t, 1400, 900)
	openIndexPage(t, ctx, ts.URL+"/")
	if eval[bool](t, ctx, `!!document.querySelector('.fatal') || !!document.querySelector('.toast.error')`) {
		t.Fatalf("the page shows an error: %s", eval[string](t, ctx, `document.body.textContent.slice(0, 300)`))
	}
	waitJS(t, ctx, "the overview from the index", `!!window.orca.timeline.ovData`)
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
	screenshot(t, ctx, "index.png")
	// The other tabs as they first show: from the index.
	eval[bool](t, ctx, `(orca.app.show('deadlocks'), true)`)
	waitJS(t, ctx, "the wait-for graph from the index", `!!document.querySelector('#view-deadlocks .graph-title')`)
	eval[bool](t, ctx, `(orca.app.show('flame'), true)`)
	waitJS(t, ctx, "the flame graph from the index", `!!window.orca.app.flame.data`)
	eval[bool](t, ctx, `(orca.app.show('locks'), true)`)
	if b := builds.Load(); b != 0 {
		t.Fatalf("the tabs as they first show started the model's build (%d)", b)
	}
	// A lock on the timeline: its detail's threads from the index (kept),
	// its lanes drawn from the tiles without it, undimmed, while its
	// highlight waits for the model, which it starts.
	var locks []lockJSON
	getJSON(t, ts, "/api/locks", &locks)
	lk := locks[0]
	eval[bool](t, ctx, `(orca.app.show('timeline'), orca.app.setLock('`+lk.Object+`', null, '`+lk.Kind+`').then(() => true))`)
	// At a time and zoom not shown yet (the zooms before went through the
	// levels around at): no tile of it without the lock at hand.
	other := float64(m.End-m.Start) * 0.9
	eval[bool](t, ctx, fmt.Sprintf(`(orca.timeline.setRange(%f, %f), true)`, other-4e5, other+4e5))
	if eval[bool](t, ctx, `orca.app.lockThreads == null`) {
		t.Fatalf("lock %s %s: its threads not loaded from the index", lk.Kind, lk.Object)
	}
	meanwhile := `(() => { const tl = orca.timeline;
		for (const c of tl.cache.values()) {
			if (c.lock !== '` + lk.Object + `' || !c.reading || c.level !== tl.level()) continue;
			const p = tl.cache.get(c.level + ':' + c.k + ':');
			if (p && p.lanes.size > 0 && [...p.lanes].every(([th, l]) => l.plain && tl.lane(c.level, c.k, th) === l)) return true;
		}
		return false; })()`
	waitJS(t, ctx, "the lock's lanes drawn without it while it waits", meanwhile)
	screenshot(t, ctx, "index-lock-waiting.png")
	// A thread's detail: the model is read for it, the page says so
	// meanwhile, and shows it once read.
	eval[bool](t, ctx, `(orca.app.panel.showThread(0), true)`)
	waitJS(t, ctx, "a note that the recording is read", `[...document.querySelectorAll('.toast.note')].some((e) => e.textContent.includes('still reading the recording'))`)
	if b := builds.Load(); b != 1 {
		t.Fatalf("a lock's highlight and a thread's detail asked: the model's build started %d times, want once", b)
	}
	close(ready)
	waitJS(t, ctx, "the lock's highlight once the model is read", `[...orca.timeline.cache.values()].some((c) => c.lock === '`+lk.Object+`' && c.lanes.size > 0 && !c.reading)`)
	waitJS(t, ctx, "the thread's detail once the model is read", `document.getElementById('panel').textContent.includes('Started at')`)
	if eval[bool](t, ctx, `!!document.querySelector('.toast.error')`) {
		t.Errorf("the page shows an error: %s", eval[string](t, ctx, `document.querySelector('.toast.error').textContent`))
	}
}

// openIndexPage opens the page at url and waits for its first lanes (of
// a server reopened from its index).
func openIndexPage(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	open(t, ctx, url)
	waitJS(t, ctx, "lanes drawn from the index", `window.orca && window.orca.timeline &&
		[...window.orca.timeline.cache.values()].some((c) => c.lanes.size > 0)`)
}
