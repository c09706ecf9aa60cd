package web

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"orca/internal/model"
	"orca/internal/synth"
)

// threadIndexNamed returns the index of the thread named name in r.
func threadIndexNamed(t *testing.T, r *recording, name string) int {
	t.Helper()
	for i, th := range r.res.Model.AllThreads() {
		if th.Name == name {
			return i
		}
	}
	t.Fatalf("no thread %q", name)
	return -1
}

// TestLockFacts: what orca report says of a lock (h148's class_object and
// left_locked, docs/perf/2026-12-02-unseen-programs-2.md) the viewer's API
// says too. The report's case classmonitor: "waiter" blocks on the
// monitor of a java.lang.Class object, 0000CAFE, which is the class
// Scenario: every answer that gives the lock's class names it
// "java.lang.Class (Scenario.class)" (the locks, the interval, the
// wait-for graph); a Class object the class table lacks, 0000ABCD, stays
// "java.lang.Class". The case leftlocked: "ghost" ended holding the
// ReentrantLock 0EFECBD1 that "orphan" then parked on: the lock's row and
// detail and orphan's park say who left it locked, when it ended, and the
// parks that named it after.
func TestLockFacts(t *testing.T) {
	t.Run("class object", func(t *testing.T) {
		r := fromTxtar(t, "../report/testdata/classmonitor.txtar")
		ts := serve(t, r)
		var locks []lockJSON
		getJSON(t, ts, "/api/locks", &locks)
		classes := map[string]string{}
		for _, l := range locks {
			classes[l.Object] = l.Class
		}
		if c := classes["0000CAFE"]; c != "java.lang.Class (Scenario.class)" {
			t.Errorf("/api/locks: 0000CAFE's class %q, want java.lang.Class (Scenario.class)", c)
		}
		if c := classes["0000ABCD"]; c != "java.lang.Class" {
			t.Errorf("/api/locks: 0000ABCD's class %q, want java.lang.Class (the class table lacks it)", c)
		}
		var d lockDetailJSON
		getJSON(t, ts, "/api/locks/monitor/0000CAFE", &d)
		if d.Class != "java.lang.Class (Scenario.class)" {
			t.Errorf("/api/locks/monitor/0000CAFE: class %q", d.Class)
		}
		w := threadIndexNamed(t, r, "waiter")
		var iv intervalJSON
		getJSON(t, ts, fmt.Sprintf("/api/intervals/%d/0", w), &iv)
		if iv.Object != "0000CAFE" || iv.ObjectClass != "java.lang.Class (Scenario.class)" {
			t.Errorf("waiter's first interval: on %s %q, want 0000CAFE java.lang.Class (Scenario.class)", iv.Object, iv.ObjectClass)
		}
		var g waitForJSON
		getJSON(t, ts, "/api/waitfor?t=200000000", &g)
		found := false
		for _, n := range g.Nodes {
			if n.Object == "0000CAFE" {
				found = true
				if n.Class != "java.lang.Class (Scenario.class)" {
					t.Errorf("the wait-for graph at 0.2 s: lock node %s of class %q", n.Object, n.Class)
				}
			}
		}
		if !found {
			t.Errorf("the wait-for graph at 0.2 s has no node 0000CAFE: %+v", g.Nodes)
		}
	})
	t.Run("left locked", func(t *testing.T) {
		r := fromTxtar(t, "../report/testdata/leftlocked.txtar")
		ts := serve(t, r)
		ghost, orphan := threadIndexNamed(t, r, "ghost"), threadIndexNamed(t, r, "orphan")
		want := []leftLockedJSON{{Thread: ghost, ID: "0000000B", Name: "ghost", Ended: 200_000_000, Parks: 1}}
		var locks []lockJSON
		getJSON(t, ts, "/api/locks", &locks)
		i := slices.IndexFunc(locks, func(l lockJSON) bool { return l.Object == "0EFECBD1" })
		if i < 0 {
			t.Fatalf("/api/locks has no 0EFECBD1: %+v", locks)
		}
		if !slices.Equal(locks[i].LeftLocked, want) {
			t.Errorf("/api/locks: 0EFECBD1 left locked %+v, want %+v", locks[i].LeftLocked, want)
		}
		var d lockDetailJSON
		getJSON(t, ts, "/api/locks/juc/0EFECBD1", &d)
		if !slices.Equal(d.LeftLocked, want) {
			t.Errorf("/api/locks/juc/0EFECBD1: left locked %+v, want %+v", d.LeftLocked, want)
		}
		k := slices.IndexFunc(r.res.Model.ThreadAt(orphan).Intervals, func(iv model.Interval) bool { return iv.Acquire })
		if k < 0 {
			t.Fatal("orphan has no park in a lock's acquire")
		}
		var iv intervalJSON
		getJSON(t, ts, fmt.Sprintf("/api/intervals/%d/%d", orphan, k), &iv)
		if iv.LeftLocked == nil || *iv.LeftLocked != want[0] {
			t.Errorf("orphan's park: left locked %+v, want %+v", iv.LeftLocked, want[0])
		}
		// A lock nobody left locked says nothing of it.
		var none lockDetailJSON
		cm := fromTxtar(t, "../report/testdata/classmonitor.txtar")
		getJSON(t, serve(t, cm), "/api/locks/monitor/0000CAFE", &none)
		if none.LeftLocked != nil {
			t.Errorf("classmonitor's 0000CAFE: left locked %+v", none.LeftLocked)
		}
	})
}

