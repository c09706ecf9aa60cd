package web

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"orca/internal/reader"
	"orca/internal/synth"
)

// BenchmarkViewer measures, in headless Chromium, on a synthetic recording
// of 1000 long-lived threads (and the short-lived workers they start) with
// over a million intervals: the time from navigation to the first complete
// paint of the timeline, and the frame rate while panning continuously
// (a new tile column comes into view every few frames). Run it with
//
//	go test -run '^$' -bench Viewer -benchtime 1x ./internal/web
//
// (make bench does). The goal: first paint under 2 s, panning at 30 fps or more.
// The recording has no samples nor scheduler times (synth's NoSamples), as
// before issue 33; BenchmarkViewer/samples is one of the same size with
// them, its runnable time drawn as running, ready and other.
func BenchmarkViewer(b *testing.B) {
	b.Run("intervals", func(b *testing.B) {
		benchViewer(b, synth.Options{Threads: 1000, Size: 256 << 20, NoSamples: true}, 1e6)
	})
	b.Run("samples", func(b *testing.B) { benchViewer(b, synth.Options{Threads: 1000, Size: 256 << 20}, 0) })
}

func benchViewer(b *testing.B, opt synth.Options, want int) {
	t0 := time.Now()
	r := synthetic(b, fmt.Sprintf("bench%v", !opt.NoSamples), opt)
	m := r.res.Model
	intervals, split := 0, 0
	for _, th := range m.Threads {
		intervals += len(th.Intervals)
		if hasSplit(th) {
			split++
		}
	}
	b.Logf("recording: %d threads (1000 long-lived, %d with runnable time split), %d intervals, %d samples, %.2f s long; generated and built in %.1f s",
		len(m.Threads), split, intervals, m.Samples, (m.End - m.Start).Seconds(), time.Since(t0).Seconds())
	if intervals < want {
		b.Fatalf("only %d intervals: the benchmark wants %d", intervals, want)
	}
	ts := serve(b, r)
	ctx := newBrowser(b, 1600, 1000)
	type pan struct {
		Frames                                              int
		FPS, MeanFrameMs, P95FrameMs, MeanDrawMs, MaxDrawMs float64
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, v := range []struct {
			name, hash string
		}{{"lanes18", ""}, {"lanes6", "#h=6"}} {
			// A fresh document each time: nothing cached in the page.
			within(b, ctx, 10*time.Second, "blank page", chromedp.Navigate("about:blank"))
			open(b, ctx, fmt.Sprintf("%s/?n=%d%s", ts.URL, i, v.hash))
			waitJS(b, ctx, "the first paint", `window.orca.timeline && orca.timeline.metrics.firstPaint`)
			first := eval[float64](b, ctx, `orca.timeline.metrics.firstPaint`)
			lanes := eval[int](b, ctx, `(() => { const t = orca.timeline; let n = 0; for (const r of t.rows) if (r.kind === 'lane' && r.y < orca.app.state.y + t.h) n++; return n; })()`)
			// Zoom to a tenth of the recording, then pan through it.
			eval[bool](b, ctx, `(orca.timeline.setRange(0, orca.app.summary.duration / 10), orca.timeline.idle().then(() => true))`)
			p := eval[pan](b, ctx, `orca.timeline.benchPan(4000, 14)`)
			b.Logf("%s: first paint %.0f ms; %d lanes on screen; pan: %d frames, %.1f fps, frame %.1f ms mean / %.1f ms p95, drawing %.1f ms mean / %.1f ms max",
				v.name, first, lanes, p.Frames, p.FPS, p.MeanFrameMs, p.P95FrameMs, p.MeanDrawMs, p.MaxDrawMs)
			b.ReportMetric(first, v.name+"-first-paint-ms")
			b.ReportMetric(p.FPS, v.name+"-pan-fps")
			b.ReportMetric(p.P95FrameMs, v.name+"-pan-p95-frame-ms")
			b.ReportMetric(p.MeanDrawMs, v.name+"-draw-ms")
		}
	}
	b.ReportMetric(0, "ns/op") // the metrics above are what matters
	screenshot(b, ctx, fmt.Sprintf("bench-timeline-%s.png", b.Name()[strings.LastIndex(b.Name(), "/")+1:]))
}

