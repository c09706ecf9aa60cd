package integration

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/report"
)

// TestHoldTimes is issue 36's item 3 on a real JVM (HoldTimes.java): holders take a monitor and
// a fair ReentrantLock after waiting, from two sites each, and hold them HOLD_MS (a sleep) while
// the others wait. The report's locks[].hold has, per lock, exactly the holds begun while others
// waited (all but the last holder of each round), and per site the program's own counts; its
// p50 and max are those of the lengths the program measured (from one holder's acquisition to
// the next's) within 5 ms + 1 % (the program notes the time just after the JVM's event of the
// acquisition: a few µs, more on a loaded machine), and at least HOLD_MS.
func TestHoldTimes(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "HoldTimes")
		rec, built := buildModel(t, prefix)
		for _, err := range modeltest.Validate(built.Model) {
			t.Errorf("model: %v", err)
		}
		rep := report.New(rec, built, report.Options{})
		holdMS := e.int(t, "hold_ms")
		mon, juc := holdLocks(t, rep, format.ObjectID(e.hash(t, "monitor")).String())
		check := func(name string, l *report.Lock, key, siteA, siteB string) {
			h := l.Hold
			if h == nil {
				t.Errorf("%s: no hold times", name)
				return
			}
			ns := e.nanos(t, key+".ns")
			slices.Sort(ns)
			show := fmt.Sprintf("%s: hold %+v; the program's holds (ns) %v", name, *h, ns)
			t.Log(show)
			if h.Count != len(ns) {
				t.Errorf("%s: %d holds, want %d (all but the last holder of each round)", show, h.Count, len(ns))
			}
			near := func(what string, got float64, want int64) {
				w := float64(want) / 1e9
				if math.Abs(got-w) > 0.005+0.01*w {
					t.Errorf("%s: %s %.6f s, the program's %.6f s", show, what, got, w)
				}
				if got < float64(holdMS)/1e3*0.99 {
					t.Errorf("%s: %s %.6f s, shorter than the %d ms each holder slept holding it", show, what, got, holdMS)
				}
			}
			near("p50", h.P50S, ns[(len(ns)+1)/2-1])
			near("max", h.MaxS, ns[len(ns)-1])
			var sum int64
			for _, n := range ns {
				sum += n
			}
			near("mean", h.MeanS, sum/int64(len(ns)))
			want := map[string]int{siteA: e.int(t, key+".a"), siteB: e.int(t, key+".b")}
			got := map[string]int{}
			for _, s := range h.Sites {
				for _, f := range s.Frames {
					if strings.HasPrefix(f, "HoldTimes.") && !strings.HasPrefix(f, "HoldTimes.round") && !strings.HasPrefix(f, "HoldTimes.lambda") {
						name, _, _ := strings.Cut(f, "(")
						got[name] += s.Count
						break
					}
				}
			}
			for site, n := range want {
				if got[site] != n {
					t.Errorf("%s: %d holds taken at %s, want %d (sites %v)", show, got[site], site, n, got)
				}
			}
		}
		check("monitor", mon, "mon", "HoldTimes.siteA", "HoldTimes.siteB")
		check("ReentrantLock", juc, "juc", "HoldTimes.jucA", "HoldTimes.jucB")
		if mon.Hold == nil {
			return
		}
		var txt bytes.Buffer
		if err := rep.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("held while others waited: %d holds, mean ", mon.Hold.Count); !strings.Contains(txt.String(), want) {
			t.Errorf("the text report has no %q:\n%s", want, txt.String())
		}
	})
}

// holdLocks returns HoldTimes' monitor and fair ReentrantLock among the report's locks.
func holdLocks(t *testing.T, rep *report.Report, monitor string) (mon, juc *report.Lock) {
	t.Helper()
	for i := range rep.Locks {
		switch l := &rep.Locks[i]; {
		case l.Object == monitor && l.Kind == "monitor":
			mon = l
		case l.Kind == "juc" && l.Class != nil && strings.HasSuffix(*l.Class, "ReentrantLock$FairSync;"):
			juc = l
		}
	}
	if mon == nil || juc == nil {
		t.Fatalf("monitor %s: %v, the fair ReentrantLock: %v; want both among the report's locks", monitor, mon != nil, juc != nil)
	}
	return mon, juc
}

