package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// ORCA_CPUPROFILE (bench/pgo.sh's) writes a CPU profile of any command,
// never over a file that is there.
func TestCPUProfileSwitch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	t.Setenv("ORCA_CPUPROFILE", path)
	var errb bytes.Buffer
	if code := run(ui{nil, io.Discard, &errb}, []string{"version"}); code != 0 || errb.Len() != 0 {
		t.Fatalf("orca version with ORCA_CPUPROFILE: exit %d, stderr %q", code, errb.String())
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(f)
	f.Close()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(p.SampleType) != 2 || p.SampleType[1].Type != "cpu" {
		t.Fatalf("%s: sample types %v, want a CPU profile's", path, p.SampleType)
	}

	before, _ := os.ReadFile(path)
	errb.Reset()
	if code := run(ui{nil, io.Discard, &errb}, []string{"version"}); code != 0 ||
		!strings.Contains(errb.String(), "ORCA_CPUPROFILE") || !strings.Contains(errb.String(), "no profile written") {
		t.Fatalf("a profile's file already there: exit %d, stderr %q; want 0 and a word of it", code, errb.String())
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatalf("%s was written over", path)
	}
}
