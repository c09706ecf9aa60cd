package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/report"
	"orca/internal/synth"
)

// The browser tests drive the viewer in a real headless Chromium: the
// Debian package chromium, found on PATH (or $ORCA_CHROMIUM). When it is
// missing they install it if they can (as root, with apt-get), and skip,
// saying why, only when they cannot. Screenshots are kept in
// build/artifacts/web (or $ORCA_ARTIFACTS).

var (
	chromiumOnce sync.Once
	chromiumPath string
	chromiumWhy  string
)

func lookChromium() string {
	if p := os.Getenv("ORCA_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// chromium returns the browser's path, installing it first when it is
// missing and this process may (root, apt-get); it skips the test when
// neither works.
func chromium(t testing.TB) string {
	t.Helper()
	chromiumOnce.Do(func() {
		if chromiumPath = lookChromium(); chromiumPath != "" {
			return
		}
		_, aptErr := exec.LookPath("apt-get")
		if os.Geteuid() != 0 || aptErr != nil {
			chromiumWhy = "skip: no chromium on PATH and cannot install it (needs root and apt-get): run 'sudo apt-get install chromium' or 'sudo make test'"
			return
		}
		install := func() ([]byte, error) {
			cmd := exec.Command("apt-get", "install", "-y", "--no-install-recommends", "chromium")
			cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
			return cmd.CombinedOutput()
		}
		out, err := install()
		if err != nil {
			if u, err := exec.Command("apt-get", "update").CombinedOutput(); err != nil {
				out = append(out, u...)
			}
			out, err = install()
		}
		if chromiumPath = lookChromium(); chromiumPath == "" {
			chromiumWhy = fmt.Sprintf("fail: no chromium on PATH and apt-get install chromium failed (%v):\n%s", err, tailText(string(out), 2000))
		}
	})
	switch {
	case strings.HasPrefix(chromiumWhy, "skip: "):
		t.Skip(strings.TrimPrefix(chromiumWhy, "skip: "))
	case chromiumWhy != "":
		t.Fatal(strings.TrimPrefix(chromiumWhy, "fail: "))
	}
	return chromiumPath
}

func tailText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// newBrowser starts a headless Chromium with a fresh profile; the flags
// keep it off the network (this machine has none) and quick to start.
func newBrowser(t testing.TB, width, height int) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("force-device-scale-factor", "1"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	)
	// Chromium itself sometimes exits before it listens when the machine
	// is loaded ("chrome failed to start", seen at load 13-16 on 2 cores:
	// a browser test of any kind, the viewer not yet asked anything): a
	// start is tried three times, each in a fresh profile, and each failure
	// said.
	var err error
	for try := 1; try <= 3; try++ {
		if try > 1 {
			t.Logf("starting chromium (try %d of 3) after: %v", try, err)
			opts = append(opts, chromedp.UserDataDir(t.TempDir()))
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(opts, chromedp.WSURLReadTimeout(60*time.Second))...)
		ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(func(string, ...any) {}))
		if err = chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err == nil {
			t.Cleanup(func() { cancel(); cancelAlloc() })
			return ctx
		}
		cancel()
		cancelAlloc()
	}
	t.Fatalf("starting chromium (3 tries): %v", err)
	return nil
}

