package reader

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"orca/internal/format"
)

// PREFIX.ext: the table of its lines is format.ExtSpecs (docs/format.md,
// "Extension: PREFIX.ext"); this file reads them.

// ExtEvent is one line of the .ext file: what it says (format.ExtEvent,
// whose Stack is set and EncodedStack empty), its kind as written and its
// line number.
type ExtEvent struct {
	format.ExtEvent
	Name string // the kind as written, also for format.ExtUnknown
	Line int
}

// ExtEvents is a pull reader of a .ext file.
type ExtEvents struct {
	rr *records
}

// NewExtEvents returns a streaming reader of a .ext file; name is used in errors.
func NewExtEvents(r io.Reader, name string) *ExtEvents {
	return &ExtEvents{rr: newRecords(r, name, 64<<10)}
}

// Ext opens PREFIX.ext for streaming. The caller closes the Closer. A
// recording without the file (every recording the agent made) returns an
// error for which HasNoExt holds.
func (r *Recording) Ext() (*ExtEvents, io.Closer, error) {
	name := r.Prefix + format.SuffixExt
	f, err := OpenFile(name)
	if err != nil {
		return nil, nil, fmt.Errorf("opening extension: %w", err)
	}
	return NewExtEvents(f, name), f, nil
}

// HasNoExt reports whether err from Ext means the recording has no .ext file.
func HasNoExt(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// Next returns the next line, or io.EOF at the end. A malformed line yields
// a *ParseError and the next call continues after it; any other error is a
// read error. A line of an unknown kind is returned with Kind format.ExtUnknown.
func (e *ExtEvents) Next() (ExtEvent, error) {
	for {
		f, n, err := e.rr.next()
		if err != nil {
			if pe, ok := err.(*ParseError); ok {
				return ExtEvent{Line: pe.Line}, err
			}
			return ExtEvent{}, err
		}
		if !e.rr.nl {
			e.rr.truncated, e.rr.truncLine = true, e.rr.start
			continue
		}
		ev, msg := parseExt(f, n)
		if msg == "" {
			ev.Line = e.rr.start
			return ev, nil
		}
		if err := e.rr.fail(msg); err != nil {
			return ExtEvent{Line: e.rr.start}, err
		}
	}
}

// Truncated reports whether the file's last line was cut short and skipped.
func (e *ExtEvents) Truncated() bool { return e.rr.truncated }

func parseExt(f [][]byte, n int) (ExtEvent, string) {
	if n < 2 {
		return ExtEvent{}, "want timestamp,Kind,…; got 1 field"
	}
	ev := ExtEvent{ExtEvent: format.ExtEvent{Timeout: -1, Until: -1}, Name: string(f[1])}
	var ok bool
	if ev.Time, ok = parseTime(f[0]); !ok {
		return ExtEvent{}, fmt.Sprintf("%s: timestamp %s: want seconds like 12.3456789010", ev.Name, show(f[0]))
	}
	ev.Kind = format.ExtKindByName[ev.Name]
	if ev.Kind == format.ExtUnknown {
		return ev, ""
	}
	spec := &format.ExtSpecs[ev.Kind]
	if want := 2 + len(spec.Fields); n != want {
		return ExtEvent{}, fmt.Sprintf("%s: want %d fields, got %d", spec.Name, want, n)
	}
	for i, fld := range spec.Fields {
		b := f[2+i]
		bad := func(want string) (ExtEvent, string) {
			return ExtEvent{}, fmt.Sprintf("%s: field %d %s: want %s", spec.Name, 3+i, show(b), want)
		}
		switch fld {
		case format.XThread, format.XObject, format.XOther:
			v, ok := parseHex(b)
			if !ok {
				return bad("1-8 hex digits")
			}
			switch fld {
			case format.XThread:
				ev.Thread = format.ThreadID(v)
			case format.XObject:
				ev.Object = format.ObjectID(v)
			default:
				ev.Other = format.ThreadID(v)
			}
		case format.XClass:
			ev.Class = string(b)
		case format.XTimeout, format.XUntil:
			v := int64(-1)
			if len(b) > 0 {
				var err error
				if v, err = strconv.ParseInt(string(b), 10, 64); err != nil || v < 0 {
					return bad("decimal nanoseconds or nothing")
				}
			}
			if fld == format.XTimeout {
				ev.Timeout = v
			} else {
				ev.Until = v
			}
		case format.XTimedOut:
			switch string(b) {
			case "true":
				ev.TimedOut = true
			case "false":
			default:
				return bad("true or false")
			}
		case format.XJavaID, format.XOSID:
			v, err := strconv.ParseInt(string(b), 10, 64)
			if err != nil {
				return bad("a decimal number")
			}
			if fld == format.XJavaID {
				ev.JavaID = v
			} else {
				ev.OSID = v
			}
		case format.XStack:
			var msg string
			if ev.Stack, msg = parseStack(b); msg != "" {
				return ExtEvent{}, spec.Name + ": " + msg
			}
		}
	}
	return ev, ""
}
