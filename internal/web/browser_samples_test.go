package web

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// TestBrowserSamples drives the views of samples and scheduler times
// (issue 33) on the model's case holder-doing (samples_test.go says its
// figures): the holder's runnable time drawn as running, ready and other,
// as wide as the model's split and in its colours; b1's contention's
// panel says what the holder did, and one click shows the holder's lane
// and the flame graph of its samples in that span; the flame graph's CPU
// and wall modes; the lock's entry with its holders' figures and their
// flame graph.
func TestBrowserSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	r := fromTxtar(t, holderCase)
	holder, b1 := threadIndex(t, r, "holder"), threadIndex(t, r, "b1")
	ts := serve(t, r)
	ctx := newBrowser(t, 1500, 900)
	open(t, ctx, ts.URL+"/")
	waitJS(t, ctx, "the first paint", `document.querySelector('canvas.timeline').dataset.painted`)

	t.Run("running ready other", func(t *testing.T) {
		eval[bool](t, ctx, `(orca.timeline.fit(), orca.timeline.idle().then(() => true))`)
		legend := eval[string](t, ctx, `(() => { const l = document.querySelector('.run-legend'); return l && !l.hidden ? l.textContent : 'hidden'; })()`)
		if legend != "(runningreadyother)" {
			t.Errorf("the legend's parts of runnable: %q", legend)
		}
		// The holder: running 1.1 s, ready 0.05 s, other 0.8 s of 1.95 s
		// runnable (the model's Run); the other threads' runnable time is
		// not split.
		w := eval[map[string][]float64](t, ctx, `orca.timeline.runWidths`)
		got := w[fmt.Sprint(holder)]
		if len(w) != 1 || len(got) != 5 {
			t.Fatalf("lanes with runnable time split: %v, want only the holder's (%d)", w, holder)
		}
		nsPerPx := eval[float64](t, ctx, `orca.timeline.nsPerPx`)
		for i, want := range []float64{1.1e9, 0.05e9, 0.8e9, 0, 0} {
			if px := want / nsPerPx; math.Abs(got[i]-px) > 1.5 {
				t.Errorf("the holder's %s drawn %.1f px wide, want %.1f (%.0f ns at %.0f ns a pixel)", []string{"running", "ready", "other", "virtual", "unsplit"}[i], got[i], px, want, nsPerPx)
			}
		}
		// Its colours where the model puts them: 0..0.9 s begins with
		// running; 1..2 s is 0.5 s running then 0.5 s other.
		color := func(at float64) string {
			return eval[string](t, ctx, fmt.Sprintf(`(() => { const tl = orca.timeline; const p = tl.ctx.getImageData(Math.round(tl.x(%f)), Math.round(tl.laneMid(%d)), 1, 1).data; return '#' + [p[0], p[1], p[2]].map((v) => v.toString(16).padStart(2, '0')).join(''); })()`, at, holder))
		}
		for at, want := range map[float64]string{0.05e9: "#3fb96f", 1.2e9: "#3fb96f", 1.9e9: "#8e99a6"} {
			if c := color(at); c != want {
				t.Errorf("the holder's lane at %.2f s is %s, want %s", at/1e9, c, want)
			}
		}
		// The tooltip over a stretch of runnable time gives its split: the
		// holder's 1..2 s, 0.5 s running and 0.5 s other.
		type pt struct{ X, Y float64 }
		p := eval[pt](t, ctx, fmt.Sprintf(`(() => { const tl = orca.timeline, r = tl.canvas.getBoundingClientRect(); return { X: r.left + tl.x(1.9e9), Y: r.top + tl.laneMid(%d) }; })()`, holder))
		within(t, ctx, 10*time.Second, "hover", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, p.X, p.Y))
		waitJS(t, ctx, "the tooltip", `!document.querySelector('.tl-wrap .tooltip').hidden`)
		tip := eval[string](t, ctx, `document.querySelector('.tl-wrap .tooltip').innerText`)
		if !strings.Contains(tip, "1.000 s runnable here") || !strings.Contains(tip, "running 500.0 ms (50%)") || !strings.Contains(tip, "other 500.0 ms (50%)") {
			t.Errorf("the tooltip over the holder's runnable time at 1.9 s: %q", tip)
		}
		within(t, ctx, 10*time.Second, "leave", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 1, 1))
		// The thread's panel: its whole split, the report's cpu_s, other_s.
		eval[bool](t, ctx, fmt.Sprintf(`(orca.app.gotoThread(%d), true)`, holder))
		waitJS(t, ctx, "the holder's panel", `document.querySelector('#panel .run-split')`)
		if txt := eval[string](t, ctx, `document.querySelector('#panel .run-split').innerText`); !strings.Contains(txt, "running 1.100 s") || !strings.Contains(txt, "ready 50.00 ms") || !strings.Contains(txt, "other 800.0 ms") {
			t.Errorf("the holder's panel says of its runnable time %q", txt)
		}
		screenshot(t, ctx, "samples-timeline.png")
	})

	t.Run("what the holder did", func(t *testing.T) {
		eval[bool](t, ctx, fmt.Sprintf(`(orca.app.gotoInterval(%d, 0), true)`, b1))
		waitJS(t, ctx, "b1's panel", fmt.Sprintf(`document.querySelector('#panel').dataset.shown === '%d.0' && document.querySelector('#panel .holders')`, b1))
		parts := eval[[]string](t, ctx, `[...document.querySelectorAll('#panel .holders .doing-part')].map((e) => e.dataset.part + ' ' + e.querySelector('.num').textContent)`)
		want := []string{"running 600.0 ms · 60%", "other 300.0 ms · 30%", "blocked 50.00 ms · 5.0%", "ready 50.00 ms · 5.0%"}
		if strings.Join(parts, "|") != strings.Join(want, "|") {
			t.Errorf("b1's panel says the holder did %q, want %q", parts, want)
		}
		// One click: the holder's lane over its span, and its samples.
		within(t, ctx, 10*time.Second, "the holder button", chromedp.Click(chromedp.CSS(`#panel .holder-button`)))
		waitJS(t, ctx, "the holder's flame graph", `document.querySelector('#panel .holder-flame canvas.small-flame')`)
		type flame struct{ Top, Leaf, Holder string }
		f := eval[flame](t, ctx, `(() => { const c = document.querySelector('#panel .holder-flame canvas.small-flame'); return { Top: c.dataset.top, Leaf: c.dataset.leaf, Holder: c.closest('.holder-flame').dataset.holder }; })()`)
		if f.Top != "Burner.burn(Burner.java:12)" || f.Holder != fmt.Sprint(holder) {
			t.Errorf("the holder's flame graph: %+v, want Burner.burn(Burner.java:12) on top, of thread %d", f, holder)
		}
		if txt := eval[string](t, ctx, `document.querySelector('#panel .holder-flame').textContent`); !strings.Contains(txt, "4 samples for 900.0 ms") {
			t.Errorf("the holder's flame graph says %q, want 4 samples for 900.0 ms", txt)
		}
		type lane struct {
			Thread     int
			S, E       float64
			Top, Lanes float64
		}
		l := eval[lane](t, ctx, fmt.Sprintf(`(() => { const tl = orca.timeline, hs = tl.holderSpan; return { Thread: hs.thread, S: hs.s, E: hs.e, Top: tl.laneMid(%d), Lanes: tl.h }; })()`, holder))
		if l.Thread != holder || l.S != 0 || l.E != 1e9 || l.Top < 26 || l.Top > l.Lanes {
			t.Errorf("the holder's span on the timeline: %+v, want thread %d, 0..1 s, its lane in view", l, holder)
		}
		screenshot(t, ctx, "samples-holder.png")
		// And the same samples in the Flame graph view.
		within(t, ctx, 10*time.Second, "open in the flame graph", chromedp.Click(chromedp.CSS(`#panel .holder-flame .actions button`)))
		waitJS(t, ctx, "the holder's samples in the flame graph view", `document.querySelector('.flame-info').textContent.includes('900.0 ms in 4 cpu and wall samples')`)
		if info := eval[string](t, ctx, `document.querySelector('.flame-info').textContent`); !strings.Contains(info, "threads matching “00000001”, timeline range only") {
			t.Errorf("the holder's flame graph view says %q", info)
		}
	})

	t.Run("CPU and wall flame graphs", func(t *testing.T) {
		// Every thread, the whole recording: a fresh page.
		open(t, ctx, ts.URL+"/#v=flame&fj=1")
		// The page's own first flame graph (blocking time) in before a kind is chosen: chosen while
		// the page still starts (make test's load), the start's render from the address put the
		// kind back (fresh-clone run of f4cfe3a: "waiting for the cpu flame graph").
		waitJS(t, ctx, "the page's first flame graph", `(() => { const i = document.querySelector('.flame-info'); return !!i && i.textContent.includes("blocked and waiting"); })()`)
		for _, c := range []struct{ kind, top, info string }{
			{"cpu", "Burner.burn(Burner.java:12)", "800.0 ms in 4 cpu samples"},
			{"wall", "app.Store.force(Store.java:22)", "300.0 ms in 1 wall samples"},
			{"", "", "blocked and waiting"},
		} {
			eval[bool](t, ctx, `(orca.app.show('flame'), true)`)
			eval[bool](t, ctx, fmt.Sprintf(`(() => { const s = document.querySelector('select[data-role=flame-kind]'); s.value = %q; s.dispatchEvent(new Event('change')); return true; })()`, c.kind))
			waitJS(t, ctx, "the "+c.kind+" flame graph", fmt.Sprintf(`document.querySelector('.flame-info').textContent.includes(%q)`, c.info))
			if c.top == "" {
				continue
			}
			if top := eval[string](t, ctx, `document.querySelector('canvas.flame').dataset.top`); top != c.top {
				t.Errorf("%s flame graph: top frame %q, want %q", c.kind, top, c.top)
			}
		}
	})

	t.Run("an address while a change waits", func(t *testing.T) {
		// A change is written to the address 150 ms later. A navigation to
		// another address of the page in between (a link, the back button,
		// the next subtest's open: the same document, only the hash
		// differs) must show that address: the old page wrote its old
		// state over it before the hashchange came, then took the
		// hashchange for its own write and kept the old view (the next
		// subtest timed out under load waiting for "600.0 ms in 3 cpu
		// samples"). Here the write comes due in that moment for sure: the
		// page's setTimeout is caught, and its callback run between the
		// address's change and its hashchange (the old page failed).
		// A page loaded afresh (by way of about:blank), started from its
		// address: no hashchange of the last subtest's page pending.
		within(t, ctx, 30*time.Second, "a blank page", chromedp.Navigate("about:blank"))
		open(t, ctx, ts.URL+"/#v=flame&fj=1")
		waitJS(t, ctx, "the page's first flame graph", `(() => { const i = document.querySelector('.flame-info'); return !!i && i.textContent.includes("blocked and waiting"); })()`)
		eval[bool](t, ctx, `(() => {
			const later = window.setTimeout;
			let write = null;
			window.setTimeout = (f) => { write = f; return 0; };
			try { orca.app.state.fjdk = false; orca.app.changed(); } finally { window.setTimeout = later; }
			location.hash = '#v=flame&fk=cpu&ft=00000001&fr=1&r=0,1000000000';
			write();
			return true;
		})()`)
		waitJS(t, ctx, "the new address's flame graph", `document.querySelector('.flame-info').textContent.includes('600.0 ms in 3 cpu samples')`)
		if h := eval[string](t, ctx, `location.hash`); !strings.Contains(h, "fk=cpu") || !strings.Contains(h, "ft=00000001") {
			t.Errorf("the address after the navigation: %q, want the new one's", h)
		}
		// And the page writes its changes to the address again.
		eval[bool](t, ctx, `(() => { const s = document.querySelector('select[data-role=flame-kind]'); s.value = 'wall'; s.dispatchEvent(new Event('change')); return true; })()`)
		waitJS(t, ctx, "the change in the address", `location.hash.includes('fk=wall')`)
	})

	t.Run("the lock's holders", func(t *testing.T) {
		// From a flame graph of one thread's cpu samples in a range: the
		// lock's button shows its holders' samples, never the old graph
		// under the new words (a resize painted it while loading).
		open(t, ctx, ts.URL+"/#v=flame&fk=cpu&ft=00000001&fr=1&r=0,1000000000")
		waitJS(t, ctx, "the holder's cpu samples", `document.querySelector('.flame-info').textContent.includes('600.0 ms in 3 cpu samples')`)
		eval[bool](t, ctx, `(orca.app.showLock('monitor', '0000AAAA'), true)`)
		waitJS(t, ctx, "the lock's holders", `document.querySelector('.lock-detail .holders .holder-frames')`)
		frames := eval[[]string](t, ctx, `[...document.querySelectorAll('.lock-detail .holder-frames tr')].map((tr) => [...tr.children].map((td) => td.textContent).join(' '))`)
		if len(frames) != 2 || frames[0] != "Burner.burn(Burner.java:12) running 3 600.0 ms" || frames[1] != "app.Store.force(Store.java:22) other 1 300.0 ms" {
			t.Errorf("the lock's holders' frames: %q", frames)
		}
		parts := eval[[]string](t, ctx, `[...document.querySelectorAll('.lock-detail .holders .doing-part')].map((e) => e.dataset.part)`)
		if strings.Join(parts, ",") != "running,other,runnable,blocked,ready" {
			t.Errorf("the lock's holders' parts: %q", parts)
		}
		// A monitor's hand-off is told as what its holder did then: said,
		// as the report's text says it.
		if note := eval[string](t, ctx, `document.querySelector('.lock-detail .holders .muted').textContent`); !strings.HasPrefix(note, "A monitor's exit is not recorded") {
			t.Errorf("the monitor's holders' note: %q", note)
		}
		within(t, ctx, 10*time.Second, "the holders' flame graph", chromedp.Click(chromedp.CSS(`.lock-detail button.holders-flame`)))
		waitJS(t, ctx, "the holders' flame graph", `document.querySelector('.flame-info').textContent.includes('of the holders of lock 0000AAAA')`)
		// The first words said must be the answer's.
		if info := eval[string](t, ctx, `document.querySelector('.flame-info').textContent`); !strings.Contains(info, "900.0 ms in 4 cpu and wall samples") {
			t.Errorf("the holders' flame graph says %q", info)
		}
		if top := eval[string](t, ctx, `document.querySelector('canvas.flame').dataset.top`); top != "Burner.burn(Burner.java:12)" {
			t.Errorf("the holders' flame graph: top frame %q", top)
		}
		screenshot(t, ctx, "samples-lock.png")
	})
}

