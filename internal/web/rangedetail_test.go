package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// TestRangeDetail: at a reopen, an interval's detail is answered from
// the model of the range its state spans (rangedetail.go), and is the
// whole model's, field for field but its stack's number: for intervals of
// every thread of compact recordings (synthetic ones, one with conditions
// and lock orders, and Scenario.java's recording where Java runs), the
// answer from the index and its ranges equals the answer of the server of
// the whole model, and no model of the whole is built for them. The
// intervals the range cannot answer exactly (rangeInterval's rules: a
// contention whose owner the range did not see take the lock, a j.u.c.
// lock handed off before it…) are asked of the model, as before (a 503);
// counted by why.
func TestRangeDetail(t *testing.T) {
	defer func(v int) { rangeMost = v }(rangeMost)
	rangeMost = 1 // any range, however much of these small recordings it reads
	prefixes := []string{
		synthetic(t, "compact", synth.Options{Threads: 30, Monitors: 12, Semaphores: 4, Size: 3 << 20, Encoding: format.EncodingCompact}).prefix,
		synthetic(t, "compact-cond", synth.Options{Seed: 7, Threads: 20, Monitors: 8, Semaphores: 3, Size: 2 << 20, Encoding: format.EncodingCompact, Conditions: true, LockOrder: true}).prefix,
	}
	own := os.Getenv("ORCA_PREFIX")
	if own != "" {
		// A recording of one's own as well, e.g. a server's, with
		// ORCA_ASKS intervals asked of it (120):
		// ORCA_PREFIX=/tmp/tomcat/rec ORCA_ASKS=800 go test -run 'RangeDetail$' ./internal/web
		prefixes = append(prefixes, own)
	}
	ownAsks := 120
	if v, err := strconv.Atoi(os.Getenv("ORCA_ASKS")); err == nil && v > 0 {
		ownAsks = v
	}
	if r, why := recordJava(t, "scenario", "testdata/java/scenarios/Scenario.java"); r != nil {
		prefixes = append(prefixes, r.prefix)
	} else {
		t.Logf("Scenario.java's recording left out: %s", why)
	}
	for i, prefix := range prefixes {
		// About 120 intervals of all threads, and the first and
		// the last of every eighth thread.
		ask := func(ti, k, n, step int) bool { return (k == 0 || k == n-1) && ti%8 == 0 || (ti+k)%step == 0 }
		asks := 120
		if prefix == own {
			asks = ownAsks
		}
		rangesAgree(t, prefix, nil, ask, asks, true)
		if i == 0 {
			// orca view --from --to: the view of a range, whose
			// intervals' ranges are within it (a state restated at its
			// start, the same in both).
			rangesAgree(t, prefix, []int{2, 3}, ask, 120, true)
		}
	}
}

