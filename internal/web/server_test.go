package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/synth"
)

// deadlockEvents is a classic two-lock deadlock still intact at the end,
// with a third thread blocked behind it (as model's deadlock-two-locks case).
const deadlockEvents = `0.0000000000,ThreadStarted,0000000A,a
0.0000000000,ThreadStarted,0000000B,b
0.0000000000,ThreadStarted,0000000C,main
0.0000000000,ThreadStarted,0000000D,reader
1.0000000000,MonitorContendedEnter,0000000A,00001111,0000000B,1;00000001;00000001
2.0000000000,MonitorContendedEnter,0000000B,00002222,0000000A,1;00000002;00000002
2.5000000000,MonitorContendedEnter,0000000D,00002222,0000000A,1;00000002;00000003
3.0000000000,ThreadSleep,0000000C,0
5.0000000000,ThreadSlept,0000000C,0
`

const deadlockMethods = `0.0000000000,00000001,transfer,()V,0000C1A5,2;00000000;0000000A;00000002;0000000B
0.0000000000,00000002,audit,()V,0000C1A5,1;00000000;00000014
`

const deadlockClasses = `0.0000000000,0000C1A5,Lcom/acme/Bank;,Bank.java
`

// handMade writes a recording from text and builds it.
func handMade(t *testing.T, name, events, methods, classes string) *recording {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), name)
	for suffix, text := range map[string]string{".orca": events, ".methods": methods, ".classtable": classes} {
		if err := os.WriteFile(prefix+suffix, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return build(t, prefix)
}

func get(t testing.TB, ts *httptest.Server, path string) (int, string, http.Header) {
	t.Helper()
	res, err := ts.Client().Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), res.Header
}

func getJSON(t testing.TB, ts *httptest.Server, path string, v any) {
	t.Helper()
	code, body, _ := get(t, ts, path)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
}

func TestAPIErrors(t *testing.T) {
	r := handMade(t, "dl", deadlockEvents, deadlockMethods, deadlockClasses)
	ts := serve(t, r)
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{"/api/nothing", 404, "no API GET /api/nothing"},
		{"/api/threads/99", 404, "no thread 99: the recording has 4 threads"},
		{"/api/threads/x", 400, "want a thread index"},
		{"/api/intervals/0/7", 404, "has no interval 7"},
		{"/api/stacks/-1", 404, "no stack -1"},
		{"/api/stacks/abc", 400, "want a stack id"},
		{"/api/locks/mutex/00001111", 400, "want monitor, semaphore, blocker or juc"},
		{"/api/locks/monitor/zz", 400, "want an object id of 8 hex digits"},
		{"/api/locks/semaphore/00001111", 404, "no semaphore 00001111"},
		{"/api/tiles?tile=0&threads=0", 400, "level: missing"},
		{"/api/tiles?level=99&tile=0&threads=0", 400, "level=99: want 0 to 40"},
		{"/api/tiles?level=20&tile=5&threads=0", 400, "tile=5: want 0 to 4"},
		{"/api/tiles?level=30&tile=0&threads=0-9", 404, `"0-9" is outside 0-3`},
		{"/api/tiles?level=30&tile=0&threads=3-1", 400, "is not an index or a range"},
		{"/api/waitfor", 400, "t: missing"},
		{"/api/waitfor?t=1e9", 400, "want an integer"},
		{"/api/edges?kinds=hug", 400, `"hug" is not one of`},
		{"/api/edges?t0=5&t1=1", 400, "t1=1 is before t0=5"},
		{"/api/flame?states=runnable", 400, `"runnable" is not one of`},
	} {
		code, body, h := get(t, ts, c.path)
		var e struct{ Error string }
		if err := json.Unmarshal([]byte(body), &e); err != nil || h.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: not a JSON error (%s): %s", c.path, h.Get("Content-Type"), body)
			continue
		}
		if code != c.code || !strings.Contains(e.Error, c.want) {
			t.Errorf("GET %s = %d %q, want %d containing %q", c.path, code, e.Error, c.code, c.want)
		}
	}
	// Methods other than GET are refused by the fixed routes.
	res, err := ts.Client().Post(ts.URL+"/api/summary", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /api/summary = %d, want 405", res.StatusCode)
	}
}

