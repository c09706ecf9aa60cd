package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"orca/internal/linediff"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/analysis"
	"orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/reader"
	"orca/internal/testrec"
)

var update = flag.Bool("update", false, "rewrite testdata/report.*.txt and .json")

// The golden cases are testdata/CASE.txtar archives: sections orca,
// methods, classtable and info become CASE.orca, … (a section left out is a
// missing file; "<EOF>" as the last line means no final newline); the
// optional args section lists option sets, one per line ("" is the
// default, "--top=1", "--thread=NAME", "--virtual"). Each set produces
// testdata/report.CASE[.OPTIONS].txt and .json.

func TestGolden(t *testing.T) {
	eachCase(t, func(name string, ar *txtar.Archive, argSets []string) {
		if argSets == nil {
			argSets = []string{""}
		}
		rec, res := load(t, name, ar)
		for _, args := range argSets {
			golden := "report." + name
			if args != "" {
				golden += "." + strings.ReplaceAll(strings.ReplaceAll(args, "--", ""), " ", ".")
			}
			t.Run(strings.TrimPrefix(golden, "report."), func(t *testing.T) {
				opt := parseArgs(t, args)
				r := New(rec, res, opt)
				r.Prefix = name // not the temporary directory
				var txt, js bytes.Buffer
				if err := r.WriteText(&txt); err != nil {
					t.Fatal(err)
				}
				if err := r.WriteJSON(&js); err != nil {
					t.Fatal(err)
				}
				check(t, filepath.Join("testdata", golden+".txt"), clean(txt.String(), rec))
				check(t, filepath.Join("testdata", golden+".json"), clean(js.String(), rec))
				var back Report
				if err := json.Unmarshal(js.Bytes(), &back); err != nil {
					t.Fatalf("decoding the JSON: %v", err)
				}
				checkMeaning(t, &back, res.Model, opt)
				// orca view's (NoThreadLists): the same but for the
				// threads' rows and the locks' owners and waiters.
				vopt := opt
				vopt.NoThreadLists = true
				vr := New(rec, res, vopt)
				vr.Prefix = name
				if len(vr.Threads) != 0 || len(vr.VirtualGroups) != 0 || vr.ThreadsTotal != r.ThreadsTotal {
					t.Errorf("NoThreadLists: %d threads' rows, %d virtual groups, %d threads in all (want none, none, %d)",
						len(vr.Threads), len(vr.VirtualGroups), vr.ThreadsTotal, r.ThreadsTotal)
				}
				if got, want := withoutThreadRows(t, vr), withoutThreadRows(t, r); got != want {
					t.Errorf("NoThreadLists: the report differs in more than its lists of threads:\n%s", got)
				}
				if opt.Thread == "" {
					// orca report builds without the edges then
					// (model.Options.NoEdges), with the spill the
					// holders' fold reads (model.Options.Spill): the
					// same report. It keeps no intervals in memory
					// either (DropIntervals; the wait chains too read
					// them back): the same report again.
					lean, err := model.Build(rec, model.Options{NoEdges: true, Spill: true, SpillDir: t.TempDir()})
					if err != nil {
						t.Fatal(err)
					}
					if !lean.Model.Spilled() {
						t.Fatal("built with model.Options.Spill, the model has no spill")
					}
					if v := lean.Model.Filter(nil); !reflect.DeepEqual(v.HoldersDoing(), v.HoldersDoingInMemory()) {
						t.Error("what the holders did, from the spill, differs from the fold in memory")
					}
					lr := New(rec, lean, opt)
					lr.Prefix = name
					var ljs bytes.Buffer
					if err := lr.WriteJSON(&ljs); err != nil {
						t.Fatal(err)
					}
					if ljs.String() != js.String() {
						t.Errorf("the report of the model built without its edges, with the spill, differs:\n%s", ljs.String())
					}
					// And with the ended threads' Threads packed
					// (model.Options.PackThreads), as orca report
					// builds it: the same report once more.
					for _, pack := range []bool{false, true} {
						dropped, err := model.Build(rec, model.Options{NoEdges: true, Spill: true, SpillDir: t.TempDir(), DropIntervals: true,
							PackThreads: pack, StackMark: analysis.JDKStackMark(rec.FrameName)})
						if err != nil {
							t.Fatal(err)
						}
						if !dropped.Model.IntervalsDropped() {
							t.Fatal("built with model.Options.DropIntervals, the model kept its intervals")
						}
						ended := 0
						for _, th := range dropped.Model.AllThreads() {
							if th.Ended {
								ended++
							}
							if th.Intervals != nil {
								t.Fatalf("thread %v kept its intervals", th.ID)
							}
						}
						if n := dropped.Model.PackedThreads(); pack && ended > 0 && n == 0 || !pack && n > 0 {
							t.Fatalf("PackThreads %v: %d threads of %d packed, %d ended", pack, n, dropped.Model.NumThreads(), ended)
						}
						// As orca report makes it: the tails let go once the
						// hangs are found, the wait chains' rows made as
						// they are written.
						dopt := opt
						dopt.LetGoTails, dopt.Streamed = true, true
						restore := func() {}
						if pack {
							// And every thread of more than two intervals
							// read by pieces, as a long one is (the holders'
							// passes, the wait chains' roots: ivPiece).
							restore = model.SetIvPiece(2)
						}
						dr := New(rec, dropped, dopt)
						dr.Prefix = name
						var dtxt, djs bytes.Buffer
						if err := dr.WriteText(&dtxt); err != nil {
							t.Fatal(err)
						}
						if err := dr.WriteJSON(&djs); err != nil {
							t.Fatal(err)
						}
						restore()
						if djs.String() != js.String() || dtxt.String() != txt.String() {
							t.Errorf("the report of the model built without its intervals in memory (PackThreads %v) differs:\n%s", pack, dtxt.String())
						}
					}
				}
			})
		}
	})
}

