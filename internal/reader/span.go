package reader

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"

	"orca/internal/format"
)

// Time ranges (orca report|view|export --from, --to, --last): a Span is
// the part of a recording's events that a range [From, To] needs, found by
// the chunks' own times, so that reading it costs what the range holds,
// not what the file does (docs/format.md, "Reading a time range").
//
// A compact chunk begins with a chunk record that gives its base time, the
// time of its first event, and, after the first chunk, with the state of
// every live thread at that time (carried records). So the range is read
// from the last chunk that begins at or before From, as a bounded
// recording is read from its oldest chunk kept: its carried records and
// its events before From go into a LiveState, which is restated, as
// carried records at From, before the first event of the range; the events
// after To are left out, and the chunks that begin after it are not read.
// A text .orca (the seed's format) has no chunks: it is read whole and
// filtered the same way.
//
// Where the chunks are: a bounded recording's chunk files each begin with
// their chunk record (one small read a file); in one compact file, a chunk
// is found by its marker, ORCACHNK, and the chunk holding a time by a
// binary search over the file's offsets — each probe reads from an offset
// to the next marker, at most a chunk (1 MB) — so no index is built or
// kept, and a range costs a few tens of probes besides its own chunks.

// Span is the part of a recording to read for a time range (Recording.Span).
type Span struct {
	// From and To are the range, in the recording's times (nanoseconds
	// of the clock of the events), both included.
	From, To format.Time
	// Origin and End are the times of the recording's first and last
	// events (Recording.TimeBounds).
	Origin, End format.Time
	// Bytes are the bytes of events the span reads, of Total in the
	// recording; Chunks the chunks it reads (0 for a text .orca, read
	// whole).
	Bytes, Total int64
	Chunks       int
	// Whole: the .orca is text, read whole and filtered.
	Whole  bool
	pieces []spanPiece
	// chained: the span is chunk files after those of the range before
	// (SpanChunks): the carried records of the first one read are the
	// state at From, and each other event read is in the range.
	chained bool
}

// spanPiece is a part of one file of events: [lo, hi).
type spanPiece struct {
	path   string
	lo, hi int64
}

// chunkHead is where a chunk begins and its base time.
type chunkHead struct {
	off  int64
	base format.Time
}

// boundsHook, when set (by tests), is told each chunk TimeBounds decodes.
var boundsHook func(lo, hi int64)

// TimeBounds returns the times of the recording's first and last events,
// reading its first and last chunks (a text .orca: all of it); a closed
// chunk file of a bounded recording says its bounds in its trailer
// (ChunkFileBounds), and only one still being written is decoded. ok is
// false when the recording has no events.
func (r *Recording) TimeBounds() (first, last format.Time, ok bool, err error) {
	lo, hi := format.Time(math.MaxInt64), format.Time(math.MinInt64)
	see := func(ev *Event) error {
		lo, hi = min(lo, ev.Time), max(hi, ev.Time)
		return nil
	}
	files, err := r.eventFiles()
	if err != nil {
		return 0, 0, false, err
	}
	for i, f := range files {
		if i > 0 && i < len(files)-1 {
			continue // the first and the last only
		}
		if len(r.Chunks) > 0 {
			first, last, ok, err := ChunkFileBounds(f)
			if err != nil {
				return 0, 0, false, err
			}
			if ok {
				lo, hi = min(lo, first), max(hi, last)
			}
			continue
		}
		err := withFile(f, func(fl *os.File, size int64) error {
			if !compactFile(fl, size) {
				_, err := eachEventAt(fl, 0, size, f, EachOptions{}, &carryFilter{}, see)
				return err
			}
			first, ok, err := chunkAt(fl, 0, size)
			if err != nil || !ok {
				return err
			}
			// The first chunk's events, and the last's: a closed chunk's
			// times from its trailer (the earliest and latest of its
			// records, carried ones too, as they are decoded: the reader
			// checks them), one still being written or of version 2
			// decoded. Decoding the two (~150 000 events, their stacks new
			// to the decoder) was a tenth of orca report --last 1s.
			trailed := compactVersion(fl) >= 3
			chunk := func(lo, hi int64) error {
				if trailed {
					t, found, err := trailerAt(fl, lo, hi)
					if err != nil {
						return err
					}
					if found && t.records > 0 && t.hi <= math.MaxInt64 && t.lo <= t.hi {
						see(&Event{Time: format.Time(t.lo)})
						return see(&Event{Time: format.Time(t.hi)})
					}
				}
				if boundsHook != nil {
					boundsHook(lo, hi)
				}
				_, err := eachEventAt(fl, lo, hi, f, EachOptions{}, &carryFilter{}, see)
				return err
			}
			second, ok2, err := chunkAt(fl, first.off+1, size)
			if err != nil {
				return err
			}
			end := size
			if ok2 {
				end = second.off
			}
			if err := chunk(first.off, end); err != nil {
				return err
			}
			if ok2 {
				lastc, err := lastChunk(fl, size)
				if err != nil {
					return err
				}
				return chunk(lastc.off, size)
			}
			return nil
		})
		if err != nil {
			return 0, 0, false, err
		}
	}
	if lo > hi {
		return 0, 0, false, nil
	}
	return lo, hi, true, nil
}

