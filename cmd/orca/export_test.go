package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

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
