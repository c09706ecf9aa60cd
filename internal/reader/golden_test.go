package reader

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"orca/internal/linediff"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
)

var update = flag.Bool("update", false, "rewrite the expect sections of testdata/*.txtar")

// The golden cases are testdata/*.txtar archives. Sections orca, methods,
// classtable and info become test.orca, test.methods, … (a section left out
// is a missing file); expect is what the reader makes of them (see dump).
// txtar cannot hold every byte, so in those sections "<CR>" stands for a
// carriage return and a last line "<EOF>" means the file ends without a
// newline.

func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	kinds := map[format.Kind]bool{}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := dump(t, ar, kinds)
			i := slices.IndexFunc(ar.Files, func(f txtar.File) bool { return f.Name == "expect" })
			if *update {
				if i < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "expect"})
					i = len(ar.Files) - 1
				}
				ar.Files[i].Data = []byte(got)
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if i < 0 {
				t.Fatal("no expect section; run go test -update")
			}
			if want := string(ar.Files[i].Data); got != want {
				t.Errorf("got:\n%s\nwant:\n%s\ndiff (run go test -update to accept):\n%s", got, want, linediff.Lines(want, got))
			}
		})
	}
	for k := format.Kind(1); k < format.NumKinds; k++ {
		if !kinds[k] {
			t.Errorf("no golden case decodes a %s event", k)
		}
	}
}

// unescape turns a txtar section into file contents.
func unescape(b []byte) []byte {
	s := strings.ReplaceAll(string(b), "<CR>", "\r")
	if t, ok := strings.CutSuffix(s, "\n<EOF>\n"); ok {
		s = t
	}
	return []byte(s)
}

// dump opens the case's recording and renders everything the reader
// returns: warnings, info, each event with its resolved stack, each error,
// and whether the last line was cut.
func dump(t *testing.T, ar *txtar.Archive, kinds map[format.Kind]bool) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range ar.Files {
		if f.Name == "expect" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, "test."+f.Name), unescape(f.Data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := Open(filepath.Join(dir, "test"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, w := range rec.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	if rec.Info == nil {
		b.WriteString("info: none\n")
	}
	keys := make([]string, 0, len(rec.Info))
	for k := range rec.Info {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "info: %s=%q\n", k, rec.Info[k])
	}

	evs, c, err := rec.Events()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	last := 0
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("read error: %v", err)
		}
		if ev.Line <= last {
			t.Errorf("line %d reported after line %d", ev.Line, last)
		}
		last = ev.Line
		if pe != nil {
			if pe.Line != ev.Line {
				t.Errorf("error at line %d, event at line %d", pe.Line, ev.Line)
			}
			fmt.Fprintf(&b, "error: %v\n", err)
			continue
		}
		kinds[ev.Kind] = true
		b.WriteString(eventText(ev))
		for _, f := range ev.Stack {
			fmt.Fprintf(&b, "    %s\n", rec.Resolve(f))
		}
	}
	if evs.Truncated() {
		b.WriteString("truncated\n")
	}
	return strings.ReplaceAll(b.String(), dir+string(filepath.Separator), "")
}

// eventText renders the fields an event's kind carries.
func eventText(ev Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d: %d.%09d %s", ev.Line, ev.Time/1e9, ev.Time%1e9, ev.Kind)
	for _, f := range format.Specs[ev.Kind].Fields {
		switch f {
		case format.FThread:
			fmt.Fprintf(&b, " thread=%v", ev.Thread)
		case format.FObject:
			fmt.Fprintf(&b, " object=%v", ev.Object)
		case format.FTarget:
			fmt.Fprintf(&b, " target=%v", ev.Target)
		case format.FOwner:
			fmt.Fprintf(&b, " owner=%v", ev.Owner)
		case format.FLock:
			fmt.Fprintf(&b, " lock=%v", ev.Lock())
		case format.FName:
			fmt.Fprintf(&b, " name=%q", ev.Name)
		case format.FTimeout:
			fmt.Fprintf(&b, " timeout=%d", ev.Timeout)
		case format.FHow:
			fmt.Fprintf(&b, " how=%q", ev.How)
		case format.FMode:
			fmt.Fprintf(&b, " mode=%q", ev.Mode.String())
		case format.FClass:
			fmt.Fprintf(&b, " class=%q", ev.Class)
		case format.FSampled:
			fmt.Fprintf(&b, " sampled=%q", ev.Sampled.String())
		case format.FWeight:
			fmt.Fprintf(&b, " weight=%d", ev.Weight)
		case format.FCPU:
			fmt.Fprintf(&b, " cpu=%d", ev.CPU)
		case format.FReady:
			fmt.Fprintf(&b, " ready=%d", ev.Ready)
		case format.FDepth:
			fmt.Fprintf(&b, " held_at=%d", ev.Depth)
		case format.FStack:
			fmt.Fprintf(&b, " depth=%d", len(ev.Stack))
		}
	}
	b.WriteByte('\n')
	return b.String()
}
