package integration

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"orca/internal/attach"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
	"orca/internal/testjvm"
)

// TestAttachStuck attaches to StuckBeforeAttach, started without any agent and stuck before the
// attach (a deadlock of two monitors, a thread parked on a ReentrantLock held by a sleeping
// thread, a waiter notified later by a sleeping thread), records 4 s and stops: the recording
// holds what the threads were doing at the attach (attached.c), so the report finds the
// deadlock with the objects' own identity hashes and classes (named by the agent: the program
// hashes them only after the stop), the lock's owner, and the waiter's wait ended by napper's
// notifyAll, whose sleep ended before it. The program then goes on and exits 0. The load is
// the attach protocol's (internal/attach), as orca record --pid's.
func TestAttachStuck(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		prefix := dir + "/rec"
		e := recordStuck(t, stuckAttachee(t, j, dir), prefix)

		// The seed export holds the same events (issue 23): orca dump prints both alike.
		bin := orcaBin(t)
		if r := run(t, dir, bin, "export", "--format", "seed", "-o", dir+"/seed", prefix); r.code != 0 {
			t.Fatalf("orca export --format seed: %s", r)
		}
		d1, d2 := run(t, dir, bin, "dump", prefix), run(t, dir, bin, "dump", dir+"/seed")
		d1.stdout = withoutSamples(d1.stdout) // the seed's format has no kind for them: the export leaves them out
		if d1.code != 0 || d2.code != 0 || d1.stdout != d2.stdout || strings.Count(d1.stdout, "\n") < 30 {
			t.Errorf("orca dump of the recording (%d lines) and of its seed export (%d lines) differ:\n%s\n---\n%s",
				strings.Count(d1.stdout, "\n"), strings.Count(d2.stdout, "\n"), tail(d1.stdout, 2000), tail(d2.stdout, 2000))
		}

		rec, built := buildModel(t, prefix)
		if rec.Info[format.InfoAttached] != "true" || rec.Info[format.InfoStopped] != "true" || rec.Info[format.InfoComplete] != "true" {
			t.Errorf(".info: attached=%q stopped=%q complete=%q, want true", rec.Info[format.InfoAttached], rec.Info[format.InfoStopped],
				rec.Info[format.InfoComplete])
		}
		if n, _ := rec.Info.Int(format.InfoBlockedAtAttach); n < 7 {
			t.Errorf(".info blocked_at_attach=%d, want at least 7 (dead-1, dead-2, holder, parker, waiter, napper, main)", n)
		}
		rep := report.New(rec, built, report.Options{})
		if a := rep.Attached; a == nil || !a.Stopped || a.AliveAtAttach < 8 {
			t.Errorf("report: Attached = %+v, want stopped, 8 threads or more alive at the attach", a)
		}
		if rep.DurationS < 3.9 {
			t.Errorf("report: %.2f s recorded, want the 4 s to the stop", rep.DurationS)
		}
		id := func(k string) string { return format.ThreadID(e.hash(t, k)).String() }
		obj := func(k string) string { return format.ObjectID(e.hash(t, k)).String() }

		// The deadlock, with the monitors' own hashes and class.
		found := false
		for _, d := range rep.Deadlocks {
			if !d.AtEnd || len(d.Threads) != 2 {
				continue
			}
			for i := range d.Threads {
				k := 1 - i
				if d.Threads[i] != id("dead_1") || d.Threads[k] != id("dead_2") {
					continue
				}
				found = true
				// dead-1 holds a and waits for b.
				if d.Objects[i] == nil || *d.Objects[i] != obj("b") || d.Objects[k] == nil || *d.Objects[k] != obj("a") ||
					len(d.Classes) != 2 || d.Classes[i] == nil || *d.Classes[i] != "Ljava/lang/Object;" {
					t.Errorf("report: the deadlock %+v, want dead-1 on b (%s) and dead-2 on a (%s), both java.lang.Object", d, obj("b"), obj("a"))
				}
			}
		}
		if !found {
			t.Errorf("report: no deadlock of dead-1 and dead-2 at the end: %+v", rep.Deadlocks)
		}
		// All of it began before the attach, and the report says so (issue 31, item 5): the
		// deadlock was already there, the hangs' states were, the threads were alive.
		for _, d := range rep.Deadlocks {
			if !d.BeforeAttach || d.AtS != 0 {
				t.Errorf("report: deadlock %+v, want before_attach at 0 s", d)
			}
		}
		for _, l := range rep.Locks {
			if l.Object == obj("a") && (l.Open != 1 || l.BeforeAttach != 1 || len(l.Sites) != 1 || l.Sites[0].BeforeAttach != 1) {
				t.Errorf("report: the lock a %+v, want 1 contention still open, blocked since before the attach", l)
			}
		}
		for _, th := range rep.Threads {
			if th.ID == id("dead_1") && !th.BeforeAttach {
				t.Errorf("report: dead-1 %+v, want before_attach (alive at the attach)", th)
			}
		}
		var txt bytes.Buffer
		rep.WriteText(&txt)
		if s := txt.String(); !strings.Contains(s, "#1 already deadlocked when orca attached, still there at the end (≥ ") ||
			strings.Contains(s, "formed at 0.000 s") || !strings.Contains(s, "for at least ") || !strings.Contains(s, "(since before the attach)") ||
			!strings.Contains(s, "(blocked since before the attach: at least that long)") {
			t.Errorf("report: the text does not say that the deadlock and the hangs began before the attach")
		}
		// parker: blocked on the lock holder holds, since the attach.
		parked := false
		for _, h := range rep.Hangs {
			if h.Thread == id("parker") {
				parked = true
				if h.State != "blocked" || h.Other == nil || *h.Other != id("holder") || h.SinceS != 0 || !h.BeforeAttach {
					t.Errorf("report: parker %+v, want blocked on the lock held by holder %s since before the attach (0 s)", h, id("holder"))
				}
			}
			if h.Thread == id("waiter") || h.Thread == id("napper") {
				t.Errorf("report: %s hangs: %+v", *h.Name, h)
			}
		}
		if !parked {
			t.Errorf("report: parker is not among the hangs: %+v", rep.Hangs)
		}
		// The waiter's wait on w, from the attach, ended by napper's notifyAll; napper slept until then.
		m := built.Model
		var waited, slept *model.Interval
		for _, th := range m.Threads {
			for i := range th.Intervals {
				iv := &th.Intervals[i]
				switch {
				case th.ID == format.ThreadID(e.hash(t, "waiter")) && iv.State == model.Waiting && !iv.Cont:
					waited = iv
				case th.ID == format.ThreadID(e.hash(t, "napper")) && iv.State == model.Sleeping:
					slept = iv
				}
			}
		}
		if waited == nil || waited.Object != format.ObjectID(e.hash(t, "w")) || waited.Start != m.Start ||
			waited.Wake != model.WakeNotifyAll || waited.Other != format.ThreadID(e.hash(t, "napper")) {
			t.Errorf("waiter: %+v, want a wait on w %s from the attach %v, ended by napper's notifyAll", waited, obj("w"), m.Start)
		}
		if slept == nil || slept.Start != m.Start || slept.Open || waited != nil && slept.End > waited.End {
			t.Errorf("napper: %+v, want a sleep from the attach, over before the waiter's wait (%+v)", slept, waited)
		}
		if t.Failed() {
			var txt bytes.Buffer
			rep.WriteText(&txt)
			t.Logf("report:\n%s", txt.String())
			if b, err := os.ReadFile(prefix + ".info"); err == nil {
				t.Logf(".info:\n%s", b)
			}
		}
	})
}

