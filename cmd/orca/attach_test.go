package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"orca/internal/attach"
	"orca/internal/format"
)

func TestAttachUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--pid", "0"}, "want the process id"},
		{[]string{"record", "--pid", "-3"}, "want the process id"},
		{[]string{"record", "--pid", "x"}, "invalid value"},
		{[]string{"record", "--pid", "42", "--", "java", "Main"}, "give one of them"},
		{[]string{"record", "--pid", "42", "--detach", "--duration", "5s"}, "--detach leaves the recording running"},
		{[]string{"record", "--pid", "42", "--duration", "-5s"}, "positive duration"},
		{[]string{"record", "--pid", "42", "--depth", "300"}, "--depth 300"},
		{[]string{"record", "--pid", "42", "--format", "seed", "--max-age", "1m"}, "compact"},
		{[]string{"record", "--pid", "42", "-o", "a,b"}, "comma"},
		{[]string{"record", "--pid", "42", "-o", "dir/"}, "not a directory"},
		{[]string{"record", "--duration", "5s", "--", "java"}, "go with --pid"},
		{[]string{"record", "--detach", "--", "java"}, "go with --pid"},
		// Issue 30: a --detach recording is bounded; without a bound it gets --max-size 256MB,
		// which the seed's text (no chunks) cannot have.
		{[]string{"record", "--pid", "42", "--detach", "--format", "seed"}, "--detach without --max-size or --max-age is bounded to the last 256MB"},
		{[]string{"stop"}, "want one PID"},
		{[]string{"stop", "1", "2"}, "want one PID"},
		{[]string{"stop", "java"}, "no pid"},
		{[]string{"stop", "--bogus", "1"}, "-bogus"},
	} {
		var errb bytes.Buffer
		code := run(ui{nil, io.Discard, &errb}, c.args)
		want := 2
		if c.args[0] == "record" && !attachArgs(c.args[1:]) {
			want = exitFailed // with a COMMAND: orca record's own failure
		}
		if code != want || !strings.HasPrefix(errb.String(), "orca: ") || !strings.Contains(errb.String(), c.want) {
			t.Errorf("orca %q: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), want, c.want)
		}
	}
}

// TestAttachErrors: a pid that is no process, or no JVM, is one message and exit 1, and
// nothing is written; -o in a missing directory is refused before attaching (exit 2).
func TestAttachErrors(t *testing.T) {
	dir := t.TempDir()
	sleep := startSleep(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"record", "--pid", "999999999", "-o", filepath.Join(dir, "r")}, 1, "pid 999999999: no such process"},
		{[]string{"record", "-o", filepath.Join(dir, "r"), "--duration", "1s", "--pid", fmt.Sprint(sleep)}, 1, "not a HotSpot JVM: pid " + fmt.Sprint(sleep) + " (sleep)"},
		{[]string{"record", "--pid", fmt.Sprint(sleep), "-o", filepath.Join(dir, "missing", "r")}, 2, "does not exist: create it or choose another -o; nothing was attached"},
		{[]string{"stop", "999999999"}, 1, "pid 999999999: no such process"},
		{[]string{"stop", fmt.Sprint(sleep)}, 1, "has no Orca agent loaded"},
		{[]string{"stop", fmt.Sprint(sleep), "--quiet"}, 1, "has no Orca agent loaded"}, // flags after the PID
	} {
		var errb bytes.Buffer
		code := run(ui{nil, io.Discard, &errb}, c.args)
		if code != c.code || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("orca %q: exit %d, stderr %q; want %d and one line with %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("left %v", files)
	}
}

// startSleep starts `sleep 60` and returns its pid; the test kills it.
func startSleep(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess("/bin/sleep", []string{"sleep", "60"}, &os.ProcAttr{})
	if err != nil {
		t.Skipf("no /bin/sleep: %v", err)
	}
	t.Cleanup(func() { p.Kill(); p.Wait() })
	// Until it has exec'd, /proc/PID/comm names the test binary.
	for i := 0; i < 100; i++ {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p.Pid)); string(b) == "sleep\n" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return p.Pid
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestAttachPrefix(t *testing.T) {
	at := time.Date(2026, 11, 26, 21, 5, 7, 0, time.Local)
	cwd, _ := os.Getwd()
	host := &attach.Proc{PID: 4242}
	box := &attach.Proc{PID: 4242, Contained: true}
	for _, c := range []struct {
		j       *attach.Proc
		o, want string
	}{
		{host, "", filepath.Join(cwd, "orca-4242-20261126-210507")},
		{box, "", "/tmp/orca-4242-20261126-210507"},
		{host, "runs/a", filepath.Join(cwd, "runs", "a")},
		{box, "runs/a", filepath.Join(cwd, "runs", "a")}, // against orca's cwd, as the JVM sees it
		{box, "/srv/x/../r%p", "/srv/r%p"},
	} {
		got, err := attachPrefix(c.j, c.o, at)
		if err != nil || got != c.want {
			t.Errorf("attachPrefix(contained %v, %q) = %q, %v; want %q", c.j.Contained, c.o, got, err, c.want)
		}
	}
}

