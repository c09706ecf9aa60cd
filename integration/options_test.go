package integration

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBadOptions: a malformed option stops the JVM, and the message lists the valid options.
func TestBadOptions(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	lib := agentLib(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		cls := classes(t)
		for _, opt := range []string{"depth=abc", "bogus=1"} {
			t.Run(opt, func(t *testing.T) {
				d := newDir(t)
				r := runJVM(t, d, j.argv(d, "-agentpath:"+lib+"="+opt, "-cp", cls, "ManyThreads"))
				if r.code == 0 {
					t.Errorf("option %q: JVM exited 0, want a failure:\n%s", opt, r)
				}
				if strings.Contains(r.stdout, "EXPECT") {
					t.Errorf("option %q: the program ran:\n%s", opt, r)
				}
				for _, w := range []string{"prefix", "depth"} {
					if !strings.Contains(r.stderr, w) {
						t.Errorf("option %q: stderr does not list the valid options (no %q):\n%s", opt, w, r)
					}
				}
			})
		}
	})
}

// TestUnwritablePrefix: when the recording cannot be created, the program still runs, and the
// agent says why, naming the path.
func TestUnwritablePrefix(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	lib := agentLib(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		prefix := "/nonexistent-dir/x"
		dir := newDir(t)
		r := runJVM(t, dir, j.argv(dir, "-agentpath:"+lib+"="+prefix, "-cp", classes(t), "ManyThreads"))
		checkNoCrashLog(t, r)
		if r.code != 0 {
			t.Errorf("JVM exited %d, want 0 (the program must run without a recording):\n%s", r.code, r)
		}
		if !strings.Contains(r.stdout, "EXPECT") {
			t.Errorf("the program did not finish:\n%s", r)
		}
		if !strings.Contains(r.stderr, "orca") || !strings.Contains(r.stderr, prefix) {
			t.Errorf("stderr has no orca message naming %s:\n%s", prefix, r)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
			t.Logf("note: files left in the working directory: %v", left)
		}
	})
}
