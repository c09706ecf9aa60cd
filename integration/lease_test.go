package integration

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"orca/internal/format"
)

// waitStopped polls PREFIX.info until it says stopped=true, for at most d; it returns the
// .info and how long that took.
func waitStopped(t *testing.T, prefix string, d time.Duration) (map[string]string, time.Duration) {
	t.Helper()
	t0 := time.Now()
	for {
		if in := loadInfo(t, prefix).info; in[format.InfoStopped] == "true" || time.Since(t0) > d {
			return in, time.Since(t0)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAttachLease (issue 30, item 6): kill -9 of orca record --pid left the JVM recording
// without bound (~230 kB/s) until someone ran orca stop. The agent now stops the recording
// once orca's lock on PREFIX.lease is gone: within a second (the walker's round), its files
// complete and no longer growing, .info stopped_by=lease, a line on the JVM's stderr; the
// JVM runs on and a new attach records. A --detach recording has no lease and, given no bound,
// is bounded by default (it only warned).
func TestAttachLease(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		a := startAttachee(t, j, dir)
		pid := strconv.Itoa(a.cmd.Process.Pid)
		recording := "orca: recording pid " + pid + " (Attachee) to "
		w1 := filepath.Join(dir, "w1")
		o := startOrca(t, dir, recording, "record", "--pid", pid, "-o", w1)
		a.round(t)
		if _, err := os.Stat(w1 + ".lease"); err != nil {
			t.Fatalf("the recording has no lease file: %v", err)
		}
		o.cmd.Process.Signal(syscall.SIGKILL)
		o.wait(t)
		// The lock goes with orca; the walker's next round (0.2 s) sees it.
		in, took := waitStopped(t, w1, 5*time.Second)
		if in[format.InfoStopped] != "true" || in[format.InfoStoppedBy] != "lease" || in[format.InfoComplete] != "true" {
			t.Fatalf("5 s after kill -9 of orca: .info stopped=%q stopped_by=%q complete=%q, want true, lease, true; JVM's stderr:\n%s",
				in[format.InfoStopped], in[format.InfoStoppedBy], in[format.InfoComplete], a.stderr)
		}
		t.Logf("the recording stopped %v after orca's end", took)
		fi1, err := os.Stat(w1 + ".orca")
		if err != nil {
			t.Fatal(err)
		}
		a.round(t) // events the recording would have taken
		time.Sleep(500 * time.Millisecond)
		if fi2, _ := os.Stat(w1 + ".orca"); fi2.Size() != fi1.Size() {
			t.Errorf("%s.orca grows after the lease's end: %d, then %d bytes", w1, fi1.Size(), fi2.Size())
		}
		if _, err := os.Stat(w1 + ".lease"); err == nil {
			t.Errorf("%s.lease was left behind", w1)
		}
		if want := "orca: the recording to " + w1 + " stops: orca record --pid, which started it, is gone"; !strings.Contains(a.stderr.String(), want) {
			t.Errorf("the JVM's stderr lacks %q:\n%s", want, a.stderr)
		}
		r := load(t, w1)
		r.checkParse(t)
		r.checkInvariants(t)

		// The JVM runs on, and a new attach records.
		w2 := filepath.Join(dir, "w2")
		o = startOrca(t, dir, recording, "record", "--pid", pid, "-o", w2, "--duration", "8s")
		e := o.roundIn(t, a)
		if code := o.wait(t); code != 0 {
			t.Fatalf("a new attach after the lease's end: exit %d:\n%s", code, o.stderr)
		}
		checkRound(t, w2, e)
		if in := loadInfo(t, w2).info; in[format.InfoStoppedBy] != "stop" {
			t.Errorf("the second recording: .info stopped_by=%q, want stop", in[format.InfoStoppedBy])
		}

		// --detach has no lease (it runs until orca stop) and, given no bound, is bounded by
		// default, saying so.
		w3 := filepath.Join(dir, "w3")
		res := run(t, dir, orcaBin(t), "record", "--pid", pid, "-o", w3, "--detach")
		if want := "its files are kept within 256MB (--detach's default)"; res.code != 0 || !strings.Contains(res.stderr, want) {
			t.Fatalf("orca record --pid --detach: want exit 0 and %q:\n%s", want, res)
		}
		if in := loadInfo(t, w3).info; in[format.InfoMaxSize] != strconv.Itoa(256<<20) {
			t.Errorf("--detach without bounds: .info max_size=%q, want %d", in[format.InfoMaxSize], 256<<20)
		}
		if _, err := os.Stat(w3 + ".lease"); err == nil {
			t.Errorf("a --detach recording has a lease file")
		}
		if res = run(t, dir, orcaBin(t), "stop", pid); res.code != 0 {
			t.Fatalf("orca stop:\n%s", res)
		}
		a.exit(t, 3)
	})
}

// TestAttachStoppedJVM (issue 30, item 5): a JVM stopped with SIGSTOP when orca record --pid
// stops held orca about 4 minutes, Ctrl-C ignored. orca now says at once that the JVM is
// stopped, a second Ctrl-C lets it go (exit 1, saying what happens), and the lease ends the
// recording when the JVM continues.
func TestAttachStoppedJVM(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		a := startAttachee(t, j, dir)
		pid := strconv.Itoa(a.cmd.Process.Pid)
		w1 := filepath.Join(dir, "w1")
		o := startOrca(t, dir, "orca: recording pid "+pid, "record", "--pid", pid, "-o", w1)
		syscall.Kill(a.cmd.Process.Pid, syscall.SIGSTOP)
		defer syscall.Kill(a.cmd.Process.Pid, syscall.SIGCONT)
		t0 := time.Now()
		o.cmd.Process.Signal(syscall.SIGINT)
		said := "orca: the JVM is stopped (SIGSTOP): pid " + pid
		for !strings.Contains(o.stderr.String(), said) && time.Since(t0) < 3*time.Second {
			time.Sleep(50 * time.Millisecond)
		}
		if !strings.Contains(o.stderr.String(), said) {
			t.Fatalf("3 s after Ctrl-C, orca has not said %q:\n%s", said, o.stderr)
		}
		o.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-o.done:
		case <-time.After(3 * time.Second):
			t.Fatalf("orca did not end 3 s after the second Ctrl-C:\n%s", o.stderr)
		}
		if want := "is stopped (SIGSTOP) and did not stop its recording; orca lets go: the recording ends by its lease as soon as it continues (kill -CONT " + pid + ")"; o.code != 1 || !strings.Contains(o.stderr.String(), want) {
			t.Errorf("orca after the second Ctrl-C: exit %d, want 1 and %q:\n%s", o.code, want, o.stderr)
		}
		if in := loadInfo(t, w1).info; in[format.InfoStopped] == "true" {
			t.Fatalf("the recording stopped while the JVM was stopped?")
		}
		// orca stop says it at once too.
		t0 = time.Now()
		r := runFor(t, 5*time.Second, dir, orcaBin(t), "stop", pid)
		if want := "stop: the JVM is stopped (SIGSTOP or a debugger: state T (stopped)): pid " + pid + " answers nothing"; r.code != 1 || !strings.Contains(r.stderr, want) ||
			!strings.Contains(r.stderr, "kill -CONT "+pid) || time.Since(t0) > 2*time.Second {
			t.Errorf("orca stop of a stopped JVM: exit %d after %v, want 1 at once and %q:\n%s", r.code, time.Since(t0), want, r)
		}
		syscall.Kill(a.cmd.Process.Pid, syscall.SIGCONT)
		in, took := waitStopped(t, w1, 5*time.Second)
		if in[format.InfoStopped] != "true" || in[format.InfoComplete] != "true" {
			t.Fatalf("5 s after SIGCONT: .info stopped=%q complete=%q, want true; JVM's stderr:\n%s", in[format.InfoStopped], in[format.InfoComplete], a.stderr)
		}
		t.Logf("the recording stopped %v after SIGCONT (stopped_by=%s)", took, in[format.InfoStoppedBy])
		a.round(t)
		a.exit(t, 1)
	})
}

