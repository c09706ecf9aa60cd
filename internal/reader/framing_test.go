package reader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"orca/internal/format"
)

// The framing of the compact encoding's version 3 (docs/format.md, "The
// format as a contract"): each chunk closed by a trailer (its bytes, event
// records, time span, CRC-32C), each kind described in the chunk before its
// first record, so that a torn or corrupt chunk is told, with counts, and a
// record of a kind the reader does not know is skipped and told.

// framed is a compact recording of every kind (testdata/kinds.txtar), in
// chunks of about size bytes, the last one closed.
func framed(t testing.TB, size int) []byte {
	ar, err := os.ReadFile("testdata/kinds.txtar")
	if err != nil {
		t.Fatal(err)
	}
	_, orca, _ := bytes.Cut(ar, []byte("\n-- orca --\n"))
	orca, _, ok := bytes.Cut(orca, []byte("\n-- "))
	if !ok {
		t.Fatal("kinds.txtar: no orca section")
	}
	return compactOf(t, unescape(append(orca, '\n')), size)
}

// readFramed reads b with Next, and with EachEventAt in small pieces on 3
// workers: the events (each as a line, without Line, which counts the
// events read) and what was told (malformed records, a cut last record, an
// unclosed last chunk, a read error).
func readFramed(t *testing.T, b []byte) (events, told []string) {
	t.Helper()
	evs := NewEvents(bytes.NewReader(b), "f.orca")
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		if pe, ok := err.(*ParseError); ok {
			told = append(told, pe.Error())
			continue
		}
		if err != nil {
			told = append(told, err.Error())
			break
		}
		events = append(events, eventLine(&ev))
	}
	if evs.Truncated() {
		told = append(told, "truncated")
	}
	if evs.Unclosed() {
		told = append(told, "unclosed")
	}
	// EachEvent cuts the file at chunk markers: the same events and, when
	// Next told something, something told too.
	var each, eachTold []string
	eachUnclosed := false
	truncated, err := EachEventAt(bytes.NewReader(b), int64(len(b)), "f.orca",
		EachOptions{Workers: 3, ChunkSize: 64, Malformed: func(pe *ParseError) { eachTold = append(eachTold, pe.Error()) },
			Unclosed: func() { eachUnclosed = true }},
		func(ev *Event) error { each = append(each, eventLine(ev)); return nil })
	if err != nil {
		eachTold = append(eachTold, err.Error())
	}
	if truncated {
		eachTold = append(eachTold, "truncated")
	}
	if len(told) == 0 && (strings.Join(each, "\n") != strings.Join(events, "\n") || len(eachTold) > 0) {
		t.Errorf("Next read %d events, told nothing; EachEvent %d, told %q", len(events), len(each), eachTold)
	}
	// A file that ends in a chunk without its trailer, and is whole else,
	// is told unclosed by both (EachOptions.Unclosed).
	if (len(told) == 0 || len(told) == 1 && told[0] == "unclosed") && eachUnclosed != evs.Unclosed() {
		t.Errorf("Next: unclosed %v; EachEvent: unclosed %v", evs.Unclosed(), eachUnclosed)
	}
	return events, told
}

func eventLine(e *Event) string {
	return fmt.Sprintf("%d %s %v %08X %v %v %q %d %d %q %d %v %v", e.Time, e.Kind, e.Thread, uint32(e.Object), e.Target, e.Owner,
		e.Name, e.Timeout, e.How, e.Class, e.Mode, e.Carried, e.Stack)
}

// chunkSpans returns each chunk's [start, end) in b: from its marker to
// the end of its trailer.
func chunkSpans(b []byte) [][2]int {
	var spans [][2]int
	marker := []byte(format.ChunkMarker)
	for i := bytes.Index(b, marker); i >= 0; {
		j := bytes.Index(b[i+1:], marker)
		end := len(b)
		if j >= 0 {
			end = i + 1 + j
		}
		spans = append(spans, [2]int{i, end})
		if j < 0 {
			break
		}
		i = end
	}
	return spans
}

