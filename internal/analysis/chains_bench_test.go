package analysis

import (
	"os"
	"path/filepath"
	"testing"

	"orca/internal/model"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// BenchmarkHoldersAndChains times what the holders did and the wait chains
// of one recording, as orca report takes them (HoldersAndChains, the first
// 10 roots, the intervals in the spill alone): ORCA_BENCH_PREFIX's
// recording (/work/rec/c128: 3 M edges), else a synthetic one of 8 MB. The
// Model is built once; -cpuprofile shows the chains' part
// (chainSweep.chains, chainSweep.interval).
func BenchmarkHoldersAndChains(b *testing.B) {
	prefix := os.Getenv("ORCA_BENCH_PREFIX")
	if prefix == "" {
		prefix = filepath.Join(b.TempDir(), "synth")
		if _, err := synth.WriteRecording(prefix, synth.Options{Seed: 3, Size: 8 << 20}); err != nil {
			b.Fatal(err)
		}
	}
	_, res := testrec.OpenWith(b, prefix, model.Options{NoEdges: true, Spill: true, SpillDir: b.TempDir(), DropIntervals: true,
		SpillOwners: true, PackThreads: true, EndGraphOnly: true})
	v := res.Model.Filter(nil)
	b.ResetTimer()
	for range b.N {
		HoldersAndChains(v, 10)
	}
}
