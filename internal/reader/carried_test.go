package reader

import (
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/format"
)

// chunkBuilder writes compact records by hand, as the agent does
// (docs/format.md), carried ones included.
type chunkBuilder struct {
	b    []byte
	prev int64
}

func (c *chunkBuilder) chunk(seq uint64, base int64) {
	c.b = append(c.b, format.ChunkMarker...)
	c.b = append(c.b, format.TagChunk)
	c.b = binary.AppendUvarint(c.b, seq)
	c.b = binary.AppendUvarint(c.b, uint64(base))
	c.prev = base
}

func (c *chunkBuilder) thread(idx uint64, h uint32) {
	c.b = append(c.b, format.TagThread)
	c.b = binary.AppendUvarint(c.b, idx)
	c.b = binary.LittleEndian.AppendUint32(c.b, h)
}

// event writes kind k at t by thread index th: an object (or target)
// and a text where the kind has them, no stack.
func (c *chunkBuilder) event(carried bool, k format.Kind, t int64, th uint64, obj uint32, text string) {
	if carried {
		c.b = append(c.b, format.TagCarried)
	}
	c.b = append(c.b, format.TagEvent+byte(k))
	c.b = binary.AppendVarint(c.b, t-c.prev)
	c.prev = t
	c.b = binary.AppendUvarint(c.b, th)
	for _, f := range format.Specs[k].Fields[1:] {
		switch f {
		case format.FObject, format.FTarget, format.FOwner:
			c.b = binary.LittleEndian.AppendUint32(c.b, obj)
		case format.FName, format.FClass:
			c.b = binary.AppendUvarint(c.b, uint64(len(text)))
			c.b = append(c.b, text...)
		case format.FStack, format.FTimeout:
			c.b = append(c.b, 0)
		case format.FHow, format.FMode:
			c.b = append(c.b, 0)
		}
	}
}

