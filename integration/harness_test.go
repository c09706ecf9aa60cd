// Package integration runs real JVMs with the Orca agent on the Java programs of
// testdata/java/scenarios and checks the recordings against what the programs say they did.
//
// Each program prints a last line "EXPECT key=value ...": the counts it performed and the
// identity hashes of its objects and threads, so nothing here hard-codes a hash. The tests run
// once per JDK found (internal/testjvm's candidates); an absent JDK is skipped with a message naming its path,
// unless ORCA_REQUIRE_JDKS names its feature release (ORCA_REQUIRE_JDKS=17,25: .ci/run sets it), in
// which case its tests fail. At the end TestMain prints which JDKs ran how many tests (and why
// each skipped one was: every skip goes through skipf), and writes
// the same lines to the file $ORCA_JDK_SUMMARY when set (make test prints it: go test shows a
// passing package's output only with -v).
// bin/orca must be built first (make test does that); ORCA_BIN=path runs another build instead, and
// ORCA_KEEP=1 keeps the recordings of a failed run.
//
// A crash of any JVM a test starts fails that test (internal/crash): each JVM's command line
// (jdk.argv, jdk.tool: internal/testjvm's) puts its crash file into its directory, and run,
// checkNoCrashLog, testjvm.Command and the end of every test that made a directory with newDir
// look there for hs_err files and cores, show the crash and move the file to build/crash (or
// $ORCA_CRASH_DIR).
//
// Two at a time (make test's time, docs/perf/2026-11-30-test-time.md): a test whose checks hold
// however busy the machine is calls t.Parallel() first, and go test runs it beside one other such
// test (-parallel defaults to GOMAXPROCS: 2 on CI's 2 cores) once every other test of the package
// has run alone, as all ran before. Such a test checks exact counts, the program's own EXPECT
// values, files and messages, stacks verified against GetStackTrace: nothing whose value depends on
// when the scheduler runs a thread. A test stays alone (no t.Parallel) when it attaches to a
// running JVM in a window of time, counts or times samples, bounds a time, a rate, a memory peak or
// an exit delay, compares with JFR, kills a JVM after a delay, counts files in /tmp that other
// tests make (TestThreadsErrors), sets the test process's own environment (t.Setenv, which Go
// refuses in a parallel test; withEnv gives variables to the commands a test starts instead, and
// allows it), or has failed under load before (TestPotentialDeadlocks, TestHeldNotBlocked,
// TestQueueNames). A test whose subtests are long and independent (the JIT modes of
// TestStackModes, the variants of TestParking) runs those as parallel subtests too.
package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"orca/internal/crash"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/testjvm"
)

// The JDKs the tests run on and the javac that compiles the programs are
// internal/testjvm's (its Candidates, ORCA_REQUIRE_JDKS).

// javaTimeout bounds one JVM run: a hang is a failure, not a stuck suite.
const javaTimeout = 90 * time.Second

var workDir string // removed by TestMain

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "orca-integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		os.Exit(1)
	}
	workDir = d
	required, err = testjvm.Required()
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		os.Exit(2)
	}
	// Every JVM under test checks each fast stack walk against GetStackTrace (docs/agent.md);
	// checkInfo requires that none differed.
	os.Setenv("ORCA_VERIFY_STACKS", "1")
	code := m.Run()
	if err := reportJDKs(os.Getenv("ORCA_JDK_SUMMARY")); err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		code = 1
	}
	if code == 0 || os.Getenv("ORCA_KEEP") == "" {
		os.RemoveAll(d)
	} else {
		fmt.Fprintln(os.Stderr, "integration: kept", d)
	}
	os.Exit(code)
}

// jdk is one Java installation under test.
type jdk struct {
	name    string // subtest name, e.g. "java-17-openjdk-amd64"
	home    string // "" when absent
	want    string // the path or pattern asked for, for the skip message
	feature int    // the feature release the candidate stands for (17, 21, 25)
}

func (j jdk) java() string { return filepath.Join(j.home, "bin", "java") }

// argv is the command line of a JVM under test on j (testjvm.Argv): java, the option that puts
// its crash file into dir, then args.
func (j jdk) argv(dir string, args ...string) []string { return testjvm.Argv(j.java(), dir, args...) }

// tool is the command line of j's tool name (jcmd, jfr) with its JVM's crash file in dir
// (testjvm.ToolArgv), then args.
func (j jdk) tool(dir, name string, args ...string) []string {
	return testjvm.ToolArgv(filepath.Join(j.home, "bin", name), dir, args...)
}

