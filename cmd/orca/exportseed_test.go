package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
	"orca/internal/testrec"
)

// compactCopy writes the recording at pre to dst in the compact encoding
// (.info with encoding=compact, the other files copied) and returns the
// seed's text of the same events, as format.Writer writes it.
func compactCopy(t *testing.T, pre, dst string) []byte {
	t.Helper()
	in, err := os.Open(pre + format.SuffixEvents)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var text, compact bytes.Buffer
	tw := format.NewWriter(format.Files{Events: &text})
	cw := format.NewWriterOptions(format.Files{Events: &compact}, format.Options{Encoding: format.EncodingCompact, ChunkBytes: 100})
	evs := reader.NewEvents(in, "in.orca")
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		fe := format.Event{Time: ev.Time, Kind: ev.Kind, Thread: ev.Thread, Object: ev.Object, Target: ev.Target,
			Owner: ev.Owner, Name: ev.Name, Stack: ev.Stack, Timeout: ev.Timeout, How: ev.How, Class: ev.Class, Mode: ev.Mode,
			Sampled: ev.Sampled, Weight: ev.Weight, CPU: ev.CPU, Ready: ev.Ready, Depth: ev.Depth, Lock: ev.Lock()}
		tw.Event(&fe)
		cw.Event(&fe)
	}
	// Closed: its last chunk with its trailer, as the agent's at the JVM's exit.
	if tw.Err() != nil || cw.Close() != nil {
		t.Fatal(tw.Err(), cw.Err())
	}
	os.WriteFile(dst+format.SuffixEvents, compact.Bytes(), 0o644)
	for _, s := range []string{format.SuffixMethods, format.SuffixClasses, format.SuffixExt} {
		if b, err := os.ReadFile(pre + s); err == nil {
			os.WriteFile(dst+s, b, 0o644)
		}
	}
	info, _ := os.ReadFile(pre + format.SuffixInfo)
	os.WriteFile(dst+format.SuffixInfo, append([]byte(format.InfoEncoding+"=compact\n"), info...), 0o644)
	return text.Bytes()
}

func TestExportSeed(t *testing.T) {
	pre := exportRecording(t)
	dir := t.TempDir()
	exportRun := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(ui{nil, &out, &errb}, append([]string{"export"}, args...))
		return code, out.String(), errb.String()
	}

	// A text recording: an identical copy of every file.
	out := filepath.Join(dir, "copy")
	if code, stdout, errs := exportRun("--format", "seed", "-o", out, pre); code != 0 || errs != "" || !strings.Contains(stdout, "copied") {
		t.Fatalf("exit %d: %s %s", code, stdout, errs)
	}
	n := 0
	for _, s := range recordingExts {
		want, err := os.ReadFile(pre + s)
		if err != nil {
			continue
		}
		n++
		if got, err := os.ReadFile(out + s); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: not an identical copy (%v)", s, err)
		}
	}
	if n < 4 {
		t.Errorf("only %d files", n)
	}

	// A compact recording: the text of the same events, .info without
	// its encoding, dumped as the text is.
	cpre := filepath.Join(dir, "compact")
	text := compactCopy(t, pre, cpre)
	out = filepath.Join(dir, "seed")
	if code, stdout, errs := exportRun("--format", "seed", "-o", out, cpre); code != 0 || errs != "" || !strings.Contains(stdout, "converted") {
		t.Fatalf("exit %d: %s %s", code, stdout, errs)
	}
	if got, _ := os.ReadFile(out + format.SuffixEvents); !bytes.Equal(got, text) {
		t.Errorf("the export's .orca:\n%s\nwant\n%s", got, text)
	}
	for _, s := range []string{format.SuffixMethods, format.SuffixClasses, format.SuffixInfo} {
		want, _ := os.ReadFile(pre + s)
		if got, _ := os.ReadFile(out + s); !bytes.Equal(got, want) {
			t.Errorf("%s:\n%s\nwant\n%s", s, got, want)
		}
	}
	dump := func(p string) string {
		var b, errb bytes.Buffer
		if code := run(ui{nil, &b, &errb}, []string{"dump", p}); code != 0 {
			t.Fatalf("dump %s: exit %d: %s", p, code, errb.String())
		}
		return b.String()
	}
	if got, want := dump(cpre), dump(pre); got != want {
		t.Errorf("dump of the compact recording:\n%s\nwant\n%s", got, want)
	}

	// Usage errors.
	for _, args := range [][]string{{"--format", "seed", pre}, {"--format", "seed", "-o", "-", pre}, {"--format", "seed", "-o", pre, pre},
		{"--format", "seed", "--kind", "wait", "-o", out, pre}} {
		if code, _, _ := exportRun(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// TestDumpCompactMalformed checks that dump names a compact file's
// malformed record by its offset.
func TestDumpCompactMalformed(t *testing.T) {
	pre := filepath.Join(t.TempDir(), "bad")
	os.WriteFile(pre+format.SuffixEvents, []byte(format.CompactHeader+"ORCACHNK\x01\x01\x00\x7F"), 0o644)
	var out, errb bytes.Buffer
	run(ui{nil, &out, &errb}, []string{"dump", pre})
	if want := "# malformed: " + pre + ".orca: byte 26: unknown record tag 0x7F\n"; !strings.Contains(out.String(), want) {
		t.Errorf("dump:\n%s\nwant %q", out.String(), want)
	}
}

// TestExportSeedSamples: the seed export of a recording with samples and
// scheduler times (testrec.Samples), text and compact, leaves those lines
// out, says how many on stderr, and keeps every other line.
func TestExportSeedSamples(t *testing.T) {
	for _, enc := range []format.Encoding{format.EncodingSeed, format.EncodingCompact} {
		t.Run(enc.String(), func(t *testing.T) {
			dir := t.TempDir()
			pre, out := filepath.Join(dir, "samples"), filepath.Join(dir, "seed")
			testrec.Samples(t, pre, enc)
			var stdout, stderr bytes.Buffer
			if code := run(ui{nil, &stdout, &stderr}, []string{"export", "--format", "seed", "-o", out, pre}); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			want := fmt.Sprintf("orca: %d Sample and 4 ThreadCPU lines left out: the seed's format has no kind for them (docs/export.md)\n",
				testrec.SamplesCPU+testrec.SamplesWall)
			if stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			kinds := func(p string) map[format.Kind]int {
				n := map[format.Kind]int{}
				for _, ev := range testrec.Events(t, p) {
					n[ev.Kind]++
				}
				return n
			}
			got, all := kinds(out), kinds(pre)
			if all[format.Sample] != testrec.SamplesCPU+testrec.SamplesWall || all[format.ThreadCPU] != 4 {
				t.Fatalf("the recording's kinds %v: want its samples and ThreadCPU lines", all)
			}
			delete(all, format.Sample)
			delete(all, format.ThreadCPU)
			if !maps.Equal(got, all) {
				t.Errorf("the export's kinds %v, want %v", got, all)
			}
			if b, _ := os.ReadFile(out + format.SuffixEvents); bytes.HasPrefix(b, []byte("orca-compact")) {
				t.Errorf("the export is not text")
			}
		})
	}
}
