package model_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/reader"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// TestSpanIsTheWholeClipped: a model built of a time range [a, b] of a
// recording (reader.Span: only the chunks that hold it are read, the
// state at a restated there) is the whole recording's model clipped to
// [a, b]: every thread in a state during the range is in it, with the
// same intervals cut at a and b (state, owner named when it blocked), so
// the blocked time, the contentions and the blame within the range are
// the same. In both encodings: the compact one read from the chunk that
// holds a, the text read whole and filtered.
func TestSpanIsTheWholeClipped(t *testing.T) {
	for _, enc := range []format.Encoding{format.EncodingCompact, format.EncodingSeed} {
		t.Run(enc.String(), func(t *testing.T) {
			prefix := filepath.Join(t.TempDir(), "synth")
			if _, err := synth.WriteRecording(prefix, synth.Options{Seed: 3, Threads: 40, Monitors: 12, Semaphores: 4, Size: 6 << 20, Encoding: enc}); err != nil {
				t.Fatal(err)
			}
			rec, w := openWhole(t, prefix)
			span := w.End - w.Start
			for _, part := range [][3]format.Time{{2, 3, 5}, {0, 1, 100}} {
				// The middle fifth, and the first hundredth (the objects'
				// classes given as they come, some after the range).
				a, b := w.Start+span*part[0]/part[2], w.Start+span*part[1]/part[2]
				n, classes := checkSpanClipped(t, rec, w, a, b, true)
				if n < 100 {
					t.Errorf("only %d intervals in the range: a weak test", n)
				}
				if classes < 10 {
					t.Errorf("only %d locks of the range with a class: a weak test", classes)
				}
			}
		})
	}
}

// TestSpanOfRecording is TestSpanIsTheWholeClipped on a recording of one's own (a real
// server's, an always-on recording's chunk files): its middle fifth, first hundredth, last
// minute (orca report --last 1m) and last tenth.
//
//	ORCA_PREFIX=/tmp/tomcat/rec go test -run 'SpanOfRecording$' ./internal/model
func TestSpanOfRecording(t *testing.T) {
	prefix := os.Getenv("ORCA_PREFIX")
	if prefix == "" {
		t.Skip("ORCA_PREFIX unset: no recording of one's own to read")
	}
	rec, w := openWhole(t, prefix)
	span := w.End - w.Start
	for _, r := range [][2]format.Time{
		{w.Start + span*2/5, w.Start + span*3/5},
		{w.Start, w.Start + span/100},
		{max(w.Start, w.End-format.Time(time.Minute)), w.End},
		{w.End - span/10, w.End},
	} {
		n, classes := checkSpanClipped(t, rec, w, r[0], r[1], false)
		t.Logf("%v to %v: %d intervals, %d locks with a class", r[0]-w.Start, r[1]-w.Start, n, classes)
	}
}

