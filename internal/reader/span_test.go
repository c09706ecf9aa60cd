package reader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"orca/internal/format"
	"orca/internal/synth"
)

// spanChunk is a chunk of a compact file, found by its marker: its bytes
// and base time.
type spanChunk struct {
	lo, hi int
	base   format.Time
}

func spanChunks(t *testing.T, b []byte) []spanChunk {
	t.Helper()
	var out []spanChunk
	for _, sp := range chunkSpans(b) {
		r := b[sp[0]+len(format.ChunkMarker)+1:]
		_, n := binary.Uvarint(r)
		base, m := binary.Uvarint(r[n:])
		if n <= 0 || m <= 0 {
			t.Fatalf("chunk at %d: no chunk record", sp[0])
		}
		out = append(out, spanChunk{sp[0], sp[1], format.Time(base)})
	}
	return out
}

// synthCompact writes a synthetic compact recording of size bytes (chunks
// of 1 MiB, format.Writer's) and returns its prefix and its events' bytes.
func synthCompact(t *testing.T, size int64) (string, []byte) {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "synth")
	if _, err := synth.WriteRecording(prefix, synth.Options{Seed: 5, Threads: 40, Monitors: 12, Semaphores: 4, Size: size, Encoding: format.EncodingCompact}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(prefix + format.SuffixEvents)
	if err != nil {
		t.Fatal(err)
	}
	return prefix, b
}