// rangesAgree compares, for the intervals of prefix's recording that ask
// (of thread ti, k of its n; step: its intervals over asks), the
// answers of the whole model's server and of its index's with ranges;
// floor: at least half answered from their ranges.
func rangesAgree(t *testing.T, prefix string, fifths []int, ask func(ti, k, n, step int) bool, asks int, floor bool) {
	rec, res := viewerBuild(t, prefix)
	var view *reader.Span
	if fifths != nil {
		// The view of [fifths[0], fifths[1]] fifths of the recording.
		w := res.Model
		sp, err := rec.Span(w.Start+(w.End-w.Start)*format.Time(fifths[0])/5, w.Start+(w.End-w.Start)*format.Time(fifths[1])/5)
		if err != nil {
			t.Fatal(err)
		}
		opt := ModelOptions(rec)
		opt.Span, view = sp, sp
		if res, err = model.Build(rec, opt); err != nil {
			t.Fatal(err)
		}
	}
	m := res.Model
	whole, fromIdx, isrv, builds := rangeServers(t, prefix, rec, res, view)
	total := 0
	for _, th := range m.AllThreads() {
		total += m.IntervalCount(th)
	}
	step := max(total/asks, 1)
	asked, ranged := 0, 0
	kinds := map[string]int{}
	for ti, th := range m.AllThreads() {
		n := m.IntervalCount(th)
		for k := 0; k < n; k++ {
			if !ask(ti, k, n, step) {
				continue
			}
			u := fmt.Sprintf("/api/intervals/%d/%d", ti, k)
			want := getBody(t, whole.URL+u)
			got := getBody(t, fromIdx.URL+u)
			asked++
			if strings.HasPrefix(got, "503 ") {
				continue // asked of the model
			}
			ranged++
			var w, g map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(want, "200 ")), &w); err != nil {
				t.Fatalf("%s: %s from the model: %.200s", prefix, u, want)
			}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(got, "200 ")), &g); err != nil || !strings.HasPrefix(got, "200 ") {
				t.Fatalf("%s: %s from its range: %.300s", prefix, u, got)
			}
			if g["stack"] != -1.0 {
				t.Errorf("%s: %s from its range: stack %v, want -1 (not the whole model's number)", prefix, u, g["stack"])
			}
			delete(w, "stack")
			delete(g, "stack")
			wb, _ := json.Marshal(w)
			gb, _ := json.Marshal(g)
			if string(wb) != string(gb) {
				var keys []string
				for k, v := range w {
					a, _ := json.Marshal(v)
					b, _ := json.Marshal(g[k])
					if string(a) != string(b) {
						keys = append(keys, fmt.Sprintf("%s: %s | %s", k, a, b))
					}
				}
				t.Errorf("%s: %s (%v acquire %v since %v start %v end %v) from its range differs (model | range):\n%.3000s", prefix, u, w["state"], w["acquire"], w["since"], w["start"], w["end"], strings.Join(keys, "\n"))
			}
			kinds[fmt.Sprint(w["state"])]++
		}
	}
	if b := builds.Load(); b != 0 && ranged == asked {
		t.Errorf("%s: details answered from their ranges started the model's build (%d)", prefix, b)
	}
	t.Logf("%s: %d of %d intervals' details from their ranges (%d ranges' models), by state %v; left to the model: %v", filepath.Base(prefix), ranged, asked, isrv.rd.built, kinds, isrv.rd.left)
	if !floor || prefix == os.Getenv("ORCA_PREFIX") {
		return // how many, said: not this test's to decide
	}
	// The synthetic recordings' acquires (a fifth to a third of
	// their intervals) are the model's.
	if ranged < asked/2 || ranged < 50 {
		t.Errorf("%s: %d of %d intervals' details from their ranges: want half or more", prefix, ranged, asked)
	}
	if len(kinds) < 3 {
		t.Errorf("%s: details of %d states compared (%v): a weak test", prefix, len(kinds), kinds)
	}
}

// rangeServers writes the index of res (prefix's model, of the range view
// when not nil) and serves it twice: whole, from the model; fromIdx,
// reopened from the index with its ranges (builds counts the model's
// builds it starts).
func rangeServers(t *testing.T, prefix string, rec *reader.Recording, res *model.Result, view *reader.Span) (whole, fromIdx *httptest.Server, isrv *Server, builds *atomic.Int32) {
	t.Helper()
	srv := New(rec, res, Options{})
	root := filepath.Join(t.TempDir(), "cache", "orca", "view")
	key := IndexKey("sig of "+prefix, fmt.Sprint(view != nil))
	if _, err := srv.WriteIndex(root, key); err != nil {
		t.Fatalf("%s: %v", prefix, err)
	}
	isrv, _ = reopenedServer(t, root, key)
	builds = new(atomic.Int32)
	isrv.BuildOnDemand(func() { builds.Add(1) })
	isrv.DetailsFromRanges(NewRangeBuilder(func() (*reader.Recording, error) { return reader.Open(prefix) }, view, ModelOptions))
	whole, fromIdx = httptest.NewServer(srv), httptest.NewServer(isrv)
	t.Cleanup(whole.Close)
	t.Cleanup(fromIdx.Close)
	return whole, fromIdx, isrv, builds
}