// TestChunkDamage: every byte of a recording flipped (one bit, all bits)
// or zeroed, every run of 1-8 bytes zeroed, the file cut at every byte: the
// reader reads what it read before, or tells (a malformed record, a torn or
// corrupt chunk with its counts, a cut last record, an unclosed chunk);
// never a different recording silently. A cut between two chunks leaves
// whole chunks: .info's counts tell it (TestChunkCutWhole).
func TestChunkDamage(t *testing.T) {
	orig := framed(t, 128)
	spans := chunkSpans(orig)
	if len(spans) < 4 {
		t.Fatalf("%d chunks, want several", len(spans))
	}
	want, told := readFramed(t, orig)
	if len(told) > 0 || len(want) < 15 {
		t.Fatalf("the recording: %d events, told %q", len(want), told)
	}
	boundary := map[int]bool{0: true, len(format.CompactHeader): true} // an empty file, a header alone: no chunk
	for _, s := range spans {
		boundary[s[1]] = true
	}
	check := func(what string, b []byte, cutWhole bool) {
		got, told := readFramed(t, b)
		if strings.Join(got, "\n") == strings.Join(want, "\n") || len(told) > 0 {
			return
		}
		if cutWhole && len(got) <= len(want) && strings.Join(got, "\n") == strings.Join(want[:len(got)], "\n") {
			return // whole chunks, the rest gone: .info tells it
		}
		t.Errorf("%s: %d events read (of %d), nothing told", what, len(got), len(want))
	}
	for i := range orig {
		for _, x := range []byte{0x01, 0x80, 0xFF} {
			b := bytes.Clone(orig)
			b[i] ^= x
			check(fmt.Sprintf("byte %d ^ %02X", i, x), b, false)
		}
		for n := 1; n <= 8 && i+n <= len(orig); n++ {
			b := bytes.Clone(orig)
			clear(b[i : i+n])
			check(fmt.Sprintf("bytes %d-%d zeroed", i, i+n-1), b, false)
		}
		check(fmt.Sprintf("cut at %d", i), orig[:i], boundary[i])
	}
}

