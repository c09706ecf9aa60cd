package main

import (
	"bufio"
	"io"
	"os"
	"testing"
)

// BenchmarkThreadsSnapshot is orca threads' own side (read, fold, view,
// JSON) on a kept snapshot: ORCA_BENCH_THREADS=PREFIX (the agent's files of
// one orca threads run, copied before orca removed them); skipped without.
func BenchmarkThreadsSnapshot(b *testing.B) {
	prefix := os.Getenv("ORCA_BENCH_THREADS")
	if prefix == "" {
		b.Skip("ORCA_BENCH_THREADS=PREFIX names a kept snapshot")
	}
	for b.Loop() {
		s := &snapshot{pid: 1, command: "bench"}
		if err := s.read(prefix); err != nil {
			b.Fatal(err)
		}
		v := newThreadsView(s)
		bw := bufio.NewWriter(io.Discard)
		if err := v.writeJSON(bw); err != nil {
			b.Fatal(err)
		}
		bw.Flush()
	}
}
