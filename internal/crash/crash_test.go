package crash

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"hs_err_pid12.log", "core", "core.345", "core.go", "x.orca", "hs_err_pid12.log.tmp", "corefile"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "core.7"), 0o755); err != nil { // a directory is no core
		t.Fatal(err)
	}
	got, err := Find(dir)
	want := []string{filepath.Join(dir, "core"), filepath.Join(dir, "core.345"), filepath.Join(dir, "hs_err_pid12.log")}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Find = %v, %v; want %v", got, err, want)
	}
	if got, err := Find(filepath.Join(dir, "gone")); err != nil || got != nil {
		t.Errorf("Find of a missing directory = %v, %v; want none", got, err)
	}
}

func TestSummary(t *testing.T) {
	var b strings.Builder
	b.WriteString("#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n#  SIGSEGV (0xb) at pc=0x1, pid=7, tid=8\n" +
		"# Problematic frame:\n# C  [liborca.so+0x1234]  walk+0x10\n#\n# If you would like to submit a bug report, please visit:\n#   https://example.org\n#\n\n" +
		"---------------  T H R E A D  ---------------\n\nCurrent thread (0x1):  JavaThread \"worker-1\" [_thread_in_native]\n\n" +
		"Stack: [0x1,0x2],  sp=0x3\nNative frames: (J=compiled Java code)\n")
	for i := 0; i < 100; i++ {
		b.WriteString("C  [liborca.so+0x1234]  frame\n")
	}
	b.WriteString("Registers:\nRAX=0x0\n")
	s := Summary([]byte(b.String()))
	for _, want := range []string{"SIGSEGV (0xb)", "# C  [liborca.so+0x1234]  walk+0x10", `JavaThread "worker-1"`, "Native frames:", "… 62 more lines"} {
		if !strings.Contains(s, want) {
			t.Errorf("Summary lacks %q:\n%s", want, s)
		}
	}
	for _, not := range []string{"bug report", "Registers:", "T H R E A D"} {
		if strings.Contains(s, not) {
			t.Errorf("Summary has %q:\n%s", not, s)
		}
	}
	// A file cut short while the JVM wrote it: its end.
	cut := "line 1\nline 2\nVM state: at safepoint\n"
	if s := Summary([]byte(cut)); !strings.Contains(s, "VM state: at safepoint") {
		t.Errorf("Summary of a cut file = %q", s)
	}
}
