package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/format"
)

// TestHiddenFrames is issue 13's item 8: other tools' stacks look as they do
// without Orca. The methods the agent hooks keep their names (since issue 32
// the start-up form rewrites them in place; it renamed them to
// Semaphore.orca$acquire, Thread.orca$join, … behind a wrapper before) and
// its orca$hook carries the JDK's @Hidden. HiddenFrames.java prints the
// stack of an InterruptedException thrown inside Semaphore.acquire and inside
// Thread.join (Throwable leaves hidden frames out), and blocks in an acquire
// for 100 ms while the JVM records JFR: jdk.ThreadPark's stack (JFR leaves
// them out too) must name Semaphore.acquire and no orca$ method. Neither
// Thread.getStackTrace of that thread (a thread dump, which does not skip
// hidden frames on JDK 17) nor Orca's own stacks (JVMTI's, which see every
// frame) show one — nor its samples, walked from the signal's context, which
// see the hook's native frame (and, on JDK 17, the JVM resolving it by name
// in ClassLoader.findNative's Java code): sampled every 100 µs of CPU here, a
// recording showed 2-4 such stacks a run before the writer left them out.
// Nor does the profiler make work in them: the hooks' natives are bound at
// the class's load (RegisterNatives), not looked up by name at their first
// call, which on JDK 17 ran ClassLoader.findNative → NativeLibraries.find
// (and loaded NativeLibraries' classes) inside the application's first
// Semaphore.acquire and Thread.join: 1-3 of a run's CPU samples before.
func TestHiddenFrames(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		jfrFile := filepath.Join(dir, "r.jfr")
		res, prefix := recordJVMcpWith(t, j, []string{"--cpu", "100us"}, []string{"-XX:StartFlightRecording=filename=" + jfrFile, "-cp", classes(t)}, "HiddenFrames")
		if res.code != 0 {
			t.Fatalf("orca record failed:\n%s", res)
		}
		parseExpect(t, res)
		frames := map[string][]string{}
		for _, l := range strings.Split(res.stdout, "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "FRAME" {
				frames[f[1]] = append(frames[f[1]], f[2])
			}
		}
		for where, want := range map[string]string{
			"throwable-acquire": "java.util.concurrent.Semaphore.acquire",
			"throwable-join":    "java.lang.Thread.join",
		} {
			st := strings.Join(frames[where], "\n  ")
			if !strings.Contains(st, want+"\n") {
				t.Errorf("%s: no %s frame in the stack trace:\n  %s", where, want, st)
			}
			if strings.Contains(st, "orca$") {
				t.Errorf("%s: a renamed orca$ method shows in the Throwable's stack trace:\n  %s", where, st)
			}
		}
		if st := strings.Join(frames["getstacktrace-acquire"], "\n  "); strings.Contains(st, "orca$") {
			t.Errorf("Thread.getStackTrace of a thread in Semaphore.acquire shows an orca$ frame:\n  %s", st)
		}
		r := load(t, prefix)
		for i, ev := range r.events {
			if st := strings.Join(r.text[i], "\n  "); strings.Contains(st, "orca$") {
				t.Errorf("%s: an orca$ frame in the recording's stack:\n  %s", ev.Kind, st)
				break
			}
		}
		lookups := 0
		for i, ev := range r.events {
			st := strings.Join(r.text[i], "\n  ")
			if ev.Kind != format.Sample || !strings.Contains(st, "Semaphore.acquire") && !strings.Contains(st, "Thread.join") {
				continue
			}
			if strings.Contains(st, "ClassLoader.findNative") || strings.Contains(st, "NativeLibraries") {
				if lookups++; lookups == 1 {
					t.Errorf("a sample of Semaphore.acquire or Thread.join resolving the hook's native by name:\n  %s", st)
				}
			}
		}
		if lookups > 1 {
			t.Errorf("%d samples in all resolving a hook's native by name", lookups)
		}

		if _, err := os.Stat(jfrFile); err != nil {
			t.Fatalf("no JFR recording: %v\n%s", err, res)
		}
		p := runJVM(t, dir, j.tool(dir, "jfr", "print", "--events", "jdk.ThreadPark", jfrFile))
		if p.code != 0 {
			t.Fatalf("jfr print failed:\n%s", p)
		}
		if !strings.Contains(p.stdout, "java.util.concurrent.Semaphore.acquire()") {
			t.Errorf("no jdk.ThreadPark event in Semaphore.acquire (the program parks 100 ms):\n%s", tail(p.stdout, 4000))
		}
		if strings.Contains(p.stdout, "orca$") {
			t.Errorf("a renamed orca$ method shows in JFR's jdk.ThreadPark stacks:\n%s", tail(p.stdout, 4000))
		}
	})
}
