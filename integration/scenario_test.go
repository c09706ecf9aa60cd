package integration

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// TestScenario records testdata/java/scenarios/Scenario.java and checks every event kind against
// its EXPECT line: exact counts per object, owners, join and start targets, thread names and the
// source lines stacks resolve to.
func TestScenario(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "Scenario")
		r := load(t, prefix)
		defer func() {
			if t.Failed() {
				t.Logf("found: %s", r.kindCounts())
			}
		}()
		r.checkParse(t)
		r.checkInfo(t, true, true)
		if n, _ := strconv.Atoi(r.info["verified_stacks"]); n == 0 {
			t.Errorf(".info: verified_stacks=%q: no stack was walked with AsyncGetCallTrace (own_stacks_by_jvmti=%s)",
				r.info["verified_stacks"], r.info["own_stacks_by_jvmti"])
		}
		r.checkInvariants(t)
		checkScenario(t, r, e)
		checkScenarioClasses(t, r, e)
		checkEnteredTimer(t, r, "hotspot")
	})
}

// checkEnteredTimer checks how a run timed its Entered events (.info
// entered_timer, docs/agent.md): want is the last value or its prefix.
func checkEnteredTimer(t *testing.T, r *recording, want string) {
	t.Helper()
	got := r.info["entered_timer"] // repeated keys: the last says
	got = got[strings.LastIndexByte(got, '\n')+1:]
	if !strings.HasPrefix(got, want) {
		t.Errorf(".info: entered_timer=%q, want %q", got, want)
	}
	// With the timer trusted after the warm-up, the measured contentions are timed by it.
	if n, _ := strconv.Atoi(r.info["entered_by_timer"]); want == "hotspot" && n < 3 {
		t.Errorf(".info: entered_by_timer=%d, want at least the 3 measured contentions", n)
	}
	if v := r.info["entered_late"]; v != "0" {
		t.Errorf(".info: entered_late=%q, want 0 (no Entered without a time)", v)
	}
}

// counter checks the number of selected events and prints them when it is wrong.
type counter struct {
	t *testing.T
	r *recording
}

func (c counter) want(what string, idx []int, want int) {
	c.t.Helper()
	if len(idx) == want {
		return
	}
	var b strings.Builder
	for n, i := range idx {
		if n == 20 {
			fmt.Fprintf(&b, "\n… %d more", len(idx)-n)
			break
		}
		fmt.Fprintf(&b, "\n%s", c.r.describe(i))
	}
	c.t.Errorf("%s: %d events, want %d%s", what, len(idx), want, b.String())
}

// wantLine checks that the innermost non-JDK frame of each event is file:line.
func (c counter) wantLine(what string, idx []int, file string, line int) {
	c.t.Helper()
	for _, i := range idx {
		f, ok := c.r.userFrame(i)
		if !ok || f.File != file || f.Line != line {
			c.t.Errorf("%s: innermost non-JDK frame %v, want %s:%d:\n%s", what, f, file, line, c.r.describe(i))
		}
	}
}

