package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for a JVM that loaded the agent
// (see fakeJVM), so the whole of orca record runs without Java.
func TestMain(m *testing.M) {
	if os.Getenv("ORCA_TEST_FAKE_JVM") != "" {
		os.Exit(fakeJVM())
	}
	if os.Getenv("ORCA_TEST_AS_ORCA") != "" {
		// orca itself, in a process of its own (TestPushTLS: the
		// system's roots are read once per process).
		os.Exit(run(ui{os.Stdin, os.Stdout, os.Stderr}, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeJVM does what the agent does with clobber=no: it reads prefix= from
// JAVA_TOOL_OPTIONS and writes the first free PREFIX.* or PREFIX-N.*.
func fakeJVM() int {
	opts := os.Getenv("JAVA_TOOL_OPTIONS")
	m := regexp.MustCompile(`=prefix=([^,]*),clobber=no,depth=(\d+)`).FindStringSubmatch(opts)
	if m == nil || !strings.HasPrefix(opts, os.Getenv("ORCA_TEST_FAKE_JVM")+" ") {
		fmt.Fprintln(os.Stderr, "fake JVM: no agent in JAVA_TOOL_OPTIONS")
		return 9
	}
	prefix := strings.ReplaceAll(m[1], "%%", "%")
	switch os.Getenv("ORCA_TEST_FAKE_FAIL") {
	case "agent":
		// The agent could not write: its message in the errors= file, no recording.
		if e := regexp.MustCompile(`,errors=([^, ]+)`).FindStringSubmatch(opts); e != nil {
			os.WriteFile(e[1], []byte("JVM pid 1: cannot write "+prefix+".orca: Permission denied; the agent is disabled\n"), 0o600)
		}
		return 0
	case "unstarted":
		// The JVM stopped in its initialisation (a bad option after the agent loaded).
		for _, ext := range []string{".orca", ".methods", ".classtable"} {
			os.WriteFile(prefix+ext, nil, 0o644)
		}
		session := regexp.MustCompile(`,session=([0-9a-f]+)`).FindStringSubmatch(opts)[1]
		os.WriteFile(prefix+".info", []byte("session="+session+"\ncomplete=false\n"), 0o644)
		return 1
	}
	for n := 1; ; n++ {
		p := prefix
		if n > 1 {
			p = fmt.Sprintf("%s-%d", prefix, n)
		}
		f, err := os.OpenFile(p+".orca", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			continue
		}
		fmt.Fprintln(f, "0.0000000010,ThreadEnded,00000001")
		f.Close()
		os.WriteFile(p+".methods", nil, 0o644)
		os.WriteFile(p+".classtable", nil, 0o644)
		session := ""
		if s := regexp.MustCompile(`,session=([0-9a-f]+)`).FindStringSubmatch(opts); s != nil {
			session = s[1]
		}
		if os.Getenv("ORCA_TEST_FAKE_FOREIGN") != "" && n == 1 {
			// Another orca record with the same prefix, at the same time.
			session = "0123456789abcdef"
		}
		os.WriteFile(p+".info", fmt.Appendf(nil, "session=%s\npid=%d\ncommand=Fake\ncomplete=true\nevents.ThreadEnded=1\ndropped_total=0\n", session, os.Getpid()), 0o644)
		if os.Getenv("ORCA_TEST_FAKE_FOREIGN") != "" && n == 1 {
			continue
		}
		return 3
	}
}

func TestRecordEndToEnd(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	// The fake JVM checks that the value set before orca is kept, in front.
	t.Setenv("ORCA_TEST_FAKE_JVM", "-Xss2m")
	t.Setenv("JAVA_TOOL_OPTIONS", "-Xss2m")
	prefix := filepath.Join(dir, "run 1%p") // a space and a % survive the trip

	var out, errb bytes.Buffer
	u := ui{strings.NewReader(""), &out, &errb}
	record := func(extra ...string) int {
		errb.Reset()
		args := append([]string{"record", "-o", prefix}, extra...)
		return run(u, append(args, "--", os.Args[0]))
	}
	if code := record(); code != 3 {
		t.Fatalf("exit status %d, want the child's 3; stderr:\n%s", code, errb.String())
	}
	for _, want := range []string{"recording " + prefix + " from JVM pid", "ThreadEnded  1", "next: orca report '" + prefix + "'\n"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, errb.String())
		}
	}

	// A second run refuses to overwrite ...
	if code := record(); code != exitFailed || !strings.Contains(errb.String(), "already exists") {
		t.Fatalf("second run: exit %d, stderr:\n%s", code, errb.String())
	}
	// ... and with --force starts afresh, reporting only the new recording.
	os.WriteFile(prefix+"-2.orca", nil, 0o644)
	if code := record("--force"); code != 3 {
		t.Fatalf("--force: exit %d, stderr:\n%s", code, errb.String())
	}
	if _, err := os.Stat(prefix + "-2.orca"); err == nil {
		t.Error("--force left " + prefix + "-2.orca")
	}
	if n := strings.Count(errb.String(), "orca: recording "); n != 1 {
		t.Errorf("%d recordings reported, want 1:\n%s", n, errb.String())
	}

	// Without an earlier PREFIX.orca, an old PREFIX-2 is not reported.
	os.Remove(prefix + ".orca")
	if code := record("--quiet"); code != 3 || errb.Len() != 0 {
		t.Fatalf("--quiet: exit %d, stderr:\n%s", code, errb.String())
	}
}

// TestRecordOwnSession (issue 12, item 8): two orca record runs with one prefix at the same time
// write PREFIX and PREFIX-2, and each summary listed both as its own. The fake JVM writes a
// recording of another session first (as the other run's JVM would), then its own: only its own
// is listed.
func TestRecordOwnSession(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("ORCA_TEST_FAKE_JVM", "-Xss2m")
	t.Setenv("JAVA_TOOL_OPTIONS", "-Xss2m")
	t.Setenv("ORCA_TEST_FAKE_FOREIGN", "1")
	prefix := filepath.Join(dir, "rec")
	var errb bytes.Buffer
	code := run(ui{strings.NewReader(""), io.Discard, &errb}, []string{"record", "-o", prefix, "--", os.Args[0]})
	if code != 3 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	if n := strings.Count(errb.String(), "orca: recording "); n != 1 || !strings.Contains(errb.String(), "orca: recording "+prefix+"-2 ") {
		t.Errorf("want only %s-2 (this run's) in the summary:\n%s", prefix, errb.String())
	}
}

// TestRecordNested (issue 12, item 7): orca record -- orca record -- java loaded the agent twice.
// The inner orca record finds the outer one in its environment and adds no agent.
func TestRecordNested(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("ORCA_TEST_FAKE_JVM", "-Xss2m")
	t.Setenv("JAVA_TOOL_OPTIONS", "-Xss2m")
	t.Setenv(recordEnv, "/outer/rec")
	var errb bytes.Buffer
	code := run(ui{strings.NewReader(""), io.Discard, &errb}, []string{"record", "-o", filepath.Join(dir, "x"), "--", os.Args[0]})
	// The fake JVM exits 9 when JAVA_TOOL_OPTIONS carries no agent.
	if code != 9 || !strings.Contains(errb.String(), "already inside orca record (recording to /outer/rec)") {
		t.Errorf("exit %d, stderr:\n%s", code, errb.String())
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "x*")); len(files) != 0 {
		t.Errorf("the inner orca record wrote %v", files)
	}
}

func TestRecordNoJVM(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	var errb bytes.Buffer
	code := run(ui{strings.NewReader(""), io.Discard, &errb}, []string{"record", "-o", filepath.Join(dir, "x"), "--", "sh", "-c", "exit 4"})
	if code != 4 || !strings.Contains(errb.String(), "nothing was recorded: sh exited with status 4") {
		t.Errorf("exit %d, stderr:\n%s", code, errb.String())
	}
	code = run(ui{strings.NewReader(""), io.Discard, &errb}, []string{"record", "-o", filepath.Join(dir, "x"), "--", "/no/such/command"})
	if code != 127 {
		t.Errorf("missing command: exit %d, want 127", code)
	}
}

// TestRecordExitStatus (issue 31, item 6): orca record -- /bin/true (no JVM started) exited 0,
// and orca's "a JVM could not be recorded" was 3, a status a program of its own could exit with.
// Orca's own failures are 125 (as env's and timeout's); the program's statuses, 3 included, pass
// through.
func TestRecordExitStatus(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	for _, c := range []struct {
		argv []string
		code int
		want string
	}{
		{[]string{"/bin/true"}, 125, "orca: no recording was written: /bin/true (exit status 0) started no JVM that loaded the agent."},
		{[]string{"sh", "-c", "exit 3"}, 3, "orca: nothing was recorded: sh exited with status 3 before any JVM loaded the agent."},
		{[]string{"sh", "-c", "exit 125"}, 125, "sh exited with status 125"},
		{[]string{"sh", "-c", "kill -TERM $$"}, 128 + 15, "sh exited with status 143"},
		{[]string{"/no/such/command"}, 127, "orca: /no/such/command: command not found"},
		{[]string{"/dev/null"}, 126, "orca: starting /dev/null: "},
	} {
		var errb bytes.Buffer
		code := run(ui{strings.NewReader(""), io.Discard, &errb}, append([]string{"record", "-o", filepath.Join(dir, "x"), "--"}, c.argv...))
		if code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("orca record -- %q: exit %d, stderr:\n%s\nwant exit %d and %q", c.argv, code, errb.String(), c.code, c.want)
		}
	}
}