func TestStaticFiles(t *testing.T) {
	r := handMade(t, "dl", deadlockEvents, deadlockMethods, deadlockClasses)
	ts := serve(t, r)
	code, body, h := get(t, ts, "/")
	if code != 200 || !strings.Contains(body, `<script type="module" src="/static/js/app.js">`) {
		t.Errorf("GET / = %d %.200s", code, body)
	}
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}
	code, _, h = get(t, ts, "/static/js/app.js")
	if code != 200 || !strings.Contains(h.Get("Content-Type"), "javascript") {
		t.Errorf("GET /static/js/app.js = %d %s", code, h.Get("Content-Type"))
	}
	// Nothing outside the embedded tree, no listings, no source files.
	for _, p := range []string{"/static/", "/static/js/", "/static/../server.go", "/static/%2e%2e/server.go",
		"/static/..%2fserver.go", "/server.go", "/static/js/../../server.go", "/etc/passwd", "/static//etc/passwd", "/index.html/x"} {
		code, body, _ := get(t, ts, p)
		if code == 200 || strings.Contains(body, "package web") || strings.Contains(body, "root:") {
			t.Errorf("GET %s = %d %.100q: want it refused", p, code, body)
		}
	}
}

func TestHostCheck(t *testing.T) {
	r := handMade(t, "dl", deadlockEvents, deadlockMethods, deadlockClasses)
	ts := serve(t, r)
	for host, want := range map[string]int{"evil.example:80": 403, "10.0.0.1": 403, "localhost:1234": 200, "127.0.0.1": 200, "[::1]:9": 200} {
		req, _ := http.NewRequest("GET", ts.URL+"/api/summary", nil)
		req.Host = host
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, res.StatusCode, want)
		}
	}
	if !IsLoopback("127.0.0.1:0") || !IsLoopback("localhost:8080") || IsLoopback("0.0.0.0:0") || IsLoopback(":80") {
		t.Error("IsLoopback")
	}
}

func TestSummaryAndIntervals(t *testing.T) {
	r := handMade(t, "dl", deadlockEvents, deadlockMethods, deadlockClasses)
	ts := serve(t, r)
	var sum summaryJSON
	getJSON(t, ts, "/api/summary", &sum)
	if sum.Threads != 4 || sum.Duration != 5e9 || sum.Deadlocks != 1 || sum.Intervals != 4 {
		t.Errorf("summary = %+v", sum)
	}
	var threads []threadJSON
	getJSON(t, ts, "/api/threads", &threads)
	if len(threads) != 4 || threads[0].Name != "a" || threads[0].Time[model.Blocked] != 4e9 {
		t.Fatalf("threads = %+v", threads)
	}
	var iv intervalJSON
	getJSON(t, ts, "/api/intervals/0/0", &iv)
	if iv.State != "blocked" || iv.Start != 1e9 || iv.End != 5e9 || !iv.Open || iv.Object != "00001111" || iv.OtherName != "b" || iv.ObjectClass != "" {
		t.Errorf("interval = %+v", iv)
	}
	if len(iv.Frames) != 1 || iv.Frames[0].Frame != "com.acme.Bank.transfer(Bank.java:10)" || iv.Frames[0].JDK {
		t.Errorf("frames = %+v", iv.Frames)
	}
}

func TestWaitFor(t *testing.T) {
	r := handMade(t, "dl", deadlockEvents, deadlockMethods, deadlockClasses)
	ts := serve(t, r)
	var g waitForJSON
	getJSON(t, ts, "/api/waitfor?t=3000000000", &g)
	if len(g.Cycles) != 1 || len(g.Cycles[0]) != 4 {
		t.Fatalf("cycles = %v, want one of a, b and their two locks; graph %+v", g.Cycles, g)
	}
	var reader *nodeJSON
	for i := range g.Nodes {
		if g.Nodes[i].Name == "reader" {
			reader = &g.Nodes[i]
		}
	}
	if reader == nil || reader.Cycle || reader.State != "blocked" || reader.Interval != 0 {
		t.Errorf("reader node = %+v: want blocked outside the cycle", reader)
	}
	// Before the second Enter there is no cycle.
	getJSON(t, ts, "/api/waitfor?t=1500000000", &g)
	if len(g.Cycles) != 0 || len(g.Edges) != 2 {
		t.Errorf("at 1.5 s: cycles %v edges %+v", g.Cycles, g.Edges)
	}
	var dl deadlocksJSON
	getJSON(t, ts, "/api/deadlocks", &dl)
	if len(dl.Deadlocks) != 1 || !dl.Deadlocks[0].AtEnd || dl.Deadlocks[0].At != 2e9 || len(dl.Hangs) != 3 {
		t.Errorf("deadlocks = %+v", dl)
	}
}