// jdks lists testjvm's JDKs (one reached by two names once; an absent one with home "").
func jdks() []jdk {
	var out []jdk
	for _, j := range testjvm.All() {
		out = append(out, jdk{name: j.Name, home: j.Home, want: j.Want, feature: j.Feature})
	}
	return out
}

// forEachJDK runs f as a subtest per JDK, skipping absent ones (through skipf), or failing when
// ORCA_REQUIRE_JDKS names an absent one's release (testjvm.JDK.Check).
func forEachJDK(t *testing.T, f func(t *testing.T, j jdk)) {
	t.Helper()
	for _, j := range jdks() {
		t.Run(j.name, func(t *testing.T) {
			countJDKTest(t, j)
			testjvm.JDK{Name: j.name, Home: j.home, Want: j.want, Feature: j.feature}.Check(t, skipf)
			f(t, j)
		})
	}
}

// required holds the feature releases ORCA_REQUIRE_JDKS names: an absent one fails its tests.
var required map[int]bool

// jdkCount is what became of one JDK's subtests.
type jdkCount struct {
	passed, failed, skipped int
	skips                   map[string][]string // the tests skipped, by why (skipf)
}

var (
	jdkRunsMu   sync.Mutex
	jdkRuns     = map[string]*jdkCount{} // by JDK name, absent ones included
	skipReasons = map[string]string{}    // by test name (t.Name()), as skipf gave it
)

// skipf skips t saying why, as t.Skipf, and keeps the reason for the summary: "9 skipped" on a
// JDK is listed there with why each was (reportJDKs). Every skip in this package goes through it.
func skipf(t *testing.T, format string, args ...any) {
	t.Helper()
	reason := fmt.Sprintf(format, args...)
	jdkRunsMu.Lock()
	skipReasons[t.Name()] = reason
	jdkRunsMu.Unlock()
	t.Skip(reason)
}

// countJDKTest counts t, j's subtest, as passed, failed or skipped when it ends.
func countJDKTest(t *testing.T, j jdk) {
	t.Cleanup(func() {
		jdkRunsMu.Lock()
		defer jdkRunsMu.Unlock()
		c := jdkRuns[j.name]
		if c == nil {
			c = &jdkCount{}
			jdkRuns[j.name] = c
		}
		switch {
		case t.Failed():
			c.failed++
		case t.Skipped():
			c.skipped++
			why, ok := skipReasons[t.Name()]
			if !ok {
				why = "no reason kept (a skip not through skipf: see go test -v)"
			}
			why, _, _ = strings.Cut(why, "\n")
			why = strings.TrimSuffix(strings.TrimSpace(why), ":")
			if c.skips == nil {
				c.skips = map[string][]string{}
			}
			test, _, _ := strings.Cut(t.Name(), "/")
			c.skips[why] = append(c.skips[why], test)
		default:
			c.passed++
		}
	})
}

// reportJDKs prints, one line per candidate, which JDK the tests ran on (home and version) and
// how many tests, or that it was absent; and writes the lines to the file summary when not "".
func reportJDKs(summary string) error {
	text := jdkSummary()
	fmt.Print(text)
	if summary == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(summary), 0o755); err != nil {
		return fmt.Errorf("writing the JDK summary: %w", err)
	}
	if err := os.WriteFile(summary, []byte(text), 0o644); err != nil {
		return fmt.Errorf("writing the JDK summary: %w", err)
	}
	return nil
}

// jdkSummary is reportJDKs's lines: per JDK its tests passed, failed and skipped, and why
// those were skipped.
func jdkSummary() string {
	jdkRunsMu.Lock()
	defer jdkRunsMu.Unlock()
	var b strings.Builder
	for _, j := range jdks() {
		n := jdkRuns[j.name]
		if n == nil {
			n = &jdkCount{}
		}
		req := ""
		if required[j.feature] {
			req = ", required (ORCA_REQUIRE_JDKS)"
		}
		if j.home == "" {
			fmt.Fprintf(&b, "integration: JDK %d: absent (no JDK at %s)%s: tests: %d skipped, %d failed\n", j.feature, j.want, req, n.skipped, n.failed)
			continue
		}
		version := "version unknown"
		if rel, err := os.ReadFile(filepath.Join(j.home, "release")); err == nil {
			if m := regexp.MustCompile(`(?m)^JAVA_VERSION="([^"]*)"`).FindSubmatch(rel); m != nil {
				version = string(m[1])
			}
		}
		fmt.Fprintf(&b, "integration: JDK %d: %s (%s)%s: tests: %d passed, %d failed, %d skipped\n",
			j.feature, j.home, version, req, n.passed, n.failed, n.skipped)
		// Why each was skipped: "9 skipped" alone does not say whether anything is wrong.
		for _, why := range slices.Sorted(maps.Keys(n.skips)) {
			tests := n.skips[why]
			sort.Strings(tests)
			fmt.Fprintf(&b, "integration:   %d skipped: %s: %s\n", len(tests), why, strings.Join(tests, ", "))
		}
	}
	return b.String()
}

