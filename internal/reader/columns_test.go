package reader

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"orca/internal/format"
)

// eachRendered renders what EachEventAt hands on with opt, one entry per
// event or malformed line, in order: by Batch, or by Columns (each row
// made an Event again) when cols. It checks that the dense thread numbers
// are given in order of first appearance.
func eachRendered(t *testing.T, data []byte, opt EachOptions, cols bool) (seq []string, truncated bool) {
	t.Helper()
	return eachRenderedDense(t, data, opt, cols, true)
}

// eachRenderedDense is eachRendered, its check of the dense numbers' order
// made only when dense (FuzzCompact: a chunk with a malformed record can
// number a thread before one whose row comes first, a known exception).
func eachRenderedDense(t *testing.T, data []byte, opt EachOptions, cols, dense bool) (seq []string, truncated bool) {
	t.Helper()
	opt.Stacks = NewStackTable()
	opt.Malformed = func(pe *ParseError) { seq = append(seq, "malformed "+pe.Error()) }
	unclosed := 0
	opt.Unclosed = func() { unclosed++ }
	render := func(ev *Event) string {
		return fmt.Sprintf("%+v", *ev)
	}
	if cols {
		seen := 0
		opt.Columns = func(c *Columns) error {
			var ev Event
			for i := range c.Len() {
				if d := int(c.Thread[i]); dense && d >= seen {
					if d != seen {
						t.Fatalf("row %d: dense thread %d, want at most %d", i, d, seen)
					}
					seen++
				}
				c.Event(i, &ev)
				if ev.StackID != 0 && !reflect.DeepEqual(ev.Stack, opt.Stacks.Frames[ev.StackID]) {
					t.Fatalf("row %d: stack %d is not the table's", i, ev.StackID)
				}
				seq = append(seq, render(&ev))
			}
			return nil
		}
	} else {
		opt.Batch = func(evs []Event) error {
			for i := range evs {
				seq = append(seq, render(&evs[i]))
			}
			return nil
		}
	}
	tr, err := EachEventAt(bytes.NewReader(data), int64(len(data)), "f.orca", opt, nil)
	if err != nil {
		seq = append(seq, "error "+err.Error())
	}
	seq = append(seq, fmt.Sprintf("unclosed %d", unclosed))
	return seq, tr
}

// TestColumnsSame checks EachOptions.Columns against Batch: the same
// events, field for field, with the malformed lines in the same places,
// in both encodings, spoiled and cut, in chunks of every size and with a
// caller's Buffers (stream).
func TestColumnsSame(t *testing.T) {
	text := synthEvents(t, 2<<20)
	lines := strings.SplitAfter(string(text), "\n")
	for i := 500; i < len(lines); i += 1000 {
		lines[i] = `1.0,ThreadStarted,00000001,"x` + "\n" + `1.0,ThreadEnded,5"` + "\n"
	}
	lines[3000] = "garbage\n"
	spoiled := strings.Join(lines, "")
	spoiled = spoiled[:len(spoiled)-7]
	compact := compactOf(t, text, 64<<10)
	bad := bytes.Clone(compact)
	for i := 40_000; i < len(bad); i += 97_000 {
		bad[i] ^= 0x5A // a spoiled byte: a malformed record, its chunk skipped to the next
	}
	cases := map[string][]byte{
		"text": text, "spoiled": []byte(spoiled), "compact": compact, "compact-bad": bad,
		"compact-cut": compact[:len(compact)-1000],
	}
	for name, data := range cases {
		for _, opt := range []EachOptions{
			{Workers: 1},
			{Workers: 2, ChunkSize: 64 << 10},
			{Workers: 3, ChunkSize: 5000},
			{Workers: 1, Buffers: &Buffers{}},
			{Workers: 2, Buffers: &Buffers{}},
		} {
			want, wt := eachRendered(t, data, opt, false)
			got, gt := eachRendered(t, data, opt, true)
			if wt != gt {
				t.Errorf("%s %+v: truncated %v, want %v", name, opt, gt, wt)
			}
			if len(got) != len(want) {
				t.Errorf("%s %+v: %d entries, want %d", name, opt, len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Errorf("%s %+v: entry %d:\n got %s\nwant %s", name, opt, i, got[i], want[i])
					break
				}
			}
		}
	}
}

// TestColumnsFields checks that a row keeps every field of its kind:
// an event of each kind with every field it has set to a value of its own
// reads back the same by Columns.
func TestColumnsFields(t *testing.T) {
	var c Columns
	c.Threads = []format.ThreadID{0x1234}
	c.Frames = [][]format.Frame{nil, {{Method: 7, Location: 3}}}
	for k := format.Kind(1); k < format.NumKinds; k++ {
		ev := Event{Kind: k, Time: 99, Thread: 0x1234, Line: 42, Carried: k%2 == 0}
		for _, f := range format.Specs[k].Fields {
			switch f {
			case format.FObject:
				ev.Object = 0xABCD
			case format.FTarget:
				ev.Target = 0x1_0000_5555
			case format.FOwner:
				ev.Owner = 0x2_0000_6666
			case format.FLock:
				ev.Owner = 0x7777
			case format.FName:
				ev.Name = "a name"
			case format.FClass:
				ev.Class = "LClass;"
			case format.FStack:
				ev.StackID, ev.Stack = 1, c.Frames[1]
			case format.FTimeout:
				ev.Timeout = 123456
			case format.FHow:
				ev.How = format.NumParkEnds - 1
			case format.FMode:
				ev.Mode = format.NumModes - 1
			case format.FSampled:
				ev.Sampled = format.NumSampleKinds - 1
			case format.FWeight:
				ev.Weight = 1 << 40
			case format.FCPU:
				ev.CPU = 1<<50 + 3
			case format.FReady:
				ev.Ready = 1<<45 + 5
			case format.FDepth:
				ev.Depth = 17
			}
		}
		c.reset()
		c.add(&ev, 0)
		var got Event
		c.Event(0, &got)
		if !reflect.DeepEqual(got, ev) {
			t.Errorf("%s:\n got %+v\nwant %+v", k, got, ev)
		}
	}
}
