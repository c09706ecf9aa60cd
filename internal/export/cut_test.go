package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestCutRecording: a recording cut by a full disk (testdata/cut.txtar, as
// internal/report's) ends at the cut in every export, which says so: the
// states open then end at 3 s with "unknown after", in pprof only 4 s of
// blocking (before, the lines after the cut stretched them to 9 s: 22 s).
func TestCutRecording(t *testing.T) {
	rec, m := load(t, "testdata/cut.txtar")
	const note = "recording cut at 3.000 s (PREFIX.orca: No space left on device)"

	var tr struct {
		TraceEvents []struct {
			Name, Ph string
			TS, Dur  json.Number
			Args     map[string]any
		}
		OtherData map[string]string
	}
	if err := json.Unmarshal(export(t, "chrome", rec, m, All), &tr); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tr.OtherData["cut"], note) {
		t.Errorf("otherData = %v", tr.OtherData)
	}
	open := 0
	for _, e := range tr.TraceEvents {
		if e.Ph == "M" && e.Name == "process_name" && !strings.Contains(e.Args["name"].(string), note) {
			t.Errorf("process name %v", e.Args)
		}
		if e.Ph != "X" || e.Dur == "0" {
			continue
		}
		ts, _ := e.TS.Float64()
		d, _ := e.Dur.Float64()
		if ts+d > 3e6 {
			t.Errorf("%s slice ends at %v µs, after the cut", e.Name, ts+d)
		}
		if s, ok := e.Args["open"].(string); ok {
			open++
			if !strings.HasPrefix(s, note) {
				t.Errorf("open slice says %q", s)
			}
		}
	}
	if open != 5 { // a, b, d blocked, c waiting, main sleeping
		t.Errorf("%d open slices, want 5", open)
	}

	p, err := profile.Parse(bytes.NewReader(export(t, "pprof", rec, m, Monitor)))
	if err != nil {
		t.Fatal(err)
	}
	var delay int64
	for _, s := range p.Sample {
		delay += s.Value[1]
	}
	if delay != 4e9 || len(p.Comments) != 2 || !strings.HasPrefix(p.Comments[1], note) {
		t.Errorf("pprof: %d ns blocked, comments %q; want 4 s and the cut", delay, p.Comments)
	}
}
