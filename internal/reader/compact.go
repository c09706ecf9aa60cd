package reader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"sort"
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
	// tloc: the threads' numbers+1 in sc's chunkThreads of tlocStamp
	// (0: not numbered yet), by number - 1 (decodeRunCols).
	tloc      []uint32
	tlocStamp int
	aliases   map[uint32]format.ThreadID
	stacks    []compactStack
	// sloc: the stacks' numbers+1 in sc's chunkStacks of tlocStamp (0:
	// not numbered yet), by number, sloc[0] 1 for none: len(stacks)+1
	// of them (decodeRunCols; 4 bytes a stack where a compactStack is 72,
	// a cache miss an event).
	sloc []uint32
	sc   *stackCache // nil: frames are allocated per definition

	// Version 3 (format.CompactHeader): the chunk's number, its offset,
	// its event records so far, their times' span and the CRC-32C of its
	// bytes before buf[sumFrom] (summed a buffer at a time: fill, the
	// trailer), checked against its trailer; the layouts its descriptors
	// gave (by kind; nil: the reader's own), the records it skipped (kinds
	// or tags this reader does not know), and a notice to return after the
	// record just read.
	version  int
	seq      uint64
	chunkAt  int64
	sumFrom  int
	records  uint64
	lo, hi   format.Time
	crc      uint32
	layouts  []*kindLayout // 256, by kind (nil before the first descriptor)
	foreign  bool          // a layout of the chunk's is not the reader's own (decodeRunCols)
	skipped  map[string]int
	pending  *ParseError
	lastAt   int64 // the offset of the last record read
	unclosed bool  // the file ended in a chunk without its trailer
	// defs: the definitions of methods and classes the chunks read held
	// (format.TagMethod, format.TagClass; nil before the first), kept
	// across reset and the files of a bounded recording.
	defs *chunkDefs
	// noDefs: the definitions are skipped, not kept: EachEvent's
	// decoders (only Events.Definitions reads them).
	noDefs bool
	// texts: the names and classes decoded, by their bytes (intern),
	// kept across reset.
	texts map[string]string
	// slow: every event record decoded by decodeEvent, none by decodeOwn
	// (tests: compactFast).
	slow bool
}

// chunkDefs are the lines of .methods and .classtable that chunks define,
// by id (the last one of an id kept: they are the same line), parsed only
// when asked (Events.Definitions): a reader with .methods beside the file
// needs none of them.
type chunkDefs struct {
	methods, classes map[uint32][]byte
}

// add keeps a definition's line (the payload of a TagMethod or TagClass
// record): its id is its second field, as in .methods and .classtable.
// It returns why the line is malformed, or "".
func (c *chunkDefs) add(tag byte, line []byte) string {
	v, msg := defID(tag, line)
	if msg != "" {
		return msg
	}
	m := c.methods
	if tag == format.TagClass {
		m = c.classes
	}
	m[v] = append(m[v][:0], line...)
	return ""
}

// defID returns a definition's id, its second field, or why it has none.
func defID(tag byte, line []byte) (uint32, string) {
	_, rest, ok := bytes.Cut(line, []byte{','})
	id, _, ok2 := bytes.Cut(rest, []byte{','})
	v, ok3 := parseHex(id)
	if !ok || !ok2 || !ok3 {
		return 0, fmt.Sprintf("definition (tag 0x%02X) without an id: %s", tag, show(line))
	}
	return v, ""
}

// kindLayout is a kind's fields and their wire types, as a descriptor
// (format.TagDescriptor) gives them.
type kindLayout struct {
	name   string
	fields []fieldWire
	// unknown names the fields this reader skips in each record of the
	// kind ("field 21 of ThreadEnded"), told with the skipped records.
	unknown []string
}

// fieldWire is a field and its wire type; known: the field is this
// reader's, of the wire type it knows (else its value is skipped).
type fieldWire struct {
	f     format.Field
	w     format.Wire
	known bool
}

// ownLayouts are the layouts of the kinds this reader knows (format.Specs
// and format.FieldWire), and their descriptors as a writer writes them.
var ownLayouts, ownDescriptors = func() (l [format.NumKinds]kindLayout, d [format.NumKinds][]byte) {
	for k := format.Kind(1); k < format.NumKinds; k++ {
		l[k].name = k.String()
		for _, f := range format.Specs[k].Fields {
			l[k].fields = append(l[k].fields, fieldWire{f, format.FieldWire[f], true})
		}
		d[k] = format.KindDescriptor(k)
	}
	return l, d
}()

