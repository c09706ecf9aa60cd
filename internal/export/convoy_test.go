package export

import (
	"bytes"
	"path/filepath"
	"testing"

	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/synth"
)

// TestConvoyGrowsWithEvents is issue 12's quadratic memory: N threads
// queued on one monitor whose owner changes at every hand-off. The model
// used to split every blocked thread's interval at each owner change, and
// the exports wrote a slice (or sample) per piece: with 1000 threads and
// 2000 hand-offs, ~2 million intervals for 9000 events, and timeline files
// of gigabytes. Intervals and output must grow with the events.
func TestConvoyGrowsWithEvents(t *testing.T) {
	const threads, handoffs = 1000, 2000
	prefix := filepath.Join(t.TempDir(), "convoy")
	st, err := synth.WriteConvoyRecording(prefix, synth.Options{Stacks: 50}, synth.Convoy{Threads: threads, Handoffs: handoffs})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Build(rec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Model
	events := int(st.Lines)
	if m.Events != events || len(m.Problems) > 0 {
		t.Fatalf("model: %d events of %d, problems %q", m.Events, events, m.Problems)
	}
	// One interval per contention: the N-1 first blocks, one per hand-off.
	ivs := 0
	for _, th := range m.Threads {
		ivs += len(th.Intervals)
	}
	const contentions = threads - 1 + handoffs
	if ivs != contentions {
		t.Errorf("%d intervals for %d events; want %d, one per contention", ivs, events, contentions)
	}
	l := m.Locks[0]
	if l.Contentions != contentions || len(l.OwnerChanges) > events {
		t.Errorf("lock: %d contentions, %d owner changes for %d events", l.Contentions, len(l.OwnerChanges), events)
	}
	// The blame still covers every blocked nanosecond behind each owner.
	var blamed, blocked int64
	for _, o := range l.Owners {
		blamed += int64(o.Blamed)
	}
	blocked = int64(l.Blocked)
	if blamed != blocked {
		t.Errorf("blamed %d ns, blocked %d ns", blamed, blocked)
	}
	// Bytes per event: a slice with its stack is well under these; one
	// per piece of interval would be ~N times more. pprof has a sample per
	// thread and owner it waited behind (its owner totals are the report's
	// blame: Model.BlameSpans), not per hand-off: here ~290 bytes an event
	// where a sample per piece of interval would be ~N times more.
	for _, c := range []struct {
		name     string
		perEvent int
	}{{"pprof", 512}, {"chrome", 4096}, {"perfetto", 512}, {"collapsed", 64}} {
		var buf bytes.Buffer
		f, _ := Lookup(c.name)
		if err := f.Write(&buf, rec, m, Options{Kinds: All}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if buf.Len() > c.perEvent*events {
			t.Errorf("%s: %d bytes for %d events, more than %d an event", c.name, buf.Len(), events, c.perEvent)
		}
	}
}