func TestFlame(t *testing.T) {
	r := handMade(t, "dl", deadlockEvents, deadlockMethods, deadlockClasses)
	ts := serve(t, r)
	var f flameJSON
	getJSON(t, ts, "/api/flame", &f)
	// a blocked 4 s, b 3 s, reader 2.5 s.
	if f.Total != 9.5e9 || f.Threads != 3 || len(f.Root.C) != 2 {
		t.Fatalf("flame total %d threads %d root %+v", f.Total, f.Threads, f.Root)
	}
	if top := f.Root.C[0]; f.Names[top.N] != "com.acme.Bank.audit(Bank.java:20)" || top.V != 5.5e9 || top.S[model.Blocked] != 5.5e9 {
		t.Errorf("top node %s %+v", f.Names[top.N], top)
	}
	getJSON(t, ts, "/api/flame?lock=00001111", &f)
	if f.Total != 4e9 {
		t.Errorf("lock 00001111: total %d, want 4 s", f.Total)
	}
	getJSON(t, ts, "/api/flame?thread=reader&t0=0&t1=3000000000", &f)
	if f.Total != 0.5e9 {
		t.Errorf("reader up to 3 s: total %d, want 0.5 s", f.Total)
	}
	getJSON(t, ts, "/api/flame?states=sleeping", &f)
	if f.Total != 2e9 || f.Names[f.Root.C[0].N] != "(no stack)" {
		t.Errorf("sleeping: %+v", f)
	}
}

// TestTiles checks the level of detail: every interval is in exactly one
// segment, narrow ones are merged, and a tile stays small whatever the
// number of intervals.
func TestTiles(t *testing.T) {
	r := synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20})
	srv := New(r.rec, r.res, Options{})
	m := r.res.Model
	dur := m.End - m.Start
	for _, level := range []int{8, 14, 20, 30} {
		rpx := format.Time(1) << level
		span := rpx * TileWidth
		for k := int64(0); k <= int64(dur/span) && k < 3; k++ {
			a0 := m.Start + format.Time(k)*span
			a1 := a0 + span
			for ti, th := range m.Threads {
				segs := tileSegments(th, a0, a1, rpx, 0, nil)
				want := 0
				for _, iv := range th.Intervals {
					if iv.End > a0 && iv.Start < a1 && (iv.End > iv.Start || iv.Open) {
						want++
					}
				}
				got := 0
				var last format.Time
				for i, s := range segs {
					got += int(s.n)
					if i > 0 && s.start < last {
						t.Fatalf("level %d tile %d thread %d: segment %d starts at %d before the previous end %d", level, k, ti, i, s.start, last)
					}
					if s.n > 1 && s.end-s.start < 0 {
						t.Fatalf("bad mixed segment %+v", s)
					}
					last = s.end
				}
				if got != want {
					t.Fatalf("level %d tile %d thread %d: segments cover %d intervals, want %d", level, k, ti, got, want)
				}
				if len(segs) > 2*TileWidth+2 {
					t.Fatalf("level %d: %d segments in one lane of a %d-pixel tile", level, len(segs), TileWidth)
				}
			}
		}
	}
	// The wire format decodes to the same columns.
	ts := httptest.NewServer(srv)
	defer ts.Close()
	code, body, h := get(t, ts, "/api/tiles?level=20&tile=0&threads=0-3,7")
	if code != 200 || h.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("tile: %d %s", code, body)
	}
	b := []byte(body)
	le := func(p int) uint32 { return uint32(b[p]) | uint32(b[p+1])<<8 | uint32(b[p+2])<<16 | uint32(b[p+3])<<24 }
	if le(0) != tileMagic || le(4) != 2 || le(8) != 5 {
		t.Fatalf("tile header % x", b[:16])
	}
	// Its pieces of runnable time (decodeRuns checks the length): each
	// a stretch no interval covers, so its split is all of it.
	runs := decodeRuns(t, b)
	pieces := 0
	for th, rs := range runs {
		for _, p := range rs {
			pieces++
			if p.running+p.ready+p.other+p.virtual+p.unsplit != p.end-p.start || p.end <= p.start {
				t.Errorf("thread %d: piece %+v: its parts do not add up to its length", th, p)
			}
		}
	}
	if pieces == 0 {
		t.Error("no pieces of runnable time in a synthetic recording with scheduler times and samples")
	}
	if le(16+4*4) != 7 {
		t.Errorf("fifth lane is thread %d, want 7", le(16+4*4))
	}
}