// within runs an action with a deadline (the browser's context has none:
// a deadline on it would end the browser).
func within[T any](t testing.TB, ctx context.Context, d time.Duration, what string, a chromedp.Action[T]) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	v, err := chromedp.Run(c, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	return within(t, ctx, 30*time.Second, js, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

// waitJS polls a JavaScript condition until it holds.
func waitJS(t testing.TB, ctx context.Context, what, cond string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+cond+")"))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s (%s): %v", what, cond, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func artifacts(t testing.TB) string {
	dir := os.Getenv("ORCA_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), "build", "artifacts", "web")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	png := within(t, ctx, 30*time.Second, "screenshot", chromedp.CaptureScreenshot())
	p := filepath.Join(artifacts(t), name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
	return p
}

// open loads the viewer at url and waits for the timeline's first full paint.
func open(t testing.TB, ctx context.Context, url string) {
	t.Helper()
	within(t, ctx, 30*time.Second, "navigate", chromedp.Navigate(url))
	// The new page's: after another page in the same tab, the old page's
	// window can still answer the first evaluation (window.orca undefined:
	// TestBrowserSaysWhatItKnows' second page at load 10-16); its server's
	// port tells them apart (the hash the app may rewrite).
	waitJS(t, ctx, "the page's script", `window.orca && window.orca.ready && location.origin === new URL(`+strconv.Quote(url)+`).origin`)
	if ok := eval[bool](t, ctx, `window.orca.ready`); !ok {
		t.Fatal("orca did not start")
	}
}

// pickInterval finds the interval the click test aims at, and the frame
// its stack panel must show: on the Scenario recording the contender's
// block on the lock, whose source line the program printed; else the
// longest blocked interval with an application frame.
func pickInterval(t *testing.T, r *recording) (thread, index int, frame string) {
	m := r.res.Model
	if r.real && r.expect["contender"] != "" {
		for ti, th := range m.Threads {
			if th.ID.String() != r.expect["contender"] {
				continue
			}
			for k, iv := range th.Intervals {
				if iv.State == model.Blocked && iv.Object.String() == r.expect["lock"] {
					return ti, k, "Scenario.java:" + r.expect["line.contend"] + ")"
				}
			}
		}
		t.Fatalf("no blocked interval of the contender %s on %s", r.expect["contender"], r.expect["lock"])
	}
	var best format.Time = -1
	for ti, th := range m.Threads {
		for k, iv := range th.Intervals {
			if iv.State == model.Blocked && iv.Duration() > best && len(m.Stacks[iv.Stack]) > 1 {
				best, thread, index = iv.Duration(), ti, k
			}
		}
	}
	if best < 0 {
		t.Fatal("no blocked interval with a stack")
	}
	iv := m.Threads[thread].Intervals[index]
	return thread, index, r.rec.Resolve(m.Stacks[iv.Stack][0])
}

func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	r := scenario(t)
	ts := serve(t, r)
	ctx := newBrowser(t, 1600, 1000)
	open(t, ctx, ts.URL+"/")
	waitJS(t, ctx, "the first paint", `document.querySelector('canvas.timeline').dataset.painted`)

	t.Run("lanes", func(t *testing.T) {
		lanes := eval[string](t, ctx, `document.querySelector('canvas.timeline').dataset.lanes`)
		if want := fmt.Sprint(len(r.res.Model.Threads)); lanes != want {
			t.Errorf("%s lanes, want one per thread: %s", lanes, want)
		}
	})
	screenshot(t, ctx, "timeline.png")

	t.Run("click", func(t *testing.T) {
		thread, index, frame := pickInterval(t, r)
		type pt struct{ X, Y float64 }
		p := eval[pt](t, ctx, fmt.Sprintf(`window.orca.timeline.locate(%d, %d)`, thread, index))
		// Hovering shows the state and duration.
		within(t, ctx, 10*time.Second, "hover", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, p.X, p.Y))
		waitJS(t, ctx, "the tooltip", `!document.querySelector('.tl-wrap .tooltip').hidden && document.querySelector('.tl-wrap .tooltip').textContent.includes('blocked')`)
		waitJS(t, ctx, "the tooltip's details", `document.querySelector('.tl-wrap .tooltip').textContent.includes('click for the stack')`)
		screenshot(t, ctx, "timeline-hover.png")
		within(t, ctx, 10*time.Second, "click", chromedp.MouseClickXY(p.X, p.Y))
		waitJS(t, ctx, "the stack panel", fmt.Sprintf(`document.querySelector('#panel .stack') && document.querySelector('#panel').textContent.includes(%q)`, frame))
		// Every frame is shown whole, its line number included: none runs
		// past the panel's right edge (scrolled out of sight or cut).
		cut := eval[[]string](t, ctx, `[...document.querySelectorAll('#panel .frame')].filter((f) => {
			const p = document.querySelector('#panel').getBoundingClientRect(), r = f.getBoundingClientRect();
			return f.scrollWidth > f.clientWidth + 1 || r.right > p.right + 1 ||
				[...f.children].some((c) => c.getBoundingClientRect().right > p.right + 1);
		}).map((f) => f.textContent)`)
		if len(cut) > 0 {
			t.Errorf("frames of the stack panel cut at its edge: %q", cut)
		}
		// The same for a frame longer than the panel is wide (a servlet
		// container's): it wraps, and its line number stays in sight.
		long := eval[bool](t, ctx, `import('/static/js/format.js').then(({ stackEl }) => {
			const panel = document.querySelector('#panel');
			const el = stackEl([{ frame: 'org.apache.catalina.core.ApplicationFilterChain.internalDoFilter(ApplicationFilterChain.java:4242)', jdk: false }]);
			panel.append(el);
			const p = panel.getBoundingClientRect(), loc = el.querySelector('.loc').getBoundingClientRect();
			const ok = loc.right <= p.right + 1 && el.scrollWidth <= el.clientWidth + 1 && panel.scrollWidth <= panel.clientWidth + 1;
			el.remove();
			return ok;
		})`)
		if !long {
			t.Errorf("a long frame in the stack panel runs past its edge: its line number is out of sight")
		}
		sel := eval[string](t, ctx, `JSON.stringify(window.orca.app.state.sel)`)
		if want := fmt.Sprintf(`{"thread":%d,"index":%d}`, thread, index); sel != want {
			t.Errorf("selection %s, want %s", sel, want)
		}
		screenshot(t, ctx, "timeline-selected.png")

		// The URL keeps the view: a fresh page at it shows the same selection.
		time.Sleep(300 * time.Millisecond) // the hash is written a moment after a change
		url := eval[string](t, ctx, `location.href`)
		if !strings.Contains(url, fmt.Sprintf("sel=%d.%d", thread, index)) || !strings.Contains(url, "r=") {
			t.Fatalf("URL %s does not keep the selection and range", url)
		}
		ctx2 := newBrowser(t, 1400, 900)
		open(t, ctx2, url)
		waitJS(t, ctx2, "the shared view's stack panel", fmt.Sprintf(`document.querySelector('#panel').textContent.includes(%q)`, frame))
		r1 := eval[string](t, ctx, `[orca.app.state.t0, orca.app.state.t1].map(Math.round).join()`)
		r2 := eval[string](t, ctx2, `[orca.app.state.t0, orca.app.state.t1].map(Math.round).join()`)
		if r1 != r2 {
			t.Errorf("range %s in the shared view, want %s", r2, r1)
		}
	})

	t.Run("parked", func(t *testing.T) {
		// Issue 14: a parked thread is drawn and named as parked, never as runnable.
		m := r.res.Model
		thread, index := -1, -1
		var best format.Time = -1
		for ti, th := range m.Threads {
			for k, iv := range th.Intervals {
				if iv.State == model.Parked && iv.Duration() > best {
					best, thread, index = iv.Duration(), ti, k
				}
			}
		}
		if thread < 0 {
			t.Skip("the recording has no park (a recording of the synthetic generator, or kinds=seed)")
		}
		if !eval[bool](t, ctx, `[...document.querySelectorAll('.legend .legend-item')].some((e) => e.textContent === 'parked')`) {
			t.Errorf("the timeline's legend has no parked state")
		}
		type pt struct{ X, Y float64 }
		p := eval[pt](t, ctx, fmt.Sprintf(`window.orca.timeline.locate(%d, %d)`, thread, index))
		within(t, ctx, 10*time.Second, "hover a park", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, p.X, p.Y))
		waitJS(t, ctx, "the park's tooltip", `!document.querySelector('.tl-wrap .tooltip').hidden && document.querySelector('.tl-wrap .tooltip').textContent.includes('parked')`)
		screenshot(t, ctx, "timeline-parked.png")
	})

	t.Run("keys and drag", func(t *testing.T) {
		type rng struct{ T0, T1 float64 }
		state := func() rng { return eval[rng](t, ctx, `({T0: orca.app.state.t0, T1: orca.app.state.t1})`) }
		eval[bool](t, ctx, `(orca.timeline.fit(), true)`)
		before := state()
		within(t, ctx, 10*time.Second, "key w", chromedp.KeyEvent("w"))
		zoomed := state()
		if !(zoomed.T1-zoomed.T0 < (before.T1-before.T0)*0.8) {
			t.Errorf("W did not zoom in: %v → %v", before, zoomed)
		}
		x, y := 900.0, 400.0
		within(t, ctx, 10*time.Second, "drag", chromedp.Steps(
			chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x-150, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x-300, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x-300, y, chromedp.ButtonLeft)))
		panned := state()
		if w0, w1 := zoomed.T1-zoomed.T0, panned.T1-panned.T0; !(panned.T0 > zoomed.T0) || w1 < w0-1 || w1 > w0+1 {
			t.Errorf("dragging left did not pan to later times: %v → %v", zoomed, panned)
		}
		within(t, ctx, 10*time.Second, "key 0", chromedp.KeyEvent("0"))
		if fit := state(); fit.T1-fit.T0 < before.T1-before.T0-1 {
			t.Errorf("0 did not show the whole recording: %v", fit)
		}
	})

	t.Run("edges", func(t *testing.T) {
		eval[bool](t, ctx, `(document.querySelectorAll('.edge-toggle input').forEach((b) => b.click()), true)`)
		waitJS(t, ctx, "edges", `orca.timeline.edgeData && orca.timeline.edgeData.edges.length > 0`)
		screenshot(t, ctx, "timeline-edges.png")
		eval[bool](t, ctx, `(document.querySelectorAll('.edge-toggle input').forEach((b) => b.click()), true)`)
	})

	t.Run("locks", func(t *testing.T) {
		within(t, ctx, 10*time.Second, "locks tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=locks]`)))
		waitJS(t, ctx, "the locks table", `document.querySelectorAll('table.locks tbody tr').length > 0`)
		rows := eval[int](t, ctx, `document.querySelectorAll('table.locks tbody tr').length`)
		if want := lockRows(r.res.Model); rows != want {
			t.Errorf("%d rows in the locks table, want %d", rows, want)
		}
		within(t, ctx, 10*time.Second, "first lock", chromedp.Click(chromedp.CSS(`table.locks tbody tr`)))
		waitJS(t, ctx, "the lock's detail", `document.querySelector('.lock-detail .stat-row')`)
		// Sorting by a column reorders the rows.
		within(t, ctx, 10*time.Second, "sort", chromedp.Click(chromedp.CSS(`table.locks th:nth-child(3)`)))
		screenshot(t, ctx, "locks.png")
		// A lock selects its intervals on the timeline.
		within(t, ctx, 10*time.Second, "show on timeline", chromedp.Click(chromedp.CSS(`.lock-detail button.primary`)))
		waitJS(t, ctx, "the lock on the timeline", `orca.app.state.view === 'timeline' && orca.app.state.lock && !document.querySelector('.lock-chip').hidden`)
		waitJS(t, ctx, "the filtered lanes", `+document.querySelector('canvas.timeline').dataset.lanes < `+fmt.Sprint(len(r.res.Model.Threads)+1))
		eval[bool](t, ctx, `orca.timeline.idle().then(() => true)`)
		// Its lanes are the threads its detail names (ranges of indexes):
		// those of a lock whose threads are more than one range.
		var d lockDetailJSON
		var obj, kind string
		for _, l := range r.res.Model.Locks {
			getJSON(t, ts, "/api/locks/"+l.Kind.String()+"/"+l.Object.String(), &d)
			if obj, kind = l.Object.String(), l.Kind.String(); strings.Contains(d.Threads, ",") && strings.Contains(d.Threads, "-") {
				break
			}
		}
		// The server's own reading of ranges (site.threadList).
		want, err := (&site{d: &data{m: r.res.Model}}).threadList(d.Threads, 1<<30)
		if err != nil {
			t.Fatalf("%s's threads %q: %v", obj, d.Threads, err)
		}
		eval[bool](t, ctx, `orca.app.setLock('`+obj+`', null, '`+kind+`').then(() => true)`)
		waitJS(t, ctx, "the lock's lanes", `+document.querySelector('canvas.timeline').dataset.lanes === `+fmt.Sprint(len(want)))
		got := eval[[]int](t, ctx, `orca.timeline.rows.filter((r) => r.kind === 'lane').map((r) => r.thread).sort((a, b) => a - b)`)
		if len(want) != d.ThreadCount || !strings.Contains(d.Threads, ",") || !slices.Equal(got, want) {
			t.Errorf("%s on the timeline: lanes of threads %v, want its %d threads %v (%q)", obj, got, d.ThreadCount, want, d.Threads)
		}
		screenshot(t, ctx, "timeline-lock.png")
		eval[bool](t, ctx, `(orca.app.setLock(null), true)`)
	})

	t.Run("deadlocks", func(t *testing.T) {
		within(t, ctx, 10*time.Second, "deadlocks tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=deadlocks]`)))
		waitJS(t, ctx, "the wait-for graph", `document.querySelector('.graph-title') || document.querySelector('.graph-empty')`)
		screenshot(t, ctx, "deadlocks.png")
	})

	t.Run("flame", func(t *testing.T) {
		within(t, ctx, 10*time.Second, "flame tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=flame]`)))
		waitJS(t, ctx, "the flame graph", `+(document.querySelector('canvas.flame').dataset.nodes || 0) > 1`)
		screenshot(t, ctx, "flame.png")
		// Filter by one state: the total changes and the graph redraws.
		within(t, ctx, 10*time.Second, "only waiting", chromedp.Click(chromedp.CSS(`.state-toggle input[data-state=blocked]`)))
		waitJS(t, ctx, "the filtered flame graph", `location.hash.includes('fs=waiting')`)
	})
}

// TestBrowserDeadlock draws the wait-for graph of a real deadlock.
func TestBrowserDeadlock(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	r, why := recordJava(t, "deadlock", "internal/web/testdata/Deadlock.java")
	if r == nil {
		r = handMade(t, "dl", deadlockEvents, deadlockMethods, deadlockClasses)
		t.Logf("serving a hand-written deadlock: cannot record Deadlock.java (%s)", why)
	}
	if len(r.res.Model.Deadlocks) == 0 {
		t.Fatalf("the recording has no deadlock")
	}
	ts := serve(t, r)
	ctx := newBrowser(t, 1500, 900)
	open(t, ctx, ts.URL+"/#v=deadlocks&dl=0")
	waitJS(t, ctx, "the cycle", `document.querySelectorAll('.g-node.cycle').length >= 4`)
	n := eval[int](t, ctx, `document.querySelectorAll('.g-node.cycle').length`)
	if n != 4 {
		t.Errorf("%d nodes in the cycle, want 4 (two threads, two monitors)", n)
	}
	// A node links to its stack.
	within(t, ctx, 10*time.Second, "a node", chromedp.Click(chromedp.CSS(`.g-node.cycle.thread`)))
	waitJS(t, ctx, "the node's stack", `document.querySelector('#panel .stack')`)
	screenshot(t, ctx, "deadlock-graph.png")
}

// TestBrowserJDKOnlyWaits: at the end of a server stopped with SIGTERM
// (testdata/jdkend.txtar) only JDK service threads wait: the Finalizer in
// Object.wait, DestroyJavaVM blocked on the shutdown's lock that "SIGTERM
// handler" holds. The empty graph offers to show the 2 that wait, as its
// head counts them; it said 3 "idle in Object.wait" (it counted the
// holder, and DestroyJavaVM is blocked). Shown, the graph draws the three
// threads.
func TestBrowserJDKOnlyWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	ts := serve(t, fromTxtar(t, "testdata/jdkend.txtar"))
	ctx := newBrowser(t, 1500, 900)
	open(t, ctx, ts.URL+"/#v=deadlocks")
	waitJS(t, ctx, "the empty graph", `document.querySelector('.graph-empty')`)
	if head := eval[string](t, ctx, `document.querySelector('.graph-title').parentElement.textContent`); !strings.Contains(head, " 2 threads waiting") {
		t.Errorf("the graph's head says %q, want 2 threads waiting", head)
	}
	label := eval[string](t, ctx, `document.querySelector('.graph-empty label').textContent`)
	if want := " show the 2 waiting JDK service threads (idle in Object.wait, or in the JVM's shutdown)"; label != want {
		t.Errorf("the empty graph offers %q, want %q", label, want)
	}
	within(t, ctx, 10*time.Second, "show the JDK's threads", chromedp.Click(chromedp.CSS(`.graph-empty input`)))
	waitJS(t, ctx, "the graph", `document.querySelectorAll('.g-node.thread').length > 0`)
	names := eval[[]string](t, ctx, `[...document.querySelectorAll('.g-node.thread title')].map((e) => e.textContent).sort()`)
	if want := []string{"DestroyJavaVM — blocked", "Finalizer — waiting", "SIGTERM handler — runnable"}; strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("the graph draws %q, want %q", names, want)
	}
}

