package reader

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"orca/internal/format"
)

// namedEvents reads the recording at prefix: each event as a line with its
// frames named (Resolve), without Line.
func namedEvents(t *testing.T, prefix string) []string {
	t.Helper()
	r, err := Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	evs, c, err := r.Events()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out []string
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", prefix, err)
		}
		line := eventLine(&ev)
		for _, f := range ev.Stack {
			line += " | " + r.Resolve(f)
		}
		out = append(out, line)
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
	var ev, meth, cls bytes.Buffer
	w := format.NewWriterOptions(format.Files{Events: &ev, Methods: &meth, Classes: &cls},
		format.Options{Encoding: format.EncodingCompact, ChunkBytes: 1500})
	var cids []format.ClassID
	for id := range src.Classes {
		cids = append(cids, id)
	}
	sort.Slice(cids, func(i, j int) bool { return cids[i] < cids[j] })
	for _, id := range cids {
		c := src.Classes[id]
		if err := w.Class(0, &format.Class{ID: c.ID, Signature: c.Signature, Source: c.Source}); err != nil {
			t.Fatal(err)
		}
	}
	var mids []format.MethodID
	for id := range src.Methods {
		mids = append(mids, id)
	}
	sort.Slice(mids, func(i, j int) bool { return mids[i] < mids[j] })
	for _, id := range mids {
		m := src.Methods[id]
		if err := w.Method(0, &format.Method{ID: m.ID, Name: m.Name, Signature: m.Signature, Class: m.Class, Lines: m.Lines}); err != nil {
			t.Fatal(err)
		}
	}
	evs, c, err := src.Events()
	if err != nil {
		t.Fatal(err)
	}
	for {
		e, err := evs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		fe := toFormat(e)
		if err := w.Event(&fe); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for suffix, b := range map[string][]byte{format.SuffixEvents: ev.Bytes(), format.SuffixMethods: meth.Bytes(), format.SuffixClasses: cls.Bytes()} {
		if err := os.WriteFile(whole+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all := namedEvents(t, whole)
	if !strings.Contains(strings.Join(all, "\n"), "java.util.concurrent.locks.LockSupport.park(") {
		t.Fatalf("the whole recording names no park frame:\n%s", strings.Join(all[:min(5, len(all))], "\n"))
	}
	spans := chunkSpans(ev.Bytes())
	if len(spans) < 3 {
		t.Fatalf("%d chunks, want several", len(spans))
	}
	read, framed := 0, 0
	for i, sp := range spans {
		alone := filepath.Join(dir, "alone", string(rune('a'+i%26))+strings.Repeat("x", i/26), "c")
		if err := os.MkdirAll(filepath.Dir(alone), 0o755); err != nil {
			t.Fatal(err)
		}
		b := append([]byte(format.CompactHeader), ev.Bytes()[sp[0]:sp[1]]...)
		if err := os.WriteFile(alone+format.SuffixEvents, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got := namedEvents(t, alone)
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