func TestLockDetail(t *testing.T) {
	r := handMade(t, "dl", deadlockEvents, deadlockMethods, deadlockClasses)
	ts := serve(t, r)
	var locks []lockJSON
	getJSON(t, ts, "/api/locks", &locks)
	if len(locks) != 2 {
		t.Fatalf("locks = %+v", locks)
	}
	var d lockDetailJSON
	getJSON(t, ts, "/api/locks/monitor/00002222", &d)
	if len(d.Owners) != 1 || d.Owners[0].Name != "a" || d.OwnersTotal != 1 || len(d.Waiters) != 2 || d.WaitersTotal != 2 ||
		d.Threads != "0-1,3" || d.ThreadCount != 3 || d.First != 2e9 || d.Last != 5e9 {
		t.Errorf("lock 00002222 = %+v", d)
	}
	var e edgesJSON
	getJSON(t, ts, "/api/edges?kinds=owner", &e)
	for _, ed := range e.Edges {
		if ed.Kind != "owner" {
			t.Errorf("edge %+v is not an owner edge", ed)
		}
	}
}

// TestFlameJDKThreads: the JDK's service threads (only JDK frames, idle in
// Object.wait) are left out of the flame graph unless jdk=1 or named.
func TestFlameJDKThreads(t *testing.T) {
	const events = `0.0000000000,ThreadStarted,0000000A,app
0.0000000000,ThreadStarted,0000000F,Finalizer
0.0000000000,ObjectWait,0000000F,00003333,1;00000003;FFFFFFFF
1.0000000000,MonitorContendedEnter,0000000A,00001111,00000000,1;00000001;00000001
2.0000000000,MonitorContendedEntered,0000000A,00001111,1;00000001;00000001
4.0000000000,ThreadEnded,0000000A
`
	const methods = deadlockMethods + "0.0000000000,00000003,wait,(J)V,0000B0B0,-1\n"
	const classes = deadlockClasses + "0.0000000000,0000B0B0,Ljava/lang/Object;,Object.java\n"
	ts := serve(t, handMade(t, "jdk", events, methods, classes))
	var f flameJSON
	getJSON(t, ts, "/api/flame", &f)
	if f.Total != 1e9 || f.Threads != 1 {
		t.Errorf("default: total %d threads %d, want only app's 1 s blocked", f.Total, f.Threads)
	}
	getJSON(t, ts, "/api/flame?jdk=1", &f)
	if f.Total != 5e9 || f.Threads != 2 {
		t.Errorf("jdk=1: total %d threads %d, want 1 s + Finalizer's 4 s wait", f.Total, f.Threads)
	}
	getJSON(t, ts, "/api/flame?thread=Finalizer", &f)
	if f.Total != 4e9 {
		t.Errorf("thread=Finalizer: total %d, want its 4 s wait", f.Total)
	}
}

// ownerChangeEvents: b and c block on monitor AAAA owned by a; b gets it at
// 3 s and c waits for b from then on (as model's owner-change case).
const ownerChangeEvents = `0.0000000000,ThreadStarted,0000000A,a
0.0000000000,ThreadStarted,0000000B,b
0.0000000000,ThreadStarted,0000000C,c
1.0000000000,MonitorContendedEnter,0000000B,0000AAAA,0000000A,0
1.5000000000,MonitorContendedEnter,0000000C,0000AAAA,0000000A,0
3.0000000000,MonitorContendedEntered,0000000B,0000AAAA,0
4.0000000000,MonitorContendedEntered,0000000C,0000AAAA,0
5.0000000000,ThreadEnded,0000000A
5.0000000000,ThreadEnded,0000000B
5.0000000000,ThreadEnded,0000000C
`

// TestOwnerChange checks that a contention whose owner changed is one
// interval that lists its owners, and that the wait-for graph names the
// owner of the moment: the model used to split it in two intervals (issue
// 12: intervals grew as contentions × waiters).
func TestOwnerChange(t *testing.T) {
	ts := serve(t, handMade(t, "oc", ownerChangeEvents, "", ""))
	var sum summaryJSON
	getJSON(t, ts, "/api/summary", &sum)
	if sum.Intervals != 2 {
		t.Errorf("summary: %d intervals, want 2 (one per contention)", sum.Intervals)
	}
	var iv intervalJSON
	getJSON(t, ts, "/api/intervals/2/0", &iv)
	if iv.State != "blocked" || iv.Start != 1.5e9 || iv.End != 4e9 || iv.OtherName != "b" || iv.OwnersTotal != 2 || len(iv.Owners) != 2 ||
		iv.Owners[0] != (ownerSpanJSON{1.5e9, 3e9, 0, "0000000A", "a"}) || iv.Owners[1] != (ownerSpanJSON{3e9, 4e9, 1, "0000000B", "b"}) {
		t.Errorf("c's contention = %+v", iv)
	}
	for _, c := range []struct {
		at    string
		owner string
	}{{"2000000000", "t0"}, {"3500000000", "t1"}} {
		var g waitForJSON
		getJSON(t, ts, "/api/waitfor?t="+c.at, &g)
		found := false
		for _, e := range g.Edges {
			if e.From == "o0000AAAA" && e.Kind == "owner" {
				found = e.To == c.owner
			}
		}
		if !found {
			t.Errorf("at %s: edges %+v, want the owner %s", c.at, g.Edges, c.owner)
		}
	}
}