// javacOnce compiles a set of Java sources once per test binary, with JDK 17's javac
// (--release 17, so every newer JDK runs the classes too).
type javacOnce struct {
	once sync.Once
	dir  string
	err  error
}

// get returns the class directory workDir/name, compiling the sources srcs lists the first
// time.
func (c *javacOnce) get(t *testing.T, name string, srcs func() ([]string, error)) string {
	t.Helper()
	c.once.Do(func() {
		files, err := srcs()
		if err != nil {
			c.err = err
			return
		}
		c.dir = filepath.Join(workDir, name)
		if c.err = testjvm.Compile(c.dir, c.dir, files...); c.err != nil {
			crash.Check(t, c.dir)
		}
	})
	if c.err != nil {
		t.Fatal(c.err)
	}
	return c.dir
}

var scenarioClasses javacOnce

// classes compiles testdata/java/scenarios once and returns the class directory.
func classes(t *testing.T) string {
	t.Helper()
	return scenarioClasses.get(t, "classes", func() ([]string, error) {
		srcs, _ := filepath.Glob(filepath.Join("..", "testdata", "java", "scenarios", "*.java"))
		if len(srcs) == 0 {
			return nil, errors.New("no Java sources in ../testdata/java/scenarios")
		}
		return srcs, nil
	})
}

// orcaBin returns the absolute path of bin/orca, or of $ORCA_BIN when set (to try another build).
func orcaBin(t *testing.T) string {
	t.Helper()
	p := os.Getenv("ORCA_BIN")
	if p == "" {
		p = filepath.Join("..", "bin", "orca")
	}
	p, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run make first (make test builds it before go test)", p)
	}
	return p
}

var (
	libOnce sync.Once
	libPath string
	libErr  error
)

// agentLib returns the agent library's path, from `bin/orca agent-path`.
func agentLib(t *testing.T) string {
	t.Helper()
	bin := orcaBin(t)
	libOnce.Do(func() {
		out, err := exec.Command(bin, "agent-path").Output()
		if err != nil {
			libErr = fmt.Errorf("%s agent-path: %v", bin, err)
			return
		}
		libPath = strings.TrimSpace(string(out))
		if _, err := os.Stat(libPath); err != nil {
			libErr = fmt.Errorf("%s agent-path printed %q: %v", bin, libPath, err)
		}
	})
	if libErr != nil {
		t.Fatal(libErr)
	}
	return libPath
}

// result is the outcome of one process run.
type result struct {
	cmd            string
	dir            string // its working directory (where an hs_err file would land)
	stdout, stderr string
	code           int // exit status; -1 when killed by a signal
	err            error
	target         string // an orca that attached (--pid) and failed: the target JVM's stderr, when noted (targetErr)
}

