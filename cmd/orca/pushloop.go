package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	collpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"
	"google.golang.org/protobuf/proto"

	"orca/internal/export"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// Continuous push (orca record --otlp, docs/otlp.md): while the JVM runs,
// every --push-every orca reads the chunk files of the bounded recording
// that are closed (every one but the newest, which the agent still
// writes), builds the model of the time they cover, and sends it. Each
// push covers [from, to]: from is where the last push ended, to the last
// event of the newest closed chunk; it reads the chunk files after the
// last push's and no other, the first one's carried records restating
// the states on at from (reader.Recording.SpanChunks), so each event is
// folded by one push, a state that spans pushes has its delay split
// between them and is counted (contentions) in the push it began in
// (export.OTLPOptions.From, Chained). The sum of the pushes is the
// whole recording. orca, not the JVM, does all of it: push costs the
// application nothing but the disk reads of a process beside it.
//
// A collector that is away: the requests wait in a backlog of at most
// pushBacklog, the oldest dropped (and counted) past it; each try after
// a failure waits twice as long as the one before (up to a minute). At
// the end orca tries for at most pushDrain to send what is left, then
// says what was dropped. The local recording is never touched.

const (
	pushBacklog      = 32               // requests kept while the collector is away
	pushBacklogBytes = 64 << 20         // and their gzipped bytes, at most
	pushDrain        = 30 * time.Second // the end's last tries
	pushMaxBackoff   = time.Minute
)

// pusher pushes a bounded recording's closed chunks as they close.
type pusher struct {
	prefix  string
	target  *otlpTarget
	opt     export.OTLPOptions
	every   time.Duration
	log     io.Writer
	stop    chan struct{}
	stopped chan struct{}
	profile *os.File // ORCA_PUSH_CPUPROFILE's
	// cache: what the pushes share (the stacks' numbers, the frames
	// resolved): build's alone.
	cache *export.OTLPCache
	// bufs: the decoding's batches and decoders, kept from one push to
	// the next (reader.Buffers): build's alone.
	bufs reader.Buffers
	// reuse: the fold's memory (intervals, locks), handed out again by
	// each push's build: build's alone; a push's model is dead once its
	// request is marshalled.
	reuse model.Reuse
	// rec: the recording as the last push opened it (reader.Reopen):
	// build's alone.
	rec *reader.Recording
	// raw: the marshalled request's memory, reused by every push (gzipped
	// at once): build's alone.
	raw []byte
	// zw, zh, zs: the gzip writers of the pushes' bodies, level 2's,
	// Huffman-only's and stored's (compress): build's alone. huffOff: a
	// body of Huffman coding alone came out larger than the chunk files
	// it covers; level 2 from then on when not stored.
	zw, zh, zs *gzip.Writer
	huffOff    bool

	mu       sync.Mutex
	spare    []byte      // a sent body's memory, for the next body (gzipAppend)
	lastSeq  uint64      // the newest chunk file pushed (built into a request)
	from     format.Time // the next push's start; 0 before the first
	origin   format.Time // the recording's first event, once the first push read it
	backlog  []pushReq
	bytes    int
	retryAt  time.Time
	backoff  time.Duration
	sent     int // requests accepted
	sentB    int // their bytes (gzipped, as sent)
	chunks   int // chunk files covered by them
	dropped  int // requests dropped
	dropWhy  string
	lost     int // chunk files deleted (by the bounds) before they were pushed
	failures int // tries that failed
}

// pushReq is one request waiting to be sent.
type pushReq struct {
	body []byte // the request, marshalled and gzipped
	push *pushOf
	to   format.Time
}

// pushOf is what the requests of one push share: one request, or several
// when it was larger than --otlp-max-request (export.SplitOTLP).
type pushOf struct {
	chunks  int // chunk files the push covers
	left    int // its requests not yet sent nor dropped
	dropped bool
}

// done counts one of r's push's requests as sent (ok) or dropped: its
// chunk files are pushed once all its requests are accepted, lost at the
// first one dropped. Called with p.mu held.
func (p *pusher) done(r pushReq, ok bool) {
	r.push.left--
	switch {
	case !ok && !r.push.dropped:
		r.push.dropped = true
		p.lost += r.push.chunks
	case ok && r.push.left == 0 && !r.push.dropped:
		p.chunks += r.push.chunks
	}
}

