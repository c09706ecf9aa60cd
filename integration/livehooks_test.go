package integration

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"orca/internal/format"
)

// The live form of the class rewrite (issue 24, docs/agent.md "Rewriting Java methods of
// classes already loaded"): with ORCA_VERIFY_LIVE_HOOKS=1 the agent leaves Thread, Semaphore and
// VirtualThread alone at load and rewrites their methods in place at VMInit, as an attach does.
// The same programs must give the same exact counts, lines and stacks as with the start-up form.

// liveHooks sets the switch for the JVMs t starts (on, or explicitly off).
func liveHooks(t *testing.T, on bool) {
	withEnv(t, "ORCA_VERIFY_LIVE_HOOKS="+map[bool]string{true: "1", false: "0"}[on])
}

// hiddenName matches the part of a hidden class's name (a lambda's, a LambdaForm's) that changes
// from run to run.
var hiddenName = regexp.MustCompile(`(\$\$Lambda)?/0x[0-9a-f]+|\$\$Lambda\$[0-9]+`)

// wrappedStacks counts the events of the kinds whose events the wrapped methods write, by kind,
// thread name (a virtual thread's is "virtual") and stack: what must not change from one form to
// the other. keep, if not nil, selects the events.
func wrappedStacks(r *recording, kinds []format.Kind, keep func(i int) bool) map[string]int {
	names := map[format.ThreadID]string{}
	for _, ev := range r.events {
		if ev.Kind == format.ThreadStarted {
			names[ev.Thread] = ev.Name
		}
	}
	virtual := r.virtualThreads()
	out := map[string]int{}
	for i, ev := range r.events {
		if !slices.Contains(kinds, ev.Kind) || keep != nil && !keep(i) {
			continue
		}
		who := names[ev.Thread]
		if virtual[ev.Thread] {
			who = "virtual"
		}
		out[fmt.Sprintf("%s by %q\n\t%s", ev.Kind, who, hiddenName.ReplaceAllString(strings.Join(r.text[i], "\n\t"), "/HIDDEN"))]++
	}
	return out
}

// sameStacks fails t unless both forms gave the same events with the same stacks.
func sameStacks(t *testing.T, what string, startup, live map[string]int) {
	t.Helper()
	var diffs []string
	for k, n := range startup {
		if live[k] != n {
			diffs = append(diffs, fmt.Sprintf("%d at start-up, %d live: %s", n, live[k], k))
		}
	}
	for k, n := range live {
		if _, ok := startup[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("0 at start-up, %d live: %s", n, k))
		}
	}
	if len(startup) == 0 {
		diffs = append(diffs, "no event at all")
	}
	slices.Sort(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s: the live form's events differ from the start-up form's:\n%s", what, strings.Join(diffs, "\n"))
	}
}

// noLiveWarning fails t when the agent could not apply the live form (its warning in .info).
func noLiveWarning(t *testing.T, r *recording) {
	t.Helper()
	if w := r.info["warning"]; strings.Contains(w, "not recorded") || strings.Contains(w, "cannot wrap") {
		t.Errorf(".info: warning=%q", w)
	}
}

// checkClassHooks fails t unless .info says the form asked for was applied, once: with the
// switch, the agent applies the live form a second time, which must do nothing (a second attach).
func checkClassHooks(t *testing.T, r *recording, live bool) {
	t.Helper()
	got := r.info["class_hooks"] // a repeated key has its values on lines
	want := map[bool]string{true: "live: ", false: "load"}[live]
	if !strings.HasPrefix(got, want) || strings.Contains(got, "\n") {
		t.Errorf(".info: class_hooks=%q, want one value, %q…", got, want)
	}
}

// TestLiveHooksJoinSemaphore records Scenario with the live form: Thread.join (every overload the
// JDK has, a join of an ended thread) and Semaphore (acquire, a contended one, release) give
// TestScenario's exact counts, targets and lines, and the same stacks as the start-up form's. The
// live form sees a join in its wait (Thread is not rewritten): the join of an ended thread, which
// does not wait, is not recorded (checkScenario), and is left out of the start-up form's stacks.
func TestLiveHooksJoinSemaphore(t *testing.T) {
	t.Parallel()
	kinds := []format.Kind{format.ThreadJoin, format.ThreadJoined, format.SemaphoreAcquire, format.SemaphoreAcquired,
		format.SemaphoreRelease}
	forEachJDK(t, func(t *testing.T, j jdk) {
		var stacks [2]map[string]int
		for i, on := range []bool{false, true} {
			liveHooks(t, on)
			e, prefix := recordExpect(t, j, "Scenario")
			r := load(t, prefix)
			r.logOnFailure(t)
			r.checkParse(t)
			r.checkInfo(t, true, true)
			r.checkInvariants(t)
			checkScenario(t, r, e)
			noLiveWarning(t, r)
			checkClassHooks(t, r, on)
			waited := e.hashes(t, "joinTargets.waited")
			fromScenario := func(i int) bool {
				ev := r.events[i]
				isJoin := ev.Kind == format.ThreadJoin || ev.Kind == format.ThreadJoined
				return r.hasFrameIn(i, "Scenario.java") && (!isJoin || slices.Contains(waited, uint32(ev.Target)))
			}
			stacks[i] = wrappedStacks(r, kinds, fromScenario)
		}
		sameStacks(t, "Scenario", stacks[0], stacks[1])
	})
}

// TestLiveHooksAfterStartupJoinSemaphore: in a JVM that started with the agent (the start-up wrappers in),
// the live form does nothing (ORCA_VERIFY_LIVE_HOOKS=2 calls it at VMInit, as an attach would):
// .info says class_hooks=load, and the counts stay exact.
func TestLiveHooksAfterStartupJoinSemaphore(t *testing.T) {
	t.Parallel()
	forEachJDK(t, func(t *testing.T, j jdk) {
		withEnv(t, "ORCA_VERIFY_LIVE_HOOKS=2")
		e, prefix := recordExpect(t, j, "Scenario")
		r := load(t, prefix)
		r.logOnFailure(t)
		r.checkInvariants(t)
		checkScenario(t, r, e)
		noLiveWarning(t, r)
		checkClassHooks(t, r, false)
	})
}

// TestLiveHooksVirtual records VirtualMix with the live form (JDK 21+): TestVirtualMix's checks
// hold (virtual threads' sleeps exact, with their own identity), and the virtual threads' sleeps
// and starts have the same stacks as with the start-up form.
func TestLiveHooksVirtual(t *testing.T) {
	t.Parallel()
	kinds := []format.Kind{format.ThreadSleep, format.ThreadSlept, format.ThreadStart}
	forEachJDK(t, func(t *testing.T, j jdk) {
		var stacks [2]map[string]int
		for i, on := range []bool{false, true} {
			liveHooks(t, on)
			r := checkVirtualMix(t, j)
			noLiveWarning(t, r)
			checkClassHooks(t, r, on)
			virtual := r.virtualThreads()
			stacks[i] = wrappedStacks(r, kinds, func(i int) bool {
				ev := r.events[i]
				return virtual[ev.Thread] || ev.Kind == format.ThreadStart && virtual[ev.Target]
			})
		}
		sameStacks(t, "VirtualMix", stacks[0], stacks[1])
	})
}
