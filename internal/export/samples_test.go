package export

import (
	"bytes"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/reader"
	"orca/internal/report"
	"orca/internal/testrec"
)

// loadSamples writes testrec.Samples' recording in encoding enc and builds
// its model.
func loadSamples(t *testing.T, enc format.Encoding) (*reader.Recording, *model.Model) {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "samples")
	testrec.Samples(t, prefix, enc)
	rec, res := testrec.Open(t, prefix)
	for _, e := range modeltest.Validate(res.Model) {
		t.Errorf("model: %v", e)
	}
	return rec, res.Model
}

// exportProfile runs a format's writer with a profile into memory.
func exportProfile(t *testing.T, name string, rec *reader.Recording, m *model.Model, p Profile) []byte {
	t.Helper()
	f, _ := Lookup(name)
	var b bytes.Buffer
	if err := f.Write(&b, rec, m, Options{Profile: p}); err != nil {
		t.Fatalf("%s --profile %s: %v", name, p, err)
	}
	return b.Bytes()
}

// sampleProfile is what a decoded sample profile says, summed.
type sampleProfile struct {
	p        *profile.Profile
	samples  int64
	ns       int64
	flat     map[string]int64 // nanoseconds by leaf function
	byThread map[string][2]int64
	byKind   map[string]int64 // nanoseconds by label sampled
	lines    map[string]int64 // nanoseconds by leaf "function:line"
	files    map[string]string
}

// decodeSamples parses a sample profile and checks its types: samples/count
// and unit/nanoseconds, the period type unit/nanoseconds.
func decodeSamples(t *testing.T, data []byte, unit string) *sampleProfile {
	t.Helper()
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("pprof: parsing: %v", err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatalf("pprof: %v", err)
	}
	if st := p.SampleType; len(st) != 2 || st[0].Type != "samples" || st[0].Unit != "count" || st[1].Type != unit || st[1].Unit != "nanoseconds" {
		t.Fatalf("sample types %v, want samples/count, %s/nanoseconds", st, unit)
	}
	if p.PeriodType == nil || p.PeriodType.Type != unit || p.PeriodType.Unit != "nanoseconds" {
		t.Errorf("period type %v, want %s/nanoseconds", p.PeriodType, unit)
	}
	sp := &sampleProfile{p: p, flat: map[string]int64{}, byThread: map[string][2]int64{}, byKind: map[string]int64{},
		lines: map[string]int64{}, files: map[string]string{}}
	for _, s := range p.Sample {
		sp.samples += s.Value[0]
		sp.ns += s.Value[1]
		leaf := s.Location[0].Line[0]
		sp.flat[leaf.Function.Name] += s.Value[1]
		sp.lines[leaf.Function.Name+":"+strconv.FormatInt(leaf.Line, 10)] += s.Value[1]
		th := s.Label["thread"][0] + " " + s.Label["thread_id"][0]
		v := sp.byThread[th]
		sp.byThread[th] = [2]int64{v[0] + s.Value[0], v[1] + s.Value[1]}
		sp.byKind[s.Label["sampled"][0]] += s.Value[1]
	}
	for _, f := range p.Function {
		sp.files[f.Name] = f.Filename
	}
	return sp
}

// TestPProfSamples exports testrec.Samples' recording, in both encodings,
// as CPU and wall profiles and checks their totals, per thread and kind,
// the hottest function and line, and how native frames are named.
func TestPProfSamples(t *testing.T) {
	for _, enc := range []format.Encoding{format.EncodingSeed, format.EncodingCompact} {
		t.Run(enc.String(), func(t *testing.T) {
			rec, m := loadSamples(t, enc)

			cpu := decodeSamples(t, exportProfile(t, "pprof", rec, m, ProfileCPU), "cpu")
			if cpu.samples != testrec.SamplesCPU || cpu.ns != testrec.SamplesCPUNS {
				t.Errorf("cpu: %d samples, %d ns; want %d, %d", cpu.samples, cpu.ns, testrec.SamplesCPU, testrec.SamplesCPUNS)
			}
			if cpu.p.Period != 10_000_000 {
				t.Errorf("cpu: period %d, want sample_cpu_ns 10000000", cpu.p.Period)
			}
			want := map[string][2]int64{"burner 0000000A": {8, 80e6}, "reader 0000000B": {1, 10e6}}
			if !maps.Equal(cpu.byThread, want) {
				t.Errorf("cpu by thread %v, want %v", cpu.byThread, want)
			}
			if want := map[string]int64{"Burner.hot": 50e6, "Burner.warm": 20e6, "Burner.parse": 10e6, "memcpy": 10e6}; !maps.Equal(cpu.flat, want) {
				t.Errorf("cpu flat %v, want %v", cpu.flat, want)
			}
			if cpu.lines["Burner.hot:10"] != 30e6 || cpu.lines["Burner.hot:11"] != 20e6 {
				t.Errorf("cpu by line %v: want Burner.hot 30 ms at line 10, 20 ms at 11", cpu.lines)
			}
			if cpu.files["memcpy"] != "libc.so.6" || cpu.files["Burner.hot"] != "Burner.java" {
				t.Errorf("files %v: want memcpy in libc.so.6, Burner.hot in Burner.java", cpu.files)
			}
			if cpu.byKind["cpu"] != cpu.ns {
				t.Errorf("cpu by label sampled %v", cpu.byKind)
			}

			wall := decodeSamples(t, exportProfile(t, "pprof", rec, m, ProfileWall), "wall")
			if wall.samples != testrec.SamplesCPU+testrec.SamplesWall || wall.ns != testrec.SamplesCPUNS+testrec.SamplesWallNS {
				t.Errorf("wall: %d samples, %d ns; want %d, %d", wall.samples, wall.ns, testrec.SamplesCPU+testrec.SamplesWall, testrec.SamplesCPUNS+testrec.SamplesWallNS)
			}
			if want := map[string]int64{"cpu": testrec.SamplesCPUNS, "wall": testrec.SamplesWallNS}; !maps.Equal(wall.byKind, want) {
				t.Errorf("wall by label sampled %v, want %v", wall.byKind, want)
			}
			if wall.flat["read"] != 150e6 || wall.files["read"] != "libc.so.6" {
				t.Errorf("wall: read [libc.so.6] %d ns (file %q), want 150 ms", wall.flat["read"], wall.files["read"])
			}

			// The blocking profile of the same recording is unchanged by
			// the samples: reader's 100 ms blocked, nothing else.
			checkPProf(t, export(t, "pprof", rec, m, Monitor), m, Monitor)
		})
	}
}

