package foldoracle_test

import (
	"bytes"
	"fmt"
	"orca/internal/linediff"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// The fold reads the reader's Columns (reader.EachOptions.Columns: a dense
// thread number an event, a few words of fields) where it read 152-byte
// Events (model.Options.ReadEvents, the old path): issue 34's first piece
// of the new fold (docs/streaming.md). TestColumnsOracle holds the new path
// to the old one: the same model (threads, intervals, samples, problems,
// what the reader said) and the same report, text and JSON, byte for byte,
// as orca report builds it and in memory (and of a time range, in memory),
// on every golden case, the recordings of internal/testrec in both
// encodings, orca-gen's seeds 1–20 at 16 MB (compact; seed 1 as text too,
// and spoiled and cut; seeds 3–20 as orca report builds them alone), and
// FuzzModelText's corpus, whole and cut short. TestColumnsOracleSeeds has
// seeds 3–20.

// oracleBuilds are the model.Options the oracle builds with: in memory, and
// as orca report builds it.
func oracleBuilds(t *testing.T, rec *reader.Recording) []model.Options {
	return []model.Options{
		{},
		{NoEdges: true, Spill: true, SpillDir: t.TempDir(), DropIntervals: true, SpillOwners: true, PackThreads: true, SpansFromLogs: true,
			EndGraphOnly: true, StackMark: analysis.JDKStackMark(rec.FrameName)},
	}
}

// oracleRender renders what a build of rec with opt gives: its result, its
// threads and the report's text and JSON.
func oracleRender(t *testing.T, rec *reader.Recording, opt model.Options) string {
	t.Helper()
	res, err := model.Build(rec, opt)
	if err != nil {
		return "error " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "malformed %d truncated %v unclosed %v\n", res.Malformed, res.Truncated, res.Unclosed)
	for _, e := range res.ParseErrors {
		fmt.Fprintf(&b, "parse error %v\n", e)
	}
	m := res.Model
	fmt.Fprintf(&b, "events %d start %d end %d stacks %d\n", m.Events, m.Start, m.End, len(m.Stacks))
	for _, p := range m.Problems {
		fmt.Fprintf(&b, "problem %s\n", p)
	}
	for _, th := range m.AllThreads() {
		fmt.Fprintf(&b, "thread %v %q %d-%d ended %v parent %v events %d time %v\n", th.ID, th.Name, th.Start, th.End, th.Ended, th.Parent, th.Events, th.Time)
		if opt.DropIntervals {
			continue
		}
		fmt.Fprintf(&b, "  intervals %+v\n  samples %+v\n", th.Intervals, th.Samples)
	}
	r := report.New(rec, res, report.Options{Width: 100, Top: 5})
	r.Prefix = "oracle"
	var txt, js bytes.Buffer
	if err := r.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	b.WriteString(txt.String())
	b.WriteString(js.String())
	return b.String()
}

// oracleSame checks the recording at prefix: the new path's renderings are
// the old path's, for each build, whole and in a time range; not full, as
// orca report builds it, whole, alone.
func oracleSame(t *testing.T, name, prefix string, full bool) {
	t.Helper()
	rec, err := reader.Open(prefix)
	if err != nil {
		if strings.Contains(name, "Fuzz") {
			return // not a recording: Open says so, whichever path
		}
		t.Fatalf("%s: %v", name, err)
	}
	var spans []*reader.Span
	builds := oracleBuilds(t, rec)
	if !full {
		builds = builds[1:]
	} else if start, end, ok := rec.Info.Span(); ok && end > start {
		if sp, err := rec.Span(start+(end-start)/3, start+2*(end-start)/3); err == nil {
			spans = append(spans, sp)
		}
	}
	for bi, opt := range builds {
		for si := -1; si < len(spans) && (si < 0 || bi == 0); si++ { // the ranges in memory alone
			if si >= 0 {
				opt.Span = spans[si]
			}
			old := opt
			old.ReadEvents = true
			want := oracleRender(t, rec, old)
			got := oracleRender(t, rec, opt)
			if got != want {
				t.Errorf("%s: build %d, span %d: the fold of Columns differs from the fold of Events:\n%s", name, bi, si, linediff.Lines(want, got))
			}
		}
	}
}

func TestColumnsOracle(t *testing.T) {
	dir := t.TempDir()
	t.Run("golden", func(t *testing.T) {
		var paths []string
		for _, g := range []string{"../report/testdata/*.txtar", "../model/testdata/cases/*.txtar"} {
			p, _ := filepath.Glob(g)
			paths = append(paths, p...)
		}
		if len(paths) < 10 {
			t.Fatalf("%d golden cases", len(paths))
		}
		for i, path := range paths {
			prefix := filepath.Join(dir, fmt.Sprintf("g%d", i))
			testrec.Write(t, testrec.Parse(t, path), prefix)
			oracleSame(t, path, prefix, true)
		}
	})
	t.Run("testrec", func(t *testing.T) {
		for _, enc := range []format.Encoding{format.EncodingSeed, format.EncodingCompact} {
			prefix := filepath.Join(dir, fmt.Sprintf("samples%d", enc))
			testrec.Samples(t, prefix, enc)
			oracleSame(t, prefix, prefix, true)
		}
	})
	t.Run("fuzz", func(t *testing.T) {
		paths, _ := filepath.Glob("../model/testdata/fuzz/FuzzModelText/*")
		if len(paths) == 0 {
			t.Fatal("no corpus of FuzzModelText")
		}
		for i, path := range paths {
			data := testrec.FuzzBytes(t, path)
			for j, d := range [][]byte{data, data[:len(data)*2/3]} {
				prefix := filepath.Join(dir, fmt.Sprintf("f%d-%d", i, j))
				if err := os.WriteFile(prefix+format.SuffixEvents, d, 0o644); err != nil {
					t.Fatal(err)
				}
				oracleSame(t, path, prefix, true)
			}
		}
	})
	t.Run("synth", func(t *testing.T) {
		for seed := 1; seed <= 2; seed++ {
			encs := []format.Encoding{format.EncodingCompact}
			if seed == 1 {
				encs = append(encs, format.EncodingSeed)
			}
			for _, enc := range encs {
				prefix := filepath.Join(dir, fmt.Sprintf("s%d-%d", seed, enc))
				writeSynth(t, prefix, synth.Options{Seed: uint64(seed), Size: 16 << 20, Encoding: enc})
				oracleSame(t, prefix, prefix, true)
				if seed == 1 && enc == format.EncodingCompact {
					// Cut inside its last chunk, and spoiled: a malformed
					// record, its chunk skipped to the next.
					data, err := os.ReadFile(prefix + format.SuffixEvents)
					if err != nil {
						t.Fatal(err)
					}
					for k := len(data) / 3; k < len(data); k += len(data) / 7 {
						data[k] ^= 0x5A
					}
					if err := os.WriteFile(prefix+format.SuffixEvents, data[:len(data)-777], 0o644); err != nil {
						t.Fatal(err)
					}
					os.Remove(prefix + format.SuffixInfo) // its counts are of the whole file
					oracleSame(t, prefix+" spoiled", prefix, true)
				}
				os.Remove(prefix + format.SuffixEvents)
			}
		}
	})
}

// TestColumnsOracleSeeds is TestColumnsOracle on orca-gen's seeds 3–20 at
// 16 MB, compact, as orca report builds them (~4 CPU-s a seed); -short
// skips it.
func TestColumnsOracleSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for seed := 3; seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			prefix := filepath.Join(t.TempDir(), "s")
			writeSynth(t, prefix, synth.Options{Seed: uint64(seed), Size: 16 << 20, Encoding: format.EncodingCompact})
			oracleSame(t, prefix, prefix, false)
		})
	}
}

// writeSynth writes orca-gen's recording of opt at prefix.
func writeSynth(t *testing.T, prefix string, opt synth.Options) {
	t.Helper()
	g := synth.New(opt)
	for suffix, write := range map[string]func(f *os.File) error{
		format.SuffixEvents:  func(f *os.File) error { _, err := g.WriteEvents(f); return err },
		format.SuffixMethods: func(f *os.File) error { return g.WriteMethods(f) },
		format.SuffixClasses: func(f *os.File) error { return g.WriteClasses(f) },
	} {
		f, err := os.Create(prefix + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := write(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
