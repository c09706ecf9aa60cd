package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/report"
	"orca/internal/synth"
)

// rangeRecording writes a synthetic compact recording of a few chunks
// (format.Writer's, 1 MiB each, about 0.7 s): times are 1000 s on.
func rangeRecording(t *testing.T) string {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "synth")
	if _, err := synth.WriteRecording(prefix, synth.Options{Seed: 2, Threads: 30, Monitors: 10, Semaphores: 4, Size: 5 << 20, Encoding: format.EncodingCompact}); err != nil {
		t.Fatal(err)
	}
	return prefix
}

type rangeJSON struct {
	DurationS float64       `json:"duration_s"`
	OriginS   float64       `json:"origin_s"`
	Range     *report.Range `json:"range"`
	Problems  int           `json:"problems"`
}

func reportJSON(t *testing.T, args ...string) rangeJSON {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(ui{nil, &out, &errb}, append([]string{"report", "--json"}, args...)); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	var r rangeJSON
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReportRange: --last and --from/--to (before or after the prefix)
// report the range, say it, and read a part of the file; times stay
// seconds since the recording's first event.
func TestReportRange(t *testing.T) {
	pre := rangeRecording(t)
	whole := reportJSON(t, pre)
	if whole.Range != nil {
		t.Errorf("a report of the whole has a range: %+v", whole.Range)
	}
	last := reportJSON(t, "--last", "100ms", pre)
	g := last.Range
	switch {
	case g == nil:
		t.Fatal("--last: no range in the report")
	case g.ToS != g.RecordingS || math.Abs(g.FromS-(g.RecordingS-0.1)) > 1e-9 || g.RecordingS != whole.DurationS:
		t.Errorf("--last 100ms of %.9f s: range %+v", whole.DurationS, *g)
	case g.Chunks < 1 || g.Chunks > 2 || g.BytesRead*2 > g.BytesTotal:
		t.Errorf("--last 100ms read %d chunks, %d of %d bytes: want the last one or two", g.Chunks, g.BytesRead, g.BytesTotal)
	case last.OriginS != whole.OriginS || last.Problems != 0:
		t.Errorf("--last: origin %v (the whole's %v), %d problems", last.OriginS, whole.OriginS, last.Problems)
	}
	mid := reportJSON(t, pre, "--from", "0.2", "--to", "300ms")
	if g := mid.Range; g == nil || g.FromS != 0.2 || g.ToS != 0.3 || mid.DurationS != 0.1 || mid.Problems != 0 {
		t.Errorf("--from 0.2 --to 300ms: %+v", mid)
	}
	var out, errb bytes.Buffer
	if code := run(ui{nil, &out, &errb}, []string{"report", pre, "--from", "0.2", "--to", "0.3"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "  the range 0.200 s to 0.300 s of ") || !strings.Contains(out.String(), "times are seconds since the recording's first event") {
		t.Errorf("the text report does not say its range:\n%s", out.String()[:min(600, out.Len())])
	}
	// A wall-clock time, by .info's clock origin: the recording's clock
	// reads 1000 s at the Unix epoch's 1 700 000 000 s.
	info, err := os.ReadFile(pre + format.SuffixInfo)
	if err != nil {
		t.Fatal(err)
	}
	info = append(info, "origin_unix_ns=1700000000000000000\norigin_mono_ns=1000000000000\n"...)
	if err := os.WriteFile(pre+format.SuffixInfo, info, 0o644); err != nil {
		t.Fatal(err)
	}
	wall := reportJSON(t, "--from", "2023-11-14T22:13:20.2Z", "--to", "2023-11-14T22:13:20.3Z", pre)
	if g := wall.Range; g == nil || g.FromS != 0.2 || g.ToS != 0.3 {
		t.Errorf("RFC 3339 times: %+v", wall.Range)
	}
}

// TestRangeErrors: a T, a D or a range that cannot be read is one clear
// line naming the forms accepted.
func TestRangeErrors(t *testing.T) {
	pre := rangeRecording(t)
	forms := "want seconds since the recording's first event (90, 90.5), a duration since it (1m30s) or an RFC 3339 time (2026-11-28T21:00:00Z)"
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"report", "--from", "abc", pre}, 2, `report: --from "abc": ` + forms},
		{[]string{"view", pre, "--to", "-3"}, 2, `view: --to "-3": ` + forms},
		{[]string{"export", "--format", "pprof", "--from", "yesterday", pre}, 2, `export: --from "yesterday": ` + forms},
		{[]string{"report", "--last", "5", pre}, 2, `report: --last "5": want a duration above 0, like 30s, 5m or 1h`},
		{[]string{"report", "--last", "5m", "--from", "1", pre}, 2, "report: --last goes without --from and --to"},
		{[]string{"report", "--from", "0.3", "--to", "0.2", pre}, 1, "report: --to is before --from (0.200 s < 0.300 s)"},
		{[]string{"report", "--from", "1h", pre}, 1, "report: --from 3600.000 s is after the last event: the recording spans 0 to "},
		{[]string{"report", "--from", "2026-11-28T21:00:00Z", pre}, 1, "report: --from 2026-11-28T21:00:00Z: " + pre + ".info has no clock origin"},
		{[]string{"export", "--format", "seed", "--last", "1m", "-o", filepath.Join(t.TempDir(), "x"), pre}, 2, "export: --from, --to and --last do not apply to --format seed"},
	} {
		var out, errb bytes.Buffer
		code := run(ui{nil, &out, &errb}, c.args)
		if code != c.code || !strings.Contains(errb.String(), c.msg) || strings.Count(errb.String(), "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, code, errb.String(), c.code, c.msg)
		}
	}
}