// TestBrowserRangeDetail: at a reopen of a compact recording, a click on
// a wait shows its detail (its stack) in the side panel from its range,
// and offers its wait chain (the model's) without reading the recording:
// no model of the whole is built; a detail its range cannot say (found
// by asking another reopened server) still asks for the model, which the
// page notes while it waits.
func TestBrowserRangeDetail(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	defer func(v int) { rangeMost = v }(rangeMost)
	rangeMost = 1
	prefix := synthetic(t, "compact", synth.Options{Threads: 30, Monitors: 12, Semaphores: 4, Size: 3 << 20, Encoding: format.EncodingCompact}).prefix
	rec, res := viewerBuild(t, prefix)
	whole, ts, _, builds := rangeServers(t, prefix, rec, res, nil)
	// A wait with a stack from the whole model, and an interval its
	// range leaves to the model: the first contention or acquire whose
	// detail another reopened server answers with a 503.
	_, probe, _, _ := rangeServers(t, prefix, rec, res, nil)
	m := res.Model
	type pick struct{ ti, k int }
	var wait, acq *pick
	var waitFrame string
	for ti, th := range m.AllThreads() {
		ivs, err := m.ReadIntervals(th, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, iv := range ivs {
			if wait == nil && iv.State == model.Waiting && iv.Stack != 0 && iv.Since == iv.Start && !iv.Open {
				var d intervalJSON
				getJSON(t, whole, fmt.Sprintf("/api/intervals/%d/%d", ti, k), &d)
				if len(d.Frames) > 0 {
					wait, waitFrame = &pick{ti, k}, d.Frames[0].Frame
				}
			}
			if acq == nil && (iv.State == model.Acquiring || iv.State == model.Blocked || iv.Acquire) {
				r, err := http.Get(probe.URL + fmt.Sprintf("/api/intervals/%d/%d", ti, k))
				if err != nil {
					t.Fatal(err)
				}
				r.Body.Close()
				if r.StatusCode == http.StatusServiceUnavailable {
					acq = &pick{ti, k}
				}
			}
		}
	}
	if wait == nil || acq == nil {
		t.Fatalf("no wait with a stack (%v) or no detail left to the model (%v) in the recording", wait, acq)
	}
	ctx := newBrowser(t, 1400, 900)
	openIndexPage(t, ctx, ts.URL+"/")
	eval[bool](t, ctx, fmt.Sprintf(`(orca.timeline.select(%d, %d), true)`, wait.ti, wait.k))
	waitJS(t, ctx, "the wait's detail in the panel", fmt.Sprintf(`document.getElementById('panel').textContent.includes(%q)`, waitFrame))
	// Its wait chain, the model's, asked lazily: offered, not read.
	waitJS(t, ctx, "the wait chain offered", `document.querySelector('#panel .chain').dataset.state === 'lazy' && !!document.querySelector('#panel .chain button.read-chain')`)
	if b := builds.Load(); b != 0 {
		t.Fatalf("a wait's detail from its range, its chain offered, started the model's build (%d)", b)
	}
	screenshot(t, ctx, "range-detail.png")
	eval[bool](t, ctx, fmt.Sprintf(`(orca.timeline.select(%d, %d), true)`, acq.ti, acq.k))
	waitJS(t, ctx, "a note that the recording is read", `[...document.querySelectorAll('.toast.note')].some((e) => e.textContent.includes('still reading the recording'))`)
	if b := builds.Load(); b != 1 {
		t.Fatalf("a detail left to the model: the model's build started %d times, want once", b)
	}
	if eval[bool](t, ctx, `!!document.querySelector('.toast.error')`) {
		t.Errorf("the page shows an error: %s", eval[string](t, ctx, `document.querySelector('.toast.error').textContent`))
	}
}

// TestRangeDetailCases: the model's and the report's hand-written cases,
// each the recording of one behaviour (a permit before its park, a join
// of an ended thread, a convoy's hand-offs, a deadlock, an owner left
// locked…), written compact in chunks of a few events, so that a range
// reads a part: every interval's detail from its range, when given, is
// the whole model's.
func TestRangeDetailCases(t *testing.T) {
	defer func(v int) { rangeMost = v }(rangeMost)
	rangeMost = 1
	cases, _ := filepath.Glob("../model/testdata/cases/*.txtar")
	reports, _ := filepath.Glob("../report/testdata/*.txtar")
	cases = append(cases, reports...)
	if len(cases) < 60 {
		t.Fatalf("%d cases found", len(cases))
	}
	// And an object whose class is given long after its contention, in
	// a chunk its range does not read: left to the model, whose answer
	// names the class.
	late := filepath.Join(t.TempDir(), "late-class.txtar")
	if err := os.WriteFile(late, []byte(lateClass()), 0o644); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, late)
	// And a holder parked on a j.u.c. lock whose owner changes in a
	// hand-off the whole model did not keep (the lock's last, before
	// the range, was to the same owner): left to the model.
	hand := filepath.Join(t.TempDir(), "holder-handoff.txtar")
	if err := os.WriteFile(hand, []byte(holderHandOff()), 0o644); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, hand)
	// And a waiter whose unpark came before its park (a permit), long
	// before: its park's end is a hand-off in the whole model alone.
	permit := filepath.Join(t.TempDir(), "permit-handoff.txtar")
	if err := os.WriteFile(permit, []byte(permitHandOff()), 0o644); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, permit)
	for _, c := range cases {
		prefix := testrec.Files(t, c)
		compactFile(t, prefix, 300)
		rangesAgree(t, prefix, nil, func(ti, k, n, step int) bool { return true }, 1, false)
	}
}

