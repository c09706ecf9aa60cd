package main

import (
	"bytes"
	"os"
	"testing"
)

// TestThreadsCollapseSame: the view of a kept snapshot
// (ORCA_BENCH_THREADS=PREFIX) is the same JSON with the fold's collapse of
// repeated virtual threads and without; skipped without a snapshot.
func TestThreadsCollapseSame(t *testing.T) {
	prefix := os.Getenv("ORCA_BENCH_THREADS")
	if prefix == "" {
		t.Skip("ORCA_BENCH_THREADS=PREFIX names a kept snapshot")
	}
	var out [2]bytes.Buffer
	for i, v := range []string{"1", "0"} {
		t.Setenv("ORCA_THREADS_COLLAPSE", v)
		s := &snapshot{pid: 1, command: "bench"}
		if err := s.read(prefix); err != nil {
			t.Fatal(err)
		}
		if v == "1" && len(s.collapsed) == 0 {
			t.Errorf("nothing collapsed")
		}
		if err := newThreadsView(s).writeJSON(&out[i]); err != nil {
			t.Fatal(err)
		}
		t.Logf("collapse=%s: %d threads in the model, %d left out, %d bytes", v, len(s.m.Threads), len(s.collapsed), out[i].Len())
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		os.WriteFile(t.TempDir()+"/a.json", out[0].Bytes(), 0o644)
		t.Fatalf("the JSON differs")
	}
}
