package web

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"orca/internal/synth"
)

// shotJS watches the timeline's box with a ResizeObserver made after the
// timeline's own: its callback runs right after the timeline's resize,
// before the browser paints, as a screenshot taken then sees the page.
// It resolves window.shot with what the canvas holds there: the share of
// black pixels (a canvas given a size and not drawn since is black), the
// lanes on screen, those that should show a state other than runnable
// (their row says the thread spent time in one, or their row is not
// here) and those that show one, the lanes the taller screen added, and
// the status line ('loading…' while a row or tile is missing).
const shotJS = `(() => {
  const tl = orca.timeline;
  const lanesOnScreen = () => {
    const st = orca.app.state, out = [];
    for (const r of tl.rows) if (r.kind === 'lane' && r.y + r.h > st.y && r.y < st.y + tl.h - 26) out.push(r);
    return out;
  };
  const before = new Set(lanesOnScreen().map((r) => r.thread));
  let calls = 0;
  window.shot = new Promise((resolve) => {
    const ro = new ResizeObserver(() => {
      if (calls++ === 0) { window.shotReady = true; return; } // the size it starts with
      ro.disconnect();
      const c = tl.canvas, W = c.width;
      const px = c.getContext('2d').getImageData(0, 0, W, c.height).data;
      let black = 0;
      for (let i = 0; i < px.length; i += 4) if (!px[i] && !px[i + 1] && !px[i + 2]) black++;
      const st = orca.app.state;
      let want = 0, drawn = 0, added = 0;
      const missing = [];
      for (const r of lanesOnScreen()) {
        if (!before.has(r.thread)) added++;
        const row = tl.threads[r.thread];
        if (row && !row.time.slice(1, 7).some((v) => v > 0)) continue;
        want++;
        let ok = false;
        const y0 = 26 + r.y - st.y;
        for (let y = Math.max(26, y0); y < Math.min(c.height, y0 + r.h) && !ok; y++) {
          for (let x = 250; x < W; x++) {
            const i = 4 * (y * W + x);
            if (px[i] >= 140 || px[i + 2] >= 140) { ok = true; break; }
          }
        }
        if (ok) drawn++; else missing.push(r.thread);
      }
      resolve(JSON.stringify({ black: black / (px.length / 4), want, drawn, added, missing: missing.slice(0, 10), status: tl.status.textContent }));
    });
    ro.observe(tl.wrap);
  });
  return true;
})()`

type shot struct {
	Black   float64
	Want    int
	Drawn   int
	Added   int
	Missing []int
	Status  string
}

// shoot makes the page 1280 × 800 as headless Chromium's --screenshot
// does just before it shoots (the page ran in a smaller box until
// then), and returns the canvas as that screenshot would see it.
func shoot(t *testing.T, ctx context.Context) shot {
	t.Helper()
	eval[bool](t, ctx, shotJS)
	waitJS(t, ctx, "the observer's first call", `window.shotReady`)
	within(t, ctx, 10*time.Second, "the window made taller", chromedp.EmulateViewport(1280, 800))
	var s shot
	if err := json.Unmarshal([]byte(eval[string](t, ctx, `window.shot`)), &s); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "shot-"+t.Name()[len("TestBrowserShot/"):]+".png")
	if s.Added == 0 {
		t.Fatalf("the taller screen shows no lane more: the test shows nothing (%+v)", s)
	}
	return s
}

// TestBrowserShot: the first screen is drawn whatever the timing of the
// page's animation frames and answers. chromium --headless
// --virtual-time-budget=8000 --screenshot shot the timeline black 6
// times in 6 on a first open: virtual time runs the page's timers and
// answers on to the budget's end without waiting for animation frames,
// so the page, which asked the rows and tiles of the lanes on screen
// only from a frame's draw, had asked none; then the shot set the page
// to its --window-size, which cleared the canvas, drawn again only at the
// next frame, after the shot. The page now asks what the screen lacks at
// once (Timeline.ask), a resized canvas is drawn in the resize, and the
// tiles of a screen's lanes below are prefetched.
//
// "no frames": the page never gets an animation frame (a tab in the
// background; the extreme of virtual time); "virtual time": the budget as
// the command line gives it. Each time the page then gets taller, and the
// canvas must show every lane on the taller screen, with nothing missing.
func TestBrowserShot(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	r := synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20})
	check := func(t *testing.T, s shot) {
		t.Helper()
		t.Logf("%+v", s)
		if s.Black > 0.01 || s.Drawn < s.Want || s.Want == 0 || s.Status != "" {
			t.Errorf("the canvas after the resize: %.0f %% black, %d of %d lanes drawn (not: %v), status %q; want none black, every lane drawn, nothing missing",
				100*s.Black, s.Drawn, s.Want, s.Missing, s.Status)
		}
	}

	t.Run("no frames", func(t *testing.T) {
		ts := serve(t, r)
		ctx := newBrowser(t, 1280, 661)
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.requestAnimationFrame = () => 1; window.cancelAnimationFrame = () => {};`,
		}); err != nil {
			t.Fatal(err)
		}
		open(t, ctx, ts.URL+"/")
		// Until the page asks nothing more: none waiting, and no new
		// request for 500 ms.
		last, since := -1, time.Now()
		for time.Since(since) < 500*time.Millisecond {
			n := eval[int](t, ctx, `(() => { const tl = orca.timeline;
  return tl.inflight || tl.queue.length || tl.rowsWaiting ? -1 : performance.getEntriesByType('resource').length; })()`)
			if n < 0 || n != last {
				last, since = n, time.Now()
			}
			time.Sleep(50 * time.Millisecond)
		}
		check(t, shoot(t, ctx))
	})

	t.Run("virtual time", func(t *testing.T) {
		ts := serve(t, r)
		ctx := newBrowser(t, 1280, 661)
		// As headless Chromium does with --virtual-time-budget: virtual
		// time paused, the page asked, then the budget given.
		policy := func(p emulation.VirtualTimePolicy, budget float64) {
			t.Helper()
			pp := emulation.SetVirtualTimePolicyParams{Policy: p}
			if budget > 0 {
				pp.Budget = &budget
			}
			if _, err := chromedp.Call(ctx, emulation.SetVirtualTimePolicy, pp); err != nil {
				t.Fatal(err)
			}
		}
		policy(emulation.VirtualTimePolicyPause, 0)
		expired := chromedp.Events(ctx, emulation.VirtualTimeBudgetExpired)
		// Not chromedp.Navigate: it waits for the load event, which the
		// budget's end can leave waiting (virtual time stops there).
		if _, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: ts.URL + "/"}); err != nil {
			t.Fatal(err)
		}
		policy(emulation.VirtualTimePolicyPauseIfNetworkFetchesPending, 8000)
		done := make(chan error, 1)
		go func() {
			for _, err := range expired {
				done <- err
				return
			}
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the virtual time budget did not run out in 60 s")
		}
		check(t, shoot(t, ctx))
	})
}
