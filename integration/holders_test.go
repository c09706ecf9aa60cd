package integration

import (
	"fmt"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/report"
)

// TestHolderDoing is issue 33's item 4 on a real JVM (HolderDoing.java): while three threads are
// blocked on a monitor, its holder computes (about COMPUTE_MS of CPU a round, measured by the
// program) and reads a slow local socket (IO_MS a round). With sampling on by default, the
// report's lock says what the holder did in that time: running about the compute's CPU, "other"
// about the socket read's time, its frames compute first (running) and a socket read (other); and
// the exact counts of the blocking record are those of the program (sampling changes none).
func TestHolderDoing(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "HolderDoing")
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		rounds, waiters := e.int(t, "rounds"), e.int(t, "waiters")
		compute := float64(e.int(t, "compute_ns")) / 1e9
		io := float64(e.int(t, "io_ns")) / 1e9
		lock := format.ObjectID(e.hash(t, "lock")).String()
		holder := format.ThreadID(e.hash(t, "holder")).String()
		var l *report.Lock
		for i := range rep.Locks {
			if rep.Locks[i].Object == lock {
				l = &rep.Locks[i]
			}
		}
		if l == nil {
			t.Fatalf("no lock %s in the report's locks", lock)
		}
		if l.Contentions != rounds*waiters {
			t.Errorf("lock %s: %d contentions, want %d (rounds × waiters)", lock, l.Contentions, rounds*waiters)
		}
		if n, _ := rec.Info.Int(format.InfoSamples + format.SampleCPU.String()); n == 0 {
			t.Errorf(".info samples.cpu=%d: sampling is on by default, want samples", n)
		}
		d := l.HoldersDoing
		show := fmt.Sprintf("holders_doing %v (while %.3f s), compute %.3f s CPU, I/O %.3f s; frames %+v", d, l.HoldersWhileS, compute, io, l.HoldersFrames)
		// Running: the compute's CPU (10 ms samples or the scheduler's exact figure) and the
		// little the holder ran between (starting the waiters, polling their states).
		if r := d["running"]; r < 0.85*compute || r > 1.3*compute {
			t.Errorf("holder running %.3f s, want about the compute's %.3f s CPU: %s", r, compute, show)
		}
		// Other: the socket read, which is off a CPU in no recorded state; on a loaded machine
		// part of it may be ready (waiting for a CPU after the byte came), and the holder's
		// Thread.start of the waiters, a native wait for each new thread to run, is "other"
		// too (0.4 s of it at load 10; start_ns, measured by the program, is its bound).
		start := float64(e.int(t, "start_ns")) / 1e9
		if o := d["other"]; o < 0.6*io || o > 1.2*io+start {
			t.Errorf("holder other %.3f s, want about the socket read's %.3f s (and at most the waiters' starts' %.3f s more): %s", o, io, start, show)
		}
		if len(l.HoldersFrames) < 2 {
			t.Fatalf("want the holder's frames, compute's and the socket read's: %s", show)
		}
		if f := l.HoldersFrames[0]; !strings.HasPrefix(f.Frame, "HolderDoing.compute(HolderDoing.java:") || f.State != "running" {
			t.Errorf("the holder's first frame %+v, want HolderDoing.compute running: %s", f, show)
		}
		ioFrame := false
		for _, f := range l.HoldersFrames {
			if f.State == "other" && (strings.HasPrefix(f.Frame, "sun.nio.ch.") || strings.HasPrefix(f.Frame, "java.net.")) {
				ioFrame = true
				break
			}
		}
		if !ioFrame {
			t.Errorf("no frame of the holder in the socket read (sun.nio.ch or java.net, state other): %s", show)
		}
		// The holder's own samples are the holder's: its thread has cpu samples in compute.
		found := false
		for _, th := range rep.Threads {
			if th.ID == holder && th.CPUS != nil && *th.CPUS >= 0.85*compute {
				found = true
			}
		}
		if !found {
			t.Errorf("threads[]: holder %s has no cpu_s of at least %.3f s", holder, 0.85*compute)
		}
	})
}
