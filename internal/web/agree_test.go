package web

import (
	"math"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/testrec"

	"orca/internal/model"
	"orca/internal/report"
)

// TestReportAgrees checks that orca view and orca report give the same
// figures for the same recording: contended locks, time blocked per lock
// (finished and still open), waits per object, deadlocks, hangs and threads
// waiting alone. Both
// render the model's aggregate, so they agree by construction; this test
// keeps it so. The recordings: the report's golden cases, a hand-written
// deadlock, and, when a JDK and bin/orca are here, Deadlock.java (two
// monitors whose contentions never finish, beside the JVM's own) and the
// Scenario program.
func TestReportAgrees(t *testing.T) {
	recs := map[string]*recording{"hand-made deadlock": handMade(t, "dl", deadlockEvents, deadlockMethods, deadlockClasses)}
	cases, _ := filepath.Glob("../report/testdata/*.txtar")
	if len(cases) == 0 {
		t.Fatal("no report cases in ../report/testdata")
	}
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		recs["report case "+name] = fromTxtar(t, path)
	}
	if r, why := recordJava(t, "deadlock", "internal/web/testdata/Deadlock.java"); r != nil {
		recs["Deadlock.java"] = r
	} else {
		t.Logf("no Deadlock.java recording: %s", why)
	}
	recs["scenario"] = scenario(t)
	filtered := 0
	for name, r := range recs {
		t.Run(name, func(t *testing.T) { agree(t, r, "") })
		// Filtered by thread (orca report --thread, the viewer's
		// ?thread=): by the name of each thread that blocked or waited,
		// and by a substring that matches several.
		for _, want := range filters(r) {
			filtered++
			t.Run(name+" thread="+want, func(t *testing.T) { agree(t, r, want) })
		}
	}
	if filtered == 0 {
		t.Error("no recording had a thread to filter by")
	}
}

// filters returns thread filters worth checking on r: the name of every
// thread that blocked, waited or parked on a lock (up to 4), and the first
// letter of the first of them (a substring matching several threads).
func filters(r *recording) []string {
	var out []string
	for _, th := range r.res.Model.Threads {
		if len(out) == 4 {
			break
		}
		if th.Name != "" && (th.Time[model.Blocked] > 0 || th.Time[model.Waiting] > 0 || th.Time[model.Parked] > 0) {
			out = append(out, th.Name)
		}
	}
	if len(out) > 0 {
		out = append(out, out[0][:1])
	}
	return out
}

// viewerLocks returns the viewer's Locks view (/api/locks with the query q)
// and the same by kind and object ("monitor 0000ABCD"), as the report's
// locks are named.
func viewerLocks(t *testing.T, ts *httptest.Server, q string) ([]lockJSON, map[string]lockJSON) {
	t.Helper()
	var locks []lockJSON
	getJSON(t, ts, "/api/locks"+q, &locks)
	byKey := map[string]lockJSON{}
	for _, l := range locks {
		byKey[l.Kind+" "+l.Object] = l
	}
	return locks, byKey
}

