package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/crash"
)

// errorRecorder is a testing.TB whose Errorf is recorded, not reported: it lets a test check
// what crash.Check would fail a test with, without failing.
type errorRecorder struct {
	testing.TB
	errs []string
}

func (r *errorRecorder) Helper() {}

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestCrashIsReported crashes a JVM on purpose (-XX:AbortVMOnException: the launcher's
// ClassNotFoundException for an absent main class ends the VM with a fatal error and an hs_err
// file, in well under a second) and checks that the checker every test runs finds it: the file
// lands in the test's directory through crash.ErrorFile, crash.Check names it, shows the error,
// the frame and the thread, moves it to $ORCA_CRASH_DIR, and reports it once.
func TestCrashIsReported(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := t.TempDir() // not newDir: its end-of-test check would fail this test
		kept := t.TempDir()
		t.Setenv("ORCA_CRASH_DIR", kept)
		argv := j.argv(dir, "-XX:+UnlockDiagnosticVMOptions",
			"-XX:AbortVMOnException=java.lang.ClassNotFoundException", "-cp", dir, "NoSuchMain")
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = t.TempDir() // the hs_err file must follow ErrorFile, not the working directory
		out, err := cmd.CombinedOutput()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() == 0 {
			t.Fatalf("%s: want a crash, got %v:\n%s", cmd, err, out)
		}
		files, err := crash.Find(dir)
		if err != nil || len(files) != 1 || !strings.HasPrefix(filepath.Base(files[0]), "hs_err_pid") {
			t.Fatalf("crash.Find(%s) = %v, %v; want one hs_err_pid*.log (JVM output:\n%s)", dir, files, err, out)
		}

		r := &errorRecorder{TB: t}
		crash.Check(r, dir)
		crash.Check(r, dir) // the end-of-test check of the same directory
		if len(r.errs) != 1 {
			t.Fatalf("crash.Check reported %d errors, want 1:\n%s", len(r.errs), strings.Join(r.errs, "\n"))
		}
		msg := r.errs[0]
		moved := filepath.Join(kept, strings.NewReplacer("/", "_").Replace(t.Name()), filepath.Base(files[0]))
		for _, want := range []string{
			"JVM crashed: " + moved, "moved from " + files[0],
			"fatal error: Saw java.lang.ClassNotFoundException", "Problematic frame:",
			`Current thread`, `JavaThread "main"`, "Native frames:", "LauncherHelper",
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("crash.Check's message lacks %q:\n%s", want, msg)
			}
		}
		if _, err := os.Stat(moved); err != nil {
			t.Errorf("the hs_err file was not kept: %v", err)
		}
		if left, _ := crash.Find(dir); len(left) != 0 {
			t.Errorf("left in the test's directory: %v", left)
		}
		if len(msg) > 12000 {
			t.Errorf("the message is %d bytes: the summary should be the frames, not the file", len(msg))
		}

		// A core, as the kernel writes it with core_pattern "core" into the working directory.
		if err := os.WriteFile(filepath.Join(dir, "core"), []byte("ELF"), 0o644); err != nil {
			t.Fatal(err)
		}
		r.errs = nil
		crash.Check(r, dir)
		if len(r.errs) != 1 || !strings.Contains(r.errs[0], "dumped core") {
			t.Errorf("a core in the directory: crash.Check reported %q", r.errs)
		}
	})
}