// TestBrowserClassInitLate: a deadlock of two class initialisations that
// the agent's walker found (the report's case clinit-walker: .info
// class_init_open=yes) formed up to two of its rounds before it wrote the
// waits: the card says so, as orca report does; a deadlock of monitors
// (the model's case deadlock) says only when it formed.
func TestBrowserClassInitLate(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	for _, c := range []struct{ path, want string }{
		{"../report/testdata/clinit-walker.txtar", "formed at 2.400000 s or up to two walker rounds earlier; still intact at the end"},
		{"../model/testdata/cases/deadlock-two-locks.txtar", "formed at "},
	} {
		ts := serve(t, fromTxtar(t, c.path))
		ctx := newBrowser(t, 1280, 900)
		open(t, ctx, ts.URL+"/#v=deadlocks&dl=0")
		waitJS(t, ctx, "the card", `document.querySelector('.dl-card .muted')`)
		got := eval[string](t, ctx, `document.querySelector('.dl-card .muted').textContent`)
		if !strings.HasPrefix(got, c.want) || strings.Contains(c.path, "model") && strings.Contains(got, "walker") {
			t.Errorf("%s: the deadlock's card says %q, want it to begin %q", c.path, got, c.want)
		}
	}
}

// TestBrowserJUCDeadlock: a deadlock between a synchronized block and a
// ReentrantLock (JUCDeadlock.java, or the model's case juc-lock without a
// JDK) is on the Deadlocks card and in the wait-for graph beside it, with
// the same threads, at the card's instant and at the instant it formed;
// just before, the graph has no cycle (issue 20: the graph drew no edge
// from the parked thread and said "no cycle" beside the card).
func TestBrowserJUCDeadlock(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	r, why := recordJava(t, "jucdeadlock", "internal/web/testdata/JUCDeadlock.java")
	if r == nil {
		r = fromTxtar(t, "../model/testdata/cases/juc-lock.txtar")
		t.Logf("serving the model's case juc-lock: cannot record JUCDeadlock.java (%s)", why)
	}
	m := r.res.Model
	dls := analysis.Deadlocks(m)
	if len(dls) != 1 || !slices.Contains(dls[0].States, model.Parked) {
		t.Fatalf("deadlocks %+v, want one through a j.u.c. lock", dls)
	}
	ts := serve(t, r)
	ctx := newBrowser(t, 1500, 900)
	open(t, ctx, ts.URL+"/#v=deadlocks&dl=0")
	const (
		card  = `JSON.stringify([...document.querySelectorAll('.dl-card.selected ol.cycle li b')].map((b) => b.textContent).sort())`
		graph = `JSON.stringify([...document.querySelectorAll('.g-node.cycle.thread')].map((g) => orca.app.threads[+g.dataset.id.slice(1)].name).sort())`
	)
	var names []string
	for _, th := range dls[0].Threads {
		names = append(names, m.Thread(th).Name)
	}
	slices.Sort(names)
	want, _ := json.Marshal(names)
	check := func(when string, selected bool) {
		t.Helper()
		waitJS(t, ctx, "the graph "+when, `document.querySelector('.graph-title') && document.querySelector('.g-node')`)
		if got := eval[string](t, ctx, card); selected && got != string(want) {
			t.Errorf("%s: the Deadlocks card names %s, want %s", when, got, want)
		}
		if got := eval[string](t, ctx, graph); got != string(want) {
			t.Errorf("%s: the graph's cycle has the threads %s, want %s (header %q)", when, got, want,
				eval[string](t, ctx, `document.querySelector('.graph-head').textContent`))
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('.g-node.cycle').length`); n != 4 {
			t.Errorf("%s: %d nodes in the cycle, want 4 (two threads, a monitor, a j.u.c. lock)", when, n)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('.g-edge.cycle').length`); n != 4 {
			t.Errorf("%s: %d edges in the cycle, want 4", when, n)
		}
		if b := eval[string](t, ctx, `(document.querySelector('.badge.cycles') || {}).textContent || ''`); b != "1 deadlock" {
			t.Errorf("%s: the graph's badge says %q, want \"1 deadlock\"", when, b)
		}
	}
	waitJS(t, ctx, "the card", `document.querySelector('.dl-card.selected')`)
	check("at the card's instant", true)
	screenshot(t, ctx, "juc-deadlock-graph.png")
	// The instant it formed (the input takes µs: round up), and 1 µs
	// before it.
	showAt := func(at format.Time) {
		t.Helper()
		js := fmt.Sprintf(`(() => { const i = document.querySelector('input.instant'); i.value = '%.6f'; document.querySelector('.instant-row button').click(); return orca.app.state.instant; })()`, at.Seconds())
		if got := eval[int64](t, ctx, js); got != int64(at) {
			t.Fatalf("the instant is %d, want %d", got, int64(at))
		}
	}
	formed := (dls[0].At - m.Start + 999) / 1000 * 1000
	showAt(formed)
	// (A click on Show loads the graph: .graph-title is back when it is drawn.)
	check("when it formed", false)
	showAt(formed - 1000)
	waitJS(t, ctx, "the graph before the formation", `document.querySelector('.badge.ok')`)
	if b := eval[string](t, ctx, `document.querySelector('.badge.ok').textContent`); b != "no cycle" {
		t.Errorf("before it formed: badge %q", b)
	}
}

// lockRows is how many rows the Locks view has: a lock each, but one per
// group of short-lived objects (model.Group) for its members.
func lockRows(m *model.Model) int {
	n, v := len(m.Groups), m.Filter(nil)
	for _, l := range m.Locks {
		if v.GroupOf(l) == nil {
			n++
		}
	}
	return n
}

// TestBrowserGroups shows a group of short-lived objects as one row of the
// Locks view, and its objects in its detail: the report's golden case
// groups (24 FutureTasks at one call site, 21 objects of Object.wait, 22
// SynchronousQueue nodes).
func TestBrowserGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	r := fromTxtar(t, "../report/testdata/groups.txtar")
	if len(r.res.Model.Groups) != 3 {
		t.Fatalf("%d groups in the case, want 3", len(r.res.Model.Groups))
	}
	ts := serve(t, r)
	ctx := newBrowser(t, 1500, 900)
	open(t, ctx, ts.URL+"/#v=locks&lk=group:0")
	waitJS(t, ctx, "the locks table", `document.querySelectorAll('table.locks tbody tr').length > 0`)
	if rows, want := eval[int](t, ctx, `document.querySelectorAll('table.locks tbody tr').length`), lockRows(r.res.Model); rows != want {
		t.Errorf("%d rows in the locks table, want %d", rows, want)
	}
	waitJS(t, ctx, "the group's detail", `document.querySelector('.lock-detail table.members')`)
	if head := eval[string](t, ctx, `document.querySelector('.lock-detail .panel-head').textContent`); head != "24 objects java.util.concurrent.FutureTask" {
		t.Errorf("the group's detail is headed %q", head)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.lock-detail table.members tr').length`); n != 24 {
		t.Errorf("the group's detail lists %d objects, want 24", n)
	}
	screenshot(t, ctx, "locks-group.png")
	// An object of the group opens its own detail.
	within(t, ctx, 10*time.Second, "an object", chromedp.Click(chromedp.CSS(`.lock-detail table.members a`)))
	waitJS(t, ctx, "the object's detail", `orca.app.state.lockSel === 'blocker:00010007' && document.querySelector('.lock-detail button.primary')`)
}