// ChunkFileBounds returns the times of the first and last events of a
// bounded recording's chunk file: from its trailer when it is closed (the
// earliest and latest times of its records, carried ones too, as they
// are decoded), else by decoding it (one still being written, cut, or of
// format version 2). One worker: a pusher's CPU is what counts, not its
// wall time. ok is false when the file has no events or is gone.
func ChunkFileBounds(path string) (first, last format.Time, ok bool, err error) {
	err = withFile(path, func(f *os.File, size int64) error {
		if !compactFile(f, size) {
			return fmt.Errorf("%s: not a compact chunk file", path)
		}
		c, found, err := chunkAt(f, 0, size)
		if err != nil || !found {
			return err
		}
		t, found, err := trailerAt(f, c.off, size)
		if err != nil {
			return err
		}
		if found && t.records > 0 && t.hi <= math.MaxInt64 && t.lo <= t.hi {
			first, last, ok = format.Time(t.lo), format.Time(t.hi), true
			return nil
		}
		lo, hi := format.Time(math.MaxInt64), format.Time(math.MinInt64)
		if _, err := eachEventAt(f, c.off, size, path, EachOptions{Workers: 1}, &carryFilter{}, func(ev *Event) error {
			lo, hi = min(lo, ev.Time), max(hi, ev.Time)
			return nil
		}); err != nil {
			return err
		}
		first, last, ok = lo, hi, lo <= hi
		return nil
	})
	return first, last, ok, err
}

// eventFiles are the files of the recording's events, in order.
func (r *Recording) eventFiles() ([]string, error) {
	if len(r.Chunks) == 0 {
		return []string{r.Prefix + format.SuffixEvents}, nil
	}
	var out []string
	for _, c := range r.Chunks {
		out = append(out, c.Path)
	}
	return out, nil
}

// withFile opens path and calls fn with it and its size; a bounded
// recording's chunk file deleted meanwhile is no error (fn is not called).
func withFile(path string, fn func(*os.File, int64) error) error {
	f, err := OpenFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening events: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("opening events: %w", err)
	}
	return fn(f, st.Size())
}

// compactVersion returns the format version of a compact file's header
// (format.CompactHeader: its digit before the line break), 0 when it has
// none.
func compactVersion(ra io.ReaderAt) int {
	h := make([]byte, len(format.CompactHeader))
	if n, _ := ra.ReadAt(h, 0); n == len(h) && h[len(h)-1] == '\n' {
		return int(h[len(h)-2] - '0')
	}
	return 0
}

func compactFile(ra io.ReaderAt, size int64) bool {
	head := make([]byte, len(compactMagic))
	n, _ := ra.ReadAt(head, 0)
	return isCompact(head[:min(int64(n), size)])
}

// Span returns the part of the recording to read for the events of
// [from, to] (its times; to may be math.MaxInt64: to the end).
func (r *Recording) Span(from, to format.Time) (*Span, error) {
	first, last, ok, err := r.TimeBounds()
	if err != nil {
		return nil, err
	}
	if !ok {
		first, last = 0, 0
	}
	return r.SpanWithin(from, to, first, last)
}

