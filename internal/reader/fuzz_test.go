package reader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
)

// addSeeds adds the given sections of every golden case to the corpus.
func addSeeds(f *testing.F, sections ...string) {
	paths, _ := filepath.Glob("testdata/*.txtar")
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if slices.Contains(sections, file.Name) {
				f.Add(unescape(file.Data))
			}
		}
	}
}

// checkLine fails unless line is within the input and after the last one
// reported: results come in file order, even after a stray quote.
func checkLine(t *testing.T, what string, line, last, lines int) {
	t.Helper()
	if line < 1 || line > lines || line <= last {
		t.Fatalf("%s at line %d: want a line in %d..%d", what, line, last+1, lines)
	}
}

func FuzzEvents(f *testing.F) {
	addSeeds(f, "orca")
	f.Add([]byte("1.0,ThreadStarted,00000001,\"a\n\"\"b\"\r\n2.0,ThreadEnded,1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The mutator grows inputs towards 1 MB, where one run (five
		// readers) takes up to a second instead of ~0.3 ms; lines longer
		// than a buffer are covered by the 16-byte buffers here and by
		// reader_test's overlong line.
		if len(data) > 64<<10 {
			t.Skip("over 64 KiB")
		}
		lines := bytes.Count(data, []byte{'\n'}) + 1
		evs := NewEvents(bytes.NewReader(data), "f.orca")
		// bufio's smallest buffer puts most lines across refills: the
		// results must not depend on where the buffer ends.
		tiny := &Events{rr: newRecords(bytes.NewReader(data), "f.orca", 16)}
		last := 0
		var seq []string // what Next returned, for checkEach
		for {
			ev, err := evs.Next()
			if err != io.EOF {
				seq = append(seq, fmt.Sprintf("%+v %v", ev, err))
			}
			ev2, err2 := tiny.Next()
			if fmt.Sprint(err) != fmt.Sprint(err2) || !reflect.DeepEqual(ev, ev2) {
				t.Fatalf("with a 16-byte buffer: %+v, %v; want %+v, %v", ev2, err2, ev, err)
			}
			if err == io.EOF {
				break
			}
			var pe *ParseError
			if err != nil {
				if !errors.As(err, &pe) {
					t.Fatalf("not a ParseError: %v", err)
				}
				if pe.File != "f.orca" || pe.Line != ev.Line || !strings.HasPrefix(pe.Error(), fmt.Sprintf("f.orca:%d: ", pe.Line)) {
					t.Fatalf("bad error %q (event line %d)", pe.Error(), ev.Line)
				}
				checkLine(t, "error", pe.Line, last, lines)
				last = pe.Line
				continue
			}
			checkLine(t, "event", ev.Line, last, lines)
			last = ev.Line
			// What the reader accepts, the format's writer gives back
			// unchanged, but for invalid UTF-8 in a name, which it repairs.
			enc := encodeEvent(ev)
			ev.Name = strings.ToValidUTF8(ev.Name, "\uFFFD")
			ev.Class = strings.ToValidUTF8(ev.Class, "\uFFFD")
			// A reader sized to the line: NewEvents' 256 KiB buffer per
			// event made an input of a few thousand lines cost a second,
			// and the fuzzer spent its time minimizing such inputs at 0
			// execs/sec (issue 12).
			again, err := (&Events{rr: newRecords(bytes.NewReader(enc), "again", max(16, len(enc)))}).Next()
			if err != nil {
				t.Fatalf("re-reading %q (from line %d): %v", enc, ev.Line, err)
			}
			again.Line = ev.Line
			if !reflect.DeepEqual(again, ev) {
				t.Fatalf("re-reading %q: got %+v, want %+v", enc, again, ev)
			}
		}
		if tiny.Truncated() != evs.Truncated() {
			t.Fatal("truncation depends on the buffer size")
		}
		if evs.Truncated() && len(data) > 0 && data[len(data)-1] == '\n' {
			t.Fatal("truncated, but the input ends with a newline")
		}
		if _, err := evs.Next(); err != io.EOF {
			t.Fatalf("after the end: %v", err)
		}
		for _, chunk := range []int{1, 5, 64} {
			checkEach(t, data, EachOptions{Workers: 3, ChunkSize: chunk}, seq, evs.Truncated())
		}
		// Open refuses a file as not a recording exactly when its first
		// record is malformed, or it is one line cut short that cannot
		// begin an event.
		err := checkHeadBytes(data, "f.orca")
		var nr *NotRecordingError
		if err != nil && !errors.As(err, &nr) {
			t.Fatalf("checkHeadBytes: %v", err)
		}
		firstBad := len(seq) > 0 && !strings.HasSuffix(seq[0], " <nil>") && !isCompact(data)
		if firstBad != (nr != nil && nr.Err != nil) || nr != nil && (!evs.Truncated() || len(seq) > 0) && nr.Err == nil {
			t.Fatalf("checkHeadBytes: %v; the first record: %v", err, seq)
		}
	})
}