// stuckAttachee starts StuckBeforeAttach in dir, env added to its environment (the agent's
// switches: the JVM reads them when the agent loads).
func stuckAttachee(t *testing.T, j jdk, dir string, env ...string) *attachee {
	t.Helper()
	cmd := testjvm.Command(t, dir, j.argv(dir, "-cp", classes(t), "StuckBeforeAttach")...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	return startAttacheeCmd(t, cmd, dir)
}

// recordStuck attaches to a (stuckAttachee), records 4 s into prefix, stops the recording and
// lets the program end (endStuck): its EXPECT line.
func recordStuck(t *testing.T, a *attachee, prefix string) expect {
	t.Helper()
	load := agentLoader(t, a)
	load("prefix=" + prefix + ",format=compact")
	time.Sleep(4 * time.Second)
	load("stop")
	return endStuck(t, a)
}

// endStuck tells StuckBeforeAttach that orca is done (STOPPED) and waits for its end: its
// EXPECT line, the objects' hashes it took only then.
func endStuck(t *testing.T, a *attachee) expect {
	t.Helper()
	if _, err := a.stdin.Write([]byte("STOPPED\n")); err != nil {
		t.Fatal(err)
	}
	e := parseExpectLine(a.expectLine(t, "EXPECT "))
	a.expectLine(t, "DONE")
	checkEnded(t, a, "StuckBeforeAttach")
	return e
}

// TestAttachWaitUnreadable: a thread blocked on a monitor or in Object.wait at the attach whose
// monitor cannot be read (every read of the owner site faults: ORCA_TEST_FAULTS=owner:1, as for
// a thread read between its state and its monitor — Tomcat under load had one) is not written
// as an enter or a wait on object 00000000, which names no object and made two lines the model
// could not place (the state and its end): it is counted (.info monitor_unread_at_attach: at
// least dead-1, dead-2 and waiter of StuckBeforeAttach), and the report says so. waiter's wait
// is then not in the recording, nor its end (napper's notifyAll, 3 s after READY); a contended
// enter by waiter after it wakes (of w, or of the JDK's monitors as it ends) is (see below).
func TestAttachWaitUnreadable(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		prefix := dir + "/rec"
		e := recordStuck(t, stuckAttachee(t, j, dir, "ORCA_TEST_FAULTS=owner:1"), prefix)
		r := loadStacks(t, prefix, false)
		r.checkParse(t)
		if !strings.HasPrefix(r.info["hotspot.safe_read"], "fault handler") {
			skipf(t, "no fault handler on this JDK (hotspot.safe_read=%s)", r.info["hotspot.safe_read"])
		}
		if n, _ := strconv.Atoi(r.info["hotspot.faults"]); n == 0 {
			t.Fatalf(".info: hotspot.faults=0, want the owner site's reads faulted")
		}
		waiter := format.ThreadID(e.hash(t, "waiter"))
		for i, ev := range r.events {
			switch ev.Kind {
			case format.ObjectWait, format.ObjectWaited, format.MonitorContendedEnter, format.MonitorContendedEntered:
				if ev.Object == 0 {
					t.Errorf("event %d: %v of %v on object 00000000", i, ev.Kind, ev.Thread)
				}
				// Its wait and the wait's end are not written. A contended
				// enter after it is another matter, recorded as JFR records
				// it: a wait that returns unnotified (a spurious wake-up,
				// which Object.wait allows) enters w again as any enter does,
				// and HotSpot posts that enter when napper holds w (CI on 17:
				// once, at napper's notifyAll); and waiter's end contends
				// with napper's on the JDK's own monitors (JDK 17's
				// ThreadGroup.threadTerminated is synchronized: fresh clone
				// fc57, an enter and its end on another object than w).
				if ev.Thread == waiter && (ev.Kind == format.ObjectWait || ev.Kind == format.ObjectWaited) {
					t.Errorf("event %d: %v of waiter, whose monitor was not read at the attach", i, ev.Kind)
				}
			}
		}
		unread, _ := strconv.Atoi(r.info[format.InfoUnreadAtAttach])
		if unread < 3 {
			t.Errorf(".info: %s=%d, want at least 3 (dead-1, dead-2, waiter)", format.InfoUnreadAtAttach, unread)
		}
		rec, built := buildModel(t, prefix)
		if n := len(built.Model.Problems); n != 0 {
			t.Errorf("the model has %d problems, want none: %v", n, built.Model.Problems[0])
		}
		rep := report.New(rec, built, report.Options{})
		var txt bytes.Buffer
		rep.WriteText(&txt)
		if rep.Attached == nil || rep.Attached.Unread != int64(unread) ||
			!strings.Contains(txt.String(), fmt.Sprintf("%d threads blocked on a monitor or waiting at the attach whose monitor could not be read", unread)) {
			t.Errorf("report: Attached %+v, want monitor_unread_at_attach %d, said in the text:\n%s", rep.Attached, unread, txt.String())
		}
	})
}

