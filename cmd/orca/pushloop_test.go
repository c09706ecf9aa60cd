package main

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	collpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"
	profpb "go.opentelemetry.io/proto/slim/otlp/profiles/v1development"
	"google.golang.org/protobuf/proto"

	"orca/internal/export"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/otlptest"
	"orca/internal/reader"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// splitChunks cuts a compact .orca into its chunks (each from its marker
// to the next), as a bounded recording's chunk files hold them.
func splitChunks(tb testing.TB, orca []byte) [][]byte {
	tb.Helper()
	marker := []byte("ORCACHNK")
	var offs []int
	for off := 0; ; {
		i := bytes.Index(orca[off:], marker)
		if i < 0 {
			break
		}
		offs = append(offs, off+i)
		off += i + len(marker)
	}
	var out [][]byte
	for i, o := range offs {
		end := len(orca)
		if i+1 < len(offs) {
			end = offs[i+1]
		}
		out = append(out, append([]byte(format.CompactHeader), orca[o:end]...))
	}
	if len(out) < 3 {
		tb.Fatalf("%d chunks, want 3 or more", len(out))
	}
	return out
}

// pushSource is a bounded recording to replay: its .info, .methods and
// .classtable, and its chunk files' bytes in order.
type pushSource struct {
	side   map[string][]byte // by suffix
	chunks [][]byte
	// fresh: each push with an OTLPCache of its own, as none were shared
	// before (TestPushLoopCache).
	fresh bool
	// plain: the bodies not gzipped (--otlp-compression none).
	plain bool
	// maxRequest, when set, is --otlp-max-request: a larger push is
	// sent as several requests.
	maxRequest int
}

// synthPushSource is a synthetic busy server's recording (internal/synth)
// of size bytes, cut into chunk files. It has the MonitorHeld lines of
// orca record --lock-order: so cut, one of its chunk files ends with a
// contention's Entered, which two time ranges [a, b] and [b, c] both
// hold (the pushes counted that contention twice, 1009 against 1008,
// before they read chunk files rather than time ranges: SpanChunks).
func synthPushSource(tb testing.TB, size int64) pushSource {
	tb.Helper()
	prefix := filepath.Join(tb.TempDir(), "syn")
	if _, err := synth.WriteRecording(prefix, synth.Options{Threads: 24, Monitors: 12, Size: size, Encoding: format.EncodingCompact, LockOrder: true}); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(prefix + format.SuffixEvents)
	if err != nil {
		tb.Fatal(err)
	}
	return pushSource{side: sideFiles(tb, prefix), chunks: splitChunks(tb, b)}
}

// recordedPushSource is the bounded recording prefix's chunk files.
func recordedPushSource(tb testing.TB, prefix string) pushSource {
	tb.Helper()
	src := pushSource{side: sideFiles(tb, prefix)}
	for _, s := range chunkSeqs(prefix) {
		b, err := os.ReadFile(format.ChunkFileName(prefix, s))
		if err != nil {
			tb.Fatal(err)
		}
		src.chunks = append(src.chunks, b)
	}
	if len(src.chunks) < 3 {
		tb.Fatalf("%s: %d chunk files, want 3 or more", prefix, len(src.chunks))
	}
	return src
}

func sideFiles(tb testing.TB, prefix string) map[string][]byte {
	tb.Helper()
	side := map[string][]byte{}
	for _, s := range []string{format.SuffixInfo, format.SuffixMethods, format.SuffixClasses} {
		b, err := os.ReadFile(prefix + s)
		if err != nil && !os.IsNotExist(err) {
			tb.Fatal(err)
		}
		side[s] = b
	}
	return side
}