func (r *result) String() string {
	return fmt.Sprintf("command: %s\nexit status: %d (%v)\n--- stdout ---\n%s\n--- stderr ---\n%s%s",
		r.cmd, r.code, r.err, tail(r.stdout, 4000), tail(r.stderr, 4000), tail(r.target, 4000))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// run starts a command in dir and waits for it (at most javaTimeout), then fails the test if a
// JVM left a crash file in dir (the command may be a JVM expected to fail: a crash is not that).
// A JVM that run starts gets its command line from jdk.argv (its crash file in dir).
func run(t *testing.T, dir string, name string, args ...string) *result {
	t.Helper()
	return runFor(t, javaTimeout, dir, name, args...)
}

// runJVM is run of argv: a JVM's command line (jdk.argv, jdk.tool).
func runJVM(t *testing.T, dir string, argv []string) *result {
	t.Helper()
	return run(t, dir, argv[0], argv[1:]...)
}

// runFor is run with its own bound (the stress pass's -Xint runs take longer than javaTimeout).
func runFor(t *testing.T, timeout time.Duration, dir string, name string, args ...string) *result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env := envOf(t); len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	// In its own process group, all of it killed at the timeout: orca record's JVM is its
	// child, and killing orca alone left a hung JVM spinning for the rest of the suite (a
	// Convoy.java that never ended: 30 min at half a core).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := &result{cmd: name + " " + strings.Join(args, " "), dir: dir, stdout: out.String(), stderr: errb.String(), err: err}
	r.code = cmd.ProcessState.ExitCode()
	if r.code != 0 && filepath.Base(name) == "orca" {
		// An attach that failed: the agent says why on the JVM's stderr, orca only points there.
		r.target = targetErr(args)
	}
	crash.Check(t, dir)
	if ctx.Err() != nil {
		t.Fatalf("timed out after %v:\n%s", timeout, r)
	}
	return r
}

// testEnvs holds the variables a test gives the commands it starts (withEnv), by test name.
var testEnvs sync.Map

// withEnv gives the commands that t and its subtests start through run the variables kv, each
// "NAME=value", on top of the test process's own. It is t.Setenv for the started JVMs and orca
// (the agent reads them there), which Go refuses in a parallel test, and leaves the test
// process's environment alone, so the test may run beside another.
func withEnv(t *testing.T, kv ...string) {
	t.Helper()
	prev, _ := testEnvs.Load(t.Name())
	env, _ := prev.([]string)
	testEnvs.Store(t.Name(), append(slices.Clone(env), kv...))
	t.Cleanup(func() { testEnvs.Delete(t.Name()) })
}

// envOf is what withEnv gave t and the tests it is a subtest of, the outermost first (a
// variable given twice: the inner one's value, as exec takes the last).
func envOf(t *testing.T) []string {
	var env []string
	for name := t.Name(); ; {
		if v, ok := testEnvs.Load(name); ok {
			env = append(slices.Clone(v.([]string)), env...)
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return env
		}
		name = name[:i]
	}
}

// newDir makes a fresh directory for one test run; when the test ends, however it ends, a crash
// file there fails it (so a JVM started by hand, killed, or left by a t.Fatal is checked too).
func newDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp(workDir, "run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { crash.Check(t, d) })
	return d
}

// record runs `bin/orca record -o DIR/x -- java -cp CLASSES main args...` and returns the run and
// the recording prefix.
func record(t *testing.T, j jdk, main string, args ...string) (*result, string) {
	t.Helper()
	return recordJVM(t, j, nil, main, args...)
}

// recordJVM is record with JVM options (-Xint, -Xcheck:jni, ...) before the main class.
func recordJVM(t *testing.T, j jdk, jvmArgs []string, main string, args ...string) (*result, string) {
	t.Helper()
	bin, cls := orcaBin(t), classes(t)
	dir := newDir(t)
	prefix := filepath.Join(dir, "x")
	argv := append([]string{"record", "-o", prefix, "--"}, j.argv(dir, append(append(slices.Clone(jvmArgs), "-cp", cls, main), args...)...)...)
	r := run(t, dir, bin, argv...)
	checkNoCrashLog(t, r)
	return r, prefix
}

// recordExpect records main like record, fails the test unless orca exited
// 0, and returns the program's EXPECT line and the recording prefix; a
// failed test logs both.
func recordExpect(t *testing.T, j jdk, main string, args ...string) (expect, string) {
	t.Helper()
	return recordExpectJVM(t, j, nil, main, args...)
}

// recordExpectJVM is recordExpect with JVM options before the main class.
func recordExpectJVM(t *testing.T, j jdk, jvmArgs []string, main string, args ...string) (expect, string) {
	t.Helper()
	res, prefix := recordJVM(t, j, jvmArgs, main, args...)
	return expectOf(t, res, prefix)
}

// expectOf fails the test unless orca record exited 0, and returns the
// program's EXPECT line and the recording prefix; a failed test logs both.
func expectOf(t *testing.T, res *result, prefix string) (expect, string) {
	t.Helper()
	if res.code != 0 {
		t.Fatalf("orca record failed:\n%s", res)
	}
	e := parseExpect(t, res)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s\nrecording: %s (set ORCA_KEEP=1 to keep it)", e.line, prefix)
		}
	})
	return e, prefix
}