// lateClass is a recording whose monitor's class is given long after its
// contention: 300 sleeps of another thread between.
func lateClass() string {
	var b strings.Builder
	b.WriteString("-- orca --\n0.0000000000,ThreadStarted,00000001,main\n0.0000000000,ThreadStarted,0000000A,worker\n" +
		"1.0000000000,MonitorContendedEnter,00000001,0000CAFE,0000000A,1;00000001;00000005\n" +
		"1.5000000000,MonitorContendedEntered,00000001,0000CAFE,1;00000001;00000005\n")
	for i := range 300 {
		at := 2 + float64(i)*0.02
		fmt.Fprintf(&b, "%.10f,ThreadSleep,0000000A,1;00000001;00000005\n%.10f,ThreadSlept,0000000A,1;00000001;00000005\n", at, at+0.01)
	}
	b.WriteString("9.0000000000,ObjectClass,0000000A,0000CAFE,Ljava/lang/String;\n" +
		"9.5000000000,ThreadEnded,0000000A\n10.0000000000,ThreadEnded,00000001\n")
	return b.String()
}

// caseStart begins a test recording's text: threads 1, 2, … named names,
// started at 0, and BEEF a ReentrantLock's sync.
func caseStart(b *strings.Builder, names ...string) {
	b.WriteString("-- orca --\n")
	for i, n := range names {
		fmt.Fprintf(b, "0.0000000000,ThreadStarted,%08X,%s\n", i+1, n)
	}
	b.WriteString("0.0000000000,ObjectClass,00000001,0000BEEF,Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;\n")
}

// caseSleeps writes n short sleeps of thread th from from on, 50 ms apart:
// chunks between what a range reads and what it does not.
func caseSleeps(b *strings.Builder, th int, from float64, n int) {
	for i := range n {
		at := from + float64(i)*0.05
		fmt.Fprintf(b, "%.10f,ThreadSleep,%08X,%s\n%.10f,ThreadSlept,%08X,%s\n", at, th, caseStack, at+0.01, th, caseStack)
	}
}

// caseStack is the test recordings' one stack.
const caseStack = "1;00000001;00000005"

// holderHandOff is a recording where a holder's park on a j.u.c. lock
// (BEEF) names one owner (y) and another thread's park in it names z,
// to whom the lock was handed off long before: the whole model keeps no
// hand-off then (the lock's last was to z), a range that begins after
// the first would (the holder's spans cut at 12): a's contention on CAFE
// (10..20, held by h) names the owner of the lock h was blocked on.
func holderHandOff() string {
	const stack = caseStack
	var b strings.Builder
	caseStart(&b, "a", "h", "y", "z", "r", "s", "q")
	b.WriteString("0.0000000000,ObjectClass,00000001,0000CAFE,Ljava/lang/Object;\n" +
		// r, then s, park naming z: a hand-off to z at 2 (others parked).
		"1.0000000000,ThreadPark,00000005,0000BEEF,00000004,,exclusive," + stack + "\n" +
		"2.0000000000,ThreadPark,00000006,0000BEEF,00000004,,exclusive," + stack + "\n" +
		"3.0000000000,ThreadUnparked,00000005,0000BEEF,timeout,0\n" +
		"4.0000000000,ThreadUnparked,00000006,0000BEEF,timeout,0\n")
	caseSleeps(&b, 3, 4.5, 100)
	b.WriteString("10.0000000000,MonitorContendedEnter,00000001,0000CAFE,00000002," + stack + "\n" +
		"11.0000000000,ThreadPark,00000002,0000BEEF,00000003,,exclusive," + stack + "\n" +
		"12.0000000000,ThreadPark,00000007,0000BEEF,00000004,,exclusive," + stack + "\n" +
		"13.0000000000,ThreadUnparked,00000007,0000BEEF,timeout,0\n" +
		"19.0000000000,ThreadUnpark,00000003,00000002,0\n" +
		"19.0000000000,ThreadUnparked,00000002,0000BEEF,unparked,0\n" +
		"20.0000000000,MonitorContendedEntered,00000001,0000CAFE," + stack + "\n")
	for i := range 7 {
		fmt.Fprintf(&b, "21.0000000000,ThreadEnded,%08X\n", i+1)
	}
	return b.String()
}

