// Package jfr reads JDK Flight Recorder files (format 2.x, JDK 11 and
// later), one chunk at a time: the chunk header, the metadata event that
// describes every type and field, the constant pools, and events, decoded
// field by field from their type's metadata. It trusts nothing in the file:
// every count is checked against the bytes left before anything is
// allocated or looped over, so damaged input costs an *Error, never a
// panic, a hang or an allocation the input does not pay for.
package jfr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// HeaderSize is the size of a chunk header.
const HeaderSize = 68

// Header is a chunk's fixed header (big-endian on disk).
type Header struct {
	Major, Minor   uint16
	Size           int64 // of the chunk, header included
	ConstantPool   int64 // offset in the chunk of the last checkpoint event
	Metadata       int64 // offset in the chunk of the metadata event
	StartNanos     int64 // wall clock at the chunk's start, ns since the Unix epoch
	DurationNanos  int64
	StartTicks     int64 // the tick counter at the chunk's start
	TicksPerSecond int64
	State          byte // 0 once the chunk is complete; else the JVM was still writing it
	Flags          byte // bit 0: integers compressed; bit 1: the recording's last chunk
}

const (
	flagCompressed = 1
	magic          = "FLR\x00"
)

func parseHeader(b []byte) (Header, error) {
	if string(b[:4]) != magic {
		return Header{}, fmt.Errorf("not a JFR chunk: starts with %q, want \"FLR\\x00\"", b[:4])
	}
	h := Header{
		Major:          uint16(b[4])<<8 | uint16(b[5]),
		Minor:          uint16(b[6])<<8 | uint16(b[7]),
		Size:           be64(b[8:]),
		ConstantPool:   be64(b[16:]),
		Metadata:       be64(b[24:]),
		StartNanos:     be64(b[32:]),
		DurationNanos:  be64(b[40:]),
		StartTicks:     be64(b[48:]),
		TicksPerSecond: be64(b[56:]),
		State:          b[64],
		Flags:          b[67],
	}
	switch {
	case h.Major != 2:
		return h, fmt.Errorf("JFR format %d.%d: only 2.x (JDK 11 and later) is supported", h.Major, h.Minor)
	case h.State != 0 || h.Size == 0:
		return h, fmt.Errorf("chunk still being written (state %d, size %d): the JVM had not finished it", h.State, h.Size)
	case h.Flags&flagCompressed == 0:
		return h, fmt.Errorf("integers not compressed (flags %#x): only the JDK's compressed encoding is supported", h.Flags)
	case h.Size < HeaderSize:
		return h, fmt.Errorf("chunk size %d is smaller than its header", h.Size)
	case h.Metadata < HeaderSize || h.Metadata >= h.Size:
		return h, fmt.Errorf("metadata offset %d outside the chunk (size %d)", h.Metadata, h.Size)
	case h.ConstantPool < HeaderSize || h.ConstantPool >= h.Size:
		return h, fmt.Errorf("constant pool offset %d outside the chunk (size %d)", h.ConstantPool, h.Size)
	case h.TicksPerSecond <= 0:
		return h, fmt.Errorf("ticks per second %d", h.TicksPerSecond)
	}
	return h, nil
}

// TicksToNanos converts a reading of the chunk's tick counter to nanoseconds
// on the same counter (JVM-relative, not the wall clock).
func (h *Header) TicksToNanos(ticks int64) int64 {
	neg := ticks < 0
	u := uint64(ticks)
	if neg {
		u = -u
	}
	tps := uint64(h.TicksPerSecond)
	q, r := u/tps, u%tps
	hi, lo := bits.Mul64(r, 1e9)
	frac, _ := bits.Div64(hi, lo, tps) // r < tps, so hi < tps: no overflow
	ns := int64(q*1e9 + frac)
	if neg {
		return -ns
	}
	return ns
}

// Error is damage found in a recording.
type Error struct {
	Chunk  int   // 0-based index of the chunk
	Offset int64 // in the file, where the damage was found
	// Lost is how many bytes of the file could not be read because of this
	// damage, or -1 when the rest of the file is lost (no later chunk can be
	// found).
	Lost int64
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("chunk %d at byte %d: %s", e.Chunk+1, e.Offset, e.Msg)
}

// Reader reads a recording chunk by chunk, holding one chunk in memory.
type Reader struct {
	r     io.Reader
	off   int64 // bytes consumed
	size  int64 // of the file, -1 if unknown
	n     int   // chunks started
	stuck error // the rest of the file cannot be read
	want  map[string]bool
}