// TestSpanReadsItsChunks: a time range of a compact file reads exactly the
// chunks from the last one that begins at or before its start to the last
// that begins at or before its end (the test hook sees what is decoded,
// no more), and hands on exactly the events of the range, after the state
// at its start restated (carried, at the start).
func TestSpanReadsItsChunks(t *testing.T) {
	prefix, b := synthCompact(t, 8<<20)
	chunks := spanChunks(t, b)
	if len(chunks) < 6 {
		t.Fatalf("%d chunks, want 6 or more", len(chunks))
	}
	rec, err := Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	var all []format.Time
	if _, err := rec.EachEvent(EachOptions{}, func(ev *Event) error {
		all = append(all, ev.Time)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	type read struct{ lo, hi int64 }
	var got []read
	spanHook = func(path string, lo, hi int64) { got = append(got, read{lo, hi}) }
	defer func() { spanHook = nil }()
	for _, c := range []struct{ i, j int }{{2, 3}, {0, 1}, {len(chunks) - 2, len(chunks) - 1}, {3, 3}} {
		// From a third into chunk i to a third into chunk j.
		at := func(k int) format.Time {
			end := chunks[len(chunks)-1].base + 1
			if k+1 < len(chunks) {
				end = chunks[k+1].base
			}
			return chunks[k].base + (end-chunks[k].base)/3
		}
		from, to := at(c.i), at(c.j)
		sp, err := rec.Span(from, to)
		if err != nil {
			t.Fatal(err)
		}
		got = nil
		var inRange, carried int
		var first format.Time = -1
		if _, err := rec.EachEvent(EachOptions{Span: sp}, func(ev *Event) error {
			if ev.Time < from || ev.Time > to {
				t.Fatalf("range %d-%d: an event at %d", from, to, ev.Time)
			}
			if ev.Carried {
				carried++
				if first >= 0 && ev.Kind == format.ThreadStarted {
					t.Errorf("a restated ThreadStarted after the range's first event")
				}
				return nil
			}
			if first < 0 {
				first = ev.Time
			}
			inRange++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		want := read{int64(chunks[c.i].lo), int64(chunks[c.j].hi)}
		if len(got) != 1 || got[0] != want {
			t.Errorf("chunks %d to %d: read %v, want %v", c.i+1, c.j+1, got, want)
		}
		if sp.Chunks != c.j-c.i+1 || sp.Bytes != want.hi-want.lo || sp.Total != int64(len(b)) {
			t.Errorf("chunks %d to %d: Span says %d chunks, %d of %d bytes", c.i+1, c.j+1, sp.Chunks, sp.Bytes, sp.Total)
		}
		n := 0
		for _, tm := range all {
			if tm >= from && tm <= to {
				n++
			}
		}
		if inRange != n || carried == 0 {
			t.Errorf("chunks %d to %d: %d events handed on (and %d restated), the whole file has %d in the range", c.i+1, c.j+1, inRange, carried, n)
		}
	}
	// To the end: the last chunk's events.
	sp, err := rec.Span(chunks[len(chunks)-1].base, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Chunks != 1 || sp.End != all[len(all)-1] || sp.Origin != all[0] {
		t.Errorf("the last chunk: Span %+v", sp)
	}
}

// TestSpanChunkFiles: a bounded recording's chunk files (here the Go
// writer's chunks, each in a file of its own: each restates the state at
// its start) are read from the file that holds the range's start; a range
// at the end reads the last files only.
func TestSpanChunkFiles(t *testing.T) {
	src, b := synthCompact(t, 6<<20)
	chunks := spanChunks(t, b)
	prefix := boundedOf(t, src, b)
	rec, err := Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Chunks) != len(chunks) {
		t.Fatalf("%d chunk files, want %d", len(rec.Chunks), len(chunks))
	}
	var got []string
	spanHook = func(path string, lo, hi int64) { got = append(got, filepath.Base(path)) }
	defer func() { spanHook = nil }()
	last := len(chunks) - 1
	sp, err := rec.Span(chunks[last-1].base+1, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	var events int
	if _, err := rec.EachEvent(EachOptions{Span: sp}, func(ev *Event) error { events++; return nil }); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint([]string{filepath.Base(format.ChunkFileName(prefix, uint64(last))), filepath.Base(format.ChunkFileName(prefix, uint64(last+1)))})
	if fmt.Sprint(got) != want || sp.Chunks != 2 || events == 0 {
		t.Errorf("read %v (%d chunks, %d events), want %v", got, sp.Chunks, events, want)
	}
	if !bytes.HasPrefix(b, []byte(format.CompactHeader)) {
		t.Fatal("not compact")
	}
}

// checkChunkFileBounds: ChunkFileBounds of the chunk file path (bytes f),
// from its trailer or decoded, are the bounds TimeBounds decoded it to
// before it read trailers: the first and last of its events, carried
// ones as carryFilter passes them.
func checkChunkFileBounds(t *testing.T, path string, f []byte, what string) {
	t.Helper()
	lo, hi := format.Time(math.MaxInt64), format.Time(math.MinInt64)
	if _, err := eachEventAt(bytes.NewReader(f), 0, int64(len(f)), path, EachOptions{}, &carryFilter{}, func(ev *Event) error {
		lo, hi = min(lo, ev.Time), max(hi, ev.Time)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	first, last, ok, err := ChunkFileBounds(path)
	if err != nil || !ok || first != lo || last != hi {
		t.Errorf("%s: ChunkFileBounds %d..%d, %v, %v; its events %d..%d", what, first, last, ok, err, lo, hi)
	}
}

// TestChunkFileEnd: a closed chunk file's last event time, read from its
// trailer, is the latest time of the events it decodes to; a chunk file
// cut anywhere before its trailer's end (being written) has none.
func TestChunkFileEnd(t *testing.T) {
	_, b := synthCompact(t, 3<<20)
	chunks := spanChunks(t, b)
	dir := t.TempDir()
	for i, c := range chunks {
		path := filepath.Join(dir, fmt.Sprintf("c.orca.%06d", i+1))
		f := append([]byte(format.CompactHeader), b[c.lo:c.hi]...)
		if err := os.WriteFile(path, f, 0o644); err != nil {
			t.Fatal(err)
		}
		var want format.Time
		if _, err := EachEventAt(bytes.NewReader(f), int64(len(f)), path, EachOptions{}, func(ev *Event) error {
			want = max(want, ev.Time)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		got, ok, err := ChunkFileEnd(path)
		if err != nil || !ok || got != want {
			t.Errorf("chunk %d: ChunkFileEnd %d, %v, %v; its events end at %d", i+1, got, ok, err, want)
		}
		checkChunkFileBounds(t, path, f, fmt.Sprintf("chunk %d", i+1))
		for _, cut := range []int{1, 2, 4, 5, 9, 30} {
			if err := os.WriteFile(path, f[:len(f)-cut], 0o644); err != nil {
				t.Fatal(err)
			}
			if got, ok, err := ChunkFileEnd(path); err != nil || ok {
				t.Errorf("chunk %d cut by %d bytes: ChunkFileEnd %d, %v, %v; want none", i+1, cut, got, ok, err)
			}
			checkChunkFileBounds(t, path, f[:len(f)-cut], fmt.Sprintf("chunk %d cut by %d bytes", i+1, cut))
		}
	}
}

// TestRangeFilterFacts: an object's class given before a range is handed
// on once, before the first event of the range on the object, and not at
// all when the range gives the object's class itself first (the filter
// forgets an object's facts once it has handed them on).
func TestRangeFilterFacts(t *testing.T) {
	var got []string
	rf := newRangeFilter(100, 1000, true, func(ev *Event) error {
		s := fmt.Sprintf("%d %s %x", ev.Time, ev.Kind, uint64(ev.Object))
		if ev.Class != "" {
			s += " " + ev.Class
		}
		if ev.Carried {
			s += " carried"
		}
		got = append(got, s)
		return nil
	})
	rf.given = map[factKey]struct{}{}
	for _, ev := range []Event{
		{Time: 10, Kind: format.ObjectClass, Thread: 1, Object: 0xa, Class: "LA;"},
		{Time: 11, Kind: format.ObjectClass, Thread: 1, Object: 0xb, Class: "LB;"},
		{Time: 200, Kind: format.ObjectNotifyAll, Thread: 2, Object: 0xc},
		{Time: 300, Kind: format.ObjectClass, Thread: 2, Object: 0xb, Class: "LB2;"},
		{Time: 400, Kind: format.ObjectNotifyAll, Thread: 2, Object: 0xa},
		{Time: 500, Kind: format.ObjectNotifyAll, Thread: 2, Object: 0xa},
		{Time: 600, Kind: format.ObjectNotifyAll, Thread: 2, Object: 0xb},
		{Time: 2000, Kind: format.ObjectNotifyAll, Thread: 2, Object: 0xa},
	} {
		if err := rf.event(&ev); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"200 ObjectNotifyAll c",
		"300 ObjectClass b LB2;",
		"400 ObjectClass a LA; carried",
		"400 ObjectNotifyAll a",
		"500 ObjectNotifyAll a",
		"600 ObjectNotifyAll b",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("handed on\n%q\nwant\n%q", got, want)
	}
}

// TestTimeBoundsTrailers: a compact file's first and last event times are
// its first and last chunks' trailers' (no chunk decoded), the same as
// decoding the two; a last chunk without its trailer (being written, or
// cut) is decoded. Fails with the chunks decoded for the bounds (as before
// the trailers were read), or with a trailer's times misread.
func TestTimeBoundsTrailers(t *testing.T) {
	prefix, b := synthCompact(t, 4<<20)
	chunks := spanChunks(t, b)
	if len(chunks) < 3 {
		t.Fatalf("%d chunks, want 3 or more", len(chunks))
	}
	// The bounds by decoding the first and the last chunk, as a reader
	// without trailers does.
	decoded := func(b []byte, last spanChunk) (lo, hi format.Time) {
		lo, hi = math.MaxInt64, math.MinInt64
		for _, c := range []spanChunk{chunks[0], last} {
			ra := bytes.NewReader(b)
			if _, err := eachEventAt(ra, int64(c.lo), int64(c.hi), "x", EachOptions{}, &carryFilter{}, func(ev *Event) error {
				lo, hi = min(lo, ev.Time), max(hi, ev.Time)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		return lo, hi
	}
	var read [][2]int64
	boundsHook = func(lo, hi int64) { read = append(read, [2]int64{lo, hi}) }
	defer func() { boundsHook = nil }()
	rec, err := Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	first, last, ok, err := rec.TimeBounds()
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	lo, hi := decoded(b, chunks[len(chunks)-1])
	if first != lo || last != hi {
		t.Errorf("TimeBounds %d, %d; decoding the first and last chunks %d, %d", first, last, lo, hi)
	}
	if len(read) != 0 {
		t.Errorf("TimeBounds decoded %v: the trailers say the times", read)
	}

	// The last chunk cut in its middle: no trailer, decoded.
	c := chunks[len(chunks)-1]
	cut := b[:c.lo+(c.hi-c.lo)/2]
	if err := os.WriteFile(prefix+format.SuffixEvents, cut, 0o600); err != nil {
		t.Fatal(err)
	}
	read = nil
	first, last, ok, err = rec.TimeBounds()
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	c.hi = len(cut)
	lo, hi = decoded(cut, c)
	if first != lo || last != hi {
		t.Errorf("cut: TimeBounds %d, %d; decoding the first and last chunks %d, %d", first, last, lo, hi)
	}
	if len(read) != 1 || read[0] != [2]int64{int64(c.lo), int64(len(cut))} {
		t.Errorf("cut: TimeBounds decoded %v, want the last chunk [%d, %d) alone", read, c.lo, len(cut))
	}
}

// countedReaderAt counts the bytes read through it.
type countedReaderAt struct {
	ra io.ReaderAt
	n  int64
}

func (c *countedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.ra.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// TestChunksIn: counting a range's chunks by their trailers (the next one
// looked for near where the one before ended) gives the count of scanning
// every byte for markers, for every range of chunks, in a file whose chunks
// differ in size (its small last chunk moved between full ones) and where a
// chunk's trailer is broken; and reads a fraction of the bytes. Fails with
// every byte scanned (as before), or with a chunk taken past one its
// trailer does not close.
func TestChunksIn(t *testing.T) {
	_, b := synthCompact(t, 6<<20)
	chunks := spanChunks(t, b)
	if len(chunks) < 5 {
		t.Fatalf("%d chunks, want 5 or more", len(chunks))
	}
	// The last chunk (smaller) second, and the fourth's trailer tag broken.
	last := chunks[len(chunks)-1]
	var mixed []byte
	mixed = append(mixed, b[:chunks[0].hi]...)
	mixed = append(mixed, b[last.lo:last.hi]...)
	mixed = append(mixed, b[chunks[1].lo:last.lo]...)
	broken := bytes.Clone(mixed)
	c4 := spanChunks(t, broken)[3]
	if i := bytes.LastIndexByte(broken[c4.lo:c4.hi-5], format.TagTrailer); i < 0 {
		t.Fatal("no trailer tag")
	} else {
		broken[c4.lo+i]++
	}
	for name, file := range map[string][]byte{"in order": b, "sizes mixed": mixed, "a trailer broken": broken} {
		cs := spanChunks(t, file)
		ra := bytes.NewReader(file)
		for i := range cs {
			for j := i; j < len(cs); j++ {
				lo, hi := int64(cs[i].lo), int64(cs[j].hi)
				cr := &countedReaderAt{ra: ra}
				got := chunksIn(cr, lo, hi, true)
				if want := chunksIn(ra, lo, hi, false); got != j-i+1 || want != j-i+1 {
					t.Errorf("%s: chunks %d to %d: counted %d, scanning %d, want %d", name, i+1, j+1, got, want, j-i+1)
				}
				if name == "in order" && j-i >= 3 && cr.n > (hi-lo)/2 {
					t.Errorf("%s: chunks %d to %d: read %d bytes of %d to count them", name, i+1, j+1, cr.n, hi-lo)
				}
			}
		}
	}
}

// TestRangeFilterFactOfEndedThread: the class of an object a live thread waits on at the
// range's start is restated as that thread's, not as the thread's that gave it, which ended
// before the range. Before, `orca report --from` of Jetty after its main thread ended showed a
// thread with no name, alive and runnable through the range, from the restated ObjectClass
// (docs/perf/2026-12-02-jfr-servers.md).
func TestRangeFilterFactOfEndedThread(t *testing.T) {
	var got []string
	rf := newRangeFilter(100, 1000, true, func(ev *Event) error {
		got = append(got, fmt.Sprintf("%d %s %x %x", ev.Time, ev.Kind, uint64(ev.Thread), uint64(ev.Object)))
		return nil
	})
	rf.given = map[factKey]struct{}{}
	for _, ev := range []Event{
		{Time: 5, Kind: format.ThreadStarted, Thread: 1, Name: "main"},
		{Time: 6, Kind: format.ThreadStarted, Thread: 2, Name: "worker"},
		{Time: 10, Kind: format.ObjectClass, Thread: 1, Object: 0xa, Class: "LA;"},
		{Time: 20, Kind: format.ThreadEnded, Thread: 1},
		{Time: 30, Kind: format.ObjectWait, Thread: 2, Object: 0xa},
		{Time: 200, Kind: format.ObjectWaited, Thread: 2, Object: 0xa},
	} {
		if err := rf.event(&ev); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"100 ThreadStarted 2 0",
		"100 ObjectClass 2 a",
		"100 ObjectWait 2 a",
		"200 ObjectWaited 2 a",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("handed on\n%q\nwant\n%q", got, want)
	}
}
