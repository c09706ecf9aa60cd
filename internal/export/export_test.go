package export

import (
	"bytes"
	"cmp"
	"path/filepath"
	"slices"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/reader"
	"orca/internal/testrec"
)

// The recordings are txtar archives (testrec). testdata/all.txtar has every state and edge kind and is checked in
// detail; the model's and the report's cases are exported too, and checked
// against their models (TestEveryCase).

// casePaths lists this package's, the model's and the report's test
// cases (txtar archives).
func casePaths(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, g := range []string{"testdata/*.txtar", "../model/testdata/cases/*.txtar", "../report/testdata/*.txtar"} {
		p, _ := filepath.Glob(g)
		paths = append(paths, p...)
	}
	if len(paths) < 10 {
		t.Fatalf("only %d cases found", len(paths))
	}
	return paths
}

// load builds the recording of a txtar archive.
func load(t *testing.T, path string) (*reader.Recording, *model.Model) {
	t.Helper()
	rec, res := testrec.Load(t, path)
	return rec, res.Model
}

// loadAll loads testdata/all.txtar, whose model must be valid and whole.
func loadAll(t *testing.T) (*reader.Recording, *model.Model) {
	t.Helper()
	rec, m := load(t, "testdata/all.txtar")
	for _, e := range modeltest.Validate(m) {
		t.Errorf("model: %v", e)
	}
	for _, p := range m.Problems {
		t.Errorf("model problem: %s", p)
	}
	return rec, m
}

// export runs a format's writer into memory.
func export(t *testing.T, name string, rec *reader.Recording, m *model.Model, k Kinds) []byte {
	t.Helper()
	f, ok := Lookup(name)
	if !ok {
		t.Fatalf("no format %q", name)
	}
	var b bytes.Buffer
	if err := f.Write(&b, rec, m, Options{Kinds: k}); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b.Bytes()
}

// span is an interval as the tests compare it.
type span struct {
	thread     format.ThreadID
	state      string
	start, end format.Time
}

// wantSpans lists the model's intervals of kinds k, in thread and time order.
func wantSpans(m *model.Model, k Kinds) []span {
	var s []span
	for _, t := range m.AllThreads() {
		for _, iv := range t.Intervals {
			if k.Has(iv.Shown()) {
				s = append(s, span{t.ID, iv.Shown().String(), iv.Start, iv.End})
			}
		}
	}
	sortSpans(s)
	return s
}

func sec(s float64) format.Time { return format.Time(s*1e9 + 0.5) }

func TestParseKinds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Kinds
		err  bool
	}{
		{"monitor", Monitor, false},
		{"monitor,wait", Monitor | Wait, false},
		{" sleep , join ", Sleep | Join, false},
		{"all", All, false},
		{"semaphore,all", All, false},
		{"mutex", 0, true},
		{"", 0, true},
	} {
		got, err := ParseKinds(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseKinds(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
		if err == nil {
			if back, _ := ParseKinds(got.String()); back != got {
				t.Errorf("ParseKinds(%q).String() = %q does not read back", c.in, got.String())
			}
		}
	}
}

// TestTotals checks the hand-computed numbers of all.txtar, which the
// format tests compare their decoded totals with.
func TestTotals(t *testing.T) {
	_, m := loadAll(t)
	for _, c := range []struct {
		k      Kinds
		states int
		total  format.Time
	}{
		{Monitor, 3, sec(0.3) + sec(0.3) + sec(0.5)},
		{Wait, 1, sec(0.6)},
		{Sleep, 2, sec(0.5) + sec(0.4)},
		{Join, 1, sec(0.9)},
		{Semaphore, 1, sec(0.2001)},
	} {
		n, total := Totals(m, c.k)
		if n != c.states || total != c.total {
			t.Errorf("Totals(%v) = %d states, %d ns; want %d, %d", c.k, n, total, c.states, c.total)
		}
	}
	// The closed contentions are the model's, the open one is not.
	var blocked format.Time
	contentions := 0
	for _, l := range m.Locks {
		if l.Kind == model.Monitor {
			blocked += l.Blocked
			contentions += l.Contentions
		}
	}
	if blocked != sec(0.6) || contentions != 2 {
		t.Errorf("model: %d monitor contentions, %d ns; want 2, 0.6 s", contentions, blocked)
	}
}

// TestEveryCase exports every recording of the model's and the report's
// test cases in every format, decodes the output and checks it against the
// model: the same intervals, totals and flows. Models with problems are
// exported too: an export must never fail or lie on damaged input.
func TestEveryCase(t *testing.T) {
	for _, path := range casePaths(t) {
		name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			rec, m := load(t, path)
			for _, k := range []Kinds{Monitor, All} {
				checkPProf(t, export(t, "pprof", rec, m, k), m, k)
				checkCollapsed(t, export(t, "collapsed", rec, m, k), m, k)
				checkPerfetto(t, export(t, "perfetto", rec, m, k), m, k)
				checkChrome(t, export(t, "chrome", rec, m, k), m, k)
			}
		})
	}
}

// sortSpans orders spans by thread, then time, so that exports listed in
// time order compare with the model's per-thread lists.
func sortSpans(s []span) {
	slices.SortStableFunc(s, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.thread, b.thread), cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
	})
}

func sortStrings(s []string) { slices.Sort(s) }