// NewReader returns a reader of the recording r of size bytes (-1 when
// unknown; knowing it lets a cut-short chunk fail before it is read). Only
// events whose type is named in want are decoded; the others are skipped.
func NewReader(r io.Reader, size int64, want ...string) *Reader {
	w := make(map[string]bool, len(want))
	for _, n := range want {
		w[n] = true
	}
	return &Reader{r: r, size: size, want: w}
}

// Offset returns how many bytes of the file have been read.
func (r *Reader) Offset() int64 { return r.off }

// NextChunk reads the next chunk with its metadata and constant pools. It
// returns io.EOF after the last chunk. A damaged chunk returns an *Error; if
// its Lost is not -1 the reader has skipped the chunk and the next call
// reads the one after; otherwise every later call returns io.EOF.
func (r *Reader) NextChunk() (*Chunk, error) {
	if r.stuck != nil {
		return nil, io.EOF
	}
	start := r.off
	idx := r.n
	fail := func(lost int64, format string, args ...any) (*Chunk, error) {
		err := &Error{Chunk: idx, Offset: start, Lost: lost, Msg: fmt.Sprintf(format, args...)}
		if lost < 0 {
			r.stuck = err
		}
		return nil, err
	}
	var hb [HeaderSize]byte
	n, err := io.ReadFull(r.r, hb[:])
	r.off += int64(n)
	switch {
	case err == io.EOF:
		return nil, io.EOF
	case err == io.ErrUnexpectedEOF:
		return fail(-1, "file ends %d bytes into the chunk header (cut short?)", n)
	case err != nil:
		return fail(-1, "reading: %v", err)
	}
	r.n++
	h, err := parseHeader(hb[:])
	if err != nil {
		return fail(-1, "%v", err)
	}
	if r.size >= 0 && h.Size > r.size-start {
		return fail(-1, "the file ends %d bytes into this %d-byte chunk (cut short, or the JVM was still writing it)", r.size-start, h.Size)
	}
	data, err := readChunk(r.r, hb[:], h.Size)
	r.off += int64(len(data) - HeaderSize)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fail(-1, "the file ends %d bytes into this %d-byte chunk (cut short, or the JVM was still writing it)", len(data), h.Size)
		}
		return fail(-1, "reading: %v", err)
	}
	c, err := newChunk(idx, start, h, data, r.want)
	if err != nil {
		return fail(h.Size, "%v", err)
	}
	return c, nil
}

// readChunk reads the rest of a chunk after its header. Memory grows with
// the bytes that really arrive, so a bogus size in a short file costs an
// error, not an allocation of that size.
func readChunk(r io.Reader, header []byte, size int64) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(int(min(size, 16<<20)))
	b.Write(header)
	_, err := io.CopyN(&b, r, size-HeaderSize)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return b.Bytes(), err
}

// Chunk is one chunk of a recording: its types, constant pools and events.
type Chunk struct {
	Index  int   // 0-based
	Offset int64 // of the chunk in the file
	Header Header
	Types  map[int64]*Type

	byName map[string]*Type
	pools  map[int64]map[int64]Value // type id → key → value
	data   []byte
	pos    int
	want   map[int64]bool
}

func newChunk(idx int, off int64, h Header, data []byte, want map[string]bool) (*Chunk, error) {
	types, err := readMetadata(data, h.Metadata)
	if err != nil {
		return nil, err
	}
	c := &Chunk{Index: idx, Offset: off, Header: h, Types: types, data: data, pos: HeaderSize,
		byName: make(map[string]*Type, len(types)), want: map[int64]bool{}}
	for id, t := range types {
		c.byName[t.Name] = t
		if want[t.Name] {
			c.want[id] = true
		}
	}
	if err := c.readPools(); err != nil {
		return nil, err
	}
	return c, nil
}

// Event type ids fixed by the format.
const (
	typeMetadata   = 0
	typeCheckpoint = 1
)

// readPools walks the checkpoint events from the last one back to the first
// (each gives the distance to the previous) and loads their constants.
func (c *Chunk) readPools() error {
	c.pools = map[int64]map[int64]Value{}
	seen := map[int64]bool{}
	for pos := c.Header.ConstantPool; ; {
		if seen[pos] {
			return fmt.Errorf("constant pools: checkpoint chain loops back to offset %d", pos)
		}
		seen[pos] = true
		if pos < HeaderSize || pos >= int64(len(c.data)) {
			return fmt.Errorf("constant pools: checkpoint offset %d outside the chunk", pos)
		}
		d, typ, err := c.eventAt(int(pos))
		if err != nil {
			return fmt.Errorf("constant pools: checkpoint at %d: %w", pos, err)
		}
		if typ != typeCheckpoint {
			return fmt.Errorf("constant pools: event at %d has type %d, want a checkpoint (1)", pos, typ)
		}
		delta, err := c.readCheckpoint(d)
		if err != nil {
			return fmt.Errorf("constant pools: checkpoint at %d: %w", pos, err)
		}
		if delta == 0 {
			return nil
		}
		pos += delta
	}
}