// fill writes to a file in dir until the filesystem is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 4096)
	for {
		if _, err := f.Write(b); err != nil {
			return
		}
	}
}

// TestAttachDiskFullCut (issue 30, item 5): a disk full during an attached recording — the cut
// time in .info was overwritten at the stop (cut_s became the end: "3.96 s recorded, CUT at
// 3.958 s" for a recording cut 0.06 s after it began, 3/3 runs). The output is on a 1 MB tmpfs,
// filled just after the attach; a round makes events that cannot be written, and the stop comes
// 2 s later: cut_s stays at the cut, before the end.
func TestAttachDiskFullCut(t *testing.T) {
	if os.Geteuid() != 0 {
		skipf(t, "needs root to mount a tmpfs")
	}
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		mnt := filepath.Join(dir, "mnt")
		if err := os.Mkdir(mnt, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt).CombinedOutput(); err != nil {
			skipf(t, "no tmpfs: %v: %s", err, out)
		}
		t.Cleanup(func() { exec.Command("umount", mnt).Run() })
		a := startAttachee(t, j, dir)
		pid := strconv.Itoa(a.cmd.Process.Pid)
		prefix := filepath.Join(mnt, "rec")
		o := startOrca(t, dir, "orca: recording pid "+pid, "record", "--pid", pid, "-o", prefix)
		fill(t, mnt)
		a.round(t)
		time.Sleep(2 * time.Second)
		if code := o.stop(t); code != 0 {
			t.Fatalf("orca record --pid on a full disk: exit %d:\n%s", code, o.stderr)
		}
		in := loadInfo(t, prefix).info
		cut, err1 := strconv.ParseFloat(in[format.InfoCut], 64)
		start, err2 := strconv.ParseFloat(in[format.InfoStart], 64)
		end, err3 := strconv.ParseFloat(in[format.InfoEnd], 64)
		if err1 != nil || err2 != nil || err3 != nil || in[format.InfoWriteError] == "" {
			t.Fatalf(".info: write_error=%q cut_s=%q start_s=%q end_s=%q: want a cut recording\n%s", in[format.InfoWriteError],
				in[format.InfoCut], in[format.InfoStart], in[format.InfoEnd], o.stderr)
		}
		if cut < start || end-cut < 1.5 {
			t.Errorf(".info cut_s=%.3f start_s=%.3f end_s=%.3f: want the cut after the start and at least 1.5 s before the end (the stop came 2 s after it)",
				cut, start, end)
		}
		// The agent's message names the same time as .info.
		if want := "the recording is cut at " + in[format.InfoCut] + " s"; !strings.Contains(a.stderr.String(), want) {
			t.Errorf("the JVM's stderr lacks %q:\n%s", want, a.stderr)
		}
		a.exit(t, 1)
	})
}

