package format_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"testing"

	"orca/internal/format"
)

// trailer is the trailer of a chunk of bytes chunk holding records event
// records from lo to hi ns (format.TagTrailer).
func trailer(chunk string, records, lo, hi uint64) string {
	b := []byte{format.TagTrailer}
	for _, v := range []uint64{uint64(len(chunk)), records, lo, hi} {
		b = binary.AppendUvarint(b, v)
	}
	crc := crc32.Checksum(append([]byte(chunk), b...), crc32.MakeTable(crc32.Castagnoli))
	return string(binary.LittleEndian.AppendUint32(b, crc))
}

// d is a kind's descriptor (format.TagDescriptor).
func d(k format.Kind) string { return string(format.KindDescriptor(k)) }

// TestKindDescriptor pins a descriptor's bytes: the kind, its name, per
// field its code and wire type (format.FieldWire).
func TestKindDescriptor(t *testing.T) {
	want := "\x06\x11\x0aThreadPark\x06" + "\x01\x01" + "\x02\x03" + "\x04\x03" + "\x07\x01" + "\x0a\x04" + "\x06\x01"
	if got := d(format.ThreadPark); got != want {
		t.Errorf("got % X, want % X", got, want)
	}
}

// TestCompactBytes pins the compact encoding's bytes (docs/format.md, "The
// compact encoding"): the header, a chunk, thread and stack definitions
// before their first use, a kind's descriptor before its first record,
// signed time deltas, the fields in table order, the trailer.
func TestCompactBytes(t *testing.T) {
	var b bytes.Buffer
	w := format.NewWriterOptions(format.Files{Events: &b}, format.Options{Encoding: format.EncodingCompact})
	st := []format.Frame{{Method: 0x1F, Location: 4}, {Method: 2, Location: format.NoLocation}}
	w.Event(&format.Event{Time: 1000, Kind: format.ThreadStarted, Thread: 0xA, Name: "main"})
	w.Event(&format.Event{Time: 1500, Kind: format.MonitorContendedEnter, Thread: 0xA, Object: 0xB, EncodedStack: format.EncodeStack(st)})
	w.Event(&format.Event{Time: 1400, Kind: format.ThreadPark, Thread: 0xC, Timeout: -1, Mode: format.ModeExclusive})
	w.Event(&format.Event{Time: 1400, Kind: format.MonitorContendedEntered, Thread: 0xA, Object: 0xB, Stack: st})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	chunk := "ORCACHNK" + "\x01\x01\xe8\x07" + // chunk 1 at 1000 ns
		"\x02\x01\x0a\x00\x00\x00" + // thread 1 is 0000000A
		d(format.ThreadStarted) + "\x1f\x00\x01\x04main" + // ThreadStarted, +0, thread 1, "main"
		"\x03\x01\x02\x1f\x05\x02\x00" + // stack 1: 2 frames, 1F at 4, 2 native
		d(format.MonitorContendedEnter) + "\x1d\xe8\x07\x01\x0b\x00\x00\x00\x00\x00\x00\x00\x01" + // MonitorContendedEnter, +500, thread 1, object, owner, stack 1
		"\x02\x02\x0c\x00\x00\x00" + // thread 2 is 0000000C
		d(format.ThreadPark) + "\x21\xc7\x01\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00" + // ThreadPark, -100, thread 2, object, owner, no timeout, exclusive, no stack
		d(format.MonitorContendedEntered) + "\x1e\x00\x01\x0b\x00\x00\x00\x01" // MonitorContendedEntered, +0, thread 1, object, stack 1 (Stack, not EncodedStack: the same)
	want := "orca-compact 3\n" + chunk + trailer(chunk, 4, 1000, 1500)
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", hex.Dump([]byte(got)), hex.Dump([]byte(want)))
	}
	if w.Written.EventBytes != int64(b.Len()) || w.Written.Events[format.ThreadPark] != 1 {
		t.Errorf("Written = %+v", w.Written)
	}

	// Two threads of one identity hash: the second (rank 1) is named by an alias key, defined in
	// each chunk before the first record that names it, as the event's thread or as a target.
	b.Reset()
	w = format.NewWriterOptions(format.Files{Events: &b}, format.Options{Encoding: format.EncodingCompact, ChunkBytes: 1})
	second := format.NewThreadID(0x5CDA6869, 1)
	w.Event(&format.Event{Time: 10, Kind: format.ThreadStart, Thread: 0x5CDA6869, Target: second})
	w.Event(&format.Event{Time: 20, Kind: format.ThreadStarted, Thread: second, Name: "v"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c1 := "ORCACHNK" + "\x01\x01\x0a" + // chunk 1 at 10 ns
		"\x05\x01\x00\x00\x80\x69\x68\xda\x5c\x01" + // alias 80000001 is 5CDA6869 rank 1
		"\x02\x01\x69\x68\xda\x5c" + // thread 1 is 5CDA6869
		d(format.ThreadStart) + "\x15\x00\x01\x01\x00\x00\x80\x00" // ThreadStart, +0, thread 1, target 80000001, no stack
	c2 := "ORCACHNK" + "\x01\x02\x14" + // chunk 2 at 20 ns
		"\x05\x01\x00\x00\x80\x69\x68\xda\x5c\x01" + // the alias again
		"\x02\x01\x01\x00\x00\x80" + // thread 1 is 80000001
		d(format.ThreadStarted) + "\x1f\x00\x01\x01v" // ThreadStarted, +0, thread 1, "v"
	want = "orca-compact 3\n" + c1 + trailer(c1, 1, 10, 10) + c2 + trailer(c2, 1, 20, 20)
	if got := b.String(); got != want {
		t.Errorf("aliases: got\n%s\nwant\n%s", hex.Dump([]byte(got)), hex.Dump([]byte(want)))
	}

	// A bad stack text is refused, and nothing is written.
	b.Reset()
	w = format.NewWriterOptions(format.Files{Events: &b}, format.Options{Encoding: format.EncodingCompact})
	if err := w.Event(&format.Event{Time: 1, Kind: format.ThreadSleep, Thread: 1, EncodedStack: "2;1;2"}); err == nil || b.Len() != 0 {
		t.Errorf("a bad stack: %v, wrote %q", err, b.String())
	}
}

func TestParseStack(t *testing.T) {
	for _, s := range []string{"0", "1;1F;4", "2;0000001F;00000004;00000002;FFFFFFFF", "3;a;b;c;d;e;f"} {
		fr, ok := format.ParseStack(s)
		if !ok {
			t.Errorf("%q: not parsed", s)
			continue
		}
		if again, _ := format.ParseStack(format.EncodeStack(fr)); len(again) != len(fr) {
			t.Errorf("%q: %v", s, fr)
		}
	}
	for _, s := range []string{"", "x", "1", "1;", "1;1", "1;1;", "1;1;2;", "1;1;2;3", "0;", "2;1;2", "1;123456789;1", "1;g;1", "-1"} {
		if fr, ok := format.ParseStack(s); ok {
			t.Errorf("%q: parsed as %v", s, fr)
		}
	}
}
