package web

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"orca/internal/model"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// decodedLanes is an /api/lanes answer decoded.
type decodedLanes struct {
	head  lanesHead
	order []int32
}

func decodeLanesAnswer(t *testing.T, body string) decodedLanes {
	t.Helper()
	status, b, _ := strings.Cut(body, " ")
	if status != "200" {
		t.Fatalf("lanes: %.300s", body)
	}
	le := binary.LittleEndian
	if len(b) < 16 || le.Uint32([]byte(b)) != lanesMagic {
		t.Fatalf("lanes: not a layout: %.100q", b)
	}
	hl, n := int(le.Uint32([]byte(b[8:]))), int(le.Uint32([]byte(b[12:])))
	var d decodedLanes
	if err := json.Unmarshal([]byte(b[16:16+hl]), &d.head); err != nil {
		t.Fatal(err)
	}
	if len(b) != 16+hl+4*n {
		t.Fatalf("lanes: %d bytes, want %d", len(b), 16+hl+4*n)
	}
	for k := range n {
		d.order = append(d.order, int32(le.Uint32([]byte(b[16+hl+4*k:]))))
	}
	return d
}

// layoutURLs are the layouts compared: every order, grouped or not, with
// filters (a name's part, an id, one that matches none) and a lock's
// threads.
func layoutURLs(m *model.Model) []string {
	n := len(m.Threads)
	filters := []string{"", "a", "1", "Thread", m.ThreadAt(n - 1).ID.String(), "no such thread"}
	if name := m.ThreadAt(n / 2).Name; len(name) > 3 {
		filters = append(filters, strings.ToUpper(name[1:len(name)-1]))
	}
	var u []string
	for _, so := range []string{"start", "name", "blocked", ""} {
		for _, g := range []string{"0", "1"} {
			for _, f := range filters {
				q := url.Values{"sort": {so}, "group": {g}}
				if f != "" {
					q.Set("filter", f)
				}
				u = append(u, "/api/lanes?"+q.Encode())
			}
			q := url.Values{"sort": {so}, "group": {g}, "only": {fmt.Sprintf("%d,0-%d", n-1, n/2)}}
			u = append(u, "/api/lanes?"+q.Encode())
		}
	}
	return u
}

// rowsURLs ask rows of threads: all, some, scattered, one, none.
func rowsURLs(n int) []string {
	return []string{fmt.Sprintf("/api/threads?threads=0-%d", n-1), "/api/threads?threads=0",
		fmt.Sprintf("/api/threads?threads=%d,0,%d-%d", n-1, n/3, n/2), fmt.Sprintf("/api/threads?threads=%d", n-1),
		"/api/threads?threads="}
}