// TestCutSummary: a recording cut by a full disk (the agent's cut_s and
// write_error in .info) says so in the summary, and the threads blocked
// in a cycle at the cut are neither hangs nor a deadlock (issue 12).
func TestCutSummary(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "cut")
	files := map[string]string{
		".orca": ownerChangeEvents[:strings.Index(ownerChangeEvents, "3.0000000000")] +
			"2.0000000000,MonitorContendedEnter,0000000A,0000BBBB,0000000B,0\n",
		".info": "cut_s=2.0000000000\nwrite_error=cut.orca: No space left on device\nunattributed_total=3\n",
	}
	for suffix, text := range files {
		if err := os.WriteFile(prefix+suffix, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts := serve(t, build(t, prefix))
	var sum summaryJSON
	getJSON(t, ts, "/api/summary", &sum)
	if sum.Cut == nil || sum.Cut.At != 2e9 || sum.Cut.Reason != "cut.orca: No space left on device" || sum.Hangs != 0 || sum.Deadlocks != 0 || sum.Duration != 2e9 {
		t.Errorf("summary = %+v, cut %+v", sum, sum.Cut)
	}
	if w := strings.Join(sum.Warnings, "\n"); !strings.Contains(w, "recording CUT at 2.000 s") || !strings.Contains(w, "3 events of virtual threads not attributed") {
		t.Errorf("warnings %q", sum.Warnings)
	}
}

// TestAPIListed: every API route the server registers has its row in
// docs/web.md's API table (a call added without its documentation fails).
func TestAPIListed(t *testing.T) {
	src, err := os.ReadFile("server.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/web.md")
	if err != nil {
		t.Fatal(err)
	}
	routes := regexp.MustCompile(`"GET (/api/[^"]*)"`).FindAllStringSubmatch(string(src), -1)
	if len(routes) < 10 {
		t.Fatalf("found %d routes in server.go", len(routes))
	}
	for _, m := range routes {
		// The path up to its first parameter: the table names parameters
		// by what they are ({monitor|semaphore} for {kind}).
		p, _, _ := strings.Cut(m[1], "{")
		if !strings.Contains(string(doc), "\n| `"+p) {
			t.Errorf("GET %s: no row of docs/web.md's API table begins with `%s", m[1], p)
		}
	}
}

// TestTilesMixedRunnable: intervals narrower than a pixel, merged into one
// segment, take the colour of what fills most of it, the runnable gaps
// between them counted: a thread blocked 10 % of the time in short
// contentions (Tomcat 25's Poller: 1.2 s of 12.6 s) was a blocked bar
// throughout. Blocked most of the time, it stays blocked.
func TestTilesMixedRunnable(t *testing.T) {
	const px = 1000 // ns a pixel
	for _, c := range []struct {
		name    string
		blocked format.Time // of each 100 ns
		want    model.State
	}{{"a tenth blocked", 10, model.Runnable}, {"nine tenths blocked", 90, model.Blocked}} {
		th := &model.Thread{Start: 0, End: 100_000}
		for at := format.Time(0); at < 100_000; at += 100 {
			th.Intervals = append(th.Intervals, model.Interval{Start: at, End: at + c.blocked, Since: at, State: model.Blocked, Object: 7})
		}
		segs := tileSegments(th, 0, 100_000, px, 0, nil)
		if len(segs) != 1 || segs[0].n != 1000 {
			t.Fatalf("%s: %d segments (%+v), want one of 1000 intervals", c.name, len(segs), segs)
		}
		if got := model.State(segs[0].state & 0x0f); got != c.want {
			t.Errorf("%s: the mixed segment is %v, want %v", c.name, got, c.want)
		}
	}
}
