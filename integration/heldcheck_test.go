package integration

import "testing"

// TestHeldCheck: the monitors a contender holds, read from its own frames at a contended enter
// (the default, lockorder=monitors: hotspot/walk.c), are exactly JVMTI's answer in the thread
// (GetOwnedMonitorStackDepthInfo: hashes and depths, in order) for every read, on HeldShapes
// (testdata/java/scenarios: nested blocks, recursion, synchronized methods, a static final
// monitor, recursive locking, an inlined callee), interpreted (-Xint), as it runs (interpreted
// then compiled) and compiled from the start (-Xcomp: every frame compiled, monitors in compiled
// scopes, the owner in a stack slot, the saved rbp or the nmethod's oops), on 17 and 25. At least
// 10 reads compared a run (JDK 17 at load 15: 1 155 mixed, 112 -Xcomp; -Xcomp at load 16 spent most of its 1.5 s
// compiling: 22); those not read from the frames (a monitor not hashed yet, its class not named
// yet) are asked of JVMTI and not compared.
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
				checkHeldCheck(t, res.stderr, false, 10)
			})
		}
	})
}