// recordExpectFlags is recordExpect with orca record flags (e.g.
// --lock-order) before the command.
func recordExpectFlags(t *testing.T, j jdk, flags []string, main string, args ...string) (expect, string) {
	t.Helper()
	res, prefix := recordJVMcpWith(t, j, flags, []string{"-cp", classes(t)}, main, args...)
	return expectOf(t, res, prefix)
}

// buildModel opens the recording and folds it into the model.
func buildModel(t *testing.T, prefix string) (*reader.Recording, *model.Result) {
	t.Helper()
	rec, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	built, err := model.Build(rec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rec, built
}

// checkNoCrashLog fails when a JVM left an hs_err file or a core in the run's directory
// (crash.Check: each crash is reported once, however often its directory is checked).
func checkNoCrashLog(t *testing.T, r *result) {
	t.Helper()
	crash.Check(t, r.dir)
}

// ---- EXPECT lines ----

// expect is the parsed EXPECT line of a program.
type expect struct {
	line string
	kv   map[string]string
}

// parseExpect finds the last line starting with "EXPECT " in out.
func parseExpect(t *testing.T, r *result) expect {
	t.Helper()
	var line string
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "EXPECT ") {
			line = sc.Text()
		}
	}
	if line == "" {
		t.Fatalf("the program printed no EXPECT line:\n%s", r)
	}
	e := expect{line: line, kv: map[string]string{}}
	for _, f := range strings.Fields(line)[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("EXPECT line: field %q is not key=value:\n%s", f, line)
		}
		e.kv[k] = v
	}
	return e
}

func (e expect) str(t *testing.T, key string) string {
	t.Helper()
	v, ok := e.kv[key]
	if !ok {
		t.Fatalf("EXPECT line has no %s:\n%s", key, e.line)
	}
	return v
}

func (e expect) int(t *testing.T, key string) int {
	t.Helper()
	n, err := strconv.Atoi(e.str(t, key))
	if err != nil {
		t.Fatalf("EXPECT %s: %v", key, err)
	}
	return n
}

func parseHash(t *testing.T, key, s string) uint32 {
	t.Helper()
	n, err := strconv.ParseUint(s, 16, 32)
	if err != nil || len(s) != 8 {
		t.Fatalf("EXPECT %s: %q is not 8 hex digits", key, s)
	}
	return uint32(n)
}

// nanos parses a comma-separated list of integers.
func (e expect) nanos(t *testing.T, key string) []int64 {
	t.Helper()
	var out []int64
	for _, s := range strings.Split(e.str(t, key), ",") {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("EXPECT %s: %v", key, err)
		}
		out = append(out, n)
	}
	return out
}

func (e expect) hash(t *testing.T, key string) uint32 {
	t.Helper()
	return parseHash(t, key, e.str(t, key))
}

// hashes parses a comma-separated list of hashes.
func (e expect) hashes(t *testing.T, key string) []uint32 {
	t.Helper()
	var out []uint32
	for _, s := range strings.Split(e.str(t, key), ",") {
		if s != "" {
			out = append(out, parseHash(t, key, s))
		}
	}
	return out
}

// names returns the "name.HASH=hex(UTF-8)" entries: thread hash -> name.
func (e expect) names(t *testing.T) map[uint32]string {
	t.Helper()
	out := map[uint32]string{}
	for k, v := range e.kv {
		h, ok := strings.CutPrefix(k, "name.")
		if !ok {
			continue
		}
		b, err := hex.DecodeString(v)
		if err != nil {
			t.Fatalf("EXPECT %s: %v", k, err)
		}
		out[parseHash(t, k, h)] = string(b)
	}
	return out
}

// ---- recordings ----

// frame is a resolved stack frame.
type frame struct {
	Class  string // signature, e.g. "LScenario;"
	Method string
	File   string // source file, "" when unknown
	Line   int    // 0 when unknown
}

func (f frame) String() string {
	if f.Class == "" && f.Method == "" {
		return "<none>"
	}
	return fmt.Sprintf("%s.%s(%s:%d)", strings.TrimSuffix(strings.TrimPrefix(f.Class, "L"), ";"), f.Method, f.File, f.Line)
}

// jdkClass reports whether a class signature belongs to the JDK.
func jdkClass(sig string) bool {
	for _, p := range []string{"Ljava/", "Ljavax/", "Ljdk/", "Lsun/", "Lcom/sun/"} {
		if strings.HasPrefix(sig, p) {
			return true
		}
	}
	return false
}

