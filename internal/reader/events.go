package reader

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"orca/internal/format"
)

// ParseError is a malformed line. Reading can continue after it.
type ParseError struct {
	File string
	Line int // 1-based; for a record spanning lines, its first line; 0 in a compact .orca
	// Offset is the byte offset of the malformed record in a compact
	// .orca (Line is 0 there: records are not lines).
	Offset int64
	Msg    string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: byte %d: %s", e.File, e.Offset, e.Msg)
	}
	if e.File == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Events is a pull reader of the events of a .orca file. It holds one
// buffer, not the file: recordings run to gigabytes.
type Events struct {
	rr *records
	cp *compactRecords // instead of rr for a compact .orca
	cr *countingReader
	// A bounded recording's chunk files (Recording.Events): the one open,
	// those after it, the events before it.
	files    []ChunkFile
	fi       int
	file     *os.File
	lineBase int
	filter   *carryFilter
}

// countingReader counts the bytes read, for progress reports.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Offset returns how many bytes of the file have been read so far
// (buffered ahead of the events returned; for progress reports).
func (e *Events) Offset() int64 { return e.cr.n }

// A large buffer makes ReadSlice rarely refill, and lines rarely straddle
// the buffer's end (which costs a copy).
const eventsBufSize = 256 << 10

// NewEvents returns a streaming reader of a .orca file; name is used in
// errors ("run.orca:12: ...").
// It reads the seed's text and the compact encoding alike, telling them by
// the file's first bytes.
func NewEvents(r io.Reader, name string) *Events {
	cr := &countingReader{r: r}
	br := bufio.NewReaderSize(cr, eventsBufSize)
	if head, _ := br.Peek(len(compactMagic)); isCompact(head) {
		cp := newCompactRecords(name, eventsBufSize)
		cp.reset(br, 0, -1, nil)
		return &Events{cp: cp, cr: cr, filter: &carryFilter{}}
	}
	return &Events{rr: newRecords(br, name, eventsBufSize), cr: cr}
}

// Next returns the next event, or io.EOF at the end. A malformed line
// yields a *ParseError, and the next call continues after it. Any other
// error is a read error and is returned again by every later call.
func (e *Events) Next() (Event, error) {
	for e.cp != nil {
		var ev Event
		if err := e.cp.next(&ev); err != nil {
			if err == io.EOF && e.fi < len(e.files) {
				if err := e.nextFile(); err != nil {
					return Event{}, err
				}
				continue
			}
			return Event{}, err
		}
		if !e.filter.pass(&ev) {
			continue
		}
		if ev.Line > 0 {
			ev.Line += e.lineBase
		}
		return ev, nil
	}
	for {
		rec, quoted, err := e.rr.nextRecord()
		if err != nil {
			if pe, ok := err.(*ParseError); ok {
				return Event{Line: pe.Line}, err
			}
			return Event{}, err
		}
		if !e.rr.nl {
			// The agent ends every line with '\n': a last line without one
			// was cut by a kill, even when what is left happens to parse
			// ("ThreadEnded,0000A" would be a wrong thread).
			e.rr.truncated, e.rr.truncLine = true, e.rr.start
			continue
		}
		var ev Event
		msg := e.rr.decodeEvent(&ev, rec, quoted, nil)
		if msg == "" {
			ev.Line = e.rr.start
			return ev, nil
		}
		if err := e.rr.fail(msg); err != nil {
			return Event{Line: e.rr.start}, err
		}
		// The cut-off last line: skipped, Truncated says so.
	}
}

// Definitions returns the methods and classes that the chunks read so far
// define (docs/format.md, "Chunks that name their frames"): what a chunk
// file copied alone names its frames by. Malformed lines are returned as
// errors (*ParseError). Nil maps when no chunk defined any.
func (e *Events) Definitions() (map[format.MethodID]*Method, map[format.ClassID]*Class, []error) {
	if e.cp == nil || e.cp.defs == nil {
		return nil, nil, nil
	}
	join := func(m map[uint32][]byte) io.Reader {
		var b bytes.Buffer
		for _, line := range m {
			b.Write(line)
			b.WriteByte('\n')
		}
		return &b
	}
	name := e.cp.name + " (its chunks' definitions)"
	ms, errs := ReadMethods(join(e.cp.defs.methods), name)
	cs, errs2 := ReadClasses(join(e.cp.defs.classes), name)
	return ms, cs, append(errs, errs2...)
}

// Unclosed reports whether a compact .orca of version 3 ended in a chunk
// without its trailer: being written, or cut (by a kill, or a copy) at a
// record's end. Its records read are delivered.
func (e *Events) Unclosed() bool { return e.cp != nil && e.cp.unclosed }

// Truncated reports whether the file's last line was cut short (no
// trailing newline), as when the JVM was killed mid-write; in a compact
// .orca, its last record.
// That line is skipped, not reported as an error.
func (e *Events) Truncated() bool {
	if e.cp != nil {
		return e.cp.truncated
	}
	return e.rr.truncated
}

