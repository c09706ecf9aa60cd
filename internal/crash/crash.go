// Package crash makes the crash of a JVM that a test or benchmark starts visible, whatever the
// test expected of that JVM (to succeed, to fail, to be killed).
//
// Every such JVM gets ErrorFile(dir): its hs_err file goes into the test's own directory, not
// into a working directory nobody looks at (HotSpot's default: the working directory, else
// /tmp). After the JVM, and again when the test ends, Check(t, dir) fails the test for each
// crash file in dir, with the error, the problematic frame, the crashing thread and its stack
// (Summary), and moves the file into Dir(): $ORCA_CRASH_DIR, else build/crash under the module
// root, which outlives the tests' temporary directories and which .ci/run prints after
// `make test`. bench/crash.sh is the same for the shell scripts (docs in README.md, "Tests").
//
// Cores: HotSpot asks for one by default (-XX:+CreateCoredumpOnCrash); the kernel writes it as
// /proc/sys/kernel/core_pattern says. On the project machines that is "core" with
// core_uses_pid=0: a file named core in the crashing process's working directory, written only
// when `ulimit -c` allows (0 there, so none is; the hs_err file says "Core dumps have been
// disabled"). Find therefore also takes core and core.PID in dir: the tests start their JVMs in
// dir. A pattern starting with "|" (systemd-coredump, apport) hands the core to a program
// instead (coredumpctl list). Nothing here changes a system setting.
//
// Only tests import this package; it imports only the standard library.
package crash

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// ErrorFile is the JVM option that puts the hs_err file of a crash into dir. A launcher of the
// JDK's tools (javac, jcmd, jfr) takes it as "-J" + ErrorFile(dir).
func ErrorFile(dir string) string {
	return "-XX:ErrorFile=" + filepath.Join(dir, "hs_err_pid%p.log")
}

// isCore reports whether a file name is one the kernel gives a core with core_pattern "core"
// (core, or core.PID with core_uses_pid=1).
func isCore(name string) bool {
	pid, ok := strings.CutPrefix(name, "core.")
	return name == "core" || ok && pid != "" && strings.Trim(pid, "0123456789") == ""
}

// Find returns the crash files in dir, sorted: hs_err_pid*.log and cores (core, core.PID). A
// missing dir has none.
func Find(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() {
			continue
		}
		if (strings.HasPrefix(n, "hs_err_pid") && strings.HasSuffix(n, ".log")) || isCore(n) {
			out = append(out, filepath.Join(dir, n))
		}
	}
	sort.Strings(out)
	return out, nil
}

// Dir is where Check keeps crash files: $ORCA_CRASH_DIR, else build/crash under the module root
// (the nearest directory above the working directory with a go.mod; go test runs in the
// package's directory).
func Dir() (string, error) {
	if d := os.Getenv("ORCA_CRASH_DIR"); d != "" {
		return filepath.Abs(d)
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "build", "crash"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: set ORCA_CRASH_DIR")
		}
		dir = parent
	}
}

var (
	mu       sync.Mutex
	reported = map[string]bool{} // files Check reported but could not move
)

// Check fails t once for each crash file in dir (Find): it names the file, moves it into
// Dir()/TEST (TEST: t's name, made a file name) and, for an hs_err file, shows its Summary.
// Checking a directory after each JVM and again when the test ends reports a crash once.
func Check(t testing.TB, dir string) {
	t.Helper()
	files, err := Find(dir)
	if err != nil {
		t.Errorf("looking for JVM crash files: %v", err)
		return
	}
	for _, f := range files {
		mu.Lock()
		seen := reported[f]
		reported[f] = true
		mu.Unlock()
		if seen {
			continue
		}
		var b []byte
		if !isCore(filepath.Base(f)) {
			b, _ = os.ReadFile(f)
		}
		var where string
		if kept, err := keep(t.Name(), f); err != nil {
			where = fmt.Sprintf("%s (not kept: %v)", f, err)
		} else {
			where = fmt.Sprintf("%s (moved from %s)", kept, f)
		}
		if isCore(filepath.Base(f)) {
			t.Errorf("a process dumped core: %s", where)
			continue
		}
		t.Errorf("JVM crashed: %s\n%s", where, Summary(b))
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// keep moves a crash file into Dir()/test and returns its new path.
func keep(test, path string) (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	d = filepath.Join(d, unsafeName.ReplaceAllString(test, "_"))
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(d, filepath.Base(path))
	err = os.Rename(path, dst)
	if errors.Is(err, syscall.EXDEV) { // another filesystem (the tests' /tmp, the repository's build/)
		err = moveByCopy(path, dst)
	}
	if err != nil {
		return "", err
	}
	return dst, nil
}

func moveByCopy(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Remove(src)
}

// maxFrames bounds the stack Summary shows.
const maxFrames = 40

// Summary is what a test failure shows of an hs_err file: its header (the error, the JDK, the
// problematic frame), the command line, the current thread and its stack ("Stack:" up to the
// registers, at most maxFrames lines). A file without those sections (cut short) shows its last
// 40 lines.
func Summary(hsErr []byte) string {
	lines := strings.Split(strings.TrimRight(string(hsErr), "\n"), "\n")
	var b strings.Builder
	i := 0
	bugReport := false // the lines from "If you would like to submit a bug report" on say nothing of this crash
	for ; i < len(lines) && strings.HasPrefix(lines[i], "#"); i++ {
		bugReport = bugReport || strings.Contains(lines[i], "submit a bug report")
		if !bugReport && strings.TrimSpace(strings.TrimPrefix(lines[i], "#")) != "" {
			b.WriteString(lines[i] + "\n")
		}
	}
	found := i > 0
	for ; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "Command Line:"), strings.HasPrefix(l, "Current thread"):
			b.WriteString(l + "\n")
			found = true
		case strings.HasPrefix(l, "Stack:"):
			n := 0
			for ; i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "Registers:"); i++ {
				if n++; n <= maxFrames {
					b.WriteString(lines[i] + "\n")
				}
			}
			if n > maxFrames {
				fmt.Fprintf(&b, "… %d more lines\n", n-maxFrames)
			}
			return b.String()
		}
	}
	if !found {
		return strings.Join(lines[max(0, len(lines)-40):], "\n") + "\n"
	}
	return b.String()
}
