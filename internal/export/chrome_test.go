package export

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
)

// ctEvent is a trace event as the test reads it back.
type ctEvent struct {
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	Ph   string          `json:"ph"`
	TS   json.Number     `json:"ts"`
	Dur  json.Number     `json:"dur"`
	PID  int64           `json:"pid"`
	TID  uint64          `json:"tid"`
	ID   uint64          `json:"id"`
	BP   string          `json:"bp"`
	Args json.RawMessage `json:"args"`
}

// nanos reads a timestamp in microseconds back to nanoseconds, exactly.
func nanos(t *testing.T, n json.Number) format.Time {
	t.Helper()
	whole, frac, _ := strings.Cut(n.String(), ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || len(frac) > 3 {
		t.Fatalf("chrome: timestamp %q is not microseconds with at most 3 decimals", n)
	}
	f := int64(0)
	if frac != "" {
		frac += strings.Repeat("0", 3-len(frac))
		if f, err = strconv.ParseInt(frac, 10, 64); err != nil {
			t.Fatalf("chrome: timestamp %q: %v", n, err)
		}
	}
	return format.Time(w*1000 + f)
}

// checkChrome decodes a Chrome trace and checks it against the model:
// thread names, an "X" event per interval, a flow per edge from the acting
// thread to the other, each end bound to a marker at the same time.
func checkChrome(t *testing.T, data []byte, m *model.Model, k Kinds) []ctEvent {
	t.Helper()
	var doc struct {
		TraceEvents     []ctEvent `json:"traceEvents"`
		DisplayTimeUnit string    `json:"displayTimeUnit"`
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("chrome: %v", err)
	}
	names := map[uint64]string{}
	var got []span
	markers := map[string]bool{} // "tid ts name" of zero-length markers
	type end struct {
		tid uint64
		ts  format.Time
	}
	flows := map[uint64][]ctEvent{}
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				var a struct{ Name string }
				json.Unmarshal(e.Args, &a)
				names[e.TID] = a.Name
			}
		case "X":
			if e.Cat != chromeCat {
				t.Errorf("chrome: event %s: category %q", e.Name, e.Cat)
			}
			ts, dur := nanos(t, e.TS), nanos(t, e.Dur)
			if kindsHaveState(k, e.Name) {
				got = append(got, span{format.ThreadID(e.TID), e.Name, ts, ts + dur})
				var a struct{ Stack []string }
				if err := json.Unmarshal(e.Args, &a); err != nil || len(a.Stack) == 0 {
					t.Errorf("chrome: %s at %s: no stack in args %s", e.Name, e.TS, e.Args)
				}
			} else {
				if dur != 0 {
					t.Errorf("chrome: marker %s lasts %d ns", e.Name, dur)
				}
				markers[fmt.Sprint(e.TID, ts)] = true
			}
		case "s", "f":
			if (e.Ph == "f") != (e.BP == "e") {
				t.Errorf("chrome: flow %s %d: bp %q", e.Ph, e.ID, e.BP)
			}
			flows[e.ID] = append(flows[e.ID], e)
			if !markers[fmt.Sprint(e.TID, nanos(t, e.TS))] {
				t.Errorf("chrome: flow %s %d at %s on %d: no marker to bind to (it must come right after one)", e.Ph, e.ID, e.TS, e.TID)
			}
		default:
			t.Errorf("chrome: unexpected phase %q", e.Ph)
		}
	}
	for _, th := range m.AllThreads() {
		if names[uint64(th.ID)] != th.Name {
			t.Errorf("chrome: thread %v named %q, want %q", th.ID, names[uint64(th.ID)], th.Name)
		}
	}
	sortSpans(got)
	if want := wantSpans(m, k); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("chrome: X events\n%v\nwant (the model's intervals)\n%v", got, want)
	}
	var gotFlows, wantFlows []string
	for id, f := range flows {
		if len(f) != 2 || f[0].Ph != "s" || f[1].Ph != "f" || f[0].Name != f[1].Name {
			t.Errorf("chrome: flow %d: %v, want an s then an f of one name", id, f)
			continue
		}
		gotFlows = append(gotFlows, fmt.Sprint(f[0].Name, f[0].TID, nanos(t, f[0].TS), f[1].TID, nanos(t, f[1].TS)))
	}
	for _, e := range m.Edges {
		if k.hasEdge(e.Kind) && m.Thread(e.From) != nil && m.Thread(e.To) != nil {
			if e.ToTime < e.FromTime { // the flow goes from the earlier end
				wantFlows = append(wantFlows, fmt.Sprint(e.Kind.String(), uint64(e.To), e.ToTime, uint64(e.From), e.FromTime))
			} else {
				wantFlows = append(wantFlows, fmt.Sprint(e.Kind.String(), uint64(e.From), e.FromTime, uint64(e.To), e.ToTime))
			}
		}
	}
	sortStrings(gotFlows)
	sortStrings(wantFlows)
	if strings.Join(gotFlows, "\n") != strings.Join(wantFlows, "\n") {
		t.Errorf("chrome: flows\n%s\nwant (the model's edges)\n%s", strings.Join(gotFlows, "\n"), strings.Join(wantFlows, "\n"))
	}
	return doc.TraceEvents
}

func TestChrome(t *testing.T) {
	rec, m := loadAll(t)
	for _, k := range []Kinds{0, Monitor, Sleep | Semaphore, All} {
		want := k
		if k == 0 {
			want = All
		}
		checkChrome(t, export(t, "chrome", rec, m, k), m, want)
	}
	events := checkChrome(t, export(t, "chrome", rec, m, All), m, All)
	var wait, start bool
	for _, e := range events {
		var args map[string]any
		json.Unmarshal(e.Args, &args)
		switch {
		case e.Ph == "X" && e.Name == "waiting":
			wait = true
			if e.TID != 0x0A || e.TS != "2000000.000" || e.Dur != "600000.000" || args["notifier"] != "worker-b (0000000B)" {
				t.Errorf("worker-a's wait: %+v %v", e, args)
			}
			st := args["stack"].([]any)
			if len(st) != 3 || st[0] != "java.lang.Object.wait(Native Method)" || st[1] != "com.example.Work.transfer(Work.java:20)" {
				t.Errorf("worker-a's wait: stack %v", st)
			}
		case e.Ph == "s" && e.Name == "start" && e.TS == "110000.000":
			start = true
			if e.TID != 1 {
				t.Errorf("the start of worker-b: flow from tid %d, want main (1)", e.TID)
			}
		}
	}
	if !wait || !start {
		t.Errorf("no wait slice (%v) or no start flow of worker-b (%v)", wait, start)
	}
}