// TestBrowserLockFacts: the page shows them where it shows the lock. On
// the case leftlocked, the Locks table's row of 0EFECBD1 says "left locked
// by ghost", its detail the report's line, and orphan's park, in the side
// panel and the timeline's tooltip, that its owner ended holding it; on
// classmonitor, the table, the detail, the interval's panel and the
// wait-for graph's lock node name 0000CAFE the class Scenario.
func TestBrowserLockFacts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	ctx := newBrowser(t, 1280, 800)
	t.Run("left locked", func(t *testing.T) {
		r := fromTxtar(t, "../report/testdata/leftlocked.txtar")
		ts := serve(t, r)
		orphan := threadIndexNamed(t, r, "orphan")
		k := slices.IndexFunc(r.res.Model.ThreadAt(orphan).Intervals, func(iv model.Interval) bool { return iv.Acquire })
		open(t, ctx, ts.URL+"/#v=locks&lk=juc:0EFECBD1")
		waitJS(t, ctx, "the lock's detail", `document.querySelector('.lock-detail div.left-locked')`)
		if row := eval[string](t, ctx, `document.querySelector('table.locks tr[data-lock="juc:0EFECBD1"] .left-locked').textContent`); row != "left locked by ghost" {
			t.Errorf("the lock's row says %q, want 'left locked by ghost'", row)
		}
		want := "left locked: ghost ended at 0.200000 s holding it, and 1 park named it the owner after (it never released it)"
		if got := eval[string](t, ctx, `document.querySelector('.lock-detail div.left-locked').textContent`); got != want {
			t.Errorf("the lock's detail says %q, want %q", got, want)
		}
		screenshot(t, ctx, "lock-left-locked.png")
		facts := strings.Join(panelFacts(t, ctx, orphan, k), "\n")
		if !strings.Contains(facts, "ghost (ended at 0.200000 s holding it: left locked, never released)") {
			t.Errorf("orphan's park: the panel says\n%s\nwant ghost ended at 0.200000 s holding it", facts)
		}
		screenshot(t, ctx, "interval-left-locked.png")
		if tip := tooltipOf(t, ctx, orphan, k); !strings.Contains(tip, "ended at 0.200000 s holding it: left locked") {
			t.Errorf("orphan's park: the tooltip says %q", tip)
		}
	})
	t.Run("class object", func(t *testing.T) {
		r := fromTxtar(t, "../report/testdata/classmonitor.txtar")
		ts := serve(t, r)
		w := threadIndexNamed(t, r, "waiter")
		open(t, ctx, ts.URL+"/#v=locks&lk=monitor:0000CAFE")
		waitJS(t, ctx, "the lock's detail", `document.querySelector('.lock-detail .panel-head')`)
		if row := eval[string](t, ctx, `document.querySelector('table.locks tr[data-lock="monitor:0000CAFE"] td.lock-name').textContent`); row != "0000CAFEjava.lang.Class (Scenario.class)" {
			t.Errorf("the lock's row says %q", row)
		}
		if head := eval[string](t, ctx, `document.querySelector('.lock-detail .panel-head').textContent`); head != "monitor 0000CAFEjava.lang.Class (Scenario.class)" {
			t.Errorf("the lock's detail is headed %q", head)
		}
		screenshot(t, ctx, "lock-class-object.png")
		if facts := strings.Join(panelFacts(t, ctx, w, 0), "\n"); !strings.Contains(facts, "0000CAFE java.lang.Class (Scenario.class)") {
			t.Errorf("waiter's contention: the panel says\n%s", facts)
		}
		// The wait-for graph at 0.2 s: the lock's node, its class
		// without its package, as the class it is.
		eval[bool](t, ctx, `(orca.app.setInstant(2e8, true), true)`)
		waitJS(t, ctx, "the graph's lock node", `[...document.querySelectorAll('svg text.g-cls')].length > 0`)
		time.Sleep(100 * time.Millisecond)
		if labels := eval[[]string](t, ctx, `[...document.querySelectorAll('svg text.g-cls')].map((e) => e.textContent)`); !slices.Contains(labels, "Scenario.class") {
			t.Errorf("the wait-for graph's lock labels %q, want Scenario.class", labels)
		}
		screenshot(t, ctx, "graph-class-object.png")
	})
}

