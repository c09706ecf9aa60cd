package web

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"orca/internal/format"
	"orca/internal/report"
	"orca/internal/testrec"
)

// TestBrowserChain (issue 36, items 1 and 2, in the viewer): on a
// recording of LockOrder.java made with --lock-order (the report's case
// chains and the model's case lock-order without a JDK), a click on a
// blocked interval shows its wait chain at the instant clicked, each
// thread one click from its lane then; the Deadlocks view lists the
// potential deadlock with both threads, both locks and both stacks; and
// a recording made without --lock-order says they were not looked for.
func TestBrowserChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	// The blocked interval clicked, and the chain and potential deadlock
	// it must show.
	var (
		r                      *recording
		waiter                 string
		links                  []string // the threads of the chain, in order, the root last
		rootState, heldFrame   string
		potentialThreads       []string
		potentialHeld, pending string
	)
	if lr, why := recordJavaWith(t, "lockorder", "testdata/java/scenarios/LockOrder.java", "--lock-order"); lr != nil {
		r, waiter = lr, "inv-1"
		links, rootState = []string{"inv-1", "holder-inv-1"}, "sleeping"
		potentialThreads, potentialHeld, heldFrame = []string{"inv-1", "inv-2"}, lr.expect["a"], "LockOrder.outerA"
		pending = lr.expect["b"]
	} else {
		t.Logf("serving the report's case chains: cannot record LockOrder.java (%s)", why)
		r, waiter = fromTxtar(t, "../report/testdata/chains.txtar"), "leaf"
		links, rootState = []string{"leaf", "mid", "sleeper"}, "sleeping"
	}
	m := r.res.Model
	wi := threadIndex(t, r, waiter)
	k := -1
	for i, iv := range m.Threads[wi].Intervals {
		if iv.Shown().String() == "blocked" && (pending == "" || iv.Object.String() == pending) {
			k = i
		}
	}
	if k < 0 {
		t.Fatalf("%s has no blocked interval", waiter)
	}
	ts := serve(t, r)
	ctx := newBrowser(t, 1500, 900)
	open(t, ctx, ts.URL+"/")
	waitJS(t, ctx, "the first paint", `document.querySelector('canvas.timeline').dataset.painted`)

	t.Run("chain", func(t *testing.T) {
		type pt struct{ X, Y float64 }
		p := eval[pt](t, ctx, fmt.Sprintf(`window.orca.timeline.locate(%d, %d)`, wi, k))
		within(t, ctx, 10*time.Second, "click", chromedp.MouseClickXY(p.X, p.Y))
		waitJS(t, ctx, "the wait chain", fmt.Sprintf(`document.querySelector('#panel').dataset.shown === '%d.%d' && document.querySelector('#panel .chain[data-state=done]')`, wi, k))
		// The instant clicked, within the interval, is the chain's.
		at := eval[float64](t, ctx, `orca.app.state.selAt`)
		iv := m.Threads[wi].Intervals[k]
		if a := m.Start + format.Time(at); a < iv.Start || a >= iv.End {
			t.Errorf("the instant clicked %.0f is not in the interval", at)
		}
		names := eval[[]string](t, ctx, `[...document.querySelectorAll('#panel .chain-link')].map((li) => li.querySelector('.chain-thread').textContent).concat([...document.querySelectorAll('#panel .chain-root .chain-thread')].map((a) => a.textContent))`)
		if strings.Join(names, " → ") != strings.Join(links, " → ") {
			t.Errorf("the chain's threads %q, want %q", names, links)
		}
		holders := eval[[]string](t, ctx, `[...document.querySelectorAll('#panel .chain-link')].map((li) => [...li.querySelectorAll('.chain-thread')].pop().textContent)`)
		if strings.Join(holders, " ") != strings.Join(links[1:], " ") {
			t.Errorf("each link's holder %q, want %q", holders, links[1:])
		}
		if st := eval[string](t, ctx, `document.querySelector('#panel .chain-root').dataset.state`); st != rootState {
			t.Errorf("the root's state %q, want %q", st, rootState)
		}
		if txt := eval[string](t, ctx, `document.querySelector('#panel .chain-link').textContent`); !strings.Contains(txt, "blocked") || !strings.Contains(txt, "held by") {
			t.Errorf("the first link says %q: want blocked … held by", txt)
		}
		screenshot(t, ctx, "chain-panel.png")
		// One click on the root: its lane at that instant, its interval
		// outlined, the instant marked.
		root := threadIndex(t, r, links[len(links)-1])
		eval[bool](t, ctx, `(orca.timeline.reveal(0, 0), true)`)
		within(t, ctx, 10*time.Second, "the root", chromedp.Click(chromedp.CSS(`#panel .chain-root .chain-thread`)))
		type lane struct {
			Thread        int
			S, E, Instant float64
			Mid, H        float64
			T0, T1        float64
		}
		l := eval[lane](t, ctx, fmt.Sprintf(`(() => { const tl = orca.timeline, hs = tl.holderSpan || {}, st = orca.app.state; return { Thread: hs.thread ?? -1, S: hs.s ?? 0, E: hs.e ?? 0, Instant: st.instant, Mid: tl.laneMid(%d) ?? -1, H: tl.h, T0: st.t0, T1: st.t1 }; })()`, root))
		if l.Thread != root || l.Instant != at || l.S > at || l.E <= at || l.Mid < 26 || l.Mid > l.H || at < l.T0 || at > l.T1 {
			t.Errorf("after a click on the root: %+v, want thread %d's lane in view at %.0f, its interval outlined", l, root, at)
		}
		screenshot(t, ctx, "chain-root.png")
	})

	t.Run("cycle", func(t *testing.T) {
		// The report's case deadlock: main joins left, left and right
		// deadlocked on two monitors. main's chain at 2 s goes into the
		// cycle and back to left, the cycle's root.
		dr := fromTxtar(t, "../report/testdata/deadlock.txtar")
		ts := serve(t, dr)
		mi, mk := intervalIndexAt(t, dr, "main", 2_000_000_000)
		open(t, ctx, ts.URL+"/")
		eval[bool](t, ctx, fmt.Sprintf(`(orca.app.gotoInterval(%d, %d, 2e9), true)`, mi, mk))
		waitJS(t, ctx, "the chain", fmt.Sprintf(`document.querySelector('#panel').dataset.shown === '%d.%d' && document.querySelector('#panel .chain[data-state=done]')`, mi, mk))
		names := eval[[]string](t, ctx, `[...document.querySelectorAll('#panel .chain-link')].map((li) => [...li.querySelectorAll('.chain-thread')].map((a) => a.textContent).join('>'))`)
		if got := strings.Join(names, " "); got != "main>left left>right right>left" {
			t.Errorf("the chain's links %q", got)
		}
		if st := eval[string](t, ctx, `document.querySelector('#panel .chain-root').dataset.state + ' ' + document.querySelector('#panel .chain-root .chain-thread').textContent`); st != "cycle left" {
			t.Errorf("the root %q, want the cycle's, left", st)
		}
		if txt := eval[string](t, ctx, `document.querySelector('#panel .chain-link:last-child').textContent`); !strings.Contains(txt, "a cycle") {
			t.Errorf("the last link says %q: want it to close a cycle", txt)
		}
		screenshot(t, ctx, "chain-cycle.png")
	})

	t.Run("potential deadlocks", func(t *testing.T) {
		if potentialThreads == nil {
			pr := fromTxtar(t, "../model/testdata/cases/lock-order.txtar")
			potentialThreads, potentialHeld, heldFrame = []string{"a", "b"}, "00001111", ""
			ts := serve(t, pr)
			open(t, ctx, ts.URL+"/#v=deadlocks")
		} else {
			open(t, ctx, ts.URL+"/#v=deadlocks")
		}
		waitJS(t, ctx, "the potential deadlocks", `document.querySelector('.pd-card')`)
		if n := eval[int](t, ctx, `document.querySelectorAll('.pd-card').length`); n != 1 {
			t.Errorf("%d potential deadlocks listed, want 1", n)
		}
		if c := eval[string](t, ctx, `document.querySelector('.potential-head .count').textContent`); c != "1" {
			t.Errorf("the count says %q", c)
		}
		names := eval[[]string](t, ctx, `[...document.querySelectorAll('.pd-edge > a b, .pd-edge > b')].map((b) => b.textContent)`)
		if strings.Join(names, ",") != strings.Join(potentialThreads, ",") {
			t.Errorf("the potential deadlock's threads %q, want %q", names, potentialThreads)
		}
		first := eval[string](t, ctx, `document.querySelector('.pd-edge').textContent`)
		if !strings.Contains(first, "held "+potentialHeld) || !strings.Contains(first, "and wanted") {
			t.Errorf("its first edge says %q: want held %s and wanted …", first, potentialHeld)
		}
		eval[bool](t, ctx, `([...document.querySelectorAll('.pd-stacks')].forEach((d) => d.open = true), true)`)
		stacks := eval[int](t, ctx, `document.querySelectorAll('.pd-card .pd-stacks .stack:not(.empty)').length`)
		if heldFrame != "" && stacks != 4 {
			t.Errorf("%d stacks shown, want 4 (held and wanted, each edge)", stacks)
		}
		if heldFrame != "" {
			if txt := eval[string](t, ctx, `document.querySelector('.pd-stacks .stack').textContent`); !strings.Contains(txt, heldFrame) {
				t.Errorf("where inv-1 held a: %q, want %s", txt, heldFrame)
			}
		}
		screenshot(t, ctx, "potential-deadlocks.png")
	})

	t.Run("held in no frame", func(t *testing.T) {
		// b held 2222 through JNI's MonitorEnter (no depth): no frame to
		// show, and the page says why in the report's words.
		prefix := testrec.Files(t, "../model/testdata/cases/lock-order.txtar")
		b, err := os.ReadFile(prefix + ".orca")
		if err != nil {
			t.Fatal(err)
		}
		jni := strings.Replace(string(b), "MonitorHeld,0000000B,00002222,1\n", "MonitorHeld,0000000B,00002222,\n", 1)
		if jni == string(b) {
			t.Fatal("b's MonitorHeld of 2222 is not in the case")
		}
		if err := os.WriteFile(prefix+".orca", []byte(jni), 0o600); err != nil {
			t.Fatal(err)
		}
		r := build(t, prefix)
		var note string
		for _, d := range report.New(r.rec, r.res, report.Options{}).PotentialDeadlocks {
			for _, e := range d.Edges {
				if e.Name != nil && *e.Name == "b" {
					note = e.HeldStackNote
				}
			}
		}
		if want := "in no Java frame: entered through JNI's MonitorEnter"; note != want {
			t.Fatalf("the report's held_stack_note of b is %q, want %q", note, want)
		}
		ts := serve(t, r)
		open(t, ctx, ts.URL+"/#v=deadlocks")
		waitJS(t, ctx, "the potential deadlocks", `document.querySelector('.pd-card')`)
		eval[bool](t, ctx, `([...document.querySelectorAll('.pd-stacks')].forEach((d) => d.open = true), true)`)
		txt := eval[string](t, ctx, `[...document.querySelectorAll('.pd-card .pd-stacks')].map((d) => d.textContent).join('|')`)
		if !strings.Contains(txt, "("+note+")") {
			t.Errorf("the stacks say %q: want (%s), the report's note", txt, note)
		}
		if strings.Contains(txt, "(not known)") {
			t.Errorf("the stacks say %q: a held stack not known without its reason", txt)
		}
	})

	t.Run("not looked for", func(t *testing.T) {
		prefix := testrec.Files(t, "../report/testdata/chains.txtar")
		f, err := os.OpenFile(prefix+".info", os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("held_monitors=no: off (orca record --lock-order turns it on)\n")
		f.Close()
		ts := serve(t, build(t, prefix))
		open(t, ctx, ts.URL+"/#v=deadlocks")
		waitJS(t, ctx, "the note", `document.querySelector('.potential-note')`)
		if txt := eval[string](t, ctx, `document.querySelector('.potential-note').textContent`); txt != "Potential deadlocks: not looked for (orca record --lock-order looks for them)." {
			t.Errorf("the note says %q", txt)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('.pd-card').length`); n != 0 {
			t.Errorf("%d potential deadlocks listed, want none", n)
		}
	})
}
