package integration

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// stackModes are the JIT configurations whose stacks TestStackModes verifies: each gives the
// fast walkers other frames (interpreter only; C1 code and its runtime stubs; C2 code; every
// method compiled before its first call, so class initialisers and call resolution run from
// compiled code through runtime stubs).
var stackModes = []struct {
	name string
	args []string
	runs int
}{
	{"Xint", []string{"-Xint"}, 1},
	{"C1", []string{"-XX:TieredStopAtLevel=1"}, 1},
	{"C2", []string{"-XX:-TieredCompilation"}, 1},
	{"Xcomp", []string{"-Xcomp"}, 2},
}

// TestStackModes records Scenario and LockBench under each JIT mode with every fast stack walk
// checked against GetStackTrace (ORCA_VERIFY_STACKS=1, TestMain): no walk may differ.
// Reproducer (issue 12, item 6): with -Xcomp on JDK 17 a ThreadStart in
// CleanerFactory.<clinit> had 5 frames instead of 16 in every Scenario run. The class
// initialiser ran from the VM (an entry frame) during the resolution of a static call from
// compiled code; the own walker gave up at the resolve stub and AsyncGetCallTrace, which took
// over, stopped at the entry frame. The own walker now steps over such runtime stubs, and on
// JDK 11-18 a walk it gives up goes to GetStackTrace, not to that JDK's inexact
// AsyncGetCallTrace. Item 11: on JDK 25 AsyncGetCallTrace returned -4 at every contended
// enter from compiled code (LockBench: 575 of 580 to GetStackTrace); the own walker now
// runs on 25 too.
func TestStackModes(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	if testing.Short() {
		skipf(t, "JIT-mode stack test skipped in -short mode")
	}
	bench := benchClasses(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		for _, m := range stackModes {
			t.Run(m.name, func(t *testing.T) {
				t.Parallel() // the modes one beside another: harness_test.go, "Two at a time"
				for i := 0; i < m.runs; i++ {
					res, prefix := recordJVM(t, j, m.args, "Scenario")
					if res.code != 0 {
						t.Fatalf("orca record failed:\n%s", res)
					}
					checkVerified(t, load(t, prefix), "Scenario")
				}
				args := append(append([]string{}, m.args...), "-cp", bench)
				res, prefix := recordJVMcp(t, j, args, "LockBench", "4", "1", "0")
				if res.code != 0 {
					t.Fatalf("orca record failed:\n%s", res)
				}
				r := load(t, prefix)
				checkVerified(t, r, "LockBench")
				// LockBench's contended enters come from compiled code through the
				// monitor-enter stubs: the own walker must take them on JDK 11-18 and 25
				// (issue 12, item 11: on 25 every one went to GetStackTrace, 575 of 580).
				feature, _ := strconv.Atoi(strings.SplitN(r.info["java_version"], ".", 2)[0])
				slow, _ := strconv.Atoi(r.info["own_stacks_by_jvmti"])
				if (feature <= 18 || feature == 25) && slow > maxSlowWalks {
					t.Errorf("LockBench: .info: own_stacks_by_jvmti=%d (of %s contended enters), want <= %d",
						slow, r.info["events.MonitorContendedEnter"], maxSlowWalks)
				}
			})
		}
	})
}

// checkVerified requires a complete recording whose fast stack walks were all verified equal.
func checkVerified(t *testing.T, r *recording, what string) {
	t.Helper()
	r.checkInfo(t, true, false)
	n, _ := strconv.Atoi(r.info["verified_stacks"])
	t.Logf("%s: verified_stacks=%s verified_stacks_differ=%s own_stacks_by_jvmti=%s",
		what, r.info["verified_stacks"], r.info["verified_stacks_differ"], r.info["own_stacks_by_jvmti"])
	if n == 0 {
		t.Errorf("%s: .info: verified_stacks=0: no fast stack walk (own_stacks_by_jvmti=%s)", what, r.info["own_stacks_by_jvmti"])
	}
}

var lockBenchClasses javacOnce

// benchClasses compiles bench/java/LockBench.java once and returns its class directory.
func benchClasses(t *testing.T) string {
	t.Helper()
	return lockBenchClasses.get(t, "bench-classes", func() ([]string, error) {
		return []string{filepath.Join("..", "bench", "java", "LockBench.java")}, nil
	})
}

// recordJVMcp records like recordJVM, with a class path given in jvmArgs (which comes last, so
// it wins over the scenario classes).
func recordJVMcp(t *testing.T, j jdk, jvmArgs []string, main string, args ...string) (*result, string) {
	t.Helper()
	return recordJVMcpWith(t, j, nil, jvmArgs, main, args...)
}

// recordJVMcpWith is recordJVMcp with orca record's flags before the command.
func recordJVMcpWith(t *testing.T, j jdk, flags, jvmArgs []string, main string, args ...string) (*result, string) {
	t.Helper()
	bin := orcaBin(t)
	prefix := filepath.Join(newDir(t), "x")
	argv := append(append(append([]string{"record", "-o", prefix}, flags...), "--"), j.argv(filepath.Dir(prefix), append(append(slices.Clone(jvmArgs), main), args...)...)...)
	r := run(t, filepath.Dir(prefix), bin, argv...)
	checkNoCrashLog(t, r)
	if strings.Contains(r.stderr, "Could not find or load main class") {
		t.Fatalf("%s not found:\n%s", main, r)
	}
	return r, prefix
}