func agree(t *testing.T, r *recording, thread string) {
	ts := serve(t, r)
	rep := report.New(r.rec, r.res, report.Options{Top: 0, Thread: thread})
	q := ""
	if thread != "" {
		q = "?thread=" + url.QueryEscape(thread)
	}
	var sum summaryJSON
	getJSON(t, ts, "/api/summary"+q, &sum)
	locks, byKey := viewerLocks(t, ts, q)

	if sum.Contended != rep.LocksTotal {
		t.Errorf("contended locks: viewer %d, report %d", sum.Contended, rep.LocksTotal)
	}
	ns := func(s float64) int64 { return int64(math.Round(s * 1e9)) }
	for _, l := range rep.Locks {
		v, ok := byKey[l.Kind+" "+l.Object]
		if !ok {
			t.Errorf("%s %s: in the report, not in the viewer", l.Kind, l.Object)
			continue
		}
		if v.Call != l.Call || v.BeforeEvents != l.BeforeEvents || v.BeforeAttach != l.BeforeAttach {
			t.Errorf("%s %s: viewer call %q, %d begun before the events, %d before the attach; report %q, %d, %d", l.Kind, l.Object,
				v.Call, v.BeforeEvents, v.BeforeAttach, l.Call, l.BeforeEvents, l.BeforeAttach)
		}
		if v.Contentions != l.Contentions || v.Blocked != ns(l.BlockedS) || v.MaxBlocked != ns(l.MaxBlockedS) ||
			v.Open != l.Open || v.OpenBlocked != ns(l.OpenS) || v.Waiters != len(l.Waiters) || v.OwnerUnknown != l.OwnerUnknown {
			t.Errorf("%s %s: viewer %d contentions, %d ns blocked (max %d), %d open for %d ns, %d threads, %d owner unknown; "+
				"report %d, %v s (max %v), %d open for %v s, %d threads, %d owner unknown",
				l.Kind, l.Object, v.Contentions, v.Blocked, v.MaxBlocked, v.Open, v.OpenBlocked, v.Waiters, v.OwnerUnknown,
				l.Contentions, l.BlockedS, l.MaxBlockedS, l.Open, l.OpenS, len(l.Waiters), l.OwnerUnknown)
		}
	}
	contended := 0
	for _, v := range locks {
		if v.Contended != (v.Contentions+v.Open > 0) {
			t.Errorf("%s %s: contended %v with %d contentions, %d open", v.Kind, v.Object, v.Contended, v.Contentions, v.Open)
		}
		if v.Contended { // what the Locks view counts
			contended++
		}
	}
	if contended != rep.LocksTotal {
		t.Errorf("the viewer's Locks view lists %d contended locks, the report %d", contended, rep.LocksTotal)
	}
	var groups []groupJSON
	getJSON(t, ts, "/api/groups"+q, &groups)
	for _, w := range rep.Waits {
		kind := "monitor"
		if w.Kind == "park" {
			kind = "blocker"
		}
		if g := w.Group; g != nil {
			// The viewer's group is the one its costliest object is in.
			l := byKey[kind+" "+g.Top[0].Object]
			if l.Group == nil || *l.Group >= len(groups) {
				t.Errorf("a group of %d objects in the report: its object %s in no group in the viewer", g.Objects, g.Top[0].Object)
				continue
			}
			v := groups[*l.Group]
			if v.Kind != kind || v.Objects != g.Objects || v.Threads != g.Threads || v.Waits != w.Waits || v.WaitTime != ns(w.WaitS) ||
				v.MaxWait != ns(g.MaxWaitS) || v.MaxWaits != g.MaxWaits || v.Notified != w.Notified || v.TimedOut != w.TimedOut ||
				v.StillWaiting != w.StillWaiting || v.Notifies != w.Notifies || len(v.Sites) != len(w.Sites) || len(v.UnparkedBy) != len(w.UnparkedBy) {
				t.Errorf("a group of %s: viewer %+v; report %+v, %+v", kind, v, w, *g)
			}
			for i, o := range g.Top {
				if i >= len(v.Members) || v.Members[i].Object != o.Object || v.Members[i].Waits != o.Waits || v.Members[i].WaitTime != ns(o.WaitS) {
					t.Errorf("a group of %s: its object %d is %+v in the report, the viewer's %+v", kind, i, o, v.Members)
				}
			}
			continue
		}
		v := byKey[kind+" "+*w.Object]
		if v.Group != nil {
			t.Errorf("waits on %s: in the viewer's group %d, on its own in the report", *w.Object, *v.Group)
		}
		if v.Waits != w.Waits || v.WaitTime != ns(w.WaitS) || v.Notifies != w.Notifies || v.NotifyAlls != w.NotifyAlls || v.WokeNobody != w.WokeNobody {
			t.Errorf("waits on %s: viewer %d waits for %d ns, %d+%d notifies (%d woke nobody); report %d for %v s, %d+%d (%d)",
				*w.Object, v.Waits, v.WaitTime, v.Notifies, v.NotifyAlls, v.WokeNobody, w.Waits, w.WaitS, w.Notifies, w.NotifyAlls, w.WokeNobody)
		}
		if v.WaitsBeforeAttach != w.BeforeAttach || v.Call != w.Call {
			t.Errorf("waits on %s: viewer %d since before the attach, call %q; report %d, %q", *w.Object, v.WaitsBeforeAttach, v.Call, w.BeforeAttach, w.Call)
		}
	}
	// A group is one entry, its objects none.
	waited := len(groups)
	for _, v := range locks {
		// With a filter, notify counts stay the whole recording's (the
		// fold does not keep who notified): an object the kept threads
		// never waited on is not theirs, in the report as here.
		if v.Group == nil && (v.Kind == "monitor" && (v.Waits > 0 || thread == "" && v.Notifies+v.NotifyAlls > 0) || v.Kind == "blocker" && v.Waits > 0) {
			waited++
		}
	}
	if waited != rep.WaitsTotal {
		t.Errorf("objects waited on or notified: viewer %d, report %d", waited, rep.WaitsTotal)
	}
	hangs, alone := 0, 0
	for _, h := range rep.Hangs {
		if !h.JDK {
			hangs++
		}
	}
	for _, h := range rep.WaitingAlone {
		if !h.JDK {
			alone++
		}
	}
	if sum.Deadlocks != len(rep.Deadlocks) || sum.Hangs != hangs || sum.WaitingAlone != alone {
		t.Errorf("viewer %d deadlocks, %d hangs, %d waiting alone; report %d, %d, %d", sum.Deadlocks, sum.Hangs, sum.WaitingAlone, len(rep.Deadlocks), hangs, alone)
	}
	// What began before an attach is said alike (issue 31, item 5): a
	// deadlock already there, a hang's state already entered.
	if thread == "" {
		var dl deadlocksJSON
		getJSON(t, ts, "/api/deadlocks", &dl)
		for i, d := range rep.Deadlocks {
			if i < len(dl.Deadlocks) && dl.Deadlocks[i].BeforeAttach != d.BeforeAttach {
				t.Errorf("deadlock #%d: viewer beforeAttach %v, report before_attach %v", i+1, dl.Deadlocks[i].BeforeAttach, d.BeforeAttach)
			}
		}
		hangs := map[int]hangJSON{}
		for _, h := range dl.Hangs {
			hangs[h.Thread] = h
		}
		for _, h := range rep.Hangs {
			for i, th := range r.res.Model.Threads {
				if th.ID.String() != h.Thread {
					continue
				}
				if v := hangs[i]; v.BeforeAttach != h.BeforeAttach || v.Call != h.Call {
					t.Errorf("hang of %s: viewer beforeAttach %v, call %q; report before_attach %v, call %q", h.Thread, v.BeforeAttach, v.Call, h.BeforeAttach, h.Call)
				}
			}
		}
	}
}

// fromTxtar builds a txtar case (testrec) for the viewer.
func fromTxtar(t *testing.T, path string) *recording {
	t.Helper()
	return build(t, testrec.Files(t, path))
}
