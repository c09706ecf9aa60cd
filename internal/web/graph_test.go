package web

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"orca/internal/model"
)

// TestWaitForJUC: the wait-for graph of a deadlock between a monitor and a
// java.util.concurrent lock (the model's case juc-lock: a parks to acquire
// read-write sync F00D owned by b, b is blocked on monitor 0B0B owned by
// a) draws the park as an edge and the cycle through it (issue 20: the
// graph knew blocked, waiting, acquiring and joining, not parked, and
// showed "no cycle" beside the Deadlocks card's deadlock). The park is a
// contention, blocked, as on the timeline (issue 21): its node's state and
// its edge say blocked; e's latch await is parked.
func TestWaitForJUC(t *testing.T) {
	ts := serve(t, fromTxtar(t, "../model/testdata/cases/juc-lock.txtar"))
	var g waitForJSON
	getJSON(t, ts, "/api/waitfor?t=4500000000", &g)
	if len(g.Cycles) != 1 || len(g.Deadlocks) != 1 || g.Deadlocks[0] != 0 {
		t.Fatalf("cycles %v deadlocks %v, want one: deadlock 0; graph %+v", g.Cycles, g.Deadlocks, g)
	}
	if got, want := strings.Join(g.Cycles[0], " "), "t0 o0000F00D t1 o00000B0B"; got != want {
		t.Errorf("cycle %s, want %s", got, want)
	}
	var kinds []string
	for _, e := range g.Edges {
		if e.Cycle {
			kinds = append(kinds, e.From+" "+e.Kind+" "+e.To)
		}
	}
	slices.Sort(kinds)
	if got, want := strings.Join(kinds, ", "), "o00000B0B owner t0, o0000F00D owner t1, t0 blocked o0000F00D, t1 blocked o00000B0B"; got != want {
		t.Errorf("cycle edges %s, want %s", got, want)
	}
	for _, n := range g.Nodes {
		if n.ID == "o0000F00D" && n.Kind != "juc" || n.ID == "t0" && (n.State != "blocked" || n.LockKind != "juc") {
			t.Errorf("node %+v", n)
		}
	}
	// Before A parks (4 s) there is none; e's latch await is a park on a
	// blocker, waiting for no thread.
	getJSON(t, ts, "/api/waitfor?t=2000000000", &g)
	if len(g.Cycles) != 0 {
		t.Errorf("at 2 s: cycles %v", g.Cycles)
	}
	found := false
	for _, e := range g.Edges {
		found = found || e.From == "t4" && e.To == "o0000CAFE" && e.Kind == "parked"
	}
	if !found {
		t.Errorf("at 2 s: no edge from e's park to its latch: %+v", g.Edges)
	}
}

// TestGraphShowsTheDeadlocks checks, on recordings with deadlocks of every
// kind (monitors, a monitor and a j.u.c. lock, a join, a cycle too brief to
// be one), that the wait-for graph at each instant a deadlock of the list
// stood shows it — the same threads, named as that deadlock — and that
// just before it formed it shows no such cycle. The graph and the list are
// both the model's (Model.WaitGraphAt, Model.Deadlocks), and the model's
// validator checks every instant; this keeps the viewer rendering them.
func TestGraphShowsTheDeadlocks(t *testing.T) {
	recs := map[string]*recording{"hand-made deadlock": handMade(t, "dl", deadlockEvents, deadlockMethods, deadlockClasses)}
	cases, _ := filepath.Glob("../model/testdata/cases/*.txtar")
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		if strings.Contains(name, "deadlock") || strings.Contains(name, "juc") || strings.Contains(name, "cycle") {
			recs["model case "+name] = fromTxtar(t, path)
		}
	}
	for name, src := range map[string]string{"Deadlock.java": "internal/web/testdata/Deadlock.java", "JUCDeadlock.java": "internal/web/testdata/JUCDeadlock.java"} {
		if r, why := recordJava(t, strings.ToLower(strings.TrimSuffix(name, ".java")), src); r != nil {
			recs[name] = r
		} else {
			t.Logf("no %s recording: %s", name, why)
		}
	}
	kinds := map[model.State]bool{}
	brief := 0
	for name, r := range recs {
		m := r.res.Model
		for _, d := range m.Deadlocks {
			for _, s := range d.States {
				kinds[s] = true
			}
		}
		t.Run(name, func(t *testing.T) {
			ts := serve(t, r)
			var dls deadlocksJSON
			getJSON(t, ts, "/api/deadlocks", &dls)
			graph := func(at int64) *waitForJSON {
				var g waitForJSON
				getJSON(t, ts, fmt.Sprintf("/api/waitfor?t=%d", at), &g)
				return &g
			}
			// cycleOf returns the threads of the cycle the graph names
			// deadlock k, sorted, or nil.
			cycleOf := func(g *waitForJSON, k int) []int {
				for c, ids := range g.Cycles {
					if g.Deadlocks[c] != k {
						continue
					}
					out := []int{}
					for _, id := range ids {
						for _, n := range g.Nodes {
							if n.ID == id && n.Kind == "thread" {
								out = append(out, n.Thread)
							}
						}
					}
					slices.Sort(out)
					return out
				}
				return nil
			}
			end := int64(m.End - m.Start)
			for k, dl := range dls.Deadlocks {
				want := slices.Sorted(slices.Values(dl.Threads))
				last := end
				if !dl.AtEnd {
					last = dl.Resolved - 1
				}
				for _, at := range []int64{dl.At, (dl.At + last) / 2, last} {
					if got := cycleOf(graph(at), k); !slices.Equal(got, want) {
						t.Errorf("deadlock %d (threads %v, %d..%d): the graph at %d shows %v", k, want, dl.At, last, at, got)
					}
				}
				if dl.At > 0 {
					if got := cycleOf(graph(dl.At-1), k); got != nil {
						t.Errorf("deadlock %d formed at %d: the graph shows it at %d", k, dl.At, dl.At-1)
					}
				}
			}
			// The model's cycles the list leaves out (too brief) are in
			// the graph too, named as no deadlock of the list.
			for _, d := range m.Deadlocks {
				if d.Lasted(m.End) == 0 {
					continue
				}
				g := graph(int64(d.At - m.Start))
				named := false
				for _, k := range g.Deadlocks {
					named = named || k >= 0 && dls.Deadlocks[k].At == int64(d.At-m.Start)
				}
				if !named {
					brief++
					if !slices.Contains(g.Deadlocks, -1) {
						t.Errorf("the cycle of %v at %d ns is not in the graph then: %v", d.Threads, d.At-m.Start, g.Deadlocks)
					}
				}
			}
		})
	}
	for _, s := range []model.State{model.Blocked, model.Parked, model.Joining} {
		if !kinds[s] {
			t.Errorf("no recording has a deadlock with a thread %s", s)
		}
	}
	if brief == 0 {
		t.Error("no recording has a cycle too brief to be a deadlock")
	}
}
