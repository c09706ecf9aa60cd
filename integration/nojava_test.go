package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// TestNoJavaInTarget is issue 13's item 4: the agent runs no Java code of its own in the recorded
// JVM. NoManagement.java never touches java.lang.management; under the agent no management class
// may load (-Xlog:class+load), and the recording holds exactly the contended enters the program
// made: CONTENDED on its lock by its helper, none in main. Before (agent 2df8579), the walker's
// ThreadMXBean call loaded 42-44 management classes, and its lambda bootstrap raced main's: main
// blocked on the JDK's LambdaForm monitors in most runs. Several runs per JDK, as the race was
// a matter of timing. No class of virtual threads may load either (jdk.internal.misc.CarrierThread,
// ForkJoinWorkerThread: the agent looked them up with FindClass, agent 224faa1).
func TestNoJavaInTarget(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	const runs = 3
	forEachJDK(t, func(t *testing.T, j jdk) {
		for run := 0; run < runs; run++ {
			logFile := filepath.Join(newDir(t), "classes.log")
			res, prefix := recordJVM(t, j, []string{"-Xlog:class+load=info:file=" + logFile}, "NoManagement")
			if res.code != 0 {
				t.Fatalf("orca record failed:\n%s", res)
			}
			e := parseExpect(t, res)
			log, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			loaded, management := 0, []string{}
			for _, l := range strings.Split(string(log), "\n") {
				if !strings.Contains(l, "[class,load]") {
					continue
				}
				loaded++
				for _, p := range []string{" java.lang.management.", " sun.management.", " com.sun.management.",
					" jdk.internal.misc.CarrierThread ", " java.util.concurrent.ForkJoinWorkerThread "} {
					if strings.Contains(l, p) {
						management = append(management, l)
					}
				}
			}
			if loaded == 0 || !strings.Contains(string(log), "NoManagement source:") {
				t.Fatalf("run %d: no class+load log in %s:\n%s", run, logFile, res)
			}
			if len(management) > 0 {
				t.Errorf("run %d: %d of %d classes loaded are management or virtual-thread classes the program never used, e.g.\n%s",
					run, len(management), loaded, strings.Join(management[:min(5, len(management))], "\n"))
			}
			r := load(t, prefix)
			r.checkParse(t)
			r.checkInfo(t, true, true)
			r.checkInvariants(t)
			lock, helper := format.ObjectID(e.hash(t, "lock")), format.ThreadID(e.hash(t, "helper"))
			n := e.int(t, "contended")
			c := counter{t, r}
			// The program runs after VMInit, where the agent reports the threads started before
			// it (ThreadStarted of main). Before, the JDK's own threads start up, and the
			// agent's notify record under the monitor (docs/agent.md, Known limits) can make
			// them meet: seen, 1 run in 12 under make test's load, Finalizer and main.
			var vmInit format.Time
			for _, ev := range r.events {
				if ev.Kind == format.ThreadStarted && ev.Thread == format.ThreadID(e.hash(t, "main")) {
					vmInit = ev.Time
					break
				}
			}
			if vmInit == 0 {
				t.Fatalf("run %d: no ThreadStarted of main", run)
			}
			// The burst's threads start together and may meet in the JVM itself (a class's
			// initialisation, seen once in 40 runs under make test's load): their enters are not
			// counted, but none may be in class loading, where the agent's FindClass made them
			// (agent 224faa1), and each must be paired (checkInvariants).
			burst := map[format.ThreadID]bool{}
			for _, ev := range r.events {
				if ev.Kind == format.ThreadStarted && strings.HasPrefix(ev.Name, "orca-burst-") {
					burst[ev.Thread] = true
				}
			}
			if len(burst) != e.int(t, "burst") {
				t.Errorf("run %d: %d burst threads started, want %d", run, len(burst), e.int(t, "burst"))
			}
			for _, i := range r.sel(format.MonitorContendedEnter, func(_ int, ev reader.Event) bool { return burst[ev.Thread] }) {
				for _, m := range [][2]string{{"Ljava/lang/ClassLoader;", "loadClass"}, {"Ljdk/internal/loader/BuiltinClassLoader;", "loadClassOrNull"}} {
					if r.hasMethod(i, m[0], m[1]) || len(r.stacks[i]) == 0 {
						t.Errorf("run %d: a burst thread blocked in class loading (or with no stack):\n%s", run, r.describe(i))
						break
					}
				}
			}
			all := func(_ int, ev reader.Event) bool { return ev.Time >= vmInit && !burst[ev.Thread] }
			mine := func(_ int, ev reader.Event) bool { return ev.Object == lock && ev.Thread == helper }
			c.want("MonitorContendedEnter after VMInit (all threads but the burst's)", r.sel(format.MonitorContendedEnter, all), n)
			c.want("MonitorContendedEnter on lock by the helper", r.sel(format.MonitorContendedEnter, mine), n)
			c.want("MonitorContendedEntered after VMInit (all threads but the burst's)", r.sel(format.MonitorContendedEntered, all), n)
			if t.Failed() {
				t.Logf("found: %s\ninfo: %v", r.kindCounts(), r.info)
				return
			}
			t.Logf("run %d: %d classes loaded, none of java.lang.management, sun.management, com.sun.management; %d contended enters, as made",
				run, loaded, n)
		}
	})
}
