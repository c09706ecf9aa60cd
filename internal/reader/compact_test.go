package reader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
)

// compactOf writes the events of a text .orca in the compact encoding,
// with a chunk every chunk bytes (0: the writer's default), however
// large the state it restates (format.Options.SmallChunks: a chunk per
// event with 1).
func compactOf(t testing.TB, text []byte, chunk int) []byte {
	return compactOfVersion(t, text, chunk, 0)
}

// compactOfVersion is compactOf in the encoding's version (0: the current);
// the last chunk closed (format.Writer.Close).
func compactOfVersion(t testing.TB, text []byte, chunk, version int) []byte {
	var b bytes.Buffer
	w := format.NewWriterOptions(format.Files{Events: &b}, format.Options{Encoding: format.EncodingCompact, ChunkBytes: chunk, CompactVersion: version, SmallChunks: true})
	evs := NewEvents(bytes.NewReader(text), "seed.orca")
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			continue
		}
		fe := toFormat(ev)
		if err := w.Event(&fe); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func toFormat(ev Event) format.Event {
	return format.Event{Time: ev.Time, Kind: ev.Kind, Thread: ev.Thread, Object: ev.Object, Target: ev.Target, Owner: ev.Owner,
		Name: ev.Name, Stack: ev.Stack, Timeout: ev.Timeout, How: ev.How, Class: ev.Class, Mode: ev.Mode,
		Sampled: ev.Sampled, Weight: ev.Weight, CPU: ev.CPU, Ready: ev.Ready, Depth: ev.Depth, Lock: ev.Lock()}
}