// recordLockOrder records LockOrder.java with --lock-order and its j.u.c. part (juc); the
// JVM opens java.util.concurrent.locks to it, which reads the locks' synchronizers for their
// hashes.
func recordLockOrder(t *testing.T, j jdk) (expect, string) {
	t.Helper()
	return recordLockOrderWith(t, j, "--lock-order")
}

// recordLockOrderWith records LockOrder.java as recordLockOrder does, with the orca record
// flags given (--lock-order=monitors: the monitors' part alone; none: the default, nothing held).
func recordLockOrderWith(t *testing.T, j jdk, flags ...string) (expect, string) {
	t.Helper()
	res, prefix := recordJVMcpWith(t, j, flags,
		[]string{"--add-opens", "java.base/java.util.concurrent.locks=ALL-UNNAMED", "-cp", classes(t)}, "LockOrder", "juc")
	return expectOf(t, res, prefix)
}

// TestPotentialDeadlocks is issue 36's item 2 on a real JVM (LockOrder.java): threads nest
// monitors and java.util.concurrent locks one after the other, never at once, with the second
// acquisition of each nesting contended. The agent writes what each thread held at its contended
// enter or park (.info held_monitors=yes, held_locks=yes): inv-1 a (taken in outerA), inv-2 b
// (in outerB), gate-1 and gate-2 one lock and the gate g, fixed-1 and fixed-2 e, alone p and then
// q, fresh-1 and fresh-2 a new Object; jinv-1 ja (outerJA), jinv-2 jb (outerJB, tryLock), mix-1
// the monitor ma (outerMA), mix-2 jm (outerJM), jgate-1 and jgate-2 one lock and the gate jg,
// jalone jp and then jq, rr-1 rw's read lock, rr-2 the monitor mr. The report has exactly three
// potential deadlocks, in this order: inv-1 held a in outerA and wanted b in innerB, inv-2 held b
// in outerB and wanted a in innerA; the same over ja and jb; mix-1 held ma in outerMA and wanted
// jm in innerJM, mix-2 held jm in outerJM and wanted ma in innerMA. The gated inversions, the
// fixed order, the one thread in both orders, the short-lived Objects and the two readers make
// none.
func TestPotentialDeadlocks(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordLockOrder(t, j)
		checkPotential(t, e, prefix, "yes", withMonitorsHeld(map[string][]string{
			"jinv-1": {"jb:x<ja:x@outerJA"}, "jinv-2": {"ja:x<jb:x@outerJB"},
			"mix-1": {"jm:x<ma@outerMA"}, "mix-2": {"ma<jm:x@outerJM"},
			"jgate-1": {"jd:x<jc:x@nestJ,jg:x@gatedJ"}, "jgate-2": {"jc:x<jd:x@nestJ,jg:x@gatedJ"},
			"jalone": {"jq:x<jp:x@nestJ", "jp:x<jq:x@nestJ"},
			"rr-1":   {"mr<rw:s@readThenMonitor"}, "rr-2": {"rw:s<mr@monitorThenRead"},
		}), []string{"inv", "jinv", "mix"})
	})
}