// holderPage opens holderCase's page in a browser of 1000 × 700, for the tests of one of
// its modules' functions; it skips under -short.
func holderPage(t *testing.T) context.Context {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	ts := serve(t, fromTxtar(t, holderCase))
	ctx := newBrowser(t, 1000, 700)
	open(t, ctx, ts.URL+"/")
	return ctx
}

// TestBrowserFlameNativeLabel: a native frame too narrow for its name, "__write
// [libc.so.6]", was labelled "so.6]" in the flame graph (the name split at its dots as a
// Java frame's package). It is labelled by its symbol, cut: "__write", "__wri…".
func TestBrowserFlameNativeLabel(t *testing.T) {
	ctx := holderPage(t)
	for _, c := range []struct {
		frame string
		w     int
	}{
		{"__write [libc.so.6]", 60}, {"__write [libc.so.6]", 30}, {"__pthread_cond_wait [libc.so.6]", 80},
		{"JavaThread::thread_main_inner() [libjvm.so]", 90},
	} {
		got := eval[string](t, ctx, fmt.Sprintf(`import('/static/js/flame.js').then((m) => {
			const c = document.createElement('canvas').getContext('2d');
			c.font = '11px sans-serif';
			const s = m.fit(c, %q, %d);
			return c.measureText(s).width <= %d ? s : 'too wide: ' + s;
		})`, c.frame, c.w, c.w))
		sym, _, _ := strings.Cut(c.frame, " [")
		if got == "" || !strings.HasPrefix(sym, strings.TrimSuffix(got, "…")) {
			t.Errorf("fit(%q, %d px) = %q, want the start of %q", c.frame, c.w, got, sym)
		}
	}
}

