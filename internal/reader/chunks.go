package reader

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"orca/internal/format"
)

// Parallel reading of a .orca file.
//
// The file is cut into chunks of about ChunkSize bytes, at the start of a
// line that looks like the start of an event ("digits.digits,Capital":
// a timestamp and an event name). Workers decode chunks in parallel, each
// into a batch of events; the caller's goroutine hands the batches' events
// to fn in file order. Workers+2 batches are in flight at most, so memory
// stays at a few chunks whatever the file's size; the file is read with
// ReadAt (pread), not mapped, so the page cache does not count as the
// process's memory either.
//
// A chunk is decoded by the same record reader as Events.Next, from its
// first byte, and stops before the first record that begins at or after
// the chunk's end. Only a record can run past that end: a quoted field
// spanning lines (a thread name with a newline) or a stray quote, with a
// line inside it that looks like an event. Then the chunk after it began
// inside a record, and the batches do not meet: the caller's goroutine
// decodes that chunk again, sequentially, from where the one before really
// ended. So cutting is only a guess that is nearly always right, and the
// result is the same as Events.Next's in every case (FuzzEvents checks it
// with chunks of a few bytes).
//
// A compact file (compact.go) is cut at chunk markers, and a chunk's
// decoding runs past its end to the next chunk record, since a record
// means something only after its chunk's definitions; a marker inside a
// record is a wrong cut, corrected the same way (FuzzCompact).

// EachOptions control EachEvent.
type EachOptions struct {
	// Workers is the number of goroutines decoding chunks; 0 means
	// GOMAXPROCS. fn runs in the caller's goroutine, besides them.
	Workers int
	// ChunkSize is the approximate size of a chunk in bytes; 0 means
	// DefaultChunkSize. A file of at most one chunk is read in the caller's
	// goroutine alone.
	ChunkSize int
	// Malformed, if set, receives each malformed line, in file order
	// among the events. Malformed lines are skipped either way.
	Malformed func(*ParseError)
	// Unclosed, if set, is called when a compact file of version 3 ends
	// in a chunk without its trailer (Events.Unclosed): being written,
	// or cut by a kill or a copy at a record's end.
	Unclosed func()
	// Progress, if set, is called in the caller's goroutine after each
	// chunk with the number of bytes of the file done.
	Progress func(done int64)
	// Stacks, if set, numbers the stacks (see StackTable): each event's
	// StackID is set, and its Stack is the table's copy, which stays valid.
	Stacks *StackTable
	// Span, if set, reads only the events of a time range
	// (Recording.Span): Progress then counts the span's bytes. A
	// ThreadStarted after the range is handed on where its thread was
	// started in the range (a ThreadStart's target) and named in it by
	// none: its name, for the range's thread (model.Builder takes the
	// name and nothing else of an event after the range).
	Span *Span
	// Buffers, if set, are the batches and decoders to decode with, kept
	// for the next call (see Buffers).
	Buffers *Buffers
	// Batch, if set, is called instead of fn with the events in runs, in
	// file order, each as fn would have it (a run ends where a malformed
	// line is told or a carried record left out, and at most at the end
	// of a batch decoded): a call a few thousand events, not one an event
	// (issue 34: 84 M calls on orca report of 1 GB). fn may be nil then.
	// The events and their Stacks are valid only during the call.
	Batch func([]Event) error
	// Columns, if set with Stacks, is called instead of Batch and fn with
	// the events by column (see Columns), in the same runs as Batch's, in
	// file order. The Columns and what they hold are valid only during
	// the call, but for Frames.
	Columns func(*Columns) error

	// dense: Columns' thread numbers, shared by a bounded recording's
	// chunk files (eachChunkFile); nil: the call's own.
	dense *denseThreads
}

// Buffers are what EachEvent decodes with, kept by a caller that reads
// again and again: the batches of decoded events (grown to a chunk's
// events), each decoding goroutine's read buffer and stack cache (every
// stack of a recording decoded once, not once per call and goroutine),
// and the stacks' numbers in EachOptions.Stacks. orca record --otlp's
// pushes, one every 10 s, each of a few chunk files: the sync.Pool the
// other readers share is emptied by the collections between two pushes,
// so each push allocated and cleared its batches again (a tenth of its
// CPU, and the collections they caused another), and every chunk file
// made its decoders anew; and a Span's two sets of facts (carryFilter's,
// rangeFilter's), emptied for the next call, their tables kept: each push
// grew them from empty (their rehashing ~2 % of a push's CPU). The zero
// value is ready to use; one call at a time. What it holds stays allocated
// while it is kept.
type Buffers struct {
	mu       sync.Mutex
	batches  []*batch
	decoders []*decoder
	stacks   *StackTable // the table tables' numbers are of
	tables   map[*stackCache]*stackIDs
	carried  factSet              // a Span's carryFilter.facts
	given    map[factKey]struct{} // a Span's rangeFilter.given
}