// TestRecordUnwritable (issue 21 item 3): a prefix whose directory is missing or not writable
// (even by root: /sys) is refused before COMMAND starts, with exit status 125; before, the program
// ran and orca asked whether it was a Java program, and exited 0.
func TestRecordUnwritable(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	marker := filepath.Join(dir, "ran")
	for _, c := range []struct{ prefix, want string }{
		{"/proc/nope/x", "the directory /proc/nope does not exist"},
		{filepath.Join(dir, "missing", "x"), "does not exist: create it"},
		{"/sys/orca-x", "cannot create files in /sys"},
		{filepath.Join(marker+"-file", "x"), "is not a directory"},
	} {
		os.WriteFile(marker+"-file", nil, 0o644)
		var errb bytes.Buffer
		code := run(ui{strings.NewReader(""), io.Discard, &errb}, []string{"record", "-o", c.prefix, "--", "sh", "-c", "touch " + marker})
		if code != exitFailed || !strings.Contains(errb.String(), c.want) || !strings.Contains(errb.String(), "nothing was started") {
			t.Errorf("-o %s: exit %d, stderr:\n%s\nwant exit 125 and %q", c.prefix, code, errb.String(), c.want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("-o %s: the command ran", c.prefix)
		}
	}
}

// TestRecordAgentFailed (issue 21 item 3): a JVM whose agent could not record (its message in the
// errors= file) makes orca repeat the message at the end and exit 125, though the command exited
// 0; a JVM that stopped in its initialisation leaves no empty files behind (a corrected retry
// then works) and orca says so.
func TestRecordAgentFailed(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("ORCA_TEST_FAKE_JVM", "-Xss2m")
	t.Setenv("JAVA_TOOL_OPTIONS", "-Xss2m")
	prefix := filepath.Join(dir, "rec")
	var errb bytes.Buffer
	t.Setenv("ORCA_TEST_FAKE_FAIL", "agent")
	code := run(ui{strings.NewReader(""), io.Discard, &errb}, []string{"record", "-o", prefix, "--", os.Args[0]})
	if code != exitFailed || !strings.Contains(errb.String(), "the agent could not record:\n  JVM pid 1: cannot write "+prefix+".orca") ||
		strings.Contains(errb.String(), "Java program") {
		t.Errorf("agent failed: exit %d, stderr:\n%s", code, errb.String())
	}
	errb.Reset()
	t.Setenv("ORCA_TEST_FAKE_FAIL", "unstarted")
	code = run(ui{strings.NewReader(""), io.Discard, &errb}, []string{"record", "-o", prefix, "--", os.Args[0]})
	if code != 1 || !strings.Contains(errb.String(), "stopped before it started") || strings.Contains(errb.String(), "INCOMPLETE") {
		t.Errorf("unstarted: exit %d, stderr:\n%s", code, errb.String())
	}
	if files, _ := filepath.Glob(prefix + "*"); len(files) != 0 {
		t.Errorf("left %v", files)
	}
	errb.Reset()
	t.Setenv("ORCA_TEST_FAKE_FAIL", "")
	if code := run(ui{strings.NewReader(""), io.Discard, &errb}, []string{"record", "-o", prefix, "--", os.Args[0]}); code != 3 || strings.Contains(errb.String(), "already exists") {
		t.Errorf("the retry: exit %d, stderr:\n%s", code, errb.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nonsense"},
		{"record"},
		{"record", "--depth", "257", "--", "java"},
		{"record", "--flush", "5", "--", "java"},
		{"record", "--buffer", "2000", "--", "java"},
		{"record", "-o", "a,b", "--", "java"},
		{"record", "-o", "dir/", "--", "java"},
		{"record", "--bogus", "--", "java"},
		{"record", "--pid", "1", "--bogus"},
		{"record", "--pid=1", "--duration", "-1s"},
		{"dump"},
		{"agent-path", "extra"},
	} {
		var errb bytes.Buffer
		want := 2
		if len(args) > 0 && args[0] == "record" && !attachArgs(args[1:]) {
			want = exitFailed // orca record -- COMMAND's own failure
		}
		if code := run(ui{nil, io.Discard, &errb}, args); code != want {
			t.Errorf("orca %q: exit %d, want %d", args, code, want)
		}
		if len(args) > 0 && !strings.HasPrefix(errb.String(), "orca: ") {
			t.Errorf("orca %q: stderr %q, want an orca: message", args, errb.String())
		}
	}
}

func TestHelp(t *testing.T) {
	for _, c := range commands() {
		var out bytes.Buffer
		if code := run(ui{nil, &out, io.Discard}, []string{c.name, "--help"}); code != 0 {
			t.Errorf("orca %s --help: exit %d", c.name, code)
		}
		if !strings.HasPrefix(out.String(), "Usage: orca ") && c.name != "help" {
			t.Errorf("orca %s --help:\n%s", c.name, out.String())
		}
	}
}

func TestDefaultPrefix(t *testing.T) {
	at := time.Date(2025, 3, 9, 14, 5, 7, 0, time.Local)
	if got := defaultPrefix(at); got != "orca-20250309-140507" {
		t.Errorf("defaultPrefix = %s", got)
	}
}

func TestMatchRecording(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		ok   bool
	}{
		{"run.orca", 1, true},
		{"run.info", 1, true},
		{"run-2.methods", 2, true},
		{"run-17.classtable", 17, true},
		{"run-1.orca", 0, false}, // the agent never writes -1
		{"run-02.orca", 0, false},
		{"run-x.orca", 0, false},
		{"run-.orca", 0, false},
		{"run-2-3.orca", 0, false},
		{"runner.orca", 0, false},
		{"run.txt", 0, false},
		{"run.orca.tmp", 0, false},
	} {
		n, _, ok := matchRecording("run", c.name)
		if n != c.n || ok != c.ok {
			t.Errorf("matchRecording(run, %s) = %d, %v; want %d, %v", c.name, n, ok, c.n, c.ok)
		}
	}
}

func touch(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRemoveRecordings(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "run")
	keep := []string{pre + ".txt", pre + "ner.orca", pre + "-x.orca", pre + "-02.info", filepath.Join(dir, "other.orca")}
	gone := []string{pre + ".orca", pre + ".methods", pre + ".classtable", pre + ".info", pre + "-2.orca", pre + "-2.info", pre + "-10.orca"}
	touch(t, keep...)
	touch(t, gone...)
	removed, err := removeRecordings(pre, os.Geteuid(), os.Getegid())
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(removed)
	sort.Strings(gone)
	if !reflect.DeepEqual(removed, gone) {
		t.Errorf("removed %q\nwant %q", removed, gone)
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
}

// TestRecordingNamesPlanted (issue 30): names of a recording that another user put in a shared
// directory — a symbolic link to a file of the recording's user, a directory, a file of another
// user — are refused before anything starts (exit status 2, each named), and --force deletes
// only the recording user's regular files, never through a link. As root, the recording's user
// is another one (65534, as when root attaches to a JVM of nobody) and deletes with its ids.
func TestRecordingNamesPlanted(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "run")
	uid, gid := os.Geteuid(), os.Getegid()
	if uid == 0 {
		uid, gid = 65534, 65534
		if err := os.Chmod(dir, 0o1777); err != nil {
			t.Fatal(err)
		}
	}
	victim := filepath.Join(dir, "victim")
	touch(t, victim)
	own := []string{pre + ".orca", pre + ".info", pre + "-2.methods"}
	touch(t, own...)
	for _, p := range append([]string{victim}, own...) {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(victim, pre+".orca.000004"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(pre+"-3.info", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, pre+".lease"); err != nil {
		t.Fatal(err)
	}
	want := []string{pre + ".orca.000004 is a symbolic link", pre + "-3.info is a directory", pre + ".lease is a symbolic link"}
	if os.Geteuid() == 0 {
		touch(t, pre+".classtable") // root's: not the recording user's
		want = append(want, pre+".classtable is a file of root (uid 0)")
	}
	err := checkRecordingNames(pre, uid, "nothing was started")
	ee, ok := err.(exitError)
	if !ok || ee.code != 2 || !strings.Contains(ee.msg, "nothing was started") {
		t.Fatalf("checkRecordingNames: %v, want exit status 2 ending in nothing was started", err)
	}
	for _, w := range want {
		if !strings.Contains(ee.msg, w) {
			t.Errorf("checkRecordingNames does not say %q:\n%s", w, ee.msg)
		}
	}
	removed, err := removeRecordings(pre, uid, gid)
	sort.Strings(removed)
	sort.Strings(own)
	if !reflect.DeepEqual(removed, own) {
		t.Errorf("--force removed %q, want %q", removed, own)
	}
	if ee, ok := err.(exitError); !ok || ee.code != 2 || !strings.Contains(ee.msg, pre+".orca.000004 (a symbolic link)") {
		t.Errorf("--force with planted names: %v, want exit status 2 naming the link", err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != victim {
		t.Errorf("the link's target %s: %q, %v; want unchanged", victim, b, err)
	}
	if fi, err := os.Lstat(pre + ".orca.000004"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the planted link was removed or replaced: %v", err)
	}
	if err := checkRecordingNames(filepath.Join(dir, "other"), uid, "nothing was started"); err != nil {
		t.Errorf("a prefix with no names taken: %v", err)
	}
}

func TestNewRecordings(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "run")
	touch(t, pre+"-2.orca", pre+"-2.info", pre+"-3.orca")
	before, _ := findRecordings(pre)
	touch(t, pre+".orca", pre+".info", pre+"-10.orca")
	// A changed file (the agent rewrites .info) marks its recording as new.
	os.WriteFile(pre+"-3.orca", []byte("more than before"), 0o644)
	after, _ := findRecordings(pre)
	var got []string
	for _, r := range newRecordings(before, after) {
		got = append(got, r.prefix)
	}
	want := []string{pre, pre + "-3", pre + "-10"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("new recordings %q, want %q", got, want)
	}
	if r := after[0]; len(r.files) != 2 || !strings.HasSuffix(r.files[0].path, ".orca") || !strings.HasSuffix(r.files[1].path, ".info") {
		t.Errorf("files of %s: %+v", r.prefix, r.files)
	}
}

func TestJavaToolOptions(t *testing.T) {
	for _, c := range []struct{ existing, opt, want string }{
		{"", "-agentpath:/l.so=prefix=/p", "-agentpath:/l.so=prefix=/p"},
		{"  ", "-agentpath:/l.so=prefix=/p", "-agentpath:/l.so=prefix=/p"},
		{"-Xmx1g -Dx=\"a b\"", "-agentpath:/l.so=prefix=/p", "-Xmx1g -Dx=\"a b\" -agentpath:/l.so=prefix=/p"},
		{"-Xmx1g", "-agentpath:/l.so=prefix=/my run", "-Xmx1g \"-agentpath:/l.so=prefix=/my run\""},
		{"", `-agentpath:/l.so=prefix=/my "run"`, `'-agentpath:/l.so=prefix=/my "run"'`},
	} {
		got, err := javaToolOptions(c.existing, c.opt)
		if err != nil || got != c.want {
			t.Errorf("javaToolOptions(%q, %q) = %q, %v; want %q", c.existing, c.opt, got, err, c.want)
		}
	}
	if _, err := javaToolOptions("", `a"b'c`); err == nil {
		t.Error("both quote kinds accepted")
	}
}

func TestAgentOption(t *testing.T) {
	o := recordOptions{depth: 16}
	if got, want := agentOption("/c/liborca.so", "/tmp/r%p", o), "-agentpath:/c/liborca.so=prefix=/tmp/r%%p,clobber=no,depth=16"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	o = recordOptions{depth: 0, flush: 50, buffer: 64}
	if got, want := agentOption("/l.so", "/p", o), "-agentpath:/l.so=prefix=/p,clobber=no,depth=0,flush=50,buffer=64"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	o = recordOptions{depth: 8, kinds: "seed", format: "compact"}
	if got, want := agentOption("/l.so", "/p", o), "-agentpath:/l.so=prefix=/p,clobber=no,depth=8,kinds=seed,format=compact"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	o = recordOptions{depth: 8, format: "seed"}
	if got, want := agentOption("/l.so", "/p", o), "-agentpath:/l.so=prefix=/p,clobber=no,depth=8"; got != want {
		t.Errorf("the default encoding: got %s\nwant %s", got, want)
	}
	if err := (recordOptions{depth: 16, format: "binary"}).check(); err == nil || !strings.Contains(err.Error(), "--format") {
		t.Errorf("--format binary: %v, want a usage error naming --format", err)
	}
	// Bounds: the size in bytes (k, M, G powers of 1024), the age in whole seconds rounded up.
	o = recordOptions{depth: 16, format: "compact", maxSize: "1.5G", maxAge: 90*time.Second + time.Millisecond}
	if got, want := agentOption("/l.so", "/p", o), "-agentpath:/l.so=prefix=/p,clobber=no,depth=16,format=compact,maxsize=1610612736,maxage=91s"; got != want {
		t.Errorf("bounds: got %s\nwant %s", got, want)
	}
	for _, c := range []struct {
		o    recordOptions
		want string // in the usage error, "" for none
	}{
		{recordOptions{depth: 16, format: "compact", maxSize: "16MB"}, ""},
		{recordOptions{depth: 16, format: "compact", maxSize: "1048576"}, ""},
		{recordOptions{depth: 16, format: "compact", maxSize: "512k"}, "at least 1MB"},
		{recordOptions{depth: 16, format: "compact", maxSize: "lots"}, "16MB"},
		// Beyond int64 (issue 30: it said "want at least 1MB"), and the largest the agent takes.
		{recordOptions{depth: 16, format: "compact", maxSize: "99999999999999999999"}, "too large: the largest is 9000000000000000000 bytes"},
		{recordOptions{depth: 16, format: "compact", maxSize: "9000000000001000000"}, "too large"},
		{recordOptions{depth: 16, format: "compact", maxSize: "8000000000GB"}, ""},
		{recordOptions{depth: 16, format: "compact", maxAge: time.Millisecond}, "at least 1s"},
		{recordOptions{depth: 16, format: "seed", maxAge: time.Minute}, "compact"},
		// The samplers' intervals (TestSampleOptions).
		{recordOptions{depth: 16, cpu: "10ms", wall: "50ms"}, ""},
		{recordOptions{depth: 16, cpu: "100us", wall: "1ms"}, ""},
		{recordOptions{depth: 16, cpu: "99us"}, "--cpu"},
		{recordOptions{depth: 16, wall: "999us"}, "--wall"},
		{recordOptions{depth: 16, cpu: "11s"}, "--cpu"},
		{recordOptions{depth: 16, cpu: "ten"}, "--cpu"},
		{recordOptions{depth: 16, wall: "5"}, "--wall"},
		{recordOptions{depth: 16, cpu: "1500ns"}, "--cpu"},
	} {
		err := c.o.check()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("--max-size %q --max-age %v --format %s --cpu %q --wall %q: %v, want %q", c.o.maxSize, c.o.maxAge, c.o.format, c.o.cpu, c.o.wall, err, c.want)
		}
	}
}

// TestSampleOptions: --cpu and --wall reach the agent as cpu= and wall= in
// microseconds, or off; left out when not given (the agent's defaults);
// outside their ranges, a usage error naming the flag (TestAgentOption's table).
func TestSampleOptions(t *testing.T) {
	o := recordOptions{depth: 16, cpu: "1ms", wall: "off"}
	if got, want := agentOption("/l.so", "/p", o), "-agentpath:/l.so=prefix=/p,clobber=no,depth=16,cpu=1000us,wall=off"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	o = recordOptions{depth: 16, cpu: "off", wall: "1.5s"}
	if got, want := agentOption("/l.so", "/p", o), "-agentpath:/l.so=prefix=/p,clobber=no,depth=16,cpu=off,wall=1500000us"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	// Their ranges: TestAgentOption's table.
}

func TestSetEnv(t *testing.T) {
	got := setEnv([]string{"A=1", "JAVA_TOOL_OPTIONS=x", "JAVA_TOOL_OPTIONS_X=y", "JAVA_TOOL_OPTIONS=z"}, "JAVA_TOOL_OPTIONS", "new")
	want := []string{"A=1", "JAVA_TOOL_OPTIONS_X=y", "JAVA_TOOL_OPTIONS=new"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("setEnv = %q, want %q", got, want)
	}
}

func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 3", 3},
		{"kill -TERM $$", 128 + int(syscall.SIGTERM)},
		{"kill -KILL $$", 128 + int(syscall.SIGKILL)},
	} {
		code, err := runChild(ui{nil, io.Discard, io.Discard}, []string{"sh", "-c", c.script}, os.Environ())
		if err != nil || code != c.want {
			t.Errorf("sh -c %q: %d, %v; want %d", c.script, code, err, c.want)
		}
	}
}

// TestForwardSignals sends SIGTERM (and SIGINT when no terminal sends it
// itself) to this process while a child runs; the child must get it.
func TestForwardSignals(t *testing.T) {
	sigs := []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP}
	if !inForeground() {
		sigs = append(sigs, syscall.SIGINT)
	}
	for _, sig := range sigs {
		pr, pw := io.Pipe()
		type result struct {
			code int
			err  error
		}
		done := make(chan result, 1)
		go func() {
			// The trap exits 7; the loop keeps the shell responsive to it.
			code, err := runChild(ui{nil, pw, io.Discard},
				[]string{"sh", "-c", "trap 'exit 7' TERM HUP INT; echo ready; while :; do sleep 0.02; done"}, os.Environ())
			pw.Close()
			done <- result{code, err}
		}()
		if line, _ := bufio.NewReader(pr).ReadString('\n'); line != "ready\n" {
			t.Fatalf("child said %q", line)
		}
		go io.Copy(io.Discard, pr)
		syscall.Kill(os.Getpid(), sig)
		select {
		case r := <-done:
			if r.err != nil || r.code != 7 {
				t.Errorf("%v: child ended with %d, %v; want 7 from its trap", sig, r.code, r.err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v was not passed on to the child", sig)
		}
	}
}
