// Package testjvm finds the JDKs the tests run Java programs on and the
// javac that compiles them, and starts the test JVMs, in one place for
// every package's tests: the candidates (JDK 17, 21 and 25 where this
// project's machines have them), ORCA_REQUIRE_JDKS (which absent JDK fails
// its tests rather than skipping them), the skip message that says where a
// JDK was looked for, and the command line of a test JVM (Argv, Command,
// Start), whose crash file goes into the test's directory (internal/crash).
//
// Only tests import it (it calls testing.T's Skip and Fatal).
package testjvm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"orca/internal/crash"
)

// JDK17 is the Debian JDK 17: its javac compiles the test programs
// (--release 17, so every newer JDK runs the classes too).
const JDK17 = "/usr/lib/jvm/java-17-openjdk-amd64"

// Candidates are the JDK homes the tests run on, with the feature release
// each stands for; a glob that matches nothing stands for an absent JDK.
var Candidates = []struct {
	Feature int
	Path    string
}{
	{17, JDK17},
	{21, "/usr/lib/jvm/*21*"},
	{25, "/usr/lib/jvm/temurin-25-jdk-amd64"},
}

// JDK is one Java installation under test.
type JDK struct {
	Name    string // subtest name: the home's base name ("java-17-openjdk-amd64"), "absent-*21*" when absent
	Home    string // "" when absent
	Want    string // the path or pattern looked for, for the skip message
	Feature int    // the feature release it stands for (17, 21, 25)
}

// Java is the JDK's java launcher.
func (j JDK) Java() string { return filepath.Join(j.Home, "bin", "java") }

// Version is JAVA_VERSION of the JDK's release file ("17.0.15").
func (j JDK) Version() (string, error) {
	b, err := os.ReadFile(filepath.Join(j.Home, "release"))
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^JAVA_VERSION="([^"]+)"`).FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("%s/release: no JAVA_VERSION", j.Home)
	}
	return string(m[1]), nil
}

// All lists the candidates, resolving symlinks so one JDK reached by two
// names runs once; an absent one is listed with Home "".
func All() []JDK {
	var out []JDK
	seen := map[string]bool{}
	for _, cand := range Candidates {
		c := cand.Path
		matches := []string{c}
		if strings.ContainsAny(c, "*?[") {
			matches, _ = filepath.Glob(c)
			sort.Strings(matches)
		}
		found := false
		for _, m := range matches {
			real, err := filepath.EvalSymlinks(m)
			if err != nil {
				continue
			}
			if _, err := os.Stat(filepath.Join(real, "bin", "java")); err != nil {
				continue
			}
			found = true
			if !seen[real] {
				seen[real] = true
				out = append(out, JDK{Name: filepath.Base(real), Home: real, Want: m, Feature: cand.Feature})
			}
		}
		if !found {
			name := strings.NewReplacer("*", "", "/usr/lib/jvm/", "").Replace(c)
			out = append(out, JDK{Name: "absent-" + name, Want: c, Feature: cand.Feature})
		}
	}
	return out
}

var (
	requiredOnce sync.Once
	required     map[int]bool
	requiredErr  error
)

// Required returns the feature releases ORCA_REQUIRE_JDKS names
// (comma-separated, "17,25": .ci/run sets it): an absent one fails its
// tests. Each must be one Candidates stands for, or no test could ever run
// on it.
func Required() (map[int]bool, error) {
	requiredOnce.Do(func() { required, requiredErr = parseRequired(os.Getenv("ORCA_REQUIRE_JDKS")) })
	return required, requiredErr
}

func parseRequired(v string) (map[int]bool, error) {
	out := map[int]bool{}
	known := map[int]bool{}
	var names []string
	for _, c := range Candidates {
		known[c.Feature] = true
		names = append(names, strconv.Itoa(c.Feature))
	}
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || !known[n] {
			return nil, fmt.Errorf("ORCA_REQUIRE_JDKS=%s: %q is not a JDK the tests look for (%s: Candidates in internal/testjvm)",
				v, f, strings.Join(names, ", "))
		}
		out[n] = true
	}
	return out, nil
}

// Check ends t when j is absent: it fails when ORCA_REQUIRE_JDKS names j's
// release, else it skips, through skip (t.Skipf when nil), saying where the
// JDK was looked for. Nothing when j is here.
func (j JDK) Check(t *testing.T, skip func(t *testing.T, format string, args ...any)) {
	t.Helper()
	if j.Home != "" {
		return
	}
	req, err := Required()
	if err != nil {
		t.Fatal(err)
	}
	if req[j.Feature] {
		t.Fatalf("no JDK at %s, and ORCA_REQUIRE_JDKS=%s requires JDK %d: install it, or leave %d out of ORCA_REQUIRE_JDKS",
			j.Want, os.Getenv("ORCA_REQUIRE_JDKS"), j.Feature, j.Feature)
	}
	if skip == nil {
		skip = func(t *testing.T, format string, args ...any) { t.Helper(); t.Skipf(format, args...) }
	}
	skip(t, "no JDK at %s", j.Want)
}

// Each runs f as a subtest per JDK of All, named after it; an absent one
// is skipped (or fails: Check).
func Each(t *testing.T, f func(t *testing.T, j JDK)) {
	t.Helper()
	for _, j := range All() {
		t.Run(j.Name, func(t *testing.T) {
			j.Check(t, nil)
			f(t, j)
		})
	}
}

