package reader

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"orca/internal/format"
)

// boundedOf writes b's chunks (a compact file's) as a bounded recording's
// chunk files beside src's methods and classes, and returns its prefix.
func boundedOf(t *testing.T, src string, b []byte) string {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "b")
	if err := os.WriteFile(prefix+format.SuffixEvents, []byte(format.CompactHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{format.SuffixMethods, format.SuffixClasses} {
		m, err := os.ReadFile(src + s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(prefix+s, m, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range spanChunks(t, b) {
		f := append([]byte(format.CompactHeader), b[c.lo:c.hi]...)
		if err := os.WriteFile(format.ChunkFileName(prefix, uint64(i+1)), f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return prefix
}

// eachOfRecording returns what rec.EachEvent hands on with opt, by fn,
// Batch or Columns (a row made an Event again, its thread checked against
// Threads' number for it): the events, their Stack left out once checked
// to be the table's of their StackID.
func eachOfRecording(t *testing.T, rec *Recording, opt EachOptions, how string) []Event {
	t.Helper()
	opt.Stacks = NewStackTable()
	var seq []Event
	render := func(ev *Event) {
		if f := opt.Stacks.Frames[ev.StackID]; len(ev.Stack) != len(f) || len(f) > 0 && &ev.Stack[0] != &f[0] {
			t.Fatalf("event %d: its stack is not the table's %d", len(seq), ev.StackID)
		}
		e := *ev
		e.Stack = nil
		seq = append(seq, e)
	}
	var fn func(*Event) error
	switch how {
	case "fn":
		fn = func(ev *Event) error { render(ev); return nil }
	case "batch":
		opt.Batch = func(evs []Event) error {
			for i := range evs {
				render(&evs[i])
			}
			return nil
		}
	case "columns":
		// A thread keeps its number from file to file until it has ended,
		// and a number names one thread until that one has ended (what
		// the fold keeps by number).
		num := map[format.ThreadID]uint32{}
		byNum := map[uint32]format.ThreadID{}
		ended := map[format.ThreadID]bool{}
		opt.Columns = func(c *Columns) error {
			var ev Event
			for i := range c.Len() {
				c.Event(i, &ev)
				n := c.Thread[i]
				if ev.Thread != c.Threads[n] {
					t.Fatalf("row %d: thread %v, Threads[%d] %v", i, ev.Thread, n, c.Threads[n])
				}
				if m, ok := num[ev.Thread]; ok && m != n && !ended[ev.Thread] {
					t.Fatalf("event %d: thread %v numbered %d, was %d and has not ended", len(seq), ev.Thread, n, m)
				}
				if o, ok := byNum[n]; ok && o != ev.Thread && !ended[o] {
					t.Fatalf("event %d: number %d given to %v, still %v's", len(seq), n, ev.Thread, o)
				}
				if m, ok := num[ev.Thread]; !ok || m != n {
					num[ev.Thread], byNum[n], ended[ev.Thread] = n, ev.Thread, false
				}
				if ev.Kind == format.ThreadEnded && !ev.Carried {
					ended[ev.Thread] = true
				}
				render(&ev)
			}
			return nil
		}
	}
	if _, err := rec.EachEvent(opt, fn); err != nil {
		t.Fatal(err)
	}
	return seq
}

// TestChunkFilesColumns: a bounded recording's chunk files read by
// Columns and by Batch (a run at a time, the threads numbered once for
// every file) hand on what fn gets an event at a time: the same events,
// field for field, their lines going on (growing) from file to file,
// whatever the workers, pieces and Buffers; also with the first files
// deleted (the threads of the rest seen first in a later file).
func TestChunkFilesColumns(t *testing.T) {
	src, b := synthCompact(t, 4<<20)
	prefix := boundedOf(t, src, b)
	for _, gone := range []int{0, 1} {
		for i := 1; i <= gone; i++ {
			if err := os.Remove(format.ChunkFileName(prefix, uint64(i))); err != nil {
				t.Fatal(err)
			}
		}
		rec, err := Open(prefix)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Chunks) < 3 {
			t.Fatalf("%d chunk files, want at least 3", len(rec.Chunks))
		}
		for _, opt := range []EachOptions{
			{Workers: 1},
			{Workers: 2, ChunkSize: 64 << 10},
			{Workers: 1, Buffers: &Buffers{}},
			{Workers: 2, Buffers: &Buffers{}},
		} {
			want := eachOfRecording(t, rec, opt, "fn")
			if len(want) < 50_000 {
				t.Fatalf("%d events, want more", len(want))
			}
			// The events' lines go on from file to file: they grow.
			prev := 0
			for i, ev := range want {
				if !ev.Carried && ev.Line <= prev {
					t.Fatalf("%d gone, %+v: event %d line %d after %d", gone, opt, i, ev.Line, prev)
				}
				prev = max(prev, ev.Line)
			}
			for _, how := range []string{"batch", "columns"} {
				got := eachOfRecording(t, rec, opt, how)
				if len(got) != len(want) {
					t.Errorf("%d gone, %s %+v: %d events, want %d", gone, how, opt, len(got), len(want))
				}
				for i := range min(len(got), len(want)) {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Errorf("%d gone, %s %+v: event %d:\n got %+v\nwant %+v", gone, how, opt, i, got[i], want[i])
						break
					}
				}
			}
		}
	}
}