// FuzzCompact: no input panics the compact reader; errors name the file
// and a byte offset within it, in order; results do not depend on the
// buffer's size nor on EachEvent's chunks, nor on its Columns or Batch;
// what it accepts, the writer writes back as read.
func FuzzCompact(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.txtar")
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if file.Name == "orca" {
				c := compactOf(f, unescape(file.Data), 64)
				f.Add(c)
				if len(c) > 20 {
					f.Add(c[:len(c)-3])                                                                           // cut
					f.Add(append(append([]byte(nil), c[:len(c)/2]...), append([]byte{0x7F}, c[len(c)/2:]...)...)) // a bad tag
				}
			}
		}
	}
	f.Add([]byte(format.CompactHeader))
	f.Add([]byte("orca-compact 2\n"))
	f.Add([]byte(format.CompactHeader + "ORCACHNK\x01\x01\x00\x02\x01\x01\x00\x00\x00\x10"))
	// A chunk that restates a thread and its park (carried records).
	var c chunkBuilder
	c.chunk(2, 5000)
	c.thread(1, 0xA)
	c.event(true, format.ThreadStarted, 5000, 1, 0, "a")
	c.event(true, format.ThreadPark, 5000, 1, 0x77, "")
	c.event(false, format.ThreadUnparked, 5100, 1, 0x77, "")
	f.Add(append([]byte(format.CompactHeader), c.b...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			t.Skip("over 64 KiB")
		}
		if !isCompact(data) {
			data = append([]byte(format.CompactHeader), data...)
		}
		evs := NewEvents(bytes.NewReader(data), "f.orca")
		if evs.cp == nil {
			t.Fatal("not read as compact")
		}
		tiny := newCompactRecords("f.orca", 16)
		tiny.reset(bytes.NewReader(data), 0, -1, nil)
		// And with decodeEvent alone (no fast path: compact_fast.go).
		slow := newCompactRecords("f.orca", 1<<10)
		slow.reset(bytes.NewReader(data), 0, -1, nil)
		slow.slow = true
		cfSlow := &carryFilter{}
		var seq []string
		lastOff, lastLine := int64(-1), 0
		cf := &carryFilter{} // what Events hands on of the carried records
		for {
			ev, err := evs.Next()
			var ev2 Event
			err2 := tiny.next(&ev2)
			for err2 == nil && !cf.pass(&ev2) {
				err2 = tiny.next(&ev2)
			}
			if err2 != nil {
				ev2 = Event{}
			}
			if fmt.Sprint(err) != fmt.Sprint(err2) || !reflect.DeepEqual(ev, ev2) {
				t.Fatalf("with a 16-byte buffer: %+v, %v; want %+v, %v", ev2, err2, ev, err)
			}
			var ev3 Event
			err3 := slow.next(&ev3)
			for err3 == nil && !cfSlow.pass(&ev3) {
				err3 = slow.next(&ev3)
			}
			if err3 != nil {
				ev3 = Event{}
			}
			if fmt.Sprint(err) != fmt.Sprint(err3) || !reflect.DeepEqual(ev, ev3) {
				t.Fatalf("without the fast path: %+v, %v; with it %+v, %v", ev3, err3, ev, err)
			}
			if err == io.EOF {
				break
			}
			seq = append(seq, fmt.Sprintf("%+v %v", ev, err))
			var pe *ParseError
			if errors.As(err, &pe) {
				if pe.File != "f.orca" || pe.Line != 0 || pe.Offset <= lastOff || pe.Offset >= int64(len(data)) ||
					!strings.HasPrefix(pe.Error(), fmt.Sprintf("f.orca: byte %d: ", pe.Offset)) {
					t.Fatalf("bad error %q (offset %d, after %d, of %d bytes)", pe.Error(), pe.Offset, lastOff, len(data))
				}
				lastOff = pe.Offset
				continue
			}
			if err != nil {
				// Only the header may be wrong beyond a record.
				if !strings.Contains(err.Error(), "header") {
					t.Fatalf("not a ParseError: %v", err)
				}
				if _, err2 := evs.Next(); fmt.Sprint(err2) != fmt.Sprint(err) {
					t.Fatalf("the header's error did not stick: %v", err2)
				}
				return
			}
			if ev.Carried && ev.Line != 0 || !ev.Carried && ev.Line != lastLine+1 {
				t.Fatalf("event Line %d after %d (carried %v)", ev.Line, lastLine, ev.Carried)
			}
			lastLine = max(lastLine, ev.Line)
			// Written again alone, it reads back the same (names repaired).
			var b bytes.Buffer
			w := format.NewWriterOptions(format.Files{Events: &b}, format.Options{Encoding: format.EncodingCompact})
			fe := toFormat(ev)
			if err := w.Event(&fe); err != nil {
				t.Fatal(err)
			}
			// A reader sized to the record: NewEvents' buffers per event
			// would make the fuzzer slow (as FuzzEvents says).
			rr := newCompactRecords("again", 64)
			rr.reset(bytes.NewReader(b.Bytes()), 0, -1, nil)
			var again Event
			err = rr.next(&again)
			ev.Name = strings.ToValidUTF8(ev.Name, "\uFFFD")
			ev.Class = strings.ToValidUTF8(ev.Class, "\uFFFD")
			ev.Line, ev.Carried = 1, false
			if err != nil || !reflect.DeepEqual(again, ev) {
				t.Fatalf("written again: %+v, %v; want %+v", again, err, ev)
			}
		}
		if tiny.truncated != evs.Truncated() || slow.truncated != evs.Truncated() {
			t.Fatal("truncation depends on the buffer size")
		}
		if _, err := evs.Next(); err != io.EOF {
			t.Fatalf("after the end: %v", err)
		}
		for _, chunk := range []int{1, 5, 64} {
			checkEach(t, data, EachOptions{Workers: 3, ChunkSize: chunk}, seq, evs.Truncated())
		}
		// Columns (decodeRunCols) hand on what Batch (decodeRun) does.
		for _, opt := range []EachOptions{{Workers: 1}, {Workers: 3, ChunkSize: 64}} {
			want, wt := eachRenderedDense(t, data, opt, false, false)
			got, gt := eachRenderedDense(t, data, opt, true, false)
			if wt != gt || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%+v: Columns (truncated %v)\n%s\nBatch (truncated %v)\n%s", opt, gt, strings.Join(got, "\n"), wt, strings.Join(want, "\n"))
			}
		}
	})
}

