package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"orca/internal/testjvm"
)

func TestView(t *testing.T) {
	pre := reportRecording(t)
	got := viewGet(t, pre, "api/summary", "")
	var sum struct{ Threads int }
	if err := json.Unmarshal(got["api/summary"], &sum); err != nil || sum.Threads == 0 {
		t.Errorf("GET api/summary: %v, %+v", err, sum)
	}
}

// TestViewReopen: a second orca view of a recording answers from the
// index the first wrote, and reads the model only when a detail asks it:
// 503 (still reading) at first, then the detail.
func TestViewReopen(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	pre := reportRecording(t)
	url, stop := viewStart(t, pre)
	first := httpGet(t, url+"api/summary")
	for i := 0; ; i++ {
		if m, _ := filepath.Glob(filepath.Join(cache, "orca", "view", "*", "index")); len(m) == 1 {
			break
		}
		if i == 600 {
			t.Fatal("no index written in 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	url, stop = viewStart(t, pre)
	defer stop()
	if got := httpGet(t, url+"api/summary"); !bytes.Equal(got, first) {
		t.Errorf("the reopen's summary differs:\n%s\nfirst open:\n%s", got, first)
	}
	res, err := http.Get(url + "api/threads/0")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a thread's detail at once on a reopen: %s, want 503 (the model is read for it)", res.Status)
	}
	for i := 0; ; i++ {
		res, err := http.Get(url + "api/threads/0")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == 200 {
			break
		}
		if res.StatusCode != http.StatusServiceUnavailable || i == 600 {
			t.Fatalf("a thread's detail on a reopen: %s", res.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// viewGet runs orca view on pre, GETs each path (relative to its URL),
// stops it and returns the bodies by path.
func viewGet(t *testing.T, pre string, paths ...string) map[string][]byte {
	t.Helper()
	url, stop := viewStart(t, pre)
	bodies := map[string][]byte{}
	for _, p := range paths {
		bodies[p] = httpGet(t, url+p)
	}
	stop()
	return bodies
}

// viewStart runs orca view with args (and --no-browser) and returns its
// URL and a function that stops it and checks that it exited 0.
func viewStart(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	orig := viewContext
	viewContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	pr, pw := io.Pipe()
	var errb testjvm.Buffer // what orca view prints, read while it runs
	done := make(chan int)
	go func() {
		done <- run(ui{nil, pw, &errb}, append(append([]string{"view"}, args...), "--no-browser"))
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	if strings.HasPrefix(line, "orca: the range ") {
		// a range's note comes first
		line, err = br.ReadString('\n')
	}
	if err != nil {
		t.Fatalf("reading the URL: %v (stderr: %s)", err, errb.String())
	}
	go io.Copy(io.Discard, br)
	// "orca: serving PREFIX at http://127.0.0.1:PORT/ (Ctrl-C to stop)"
	i := strings.Index(line, "http://127.0.0.1:")
	if i < 0 || !strings.Contains(line, args[0]) {
		t.Fatalf("first line %q: want the prefix and a loopback URL", line)
	}
	url, token, ok := strings.Cut(strings.Fields(line[i:])[0], "?token=")
	if !ok || len(token) != 32 {
		t.Fatalf("first line %q: want a URL with ?token= and 32 hex digits", line)
	}
	// The page's first request takes the token and sets the cookie that
	// the requests after it carry, as a browser's do.
	if http.DefaultClient.Jar == nil {
		http.DefaultClient.Jar, _ = cookiejar.New(nil)
	}
	httpGet(t, url+"?token="+token)
	return url, func() {
		t.Helper()
		defer func() { viewContext = orig }()
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("exit %d: %s", code, errb.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("orca view did not stop when its context ended")
		}
	}
}

func httpGet(t *testing.T, url string) []byte {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET %s: %v %v", url, err, res.Status)
	}
	return b
}

// TestViewFollow: orca view --follow serves a recording that grows: once
// lines are added to its .orca file, /api/version's generation moves on
// and the API answers from the new model (a thread that started in them);
// without --follow the server keeps the first model.
func TestViewFollow(t *testing.T) {
	orig := followEvery
	followEvery = 50 * time.Millisecond
	defer func() { followEvery = orig }()
	for _, follow := range []bool{true, false} {
		pre := reportRecording(t)
		args := []string{pre}
		if follow {
			args = append(args, "--follow")
		}
		url, stop := viewStart(t, args...)
		type version struct {
			Generation int
			Follow     bool
			Events     int
		}
		var v0 version
		if err := json.Unmarshal(httpGet(t, url+"api/version"), &v0); err != nil || v0.Generation != 1 || v0.Follow != follow || v0.Events == 0 {
			t.Fatalf("GET api/version: %v, %+v", err, v0)
		}
		f, err := os.OpenFile(pre+".orca", os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "9.0000000000,ThreadStarted,0000ABCD,late-thread\n9.5000000000,ThreadEnded,0000ABCD\n")
		f.Close()
		var v version
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if err := json.Unmarshal(httpGet(t, url+"api/version"), &v); err != nil {
				t.Fatal(err)
			}
			if v.Generation != 1 || !follow && time.Now().After(deadline.Add(-9500*time.Millisecond)) {
				break
			}
		}
		threads := string(httpGet(t, url+"api/threads"))
		switch {
		case follow && (v.Generation != 2 || v.Events != v0.Events+2 || !strings.Contains(threads, "late-thread")):
			t.Errorf("--follow: after 2 lines were added, version %+v (was %+v), late-thread in /api/threads: %v", v, v0, strings.Contains(threads, "late-thread"))
		case !follow && (v.Generation != 1 || strings.Contains(threads, "late-thread")):
			t.Errorf("without --follow the model changed: version %+v", v)
		}
		stop()
	}
}

func TestViewUsage(t *testing.T) {
	for _, args := range [][]string{{"view"}, {"view", "a", "b"}, {"view", "--addr", "nonsense", "x"}} {
		var out, errb bytes.Buffer
		if code := run(ui{nil, &out, &errb}, args); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %s)", args, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run(ui{nil, &out, &errb}, []string{"view", "/nonexistent/run"}); code != 2 || !strings.Contains(errb.String(), "nonexistent") {
		t.Errorf("missing recording: exit %d, stderr %q", code, errb.String())
	}
}

// TestViewToken: orca view answers only requests with its token (in the
// URL it printed, then the cookie that sets): 127.0.0.1 is every local
// user's, and another user read the recording root viewed.
func TestViewToken(t *testing.T) {
	pre := reportRecording(t)
	url, stop := viewStart(t, pre)
	defer stop()
	for _, u := range []string{url, url + "api/summary", url + "?token=0123456789abcdef0123456789abcdef", url + "api/summary?token="} {
		res, err := (&http.Client{}).Get(u) // no cookie
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "token") {
			t.Errorf("GET %s without the token: %s %.80q, want 403 saying so", u, res.Status, b)
		}
	}
	// With the cookie viewStart's first request got.
	if b := httpGet(t, url+"api/summary"); !bytes.Contains(b, []byte(`"threads"`)) && !bytes.Contains(b, []byte(`"Threads"`)) {
		t.Errorf("GET api/summary with the cookie: %.80q", b)
	}
}
