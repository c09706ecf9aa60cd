package reader

import (
	"bytes"
	"testing"

	"orca/internal/format"
	"orca/internal/synth"
)

// TestColumnsDenseBounded checks that Columns' dense thread numbers are
// given again once their threads have ended: on a recording whose
// threads come and go (the generator's pools retire theirs), the table
// is as long as the threads alive at once and those ended in a chunk,
// not every thread ever seen (8 long-lived threads, ~250 in all: a
// table of 44-70), and each row still names its own thread
// (TestColumnsSame holds every field to Batch's).
func TestColumnsDenseBounded(t *testing.T) {
	var text bytes.Buffer
	if _, err := synth.New(synth.Options{Size: 16 << 20, Threads: 8}).WriteEvents(&text); err != nil {
		t.Fatal(err)
	}
	data := compactOf(t, text.Bytes(), 64<<10)
	for _, opt := range []EachOptions{{Workers: 1, ChunkSize: 128 << 10}, {Workers: 2, ChunkSize: 256 << 10}} {
		want, _ := eachRendered(t, data, opt, false)
		got, _ := eachRendered(t, data, opt, true)
		if len(got) != len(want) {
			t.Fatalf("%+v: %d rows, want %d", opt, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%+v: row %d:\n got %s\nwant %s", opt, i, got[i], want[i])
			}
		}
		seen := map[format.ThreadID]bool{}
		table := 0
		opt.Stacks = NewStackTable()
		opt.Columns = func(c *Columns) error {
			for i := range c.Len() {
				seen[c.Threads[c.Thread[i]]] = true
			}
			table = max(table, len(c.Threads))
			return nil
		}
		if _, err := EachEventAt(bytes.NewReader(data), int64(len(data)), "f.orca", opt, nil); err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v: %d threads seen, a table of %d", opt, len(seen), table)
		if len(seen) < 200 || table > len(seen)/3 {
			t.Errorf("%+v: %d threads seen, a table of %d: want at least 200 threads and a table of at most a third", opt, len(seen), table)
		}
	}
}
