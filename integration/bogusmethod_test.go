package integration

import (
	"strconv"
	"testing"

	"orca/internal/format"
)

// TestSamplesBogusMethod: a walk from a signal's context that met a frame
// half built can read a word that is no jmethodID. JVMTI, given one, reads
// through it (Method::checked_resolve_jmethod_id) and the JVM dies: a
// SIGSEGV on JDK 25 in the writer's GetMethodName, at --cpu 100us. With
// ORCA_TEST_BOGUS_METHOD=N every Nth sample's top Java frame names such a
// word (its "Method" has no ConstMethod, as in that crash); the writer
// must check each method it has not seen before it asks JVMTI about it,
// leave the frame out and count it (.info hotspot.sample_frames_invalid),
// and the JVM must run to its end.
func TestSamplesBogusMethod(t *testing.T) {
	const every = 5
	t.Setenv("ORCA_TEST_BOGUS_METHOD", strconv.Itoa(every))
	forEachJDK(t, func(t *testing.T, j jdk) {
		res, prefix := recordJVMcpWith(t, j, []string{"--cpu", "1ms"}, []string{"-cp", classes(t)}, "StopInFlight", "2", "400")
		if res.code != 0 {
			t.Fatalf("orca record exit %d, want 0 (a JVM that died leaves its hs_err file in the run's directory):\n%s", res.code, res)
		}
		r := load(t, prefix)
		cpu, _ := strconv.Atoi(r.info[format.InfoSamples+"cpu"])
		bad, _ := strconv.Atoi(r.info[format.InfoHotSpotSampleFramesInvalid])
		t.Logf(".info %scpu=%d, %s=%d", format.InfoSamples, cpu, format.InfoHotSpotSampleFramesInvalid, bad)
		if cpu < 4*every {
			t.Fatalf(".info %scpu=%d: too few samples to have put a bogus frame in", format.InfoSamples, cpu)
		}
		// Every Nth sample written by put_rec (repeats of wall samples are
		// copies) had one when its stack has a Java frame: one taken in
		// the VM, the collector or native code alone has none to spoil (a
		// few more than one in 5*N on some machines: 167 of 846 at the
		// floor of 168 before), so half of one in N is the floor.
		wall, _ := strconv.Atoi(r.info[format.InfoSamples+"wall"])
		if bad < cpu/every/2 || bad > cpu+wall {
			t.Errorf(".info %s=%d for %d cpu samples, want at least %d (half of one in %d)", format.InfoHotSpotSampleFramesInvalid, bad, cpu, cpu/every/2, every)
		}
	})
}