// TestCollapsedSamples: the folded CPU and wall stacks of testrec.Samples,
// every line.
func TestCollapsedSamples(t *testing.T) {
	rec, m := loadSamples(t, format.EncodingCompact)
	got := string(exportProfile(t, "collapsed", rec, m, ProfileCPU))
	want := "Burner.parse 10000000\nBurner.run;Burner.hot 50000000\nBurner.run;Burner.hot;memcpy 10000000\nBurner.run;Burner.warm 20000000\n"
	if got != want {
		t.Errorf("collapsed cpu:\n%s\nwant\n%s", got, want)
	}
	got = string(exportProfile(t, "collapsed", rec, m, ProfileWall))
	want = "Burner.parse 10000000\nBurner.parse;java.net.SocketInputStream.socketRead0;read 150000000\n" +
		"Burner.run;Burner.hot 50000000\nBurner.run;Burner.hot;memcpy 10000000\nBurner.run;Burner.warm 20000000\n"
	if got != want {
		t.Errorf("collapsed wall:\n%s\nwant\n%s", got, want)
	}
}

// TestPProfSamplesTool opens the sample profiles with go tool pprof.
func TestPProfSamplesTool(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	rec, m := loadSamples(t, format.EncodingCompact)
	dir := t.TempDir()
	pprof := func(p Profile, args ...string) string {
		t.Helper()
		path := filepath.Join(dir, p.String()+".pb.gz")
		if err := os.WriteFile(path, exportProfile(t, "pprof", rec, m, p), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(gobin, append(append([]string{"tool", "pprof"}, args...), path)...)
		cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	out := pprof(ProfileCPU, "-top")
	if top := topFunction(out); top != "Burner.hot" || !strings.Contains(out, "Type: cpu") || !strings.Contains(out, "90ms total") {
		t.Errorf("cpu: top function %q, want Burner.hot, type cpu, 90ms total:\n%s", top, out)
	}
	out = pprof(ProfileCPU, "-top", "-lines")
	if !strings.Contains(out, "Burner.hot Burner.java:10") {
		t.Errorf("cpu -lines: no Burner.hot Burner.java:10:\n%s", out)
	}
	out = pprof(ProfileWall, "-top")
	if top := topFunction(out); top != "read" || !strings.Contains(out, "Type: wall") || !strings.Contains(out, "240ms total") {
		t.Errorf("wall: top function %q, want read, type wall, 240ms total:\n%s", top, out)
	}
	out = pprof(ProfileWall, "-top", "-tagfocus=sampled=wall")
	if !strings.Contains(out, "accounting for 150ms") {
		t.Errorf("wall, sampled=wall: want 150ms:\n%s", out)
	}
}

// TestSamplesAgreeWithReport: the pprof profiles and the report's CPU section
// say the same numbers of one recording (one figure, one place): the cpu
// profile's samples and nanoseconds are the section's cpu samples and
// seconds, the wall profile's those plus its wall samples.
func TestSamplesAgreeWithReport(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "samples")
	testrec.Samples(t, prefix, format.EncodingCompact)
	rec, res := testrec.Open(t, prefix)
	c := report.New(rec, res, report.Options{}).CPU
	if c == nil {
		t.Fatal("the report has no CPU section")
	}
	cpu := decodeSamples(t, exportProfile(t, "pprof", rec, res.Model, ProfileCPU), "cpu")
	wall := decodeSamples(t, exportProfile(t, "pprof", rec, res.Model, ProfileWall), "wall")
	ns := func(s float64) int64 { return int64(math.Round(s * 1e9)) }
	if cpu.samples != int64(c.Samples) || cpu.ns != ns(c.S) {
		t.Errorf("pprof cpu: %d samples, %d ns; the report: %d samples, %.9f s", cpu.samples, cpu.ns, c.Samples, c.S)
	}
	if wall.samples != int64(c.Samples+c.WallSamples) || wall.ns != ns(c.S+c.WallS) {
		t.Errorf("pprof wall: %d samples, %d ns; the report: %d + %d samples, %.9f + %.9f s", wall.samples, wall.ns, c.Samples, c.WallSamples, c.S, c.WallS)
	}
}