// eventAt decodes the size and type of the event at pos and returns a
// decoder limited to it, positioned after the type.
func (c *Chunk) eventAt(pos int) (*decoder, int64, error) {
	d := &decoder{b: c.data, pos: pos, end: len(c.data)}
	v, err := d.varint()
	if err != nil {
		return nil, 0, fmt.Errorf("event size: %w", err)
	}
	// The size counts itself.
	if v > uint64(len(c.data)-pos) {
		return nil, 0, fmt.Errorf("event size %d runs past the chunk's end (%d bytes left)", v, len(c.data)-pos)
	}
	size := int(v)
	d.end = pos + size
	if d.pos >= d.end {
		return nil, 0, fmt.Errorf("event size %d", size)
	}
	typ, err := d.long()
	if err != nil {
		return nil, 0, fmt.Errorf("event type: %w", err)
	}
	return d, typ, nil
}

func (c *Chunk) readCheckpoint(d *decoder) (delta int64, err error) {
	for _, what := range []string{"start time", "duration", "delta"} {
		if delta, err = d.long(); err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
	}
	if _, err := d.byte(); err != nil { // checkpoint kind (flush, …)
		return 0, err
	}
	npools, err := d.count(2)
	if err != nil {
		return 0, fmt.Errorf("pool count: %w", err)
	}
	for range npools {
		id, err := d.long()
		if err != nil {
			return 0, err
		}
		t := c.Types[id]
		if t == nil {
			return 0, fmt.Errorf("pool of unknown type %d", id)
		}
		n, err := d.count(2)
		if err != nil {
			return 0, fmt.Errorf("pool %s: %w", t.Name, err)
		}
		pool := c.pools[id]
		if pool == nil {
			pool = make(map[int64]Value, n)
			c.pools[id] = pool
		}
		for range n {
			key, err := d.long()
			if err != nil {
				return 0, fmt.Errorf("pool %s: %w", t.Name, err)
			}
			v, err := scalar(d, t, false, 0)
			if err != nil {
				return 0, fmt.Errorf("pool %s, key %d: %w", t.Name, key, err)
			}
			if _, dup := pool[key]; !dup {
				pool[key] = v
			}
		}
	}
	return delta, nil
}

// Event is one decoded event.
type Event struct {
	Type   *Type
	Fields []Value // in Type.Fields order
	Offset int64   // in the file
}

// Next returns the chunk's next event of a wanted type, or io.EOF after the
// last. A damaged event returns an *Error whose Lost counts the rest of the
// chunk, which is then abandoned (the next call returns io.EOF).
func (c *Chunk) Next() (Event, error) {
	for c.pos < len(c.data) {
		start := c.pos
		d, typ, err := c.eventAt(start)
		if err != nil {
			c.pos = len(c.data)
			return Event{}, c.errorAt(start, "%v", err)
		}
		c.pos = d.end
		if typ == typeMetadata || typ == typeCheckpoint || !c.want[typ] {
			continue
		}
		t := c.Types[typ]
		vs := make([]Value, len(t.Fields))
		for i := range t.Fields {
			if vs[i], err = field(d, &t.Fields[i], 0); err != nil {
				c.pos = len(c.data)
				return Event{}, c.errorAt(start, "%s: field %s: %v", t.Name, t.Fields[i].Name, err)
			}
		}
		return Event{Type: t, Fields: vs, Offset: c.Offset + int64(start)}, nil
	}
	return Event{}, io.EOF
}

func (c *Chunk) errorAt(pos int, format string, args ...any) *Error {
	return &Error{Chunk: c.Index, Offset: c.Offset + int64(pos), Lost: int64(len(c.data) - pos),
		Msg: fmt.Sprintf(format, args...)}
}

// Resolve returns the value a constant-pool reference stands for (v itself
// when it is not a reference), and false when the pool has no such key —
// JFR writes key 0 for null.
func (c *Chunk) Resolve(t *Type, v Value) (Value, bool) {
	if !v.Ref {
		return v, true
	}
	if t.prim == primString {
		t = c.byName["java.lang.String"]
		if t == nil {
			return Value{}, false
		}
	}
	r, ok := c.pools[t.ID][v.Int]
	return r, ok
}
