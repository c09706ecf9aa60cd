package reader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"

	"orca/internal/format"
)

// The reader of a compact .orca (docs/format.md, "The compact encoding"):
// the same Events as the text's, from binary records. Threads and stacks
// are defined once per chunk; a malformed record costs the rest of its
// chunk (the reader resynchronises at the next format.ChunkMarker), a
// record cut by the end of the file ends the recording.

// compactMagic is how a compact .orca begins; the whole header line is
// format.CompactHeader (another version is an error, not text).
const compactMagic = "orca-compact"

// isCompact reports whether a .orca file beginning with head is compact.
func isCompact(head []byte) bool { return bytes.HasPrefix(head, []byte(compactMagic)) }

// maxRecord bounds one record (a stack of 2^16 frames, a long name), as
// maxLine bounds a text line: larger is malformed, not a reason to
// allocate.
const maxRecord = maxLine

// compactRecords decodes the records of a compact .orca, from its start or
// from a chunk's (a marker).
type compactRecords struct {
	name      string
	src       io.Reader
	buf       []byte
	pos, end  int   // buf[pos:end] is read and not decoded
	base      int64 // the file offset of buf[0]
	eof       bool
	err       error // sticky read error
	header    bool  // the header line is still to read
	skipping  bool  // after a malformed record: looking for the next marker
	limit     int64 // stop before a chunk that starts at or after this offset (-1: none)
	truncated bool
	events    int // events decoded: the next one's Line is events+1

	// The current chunk: its threads and stacks by number - 1, and its
	// aliases (format.TagAlias) by key (nil before the first).
	inChunk bool
	prev    format.Time
	threads []format.ThreadID
	aliases map[uint32]format.ThreadID
	stacks  []compactStack
	sc      *stackCache // nil: frames are allocated per definition
}

type compactStack struct {
	frames []format.Frame
	ent    int // the index in sc.ents
}

func newCompactRecords(name string, size int) *compactRecords {
	return &compactRecords{name: name, buf: make([]byte, size), limit: -1}
}

// reset makes r decode src, whose first byte is at offset base of the file
// (0: the file's start, with its header), stopping before a chunk at or
// after limit (-1: at the end).
func (r *compactRecords) reset(src io.Reader, base, limit int64, sc *stackCache) {
	*r = compactRecords{name: r.name, src: src, buf: r.buf, base: base, limit: limit, header: base == 0,
		threads: r.threads[:0], stacks: r.stacks[:0], sc: sc}
}

// offset returns the file offset of the next byte to decode.
func (r *compactRecords) offset() int64 { return r.base + int64(r.pos) }