// replay writes src's chunk files into a new bounded recording one by one,
// as the agent closes them, and runs the pusher's build after every
// `every` of them, with the newest written still open (not pushed), then
// the last build; each request built is taken as the collector accepts
// it (its memory reused by the next, as send does); it returns the
// requests built (gzipped: gunzip reads them) and the recording. With
// writeCPU, it adds the CPU its writes of the chunk files took (the
// agent's, not the pusher's) to *writeCPU.
func (src pushSource) replay(tb testing.TB, every int, writeCPU ...*int64) ([][]byte, string) {
	tb.Helper()
	prefix := filepath.Join(tb.TempDir(), "rec")
	for s, b := range src.side {
		if err := os.WriteFile(prefix+s, b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(prefix+format.SuffixEvents, []byte(format.CompactHeader), 0o644); err != nil {
		tb.Fatal(err)
	}
	p := &pusher{prefix: prefix, opt: export.OTLPOptions{Samples: true}, log: io.Discard}
	if src.plain || src.maxRequest > 0 {
		p.target = &otlpTarget{plain: src.plain, maxRequest: cmp.Or(src.maxRequest, defaultMaxRequest)}
	}
	var bodies [][]byte
	for i, c := range src.chunks {
		cpu0 := processCPU(tb)
		if err := os.WriteFile(format.ChunkFileName(prefix, uint64(i+1)), c, 0o644); err != nil {
			tb.Fatal(err)
		}
		for _, w := range writeCPU {
			*w += processCPU(tb) - cpu0
		}
		if (i+1)%every == 0 && i+1 < len(src.chunks) {
			if src.fresh {
				p.fresh()
			}
			if err := p.build(false); err != nil {
				tb.Fatal(err)
			}
			bodies = p.acceptAll(bodies)
		}
	}
	if src.fresh {
		p.fresh()
	}
	if err := p.build(true); err != nil {
		tb.Fatal(err)
	}
	return p.acceptAll(bodies), prefix
}

// fresh drops what p keeps from one push to the next: its next push
// starts from nothing, as every push did before they shared a cache and
// memory.
func (p *pusher) fresh() {
	p.cache, p.bufs, p.reuse, p.raw, p.spare = nil, reader.Buffers{}, model.Reuse{}, nil, nil
}

// acceptAll takes p's backlog as sent and accepted, appending copies of
// its bodies to bodies.
func (p *pusher) acceptAll(bodies [][]byte) [][]byte {
	for _, r := range p.backlog {
		bodies = append(bodies, bytes.Clone(r.body))
		p.accepted(r)
	}
	p.backlog, p.bytes = nil, 0
	return bodies
}

// gunzip returns the requests' bodies gunzipped.
func gunzip(tb testing.TB, bodies [][]byte) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, b := range bodies {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			tb.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, raw)
	}
	return out
}

// requestSamples decodes requests.
func requestSamples(tb testing.TB, bodies ...[]byte) []otlptest.Sample {
	tb.Helper()
	var pds []*profpb.ProfilesData
	for _, b := range bodies {
		req := &collpb.ExportProfilesServiceRequest{}
		if err := proto.Unmarshal(b, req); err != nil {
			tb.Fatal(err)
		}
		pds = append(pds, &profpb.ProfilesData{ResourceProfiles: req.ResourceProfiles, Dictionary: req.Dictionary})
	}
	return otlptest.Samples(pds)
}

// TestPushLoopAddsUp: the continuous pusher's requests, built as a
// bounded recording's chunk files close (two at a time), add up to the
// whole recording's (otlptest.CheckAddsUp, as TestOTLPRangesAddUp's
// ranges): each push reads its own chunks only (reader.ChunkFileEnd,
// SpanChunks) and builds without the locks' figures.
func TestPushLoopAddsUp(t *testing.T) {
	src := synthPushSource(t, 6<<20)
	bodies, prefix := src.replay(t, 2)
	bodies = gunzip(t, bodies)
	if len(bodies) < 2 {
		t.Fatalf("%d requests, want 2 or more", len(bodies))
	}
	rec, res := testrec.Open(t, prefix)
	req, err := export.OTLP(rec, res.Model, export.OTLPOptions{Samples: true})
	if err != nil {
		t.Fatal(err)
	}
	wb, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	sums, moved := otlptest.CheckAddsUp(t, requestSamples(t, wb), requestSamples(t, bodies...), len(bodies))
	t.Logf("%d chunk files in %d pushes: %d sums, %d delays moved between owners", len(src.chunks), len(bodies), sums, moved)
}

