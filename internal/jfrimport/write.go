package jfrimport

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"orca/internal/format"
)

// rec is one line to write, .orca or .ext, through format.Writer.
type rec struct {
	t        format.Time
	seq      int
	kind     format.Kind    // an .orca line, or KindNone for
	ext      format.ExtKind // an .ext line
	thread   *thread
	object   format.ObjectID
	other    *thread // FTarget, FOwner, XOther
	stack    string  // encoded (format.EncodeStack)
	name     string  // FName, XClass
	timeout  int64   // FTimeout, XTimeout, -1 for none
	how      format.ParkEnd
	until    int64 // XUntil, -1 for none
	timedOut bool
	sampled  format.SampleKind // a Sample's kind, and
	weight   int64             // … its nanoseconds, -1 until flush gives the period
	jfrType  string            // … the JFR event type it came from
	// synthetic: an ObjectNotify made from a wait's notifier; dropped if
	// its thread has ended by then (a thread's events end with ThreadEnded).
	synthetic bool
}

// Exts is the file extensions of an imported recording.
var Exts = []string{format.SuffixEvents, format.SuffixMethods, format.SuffixClasses, format.SuffixInfo, format.SuffixExt}

// files are the output files, written under temporary names and renamed
// into place when the import succeeds; or buffers, for tests. Lines go
// through out, the format's writer.
type files struct {
	prefix     string
	enc        format.Encoding     // of .orca
	chunkBytes int                 // of .orca's compact chunks (0: the default)
	f          map[string]*os.File // nil for buffers
	w          map[string]*bufio.Writer
	out        *format.Writer
}

// writer makes fs.out write to fs.w.
func (fs *files) writer() {
	fs.out = format.NewWriterOptions(format.Files{Prefix: fs.prefix,
		Events: fs.w[format.SuffixEvents], Methods: fs.w[format.SuffixMethods], Classes: fs.w[format.SuffixClasses],
		Info: fs.w[format.SuffixInfo], Ext: fs.w[format.SuffixExt],
	}, format.Options{Encoding: fs.enc, ChunkBytes: fs.chunkBytes})
}

// createFiles creates the import's files under temporary names in
// prefix's directory: random ones, created exclusively and 0600 (a name
// another user planted there is never written through; a recording's
// content is its user's), renamed into place by commit.
func createFiles(prefix string, enc format.Encoding) (*files, error) {
	fs := &files{prefix: prefix, enc: enc, f: map[string]*os.File{}, w: map[string]*bufio.Writer{}}
	for _, ext := range Exts {
		f, err := os.CreateTemp(filepath.Dir(prefix), "."+filepath.Base(prefix)+ext+".importing*")
		if err != nil {
			fs.abort()
			return nil, fmt.Errorf("creating output: %w", err)
		}
		fs.f[ext] = f
		fs.w[ext] = bufio.NewWriterSize(f, 256<<10)
	}
	fs.writer()
	return fs, nil
}

// bufferFiles returns files that write to buffers, by extension.
func bufferFiles(prefix string, enc format.Encoding) (*files, map[string]*bytes.Buffer) {
	fs := &files{prefix: prefix, enc: enc, w: map[string]*bufio.Writer{}}
	bufs := map[string]*bytes.Buffer{}
	for _, ext := range Exts {
		bufs[ext] = &bytes.Buffer{}
		fs.w[ext] = bufio.NewWriter(bufs[ext])
	}
	fs.writer()
	return fs, bufs
}

// abort removes the temporary files.
func (fs *files) abort() {
	for _, f := range fs.f {
		f.Close()
		os.Remove(f.Name())
	}
}

// commit flushes, closes and renames the files into place.
func (fs *files) commit() error {
	var errs []error
	if err := fs.out.Close(); err != nil { // the last chunk's trailer
		errs = append(errs, err)
	}
	for _, ext := range Exts {
		if err := fs.w[ext].Flush(); err != nil {
			errs = append(errs, err)
		}
		if f := fs.f[ext]; f != nil {
			if err := f.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		fs.abort()
		return fmt.Errorf("writing output: %w", err)
	}
	for ext, f := range fs.f {
		if err := os.Rename(f.Name(), fs.prefix+ext); err != nil {
			fs.abort()
			return fmt.Errorf("writing output: %w", err)
		}
	}
	return nil
}

// sortRecs orders a chunk's lines by time; lines made from one JFR event
// at one instant keep the order they were made in (Enter before Entered,
// ThreadStart before ThreadStarted).
func sortRecs(rs []rec) {
	slices.SortFunc(rs, func(a, b rec) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return a.seq - b.seq
	})
}

// writeRec writes r to its file.
func (fs *files) writeRec(r *rec) error {
	if r.kind != format.KindNone {
		e := format.Event{Time: r.t, Kind: r.kind, Thread: r.thread.idOrZero(), Object: r.object, Name: r.name, EncodedStack: r.stack,
			Timeout: r.timeout, How: r.how, Sampled: r.sampled, Weight: r.weight}
		if r.kind == format.ObjectClass {
			e.Name, e.Class = "", r.name
		}
		if r.kind.Has(format.FTarget) {
			e.Target = r.other.idOrZero()
		} else {
			e.Owner = r.other.idOrZero()
		}
		return fs.out.Event(&e)
	}
	e := format.ExtEvent{Time: r.t, Kind: r.ext, Thread: r.thread.idOrZero(), Object: r.object, Other: r.other.idOrZero(),
		Class: r.name, Timeout: r.timeout, Until: r.until, TimedOut: r.timedOut, EncodedStack: r.stack}
	if r.thread != nil {
		e.JavaID, e.OSID = r.thread.java, r.thread.os
	}
	return fs.out.Ext(&e)
}

func (t *thread) idOrZero() format.ThreadID {
	if t == nil {
		return 0
	}
	return t.id
}

// appendStackFrame adds ";method;location" to an Orca stack field.
func appendStackFrame(b []byte, m format.MethodID, loc uint32) []byte {
	b = append(b, ';')
	b = format.AppendHex(b, uint32(m))
	b = append(b, ';')
	return format.AppendHex(b, loc)
}

// lineTable returns a method's line table sorted by location, nil when no
// frame showed a line.
func lineTable(lines map[uint32]uint32) []format.LineEntry {
	if len(lines) == 0 {
		return nil
	}
	t := make([]format.LineEntry, 0, len(lines))
	for l, n := range lines {
		t = append(t, format.LineEntry{Start: l, Line: n})
	}
	slices.SortFunc(t, func(a, b format.LineEntry) int { return cmp.Compare(a.Start, b.Start) })
	return t
}