// TestChunkCutWhole: a file cut between two chunks reads its whole chunks,
// and a recording whose .info says the JVM ended normally says the file is
// cut, with the counts.
func TestChunkCutWhole(t *testing.T) {
	orig := framed(t, 128)
	spans := chunkSpans(orig)
	dir := t.TempDir()
	prefix := dir + "/cut"
	var info strings.Builder
	fmt.Fprintf(&info, "%s=%s\n%s=true\n", format.InfoFormat, format.Version, format.InfoComplete)
	counts := map[format.Kind]int{}
	evs, _ := readFramed(t, orig)
	for _, line := range evs {
		k := format.KindByName[strings.Fields(line)[1]]
		counts[k]++
	}
	for k := format.Kind(1); k < format.NumKinds; k++ {
		fmt.Fprintf(&info, "events.%s=%d\n", k, counts[k])
	}
	if err := os.WriteFile(prefix+format.SuffixInfo, []byte(info.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prefix+format.SuffixEvents, orig[:spans[1][1]], 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	var read int64
	if _, err := rec.EachEvent(EachOptions{}, func(*Event) error { read++; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := rec.CheckRead(read, 0); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("read %d of %d events: the file is cut", read, len(evs))) {
		t.Errorf("two chunks of %d, %d events of %d: %v", len(spans), read, len(evs), err)
	}
}

// retrail replaces the trailer of chunk c (from its marker to the end of
// its trailer) with the one a writer of its bytes wrote: extra more
// records, its bytes and checksum.
func retrail(t *testing.T, c []byte, extra uint64) []byte {
	t.Helper()
	// The trailer is the chunk's last record: find it from its fields'
	// end (a u32 checksum after four varints).
	for at := len(c) - 9; at > 0; at-- {
		if c[at] != format.TagTrailer {
			continue
		}
		d := dec{b: c[:len(c)-4], i: at + 1}
		size, records, lo, hi := d.uv(), d.uv(), d.uv(), d.uv()
		if d.short || d.bad != "" || d.i != len(c)-4 || size == 0 {
			continue
		}
		body := c[:at]
		tr := []byte{format.TagTrailer}
		for _, v := range []uint64{uint64(len(body)), records + extra, lo, hi} {
			tr = binary.AppendUvarint(tr, v)
		}
		sum := crc32.Update(crc32.Checksum(body, format.Castagnoli), format.Castagnoli, tr)
		return append(append(bytes.Clone(body), tr...), binary.LittleEndian.AppendUint32(nil, sum)...)
	}
	t.Fatalf("no trailer in % X", c)
	return nil
}

// TestUnknownKind (forward compatibility): a recording of a newer writer
// holds records of a kind this reader does not know, described in their
// chunk, and a known kind with a field this reader does not know; it reads
// the rest exactly, and says what it skipped.
func TestUnknownKind(t *testing.T) {
	orig := framed(t, 1<<20) // one chunk
	want, told := readFramed(t, orig)
	if len(told) > 0 {
		t.Fatal(told)
	}
	spans := chunkSpans(orig)
	if len(spans) != 1 {
		t.Fatalf("%d chunks", len(spans))
	}
	c := orig[spans[0][0]:spans[0][1]]
	// Kind 100, "FutureSample": its thread, a text, an object; before the
	// chunk's first ThreadEnded, twice.
	desc := []byte{format.TagDescriptor, 100, 12}
	desc = append(desc, "FutureSample"...)
	desc = append(desc, 3, byte(format.FThread), byte(format.WireUV), 40, byte(format.WireText), byte(format.FObject), byte(format.WireU32))
	rec := []byte{format.TagEvent + 100, 0, 1, 3, 'a', 'b', 'c', 0xEF, 0xBE, 0, 0}
	at := bytes.Index(c, format.KindDescriptor(format.ThreadEnded))
	if at < 0 {
		t.Fatal("no ThreadEnded")
	}
	// And ThreadEnded as a newer writer lays it out: a field more.
	ended := format.KindDescriptor(format.ThreadEnded)
	newer := bytes.Clone(ended[:len(ended)-3])
	newer = append(newer, 2, byte(format.FThread), byte(format.WireUV), 41, byte(format.WireU32))
	// Walk the chunk's records (the reader's decoder gives each one's
	// length): the unknown kind's before ThreadEnded's descriptor, which
	// becomes the newer one, and each ThreadEnded record gains the field.
	nc := rewriteRecords(t, c, func(nc []byte, pos int, rec1 []byte) []byte {
		switch {
		case pos == at:
			nc = append(nc, desc...)
			nc = append(nc, rec...)
			nc = append(nc, rec...)
			return append(nc, newer...)
		case rec1[0] == format.TagEvent+byte(format.ThreadEnded):
			return append(append(nc, rec1...), 1, 2, 3, 4)
		}
		return append(nc, rec1...)
	})
	b := append(bytes.Clone(orig[:spans[0][0]]), retrail(t, nc, 2)...)
	got, told := readFramed(t, b)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantTold := "chunk 1: skipped records and fields unknown to this reader (a newer writer's): 2 FutureSample (kind 100), 2 field 41 of ThreadEnded"
	if len(told) != 1 || !strings.HasPrefix(told[0], "f.orca: byte ") || !strings.HasSuffix(told[0], wantTold) {
		t.Errorf("told %q, want one %q", told, wantTold)
	}
	// EachEvent's Columns (decodeRunCols, which leaves a chunk with such a
	// descriptor to next) hand on what its Batch does.
	for _, opt := range []EachOptions{{Workers: 1}, {Workers: 2, ChunkSize: 64 << 10}} {
		want, _ := eachRendered(t, b, opt, false)
		got, _ := eachRendered(t, b, opt, true)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%+v: Columns\n%s\nBatch\n%s", opt, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// FuzzFraming: a recording damaged where the fuzzer says (op 0: cut, 1:
// flip bits x, 2: zero n bytes) reads as it was or tells (TestChunkDamage's
// property, on any damage).
func FuzzFraming(f *testing.F) {
	f.Add(uint16(40), uint8(0), uint8(1))
	f.Add(uint16(100), uint8(1), uint8(0x80))
	f.Add(uint16(7), uint8(2), uint8(3))
	orig := framed(f, 96)
	f.Fuzz(func(t *testing.T, at uint16, op, x uint8) {
		want, _ := readFramed(t, orig)
		i := int(at) % len(orig)
		b := bytes.Clone(orig)
		cutWhole := false
		switch op % 3 {
		case 0:
			b = b[:i]
			for _, s := range chunkSpans(orig) {
				cutWhole = cutWhole || s[1] == i
			}
			cutWhole = cutWhole || i == 0 || i == len(format.CompactHeader)
		case 1:
			b[i] ^= x | 1
		case 2:
			clear(b[i:min(len(b), i+1+int(x%16))])
		}
		got, told := readFramed(t, b)
		if strings.Join(got, "\n") == strings.Join(want, "\n") || len(told) > 0 {
			return
		}
		if cutWhole && strings.Join(got, "\n") == strings.Join(want[:len(got)], "\n") {
			return
		}
		t.Errorf("op %d at %d x %02X: %d events read (of %d), nothing told", op%3, i, x, len(got), len(want))
	})
}

// namedEvents reads the recording at prefix: each event as a line with its
// frames named (Resolve), without Line.
func namedEvents(t *testing.T, prefix string) []string {
	t.Helper()
	r, err := Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	bad := func(pe *ParseError) { t.Errorf("%s: %v", prefix, pe) }
	if _, err := r.EachEvent(EachOptions{Malformed: bad}, func(ev *Event) error {
		if ev.Carried {
			// A chunk read alone restates the state at its start (the Go
			// writer's chunks too): facts the whole recording gave before.
			return nil
		}
		line := eventLine(ev)
		for _, f := range ev.Stack {
			line += " | " + r.Resolve(f)
		}
		out = append(out, line)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestChunkAloneNamesFrames: a recording written by format.Writer in small
// chunks, each chunk copied alone into a directory of its own (its header
// line and its bytes, no .methods nor .classtable): its events read with
// every frame named as in the whole recording, by the chunk's own
// definitions of methods and classes (docs/format.md, "Chunks that name
// their frames").
func TestChunkAloneNamesFrames(t *testing.T) {
	src, err := Open("testdata/v2/parking")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	var ev, meth, cls strings.Builder
	w := format.NewWriterOptions(format.Files{Events: &ev, Methods: &meth, Classes: &cls},
		format.Options{Encoding: format.EncodingCompact, ChunkBytes: 1500})
	for _, id := range slices.Sorted(maps.Keys(src.Classes)) {
		c := src.Classes[id]
		if err := w.Class(0, &format.Class{ID: c.ID, Signature: c.Signature, Source: c.Source}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(src.Methods)) {
		m := src.Methods[id]
		if err := w.Method(0, &format.Method{ID: m.ID, Name: m.Name, Signature: m.Signature, Class: m.Class, Lines: m.Lines}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.EachEvent(EachOptions{}, func(e *Event) error { fe := toFormat(*e); return w.Event(&fe) }); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for suffix, b := range map[string]string{format.SuffixEvents: ev.String(), format.SuffixMethods: meth.String(), format.SuffixClasses: cls.String()} {
		if err := os.WriteFile(whole+suffix, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all := namedEvents(t, whole)
	if !strings.Contains(strings.Join(all, "\n"), "java.util.concurrent.locks.LockSupport.park(") {
		t.Fatalf("the whole recording names no park frame:\n%s", strings.Join(all[:min(5, len(all))], "\n"))
	}
	spans := chunkSpans([]byte(ev.String()))
	if len(spans) < 3 {
		t.Fatalf("%d chunks, want several", len(spans))
	}
	read, framed := 0, 0
	for i, sp := range spans {
		alone := filepath.Join(dir, "alone", string(rune('a'+i%26))+strings.Repeat("x", i/26), "c")
		if err := os.MkdirAll(filepath.Dir(alone), 0o755); err != nil {
			t.Fatal(err)
		}
		b := append([]byte(format.CompactHeader), ev.String()[sp[0]:sp[1]]...)
		// Copied as a recording of its own (c.orca), or under its chunk
		// file's name (c.orca.000007), which orca reads alone too.
		name := alone
		if i%2 == 1 {
			name = fmt.Sprintf("%s%s.%06d", alone, format.SuffixEvents, i+1)
		}
		path := name
		if i%2 == 0 {
			path += format.SuffixEvents
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got := namedEvents(t, name)
		for j, g := range got {
			if read+j >= len(all) || g != all[read+j] {
				t.Fatalf("chunk %d alone, event %d:\n got %s\nwant %s", i+1, j, g, all[min(read+j, len(all)-1)])
			}
			if strings.Contains(g, " | ") {
				framed++
			}
		}
		read += len(got)
	}
	if read != len(all) || framed == 0 {
		t.Errorf("the chunks alone read %d events (%d with frames), the whole %d", read, framed, len(all))
	}
}

// TestColumnsNewerLayout: a chunk in which a newer writer lays a common
// kind out with a field more (ThreadSleep, an unknown u32 after its
// stack) is read by EachEvent's Columns as by its Batch (decodeRunCols
// leaves such a chunk to next: read as the reader's own layout, each
// record would lose its last 4 bytes).
func TestColumnsNewerLayout(t *testing.T) {
	orig := compactOf(t, synthEvents(t, 256<<10), 4<<20)
	spans := chunkSpans(orig)
	if len(spans) != 1 {
		t.Fatalf("%d chunks", len(spans))
	}
	c := orig[spans[0][0]:spans[0][1]]
	sleep := format.KindDescriptor(format.ThreadSleep)
	newer := append(bytes.Clone(sleep[:len(sleep)-5]), 3, byte(format.FThread), byte(format.WireUV),
		byte(format.FStack), byte(format.WireUV), 41, byte(format.WireU32))
	sleeps := 0
	nc := rewriteRecords(t, c, func(nc []byte, _ int, rec []byte) []byte {
		switch {
		case bytes.Equal(rec, sleep):
			return append(nc, newer...)
		case rec[0] == format.TagEvent+byte(format.ThreadSleep):
			sleeps++
			return append(append(nc, rec...), 1, 2, 3, 4)
		}
		return append(nc, rec...)
	})
	if sleeps < 10 {
		t.Fatalf("%d ThreadSleep records", sleeps)
	}
	b := append(bytes.Clone(orig[:spans[0][0]]), retrail(t, nc, 0)...)
	for _, opt := range []EachOptions{{Workers: 1}, {Workers: 2, ChunkSize: 64 << 10}} {
		want, _ := eachRendered(t, orig, opt, false)
		for _, cols := range []bool{false, true} {
			got, _ := eachRendered(t, b, opt, cols)
			// The newer chunk tells the field it skipped (the last line
			// but one, before "unclosed 0"), the events are the same.
			if len(got) != len(want)+1 || !strings.Contains(got[len(got)-2], "field 41 of ThreadSleep") {
				t.Fatalf("%+v, columns %v: %d lines (want %d and the skipped field told), last %q", opt, cols, len(got), len(want)+1, got[len(got)-2:])
			}
			got = append(got[:len(got)-2], got[len(got)-1])
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%+v, columns %v: the events differ from the writer's own layout's", opt, cols)
			}
		}
	}
}

// rewriteRecords walks chunk c's records (the reader's decoder gives each
// one's length) and returns the chunk edit makes of them: edit appends to
// nc what stands for the record rec at byte pos. The trailer is kept as
// it is (retrail makes it anew).
func rewriteRecords(t *testing.T, c []byte, edit func(nc []byte, pos int, rec []byte) []byte) []byte {
	t.Helper()
	var nc []byte
	r := &compactRecords{version: 3}
	for pos := 0; pos < len(c); {
		if c[pos] == format.TagTrailer {
			return append(nc, c[pos:]...)
		}
		var ev Event
		n, _, msg := r.decode(&ev, c[pos:])
		if n == 0 {
			t.Fatalf("byte %d of the chunk: %q", pos, msg)
		}
		nc = edit(nc, pos, c[pos:pos+n])
		pos += n
	}
	return nc
}
