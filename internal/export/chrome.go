package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/termjson"
)

// chromeEvent is one event of the Trace Event Format (the JSON that
// chrome://tracing and ui.perfetto.dev open).
type chromeEvent struct {
	Name string      `json:"name"`
	Cat  string      `json:"cat,omitempty"`
	Ph   string      `json:"ph"`
	TS   json.Number `json:"ts,omitempty"`
	Dur  json.Number `json:"dur,omitempty"`
	PID  int64       `json:"pid"`
	TID  uint64      `json:"tid,omitempty"`
	ID   uint64      `json:"id,omitempty"`
	BP   string      `json:"bp,omitempty"`
	Args any         `json:"args,omitempty"`
}

// chromeCat is the category of every event; flow events match by id,
// category and name.
const chromeCat = "orca"

// micros writes nanoseconds as microseconds, exactly.
func micros(t format.Time) json.Number {
	if t < 0 {
		return json.Number(strconv.FormatFloat(float64(t)/1e3, 'f', 3, 64))
	}
	return json.Number(fmt.Sprintf("%d.%03d", t/1000, t%1000))
}

// Chrome writes the intervals of the chosen kinds as Trace Event Format
// JSON: process and thread names ("M" events), a complete event ("X") per
// interval named after its state, on the thread's tid (its identity hash)
// with the stack and the arguments of the Perfetto export, and each edge as
// a flow ("s" then "f", bound to zero-length "X" events that mark its two
// ends). Timestamps are microseconds, as the format wants, with three
// decimals: the recording's nanoseconds, exactly.
func Chrome(w io.Writer, rec *reader.Recording, m *model.Model, opt Options) error {
	k := kinds(opt, All)
	// The names are the JVM's: C1 control characters escaped too, for a
	// terminal (termjson).
	tw := termjson.NewWriter(w)
	bw := bufio.NewWriter(tw)
	tn := newThreadNames(m)
	cs := newCalls(rec, m)
	cc := &classCache{}
	fs := newFrames(rec, m)
	jvm := pid(rec)

	bw.WriteString("{\"traceEvents\":[\n")
	n := 0
	var err error
	emit := func(e chromeEvent) {
		if err != nil {
			return
		}
		var b []byte
		if b, err = json.Marshal(e); err != nil {
			return
		}
		if n > 0 {
			bw.WriteString(",\n")
		}
		n++
		bw.Write(b)
	}
	emit(chromeEvent{Name: "process_name", Ph: "M", PID: jvm, Args: map[string]string{"name": processName(rec) + cutSuffix(m)}})
	for i, t := range m.AllThreads() {
		emit(chromeEvent{Name: "thread_name", Ph: "M", PID: jvm, TID: uint64(t.ID), Args: map[string]string{"name": t.Name}})
		emit(chromeEvent{Name: "thread_sort_index", Ph: "M", PID: jvm, TID: uint64(t.ID), Args: map[string]int{"sort_index": i}})
	}
	// Each event encoded a thread at a time, then written in time order
	// (tlSort): an edge's end is its marker and the flow, one record.
	sorted := &tlSort{m: m, opt: opt}
	var rec2 []byte
	var as []arg // sliceArgs' and instantArgs' room
	timelineEvents(m, k, opt, func(ev *tlEvent, key tlKey) {
		if err != nil {
			return
		}
		tid := uint64(m.ThreadIDAt(ev.thread))
		var b []byte
		switch ev.kind {
		case tlBegin:
			args := map[string]any{}
			as = sliceArgs(as, m, m.ThreadIDAt(ev.thread), ev.iv, tn, cs, cc)
			for _, a := range as {
				args[a.key] = a.value
			}
			var stack []string
			for _, f := range fs.stack(ev.iv.Stack) {
				stack = append(stack, fs.text(f))
			}
			args["stack"] = stack
			if b, err = json.Marshal(chromeEvent{Name: ev.iv.Shown().String(), Cat: chromeCat, Ph: "X", TS: micros(ev.iv.Start),
				Dur: micros(ev.iv.Duration()), PID: jvm, TID: tid, Args: args}); err != nil {
				return
			}
			sorted.add(key, 0, b)
		case tlInstant:
			args := map[string]string{}
			as = instantArgs(as, ev, tn)
			for _, a := range as {
				args[a.key] = a.value
			}
			if b, err = json.Marshal(chromeEvent{Name: instantName(ev), Cat: chromeCat, Ph: "X", TS: micros(ev.ts), Dur: "0",
				PID: jvm, TID: tid, Args: args}); err != nil {
				return
			}
			// The flow binds to the slice enclosing it: the marker just written.
			fl := chromeEvent{Name: ev.edge.Kind.String(), Cat: chromeCat, Ph: "s", TS: micros(ev.ts), PID: jvm, TID: tid, ID: ev.flow}
			if !ev.opens {
				fl.Ph, fl.BP = "f", "e"
			}
			if rec2, err = json.Marshal(fl); err != nil {
				return
			}
			sorted.add(key, 0, b, []byte(",\n"), rec2)
		}
	})
	if err == nil {
		sorted.each(func(_ tlKey, _ uint64, b []byte) {
			bw.WriteString(",\n")
			bw.Write(b)
		})
	}
	if err != nil {
		return fmt.Errorf("encoding a trace event: %w", err)
	}
	od := map[string]string{"recording": rec.Prefix, "kinds": k.String(), "producer": "orca export"}
	if note := cutNote(m); note != "" {
		od["cut"] = note
	}
	other, _ := json.Marshal(od)
	fmt.Fprintf(bw, "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":%s}\n", other)
	if err := bw.Flush(); err != nil {
		return err
	}
	return tw.Flush()
}