// recording is a whole recording read through the reader package.
type recording struct {
	prefix    string
	events    []reader.Event
	stacks    [][]frame         // resolved, parallel to events
	text      [][]string        // the reader's rendering of the frames, parallel to events
	info      map[string]string // the .info file (nil when absent)
	parseErrs []error           // bad lines of the .orca file, in order
	warnings  []string          // bad lines of .methods, .classtable, .info; missing files
	truncated bool              // the .orca file's last line was cut off (and skipped)
}

// maxParseErrs stops reading a hopeless file.
const maxParseErrs = 50

// load reads the recording at prefix. Parse errors are collected, not fatal: callers decide
// which are allowed.
func load(t *testing.T, prefix string) *recording {
	t.Helper()
	return loadStacks(t, prefix, true)
}

// loadStacks is load; without resolveFrames, the frames are not resolved (stacks and text stay empty):
// a stress recording has millions of frames, and its checks need none of their names.
func loadStacks(t *testing.T, prefix string, resolveFrames bool) *recording {
	t.Helper()
	rec, err := reader.Open(prefix)
	if err != nil {
		files, _ := filepath.Glob(prefix + "*")
		t.Fatalf("reader.Open(%s): %v (files: %v)", prefix, err, files)
	}
	r := &recording{prefix: prefix, info: rec.Info, warnings: rec.Warnings}
	it, closer, err := rec.Events()
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	for {
		ev, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *reader.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("reading %s.orca: %v", prefix, err) // a read error repeats forever
			}
			r.parseErrs = append(r.parseErrs, err)
			if len(r.parseErrs) >= maxParseErrs {
				break
			}
			continue
		}
		r.events = append(r.events, ev)
		if !resolveFrames {
			r.stacks, r.text = append(r.stacks, nil), append(r.text, nil)
			continue
		}
		st := make([]frame, len(ev.Stack))
		txt := make([]string, len(ev.Stack))
		for i, f := range ev.Stack {
			st[i] = resolve(rec, f)
			txt[i] = rec.Resolve(f)
		}
		r.stacks = append(r.stacks, st)
		r.text = append(r.text, txt)
	}
	r.truncated = it.Truncated()
	return r
}

// resolve turns a frame into class, method, file and line through the reader.
func resolve(rec *reader.Recording, f format.Frame) frame {
	var out frame
	if m := rec.Methods[f.Method]; m != nil {
		out.Method = m.Name
		if c := rec.Classes[m.Class]; c != nil {
			out.Class = c.Signature
		}
	}
	out.File, out.Line = rec.Line(f)
	return out
}

// userFrame is the innermost frame of event i outside the JDK, or false.
func (r *recording) userFrame(i int) (frame, bool) {
	for _, f := range r.stacks[i] {
		if f.Class != "" && !jdkClass(f.Class) {
			return f, true
		}
	}
	return frame{}, false
}

// hasFrameIn reports whether event i has a frame from the source file file.
func (r *recording) hasFrameIn(i int, file string) bool {
	for _, f := range r.stacks[i] {
		if f.File == file {
			return true
		}
	}
	return false
}

// hasMethod reports whether event i has a frame of class.method.
func (r *recording) hasMethod(i int, class, method string) bool {
	for _, f := range r.stacks[i] {
		if f.Class == class && f.Method == method {
			return true
		}
	}
	return false
}

// describe prints event i with its resolved stack, for failure messages.
func (r *recording) describe(i int) string {
	ev := r.events[i]
	var b strings.Builder
	fmt.Fprintf(&b, "line %d: %.10f %s thread=%v", ev.Line, ev.Time.Seconds(), ev.Kind, ev.Thread)
	if ev.Kind.Has(format.FObject) {
		fmt.Fprintf(&b, " object=%v", ev.Object)
	}
	if ev.Kind.Has(format.FTarget) {
		fmt.Fprintf(&b, " target=%v", ev.Target)
	}
	if ev.Kind.Has(format.FOwner) {
		fmt.Fprintf(&b, " owner=%v", ev.Owner)
	}
	if ev.Kind.Has(format.FName) {
		fmt.Fprintf(&b, " name=%q", ev.Name)
	}
	for _, f := range r.text[i] {
		fmt.Fprintf(&b, "\n\t%s", f)
	}
	return b.String()
}

