package model_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"orca/internal/analysis"
	"orca/internal/linediff"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
	"orca/internal/testrec"
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
	addCaseSeeds(f)
	corpus, _ := filepath.Glob("testdata/fuzz/FuzzModelText/*")
	for _, p := range corpus {
		f.Add(testrec.FuzzBytes(f, p))
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