// factSets returns b's two sets of facts, empty, for a Span's read; nil b:
// new ones.
func (b *Buffers) factSets() (carried *factSet, given map[factKey]struct{}) {
	if b == nil {
		return &factSet{}, map[factKey]struct{}{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.carried.reset()
	if b.given == nil {
		b.given = map[factKey]struct{}{}
	} else {
		clear(b.given)
	}
	return &b.carried, b.given
}

// DefaultChunkSize is the chunk size of EachEvent: large enough that the
// per-chunk overhead (a goroutine hand-off, a few ReadAt calls, the first
// decoding of each distinct stack) vanishes, small enough that a few
// chunks in flight are a few tens of MB.
const DefaultChunkSize = 8 << 20

// maxCachedStacks bounds the distinct stacks a stackCache remembers (it
// forgets them all when it holds more at the start of a chunk), for
// recordings where nearly every stack differs.
var maxCachedStacks = 1 << 16 // a variable for tests

// EachEvent calls fn with every event of PREFIX.orca in file order,
// decoding chunks of the file in parallel (see EachOptions). It stops at
// the first error fn returns and returns it. Otherwise err is a read error
// or nil; truncated reports that the file's last line was cut short (see
// Events.Truncated).
//
// The *Event and its Stack are valid only during the call to fn: they are
// reused once fn returns (except a Stack from EachOptions.Stacks), and
// events with the same stack may share one Stack slice, which fn must not
// modify. Copy what you keep.
func (r *Recording) EachEvent(opt EachOptions, fn func(*Event) error) (truncated bool, err error) {
	if cols := opt.Columns; cols != nil {
		if opt.Stacks == nil {
			opt.Stacks = NewStackTable()
		}
		if opt.Span != nil {
			// Its events are filtered one at a time: a row of one each.
			opt.Columns, opt.Batch = nil, nil
			d := newDenseThreads()
			var c Columns
			t := opt.Stacks
			fn = func(ev *Event) error {
				c.reset()
				n := d.number(ev.Thread)
				c.add(ev, n)
				c.Threads, c.Frames = d.ids, t.Frames
				err := cols(&c)
				if ev.Kind == format.ThreadEnded && !ev.Carried {
					d.end(n) // the row is handed on: its number is free
				}
				return err
			}
		}
	}
	if batch := opt.Batch; batch != nil && opt.Span != nil {
		// Its events are filtered one at a time: a run of one each.
		opt.Batch = nil
		var one [1]Event
		fn = func(ev *Event) error {
			one[0] = *ev
			return batch(one[:])
		}
	}
	if opt.Span != nil {
		return r.eachSpan(opt, fn)
	}
	if len(r.Chunks) > 0 {
		return r.eachChunkFile(opt, fn)
	}
	name := r.Prefix + format.SuffixEvents
	f, err := OpenFile(name)
	if err != nil {
		return false, fmt.Errorf("opening events: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("opening events: %w", err)
	}
	return EachEventAt(f, st.Size(), name, opt, fn)
}

// EachEventAt is EachEvent on the first size bytes of ra, named name in
// errors. ra is read with ReadAt from several goroutines at once.
func EachEventAt(ra io.ReaderAt, size int64, name string, opt EachOptions, fn func(*Event) error) (truncated bool, err error) {
	return eachEventAt(ra, 0, size, name, opt, &carryFilter{}, fn)
}

// eachEventAt is EachEventAt on the bytes [lo, size) of the file (lo: 0,
// or where a chunk of a compact file begins: Span), with the filter of
// carried records to use (a bounded recording's files share one).
func eachEventAt(ra io.ReaderAt, lo, size int64, name string, opt EachOptions, cf *carryFilter, fn func(*Event) error) (truncated bool, err error) {
	chunk := int64(opt.ChunkSize)
	if chunk <= 0 {
		chunk = DefaultChunkSize
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	head := make([]byte, len(compactMagic))
	n, _ := ra.ReadAt(head, 0)
	compact := isCompact(head[:min(int64(n), size)])
	if compact && opt.ChunkSize <= 0 {
		// A compact file holds ~15 times the events a text file of its
		// size does: chunks of as many events are that much smaller.
		chunk = DefaultChunkSize / 16
	}
	if opt.Columns != nil && opt.Stacks == nil {
		opt.Stacks = NewStackTable()
	}
	e := &each{ra: ra, lo: lo, next: lo, size: size, chunk: chunk, name: name, opt: opt, fn: fn, compact: compact, cf: cf}
	if e.cols = opt.dense; e.cols == nil && opt.Columns != nil {
		e.cols = newDenseThreads()
	}
	if compact {
		// The pieces after the first do not read the header: its version.
		e.version = compactVersion(ra)
	}
	if bf := opt.Buffers; bf != nil {
		if bf.stacks != opt.Stacks || bf.tables == nil {
			bf.stacks, bf.tables = opt.Stacks, map[*stackCache]*stackIDs{}
		}
		e.tables = bf.tables
		defer e.keepDecoders()
	}
	if compact && opt.Buffers != nil && workers == 1 {
		b := e.getBatch()
		defer e.putBatch(b)
		return e.truncated, e.stream(e.newDecoder(size-lo), b, lo, size)
	}
	if size-lo <= chunk {
		b := e.getBatch()
		defer e.putBatch(b)
		e.parse(e.newDecoder(size-lo), b, lo, size)
		err := e.deliver(b)
		return e.truncated, err
	}
	if compact {
		if opt.ChunkSize <= 0 {
			// Its pieces stream (a chunk is not held whole): larger chunks
			// than a format chunk (~1 MB) so that their cuts (cutCompact)
			// read again a few per cent of the file, where 512 kB ones
			// read again half of it, 4 kB at a time (c1G: 1 s of pread).
			chunk = pieceChunk
		}
		return e.parallelPieces(workers, chunk)
	}
	return e.parallel(workers, chunk)
}

// pieceChunk is the chunk size of parallelPieces when EachOptions does
// not say.
const pieceChunk = DefaultChunkSize / 2

// streamEvents is the events of a batch of stream: 4096 Events, 600 kB,
// stay in the caches between their decoding and their delivery.
var streamEvents = 4096 // a variable for tests

// stream decodes the compact bytes [lo, size) in the caller's goroutine,
// delivering them streamEvents at a time through one batch: for a caller
// that keeps its Buffers and wants no other goroutine (orca record
// --otlp's pushes, one worker): the batch kept is small, and the events
// are read back while in the cache, where a batch of a whole chunk file
// (65 000 Events of a server's MB, 10 MB) is written to memory and read
// back from it. The events are the same as parse's of the whole range.
func (e *each) stream(d *decoder, b *batch, lo, size int64) error {
	b.reset(lo, size)
	d.sc.begin(&b.stacks)
	cp := d.cp
	cp.reset(io.NewSectionReader(e.ra, lo, e.size-lo), lo, size, d.sc)
	if lo > 0 {
		cp.setVersion(e.version)
	}
	b.roomFor(streamEvents)
	for {
		// The events' Lines count from lo: the lines before them are
		// added once, with the last batch.
		full := b.fill(cp)
		if err := e.deliver(b); err != nil || !full {
			return err
		}
		b.reset(b.stop, size)
		d.sc.renumber(&b.stacks)
	}
}

// getBatch returns a batch from opt.Buffers, or else the shared pool.
func (e *each) getBatch() *batch {
	b := e.takeBatch()
	b.col = e.cols != nil
	return b
}

func (e *each) takeBatch() *batch {
	bf := e.opt.Buffers
	if bf == nil {
		return batchPool.Get().(*batch)
	}
	bf.mu.Lock()
	defer bf.mu.Unlock()
	if n := len(bf.batches); n > 0 {
		b := bf.batches[n-1]
		bf.batches = bf.batches[:n-1]
		return b
	}
	return newBatch()
}

// putBatch gives b back to where getBatch took it from.
func (e *each) putBatch(b *batch) {
	bf := e.opt.Buffers
	if bf == nil {
		putBatch(b)
		return
	}
	b.stacks.cache = nil
	clear(b.stacks.uniq)
	bf.mu.Lock()
	bf.batches = append(bf.batches, b)
	bf.mu.Unlock()
}

// keepDecoders gives the decoders e made back to opt.Buffers, once no
// goroutine decodes with them.
func (e *each) keepDecoders() {
	bf := e.opt.Buffers
	bf.mu.Lock()
	bf.decoders = append(bf.decoders, e.decoders...)
	bf.mu.Unlock()
	e.decoders = nil
}

// each is one EachEventAt call.
type each struct {
	version   int // a compact file's (its header's)
	ra        io.ReaderAt
	lo        int64 // where reading begins
	size      int64
	chunk     int64
	name      string
	opt       EachOptions
	fn        func(*Event) error
	compact   bool // the file is in the compact encoding
	cf        *carryFilter
	line      int   // lines (compact: events) before the next batch to deliver
	next      int64 // where the next batch must start
	truncated bool
	seq       *decoder // for decoding a chunk again, made when first needed
	ids       []uint32 // a batch's local stack numbers -> opt.Stacks'
	// The numbering ids is of (chunkStacks' cache and stamp).
	idsCache *stackCache
	idsStamp int
	// Chunks' numberings of their stacks to reuse (parallelPieces).
	numberings []*chunkStacks
	numMu      sync.Mutex
	// The opt.Stacks numbers of each stackCache's entries, 0 when not
	// looked up yet.
	tables map[*stackCache]*stackIDs
	// decoders: those taken from opt.Buffers or made, to give back.
	decoders []*decoder
	// cols: EachOptions.Columns' threads, nil for the events.
	cols *denseThreads
}

// denseThreads numbers the threads of an EachEvent call with
// EachOptions.Columns: 0, 1, … in order of first event in the file, a
// number given again once its thread has ended (Columns.Threads).
type denseThreads struct {
	ids []format.ThreadID // Columns.Threads
	num map[format.ThreadID]uint32
	// free: the numbers of threads ended, to give again; ended: those
	// ended in the chunk being delivered, freed when its numbers (of) are
	// made again: until then of may still name them.
	free, ended []uint32
	// The dense numbers of a chunkThreads' (of cache and stamp), by its
	// numbers: each looked up once a chunk.
	cache *stackCache
	stamp int
	of    []uint32
	view  Columns // a run's
	// near: a direct-mapped cache of num, the threads by their ID's
	// hash. A Span's events are numbered one at a time (EachEvent), as a
	// bounded recording's chunk files' were, where a map's look-up for
	// each was 3.7 % of an hour of a loaded Tomcat's report.
	near [denseNear]denseNearEnt
}

// denseNear is the entries of denseThreads.near, a power of two.
const denseNear = 256

type denseNearEnt struct {
	id format.ThreadID
	n  uint32
	ok bool
}

func denseSlot(id format.ThreadID) int { return int(uint64(id) * 0x9e3779b97f4a7c15 >> 56) }

func newDenseThreads() *denseThreads {
	return &denseThreads{num: map[format.ThreadID]uint32{}}
}

// number returns id's dense number, numbering it when new.
func (d *denseThreads) number(id format.ThreadID) uint32 {
	e := &d.near[denseSlot(id)]
	if e.ok && e.id == id {
		return e.n
	}
	n := d.numberOf(id)
	*e = denseNearEnt{id, n, true}
	return n
}

// numberOf is number, without near.
func (d *denseThreads) numberOf(id format.ThreadID) uint32 {
	if n, ok := d.num[id]; ok {
		return n
	}
	var n uint32
	if k := len(d.free); k > 0 {
		n, d.free = d.free[k-1], d.free[:k-1]
		d.ids[n] = id
	} else {
		n = uint32(len(d.ids))
		d.ids = append(d.ids, id)
	}
	d.num[id] = n
	return n
}

// end frees number n, whose thread has ended: a later event of that
// thread (HotSpot's exit locks the Thread object after ThreadEnd; a late
// sample) is numbered again, like a thread never seen.
func (d *denseThreads) end(n uint32) {
	id := d.ids[n]
	if m, ok := d.num[id]; ok && m == n { // not freed already (two ThreadEndeds)
		delete(d.num, id)
		if e := &d.near[denseSlot(id)]; e.id == id {
			e.ok = false
		}
		d.free = append(d.free, n)
	}
}

// stackIDs holds the opt.Stacks numbers of a stackCache's entries.
type stackIDs struct {
	gen int // the cache's gen they are for
	ids []uint32
}

// batch is one chunk's events.
type batch struct {
	start, end int64 // the chunk
	stop       int64 // where decoding stopped: end, or after a record that ran past it
	lines      int   // physical lines in [start, stop)
	events     []Event
	col        bool    // the events are in cols (EachOptions.Columns), not events
	cols       Columns // col's rows
	one        Event   // col: take's event
	errs       []batchErr
	truncated  bool
	unclosed   bool  // the file ended in the batch's chunk, without its trailer
	err        error // a read error; the events before it are valid
	stacks     chunkStacks
	done       chan struct{}
	home       chan *batch // parallelPieces: the free pieces of the worker that decoded it
}

// batchErr is a malformed line, reported before events[at].
type batchErr struct {
	at  int
	err *ParseError
}

// batchPool keeps batches, with their grown slices, between calls.
var batchPool = sync.Pool{New: func() any { return newBatch() }}

func newBatch() *batch {
	return &batch{done: make(chan struct{}, 1)}
}

// putBatch returns b to batchPool, without the stack cache it points to.
func putBatch(b *batch) {
	b.stacks.cache = nil
	clear(b.stacks.uniq)
	batchPool.Put(b)
}

func (b *batch) reset(start, end int64) {
	// The old events are overwritten, not cleared: the names and stacks
	// they point to stay alive only until then, and clearing costs.
	b.events, b.errs = b.events[:0], b.errs[:0]
	if b.col {
		b.cols.reset()
	}
	b.start, b.end, b.stop, b.lines = start, end, start, 0
	b.truncated, b.unclosed, b.err = false, false, nil
}

// decoder is what one goroutine decodes chunks with.
type decoder struct {
	rr *records        // text
	cp *compactRecords // compact
	sc *stackCache
}

// newDecoder returns a decoder for chunks of e's file: reset sets its
// source. Its buffer is no larger than a chunk: it reads that much past the
// end.
func (e *each) newDecoder(chunk int64) *decoder {
	bf := e.opt.Buffers
	if bf != nil {
		bf.mu.Lock()
		defer bf.mu.Unlock()
		for i := len(bf.decoders) - 1; i >= 0; i-- {
			d := bf.decoders[i]
			if (d.cp != nil) != e.compact {
				continue
			}
			bf.decoders = append(bf.decoders[:i], bf.decoders[i+1:]...)
			if d.cp != nil {
				d.cp.name, d.cp.defs = e.name, nil
			} else {
				d.rr.name = e.name
			}
			e.decoders = append(e.decoders, d)
			return d
		}
	}
	size := int(min(eventsBufSize, max(chunk, 4<<10)))
	d := &decoder{sc: newStackCache()}
	if e.compact {
		d.cp = newCompactRecords(e.name, size)
		d.cp.noDefs = true // nothing reads them (Events.Definitions does)
	} else {
		d.rr = newRecords(bytes.NewReader(nil), e.name, size)
	}
	if bf != nil {
		e.decoders = append(e.decoders, d)
	}
	return d
}

// parse decodes the records that begin in [start, end) into b, with line
// numbers counted from the chunk's first line. A record that begins before
// end is read to its end, past end if need be.
func (e *each) parse(d *decoder, b *batch, start, end int64) {
	b.reset(start, end)
	sc := d.sc
	sc.begin(&b.stacks)
	if e.compact {
		e.parseCompact(d.cp, sc, b, start, end)
		return
	}
	rr := d.rr
	rr.reset(io.NewSectionReader(e.ra, start, e.size-start), end-start)
	for {
		rec, quoted, err := rr.nextRecord()
		if err != nil {
			if pe, ok := err.(*ParseError); ok {
				b.errs = append(b.errs, batchErr{len(b.events), pe})
				continue
			}
			if err != errLimit && err != io.EOF {
				b.err = err
			}
			break
		}
		if !rr.nl {
			rr.truncated, rr.truncLine = true, rr.start
			continue
		}
		if b.col {
			ev := &b.one
			*ev = Event{}
			msg := rr.decodeEvent(ev, rec, quoted, sc)
			if msg == "" {
				ev.Line = rr.start
				b.cols.add(ev, sc.chunk.threads.number(ev.Thread))
				continue
			}
			if err := rr.fail(msg); err != nil {
				b.errs = append(b.errs, batchErr{len(b.cols.Kind), err.(*ParseError)})
			}
			continue
		}
		// Decoded in place: an Event is large to copy.
		b.events = append(b.events, Event{})
		ev := &b.events[len(b.events)-1]
		msg := rr.decodeEvent(ev, rec, quoted, sc)
		if msg == "" {
			ev.Line = rr.start
			continue
		}
		b.events = b.events[:len(b.events)-1]
		if err := rr.fail(msg); err != nil {
			b.errs = append(b.errs, batchErr{len(b.events), err.(*ParseError)})
		}
	}
	b.stop, b.lines = start+rr.off, rr.n
	b.truncated = rr.truncated
}

// parseCompact is parse for a compact file: a chunk starts at a chunk
// record (or the file's start), and runs to the first chunk record at or
// after end, so that the state of the file's chunks never spans two.
// take decodes cp's next event at the end of b.events (next writes the whole
// Event: the slot is not zeroed first) and says whether to go on: a malformed
// event is noted in b.errs and skipped; the range's limit, the end of the
// input or a read error (b.err) stop it.
func (b *batch) take(cp *compactRecords) bool {
	var err error
	if b.col {
		if err = cp.next(&b.one); err == nil {
			b.cols.add(&b.one, cp.sc.chunk.threads.number(b.one.Thread))
			return true
		}
	} else {
		b.events = b.events[:len(b.events)+1]
		if err = cp.next(&b.events[len(b.events)-1]); err == nil {
			return true
		}
		b.events = b.events[:len(b.events)-1]
	}
	if pe, ok := err.(*ParseError); ok {
		b.errs = append(b.errs, batchErr{b.rows(), pe})
		return true
	}
	if err != errLimit && err != io.EOF {
		b.err = err
	}
	return false
}

// fill decodes cp's events into b until it holds streamEvents (full) or
// the chunk ends, and notes where it stopped; at the chunk's end, its
// lines and how it ended.
func (b *batch) fill(cp *compactRecords) (full bool) {
	for {
		if b.run(cp, streamEvents); b.rows() >= streamEvents {
			full = true
			break
		}
		if !b.take(cp) {
			break
		}
	}
	b.stop = cp.offset()
	if !full {
		b.lines = cp.events
		b.truncated, b.unclosed = cp.truncated, cp.unclosed
	}
	return full
}

// run decodes the plain event records at cp's position into b.events, up
// to limit events in all (at most its capacity): decodeRun, which leaves
// the others to take.
func (b *batch) run(cp *compactRecords, limit int) {
	if b.col {
		b.cols.grow(limit - len(b.cols.Kind))
		b.cols.setLen(len(b.cols.Kind) + cp.decodeRunCols(&b.cols, limit))
		return
	}
	n := len(b.events)
	if limit > n {
		b.events = b.events[:n+cp.decodeRun(b.events[n:limit])]
	}
}

// rows returns the events in b.
func (b *batch) rows() int {
	if b.col {
		return len(b.cols.Kind)
	}
	return len(b.events)
}

// roomFor makes room for n events in b from the start (streamEvents:
// stream's and decodePieces').
func (b *batch) roomFor(n int) {
	if b.col {
		b.cols.grow(n - len(b.cols.Kind))
	} else if cap(b.events) < n {
		b.events = make([]Event, 0, n)
	}
}

func (e *each) parseCompact(cp *compactRecords, sc *stackCache, b *batch, start, end int64) {
	cp.reset(io.NewSectionReader(e.ra, start, e.size-start), start, end, sc)
	if start > 0 {
		cp.setVersion(e.version)
	}
	// Room for the chunk's events at once: grown by appends, a chunk of a
	// few MB copied its events about log2(n) times (a third of reading a
	// 2.3 MB recording, as orca push of a push's chunks does: the pool
	// keeps grown batches only between collections). 10 bytes an event is
	// under the densest mix's; a batch of one chunk whole (a snapshot's, a
	// chunk file's) is sized by its trailer's count instead (a 5 MB chunk
	// of 17-byte events: 300 000 Events, not 510 000 zeroed).
	want := int(min(end, e.size)-start) / 10
	if n, ok := e.chunkRecords(start, min(end, e.size)); ok && n < want {
		want = n
	}
	if b.col {
		if cap(b.cols.Kind) < want {
			b.cols.grow(want + want/8)
		}
		for {
			if len(b.cols.Kind) == cap(b.cols.Kind) {
				b.cols.grow(1)
			}
			if b.run(cp, cap(b.cols.Kind)); len(b.cols.Kind) == cap(b.cols.Kind) {
				continue
			}
			if !b.take(cp) {
				break
			}
		}
		b.stop, b.lines = cp.offset(), cp.events
		b.truncated, b.unclosed = cp.truncated, cp.unclosed
		return
	}
	if cap(b.events)-len(b.events) < want {
		// A batch that had room already goes from chunk to chunk
		// (parallel's free list): sized to one chunk's count exactly, the
		// next chunk a few events longer made it anew (each chunk of a
		// range's read allocated and cleared ~8 MB: 5 % of orca report
		// --last 1m). It takes an eighth more; a new one, the count.
		if cap(b.events) > 0 {
			want += want / 8
		}
		b.events = slices.Grow(b.events, want)
	}
	for {
		// Not zeroed first: next writes the whole Event of each it returns
		// (decodeEvent), and a batch kept (Buffers) is written over.
		if len(b.events) == cap(b.events) {
			b.events = slices.Grow(b.events, 1)
		}
		if b.run(cp, cap(b.events)); len(b.events) == cap(b.events) {
			continue
		}
		if !b.take(cp) {
			break
		}
	}
	b.stop, b.lines = cp.offset(), cp.events
	b.truncated, b.unclosed = cp.truncated, cp.unclosed
}

// chunkRecords returns the event records of the chunk in [start, end) when
// the range is one chunk, whole: its marker at start (or after the file's
// header) and its trailer ending at end.
func (e *each) chunkRecords(start, end int64) (int, bool) {
	if e.version < 3 {
		return 0, false
	}
	c, found, err := chunkAtBelow(e.ra, start, min(start+int64(len(format.CompactHeader))+1, end), e.size)
	if err != nil || !found {
		return 0, false
	}
	t, found, err := trailerAt(e.ra, c.off, end)
	if err != nil || !found || t.records >= uint64(end-start) {
		return 0, false
	}
	return int(t.records), true
}

// deliver hands b's events and errors to fn and Malformed, with file line
// numbers, first decoding b's chunk again if the batch before it ended
// elsewhere than where b starts.
func (e *each) deliver(b *batch) error {
	if b.start != e.next {
		// A piece's numbering is its chunk's (parallelPieces), which its
		// worker may still be adding to: not to be cleared.
		b.stacks = chunkStacks{}
		if e.seq == nil {
			e.seq = e.newDecoder(e.chunk)
		}
		// The chunk is decoded from where the last one stopped, to its end
		// (or, when that is already past its end, to nothing).
		e.parse(e.seq, b, e.next, max(b.end, e.next))
	}
	// Events carry their stack's number in the chunk; make it the one in
	// opt.Stacks, looking up each stack of a stackCache once.
	ids := e.ids
	if t := e.opt.Stacks; t != nil {
		tab := e.tables[b.stacks.cache]
		if tab == nil {
			if e.tables == nil {
				e.tables = map[*stackCache]*stackIDs{}
			}
			tab = &stackIDs{}
			e.tables[b.stacks.cache] = tab
		}
		if tab.gen != b.stacks.gen {
			tab.gen, tab.ids = b.stacks.gen, tab.ids[:0]
		}
		// The pieces of a chunk (parallelPieces) share its numbering,
		// each the numbers before it and more: only those are looked up.
		if b.stacks.cache != e.idsCache || b.stacks.stamp != e.idsStamp || len(ids) == 0 || len(ids) > len(b.stacks.uniq) {
			ids = append(ids[:0], 0)
			e.idsCache, e.idsStamp = b.stacks.cache, b.stacks.stamp
		}
		for l := len(ids); l < len(b.stacks.uniq); l++ {
			i := b.stacks.ents[l]
			if i >= len(tab.ids) {
				tab.ids = append(tab.ids, make([]uint32, i+1-len(tab.ids))...)
			}
			if tab.ids[i] == 0 {
				// In order of first appearance in the file, as the
				// chunks are delivered in order.
				tab.ids[i] = t.ID(b.stacks.uniq[l])
			}
			ids = append(ids, tab.ids[i])
		}
	}
	e.ids = ids
	if b.col {
		if err := e.deliverCols(b, ids); err != nil {
			return err
		}
		return e.delivered(b)
	}
	k := 0
	batch := e.opt.Batch
	run := 0 // Batch: b.events[run:i] are to hand on
	for i := range b.events {
		if k < len(b.errs) && b.errs[k].at == i {
			if batch != nil && run < i {
				if err := batch(b.events[run:i]); err != nil {
					return err
				}
			}
			run = i
			for ; k < len(b.errs) && b.errs[k].at == i; k++ {
				e.malformed(b.errs[k].err)
			}
		}
		ev := &b.events[i]
		if ev.Carried {
			if !e.cf.pass(ev) {
				if batch != nil && run < i {
					if err := batch(b.events[run:i]); err != nil {
						return err
					}
				}
				run = i + 1
				continue
			}
		} else {
			// e.cf.pass's for an event of the file, inlined.
			e.cf.events = true
			if ev.Kind.Fact() {
				e.cf.note(ev)
			}
			ev.Line += e.line
		}
		if t := e.opt.Stacks; t != nil {
			ev.StackID = ids[ev.StackID]
			ev.Stack = t.Frames[ev.StackID]
		} else {
			ev.StackID = 0
		}
		if batch == nil {
			if err := e.fn(ev); err != nil {
				return err
			}
		}
	}
	if batch != nil && run < len(b.events) {
		if err := batch(b.events[run:]); err != nil {
			return err
		}
	}
	for ; k < len(b.errs); k++ {
		e.malformed(b.errs[k].err)
	}
	return e.delivered(b)
}

// delivered ends deliver's of b once its events and errors are handed on.
func (e *each) delivered(b *batch) error {
	if b.err != nil {
		return b.err
	}
	if b.truncated {
		e.truncated = true
	}
	if b.unclosed && e.opt.Unclosed != nil {
		e.opt.Unclosed()
	}
	e.line += b.lines
	e.next = b.stop
	if e.opt.Progress != nil {
		e.opt.Progress(b.stop - e.lo)
	}
	return nil
}

// deliverCols is deliver's for b's rows (EachOptions.Columns): their
// threads' and stacks' chunk numbers made the file's (ids: the stacks'),
// their lines the file's, in runs as Batch's, with the malformed lines
// and errors after each in order.
func (e *each) deliverCols(b *batch, ids []uint32) error {
	d := e.cols
	ct := &b.stacks.threads
	if b.stacks.cache != d.cache || b.stacks.stamp != d.stamp || len(d.of) > len(ct.ids) {
		d.cache, d.stamp, d.of = b.stacks.cache, b.stacks.stamp, d.of[:0]
		for _, n := range d.ended {
			d.end(n)
		}
		d.ended = d.ended[:0]
	}
	for l := len(d.of); l < len(ct.ids); l++ {
		d.of = append(d.of, d.number(ct.ids[l]))
	}
	c := &b.cols
	c.Threads = d.ids
	if t := e.opt.Stacks; t != nil {
		c.Frames = t.Frames
	}
	of := d.of
	fn := e.opt.Columns
	kinds, th, st, lines, aux := c.Kind, c.Thread, c.Stack, c.Line, c.Aux[:len(c.Kind)]
	th, st, lines = th[:len(kinds)], st[:len(kinds)], lines[:len(kinds)]
	k := 0
	run := 0
	var one Event
	for i := range kinds {
		if k < len(b.errs) && b.errs[k].at == i {
			if run < i {
				if err := e.runCols(c, run, i, fn); err != nil {
					return err
				}
			}
			run = i
			for ; k < len(b.errs) && b.errs[k].at == i; k++ {
				e.malformed(b.errs[k].err)
			}
		}
		if aux[i]&auxCarried != 0 {
			one = Event{Kind: kinds[i], Object: c.Object[i], Carried: true}
			if !e.cf.pass(&one) {
				if run < i {
					if err := e.runCols(c, run, i, fn); err != nil {
						return err
					}
				}
				run = i + 1
				continue
			}
			lines[i] = 0
		} else {
			e.cf.events = true
			if kinds[i].Fact() {
				one = Event{Kind: kinds[i], Object: c.Object[i]}
				e.cf.note(&one)
			}
			lines[i] += e.line
		}
		th[i] = of[th[i]]
		if kinds[i] == format.ThreadEnded && aux[i]&auxCarried == 0 {
			d.ended = append(d.ended, th[i])
		}
		if ids != nil {
			st[i] = ids[st[i]]
		} else {
			st[i] = 0
		}
	}
	if run < len(kinds) {
		if err := e.runCols(c, run, len(kinds), fn); err != nil {
			return err
		}
	}
	for ; k < len(b.errs); k++ {
		e.malformed(b.errs[k].err)
	}
	return nil
}

// runCols hands rows [i, j) of c to fn.
func (e *each) runCols(c *Columns, i, j int, fn func(*Columns) error) error {
	if i == 0 && j == len(c.Kind) {
		return fn(c)
	}
	v := &e.cols.view
	c.slice(i, j, v)
	return fn(v)
}

func (e *each) malformed(pe *ParseError) {
	if e.opt.Malformed != nil {
		if pe.Line > 0 { // not in a compact file, whose errors say their offset
			pe.Line += e.line
		}
		e.opt.Malformed(pe)
	}
}

// parallel runs the workers and delivers their batches in order.
func (e *each) parallel(workers int, chunk int64) (truncated bool, err error) {
	// In flight: one batch per worker, one being delivered, one ready.
	inflight := workers + 2
	free := make(chan *batch, inflight)
	for range inflight {
		free <- e.getBatch()
	}
	jobs := make(chan *batch)
	order := make(chan *batch, inflight)
	done := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(done)
		wg.Wait()
		// The batches not delivered are dropped: a worker may have
		// signalled one that nobody received.
		for len(free) > 0 {
			e.putBatch(<-free)
		}
	}()
	for range workers {
		wg.Go(func() {
			d := e.newDecoder(e.chunk)
			for b := range jobs {
				e.parse(d, b, b.start, b.end)
				b.done <- struct{}{}
			}
		})
	}
	// The producer cuts the file and hands out chunks as batches come free.
	var cutErr error
	wg.Go(func() {
		defer close(order)
		defer close(jobs)
		cutErr = e.cutChunks(chunk, func(start, end int64) bool {
			var b *batch
			select {
			case b = <-free:
			case <-done:
				return false
			}
			b.start, b.end = start, end
			order <- b // cannot block: at most inflight batches exist
			select {
			case jobs <- b:
				return true
			case <-done:
				return false
			}
		})
	})
	for b := range order {
		<-b.done
		if err := e.deliver(b); err != nil {
			return e.truncated, err
		}
		free <- b
	}
	if cutErr != nil {
		return e.truncated, fmt.Errorf("reading %s: %w", e.name, cutErr)
	}
	return e.truncated, nil
}

// cutChunks cuts the file from e.lo into chunks of about chunk bytes, each
// ending at a record's end (cutCompact, cutAt), and hands each to next in
// order until next says stop; it returns the error of a cut that failed.
func (e *each) cutChunks(chunk int64, next func(start, end int64) bool) error {
	cut := cutAt
	if e.compact {
		cut = cutCompact
	}
	buf := make([]byte, 4<<10)
	for start := e.lo; start < e.size; {
		end := e.size
		if start+chunk < e.size {
			var err error
			if end, err = cut(e.ra, start+chunk, e.size, buf); err != nil {
				return err
			}
		}
		if !next(start, end) {
			return nil
		}
		start = end
	}
	return nil
}

// piecesInFlight is how many pieces (batches of streamEvents events) a
// worker of parallelPieces decodes ahead of their delivery.
const piecesInFlight = 3

// pieceJob is a chunk of a compact file that parallelPieces has a worker
// decode: its pieces, in order, closed after the last.
type pieceJob struct {
	start, end int64
	pieces     chan *batch
	stacks     *chunkStacks // its stacks' numbering, which each piece has as far as it goes
}

// parallelPieces is parallel for a compact file: each worker decodes its
// chunk streamEvents events at a time (as stream does), and hands each
// piece on as it is full, so that the caller's goroutine reads events
// decoded a moment before, still in the caches, where a chunk's batch
// whole (a format chunk of 1 MB: 80 000 Events, 12 MB) went to memory and
// back: on orca report of 1 GB, 84 M events, that traffic was most of the
// reader's CPU (issue 34). A worker has piecesInFlight pieces of its own,
// so one ahead of the chunk being delivered waits for it, and never holds
// the pieces another needs. A chunk cut at a wrong marker is decoded
// again as by parallel: its first piece, decoded again from where the
// chunk before really ended (deliver), holds all of it; its other pieces
// are dropped.
func (e *each) parallelPieces(workers int, chunk int64) (truncated bool, err error) {
	jobs := make(chan *pieceJob)
	order := make(chan *pieceJob, workers+1)
	done := make(chan struct{})
	var wg sync.WaitGroup
	kept := make([][]*batch, workers) // each worker's pieces, given back at the end
	defer func() {
		close(done)
		wg.Wait()
		for _, bs := range kept {
			for _, b := range bs {
				b.home = nil
				e.putBatch(b)
			}
		}
	}()
	for w := range workers {
		free := make(chan *batch, piecesInFlight)
		for range piecesInFlight {
			b := e.getBatch()
			b.home = free
			kept[w] = append(kept[w], b)
			free <- b
		}
		wg.Go(func() {
			d := e.newDecoder(e.chunk)
			for j := range jobs {
				if !e.decodePieces(d, free, j, done) {
					return
				}
			}
		})
	}
	var cutErr error
	wg.Go(func() {
		defer close(order)
		defer close(jobs)
		cutErr = e.cutChunks(chunk, func(start, end int64) bool {
			j := &pieceJob{start: start, end: end, pieces: make(chan *batch, piecesInFlight)}
			select {
			case order <- j:
			case <-done:
				return false
			}
			select {
			case jobs <- j:
				return true
			case <-done:
				return false
			}
		})
	})
	for j := range order {
		redone := false
		for b := range j.pieces {
			if redone {
				b.home <- b // decoded again with the chunk's first piece
				continue
			}
			redone = b.start != e.next
			err := e.deliver(b)
			b.stacks = chunkStacks{} // the chunk's, kept by it
			b.home <- b              // cannot block: the worker's pieces are its channel's capacity
			if err != nil {
				return e.truncated, err
			}
		}
		// Its worker is done with it (it closed pieces), and so is deliver.
		e.numMu.Lock()
		e.numberings = append(e.numberings, j.stacks)
		e.numMu.Unlock()
	}
	if cutErr != nil {
		return e.truncated, fmt.Errorf("reading %s: %w", e.name, cutErr)
	}
	return e.truncated, nil
}

// decodePieces decodes j's chunk into pieces of streamEvents events taken
// from free, handing each on in j.pieces; false when done is closed first.
// The pieces' Lines count from the chunk's start, and its last piece has
// the chunk's lines (as stream's).
func (e *each) decodePieces(d *decoder, free chan *batch, j *pieceJob, done chan struct{}) bool {
	get := func() *batch {
		select {
		case b := <-free:
			return b
		case <-done:
			return nil
		}
	}
	b := get()
	if b == nil {
		return false
	}
	b.reset(j.start, j.end)
	e.numMu.Lock()
	if n := len(e.numberings); n > 0 {
		j.stacks = e.numberings[n-1]
		e.numberings = e.numberings[:n-1]
	} else {
		j.stacks = &chunkStacks{}
	}
	e.numMu.Unlock()
	// One numbering of the stacks for the chunk, not one a piece: a piece
	// of 4096 events names ~1 500 of a chunk's ~3 600 stacks, each numbered
	// and looked up again (deliver) in each piece.
	d.sc.begin(j.stacks)
	cp := d.cp
	cp.reset(io.NewSectionReader(e.ra, j.start, e.size-j.start), j.start, j.end, d.sc)
	if j.start > 0 {
		cp.setVersion(e.version)
	}
	for {
		b.roomFor(streamEvents)
		full := b.fill(cp)
		b.stacks = *j.stacks // as far as it goes: later numbers are appended (or to a new array)
		select {
		case j.pieces <- b:
		case <-done:
			return false
		}
		if !full {
			close(j.pieces)
			return true
		}
		stop := b.stop
		if b = get(); b == nil {
			return false
		}
		b.reset(stop, j.end)
	}
}

// cutAt returns where the chunk that ends near p ends: the first line start
// at or after p that looks like an event line, or size if there is none.
func cutAt(ra io.ReaderAt, p, size int64, buf []byte) (int64, error) {
	// Lookahead needed to judge a line: a timestamp and an event name's
	// first letter. Longer timestamps are not seen as event starts.
	const look = 40
	pos := p - 1 // the '\n' before a line starting at p counts
	for pos < size {
		n, err := ra.ReadAt(buf, pos)
		if n < len(buf) && err != nil && err != io.EOF {
			return 0, err
		}
		w := buf[:n]
		atEOF := pos+int64(n) >= size
		if pos+int64(n) > size {
			w = w[:size-pos]
		}
		i := 0
		for {
			j := bytes.IndexByte(w[i:], '\n')
			if j < 0 {
				i = len(w)
				break
			}
			k := i + j + 1
			if !atEOF && len(w)-k < look {
				i = k - 1 // judge this line in the next window
				break
			}
			if eventStart(w[k:]) {
				return pos + int64(k), nil
			}
			i = k
		}
		if atEOF {
			break
		}
		pos += int64(max(i, 1))
	}
	return size, nil
}

// cutCompact returns where the chunk of a compact file that ends near p
// ends: the first format.ChunkMarker at or after p, or size if there is
// none. A marker inside a record (a name that holds one) is a wrong guess
// that deliver corrects, as a wrong cut of text.
func cutCompact(ra io.ReaderAt, p, size int64, buf []byte) (int64, error) {
	marker := []byte(format.ChunkMarker)
	for pos := p; pos < size; {
		n, err := ra.ReadAt(buf[:min(int64(len(buf)), size-pos)], pos)
		if n == 0 && err != nil {
			if err == io.EOF {
				break
			}
			return 0, err
		}
		if i := bytes.Index(buf[:n], marker); i >= 0 {
			return pos + int64(i), nil
		}
		if pos+int64(n) >= size {
			break
		}
		pos += int64(max(n-len(marker)+1, 1))
	}
	return size, nil
}

// eventStart reports whether b begins like an event line: digits, '.',
// digits, ',', an upper-case letter.
func eventStart(b []byte) bool {
	i := 0
	for i < len(b) && b[i]-'0' <= 9 {
		i++
	}
	if i == 0 || i >= len(b) || b[i] != '.' {
		return false
	}
	i++
	j := i
	for i < len(b) && b[i]-'0' <= 9 {
		i++
	}
	return i > j && i+1 < len(b) && b[i] == ',' && b[i+1]-'A' < 26
}

// stackCache decodes the stacks of the chunks one goroutine decodes: a
// stack text seen before is not decoded again but shares the first one's
// frames, and frames come from an arena. A server's events repeat a few
// thousand stacks, so this saves most of the decoding and nearly all
// allocations. It also numbers the distinct stacks of each chunk (see
// chunkStacks), so that EachEvent can look each stack up once per
// stackCache, not per event, in a StackTable.
type stackCache struct {
	seen  *stackKeys // the entries' bytes (a stack's text or record)
	ents  []cachedStack
	arena []format.Frame
	gen   int // counts the times ents was emptied: its indices hold within one
	chunk *chunkStacks
	stamp int // counts chunks
}

type cachedStack struct {
	frames []format.Frame
	stamp  int    // the chunk that last numbered it
	local  uint32 // its number there
}

// chunkStacks numbers the distinct stacks of one chunk: 1, 2, … in order of
// first appearance; 0 is for no frames.
type chunkStacks struct {
	uniq  [][]format.Frame // by number; uniq[0] is nil
	ents  []int            // by number: the index in the cache's ents
	cache *stackCache
	gen   int // the cache's gen
	stamp int // the cache's stamp: which numbering of its this is
	// threads numbers the chunk's threads (EachOptions.Columns).
	threads chunkThreads
}

func newStackCache() *stackCache { return &stackCache{seen: newStackKeys()} }

// begin starts numbering the stacks of a chunk in cs.
func (c *stackCache) begin(cs *chunkStacks) {
	if len(c.ents) >= maxCachedStacks {
		// The frames stay valid: chunks in flight point to them.
		c.seen.reset()
		clear(c.ents)
		c.ents, c.arena = c.ents[:0], nil
		c.gen++
	}
	c.renumber(cs)
}

// renumber starts numbering the stacks in cs again, in the middle of a
// chunk (stream's next batch): the cache is not emptied, as the chunk's
// stacks point into it.
func (c *stackCache) renumber(cs *chunkStacks) {
	c.stamp++
	clear(cs.uniq)
	cs.uniq, cs.ents = append(cs.uniq[:0], nil), append(cs.ents[:0], -1)
	cs.cache, cs.gen, cs.stamp = c, c.gen, c.stamp
	cs.threads.reset()
	c.chunk = cs
}

// parse decodes stack text b and returns its frames and number in the
// chunk.
func (c *stackCache) parse(b []byte) ([]format.Frame, uint32, string) {
	i, ok := c.seen.get(b)
	if !ok {
		fr, msg := parseStackIn(b, &c.arena)
		if msg != "" || len(fr) == 0 {
			return fr, 0, msg
		}
		i = len(c.ents)
		c.ents = append(c.ents, cachedStack{frames: fr})
		c.seen.add(b)
	}
	fr, local := c.number(i)
	return fr, local, ""
}

// number returns the frames of entry i and its number in the chunk,
// numbering it when it is new there.
func (c *stackCache) number(i int) ([]format.Frame, uint32) {
	e := &c.ents[i]
	if e.stamp != c.stamp {
		cs := c.chunk
		e.stamp, e.local = c.stamp, uint32(len(cs.uniq))
		cs.uniq = append(cs.uniq, e.frames)
		cs.ents = append(cs.ents, i)
	}
	return e.frames, e.local
}

// lookup returns the entry of the stack whose compact encoding is key
// (a stack record from its depth on), decoding its depth frames with
// decode when it is new; -1 when decode fails (nothing is kept).
func (c *stackCache) lookup(key []byte, depth int, decode func([]format.Frame) bool) int {
	if i, ok := c.seen.get(key); ok {
		return i
	}
	a := c.arena
	if cap(a)-len(a) < depth {
		a = make([]format.Frame, 0, max(min(2*cap(a), arenaFrames), 1<<10, depth))
		c.arena = a
	}
	fr := a[len(a) : len(a)+depth : len(a)+depth]
	if !decode(fr) {
		return -1
	}
	c.arena = a[:len(a)+depth]
	i := len(c.ents)
	c.ents = append(c.ents, cachedStack{frames: fr})
	c.seen.add(key)
	return i
}