// TestREADMEScreenshot renders docs/img/timeline.png from a recording:
//
//	make demo && ORCA_README_SHOT=build/demo-run go test ./internal/web -run README
func TestREADMEScreenshot(t *testing.T) {
	prefix := os.Getenv("ORCA_README_SHOT")
	if prefix == "" {
		t.Skip("set ORCA_README_SHOT=PREFIX to render docs/img/timeline.png from that recording")
	}
	root := repoRoot(t)
	if !filepath.IsAbs(prefix) {
		prefix = filepath.Join(root, prefix)
	}
	r := build(t, prefix)
	ts := serve(t, r)
	ctx := newBrowser(t, 1440, 810)
	// Select the first blocked interval of the thread named by
	// $ORCA_README_THREAD (default contender-2, as in the demo), so the
	// panel shows a stack.
	name := os.Getenv("ORCA_README_THREAD")
	if name == "" {
		name = "contender-2"
	}
	hash := "#v=timeline&edges=wake,owner"
	for ti, th := range r.res.Model.Threads {
		for k, iv := range th.Intervals {
			if th.Name == name && iv.State == model.Blocked {
				hash += fmt.Sprintf("&sel=%d.%d", ti, k)
				break
			}
		}
	}
	open(t, ctx, ts.URL+"/"+hash)
	eval[bool](t, ctx, `orca.timeline.fit(), orca.timeline.idle().then(() => true)`)
	time.Sleep(300 * time.Millisecond)
	png := within(t, ctx, 30*time.Second, "screenshot", chromedp.CaptureScreenshot())
	out := filepath.Join(root, "docs", "img", "timeline.png")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", out, len(png))
}

// firstRowStands: an object of more than one kind in /api/locks (a j.u.c.
// lock's sync, parked on) stands for its first row, the first ranked,
// whose detail the index keeps.
func firstRowStands(t *testing.T, ctx context.Context, ts *httptest.Server) {
	var all []lockJSON
	getJSON(t, ts, "/api/locks", &all)
	first, shared := map[string]string{}, 0
	for _, l := range all {
		if k, ok := first[l.Object]; !ok {
			first[l.Object] = l.Kind
		} else if k != l.Kind {
			shared++
			if got := eval[string](t, ctx, `orca.app.lockByObject('`+l.Object+`').kind`); got != k {
				t.Errorf("object %s stands for its %s, want its first row's %s", l.Object, got, k)
			}
		}
	}
	if shared == 0 {
		t.Errorf("no object of two kinds among %d locks: the choice is not tried", len(all))
	}
}

// TestBrowserVirtual: virtual threads (issue 14 item 5) are grouped on the timeline by name
// pattern, each group collapsed to one row until clicked, so thousands of them stay usable.
func TestBrowserVirtual(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	r := synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20})
	groups := map[string]int{}
	for _, th := range r.res.Model.Threads {
		if th.Virtual {
			groups[regexp.MustCompile(`\d+`).ReplaceAllString(th.Name, "N")]++
		}
	}
	hidden := 0
	for _, n := range groups {
		if n > 1 {
			hidden += n
		}
	}
	if hidden == 0 {
		t.Fatalf("the synthetic recording has no group of virtual threads: %v", groups)
	}
	ts := serve(t, r)
	ctx := newBrowser(t, 1600, 1000)
	open(t, ctx, ts.URL+"/")
	waitJS(t, ctx, "the first paint", `document.querySelector('canvas.timeline').dataset.painted`)
	firstRowStands(t, ctx, ts)
	all := len(r.res.Model.Threads)
	if got, want := eval[string](t, ctx, `document.querySelector('canvas.timeline').dataset.lanes`), fmt.Sprint(all-hidden); got != want {
		t.Errorf("%s lanes, want %s: the %d threads but the %d virtual ones in groups, collapsed", got, want, all, hidden)
	}
	// Clicking every group of virtual threads expands it: one lane per thread.
	got := eval[string](t, ctx, `(() => {
		const tl = window.orca.timeline;
		for (const r of tl.rows) if (r.kind === 'group' && r.name.startsWith('virtual ')) tl.expanded.add(r.key);
		tl.relayout();
		return tl.canvas.dataset.lanes;
	})()`)
	if want := fmt.Sprint(all); got != want {
		t.Errorf("%s lanes with the virtual groups expanded, want %d", got, all)
	}
}

// smallScreenRecording is issue 21's case for a 1280 × 800 screen: main
// parks 800 ms on a CompletableFuture (a blocker whose only activity is
// that park), ForkJoinPool workers whose names differ only at the end,
// 1,234 contentions on one monitor (a count that needs a separator) and a
// servlet container's long frames.
func smallScreenRecording(t *testing.T) *recording {
	t.Helper()
	var ev strings.Builder
	line := func(at float64, f string, args ...any) {
		fmt.Fprintf(&ev, "%.10f,"+f+"\n", append([]any{at}, args...)...)
	}
	line(0, "ThreadStarted,00000001,main")
	workers := []string{"0000000A", "0000000B", "0000000C", "0000000D"}
	names := []string{"ForkJoinPool.commonPool-worker-1", "ForkJoinPool.commonPool-worker-2", "ForkJoinPool.commonPool-worker-3",
		"org.example.scheduler.BackgroundRefreshService-worker-12"}
	for i, w := range workers {
		line(0.01, "ThreadStart,00000001,%s,0", w)
		line(0.01, "ThreadStarted,%s,%s", w, names[i])
	}
	// main waits for a CompletableFuture: 800 ms parked, unparked by worker-2.
	line(0.1, "ObjectClass,00000001,0000CF01,Ljava/util/concurrent/CompletableFuture$Signaller;")
	line(0.1, "ThreadPark,00000001,0000CF01,00000000,,,3;00000001;FFFFFFFF;00000002;00000005;00000003;00000010")
	line(0.9, "ThreadUnpark,0000000B,00000001,0")
	line(0.9, "ThreadUnparked,00000001,0000CF01,unparked,0")
	// worker-1 blocks 1,234 times on a monitor worker-3 holds.
	line(1.0, "ObjectClass,0000000A,0000AB01,Lorg/apache/catalina/core/StandardContext;")
	for i := range 1234 {
		at := 1.0 + float64(i)*0.0006
		line(at, "MonitorContendedEnter,0000000A,0000AB01,0000000C,2;00000004;00000007;00000005;00000002")
		line(at+0.0005, "MonitorContendedEntered,0000000A,0000AB01,2;00000004;00000007;00000005;00000002")
	}
	for _, w := range workers {
		line(1.9, "ThreadEnded,%s", w)
	}
	line(2.0, "ThreadEnded,00000001")
	const methods = `0.0000000000,00000001,park,(ZJ)V,0000C001,-1
0.0000000000,00000002,block,()V,0000C002,1;00000000;00000E21
0.0000000000,00000003,get,()Ljava/lang/Object;,0000C002,1;00000000;00000800
0.0000000000,00000004,internalDoFilter,(Ljakarta/servlet/ServletRequest;Ljakarta/servlet/ServletResponse;)V,0000C003,1;00000000;00001092
0.0000000000,00000005,doFilter,(Ljakarta/servlet/ServletRequest;Ljakarta/servlet/ServletResponse;)V,0000C003,1;00000000;0000008A
`
	const classes = `0.0000000000,0000C001,Ljdk/internal/misc/Unsafe;,Unsafe.java
0.0000000000,0000C002,Ljava/util/concurrent/CompletableFuture$Signaller;,CompletableFuture.java
0.0000000000,0000C003,Lorg/apache/catalina/core/ApplicationFilterChain;,ApplicationFilterChain.java
`
	return handMade(t, "small-screen", ev.String(), methods, classes)
}

