package format

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"unicode/utf8"
)

// The compact encoding of .orca (docs/format.md, "The compact encoding"):
// a header line, then binary records; threads and stacks are defined once
// per chunk and referred to by a small number, times are deltas.

// Encoding is how a .orca file is written.
type Encoding uint8

// The encodings of .orca.
const (
	EncodingSeed    Encoding = iota // the seed's text: one line an event (the default)
	EncodingCompact                 // binary records (issue 23)
	NumEncodings
)

var encodingNames = [NumEncodings]string{"seed", "compact"}

// String returns the encoding's name, the value of .info's InfoEncoding.
func (e Encoding) String() string {
	if e >= NumEncodings {
		return fmt.Sprintf("encoding(%d)", e)
	}
	return encodingNames[e]
}

// ParseEncoding returns the encoding named s ("seed", "compact").
func ParseEncoding(s string) (Encoding, bool) {
	for i, n := range encodingNames {
		if n == s {
			return Encoding(i), true
		}
	}
	return 0, false
}

// The bytes of the compact encoding.
const (
	// CompactHeader begins a compact .orca (a text one begins with a digit):
	// version 3, whose chunks describe their kinds (TagDescriptor) and end
	// with a trailer (TagTrailer). Readers read versions 2 (CompactHeaderV2:
	// the same records but those two) and 1 (CompactHeaderV1: nor aliases)
	// too.
	CompactHeader   = "orca-compact 3\n"
	CompactHeaderV2 = "orca-compact 2\n"
	CompactHeaderV1 = "orca-compact 1\n"
	// ChunkMarker precedes every chunk record: a reader resynchronises at
	// the next one after a malformed record.
	ChunkMarker = "ORCACHNK"
	TagChunk    = 0x01 // uv sequence number, uv base time (ns)
	TagThread   = 0x02 // uv index, u32 hash
	TagStack    = 0x03 // uv id, uv depth, per frame uv method, uv location+1 (0: native)
	TagCarried  = 0x04 // before an event record: it restates an earlier chunk's fact (not an event)
	TagAlias    = 0x05 // u32 key (AliasBit set), u32 hash, uv rank: a thread's key in thread fields (version 2)
	// TagDescriptor describes a kind before its first record in the chunk
	// (version 3): uv kind, text name, uv fields, per field its code
	// (Field) and its wire type (Wire) a byte each (KindDescriptor).
	TagDescriptor = 0x06
	// TagTrailer closes a chunk (version 3): uv bytes of the chunk (from its
	// marker to this tag), uv event records (carried ones too), uv the
	// earliest and uv the latest of their times (ns), u32 the CRC-32C of
	// the chunk's bytes and of the trailer's before it.
	TagTrailer = 0x07
	// Tags TagSkippable to TagEvent-1 are records a reader that does not
	// know them skips: a uv length and that many bytes (version 3).
	TagSkippable = 0x08
	// TagMethod and TagClass define in the chunk a method and a class its
	// stacks name (version 3, skippable: a uv length, then the method's
	// .methods line or the class's .classtable line without its line
	// break), before the first stack of the chunk with the method, the
	// class before its method: a chunk file copied alone names its frames.
	TagMethod = 0x08
	TagClass  = 0x09
	TagEvent  = 0x10 // + Kind: sv time delta, uv thread index, the kind's other fields
)

// AliasBit is set in a thread field of a compact .orca (a thread record's,
// a target's, an owner's) that is an alias: a key that a TagAlias record of
// the chunk defines as a hash and a rank (docs/format.md, "Thread
// aliases"). No identity hash has it (HotSpot's have 31 bits).
const AliasBit = 1 << 31

// ChunkFileName is the name of chunk file seq of a bounded recording
// (docs/format.md, "Bounded recordings"): PREFIX.orca.000001, …
func ChunkFileName(prefix string, seq uint64) string {
	return fmt.Sprintf("%s%s.%06d", prefix, SuffixEvents, seq)
}

// DefaultChunkBytes is how large a Writer lets a compact chunk grow before
// it starts the next one (Options.ChunkBytes).
const DefaultChunkBytes = 1 << 20