// TestCarried: a chunk's carried records are handed on only where the
// events read so far lack their fact — the state at the start of the
// first chunk read, an object's class no record gave — by Events and
// EachEvent alike, over one file and over a bounded recording's chunk
// files (the first of which was deleted).
func TestCarried(t *testing.T) {
	var c1, c2, c3 chunkBuilder
	// Chunk 1: A starts and parks on 0x77 (class written), B starts.
	c1.chunk(1, 1000)
	c1.thread(1, 0xA)
	c1.thread(2, 0xB)
	c1.event(false, format.ThreadStarted, 1000, 1, 0, "a")
	c1.event(false, format.ThreadStarted, 1010, 2, 0, "b")
	c1.event(false, format.ObjectClass, 1020, 1, 0x77, "LX;")
	c1.event(false, format.ThreadPark, 1020, 1, 0x77, "")
	// Chunk 2 restates both threads, A's park and its object's class.
	c2.chunk(2, 2000)
	c2.thread(1, 0xA)
	c2.thread(2, 0xB)
	c2.event(true, format.ThreadStarted, 2000, 1, 0, "a")
	c2.event(true, format.ObjectClass, 2000, 1, 0x77, "LX;")
	c2.event(true, format.ThreadPark, 2000, 1, 0x77, "")
	c2.event(true, format.ThreadStarted, 2000, 2, 0, "b")
	c2.event(false, format.ThreadSleep, 2010, 2, 0, "")
	// Chunk 3: the same state; B notifies 0x77 (its class restated).
	c3.chunk(3, 3000)
	c3.thread(1, 0xA)
	c3.thread(2, 0xB)
	c3.event(true, format.ThreadStarted, 3000, 1, 0, "a")
	c3.event(true, format.ObjectClass, 3000, 1, 0x77, "LX;")
	c3.event(true, format.ThreadPark, 3000, 1, 0x77, "")
	c3.event(true, format.ThreadStarted, 3000, 2, 0, "b")
	c3.event(true, format.ObjectClass, 3020, 2, 0x77, "LX;")
	c3.event(false, format.ObjectNotify, 3020, 2, 0x77, "")
	c3.event(false, format.ThreadUnparked, 3030, 1, 0x77, "")

	kinds := func(evs []Event) string {
		var s []string
		for _, e := range evs {
			x := e.Kind.String()
			if e.Carried {
				x += "*"
			}
			s = append(s, x)
		}
		return strings.Join(s, " ")
	}
	read := func(t *testing.T, prefix string) (next, each string, lines []int) {
		t.Helper()
		rec, err := Open(prefix)
		if err != nil {
			t.Fatal(err)
		}
		evs, closer, err := rec.Events()
		if err != nil {
			t.Fatal(err)
		}
		defer closer.Close()
		var a, b []Event
		for {
			ev, err := evs.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			a = append(a, ev)
			lines = append(lines, ev.Line)
		}
		if _, err := rec.EachEvent(EachOptions{ChunkSize: 16}, func(ev *Event) error { b = append(b, *ev); return nil }); err != nil {
			t.Fatal(err)
		}
		// By Columns, the same events and lines as EachEvent's.
		var c []Event
		if _, err := rec.EachEvent(EachOptions{ChunkSize: 16, Columns: func(cols *Columns) error {
			for i := range cols.Len() {
				var ev Event
				cols.Event(i, &ev)
				c = append(c, ev)
			}
			return nil
		}}, nil); err != nil {
			t.Fatal(err)
		}
		if kinds(c) != kinds(b) {
			t.Errorf("%s by Columns: %s, EachEvent %s", prefix, kinds(c), kinds(b))
		}
		for i := range min(len(b), len(c)) {
			if c[i].Line != b[i].Line || c[i].Thread != b[i].Thread {
				t.Errorf("%s by Columns: event %d line %d thread %v, EachEvent's %d %v", prefix, i, c[i].Line, c[i].Thread, b[i].Line, b[i].Thread)
			}
		}
		return kinds(a), kinds(b), lines
	}
	dir := t.TempDir()
	// The chunks are built by hand in version 2: no descriptors nor trailers.
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), append([]byte(format.CompactHeaderV2), b...), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// One file: every carried record is known already.
	write("one.orca", append(append(append([]byte{}, c1.b...), c2.b...), c3.b...))
	want := "ThreadStarted ThreadStarted ObjectClass ThreadPark ThreadSleep ObjectNotify ThreadUnparked"
	next, each, lines := read(t, filepath.Join(dir, "one"))
	if next != want || each != want {
		t.Errorf("one file:\nNext      %s\nEachEvent %s\nwant      %s", next, each, want)
	}
	for i, l := range lines {
		if l != i+1 {
			t.Errorf("one file: lines %v, want 1…7", lines)
			break
		}
	}

	// Chunk files 2 and 3 kept (1 deleted): chunk 2's state is handed on,
	// chunk 3's is not, nor its restated class (chunk 2 gave it).
	write("b.orca", nil)
	write("b.orca.000002", c2.b)
	write("b.orca.000003", c3.b)
	want = "ThreadStarted* ObjectClass* ThreadPark* ThreadStarted* ThreadSleep ObjectNotify ThreadUnparked"
	next, each, lines = read(t, filepath.Join(dir, "b"))
	if next != want || each != want {
		t.Errorf("chunk files 2, 3:\nNext      %s\nEachEvent %s\nwant      %s", next, each, want)
	}
	if lines[0] != 0 || lines[4] != 1 || lines[6] != 3 {
		t.Errorf("chunk files 2, 3: lines %v: want 0 for carried records, 1… for the events across files", lines)
	}

	// Only chunk 3 kept: its state and the class restated with the notify,
	// once.
	os.Remove(filepath.Join(dir, "b.orca.000002"))
	want = "ThreadStarted* ObjectClass* ThreadPark* ThreadStarted* ObjectNotify ThreadUnparked"
	if next, each, _ = read(t, filepath.Join(dir, "b")); next != want || each != want {
		t.Errorf("chunk file 3:\nNext      %s\nEachEvent %s\nwant      %s", next, each, want)
	}
}

// TestFactSet: a factSet has what was added to it, and nothing else,
// looked up between adds in any order, with repeats, after a reset.
func TestFactSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var s factSet
	for round := range 3 {
		want := map[factKey]bool{}
		for range 2000 {
			k := factKey(r.IntN(500))
			if r.IntN(4) == 0 {
				if got := s.has(k); got != want[k] {
					t.Fatalf("round %d: has(%d) %v, want %v", round, k, got, want[k])
				}
				continue
			}
			s.add(k)
			want[k] = true
		}
		for k := range factKey(500) {
			if got := s.has(k); got != want[k] {
				t.Fatalf("round %d: has(%d) %v at the end, want %v", round, k, got, want[k])
			}
		}
		s.reset()
	}
}
