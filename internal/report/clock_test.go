package report

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestCPUClockCaveat: CPU samples timed by POSIX timers because the task
// clock was refused are a caveat of the headline (their count falls short
// where threads wait for a CPU); the task clock, or the timers asked for
// (cpu_clock=timer), are not; the JSON's cpu.clock says which it was.
func TestCPUClockCaveat(t *testing.T) {
	const events = `0.0000000000,ThreadStarted,000000A1,worker
0.0100000000,Sample,000000A1,cpu,10000000,1;00000001;0000000A
0.0200000000,Sample,000000A1,cpu,10000000,1;00000001;0000000A
0.0300000000,ThreadEnded,000000A1
`
	const warn = "CPU samples timed by POSIX timers (perf_event_open: Permission denied (perf_event_paranoid 4))"
	for _, c := range []struct{ clock, want string }{
		{"timer: perf_event_open: Permission denied (perf_event_paranoid 4)", warn},
		{"perf", ""},
		{"timer: cpu_clock=timer", ""},
	} {
		ar := &txtar.Archive{Files: []txtar.File{
			{Name: "orca", Data: []byte(events)},
			{Name: "methods", Data: []byte("0.0000000000,00000001,run,()V,0000C1A5,1;00000000;0000000C\n")},
			{Name: "classtable", Data: []byte("0.0000000000,0000C1A5,LWorker;,Worker.java\n")},
			{Name: "info", Data: []byte("complete=true\nsample_cpu_ns=10000000\nsample_cpu_clock=" + c.clock + "\n")},
		}}
		rec, res := load(t, "clock", ar)
		r := New(rec, res, Options{})
		if r.CPU == nil || r.CPU.Samples != 2 || r.CPU.Clock != c.clock {
			t.Fatalf("%s: CPU = %+v, want 2 samples and clock %q", c.clock, r.CPU, c.clock)
		}
		var b bytes.Buffer
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(b.String(), "CPU samples timed by POSIX timers")
		if c.want != "" && !strings.Contains(b.String(), c.want) || c.want == "" && got {
			t.Errorf("%s: the headline says %v, want %q:\n%s", c.clock, got, c.want, b.String())
		}
	}
}

// TestCPUNoneInPart: a part of a recording with samples (a time range, a bounded recording's
// kept chunks) may hold none. The report says "CPU: no cpu samples." and the JSON's cpu has 0
// samples; "No samples: the recording has none (sampling off, …)" is for a recording whose
// .info counts no sample written (Pipeline.java's exchanger, --from 1.853 --to 2.185: the
// recording had 42 cpu samples, the range none).
func TestCPUNoneInPart(t *testing.T) {
	const events = `0.0000000000,ThreadStarted,000000A1,worker
0.0300000000,ThreadEnded,000000A1
`
	for _, c := range []struct{ info, want string }{
		{"samples.cpu=42\nsamples.wall=2\n", "CPU: no cpu samples."},
		{"", "No samples: the recording has none"},
	} {
		ar := &txtar.Archive{Files: []txtar.File{
			{Name: "orca", Data: []byte(events)},
			{Name: "methods", Data: []byte("")},
			{Name: "classtable", Data: []byte("")},
			{Name: "info", Data: []byte("complete=true\nsample_cpu_ns=10000000\nsample_cpu_clock=perf\n" + c.info)},
		}}
		rec, res := load(t, "nonepart", ar)
		r := New(rec, res, Options{})
		var b bytes.Buffer
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) || (c.info != "") != (r.CPU != nil) {
			t.Errorf("info %q: CPU %+v; the text lacks %q:\n%s", c.info, r.CPU, c.want, b.String())
		}
	}
}