// TestPotentialDeadlocksMonitors: with --lock-order=monitors the agent lists, at each contended
// monitor enter, the monitors the thread holds (.info held_monitors=yes), but not its
// java.util.concurrent locks, nor anything at a park (held_locks=no: off, no LockHeld line). On
// LockOrder.java the monitors' nestings are seen as with --lock-order, the j.u.c. locks' are
// not: the contended enters of mix-2 (holding jm) and rr-1 (holding rw's read lock) list nothing
// held, the parks of the j.u.c. threads nothing at all. So the one potential deadlock over
// monitors alone, inv-1 and inv-2's, is found; the j.u.c. and mixed ones are --lock-order's.
// Without the flag (the default, since the monitors are read from the thread's own frames) the
// same: the default agent before recorded nothing held. With --lock-order=off nothing held is
// recorded: held_monitors and held_locks off, no MonitorHeld or LockHeld line, and the report
// says potential deadlocks were not looked for.
func TestPotentialDeadlocksMonitors(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordLockOrderWith(t, j, "--lock-order=monitors")
		checkPotential(t, e, prefix, "no: off (orca record --lock-order turns it on)", withMonitorsHeld(nil), []string{"inv"})
		if n := heldLines(t, prefix); n[format.MonitorHeld] == 0 || n[format.LockHeld] != 0 {
			t.Errorf("--lock-order=monitors: %d MonitorHeld, %d LockHeld lines; want some, none", n[format.MonitorHeld], n[format.LockHeld])
		}

		// The default: the same (the old agent's default recorded nothing held).
		e, prefix = recordLockOrderWith(t, j)
		checkPotential(t, e, prefix, "no: off (orca record --lock-order turns it on)", withMonitorsHeld(nil), []string{"inv"})

		_, prefix = recordLockOrderWith(t, j, "--lock-order=off")
		rec, built := buildModel(t, prefix)
		if got, gotLocks := rec.Info[format.InfoHeldMonitors], rec.Info[format.InfoHeldLocks]; got != "no: off (orca record --lock-order=off)" || gotLocks != got {
			t.Errorf("--lock-order=off: .info held_monitors=%q, held_locks=%q; want both %q", got, gotLocks, "no: off (orca record --lock-order=off)")
		}
		if n := heldLines(t, prefix); n[format.MonitorHeld] != 0 || n[format.LockHeld] != 0 {
			t.Errorf("--lock-order=off: %d MonitorHeld, %d LockHeld lines; want none", n[format.MonitorHeld], n[format.LockHeld])
		}
		rep := report.New(rec, built, report.Options{})
		if got, want := rep.PotentialNote(), "Potential deadlocks: not looked for (recorded with orca record --lock-order=off)."; len(rep.PotentialDeadlocks) != 0 || got != want {
			t.Errorf("--lock-order=off: %d potential deadlocks, note %q; want none, %q", len(rep.PotentialDeadlocks), got, want)
		}
	})
}

// heldLines counts the recording's MonitorHeld and LockHeld lines.
func heldLines(t *testing.T, prefix string) map[format.Kind]int {
	t.Helper()
	n := map[format.Kind]int{}
	for _, ev := range loadStacks(t, prefix, false).events {
		if ev.Kind == format.MonitorHeld || ev.Kind == format.LockHeld {
			n[ev.Kind]++
		}
	}
	return n
}

// withMonitorsHeld adds to m what LockOrder's threads that nest monitors alone held at their
// contended enters (checkPotential's want).
func withMonitorsHeld(m map[string][]string) map[string][]string {
	w := map[string][]string{
		"inv-1": {"b<a@1"}, "inv-2": {"a<b@1"},
		"gate-1": {"d<c@0,g@1"}, "gate-2": {"c<d@0,g@1"},
		"fixed-1": {"f<e@0"}, "fixed-2": {"f<e@0"},
		"alone":   {"q<p@0", "p<q@0"},
		"fresh-1": {"new<new@0"}, "fresh-2": {"new<new@0"},
	}
	maps.Copy(w, m)
	return w
}