// decodeEvent decodes record rec (see records.nextRecord) as an event
// into *ev, or returns why it cannot (*ev is then undefined). Stacks are
// decoded as by parseEvent.
func (r *records) decodeEvent(ev *Event, rec []byte, quoted bool, sc *stackCache) string {
	if !quoted && parsePlain(ev, rec, sc) {
		return ""
	}
	n, msg := r.split(rec, quoted)
	if msg == "" {
		*ev, msg = parseEvent(r.fields, n, sc)
	}
	return msg
}

// parsePlain decodes an event line without quotes into *ev as split and
// parseEvent do, in one pass and without a slice of fields: nearly every
// line is such. It returns false for a line that is not a valid event,
// without side effects but on *ev (sc is used last, and keeps nothing of a
// bad stack); parseEvent then says what is wrong.
func parsePlain(ev *Event, b []byte, sc *stackCache) bool {
	*ev = Event{}
	i := bytes.IndexByte(b, ',')
	if i < 0 {
		return false
	}
	var ok bool
	if ev.Time, ok = parseTime(b[:i]); !ok {
		return false
	}
	b = b[i+1:]
	if i = bytes.IndexByte(b, ','); i < 0 {
		i = len(b)
	}
	if ev.Kind, ok = kindOf(b[:i]); !ok {
		return false
	}
	spec := &format.Specs[ev.Kind]
	var stack []byte
	hasStack := false
	for k, fld := range spec.Fields {
		if i == len(b) {
			return false // too few fields
		}
		b = b[i+1:]
		if fld == format.FMode && len(b) > 0 && b[0] >= '0' && b[0] <= '9' {
			// A line from before the field (format.FMode): this is its
			// stack, which starts with its depth.
			i = -1
			continue
		}
		last := k == len(spec.Fields)-1
		if !last && isID(fld) && len(b) > 8 && b[8] == ',' {
			// Most likely the agent's 8 hex digits: no need to look for
			// the ',' (a ',' among them fails parseHex).
			if v, ok := parseHex(b[:8]); ok {
				ev.setID(fld, v)
				i = 8
				continue
			}
		}
		if last {
			// The last field, often the long stack, has no ','.
			if bytes.IndexByte(b, ',') >= 0 {
				return false // too many fields
			}
			i = len(b)
		} else if i = bytes.IndexByte(b, ','); i < 0 {
			i = len(b)
		}
		f := b[:i]
		switch fld {
		case format.FName:
			ev.Name = string(f)
		case format.FStack:
			stack, hasStack = f, true
		case format.FTimeout, format.FHow, format.FClass, format.FMode, format.FSampled, format.FWeight, format.FCPU, format.FReady, format.FDepth:
			if parseOther(ev, fld, f) != "" {
				return false
			}
		default:
			v, ok := parseHex(f)
			if !ok {
				return false
			}
			ev.setID(fld, v)
		}
	}
	if i != len(b) {
		return false // fields after those of a kind without fields
	}
	if hasStack {
		var msg string
		if sc != nil {
			ev.Stack, ev.StackID, msg = sc.parse(stack)
		} else {
			ev.Stack, msg = parseStack(stack)
		}
		if msg != "" {
			return false
		}
	}
	return true
}

// isOther tells the fields parseOther decodes.
func isOther(f format.Field) bool {
	switch f {
	case format.FTimeout, format.FHow, format.FClass, format.FMode, format.FSampled, format.FWeight, format.FCPU, format.FReady, format.FDepth:
		return true
	}
	return false
}

// isID tells the fields of 8 hex digits.
func isID(f format.Field) bool {
	return f == format.FThread || f == format.FObject || f == format.FTarget || f == format.FOwner || f == format.FLock
}

// parseOther decodes a timeout, how a park ended or a class into ev, or
// says why it cannot.
func parseOther(ev *Event, fld format.Field, b []byte) string {
	switch fld {
	case format.FDepth:
		ev.Depth = -1
		if len(b) == 0 {
			return ""
		}
		v, err := strconv.ParseInt(string(b), 10, 32)
		if err != nil || v < 0 || b[0] == '+' {
			return fmt.Sprintf("depth %s: want a decimal frame depth or nothing", show(b))
		}
		ev.Depth = v
	case format.FTimeout:
		ev.Timeout = -1
		if len(b) == 0 {
			return ""
		}
		var v int64
		for _, c := range b {
			if c < '0' || c > '9' || v > (math.MaxInt64-int64(c-'0'))/10 {
				return fmt.Sprintf("timeout %s: want decimal nanoseconds or nothing", show(b))
			}
			v = v*10 + int64(c-'0')
		}
		ev.Timeout = v
	case format.FHow:
		p, ok := format.ParseParkEnd(string(b))
		if !ok {
			return fmt.Sprintf("how %s: want unparked, timeout, interrupted or nothing", show(b))
		}
		ev.How = p
	case format.FClass:
		ev.Class = string(b)
	case format.FMode:
		m, ok := format.ParseAcquireMode(string(b))
		if !ok {
			return fmt.Sprintf("mode %s: want exclusive, shared or nothing", show(b))
		}
		ev.Mode = m
	case format.FSampled:
		s, ok := format.ParseSampleKind(string(b))
		if !ok {
			return fmt.Sprintf("sampled %s: want cpu, wall or nothing", show(b))
		}
		ev.Sampled = s
	case format.FWeight, format.FCPU, format.FReady:
		var v int64
		if len(b) == 0 {
			return fmt.Sprintf("%s: want decimal nanoseconds", fieldNames[fld])
		}
		for _, c := range b {
			if c < '0' || c > '9' || v > (math.MaxInt64-int64(c-'0'))/10 {
				return fmt.Sprintf("%s %s: want decimal nanoseconds", fieldNames[fld], show(b))
			}
			v = v*10 + int64(c-'0')
		}
		switch fld {
		case format.FWeight:
			ev.Weight = v
		case format.FCPU:
			ev.CPU = v
		default:
			ev.Ready = v
		}
	}
	return ""
}