// TestAttachHotNotify: notify and notifyAll called from a method compiled (C2) before the attach
// (HotSpot may inline them as intrinsics) are all recorded after it: natives_live rebinds them
// with RegisterNatives, which makes the compiled callers' native wrappers not entrant. HotNotify
// makes exactly BURST of each on one object after the attach.
func TestAttachHotNotify(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		a := startAttacheeCmd(t, testjvm.Command(t, dir, j.argv(dir, "-cp", classes(t), "HotNotify")...), dir)
		e := parseExpectLine(a.expectLine(t, "EXPECT "))
		prefix := dir + "/rec"
		loadAgent := agentLoader(t, a)
		loadAgent("prefix=" + prefix)
		a.stdin.Write([]byte("go\n"))
		a.expectLine(t, "DONE")
		loadAgent("stop")
		a.stdin.Write([]byte("end\n"))
		checkEnded(t, a, "HotNotify")
		r := load(t, prefix)
		obj := format.ObjectID(e.hash(t, "o"))
		var all, one int
		for _, ev := range r.events {
			if ev.Object != obj {
				continue
			}
			switch ev.Kind {
			case format.ObjectNotifyAll:
				all++
			case format.ObjectNotify:
				one++
			}
		}
		// A burst of 100 000 events in a few milliseconds can fill the
		// thread's ring while the writer waits for a core (fc55 at load 20:
		// 1 347 of each missing): the agent drops them then, counted by
		// kind in .info. Every one recorded or counted; none lost silently.
		droppedAll, _ := strconv.Atoi(r.info[format.InfoDropped+format.ObjectNotifyAll.String()])
		droppedOne, _ := strconv.Atoi(r.info[format.InfoDropped+format.ObjectNotify.String()])
		if want := e.int(t, "burst"); all+droppedAll != want || one+droppedOne != want {
			t.Errorf("%d notifyAll and %d notify on o recorded, %d and %d dropped (.info), want %d of each", all, one, droppedAll, droppedOne, want)
		} else if droppedAll+droppedOne > 0 {
			t.Logf("%d notifyAll and %d notify dropped, counted (.info dropped_total=%s)", droppedAll, droppedOne, r.info[format.InfoDroppedTotal])
		}
	})
}