// checkPotential checks a recording of LockOrder.java: its .info held_monitors=yes and
// held_locks as given, what each nesting thread held at its contended acquisitions (want, as
// below), and the report's potential deadlocks: exactly those of the named pairs, in that order
// (inv: inv-1 held a in outerA and wanted b in innerB, inv-2 held b in outerB and wanted a in
// innerA; jinv the same over ja and jb; mix: mix-1 held ma in outerMA and wanted jm in innerJM,
// mix-2 held jm in outerJM and wanted ma in innerMA).
func checkPotential(t *testing.T, e expect, prefix, heldLocks string, want map[string][]string, pairs []string) {
	t.Helper()
	rec, built := buildModel(t, prefix)
	if got := rec.Info[format.InfoHeldMonitors]; got != "yes" {
		t.Fatalf(".info held_monitors=%q, want yes", got)
	}
	if got := rec.Info[format.InfoHeldLocks]; got != heldLocks {
		t.Fatalf(".info held_locks=%q, want %q", got, heldLocks)
	}
	for _, err := range modeltest.Validate(built.Model) {
		t.Errorf("model: %v", err)
	}
	m := built.Model
	obj := func(key string) format.ObjectID { return format.ObjectID(e.hash(t, key)) }
	// What the agent saw each nesting thread hold: per thread, per
	// contended acquisition, "wanted<held@where,…" (the locks by their
	// EXPECT names, short-lived ones as "new"; a j.u.c. lock with its
	// mode, :x or :s). Where: the frame's depth among monitors; the
	// method of that frame when a j.u.c. lock is in the nesting (the
	// depth in a park's stack depends on the JDK's j.u.c. code).
	names := map[format.ObjectID]string{}
	for _, k := range []string{"a", "b", "c", "d", "g", "e", "f", "p", "q", "ja", "jb", "ma", "jm", "jc", "jd", "jg", "jp", "jq", "mr", "rw"} {
		names[obj(k)] = k
	}
	name := func(o format.ObjectID, mode format.AcquireMode) string {
		n, ok := names[o]
		if !ok {
			n = "new"
		}
		switch mode {
		case format.ModeExclusive:
			n += ":x"
		case format.ModeShared:
			n += ":s"
		}
		return n
	}
	method := func(st []format.Frame) string {
		if len(st) == 0 {
			return "?"
		}
		s, _, _ := strings.Cut(rec.Resolve(st[0]), "(")
		return strings.TrimPrefix(s, "LockOrder.")
	}
	got := map[string][]string{}
	for i := range m.LockOrders {
		o := &m.LockOrders[i]
		th := m.Thread(o.Thread)
		if th == nil || strings.HasPrefix(th.Name, "holder-") {
			continue
		}
		juc := o.Mode != format.ModeNone
		for _, h := range o.Held {
			juc = juc || h.Mode != format.ModeNone
		}
		var hs []string
		for _, h := range o.Held {
			if juc {
				hs = append(hs, name(h.Object, h.Mode)+"@"+method(m.HeldStack(o, h)))
			} else {
				hs = append(hs, fmt.Sprintf("%s@%d", name(h.Object, h.Mode), h.Depth))
			}
		}
		slices.Sort(hs)
		got[th.Name] = append(got[th.Name], name(o.Wanted, o.Mode)+"<"+strings.Join(hs, ","))
	}
	if !reflect.DeepEqual(got, want) {
		// What the agent counted of the held monitors it did not write
		// (fc55 at load 20: inv-1's acquisition missing on 17).
		var counted []string
		for _, k := range []string{format.InfoHeldUnread, format.InfoHeldSkipped, format.InfoHeldDropped, format.InfoHeldRetimed, format.InfoHeldRead, format.InfoHeldLocksLost} {
			counted = append(counted, k+"="+rec.Info[k])
		}
		t.Errorf("held at contended acquisitions %v, want %v (.info %s)", got, want, strings.Join(counted, " "))
	}

	rep := report.New(rec, built, report.Options{})
	if len(rep.Deadlocks) != 0 {
		t.Errorf("deadlocks %+v, want none", rep.Deadlocks)
	}
	ids := map[string]string{}
	for _, th := range m.Threads {
		ids[th.Name] = th.ID.String()
	}
	// The first frame of LockOrder's in a stack: a park's has the
	// JDK's j.u.c. frames above it.
	top := func(st []string) string {
		for _, f := range st {
			if s, _, _ := strings.Cut(f, "("); strings.HasPrefix(s, "LockOrder.") {
				return s
			}
		}
		return "?"
	}
	var cycles [][]string
	for _, d := range rep.PotentialDeadlocks {
		var edges []string
		for _, ed := range d.Edges {
			mode := func(m string) string {
				if m == "" {
					return ""
				}
				return ":" + m[:1]
			}
			edges = append(edges, fmt.Sprintf("%s %s:%s%s in %s, %s%s at %s", ed.Thread, *ed.Name,
				name(format.ObjectID(parseHash(t, "held", ed.Held)), 0), mode(ed.HeldMode), top(ed.HeldStack),
				name(format.ObjectID(parseHash(t, "wanted", ed.Wanted)), 0), mode(ed.WantedMode), top(ed.WantedStack)))
		}
		cycles = append(cycles, edges)
	}
	all := map[string][]string{
		"inv": {ids["inv-1"] + " inv-1:a in LockOrder.outerA, b at LockOrder.innerB",
			ids["inv-2"] + " inv-2:b in LockOrder.outerB, a at LockOrder.innerA"},
		"jinv": {ids["jinv-1"] + " jinv-1:ja:e in LockOrder.outerJA, jb:e at LockOrder.innerJB",
			ids["jinv-2"] + " jinv-2:jb:e in LockOrder.outerJB, ja:e at LockOrder.innerJA"},
		"mix": {ids["mix-1"] + " mix-1:ma in LockOrder.outerMA, jm:e at LockOrder.innerJM",
			ids["mix-2"] + " mix-2:jm:e in LockOrder.outerJM, ma at LockOrder.innerMA"},
	}
	var wantCycles [][]string
	for _, p := range pairs {
		wantCycles = append(wantCycles, all[p])
	}
	if !reflect.DeepEqual(cycles, wantCycles) {
		t.Errorf("potential deadlocks:\n%q\nwant\n%q", cycles, wantCycles)
	}
}

