package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"orca/internal/format"
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

// TestLockFactsLabels: the pprof export labels a sample as the OTLP push
// attributes it (docs/otlp.md): lock.class_object on a monitor of a
// java.lang.Class object the class table names (report/testdata/
// classmonitor.txtar: 0000CAFE is Scenario, 0000ABCD is not in the table),
// lock.owner.left_locked on the juc samples blamed on a thread that ended
// holding the lock (leftlocked.txtar: ghost). TestOTLPGolden checks the
// push's attributes.
func TestLockFactsLabels(t *testing.T) {
	labels := func(path, lock string) []map[string][]string {
		t.Helper()
		rec, m := load(t, path)
		p, err := profile.Parse(bytes.NewReader(export(t, "pprof", rec, m, All)))
		if err != nil {
			t.Fatal(err)
		}
		var out []map[string][]string
		for _, s := range p.Sample {
			if l := s.Label["lock"]; len(l) == 1 && l[0] == lock {
				out = append(out, s.Label)
			}
		}
		if len(out) == 0 {
			t.Fatalf("%s: no sample on %s", path, lock)
		}
		return out
	}
	for _, l := range labels("../report/testdata/classmonitor.txtar", "0000CAFE") {
		if c := l[AttrLockClassObject]; len(c) != 1 || c[0] != "Scenario" {
			t.Errorf("classmonitor: a sample on 0000CAFE labelled %s %v, want Scenario: %v", AttrLockClassObject, c, l)
		}
	}
	for _, l := range labels("../report/testdata/classmonitor.txtar", "0000ABCD") {
		if c, ok := l[AttrLockClassObject]; ok {
			t.Errorf("classmonitor: a sample on 0000ABCD (not in the class table) labelled %s %v", AttrLockClassObject, c)
		}
	}
	for _, l := range labels("../report/testdata/leftlocked.txtar", "0EFECBD1") {
		if v := l[AttrLockOwnerLeftLocked]; len(v) != 1 || v[0] != "true" || l[AttrLockOwnerName][0] != "ghost" {
			t.Errorf("leftlocked: a sample on 0EFECBD1 labelled %v, want %s true, owner ghost", l, AttrLockOwnerLeftLocked)
		}
	}
}

// TestClassCache checks the timelines' cache of class names against
// Model.ClassName for objects that take one slot in turn.
func TestClassCache(t *testing.T) {
	_, m := load(t, "../report/testdata/classes.txtar")
	slot := func(o format.ObjectID) uint64 { return uint64(o) * 0x9e3779b97f4a7c15 >> (64 - classCacheBits) }
	x := format.ObjectID(0x618B19AD) // an org.h2.mvstore.db.MVTable
	y := x + 1
	for slot(y) != slot(x) {
		y++
	}
	var c classCache
	for _, o := range []format.ObjectID{x, y, x, 0x0000BEEF, x} {
		if got, want := c.of(m, o), m.ClassName(o); got != want {
			t.Errorf("object %s: class %q, ClassName says %q", o, got, want)
		}
	}
	if m.ClassName(x) == "" {
		t.Errorf("object %s has no class in the model", x)
	}
}
