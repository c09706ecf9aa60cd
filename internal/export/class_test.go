package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestClasses: every export names the class of the object of a state (an
// ObjectClass line, issue 14 item 4) as Java names it: pprof's label
// class, the timelines' argument class, the collapsed stacks' leaf.
// report/testdata/classes.txtar: a contention on an MVTable, a wait on a
// String, a deadlock on an int[] and an Object[][].
func TestClasses(t *testing.T) {
	rec, m := load(t, "../report/testdata/classes.txtar")
	want := map[string]string{
		"618B19AD": "org.h2.mvstore.db.MVTable",
		"0000BEEF": "java.lang.String",
		"0000A00A": "int[]",
		"0000B00B": "java.lang.Object[][]",
		"0000CAFE": "java.util.ArrayList",
	}
	check := func(where, object, class string) {
		t.Helper()
		if w, ok := want[object]; !ok || class != w {
			t.Errorf("%s: object %s has class %q, want %q", where, object, class, w)
		}
	}

	p, err := profile.Parse(bytes.NewReader(export(t, "pprof", rec, m, All)))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range p.Sample {
		if l := s.Label["lock"]; len(l) == 1 {
			c := s.Label["class"]
			if len(c) != 1 {
				t.Errorf("pprof: sample on %s without a class: %v", l[0], s.Label)
				continue
			}
			check("pprof", l[0], c[0])
			seen[l[0]] = true
		}
	}
	if len(seen) != len(want) {
		t.Errorf("pprof: samples on %v, want one on each of %v", seen, want)
	}

	var doc struct {
		TraceEvents []ctEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(export(t, "chrome", rec, m, All), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range doc.TraceEvents {
		var a struct{ Object, Class string }
		if e.Ph == "X" && e.Cat == "orca" && json.Unmarshal(e.Args, &a) == nil && a.Object != "" && a.Class != "" {
			check("chrome "+e.Name, a.Object, a.Class)
			n++
		}
	}
	if n == 0 {
		t.Errorf("chrome: no slice has a class")
	}

	tr := readPerfetto(t, export(t, "perfetto", rec, m, All))
	n = 0
	for _, s := range tr.spans {
		if s.args["object"] != "" {
			check("perfetto "+s.name, s.args["object"], s.args["class"])
			n++
		}
	}
	if n == 0 {
		t.Errorf("perfetto: no slice has an object")
	}

	folded := string(export(t, "collapsed", rec, m, All))
	for _, leaf := range []string{"org.h2.mvstore.db.MVTable_[i] ", "int[]_[i] ", "java.lang.Object[][]_[i] ", "java.lang.String_[i] "} {
		if !strings.Contains(folded, ";"+leaf) {
			t.Errorf("collapsed: no stack ends with %q:\n%s", leaf, folded)
		}
	}
}
