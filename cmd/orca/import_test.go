package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"orca/internal/export"
	"orca/internal/format"
	jt "orca/internal/jfr/jfrtest"
	"orca/internal/jfrimport"
)

// sleepJFR is a one-chunk recording: main sleeps once.
func sleepJFR() []byte {
	c := &jt.Chunk{Classes: jt.JDKClasses()}
	c.Thread(1, "main", 1, 100)
	c.Symbol(2, "Demo")
	c.Symbol(3, "main")
	c.Symbol(4, "()V")
	c.Class(5, 2)
	c.Method(6, 5, 3, 4, 9)
	c.FrameType(7, "Interpreted")
	c.Stack(8, false, jt.StackFrame{Method: 6, Line: 42, BCI: 3, Type: 7})
	c.Event(jt.TThreadSleep, jt.Varint(1e9), jt.Varint(5e6), jt.Varint(1), jt.Varint(8), jt.Varint(5))
	return c.Bytes()
}

func TestImport(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "run.jfr")
	if err := os.WriteFile(src, sleepJFR(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	// Flags may follow the recording; without -o the prefix is the file's.
	if code := run(ui{nil, &out, &errb}, []string{"import", src}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"orca: imported " + src + " (1 JFR chunk", "ThreadSleep", "SleepTime", "next: orca report " + filepath.Join(dir, "run")} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, errb.String())
		}
	}
	out.Reset()
	if code := run(ui{nil, &out, &errb}, []string{"dump", filepath.Join(dir, "run")}); code != 0 {
		t.Fatalf("dump: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "1.000000000 ThreadSleep") || !strings.Contains(out.String(), "Demo.main(Unknown Source:42)") {
		t.Errorf("dump:\n%s", out.String())
	}

	// An existing recording is kept unless --force.
	errb.Reset()
	if code := run(ui{nil, &out, &errb}, []string{"import", src}); code != 2 || !strings.Contains(errb.String(), "--force") {
		t.Errorf("second import: exit %d: %s", code, errb.String())
	}
	errb.Reset()
	if code := run(ui{nil, &out, &errb}, []string{"import", src, "-o", filepath.Join(dir, "run"), "--force", "--quiet"}); code != 0 || errb.Len() != 0 {
		t.Errorf("--force --quiet: exit %d: %s", code, errb.String())
	}

	// stdin needs -o.
	errb.Reset()
	if code := run(ui{bytes.NewReader(sleepJFR()), &out, &errb}, []string{"import", "-"}); code != 2 {
		t.Errorf("stdin without -o: exit %d: %s", code, errb.String())
	}
	if code := run(ui{bytes.NewReader(sleepJFR()), &out, &errb}, []string{"import", "-o", filepath.Join(dir, "in"), "-"}); code != 0 {
		t.Errorf("stdin: exit %d: %s", code, errb.String())
	}

	// A cut-short recording: exit 1, nothing written, a hint.
	cut := filepath.Join(dir, "cut.jfr")
	os.WriteFile(cut, sleepJFR()[:100], 0o644)
	errb.Reset()
	if code := run(ui{nil, &out, &errb}, []string{"import", cut}); code != 1 || !strings.Contains(errb.String(), "cut short") || !strings.Contains(errb.String(), "JFR.dump") {
		t.Errorf("cut: exit %d: %s", code, errb.String())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "cut.*")); len(m) != 1 {
		t.Errorf("cut: files %v", m)
	}

	// Usage errors.
	for _, args := range [][]string{{"import"}, {"import", "a.jfr", "b.jfr"}, {"import", "--bogus", "a.jfr"}, {"import", src, "-o", dir + "/"}} {
		errb.Reset()
		if code := run(ui{nil, &out, &errb}, args); code != 2 {
			t.Errorf("%q: exit %d: %s", args, code, errb.String())
		}
	}
	errb.Reset()
	if code := run(ui{nil, &out, &errb}, []string{"import", filepath.Join(dir, "missing.jfr")}); code != 1 || !strings.Contains(errb.String(), "no such file") {
		t.Errorf("missing file: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := run(ui{nil, &out, &errb}, []string{"import", "--help"}); code != 0 || !strings.Contains(out.String(), "Examples:") {
		t.Errorf("--help: exit %d:\n%s", code, out.String())
	}
}