type compactStack struct {
	frames []format.Frame
	ent    int // the index in sc.ents
	// The cache's numbering of it in the chunk being read (stamp: the
	// cache's chunk), kept here so that an event reads the stack it names
	// and not the cache's entry too (a cache miss an event: 15 % of the
	// reader's time on the 128 MB synthetic recording).
	stamp int
	local uint32
	cfr   []format.Frame
}

func newCompactRecords(name string, size int) *compactRecords {
	return &compactRecords{name: name, buf: make([]byte, size), limit: -1, slow: !compactFast}
}

// reset makes r decode src, whose first byte is at offset base of the file
// (0: the file's start, with its header), stopping before a chunk at or
// after limit (-1: at the end).
func (r *compactRecords) reset(src io.Reader, base, limit int64, sc *stackCache) {
	version := r.version
	if base == 0 {
		version = 0
	}
	*r = compactRecords{name: r.name, src: src, buf: r.buf, base: base, limit: limit, header: base == 0,
		threads: r.threads[:0], tloc: r.tloc[:0], tlocStamp: -1, stacks: r.stacks[:0], sloc: append(r.sloc[:0], 1), sc: sc, version: version, defs: r.defs, noDefs: r.noDefs, texts: r.texts, slow: r.slow}
}

// setVersion sets the version of the file a piece of which r decodes
// (EachEvent's pieces after the first do not read the header).
func (r *compactRecords) setVersion(v int) { r.version = v }

// endChunk ends the current chunk without its trailer (version 3: a
// marker or the end of the piece came first) and returns the notice.
func (r *compactRecords) endChunk(off int64, why string) *ParseError {
	r.inChunk = false
	pe := &ParseError{File: r.name, Offset: off, Msg: fmt.Sprintf("chunk %d %s, without its trailer: cut or corrupt (%d records read of it)", r.seq, why, r.records)}
	if s := r.skippedMsg(); s != "" {
		pe.Msg += "; " + s
	}
	return pe
}

// skippedMsg says what the chunk's records of kinds this reader does not
// know were, and forgets them.
func (r *compactRecords) skippedMsg() string {
	if len(r.skipped) == 0 {
		return ""
	}
	var kinds []string
	for k, n := range r.skipped {
		kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(kinds)
	clear(r.skipped)
	return fmt.Sprintf("chunk %d: skipped records and fields unknown to this reader (a newer writer's): %s", r.seq, strings.Join(kinds, ", "))
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
		if r.inChunk && r.version >= 3 {
			r.crc = crc32.Update(r.crc, format.Castagnoli, r.buf[r.sumFrom:r.pos])
		}
		r.sumFrom = 0
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
			return r.eofChunk()
		}
		if r.limit >= 0 && r.offset() >= r.limit && r.buf[r.pos] == format.ChunkMarker[0] {
			// Only a chunk starts a batch of EachEvent: the state of the
			// one before does not carry over.
			for r.end-r.pos < len(format.ChunkMarker) && r.fill() {
			}
			if bytes.HasPrefix(r.buf[r.pos:r.end], []byte(format.ChunkMarker)) {
				if r.version >= 3 && r.inChunk && r.wholeChunkRecord() {
					// As next would tell it reading on (the next piece
					// reads the chunk record, and tells it if malformed).
					return r.endChunk(r.offset(), "ends at the next chunk")
				}
				// A chunk record cut by the file's end: read on, as next
				// does, to the cut (this chunk unclosed, what it skipped
				// told); the next piece finds the cut record alone.
				if !(r.version >= 3 && r.inChunk && r.end-r.pos < len(format.ChunkMarker)+1+2*binary.MaxVarintLen64) {
					return errLimit
				}
			}
		}
		off := r.offset()
		n, isEvent, msg := r.decode(ev, r.buf[r.pos:r.end])
		switch {
		case n > 0:
			r.pos += n
			r.lastAt = off
			if r.pending != nil {
				pe := r.pending
				r.pending = nil
				pe.Offset = off
				return pe
			}
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
			clear(r.skipped) // the rest of the chunk is lost with what it skipped (EachEvent's pieces agree)
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
				return r.eofChunk()
			}
		}
	}
}

