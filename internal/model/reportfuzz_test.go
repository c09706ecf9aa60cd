package model_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/analysis"
	"orca/internal/linediff"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
)

// FuzzReportStreamed: whatever .orca text it reads, orca report's way of
// building — the spill, the intervals dropped, the owners and blame spans
// from their logs, the threads packed, the graph at the end alone, the
// report streamed and letting go of what it is done with (cmd/orca's
// report.go) — gives the same report, text and JSON, as the model built
// in memory and reported whole. The model's tests seal after every event
// (export_test.go), so each input also has its fold sealed at every step.
// The golden cases check this on theirs; the fuzzer on lines out of
// order, lost ends and owners named late, where the model's rules for
// them (the wait-for graph's, the owners') meet the streamed readers.
// Seeded with the model cases and FuzzModelText's corpus. The input's
// length picks the options: --top 0 (every row listed), 1 (the lists cut)
// or 10 by its remainder by 3, --chains by the quotient's parity.
func FuzzReportStreamed(f *testing.F) {
	paths, _ := filepath.Glob("testdata/cases/*.txtar")
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
	corpus, _ := filepath.Glob("testdata/fuzz/FuzzModelText/*")
	for _, p := range corpus {
		if data, ok := corpusBytes(p); ok {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		prefix := filepath.Join(dir, "fuzz")
		if err := os.WriteFile(prefix+".orca", data, 0o600); err != nil {
			t.Fatal(err)
		}
		opt := report.Options{Width: 100, Top: []int{0, 1, 10}[len(data)%3], Chains: len(data)/3%2 == 1}
		whole := func() (txt, js string) {
			rec, err := reader.Open(prefix)
			if err != nil {
				t.Skip(err)
			}
			res, err := model.Build(rec, model.Options{Workers: 1})
			if err != nil {
				t.Skip(err)
			}
			r := report.New(rec, res, opt)
			var tb, jb bytes.Buffer
			if err := r.WriteText(&tb); err != nil {
				t.Fatal(err)
			}
			if err := r.WriteJSON(&jb); err != nil {
				t.Fatal(err)
			}
			return tb.String(), jb.String()
		}
		streamed := func(jsonOnly bool) string {
			rec, err := reader.Open(prefix)
			if err != nil {
				t.Fatal(err)
			}
			mopt := model.Options{Workers: 1, NoEdges: true, Spill: true, SpillDir: dir, DropIntervals: true, SpillOwners: true,
				PackThreads: true, SpansFromLogs: true, EndGraphOnly: true, StackMark: analysis.JDKStackMark(rec.FrameName)}
			res, err := model.Build(rec, mopt)
			if err != nil {
				t.Fatal(err)
			}
			ropt := opt
			ropt.JSONOnly, ropt.Streamed, ropt.LetGoTails = jsonOnly, true, true
			r := report.New(rec, res, ropt)
			var b bytes.Buffer
			if jsonOnly {
				err = r.WriteJSON(&b)
			} else {
				err = r.WriteText(&b)
			}
			if err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		txt, js := whole()
		if got := streamed(false); got != txt {
			t.Errorf("the text report built as orca report builds it differs (- whole, + streamed):\n%s", linediff.Lines(txt, got))
		}
		if got := streamed(true); got != js {
			t.Errorf("the JSON report built as orca report builds it differs (- whole, + streamed):\n%s", linediff.Lines(js, got))
		}
		if t.Failed() {
			t.Logf("options %+v; events:\n%s", opt, data)
		}
	})
}

// corpusBytes reads a file of Go's fuzz corpus holding one []byte.
func corpusBytes(path string) ([]byte, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	lines := strings.SplitN(string(b), "\n", 3)
	if len(lines) < 2 || lines[0] != "go test fuzz v1" {
		return nil, false
	}
	lit, ok := strings.CutPrefix(strings.TrimSpace(lines[1]), "[]byte(")
	if !ok {
		return nil, false
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		return nil, false
	}
	return []byte(s), true
}