// TestLanesAndRows: the lanes' layouts and the threads' rows asked by
// range are, from a model and from its index (the model not read, then
// ready), the same bytes; the rows are slices of /api/threads, in the
// order asked; every layout lists each thread it keeps once, in groups as
// long as they say, and the unfiltered ones every thread; an index's
// layouts and rows start no build.
func TestLanesAndRows(t *testing.T) {
	prefixes := []string{synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20}).prefix}
	for _, f := range []string{"contention", "deadlock", "split", "cut", "import"} {
		prefixes = append(prefixes, testrec.Files(t, "../report/testdata/"+f+".txtar"))
	}
	for _, prefix := range prefixes {
		rec, res := viewerBuild(t, prefix)
		srv := New(rec, res, Options{})
		root := filepath.Join(t.TempDir(), "orca", "view")
		key := IndexKey("lanes "+prefix, "")
		if _, err := srv.WriteIndex(root, key); err != nil {
			t.Fatal(err)
		}
		isrv, idx := reopenedServer(t, root, key)
		var builds atomic.Int32
		isrv.BuildOnDemand(func() { builds.Add(1) })
		mem, fromIdx := httptest.NewServer(srv), httptest.NewServer(isrv)
		m := res.Model
		n := len(m.Threads)
		var full []json.RawMessage
		if err := json.Unmarshal([]byte(strings.TrimPrefix(getBody(t, mem.URL+"/api/threads"), "200 ")), &full); err != nil || len(full) != n {
			t.Fatalf("%s: /api/threads: %v, %d rows of %d threads", prefix, err, len(full), n)
		}
		lanes, rows := layoutURLs(m), rowsURLs(n)
		check := func(phase string) {
			for _, u := range append(append([]string{}, lanes...), rows...) {
				a, b := getBody(t, mem.URL+u), getBody(t, fromIdx.URL+u)
				if a != b {
					t.Errorf("%s, %s: %s from the index differs:\nmodel: %.300q\nindex: %.300q", prefix, phase, u, a, b)
				}
			}
		}
		check("before the model")
		// only in a POST's form body (the page's way): the GET's answer,
		// from the model and from the index, and past a URL's bounds.
		post := func(base, u string) string {
			path, query, _ := strings.Cut(u, "?")
			q, _ := url.ParseQuery(query)
			only := q.Get("only")
			q.Del("only")
			res, err := http.Post(base+path+"?"+q.Encode(), "application/x-www-form-urlencoded", strings.NewReader(url.Values{"only": {only}}.Encode()))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return fmt.Sprintf("%d %s", res.StatusCode, b)
		}
		for _, u := range lanes {
			if !strings.Contains(u, "only=") {
				continue
			}
			want := getBody(t, mem.URL+u)
			for _, base := range []string{mem.URL, fromIdx.URL} {
				if got := post(base, u); got != want {
					t.Errorf("%s: %s posted to %s: %.200q, want the GET's %.200q", prefix, u, base, got, want)
				}
			}
		}
		long := "/api/lanes?sort=start&group=1&only=" + strings.Repeat("0,1,", 300_000) + "0"
		if want, got := getBody(t, mem.URL+"/api/lanes?sort=start&group=1&only=0-1"), post(fromIdx.URL, long); len(long) < 1<<20 || got != want {
			t.Errorf("%s: only of %d bytes posted: %.200q, want %.200q", prefix, len(long), got, want)
		}
		if b := builds.Load(); b != 0 {
			t.Errorf("%s: the layouts and rows started the model's build (%d)", prefix, b)
		}
		// The rows: slices of the whole list, in the order asked.
		for _, u := range rows {
			q, _ := url.ParseQuery(strings.SplitN(u, "?", 2)[1])
			list, err := srv.cur.Load().threadList(q.Get("threads"), maxRows)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, i := range list {
				want = append(want, string(full[i]))
			}
			if got, w := getBody(t, fromIdx.URL+u), "200 ["+strings.Join(want, ",")+"]\n"; got != w {
				t.Errorf("%s: %s: %.300q, want %.300q", prefix, u, got, w)
			}
		}
		if got := getBody(t, mem.URL+fmt.Sprintf("/api/threads?threads=%d", n)); !strings.HasPrefix(got, "404 ") {
			t.Errorf("%s: a row past the threads: %.200s, want 404", prefix, got)
		}
		// The layouts: each thread kept once, groups as long as they say.
		for _, u := range lanes {
			d := decodeLanesAnswer(t, getBody(t, mem.URL+u))
			seen := map[int32]bool{}
			ng := 0
			for k := 0; k < len(d.order); k++ {
				v := d.order[k]
				if v < 0 {
					g := int(-v - 1)
					if g != ng || g >= len(d.head.Groups.Count) {
						t.Fatalf("%s: %s: group %d at %d, want %d", prefix, u, g, k, ng)
					}
					ng++
					c := d.head.Groups.Count[g]
					var blocked int64
					for j := 1; j <= c; j++ {
						if k+j >= len(d.order) || d.order[k+j] < 0 {
							t.Fatalf("%s: %s: group %d of %d lanes cut at %d", prefix, u, g, c, k+j)
						}
						blocked += int64(m.ThreadAt(int(d.order[k+j])).Time[stateBlocked])
					}
					if blocked != d.head.Groups.Blocked[g] || c < 1 {
						t.Errorf("%s: %s: group %d: blocked %d, count %d; its lanes' %d", prefix, u, g, d.head.Groups.Blocked[g], c, blocked)
					}
					continue
				}
				if seen[v] || int(v) >= n {
					t.Fatalf("%s: %s: thread %d twice or past the %d threads", prefix, u, v, n)
				}
				seen[v] = true
			}
			if ng != len(d.head.Groups.Key) || len(seen) != d.head.Lanes {
				t.Errorf("%s: %s: %d groups of %d, %d lanes of %d", prefix, u, ng, len(d.head.Groups.Key), len(seen), d.head.Lanes)
			}
			q, _ := url.ParseQuery(strings.SplitN(u, "?", 2)[1])
			if q.Get("filter") == "" && q.Get("only") == "" && len(seen) != n {
				t.Errorf("%s: %s: %d lanes of %d threads", prefix, u, len(seen), n)
			}
			if q.Get("filter") == "no such thread" && len(d.order) != 0 {
				t.Errorf("%s: %s: %d rows, want none", prefix, u, len(d.order))
			}
		}
		isrv.Ready(rec, res)
		check("once ready")
		mem.Close()
		fromIdx.Close()
		idx.Close()
	}
}
