// Package testrec turns the tests' hand-written cases into recordings: a
// txtar archive whose sections orca, methods, classtable, info and ext are
// the files PREFIX.orca, PREFIX.methods, … (a last line "<EOF>" means the
// file ends without a newline), written to a temporary directory, opened
// with reader.Open and folded with model.Build, as a real recording is.
// Other sections (expect, args) are the tests' own and are not written.
//
// Only tests import it (it calls testing.TB's Fatal).
package testrec

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// sections are the archive sections that are files of the recording.
var sections = map[string]string{
	"orca": format.SuffixEvents, "methods": format.SuffixMethods, "classtable": format.SuffixClasses,
	"info": format.SuffixInfo, "ext": format.SuffixExt,
}

// Write writes the recording's sections of ar to prefix's files.
func Write(t testing.TB, ar *txtar.Archive, prefix string) {
	t.Helper()
	for _, f := range ar.Files {
		suffix, ok := sections[f.Name]
		if !ok {
			continue
		}
		data := f.Data
		if d, ok := bytes.CutSuffix(data, []byte("\n<EOF>\n")); ok {
			data = d
		}
		if err := os.WriteFile(prefix+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Parse reads the archive at path.
func Parse(t testing.TB, path string) *txtar.Archive {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ar
}

// Files writes the archive at path to a temporary directory and returns
// the recording's prefix, named after the file ("testdata/cut.txtar": DIR/cut).
func Files(t testing.TB, path string) string {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(path), ".txtar"))
	Write(t, Parse(t, path), prefix)
	return prefix
}

// Open opens the recording at prefix and builds its model.
func Open(t testing.TB, prefix string) (*reader.Recording, *model.Result) {
	t.Helper()
	return OpenWith(t, prefix, model.Options{})
}

// OpenWith opens the recording at prefix and builds its model with opt.
func OpenWith(t testing.TB, prefix string, opt model.Options) (*reader.Recording, *model.Result) {
	t.Helper()
	rec, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Build(rec, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rec, res
}

// Build writes ar as the recording name in a temporary directory, opens
// it and builds its model.
func Build(t testing.TB, ar *txtar.Archive, name string) (*reader.Recording, *model.Result) {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), name)
	Write(t, ar, prefix)
	return Open(t, prefix)
}

// Load builds the archive at path, named after the file.
func Load(t testing.TB, path string) (*reader.Recording, *model.Result) {
	t.Helper()
	return Open(t, Files(t, path))
}

// Events reads every event of the recording at prefix, failing t on a
// malformed one.
func Events(t testing.TB, prefix string) []reader.Event {
	t.Helper()
	rec, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	evs, c, err := rec.Events()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out []reader.Event
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

// FuzzBytes returns the []byte value of a file of Go's fuzz corpus (go
// test fuzz v1, one []byte): a fuzzer's findings read as inputs by other
// tests and fuzzers.
func FuzzBytes(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "[]byte("); ok {
			s, err := strconv.Unquote(strings.TrimSuffix(v, ")"))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return []byte(s)
		}
	}
	t.Fatalf("%s: no []byte value", path)
	return nil
}
