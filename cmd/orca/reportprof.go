package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"orca/internal/model"
)

// reportProfile is orca report's profiling for measuring it (hidden, for
// docs/streaming.md), and orca export's (its points PREFIX.build and
// PREFIX.export) and orca view's (its peaks alone):
// ORCA_REPORT_CPUPROFILE=FILE writes a CPU profile of the whole report;
// ORCA_REPORT_HEAPPROFILE=PREFIX writes the heap in use,
// after a collection, at three points: PREFIX.fold when the fold has read
// the last chunk (before Finalize), PREFIX.build once the model is built,
// PREFIX.report once the report is made; and PREFIX.peak-N each time the
// live heap after a collection is 5 % above the most seen so far (the last
// one written is the heap at the run's peak), then, once the model is
// built, PREFIX.rpeak-N likewise from nothing (the last one is the heap at
// the report's making's peak, even under the fold's). With
// ORCA_REPORT_HEAPPEAKS=1 a peak is any collection's live heap 1 % above
// the most, not 5 %: the collections at the report's peak come seconds
// apart, and a step of 5 % missed it by 55 MB at c5G-slow5 (315 MB in the
// last rpeak-N, 370 MB traced). PREFIX.peaks lists every peak written: its
// file, the seconds since the start, the live heap at the collection and
// after the one forced for the profile, and the report's step then.
// ORCA_SPILL_STATS=FILE writes the counts of the model's spill's writes
// and reads to FILE.
type reportProfile struct {
	cpu   *os.File
	spill string // ORCA_SPILL_STATS: the file for the spill's counters
	heap  string
	built atomic.Bool // the model is built: the peaks are the report's
	// fine: a peak is 1 % above the most, not 5 % (ORCA_REPORT_HEAPPEAKS).
	fine bool
	// step is the report's step (report.Options.Progress), for PREFIX.peaks.
	step  atomic.Pointer[string]
	start time.Time
}

func startReportProfile() *reportProfile {
	p := &reportProfile{heap: os.Getenv("ORCA_REPORT_HEAPPROFILE"), spill: os.Getenv("ORCA_SPILL_STATS"),
		fine: os.Getenv("ORCA_REPORT_HEAPPEAKS") == "1", start: time.Now()}
	if p.spill != "" {
		model.EnableSpillStats()
		if os.Getenv("ORCA_SPILL_TRACE") != "" {
			model.EnableSpillTrace()
		}
	}
	if p.heap != "" {
		go p.watchPeak()
	}
	if path := os.Getenv("ORCA_REPORT_CPUPROFILE"); path != "" {
		if f, err := createProfile(path); err == nil && pprof.StartCPUProfile(f) == nil {
			p.cpu = f
		}
	}
	return p
}

// heapAt writes the heap profile PREFIX.point, when asked.
func (p *reportProfile) heapAt(point string) {
	if p.heap == "" {
		return
	}
	runtime.GC()
	if f, err := createProfile(p.heap + "." + point); err == nil {
		pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
	if point == "build" {
		p.built.Store(true)
	}
}

// showStep is report.Options.Progress with the step kept for
// PREFIX.peaks, then show (nil: none).
func (p *reportProfile) showStep(show func(step string, done, total int)) func(step string, done, total int) {
	return func(step string, done, total int) {
		p.step.Store(&step)
		if show != nil {
			show(step, done, total)
		}
	}
}

// watchPeak writes the heap profile PREFIX.peak-N when the live heap after
// a collection is 5 % (1 % when fine) above the most seen so far.
func (p *reportProfile) watchPeak() {
	tick := gcTicks()
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var most uint64
	n, name := 0, ".peak-"
	part := uint64(20)
	var log *os.File
	if p.fine {
		part = 100
		log, _ = createProfile(p.heap + ".peaks")
	}
	for range tick {
		if p.built.Load() && name == ".peak-" {
			most, n, name = 0, 0, ".rpeak-"
		}
		metrics.Read(live)
		if v := live[0].Value.Uint64(); v > most+most/part {
			most = v
			n++
			runtime.GC()
			file := p.heap + name + strconv.Itoa(n)
			if f, err := createProfile(file); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			if log != nil {
				step := ""
				if s := p.step.Load(); s != nil {
					step = *s
				}
				metrics.Read(live)
				fmt.Fprintf(log, "%s\t%.1f s\t%.1f MB\t%.1f MB\t%s\n", file, time.Since(p.start).Seconds(), float64(v)/1e6, float64(live[0].Value.Uint64())/1e6, step)
			}
		}
	}
}

// createProfile creates a profile's file exclusively, never through a
// symlink (orca may run as root where another user writes).
func createProfile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
}

func (p *reportProfile) stop() {
	if p.spill != "" {
		if f, err := createProfile(p.spill); err == nil {
			model.WriteSpillStats(f)
			f.Close()
		}
		if path := os.Getenv("ORCA_SPILL_TRACE"); path != "" {
			if f, err := createProfile(path); err == nil {
				model.WriteSpillTrace(f)
				f.Close()
			}
		}
	}
	if p.cpu != nil {
		pprof.StopCPUProfile()
		p.cpu.Close()
	}
}
