package integration

import (
	"regexp"
	"strconv"
	"testing"
)

// heldCheckLine is the agent's line at exit under ORCA_HELD_CHECK=1 (hooks/held.c, check_print).
var heldCheckLine = regexp.MustCompile(`orca: held check: (\d+) the same as JVMTI's, (\d+) different, (\d+) not read from the frames`)

// TestHeldCheck: the monitors a contender holds, read from its own frames at a contended enter
// (the default, lockorder=monitors: hotspot/walk.c), are exactly JVMTI's answer in the thread
// (GetOwnedMonitorStackDepthInfo: hashes and depths, in order) for every read, on HeldShapes
// (testdata/java/scenarios: nested blocks, recursion, synchronized methods, a static final
// monitor, recursive locking, an inlined callee), interpreted (-Xint), as it runs (interpreted
// then compiled) and compiled from the start (-Xcomp: every frame compiled, monitors in compiled
// scopes, the owner in a stack slot, the saved rbp or the nmethod's oops), on 17 and 25. At least
// 50 reads compared a run; those not read from the frames (a monitor not hashed yet, its class not
// named yet) are asked of JVMTI and not compared.
func TestHeldCheck(t *testing.T) {
	t.Parallel()
	forEachJDK(t, func(t *testing.T, j jdk) {
		for _, v := range []struct {
			name string
			args []string
		}{{"mixed", nil}, {"Xint", []string{"-Xint"}}, {"Xcomp", []string{"-Xcomp"}}} {
			t.Run(v.name, func(t *testing.T) {
				withEnv(t, "ORCA_HELD_CHECK=1")
				res, _ := recordJVM(t, j, v.args, "HeldShapes", "1500")
				if res.code != 0 {
					t.Fatalf("orca record failed:\n%s", res)
				}
				m := heldCheckLine.FindStringSubmatch(res.stderr)
				if m == nil {
					t.Fatalf("no held check line from the agent:\n%s", res)
				}
				same, _ := strconv.Atoi(m[1])
				differ, _ := strconv.Atoi(m[2])
				t.Logf("%s", m[0])
				if differ != 0 || same < 50 {
					t.Errorf("%d reads the same as JVMTI's, %d different: want 50 or more, none different:\n%s", same, differ, res.stderr)
				}
			})
		}
	})
}
