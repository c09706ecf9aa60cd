package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAttachThreadLimit: an attach to a JVM at its limit of threads (a pids cgroup whose
// pids.max leaves room for the attach listener alone) fails with its own code (7): orca says the
// agent could not start its writer thread and the limits that cause it, the JVM's stderr says
// pthread_create's reason, and the JVM runs on. HotSpot unloads a library whose Agent_OnAttach
// fails; the agent's SIGPROF handler, installed before the writer is started, must not point into
// unmapped code then: the library stays mapped (pinned), and a second attach once the limit is
// raised records with samples, not "SIGPROF has a handler already (another profiler …)". Before,
// the first said "lacks a JVMTI capability", and the second had no samples for the JVM's life.
func TestAttachThreadLimit(t *testing.T) {
	base := pidsCgroup(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		cg := filepath.Join(base, fmt.Sprintf("orca-test-%d-%d", os.Getpid(), j.feature))
		if err := os.Mkdir(cg, 0o755); err != nil {
			skipf(t, "cannot make a pids cgroup (%v): skipped", err)
		}
		t.Cleanup(func() { os.Remove(cg) }) // after the JVM's end (cleanups run last first)
		a := startAttachee(t, j, dir)
		pid := strconv.Itoa(a.jvm)
		a.round(t)
		writeCg(t, cg, "cgroup.procs", pid)
		n, err := strconv.Atoi(strings.TrimSpace(readCg(t, cg, "pids.current")))
		if err != nil {
			t.Fatal(err)
		}
		writeCg(t, cg, "pids.max", strconv.Itoa(n+1)) // the attach listener's thread alone

		w1 := filepath.Join(dir, "w1")
		r := run(t, dir, orcaBin(t), "record", "--pid", pid, "-o", w1, "--duration", "1s")
		if want := "could not start its writer thread"; r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "pids.max") {
			t.Fatalf("orca record --pid of a JVM at its limit of threads: want exit 1 and %q:\n%s", want, r)
		}
		if want := "orca: cannot start the writer thread: Resource temporarily unavailable"; !strings.Contains(a.stderr.String(), want) {
			t.Errorf("the JVM's stderr: want %q:\n%s", want, a.stderr)
		}
		if maps, _ := os.ReadFile("/proc/" + pid + "/maps"); !bytes.Contains(maps, []byte("liborca")) {
			t.Errorf("the agent's library is not mapped after the failed attach: its SIGPROF handler points into unmapped code")
		}

		writeCg(t, cg, "pids.max", "max")
		w2 := filepath.Join(dir, "w2")
		o := startOrca(t, dir, "orca: recording pid "+pid, "record", "--pid", pid, "-o", w2, "--duration", "8s")
		e := o.roundIn(t, a)
		if code := o.wait(t); code != 0 {
			t.Fatalf("orca record --pid once the limit is raised: exit %d:\n%s", code, o.stderr)
		}
		checkRound(t, w2, e)
		info, err := os.ReadFile(w2 + ".info")
		if err != nil || bytes.Contains(info, []byte("SIGPROF has a handler already")) || bytes.Contains(info, []byte("\nsample_cpu_ns=0\n")) ||
			!bytes.Contains(info, []byte("\nsample_cpu_ns=")) {
			t.Errorf("%s.info after a failed attach: want CPU samples on and no SIGPROF warning (%v):\n%s", w2, err, info)
		}
		a.exit(t, 2)
	})
}

// pidsCgroup returns the directory of the pids controller's root (cgroup v1, or v2 with pids
// in its subtree), or skips the test saying why.
func pidsCgroup(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		skipf(t, "not root: no cgroup to limit a JVM's threads with: skipped")
	}
	if st, err := os.Stat("/sys/fs/cgroup/pids/cgroup.procs"); err == nil && st.Mode().IsRegular() {
		return "/sys/fs/cgroup/pids"
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control"); err == nil && strings.Contains(string(b), "pids") {
		return "/sys/fs/cgroup"
	}
	skipf(t, "no pids cgroup controller (v1 /sys/fs/cgroup/pids, or v2 with pids in cgroup.subtree_control): skipped")
	return ""
}

func readCg(t *testing.T, cg, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cg, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeCg(t *testing.T, cg, name, v string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(cg, name), []byte(v), 0o644); err != nil {
		t.Fatalf("cgroup %s: %v", name, err)
	}
}