// setID sets the thread or object field fld to v.
func (ev *Event) setID(fld format.Field, v uint32) {
	switch fld {
	case format.FThread:
		ev.Thread = format.ThreadID(v)
	case format.FObject:
		ev.Object = format.ObjectID(v)
	case format.FTarget:
		ev.Target = format.ThreadID(v)
	case format.FOwner, format.FLock:
		ev.Owner = format.ThreadID(v) // FLock: Event.Lock
	}
}

// parseEvent decodes the n fields of an event line (f holds the first
// maxFields of them), or returns why it cannot. Stacks are decoded by sc
// when it is not nil (shared and arena-allocated), else allocated each.
func parseEvent(f [][]byte, n int, sc *stackCache) (Event, string) {
	if n < 2 {
		return Event{}, "want timestamp,EventName,…; got 1 field"
	}
	kind, ok := kindOf(f[1])
	if !ok {
		return Event{}, fmt.Sprintf("unknown event %s", show(f[1]))
	}
	spec := &format.Specs[kind]
	fields := spec.Fields
	if want := 2 + len(fields); n == want-1 && kind == format.ThreadPark {
		fields = withoutMode(fields) // a line from before the field (format.FMode; LockHeld always had it)
	} else if n != want {
		return Event{}, fmt.Sprintf("%s: want %d fields, got %d", spec.Name, want, n)
	}
	ev := Event{Kind: kind}
	ev.Time, ok = parseTime(f[0])
	if !ok {
		return Event{}, fmt.Sprintf("%s: timestamp %s: want seconds like 12.3456789010", spec.Name, show(f[0]))
	}
	for i, fld := range fields {
		b := f[2+i]
		if fld == format.FName {
			ev.Name = string(b)
			continue
		}
		if isOther(fld) {
			if msg := parseOther(&ev, fld, b); msg != "" {
				return Event{}, spec.Name + ": " + msg
			}
			continue
		}
		if fld == format.FStack {
			var msg string
			if sc != nil {
				ev.Stack, ev.StackID, msg = sc.parse(b)
			} else {
				ev.Stack, msg = parseStack(b)
			}
			if msg != "" {
				return Event{}, spec.Name + ": " + msg
			}
			continue
		}
		v, ok := parseHex(b)
		if !ok {
			return Event{}, fmt.Sprintf("%s: %s %s: want 1-8 hex digits", spec.Name, fieldNames[fld], show(b))
		}
		ev.setID(fld, v)
	}
	return ev, ""
}

// withoutMode returns fields without format.FMode.
func withoutMode(fields []format.Field) []format.Field {
	out := make([]format.Field, 0, len(fields))
	for _, f := range fields {
		if f != format.FMode {
			out = append(out, f)
		}
	}
	return out
}

// kindsByLen lists the kinds by the length of their names: most lengths
// have one or two, so kindOf compares a name or two instead of hashing it
// for a map.
var kindsByLen = func() (t [32][]format.Kind) {
	for k := format.Kind(1); k < format.NumKinds; k++ {
		n := len(format.Specs[k].Name)
		t[n] = append(t[n], k)
	}
	return t
}()

// kindOf returns the kind named b.
func kindOf(b []byte) (format.Kind, bool) {
	if len(b) >= len(kindsByLen) {
		return 0, false
	}
	for _, k := range kindsByLen[len(b)] {
		if string(b) == format.Specs[k].Name {
			return k, true
		}
	}
	return 0, false
}

// fieldNames names fields in error messages.
var fieldNames = map[format.Field]string{
	format.FThread: "thread", format.FObject: "object", format.FTarget: "target thread",
	format.FOwner: "owner thread", format.FLock: "lock", format.FName: "name", format.FStack: "stack",
	format.FTimeout: "timeout", format.FHow: "how", format.FClass: "class", format.FMode: "mode",
	format.FSampled: "sampled", format.FWeight: "weight", format.FCPU: "cpu", format.FReady: "ready",
	format.FDepth: "depth",
}
