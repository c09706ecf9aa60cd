package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"orca/internal/crash"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/synth"
	"orca/internal/testjvm"
)

// The tests serve real recordings when they can: the integration tests'
// Scenario program (and a deadlock of our own) recorded with bin/orca on
// the JDK. Without bin/orca or a JDK they serve a synthetic recording and
// say so.

var workDir string // removed by TestMain

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "orca-web-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "web:", err)
		os.Exit(1)
	}
	workDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// repoRoot is the module's root (where go.mod is).
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// recording is a built model with the facts a test checks against.
type recording struct {
	prefix string
	rec    *reader.Recording
	res    *model.Result
	real   bool              // recorded from a JVM (else synthetic)
	expect map[string]string // the program's EXPECT line
}

var (
	recMu   sync.Mutex
	recs    = map[string]*recording{}
	recErrs = map[string]string{}
)

// recordJava compiles src (relative to the repo root) and records its main
// class with bin/orca; it returns "" and why not when it cannot.
func recordJava(t testing.TB, name, src string) (*recording, string) {
	return recordJavaWith(t, name, src)
}

// recordJavaWith is recordJava with flags for orca record (--lock-order).
func recordJavaWith(t testing.TB, name, src string, flags ...string) (*recording, string) {
	recMu.Lock()
	defer recMu.Unlock()
	if r, ok := recs[name]; ok {
		return r, ""
	}
	if why, ok := recErrs[name]; ok {
		return nil, why
	}
	r, why := recordJavaOnce(t, name, src, flags)
	if r != nil {
		recs[name] = r
	} else {
		recErrs[name] = why
	}
	return r, why
}

func recordJavaOnce(t testing.TB, name, src string, flags []string) (*recording, string) {
	root := repoRoot(t)
	bin := os.Getenv("ORCA_BIN")
	if bin == "" {
		bin = filepath.Join(root, "bin", "orca")
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Sprintf("no %s (make builds it)", bin)
	}
	javac, err := testjvm.Javac()
	if err != nil {
		return nil, err.Error()
	}
	dir := filepath.Join(workDir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := testjvm.Compile(dir, dir, filepath.Join(root, src)); err != nil {
		crash.Check(t, dir)
		t.Fatal(err)
	}
	main := strings.TrimSuffix(filepath.Base(src), ".java")
	prefix := filepath.Join(dir, "rec")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := testjvm.CommandContext(ctx, t, dir, append(append(append([]string{bin, "record", "--quiet"}, flags...), "-o", prefix, "--"),
		testjvm.Argv(filepath.Join(filepath.Dir(javac), "java"), dir, "-cp", dir, main)...)...)
	stdout, err := cmd.Output()
	crash.Check(t, dir)
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, stdout)
	}
	expect := map[string]string{}
	for _, line := range strings.Split(string(stdout), "\n") {
		if rest, ok := strings.CutPrefix(line, "EXPECT "); ok {
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				expect[k] = v
			}
		}
	}
	r := build(t, prefix)
	r.real, r.expect = true, expect
	return r, ""
}

func build(t testing.TB, prefix string) *recording {
	t.Helper()
	rec, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Build(rec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &recording{prefix: prefix, rec: rec, res: res}
}

// viewerBuild opens prefix and builds its model as orca view does
// (ModelOptions).
func viewerBuild(t testing.TB, prefix string) (*reader.Recording, *model.Result) {
	t.Helper()
	rec, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Build(rec, ModelOptions(rec))
	if err != nil {
		t.Fatal(err)
	}
	return rec, res
}

// synthetic writes and builds a synthetic recording (cached per options).
func synthetic(t testing.TB, name string, opt synth.Options) *recording {
	t.Helper()
	recMu.Lock()
	defer recMu.Unlock()
	if r, ok := recs[name]; ok {
		return r
	}
	prefix := filepath.Join(workDir, name)
	if _, err := synth.WriteRecording(prefix, opt); err != nil {
		t.Fatal(err)
	}
	r := build(t, prefix)
	recs[name] = r
	return r
}

// scenario is the integration tests' Scenario recording, or a small
// synthetic one when it cannot be made here.
func scenario(t testing.TB) *recording {
	r, why := recordJava(t, "scenario", "testdata/java/scenarios/Scenario.java")
	if r != nil {
		return r
	}
	t.Logf("serving a synthetic recording: cannot record Scenario.java (%s)", why)
	return synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20})
}

// serve starts a test server for r on 127.0.0.1.
func serve(t testing.TB, r *recording) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(New(r.rec, r.res, Options{}))
	t.Cleanup(ts.Close)
	return ts
}