// wholeChunkRecord reports whether a whole, well-formed chunk record
// (its marker, tag, sequence number and base time) is at r.pos.
func (r *compactRecords) wholeChunkRecord() bool {
	for r.end-r.pos < len(format.ChunkMarker)+1+2*binary.MaxVarintLen64 && r.fill() {
	}
	b := r.buf[r.pos:r.end]
	if len(b) <= len(format.ChunkMarker) || b[len(format.ChunkMarker)] != format.TagChunk {
		return false
	}
	d := dec{b: b, i: len(format.ChunkMarker) + 1}
	d.uv()
	t := d.uv()
	return !d.short && d.bad == "" && t <= math.MaxInt64
}

// eofChunk ends the file: a chunk of version 3 without its trailer is
// unclosed (being written, or cut by a kill; the file's end may be any
// record's), and what it skipped is told; then io.EOF.
func (r *compactRecords) eofChunk() error {
	if r.version >= 3 && r.inChunk {
		r.inChunk, r.unclosed = false, true
		if s := r.skippedMsg(); s != "" {
			return &ParseError{File: r.name, Offset: r.lastAt, Msg: s}
		}
	}
	return io.EOF
}

// readHeader checks the file's first line, format.CompactHeader or
// format.CompactHeaderV2 or format.CompactHeaderV1 (of the same length).
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
	case string(b) == h || string(b) == format.CompactHeaderV2 || string(b) == format.CompactHeaderV1:
		r.version = int(b[len(h)-2] - '0')
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
	r.err = fmt.Errorf("reading %s: header %s: this reader knows %q, %q and %q", r.name, show(b), h[:len(h)-1],
		format.CompactHeaderV2[:len(h)-1], format.CompactHeaderV1[:len(h)-1])
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
	// Values of up to 3 bytes (most fields, and a time delta below 2 ms)
	// without the loop's per-byte checks.
	if b := d.b[d.i:]; len(b) >= 3 {
		switch {
		case b[0] < 0x80:
			d.i++
			return uint64(b[0])
		case b[1] < 0x80:
			d.i += 2
			return uint64(b[0]&0x7F) | uint64(b[1])<<7
		case b[2] < 0x80:
			d.i += 3
			return uint64(b[0]&0x7F) | uint64(b[1]&0x7F)<<7 | uint64(b[2])<<14
		}
	} else if len(b) > 0 && b[0] < 0x80 {
		d.i++
		return uint64(b[0])
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
	if len(b) > 0 && b[0] > format.TagEvent && b[0] < format.TagEvent+byte(format.NumKinds) && !r.slow &&
		(r.layouts == nil || r.layouts[b[0]-format.TagEvent] == nil) {
		if n := r.decodeOwn(ev, b); n > 0 {
			return n, true, ""
		}
	}
	d := dec{b: b}
	tag := d.byte1()
	switch {
	case tag > format.TagEvent && tag != format.ChunkMarker[0]: // kinds 1…: 0 is no kind, 0x4F the marker
		return r.decodeEvent(ev, &d, uint64(tag-format.TagEvent))
	case tag == format.TagCarried:
		t := d.byte1()
		if d.short {
			return 0, false, ""
		}
		if t <= format.TagEvent {
			return 0, false, fmt.Sprintf("carried tag followed by tag 0x%02X, not an event", t)
		}
		n, ok, msg := r.decodeEvent(ev, &d, uint64(t-format.TagEvent))
		ev.Carried = ok
		return n, ok, msg
	case tag == format.TagDescriptor && r.version >= 3:
		return r.decodeDescriptor(&d)
	case tag == format.TagTrailer && r.version >= 3:
		return r.decodeTrailer(&d)
	case tag >= format.TagSkippable && tag < format.TagEvent && r.version >= 3:
		// Method and class definitions (format.TagMethod, TagClass) are
		// kept; the other tags of the range are skipped, and told.
		n := d.uv()
		if d.short || d.bad != "" {
			return 0, false, d.msg()
		}
		if n > maxRecord || uint64(len(d.b)-d.i) < n {
			if n > maxRecord {
				return 0, false, fmt.Sprintf("record tag 0x%02X of %d bytes", tag, n)
			}
			return 0, false, ""
		}
		if !r.inChunk {
			return 0, false, fmt.Sprintf("record tag 0x%02X before any chunk", tag)
		}
		if tag == format.TagMethod || tag == format.TagClass {
			if r.noDefs {
				if _, msg := defID(tag, d.b[d.i:d.i+int(n)]); msg != "" {
					return 0, false, msg
				}
				return d.i + int(n), false, ""
			}
			if r.defs == nil {
				r.defs = &chunkDefs{methods: map[uint32][]byte{}, classes: map[uint32][]byte{}}
			}
			if msg := r.defs.add(tag, d.b[d.i:d.i+int(n)]); msg != "" {
				return 0, false, msg
			}
			return d.i + int(n), false, ""
		}
		r.skip(fmt.Sprintf("record tag 0x%02X", tag))
		return d.i + int(n), false, ""
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
		seq := d.uv() // the sequence number: a chunk reads on its own, whatever it is
		t := d.uv()
		if d.short || d.bad != "" {
			return 0, false, d.msg()
		}
		if t > math.MaxInt64 {
			return 0, false, fmt.Sprintf("chunk base time %d ns: past the largest time", t)
		}
		if r.version >= 3 && r.inChunk {
			// Noticed once this record is read: the chunk goes on.
			r.pending = r.endChunk(0, "ends at the next chunk")
		}
		r.inChunk, r.prev = true, format.Time(t)
		r.threads, r.stacks, r.tloc, r.sloc = r.threads[:0], r.stacks[:0], r.tloc[:0], append(r.sloc[:0], 1)
		clear(r.aliases)
		r.seq, r.chunkAt, r.sumFrom, r.records, r.crc = seq, r.offset(), r.pos, 0, 0
		r.lo, r.hi = math.MaxInt64, -1
		clear(r.layouts)
		r.foreign = false
		clear(r.skipped) // of a chunk cut short by a malformed record, which was told
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
		r.tloc = append(r.tloc, 0)
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
	if r.sc != nil && !r.slow && r.inChunk && id == uint64(len(r.stacks))+1 {
		// A stack the cache holds: its bytes are those of one decoded
		// and checked before, so only their end is looked for.
		if end := varintsEnd(d.b, d.i, 2*int(depth)); end >= 0 {
			if ent, ok := r.sc.seen.get(d.b[depthAt:end]); ok {
				r.addStack(compactStack{ent: ent})
				return end, false, ""
			}
		}
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
	r.addStack(compactStack{frames: frames[:len(frames):len(frames)], ent: ent})
	return d.i, false, ""
}

// skip counts a record skipped as unknown to this reader (what: its kind).
func (r *compactRecords) skip(what string) {
	if r.skipped == nil {
		r.skipped = map[string]int{}
	}
	r.skipped[what]++
}

// wire decodes a value of wire type w: a number, or a text.
func (d *dec) wire(w format.Wire) (uint64, string) {
	switch w {
	case format.WireUV:
		return d.uv(), ""
	case format.WireSV:
		return uint64(d.sv()), ""
	case format.WireU32:
		return uint64(d.u32()), ""
	case format.WireByte:
		return uint64(d.byte1()), ""
	case format.WireText:
		return 0, d.text()
	}
	d.fail("wire type %d", w)
	return 0, ""
}

// decodeDescriptor decodes a kind's descriptor (format.TagDescriptor, after
// its tag): the layout of its records in the chunk.
func (r *compactRecords) decodeDescriptor(d *dec) (int, bool, string) {
	k := d.uv()
	name := d.text()
	n := d.uv()
	if d.short || d.bad != "" {
		return 0, false, d.msg()
	}
	if k == 0 || k > 0xFF-format.TagEvent || n > 64 {
		return 0, false, fmt.Sprintf("descriptor of kind %d with %d fields", k, n)
	}
	l := &kindLayout{name: name}
	for range n {
		f, w := d.byte1(), d.byte1()
		if d.short {
			return 0, false, ""
		}
		if w == 0 || w >= byte(format.NumWires) {
			return 0, false, fmt.Sprintf("descriptor of kind %d (%s): field %d of wire type %d, unknown", k, name, f, w)
		}
		// Known: a field of this kind in the reader's table, of its wire
		// type. Another field (a newer writer's) is skipped, even one the
		// table gives other kinds.
		known := k < uint64(format.NumKinds) && int(f) < len(format.FieldWire) && format.FieldWire[f] == format.Wire(w) &&
			slices.Contains(format.Specs[k].Fields, format.Field(f))
		l.fields = append(l.fields, fieldWire{format.Field(f), format.Wire(w), known})
		if !known && k < uint64(format.NumKinds) {
			l.unknown = append(l.unknown, fmt.Sprintf("field %d of %s", f, name))
		}
	}
	if !r.inChunk {
		return 0, false, "descriptor before any chunk"
	}
	if k < uint64(format.NumKinds) && bytes.Equal(d.b[:d.i], ownDescriptors[k]) {
		l = nil // the reader's own
	}
	if r.layouts == nil {
		r.layouts = make([]*kindLayout, 256)
	}
	r.layouts[k] = l
	r.foreign = r.foreign || l != nil
	return d.i, false, ""
}

// decodeTrailer decodes a chunk's trailer (format.TagTrailer, after its
// tag) and checks it against what was read of the chunk.
func (r *compactRecords) decodeTrailer(d *dec) (int, bool, string) {
	size, records, lo, hi := d.uv(), d.uv(), d.uv(), d.uv()
	at := d.i
	sum := d.u32()
	if d.short || d.bad != "" {
		return 0, false, d.msg()
	}
	if !r.inChunk {
		return 0, false, "chunk trailer outside a chunk"
	}
	crc := crc32.Update(crc32.Update(r.crc, format.Castagnoli, r.buf[r.sumFrom:r.pos]), format.Castagnoli, d.b[:at])
	var bad []string
	if cbytes := r.offset() - r.chunkAt; size != uint64(cbytes) {
		bad = append(bad, fmt.Sprintf("%d bytes read, the trailer says %d", cbytes, size))
	}
	if records != r.records {
		bad = append(bad, fmt.Sprintf("%d records read, the trailer says %d", r.records, records))
	}
	if r.records > 0 && (lo != uint64(r.lo) || hi != uint64(r.hi)) {
		bad = append(bad, fmt.Sprintf("times %d-%d ns read, the trailer says %d-%d", r.lo, r.hi, lo, hi))
	}
	if crc != sum {
		bad = append(bad, fmt.Sprintf("checksum %08X, the trailer says %08X", crc, sum))
	}
	seq := r.seq
	skipped := r.skippedMsg()
	r.inChunk = false
	if bad != nil {
		msg := fmt.Sprintf("chunk %d is torn or corrupt: %s", seq, strings.Join(bad, "; "))
		if skipped != "" {
			msg += "; " + skipped
		}
		return 0, false, msg
	}
	if skipped != "" {
		r.pending = &ParseError{File: r.name, Msg: skipped}
	}
	return d.i, false, ""
}

// decodeEvent decodes an event record of kind k (after its tag) into *ev:
// its fields as the chunk's descriptor of k lays them out, or the reader's
// table; a kind this reader does not know is skipped by its descriptor.
func (r *compactRecords) decodeEvent(ev *Event, d *dec, kind uint64) (int, bool, string) {
	var l *kindLayout
	if r.layouts != nil {
		l = r.layouts[kind]
	}
	known := kind < uint64(format.NumKinds)
	if l == nil {
		if !known {
			if d.short {
				return 0, false, ""
			}
			return 0, false, fmt.Sprintf("unknown record tag 0x%02X", kind+format.TagEvent)
		}
		l = &ownLayouts[kind]
	}
	k := format.Kind(kind)
	*ev = Event{Kind: k} // the whole of it: parseCompact does not zero it first
	if !known {
		ev.Kind = format.KindNone
	}
	delta := d.sv()
	var th, stack uint64
	for _, fw := range l.fields {
		var v uint64
		var text string
		switch fw.w { // d.wire, inlined: this runs for every field of every event
		case format.WireUV:
			v = d.uv()
		case format.WireU32:
			v = uint64(d.u32())
		case format.WireByte:
			v = uint64(d.byte1())
		default:
			v, text = d.wire(fw.w)
		}
		if d.short {
			return 0, false, ""
		}
		if !fw.known {
			continue // a field this reader does not know
		}
		switch fw.f {
		case format.FThread:
			th = v
		case format.FObject:
			ev.Object = format.ObjectID(v)
		case format.FTarget:
			ev.Target = r.thread(uint32(v))
		case format.FOwner:
			ev.Owner = r.thread(uint32(v))
		case format.FLock:
			ev.Owner = format.ThreadID(uint32(v)) // an object, no thread key: Event.Lock
		case format.FStack:
			stack = v
		case format.FName:
			ev.Name = text
		case format.FClass:
			ev.Class = text
		case format.FDepth:
			ev.Depth = int64(v) - 1
			if v > math.MaxInt32 {
				d.fail("depth %d: past the largest", v)
			}
		case format.FTimeout:
			ev.Timeout = int64(v) - 1
			if ev.Timeout < -1 {
				d.fail("timeout past the largest")
			}
		case format.FHow:
			ev.How = format.ParkEnd(v)
			if ev.How >= format.NumParkEnds {
				d.fail("how %d: want 0-%d", ev.How, format.NumParkEnds-1)
			}
		case format.FMode:
			ev.Mode = format.AcquireMode(v)
			if ev.Mode >= format.NumModes {
				d.fail("mode %d: want 0-%d", ev.Mode, format.NumModes-1)
			}
		case format.FSampled:
			ev.Sampled = format.SampleKind(v)
			if ev.Sampled >= format.NumSampleKinds {
				d.fail("sampled %d: want 0-%d", ev.Sampled, format.NumSampleKinds-1)
			}
		case format.FWeight, format.FCPU, format.FReady:
			if v > math.MaxInt64 {
				d.fail("%s %d: past the largest", fieldNames[fw.f], v)
			}
			switch fw.f {
			case format.FWeight:
				ev.Weight = int64(v)
			case format.FCPU:
				ev.CPU = int64(v)
			default:
				ev.Ready = int64(v)
			}
		}
	}
	if d.short {
		return 0, false, ""
	}
	if d.bad != "" {
		return 0, false, l.name + ": " + d.bad
	}
	if !r.inChunk {
		return 0, false, l.name + " before any chunk"
	}
	if !known {
		// Its time still moves the chunk's clock (the deltas chain).
		t := int64(r.prev) + delta
		if (delta > 0 && t < int64(r.prev)) || t < 0 {
			return 0, false, fmt.Sprintf("%s: time %d ns %+d: out of range", l.name, r.prev, delta)
		}
		r.prev = format.Time(t)
		r.records++
		r.lo, r.hi = min(r.lo, r.prev), max(r.hi, r.prev)
		r.skip(fmt.Sprintf("%s (kind %d)", l.name, kind))
		return d.i, false, ""
	}
	for _, u := range l.unknown {
		r.skip(u)
	}
	if th == 0 || th > uint64(len(r.threads)) {
		return 0, false, fmt.Sprintf("%s: thread index %d not defined in the chunk (%d are)", k, th, len(r.threads))
	}
	ev.Thread = r.threads[th-1]
	t := int64(r.prev) + delta
	if (delta > 0 && t < int64(r.prev)) || t < 0 {
		return 0, false, fmt.Sprintf("%s: time %d ns %+d: out of range", k, r.prev, delta)
	}
	if stack > uint64(len(r.stacks)) {
		return 0, false, fmt.Sprintf("%s: stack id %d not defined in the chunk (%d are)", k, stack, len(r.stacks))
	}
	r.timed(ev, format.Time(t), stack)
	return d.i, true, ""
}

// addStack adds the chunk's next stack definition.
func (r *compactRecords) addStack(s compactStack) {
	if len(r.sloc) == 0 {
		r.sloc = append(r.sloc, 1)
	}
	r.stacks = append(r.stacks, s)
	r.sloc = append(r.sloc, 0)
}

// tlocFor makes r.tloc and r.sloc the numbers of the chunkThreads and
// chunkStacks of stamp (the stack cache's: its chunk's), clearing them
// when they were another's.
func (r *compactRecords) tlocFor(stamp int) {
	if r.tlocStamp != stamp {
		clear(r.tloc)
		clear(r.sloc)
		if len(r.sloc) > 0 {
			r.sloc[0] = 1
		}
		r.tlocStamp = stamp
	}
}

// threadNum numbers the chunk's thread th (1-based, defined) in the stack
// cache's chunkThreads, and returns its number + 1 (r.tloc's).
func (r *compactRecords) threadNum(th uint64) uint32 {
	r.tlocFor(r.sc.stamp)
	n := r.sc.chunk.threads.number(r.threads[th-1]) + 1
	r.tloc[th-1] = n
	return n
}

// stackNum numbers the chunk's stack s (1-based, defined) in the stack
// cache's chunkStacks, and returns its number + 1 (r.sloc's).
func (r *compactRecords) stackNum(s uint64) uint32 {
	r.tlocFor(r.sc.stamp)
	_, n := r.sc.number(r.stacks[s-1].ent)
	r.sloc[s] = n + 1
	return n + 1
}
