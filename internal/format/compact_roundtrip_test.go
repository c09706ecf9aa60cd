package format_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// The compact encoding against the text: the same events written both
// ways read back as the same reader.Events (every kind, every field), and
// the compact file converted back to text is the text file, byte for byte.

// writeEvents writes evs to one .orca in the given encoding.
func writeEvents(t *testing.T, evs []format.Event, opt format.Options) []byte {
	t.Helper()
	var b bytes.Buffer
	w := format.NewWriterOptions(format.Files{Prefix: "rt", Events: &b}, opt)
	for i := range evs {
		if err := w.Event(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if w.Written.EventBytes != int64(b.Len()) {
		t.Errorf("Written.EventBytes = %d, .orca has %d", w.Written.EventBytes, b.Len())
	}
	return b.Bytes()
}

// readNext renders every event Next returns; lines tells whether to keep
// Line (text lines and compact event numbers differ when a name holds a
// line break).
func readNext(t *testing.T, data []byte, lines bool) []reader.Event {
	t.Helper()
	var out []reader.Event
	evs := reader.NewEvents(bytes.NewReader(data), "rt.orca")
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !lines {
			ev.Line = 0
		}
		out = append(out, ev)
	}
	if evs.Truncated() {
		t.Fatal("truncated")
	}
	return out
}

// readEach renders every event EachEventAt hands over, numbering stacks.
func readEach(t *testing.T, data []byte, opt reader.EachOptions) []string {
	t.Helper()
	var out []string
	opt.Stacks = reader.NewStackTable()
	opt.Malformed = func(pe *reader.ParseError) { t.Fatalf("malformed: %v", pe) }
	tr, err := reader.EachEventAt(bytes.NewReader(data), int64(len(data)), "rt.orca", opt, func(ev *reader.Event) error {
		e := *ev
		e.Line = 0
		out = append(out, fmt.Sprintf("%+v", e))
		return nil
	})
	if err != nil || tr {
		t.Fatalf("EachEventAt: %v, truncated %v", err, tr)
	}
	return out
}

// toFormat is what export --format seed writes for ev.
func toFormat(ev reader.Event) format.Event {
	return format.Event{Time: ev.Time, Kind: ev.Kind, Thread: ev.Thread, Object: ev.Object, Target: ev.Target, Owner: ev.Owner,
		Name: ev.Name, Stack: ev.Stack, Timeout: ev.Timeout, How: ev.How, Class: ev.Class, Mode: ev.Mode,
		Sampled: ev.Sampled, Weight: ev.Weight, CPU: ev.CPU, Ready: ev.Ready, Depth: ev.Depth, Lock: ev.Lock()}
}

func TestCompactRoundTrip(t *testing.T) {
	for seed := range uint64(30) {
		c := randomRecording(rand.New(rand.NewPCG(seed, 0x0DCA)))
		// Stacks repeat in a recording: give some events the stack of an
		// earlier one, some with Stack only, some with EncodedStack only.
		r := rand.New(rand.NewPCG(seed, 1))
		for i := range c.events {
			e := &c.events[i]
			if !e.Kind.Has(format.FStack) {
				continue
			}
			if j := r.IntN(i + 1); j < i && c.events[j].Kind.Has(format.FStack) && r.IntN(2) == 0 {
				e.Stack, e.EncodedStack = c.events[j].Stack, ""
			}
			if e.EncodedStack != "" && r.IntN(2) == 0 {
				e.Stack = nil
			}
		}
		text := writeEvents(t, c.events, format.Options{})
		want := readNext(t, text, false)
		wantEach := readEach(t, text, reader.EachOptions{Workers: 1})
		for _, chunk := range []int{0, 1, 300} {
			compact := writeEvents(t, c.events, format.Options{Encoding: format.EncodingCompact, ChunkBytes: chunk})
			got := readNext(t, compact, true)
			if len(got) != len(want) {
				t.Fatalf("seed %d, chunks of %d: %d events, want %d", seed, chunk, len(got), len(want))
			}
			var back []format.Event
			for i := range got {
				if got[i].Line != i+1 {
					t.Fatalf("seed %d: event %d has Line %d", seed, i, got[i].Line)
				}
				got[i].Line = 0
				if fmt.Sprintf("%+v", got[i]) != fmt.Sprintf("%+v", want[i]) {
					t.Fatalf("seed %d, chunks of %d, event %d:\n got %+v\nwant %+v", seed, chunk, i, got[i], want[i])
				}
				back = append(back, toFormat(got[i]))
			}
			if again := writeEvents(t, back, format.Options{}); !bytes.Equal(again, text) {
				t.Fatalf("seed %d, chunks of %d: compact to text differs from the text", seed, chunk)
			}
			for _, opt := range []reader.EachOptions{{Workers: 1}, {Workers: 3, ChunkSize: 1}, {Workers: 2, ChunkSize: 700}} {
				gotEach := readEach(t, compact, opt)
				if fmt.Sprint(gotEach) != fmt.Sprint(wantEach) {
					for i := range min(len(gotEach), len(wantEach)) {
						if gotEach[i] != wantEach[i] {
							t.Fatalf("seed %d, chunks of %d, EachEventAt %+v, event %d:\n got %s\nwant %s", seed, chunk, opt, i, gotEach[i], wantEach[i])
						}
					}
					t.Fatalf("seed %d, chunks of %d, EachEventAt %+v: %d events, want %d", seed, chunk, opt, len(gotEach), len(wantEach))
				}
			}
		}
	}
}