// newPusher checks the target before anything is recorded, with a request
// of no profiles (the collector v0.165 accepts it; a receiver that refuses
// an empty request answers 400: either way its profiles path is there): a URL the server does not serve (404: no profiles
// endpoint, the feature gate off), a refused authentication (401, 403), a
// TLS failure are errors; a collector not listening yet is only a
// warning (the backlog waits for it).
func newPusher(u ui, prefix string, target *otlpTarget, opt export.OTLPOptions, every time.Duration) (*pusher, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	body, _ := proto.Marshal(&collpb.ExportProfilesServiceRequest{})
	if err := target.post(ctx, target.body(nil, body)); err != nil {
		var re errRetry
		var se statusError
		switch {
		case errors.As(err, &re):
			fmt.Fprintf(u.stderr, "orca: warning: %v: the collector does not answer yet; orca keeps what it records for it (at most %d pushes) and tries again\n", termSafe(re.err.Error()), pushBacklog)
		case errors.As(err, &se) && se.code == http.StatusBadRequest:
			// The path is served: an empty request is refused as such.
		default:
			return nil, exitError{2, fmt.Sprintf("record --otlp: %v: nothing was started", err)}
		}
	}
	// Its log quotes the collector's answers: no escape sequence of theirs
	// reaches the terminal.
	return &pusher{prefix: prefix, target: target, opt: opt, every: every, log: newTermSafeWriter(u.stderr),
		stop: make(chan struct{}), stopped: make(chan struct{})}, nil
}

// start runs the push loop until finish.
func (p *pusher) start() {
	// ORCA_PUSH_CPUPROFILE=FILE (hidden, for bench/otlp-push.sh and
	// docs/otlp.md "Cost"): a CPU profile of orca while it pushes, up to
	// finish's last push. Created exclusively, never through a symlink
	// (orca may run as root in a directory another user owns).
	if path := os.Getenv("ORCA_PUSH_CPUPROFILE"); path != "" {
		if f, err := createProfile(path); err == nil && pprof.StartCPUProfile(f) == nil {
			p.profile = f
		}
	}
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.tick(false)
			}
		}
	}()
}

// finish stops the loop, pushes the rest of the recording (now complete:
// every chunk closed), tries for at most pushDrain to send the backlog,
// and says what was pushed and what was dropped.
func (p *pusher) finish() {
	close(p.stop)
	<-p.stopped
	if p.profile != nil {
		pprof.StopCPUProfile()
		p.profile.Close()
	}
	p.tick(true)
	drain := pushDrain
	if d, err := time.ParseDuration(os.Getenv("ORCA_TEST_PUSH_DRAIN")); err == nil {
		drain = d // the tests' collector that never comes back
	}
	deadline := time.Now().Add(drain)
	for {
		p.mu.Lock()
		left, wait := len(p.backlog), time.Until(p.retryAt)
		p.mu.Unlock()
		if left == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(max(min(wait, time.Until(deadline)), 10*time.Millisecond))
		p.send()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.backlog); n > 0 {
		p.dropped += n
		for _, r := range p.backlog {
			p.done(r, false)
		}
		p.dropWhy = fmt.Sprintf("the collector did not take them in the last %s (%s)", drain, p.dropWhy)
		p.backlog = nil
	}
	msg := fmt.Sprintf("orca: pushed %d chunk %s of %s to %s in %d %s, %d bytes", p.chunks, plural(p.chunks, "file", "files"),
		p.prefix, p.target.url, p.sent, plural(p.sent, "request", "requests"), p.sentB)
	if p.failures > 0 {
		msg += fmt.Sprintf(" (%d failed %s retried)", p.failures, plural(p.failures, "try", "tries"))
	}
	fmt.Fprintln(p.log, msg)
	if p.dropped > 0 || p.lost > 0 {
		fmt.Fprintf(p.log, "orca: warning: dropped %d %s (%d chunk %s not pushed): %s; the local recording %s is whole: push it again with orca push\n",
			p.dropped, plural(p.dropped, "push", "pushes"), p.lost, plural(p.lost, "file", "files"), p.dropWhy, p.prefix)
	}
}

