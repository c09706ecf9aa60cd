package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/pprof/profile"
	"golang.org/x/sys/unix"

	"orca/internal/format"
	"orca/internal/testrec"
)

// exportRecording writes internal/export's all-kinds case to a temporary
// directory and returns its prefix.
func exportRecording(t *testing.T) string {
	t.Helper()
	return testrec.Files(t, "../../internal/export/testdata/all.txtar")
}

func TestExport(t *testing.T) {
	pre := exportRecording(t)
	exportRun := func(args ...string) (code int, stdout, stderr string) {
		var out, errb bytes.Buffer
		code = run(ui{nil, &out, &errb}, append([]string{"export"}, args...))
		return code, out.String(), errb.String()
	}

	// The default file name, the summary and how to open it.
	code, out, errs := exportRun("--format", "pprof", pre)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := "wrote " + pre + ".pb.gz: pprof, monitor: 3 states, 1.100 s\nview it with: go tool pprof -http=: " + pre + ".pb.gz"; !strings.HasPrefix(out, want) {
		t.Errorf("stdout %q, want it to start with %q", out, want)
	}
	f, err := os.Open(pre + ".pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(f)
	f.Close()
	// One sample per owner a contention waited behind (worker-c waited
	// behind two owners: two samples, its time split as the report's blame
	// is; docs/export.md).
	if err != nil || len(p.Sample) != 4 {
		t.Fatalf("the profile: %v, %d samples, want 4", err, len(p.Sample))
	}

	// --kind and -o; no temporary file is left behind.
	dir := t.TempDir()
	file := filepath.Join(dir, "t.json")
	if code, out, errs = exportRun("--format", "chrome", "--kind", "wait,join", "-o", file, pre); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "chrome, wait,join: 2 states, 1.500 s") {
		t.Errorf("stdout %q", out)
	}
	var doc struct{ TraceEvents []map[string]any }
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.TraceEvents) == 0 {
		t.Errorf("the trace: %v, %d events", err, len(doc.TraceEvents))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the output directory, want 1", len(ents))
	}
	// The recording's stacks and names: its user's alone (issue 30).
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: %v, %v; want mode 0600", file, fi.Mode(), err)
	}

	if strings.Contains(out, "note:") {
		t.Errorf("a small trace's stdout has a note on its size: %q", out)
	}
	// A trace larger than a browser reads says so, and what to do.
	for f, want := range map[string]string{"perfetto": "trace_processor --httpd", "chrome": "export --format perfetto"} {
		max := browserMax[f]
		browserMax[f] = 100
		code, out, errs = exportRun("--format", f, "-o", filepath.Join(dir, "big"), pre)
		browserMax[f] = max
		if code != 0 || !strings.Contains(out, "\nnote: "+filepath.Join(dir, "big")+" is 0 MB; a browser reads about 0 MB of a "+f+" trace: export a range of it (--from, --to, --last),") ||
			!strings.Contains(out, want) {
			t.Errorf("export --format %s of more than a browser reads: exit %d, %s%s", f, code, out, errs)
		}
	}

	// -o - writes to stdout, and only the export.
	if code, out, errs = exportRun("--format", "collapsed", "-o", "-", pre); code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out != "<unknown method 0000002A>;com.example.Work.transfer 300000000\ncom.example.Work.run;com.example.Work.transfer 800000000\n" {
		t.Errorf("collapsed on stdout: %q", out)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{pre}, "--format is required"},
		{[]string{"--format", "svg", pre}, `unknown format "svg"`},
		{[]string{"--format", "pprof", "--kind", "mutex", pre}, `unknown kind "mutex"`},
		{[]string{"--format", "pprof"}, "want one PREFIX"},
	} {
		code, _, errs := exportRun(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("export %v: exit %d, %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	code, _, errs = exportRun("--format", "pprof", filepath.Join(dir, "missing"))
	if code != 2 || !strings.Contains(errs, "missing.orca does not exist") {
		t.Errorf("a missing recording: exit %d, %q", code, errs)
	}
}

// TestExportProfile: --profile cpu and wall write the samples' profiles
// (internal/export checks their content) and say how many samples and
// how long; --profile with a timeline, --kind or seed is a usage error.
func TestExportProfile(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "samples")
	testrec.Samples(t, pre, format.EncodingCompact)
	exportRun := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(ui{nil, &out, &errb}, append([]string{"export"}, args...))
		return code, out.String(), errb.String()
	}
	for _, c := range []struct{ format, profile, want string }{
		{"pprof", "cpu", "pprof, cpu: 9 samples, 0.090 s"},
		{"pprof", "wall", "pprof, wall: 12 samples, 0.240 s"},
		{"collapsed", "cpu", "collapsed, cpu: 9 samples, 0.090 s"},
	} {
		file := filepath.Join(dir, c.format+"-"+c.profile)
		code, out, errs := exportRun("--format", c.format, "--profile", c.profile, "-o", file, pre)
		if code != 0 || errs != "" || !strings.HasPrefix(out, "wrote "+file+": "+c.want+"\n") {
			t.Errorf("%s --profile %s: exit %d, stdout %q, stderr %q; want %q", c.format, c.profile, code, out, errs, c.want)
		}
	}
	// Without -o, beside the blocking profile: PREFIX.cpu.pb.gz.
	if code, out, _ := exportRun("--format", "pprof", "--profile", "cpu", pre); code != 0 || !strings.HasPrefix(out, "wrote "+pre+".cpu.pb.gz: ") {
		t.Errorf("default name: exit %d, stdout %q, want %s.cpu.pb.gz", code, out, pre)
	}
	// A recording without samples: an empty profile, and a warning.
	code, _, errs := exportRun("--format", "pprof", "--profile", "cpu", "-o", filepath.Join(dir, "none"), exportRecording(t))
	if code != 0 || !strings.Contains(errs, "has no cpu samples: the export is empty") {
		t.Errorf("no samples: exit %d, stderr %q", code, errs)
	}
	for _, args := range [][]string{
		{"--format", "perfetto", "--profile", "cpu", pre},
		{"--format", "pprof", "--profile", "cpu", "--kind", "wait", pre},
		{"--format", "pprof", "--profile", "gpu", pre},
		{"--format", "seed", "--profile", "cpu", "-o", filepath.Join(dir, "s"), pre},
	} {
		if code, _, _ := exportRun(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// ptyRead returns a pseudo-terminal's end a program writes to, and read,
// which closes it and returns all that was written.
func ptyRead(t *testing.T) (tty *os.File, read func() []byte) {
	t.Helper()
	pty, tty := openPTY(t)
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(pty) // until tty is closed (EIO)
		got <- b
	}()
	return tty, func() []byte {
		tty.Close()
		return <-got
	}
}

// openPTY returns a pseudo-terminal's two ends: what a program writes to
// tty is read from pty, as it is (no output processing).
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { pty.Close() })
	fd := int(pty.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Oflag &^= unix.OPOST
	if err := unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	return pty, tty
}

// TestExportTerminal: export -o - wrote the JVM's names raw to a terminal:
// collapsed's frames (a method named with escape sequences), perfetto's
// and pprof's strings among their binary. On a terminal the text formats
// now show them escaped (termSafe) and the binary ones are refused, as
// gzip refuses; a pipe gets every format as before.
func TestExportTerminal(t *testing.T) {
	const evil = "\x1b]0;PWNED\x07\x1b[2J\u009b1m"
	pre := reportRecording(t)
	m, err := os.ReadFile(pre + ".methods")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(pre+".methods", bytes.ReplaceAll(m, []byte(",transfer,"), []byte(",transfer"+evil+",")), 0o600)
	tty, read := ptyRead(t)
	var errb bytes.Buffer
	if code := run(ui{nil, tty, &errb}, []string{"export", "--format", "collapsed", "-o", "-", pre}); code != 0 {
		t.Fatalf("export --format collapsed -o - to a terminal: exit %d: %s", code, errb.String())
	}
	for _, f := range []string{"pprof", "perfetto"} {
		errb.Reset()
		code := run(ui{nil, tty, &errb}, []string{"export", "--format", f, "-o", "-", pre})
		if want := "--format " + f + " is binary: not written to a terminal"; code != 2 || !strings.Contains(errb.String(), want) {
			t.Errorf("export --format %s -o - to a terminal: exit %d, want 2 and %q: %s", f, code, want, errb.String())
		}
		var out bytes.Buffer
		if code := run(ui{nil, &out, io.Discard}, []string{"export", "--format", f, "-o", "-", pre}); code != 0 || out.Len() == 0 {
			t.Errorf("export --format %s -o - to a pipe: exit %d, %d bytes", f, code, out.Len())
		}
	}
	b := read()
	if bytes.ContainsAny(b, "\x1b\x07") || bytes.Contains(b, []byte("\u009b")) ||
		!bytes.Contains(b, []byte(`Scenario.transfer\x1b]0:PWNED\x07\x1b[2J\u009b1m`)) { // (collapsed: ":" for ";")
		t.Errorf("the terminal got:\n%q", b)
	}
}

// TestExportProgress checks a timeline export's steps on a terminal: its
// making and writing after the read, on one line erased at the end, and
// none on a pipe (TestExport: its stderr empty).
func TestExportProgress(t *testing.T) {
	pre := exportRecording(t)
	tty, read := ptyRead(t)
	var out bytes.Buffer
	code := run(ui{nil, &out, tty}, []string{"export", "--format", "perfetto", "-o", filepath.Join(t.TempDir(), "t.pftrace"), pre})
	b := string(read())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, b)
	}
	for _, want := range []string{"\rexporting " + pre + ": the threads' states (0 of 4), 0 s\x1b[K", ": the edges (0 of 8), ", ": writing in time order (0 of 32), "} {
		if !strings.Contains(b, want) {
			t.Errorf("the terminal got %q, want %q in it", b, want)
		}
	}
	if !strings.HasSuffix(b, "\r\x1b[K") {
		t.Errorf("the step line is not erased at the end: %q", b)
	}
}
