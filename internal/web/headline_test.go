package web

import (
	"bytes"
	"encoding/json"
	"math"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// reportHeadline is what the headline of orca report --json says: the
// fields of its JSON that the viewer's summary shows.
type reportHeadline struct {
	DurationS    float64           `json:"duration_s"`
	Events       int               `json:"events"`
	ThreadsCount int               `json:"threads_count"`
	Deadlocks    []json.RawMessage `json:"deadlocks"`
	Hangs        []json.RawMessage `json:"hangs"`
	WaitingAlone []json.RawMessage `json:"waiting_alone"`
	LocksTotal   int               `json:"locks_total"`
	Caveats      []string          `json:"caveats"`
	Cut          *struct {
		AtS    float64 `json:"at_s"`
		Reason string  `json:"reason"`
	} `json:"cut"`
	Sight *struct {
		HangsVisible     bool `json:"hangs_visible"`
		DeadlocksVisible bool `json:"deadlocks_visible"`
	} `json:"sight"`
}

// TestHeadlineAgrees checks that orca view's headline (GET /api/summary)
// is orca report's (--json, as the command makes it: --top 10) on every
// recording the tests keep: the hand-written cases of the report, the
// model, the reader and the exports (testrec), synthetic recordings, and,
// when a JDK and bin/orca are here, Deadlock.java and the Scenario
// program; each whole and through thread filters. Both come from
// report.New, so they agree by construction; this test keeps it so (the
// viewer once worked out its own warnings, and missed the reader's).
func TestHeadlineAgrees(t *testing.T) {
	recs := map[string]*recording{}
	var cases []string
	for _, dir := range []string{"../report/testdata", "../model/testdata/cases", "../reader/testdata", "../export/testdata"} {
		m, _ := filepath.Glob(filepath.Join(dir, "*.txtar"))
		if len(m) == 0 {
			t.Errorf("no cases in %s", dir)
		}
		cases = append(cases, m...)
	}
	for _, path := range cases {
		prefix := testrec.Files(t, path)
		rec, err := reader.Open(prefix)
		if err != nil {
			continue // no recording (a case of a reader error): neither opens it
		}
		res, err := model.Build(rec, model.Options{})
		if err != nil {
			continue
		}
		recs[strings.TrimPrefix(path, "../")] = &recording{prefix: prefix, rec: rec, res: res}
	}
	recs["synthetic small"] = synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20})
	recs["synthetic compact"] = synthetic(t, "headline-compact", synth.Options{Threads: 12, Monitors: 3, Semaphores: 2, Size: 1 << 20, Seed: 7,
		Encoding: format.EncodingCompact})
	for name, src := range map[string]string{"Deadlock.java": "internal/web/testdata/Deadlock.java", "Scenario.java": "testdata/java/scenarios/Scenario.java"} {
		if r, why := recordJava(t, strings.ToLower(strings.TrimSuffix(name, ".java")), src); r != nil {
			recs[name] = r
		} else {
			t.Logf("no %s recording: %s", name, why)
		}
	}
	caveats := 0
	for name, r := range recs {
		for _, want := range append([]string{""}, filters(r)...) {
			t.Run(name+" thread="+want, func(t *testing.T) { caveats += headlineAgrees(t, r, want) })
		}
	}
	if caveats == 0 {
		t.Error("no recording had a caveat: the warnings were not compared")
	}
}

// headlineAgrees compares the viewer's summary with the report's JSON
// headline, for thread filter want, and returns the caveats compared.
func headlineAgrees(t *testing.T, r *recording, want string) int {
	ts := serve(t, r)
	q := ""
	if want != "" {
		q = "?thread=" + url.QueryEscape(want)
	}
	var sum summaryJSON
	getJSON(t, ts, "/api/summary"+q, &sum)
	var buf bytes.Buffer
	if err := report.New(r.rec, r.res, report.Options{Top: 10, Thread: want}).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var rep reportHeadline
	if err := json.Unmarshal(buf.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	ns := func(s float64) int64 { return int64(math.Round(s * 1e9)) }
	if sum.Deadlocks != len(rep.Deadlocks) || sum.Hangs != len(rep.Hangs) || sum.WaitingAlone != len(rep.WaitingAlone) || sum.Contended != rep.LocksTotal {
		t.Errorf("viewer %d deadlocks, %d hangs, %d waiting alone, %d contended locks; report %d, %d, %d, %d",
			sum.Deadlocks, sum.Hangs, sum.WaitingAlone, sum.Contended, len(rep.Deadlocks), len(rep.Hangs), len(rep.WaitingAlone), rep.LocksTotal)
	}
	if !reflect.DeepEqual(sum.Warnings, rep.Caveats) {
		t.Errorf("viewer's warnings:\n  %s\nreport's caveats:\n  %s", strings.Join(sum.Warnings, "\n  "), strings.Join(rep.Caveats, "\n  "))
	}
	// The report's seconds are rounded to the nanosecond in a float64: a
	// duration of centuries (a case of extreme timestamps) keeps 16 digits.
	if d := math.Abs(float64(sum.Duration) - rep.DurationS*1e9); d > 1 && d > 1e-15*float64(sum.Duration) || sum.Events != rep.Events || sum.Threads != rep.ThreadsCount {
		t.Errorf("viewer %d ns, %d events, %d threads; report %v s, %d, %d", sum.Duration, sum.Events, sum.Threads, rep.DurationS, rep.Events, rep.ThreadsCount)
	}
	if (sum.Cut == nil) != (rep.Cut == nil) || sum.Cut != nil && (sum.Cut.At != ns(rep.Cut.AtS) || sum.Cut.Reason != rep.Cut.Reason) {
		t.Errorf("viewer's cut %+v, report's %+v", sum.Cut, rep.Cut)
	}
	if hidden := rep.Sight != nil && (!rep.Sight.HangsVisible || !rep.Sight.DeadlocksVisible); sum.NotVisible != hidden {
		t.Errorf("viewer notVisible %v, report's sight %+v", sum.NotVisible, rep.Sight)
	}
	return len(rep.Caveats)
}