// openWhole opens prefix's recording and builds its whole model.
func openWhole(t *testing.T, prefix string) (*reader.Recording, *model.Model) {
	t.Helper()
	rec, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := model.Build(rec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rec, whole.Model
}

// checkSpanClipped builds the model of [a, b] of rec and wants it the whole's (w) clipped:
// each thread's intervals cut at a and b (state, object, owner), each lock's blocked time in
// the range, each lock's class; with part, a range under a quarter of a compact recording reads
// a part of it. It returns the intervals and the classed locks compared.
func checkSpanClipped(t *testing.T, rec *reader.Recording, w *model.Model, a, b format.Time, part bool) (n, classes int) {
	t.Helper()
	sp, err := rec.Span(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Origin != w.Start || sp.End != w.End {
		t.Errorf("span's bounds %v to %v, the model's %v to %v", sp.Origin, sp.End, w.Start, w.End)
	}
	if part && rec.CompactEvents() && b-a < (w.End-w.Start)/4 && (sp.Chunks == 0 || sp.Bytes >= sp.Total*3/4) {
		t.Errorf("the range reads %d chunks, %d of %d bytes: want a part", sp.Chunks, sp.Bytes, sp.Total)
	}
	m := buildChecked(t, rec, model.Options{Span: sp})
	if m.Start != a || m.End != b {
		t.Errorf("the range's model spans %v to %v, want %v to %v", m.Start, m.End, a, b)
	}
	clip := func(m *model.Model, lo, hi format.Time) map[format.ThreadID][]string {
		out := map[format.ThreadID][]string{}
		for _, th := range m.Threads {
			for _, iv := range th.Intervals {
				s, e := max(iv.Start, lo), min(iv.End, hi)
				if e <= s {
					continue
				}
				out[th.ID] = append(out[th.ID], fmt.Sprintf("%v %v-%v on %v owner %v", iv.Shown(), s, e, iv.Object, iv.First))
			}
		}
		for _, v := range out {
			slices.Sort(v)
		}
		return out
	}
	want, got := clip(w, a, b), clip(m, a, b)
	bad := 0
	for id, ws := range want {
		n += len(ws)
		if !slices.Equal(ws, got[id]) {
			if bad++; bad <= 3 {
				t.Errorf("%v to %v: thread %v:\n got %q\nwant %q", a, b, id, got[id], ws)
			}
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("%v to %v: thread %v in a state in the range's model only: %q", a, b, id, got[id])
		}
	}
	if bad > 0 {
		t.Errorf("%v to %v: %d of %d threads differ", a, b, bad, len(want))
	}
	// The blocked time and contentions of each lock, within the
	// range: the whole's intervals clipped count the same.
	blocked := func(m *model.Model) map[format.ObjectID]format.Time {
		out := map[format.ObjectID]format.Time{}
		for _, th := range m.Threads {
			for _, iv := range th.Intervals {
				if iv.State == model.Blocked {
					out[iv.Object] += max(0, min(iv.End, b)-max(iv.Start, a))
				}
			}
		}
		return out
	}
	wb, gb := blocked(w), blocked(m)
	for obj, d := range wb {
		if gb[obj] != d {
			t.Errorf("%v to %v: lock %v: blocked %v in the range's model, %v in the whole's clipped", a, b, obj, gb[obj], d)
		}
	}
	// The class of each lock of the range, as the whole's names
	// it: a fact of the object, given before, in or after the
	// range (the facts after the end, in a chunk the range
	// reads, are handed on at its end).
	for _, l := range m.Locks {
		if c := w.ClassName(l.Object); c != "" {
			classes++
			if got := m.ClassName(l.Object); got != c {
				t.Errorf("%v to %v: lock %v: class %q in the range's model, %q in the whole's", a, b, l.Object, got, c)
			}
		}
	}
	return n, classes
}

// buildChecked builds rec's model as opt says: it must pass Validate, with
// no Problems and no malformed or cut record.
func buildChecked(t *testing.T, rec *reader.Recording, opt model.Options) *model.Model {
	t.Helper()
	res, err := model.Build(rec, opt)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Model
	for _, e := range modeltest.Validate(m) {
		t.Error(e)
	}
	if len(m.Problems) > 0 {
		t.Errorf("%d problems, first: %s", len(m.Problems), m.Problems[0])
	}
	if res.Malformed > 0 || res.Truncated {
		t.Errorf("malformed %d, truncated %v", res.Malformed, res.Truncated)
	}
	return m
}

// TestSpanNamesThreadStartedAfter (h144's find, docs/perf/2026-12-02-unseen-programs-2.md): a
// range that ends between a thread's ThreadStart, written by its parent, and its own
// ThreadStarted, which carries its name, lists that thread by its name, not as "thread
// 0000000B": the ThreadStarted after the range gives the name and nothing else (the thread's
// start, its states and the range's end stay the range's). A thread started after the range is
// not in it at all.
func TestSpanNamesThreadStartedAfter(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "r")
	testrec.Write(t, &txtar.Archive{Files: []txtar.File{{Name: "orca", Data: []byte(`0.0000000000,ThreadStarted,00000001,main
1.0000000000,ThreadStart,00000001,0000000B,0
2.0000000000,ThreadSleep,00000001,0
2.5000000000,ThreadStarted,0000000B,child
2.6000000000,ThreadStart,00000001,0000000C,0
2.7000000000,ThreadStarted,0000000C,later
3.0000000000,ThreadSlept,00000001,0
3.0000000000,ThreadEnded,0000000B
3.0000000000,ThreadEnded,0000000C
4.0000000000,ThreadEnded,00000001
`)}}}, prefix)
	rec, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	const s = format.Time(1e9)
	sp, err := rec.Span(s/2, 2*s)
	if err != nil {
		t.Fatal(err)
	}
	m := buildChecked(t, rec, model.Options{Span: sp})
	if m.End != 2*s {
		t.Errorf("the range's model ends at %v, want %v", m.End, 2*s)
	}
	names := map[format.ThreadID]string{}
	for _, th := range m.Threads {
		names[th.ID] = th.Name
		if th.ID == 0xB && (th.Start > 2*s || th.End > 2*s) {
			t.Errorf("child's life %v..%v goes past the range's end %v", th.Start, th.End, 2*s)
		}
	}
	if want := map[format.ThreadID]string{1: "main", 0xB: "child"}; !maps.Equal(names, want) {
		t.Errorf("the range's threads %v, want %v", names, want)
	}
}