// TestReportRangeBounded: a range of a bounded recording (chunk files, the
// first ones deleted) said "kept the last 2.00 s of 12.47 s recorded" for
// --from 0 --to 2 of a recording that kept 6.37 s of 13.29 s: the range's
// length as what was kept, and .info's end_s (which lags a killed JVM's
// last events) instead of the recording's end. What was kept and recorded
// does not depend on the range read of it.
func TestReportRangeBounded(t *testing.T) {
	src := rangeRecording(t)
	b, err := os.ReadFile(src + format.SuffixEvents)
	if err != nil {
		t.Fatal(err)
	}
	marker := []byte(format.ChunkMarker)
	var starts []int
	for i := 0; ; {
		j := bytes.Index(b[i:], marker)
		if j < 0 {
			break
		}
		starts = append(starts, i+j)
		i += j + 1
	}
	if len(starts) < 4 {
		t.Fatalf("%d chunks, want 4 or more", len(starts))
	}
	starts = append(starts, len(b))
	prefix := filepath.Join(t.TempDir(), "b")
	if err := os.WriteFile(prefix+format.SuffixEvents, []byte(format.CompactHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{format.SuffixMethods, format.SuffixClasses} {
		m, err := os.ReadFile(src + s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(prefix+s, m, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// chunk files 3.. kept, 1 and 2 deleted
	for i := 2; i+1 < len(starts); i++ {
		f := append([]byte(format.CompactHeader), b[starts[i]:starts[i+1]]...)
		if err := os.WriteFile(format.ChunkFileName(prefix, uint64(i+1)), f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	whole := reportJSON(t, src)
	// The synthetic recording's events are 1000 s on; say it began 3 s
	// before its first event and kept from 1 s after it, and end_s lagging
	// 0.2 s behind its last event, as a killed JVM's .info does.
	start, keptFrom, end := 997.0, 1001.0, 1000+whole.DurationS-0.2
	info := fmt.Sprintf("format=orca-1\nencoding=compact\nmax_size=2097152\nmax_age_s=8.000\nchunks_deleted=2\nchunks_kept=3-%d\nkept_from_s=%.9f\nstart_s=%.9f\nend_s=%.9f\ncomplete=false\n",
		len(starts)-1, keptFrom, start, end)
	if err := os.WriteFile(prefix+format.SuffixInfo, []byte(info), 0o644); err != nil {
		t.Fatal(err)
	}
	type bounded struct {
		DurationS float64 `json:"duration_s"`
		Bounded   struct {
			RecordedS float64 `json:"recorded_s"`
			DeletedS  float64 `json:"deleted_s"`
		} `json:"bounded"`
	}
	text := func(args ...string) (bounded, string) {
		var out, errb bytes.Buffer
		if code := run(ui{nil, &out, &errb}, append([]string{"report", "--json"}, args...)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		var r bounded
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if code := run(ui{nil, &out, &errb}, append([]string{"report"}, args...)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.Contains(l, "bounded recording (") {
				return r, strings.TrimSpace(l)
			}
		}
		t.Fatalf("%v: no bounded recording line:\n%s", args, out.String())
		return r, ""
	}
	all, allLine := text(prefix)
	if all.Bounded.RecordedS <= 0 || all.Bounded.DeletedS <= 0 {
		t.Fatalf("bounded: %+v", all)
	}
	for _, args := range [][]string{{"--from", "0", "--to", "0.1"}, {"--last", "100ms"}, {"--from", "0.2"}} {
		r, line := text(append(args, prefix)...)
		if r.Bounded != all.Bounded || line != allLine {
			t.Errorf("%v: bounded %+v, %q; the whole's %+v, %q", args, r.Bounded, line, all.Bounded, allLine)
		}
		// orca view's warnings: the same sentence (its report is made
		// from the model alone, which knows the range it folded)
		t.Setenv("ORCA_VIEW_INDEX", "0")
		var sum struct {
			Warnings []string `json:"warnings"`
		}
		url, stop := viewStart(t, append([]string{prefix}, args...)...)
		body := httpGet(t, url+"api/summary")
		stop()
		if err := json.Unmarshal(body, &sum); err != nil {
			t.Fatal(err)
		}
		if len(sum.Warnings) == 0 || !strings.HasPrefix(sum.Warnings[0], allLine) {
			t.Errorf("orca view %v: warnings %q, want the first %q", args, sum.Warnings, allLine)
		}
	}
}

// TestReportTopCPU: the CPU profile is cut by --top as every list: 10 by default, all with
// --top 0. It listed 20 with --top 0, under "(top 20 shown; --top 0 shows all)", and help
// report said "the first 20, or --top" while it listed 10 without --top.
func TestReportTopCPU(t *testing.T) {
	pre := rangeRecording(t)
	type cpu struct {
		CPU struct {
			Methods []struct {
				Rank int `json:"rank"`
			} `json:"methods"`
			MethodsTotal int `json:"methods_total"`
		} `json:"cpu"`
	}
	get := func(args ...string) cpu {
		var out, errb bytes.Buffer
		if code := run(ui{nil, &out, &errb}, append([]string{"report", "--json"}, append(args, pre)...)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		var c cpu
		if err := json.Unmarshal(out.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	all := get("--top", "0")
	if all.CPU.MethodsTotal <= 20 || len(all.CPU.Methods) != all.CPU.MethodsTotal {
		t.Errorf("--top 0: %d of %d CPU methods listed, want all (more than 20)", len(all.CPU.Methods), all.CPU.MethodsTotal)
	}
	for _, c := range []struct {
		args []string
		n    int
	}{{nil, 10}, {[]string{"--top", "3"}, 3}, {[]string{"--top", "25"}, 25}} {
		if got := get(c.args...); len(got.CPU.Methods) != c.n || got.CPU.MethodsTotal != all.CPU.MethodsTotal {
			t.Errorf("%v: %d of %d CPU methods listed, want %d of %d", c.args, len(got.CPU.Methods), got.CPU.MethodsTotal, c.n, all.CPU.MethodsTotal)
		}
	}
	var out bytes.Buffer
	run(ui{nil, &out, &bytes.Buffer{}}, []string{"help", "report"})
	if strings.Contains(out.String(), "the first 20") {
		t.Errorf("help report still says the CPU profile lists the first 20")
	}
}

// TestBoundedUnclosedNamesChunk: a bounded recording killed mid-chunk said "the last chunk of
// PREFIX.orca has no trailer", a file of 15 bytes (the header alone); the chunk is in the last
// chunk file, which report and dump now name.
func TestBoundedUnclosedNamesChunk(t *testing.T) {
	src := rangeRecording(t)
	b, err := os.ReadFile(src + format.SuffixEvents)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(b, []byte(format.ChunkMarker))
	prefix := filepath.Join(t.TempDir(), "b")
	os.WriteFile(prefix+format.SuffixEvents, []byte(format.CompactHeader), 0o644)
	for _, s := range []string{format.SuffixMethods, format.SuffixClasses} {
		m, _ := os.ReadFile(src + s)
		os.WriteFile(prefix+s, m, 0o644)
	}
	os.WriteFile(prefix+format.SuffixInfo, []byte("format=orca-1\nencoding=compact\nmax_size=2097152\nchunks_deleted=0\ncomplete=false\n"), 0o644)
	last := format.ChunkFileName(prefix, 1)
	// the trailer's length is not known here: cut until the reader says the chunk has none
	for cut := 5; cut <= 40; cut++ {
		os.WriteFile(last, append([]byte(format.CompactHeader), b[i:len(b)-cut]...), 0o644)
		var out, errb bytes.Buffer
		run(ui{nil, &out, &errb}, []string{"report", prefix})
		if !strings.Contains(out.String(), "has no trailer") {
			continue
		}
		if want := "the last chunk of " + last + " has no trailer"; !strings.Contains(out.String(), want) {
			t.Errorf("report: want %q in:\n%s", want, out.String())
		}
		out.Reset()
		run(ui{nil, &out, &errb}, []string{"dump", prefix})
		if want := "; the last chunk of " + last + " has no trailer"; !strings.Contains(out.String(), want) {
			t.Errorf("dump: want %q at its end:\n%s", want, out.String()[max(0, out.Len()-300):])
		}
		return
	}
	t.Fatal("no cut of the last chunk's end left it without its trailer")
}
