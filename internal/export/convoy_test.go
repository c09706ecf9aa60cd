package export

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

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
	for _, th := range m.AllThreads() {
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
	// per piece of interval would be ~N times more. pprof splits a
	// contention's time between the owners it waited behind (the report's
	// blame: Model.BlameSpans), up to maxOwners per thread, stack and lock:
	// a sample per thread and owner would be N² (~290 bytes an event here,
	// 1.7 GB of memory at 1 000 threads and 10 000 hand-offs).
	for _, c := range []struct {
		name     string
		perEvent int
	}{{"pprof", 128}, {"chrome", 4096}, {"perfetto", 512}, {"collapsed", 64}} {
		var buf bytes.Buffer
		f, _ := Lookup(c.name)
		if err := f.Write(&buf, rec, m, Options{Kinds: All}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if buf.Len() > c.perEvent*events {
			t.Errorf("%s: %d bytes for %d events, more than %d an event", c.name, buf.Len(), events, c.perEvent)
		}
		if c.name == "pprof" {
			// Every blocked nanosecond is in it, the owners past
			// maxOwners of a thread's wait in one sample.
			p, err := profile.Parse(&buf)
			if err != nil {
				t.Fatal(err)
			}
			var delay, others int64
			for _, s := range p.Sample {
				if s.Label["state"][0] == "blocked" {
					delay += s.Value[1]
				}
				if strings.Join(s.Label["owner"], "") == otherOwnersLabel {
					others += s.Value[1]
				}
			}
			if delay != blocked || others == 0 {
				t.Errorf("pprof: %d ns blocked (%d past %d owners), the lock %d ns", delay, others, maxOwners, blocked)
			}
		}
	}
}
