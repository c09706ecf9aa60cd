package report

import (
	"io"
	"path/filepath"
	"syscall"
	"testing"

	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/synth"
)

// BenchmarkReport is orca report --json on a generated recording
// (internal/synth, 32 MiB of text): the fold (model.Build) and the report
// (New, WriteJSON), per event. samples=yes has the generator's Sample and
// ThreadCPU lines (issue 33: the report of a recording with samples keeps
// its speed per event); samples=no is the recording without them, line
// for line the one of before.
func BenchmarkReport(b *testing.B) {
	b.Run("samples=no", func(b *testing.B) { benchReport(b, synth.Options{Size: 32 << 20, NoSamples: true}) })
	b.Run("samples=yes", func(b *testing.B) { benchReport(b, synth.Options{Size: 32 << 20}) })
}

func benchReport(b *testing.B, opt synth.Options) {
	prefix := filepath.Join(b.TempDir(), "bench")
	st, err := synth.WriteRecording(prefix, opt)
	if err != nil {
		b.Fatal(err)
	}
	rec, err := reader.Open(prefix)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	// CPU time (user and system, every thread) says more than wall time
	// on a shared machine.
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	for b.Loop() {
		res, err := model.Build(rec, model.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := New(rec, res, Options{Top: 10}).WriteJSON(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(st.Lines), "ns/event")
	b.ReportMetric(float64(cpu)/float64(b.N)/float64(st.Lines), "cpu-ns/event")
}
