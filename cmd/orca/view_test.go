package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
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

// viewGet runs orca view on pre, GETs each path (relative to its URL),
// stops it and returns the bodies by path.
func viewGet(t *testing.T, pre string, paths ...string) map[string][]byte {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	orig := viewContext
	viewContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { viewContext = orig }()
	pr, pw := io.Pipe()
	var errb testjvm.Buffer // what orca view prints, read while it runs
	done := make(chan int)
	go func() {
		done <- run(ui{nil, pw, &errb}, []string{"view", pre, "--no-browser"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v (stderr: %s)", err, errb.String())
	}
	go io.Copy(io.Discard, pr)
	// "orca: serving PREFIX at http://127.0.0.1:PORT/ (Ctrl-C to stop)"
	i := strings.Index(line, "http://127.0.0.1:")
	if i < 0 || !strings.Contains(line, pre) {
		t.Fatalf("first line %q: want the prefix and a loopback URL", line)
	}
	url := strings.Fields(line[i:])[0]
	bodies := map[string][]byte{}
	for _, p := range paths {
		res, err := http.Get(url + p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", url+p, err, res.Status)
		}
		bodies[p] = b
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("orca view did not stop when its context ended")
	}
	return bodies
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