// TestLockDetailBounds: a lock's detail lists the first maxLockThreads
// owners, most blamed first, and waiters, in order of first block, and
// the first maxHeldOn of the locks its holders were blocked on, most
// first, and says how many of each there were; its threads are ranges of
// the indexes of its owners and of the threads with an interval on it.
func TestLockDetailBounds(t *testing.T) {
	prefix := synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20}).prefix
	rec, res := viewerBuild(t, prefix)
	srv := New(rec, res, Options{})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	m := res.Model
	d := srv.cur.Load().d
	doing := m.Filter(nil).HoldersDoing()
	defer func(n, k int) { maxHeldOn, maxLockThreads = n, k }(maxHeldOn, maxLockThreads)
	cutOn, cutOwners, cutWaiters := 0, 0, 0
	for _, n := range []int{100, 2} {
		maxHeldOn, maxLockThreads = n, n
		for _, l := range m.Locks {
			var v lockDetailJSON
			getJSON(t, ts, "/api/locks/"+l.Kind.String()+"/"+l.Object.String(), &v)
			owners, waiters := m.OwnersOf(l), m.WaitersOf(l)
			if v.OwnersTotal != len(owners) || len(v.Owners) != min(len(owners), n) || v.WaitersTotal != len(waiters) || len(v.Waiters) != min(len(waiters), n) {
				t.Fatalf("%s %s with %d: %d of %d owners, %d of %d waiters; the model's %d and %d", l.Kind, l.Object, n,
					len(v.Owners), v.OwnersTotal, len(v.Waiters), v.WaitersTotal, len(owners), len(waiters))
			}
			want := map[int]bool{}
			for i, o := range owners {
				if i < n && v.Owners[i].ID != o.Thread.String() {
					t.Errorf("%s: owner %d %s, want %s", l.Object, i, v.Owners[i].ID, o.Thread)
				}
				if k := d.threadIndex(o.Thread); k >= 0 {
					want[k] = true
				}
			}
			for i, w := range waiters {
				if i < n && v.Waiters[i] != d.threadIndex(w) {
					t.Errorf("%s: waiter %d %d, want %d", l.Object, i, v.Waiters[i], d.threadIndex(w))
				}
				if k := d.threadIndex(w); k >= 0 {
					want[k] = true // a waiter has an interval on it
				}
			}
			got, err := srv.cur.Load().threadList(v.Threads, 1<<30)
			if err != nil || len(got) != v.ThreadCount || !slices.IsSorted(got) {
				t.Fatalf("%s: threads %q (%d): %v, %v", l.Object, v.Threads, v.ThreadCount, got, err)
			}
			for _, k := range got {
				delete(want, k)
			}
			if len(want) > 0 {
				t.Errorf("%s: threads %q lack %v", l.Object, v.Threads, want)
			}
			if len(v.Owners) < len(owners) {
				cutOwners++
			}
			if len(v.Waiters) < len(waiters) {
				cutWaiters++
			}
			dg := doing[model.LockRef{Object: l.Object, Kind: l.Kind}]
			if dg == nil || dg.Blocked == 0 {
				continue
			}
			h := v.Holders
			if h == nil || h.BlockedOnTotal != len(dg.On) || len(h.BlockedOn) != min(len(dg.On), n) {
				t.Fatalf("%s with maxHeldOn %d: holders %+v, want the first of %d locks blocked on", l.Object, n, h, len(dg.On))
			}
			for i, b := range h.BlockedOn {
				if on := dg.On[i]; b.Object != on.Lock.Object.String() || b.Time != int64(on.Time) {
					t.Errorf("%s: blocked on %+v at %d, want %+v", l.Object, b, i, on)
				}
			}
			if len(h.BlockedOn) < len(dg.On) {
				cutOn++
			}
		}
	}
	if cutOn == 0 || cutOwners == 0 || cutWaiters == 0 {
		t.Errorf("lists cut: %d of the locks blocked on, %d of owners, %d of waiters: a cut not tried", cutOn, cutOwners, cutWaiters)
	}
}
