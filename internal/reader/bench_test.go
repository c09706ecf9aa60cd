package reader

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"orca/internal/format"
)

// genEvents returns n event lines shaped like a real recording: every kind
// in turn, stacks of 1 to 16 frames (the agent's default depth), a few
// quoted thread names.
func genEvents(n int) []byte {
	var b bytes.Buffer
	t := format.Time(1_000_000_000_000)
	for i := 0; i < n; i++ {
		k := format.Kind(1 + i%int(format.NumKinds-1))
		t += format.Time(1000 + i%7919)
		ev := Event{Time: t, Kind: k, Thread: format.ThreadID(0x1000 + i%61)}
		if k.Has(format.FObject) {
			ev.Object = format.ObjectID(0x7F000000 + i%997)
		}
		if k.Has(format.FTarget) {
			ev.Target = format.ThreadID(0x1000 + (i+1)%61)
		}
		if k.Has(format.FOwner) {
			ev.Owner = format.ThreadID(0x1000 + (i+2)%61)
		}
		if k.Has(format.FName) {
			ev.Name = "pool-1-thread-7"
			if i%5 == 0 {
				ev.Name = `worker "A", the first`
			}
		}
		if k.Has(format.FStack) {
			ev.Stack = make([]format.Frame, 1+i%16)
			for j := range ev.Stack {
				ev.Stack[j] = format.Frame{Method: format.MethodID(1 + (i+j)%500), Location: uint32(j * 13)}
			}
			ev.Stack[0].Location = format.NoLocation
		}
		b.Write(encodeEvent(ev))
	}
	return b.Bytes()
}

