package report

import (
	"bytes"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/analysis"
	"orca/internal/model"
)

// TestProgressSteps: Options.Progress is told the analyses' steps in the
// order they run, the holders' pass counting the threads it reads up to
// all of them, and the report is the same bytes with it as without.
func TestProgressSteps(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/contention.txtar")
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := load(t, "contention", ar)
	for _, chains := range []bool{true, false} {
		build := func() *model.Result {
			res, err := model.Build(rec, model.Options{NoEdges: true, Spill: true, SpillDir: t.TempDir(), DropIntervals: true,
				SpillOwners: true, PackThreads: true, EndGraphOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		write := func(res *model.Result, opt Options) string {
			var b bytes.Buffer
			if err := New(rec, res, opt).WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		opt := Options{Width: 100, Chains: chains, JSONOnly: true, Streamed: true, LetGoTails: true}
		want := write(build(), opt)
		var steps []string
		lastDone, lastTotal := -1, -1
		opt.Progress = func(step string, done, total int) {
			if len(steps) == 0 || steps[len(steps)-1] != step {
				steps = append(steps, step)
			}
			if step == model.StepHoldersThreads {
				lastDone, lastTotal = done, total
			}
		}
		res := build()
		if got := write(res, opt); got != want {
			t.Errorf("chains %v: the report with Progress differs from the one without", chains)
		}
		holders := []string{model.StepHoldersThreads, model.StepHoldersSpans}
		var order []string
		if chains {
			order = slices.Concat([]string{StepDeadlocks}, holders,
				[]string{analysis.StepChainsOrder, analysis.StepChainsRoots, analysis.StepChainsLinks, StepLists, StepCPU})
		} else {
			// Without the chains the holders' pass runs for the locks'
			// rows.
			order = slices.Concat([]string{StepDeadlocks, StepLists}, holders, []string{StepCPU})
		}
		if !slices.Equal(steps, order) {
			t.Errorf("chains %v: steps\n%q\nwant\n%q", chains, steps, order)
		}
		if n := res.Model.NumThreads(); lastTotal != n || lastDone < 0 || lastDone >= n {
			t.Errorf("chains %v: the holders' pass last said %d of %d threads, want fewer than all of %d (each call before a thread)", chains, lastDone, lastTotal, n)
		}
	}
}