// SpanWithin is Span for a caller that knows the recording's first and
// last event times (Span.Origin, End; math.MaxInt64 for an end still to
// come): it reads no more than the range's chunks, where Span reads the
// recording's first and last chunks for them (TimeBounds). A bounded
// recording's pusher knows its origin from its first push, and its end
// is after every range it reads until the last (cmd/orca's pushloop).
func (r *Recording) SpanWithin(from, to, origin, end format.Time) (*Span, error) {
	sp := &Span{From: from, To: to, Origin: origin, End: end}
	files, err := r.eventFiles()
	if err != nil {
		return nil, err
	}
	// The chunks of the recording by their base times: one a chunk file,
	// or those of one compact file around from and to.
	type found struct {
		path   string
		lo, hi int64
	}
	var start, stop int = -1, -1
	var heads []found
	for _, path := range files {
		err := withFile(path, func(f *os.File, size int64) error {
			sp.Total += size
			if !compactFile(f, size) {
				sp.Whole = true
				sp.pieces = append(sp.pieces, spanPiece{path, 0, size})
				sp.Bytes += size
				return nil
			}
			if len(files) > 1 {
				// A chunk file: one chunk.
				c, ok, err := chunkAt(f, 0, size)
				if err != nil || !ok {
					return err
				}
				heads = append(heads, found{path, c.off, size})
				if c.base <= from || start < 0 {
					start = len(heads) - 1
				}
				if c.base <= to {
					stop = len(heads) - 1
				}
				return nil
			}
			lo, err := chunkFor(f, size, from)
			if err != nil {
				return err
			}
			end, err := chunkFor(f, size, to)
			if err != nil {
				return err
			}
			hi := size
			if next, ok, err := chunkAt(f, end.off+1, size); err != nil {
				return err
			} else if ok {
				hi = next.off
			}
			sp.pieces = append(sp.pieces, spanPiece{path, lo.off, hi})
			sp.Bytes += hi - lo.off
			sp.Chunks = chunksIn(f, lo.off, hi, compactVersion(f) >= 3)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if start >= 0 && stop >= start {
		for _, h := range heads[start : stop+1] {
			sp.pieces = append(sp.pieces, spanPiece{h.path, 0, h.hi})
			sp.Bytes += h.hi
		}
		sp.Chunks = stop + 1 - start
	}
	return sp, nil
}

// SpanChunks is SpanWithin for a bounded recording's pusher that reads
// its chunk files in turns (cmd/orca's pushloop): the span reads the
// chunk files numbered after, up to and including last, and no other,
// where a time range reads the chunk it begins in again. The state at
// from, the end of the turn before (the last event of chunk file
// after), is the carried records that begin the first of them (the
// agent's state at its start: after the chunk file before it), restated
// at from; each other event of them is in the range (one before from,
// a line behind another thread's, clipped to it), whatever its time. So
// each event is folded in one turn only, where two time ranges [a, b]
// and [b, c] both hold the events at b.
func (r *Recording) SpanChunks(after, last uint64, from, to, origin, end format.Time) (*Span, error) {
	sp := &Span{From: from, To: to, Origin: origin, End: end, chained: true}
	for _, c := range r.Chunks {
		if c.Seq <= after || c.Seq > last {
			continue
		}
		err := withFile(c.Path, func(f *os.File, size int64) error {
			if !compactFile(f, size) {
				return fmt.Errorf("%s: not a compact chunk file", c.Path)
			}
			sp.pieces = append(sp.pieces, spanPiece{c.Path, 0, size})
			sp.Bytes += size
			sp.Total += size
			sp.Chunks++
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return sp, nil
}

// chunksIn counts the chunk markers in [lo, hi) of ra (for Span.Chunks).
// With trailers (version 3), the next chunk is looked for from near where
// the one before ended, and taken when the trailer before it closes the
// chunk counted last (its byte count reaches back to that chunk's marker:
// no chunk begins in between); else it is looked for from the chunk's
// second byte. So counting a range's chunks reads a few tens of kB of each,
// not all of it (orca report --last 1m: 68 MB).
func chunksIn(ra io.ReaderAt, lo, hi int64, trailed bool) int {
	c, ok, err := chunkAtBelow(ra, lo, hi, hi)
	if err != nil || !ok {
		return 0
	}
	n, skip := 1, int64(0)
	if trailed {
		skip = format.DefaultChunkBytes - format.DefaultChunkBytes/16
	}
	for {
		next, found := chunkHead{}, false
		if skip > 0 {
			// Near where the next chunk is: taken if c's trailer ends there;
			// none, and c's trailer ends at hi: c is the last.
			p, ok, err := chunkAtBelow(ra, c.off+skip, hi, hi)
			if err == nil && !ok {
				p.off = hi
			}
			if err == nil {
				_, closes, err := trailerAt(ra, c.off, p.off)
				switch {
				case err == nil && closes && !ok:
					return n
				case err == nil && closes:
					next, found = p, true
				}
			}
		}
		if !found {
			if next, found, err = chunkAtBelow(ra, c.off+1, hi, hi); err != nil || !found {
				return n
			}
		}
		n++
		if trailed {
			skip = (next.off - c.off) - (next.off-c.off)/16
		}
		c = next
	}
}

// chunkAt returns the first chunk of a compact file that begins at or
// after off: its marker followed by a chunk record; ok is false when there
// is none.
func chunkAt(ra io.ReaderAt, off, size int64) (chunkHead, bool, error) {
	return chunkAtBelow(ra, off, size, size)
}

// chunkAtBelow is chunkAt, looking for markers that begin before limit only.
func chunkAtBelow(ra io.ReaderAt, off, limit, size int64) (chunkHead, bool, error) {
	buf := make([]byte, 64<<10)
	marker := []byte(format.ChunkMarker)
	for off < limit {
		p, err := cutCompact(ra, off, min(size, limit+int64(len(marker))), buf)
		if err != nil {
			return chunkHead{}, false, err
		}
		if p >= limit {
			return chunkHead{}, false, nil
		}
		var h [len(format.ChunkMarker) + 1 + 2*binary.MaxVarintLen64]byte
		n, _ := ra.ReadAt(h[:], p)
		b := h[:n]
		if len(b) > len(marker) && b[len(marker)] == format.TagChunk {
			b = b[len(marker)+1:]
			if _, k := binary.Uvarint(b); k > 0 {
				if base, j := binary.Uvarint(b[k:]); j > 0 && base <= math.MaxInt64 {
					return chunkHead{off: p, base: format.Time(base)}, true, nil
				}
			}
		}
		off = p + 1 // a marker inside a record: not a chunk
	}
	return chunkHead{}, false, nil
}

// lastChunk returns the last chunk of a compact file, looking back from its
// end a chunk's size and more at a time.
func lastChunk(ra io.ReaderAt, size int64) (chunkHead, error) {
	for back := int64(format.DefaultChunkBytes); ; back *= 2 {
		from := max(size-back, 0)
		c, ok, err := chunkAt(ra, from, size)
		if err != nil {
			return chunkHead{}, err
		}
		if ok {
			for {
				n, ok, err := chunkAt(ra, c.off+1, size)
				if err != nil {
					return chunkHead{}, err
				}
				if !ok {
					return c, nil
				}
				c = n
			}
		}
		if from == 0 {
			return chunkHead{}, nil
		}
	}
}

// chunkFor returns the last chunk of a compact file whose base time is at
// or before t (the first chunk when none is), by a binary search over the
// file's offsets: chunks follow each other in time.
func chunkFor(ra io.ReaderAt, size int64, t format.Time) (chunkHead, error) {
	first, ok, err := chunkAt(ra, 0, size)
	if err != nil || !ok {
		return chunkHead{}, err
	}
	lo, hi := first, size // the chunk at lo begins at or before t (or is the first)
	for hi-lo.off > 1 {
		mid := lo.off + (hi-lo.off)/2
		c, ok, err := chunkAtBelow(ra, mid, hi, size)
		if err != nil {
			return chunkHead{}, err
		}
		switch {
		case !ok:
			hi = mid // no chunk begins in [mid, hi)
		case c.base <= t:
			lo = c
		default:
			hi = c.off
		}
	}
	return lo, nil
}

// spanHook, when set (by tests), is told each piece of a file a Span reads.
var spanHook func(path string, lo, hi int64)

// eachSpan is EachEvent on sp: its pieces in order, as one recording whose
// events before sp.From make the state restated at From, and whose events
// after sp.To are left out but for the ThreadStarted of a thread started
// in the range, for its name (rangeFilter.unnamed), read as far as the
// range's last chunk goes.
func (r *Recording) eachSpan(opt EachOptions, fn func(*Event) error) (truncated bool, err error) {
	sp := opt.Span
	rf := newRangeFilter(sp.From, sp.To, opt.Stacks == nil, fn)
	rf.chained = sp.chained
	cf := &carryFilter{}
	// The facts' sets kept from call to call in opt.Buffers (a pusher's).
	cf.facts, rf.given = opt.Buffers.factSets()
	var done int64
	line := 0
	for i, pc := range sp.pieces {
		if spanHook != nil {
			spanHook(pc.path, pc.lo, pc.hi)
		}
		o := opt
		if opt.Progress != nil {
			o.Progress = func(d int64) { opt.Progress(done + d) }
		}
		last := 0
		var t bool
		err := withFile(pc.path, func(f *os.File, size int64) error {
			var err error
			t, err = eachEventAt(f, pc.lo, min(pc.hi, size), pc.path, o, cf, func(ev *Event) error {
				if ev.Line > 0 {
					last = ev.Line
					ev.Line += line
				}
				return rf.event(ev)
			})
			return err
		})
		if err != nil {
			return false, err
		}
		line += last
		done += pc.hi - pc.lo
		truncated = t && i == len(sp.pieces)-1
	}
	return truncated, rf.end()
}

// rangeFilter hands on the events of [from, to]: those before from go into
// a LiveState, restated as carried records at from before the first event
// of the range; an object's class given before from is restated before the
// first event of the range that names the object.
type rangeFilter struct {
	from, to  format.Time
	copyStack bool // the events' stacks are reused (no StackTable)
	fn        func(*Event) error
	live      *format.LiveState[Event]
	started   bool
	given     map[factKey]struct{} // facts handed on in the range (eachSpan's)
	// chained: the carried records read before the first other event are
	// the state at from whatever their time, and every other event is in
	// the range (Span.chained).
	chained bool
	// unnamed: the threads a ThreadStart of the range started whose
	// ThreadStarted, with their name, has not come yet: one that comes
	// after the range is handed on still, for the name (a range that
	// ends between the two listed the thread nameless).
	unnamed map[format.ThreadID]struct{}
	// none: objects of the range's events found without facts kept from
	// before it, by a hash of the id (the latest in each slot). Once the
	// range has started no fact is kept any more, only forgotten, so an
	// object found without stays so: the hot objects (a pool's queue, its
	// locks: most of a push's events) look the map up once, not at each
	// event.
	none [256]format.ObjectID
}

// noFacts returns obj's slot in none, and whether obj is there: known to
// have no facts kept.
func (f *rangeFilter) noFacts(obj format.ObjectID) (*format.ObjectID, bool) {
	n := &f.none[uint32(obj)*0x9E3779B1>>24]
	return n, *n == obj
}

func newRangeFilter(from, to format.Time, copyStack bool, fn func(*Event) error) *rangeFilter {
	return &rangeFilter{from: from, to: to, copyStack: copyStack, fn: fn,
		live: format.NewLiveState(func(e *Event) (format.Kind, format.ThreadID, format.ObjectID) {
			return e.Kind, e.Thread, e.Object
		})}
}

func (f *rangeFilter) event(ev *Event) error {
	if !f.started {
		if ev.Carried && (ev.Time <= f.from || f.chained) || ev.Time < f.from && !f.chained {
			// Before the range (or the state at its very start).
			if f.copyStack && len(ev.Stack) > 0 {
				c := *ev
				c.Stack = slices.Clone(ev.Stack)
				ev = &c
			}
			f.live.Track(ev)
			return nil
		}
		if err := f.start(); err != nil {
			return err
		}
	}
	if ev.Time > f.to {
		if ev.Kind.Fact() && ev.Object != 0 {
			// An object's class (or its class initialisation's, its
			// condition's lock), given after the range in a chunk it
			// reads: a fact of the object, not of a time, which the
			// whole recording's model has. Handed on at the range's
			// end, once.
			k := factOf(ev.Object, ev.Kind)
			if _, ok := f.given[k]; !ok {
				f.given[k] = struct{}{}
				c := *ev
				c.Time = f.to
				return f.fn(&c)
			}
			return nil
		}
		if ev.Kind == format.ThreadStarted {
			if _, ok := f.unnamed[ev.Thread]; ok {
				// The name of a thread started in the range, which ran
				// after it: handed on at its own time, after the
				// range's end, for its name alone (model.Builder).
				delete(f.unnamed, ev.Thread)
				return f.fn(ev)
			}
		}
		return nil
	}
	switch ev.Kind {
	case format.ThreadStart:
		if f.unnamed == nil {
			f.unnamed = map[format.ThreadID]struct{}{}
		}
		f.unnamed[ev.Target] = struct{}{}
	case format.ThreadStarted:
		delete(f.unnamed, ev.Thread)
	}
	if ev.Time < f.from {
		// A line behind another thread's (lines of two threads may be out
		// of order by a little: the flush's sort): it came after the
		// state was restated, so it is clipped to the range's start.
		ev.Time = f.from
	}
	if ev.Kind.Fact() {
		// Only facts restates could hand on again need be noted: those of
		// an object whose facts from before the range are still kept.
		if n, none := f.noFacts(ev.Object); !none {
			if f.live.HasFacts(ev.Object) {
				f.given[factOf(ev.Object, ev.Kind)] = struct{}{}
			} else if ev.Object != 0 {
				*n = ev.Object
			}
		}
	} else if ev.Kind.Has(format.FObject) && ev.Object != 0 {
		if n, none := f.noFacts(ev.Object); !none {
			if err := f.facts(ev); err != nil {
				return err
			}
			*n = ev.Object // handed on, or none: forgotten
		}
	}
	return f.fn(ev)
}

// facts hands on, before ev, the classes of its object that were given
// before the range only. The facts kept of the object are forgotten then:
// each is handed on or was given in the range, and the object's later
// events look up nothing more (most of a push's events are on an object,
// and a chunk restates the classes of thousands).
func (f *rangeFilter) facts(ev *Event) error {
	cls, clinit, cond := f.live.Facts(ev.Object)
	if cls == nil && clinit == nil && cond == nil {
		return nil
	}
	f.live.ForgetFacts(ev.Object)
	for _, x := range []*Event{cls, clinit, cond} {
		if x == nil {
			continue
		}
		k := factOf(x.Object, x.Kind)
		if _, ok := f.given[k]; ok {
			continue
		}
		f.given[k] = struct{}{}
		c := *x
		c.Time, c.Thread, c.Carried, c.Line = ev.Time, ev.Thread, true, 0
		if err := f.fn(&c); err != nil {
			return err
		}
	}
	return nil
}

// start restates the state at from.
func (f *rangeFilter) start() error {
	f.started = true
	var err error
	f.live.Restate(func(th format.ThreadID, x *Event) {
		if err != nil {
			return
		}
		x.Time, x.Carried, x.Line = f.from, true, 0
		if x.Kind.Fact() {
			f.given[factOf(x.Object, x.Kind)] = struct{}{}
			x.Thread = th
		}
		err = f.fn(x)
	})
	return err
}

// end restates the state at from when no event of the range came.
func (f *rangeFilter) end() error {
	if !f.started {
		return f.start()
	}
	return nil
}

// ChunkFileEnd returns the latest event time of a bounded recording's
// closed chunk file, from its chunk's trailer (format.TagTrailer: the
// chunk's bytes, records, earliest and latest times, checksum), reading
// its head and its last bytes only: a pusher's "how far does this chunk
// go" without decoding it (cmd/orca's pushloop). ok is false when the
// file ends without a trailer that closes its chunk (still being written,
// cut, or of format version 2): then decode it.
func ChunkFileEnd(path string) (last format.Time, ok bool, err error) {
	err = withFile(path, func(f *os.File, size int64) error {
		c, found, err := chunkAt(f, 0, size)
		if err != nil || !found {
			return err
		}
		t, found, err := trailerAt(f, c.off, size)
		if err == nil && found && t.records > 0 && t.hi <= math.MaxInt64 {
			last, ok = format.Time(t.hi), true
		}
		return err
	})
	return last, ok, err
}

// trailer is what a chunk's trailer says of it (format.TagTrailer).
type trailer struct {
	records, lo, hi uint64
}

// trailerAt reads the trailer that ends at end the chunk that begins at
// chunk (its marker): found is false when the bytes before end are no
// trailer where the chunk's byte count says.
func trailerAt(ra io.ReaderAt, chunk, end int64) (t trailer, found bool, err error) {
	// The trailer: its tag, four varints and a u32, at the end.
	const most = 1 + 4*binary.MaxVarintLen64 + 4
	from := max(end-most, chunk)
	tail := make([]byte, end-from)
	if _, err := ra.ReadAt(tail, from); err != nil {
		return t, false, err
	}
	for i := range tail {
		if tail[i] != format.TagTrailer {
			continue
		}
		d := dec{b: tail[i+1:]}
		n, records, lo, hi := d.uv(), d.uv(), d.uv(), d.uv()
		d.u32()
		// A trailer is where its chunk's byte count says, and ends
		// there.
		if !d.short && d.bad == "" && d.i == len(d.b) && int64(n) == from+int64(i)-chunk {
			return trailer{records, lo, hi}, true, nil
		}
	}
	return t, false, nil
}