// BenchmarkSummary measures the first GET /api/summary of a fresh server
// when asked at once (its answer waits for orca report's Report, report.New:
// the headline's figures and caveats, which New starts building) on
// BenchmarkViewer's synthetic recording (5 486 threads, 408 009 intervals
// today: 0.56-0.79 s). Run it with
//
//	go test -run '^$' -bench Summary -benchtime 3x ./internal/web
func BenchmarkSummary(b *testing.B) {
	r := synthetic(b, "bench", synth.Options{Threads: 1000, Size: 256 << 20})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ts := serve(b, r)
		b.StartTimer()
		var sum summaryJSON
		getJSON(b, ts, "/api/summary", &sum)
	}
}

// BenchmarkChain measures one /api/chain answer (analysis.ChainAt and the
// JSON of its links) on the synthetic recording of BenchmarkViewer's
// samples case (1000 long-lived threads and their workers): a query at
// the middle of each of 1000 blocked intervals spread over the threads,
// round robin. The viewer asks one per click on an interval.
//
//	go test -run '^$' -bench Chain -benchtime 2000x ./internal/web
func BenchmarkChain(b *testing.B) {
	r := synthetic(b, "benchtrue", synth.Options{Threads: 1000, Size: 256 << 20})
	m := r.res.Model
	var paths []string
	for ti, th := range m.Threads {
		for k := range th.Intervals {
			if th.Intervals[k].Shown().String() == "blocked" && len(paths) < 1000 {
				paths = append(paths, fmt.Sprintf("/api/chain/%d/%d", ti, k))
				break
			}
		}
	}
	if len(paths) == 0 {
		b.Fatal("no blocked interval")
	}
	ts := serve(b, r)
	// The summary waits for the report the server builds at its start:
	// not measured with the chains.
	var sum summaryJSON
	getJSON(b, ts, "/api/summary", &sum)
	links := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var c chainJSON
		getJSON(b, ts, paths[i%len(paths)], &c)
		links += len(c.Links)
	}
	b.ReportMetric(float64(links)/float64(b.N), "links/op")
}

// BenchmarkIndexTiles answers tiles from the index file $ORCA_BENCH_INDEX
// (an orca view's, ~/.cache/orca/view/KEY/index) as /api/tiles does
// (Index.tile), at each third level finer than those it keeps whole, or
// at the levels $ORCA_BENCH_LEVELS lists (28,27,26), the middle tile for
// 60 threads (as the page asks the lanes in view) and for 4096 (the most
// a request asks), the first ones and spread over the recording's
// threads, with no model: what a pan or zoom costs on the next orca view.
//
//	ORCA_BENCH_INDEX=… go test -run '^$' -bench IndexTiles -benchtime 3x ./internal/web
func BenchmarkIndexTiles(b *testing.B) {
	x := benchIndex(b)
	lv := x.Levels()
	levels := []int{}
	for l := lv[len(lv)-1] - 1; l >= 0; l -= 3 {
		levels = append(levels, l)
	}
	if v := os.Getenv("ORCA_BENCH_LEVELS"); v != "" { // e.g. 28,27,26
		levels = levels[:0]
		for _, f := range strings.Split(v, ",") {
			l, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			levels = append(levels, l)
		}
	}
	for _, l := range levels {
		mid := int(x.dir.Duration / (int64(TileWidth) << l) / 2)
		// The first 60 and 4096 threads (a recording's first are its
		// long-lived ones: the page's first screen asks them), 60 and
		// 4096 spread over them.
		for _, lanes := range []int{-60, 60, -4096, 4096} {
			if max(lanes, -lanes) > 60 && l < lv[len(lv)-1]-7 && os.Getenv("ORCA_BENCH_LEVELS") == "" {
				continue // the most a request asks: at coarse levels only
			}
			threads := make([]int, min(max(lanes, -lanes), x.dir.Threads))
			name := fmt.Sprint(len(threads))
			for i := range threads {
				threads[i] = (i * 7919) % x.dir.Threads // spread over the threads
				if lanes < 0 {
					threads[i], name = i, fmt.Sprintf("0-%d", len(threads)-1)
				}
			}
			b.Run(fmt.Sprintf("level=%d/lanes=%s", l, name), func(b *testing.B) {
				var size int
				for range b.N {
					t, err := x.tile(l, mid, threads)
					if err != nil {
						b.Fatal(err)
					}
					size = len(t)
				}
				b.ReportMetric(float64(size), "bytes/tile")
			})
		}
	}
}

