package integration

import (
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
)

// TestWalkFault is issue 13, item 3: the own stack walker (agent/walk.c) read VM memory
// directly, bounds-checked only, so a structure the table describes wrongly would crash the
// JVM. Its reads now run under the agent's fault guard (agent/safe.c).
// ORCA_TEST_WALK_FAULT=2 makes every second walk read its first code blob from an inaccessible
// page: each such walk must end with a fallback (GetStackTrace, exact), the JVM must finish
// normally, and the walks that did not fault must still equal GetStackTrace (ORCA_VERIFY_STACKS=1).
// Without the guard the first injected read kills the JVM with SIGSEGV.
func TestWalkFault(t *testing.T) {
	t.Setenv("ORCA_TEST_WALK_FAULT", "2")
	bench := benchClasses(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		// The samplers' walks fault too under the injection and fall back to AsyncGetCallTrace
		// (TestSamples, TestSampleStress): off here, so that every fault counted is an event's.
		res, prefix := recordJVMcpWith(t, j, []string{"--cpu", "off", "--wall", "off"}, []string{"-cp", bench}, "LockBench", "4", "1", "0")
		if res.code != 0 {
			t.Fatalf("orca record failed (the JVM died?):\n%s", res)
		}
		r := load(t, prefix)
		r.checkParse(t)
		if w := r.info["hotspot.walker"]; w != "yes" {
			skipf(t, "the own walker does not run on this JDK (hotspot.walker=%s)", w)
		}
		if !strings.HasPrefix(r.info["hotspot.safe_read"], "fault handler") {
			t.Errorf(".info: hotspot.safe_read=%q, want the fault handler", r.info["hotspot.safe_read"])
		}
		checkVerified(t, r, "LockBench")
		faults, _ := strconv.Atoi(r.info["hotspot.walk_faults"])
		slow, _ := strconv.Atoi(r.info["own_stacks_by_jvmti"])
		t.Logf("hotspot.walk_faults=%d own_stacks_by_jvmti=%d verified_stacks=%s", faults, slow, r.info["verified_stacks"])
		// The held monitors' walks (a contended enter's read of its own frames, on by
		// default) fault too, counted apart: each is asked of JVMTI instead, or skipped when its
		// monitor is free again by then.
		// How many contended enters LockBench makes depends on the load (17 held walks at
		// load 18, 8 of them faulted; 262 at load 5, 45), and which walks fault of the
		// events' and the held monitors' together (every second): 3 at least.
		held, _ := strconv.Atoi(r.info["hotspot.held_walk_faults"])
		asked, _ := strconv.Atoi(r.info["held_monitors_asked"])
		skipped, _ := strconv.Atoi(r.info["held_monitors_skipped"])
		read, _ := strconv.Atoi(r.info["held_monitors_read"])
		t.Logf("hotspot.held_walk_faults=%d held_monitors_asked=%d held_monitors_skipped=%d held_monitors_read=%d", held, asked, skipped, read)
		if held < 3 || asked+skipped < held {
			t.Errorf(".info: hotspot.held_walk_faults=%d, held_monitors_read=%d, held_monitors_asked=%d, held_monitors_skipped=%d: want at least 3 held walks ended by a recovered fault, each asked of JVMTI or skipped", held, read, asked, skipped)
		}
		if faults < 10 {
			t.Errorf(".info: hotspot.walk_faults=%d, want at least 10 walks ended by a recovered fault (every second walk)", faults)
		}
		// Where AsyncGetCallTrace is not used (JDK 11-18) a faulted walk goes to GetStackTrace;
		// on 25 AsyncGetCallTrace may take it (and is verified like any fast walk).
		if strings.Contains(r.info["hotspot.facts"], "asgct_inexact") && slow < faults {
			t.Errorf(".info: own_stacks_by_jvmti=%d < hotspot.walk_faults=%d: a faulted walk did not fall back to GetStackTrace", slow, faults)
		}
		// Every contended enter still has its stack, but HotSpot's own enter of an ended
		// thread's Thread object (ensure_join, after ThreadEnded): no Java frame is left; and
		// an enter before VMInit (its thread's ThreadStarted comes at VMInit), where a faulted
		// walk has no GetStackTrace to fall back on (JVMTI's start phase).
		started := map[format.ThreadID]bool{}
		for _, ev := range r.events {
			if ev.Kind == format.ThreadStarted {
				started[ev.Thread] = true
			}
			if ev.Kind == format.MonitorContendedEnter && len(ev.Stack) == 0 && uint32(ev.Object) != uint32(ev.Thread) && started[ev.Thread] {
				t.Errorf("a MonitorContendedEnter without a stack: %v", ev)
				break
			}
		}
	})
}