// maxStacksKept bounds the stacks a compact Writer remembers across chunks
// (it forgets them all at a chunk's start when it holds more).
const maxStacksKept = 1 << 16

// compact is a Writer's state for the compact encoding.
type compact struct {
	chunkBytes int64
	seq        uint64 // the current chunk, 0 before the first
	inChunk    int64  // bytes of it so far
	// stateBytes: the bytes of the chunk's record and the state it
	// restates; the chunk ends once it holds chunkBytes and four times
	// these, as the agent's (compact_due): with more live threads than a
	// chunk's bytes hold, a chunk would otherwise hold its state and one
	// event, and the next one the same state again.
	stateBytes int64
	small      bool // Options.SmallChunks: stateBytes is not counted
	prev       Time // the time of the chunk's last event
	threads    map[ThreadID]uint64
	aliases    map[ThreadID]*compactAlias
	stacks     map[string]*compactStack // by the stack's text (EncodeStack)
	nstacks    uint64                   // stacks defined in the chunk
	key        []byte
	// The chunk's trailer (TagTrailer): its event records, their times'
	// span and the CRC-32C of its bytes so far; described: the chunk that
	// last described each kind.
	records   uint64
	lo, hi    Time
	crc       uint32
	described [NumKinds]uint64
	v2        bool // version 2: no descriptors, no trailers (Options.CompactVersion)
	// The lines of .methods and .classtable written (Writer.Method,
	// Writer.Class), by id, without their line breaks, and the chunk that
	// last defined each (TagMethod, TagClass).
	methods map[MethodID]*compactDef
	classes map[ClassID]*compactDef
	// live, when the chunks restate the state at their start
	// (Options.Restate): what to restate; factIn, the chunk that last gave
	// each object's class.
	live   *LiveState[Event]
	factIn map[ObjectID]uint64
}

// compactDef is a method's or a class's line and the chunk that last
// defined it (0: none).
type compactDef struct {
	line  []byte
	class ClassID // a method's
	chunk uint64
}

// compactAlias is the key of a thread that a thread field cannot name by
// its hash: one not the first of its hash (Rank > 0), or a hash with
// AliasBit.
type compactAlias struct {
	key   uint32
	chunk uint64 // the chunk it was last defined in
}

type compactStack struct {
	frames []Frame
	chunk  uint64 // the chunk it was last defined in
	id     uint64 // its id there
}

func newCompact(chunkBytes int) *compact {
	if chunkBytes <= 0 {
		chunkBytes = DefaultChunkBytes
	}
	return &compact{chunkBytes: int64(chunkBytes), threads: map[ThreadID]uint64{}, aliases: map[ThreadID]*compactAlias{},
		stacks: map[string]*compactStack{}, methods: map[MethodID]*compactDef{}, classes: map[ClassID]*compactDef{}}
}

// define appends the definitions of the methods of frames, and of their
// classes, that the chunk has not defined and a line of .methods
// describes (version 3).
func (c *compact) define(b []byte, frames []Frame) []byte {
	if c.v2 {
		return b
	}
	for _, f := range frames {
		m := c.methods[f.Method]
		if m == nil || m.chunk == c.seq {
			continue
		}
		m.chunk = c.seq
		if cl := c.classes[m.class]; cl != nil && cl.chunk != c.seq {
			cl.chunk = c.seq
			b = appendDef(b, TagClass, cl.line)
		}
		b = appendDef(b, TagMethod, m.line)
	}
	return b
}

func appendDef(b []byte, tag byte, line []byte) []byte {
	b = append(b, tag)
	b = AppendUvarint(b, uint64(len(line)))
	return append(b, line...)
}

// AppendUvarint appends v as an unsigned LEB128 varint (uv).
func AppendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

// AppendSvarint appends v zigzag-encoded as an unsigned varint (sv).
func AppendSvarint(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }

// appendEvent appends e's records: the file's header, a chunk, the
// thread's and the stack's definitions when due, and the event. e.Kind is
// valid and e.Time not negative (Writer checks).
func (c *compact) appendEvent(b []byte, e *Event) ([]byte, error) {
	start := len(b)
	if c.seq == 0 {
		if c.v2 {
			b = append(b, CompactHeaderV2...)
		} else {
			b = append(b, CompactHeader...)
		}
		start = len(b)
	}
	if c.seq == 0 || c.inChunk >= max(c.chunkBytes, 4*c.stateBytes) {
		if c.seq > 0 && !c.v2 {
			b = c.appendTrailer(b)
			start = len(b)
		}
		c.seq++
		c.inChunk, c.prev, c.nstacks = 0, e.Time, 0
		c.records, c.lo, c.hi, c.crc = 0, e.Time, e.Time, 0
		clear(c.threads)
		if len(c.stacks) > maxStacksKept {
			clear(c.stacks)
		}
		b = append(b, ChunkMarker...)
		b = append(b, TagChunk)
		b = AppendUvarint(b, c.seq)
		b = AppendUvarint(b, uint64(e.Time))
		c.crc = crc32.Update(c.crc, Castagnoli, b[start:])
		c.inChunk += int64(len(b) - start)
		start = len(b)
		if c.live != nil && c.seq > 1 {
			// The state of every live thread at the chunk's start, as the
			// agent writes it, so that a reader may start here (a time
			// range: reader.Span).
			var err error
			c.live.Restate(func(th ThreadID, x *Event) {
				if err == nil {
					x.Time = e.Time
					if x.Kind.Fact() {
						x.Thread = th
					}
					b, err = c.appendRecord(b, x, true)
				}
			})
			if err != nil {
				return b[:start], err
			}
			start = len(b)
		}
		if !c.small {
			c.stateBytes = c.inChunk
		}
		if c.factIn == nil || len(c.factIn) > maxLiveFacts {
			c.factIn = map[ObjectID]uint64{}
		}
	}
	if c.live != nil && e.Kind.Has(FObject) && e.Object != 0 && c.seq > 1 && !e.Kind.Fact() {
		// The object's class, when an earlier chunk wrote it and this one
		// has not, restated before the event (as the agent does).
		if in := c.factIn[e.Object]; in != c.seq {
			c.factIn[e.Object] = c.seq
			if cls, clinit, cond := c.live.Facts(e.Object); cls != nil || clinit != nil || cond != nil {
				var err error
				for _, x := range []*Event{cls, clinit, cond} {
					if x != nil && err == nil {
						y := *x
						y.Thread, y.Time = e.Thread, e.Time
						b, err = c.appendRecord(b, &y, true)
					}
				}
				if err != nil {
					return b[:start], err
				}
				start = len(b)
			}
		}
	}
	b, err := c.appendRecord(b, e, false)
	if err != nil {
		return b[:start], err
	}
	if c.live != nil {
		if e.Kind.Fact() {
			c.factIn[e.Object] = c.seq
		}
		if e.Kind.End() != KindNone || e.Kind.Begin() != KindNone || e.Kind == ThreadStarted || e.Kind == ThreadEnded ||
			e.Kind == VirtualThreadMounted || e.Kind == ObjectWaitTimeout || e.Kind == VirtualThreadPinned ||
			e.Kind.Fact() {
			k := *e
			k.Stack = append([]Frame(nil), e.Stack...) // the caller's to reuse
			c.live.Track(&k)
		}
	}
	return b, nil
}

