package web

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/report"
	"orca/internal/testrec"
)

// chainText writes a chain answer as one line: each link "thread
// state(how) object -> holder", then ": root state".
func chainText(c chainJSON) string {
	var parts []string
	for _, l := range c.Links {
		obj := l.Object
		if obj == "" {
			obj = "-"
		}
		parts = append(parts, fmt.Sprintf("%s %s(%s) %s -> %s", l.Name, l.State, l.How, obj, l.To.Name))
	}
	return strings.Join(parts, ", ") + ": " + c.Root.Name + " " + c.Root.State
}

// intervalIndexAt finds the interval of thread name at at (ns since the
// recording's start).
func intervalIndexAt(t *testing.T, r *recording, name string, at int64) (int, int) {
	t.Helper()
	ti := threadIndex(t, r, name)
	m := r.res.Model
	k := intervalAt(m.Threads[ti], m.Start+format.Time(at))
	if k < 0 {
		t.Fatalf("thread %s has no interval at %d", name, at)
	}
	return ti, k
}

// TestChainAPI asks /api/chain on the report's cases chains and deadlock
// at instants whose chains their text gives: each link's thread, state,
// lock and holder, the root and its state, with the root's interval and
// the runnable root's stretch; and the errors.
func TestChainAPI(t *testing.T) {
	r := fromTxtar(t, "../report/testdata/chains.txtar")
	ts := serve(t, r)
	for _, c := range []struct {
		thread string
		at     int64 // ns since the recording's start
		want   string
		root   string // the root's interval: its shown state, or "" for none
	}{
		{"leaf", 1_500_000_000, "leaf blocked(monitor) 000000B1 -> mid, mid blocked(monitor) 000000A1 -> sleeper: sleeper sleeping", "sleeping"},
		{"leaf", 1_900_000_000, "leaf blocked(monitor) 000000B1 -> mid, mid blocked(monitor) 000000A1 -> sleeper: sleeper runnable", ""},
		{"leaf", 2_050_000_000, "leaf blocked(monitor) 000000B1 -> mid: mid runnable", ""},
		{"joiner", 3_200_000_000, "joiner joining(join) - -> behind-waiter, behind-waiter blocked(monitor) 000000E1 -> waiter: waiter waiting", "waiting"},
		// Its wait ended by no notify: it waits for no thread, its own root.
		{"waiter", 3_200_000_000, ": waiter waiting", "waiting"},
	} {
		ti, k := intervalIndexAt(t, r, c.thread, c.at)
		var got chainJSON
		getJSON(t, ts, fmt.Sprintf("/api/chain/%d/%d?t=%d", ti, k, c.at), &got)
		if s := chainText(got); s != c.want {
			t.Errorf("%s at %d: %q, want %q", c.thread, c.at, s, c.want)
		}
		if got.T != c.at {
			t.Errorf("%s at %d: t %d", c.thread, c.at, got.T)
		}
		if got.Root.Shown != c.root || (c.root == "") != (got.Root.Interval < 0) {
			t.Errorf("%s at %d: root's interval %d, shown %q, want %q", c.thread, c.at, got.Root.Interval, got.Root.Shown, c.root)
		}
		for _, l := range got.Links {
			if l.Interval < 0 || l.Thread < 0 || l.To.Thread < 0 || len(l.Frames) == 0 {
				t.Errorf("%s at %d: link %+v: want the thread's interval, stack and both threads", c.thread, c.at, l)
			}
		}
	}
	// Without t: the interval's middle (leaf blocks 1.2 to 2.1).
	ti, k := intervalIndexAt(t, r, "leaf", 1_500_000_000)
	var mid chainJSON
	getJSON(t, ts, fmt.Sprintf("/api/chain/%d/%d", ti, k), &mid)
	if mid.T != 1_650_000_000 || chainText(mid) != "leaf blocked(monitor) 000000B1 -> mid, mid blocked(monitor) 000000A1 -> sleeper: sleeper sleeping" {
		t.Errorf("at the middle: t %d, %q", mid.T, chainText(mid))
	}
	for path, code := range map[string]int{
		fmt.Sprintf("/api/chain/%d/%d?t=3000000000", ti, k): 400, // outside the interval
		fmt.Sprintf("/api/chain/%d/%d?t=x", ti, k):          400,
		fmt.Sprintf("/api/chain/%d/99", ti):                 404,
		"/api/chain/99/0":                                   404,
	} {
		if got, body, _ := get(t, ts, path); got != code {
			t.Errorf("GET %s: %d %s, want %d", path, got, body, code)
		}
	}

	// A cycle: left and right deadlocked, main joining left.
	r = fromTxtar(t, "../report/testdata/deadlock.txtar")
	ts = serve(t, r)
	ti, k = intervalIndexAt(t, r, "main", 2_000_000_000)
	var cyc chainJSON
	getJSON(t, ts, fmt.Sprintf("/api/chain/%d/%d?t=2000000000", ti, k), &cyc)
	if s := chainText(cyc); s != "main joining(join) - -> left, left blocked(monitor) 0000B00B -> right, right blocked(monitor) 0000A00A -> left: left cycle" {
		t.Errorf("deadlock: %q", s)
	}
}

