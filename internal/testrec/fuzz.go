package testrec

import (
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
	"orca/internal/reader"
)

// AddModelSeeds seeds f with the .orca text of every model case
// (modelDir/testdata/cases/*.txtar) and, with corpus, every input of
// FuzzModelText's corpus (modelDir/testdata/fuzz/FuzzModelText): the
// fuzzers of the model's readers start where the fold's rules have been
// found wrong before. modelDir is internal/model from the caller's
// package.
func AddModelSeeds(f *testing.F, modelDir string, corpus bool) {
	f.Helper()
	paths, _ := filepath.Glob(filepath.Join(modelDir, "testdata/cases/*.txtar"))
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if file.Name == "orca" {
				f.Add(file.Data)
			}
		}
	}
	if !corpus {
		return
	}
	inputs, _ := filepath.Glob(filepath.Join(modelDir, "testdata/fuzz/FuzzModelText/*"))
	for _, p := range inputs {
		f.Add(FuzzBytes(f, p))
	}
}

// FuzzPick makes a fuzzer's choices (which flags an input is tried with)
// from a hash of the input: any mutation of it picks again, and the same
// input always the same.
type FuzzPick struct{ x uint64 }

// NewFuzzPick returns the choices of data.
func NewFuzzPick(data []byte) *FuzzPick {
	h := fnv.New64a()
	h.Write(data)
	return &FuzzPick{h.Sum64()}
}

// Int returns the next choice, in [0, n).
func (p *FuzzPick) Int(n int) int {
	if n <= 1 {
		return 0
	}
	c := int(p.x % uint64(n))
	p.x /= uint64(n)
	if p.x == 0 {
		p.x = 0x9e3779b97f4a7c15 + uint64(c) // choices left after the hash's bits
	}
	return c
}

// FuzzRange picks a time range (--from, --to) of rec for a third of the
// inputs: between two of its events' times, or from one to the end (a
// quarter of those); ok false for the rest, and for a recording whose
// events cannot be read (t skips it).
func FuzzRange(t testing.TB, rec *reader.Recording, p *FuzzPick) (from, to format.Time, ok bool) {
	t.Helper()
	if p.Int(3) != 0 {
		return 0, 0, false
	}
	var times []format.Time
	if _, err := rec.EachEvent(reader.EachOptions{Workers: 1}, func(ev *reader.Event) error {
		times = append(times, ev.Time)
		return nil
	}); err != nil {
		t.Skip(err)
	}
	if len(times) == 0 {
		return 0, 0, false
	}
	slices.Sort(times)
	from, to = times[p.Int(len(times))], times[p.Int(len(times))]
	if from > to {
		from, to = to, from
	}
	if p.Int(4) == 0 {
		to = math.MaxInt64
	}
	return from, to, true
}

// FuzzFiles writes data, a fuzzer's input, as the .orca of a recording in
// a new temporary directory (t's), and returns the directory and the
// recording's prefix.
func FuzzFiles(t testing.TB, data []byte) (dir, prefix string) {
	t.Helper()
	dir = t.TempDir()
	prefix = filepath.Join(dir, "fuzz")
	if err := os.WriteFile(prefix+format.SuffixEvents, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, prefix
}