func TestAgentOptions(t *testing.T) {
	o := recordOptions{depth: 32, buffer: 64, format: "compact", maxSize: "64MB", maxAge: 30 * time.Minute}
	got := agentOptions("/tmp/r%p 1", o) + ",session=00ff"
	want := "prefix=/tmp/r%%p 1,clobber=no,depth=32,buffer=64,format=compact,maxsize=67108864,maxage=1800s,session=00ff"
	if got != want {
		t.Errorf("agentOptions = %s\nwant %s", got, want)
	}
	// -agentpath is the same string behind the library.
	if got, want := agentOption("/l.so", "/p", o), "-agentpath:/l.so="+agentOptions("/p", o); got != want {
		t.Errorf("agentOption = %s, want %s", got, want)
	}
}

// TestLockOrderFlag: --lock-order alone asks the agent for the monitors and
// the java.util.concurrent locks (lockorder=yes), =off for none
// (lockorder=no); unset or =monitors leaves the agent's default, the
// monitors (asked by its held thread). With --pid, --lock-order and
// =monitors are refused (unset is not: an attached agent has no owned-monitor
// capability and says so); any other value is refused, the message listing
// the valid ones.
func TestLockOrderFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // the agent's lockorder= ("" none)
		on   bool
	}{
		{nil, "", false},
		{[]string{"--lock-order"}, "yes", true},
		{[]string{"--lock-order=monitors"}, "", true},
		{[]string{"--lock-order=off"}, "no", false},
		{[]string{"--lock-order=false"}, "no", false},
	} {
		var o recordOptions
		fs := flag.NewFlagSet("record", flag.ContinueOnError)
		fs.Var(&o.lockOrder, "lock-order", "")
		if err := fs.Parse(c.args); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		got := ""
		for _, kv := range strings.Split(agentOptions("/p", o), ",") {
			if v, ok := strings.CutPrefix(kv, "lockorder="); ok {
				got = v
			}
		}
		if got != c.want || o.lockOrder.on() != c.on {
			t.Errorf("%q: lockorder=%q, on %v; want %q, %v", c.args, got, o.lockOrder.on(), c.want, c.on)
		}
		o.pid = 4242
		if err := o.check(); (err != nil) != c.on || err != nil && !strings.Contains(err.Error(), "--lock-order with --pid") {
			t.Errorf("%q --pid: %v, want refused %v", c.args, err, c.on)
		}
	}
	var o recordOptions
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&o.lockOrder, "lock-order", "")
	err := fs.Parse([]string{"--lock-order=juc"})
	if err == nil {
		t.Fatalf("--lock-order=juc accepted")
	}
	for _, v := range []string{"--lock-order ", "--lock-order=monitors", "--lock-order=off"} {
		if !strings.Contains(err.Error(), v) {
			t.Errorf("--lock-order=juc: %v, want it to list %s", err, v)
		}
	}
}

// TestAttachCodes: each code of Agent_OnAttach is one message saying what to do.
func TestAttachCodes(t *testing.T) {
	j := &attach.Proc{PID: 4242, UID: 0, Dir: t.TempDir()}
	for _, c := range []struct {
		code int
		want string
	}{
		{attachBadOption, "refused the options"},
		{attachRunning, "stop it with orca stop 4242, then attach again"},
		{attachCannotOut, "cannot create /srv/r.*: choose a directory that user can write with -o (e.g. -o /tmp/r)"},
		{attachJVMTI, "lacks a JVMTI capability"},
		{attachNotLive, "did not finish starting within 10s of the attach"},
		{attachNoThread, "could not start its writer thread"},
		{-1, "Agent_OnAttach returned -1"},
	} {
		err := startError(c.code, j, "/srv/r", "prefix=/srv/r")
		if ee, ok := err.(exitError); !ok || ee.code != 1 || !strings.Contains(ee.msg, c.want) || strings.Contains(ee.msg, "\n") {
			t.Errorf("start code %d: %#v; want exit 1 and %q", c.code, err, c.want)
		}
	}
	for _, c := range []struct {
		code            int
		prefix, running string
		want            string
	}{
		{attachOK, "", "/r", ""},
		{attachNoneToEnd, "", "", "has no recording running"},
		{attachNoneToEnd, "/a", "/b", "records to /b, not to /a"},
		{attachNoneToEnd, "/a", "", "no recording to /a running"},
		{7, "", "", "answered 7"},
	} {
		err := stopError(c.code, 4242, c.prefix, c.running, j)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("stop code %d -o %q running %q: %v; want %q", c.code, c.prefix, c.running, err, c.want)
		}
	}
}