// logOnFailure logs the recording's events per kind and its .info when t has failed by its end.
func (r *recording) logOnFailure(t *testing.T) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("found: %s\ninfo: %v", r.kindCounts(), r.info)
		}
	})
}

// kindCounts summarises the recording: events per kind.
func (r *recording) kindCounts() string {
	var n [format.NumKinds]int
	for _, ev := range r.events {
		n[ev.Kind]++
	}
	var b strings.Builder
	for k := format.Kind(1); k < format.NumKinds; k++ {
		fmt.Fprintf(&b, "%s=%d ", k, n[k])
	}
	return strings.TrimSpace(b.String())
}

// select returns the indices of events of kind k for which keep (if not nil) is true.
func (r *recording) sel(k format.Kind, keep func(i int, ev reader.Event) bool) []int {
	var out []int
	for i, ev := range r.events {
		if ev.Kind == k && (keep == nil || keep(i, ev)) {
			out = append(out, i)
		}
	}
	return out
}

// checkInfo checks the .info completeness flag and, when noDrops, that nothing was dropped.
func (r *recording) checkInfo(t *testing.T, complete, noDrops bool) {
	t.Helper()
	if got, want := r.info["complete"], strconv.FormatBool(complete); got != want {
		t.Errorf(".info: complete=%q, want %s (info: %v)", got, want, r.info)
	}
	if v := r.info["verified_stacks_differ"]; v != "" && v != "0" {
		t.Errorf(".info: verified_stacks_differ=%s: AsyncGetCallTrace and GetStackTrace disagreed on %s of %s stacks",
			v, v, r.info["verified_stacks"])
	}
	if !noDrops {
		return
	}
	if v := r.info["dropped_total"]; v != "" && v != "0" {
		t.Errorf(".info: dropped_total=%s, want 0 (info: %v)", v, r.info)
	}
	for k, v := range r.info {
		if strings.HasPrefix(k, "dropped.") && v != "0" {
			t.Errorf(".info: %s=%s, want none", k, v)
		}
	}
}

// checkParse fails on every parse error, metadata warning and a truncated last line.
func (r *recording) checkParse(t *testing.T) {
	t.Helper()
	for _, err := range r.parseErrs {
		t.Errorf("parsing %s: %v", r.prefix, err)
	}
	for _, w := range r.warnings {
		t.Errorf("reading %s: %s", r.prefix, w)
	}
	if r.truncated {
		t.Errorf("%s.orca: last line cut off", r.prefix)
	}
}

// pair is an entry event and the exit that must close it on the same thread.
type pair struct {
	open, close format.Kind
	sameStack   bool // the exit repeats the entry's stack (docs/format.md)
}

var pairs = []pair{
	{format.ObjectWait, format.ObjectWaited, true},
	{format.ThreadSleep, format.ThreadSlept, false},
	{format.ThreadJoin, format.ThreadJoined, false},
	{format.SemaphoreAcquire, format.SemaphoreAcquired, false},
	{format.MonitorContendedEnter, format.MonitorContendedEntered, true},
	{format.ThreadPark, format.ThreadUnparked, false}, // ThreadUnparked has no stack: the park's
}