// TestPushLoopSplit: pushes larger than --otlp-max-request (1 MB here,
// a push of the synthetic recording ~2.6 MB) go as several requests, each at most that large as encoded, which
// together add up to the whole recording's as unsplit pushes do
// (CheckAddsUp).
func TestPushLoopSplit(t *testing.T) {
	src := synthPushSource(t, 3<<20)
	const max = 1 << 20
	src.maxRequest = max
	whole, _ := src.replay(t, 2)
	src.maxRequest = 0
	unsplit, prefix := src.replay(t, 2)
	whole = gunzip(t, whole)
	if len(whole) <= len(unsplit) {
		t.Fatalf("%d requests split at %d bytes, %d unsplit: nothing was split", len(whole), max, len(unsplit))
	}
	for i, b := range whole {
		if n := len(requestSamples(t, b)); len(b) > max && n > 1 {
			t.Errorf("request %d: %d bytes, %d samples", i, len(b), n)
		}
	}
	sums, moved := otlptest.CheckAddsUp(t, requestSamples(t, gunzip(t, unsplit)...), requestSamples(t, whole...), len(unsplit))
	if moved != 0 {
		t.Errorf("%d delays moved between owners: the same pushes split should hold the same samples", moved)
	}
	t.Logf("%d chunk files: %d pushes, %d requests split; %d sums the same", len(src.chunks), len(unsplit), len(whole), sums)
	_ = prefix
}

// TestPushSplitCounts: a push sent as several requests counts its chunk
// files as pushed once all its requests are accepted, and as lost once
// (not per request) when any is dropped, whichever.
func TestPushSplitCounts(t *testing.T) {
	p := &pusher{}
	a := &pushOf{chunks: 3, left: 3}
	b := &pushOf{chunks: 2, left: 3}
	c := &pushOf{chunks: 4, left: 1}
	p.accepted(pushReq{push: a})
	p.accepted(pushReq{push: a})
	if p.chunks != 0 {
		t.Fatalf("%d chunk files pushed with a push's last request not sent", p.chunks)
	}
	p.accepted(pushReq{push: a})
	p.done(pushReq{push: b}, false)
	p.accepted(pushReq{push: b})
	p.done(pushReq{push: b}, false)
	p.accepted(pushReq{push: c})
	if p.chunks != 3+4 || p.lost != 2 || p.sent != 5 {
		t.Errorf("%d chunk files pushed, %d lost, %d requests sent; want 7, 2, 5", p.chunks, p.lost, p.sent)
	}
}

// TestPushLoopCache: the pushes of a recording, which share what they
// resolved and numbered (export.OTLPCache, model.Options.Stacks) and
// reuse their memory from push to push (the decoding's buffers, the OTLP
// builder's maps and arenas), send the same bytes as pushes that each
// start from nothing (samePushes).
func TestPushLoopCache(t *testing.T) {
	samePushes(t, synthPushSource(t, 3<<20), 1)
}