// permitHandOff is a recording where o unparks w at 5, before w parks on
// o's j.u.c. lock (BEEF) at 9.9 (a permit), and w's park ends at 11 while
// a, parked on it since 10, waits: the whole model matches the end to the
// unpark and names w a's owner from 11 (a hand-off); a range that begins
// after 5 sees no unpark and no hand-off.
func permitHandOff() string {
	const stack = caseStack
	var b strings.Builder
	caseStart(&b, "a", "o", "w", "y")
	b.WriteString("5.0000000000,ThreadUnpark,00000002,00000003,0\n")
	caseSleeps(&b, 4, 5.1, 90)
	b.WriteString("9.9000000000,ThreadPark,00000003,0000BEEF,00000002,,exclusive," + stack + "\n" +
		"10.0000000000,ThreadPark,00000001,0000BEEF,00000002,,exclusive," + stack + "\n" +
		"11.0000000000,ThreadUnparked,00000003,0000BEEF,unparked,0\n" +
		"12.0000000000,ThreadUnpark,00000003,00000001,0\n" +
		"12.0000000000,ThreadUnparked,00000001,0000BEEF,unparked,0\n")
	for i := range 4 {
		fmt.Fprintf(&b, "13.0000000000,ThreadEnded,%08X\n", i+1)
	}
	return b.String()
}

// compactFile writes PREFIX.orca again in the compact encoding, a chunk
// every chunk bytes (of the small chunks the writer makes of a large
// state too).
func compactFile(t *testing.T, prefix string, chunk int) {
	t.Helper()
	text, err := os.ReadFile(prefix + ".orca")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := format.NewWriterOptions(format.Files{Events: &b}, format.Options{Encoding: format.EncodingCompact, ChunkBytes: chunk, SmallChunks: true})
	evs := reader.NewEvents(bytes.NewReader(text), "seed.orca")
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			continue // a case's malformed line: both servers read the compact file
		}
		fe := format.Event{Time: ev.Time, Kind: ev.Kind, Thread: ev.Thread, Object: ev.Object, Target: ev.Target, Owner: ev.Owner,
			Name: ev.Name, Stack: ev.Stack, Timeout: ev.Timeout, How: ev.How, Class: ev.Class, Mode: ev.Mode,
			Sampled: ev.Sampled, Weight: ev.Weight, CPU: ev.CPU, Ready: ev.Ready, Depth: ev.Depth, Lock: ev.Lock()}
		if err := w.Event(&fe); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prefix+".orca", b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRangeDetailWrong: at a reopen, a wrong interval's request is said as
// the model says it, and reads nothing: no build started.
func TestRangeDetailWrong(t *testing.T) {
	prefix := synthetic(t, "compact", synth.Options{Threads: 30, Monitors: 12, Semaphores: 4, Size: 3 << 20, Encoding: format.EncodingCompact}).prefix
	rec, res := viewerBuild(t, prefix)
	whole, fromIdx, _, builds := rangeServers(t, prefix, rec, res, nil)
	n := res.Model.IntervalCount(res.Model.ThreadAt(3))
	for _, u := range []string{"/api/intervals/x/0", "/api/intervals/99999/0", "/api/intervals/3/y", "/api/intervals/3/-1", fmt.Sprintf("/api/intervals/3/%d", n)} {
		want, got := getBody(t, whole.URL+u), getBody(t, fromIdx.URL+u)
		if got != want || strings.HasPrefix(got, "200") {
			t.Errorf("%s: %q from the index, %q from the model", u, got, want)
		}
	}
	if b := builds.Load(); b != 0 {
		t.Errorf("wrong requests started the model's build (%d)", b)
	}
}