// TestChainRunSplit: a runnable root's stretch around the instant, and
// its split, on the model's case holder-doing (a holder computing and
// reading inside a monitor, with scheduler times and samples).
func TestChainRunSplit(t *testing.T) {
	r := fromTxtar(t, "../model/testdata/cases/holder-doing.txtar")
	ts := serve(t, r)
	m := r.res.Model
	some := 0
	for ti, th := range m.Threads {
		for k := range th.Intervals {
			iv := &th.Intervals[k]
			if !iv.Acquire && iv.Shown().String() != "blocked" {
				continue
			}
			var c chainJSON
			getJSON(t, ts, fmt.Sprintf("/api/chain/%d/%d", ti, k), &c)
			if c.Root.State != "runnable" {
				continue
			}
			run := c.Root.Run
			root := m.Threads[c.Root.Thread]
			if !hasSplit(root) {
				if run != nil {
					t.Errorf("thread %d interval %d: root %s has no split, but a stretch %+v", ti, k, c.Root.Name, run)
				}
				continue
			}
			if run == nil {
				t.Fatalf("thread %d interval %d: runnable root %s without its stretch", ti, k, c.Root.Name)
			}
			sp := root.RunIn(r.res.Model.Start+format.Time(run.Start), m.Start+format.Time(run.End))
			if run.Start > c.T || c.T >= run.End || run.Running != int64(sp.Running) || run.Other != int64(sp.Other) || run.Ready != int64(sp.Ready) {
				t.Errorf("thread %d interval %d at %d: stretch %+v, the model's split of it %+v", ti, k, c.T, run, sp)
			}
			some++
		}
	}
	if some == 0 {
		t.Errorf("no runnable root in holder-doing")
	}
}

