package jfrimport

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"orca/internal/crash"
	"orca/internal/export"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/reader"
	"orca/internal/testjvm"
)

// TestImportSamples records testdata/java/jfr/BurnDemo.java (thread "hot"
// spins in hot() three times as long as "warm" in warm()) under JFR's
// profile settings on every JDK present, and on JDK 25 a second time with
// jdk.CPUTimeSample on; imports each and checks that every sample JFR
// counts (`jfr summary`) is a Sample line of the right kind and weight,
// that hot() has more samples than warm(), and that their stacks resolve
// to BurnDemo's lines.
func TestImportSamples(t *testing.T) {
	classes, err := compile()
	crash.Check(t, workDir)
	if err != nil {
		t.Skip(err)
	}
	testjvm.Each(t, func(t *testing.T, j testjvm.JDK) {
		runs := []struct {
			name, typ string
			opts      string
		}{{"execution", evExec, ""}}
		if j.Feature >= 25 {
			// JEP 509's sampler: a thread's own CPU-time timer every 10 ms
			// of its CPU.
			runs = append(runs, struct{ name, typ, opts string }{"cputime", evCPUTime,
				",jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=10ms"})
		}
		for _, r := range runs {
			t.Run(r.name, func(t *testing.T) {
				dir := t.TempDir()
				jfrFile := filepath.Join(dir, "burn.jfr")
				cmd := testjvm.Command(t, dir, testjvm.Argv(j.Java(), dir,
					"-XX:StartFlightRecording=filename="+jfrFile+",settings=profile"+r.opts,
					"-Xlog:jfr+startup=warning", "-cp", classes, "BurnDemo", "600")...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "EXPECT hot=600") {
					t.Fatalf("java BurnDemo: %v\n%s%s", err, out, stderr.Bytes())
				}
				counts := jfrSummary(t, j, dir, jfrFile)
				if counts[r.typ] == 0 {
					t.Fatalf("jfr summary counts no %s: the test proves nothing", r.typ)
				}
				res, err := ImportFile(jfrFile, filepath.Join(dir, "burn"), Options{})
				if err != nil {
					t.Fatal(err)
				}
				// Every sample of the type is imported: as many Sample lines
				// as JFR's count, plus its native samples (wall), when
				// ExecutionSample is not left out for CPUTimeSample.
				// A sample JFR took of no thread (once on 17 at load 20: 16 of
				// 17) cannot be imported: skipped, and said in .info.
				wantCPU, wantWall := counts[r.typ]-res.Skipped[r.typ+": no thread"], counts[evNative]-res.Skipped[evNative+": no thread"]
				if got := res.Samples[format.SampleCPU]; got != wantCPU {
					t.Errorf("cpu samples: %d, JFR's %s: %d (skipped: %v)", got, r.typ, wantCPU, res.Skipped)
				}
				if got := res.Samples[format.SampleWall]; got != wantWall {
					t.Errorf("wall samples: %d, JFR's %s: %d", got, evNative, wantWall)
				}
				if r.typ == evCPUTime {
					if got := res.Skipped[evExec+": the recording has jdk.CPUTimeSample, which samples the same CPU time"]; got != counts[evExec] {
						t.Errorf("skipped %d %s, want all %d: %v", got, evExec, counts[evExec], res.Skipped)
					}
				}
				im := readBack(t, filepath.Join(dir, "burn"))
				if got := im.rec.Info[format.InfoSamples+"cpu"]; got != strconv.Itoa(wantCPU) {
					t.Errorf(".info samples.cpu=%q, want %d", got, wantCPU)
				}
				// Per thread, the samples under hot() and warm(): each CPU
				// sample's weight is the 10 ms of the profile settings (a
				// native one's 20 ms), its innermost BurnDemo frame spin().
				// Thread io's are native samples in accept().
				under := map[string]int{}
				lines, outside := 0, 0
				var cpuNS int64
				for _, ev := range im.events {
					if ev.Kind != format.Sample {
						continue
					}
					lines++
					name := im.names[ev.Thread]
					if ev.Sampled == format.SampleCPU {
						cpuNS += ev.Weight
					}
					switch {
					// JFR's jdk.CPUTimeSample says the period it stands
					// for (samplingPeriod), which on a loaded machine can
					// be twice the setting's; the import keeps it.
					case ev.Sampled == format.SampleCPU && (r.typ == evExec && ev.Weight != 10_000_000 ||
						r.typ == evCPUTime && (ev.Weight <= 0 || ev.Weight%10_000_000 != 0)):
						t.Errorf("line %d: cpu sample's weight %d, want 10 ms (a multiple of it for %s)", ev.Line, ev.Weight, evCPUTime)
					case ev.Sampled == format.SampleWall && ev.Weight != 20_000_000:
						t.Errorf("line %d: wall sample's weight %d, want 20 ms", ev.Line, ev.Weight)
					case ev.Sampled == format.SampleWall:
						if _, meth := im.lineIn(ev.Stack, "LBurnDemo"); name == "io" && meth == "accept" {
							under["io/accept"]++
						}
					case ev.Sampled != format.SampleCPU:
						t.Errorf("line %d: sampled %q", ev.Line, ev.Sampled)
					}
					if name != "hot" && name != "warm" {
						continue
					}
					// A sample in spin is in its body. A few are outside it:
					// in its caller's line (its arguments, or the += after
					// spin returned: hot:25) or before the thread reached
					// BurnDemo's code (no frame of it), as JFR took them on a
					// loaded machine; at most a tenth.
					line, meth := im.lineIn(ev.Stack, "LBurnDemo")
					switch {
					// spin's body is lines 15-21: its loop, and its
					// return, where JDK 25's jdk.CPUTimeSample can take
					// it as the loop ends (a fresh-clone run, 2026-11-29).
					case meth == "spin" && (line < 15 || line > 21):
						t.Errorf("line %d: %s's sample at BurnDemo.spin:%d, want spin's body (lines 15-21)", ev.Line, name, line)
					case meth != "spin":
						outside++
					}
					for _, f := range ev.Stack {
						if m := im.rec.Methods[f.Method]; m != nil && (m.Name == "hot" || m.Name == "warm") {
							under[name+"/"+m.Name]++
						}
					}
				}
				if hw := under["hot/hot"] + under["warm/warm"]; outside > max(2, hw/10) {
					t.Errorf("%d of hot's and warm's samples outside spin, of %d under hot() and warm(): want at most a tenth", outside, hw)
				}
				if lines != wantCPU+wantWall {
					t.Errorf("%d Sample lines, want %d", lines, wantCPU+wantWall)
				}
				t.Logf("JFR: %s %d, %s %d, %s %d; samples under hot() %d, warm() %d, io's in accept() %d", evExec, counts[evExec], evCPUTime, counts[evCPUTime],
					evNative, counts[evNative], under["hot/hot"], under["warm/warm"], under["io/accept"])
				if wantWall > 0 && under["io/accept"] == 0 {
					t.Errorf("%d native samples, none of thread io in BurnDemo.accept", wantWall)
				}
				checkCPUProfile(t, im.rec, wantCPU, cpuNS, under["hot/hot"]+under["warm/warm"] >= 12)
				if under["hot/warm"]+under["warm/hot"] != 0 {
					t.Errorf("samples under hot() %d, warm() %d (by thread: %v): a thread's samples under the other's method", under["hot/hot"], under["warm/warm"], under)
				}
				// hot spins three times as long as warm: its samples are about
				// three times warm's. On a machine at load 20 JFR's sampler
				// took 2 of each, or none of hot: too few to order.
				if hw := under["hot/hot"] + under["warm/warm"]; hw >= 12 && under["hot/hot"] <= under["warm/warm"] {
					t.Errorf("samples under hot() %d, warm() %d (by thread: %v): want hot() first", under["hot/hot"], under["warm/warm"], under)
				} else if hw < 12 {
					t.Logf("samples under hot() %d, warm() %d: too few to order (the machine's load)", under["hot/hot"], under["warm/warm"])
				}
			})
		}
	})
}

