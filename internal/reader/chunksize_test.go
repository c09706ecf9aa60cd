package reader

import (
	"bytes"
	"testing"
	"unsafe"

	"orca/internal/format"
)

// TestChunkEventsSized: a batch that is one whole chunk (a snapshot's
// file) reserves the events its trailer counts, not one per 10 bytes of
// the chunk: 30 000 ThreadStarted records (417 kB with their threads'
// definitions) reserve 30 000 Events, not 41 700, and are all read. A
// chunk of version 2 (no trailer) keeps the estimate.
func TestChunkEventsSized(t *testing.T) {
	const n = 30000
	for _, version := range []int{0, 2} {
		var b bytes.Buffer
		w := format.NewWriterOptions(format.Files{Events: &b}, format.Options{Encoding: format.EncodingCompact, ChunkBytes: 1 << 30, CompactVersion: version})
		for i := range n {
			if err := w.Event(&format.Event{Time: format.Time(i), Kind: format.ThreadStarted, Thread: format.ThreadID(i + 1), Name: "v"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data := b.Bytes()
		ra := bytes.NewReader(data)
		size := int64(len(data))
		e := &each{ra: ra, size: size, chunk: size, name: "x.orca", compact: true, cf: &carryFilter{}}
		if h := data[:len(format.CompactHeader)]; h[len(h)-1] == '\n' {
			e.version = int(h[len(h)-2] - '0')
		}
		bt := newBatch()
		e.parse(e.newDecoder(size), bt, 0, size)
		if len(bt.events) != n || bt.err != nil || len(bt.errs) != 0 {
			t.Fatalf("version %d: %d events read (err %v, %d malformed), want %d", version, len(bt.events), bt.err, len(bt.errs), n)
		}
		// The allocator rounds up to its size class: within 1/64.
		got, lo, hi := cap(bt.events), n, n+n/64
		if version == 2 {
			lo, hi = int(size)/10, int(size)/10+int(size)/640
		}
		if got < lo || got > hi {
			t.Errorf("version %d: %d bytes, %d events reserved, want %d-%d", version, size, got, lo, hi)
		}
	}
}

// TestEventSize: an Event's fields are in order of size (api.go), with
// no padding between them: EachEvent writes and the fold reads a chunk's
// events, 65 000 a MB of a server's compact recording.
func TestEventSize(t *testing.T) {
	if n := unsafe.Sizeof(Event{}); n > 152 {
		t.Errorf("an Event is %d bytes, want at most 152: a field added where it pads?", n)
	}
}
