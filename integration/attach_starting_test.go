package integration

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"orca/internal/testjvm"
)

// TestAttachWhileStarting: orca record --pid reaches a JVM that catches SIGQUIT (its attach
// listener serves commands) but has not entered JVMTI's live phase, where alone an agent may be
// loaded: SlowStart, its own system class loader, waits in its constructor (initPhase3) until the
// test releases it. The attach waits for the live phase and records. Before, JDK 17's agent
// ended with code 4 ("this JVM has no JVMTI 11": GetEnv's JNI_EDETACHED; orca said it lacks a
// JVMTI capability), the flake of TestPlantedNames/…/group on a loaded machine, and JDK 25
// refused the load ("only permitted in the live phase"). The test releases the JVM once the agent
// is mapped in it (JDK 17: the agent waits in Agent_OnAttach) or 2 s after its attach listener
// started (JDK 21+ map nothing before the live phase: orca loads again).
func TestAttachWhileStarting(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		release := filepath.Join(dir, "release")
		jvm := testjvm.Command(t, dir, j.argv(dir, "-Djava.system.class.loader=SlowStart", "-Dslowstart.release="+release,
			"-cp", classes(t), "SlowStart", "60000")...)
		var jout, jerr testjvm.Buffer
		jvm.Stdout, jvm.Stderr = &jout, &jerr
		if err := jvm.Start(); err != nil {
			t.Fatal(err)
		}
		ended := make(chan struct{})
		go func() { jvm.Wait(); close(ended) }()
		t.Cleanup(func() { jvm.Process.Kill(); <-ended })
		noteTarget(t, jvm.Process.Pid, &jerr)
		pid := strconv.Itoa(jvm.Process.Pid)
		for deadline := time.Now().Add(javaTimeout / 2); !strings.Contains(jerr.String(), "WAITING"); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("SlowStart printed no WAITING within %v:\n%s", javaTimeout/2, jerr.String())
			}
		}
		waitQuitHandler(t, jvm.Process.Pid)

		// Released by a goroutine while startOrca waits for orca's line (which comes once the
		// JVM is live).
		released := make(chan string, 1)
		go func() {
			var listening time.Time
			for deadline := time.Now().Add(javaTimeout / 2); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if _, err := os.Stat(release); err == nil {
					break // the test ended
				}
				if maps, _ := os.ReadFile("/proc/" + pid + "/maps"); bytes.Contains(maps, []byte("liborca")) {
					released <- "the agent is mapped"
					break
				}
				if listening.IsZero() && attachListenerRuns(pid) {
					listening = time.Now()
				}
				if !listening.IsZero() && time.Since(listening) > 2*time.Second {
					released <- "2 s after the attach listener started"
					break
				}
			}
			os.WriteFile(release, nil, 0o644)
			close(released)
		}()
		t.Cleanup(func() { os.WriteFile(release, nil, 0o644); <-released })
		w := filepath.Join(dir, "w")
		o := startOrca(t, dir, "orca: recording pid "+pid, "record", "--pid", pid, "-o", w, "--duration", "1s")
		why := <-released
		if code := o.wait(t); code != 0 {
			t.Fatalf("orca record --pid of a JVM attached while it started (released when %s): exit %d:\n%s%s", why, code, o.stderr, targetErr(o.cmd.Args[1:]))
		}
		info, err := os.ReadFile(w + ".info")
		if err != nil || !bytes.Contains(info, []byte("\nattached=true\n")) || !bytes.Contains(info, []byte("\ncomplete=true\n")) {
			t.Errorf("%s.info: want attached=true and complete=true (%v):\n%s", w, err, info)
		}
		if s := jerr.String(); strings.Contains(s, "no JVMTI") || strings.Contains(s, "did not finish starting") {
			t.Errorf("the JVM's stderr says the agent did not start:\n%s", s)
		}
		t.Logf("released when %s", why)
	})
}

// attachListenerRuns reports whether the JVM pid has its "Attach Listener" thread.
func attachListenerRuns(pid string) bool {
	tasks, _ := filepath.Glob("/proc/" + pid + "/task/*/comm")
	for _, c := range tasks {
		if b, _ := os.ReadFile(c); strings.TrimSpace(string(b)) == "Attach Listener" {
			return true
		}
	}
	return false
}