// jfrSummary returns the event counts `jfr summary` prints for file, by
// type: JFR's own count, beside the import's.
func jfrSummary(t *testing.T, j testjvm.JDK, dir, file string) map[string]int {
	t.Helper()
	argv := testjvm.ToolArgv(filepath.Join(j.Home, "bin", "jfr"), dir, "summary", file)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("jfr summary: %v\n%s", err, out)
	}
	counts := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(jdk\.\w+)\s+(\d+)\s+\d+\s*$`).FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.Atoi(m[2])
		counts[m[1]] = n
	}
	if len(counts) == 0 {
		t.Fatalf("jfr summary printed no counts:\n%s", out)
	}
	return counts
}

// checkCPUProfile exports the imported recording's CPU profile (orca
// export --format pprof --profile cpu), decodes it and checks it holds
// every CPU sample with its 10 ms, BurnDemo.spin the hottest function and
// more under hot() than under warm() (with order: samples enough).
func checkCPUProfile(t *testing.T, rec *reader.Recording, samples int, weight int64, order bool) {
	t.Helper()
	res, err := model.Build(rec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range modeltest.Validate(res.Model) {
		t.Errorf("model: %v", e) // every sample in its thread's life, in order
	}
	var b bytes.Buffer
	if err := export.PProf(&b, rec, res.Model, export.Options{Profile: export.ProfileCPU}); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	var n, ns int64
	flat, cum := map[string]int64{}, map[string]int64{}
	for _, s := range p.Sample {
		n += s.Value[0]
		ns += s.Value[1]
		flat[s.Location[0].Line[0].Function.Name] += s.Value[1]
		for _, l := range s.Location {
			cum[l.Line[0].Function.Name] += s.Value[1]
		}
	}
	if n != int64(samples) || ns != weight {
		t.Errorf("pprof cpu: %d samples, %d ns; want %d, %d (the Sample lines' weights)", n, ns, samples, weight)
	}
	top := ""
	for f, v := range flat {
		if top == "" || v > flat[top] {
			top = f
		}
	}
	// Which function is on top and hot() before warm(): only with samples
	// enough to order (order: 12 or more under hot() and warm(); at load 20
	// JFR took 1 and 2, and 3 of its 6 in spin).
	if order && (top != "BurnDemo.spin" || cum["BurnDemo.hot"] <= cum["BurnDemo.warm"]) {
		t.Errorf("pprof cpu: top function %q (flat %v), hot() %d ns, warm() %d ns: want BurnDemo.spin, hot() first", top, flat, cum["BurnDemo.hot"], cum["BurnDemo.warm"])
	}
}
