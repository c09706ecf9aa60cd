package format

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Files are where a Writer writes each file of a recording. A file left nil
// is not written: writing a line of it is an error.
type Files struct {
	Prefix  string    // names the files in errors ("writing PREFIX.orca: …")
	Events  io.Writer // PREFIX.orca
	Methods io.Writer // PREFIX.methods
	Classes io.Writer // PREFIX.classtable
	Info    io.Writer // PREFIX.info
	Ext     io.Writer // PREFIX.ext
}

// Writer writes the lines of a recording with the encodings the reader
// reads (docs/format.md): the one writer of the format in Go, used by orca
// import, the synthetic generator and tests. Each line is one Write call
// to its file, so files should be buffered (bufio.Writer) by the caller.
// In the compact encoding (NewWriterOptions) an event's records — the
// chunk it starts, its thread's and stack's definitions, the event — are
// one Write call.
//
// It checks what the reader would reject (a kind outside the tables, a
// negative time, an .info key with '=' or a line break) and returns an
// error instead of writing. The first error sticks: later calls write
// nothing and return it.
type Writer struct {
	f       Files
	b       []byte
	err     error
	compact *compact // the compact encoding's state; nil for the seed's
	// Written counts what was written.
	Written Counts
}

// Counts are the lines (and .orca bytes) a Writer wrote.
type Counts struct {
	Events           [NumKinds]int64    // .orca lines by kind
	Ext              [NumExtKinds]int64 // .ext lines by kind
	Methods, Classes int64
	Info             int64
	EventBytes       int64 // bytes of .orca
}

// NewWriter returns a Writer to f, writing .orca in the seed's text.
func NewWriter(f Files) *Writer { return &Writer{f: f} }

// Options choose how a Writer encodes .orca.
type Options struct {
	Encoding Encoding // EncodingSeed (the default) or EncodingCompact
	// ChunkBytes: with EncodingCompact, a chunk ends once it holds this
	// many bytes, and the next event starts a new one; 0 means
	// DefaultChunkBytes.
	ChunkBytes int
	// SmallChunks: a chunk ends at ChunkBytes even when the state it
	// restates at its start is larger, for tests that need a chunk per
	// event or two. Without it a chunk holds at least four times its state
	// (as the agent's): with it, every event past the state's size begins
	// a chunk that restates it again, a file quadratic in the live threads.
	SmallChunks bool
	// CompactVersion: 0 writes the current version (CompactHeader); 2
	// writes version 2 (no descriptors, no trailers), as tests need to
	// check that a recording of version 2 still reads.
	CompactVersion int
}

// NewWriterOptions returns a Writer to f that encodes .orca as opt says.
// Writing the .info key InfoEncoding is the caller's: a Writer may write
// only some of the files.
func NewWriterOptions(f Files, opt Options) *Writer {
	w := &Writer{f: f}
	if opt.Encoding == EncodingCompact {
		w.compact = newCompact(opt.ChunkBytes)
		w.compact.v2 = opt.CompactVersion == 2
		w.compact.small = opt.SmallChunks
		if !w.compact.v2 {
			w.compact.live = NewLiveState(func(e *Event) (Kind, ThreadID, ObjectID) { return e.Kind, e.Thread, e.Object })
		}
	}
	return w
}

// Err returns the first error of a write, or nil.
func (w *Writer) Err() error { return w.err }

func (w *Writer) put(dst io.Writer, suffix string) error {
	if w.err != nil {
		return w.err
	}
	if dst == nil {
		w.err = fmt.Errorf("format.Writer: a %s line, and no %s%s file to write it to", suffix, w.f.Prefix, suffix)
		return w.err
	}
	if _, err := dst.Write(w.b); err != nil {
		w.err = fmt.Errorf("writing %s%s: %w", w.f.Prefix, suffix, err)
	}
	return w.err
}

func (w *Writer) fail(msg string, a ...any) error {
	if w.err == nil {
		w.err = fmt.Errorf("format.Writer: "+msg, a...)
	}
	return w.err
}