// TestBrowserSmallScreen: issue 21, item 4 — at 1280 × 800 the Locks table
// shows every row's numbers (a park-only blocker's too) with every column
// in view or a visible cue to scroll to it, counts with thousands
// separators; the timeline tells lanes apart by their labels and its axis
// reads in time units; stack frames break only between names.
func TestBrowserSmallScreen(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	r := smallScreenRecording(t)
	ts := serve(t, r)
	ctx := newBrowser(t, 1280, 800)
	open(t, ctx, ts.URL+"/#v=locks&lk=blocker:0000CF01")
	waitJS(t, ctx, "the locks table", `document.querySelectorAll('table.locks tbody tr').length > 0`)
	waitJS(t, ctx, "the park's detail", `document.querySelector('.lock-detail .stat-row')`)
	screenshot(t, ctx, "small-locks.png")

	t.Run("every row has its numbers", func(t *testing.T) {
		// Each row shows a number in view (not scrolled out of sight),
		// and the park-only row its parks and their time under a column
		// that says so.
		blank := eval[[]string](t, ctx, `(() => {
			const wrap = document.querySelector('.locks-main .table-wrap').getBoundingClientRect();
			return [...document.querySelectorAll('table.locks tbody tr')].filter((tr) => ![...tr.querySelectorAll('td.num')].some((td) => {
				const r = td.getBoundingClientRect();
				return td.textContent.trim() !== '' && r.left >= wrap.left && r.right <= wrap.right + 1;
			})).map((tr) => tr.dataset.lock);
		})()`)
		if len(blank) > 0 {
			t.Errorf("rows with no number in view: %q", blank)
		}
		type cell struct{ Head, Text string }
		cells := eval[[]cell](t, ctx, `(() => {
			const heads = [...document.querySelectorAll('table.locks thead th')].map((th) => th.textContent);
			const tr = document.querySelector('table.locks tbody tr[data-lock="blocker:0000CF01"]');
			return [...tr.children].map((td, i) => ({ Head: heads[i], Text: td.textContent.trim() }));
		})()`)
		var count, time bool
		for _, c := range cells {
			if strings.Contains(strings.ToLower(c.Head), "park") {
				count = count || c.Text == "1"
				time = time || c.Text == "800.0 ms"
			}
		}
		if !count || !time {
			t.Errorf("the park-only row does not show 1 park and 800.0 ms under a column of parks: %+v", cells)
		}
		if s := eval[string](t, ctx, `document.querySelector('.lock-detail .stat-row').textContent`); !strings.Contains(s, "parks") {
			t.Errorf("the park's detail does not count parks: %q", s)
		}
	})

	t.Run("columns in view", func(t *testing.T) {
		if hidden := hiddenColumns(t, ctx); len(hidden) > 0 {
			t.Errorf("at 1280 px, Locks columns out of view with no cue to scroll to them: %q", hidden)
		}
		// Narrower, the table scrolls, and says so.
		ctx := newBrowser(t, 1024, 768)
		open(t, ctx, ts.URL+"/#v=locks&lk=blocker:0000CF01")
		waitJS(t, ctx, "the locks table", `document.querySelectorAll('table.locks tbody tr').length > 0`)
		if hidden := hiddenColumns(t, ctx); len(hidden) > 0 {
			t.Errorf("at 1024 px, Locks columns out of view with no cue to scroll to them: %q", hidden)
		}
		screenshot(t, ctx, "small-locks-1024.png")
	})

	t.Run("thousands separators", func(t *testing.T) {
		if c := eval[string](t, ctx, `document.querySelector('table.locks tbody tr[data-lock="monitor:0000AB01"] td.num').textContent`); c != "1,234" {
			t.Errorf("the monitor's contentions read %q, want 1,234", c)
		}
		within(t, ctx, 10*time.Second, "the monitor", chromedp.Click(chromedp.CSS(`table.locks tbody tr[data-lock="monitor:0000AB01"]`)))
		waitJS(t, ctx, "the monitor's detail", `document.querySelector('.lock-detail .panel-head') && document.querySelector('.lock-detail .panel-head').textContent.includes('0000AB01') && document.querySelector('.lock-detail .site')`)
		bare := eval[[]string](t, ctx, `[...document.querySelectorAll('table.locks td.num, .lock-detail .stat-v, .lock-detail td.num, .lock-detail .site-head, .hstat b, .tab-badge, .view-note')]
			.map((e) => e.textContent).filter((s) => /\d{4}/.test(s))`)
		if len(bare) > 0 {
			t.Errorf("counts without thousands separators: %q", bare)
		}
	})

	t.Run("axis in time units", func(t *testing.T) {
		within(t, ctx, 10*time.Second, "timeline tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=timeline]`)))
		waitJS(t, ctx, "the first paint", `document.querySelector('canvas.timeline').dataset.painted`)
		// The whole recording, then zoomed at the park's end (0.8 s after
		// the start, ns since the first event) down to 1 µs, then 100 ns.
		// A label is a number and a unit; below the second, the unit
		// keeps the number under 1000 (never 900000200 ns, nor 900000.2 µs).
		unit := regexp.MustCompile(`^([0-9][0-9,.]*) (s|ms|µs|ns)$`)
		for _, rng := range [][2]float64{{0, 2e9}, {0.79e9, 0.81e9}, {899.99e6, 900.01e6}, {900e6, 900.001e6}, {900.0002e6, 900.0003e6}} {
			ticks := eval[[]string](t, ctx, fmt.Sprintf(`(orca.timeline.setRange(%f, %f), orca.timeline.idle().then(() => orca.timeline.ticks))`, rng[0], rng[1]))
			t.Logf("range %v: %q", rng, ticks)
			if len(ticks) < 2 {
				t.Errorf("range %v: ticks %q, want 2 or more", rng, ticks)
			}
			for _, tick := range ticks {
				m := unit.FindStringSubmatch(tick)
				if m == nil {
					t.Errorf("range %v: tick %q is not a number and a time unit", rng, tick)
					continue
				}
				if v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64); err != nil || m[2] != "s" && v >= 1000 {
					t.Errorf("range %v: tick %q is a raw count of %s", rng, tick, m[2])
				}
			}
			if len(slices.Compact(slices.Clone(ticks))) != len(ticks) {
				t.Errorf("range %v: ticks %q repeat a label", rng, ticks)
			}
		}
		screenshot(t, ctx, "small-axis.png")
	})

	t.Run("lanes told apart", func(t *testing.T) {
		within(t, ctx, 10*time.Second, "timeline tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=timeline]`)))
		eval[bool](t, ctx, `(orca.timeline.fit(), orca.timeline.idle().then(() => true))`)
		type lane struct {
			Thread      int
			Name, Label string
		}
		lanes := eval[[]lane](t, ctx, `[...orca.timeline.laneLabels].map(([i, label]) => ({ Thread: i, Name: orca.app.threads[i].name, Label: label }))`)
		if len(lanes) != len(r.res.Model.Threads) {
			t.Errorf("%d lane labels drawn, want %d: %+v", len(lanes), len(r.res.Model.Threads), lanes)
		}
		seen := map[string]string{}
		for _, l := range lanes {
			if other, ok := seen[l.Label]; ok {
				t.Errorf("lanes %q and %q are both labelled %q", other, l.Name, l.Label)
			}
			seen[l.Label] = l.Name
			// Cut, a label keeps the name's end: its distinguishing part.
			if head, tail, cut := strings.Cut(l.Label, "…"); l.Label != l.Name && (!cut || !strings.HasPrefix(l.Name, head) || !strings.HasSuffix(l.Name, tail) || len(tail) < 8) {
				t.Errorf("lane %q labelled %q: want the name, or its start and its end around an ellipsis", l.Name, l.Label)
			}
		}
		// The whole name is in the label's tooltip.
		for _, l := range lanes {
			if l.Label == l.Name {
				continue
			}
			type pt struct{ X, Y float64 }
			p := eval[pt](t, ctx, fmt.Sprintf(`(() => { const r = orca.timeline.canvas.getBoundingClientRect(); return { X: r.left + 60, Y: r.top + orca.timeline.laneMid(%d) }; })()`, l.Thread))
			within(t, ctx, 10*time.Second, "hover a label", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, p.X, p.Y))
			waitJS(t, ctx, "the label's tooltip", fmt.Sprintf(`!document.querySelector('.tl-wrap .tooltip').hidden && document.querySelector('.tl-wrap .tooltip .tip-title').textContent === %q`, l.Name))
		}
		screenshot(t, ctx, "small-timeline.png")
	})

	t.Run("frames break between names", func(t *testing.T) {
		within(t, ctx, 10*time.Second, "locks tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=locks]`)))
		within(t, ctx, 10*time.Second, "the monitor", chromedp.Click(chromedp.CSS(`table.locks tbody tr[data-lock="monitor:0000AB01"]`)))
		waitJS(t, ctx, "the monitor's call sites", `document.querySelector('.lock-detail .site .frame')`)
		// The recording's frames, and longer ones, in the lock's detail
		// (340 px wide).
		bad := eval[[]string](t, ctx, `import('/static/js/format.js').then(({ stackEl }) => {
			const long = stackEl([
				{ frame: 'org.apache.catalina.core.ApplicationFilterChain.internalDoFilter(ApplicationFilterChain.java:4242)', jdk: false },
				{ frame: 'org.springframework.security.web.authentication.AbstractAuthenticationProcessingFilter.doFilter(AbstractAuthenticationProcessingFilter.java:227)', jdk: false },
				{ frame: 'java.util.concurrent.CompletableFuture$Signaller.block(CompletableFuture.java:1864)', jdk: true },
			]);
			document.querySelector('.lock-detail').append(long);
			const bad = [];
			// A line ends after '.', '$', '/' or '-', or before '('.
			const check = (f) => {
				const chars = [];
				const walk = document.createTreeWalker(f, NodeFilter.SHOW_TEXT);
				for (let n = walk.nextNode(); n; n = walk.nextNode()) {
					for (let i = 0; i < n.length; i++) {
						const r = document.createRange();
						r.setStart(n, i);
						r.setEnd(n, i + 1);
						const rect = r.getClientRects()[0];
						if (rect) chars.push({ c: n.data[i], top: rect.top });
					}
				}
				for (let i = 1; i < chars.length; i++) {
					if (chars[i].top > chars[i - 1].top + 2 && !('.$/-'.includes(chars[i - 1].c) || chars[i].c === '(')) {
						bad.push(f.textContent.slice(0, i) + ' | ' + f.textContent.slice(i));
					}
				}
			};
			document.querySelectorAll('.lock-detail .frame').forEach(check);
			return bad;
		})`)
		if len(bad) > 0 {
			t.Errorf("frames broken inside a name: %q", bad)
		}
		screenshot(t, ctx, "small-frames.png")
		eval[bool](t, ctx, `(document.querySelectorAll('.lock-detail > .stack').forEach((e) => e.remove()), true)`)
	})
}

// hiddenColumns lists the Locks view's columns that lie beyond the right
// edge of the table's view when no cue says the table scrolls to them.
func hiddenColumns(t *testing.T, ctx context.Context) []string {
	t.Helper()
	return eval[[]string](t, ctx, `(() => {
		const wrap = document.querySelector('.locks-main .table-wrap');
		const r = wrap.getBoundingClientRect();
		const out = [...document.querySelectorAll('table.locks thead th')].filter((th) => th.getBoundingClientRect().right > r.left + wrap.clientWidth + 1).map((th) => th.textContent);
		const cue = document.querySelector('.locks-main .scroll-cue');
		const cued = cue && !cue.hidden && cue.offsetWidth > 0 && getComputedStyle(cue).visibility !== 'hidden' &&
			wrap.scrollWidth > wrap.clientWidth && ['auto', 'scroll'].includes(getComputedStyle(wrap).overflowX);
		return cued ? [] : out;
	})()`)
}

// panelFacts selects an interval and returns its side panel's facts, one
// "label: value" per row.
func panelFacts(t *testing.T, ctx context.Context, thread, index int) []string {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`(orca.app.gotoInterval(%d, %d), true)`, thread, index))
	waitJS(t, ctx, "the interval's panel", fmt.Sprintf(`document.querySelector('#panel').dataset.shown === '%d.%d'`, thread, index))
	return eval[[]string](t, ctx, `[...document.querySelectorAll('#panel table.facts tr')].map((tr) => tr.querySelector('th').textContent + ': ' + tr.querySelector('td').textContent)`)
}