func TestParseProperties(t *testing.T) {
	p := parseProperties("#Thu Nov 26 21:00:00 UTC 2026\njava.specification.version=21\nsun.java.command=/srv/app.jar --port 8080\n" +
		"java.home=/usr/lib/jvm/x\nline.separator=\\n\nuser.dir=C\\:\\\\a\\u00e9\n")
	if p["java.specification.version"] != "21" || p["line.separator"] != "\n" || p["user.dir"] != `C:\aé` {
		t.Errorf("parseProperties = %q", p)
	}
	for cmd, want := range map[string]string{
		"/srv/app.jar --port 8080": "app.jar",
		"org.example.Main a b":     "org.example.Main",
		"":                         "",
	} {
		if got := mainName(cmd); got != want {
			t.Errorf("mainName(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestStopEnded (issue 30): orca stop of a JVM that has ended but was not yet collected by its
// parent (a zombie) said "orca must run as the JVM's user or root", to root. It says the
// process has ended.
func TestStopEnded(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := strconv.Itoa(cmd.Process.Pid)
	for i := 0; i < 100; i++ {
		if b, _ := os.ReadFile("/proc/" + pid + "/stat"); strings.Contains(string(b), ") Z ") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, args := range [][]string{{"stop", pid}, {"record", "--pid", pid, "--duration", "1s"}} {
		var errb bytes.Buffer
		code := run(ui{nil, io.Discard, &errb}, args)
		if want := "pid " + pid + " has ended"; code != 1 || !strings.Contains(errb.String(), want) || strings.Contains(errb.String(), "must run as") {
			t.Errorf("orca %s of a zombie: exit %d, want 1 and %q:\n%s", strings.Join(args, " "), code, want, errb.String())
		}
	}
}

// TestSummaryAsJVMUser: as root, the summary of another user's recording is read with that
// user's ids: its .info swapped for a link to a file only root may read brings nothing of that
// file to the terminal (read as root, its "command" was printed).
func TestSummaryAsJVMUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("reading as another user needs root")
	}
	dir := t.TempDir()
	must(t, os.Chmod(filepath.Dir(dir), 0o755)) // the test's own directory, not /tmp
	must(t, os.Chmod(dir, 0o755))
	secret := filepath.Join(t.TempDir(), "root-only")
	must(t, os.WriteFile(secret, []byte("session=s1\ncommand=SECRET-OF-ROOT\npid=1\ncomplete=true\n"), 0o600))
	pre := filepath.Join(dir, "rec")
	must(t, os.WriteFile(pre+".orca", []byte(format.CompactHeader), 0o600))
	must(t, os.Chown(pre+".orca", 65532, 65532))
	must(t, os.Symlink(secret, pre+".info"))
	var out strings.Builder
	j := &attach.Proc{UID: 65532, GID: 65532}
	err := printAttached(ui{stderr: &out}, recordOptions{}, j, pre, "s1")
	if strings.Contains(out.String(), "SECRET") || err != nil && strings.Contains(err.Error(), "SECRET") {
		t.Errorf("root's file reached the summary:\n%s\n%v", out.String(), err)
	}
	// Read as root, the same files name the secret: the test can tell.
	out.Reset()
	printOwn(ui{stderr: &out}, pre, "s1")
	if !strings.Contains(out.String(), "SECRET") {
		t.Errorf("as root, the summary did not read the linked file:\n%s", out.String())
	}
}

// TestAttachCodesAgree: the codes orca explains are the numbers the agent returns (the enum
// of agent/jvm/entry.c, START_*), name by name; a code added on one side fails here.
func TestAttachCodesAgree(t *testing.T) {
	src, err := os.ReadFile("../../agent/jvm/entry.c")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)enum \{ (START_OK,[^}]*)\};`).FindSubmatch(src)
	if m == nil {
		t.Fatal("agent/jvm/entry.c: no enum { START_OK, ... }")
	}
	want := map[string]int{
		"START_OK": attachOK, "START_BAD_OPTIONS": attachBadOption, "START_BUSY": attachRunning,
		"START_CANNOT_WRITE": attachCannotOut, "START_NO_JVMTI": attachJVMTI, "START_NOT_RECORDING": attachNoneToEnd,
		"START_NOT_LIVE": attachNotLive, "START_NO_THREAD": attachNoThread,
	}
	names := strings.FieldsFunc(string(m[1]), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })
	if len(names) != len(want) {
		t.Errorf("the agent has %d codes %v, orca explains %d", len(names), names, len(want))
	}
	for i, n := range names {
		if c, ok := want[n]; !ok || c != i {
			t.Errorf("the agent's %s is %d; orca's constant for it: %d (known: %v)", n, i, c, ok)
		}
	}
}