// agentLoader attaches to a (internal/attach, as orca record --pid) and returns a function that
// loads the agent with the options given (a start, or "stop"), as orca does, and fails the test
// unless Agent_OnAttach returns 0.
func agentLoader(t *testing.T, a *attachee) func(opts string) {
	t.Helper()
	vm, err := attach.Attach(a.jvm)
	if err != nil {
		t.Fatal(err)
	}
	lib := agentLib(t)
	return func(opts string) {
		t.Helper()
		if err := vm.WithoutRebindWarnings(func() error {
			code, _, err := vm.Load(lib, opts)
			if err == nil && code != 0 {
				err = fmt.Errorf("Agent_OnAttach returned %d", code)
			}
			return err
		}); err != nil {
			t.Fatalf("load %s: %v; stderr:\n%s", opts, err, a.stderr)
		}
	}
}

// parseExpectLine returns the KEY=VALUE fields of an EXPECT line.
func parseExpectLine(line string) expect {
	e := expect{line: line, kv: map[string]string{}}
	for _, f := range strings.Fields(line)[1:] {
		k, v, _ := strings.Cut(f, "=")
		e.kv[k] = v
	}
	return e
}

// checkEnded waits for a's end and checks that it exited 0 with no crash log, that neither the
// agent nor HotSpot's rebinding warnings wrote to its output (the JVM's own warning of JDK 21+
// about a dynamically loaded agent names the library; the agent itself says nothing).
func checkEnded(t *testing.T, a *attachee, name string) {
	t.Helper()
	select {
	case <-a.done:
	case <-time.After(javaTimeout / 2):
		t.Fatalf("%s did not end; stderr:\n%s", name, a.stderr)
	}
	checkNoCrashLog(t, &result{cmd: name, dir: a.dir, stderr: a.stderr.String()})
	if a.err != nil {
		t.Fatalf("%s: %v; stderr:\n%s", name, a.err, a.stderr)
	}
	if out := a.stdout.String() + a.stderr.String(); strings.Contains(out, "orca:") || strings.Contains(out, "Re-registering") {
		t.Errorf("the agent or the rebinding wrote to the application's output:\n%s", out)
	}
}

// TestAttachBlockInGap: a thread that blocks entering a monitor after the attach's snapshot saw
// it parked and before the events are on (the gap widened to 3 s by ORCA_TEST_ATTACH_GAP_MS,
// GO sent inside it) has its MonitorContendedEntered with no Enter. Before, the report said "1
// event could not be placed in a thread's timeline"; now the agent writes its Enter just before
// the Entered (owner unknown, counted as owner_unknown.before_events) and ends the park the
// snapshot saw first, so every event is placed and the pairs hold.
func TestAttachBlockInGap(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		cmd := testjvm.Command(t, dir, j.argv(dir, "-cp", classes(t), "BlockInAttachGap")...)
		cmd.Env = append(os.Environ(), "ORCA_TEST_ATTACH_GAP_MS=3000")
		a := startAttacheeCmd(t, cmd, dir)
		prefix := dir + "/rec"
		agentLoad := agentLoader(t, a) // the protocol's handshake first: the load reaches the snapshot at once
		go func() {
			// The snapshot follows the library's load within milliseconds; GO 300 ms after the
			// library is in the JVM's maps, with 2.7 s of the gap left.
			maps := fmt.Sprintf("/proc/%d/maps", a.jvm)
			for deadline := time.Now().Add(javaTimeout); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				if b, _ := os.ReadFile(maps); bytes.Contains(b, []byte("liborca")) {
					break
				}
			}
			time.Sleep(300 * time.Millisecond)
			a.stdin.Write([]byte("GO\n"))
		}()
		agentLoad("prefix=" + prefix + ",format=compact")
		a.expectLine(t, "BLOCKED")
		a.stdin.Write([]byte("RELEASE\n"))
		a.expectLine(t, "RELEASED")
		time.Sleep(300 * time.Millisecond)
		agentLoad("stop")
		a.stdin.Write([]byte("STOPPED\n"))
		e := parseExpectLine(a.expectLine(t, "EXPECT "))
		a.expectLine(t, "DONE")
		checkEnded(t, a, "BlockInAttachGap")

		r := load(t, prefix)
		r.logOnFailure(t)
		r.checkParse(t)
		r.checkInvariants(t)
		blocker, m := format.ThreadID(e.hash(t, "blocker")), format.ObjectID(e.hash(t, "m"))
		mine := func(_ int, ev reader.Event) bool { return ev.Thread == blocker }
		// At its end blocker may contend for its own Thread object too (HotSpot's ensure_join
		// while main holds it in join): only the enters on m are this test's.
		onM := func(_ int, ev reader.Event) bool { return ev.Thread == blocker && ev.Object == m }
		enters, entered := r.sel(format.MonitorContendedEnter, onM), r.sel(format.MonitorContendedEntered, onM)
		if len(enters) != 1 || len(entered) != 1 || r.events[enters[0]].Owner != 0 {
			t.Errorf("blocker: %d MonitorContendedEnter, %d Entered, want one of each on m (%v), the Enter's owner unknown", len(enters), len(entered), m)
		}
		if n := r.info[format.InfoOwnerBefore]; n != "1" {
			t.Errorf(".info %s=%q, want 1", format.InfoOwnerBefore, n)
		}
		if parks := r.sel(format.ThreadPark, mine); len(parks) != 1 || len(enters) == 1 && r.events[parks[0]].Time > r.events[enters[0]].Time {
			t.Errorf("blocker: %d ThreadPark, want its park at the attach, before its enter", len(parks))
		}
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		if rep.Problems != 0 {
			t.Errorf("report: %d events could not be placed, want 0", rep.Problems)
		}
		// Its contention says what is known (issue 31, item 5): begun before the events, its
		// length not recorded, where (the stack the agent took at its Entered), the owner unknown
		// — not "1 contention, 0 us" with "(no stack)".
		var txt bytes.Buffer
		rep.WriteText(&txt)
		found := false
		for _, l := range rep.Locks {
			if l.Object != m.String() {
				continue
			}
			found = true
			if l.Contentions != 1 || l.BeforeEvents != 1 || len(l.Sites) != 1 || l.Sites[0].BeforeEvents != 1 ||
				len(l.Sites[0].Frames) == 0 || !strings.HasPrefix(l.Sites[0].Frames[0], "BlockInAttachGap.lambda$main$") {
				t.Errorf("report: the lock m %+v, want 1 contention begun before the events at BlockInAttachGap's lambda", l)
			}
		}
		// (Not "(no stack)" anywhere: blocker's contention for its own Thread object at its exit,
		// when it happens, has no Java frame; m's stack is checked above.)
		if s := txt.String(); !found || strings.Contains(s, "1 contention, 0 us:") || strings.Contains(s, "0 us blocked, 1 contention") ||
			!strings.Contains(s, "1 contention by 1 thread, begun before the events were on") {
			t.Errorf("report: m's contention is not said as begun before the events:\n%s", s)
		}
	})
}