// TestCompactErrors checks what a malformed record costs: the rest of its
// chunk, not the next; and that a cut record ends the recording.
func TestCompactErrors(t *testing.T) {
	text := []byte("1.0,ThreadStarted,0000000A,main\n2.0,ThreadSleep,0000000A,1;00000001;00000002\n3.0,ThreadSlept,0000000A,1;00000001;00000002\n4.0,ThreadEnded,0000000A\n")
	one := compactOf(t, text, 1) // a chunk per event
	marker := []byte(format.ChunkMarker)
	chunks := bytes.Split(one[len(format.CompactHeader):], marker)[1:]
	if len(chunks) != 4 {
		t.Fatalf("%d chunks", len(chunks))
	}
	// Break the second chunk's event: an unknown kind.
	bad := bytes.Clone(one)
	at := bytes.Index(bad, append(marker, chunks[1]...))
	desc := format.KindDescriptor(format.ThreadSleep) // the event record follows its kind's descriptor
	ev := at + bytes.Index(chunks[1], desc) + len(marker) + len(desc)
	if bad[ev] != format.TagEvent+byte(format.ThreadSleep) {
		t.Fatalf("byte %d is %#x", ev, bad[ev])
	}
	bad[ev] = 0x7F
	var got []string
	evs := NewEvents(bytes.NewReader(bad), "b.orca")
	for {
		e, err := evs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			got = append(got, err.Error())
			continue
		}
		got = append(got, fmt.Sprintf("%d %s", e.Line, e.Kind))
	}
	want := []string{"1 ThreadStarted", fmt.Sprintf("b.orca: byte %d: unknown record tag 0x7F", ev), "2 ThreadSlept", "3 ThreadEnded"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// Cut in the last event (ThreadEnded, +0, thread 1), before the last chunk's trailer.
	end := bytes.LastIndex(one, []byte{format.TagEvent + byte(format.ThreadEnded), 0, 1}) + 3
	if one[end] != format.TagTrailer {
		t.Fatalf("the last chunk: % X", one[end-3:])
	}
	one = one[:end]
	for cut := len(one) - 1; cut > len(one)-3; cut-- {
		evs := NewEvents(bytes.NewReader(one[:cut]), "c.orca")
		n := 0
		for {
			_, err := evs.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 3 || !evs.Truncated() {
			t.Errorf("cut at %d of %d: %d events, truncated %v", cut, len(one), n, evs.Truncated())
		}
	}
	if _, err := NewEvents(strings.NewReader("orca-compact 9\n"), "v.orca").Next(); err == nil || !strings.Contains(err.Error(), "orca-compact 1") {
		t.Errorf("another version: %v", err)
	}
}

// TestCompactVersion1 (issue 30): a compact .orca of version 1, written before alias records
// existed, still reads: the same records under the header "orca-compact 1", and a thread field
// with the top bit that no alias record defines is a hash (version 1's writers knew no aliases).
func TestCompactVersion1(t *testing.T) {
	text := []byte("1.0000000000,ThreadStarted,0000000A,main\n" +
		"2.0000000000,ThreadStart,0000000A,8000000B,0\n" +
		"3.0000000000,ThreadSleep,0000000A,0\n")
	v2 := compactOfVersion(t, text, 0, 2)
	if !bytes.HasPrefix(v2, []byte(format.CompactHeaderV2)) {
		t.Fatalf("the writer's header: %q", v2[:15])
	}
	read := func(b []byte) []Event {
		var out []Event
		evs := NewEvents(bytes.NewReader(b), "v.orca")
		for {
			ev, err := evs.Next()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, ev)
		}
	}
	want := read(v2)
	if len(want) != 3 || want[1].Target != 0x8000000B {
		t.Fatalf("version 2: %+v", want)
	}
	// Version 2 named 8000000B, a hash with the top bit, by an alias record; version 1 wrote it
	// as it is. The same events either way.
	var v1 bytes.Buffer
	w := format.NewWriterOptions(format.Files{Events: &v1}, format.Options{Encoding: format.EncodingCompact, CompactVersion: 2})
	for _, ev := range want {
		ev := ev
		e := format.Event{Time: ev.Time, Kind: ev.Kind, Thread: ev.Thread, Name: ev.Name}
		if ev.Kind == format.ThreadStart {
			e.Target = 0x0C // no alias: patched to 8000000B below
		}
		w.Event(&e)
	}
	b := bytes.Replace(v1.Bytes(), []byte(format.CompactHeaderV2), []byte(format.CompactHeaderV1), 1)
	b = bytes.Replace(b, []byte{0x0C, 0, 0, 0}, []byte{0x0B, 0, 0, 0x80}, 1)
	got := read(b)
	for i := range got {
		got[i].Line, want[i].Line = 0, 0
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("version 1:\n%+v\nwant\n%+v", got, want)
	}
}
