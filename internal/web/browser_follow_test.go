package web

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"orca/internal/testrec"
)

// TestBrowserFollow is issue 36's item 5 in a real browser: a page of
// orca view --follow reloads itself when the server has a new model of
// the recording (Server.Update), keeping its view (the Locks tab here),
// and not while the user is at it: it says new data waits, and reloads
// once the input stops for 3 s.
func TestBrowserFollow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	rec1, res1 := testrec.Build(t, testrec.Parse(t, "../report/testdata/contention.txtar"), "contention")
	rec2, res2 := testrec.Build(t, testrec.Parse(t, "../report/testdata/deadlock.txtar"), "deadlock")
	n1, n2 := len(res1.Model.Threads), len(res2.Model.Threads)
	if n1 == n2 {
		t.Fatalf("both recordings have %d threads: the test cannot tell them apart", n1)
	}
	srv := New(rec1, res1, Options{Follow: true})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	ctx := newBrowser(t, 1400, 900)
	open(t, ctx, ts.URL+"/")
	waitJS(t, ctx, "the following mark", `document.querySelector('#rec .follow') && document.querySelector('#rec .follow').textContent.includes('following')`)
	threads := func(n int) string {
		return fmt.Sprintf(`document.querySelector('#rec').textContent.includes('%d threads')`, n)
	}
	if !eval[bool](t, ctx, threads(n1)) {
		t.Fatalf("the header does not say %d threads: %s", n1, eval[string](t, ctx, `document.querySelector('#rec').textContent`))
	}
	eval[bool](t, ctx, `(window.orca.app.show('locks'), true)`)
	waitJS(t, ctx, "the Locks tab in the URL", `location.hash.includes('locks')`)

	// The user moves the mouse while the new model comes: the page waits.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
				eval[bool](t, ctx, `(window.dispatchEvent(new PointerEvent('pointermove')), true)`)
			}
		}
	}()
	srv.Update(rec2, res2)
	waitJS(t, ctx, "the new-data mark", `document.querySelector('#rec .follow').textContent.includes('new data')`)
	if eval[bool](t, ctx, threads(n2)) {
		t.Error("the page reloaded while the user moved the mouse")
	}
	close(stop)
	<-done
	// Then it reloads, with the new model, on the same tab.
	waitJS(t, ctx, "the reload with the new model", threads(n2)+` && window.orca.app && window.orca.app.state.view === 'locks'`)
	if s := eval[string](t, ctx, `document.querySelector('#rec .follow').textContent`); !strings.Contains(s, "following") {
		t.Errorf("after the reload the mark says %q", s)
	}
	screenshot(t, ctx, "follow.png")
}
