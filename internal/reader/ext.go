package reader

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"

	"orca/internal/format"
)

// PREFIX.ext holds what an imported recording (orca import, from JFR) knows
// and the Orca format has no field for: parks, the notifier of a wait, the
// class of a monitor. Its lines follow the .orca conventions
// (timestamp,Kind,fields…); docs/format.md, "Extension: PREFIX.ext",
// describes them. This table is the one source of truth for writer and reader.

// ExtKind identifies the kind of a .ext line.
type ExtKind uint8

// The .ext line kinds. ExtUnknown is a kind this reader does not know:
// skip it (later writers may add kinds).
const (
	ExtUnknown        ExtKind = iota
	ExtObjectClass            // the class of an object, at its first appearance
	ExtThreadPark             // LockSupport.park* entered
	ExtThreadUnparked         // … and returned (unparked, timed out or interrupted)
	ExtWaitNotifier           // how the Object.wait that just ended (ObjectWaited) ended
	ExtSleepTime              // the time a Thread.sleep that just began asked for
	ExtJavaThread             // the JVM's ids of a thread, at its ThreadStarted
	NumExtKinds
)

// ExtField is the meaning of one field of a .ext line after its name.
type ExtField uint8

// Fields of .ext lines.
const (
	XThread   ExtField = iota + 1 // the thread the line is about: 8 hex digits
	XObject                       // an object (monitor, park blocker): 8 hex digits, 00000000 for none
	XOther                        // another thread (a notifier): 8 hex digits, 00000000 for none
	XClass                        // a class signature, "Ljava/lang/Object;" (text)
	XTimeout                      // a duration in decimal nanoseconds; empty for none
	XUntil                        // a deadline in decimal nanoseconds since the Unix epoch; empty for none
	XTimedOut                     // true or false
	XJavaID                       // a java.lang.Thread id (Thread.getId), decimal
	XOSID                         // an OS thread id, decimal
	XStack                        // a stack trace, as in .orca
)

// ExtSpec describes one .ext line kind: its name and fields.
type ExtSpec struct {
	Kind   ExtKind
	Name   string
	Fields []ExtField
}

// ExtSpecs is the .ext table, indexed by ExtKind.
var ExtSpecs = [NumExtKinds]ExtSpec{
	ExtObjectClass:    {ExtObjectClass, "ObjectClass", []ExtField{XObject, XClass}},
	ExtThreadPark:     {ExtThreadPark, "ThreadPark", []ExtField{XThread, XObject, XTimeout, XUntil, XStack}},
	ExtThreadUnparked: {ExtThreadUnparked, "ThreadUnparked", []ExtField{XThread, XObject, XStack}},
	ExtWaitNotifier:   {ExtWaitNotifier, "WaitNotifier", []ExtField{XThread, XObject, XOther, XTimeout, XTimedOut}},
	ExtSleepTime:      {ExtSleepTime, "SleepTime", []ExtField{XThread, XTimeout}},
	ExtJavaThread:     {ExtJavaThread, "JavaThread", []ExtField{XThread, XJavaID, XOSID}},
}

func (k ExtKind) String() string {
	if k == ExtUnknown || k >= NumExtKinds {
		return "Unknown"
	}
	return ExtSpecs[k].Name
}

var extKindByName = func() map[string]ExtKind {
	m := make(map[string]ExtKind, NumExtKinds)
	for k := ExtKind(1); k < NumExtKinds; k++ {
		m[ExtSpecs[k].Name] = k
	}
	return m
}()

// ExtEvent is one line of the .ext file. Fields the kind does not carry are
// zero (Timeout and Until: -1).
type ExtEvent struct {
	Time     format.Time
	Kind     ExtKind
	Name     string // the kind as written, also for ExtUnknown
	Thread   format.ThreadID
	Object   format.ObjectID
	Other    format.ThreadID // WaitNotifier: the notifier, 0 when none (timeout, interrupt, spurious)
	Class    string          // ObjectClass
	Timeout  int64           // ns; -1 when none (a wait or park without timeout)
	Until    int64           // ns since the Unix epoch; -1 when none
	TimedOut bool
	JavaID   int64
	OSID     int64
	Stack    []format.Frame
	Line     int
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
	name := r.Prefix + ".ext"
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, fmt.Errorf("opening extension: %w", err)
	}
	return NewExtEvents(f, name), f, nil
}

// HasNoExt reports whether err from Ext means the recording has no .ext file.
func HasNoExt(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// Next returns the next line, or io.EOF at the end. A malformed line yields
// a *ParseError and the next call continues after it; any other error is a
// read error. A line of an unknown kind is returned with Kind ExtUnknown.
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
	ev := ExtEvent{Name: string(f[1]), Timeout: -1, Until: -1}
	var ok bool
	if ev.Time, ok = parseTime(f[0]); !ok {
		return ExtEvent{}, fmt.Sprintf("%s: timestamp %s: want seconds like 12.3456789010", ev.Name, show(f[0]))
	}
	ev.Kind = extKindByName[ev.Name]
	if ev.Kind == ExtUnknown {
		return ev, ""
	}
	spec := &ExtSpecs[ev.Kind]
	if want := 2 + len(spec.Fields); n != want {
		return ExtEvent{}, fmt.Sprintf("%s: want %d fields, got %d", spec.Name, want, n)
	}
	for i, fld := range spec.Fields {
		b := f[2+i]
		bad := func(want string) (ExtEvent, string) {
			return ExtEvent{}, fmt.Sprintf("%s: field %d %s: want %s", spec.Name, 3+i, show(b), want)
		}
		switch fld {
		case XThread, XObject, XOther:
			v, ok := parseHex(b)
			if !ok {
				return bad("1-8 hex digits")
			}
			switch fld {
			case XThread:
				ev.Thread = format.ThreadID(v)
			case XObject:
				ev.Object = format.ObjectID(v)
			default:
				ev.Other = format.ThreadID(v)
			}
		case XClass:
			ev.Class = string(b)
		case XTimeout, XUntil:
			v := int64(-1)
			if len(b) > 0 {
				var err error
				if v, err = strconv.ParseInt(string(b), 10, 64); err != nil || v < 0 {
					return bad("decimal nanoseconds or nothing")
				}
			}
			if fld == XTimeout {
				ev.Timeout = v
			} else {
				ev.Until = v
			}
		case XTimedOut:
			switch string(b) {
			case "true":
				ev.TimedOut = true
			case "false":
			default:
				return bad("true or false")
			}
		case XJavaID, XOSID:
			v, err := strconv.ParseInt(string(b), 10, 64)
			if err != nil {
				return bad("a decimal number")
			}
			if fld == XJavaID {
				ev.JavaID = v
			} else {
				ev.OSID = v
			}
		case XStack:
			var msg string
			if ev.Stack, msg = parseStack(b); msg != "" {
				return ExtEvent{}, spec.Name + ": " + msg
			}
		}
	}
	return ev, ""
}