// attachedWindow runs class (READY, GO, ENDED, STOPPED, EXPECT …, DONE) on j: the agent is
// loaded into it after READY, GO is sent, the recording stops after ENDED; it returns the EXPECT
// line, the recording (parsed, its invariants checked) and its prefix.
func attachedWindow(t *testing.T, j jdk, class string) (expect, *recording, string) {
	t.Helper()
	dir := newDir(t)
	a := startAttacheeCmd(t, testjvm.Command(t, dir, j.argv(dir, "-cp", classes(t), class)...), dir)
	prefix := dir + "/rec"
	agentLoad := agentLoader(t, a)
	agentLoad("prefix=" + prefix + ",format=compact")
	a.stdin.Write([]byte("GO\n"))
	a.expectLine(t, "ENDED")
	agentLoad("stop")
	a.stdin.Write([]byte("STOPPED\n"))
	e := parseExpectLine(a.expectLine(t, "EXPECT "))
	a.expectLine(t, "DONE")
	checkEnded(t, a, class)
	r := load(t, prefix)
	r.logOnFailure(t)
	r.checkParse(t)
	r.checkInvariants(t)
	return e, r, prefix
}

// TestAttachOwnEvent: three threads parked when the agent attaches leave their park after it, and
// their first event is a Semaphore acquire (its end where Semaphore is not rewritten), a Thread.join
// (seen in its wait) and an unpark (OwnEventAfterAttach).
// The park the snapshot saw ends at the thread's first event of its own, so each ThreadUnparked
// precedes that event and every event is placed. Before, those three hooks did not end it: it
// ended at the walker's next poll or the thread's end, after the event ("SemaphoreAcquire:
// thread still parked", found on ActiveMQ).
func TestAttachOwnEvent(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, r, prefix := attachedWindow(t, j, "OwnEventAfterAttach")
		firsts := map[string]format.Kind{"sem": format.SemaphoreAcquire, "joiner": format.ThreadJoin, "unparker": format.ThreadUnpark}
		if strings.HasPrefix(r.info[format.InfoClassHooks], "live: 0 classes") {
			firsts["sem"] = format.ThreadEnded // JDK 17-22 without standby: Semaphore not rewritten (docs/attach.md)
		}
		for key, first := range firsts {
			th := format.ThreadID(e.hash(t, key))
			mine := func(_ int, ev reader.Event) bool { return ev.Thread == th }
			parks, ends, own := r.sel(format.ThreadPark, mine), r.sel(format.ThreadUnparked, mine), r.sel(first, mine)
			if len(parks) != 1 || len(ends) != 1 || len(own) == 0 {
				t.Errorf("%s: %d ThreadPark, %d ThreadUnparked, %d %v; want 1, 1 and some (its park at the attach, its end, its own event)",
					key, len(parks), len(ends), len(own), first)
				continue
			}
			// Its own events after the park (a woken waiter of the latch may also unpark the
			// next one: AQS's shared release) all come after the park's end.
			for i, ev := range r.events {
				if ev.Thread == th && ev.Time > r.events[parks[0]].Time && ev.Kind != format.ThreadUnparked &&
					ev.Kind != format.ObjectClass && ev.Kind != format.ThreadEnded && ev.Kind != format.ThreadCPU && ev.Kind != format.Sample &&
					ev.Time < r.events[ends[0]].Time {
					t.Errorf("%s: the attach's park ends after its %v:\n%s\n%s", key, ev.Kind, r.describe(ends[0]), r.describe(i))
				}
			}
		}
		rec, built := buildModel(t, prefix)
		if rep := report.New(rec, built, report.Options{}); rep.Problems != 0 {
			t.Errorf("report: %d events could not be placed, want 0", rep.Problems)
		}
	})
}