// tooltipOf hovers an interval on the timeline and returns its tooltip's
// text once its details are in.
func tooltipOf(t *testing.T, ctx context.Context, thread, index int) string {
	t.Helper()
	type pt struct{ X, Y float64 }
	eval[bool](t, ctx, `(orca.app.show('timeline'), orca.timeline.fit(), orca.timeline.idle().then(() => true))`)
	p := eval[pt](t, ctx, fmt.Sprintf(`window.orca.timeline.locate(%d, %d)`, thread, index))
	within(t, ctx, 10*time.Second, "hover", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, p.X, p.Y))
	waitJS(t, ctx, "the tooltip's details", `!document.querySelector('.tl-wrap .tooltip').hidden && document.querySelector('.tl-wrap .tooltip').textContent.includes('click for the stack')`)
	s := eval[string](t, ctx, `document.querySelector('.tl-wrap .tooltip').innerText`)
	within(t, ctx, 10*time.Second, "leave", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 1, 1))
	return s
}

// rawKinds lists the texts and tooltips shown on the page that use the
// API's lock kinds "juc" or "blocker" as words (issue 21 item 1: the
// report says "lock" and "park").
func rawKinds(t *testing.T, ctx context.Context) []string {
	t.Helper()
	return eval[[]string](t, ctx, `(() => {
		const raw = /\b(juc|blocker|j\.u\.c\.)\b/;
		const out = [];
		const prefix = orca.app.summary.prefix; // the recording's file names it
		const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			if (raw.test(n.data.replace(prefix, '')) && n.parentElement.closest('[hidden]') == null) out.push(n.data);
		}
		for (const el of document.querySelectorAll('[title]')) if (raw.test(el.title.replace(prefix, ''))) out.push('title: ' + el.title);
		return out;
	})()`)
}

// TestBrowserVocabulary: issue 21 item 1 — the viewer speaks as orca
// report does, and never contradicts itself. On the model's case juc-lock
// (a parks to acquire lock F00D owned by b while b is blocked on a monitor
// a holds; e awaits a latch) and on an import from JFR:
//   - no label, chip, legend or tooltip says "juc" or "blocker", the
//     API's kinds: a java.util.concurrent lock is a "lock", another park's
//     object a "park";
//   - an interval's owner is said once: the owner when the thread blocked,
//     and who held it later if another; "unknown" only when no owner is
//     known, and never "the agent" in an import;
//   - a park in a lock's acquire is blocked, red, on the timeline, in the
//     hangs list and in the wait-for graph; a plain park parked, orange;
//   - pool workers are not under "JDK service threads".
func TestBrowserVocabulary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	r := fromTxtar(t, "../model/testdata/cases/juc-lock.txtar")
	m := r.res.Model
	index := func(name string) int {
		for i, th := range m.Threads {
			if th.Name == name {
				return i
			}
		}
		t.Fatalf("no thread %q", name)
		return -1
	}
	a, b, e := index("a"), index("b"), index("e")
	ts := serve(t, r)
	ctx := newBrowser(t, 1500, 900)
	open(t, ctx, ts.URL+"/")
	waitJS(t, ctx, "the first paint", `document.querySelector('canvas.timeline').dataset.painted`)

	t.Run("one owner", func(t *testing.T) {
		// a's park to acquire F00D, still there at the end: b owned the
		// lock when a parked; nothing says who owned it later.
		facts := panelFacts(t, ctx, a, 0)
		text := strings.Join(facts, "\n")
		if !slices.Contains(facts, "owner when it blocked: b") || strings.Contains(text, "unknown") {
			t.Errorf("a's contention on lock F00D: panel says\n%s\nwant 'owner when it blocked: b' and no unknown owner", text)
		}
		if tip := tooltipOf(t, ctx, a, 0); !strings.Contains(tip, "owner when it blocked b") || strings.Contains(tip, "unknown") {
			t.Errorf("a's contention on lock F00D: tooltip says %q", tip)
		}
		// b's first park on BEEF: a owned it, and a's unlock let b in: one owner.
		facts = panelFacts(t, ctx, b, 0)
		if n := len(slices.DeleteFunc(slices.Clone(facts), func(f string) bool { return !strings.Contains(f, "owner") && !strings.Contains(f, "held") })); n != 1 || !slices.Contains(facts, "owner: a") {
			t.Errorf("b's contention on BEEF, owned by a all along: panel says\n%s\nwant one fact 'owner: a'", strings.Join(facts, "\n"))
		}
	})

	t.Run("lock words", func(t *testing.T) {
		facts := panelFacts(t, ctx, a, 0)
		if !slices.ContainsFunc(facts, func(f string) bool { return strings.HasPrefix(f, "lock: 0000F00D") }) {
			t.Errorf("a's contention: panel names no lock 0000F00D:\n%s", strings.Join(facts, "\n"))
		}
		facts = panelFacts(t, ctx, e, 0)
		if !slices.ContainsFunc(facts, func(f string) bool { return strings.HasPrefix(f, "parked on: 0000CAFE") }) {
			t.Errorf("e's park: panel does not say 'parked on 0000CAFE':\n%s", strings.Join(facts, "\n"))
		}
		if tip := tooltipOf(t, ctx, e, 0); strings.Contains(tip, "blocker") {
			t.Errorf("e's park: tooltip %q", tip)
		}
		if raw := rawKinds(t, ctx); len(raw) > 0 {
			t.Errorf("timeline: the API's kinds as words: %q", raw)
		}
		within(t, ctx, 10*time.Second, "locks tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=locks]`)))
		waitJS(t, ctx, "the locks table", `document.querySelectorAll('table.locks tbody tr').length > 0`)
		kinds := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('table.locks tbody tr')].map((tr) => [tr.dataset.lock, tr.querySelector('td.kind').textContent]))`)
		for id, want := range map[string]string{"juc:0000F00D": "lock", "juc:0000BEEF": "lock", "blocker:0000CAFE": "park", "monitor:00000B0B": "monitor"} {
			if kinds[id] != want {
				t.Errorf("locks table: %s of kind %q, want %q (all: %v)", id, kinds[id], want, kinds)
			}
		}
		for _, id := range []string{"juc:0000F00D", "blocker:0000CAFE"} {
			within(t, ctx, 10*time.Second, "a lock", chromedp.Click(chromedp.CSS(`table.locks tbody tr[data-lock="`+id+`"]`)))
			waitJS(t, ctx, "its detail", `document.querySelector('.lock-detail .panel-head') && document.querySelector('.lock-detail .panel-head').textContent.includes('`+id[strings.Index(id, ":")+1:]+`')`)
			if raw := rawKinds(t, ctx); len(raw) > 0 {
				t.Errorf("locks, %s: the API's kinds as words: %q", id, raw)
			}
		}
	})

	t.Run("a lock's park is blocked", func(t *testing.T) {
		open(t, ctx, ts.URL+"/#v=deadlocks&dl=0")
		waitJS(t, ctx, "the graph", `document.querySelector('.graph-title') && document.querySelector('.g-node[data-id="t`+fmt.Sprint(a)+`"]')`)
		type chip struct{ Text, Color string }
		hang := eval[chip](t, ctx, fmt.Sprintf(`(() => {
			const tr = [...document.querySelectorAll('tr.hang')].find((tr) => tr.firstChild.textContent === %q);
			const c = tr && tr.querySelector('.chip');
			return c ? { Text: c.textContent, Color: getComputedStyle(c).getPropertyValue('--c').trim() } : { Text: 'no hang of a', Color: '' };
		})()`, "a"))
		if hang.Text != "blocked" || hang.Color != "#f0565c" {
			t.Errorf("hangs list: a's park to acquire a lock is %+v, want blocked, #f0565c (as the timeline's)", hang)
		}
		node := eval[chip](t, ctx, fmt.Sprintf(`(() => { const s = document.querySelector('.g-node[data-id="t%d"] .g-sub'); return { Text: s.textContent, Color: s.getAttribute('fill') }; })()`, a))
		if !strings.HasPrefix(node.Text, "blocked") || node.Color != "#f0565c" {
			t.Errorf("wait-for graph: a's node says %+v, want blocked in #f0565c", node)
		}
		edge := eval[string](t, ctx, `(() => { const p = [...document.querySelectorAll('.g-edge')]; return JSON.stringify(p.map((e) => e.getAttribute('stroke'))); })()`)
		if !strings.Contains(edge, "#f0565c") {
			t.Errorf("wait-for graph: no edge drawn red: %s", edge)
		}
		legend := eval[string](t, ctx, `document.querySelector('.graph-head .legend').textContent`)
		if !strings.Contains(legend, "blocked → monitor or lock → owner") || strings.Contains(legend, "parked → j.u.c. lock") {
			t.Errorf("wait-for graph legend %q: a lock's park must read as blocked", legend)
		}
		if raw := rawKinds(t, ctx); len(raw) > 0 {
			t.Errorf("deadlocks view: the API's kinds as words: %q", raw)
		}
		// SVG text is not in the tree walked above: the lock nodes' labels.
		labels := eval[[]string](t, ctx, `[...document.querySelectorAll('.g-lock, .g-node title')].map((e) => e.textContent)`)
		for _, l := range labels {
			if regexp.MustCompile(`\b(juc|blocker)\b`).MatchString(l) {
				t.Errorf("wait-for graph: label %q", l)
			}
		}
		// At 2 s, e's latch await is a plain park: parked, orange.
		eval[bool](t, ctx, `(orca.app.state.instant = 2e9, orca.app.state.dl = -1, orca.app.dlView.render(), true)`)
		waitJS(t, ctx, "the graph at 2 s", fmt.Sprintf(`document.querySelector('.g-node[data-id="t%d"] .g-sub')`, e))
		node = eval[chip](t, ctx, fmt.Sprintf(`(() => { const s = document.querySelector('.g-node[data-id="t%d"] .g-sub'); return { Text: s.textContent, Color: s.getAttribute('fill') }; })()`, e))
		if !strings.HasPrefix(node.Text, "parked") || node.Color != "#f0883e" {
			t.Errorf("wait-for graph at 2 s: e's latch await says %+v, want parked in #f0883e", node)
		}
	})

	t.Run("import", func(t *testing.T) {
		// t2's contention of JFR's import names no previous owner: the
		// panel says JFR did not record it, not the agent.
		r := fromTxtar(t, "../report/testdata/import.txtar")
		ts := serve(t, r)
		ctx := newBrowser(t, 1400, 900)
		open(t, ctx, ts.URL+"/")
		waitJS(t, ctx, "the first paint", `document.querySelector('canvas.timeline').dataset.painted`)
		t2, k := -1, -1
		for i, th := range r.res.Model.Threads {
			for j, iv := range th.Intervals {
				if th.Name == "t2" && iv.State == model.Blocked {
					t2, k = i, j
				}
			}
		}
		if t2 < 0 {
			t.Fatal("no contention of t2 in the import")
		}
		text := strings.Join(panelFacts(t, ctx, t2, k), "\n")
		if !strings.Contains(text, "owner: unknown (JFR did not record it)") || strings.Contains(text, "agent") {
			t.Errorf("t2's contention in an import from JFR: panel says\n%s\nwant 'owner: unknown (JFR did not record it)'", text)
		}
		if tip := tooltipOf(t, ctx, t2, k); strings.Contains(tip, "agent") {
			t.Errorf("t2's contention in an import from JFR: tooltip %q", tip)
		}
	})

	t.Run("pool workers", func(t *testing.T) {
		// The small-screen recording's workers: ForkJoinPool.commonPool-
		// worker-N and an application's pool worker, with no stack.
		r := smallScreenRecording(t)
		ts := serve(t, r)
		ctx := newBrowser(t, 1400, 900)
		open(t, ctx, ts.URL+"/")
		waitJS(t, ctx, "the first paint", `document.querySelector('canvas.timeline').dataset.painted`)
		jdk := eval[[]string](t, ctx, `(() => {
			const out = [];
			let in_ = false;
			for (const r of orca.timeline.rows) {
				if (r.kind === 'group') in_ = r.name === 'JDK service threads';
				else if (in_ && r.depth > 0) out.push(orca.app.threads[r.thread].name);
			}
			return out;
		})()`)
		for _, n := range jdk {
			if strings.Contains(n, "worker") {
				t.Errorf("pool worker %q under JDK service threads (%q)", n, jdk)
			}
		}
	})
}

// TestBrowserSaysWhatItKnows: the viewer writes what the report says of an attached window and
// of a java.util.concurrent class's lock (issue 31, items 5 and 8), from the same model
// functions: the report's attached case, a deadlock already there when orca attached ("already
// deadlocked when orca attached", "≥" before the lengths, no "formed at"), and its juc-queue
// case, the queue's lock named "in ArrayBlockingQueue.take" in the locks table.
func TestBrowserSaysWhatItKnows(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	ctx := newBrowser(t, 1280, 900)
	ts := serve(t, fromTxtar(t, "../report/testdata/attached.txtar"))
	open(t, ctx, ts.URL+"/")
	within(t, ctx, 10*time.Second, "deadlocks tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=deadlocks]`)))
	waitJS(t, ctx, "the deadlock's card", `document.querySelector('.dl-card')`)
	card := eval[string](t, ctx, `document.querySelector('.dl-card').textContent`)
	// (The viewer's own duration format: 3.000 s.)
	if !strings.Contains(card, "already deadlocked when orca attached; still intact at the end (≥ 3.0") || strings.Contains(card, "formed at") {
		t.Errorf("the deadlock's card: %q, want 'already deadlocked when orca attached; still intact at the end (≥ 3.0…)'", card)
	}
	// The wait-for graph at the end: the deadlocked threads' states since before the attach.
	waitJS(t, ctx, "the wait-for graph", `document.querySelector('.graph-title')`)
	subs := eval[[]string](t, ctx, `[...document.querySelectorAll('.g-node.cycle .g-sub')].map((e) => e.textContent)`)
	if len(subs) != 2 || !strings.Contains(subs[0], "· ≥ ") || !strings.Contains(subs[1], "· ≥ ") {
		t.Errorf("the cycle's threads read %q, want each 'blocked · ≥ …'", subs)
	}
	hangs := eval[[]string](t, ctx, `[...document.querySelectorAll('tr.hang td.num')].map((td) => td.textContent)`)
	if len(hangs) != 2 || !strings.HasPrefix(hangs[0], "≥ ") || !strings.HasPrefix(hangs[1], "≥ ") {
		t.Errorf("the hangs' lengths %q, want two, each '≥ …'", hangs)
	}

	ts = serve(t, fromTxtar(t, "../report/testdata/juc-queue.txtar"))
	open(t, ctx, ts.URL+"/")
	within(t, ctx, 10*time.Second, "locks tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=locks]`)))
	waitJS(t, ctx, "the queue's lock", `document.querySelector('table.locks tbody tr[data-lock="juc:0000510C"]')`)
	if s := eval[string](t, ctx, `document.querySelector('table.locks tbody tr[data-lock="juc:0000510C"] td.lock-name').textContent`); !strings.Contains(s, "in ArrayBlockingQueue.take") {
		t.Errorf("the queue's lock reads %q, want it 'in ArrayBlockingQueue.take'", s)
	}
}