// FuzzPlain checks the fast path of the event decoder against the general
// one: on each line without quotes, parsePlain must accept exactly the
// events that split and parseEvent accept, decode them alike, and leave a
// stack cache as parseEvent does.
func FuzzPlain(f *testing.F) {
	addSeeds(f, "orca")
	f.Add([]byte("1.5,MonitorContendedEnter,0000000A,0000BEEF,0000000B,2;00000001;00000002;00000003;FFFFFFFF\n1.6,ThreadStarted,0000000A,main,x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := newRecords(bytes.NewReader(nil), "f.orca", 16)
		fast, slow := newStackCache(), newStackCache()
		var fastChunk, slowChunk chunkStacks
		fast.begin(&fastChunk)
		slow.begin(&slowChunk)
		for _, line := range bytes.Split(data, []byte{'\n'}) {
			if len(line) == 0 || bytes.IndexByte(line, '"') >= 0 {
				continue
			}
			for _, sc := range []*stackCache{nil, fast} {
				var ev Event
				ok := parsePlain(&ev, line, sc)
				want, msg := Event{}, ""
				n, _ := r.split(line, false)
				if sc == nil {
					want, msg = parseEvent(r.fields, n, nil)
				} else {
					want, msg = parseEvent(r.fields, n, slow)
				}
				if ok != (msg == "") {
					t.Fatalf("%q: parsePlain ok=%v, parseEvent %q", line, ok, msg)
				}
				if ok && !reflect.DeepEqual(ev, want) {
					t.Fatalf("%q: parsePlain %+v, parseEvent %+v", line, ev, want)
				}
			}
			if !bytes.Equal(fast.seen.keys, slow.seen.keys) || !reflect.DeepEqual(fast.seen.ends, slow.seen.ends) || !reflect.DeepEqual(fastChunk.uniq, slowChunk.uniq) || !reflect.DeepEqual(fastChunk.ents, slowChunk.ents) {
				t.Fatalf("%q: stack caches differ: %v, %v", line, fastChunk.uniq, slowChunk.uniq)
			}
		}
	})
}

// checkEach fails unless EachEventAt returns what Next did: seq, one
// entry per event or malformed line.
func checkEach(t *testing.T, data []byte, opt EachOptions, seq []string, truncated bool) {
	t.Helper()
	var got []string
	opt.Malformed = func(pe *ParseError) {
		got = append(got, fmt.Sprintf("%+v %v", Event{Line: pe.Line}, pe))
	}
	done := int64(-1)
	opt.Progress = func(n int64) {
		if n < done || n > int64(len(data)) {
			t.Fatalf("progress %d after %d (of %d bytes)", n, done, len(data))
		}
		done = n
	}
	tr, err := EachEventAt(bytes.NewReader(data), int64(len(data)), "f.orca", opt, func(ev *Event) error {
		got = append(got, fmt.Sprintf("%+v %v", *ev, nil))
		return nil
	})
	if err != nil {
		t.Fatalf("EachEventAt, chunks of %d: %v", opt.ChunkSize, err)
	}
	if tr != truncated {
		t.Errorf("EachEventAt, chunks of %d: truncated %v, want %v", opt.ChunkSize, tr, truncated)
	}
	for i := range max(len(got), len(seq)) {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(seq) {
			w = seq[i]
		}
		if g != w {
			t.Fatalf("EachEventAt, chunks of %d: result %d:\n got %s\nwant %s", opt.ChunkSize, i, g, w)
		}
	}
}

func FuzzMethods(f *testing.F) {
	addSeeds(f, "methods", "classtable")
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte{'\n'}) + 1
		check := func(errs []error) {
			for _, err := range errs {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("not a ParseError: %v", err)
				}
				if pe.Line < 1 || pe.Line > lines {
					t.Fatalf("%v: line out of 1..%d", err, lines)
				}
			}
		}
		ms, errs := ReadMethods(bytes.NewReader(data), "f.methods")
		check(errs)
		cs, errs := ReadClasses(bytes.NewReader(data), "f.classtable")
		check(errs)
		ReadInfo(bytes.NewReader(data))
		r := &Recording{Methods: ms, Classes: cs}
		for id, m := range ms {
			if m.ID != id {
				t.Fatalf("method %v filed under %v", m.ID, id)
			}
			if !slices.IsSortedFunc(m.Lines, func(a, b LineEntry) int { return int(int64(a.Start) - int64(b.Start)) }) {
				t.Fatalf("method %v: line table not sorted: %v", id, m.Lines)
			}
			for _, loc := range []uint32{0, 1, 0x7FFFFFFF, format.NoLocation} {
				r.Resolve(format.Frame{Method: id, Location: loc})
			}
			for _, e := range m.Lines {
				if e.Start == format.NoLocation {
					continue
				}
				first := m.Lines[slices.IndexFunc(m.Lines, func(o LineEntry) bool { return o.Start == e.Start })]
				if _, line := r.Line(format.Frame{Method: id, Location: e.Start}); line != int(first.Line) {
					t.Fatalf("method %v: line %d at start %#x of %v", id, line, e.Start, m.Lines)
				}
			}
		}
	})
}

// encodeEvent writes ev with the format's writer (the agent's encoding).
func encodeEvent(ev Event) []byte {
	return format.AppendEvent(nil, &format.Event{Time: ev.Time, Kind: ev.Kind, Thread: ev.Thread, Object: ev.Object,
		Target: ev.Target, Owner: ev.Owner, Name: ev.Name, Stack: ev.Stack, Timeout: ev.Timeout, How: ev.How, Class: ev.Class, Mode: ev.Mode,
		Sampled: ev.Sampled, Weight: ev.Weight, CPU: ev.CPU, Ready: ev.Ready, Depth: ev.Depth, Lock: ev.Lock()})
}