// TestChainLockOrder records LockOrder.java with --lock-order: inv-1 blocks
// on b while holder-inv-1 sleeps holding it, and main joins inv-1 meanwhile;
// the chains from both end at holder-inv-1, sleeping. Its potential
// deadlock is in /api/deadlocks as orca report has it: inv-1 held a in
// outerA and wanted b in innerB, inv-2 held b in outerB and wanted a in
// innerA.
func TestChainLockOrder(t *testing.T) {
	r, why := recordJavaWith(t, "lockorder", "testdata/java/scenarios/LockOrder.java", "--lock-order")
	if r == nil {
		t.Skipf("cannot record LockOrder.java: %s", why)
	}
	ts := serve(t, r)
	m := r.res.Model
	ti := threadIndex(t, r, "inv-1")
	b := r.expect["b"]
	k := -1
	for i, iv := range m.Threads[ti].Intervals {
		if iv.Shown().String() == "blocked" && iv.Object.String() == b {
			k = i
		}
	}
	if k < 0 {
		t.Fatalf("inv-1 never blocked on b (%s)", b)
	}
	// The instant: the middle of the longest sleep of holder-inv-1 while inv-1 blocked (the
	// interval's own middle fell after the holder's end once, at load 5: inv-1's Entered came
	// late, and the holder, whose exit is not recorded, owned b in the model to the end).
	blocked, hi := m.Threads[ti].Intervals[k], threadIndex(t, r, "holder-inv-1")
	var at format.Time
	var longest format.Time
	for _, iv := range m.Threads[hi].Intervals {
		lo, up := max(iv.Start, blocked.Start), min(iv.End, blocked.End)
		if iv.Shown().String() == "sleeping" && up-lo > longest {
			longest, at = up-lo, lo+(up-lo)/2
		}
	}
	if longest == 0 {
		t.Fatalf("holder-inv-1 never slept while inv-1 blocked on b (%s)", b)
	}
	var c chainJSON
	getJSON(t, ts, fmt.Sprintf("/api/chain/%d/%d?t=%d", ti, k, at-m.Start), &c)
	if s, want := chainText(c), "inv-1 blocked(monitor) "+b+" -> holder-inv-1: holder-inv-1 sleeping"; s != want {
		t.Errorf("inv-1: %q, want %q", s, want)
	}
	if len(c.Root.Frames) == 0 || !strings.HasPrefix(c.Root.Frames[0].Frame, "java.lang.Thread.sleep") {
		t.Errorf("the root's stack %v, want Thread.sleep on top", c.Root.Frames)
	}
	mi, mk := intervalIndexAt(t, r, "main", c.T)
	var mc chainJSON
	getJSON(t, ts, fmt.Sprintf("/api/chain/%d/%d?t=%d", mi, mk, c.T), &mc)
	if s, want := chainText(mc), "main joining(join) - -> inv-1, inv-1 blocked(monitor) "+b+" -> holder-inv-1: holder-inv-1 sleeping"; s != want {
		t.Errorf("main: %q, want %q", s, want)
	}

	var dl deadlocksJSON
	getJSON(t, ts, "/api/deadlocks", &dl)
	if len(dl.Potential) != 1 || dl.PotentialNote != "" {
		t.Fatalf("potential deadlocks %+v, note %q: want one", dl.Potential, dl.PotentialNote)
	}
	names := map[string]string{}
	for k, v := range r.expect {
		names[v] = k
	}
	var edges []string
	for _, e := range dl.Potential[0].Edges {
		top := func(fs []frameJSON) string {
			if len(fs) == 0 {
				return "?"
			}
			s, _, _ := strings.Cut(fs[0].Frame, "(")
			return s
		}
		edges = append(edges, fmt.Sprintf("%s held %s (%s) in %s, wanted %s at %s", e.Name, names[e.Held], e.HeldClass, top(e.HeldStack),
			names[e.Wanted], top(e.WantedStack)))
		if e.Thread < 0 || m.Threads[e.Thread].Name != e.Name || m.Threads[e.Thread].ID.String() != e.ID {
			t.Errorf("edge %+v: thread index %d", e, e.Thread)
		}
	}
	want := []string{
		"inv-1 held a (java.lang.Object) in LockOrder.outerA, wanted b at LockOrder.innerB",
		"inv-2 held b (java.lang.Object) in LockOrder.outerB, wanted a at LockOrder.innerA",
	}
	if !reflect.DeepEqual(edges, want) {
		t.Errorf("potential deadlock %q, want %q", edges, want)
	}
	rep := report.New(r.rec, r.res, report.Options{})
	if len(rep.PotentialDeadlocks) != 1 || len(rep.PotentialDeadlocks[0].Edges) != len(dl.Potential[0].Edges) {
		t.Fatalf("the report has %+v", rep.PotentialDeadlocks)
	}
	for i, e := range rep.PotentialDeadlocks[0].Edges {
		v := dl.Potential[0].Edges[i]
		if e.Thread != v.ID || e.Held != v.Held || e.Wanted != v.Wanted || len(e.HeldStack) != len(v.HeldStack) || len(e.WantedStack) != len(v.WantedStack) {
			t.Errorf("edge %d: report %+v, viewer %+v", i, e, v)
		}
	}
}

