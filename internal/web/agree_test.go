package web

import (
	"math"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"reflect"
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
		if v.NoUnparkInterrupted != l.NoUnparkInterrupted || v.NoUnparkSpurious != l.NoUnparkSpurious {
			t.Errorf("%s %s: viewer %d no unpark interrupted, %d spurious; report %d, %d", l.Kind, l.Object,
				v.NoUnparkInterrupted, v.NoUnparkSpurious, l.NoUnparkInterrupted, l.NoUnparkSpurious)
		}
		if v.Call != l.Call || v.BeforeEvents != l.BeforeEvents || v.BeforeAttach != l.BeforeAttach {
			t.Errorf("%s %s: viewer call %q, %d begun before the events, %d before the attach; report %q, %d, %d", l.Kind, l.Object,
				v.Call, v.BeforeEvents, v.BeforeAttach, l.Call, l.BeforeEvents, l.BeforeAttach)
		}
		if v.Contentions != l.Contentions || v.Blocked != ns(l.BlockedS) || v.MaxBlocked != ns(l.MaxBlockedS) ||
			v.Open != l.Open || v.OpenBlocked != ns(l.OpenS) || v.Waiters != len(l.Waiters) || v.OwnerUnknown != l.OwnerUnknown ||
			v.NoUnpark != l.NoUnpark {
			t.Errorf("%s %s: viewer %d contentions, %d ns blocked (max %d), %d open for %d ns, %d threads, %d owner unknown, %d no unpark; "+
				"report %d, %v s (max %v), %d open for %v s, %d threads, %d owner unknown, %d no unpark",
				l.Kind, l.Object, v.Contentions, v.Blocked, v.MaxBlocked, v.Open, v.OpenBlocked, v.Waiters, v.OwnerUnknown, v.NoUnpark,
				l.Contentions, l.BlockedS, l.MaxBlockedS, l.Open, l.OpenS, len(l.Waiters), l.OwnerUnknown, l.NoUnpark)
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
			// The viewer's group is the one its costliest object is in:
			// in the locks, its group named, or kept as a record
			// (model.Group.Members), in the group's members alone.
			gi := -1
			if l, ok := byKey[kind+" "+g.Top[0].Object]; ok && l.Group != nil {
				gi = *l.Group
			} else if !ok {
				for i, v := range groups {
					if len(v.Members) > 0 && v.Kind == kind && v.Members[0].Object == g.Top[0].Object {
						gi = i
					}
				}
			}
			if gi < 0 || gi >= len(groups) {
				t.Errorf("a group of %d objects in the report: its object %s in no group in the viewer", g.Objects, g.Top[0].Object)
				continue
			}
			v := groups[gi]
			if v.Kind != kind || v.Objects != g.Objects || v.Threads != g.Threads || v.Waits != w.Waits || v.WaitTime != ns(w.WaitS) ||
				v.MaxWait != ns(g.MaxWaitS) || v.MaxWaits != g.MaxWaits || v.Notified != w.Notified || v.TimedOut != w.TimedOut ||
				v.Interrupted != w.Interrupted || v.Spurious != w.Spurious || v.StillWaiting != w.StillWaiting || v.Notifies != w.Notifies || len(v.Sites) != len(w.Sites) || len(v.UnparkedBy) != len(w.UnparkedBy) {
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
	holdersAgree(t, r, ts, rep, thread)
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

// holdersAgree checks the figures of samples and scheduler times (issue
// 33): each thread's split of its runnable time (the report's cpu_s,
// ready_s, other_s), the CPU flame graph's samples and time (the CPU
// section's), and, unfiltered, what each contended lock's holders did
// while others were blocked on it (holders_while_s, holders_doing,
// holders_blocked_on, holders_frames).
func holdersAgree(t *testing.T, r *recording, ts *httptest.Server, rep *report.Report, thread string) {
	ns := func(s float64) int64 { return int64(math.Round(s * 1e9)) }
	var threads []threadJSON
	getJSON(t, ts, "/api/threads", &threads)
	byID := map[string]threadJSON{}
	for _, th := range threads {
		byID[th.ID] = th
	}
	for _, th := range rep.Threads {
		v, ok := byID[th.ID]
		if !ok {
			continue
		}
		if (th.CPUS != nil) != (v.Run != nil) {
			t.Errorf("thread %s: report cpu_s %v, viewer run %+v", th.ID, th.CPUS, v.Run)
			continue
		}
		// Without scheduler times ready is not measured: the report says
		// nothing (null), the viewer 0, which it never shows.
		ready := 0.0
		if th.ReadyS != nil {
			ready = *th.ReadyS
		}
		if v.Run != nil && (v.Run.Running != ns(*th.CPUS) || v.Run.Ready != ns(ready) || v.Run.Other != ns(*th.OtherS)) {
			t.Errorf("thread %s: viewer running %d, ready %d, other %d ns; report %v, %v, %v s", th.ID, v.Run.Running, v.Run.Ready, v.Run.Other, *th.CPUS, th.ReadyS, *th.OtherS)
		}
	}
	q := "&jdk=1"
	if thread != "" {
		q = "&thread=" + url.QueryEscape(thread)
	}
	var cpu, wall samplesFlameJSON
	getJSON(t, ts, "/api/flame/samples?kind=cpu"+q, &cpu)
	getJSON(t, ts, "/api/flame/samples?kind=wall"+q, &wall)
	if c := rep.CPU; c != nil && (cpu.Samples != c.Samples || cpu.Total != ns(c.S) || wall.Samples != c.WallSamples || wall.Total != ns(c.WallS)) ||
		c == nil && cpu.Samples+wall.Samples > 0 {
		t.Errorf("CPU flame graph: %d cpu samples for %d ns, %d wall for %d ns; report cpu %+v", cpu.Samples, cpu.Total, wall.Samples, wall.Total, rep.CPU)
	}
	if thread != "" {
		return // a lock's detail is the whole recording's
	}
	for _, l := range rep.Locks {
		if l.Kind != "monitor" && l.Kind != "juc" {
			continue
		}
		var v lockDetailJSON
		getJSON(t, ts, "/api/locks/"+l.Kind+"/"+l.Object, &v)
		h := v.Holders
		if (h != nil) != (l.HoldersDoing != nil) {
			t.Errorf("%s %s: viewer holders %+v, report holders_doing %v", l.Kind, l.Object, h, l.HoldersDoing)
			continue
		}
		if h == nil {
			continue
		}
		want := map[string]int64{}
		for k, s := range l.HoldersDoing {
			want[k] = ns(s)
		}
		if h.While != ns(l.HoldersWhileS) || !reflect.DeepEqual(h.Doing, want) || len(h.Frames)+len(l.HoldersFrames) > 0 && !reflect.DeepEqual(h.Frames, l.HoldersFrames) || len(h.BlockedOn) != len(l.HoldersBlockedOn) {
			t.Errorf("%s %s: viewer holders while %d ns doing %v, frames %+v, blocked on %d locks; report %v s, %v, %+v, %d",
				l.Kind, l.Object, h.While, h.Doing, h.Frames, len(h.BlockedOn), l.HoldersWhileS, l.HoldersDoing, l.HoldersFrames, len(l.HoldersBlockedOn))
			continue
		}
		for i, b := range l.HoldersBlockedOn {
			o := h.BlockedOn[i]
			if o.Object != b.Object || o.Kind != b.Kind || o.Time != ns(b.S) || (b.Holder == nil) != (o.ID == "") || b.Holder != nil && *b.Holder != o.ID {
				t.Errorf("%s %s: holders blocked on %+v in the viewer, %+v in the report", l.Kind, l.Object, o, b)
			}
		}
		// The holders' flame graph holds the samples of their frames.
		var f samplesFlameJSON
		getJSON(t, ts, "/api/flame/samples?kind=all&lock="+l.Object+"&lockKind="+l.Kind, &f)
		n, w := 0, int64(0)
		for _, hf := range l.HoldersFrames {
			n += hf.Samples
			w += ns(hf.S)
		}
		if f.Samples != n || math.Abs(float64(f.Total-w)) > float64(len(l.HoldersFrames)) {
			t.Errorf("%s %s: the holders' flame graph has %d samples for %d ns, their frames %d for %d ns", l.Kind, l.Object, f.Samples, f.Total, n, w)
		}
	}
}
