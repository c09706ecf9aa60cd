package integration

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"orca/internal/testjvm"
)

// TestRootAudit: root attaches to a JVM of another user (nobody), who plays the attacker
// (docs/perf/2026-12-02-root-audit.md): the JVM's command line holds escape sequences, which
// reached root's terminal raw in record's summary; nobody's symlink at the name root gives
// report -o, which made root overwrite the file it named; nobody's FIFO in place of the
// recording's .info, which hung root's orca report forever in its open.
func TestRootAudit(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := nobodyDir(t)
		const evil = "x\x1b]0;PWNED\x07\x1b[2Jy"
		argv := append(slices.Clone(asNobody), j.argv(dir, "-cp", classes(t), "Attachee", evil)...)
		a := startAttacheeCmd(t, testjvm.Command(t, dir, argv...), dir)
		pid := strconv.Itoa(a.cmd.Process.Pid)
		pre := filepath.Join(dir, "r")

		r := run(t, dir, orcaBin(t), "record", "--pid", pid, "-o", pre, "--duration", "1s")
		if r.code != 0 {
			t.Fatalf("record --pid: %s", r)
		}
		if strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") || !strings.Contains(r.stderr, `x\x1b]0;PWNED\x07\x1b[2Jy`) {
			t.Errorf("record --pid shows the JVM's command line raw, or not at all:\n%q", r.stderr)
		}

		kept := filepath.Join(newDir(t), "kept") // root's
		if err := os.WriteFile(kept, []byte("kept\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "report.txt")
		if o, code := runAs(t, dir, asNobody, "ln", "-s", kept, out); code != 0 {
			t.Fatalf("ln -s as nobody: %s", o)
		}
		r = run(t, dir, orcaBin(t), "report", "-o", out, pre)
		if r.code == 0 || !strings.Contains(r.stderr, "is a symbolic link, which orca does not follow") {
			t.Errorf("report -o nobody's symlink: %s", r)
		}
		if b, _ := os.ReadFile(kept); string(b) != "kept\n" {
			t.Errorf("report -o wrote through nobody's symlink into root's file: %.60q", b)
		}

		if o, code := runAs(t, dir, asNobody, "sh", "-c", "rm -f r.info && mkfifo r.info"); code != 0 {
			t.Fatalf("mkfifo as nobody: %s", o)
		}
		start := time.Now()
		r = runFor(t, 30*time.Second, dir, orcaBin(t), "report", pre)
		if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "r.info: not a regular file; ignored") {
			t.Errorf("report with nobody's FIFO as .info, after %v: %s", time.Since(start), r)
		}
	})
}

// TestRootAuditRunningPrefix: nobody records its own JVM to a prefix whose name holds escape
// sequences and a carriage return (docs/perf/2026-12-02-root-audit.md, "Left to do"); root's
// messages that name the recording already running, read from the JVM's /proc/PID/fd links —
// record --pid's refusal, orca threads' "records to", orca stop -o's "not to", the summary of
// orca stop — and orca report's list of the recordings beside a prefix printed that name raw
// on root's terminal. They show it escaped now (termSafe).
func TestRootAuditRunningPrefix(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := nobodyDir(t)
		argv := append(slices.Clone(asNobody), j.argv(dir, "-cp", classes(t), "Attachee")...)
		a := startAttacheeCmd(t, testjvm.Command(t, dir, argv...), dir)
		pid := strconv.Itoa(a.cmd.Process.Pid)
		const evil = "r\x1b]0;PWNED\x07\x1b[2J\r\u009b1m"
		shown := filepath.Join(dir, `r\x1b]0;PWNED\x07\x1b[2J\x0d\u009b1m`)
		if out, code := runAs(t, dir, asNobody, orcaBin(t), "record", "--pid", pid, "-o", filepath.Join(dir, evil), "--detach", "--max-size", "64MB"); code != 0 {
			t.Fatalf("orca record --pid --detach as nobody: exit %d:\n%s", code, out)
		}
		for _, c := range []struct {
			args []string
			code int
			want string
		}{
			{[]string{"record", "--pid", pid, "-o", filepath.Join(dir, "w"), "--duration", "1s"}, 1, "already runs a recording to " + shown + " ("},
			{[]string{"threads", pid}, 1, "records to " + shown + ": orca threads cannot attach"},
			{[]string{"stop", "-o", filepath.Join(dir, "other"), pid}, 1, "records to " + shown + ", not to " + filepath.Join(dir, "other")},
			{[]string{"stop", pid}, 0, "orca: recording " + shown + " from JVM pid " + pid},
			{[]string{"report", filepath.Join(dir, "x")}, 2, "recordings in " + dir + ":\n  " + shown + "\n"},
		} {
			r := run(t, dir, orcaBin(t), c.args...)
			if r.code != c.code || strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07\r\u009b") || !strings.Contains(r.stderr, c.want) {
				t.Errorf("orca %s: exit %d, want %d and %q, no control character raw:\n%q", strings.Join(c.args, " "), r.code, c.code, c.want, r.stderr)
			}
		}
		a.exit(t, 0)
	})
}