// TestAttachCarrier: a carrier parked at the attach whose first event after it comes while it
// carries a virtual thread (CarrierAtAttach: orca-vunparker's unpark of main). The agent makes
// the carrier's state then: its identity is the carrier's, not the virtual thread's. Before, the
// state took the current thread, the virtual one: "VirtualThreadMounted X target=X" and every
// later mount on that carrier named the virtual thread as carrier (found attaching to a
// ping-pong of virtual threads).
func TestAttachCarrier(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		if j.feature < 21 {
			skipf(t, "%s has no virtual threads", j.name)
		}
		e, r, _ := attachedWindow(t, j, "CarrierAtAttach")
		if e.str(t, "virtual") != "yes" {
			t.Fatalf("%s: no virtual threads: %s", j.name, e.line)
		}
		v, main := format.ThreadID(e.hash(t, "vunparker")), format.ThreadID(e.hash(t, "main"))
		virtual := r.virtualThreads()
		names := map[format.ThreadID]string{}
		for _, ev := range r.events {
			if ev.Kind == format.ThreadStarted {
				names[ev.Thread] = ev.Name
			}
		}
		mounts := r.sel(format.VirtualThreadMounted, func(_ int, ev reader.Event) bool { return ev.Thread == v })
		if len(mounts) == 0 {
			t.Errorf("orca-vunparker: no VirtualThreadMounted")
		}
		for _, i := range mounts {
			c := r.events[i].Target
			if virtual[c] || c == v || !strings.HasPrefix(names[c], "ForkJoinPool") {
				t.Errorf("orca-vunparker mounted on %v (%q), want the scheduler's carrier:\n%s", c, names[c], r.describe(i))
			}
		}
		unparks := r.sel(format.ThreadUnpark, func(_ int, ev reader.Event) bool { return ev.Target == main })
		if len(unparks) != 1 || r.events[unparks[0]].Thread != v {
			t.Errorf("%d ThreadUnpark of main, want 1 by orca-vunparker (%v)", len(unparks), v)
		}
		for th, name := range names {
			if virtual[th] && strings.HasPrefix(name, "ForkJoinPool") || !virtual[th] && name == "orca-vunparker" {
				t.Errorf("thread %v %q: virtual=%v", th, name, virtual[th])
			}
		}
	})
}

// TestAttachVirtualPinned: virtual threads pinned to their carriers at the attach (each in a
// class initializer: VirtualPinnedAtAttach), one parked, one sleeping, one blocked entering a
// monitor main holds, are mounted, so the registries list them with a carrier. Each gets its
// ThreadStarted and its park (blocker named), sleep or enter (monitor and owner named) at the
// attach, and the report shows them stuck. Before, mounted virtual threads
// were left to their next event: a virtual thread stuck while pinned was not seen at all.
func TestAttachVirtualPinned(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		if j.feature < 21 {
			skipf(t, "%s has no virtual threads", j.name)
		}
		dir := newDir(t)
		a := startAttacheeCmd(t, testjvm.Command(t, dir, j.argv(dir, "-cp", classes(t), "VirtualPinnedAtAttach")...), dir)
		prefix := dir + "/rec"
		if r := run(t, dir, orcaBin(t), "record", "--pid", strconv.Itoa(a.jvm), "-o", prefix, "--duration", "1500ms"); r.code != 0 {
			t.Fatalf("orca record --pid: %s", r)
		}
		a.stdin.Write([]byte("STOPPED\n"))
		e := parseExpectLine(a.expectLine(t, "EXPECT "))
		a.expectLine(t, "DONE")
		checkEnded(t, a, "VirtualPinnedAtAttach")
		if e.str(t, "virtual") != "yes" {
			t.Fatalf("%s: no virtual threads: %s", j.name, e.line)
		}
		r := load(t, prefix)
		r.logOnFailure(t)
		r.checkParse(t)
		r.checkInvariants(t)
		start := r.events[0].Time
		park, sleep, blocker := format.ThreadID(e.hash(t, "park")), format.ThreadID(e.hash(t, "sleep")), format.ObjectID(e.hash(t, "blocker"))
		atAttach := func(th format.ThreadID, k format.Kind) []int {
			return r.sel(k, func(_ int, ev reader.Event) bool { return ev.Thread == th && ev.Time == start })
		}
		enter, lock, main := format.ThreadID(e.hash(t, "enter")), format.ObjectID(e.hash(t, "lock")), format.ThreadID(e.hash(t, "main"))
		if n := len(atAttach(park, format.ThreadStarted)) + len(atAttach(sleep, format.ThreadStarted)) + len(atAttach(enter, format.ThreadStarted)); n != 3 {
			t.Errorf("%d ThreadStarted of the three pinned virtual threads at the attach, want 3", n)
		}
		// Its monitor read from its carrier's JavaThread.
		if en := atAttach(enter, format.MonitorContendedEnter); len(en) != 1 || r.events[en[0]].Object != lock || r.events[en[0]].Owner != main {
			t.Errorf("orca-vpinenter: %d MonitorContendedEnter at the attach, want 1 on lock (%v) owned by main (%v)", len(en), lock, main)
		}
		if p := atAttach(park, format.ThreadPark); len(p) != 1 || r.events[p[0]].Object != blocker {
			t.Errorf("orca-vpinpark: %d ThreadPark at the attach, want 1 on its blocker (%v)", len(p), blocker)
		}
		if s := atAttach(sleep, format.ThreadSleep); len(s) != 1 {
			t.Errorf("orca-vpinsleep: %d ThreadSleep at the attach, want 1", len(s))
		}
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		if rep.Problems != 0 {
			t.Errorf("report: %d events could not be placed, want 0", rep.Problems)
		}
		var b strings.Builder
		rep.WriteText(&b)
		if !strings.Contains(b.String(), "orca-vpinpark") {
			t.Errorf("the report does not show orca-vpinpark stuck:\n%.3000s", b.String())
		}
	})
}

