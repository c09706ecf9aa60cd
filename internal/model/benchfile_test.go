package model

import (
	"os"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// prodTuning is the fold's tuning before export_test.go's init sets the
// tests' (package variables are set before any init runs).
var prodTuning = struct {
	sealEvery, sampleBatch, lateCompactMin, blameBatch, winBatch int
	sealMargin                                                   format.Time
}{sealEvery, sampleBatch, lateCompactMin, blameBatch, winBatch, sealMargin}

// BenchmarkBuildFile is the reader and the fold of the recording at
// $ORCA_BENCH_PREFIX with orca report's options (the spill, no edges, the
// intervals dropped, the graph at the end alone), without the report:
// go test -run '^$' -bench BuildFile -benchtime 1x -benchmem ./internal/model
// (docs/perf/2026-11-30-issue-34-fold.md). Skipped without the variable.
func BenchmarkBuildFile(b *testing.B) {
	p := os.Getenv("ORCA_BENCH_PREFIX")
	if p == "" {
		b.Skip("ORCA_BENCH_PREFIX not set")
	}
	rec, err := reader.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(rec.Prefix + ".orca")
	if err != nil {
		b.Fatal(err)
	}
	// orca report's tuning, not the tests' (a seal after every event).
	t := prodTuning
	old := prodTuning
	old.sealEvery, old.sampleBatch, old.lateCompactMin, old.blameBatch, old.winBatch, old.sealMargin = sealEvery, sampleBatch, lateCompactMin, blameBatch, winBatch, sealMargin
	sealEvery, sampleBatch, lateCompactMin, blameBatch, winBatch, sealMargin = t.sealEvery, t.sampleBatch, t.lateCompactMin, t.blameBatch, t.winBatch, t.sealMargin
	defer func() {
		sealEvery, sampleBatch, lateCompactMin, blameBatch, winBatch, sealMargin = old.sealEvery, old.sampleBatch, old.lateCompactMin, old.blameBatch, old.winBatch, old.sealMargin
	}()
	b.SetBytes(st.Size())
	b.ReportAllocs()
	c0 := cpuTime()
	events := 0
	for b.Loop() {
		res, err := Build(rec, Options{NoEdges: true, Spill: true, DropIntervals: true, EndGraphOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		events = res.Model.Events
	}
	if d := cpuTime() - c0; d > 0 && events > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N)/float64(events), "cpu-ns/event")
	}
	reportCPU(b, c0, int(st.Size()))
}