// TestPushPlainBacklog: bodies sent as they are (--otlp-compression none)
// that wait in the backlog (the collector away) are not written over by
// the pushes after them, which marshal into other memory; once sent,
// their memory is marshalled into again.
func TestPushPlainBacklog(t *testing.T) {
	src := synthPushSource(t, 6<<20)
	prefix := filepath.Join(t.TempDir(), "rec")
	for s, b := range src.side {
		if err := os.WriteFile(prefix+s, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(prefix+format.SuffixEvents, []byte(format.CompactHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &pusher{prefix: prefix, opt: export.OTLPOptions{Samples: true}, log: io.Discard, target: &otlpTarget{plain: true}}
	var kept [][]byte // each body as built
	for i, c := range src.chunks {
		if err := os.WriteFile(format.ChunkFileName(prefix, uint64(i+1)), c, 0o644); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			continue
		}
		if err := p.build(false); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, bytes.Clone(p.backlog[len(p.backlog)-1].body))
		if i%2 == 0 { // every other push sent: its memory handed on
			p.acceptAll(nil)
		}
		for j, r := range p.backlog {
			if !bytes.Equal(r.body, kept[len(kept)-len(p.backlog)+j]) {
				t.Fatalf("push %d: a body waiting in the backlog was written over", i)
			}
			if cap(p.raw) > 0 && &p.raw[:1][0] == &r.body[:1][0] {
				t.Fatalf("push %d: the next push would marshal into a body waiting in the backlog", i)
			}
		}
	}
	if len(kept) < 3 {
		t.Fatalf("%d pushes, want 3 or more", len(kept))
	}
	for i, b := range kept {
		if len(requestSamples(t, b)) == 0 {
			t.Errorf("push %d: no samples decoded", i+1)
		}
	}
}

// TestPushSameBytes is TestPushLoopCache of real recordings, when
// ORCA_PUSH_SAME names them (comma-separated): a bounded recording's
// prefix (bench/otlp-push.sh keeps them), or PATH.orca:N, the first N
// chunks of a compact recording (/work/rec/c128.orca:24); pushed every 4
// chunk files as BenchmarkPushLoop does. With ORCA_PUSH_DUMP=DIR it
// writes the requests gunzipped (orca.recording blanked) to
// DIR/NAME.K, to compare a build's requests with another's byte for
// byte (docs/perf/2026-11-30-issue-35-lean-push.md).
func TestPushSameBytes(t *testing.T) {
	list := os.Getenv("ORCA_PUSH_SAME")
	if list == "" {
		t.Skip("ORCA_PUSH_SAME=PREFIX,PATH.orca:N: the recordings to push")
	}
	for _, name := range strings.Split(list, ",") {
		t.Run(filepath.Base(name), func(t *testing.T) {
			var src pushSource
			if path, n, ok := strings.Cut(name, ".orca:"); ok {
				b, err := os.ReadFile(path + format.SuffixEvents)
				if err != nil {
					t.Fatal(err)
				}
				k, err := strconv.Atoi(n)
				if err != nil {
					t.Fatal(err)
				}
				src = pushSource{side: sideFiles(t, path), chunks: splitChunks(t, b)}
				src.chunks = src.chunks[:min(k, len(src.chunks))]
			} else {
				src = recordedPushSource(t, name)
			}
			bodies := samePushes(t, src, 4)
			if dir := os.Getenv("ORCA_PUSH_DUMP"); dir != "" {
				for i, b := range bodies {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s.%d", filepath.Base(name), i+1)), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			var n int
			for _, b := range bodies {
				n += len(b)
			}
			if !t.Failed() {
				t.Logf("%d chunk files, %d requests, %d bytes: the same", len(src.chunks), len(bodies), n)
			}
		})
	}
}

// samePushes replays src with a push every `every` chunk files twice, as
// the pusher does and with every push from nothing (pushSource.fresh),
// and fails unless each request is the same, byte for byte, gunzipped
// (but for the resource attribute orca.recording: the two replays'
// recordings are in two directories). The second sends its bodies as
// they are (--otlp-compression none: each body takes the marshalled
// request's memory and the next is marshalled into a sent one's), so
// those are the same as the gzipped ones too. It returns the requests
// so, of the first replay.
func samePushes(t *testing.T, src pushSource, every int) [][]byte {
	t.Helper()
	src.fresh, src.plain = false, false
	shared, _ := src.replay(t, every)
	src.fresh, src.plain = true, true
	fresh, _ := src.replay(t, every)
	shared = gunzip(t, shared)
	if len(shared) != len(fresh) || len(shared) < 2 {
		t.Fatalf("%d requests with the cache, %d without; want the same, 2 or more", len(shared), len(fresh))
	}
	for _, b := range [][][]byte{shared, fresh} {
		for i, body := range b {
			req := &collpb.ExportProfilesServiceRequest{}
			if err := proto.Unmarshal(body, req); err != nil {
				t.Fatal(err)
			}
			for _, kv := range req.ResourceProfiles[0].Resource.Attributes {
				if kv.Key == export.AttrRecordingPrefix {
					kv.Value = nil
				}
			}
			mo := proto.MarshalOptions{Deterministic: true}
			var err error
			if b[i], err = mo.Marshal(req); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range shared {
		if !bytes.Equal(shared[i], fresh[i]) {
			t.Errorf("push %d: %d bytes with the cache, %d without, not the same", i+1, len(shared[i]), len(fresh[i]))
		}
	}
	return shared
}

// BenchmarkPushLoop: the continuous pusher's CPU per chunk file pushed
// (docs/otlp.md "Cost"), four chunk files a push as a busy server's
// recording closes them in 10 s: a synthetic recording's, or with
// ORCA_BENCH_PUSH=PREFIX a real bounded recording's (bench/otlp-push.sh
// keeps them).
func BenchmarkPushLoop(b *testing.B) {
	var src pushSource
	if prefix := os.Getenv("ORCA_BENCH_PUSH"); prefix != "" {
		src = recordedPushSource(b, prefix)
	} else {
		src = synthPushSource(b, 12<<20)
	}
	var bytes int64
	for _, c := range src.chunks {
		bytes += int64(len(c))
	}
	b.SetBytes(bytes)
	b.ResetTimer()
	cpu0 := processCPU(b)
	var sent int
	var writes int64 // the replay's writes of the chunk files: not the pusher's
	for range b.N {
		bodies, _ := src.replay(b, 4, &writes)
		sent = 0
		for _, body := range bodies {
			sent += len(body) // gzipped, as send sends it
		}
	}
	// The process's CPU, not the wall time: the figure of issue 35's goal,
	// and less changed than the wall time by others on the machine.
	b.ReportMetric(float64(processCPU(b)-cpu0-writes)/1e6/float64(b.N)/(float64(bytes)/1e6), "cpu-ms/MB")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(src.chunks)), "ns/chunk")
	b.ReportMetric(float64(sent)/float64(bytes), "sent/byte")
}

// processCPU returns the process's CPU time so far (user and system, all
// its threads), in ns.
func processCPU(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkPushLoopDisk is BenchmarkPushLoop of the kept recording
// ORCA_BENCH_PUSH names, each chunk file copied from its file as it
// "closes" rather than held in memory: the benchmark's heap is then about
// orca record's, whose collections (a few MB live, a cycle every few MB
// allocated) BenchmarkPushLoop's 30-40 MB of chunks held put off. It
// reports the CPU a push besides a MB, the collections a push, the
// bytes allocated a byte recorded and the page faults a push. With
// ORCA_BENCH_PUSH_GAP=D (e.g. 10s) it sleeps D before each push, as
// orca record's pushes are 10 s apart (the runtime's background work
// between them, its scavenger, is in the CPU counted; the sleep is not).
// With ORCA_BENCH_PUSH_COMPRESSION=none the bodies are not gzipped
// (--otlp-compression none). With ORCA_BENCH_PUSH_WARM=1 each replay's
// pusher starts with what the replay before kept (the OTLP cache, the
// decoding's buffers, the fold's and the bodies' memory), as the pushes
// of a long orca record do: without it, each replay's first push
// resolves every stack and grows every table from nothing.
func BenchmarkPushLoopDisk(b *testing.B) {
	src := os.Getenv("ORCA_BENCH_PUSH")
	if src == "" {
		b.Skip("ORCA_BENCH_PUSH=PREFIX: a kept bounded recording (bench/otlp-push.sh keeps them)")
	}
	seqs := chunkSeqs(src)
	var total int64
	for _, s := range seqs {
		st, err := os.Stat(format.ChunkFileName(src, s))
		if err != nil {
			b.Fatal(err)
		}
		total += st.Size()
	}
	b.SetBytes(total)
	gap, _ := time.ParseDuration(os.Getenv("ORCA_BENCH_PUSH_GAP"))
	plain := os.Getenv("ORCA_BENCH_PUSH_COMPRESSION") == "none"
	warm := os.Getenv("ORCA_BENCH_PUSH_WARM") != ""
	var kept *pusher
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	cpu0, flt0 := processCPU(b), processFaults(b)
	var writes int64 // the copies of the chunk files: the agent's work
	pushes, sent := 0, 0
	for range b.N {
		prefix := filepath.Join(b.TempDir(), "rec")
		for _, s := range []string{format.SuffixInfo, format.SuffixMethods, format.SuffixClasses} {
			copyChunk(b, src+s, prefix+s)
		}
		if err := os.WriteFile(prefix+format.SuffixEvents, []byte(format.CompactHeader), 0o644); err != nil {
			b.Fatal(err)
		}
		p := &pusher{prefix: prefix, opt: export.OTLPOptions{Samples: true}, log: io.Discard}
		if plain {
			p.target = &otlpTarget{plain: true}
		}
		if warm && kept != nil { // the last replay's pusher, on this recording
			p = kept
			p.prefix, p.rec, p.lastSeq, p.from, p.origin, p.huffOff = prefix, nil, 0, 0, 0, false
			p.sent, p.sentB, p.chunks = 0, 0, 0
		}
		kept = p
		for i, s := range seqs {
			c0 := processCPU(b)
			copyChunk(b, format.ChunkFileName(src, s), format.ChunkFileName(prefix, uint64(i+1)))
			writes += processCPU(b) - c0
			if last := i+1 == len(seqs); last || (i+1)%4 == 0 {
				time.Sleep(gap)
				if err := p.build(last); err != nil {
					b.Fatal(err)
				}
				pushes++
				for _, r := range p.backlog { // sent and accepted
					p.accepted(r)
				}
				p.backlog, p.bytes = nil, 0
			}
		}
		sent += p.sentB
	}
	runtime.ReadMemStats(&ms1)
	mb := float64(total) / 1e6 * float64(b.N)
	cpu := float64(processCPU(b)-cpu0-writes) / 1e6
	b.ReportMetric(cpu/mb, "cpu-ms/MB")
	b.ReportMetric(cpu/float64(pushes), "cpu-ms/push")
	b.ReportMetric(float64(ms1.NumGC-ms0.NumGC)/float64(pushes), "gc/push")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/1e6/mb, "alloc-MB/MB")
	b.ReportMetric(float64(processFaults(b)-flt0)/float64(pushes), "faults/push")
	b.ReportMetric(float64(sent)/mb/1e6, "sent/byte")
}

// processFaults returns the process's minor page faults so far.
func processFaults(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Minflt
}

// copyChunk copies the file from to a new file to, when from exists.
func copyChunk(tb testing.TB, from, to string) {
	tb.Helper()
	b, err := os.ReadFile(from)
	if os.IsNotExist(err) {
		return
	}
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkOTLPEncode encodes the request of the whole recording that
// ORCA_BENCH_PUSH names (as orca push builds it) with the generated code
// (proto.MarshalOptions.MarshalAppend, as the pusher did) and with
// export.AppendOTLP, each into a kept buffer: the wire decision of
// docs/otlp.md, measured (docs/perf/2026-11-30-issue-35-push-fold.md).
func BenchmarkOTLPEncode(b *testing.B) {
	prefix := os.Getenv("ORCA_BENCH_PUSH")
	if prefix == "" {
		b.Skip("ORCA_BENCH_PUSH=PREFIX: a kept recording")
	}
	rec, err := reader.Open(prefix)
	if err != nil {
		b.Fatal(err)
	}
	res, err := model.Build(rec, model.Options{NoEdges: true, NoLockFigures: true, NoRunSplit: true, Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	req, err := export.OTLP(rec, res.Model, export.OTLPOptions{Samples: true})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		enc  func([]byte) ([]byte, error)
	}{
		{"proto", func(buf []byte) ([]byte, error) { return proto.MarshalOptions{}.MarshalAppend(buf, req) }},
		{"append", func(buf []byte) ([]byte, error) { return export.AppendOTLP(buf, req) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			buf, err := c.enc(nil)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(buf)))
			b.ResetTimer()
			for range b.N {
				if buf, err = c.enc(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPushHuffman: a push's body is coded by Huffman alone while that
// sends no more than the chunk files the push covers, and at level 2 from
// the first push it would send more on; stored when the request is at
// most storedShare of them (pusher.compress).
func TestPushHuffman(t *testing.T) {
	raw := bytes.Repeat([]byte("a request of many samples alike, as a synthetic recording's "), 4000)
	l2 := gzipped(raw)
	p := &pusher{}
	huff := p.compress(nil, raw, int64(len(raw)))
	if p.huffOff || len(huff) <= len(l2) {
		t.Fatalf("Huffman alone: %d bytes (level 2: %d), huffOff %v: want more than level 2's, on", len(huff), len(l2), p.huffOff)
	}
	zr, err := gzip.NewReader(bytes.NewReader(huff))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("Huffman alone, gunzipped: %d bytes, %v: want the request's %d", len(got), err, len(raw))
	}
	if got := p.compress(huff, raw, int64(len(huff)-1)); !p.huffOff || !bytes.Equal(got, l2) {
		t.Fatalf("over the bytes recorded: %d bytes, huffOff %v: want level 2's %d, off", len(got), p.huffOff, len(l2))
	}
	if got := p.compress(nil, raw, int64(len(raw))); !bytes.Equal(got, l2) {
		t.Fatalf("the push after: %d bytes: want level 2's %d", len(got), len(l2))
	}
	// A request of at most storedShare of the bytes recorded: stored, in
	// gzip still, whatever came before.
	stored := p.compress(nil, raw, int64(float64(len(raw))/storedShare)+1)
	if len(stored) < len(raw) || len(stored) > len(raw)+len(raw)/1000+64 {
		t.Fatalf("stored: %d bytes, want the request's %d and a few", len(stored), len(raw))
	}
	zr, err = gzip.NewReader(bytes.NewReader(stored))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("stored, gunzipped: %d bytes, %v: want the request's %d", len(got), err, len(raw))
	}
}
