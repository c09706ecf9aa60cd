package integration

import (
	"strings"
	"testing"
)

// stressSeconds is how long Stress runs per JDK.
const stressSeconds = "5"

// TestStress runs 16 threads of contention, waits, semaphores, thread churn, exception storms and
// GC under the agent: the JVM must survive and the recording must be well formed.
func TestStress(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test skipped in -short mode")
	}
	forEachJDK(t, func(t *testing.T, j jdk) {
		res, prefix := record(t, j, "Stress", stressSeconds)
		if res.code != 0 {
			t.Errorf("orca record exited with %d, want 0:\n%s", res.code, res)
		}
		if !strings.Contains(res.stdout, "DONE") {
			t.Errorf("Stress did not print DONE:\n%s", res)
		}
		r := load(t, prefix)
		r.checkParse(t)
		r.checkInfo(t, true, false)
		// Dropped events would break the pairing invariants; a full buffer is not a bug here.
		if v := r.info["dropped_total"]; v != "" && v != "0" {
			t.Logf("%s events dropped; pairing invariants not checked", v)
			return
		}
		r.checkInvariants(t)
		if t.Failed() {
			t.Logf("found: %s\nrecording: %s", r.kindCounts(), prefix)
		}
	})
}