// checkInvariants checks what holds for every recording, also one cut short: timestamps never
// go back within a thread; per thread, each entry event of pairs is closed by its exit (same
// object or target, and for waits and contended enters the same stack) before the thread opens
// another of that kind; no exit comes without its entry; and a thread that ended has nothing
// open. A thread may still be inside a call when the VM ends (daemons such as the Reference
// Handler are), so an entry left open is wrong only for a thread that ended.
func (r *recording) checkInvariants(t *testing.T) {
	t.Helper()
	type key struct {
		th   format.ThreadID
		open format.Kind
	}
	pairOf := map[format.Kind]pair{}
	for _, p := range pairs {
		pairOf[p.open], pairOf[p.close] = p, p
	}
	last := map[format.ThreadID]int{}
	open := map[key]int{}
	errs := 0
	fail := func(format string, args ...any) {
		t.Helper()
		if errs++; errs <= 10 {
			t.Errorf(format, args...)
		}
	}
	for i, ev := range r.events {
		if ev.Kind == format.Sample || ev.Kind == format.ThreadCPU {
			// An instant, not a state: a sample may precede a line the
			// agent held back, the writer's ThreadCPU poll a line its
			// thread stamped before and committed after it (docs/format.md,
			// "Order").
			continue
		}
		if j, ok := last[ev.Thread]; ok && ev.Time < r.events[j].Time {
			fail("thread %v: time goes back:\n%s\nafter\n%s", ev.Thread, r.describe(i), r.describe(j))
		}
		last[ev.Thread] = i
		if ev.Kind == format.ThreadEnded {
			for k, j := range open {
				if k.th == ev.Thread {
					fail("thread %v ended inside a call: %s never followed by %s:\n%s", ev.Thread, k.open, pairOf[k.open].close, r.describe(j))
					delete(open, k)
				}
			}
			continue
		}
		p, ok := pairOf[ev.Kind]
		if !ok {
			continue
		}
		k := key{ev.Thread, p.open}
		j, isOpen := open[k]
		if ev.Kind == p.open {
			if isOpen {
				fail("thread %v: %s while the previous one is still open:\n%s\nopen:\n%s", ev.Thread, ev.Kind, r.describe(i), r.describe(j))
			}
			open[k] = i
			continue
		}
		if !isOpen {
			fail("thread %v: %s without %s:\n%s", ev.Thread, ev.Kind, p.open, r.describe(i))
			continue
		}
		delete(open, k)
		o := r.events[j]
		if o.Object != ev.Object || o.Target != ev.Target {
			fail("thread %v: %s on another object or target than its %s:\n%s\nopened by:\n%s", ev.Thread, ev.Kind, p.open, r.describe(i), r.describe(j))
		}
		if p.sameStack && !slices.Equal(o.Stack, ev.Stack) {
			fail("thread %v: %s with another stack than its %s:\n%s\nopened by:\n%s", ev.Thread, ev.Kind, p.open, r.describe(i), r.describe(j))
		}
	}
	if errs > 10 {
		t.Errorf("… %d invariant violations in all", errs)
	}
}

// withoutSamples returns orca dump's output without its Sample and ThreadCPU lines (each with the
// stack lines under it): what the dump of a seed export of the same recording prints, since the
// seed's format has no kind for them.
func withoutSamples(dump string) string {
	var b strings.Builder
	skip, left := false, 0
	for _, l := range strings.SplitAfter(dump, "\n") {
		var n int
		if _, err := fmt.Sscanf(l, "# %d events\n", &n); err == nil {
			fmt.Fprintf(&b, "# %d events\n", n-left) // the count at its end
			continue
		}
		if f := strings.Fields(l); len(f) == 0 || !strings.HasPrefix(l, " ") { // a blank line, an event's line
			skip = len(f) >= 2 && (f[1] == format.Sample.String() || f[1] == format.ThreadCPU.String())
			if skip {
				left++
			}
		}
		if !skip {
			b.WriteString(l)
		}
	}
	return b.String()
}

// stuckJVM tells what the process pid is doing, for a test whose JVM did not end in time: each
// thread's name, state, kernel wait channel and (as root) kernel stack, then the JVM's own thread
// dump, which SIGQUIT makes it print on the standard output that out collects. A JVM that no
// longer answers SIGQUIT (stuck in its exit) is said to be so.
func stuckJVM(pid int, out interface{ String() string }) string {
	var b strings.Builder
	proc := "/proc/" + strconv.Itoa(pid)
	tasks, _ := os.ReadDir(proc + "/task")
	fmt.Fprintf(&b, "pid %d, %d threads:\n", pid, len(tasks))
	for _, task := range tasks {
		dir := proc + "/task/" + task.Name()
		comm, _ := os.ReadFile(dir + "/comm")
		stat, _ := os.ReadFile(dir + "/stat")
		state := "?"
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
			state = string(stat[i+2])
		}
		wchan, _ := os.ReadFile(dir + "/wchan")
		fmt.Fprintf(&b, "  %s %q %s %s\n", task.Name(), strings.TrimSpace(string(comm)), state, wchan)
		if stack, err := os.ReadFile(dir + "/stack"); err == nil {
			for _, l := range strings.Split(strings.TrimSpace(string(stack)), "\n") {
				fmt.Fprintf(&b, "      %s\n", l)
			}
		}
	}
	before := len(out.String())
	syscall.Kill(pid, syscall.SIGQUIT)
	time.Sleep(3 * time.Second)
	if dump := out.String()[before:]; dump != "" {
		fmt.Fprintf(&b, "its thread dump (SIGQUIT):\n%s", dump)
	} else {
		b.WriteString("no thread dump within 3 s of SIGQUIT\n")
	}
	return b.String()
}
