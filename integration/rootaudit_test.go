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
