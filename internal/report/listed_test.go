package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"orca/internal/linediff"
	"path/filepath"
	"reflect"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/synth"
)

// TestListedHolders checks that the holders' pass folds the locks the
// report lists alone (--top: model.View.HoldersOf, listedLocks) and that
// this changes nothing printed: on every golden case and on a synthetic
// recording of many contended locks, for each --top k, with and without
// the wait chains and a --thread filter, from the model in memory and
// from orca report's (the spill, no intervals in memory), the report's
// text and JSON are those made with every lock's holders folded; its
// locks are the first k of --top 0's, field for field (what their holders
// did, the locks they blocked on, their frames); and the holders' pass is
// asked for no more locks than are listed.
func TestListedHolders(t *testing.T) {
	compared := 0
	check := func(t *testing.T, rec *reader.Recording, res *model.Result, threads []string, tops []int) {
		for _, thread := range threads {
			for _, chains := range []bool{false, true} {
				all := Options{Width: 100, Thread: thread, Chains: chains}
				ref := jsonLocks(t, New(rec, res, all))
				for _, k := range tops {
					opt := all
					opt.Top = k
					name := fmt.Sprintf("--thread %q --chains=%v --top %d", thread, chains, k)
					r := New(rec, res, opt)
					foldAllHolders = true
					full := New(rec, res, opt)
					foldAllHolders = false
					if got, want := texts(t, r), texts(t, full); got != want {
						t.Errorf("%s: the report differs from the one with every lock's holders folded:\n%s", name, linediff.Lines(want, got))
					}
					got := jsonLocks(t, r)
					if want := ref[:min(k, len(ref))]; !reflect.DeepEqual(got, want) {
						t.Errorf("%s: the locks differ from the first %d of --top 0's:\n%v\nwant\n%v", name, k, got, want)
					}
					v := res.Model.Filter(nil)
					if thread != "" {
						v = res.Model.Filter(analysis.ThreadFilter(res.Model, thread))
					}
					n := 0
					for _, l := range v.Locks {
						if l.Contended() && (l.Kind == model.Monitor || l.Kind == model.JUCLock) {
							n++
						}
					}
					if folded := listedLocks(v.Locks, k); len(folded) > min(k, n) || folded == nil {
						t.Errorf("%s: %d locks' holders folded of %d contended, more than listed", name, len(folded), n)
					}
					for _, l := range got {
						if l["holders_while_s"] != nil {
							compared++
						}
					}
				}
			}
		}
	}
	eachCase(t, func(name string, ar *txtar.Archive, argSets []string) {
		t.Run(name, func(t *testing.T) {
			rec, res := load(t, name, ar)
			threads := []string{""}
			for _, args := range argSets {
				if opt := parseArgs(t, args); opt.Thread != "" {
					threads = append(threads, opt.Thread)
				}
			}
			check(t, rec, res, threads, []int{1, 2, 3, 5})
		})
	})
	t.Run("synth", func(t *testing.T) {
		prefix := filepath.Join(t.TempDir(), "synth")
		if _, err := synth.WriteRecording(prefix, synth.Options{Seed: 5, Threads: 24, Monitors: 40, Semaphores: 3, Size: 2 << 20, Encoding: format.EncodingCompact, Conditions: true}); err != nil {
			t.Fatal(err)
		}
		rec, err := reader.Open(prefix)
		if err != nil {
			t.Fatal(err)
		}
		mem, err := model.Build(rec, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		lean, err := model.Build(rec, model.Options{NoEdges: true, Spill: true, SpillDir: t.TempDir(), DropIntervals: true, SpillOwners: true,
			StackMark: analysis.JDKStackMark(rec.FrameName)})
		if err != nil {
			t.Fatal(err)
		}
		if r := New(rec, mem, Options{}); r.LocksTotal < 20 {
			t.Fatalf("the synthetic recording has %d contended locks, too few to cut", r.LocksTotal)
		}
		check(t, rec, mem, []string{"", "pool-1-thread"}, []int{1, 3, 10, 19})
		check(t, rec, lean, []string{""}, []int{1, 3, 10})
	})
	if compared == 0 {
		t.Error("no listed lock had its holders' figures")
	}
}

// texts is r's text and JSON.
func texts(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// jsonLocks is the locks of r's JSON, decoded.
func jsonLocks(t *testing.T, r *Report) []map[string]any {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Locks []map[string]any `json:"locks"`
	}
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	return v.Locks
}