// TestImportFormats imports one JFR recording in the compact encoding (the
// default) and in the seed's text (--format seed) and checks that every
// command reads the two alike: dump, report (text and JSON), every export
// format and the viewer's API; the seed export of the compact import is
// the text import's .orca byte for byte.
func TestImportFormats(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "run.jfr")
	if err := os.WriteFile(src, jt.Sample(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same file name in two directories: outputs that name their
	// recording differ only in the directory.
	cpre, spre := filepath.Join(dir, "c", "run"), filepath.Join(dir, "s", "run")
	os.Mkdir(filepath.Dir(cpre), 0o755)
	os.Mkdir(filepath.Dir(spre), 0o755)
	orca := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(ui{nil, &out, &errb}, args); code != 0 {
			t.Fatalf("orca %q: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	orca("import", "--quiet", src, "-o", cpre)
	orca("import", "--quiet", "--format", "seed", src, "-o", spre)
	if b, _ := os.ReadFile(cpre + format.SuffixEvents); !bytes.HasPrefix(b, []byte(format.CompactHeader)) {
		t.Errorf("the default import's .orca: %.40q, want the compact encoding", b)
	}
	if b, _ := os.ReadFile(spre + format.SuffixEvents); !bytes.HasPrefix(b, []byte("0.0010000000,ThreadStarted,")) {
		t.Errorf("--format seed's .orca: %.40q, want the text", b)
	}
	ci, _ := os.ReadFile(cpre + format.SuffixInfo)
	si, _ := os.ReadFile(spre + format.SuffixInfo)
	if !bytes.Contains(ci, []byte("\nencoding=compact\n")) || bytes.Contains(si, []byte("encoding=")) {
		t.Errorf(".info: compact:\n%s\nseed:\n%s", ci, si)
	}
	var errb bytes.Buffer
	if code := run(ui{nil, &bytes.Buffer{}, &errb}, []string{"import", "--format", "text", src, "-o", filepath.Join(dir, "x")}); code != 2 || !strings.Contains(errb.String(), "want compact or seed") {
		t.Errorf("--format text: exit %d: %s", code, errb.String())
	}

	same := func(what, c, s string) {
		t.Helper()
		if c = strings.ReplaceAll(c, filepath.Dir(cpre), filepath.Dir(spre)); c != s {
			t.Errorf("%s of the compact import:\n%s\nof the seed import:\n%s", what, c, s)
		}
	}
	same("dump", orca("dump", cpre), orca("dump", spre))
	same("report", orca("report", "--top", "0", cpre), orca("report", "--top", "0", spre))
	same("report --json", orca("report", "--json", "--top", "0", cpre), orca("report", "--json", "--top", "0", spre))
	for _, f := range export.Formats {
		file := func(pre string) string { return filepath.Join(filepath.Dir(pre), "out"+f.Ext) }
		same("export --format "+f.Name+" (its summary)", orca("export", "--format", f.Name, "--kind", "all", "-o", file(cpre), cpre),
			orca("export", "--format", f.Name, "--kind", "all", "-o", file(spre), spre))
		c, err1 := os.ReadFile(file(cpre))
		s, err2 := os.ReadFile(file(spre))
		if err1 != nil || err2 != nil || len(s) == 0 {
			t.Fatalf("export --format %s: %v %v, %d bytes", f.Name, err1, err2, len(s))
		}
		if f.Name == "pprof" {
			cp, err1 := profile.ParseData(c)
			sp, err2 := profile.ParseData(s)
			if err1 != nil || err2 != nil || len(sp.Sample) == 0 {
				t.Fatalf("pprof: %v %v", err1, err2)
			}
			c, s = []byte(cp.String()), []byte(sp.String())
		}
		same("export --format "+f.Name, string(c), string(s))
	}
	// The seed export of the compact import is the seed import.
	out := filepath.Join(dir, "exported")
	orca("export", "--format", "seed", "-o", out, cpre)
	for _, ext := range jfrimport.Exts {
		c, _ := os.ReadFile(out + ext)
		s, _ := os.ReadFile(spre + ext)
		same("export --format seed: "+ext, string(c), string(s))
	}

	// orca view loads both alike.
	api := []string{"api/summary", "api/threads", "api/locks", "api/edges", "api/overview", "api/flame", "api/waitfor?t=1200000"}
	cv, sv := viewGet(t, cpre, api...), viewGet(t, spre, api...)
	for _, p := range api {
		c, s := string(cv[p]), string(sv[p])
		if p == "api/flame" {
			// Its names are numbered in the order of a map's iteration.
			c, s = flameText(t, cv[p]), flameText(t, sv[p])
		}
		same("view "+p, c, s)
	}
	var sum struct{ Threads int }
	if err := json.Unmarshal(sv["api/summary"], &sum); err != nil || sum.Threads != 2 {
		t.Errorf("api/summary: %v, %d threads, want 2", err, sum.Threads)
	}
}

// flameText prints /api/flame's tree with its frames' names, children in
// name order.
func flameText(t *testing.T, js []byte) string {
	t.Helper()
	type node struct {
		N int
		V int64
		S []int64
		C []*node
	}
	var f struct {
		Total     int64
		Intervals int
		Threads   int
		Names     []string
		JDK       []bool
		Root      *node
	}
	if err := json.Unmarshal(js, &f); err != nil || f.Root == nil {
		t.Fatalf("api/flame: %v\n%s", err, js)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "total %d, %d intervals, %d threads\n", f.Total, f.Intervals, f.Threads)
	var walk func(n *node, depth int)
	walk = func(n *node, depth int) {
		fmt.Fprintf(&b, "%*s%s jdk=%v %d %v\n", 2*depth, "", f.Names[n.N], f.JDK[n.N], n.V, n.S)
		slices.SortFunc(n.C, func(x, y *node) int { return strings.Compare(f.Names[x.N], f.Names[y.N]) })
		for _, c := range n.C {
			walk(c, depth+1)
		}
	}
	walk(f.Root, 0)
	return b.String()
}