// heldSlowMS: how late TestHeldNotBlocked makes the held-locks call (ORCA_TEST_SLOW_HELD_MS).
const heldSlowMS = 600

// TestHeldNotBlocked: the agent's JVMTI call that lists a contender's held locks (7-70 us, ~4 ms
// at the 99th percentile) is never the contender's recorded wait. At a park in a j.u.c. lock's
// acquire (--lock-order) the thread makes it before it blocks, and the park's time is taken after
// it; at a contended monitor enter the agent's held thread makes it while the thread blocks.
// ORCA_TEST_SLOW_HELD_MS makes the call last 600 ms; LockOrder's holders take each lock before
// their contender starts and keep it HOLD_MS (100 ms), and at least until the contender blocks on
// it (BLOCKED, or parked on the lock's synchronizer) and MIN_MS (50 ms) more: however late a
// loaded machine runs the contender, its contention is there (a holder that slept 100 ms from
// before the contender started was gone before it came: 18 of 20 once on 17, 14-17 of 20 in each
// of 4 runs at 8 busy loops beside load 14). So every contention of a nesting thread (monitors
// and j.u.c. locks, 20 of them) is recorded under 550 ms: a park's and a monitor enter's the
// holder's 100 ms and the scheduling of a loaded machine (8 busy loops beside load 14 made a few
// of 262-550 ms, with the holders before too; at load 11, 277-367 ms, over the 250 ms this test
// had with a 300 ms call); with the time taken before the call, or the call in the thread's
// wait, each would be 650 ms or more (the call and MIN_MS). The same with --lock-order=monitors, the 12 contentions of the threads that enter a
// monitor (the parks each wait for the holder's whole 100 ms). The knob slows the read from the
// thread's own frames too (the thread then reads before its enter's time: not recorded as
// blocked); with ORCA_HELD_JVMTI=1 (every enter asked of the held thread) every answer, 600 ms
// late, is dropped (checkHeldAllDropped).
func TestHeldNotBlocked(t *testing.T) {
	t.Setenv("ORCA_TEST_SLOW_HELD_MS", strconv.Itoa(heldSlowMS))
	monitors := "inv-1 inv-2 gate-1 gate-2 fixed-1 fixed-2 alone fresh-1 fresh-2 mix-2 rr-1"
	forEachJDK(t, func(t *testing.T, j jdk) {
		_, prefix := recordLockOrder(t, j)
		checkHeldNotBlocked(t, prefix, monitors+" jinv-1 jinv-2 mix-1 jgate-1 jgate-2 jalone rr-2", 20)
		_, prefix = recordLockOrderWith(t, j, "--lock-order=monitors")
		checkHeldNotBlocked(t, prefix, monitors, 12)
		// The held thread's path alone (no read from the frames): its answers,
		// 600 ms late, all dropped.
		t.Setenv("ORCA_HELD_JVMTI", "1")
		_, prefix = recordLockOrderWith(t, j, "--lock-order=monitors")
		t.Setenv("ORCA_HELD_JVMTI", "")
		checkHeldNotBlocked(t, prefix, monitors, 12)
		checkHeldAllDropped(t, prefix)
	})
}

