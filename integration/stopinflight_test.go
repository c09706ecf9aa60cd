package integration

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
)

// TestSamplesStopInFlight: the samplers stop at the JVM's end while signal handlers are inside a
// walk. Before, the writer's last drain freed the threads' sample rings while a handler that had
// seen sampling on, then been descheduled (a loaded machine), still had to write its sample: the
// JVM crashed in sring_put (TestPlantedNames on 25, both of NotifyFlood's flood threads at once).
// Here four threads spin, sampled every 100 µs of CPU, and the JVM ends with them spinning;
// ORCA_TEST_SLOW_SAMPLE_US=400000 makes the handlers, from the stop's start, sleep 400 ms between
// their ring's look-up and its write (longer than the writer's 200 ms period, so a drain runs
// meanwhile), and the stop go on once one sleeps. A handler whose slot was given back while it
// slept says so on the JVM's stderr (and writes nothing): with the stop's order before 5cea3fd2
// (slots marked dead, then the wait) every run did; now the stop waits for the handlers inside
// (agent/threads/samples.c, handlers) before it marks any slot dead. The agent says at the stop
// how many handlers slept: none would be a stop not in flight, a test of nothing. Three runs a JDK.
// sleptRE is the agent's line at the stop under ORCA_TEST_SLOW_SAMPLE_US: how many handlers slept.
var sleptRE = regexp.MustCompile(`orca test: (\d+) sample handlers slept in the stop`)

func TestSamplesStopInFlight(t *testing.T) {
	t.Setenv("ORCA_TEST_SLOW_SAMPLE_US", "400000")
	forEachJDK(t, func(t *testing.T, j jdk) {
		for run := 0; run < 3; run++ {
			res, prefix := recordJVMcpWith(t, j, []string{"--cpu", "100us"}, []string{"-cp", classes(t)}, "StopInFlight", "4", "300")
			if res.code != 0 || !strings.Contains(res.stdout, "EXPECT spinners=4") {
				t.Fatalf("run %d: orca record exit %d, want 0 and the program's EXPECT line:\n%s", run, res.code, res)
			}
			if m := sleptRE.FindStringSubmatch(res.stderr); m == nil || m[1] == "0" {
				t.Errorf("run %d: no sample handler slept in the stop (the agent's line %q, the test's stop was not in flight):\n%s", run, m, res)
			}
			if strings.Contains(res.stderr, "ring was given back under its signal handler") {
				t.Errorf("run %d: a handler's slot was given back while it was inside (the stop marked the slots dead before the handlers ended):\n%s", run, res)
			}
			r := load(t, prefix)
			if n, _ := strconv.Atoi(r.info[format.InfoSamples+"cpu"]); n == 0 {
				t.Errorf("run %d: no cpu samples (.info %s%s): the test took none in flight", run, format.InfoSamples, "cpu")
			}
			if v := r.info[format.InfoSampleRingsKept]; v != "" {
				t.Errorf("run %d: .info %s=%s: a handler was still inside a second after the stop", run, format.InfoSampleRingsKept, v)
			}
		}
	})
}
