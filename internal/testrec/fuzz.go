package testrec

import (
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
	"orca/internal/reader"
	"orca/internal/synth"
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

// FuzzText fuzzes with f any .orca text: seeded with the model's cases
// and FuzzModelText's corpus (AddModelSeeds, modelDir internal/model from
// the caller's package), each input written as a recording (FuzzFiles)
// and given to differs, which compares what it builds of it and returns
// true when t failed: the input is logged.
func FuzzText(f *testing.F, modelDir string, differs func(t *testing.T, data []byte, dir, prefix string) bool) {
	AddModelSeeds(f, modelDir, true)
	f.Fuzz(func(t *testing.T, data []byte) {
		dir, prefix := FuzzFiles(t, data)
		if differs(t, data, dir, prefix) {
			t.Logf("events:\n%s", data)
		}
	})
}

// SynthShape is what the fuzzers of orca-gen's recordings (FuzzSynth:
// FuzzReportSynth, FuzzExportSynth, FuzzViewSynth) pick: the generator's seed and shape,
// and flags: bits 0–2 samples off, lock order lines, conditions; bits 3–5
// zero the text encoding (else compact); bits 6–8 zero a lock convoy;
// the rest the fuzzer's own (Flags).
type SynthShape struct {
	Seed                                  uint64
	Threads, Monitors, Semaphores, Stacks uint8
	KB                                    uint16
	Slow                                  uint8
	Flags                                 uint16
}

// FuzzSynth fuzzes with f the recordings orca-gen writes: each input a
// SynthShape (its fields the fuzzer's arguments, in order; seeded with
// shapes of each kind: a convoy in text, compact with lock order and
// conditions, many threads, samples, a compact convoy), its recording
// written (Write) and given to differs, which compares what it builds of
// it and returns true when t failed: the generator's options are logged.
func FuzzSynth(f *testing.F, differs func(t *testing.T, s SynthShape, dir, prefix string) bool) {
	for _, s := range []SynthShape{
		{1, 4, 4, 2, 20, 8, 1, 0},
		{7, 8, 12, 4, 50, 24, 5, 0x00ff},
		{3, 2, 1, 1, 5, 16, 1, 0x0f0f},
		{11, 30, 3, 0, 10, 4, 2, 0x0700},
		{5, 6, 5, 3, 40, 40, 1, 0x0c48},
		{9, 12, 1, 1, 8, 30, 1, 0x0812},
	} {
		f.Add(s.Seed, s.Threads, s.Monitors, s.Semaphores, s.Stacks, s.KB, s.Slow, s.Flags)
	}
	f.Fuzz(func(t *testing.T, seed uint64, threads, monitors, semaphores, stacks uint8, kb uint16, slow uint8, flags uint16) {
		s := SynthShape{Seed: seed, Threads: threads, Monitors: monitors, Semaphores: semaphores, Stacks: stacks, KB: kb, Slow: slow, Flags: flags}
		dir, prefix, opt, convoy := s.Write(t)
		if differs(t, s, dir, prefix) {
			t.Logf("synth options %+v (convoy %v)", opt, convoy)
		}
	})
}

// Write writes the recording of s in a new temporary directory (t's)
// with internal/synth, orca-gen's generator: 1–32 threads, 1–16
// monitors, 1–8 semaphores, 1–64 stacks, 1–48 KB, slowness 0–7; and
// returns the directory, the prefix and the generator's options (convoy:
// a lock convoy of Threads+1 threads).
func (s SynthShape) Write(t testing.TB) (dir, prefix string, opt synth.Options, convoy bool) {
	t.Helper()
	bit := func(i uint) bool { return s.Flags>>i&1 == 1 }
	opt = synth.Options{
		Seed:       s.Seed,
		Threads:    int(s.Threads%32) + 1,
		Monitors:   int(s.Monitors%16) + 1,
		Semaphores: int(s.Semaphores%8) + 1,
		Classes:    8,
		Methods:    int(s.Stacks%64) + 4,
		Stacks:     int(s.Stacks%64) + 1,
		Size:       int64(s.KB%48+1) << 10,
		Encoding:   format.EncodingCompact,
		NoSamples:  bit(0),
		LockOrder:  bit(1),
		Conditions: bit(2),
		Slow:       int(s.Slow % 8),
	}
	if s.Flags>>3&7 == 0 {
		opt.Encoding = format.EncodingSeed
	}
	dir = t.TempDir()
	prefix = filepath.Join(dir, "synth")
	var err error
	if convoy = s.Flags>>6&7 == 0; convoy {
		_, err = synth.WriteConvoyRecording(prefix, opt, synth.Convoy{Threads: opt.Threads + 1, Handoffs: int(s.KB%48+1) * 4})
	} else {
		_, err = synth.WriteRecording(prefix, opt)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir, prefix, opt, convoy
}

// Key is s in bytes, for NewFuzzPick.
func (s SynthShape) Key() []byte {
	return fmt.Appendf(nil, "%d %d %d %d %d %d %d %d", s.Seed, s.Threads, s.Monitors, s.Semaphores, s.Stacks, s.KB, s.Slow, s.Flags)
}