// TestAttachVirtualStuck attaches (orca record --pid --duration 2s) to VirtualStuckBeforeAttach,
// stuck before the attach with virtual threads (JDK 21+): 50 of them parked in lock.lock() of a
// ReentrantLock that holder, a platform thread, holds while it sleeps (40 started by
// Thread.ofVirtual(), 10 by a newVirtualThreadPerTaskExecutor), 5 sleeping and, on 24+, 3 blocked
// entering a monitor holder holds, all unmounted, which JVMTI's GetAllThreads does not list. The
// agent finds them in the JDK's registries of virtual threads (vthread_each): each has its
// ThreadStarted at the attach, each parked one exactly one ThreadPark there with the lock's sync
// as blocker and holder as owner, each sleeper its ThreadSleep, each enterer none (counted in
// virtual_skipped_at_attach), and the report names holder as the owner of the lock they are
// blocked on since the attach. With -Djdk.trackAllThreads=false the root container keeps no list:
// only the executor's 10 are found, and .info says why the others were not.
func TestAttachVirtualStuck(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		if j.feature < 21 {
			skipf(t, "%s has no virtual threads", j.name)
		}
		for _, tracked := range []bool{true, false} {
			name := "tracked"
			if !tracked {
				name = "untracked"
			}
			t.Run(name, func(t *testing.T) { attachVirtualStuck(t, j, tracked) })
		}
	})
}