// Event writes e to .orca.
func (w *Writer) Event(e *Event) error {
	if w.err != nil {
		return w.err
	}
	if e.Kind == KindNone || e.Kind >= NumKinds {
		return w.fail("event kind %d is not in the table", e.Kind)
	}
	if e.Time < 0 {
		return w.fail("%s at %d ns: times are not negative", e.Kind, e.Time)
	}
	if w.compact != nil {
		var err error
		if w.b, err = w.compact.appendEvent(w.b[:0], e); err != nil {
			return w.fail("%v", err)
		}
	} else {
		w.b = AppendEvent(w.b[:0], e)
	}
	if err := w.put(w.f.Events, SuffixEvents); err != nil {
		return err
	}
	w.Written.Events[e.Kind]++
	w.Written.EventBytes += int64(len(w.b))
	return nil
}

// Close ends .orca: in the compact encoding, the last chunk's trailer
// (docs/format.md: a chunk without one reads as cut). It closes no file.
func (w *Writer) Close() error {
	if w.err != nil || w.compact == nil {
		return w.err
	}
	if w.f.Events == nil {
		return nil
	}
	n, err := w.compact.close(w.f.Events)
	if err != nil {
		w.err = fmt.Errorf("writing %s%s: %w", w.f.Prefix, SuffixEvents, err)
	}
	w.Written.EventBytes += int64(n)
	return w.err
}

// Ext writes e to .ext.
func (w *Writer) Ext(e *ExtEvent) error {
	if w.err != nil {
		return w.err
	}
	if e.Kind == ExtUnknown || e.Kind >= NumExtKinds {
		return w.fail(".ext kind %d is not in the table", e.Kind)
	}
	if e.Time < 0 {
		return w.fail("%s at %d ns: times are not negative", e.Kind, e.Time)
	}
	w.b = AppendExt(w.b[:0], e)
	if err := w.put(w.f.Ext, SuffixExt); err != nil {
		return err
	}
	w.Written.Ext[e.Kind]++
	return nil
}

// Method writes m, first seen at t, to .methods.
func (w *Writer) Method(t Time, m *Method) error {
	if w.err != nil {
		return w.err
	}
	if t < 0 {
		return w.fail("method %v at %d ns: times are not negative", m.ID, t)
	}
	w.b = AppendMethod(w.b[:0], t, m)
	if err := w.put(w.f.Methods, SuffixMethods); err != nil {
		return err
	}
	if w.compact != nil {
		w.compact.methods[m.ID] = &compactDef{line: append([]byte(nil), w.b[:len(w.b)-1]...), class: m.Class}
	}
	w.Written.Methods++
	return nil
}

// Class writes c, first seen at t, to .classtable.
func (w *Writer) Class(t Time, c *Class) error {
	if w.err != nil {
		return w.err
	}
	if t < 0 {
		return w.fail("class %v at %d ns: times are not negative", c.ID, t)
	}
	w.b = AppendClass(w.b[:0], t, c)
	if err := w.put(w.f.Classes, SuffixClasses); err != nil {
		return err
	}
	if w.compact != nil {
		w.compact.classes[c.ID] = &compactDef{line: append([]byte(nil), w.b[:len(w.b)-1]...)}
	}
	w.Written.Classes++
	return nil
}

// Info writes key=value to .info. A Time value is written as seconds like
// the events (start_s); any other value as fmt's %v would. Line breaks in
// the value become spaces.
func (w *Writer) Info(key string, value any) error {
	if w.err != nil {
		return w.err
	}
	if key == "" || strings.ContainsAny(key, "=\r\n") {
		return w.fail(".info key %q: want a non-empty key without '=' or line breaks", key)
	}
	var v string
	switch x := value.(type) {
	case string:
		v = x
	case Time:
		if x < 0 {
			return w.fail(".info %s: %d ns: times are not negative", key, x)
		}
		v = string(AppendTime(nil, x))
	case int:
		v = strconv.Itoa(x)
	case int64:
		v = strconv.FormatInt(x, 10)
	case bool:
		v = strconv.FormatBool(x)
	default:
		v = fmt.Sprint(x)
	}
	w.b = AppendInfo(w.b[:0], key, v)
	if err := w.put(w.f.Info, SuffixInfo); err != nil {
		return err
	}
	w.Written.Info++
	return nil
}
