package export

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/pprof/profile"
)

// TestCallLabel: the lock or condition a java.util.concurrent class wraps is named by its call
// in every export, as in the report's JSON (issue 31, item 8): the report's juc-queue case, a
// producer parked twice in ArrayBlockingQueue.put on the queue's condition and a consumer
// blocked in ArrayBlockingQueue.take on its lock, has the pprof label and the trace argument
// call on exactly those samples and slices.
func TestCallLabel(t *testing.T) {
	rec, m := load(t, "../report/testdata/juc-queue.txtar")
	p, err := profile.Parse(bytes.NewReader(export(t, "pprof", rec, m, All)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, s := range p.Sample {
		got[s.Label["state"][0]+" "+firstOr(s.Label["call"])] += s.Value[0]
	}
	want := map[string]int64{"parked java.util.concurrent.ArrayBlockingQueue.put": 2, "blocked java.util.concurrent.ArrayBlockingQueue.take": 1}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("pprof: %d samples of %q, want %d (all: %v)", got[k], k, n, got)
		}
	}
	var doc struct {
		TraceEvents []struct {
			Ph, Name string
			Args     json.RawMessage
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(export(t, "chrome", rec, m, All), &doc); err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for _, e := range doc.TraceEvents {
		var a struct{ Call string }
		if e.Ph == "X" && json.Unmarshal(e.Args, &a) == nil && a.Call != "" {
			calls[e.Name+" "+a.Call]++
		}
	}
	if calls["parked java.util.concurrent.ArrayBlockingQueue.put"] != 2 || calls["blocked java.util.concurrent.ArrayBlockingQueue.take"] != 1 || len(calls) != 2 {
		t.Errorf("chrome: slices with a call %v, want 2 parked in put, 1 blocked in take", calls)
	}
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