// appendRecord appends e's records: the thread's and the stack's
// definitions when due, the kind's descriptor, and the event, carried
// (TagCarried) or not.
func (c *compact) appendRecord(b []byte, e *Event, carried bool) ([]byte, error) {
	start := len(b)
	spec := &Specs[e.Kind]
	// The aliases of the event's threads, defined before the records that
	// use them.
	var target, owner uint32
	b, self := c.alias(b, e.Thread)
	for _, f := range spec.Fields {
		switch f {
		case FTarget:
			b, target = c.alias(b, e.Target)
		case FOwner:
			b, owner = c.alias(b, e.Owner)
		}
	}
	thread, ok := c.threads[e.Thread]
	if !ok {
		thread = uint64(len(c.threads) + 1)
		c.threads[e.Thread] = thread
		b = append(b, TagThread)
		b = AppendUvarint(b, thread)
		b = binary.LittleEndian.AppendUint32(b, self)
	}
	var stack uint64
	if e.Kind.Has(FStack) {
		var err error
		if b, stack, err = c.stack(b, e); err != nil {
			return b[:start], err
		}
	}
	if c.described[e.Kind] != c.seq && !c.v2 {
		c.described[e.Kind] = c.seq
		b = append(b, descriptors[e.Kind]...)
	}
	if carried {
		b = append(b, TagCarried)
	}
	b = append(b, TagEvent+byte(e.Kind))
	b = AppendSvarint(b, int64(e.Time-c.prev))
	c.prev = e.Time
	// Each field as its wire type says (FieldWire).
	for _, f := range spec.Fields {
		var v uint64
		var text string
		switch f {
		case FThread:
			v = thread
		case FObject:
			v = uint64(e.Object)
		case FTarget:
			v = uint64(target)
		case FOwner:
			v = uint64(owner)
		case FLock:
			v = uint64(e.Lock)
		case FStack:
			v = stack
		case FName:
			text = e.Name
		case FClass:
			text = e.Class
		case FTimeout:
			if e.Timeout >= 0 { // else 0: none
				v = uint64(e.Timeout) + 1
			}
		case FHow:
			if e.How < NumParkEnds {
				v = uint64(e.How)
			}
		case FMode:
			if e.Mode < NumModes {
				v = uint64(e.Mode)
			}
		case FSampled:
			if e.Sampled < NumSampleKinds {
				v = uint64(e.Sampled)
			}
		case FWeight:
			v = uint64(max(e.Weight, 0))
		case FCPU:
			v = uint64(max(e.CPU, 0))
		case FReady:
			v = uint64(max(e.Ready, 0))
		case FDepth:
			if e.Depth >= 0 { // else 0: not known
				v = uint64(e.Depth) + 1
			}
		}
		b = appendWire(b, FieldWire[f], v, text)
	}
	c.records++
	c.lo, c.hi = min(c.lo, e.Time), max(c.hi, e.Time)
	c.crc = crc32.Update(c.crc, Castagnoli, b[start:])
	c.inChunk += int64(len(b) - start)
	return b, nil
}

// descriptors are the kinds' descriptor records (KindDescriptor).
var descriptors = func() (d [NumKinds][]byte) {
	for k := Kind(1); k < NumKinds; k++ {
		d[k] = KindDescriptor(k)
	}
	return d
}()

// appendWire appends a field's value as wire type w: v, or text for
// WireText.
func appendWire(b []byte, w Wire, v uint64, text string) []byte {
	switch w {
	case WireUV:
		return AppendUvarint(b, v)
	case WireSV:
		return AppendSvarint(b, int64(v))
	case WireU32:
		return binary.LittleEndian.AppendUint32(b, uint32(v))
	case WireByte:
		return append(b, byte(v))
	case WireText:
		return appendCompactText(b, text)
	}
	panic(fmt.Sprintf("format: wire type %d", w))
}

// appendTrailer appends the current chunk's trailer (TagTrailer).
func (c *compact) appendTrailer(b []byte) []byte {
	start := len(b)
	b = append(b, TagTrailer)
	b = AppendUvarint(b, uint64(c.inChunk))
	b = AppendUvarint(b, c.records)
	b = AppendUvarint(b, uint64(c.lo))
	b = AppendUvarint(b, uint64(c.hi))
	return binary.LittleEndian.AppendUint32(b, crc32.Update(c.crc, Castagnoli, b[start:]))
}

// close writes the last chunk's trailer to w, if a chunk was begun.
func (c *compact) close(w io.Writer) (int, error) {
	if c.seq == 0 || c.inChunk == 0 || c.v2 {
		return 0, nil
	}
	b := c.appendTrailer(nil)
	c.inChunk = 0
	return w.Write(b)
}