// BenchmarkEvents measures decoding throughput; the goal is 250 MB/s per core.
func BenchmarkEvents(b *testing.B) {
	data := genEvents(200_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		evs := NewEvents(bytes.NewReader(data), "bench.orca")
		for {
			_, err := evs.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// benchSynth is a generated recording shared by the benchmarks below.
var benchSynth []byte

func synthBenchData(b *testing.B) []byte {
	if benchSynth == nil {
		benchSynth = synthEvents(b, 64<<20)
	}
	return benchSynth
}

// BenchmarkNextSynth is BenchmarkEvents on a generated recording (repeated
// stacks of depth 8–16, as a server's): the sequential reader, one core.
func BenchmarkNextSynth(b *testing.B) {
	data := synthBenchData(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		evs := NewEvents(bytes.NewReader(data), "bench.orca")
		for {
			_, err := evs.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	reportCPU(b, c0, len(data))
}

// BenchmarkEachEvent decodes a generated recording in chunks with 1, 2
// and GOMAXPROCS workers, numbering stacks as model.Build does; fn does
// nothing. MB/cpu-s is the throughput per core.
func BenchmarkEachEvent(b *testing.B) {
	data := synthBenchData(b)
	ws := []int{1, 2}
	if n := runtime.GOMAXPROCS(0); n > 2 {
		ws = append(ws, n)
	}
	for _, w := range ws {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			c0 := cpuTime()
			events := 0
			for b.Loop() {
				n := 0
				_, err := EachEventAt(bytes.NewReader(data), int64(len(data)), "bench.orca", EachOptions{Workers: w, Stacks: NewStackTable()}, func(*Event) error {
					n++
					return nil
				})
				if err != nil || n == 0 {
					b.Fatal(n, err)
				}
				events += n
			}
			reportCPU(b, c0, len(data))
			reportEvents(b, c0, events)
		})
	}
}

// benchCompact is benchSynth's events in the compact encoding.
var benchCompact []byte

func compactBenchData(b *testing.B) []byte {
	if benchCompact == nil {
		benchCompact = compactOf(b, synthBenchData(b), 0)
	}
	return benchCompact
}

// BenchmarkCompactNext is BenchmarkNextSynth on the same events in the
// compact encoding: the sequential reader, one core.
func BenchmarkCompactNext(b *testing.B) {
	data := compactBenchData(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	c0 := cpuTime()
	n := 0
	for b.Loop() {
		evs := NewEvents(bytes.NewReader(data), "bench.orca")
		for {
			_, err := evs.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	reportCPU(b, c0, len(data))
	reportEvents(b, c0, n)
}

// BenchmarkCompactEachEvent is BenchmarkEachEvent on the same events in
// the compact encoding.
func BenchmarkCompactEachEvent(b *testing.B) {
	data := compactBenchData(b)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			c0 := cpuTime()
			n := 0
			for b.Loop() {
				_, err := EachEventAt(bytes.NewReader(data), int64(len(data)), "bench.orca", EachOptions{Workers: w, Stacks: NewStackTable()}, func(*Event) error {
					n++
					return nil
				})
				if err != nil || n == 0 {
					b.Fatal(n, err)
				}
			}
			reportCPU(b, c0, len(data))
			reportEvents(b, c0, n)
		})
	}
}

// reportEvents reports millions of events decoded per CPU-second since c0
// (n in all b.N runs).
func reportEvents(b *testing.B, c0 time.Duration, n int) {
	if d := cpuTime() - c0; d > 0 {
		b.ReportMetric(float64(n)/d.Seconds()/1e6, "Mevents/cpu-s")
	}
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

// BenchmarkFile reads the recording ORCA_BENCH_PREFIX names (its .orca, in
// either encoding; skipped when unset) from disk, as orca report does:
// Next (the sequential reader) and EachEvent with 1 and GOMAXPROCS workers,
// numbering stacks. MB/cpu-s and Mevents/cpu-s are per core; run it with
// GOMAXPROCS=1 for one core. bench/report/encodings.sh runs it on a 1 GB
// recording of each encoding (docs/PERFORMANCE.md).
func BenchmarkFile(b *testing.B) {
	prefix := os.Getenv("ORCA_BENCH_PREFIX")
	if prefix == "" {
		b.Skip("ORCA_BENCH_PREFIX is not set")
	}
	path := prefix + format.SuffixEvents
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	size := st.Size()
	b.Run("Next", func(b *testing.B) {
		b.SetBytes(size)
		c0, n := cpuTime(), 0
		for b.Loop() {
			evs := NewEvents(io.NewSectionReader(f, 0, size), path)
			for {
				_, err := evs.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
		}
		reportCPU(b, c0, int(size))
		reportEvents(b, c0, n)
	})
	ws := []int{1}
	if p := runtime.GOMAXPROCS(0); p > 1 {
		ws = append(ws, p)
	}
	for _, w := range ws {
		b.Run(fmt.Sprintf("EachEvent/workers=%d", w), func(b *testing.B) {
			b.SetBytes(size)
			c0, n := cpuTime(), 0
			for b.Loop() {
				_, err := EachEventAt(f, size, path, EachOptions{Workers: w, Stacks: NewStackTable()}, func(*Event) error {
					n++
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0, int(size))
			reportEvents(b, c0, n)
		})
		// As model.Build reads them: Batch's runs of Events, each read
		// (its kind, time and thread: the fold's first reads), and
		// Columns' runs, each row seen as an Event (Columns.Event).
		b.Run(fmt.Sprintf("Batch/workers=%d", w), func(b *testing.B) {
			b.SetBytes(size)
			c0, n := cpuTime(), 0
			var sum uint64
			for b.Loop() {
				_, err := EachEventAt(f, size, path, EachOptions{Workers: w, Stacks: NewStackTable(), Batch: func(evs []Event) error {
					for i := range evs {
						ev := &evs[i]
						sum += uint64(ev.Kind) + uint64(ev.Time) + uint64(ev.Thread) + uint64(ev.StackID)
					}
					n += len(evs)
					return nil
				}}, nil)
				if err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0, int(size))
			reportEvents(b, c0, n)
			benchSink = sum
		})
		for _, view := range []bool{false, true} {
			name := "Columns"
			if view {
				name = "ColumnsView"
			}
			b.Run(fmt.Sprintf("%s/workers=%d", name, w), func(b *testing.B) {
				b.SetBytes(size)
				c0, n := cpuTime(), 0
				var sum uint64
				var ev Event
				for b.Loop() {
					_, err := EachEventAt(f, size, path, EachOptions{Workers: w, Stacks: NewStackTable(), Columns: func(c *Columns) error {
						if view {
							for i := range c.Thread {
								c.Event(i, &ev)
								sum += uint64(ev.Kind) + uint64(ev.Time) + uint64(c.Thread[i]) + uint64(ev.StackID)
							}
						} else {
							kind, tm, th, st := c.Kind, c.Time[:len(c.Kind)], c.Thread[:len(c.Kind)], c.Stack[:len(c.Kind)]
							for i := range kind {
								sum += uint64(kind[i]) + uint64(tm[i]) + uint64(th[i]) + uint64(st[i])
							}
						}
						n += c.Len()
						return nil
					}}, nil)
					if err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, c0, int(size))
				reportEvents(b, c0, n)
				benchSink = sum
			})
		}
	}
}

// benchSink keeps what the benchmarks sum.
var benchSink uint64

// BenchmarkFileColumns reads the recording ORCA_BENCH_PREFIX names from
// memory (read once: no system call, no page cache in the passes) with
// EachOptions.Columns, each row's kind, time, thread and stack read: the
// reader's decoding and delivery alone, one worker (issue 34's budget,
// ≤ 60 ns an event). On a shared machine the fastest pass says most:
// ns/event-min is its CPU time an event, Mevents/cpu-s all the passes'.
func BenchmarkFileColumns(b *testing.B) {
	prefix := os.Getenv("ORCA_BENCH_PREFIX")
	if prefix == "" {
		b.Skip("ORCA_BENCH_PREFIX is not set")
	}
	path := prefix + format.SuffixEvents
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	c0, n := cpuTime(), 0
	var sum uint64
	best := time.Duration(math.MaxInt64)
	for b.Loop() {
		p0, m := cpuTime(), 0
		_, err := EachEventAt(bytes.NewReader(data), int64(len(data)), path, EachOptions{Workers: 1, Stacks: NewStackTable(), Columns: func(c *Columns) error {
			kind, tm, th, st := c.Kind, c.Time[:len(c.Kind)], c.Thread[:len(c.Kind)], c.Stack[:len(c.Kind)]
			for i := range kind {
				sum += uint64(kind[i]) + uint64(tm[i]) + uint64(th[i]) + uint64(st[i])
			}
			m += c.Len()
			return nil
		}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		best, n = min(best, cpuTime()-p0), n+m
		if m > 0 {
			b.ReportMetric(float64(best.Nanoseconds())/float64(m), "ns/event-min")
		}
	}
	reportEvents(b, c0, n)
	benchSink = sum
}