// chunkSeqs lists the numbers of prefix's chunk files, in order.
func chunkSeqs(prefix string) []uint64 {
	names, _ := filepath.Glob(prefix + format.SuffixEvents + ".*")
	var seqs []uint64
	for _, n := range names {
		if !reader.IsChunkPath(n) {
			continue
		}
		s, err := strconv.ParseUint(n[strings.LastIndexByte(n, '.')+1:], 10, 64)
		if err == nil && s > 0 {
			seqs = append(seqs, s)
		}
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	return seqs
}

// tick builds a request of the chunks closed since the last one (all of
// them when final) and sends what waits.
func (p *pusher) tick(final bool) {
	if err := p.build(final); err != nil {
		fmt.Fprintf(p.log, "orca: warning: push: %v\n", err)
	}
	p.send()
}

func (p *pusher) build(final bool) error {
	seqs := chunkSeqs(p.prefix)
	closed := seqs
	if !final && len(closed) > 0 {
		closed = closed[:len(closed)-1] // the agent still writes the newest
	}
	var fresh []uint64
	for _, s := range closed {
		if s > p.lastSeq {
			fresh = append(fresh, s)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	// Chunk files deleted by the bounds before orca pushed them.
	if p.lastSeq > 0 || fresh[0] > 1 {
		if gone := int(fresh[0] - p.lastSeq - 1); gone > 0 {
			p.mu.Lock()
			p.lost += gone
			p.mu.Unlock()
		}
	}
	last := fresh[len(fresh)-1]
	// The bytes recorded in the chunk files of this push (compress): 0
	// when one cannot be read.
	var recorded int64
	for _, s := range fresh {
		st, err := os.Stat(format.ChunkFileName(p.prefix, s))
		if err != nil {
			recorded = 0
			break
		}
		recorded += st.Size()
	}
	// The recording opened again, its .methods and .classtable read on
	// from where the last push stopped (reader.Reopen), not whole.
	var rec *reader.Recording
	var err error
	if p.rec == nil {
		rec, err = reader.Open(p.prefix)
	} else {
		rec, err = reader.Reopen(p.rec)
	}
	p.rec = nil
	if err != nil {
		return err
	}
	p.rec = rec
	// The range: from the last push's end (the recording's first event
	// for the first) to the last event of the newest closed chunk (of
	// the recording, at the end). The first event is the first chunk
	// file's, from its trailer; the recording's last, at the end, the
	// newest chunk file's, closed by then: neither decodes a chunk
	// (reader.ChunkFileBounds). The newest chunk file, which the agent
	// still writes, is never read before the end: a push's range ends
	// before it (end: math.MaxInt64, as for every push but the last).
	from, to, end := p.from, format.Time(0), format.Time(math.MaxInt64)
	if final {
		first, last, ok, err := rec.TimeBounds()
		if err != nil || !ok {
			return err
		}
		if p.origin == 0 {
			p.origin = first
		}
		from, to, end = max(from, first), last, last
	} else if from == 0 {
		if len(rec.Chunks) == 0 {
			return nil
		}
		first, _, ok, err := reader.ChunkFileBounds(rec.Chunks[0].Path)
		if err != nil || !ok {
			return err
		}
		p.origin, from = first, first
	}
	if !final {
		// The newest closed chunk's last event, from its trailer.
		path := format.ChunkFileName(p.prefix, last)
		var ok bool
		if to, ok, err = reader.ChunkFileEnd(path); err == nil && !ok {
			to, err = lastEvent(path)
		}
		if err != nil {
			return err
		}
	}
	if to < from {
		return nil
	}
	// The range's chunk files only, those after the last push's: the
	// state at from is the first one's carried records, the state after
	// the chunk file the last push ended with, so no chunk is read twice
	// and each event is in one push (reader.Recording.SpanChunks).
	span, err := rec.SpanChunks(p.lastSeq, last, from, to, p.origin, end)
	if err != nil {
		return err
	}
	// export.OTLP reads the threads' intervals, the locks' owner changes
	// and the samples, none of the locks' figures, the edges, the
	// threads' runnable time's split or their times in each state.
	if p.cache == nil {
		p.cache = export.NewOTLPCache()
	}
	// One worker: the chunk files decoded a few thousand events at a
	// time in this goroutine, through the buffers kept (reader.Buffers):
	// a push's CPU, not its wall time, is what counts.
	res, err := model.Build(rec, model.Options{Span: span, NoEdges: true, NoLockFigures: true, NoRunSplit: true,
		NoThreadTimes: true, NoWaitGraph: true, NoParkLocks: true, Stacks: p.cache.Stacks(), Buffers: &p.bufs, Reuse: &p.reuse, Workers: 1})
	if err != nil {
		return err
	}
	opt := p.opt
	opt.Cache = p.cache
	if p.from != 0 {
		// States on at from were counted by the push before.
		opt.From, opt.Chained = from, true
	}
	// Contentions on at to are counted by the push they end in.
	opt.Partial = !final
	req, err := export.OTLP(rec, res.Model, opt)
	if err != nil {
		return err
	}
	// The request encoded (export.AppendOTLP: proto.Marshal's bytes in
	// one pass) into the memory of the last push's, and gzipped at once
	// into a sent body's (send's spare): a push's body is neither made
	// anew nor gzipped again for each try.
	raw, err := export.AppendOTLP(p.raw[:0], req)
	if err != nil {
		return err
	}
	p.raw = raw
	// A request above --otlp-max-request goes as several (SplitOTLP: a
	// run of its samples each): all but the last compressed here, the
	// last one below as an unsplit request is.
	var parts [][]byte
	share := recorded // the bytes recorded a request stands for (compress)
	if p.target != nil && p.target.maxRequest > 0 && len(raw) > p.target.maxRequest {
		_, raws, err := export.SplitOTLP(req, p.target.maxRequest)
		if err != nil {
			return err
		}
		for _, r := range raws[:len(raws)-1] {
			if p.target.plain {
				parts = append(parts, r)
			} else {
				parts = append(parts, p.compress(nil, r, recorded*int64(len(r))/int64(len(raw))))
			}
		}
		last := raws[len(raws)-1]
		share = recorded * int64(len(last)) / int64(len(raw))
		raw = last
	}
	p.mu.Lock()
	spare := p.spare
	p.spare = nil
	p.mu.Unlock()
	var body []byte
	if p.target != nil && p.target.plain {
		// Sent as marshalled (--otlp-compression none): the body takes
		// the marshalled request's memory, the next push marshals into
		// a sent body's.
		body, p.raw = raw, spare[:0]
	} else {
		body = p.compress(spare, raw, share)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastSeq, p.from = last, to
	push := &pushOf{chunks: len(fresh), left: len(parts) + 1}
	for _, b := range parts {
		p.backlog = append(p.backlog, pushReq{body: b, push: push, to: to})
		p.bytes += len(b)
	}
	p.backlog = append(p.backlog, pushReq{body: body, push: push, to: to})
	p.bytes += len(body)
	for len(p.backlog) > pushBacklog || p.bytes > pushBacklogBytes && len(p.backlog) > 1 {
		p.dropped++
		p.done(p.backlog[0], false)
		p.bytes -= len(p.backlog[0].body)
		p.dropWhy = "the backlog was full while the collector was away"
		p.backlog = p.backlog[1:]
	}
	return nil
}

// compress returns raw gzipped into dst's memory: stored, not coded
// (gzip's level 0: a copy and a CRC, a twentieth of Huffman coding's CPU,
// which was 6 % of a push's), when the request is no more than
// storedShare of the bytes recorded, recorded (a busy server's: 0.65 of
// them, against 0.51 Huffman-coded: issue 35 asks for no more than the
// recording's own); otherwise by Huffman coding alone, in 2/5 of level
// 2's CPU, when that sends no more than the bytes recorded (0.48-0.52
// per byte of a busy server's requests, against 0.33-0.39 at level 2);
// otherwise, and for every push after it (a synthetic recording of few
// distinct events sends more than its own bytes so: c128's, 1.26), at
// level 2. The collector reads each the same (Content-Encoding gzip).
func (p *pusher) compress(dst, raw []byte, recorded int64) []byte {
	if recorded > 0 && int64(len(raw)) <= int64(float64(recorded)*storedShare) {
		return gzipWith(&p.zs, gzip.NoCompression, dst, raw)
	}
	if !p.huffOff && recorded > 0 {
		body := gzipWith(&p.zh, gzip.HuffmanOnly, dst, raw)
		if int64(len(body)) <= recorded {
			return body
		}
		p.huffOff, dst = true, body
	}
	return gzipWith(&p.zw, gzipLevel, dst, raw)
}

// storedShare is the share of the bytes recorded a push's request may
// have to be sent stored (compress): well under the recording's own.
const storedShare = 0.75

// lastEvent returns the time of the last event in the chunk file path.
func lastEvent(path string) (format.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	var last format.Time
	_, err = reader.EachEventAt(f, st.Size(), path, reader.EachOptions{}, func(ev *reader.Event) error {
		last = max(last, ev.Time)
		return nil
	})
	return last, err
}

// accepted counts r as sent and keeps its body's memory for the next
// one: the collector answered, so it read the whole body. Called with
// p.mu held.
func (p *pusher) accepted(r pushReq) {
	p.sent++
	p.sentB += len(r.body)
	p.done(r, true)
	p.backoff = 0
	if cap(r.body) > cap(p.spare) {
		p.spare = r.body[:0]
	}
}

// send sends the backlog in order until it is empty or a try fails; a
// failure worth retrying waits (back-off), another drops its request.
func (p *pusher) send() {
	for {
		p.mu.Lock()
		if len(p.backlog) == 0 || time.Now().Before(p.retryAt) {
			p.mu.Unlock()
			return
		}
		r := p.backlog[0]
		p.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := p.target.post(ctx, r.body)
		cancel()
		p.mu.Lock()
		var re errRetry
		switch {
		case err == nil:
			p.accepted(r)
		case errors.As(err, &re):
			p.failures++
			p.backoff = min(max(2*p.backoff, time.Second), pushMaxBackoff)
			if re.after > 0 {
				p.backoff = re.after
			}
			p.retryAt = time.Now().Add(p.backoff)
			p.dropWhy = re.err.Error()
			p.mu.Unlock()
			return
		default:
			// Refused for good (a 400, a rejected profile): retrying sends
			// the same bytes to the same answer.
			p.failures++
			p.dropped++
			p.done(r, false)
			p.dropWhy = err.Error()
			fmt.Fprintf(p.log, "orca: warning: push: %v\n", err)
		}
		p.backlog = p.backlog[1:]
		p.bytes -= len(r.body)
		p.mu.Unlock()
	}
}
