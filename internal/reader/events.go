package reader

import (
	"fmt"
	"io"

	"orca/internal/format"
)

// ParseError is a malformed line. Reading can continue after it.
type ParseError struct {
	File string
	Line int // 1-based; for a record spanning lines, its first line
	Msg  string
}

func (e *ParseError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Events is a pull reader of the events of a .orca file. It holds one
// buffer, not the file: recordings run to gigabytes.
type Events struct {
	rr *records
	cr *countingReader
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
func NewEvents(r io.Reader, name string) *Events {
	cr := &countingReader{r: r}
	return &Events{rr: newRecords(cr, name, eventsBufSize), cr: cr}
}

// Next returns the next event, or io.EOF at the end. A malformed line
// yields a *ParseError, and the next call continues after it. Any other
// error is a read error and is returned again by every later call.
func (e *Events) Next() (Event, error) {
	for {
		f, n, err := e.rr.next()
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
		ev, msg := parseEvent(f, n, nil)
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

// Truncated reports whether the file's last line was cut short (no
// trailing newline), as when the JVM was killed mid-write.
// That line is skipped, not reported as an error.
func (e *Events) Truncated() bool { return e.rr.truncated }

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
	if want := 2 + len(spec.Fields); n != want {
		return Event{}, fmt.Sprintf("%s: want %d fields, got %d", spec.Name, want, n)
	}
	ev := Event{Kind: kind}
	ev.Time, ok = parseTime(f[0])
	if !ok {
		return Event{}, fmt.Sprintf("%s: timestamp %s: want seconds like 12.3456789010", spec.Name, show(f[0]))
	}
	for i, fld := range spec.Fields {
		b := f[2+i]
		if fld == format.FName {
			ev.Name = string(b)
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
		switch fld {
		case format.FThread:
			ev.Thread = format.ThreadID(v)
		case format.FObject:
			ev.Object = format.ObjectID(v)
		case format.FTarget:
			ev.Target = format.ThreadID(v)
		case format.FOwner:
			ev.Owner = format.ThreadID(v)
		}
	}
	return ev, ""
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
	format.FOwner: "owner thread", format.FName: "name", format.FStack: "stack",
}