// alias returns what a thread field writes for t: its hash, or its alias
// key, appending the alias's definition when the chunk has none yet.
func (c *compact) alias(b []byte, t ThreadID) ([]byte, uint32) {
	if t.Rank() == 0 && t.Hash()&AliasBit == 0 {
		return b, t.Hash()
	}
	a := c.aliases[t]
	if a == nil {
		a = &compactAlias{key: AliasBit | uint32(len(c.aliases)+1)}
		c.aliases[t] = a
	}
	if a.chunk != c.seq {
		a.chunk = c.seq
		b = append(b, TagAlias)
		b = binary.LittleEndian.AppendUint32(b, a.key)
		b = binary.LittleEndian.AppendUint32(b, t.Hash())
		b = AppendUvarint(b, uint64(t.Rank()))
	}
	return b, a.key
}

// stack returns e's stack id in the chunk, appending its definition when it
// has none there yet.
func (c *compact) stack(b []byte, e *Event) ([]byte, uint64, error) {
	var key string
	if e.EncodedStack != "" {
		key = e.EncodedStack
	} else {
		if len(e.Stack) == 0 {
			return b, 0, nil
		}
		c.key = AppendStack(c.key[:0], e.Stack)
	}
	var s *compactStack
	if key != "" {
		s = c.stacks[key]
	} else {
		s = c.stacks[string(c.key)] // no allocation for the lookup
	}
	if s == nil {
		frames := e.Stack
		if key != "" {
			var ok bool
			if frames, ok = ParseStack(key); !ok {
				return b, 0, fmt.Errorf("%s at %d ns: stack %q: want depth;methodID;location;…", e.Kind, e.Time, key)
			}
		} else {
			key = string(c.key)
		}
		s = &compactStack{frames: append([]Frame(nil), frames...)}
		c.stacks[key] = s
	}
	if len(s.frames) == 0 {
		return b, 0, nil
	}
	if s.chunk != c.seq {
		c.nstacks++
		s.chunk, s.id = c.seq, c.nstacks
		b = c.define(b, s.frames)
		b = append(b, TagStack)
		b = AppendUvarint(b, s.id)
		b = AppendUvarint(b, uint64(len(s.frames)))
		for _, f := range s.frames {
			b = AppendUvarint(b, uint64(f.Method))
			b = AppendUvarint(b, uint64(f.Location+1)) // NoLocation wraps to 0
		}
	}
	return b, s.id, nil
}

// appendCompactText appends a text as its byte length and its UTF-8 bytes
// (invalid UTF-8 replaced, as in the text encoding).
func appendCompactText(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	b = AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// ParseStack decodes a stack field as AppendStack writes it
// (depth;methodID;location;…, 1-8 hex digits each), for writers given
// Event.EncodedStack.
func ParseStack(s string) ([]Frame, bool) {
	d, rest, _ := strings.Cut(s, ";")
	depth := 0
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' || i >= 9 {
			return nil, false
		}
		depth = depth*10 + int(d[i]-'0')
	}
	if d == "" || depth == 0 && len(d) != len(s) || 4*depth > len(rest)+1 {
		return nil, false
	}
	if depth == 0 {
		return nil, true
	}
	frames := make([]Frame, depth)
	for i := range frames {
		var m, l uint32
		var ok bool
		if m, rest, ok = cutHex(rest); !ok {
			return nil, false
		}
		if l, rest, ok = cutHex(rest); !ok {
			return nil, false
		}
		frames[i] = Frame{Method: MethodID(m), Location: l}
	}
	return frames, rest == "" && !strings.HasSuffix(s, ";")
}

// cutHex decodes the hex number of 1-8 digits before s's first ';'.
func cutHex(s string) (uint32, string, bool) {
	h, rest, _ := strings.Cut(s, ";")
	if h == "" || len(h) > 8 {
		return 0, "", false
	}
	var v uint32
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			return 0, "", false
		}
		v = v<<4 | uint32(c)
	}
	return v, rest, true
}