// checkHeldAllDropped: a contended monitor enter's held monitors are asked by the agent's held
// thread while the contender blocks, and kept only if it still blocks after the answer; made
// 600 ms late (ORCA_TEST_SLOW_HELD_MS), every answer comes after its contender got its monitor
// (LockOrder's holders keep each lock 100 ms): none is written, and every contended enter is
// counted, asked or skipped (its monitor free again before it was asked), and each asked one
// dropped, unread or kept, once. Kept only if its thread was still blocked after the answer: on
// a loaded machine an enter may last that long (on 17 one in Thread.exit, holding nothing), so
// kept answers (asked less dropped and unread) are at most the enters blocked that long, and
// only they may write lines.
func checkHeldAllDropped(t *testing.T, prefix string) {
	t.Helper()
	rec, built := buildModel(t, prefix)
	count := func(key string) int {
		n, _ := strconv.Atoi(rec.Info[key])
		return n
	}
	enters := 0
	for _, ev := range loadStacks(t, prefix, false).events {
		if ev.Kind == format.MonitorContendedEnter {
			enters++
		}
	}
	long := 0 // contentions blocked past the answer's delay (less 50 ms of clocks' and queue's slack)
	for _, th := range built.Model.Threads {
		ends := map[format.Time]format.Time{}
		for _, iv := range th.Intervals {
			if iv.Shown() == model.Blocked {
				ends[iv.Since] = max(ends[iv.Since], iv.End)
			}
		}
		for since, end := range ends {
			if end-since >= format.Time((heldSlowMS-50)*time.Millisecond) {
				long++
			}
		}
	}
	dropped, skipped, unread := count(format.InfoHeldDropped), count(format.InfoHeldSkipped), count(format.InfoHeldUnread)
	asked, read := count(format.InfoHeldAsked), count(format.InfoHeldRead)
	// An enter asked and then dropped whole (its pair's slot still held
	// by the writer past its bound: .info dropped_total) has no record.
	lost := count(format.InfoDroppedTotal)
	kept := asked - dropped - unread
	lines := heldLines(t, prefix)[format.MonitorHeld]
	if read != 0 || asked+skipped < enters || asked+skipped > enters+lost || dropped == 0 || kept < 0 || kept > long+lost || (kept == 0 && lines != 0) {
		t.Errorf("answers %d ms late: %d MonitorHeld lines, held_monitors_asked=%d, read=%d, dropped=%d, skipped=%d, unread=%d, "+
			"%d contended enters (dropped_total=%d), %d of them blocked %d ms or more; want every enter asked or skipped, none read "+
			"from the frames, each asked one dropped or unread but those blocked that long, and lines only from those",
			heldSlowMS, lines, asked, read, dropped, skipped, unread, enters, lost, long, heldSlowMS-50)
	}
}

// checkHeldNotBlocked checks TestHeldNotBlocked's recording: the contentions of the threads
// named, want of them, each blocked under heldSlowMS - 50 ms.
func checkHeldNotBlocked(t *testing.T, prefix, names string, want int) {
	t.Helper()
	rec, built := buildModel(t, prefix)
	m := built.Model
	n := 0
	var seen []string // each thread's contentions, for a count that is not want
	for _, th := range m.Threads {
		if !slices.Contains(strings.Fields(names), th.Name) {
			continue
		}
		ends := map[format.Time]format.Time{} // a contention's start -> its end
		for _, iv := range th.Intervals {
			// LockOrder's contentions only: on 17 a nesting thread may
			// also contend, briefly, in Thread.exit (its ThreadGroup's or
			// its Thread's monitor, with main starting or joining threads):
			// real, but none of LockOrder's locks, and no frame of it.
			if iv.Shown() == model.Blocked && slices.ContainsFunc(m.Stacks[iv.Stack], func(f format.Frame) bool { return rec.ClassName(f.Method) == "LockOrder" }) {
				ends[iv.Since] = max(ends[iv.Since], iv.End)
				seen = append(seen, fmt.Sprintf("%s %v..%v on %v", th.Name, iv.Since, iv.End, iv.Object))
			}
		}
		for since, end := range ends {
			n++
			if d := end - since; d >= format.Time((heldSlowMS-50)*time.Millisecond) {
				t.Errorf("%s: blocked %v at %v, want under %d ms: the held-locks call (%d ms) is not the thread's wait", th.Name,
					time.Duration(d), since, heldSlowMS-50, heldSlowMS)
			}
		}
	}
	if n != want {
		t.Errorf("%d contentions of the nesting threads, want %d:\n%s", n, want, strings.Join(seen, "\n"))
	}
}
