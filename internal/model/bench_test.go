package model

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"orca/internal/reader"
	"orca/internal/synth"
)

// Benchmarks of the fold on a generated recording (internal/synth: 200
// threads, a few hundred monitors and semaphores, stacks of depth 8–16).
// The reader's own benchmarks are in internal/reader; bench/report/run.sh
// times `orca report` on a 1 GB file.

const benchSize = 64 << 20

var benchData struct {
	orca   []byte
	events []reader.Event
	prefix string
}

// benchEvents returns the generated .orca bytes and their events, decoded
// once (stacks copied out of the reader's reused buffers).
func benchEvents(b *testing.B) ([]byte, []reader.Event) {
	if benchData.orca == nil {
		var buf bytes.Buffer
		if _, err := synth.New(synth.Options{Size: benchSize}).WriteEvents(&buf); err != nil {
			b.Fatal(err)
		}
		benchData.orca = buf.Bytes()
		_, err := reader.EachEventAt(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "bench.orca", reader.EachOptions{}, func(ev *reader.Event) error {
			e := *ev
			e.Stack = slices.Clone(ev.Stack)
			benchData.events = append(benchData.events, e)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return benchData.orca, benchData.events
}

// BenchmarkFold is the fold alone, on events decoded beforehand: the part
// of Build that runs on one core. MB/s are of the .orca text.
func BenchmarkFold(b *testing.B) {
	orca, evs := benchEvents(b)
	b.SetBytes(int64(len(orca)))
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		bl := New()
		for i := range evs {
			bl.Event(&evs[i])
		}
		bl.Finalize()
	}
	reportCPU(b, c0, len(orca))
}

// BenchmarkBuild is Build on the generated recording written to files
// (read from the page cache): decoding in parallel and the fold.
func BenchmarkBuild(b *testing.B) {
	orca, _ := benchEvents(b)
	if benchData.prefix == "" {
		dir, err := os.MkdirTemp("", "orca-bench")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
		benchData.prefix = filepath.Join(dir, "bench")
		if _, err := synth.WriteRecording(benchData.prefix, synth.Options{Size: benchSize}); err != nil {
			b.Fatal(err)
		}
	}
	rec, err := reader.Open(benchData.prefix)
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			b.SetBytes(int64(len(orca)))
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				if _, err := Build(rec, Options{Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0, len(orca))
		})
	}
}

// TestBuildFile folds the recording at $ORCA_BENCH_PREFIX and logs the
// throughput: a profiling aid (go test -run BuildFile -cpuprofile …).
func TestBuildFile(t *testing.T) {
	p := os.Getenv("ORCA_BENCH_PREFIX")
	if p == "" {
		t.Skip("ORCA_BENCH_PREFIX not set")
	}
	rec, err := reader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(rec.Prefix + ".orca")
	if err != nil {
		t.Fatal(err)
	}
	start, c0 := time.Now(), cpuTime()
	res, err := Build(rec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wall, cpu := time.Since(start), cpuTime()-c0
	mb := float64(st.Size()) / 1e6
	t.Logf("Build: %.2fs, %.0f MB/s; %.2f CPU-s, %.0f MB/cpu-s (GOMAXPROCS=%d)",
		wall.Seconds(), mb/wall.Seconds(), cpu.Seconds(), mb/cpu.Seconds(), runtime.GOMAXPROCS(0))
	m := res.Model
	ivs := 0
	for _, th := range m.Threads {
		ivs += len(th.Intervals)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%d bytes, %d events, %d threads, %d intervals, %d edges, %d locks, %d stacks, %d problems; heap in use after GC %d MB",
		st.Size(), m.Events, len(m.Threads), ivs, len(m.Edges), len(m.Locks), len(m.Stacks), len(m.Problems), ms.HeapInuse>>20)
}

// cpuTime returns the CPU time the process has used (user and system, all
// threads). Benchmarks report MB per CPU-second besides MB/s: on a loaded
// machine wall time says little, and per CPU-second is per core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports MB of input per CPU-second since c0, for b.N runs.
func reportCPU(b *testing.B, c0 time.Duration, bytes int) {
	if d := cpuTime() - c0; d > 0 {
		b.ReportMetric(float64(bytes)*float64(b.N)/d.Seconds()/1e6, "MB/cpu-s")
	}
}