// TestBrowser1280: issue 31, item 9 — at 1280 × 800, on Bank.java (a
// lock-order deadlock with an auditor behind it, main parked on a latch),
// the wait-for graph shows every node of the deadlock inside its view (half
// of the cycle was cut at the right edge), each lock's label whole inside
// its box and clear of the arrowheads (they were cut and began under
// them); the Locks table's "more columns" button covers no header; the
// time axis's last label is inside the axis (it was cut in half).
func TestBrowser1280(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	r, why := recordJava(t, "bank", "internal/web/testdata/Bank.java")
	if r == nil {
		t.Skipf("cannot record Bank.java: %s", why)
	}
	ts := serve(t, r)
	ctx := newBrowser(t, 1280, 800)
	open(t, ctx, ts.URL+"/#v=deadlocks&dl=0")
	waitJS(t, ctx, "the cycle", `document.querySelectorAll('.g-node.cycle').length >= 4`)
	screenshot(t, ctx, "1280-deadlock-graph.png")

	t.Run("graph in view", func(t *testing.T) {
		out := eval[[]string](t, ctx, `(() => {
			const wrap = document.querySelector('.graph-wrap');
			const v = wrap.getBoundingClientRect();
			const right = Math.min(v.left + wrap.clientWidth, window.innerWidth), bottom = Math.min(v.top + wrap.clientHeight, window.innerHeight);
			return [...document.querySelectorAll('.g-node')].filter((g) => {
				const r = g.getBoundingClientRect();
				return r.left < v.left - 0.5 || r.right > right + 0.5 || r.top < v.top - 0.5 || r.bottom > bottom + 0.5;
			}).map((g) => g.dataset.id + ' ' + g.textContent);
		})()`)
		if len(out) > 0 {
			t.Errorf("wait-for graph nodes outside the view at 1280 px: %q", out)
		}
	})

	t.Run("lock labels whole and clear of arrowheads", func(t *testing.T) {
		bad := eval[[]string](t, ctx, `(() => {
			const bad = [];
			const texts = [...document.querySelectorAll('.g-node.lock')].map((g) => {
				const box = g.querySelector('rect').getBoundingClientRect();
				for (const tx of g.querySelectorAll('text')) {
					const r = tx.getBoundingClientRect();
					if (tx.textContent.includes('…')) bad.push('cut: ' + tx.textContent);
					if (r.left < box.left + 3 || r.right > box.right - 3) bad.push('outside its box: ' + tx.textContent);
				}
				return [...g.querySelectorAll('text')].map((tx) => [tx.textContent, tx.getBoundingClientRect()]);
			}).flat();
			const svg = document.querySelector('svg.graph');
			const ctm = svg.getScreenCTM();
			for (const p of document.querySelectorAll('path.g-edge')) {
				const q = p.getPointAtLength(p.getTotalLength());
				const pt = new DOMPoint(q.x, q.y).matrixTransform(ctm);
				// The arrowhead lies behind its tip, outside the box it
				// points at: the tip itself must be clear of every label.
				const head = 2;
				for (const [text, r] of texts) {
					if (pt.x + head > r.left && pt.x - head < r.right && pt.y + head > r.top && pt.y - head < r.bottom) {
						bad.push('an arrowhead at ' + Math.round(pt.x) + ',' + Math.round(pt.y) + ' on ' + text);
					}
				}
			}
			return bad;
		})()`)
		if len(bad) > 0 {
			t.Errorf("lock labels: %q", bad)
		}
	})

	t.Run("the scroll cue covers no header", func(t *testing.T) {
		within(t, ctx, 10*time.Second, "locks tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=locks]`)))
		waitJS(t, ctx, "the locks table", `document.querySelectorAll('table.locks tbody tr').length > 0`)
		screenshot(t, ctx, "1280-locks.png")
		over := eval[[]string](t, ctx, `(() => {
			const cue = document.querySelector('.locks-main .scroll-cue');
			if (!cue || cue.hidden) return [];
			const c = cue.getBoundingClientRect();
			return [...document.querySelectorAll('table.locks thead th')].filter((th) => {
				const r = th.getBoundingClientRect();
				return r.right > c.left && r.left < c.right && r.bottom > c.top && r.top < c.bottom;
			}).map((th) => th.textContent);
		})()`)
		if len(over) > 0 {
			t.Errorf("the 'more columns' button covers the headers %q", over)
		}
		if cued := eval[bool](t, ctx, `!document.querySelector('.locks-main .scroll-cue').hidden`); !cued {
			t.Log("no scroll cue at 1280 px: every column fits")
		}
	})

	t.Run("locks as the report ranks them", func(t *testing.T) {
		// The Locks table's default order is the report's CONTENTION
		// order (the deadlock's locks sorted last: their still-blocked
		// time was left out), still-blocked time says how many threads
		// (it said "2× 8.682 s"), and an owner's share is the report's
		// figure (the viewer rounded 99.7 % to 100 %).
		rep := report.New(r.rec, r.res, report.Options{})
		var want []string
		for _, l := range rep.Locks {
			want = append(want, l.Kind+":"+l.Object)
		}
		within(t, ctx, 10*time.Second, "locks tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=locks]`)))
		got := eval[[]string](t, ctx, fmt.Sprintf(`(() => { const want = new Set(%s); return [...document.querySelectorAll('table.locks tbody tr')].map((tr) => tr.dataset.lock).filter((id) => want.has(id)); })()`, jsStrings(want)))
		if !slices.Equal(got, want) {
			t.Errorf("the Locks table's order %q, the report's %q", got, want)
		}
		for _, l := range rep.Locks {
			if l.Open < 2 {
				continue
			}
			cell := eval[string](t, ctx, fmt.Sprintf(`[...document.querySelector('table.locks tbody tr[data-lock="%s:%s"]').children][5].textContent`, l.Kind, l.Object))
			if !strings.HasSuffix(cell, fmt.Sprintf(", %d threads", l.Open)) {
				t.Errorf("lock %s still blocked: %q, want its time and %d threads", l.Object, cell, l.Open)
			}
		}
		for _, l := range rep.Locks {
			if len(l.Owners) < 2 {
				continue
			}
			within(t, ctx, 10*time.Second, "a lock", chromedp.Click(chromedp.CSS(fmt.Sprintf(`table.locks tbody tr[data-lock="%s:%s"]`, l.Kind, l.Object))))
			waitJS(t, ctx, "its owners", fmt.Sprintf(`document.querySelector('.lock-detail .panel-head') && document.querySelector('.lock-detail .panel-head').textContent.includes(%q) && document.querySelector('.lock-detail table.owners')`, l.Object))
			shares := eval[[]string](t, ctx, `[...document.querySelectorAll('.lock-detail table.owners td.barcell')].map((td) => td.textContent.split(' · ')[1])`)
			for i, o := range l.Owners[:min(len(l.Owners), len(shares))] {
				if w := report.Percent(o.Pct); shares[i] != w {
					t.Errorf("lock %s, owner %s: the viewer's share %q, the report's %q", l.Object, o.Thread, shares[i], w)
				}
			}
			break
		}
	})

	t.Run("waiting alone as the report", func(t *testing.T) {
		// main on the forgotten latch waits alone (issue 31, item 3): the
		// header and the deadlocks tab say so, apart from the hangs.
		rep := report.New(r.rec, r.res, report.Options{})
		var want []string
		for _, h := range rep.WaitingAlone {
			want = append(want, *h.Name)
		}
		if !slices.Contains(want, "main") {
			t.Fatalf("the report's waiting alone %q, want main (on the latch) among them", want)
		}
		within(t, ctx, 10*time.Second, "deadlocks tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=deadlocks]`)))
		waitJS(t, ctx, "the list", `document.querySelector('table.alone')`)
		got := eval[[]string](t, ctx, `[...document.querySelectorAll('table.alone tr.hang td:first-child')].map((td) => td.textContent)`)
		if !slices.Equal(got, want) {
			t.Errorf("the viewer's waiting alone %q, the report's %q", got, want)
		}
		if head := eval[string](t, ctx, `document.getElementById('rec').textContent`); !strings.Contains(head, fmt.Sprintf("%d waiting alone", len(want))) {
			t.Errorf("the header %q does not say %d waiting alone", head, len(want))
		}
	})

	t.Run("the axis's last label inside", func(t *testing.T) {
		within(t, ctx, 10*time.Second, "timeline tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-view=timeline]`)))
		waitJS(t, ctx, "the first paint", `document.querySelector('canvas.timeline').dataset.painted`)
		eval[bool](t, ctx, `(orca.timeline.fit(), orca.timeline.idle().then(() => true))`)
		screenshot(t, ctx, "1280-timeline.png")
		type rect struct {
			Label       string
			Left, Right float64
		}
		rects := eval[[]rect](t, ctx, `orca.timeline.tickRects || []`)
		w := eval[float64](t, ctx, `orca.timeline.w`)
		if len(rects) < 2 {
			t.Fatalf("axis labels drawn: %+v, want 2 or more (ticks %q)", rects, eval[[]string](t, ctx, `orca.timeline.ticks`))
		}
		for _, r := range rects {
			if r.Right > w-1 {
				t.Errorf("axis label %q ends at %.1f px, past the axis's %v px", r.Label, r.Right, w)
			}
		}
		for i := 1; i < len(rects); i++ {
			if rects[i].Left < rects[i-1].Right {
				t.Errorf("axis labels %q and %q overlap", rects[i-1].Label, rects[i].Label)
			}
		}
	})
}

// jsStrings writes ss as a JavaScript array literal.
func jsStrings(ss []string) string {
	b, _ := json.Marshal(ss)
	return string(b)
}

// TestBrowserManyLocks: the Locks view given more rows than a page draws
// and than a call takes as arguments (an hour of a real Tomcat had 171 414
// locks: Math.max over them all threw a RangeError, and the whole page
// stayed blank). 200 000 rows, made in the page from the case's first
// lock, go through the view's own setData and render: the first 500 of
// them by the sort (most blocked first: the server's rank), a button for
// 500 more, and a selected row past them drawn after it.
func TestBrowserManyLocks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	r := fromTxtar(t, "../report/testdata/groups.txtar")
	ts := serve(t, r)
	ctx := newBrowser(t, 1500, 900)
	open(t, ctx, ts.URL+"/#v=locks")
	waitJS(t, ctx, "the locks table", `document.querySelectorAll('table.locks tbody tr').length > 0`)
	rows := func() int {
		return eval[int](t, ctx, `document.querySelectorAll('table.locks tbody tr:not(.more-rows)').length`)
	}
	made := eval[int](t, ctx, `(() => {
		const v = orca.app.lockView;
		const l0 = v.locks.find((l) => l.group == null);
		const locks = [];
		for (let i = 0; i < 200000; i++) locks.push({ ...l0, object: i.toString(16).toUpperCase().padStart(8, '0'), blocked: i + 1, rank: 199999 - i });
		v.setData(locks, v.groups);
		v.render();
		return v.locks.length;
	})()`)
	if made != 200000+len(r.res.Model.Groups) {
		t.Fatalf("%d rows in the view, want 200 000 and the case's %d groups", made, len(r.res.Model.Groups))
	}
	if n := rows(); n != 500 {
		t.Errorf("%d rows drawn, want the first 500", n)
	}
	if first := eval[string](t, ctx, `document.querySelector('table.locks tbody tr code').textContent`); first != "00030D3F" {
		t.Errorf("first row %q, want the most blocked, 00030D3F", first)
	}
	if b := eval[string](t, ctx, `document.querySelector('table.locks tr.more-rows').textContent`); !strings.Contains(b, "Show 500 more") || !strings.Contains(b, "500 of 200,003 shown") {
		t.Errorf("the last row says %q", b)
	}
	within(t, ctx, 10*time.Second, "more", chromedp.Click(chromedp.CSS(`table.locks tr.more-rows button`)))
	if n := rows(); n != 1000 {
		t.Errorf("%d rows drawn after one click, want 1000", n)
	}
	// A selection past the rows drawn (a shared URL's) is drawn after the
	// button.
	kind := eval[string](t, ctx, `orca.app.lockView.locks.find((l) => l.group == null).kind`)
	eval[bool](t, ctx, fmt.Sprintf(`(() => { orca.app.state.lockSel = %q; orca.app.lockView.render(); return true; })()`, kind+":00000010"))
	if n := rows(); n != 1001 {
		t.Errorf("%d rows drawn with the 199 984th selected, want 1 000 and it", n)
	}
	if sel := eval[string](t, ctx, `document.querySelector('table.locks tr.more-rows + tr.selected code').textContent`); sel != "00000010" {
		t.Errorf("the selected row drawn after the button is %q", sel)
	}
}