// TestAttachJVMKilled (issue 30, item 5): after kill -9 of the JVM during orca record --pid, the
// summary gave the counts of the agent's last write of .info (each second): 42 633 events where
// the file held 63 538. The summary's count is what the files hold, and it says so. The JVM is killed amid a round, whose events the agent flushes
// every 0.2 s and counts in .info every second.
func TestAttachJVMKilled(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		a := startAttachee(t, j, dir)
		pid := strconv.Itoa(a.cmd.Process.Pid)
		w1 := filepath.Join(dir, "w1")
		o := startOrca(t, dir, "orca: recording pid "+pid, "record", "--pid", pid, "-o", w1)
		// Idle first: .info's rewrites (each second) then lag the round's flushes (each 0.2 s); the
		// unfixed summary said 27 events, the .info of the attach, where the files held 129-135
		// (5 of 5 runs).
		time.Sleep(1500 * time.Millisecond)
		io.WriteString(a.stdin, "go\n")
		time.Sleep(300 * time.Millisecond)
		a.cmd.Process.Kill()
		if code := o.wait(t); code != 0 || !strings.Contains(o.stderr.String(), "orca: pid "+pid+" ended during the recording") {
			t.Fatalf("orca record --pid of a JVM killed: exit %d, want 0 and the summary:\n%s", code, o.stderr)
		}
		r := load(t, w1)
		m := regexp.MustCompile(`(?m)^  events: (\d+)`).FindStringSubmatch(o.stderr.String())
		if got, want := m, strconv.Itoa(len(r.events)); got == nil || got[1] != want {
			t.Errorf("the summary's events: %q, the files hold %s:\n%s", got, want, o.stderr)
		}
		if !strings.Contains(o.stderr.String(), "(counted in the files: .info is not complete, its counts — ") {
			t.Errorf("the summary does not say that it counted the files:\n%s", o.stderr)
		}
		var stale int64
		for k, v := range loadInfo(t, w1).info {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && strings.HasPrefix(k, format.InfoEvents) {
				stale += n
			}
		}
		t.Logf("the files hold %d events; .info (not complete) counts %d", len(r.events), stale)
	})
}