// benchIndex opens the index file $ORCA_BENCH_INDEX (an orca view's,
// ~/.cache/orca/view/KEY/index) whatever its key.
func benchIndex(b *testing.B) *Index {
	path := os.Getenv("ORCA_BENCH_INDEX")
	if path == "" {
		b.Skip("ORCA_BENCH_INDEX: no index named")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	head := make([]byte, len(indexMagic)+4+16)
	f.ReadAt(head, 0)
	off, n := binary.LittleEndian.Uint64(head[len(indexMagic)+4:]), binary.LittleEndian.Uint64(head[len(indexMagic)+12:])
	js := make([]byte, n)
	f.ReadAt(js, int64(off))
	var dir indexDir
	if err := json.Unmarshal(js, &dir); err != nil {
		b.Fatal(err)
	}
	x, err := readIndex(f, dir.Key)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	return x
}

// BenchmarkRangeDetail answers intervals' details at a reopen from their
// ranges (rangedetail.go), as a hover or a click on the timeline asks
// them: the index $ORCA_BENCH_INDEX of the recording $ORCA_BENCH_PREFIX
// (its orca view's, which wrote it), no model; one interval an op, each
// another (none from the answers kept): eight places in each thread's
// lane, threads spread over the recording's. Reported: the CPU time an
// op (both cores'), and how many were answered from their ranges (the
// others are left to the model's build: why, in the log).
//
//	ORCA_BENCH_PREFIX=/tmp/tc/rec ORCA_BENCH_INDEX=~/.cache/orca/view/KEY/index \
//	  go test -run '^$' -bench RangeDetail -benchtime 40x ./internal/web
func BenchmarkRangeDetail(b *testing.B) {
	prefix := os.Getenv("ORCA_BENCH_PREFIX")
	if prefix == "" {
		b.Skip("ORCA_BENCH_PREFIX: no recording named")
	}
	x := benchIndex(b)
	// Eight places in each thread's lane (or as many as its blocks),
	// taken each thread's first, then each one's second, ….
	var places [8][]string
	for i := 0; i < x.dir.Threads && i < 4096; i++ {
		ti := (i * 7919) % x.dir.Threads
		rec, src, err := x.laneOf(ti)
		if err != nil {
			b.Fatal(err)
		}
		blocks := int(binary.LittleEndian.Uint32(rec[24+8:]))
		for j := range min(blocks, 8) {
			bl := j
			if blocks >= 8 {
				bl = blocks * (2*j + 1) / 16
			}
			ivs, err := x.laneBlocks(rec, src, bl, bl+1)
			if err != nil || len(ivs) == 0 {
				b.Fatal(err)
			}
			places[j] = append(places[j], fmt.Sprintf("/api/intervals/%d/%d", ti, bl*laneBlock+len(ivs)/2))
		}
	}
	var picks []string
	for _, p := range places {
		picks = append(picks, p...)
	}
	srv := NewFromIndex(x, Options{})
	srv.BuildOnDemand(func() {})
	srv.DetailsFromRanges(NewRangeBuilder(func() (*reader.Recording, error) { return reader.Open(prefix) }, nil, ModelOptions))
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	ranged := 0
	b.ResetTimer()
	for i := range b.N {
		if i >= len(picks) {
			b.Fatalf("%d intervals picked: ask fewer (-benchtime %dx)", len(picks), len(picks))
		}
		req := httptest.NewRequest("GET", picks[i], nil)
		req.Host = "127.0.0.1"
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		switch w.Code {
		case 200:
			ranged++
		case 503:
		default:
			b.Fatalf("%s: %d %s", picks[i], w.Code, w.Body.String())
		}
	}
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(cpu.Seconds()/float64(b.N), "CPU-s/op")
	b.ReportMetric(float64(ranged)/float64(b.N), "ranged/op")
	b.Logf("%d of %d from their ranges; left to the model: %v", ranged, b.N, srv.rd.left)
}