// TestPotentialNote: a recording made without --lock-order (the default), or
// with --lock-order=off by the orca whose default was the monitors, says, in
// /api/deadlocks, that potential deadlocks were not looked for, as orca
// report says it; one made with the held monitors and none found says none;
// one whose .info does not tell says nothing.
func TestPotentialNote(t *testing.T) {
	for _, c := range []struct{ info, want string }{
		{"held_monitors=no: off (orca record --lock-order turns it on)\n", "Potential deadlocks: not looked for (orca record --lock-order looks for them)."},
		{"held_monitors=no: off (orca record --lock-order=off)\n", "Potential deadlocks: not looked for (recorded with orca record --lock-order=off)."},
		{"held_monitors=no: attached (JVMTI)\n", "Potential deadlocks: not looked for (held_monitors: no: attached (JVMTI))."},
		{"held_monitors=yes\n", "No potential deadlocks: no two threads nested contended monitors in opposite orders."},
		{"", ""},
	} {
		prefix := testrec.Files(t, "../report/testdata/chains.txtar")
		f, err := os.OpenFile(prefix+".info", os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(c.info)
		f.Close()
		r := build(t, prefix)
		var dl deadlocksJSON
		getJSON(t, serve(t, r), "/api/deadlocks", &dl)
		if dl.PotentialNote != c.want || dl.Potential == nil || len(dl.Potential) != 0 {
			t.Errorf("%q: potential %+v, note %q, want %q", c.info, dl.Potential, dl.PotentialNote, c.want)
		}
		rep := report.New(r.rec, r.res, report.Options{})
		var text strings.Builder
		rep.WriteText(&text)
		if c.want != "" && !strings.Contains(text.String(), c.want) {
			t.Errorf("%q: the report does not say %q", c.info, c.want)
		}
	}
}

// TestPotentialModes: /api/deadlocks gives a java.util.concurrent lock's
// mode on each edge of a potential deadlock, as orca report's held_mode and
// wanted_mode (the model's case lock-held: a held the monitor 1111 and
// wanted the read-write lock 5555 exclusive; b held 5555 exclusive and
// wanted 1111).
func TestPotentialModes(t *testing.T) {
	r := build(t, testrec.Files(t, "../model/testdata/cases/lock-held.txtar"))
	var dl deadlocksJSON
	getJSON(t, serve(t, r), "/api/deadlocks", &dl)
	rep := report.New(r.rec, r.res, report.Options{})
	if len(dl.Potential) != 1 || len(rep.PotentialDeadlocks) != 1 {
		t.Fatalf("potential deadlocks %+v, the report's %+v: want one", dl.Potential, rep.PotentialDeadlocks)
	}
	// The Deadlocks tab's badge counts it (the summary's potential).
	var sum summaryJSON
	getJSON(t, serve(t, r), "/api/summary", &sum)
	if sum.Potential != 1 || sum.Deadlocks != 0 {
		t.Errorf("summary: %d potential deadlocks, %d deadlocks; want 1 and 0", sum.Potential, sum.Deadlocks)
	}
	var got, want []string
	for _, e := range dl.Potential[0].Edges {
		got = append(got, fmt.Sprintf("%s held %s %q wanted %s %q", e.ID, e.Held, e.HeldMode, e.Wanted, e.WantedMode))
	}
	for _, e := range rep.PotentialDeadlocks[0].Edges {
		want = append(want, fmt.Sprintf("%s held %s %q wanted %s %q", e.Thread, e.Held, e.HeldMode, e.Wanted, e.WantedMode))
	}
	if !reflect.DeepEqual(got, want) || !strings.Contains(strings.Join(got, "\n"), `"exclusive"`) {
		t.Errorf("edges %q, want the report's %q, with a mode", got, want)
	}
}
