package format_test

import (
	"testing"

	"orca/internal/format"
)

// TestCompactStateBoundsChunks: a recording with more live threads than a
// chunk's bytes hold (57 398 virtual threads of a JFR import that has no
// jdk.VirtualThreadEnd) is as large as its events, and a fixed share more
// for the state its chunks restate, not the state again for each event: a
// chunk holds at least four times the state it begins with, as the
// agent's. Before, each event past the first chunk began a chunk of its
// own, restating every thread (an import of 4 MB wrote 14.7 GB).
func TestCompactStateBoundsChunks(t *testing.T) {
	const threads, sleeps = 300, 4000
	var evs []format.Event
	for i := range threads { // virtual threads that never end
		th := format.ThreadID(0x1000 + i)
		evs = append(evs, format.Event{Time: format.Time(i), Kind: format.ThreadStarted, Thread: th, Name: "vt"},
			format.Event{Time: format.Time(i), Kind: format.VirtualThreadMounted, Thread: th, Target: 7})
	}
	stack := []format.Frame{{Method: 1, Location: 3}}
	for i := range sleeps { // a platform thread that sleeps, again and again
		ts := format.Time(threads + 2*i)
		evs = append(evs, format.Event{Time: ts, Kind: format.ThreadSleep, Thread: 7, Stack: stack, Timeout: 5},
			format.Event{Time: ts + 1, Kind: format.ThreadSlept, Thread: 7, Stack: stack})
	}
	// Version 2 restates nothing: the bytes of the events alone.
	plain := len(writeEvents(t, evs, format.Options{Encoding: format.EncodingCompact, ChunkBytes: 4096, CompactVersion: 2}))
	for _, chunk := range []int{1, 4096, 1 << 20} {
		data := writeEvents(t, evs, format.Options{Encoding: format.EncodingCompact, ChunkBytes: chunk})
		// At most a third of the events' bytes restated (a quarter of
		// each chunk but the last), the last chunk's state, and the
		// descriptors and trailers of chunks: less than twice the events.
		if limit := plain * 2; len(data) > limit {
			t.Errorf("chunks of %d: %d bytes for %d bytes of events (limit %d): the state is restated per event", chunk, len(data), plain, limit)
		}
		t.Logf("chunks of %d: %d bytes for %d bytes of events", chunk, len(data), plain)
		if got := len(readNext(t, data, true)); got != len(evs) {
			t.Errorf("chunks of %d: %d events read, want %d", chunk, got, len(evs))
		}
	}
}