// fill reads more bytes after buf[pos:end], moving them to the front and
// growing buf (up to maxRecord) when they fill it. It returns false at the
// end of the file or on a read error (r.err).
func (r *compactRecords) fill() bool {
	if r.eof || r.err != nil {
		return false
	}
	if r.pos > 0 {
		n := copy(r.buf, r.buf[r.pos:r.end])
		r.base += int64(r.pos)
		r.pos, r.end = 0, n
	}
	if r.end == len(r.buf) {
		if len(r.buf) >= maxRecord {
			return false
		}
		nb := make([]byte, min(2*len(r.buf), maxRecord))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	for range 100 {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err == io.EOF {
			r.eof = true
			return n > 0
		}
		if err != nil {
			r.err = fmt.Errorf("reading %s: %w", r.name, err)
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	r.err = fmt.Errorf("reading %s: %w", r.name, io.ErrNoProgress)
	return false
}

// next decodes the next event into *ev. It returns io.EOF at the end,
// errLimit before a chunk at or after the limit, a *ParseError for a
// malformed record (then the rest of its chunk is skipped), or a read
// error (sticky).
func (r *compactRecords) next(ev *Event) error {
	for {
		if r.err != nil {
			return r.err
		}
		if r.header {
			if err := r.readHeader(); err != nil {
				return err
			}
			continue
		}
		if r.skipping {
			i := bytes.Index(r.buf[r.pos:r.end], []byte(format.ChunkMarker))
			if i < 0 {
				r.pos = max(r.pos, r.end-len(format.ChunkMarker)+1)
				if !r.fill() {
					if r.err != nil {
						return r.err
					}
					r.pos = r.end // skipped to the end: EachEvent goes on from there
					return io.EOF
				}
				continue
			}
			r.pos += i
			r.skipping = false
		}
		if r.pos == r.end && !r.fill() {
			if r.err != nil {
				return r.err
			}
			return io.EOF
		}
		if r.limit >= 0 && r.offset() >= r.limit && r.buf[r.pos] == format.ChunkMarker[0] {
			// Only a chunk starts a batch of EachEvent: the state of the
			// one before does not carry over.
			for r.end-r.pos < len(format.ChunkMarker) && r.fill() {
			}
			if bytes.HasPrefix(r.buf[r.pos:r.end], []byte(format.ChunkMarker)) {
				return errLimit
			}
		}
		n, isEvent, msg := r.decode(ev, r.buf[r.pos:r.end])
		switch {
		case n > 0:
			r.pos += n
			if isEvent && ev.Carried {
				return nil
			}
			if isEvent {
				r.events++
				ev.Line = r.events
				return nil
			}
		case msg != "":
			off := r.offset()
			r.pos++ // the search for the next marker starts after this record's first byte
			r.skipping, r.inChunk = true, false
			return &ParseError{File: r.name, Offset: off, Msg: msg}
		default: // the record goes on past the bytes read
			if !r.fill() {
				if r.err != nil {
					return r.err
				}
				if r.end-r.pos >= maxRecord {
					off := r.offset()
					r.pos++
					r.skipping, r.inChunk = true, false
					return &ParseError{File: r.name, Offset: off, Msg: fmt.Sprintf("record longer than %d MiB", maxRecord>>20)}
				}
				// Cut by the end of the file (a kill between two
				// flushes): the recording ends here.
				r.truncated = true
				r.pos = r.end
				return io.EOF
			}
		}
	}
}

// readHeader checks the file's first line, format.CompactHeader or
// format.CompactHeaderV1 (of the same length).
func (r *compactRecords) readHeader() error {
	const h = format.CompactHeader
	for r.end-r.pos < len(h) && r.fill() {
	}
	if r.err != nil {
		return r.err
	}
	b := r.buf[r.pos:r.end]
	if len(b) > len(h) {
		b = b[:len(h)]
	}
	switch {
	case string(b) == h || string(b) == format.CompactHeaderV1:
		r.pos += len(h)
		r.header = false
		return nil
	case len(b) < len(h) && strings.HasPrefix(h, string(b)):
		r.truncated, r.header = len(b) > 0, false
		r.pos = r.end
		return io.EOF
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	r.err = fmt.Errorf("reading %s: header %s: this reader knows %q and %q", r.name, show(b), h[:len(h)-1], format.CompactHeaderV1[:len(h)-1])
	return r.err
}

// dec is a cursor on the bytes of one record. Reading past them sets
// short; a malformed value sets bad.
type dec struct {
	b     []byte
	i     int
	short bool
	bad   string
}

// uv decodes an unsigned LEB128 varint.
func (d *dec) uv() uint64 {
	if d.i < len(d.b) && d.b[d.i] < 0x80 {
		d.i++
		return uint64(d.b[d.i-1])
	}
	var v uint64
	for s := 0; s < 70; s += 7 {
		if d.i >= len(d.b) {
			d.short = true
			return 0
		}
		c := d.b[d.i]
		d.i++
		if s == 63 && c > 1 {
			break
		}
		v |= uint64(c&0x7F) << s
		if c < 0x80 {
			return v
		}
	}
	if d.bad == "" {
		d.bad = "varint longer than 10 bytes or past 64 bits"
	}
	return 0
}

// sv decodes a zigzag signed varint.
func (d *dec) sv() int64 {
	u := d.uv()
	return int64(u>>1) ^ -int64(u&1)
}

// u32 decodes 4 bytes little-endian.
func (d *dec) u32() uint32 {
	if d.i+4 > len(d.b) {
		d.short = true
		d.i = len(d.b)
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b[d.i:])
	d.i += 4
	return v
}

// byte1 decodes one byte.
func (d *dec) byte1() byte {
	if d.i >= len(d.b) {
		d.short = true
		return 0
	}
	d.i++
	return d.b[d.i-1]
}

// text decodes a length and that many bytes.
func (d *dec) text() string {
	n := d.uv()
	if d.short || d.bad != "" {
		return ""
	}
	if n > maxRecord {
		d.bad = fmt.Sprintf("text of %d bytes", n)
		return ""
	}
	if uint64(len(d.b)-d.i) < n {
		d.short = true
		return ""
	}
	s := string(d.b[d.i : d.i+int(n)])
	d.i += int(n)
	return s
}

// msg returns why the record is malformed, or "" when it may only be
// cut short: a record that runs past the bytes there are is read again
// with more (or, at the end of the file, cut), whatever it holds.
func (d *dec) msg() string {
	if d.short {
		return ""
	}
	return d.bad
}

// fail records why the record is malformed (the first reason).
func (d *dec) fail(format string, a ...any) {
	if d.bad == "" {
		d.bad = fmt.Sprintf(format, a...)
	}
}

// decode decodes the record at the start of b. It returns the record's
// length and whether it was an event (decoded into *ev); or 0 and why it
// is malformed; or 0 and "" when b ends before the record does. The
// chunk's state changes only with a whole record.
func (r *compactRecords) decode(ev *Event, b []byte) (n int, isEvent bool, msg string) {
	d := dec{b: b}
	tag := d.byte1()
	switch {
	case tag > format.TagEvent && tag < format.TagEvent+byte(format.NumKinds): // kinds 1…: 0 is no kind
		return r.decodeEvent(ev, &d, format.Kind(tag-format.TagEvent))
	case tag == format.TagCarried:
		t := d.byte1()
		if d.short {
			return 0, false, ""
		}
		if t <= format.TagEvent || t >= format.TagEvent+byte(format.NumKinds) {
			return 0, false, fmt.Sprintf("carried tag followed by tag 0x%02X, not an event", t)
		}
		n, ok, msg := r.decodeEvent(ev, &d, format.Kind(t-format.TagEvent))
		ev.Carried = ok
		return n, ok, msg
	case tag == format.ChunkMarker[0]:
		if len(b) < len(format.ChunkMarker)+1 {
			if !bytes.HasPrefix([]byte(format.ChunkMarker), b) {
				return 0, false, fmt.Sprintf("unknown record tag 0x%02X", tag)
			}
			return 0, false, ""
		}
		if string(b[:len(format.ChunkMarker)]) != format.ChunkMarker {
			return 0, false, fmt.Sprintf("unknown record tag 0x%02X", tag)
		}
		if b[len(format.ChunkMarker)] != format.TagChunk {
			return 0, false, fmt.Sprintf("chunk marker followed by tag 0x%02X, want 0x01", b[len(format.ChunkMarker)])
		}
		d.i = len(format.ChunkMarker) + 1
		d.uv() // the sequence number: a chunk reads on its own, whatever it is
		t := d.uv()
		if d.short || d.bad != "" {
			return 0, false, d.msg()
		}
		if t > math.MaxInt64 {
			return 0, false, fmt.Sprintf("chunk base time %d ns: past the largest time", t)
		}
		r.inChunk, r.prev = true, format.Time(t)
		r.threads, r.stacks = r.threads[:0], r.stacks[:0]
		clear(r.aliases)
		return d.i, false, ""
	case tag == format.TagChunk:
		return 0, false, "chunk record without its ORCACHNK marker"
	case tag == format.TagThread:
		idx := d.uv()
		h := d.u32()
		if d.short || d.bad != "" {
			return 0, false, d.msg()
		}
		if !r.inChunk {
			return 0, false, "thread defined before any chunk"
		}
		if idx != uint64(len(r.threads))+1 {
			return 0, false, fmt.Sprintf("thread index %d defined, want the next one, %d", idx, len(r.threads)+1)
		}
		r.threads = append(r.threads, r.thread(h))
		return d.i, false, ""
	case tag == format.TagAlias:
		key, h, rank := d.u32(), d.u32(), d.uv()
		if d.short || d.bad != "" {
			return 0, false, d.msg()
		}
		if !r.inChunk {
			return 0, false, "alias defined before any chunk"
		}
		if key&format.AliasBit == 0 || rank > math.MaxUint32 {
			return 0, false, fmt.Sprintf("alias %08X of thread %08X rank %d: want a key with the top bit and a 32-bit rank", key, h, rank)
		}
		if r.aliases == nil {
			r.aliases = map[uint32]format.ThreadID{}
		}
		r.aliases[key] = format.NewThreadID(h, uint32(rank))
		return d.i, false, ""
	case tag == format.TagStack:
		return r.decodeStack(&d)
	}
	if d.short {
		return 0, false, ""
	}
	return 0, false, fmt.Sprintf("unknown record tag 0x%02X", tag)
}

// thread returns the thread a thread field's value v names: the thread of
// the chunk's alias v (format.AliasBit set), or the first thread of the
// hash v. A value with the bit that the chunk does not define is a hash
// (version 1, whose writers knew no aliases).
func (r *compactRecords) thread(v uint32) format.ThreadID {
	if v&format.AliasBit != 0 {
		if t, ok := r.aliases[v]; ok {
			return t
		}
	}
	return format.ThreadID(v)
}

// frame decodes frame i of stack id: a method and a location+1, each
// within 32 bits.
func (d *dec) frame(id uint64, i int) format.Frame {
	m := d.uv()
	l := d.uv()
	if m > math.MaxUint32 || l > math.MaxUint32 {
		d.fail("stack %d frame %d: method %d, location+1 %d: past 32 bits", id, i, m, l)
	}
	return format.Frame{Method: format.MethodID(m), Location: uint32(l) - 1} // 0: NoLocation
}

// decodeStack decodes a stack definition (after its tag).
func (r *compactRecords) decodeStack(d *dec) (int, bool, string) {
	id := d.uv()
	depthAt := d.i
	depth := d.uv()
	if d.short || d.bad != "" {
		return 0, false, d.msg()
	}
	if depth == 0 || depth > maxRecord/2 {
		return 0, false, fmt.Sprintf("stack %d of %d frames", id, depth)
	}
	// A frame takes at least two bytes: check that they are there before
	// allocating for them.
	if uint64(len(d.b)-d.i) < 2*depth {
		return 0, false, ""
	}
	decodeFrames := func(fr []format.Frame) bool {
		for i := range fr {
			fr[i] = d.frame(id, i)
		}
		return !d.short && d.bad == ""
	}
	var frames []format.Frame
	ent := -1
	if r.sc == nil {
		frames = make([]format.Frame, depth)
		decodeFrames(frames)
	} else {
		// The cache is keyed by the record's bytes from its depth on:
		// find their end without keeping the frames, checking them as
		// decodeFrames does (the same error, whether or not the stack is
		// cached).
		start := d.i
		for i := range int(depth) {
			d.frame(id, i)
		}
		end := d.i
		if d.short || d.bad != "" {
			return 0, false, d.msg()
		}
		d.i = start
		ent = r.sc.lookup(d.b[depthAt:end], int(depth), decodeFrames)
		d.i = end
	}
	if d.short || d.bad != "" {
		return 0, false, d.msg()
	}
	if !r.inChunk {
		return 0, false, "stack defined before any chunk"
	}
	if id != uint64(len(r.stacks))+1 {
		return 0, false, fmt.Sprintf("stack id %d defined, want the next one, %d", id, len(r.stacks)+1)
	}
	r.stacks = append(r.stacks, compactStack{frames: frames[:len(frames):len(frames)], ent: ent})
	return d.i, false, ""
}

// decodeEvent decodes an event record of kind k (after its tag) into *ev.
func (r *compactRecords) decodeEvent(ev *Event, d *dec, k format.Kind) (int, bool, string) {
	*ev = Event{Kind: k}
	delta := d.sv()
	th := d.uv()
	var stack uint64
	for _, f := range format.Specs[k].Fields {
		switch f {
		case format.FObject:
			ev.Object = format.ObjectID(d.u32())
		case format.FTarget:
			ev.Target = r.thread(d.u32())
		case format.FOwner:
			ev.Owner = r.thread(d.u32())
		case format.FStack:
			stack = d.uv()
		case format.FName:
			ev.Name = d.text()
		case format.FClass:
			ev.Class = d.text()
		case format.FTimeout:
			ev.Timeout = int64(d.uv()) - 1
			if ev.Timeout < -1 {
				d.fail("timeout past the largest")
			}
		case format.FHow:
			ev.How = format.ParkEnd(d.byte1())
			if ev.How >= format.NumParkEnds {
				d.fail("how %d: want 0-%d", ev.How, format.NumParkEnds-1)
			}
		case format.FMode:
			ev.Mode = format.AcquireMode(d.byte1())
			if ev.Mode >= format.NumModes {
				d.fail("mode %d: want 0-%d", ev.Mode, format.NumModes-1)
			}
		}
		if d.short {
			return 0, false, ""
		}
	}
	if d.short {
		return 0, false, ""
	}
	if d.bad != "" {
		return 0, false, k.String() + ": " + d.bad
	}
	if !r.inChunk {
		return 0, false, k.String() + " before any chunk"
	}
	if th == 0 || th > uint64(len(r.threads)) {
		return 0, false, fmt.Sprintf("%s: thread index %d not defined in the chunk (%d are)", k, th, len(r.threads))
	}
	ev.Thread = r.threads[th-1]
	t := int64(r.prev) + delta
	if (delta > 0 && t < int64(r.prev)) || t < 0 {
		return 0, false, fmt.Sprintf("%s: time %d ns %+d: out of range", k, r.prev, delta)
	}
	ev.Time = format.Time(t)
	if stack > 0 {
		if stack > uint64(len(r.stacks)) {
			return 0, false, fmt.Sprintf("%s: stack id %d not defined in the chunk (%d are)", k, stack, len(r.stacks))
		}
		s := &r.stacks[stack-1]
		if r.sc != nil {
			ev.Stack, ev.StackID = r.sc.number(s.ent)
		} else {
			ev.Stack = s.frames
		}
	}
	r.prev = ev.Time
	return d.i, true, ""
}
