package integration

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model/modeltest"
	"orca/internal/report"
)

// TestVirtualPotentialDeadlocks: issue 36 item 2's "its monitors always" for virtual threads
// (VirtualInversion.java, JDK 21+; held monitors by default on 24+). With orca record's defaults
// (no --lock-order) every contended enter of a virtual nester lists the monitor it holds: va a
// (taken in outerPark, depth 1), vb b, vc c (outerSpin), vd d. va and vb parked holding their
// first monitor, so at their enter frames of theirs are still in their continuation's stack
// chunk: asked of JVMTI by the held thread; vc and vd never parked: read from the carrier's stack
// down to the continuation's entry when their monitors are hashed and named (vd's d is, from vc's
// enter). ORCA_HELD_CHECK=1 compares each read with JVMTI's answer in the thread: none
// different. The report has exactly two potential deadlocks, va/vb's over a and b, vc/vd's over c
// and d, with their threads and the methods that held and wanted. Before, the agent skipped a
// virtual thread's enter by default (held_monitors_skipped=4) and found none.
func TestVirtualPotentialDeadlocks(t *testing.T) {
	t.Setenv("ORCA_HELD_CHECK", "1")
	forEachJDK(t, func(t *testing.T, j jdk) {
		res, prefix := recordJVM(t, j, nil, "VirtualInversion")
		e, prefix := expectOf(t, res, prefix)
		if e.str(t, "virtual") == "no" {
			skipf(t, "%s has no virtual threads", j.name)
		}
		if j.feature < 24 {
			skipf(t, "%s: a virtual thread's held monitors are asked by default on 24+ only", j.name)
		}
		rec, built := buildModel(t, prefix)
		if got := rec.Info[format.InfoHeldMonitors]; got != "yes" {
			t.Fatalf(".info held_monitors=%q, want yes", got)
		}
		count := func(key string) int {
			n, _ := strconv.Atoi(rec.Info[key])
			return n
		}
		// Every contended enter is read, asked or skipped (its monitor free again), once: the
		// nesters' four (read or asked: the lock orders below list them), and any the JDK's own
		// code made on a loaded machine (CI saw 5 enters, one skipped).
		r := load(t, prefix)
		enters := r.sel(format.MonitorContendedEnter, nil)
		read, asked, skipped := count(format.InfoHeldVirtualRead), count(format.InfoHeldVirtualAsked), count(format.InfoHeldSkipped)
		all := count(format.InfoHeldRead) + count(format.InfoHeldAsked) + skipped
		if dropped := count(format.InfoHeldDropped); dropped != 0 || read < 1 || asked < 1 || read+asked < 4 || all != len(enters) {
			t.Errorf(".info held_monitors_dropped=%d virtual_read=%d virtual_asked=%d; read, asked or skipped %d, %d contended enters; "+
				"want none dropped, of the virtual threads' at least one read and one asked and 4 in all, each enter counted once",
				dropped, read, asked, all, len(enters))
			for _, i := range enters {
				t.Logf("%s", r.describe(i))
			}
		}
		checkHeldCheck(t, res.stderr, true, 1)
		for _, err := range modeltest.Validate(built.Model) {
			t.Errorf("model: %v", err)
		}
		m := built.Model
		names := map[format.ObjectID]string{}
		for _, k := range []string{"a", "b", "c", "d"} {
			names[format.ObjectID(e.hash(t, k))] = k
		}
		got := map[string][]string{}
		for i := range m.LockOrders {
			o := &m.LockOrders[i]
			th := m.Thread(o.Thread)
			if th == nil {
				continue
			}
			var hs []string
			for _, h := range o.Held {
				hs = append(hs, fmt.Sprintf("%s@%d", names[h.Object], h.Depth))
			}
			got[th.Name] = append(got[th.Name], names[o.Wanted]+"<"+strings.Join(hs, ","))
		}
		want := map[string][]string{"va": {"b<a@1"}, "vb": {"a<b@1"}, "vc": {"d<c@1"}, "vd": {"c<d@1"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("held at contended enters %v, want %v", got, want)
		}
		rep := report.New(rec, built, report.Options{})
		if len(rep.Deadlocks) != 0 {
			t.Errorf("deadlocks %+v, want none", rep.Deadlocks)
		}
		cycles := potentialCycles(t, rep, names, true)
		id := func(k string) string { return format.ThreadID(e.hash(t, k)).String() }
		wantCycles := [][]string{
			{id("va") + " va: a in VirtualInversion.outerPark, b at VirtualInversion.innerPark",
				id("vb") + " vb: b in VirtualInversion.outerPark, a at VirtualInversion.innerPark"},
			{id("vc") + " vc: c in VirtualInversion.outerSpin, d at VirtualInversion.innerSpin",
				id("vd") + " vd: d in VirtualInversion.outerSpin, c at VirtualInversion.innerSpin"},
		}
		if !reflect.DeepEqual(cycles, wantCycles) {
			t.Errorf("potential deadlocks:\n%q\nwant\n%q", cycles, wantCycles)
		}
	})
}

var heldCheckLine = regexp.MustCompile(`orca: held check( \(virtual threads\))?: (\d+) the same as JVMTI's, (\d+) different`)

// checkHeldCheck reads ORCA_HELD_CHECK's line at exit (of the virtual threads' reads, or the
// platform threads'): no read different from JVMTI's answer, at least min the same.
func checkHeldCheck(t *testing.T, stderr string, virtual bool, min int) {
	t.Helper()
	for _, m := range heldCheckLine.FindAllStringSubmatch(stderr, -1) {
		if (m[1] != "") != virtual {
			continue
		}
		same, _ := strconv.Atoi(m[2])
		differ, _ := strconv.Atoi(m[3])
		if differ != 0 || same < min {
			t.Errorf("ORCA_HELD_CHECK (virtual %v): %d reads the same as JVMTI's, %d different; want at least %d, none different",
				virtual, same, differ, min)
		}
		return
	}
	t.Errorf("no ORCA_HELD_CHECK line (virtual %v) in the JVM's stderr:\n%s", virtual, tail(stderr, 2000))
}

// potentialCycles lists rep's potential deadlocks, each edge as "NAME: HELD in METHOD, WANTED at
// METHOD" (the objects by names, the methods of the stacks' innermost frames, "?" for none),
// with the thread's id first when withID.
func potentialCycles(t *testing.T, rep *report.Report, names map[format.ObjectID]string, withID bool) [][]string {
	t.Helper()
	top := func(st []string) string {
		if len(st) == 0 {
			return "?"
		}
		s, _, _ := strings.Cut(st[0], "(")
		return s
	}
	var cycles [][]string
	for _, d := range rep.PotentialDeadlocks {
		var edges []string
		for _, ed := range d.Edges {
			who := *ed.Name
			if withID {
				who = ed.Thread + " " + who
			}
			edges = append(edges, fmt.Sprintf("%s: %s in %s, %s at %s", who,
				names[format.ObjectID(parseHash(t, "held", ed.Held))], top(ed.HeldStack),
				names[format.ObjectID(parseHash(t, "wanted", ed.Wanted))], top(ed.WantedStack)))
		}
		cycles = append(cycles, edges)
	}
	return cycles
}