// Javac returns the javac that compiles the test programs: JDK 17's, else
// $JAVA_HOME's, another JDK 17's, or the one on PATH; an error saying where
// it looked when there is none.
func Javac() (string, error) {
	cands := []string{JDK17, os.Getenv("JAVA_HOME")}
	m, _ := filepath.Glob("/usr/lib/jvm/java-17-openjdk-*")
	cands = append(cands, m...)
	if p, err := exec.LookPath("javac"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			cands = append(cands, filepath.Dir(filepath.Dir(r)))
		}
	}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if p := filepath.Join(c, "bin", "javac"); fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no javac at %s/bin/javac, in $JAVA_HOME or on PATH (JDK 17 compiles the test programs)", JDK17)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Compile compiles srcs into the directory out (--release 17, UTF-8, with
// debug information), javac's JVM writing a crash file into crashDir
// (internal/crash: the caller checks it).
func Compile(out, crashDir string, srcs ...string) error {
	javac, err := Javac()
	if err != nil {
		return err
	}
	argv := ToolArgv(javac, crashDir, append([]string{"--release", "17", "-encoding", "UTF-8", "-g", "-d", out}, srcs...)...)
	if b, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("javac %s: %v\n%s", strings.Join(argv[1:], " "), err, b)
	}
	return nil
}

// Argv is the command line of a test JVM: java (a JDK's Java()), the
// option that puts the hs_err file of a crash into dir (crash.ErrorFile),
// then args (JVM options, -cp, the main class and its arguments). The test
// runs it in dir (Command), where a core would land too, and checks dir
// (crash.Check), so that no JVM a test starts crashes unseen.
func Argv(java, dir string, args ...string) []string {
	return append([]string{java, crash.ErrorFile(dir)}, args...)
}

// Options is Argv's JVM options in one string, for a launcher script that
// takes them from the environment (JAVA_OPTS): the option that puts the
// crash file into dir, then opts, separated by spaces.
func Options(dir string, opts ...string) string {
	return strings.Join(append([]string{crash.ErrorFile(dir)}, opts...), " ")
}

// ToolArgv is Argv for the launcher of a JDK tool (javac, jcmd, jfr), which
// hands a JVM option to its JVM as "-J" + option.
func ToolArgv(tool, dir string, args ...string) []string {
	return append([]string{tool, "-J" + crash.ErrorFile(dir)}, args...)
}

// Command returns the command that runs argv (Argv, after the command that
// runs the JVM when there is one: setpriv, orca record --) with its working
// directory dir, and, when t is not nil, checks dir for crash files when t
// ends (crash.Check). The caller sets its environment, input and output.
func Command(t testing.TB, dir string, argv ...string) *exec.Cmd {
	return CommandContext(context.Background(), t, dir, argv...)
}

// CommandContext is Command with a context that kills the command when
// done (a deadline: a hang is a failure, not a stuck test).
func CommandContext(ctx context.Context, t testing.TB, dir string, argv ...string) *exec.Cmd {
	if t != nil {
		t.Helper()
		t.Cleanup(func() { crash.Check(t, dir) })
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	return cmd
}

// Proc is a test JVM that Start started.
type Proc struct {
	Cmd            *exec.Cmd
	JVM            int // the JVM's pid: Cmd's, or its child's when Cmd runs it (unshare --fork): the caller sets it
	Stdout, Stderr *Buffer
	Dir            string
	exited         chan struct{} // closed when Cmd ended and its output is read
	waitErr        error         // Cmd.Wait's, once exited is closed
}

// Wait waits until the JVM has ended and its output is in Stdout and
// Stderr, and returns how it ended (exec.Cmd.Wait's error).
func (p *Proc) Wait() error {
	<-p.exited
	return p.waitErr
}

// Buffer is a bytes.Buffer the JVM's output goroutine and the test share.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Start starts cmd (Command's: a JVM, or a command that runs one) and
// waits until it prints the line ready on its standard output; it fails t
// when the command ends first or is not ready within 60 s. When t ends the
// JVM gets SIGTERM (it exits normally and removes its attach socket), is
// killed when it has not ended 20 s later (a failure), and its directory is
// checked for crash files.
func Start(t *testing.T, cmd *exec.Cmd, ready string) *Proc {
	t.Helper()
	p := &Proc{Cmd: cmd, Stderr: &Buffer{}, Stdout: &Buffer{}, Dir: cmd.Dir}
	cmd.Stderr = p.Stderr
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	// isReady is closed at the first line ready, not sent on: a JVM that
	// prints it twice would block the scanner, then the JVM on its full
	// pipe, then cmd.Wait. scanned is closed once every line is in
	// p.Stdout: exited waits for it, so that a test reading p.Stdout when
	// the JVM ended has its last line.
	isReady, scanned := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		seen := false
		for sc.Scan() {
			if !seen && sc.Text() == ready {
				seen = true
				close(isReady)
			}
			p.Stdout.Write([]byte(sc.Text() + "\n"))
		}
		io.Copy(io.Discard, pr)
	}()
	exited := make(chan struct{})
	p.exited = exited
	go func() {
		p.waitErr = cmd.Wait()
		pw.Close()
		<-scanned
		close(exited)
	}()
	p.JVM = cmd.Process.Pid
	t.Cleanup(func() {
		syscall.Kill(p.JVM, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("the JVM (pid %d) did not end within 20 s of SIGTERM", cmd.Process.Pid)
		}
		crash.Check(t, p.Dir)
	})
	select {
	case <-isReady:
	case <-exited:
		t.Fatalf("the JVM ended before it was ready: %v\nstdout:\n%s\nstderr:\n%s", p.waitErr, p.Stdout, p.Stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("the JVM was not ready within 60 s\nstderr:\n%s", p.Stderr)
	}
	return p
}