func checkScenario(t *testing.T, r *recording, e expect) {
	c := counter{t, r}
	const file = "Scenario.java"
	mainT := format.ThreadID(e.hash(t, "main"))
	onObj := func(o uint32) func(int, reader.Event) bool {
		return func(_ int, ev reader.Event) bool { return ev.Object == format.ObjectID(o) }
	}
	atLine := func(o uint32, line int) func(int, reader.Event) bool {
		return func(i int, ev reader.Event) bool {
			f, ok := r.userFrame(i)
			return ev.Object == format.ObjectID(o) && ok && f.File == file && f.Line == line
		}
	}
	fromScenario := func(i int, _ reader.Event) bool { return r.hasFrameIn(i, file) }

	// Object.wait / notify / notifyAll on waitObj.
	wo := e.hash(t, "waitObj")
	untimed, timed, all := e.int(t, "waits.untimed"), e.int(t, "waits.timed"), e.int(t, "waits.all")
	waits := untimed + timed + all
	c.want("ObjectWait on waitObj", r.sel(format.ObjectWait, onObj(wo)), waits)
	c.want("ObjectWaited on waitObj", r.sel(format.ObjectWaited, onObj(wo)), waits)
	c.want("ObjectWait at line.wait (untimed)", r.sel(format.ObjectWait, atLine(wo, e.int(t, "line.wait"))), untimed)
	c.want("ObjectWait at line.timedwait", r.sel(format.ObjectWait, atLine(wo, e.int(t, "line.timedwait"))), timed)
	c.want("ObjectWait at line.allwait", r.sel(format.ObjectWait, atLine(wo, e.int(t, "line.allwait"))), all)
	c.want("ObjectWaited at line.wait (untimed)", r.sel(format.ObjectWaited, atLine(wo, e.int(t, "line.wait"))), untimed)
	notifies := r.sel(format.ObjectNotify, onObj(wo))
	c.want("ObjectNotify on waitObj", notifies, e.int(t, "notifies"))
	c.wantLine("ObjectNotify", notifies, file, e.int(t, "line.notify"))
	notifyAlls := r.sel(format.ObjectNotifyAll, onObj(wo))
	c.want("ObjectNotifyAll on waitObj", notifyAlls, e.int(t, "notifyAlls"))
	c.wantLine("ObjectNotifyAll", notifyAlls, file, e.int(t, "line.notifyall"))

	// No wait may show from inside Thread.join: not on a joined thread, not under a join frame.
	joinTargets := e.hashes(t, "joinTargets")
	c.want("ObjectWait on a joined Thread object (waits inside join must be suppressed)",
		r.sel(format.ObjectWait, func(i int, ev reader.Event) bool {
			return slices.Contains(joinTargets, uint32(ev.Object)) || r.hasMethod(i, "Ljava/lang/Thread;", "join")
		}), 0)

	// Thread.sleep: only the scenario's own (the JDK may sleep too).
	sleeps := e.int(t, "sleeps")
	c.want("ThreadSleep from Scenario.java", r.sel(format.ThreadSleep, fromScenario), sleeps)
	c.want("ThreadSlept from Scenario.java", r.sel(format.ThreadSlept, fromScenario), sleeps)
	c.want("ThreadSleep from Scenario.java, not by main", r.sel(format.ThreadSleep, func(i int, ev reader.Event) bool {
		return fromScenario(i, ev) && ev.Thread != mainT
	}), 0)

	// Thread.join: targets in order (main joins one after the other), the dead thread included,
	// but where Thread was not rewritten (the live form: an attach): a join is then seen in its
	// wait, and the join of an ended thread does not wait (docs/attach.md).
	targets := joinTargets
	if joinsFromWaits(r) {
		targets = e.hashes(t, "joinTargets.waited")
	}
	for _, k := range []format.Kind{format.ThreadJoin, format.ThreadJoined} {
		idx := r.sel(k, fromScenario)
		c.want(k.String()+" from Scenario.java", idx, len(targets))
		checkTargets(t, r, k.String(), idx, targets, mainT)
	}

	// Thread.start: every thread the scenario starts, by main, in order.
	starts := r.sel(format.ThreadStart, fromScenario)
	c.want("ThreadStart from Scenario.java", starts, e.int(t, "starts"))
	startTargets := e.hashes(t, "startTargets")
	checkTargets(t, r, "ThreadStart", starts, startTargets, mainT)

	// ThreadStarted (with the exact name) and ThreadEnded, once per started thread.
	names := e.names(t)
	for _, h := range startTargets {
		th := format.ThreadID(h)
		isT := func(_ int, ev reader.Event) bool { return ev.Thread == th }
		started := r.sel(format.ThreadStarted, isT)
		c.want(fmt.Sprintf("ThreadStarted of %v", th), started, 1)
		c.want(fmt.Sprintf("ThreadEnded of %v", th), r.sel(format.ThreadEnded, isT), 1)
		if want, ok := names[h]; ok {
			for _, i := range started {
				if got := r.events[i].Name; got != want {
					t.Errorf("ThreadStarted of %v: name %q, want %q", th, got, want)
				}
			}
		}
	}

	// Semaphore on sem.
	sem := e.hash(t, "sem")
	acquires, releases := e.int(t, "acquires"), e.int(t, "releases")
	c.want("SemaphoreAcquire on sem", r.sel(format.SemaphoreAcquire, onObj(sem)), acquires)
	c.want("SemaphoreAcquired on sem", r.sel(format.SemaphoreAcquired, onObj(sem)), acquires)
	c.want("SemaphoreRelease on sem", r.sel(format.SemaphoreRelease, onObj(sem)), releases)
	acquirer := format.ThreadID(e.hash(t, "semAcquirer"))
	contendedAcq := r.sel(format.SemaphoreAcquire, func(_ int, ev reader.Event) bool {
		return ev.Object == format.ObjectID(sem) && ev.Thread == acquirer
	})
	c.want("SemaphoreAcquire by the contended acquirer", contendedAcq, 1)
	c.wantLine("contended SemaphoreAcquire", contendedAcq, file, e.int(t, "line.semcontended"))

	// The warm-up contentions, each one forced.
	warm, nw := e.hash(t, "warmLock"), e.int(t, "warmContentions")
	c.want("MonitorContendedEnter on warmLock", r.sel(format.MonitorContendedEnter, onObj(warm)), nw)
	c.want("MonitorContendedEntered on warmLock", r.sel(format.MonitorContendedEntered, onObj(warm)), nw)

	// Monitor contention on lock: always the contender, always blocked by the owner.
	lock, owner, contender := e.hash(t, "lock"), format.ThreadID(e.hash(t, "owner")), format.ThreadID(e.hash(t, "contender"))
	n := e.int(t, "contentions")
	enters := r.sel(format.MonitorContendedEnter, onObj(lock))
	c.want("MonitorContendedEnter on lock", enters, n)
	c.want("MonitorContendedEntered on lock", r.sel(format.MonitorContendedEntered, onObj(lock)), n)
	c.wantLine("MonitorContendedEnter on lock", enters, file, e.int(t, "line.contend"))
	for _, i := range enters {
		ev := r.events[i]
		if ev.Thread != contender || ev.Owner != owner {
			t.Errorf("MonitorContendedEnter on lock: thread %v owner %v, want thread %v (contender) owner %v (owner):\n%s",
				ev.Thread, ev.Owner, contender, owner, r.describe(i))
		}
	}
}

// checkTargets checks that the events idx, all by thread by, have the targets want in order.
func checkTargets(t *testing.T, r *recording, what string, idx []int, want []uint32, by format.ThreadID) {
	t.Helper()
	var got []uint32
	for _, i := range idx {
		got = append(got, uint32(r.events[i].Target))
		if r.events[i].Thread != by {
			t.Errorf("%s by thread %v, want %v (main):\n%s", what, r.events[i].Thread, by, r.describe(i))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s targets: got %s, want %s", what, hexList(got), hexList(want))
	}
}

func hexList(v []uint32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = format.Hex(x)
	}
	return strings.Join(s, ",")
}

// joinsFromWaits: the recording saw Thread.join in its wait (.info class_hooks, the live form:
// Thread is not rewritten at an attach), not in a rewritten Thread.
func joinsFromWaits(r *recording) bool {
	return strings.Contains(r.info[format.InfoClassHooks], "Thread.join seen in its wait")
}