func attachVirtualStuck(t *testing.T, j jdk, tracked bool) {
	dir := newDir(t)
	args := []string{"-cp", classes(t), "VirtualStuckBeforeAttach", "50"}
	if !tracked {
		args = append([]string{"-Djdk.trackAllThreads=false"}, args...)
	}
	a := startAttacheeCmd(t, testjvm.Command(t, dir, j.argv(dir, args...)...), dir)
	prefix := dir + "/rec"
	pid := strconv.Itoa(a.jvm)
	if r := run(t, dir, orcaBin(t), "record", "--pid", pid, "-o", prefix, "--duration", "2s"); r.code != 0 {
		t.Fatalf("orca record --pid: %s", r)
	}
	if _, err := a.stdin.Write([]byte("STOPPED\n")); err != nil {
		t.Fatal(err)
	}
	e := parseExpectLine(a.expectLine(t, "EXPECT "))
	a.expectLine(t, "DONE")
	checkEnded(t, a, "VirtualStuckBeforeAttach")
	if e.str(t, "virtual") != "yes" {
		t.Fatalf("%s: VirtualStuckBeforeAttach found no virtual threads: %s", j.name, e.line)
	}
	parked, sleepers, enterers := e.hashes(t, "parked"), e.hashes(t, "sleepers"), e.hashes(t, "enterers")
	holder, blocker := format.ThreadID(e.hash(t, "holder")), format.ObjectID(e.hash(t, "blocker"))
	wantEnterers := 0
	if j.feature >= 24 {
		wantEnterers = 3
	}
	if len(parked) != 50 || len(sleepers) != 5 || len(enterers) != wantEnterers {
		t.Fatalf("EXPECT names %d parked, %d sleeping and %d entering virtual threads, want 50, 5 and %d",
			len(parked), len(sleepers), len(enterers), wantEnterers)
	}
	// Untracked, only the executor's (the last 10) are listed anywhere.
	seen := func(i int) bool { return tracked || i >= 40 }

	r := load(t, prefix)
	r.checkParse(t)
	var start format.Time
	for _, ev := range r.events {
		if ev.Kind == format.ThreadStarted {
			start = ev.Time
			break
		}
	}
	started := map[format.ThreadID]int{}
	parks := map[format.ThreadID]int{}
	sleeps := map[format.ThreadID]int{}
	other := map[format.ThreadID]int{}
	for i, ev := range r.events {
		if ev.Time != start {
			continue
		}
		switch ev.Kind {
		case format.ThreadStarted:
			started[ev.Thread]++
		case format.ThreadPark:
			if ev.Object != blocker {
				other[ev.Thread]++
				break
			}
			parks[ev.Thread]++
			if ev.Owner != holder || len(r.stacks[i]) == 0 || r.stacks[i][0].Class != "Ljava/lang/VirtualThread;" {
				t.Errorf("ThreadPark of %v at the attach: owner %v, stack %v; want holder %v, a stack from VirtualThread's park",
					ev.Thread, ev.Owner, r.text[i], holder)
			}
		case format.ThreadSleep:
			sleeps[ev.Thread]++
		case format.MonitorContendedEnter, format.ObjectWait:
			other[ev.Thread]++
		}
	}
	want := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	for i, h := range parked {
		if id := format.ThreadID(h); started[id] != want(seen(i)) || parks[id] != want(seen(i)) {
			t.Errorf("virtual thread %d (%v): %d ThreadStarted and %d ThreadPark on the lock at the attach, want %d of each",
				i, id, started[id], parks[id], want(seen(i)))
		}
	}
	for _, h := range sleepers {
		if id := format.ThreadID(h); started[id] != want(tracked) || sleeps[id] != want(tracked) || other[id] != 0 {
			t.Errorf("sleeping virtual thread %v: %d ThreadStarted, %d ThreadSleep, %d other states at the attach, want %d, %d, 0",
				id, started[id], sleeps[id], other[id], want(tracked), want(tracked))
		}
	}
	for _, h := range enterers {
		if id := format.ThreadID(h); started[id] != want(tracked) || other[id] != 0 {
			t.Errorf("virtual thread %v blocked on a monitor: %d ThreadStarted and %d states at the attach, want %d and none",
				id, started[id], other[id], want(tracked))
		}
	}
	wantParks, wantVirtual, wantSkipped, wantUnseen := 50, 55+wantEnterers, wantEnterers, ""
	if !tracked {
		wantParks, wantVirtual, wantSkipped, wantUnseen = 10, 10, 0, "jdk.trackAllThreads=false"
	}
	if n := len(parks); n != wantParks {
		t.Errorf("%d threads parked on the lock (%v) at the attach, want exactly %d", n, blocker, wantParks)
	}
	in := reader.Info(r.info)
	if n, _ := in.Int(format.InfoVirtualAtAttach); n != int64(wantVirtual) {
		t.Errorf(".info %s=%d, want %d", format.InfoVirtualAtAttach, n, wantVirtual)
	}
	if n := in.Count(format.InfoVirtualSkipped); n != int64(wantSkipped) {
		t.Errorf(".info %s=%d, want %d (the virtual threads blocked on the monitor, unmounted)", format.InfoVirtualSkipped, n, wantSkipped)
	}
	if n, _ := in.Int(format.InfoBlockedAtAttach); n < int64(wantParks+1) {
		t.Errorf(".info %s=%d, want at least %d (the virtual threads and holder)", format.InfoBlockedAtAttach, n, wantParks+1)
	}
	if u := r.info[format.InfoVirtualUnseen]; wantUnseen == "" && u != "" || !strings.HasPrefix(u, wantUnseen) {
		t.Errorf(".info %s=%q, want %q", format.InfoVirtualUnseen, u, wantUnseen)
	}

	// The report: each parked virtual thread found blocked on the lock held by holder since the attach.
	rec, built := buildModel(t, prefix)
	rep := report.New(rec, built, report.Options{})
	hung := map[string]bool{}
	for _, h := range rep.Hangs {
		hung[h.Thread] = true
		for _, p := range parked {
			if h.Thread == format.ThreadID(p).String() &&
				(h.State != "blocked" || !h.Lock || h.Other == nil || *h.Other != holder.String() || h.SinceS != 0) {
				t.Errorf("report: %+v, want blocked on the lock held by holder %v since 0 s", h, holder)
			}
		}
	}
	for i, p := range parked {
		if seen(i) && !hung[format.ThreadID(p).String()] {
			t.Errorf("report: virtual thread %v is not among the hangs", format.ThreadID(p))
		}
	}
	if t.Failed() {
		var txt bytes.Buffer
		rep.WriteText(&txt)
		t.Logf("report:\n%s", tail(txt.String(), 4000))
		if b, err := os.ReadFile(prefix + ".info"); err == nil {
			t.Logf(".info:\n%s", b)
		}
	}
}