// TestBrowserGroupLabel: a group of virtual threads with a long name and five digits of count
// ("virtual http-nio-N.N.N.N-N-virt-N", 22,107 threads: Tomcat 25 with virtual threads) had
// its count drawn over the end of its name (the name cut to a fixed width). The name ends before
// the count, whatever the count.
func TestBrowserGroupLabel(t *testing.T) {
	ctx := holderPage(t)
	for _, c := range []struct {
		name  string
		count int
	}{{"virtual http-nio-N.N.N.N-N-virt-N", 22107}, {"virtual http-nio-N.N.N.N-N-virt-N", 1234567}, {"pool-N-thread-N", 3}, {"ForkJoinPool.commonPool-worker-N", 100000}} {
		got := eval[map[string]any](t, ctx, fmt.Sprintf(`import('/static/js/timeline.js').then((m) => {
			const c = document.createElement('canvas').getContext('2d');
			return m.groupLabel(c, %q, %d);
		})`, c.name, c.count))
		nameRight, _ := got["nameRight"].(float64)
		countLeft, _ := got["countLeft"].(float64)
		name, _ := got["name"].(string)
		if nameRight > countLeft || name == "" {
			t.Errorf("group %q of %d: name %q ends at %.1f px, its count %q begins at %.1f px", c.name, c.count, name, nameRight, got["count"], countLeft)
		}
	}
}