// eachCase calls fn with each golden case: its name, its archive and the
// option sets of its args section (nil without one).
func eachCase(t *testing.T, fn func(name string, ar *txtar.Archive, argSets []string)) {
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, path := range paths {
		ar := testrec.Parse(t, path)
		var argSets []string
		for _, f := range ar.Files {
			if f.Name == "args" {
				argSets = strings.Split(strings.TrimSuffix(string(f.Data), "\n"), "\n")
			}
		}
		fn(strings.TrimSuffix(filepath.Base(path), ".txtar"), ar, argSets)
	}
}

// load builds a case's recording (testrec.Build) and validates the model.
func load(t *testing.T, name string, ar *txtar.Archive) (*reader.Recording, *model.Result) {
	t.Helper()
	rec, res := testrec.Build(t, ar, name)
	for _, e := range modeltest.Validate(res.Model) {
		t.Errorf("%s: model: %v", name, e)
	}
	return rec, res
}

func parseArgs(t *testing.T, args string) Options {
	opt := Options{Width: 100}
	for _, a := range strings.Fields(args) {
		k, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch k {
		case "top":
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("args %q: %v", args, err)
			}
			opt.Top = n
		case "thread":
			opt.Thread = v
		case "virtual":
			opt.Virtual = true
		case "chains":
			opt.Chains = true
		default:
			t.Fatalf("args %q: unknown option %s", args, k)
		}
	}
	return opt
}

// clean removes the temporary directory from paths in the output.
func clean(s string, rec *reader.Recording) string {
	return strings.ReplaceAll(s, filepath.Dir(rec.Prefix)+string(filepath.Separator), "")
}

func check(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test ./internal/report -update to accept):\n%s", path, linediff.Lines(string(want), got))
	}
}

// TestRecording checks the meaning of the report of a real recording:
// ORCA_PREFIX=build/demo-run go test ./internal/report -run Recording.
func TestRecording(t *testing.T) {
	p := os.Getenv("ORCA_PREFIX")
	if p == "" {
		t.Skip("ORCA_PREFIX not set")
	}
	rec, err := reader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Build(rec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range modeltest.Validate(res.Model) {
		t.Errorf("model: %v", e)
	}
	for _, opt := range []Options{{}, {Top: 3}, {Thread: "worker"}, {Thread: "main"}} {
		var js bytes.Buffer
		if err := New(rec, res, opt).WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		var back Report
		if err := json.Unmarshal(js.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		checkMeaning(t, &back, res.Model, opt)
	}
}

// withoutThreadRows is r's JSON without its lists of threads (threads,
// virtual_groups, each lock's owners and waiters).
func withoutThreadRows(t *testing.T, r *Report) string {
	t.Helper()
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(js.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	delete(v, "threads")
	delete(v, "virtual_groups")
	if ls, ok := v["locks"].([]any); ok {
		for _, l := range ls {
			delete(l.(map[string]any), "owners")
			delete(l.(map[string]any), "waiters")
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
