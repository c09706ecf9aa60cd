package jfrimport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"orca/internal/format"
)

// rec is one line to write, .orca or .ext. The fields a kind carries are
// taken from format.Specs and format.ExtSpecs, so the lines follow the one
// table the readers use.
type rec struct {
	t        format.Time
	seq      int
	kind     format.Kind    // an .orca line, or KindNone for
	ext      format.ExtKind // an .ext line
	thread   *thread
	object   format.ObjectID
	other    *thread // FTarget, FOwner, XOther
	stack    string
	name     string // FName, XClass
	timeout  int64  // XTimeout, -1 for none
	until    int64  // XUntil, -1 for none
	timedOut bool
	// synthetic: an ObjectNotify made from a wait's notifier; dropped if
	// its thread has ended by then (a thread's events end with ThreadEnded).
	synthetic bool
}

// Exts is the file extensions of an imported recording.
var Exts = []string{".orca", ".methods", ".classtable", ".info", ".ext"}

// files are the output files, written under temporary names and renamed
// into place when the import succeeds; or buffers, for tests.
type files struct {
	prefix string
	f      map[string]*os.File // nil for buffers
	w      map[string]*bufio.Writer
	line   []byte
}

const tmpSuffix = ".importing"

func createFiles(prefix string) (*files, error) {
	fs := &files{prefix: prefix, f: map[string]*os.File{}, w: map[string]*bufio.Writer{}}
	for _, ext := range Exts {
		f, err := os.Create(prefix + ext + tmpSuffix)
		if err != nil {
			fs.abort()
			return nil, fmt.Errorf("creating output: %w", err)
		}
		fs.f[ext] = f
		fs.w[ext] = bufio.NewWriterSize(f, 256<<10)
	}
	return fs, nil
}

// bufferFiles returns files that write to buffers, by extension.
func bufferFiles(prefix string) (*files, map[string]*bytes.Buffer) {
	fs := &files{prefix: prefix, w: map[string]*bufio.Writer{}}
	bufs := map[string]*bytes.Buffer{}
	for _, ext := range Exts {
		bufs[ext] = &bytes.Buffer{}
		fs.w[ext] = bufio.NewWriter(bufs[ext])
	}
	return fs, bufs
}

// abort removes the temporary files.
func (fs *files) abort() {
	for ext, f := range fs.f {
		f.Close()
		os.Remove(fs.prefix + ext + tmpSuffix)
	}
}

// commit flushes, closes and renames the files into place.
func (fs *files) commit() error {
	var errs []error
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
	for ext := range fs.f {
		if err := os.Rename(fs.prefix+ext+tmpSuffix, fs.prefix+ext); err != nil {
			fs.abort()
			return fmt.Errorf("writing output: %w", err)
		}
	}
	return nil
}

// put writes one line (without its newline) to the file ext.
func (fs *files) put(ext string, b []byte) error {
	b = append(b, '\n')
	_, err := fs.w[ext].Write(b)
	return err
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

// appendRec renders r as a line of its file.
func appendRec(b []byte, r *rec) []byte {
	b = appendTime(b, r.t)
	b = append(b, ',')
	if r.kind != format.KindNone {
		spec := &format.Specs[r.kind]
		b = append(b, spec.Name...)
		for _, f := range spec.Fields {
			b = append(b, ',')
			switch f {
			case format.FThread:
				b = appendHex(b, uint32(r.thread.id))
			case format.FObject:
				b = appendHex(b, uint32(r.object))
			case format.FTarget, format.FOwner:
				b = appendHex(b, uint32(r.other.idOrZero()))
			case format.FName:
				b = appendText(b, r.name)
			case format.FStack:
				b = append(b, r.stack...)
			}
		}
		return b
	}
	spec := &format.ExtSpecs[r.ext]
	b = append(b, spec.Name...)
	for _, f := range spec.Fields {
		b = append(b, ',')
		switch f {
		case format.XThread:
			b = appendHex(b, uint32(r.thread.id))
		case format.XObject:
			b = appendHex(b, uint32(r.object))
		case format.XOther:
			b = appendHex(b, uint32(r.other.idOrZero()))
		case format.XClass:
			b = appendText(b, r.name)
		case format.XTimeout:
			b = appendOptional(b, r.timeout)
		case format.XUntil:
			b = appendOptional(b, r.until)
		case format.XTimedOut:
			b = strconv.AppendBool(b, r.timedOut)
		case format.XJavaID:
			b = strconv.AppendInt(b, r.thread.java, 10)
		case format.XOSID:
			b = strconv.AppendInt(b, r.thread.os, 10)
		case format.XStack:
			b = append(b, r.stack...)
		}
	}
	return b
}

func (t *thread) idOrZero() format.ThreadID {
	if t == nil {
		return 0
	}
	return t.id
}

// appendTime writes seconds with 10 decimals, the last always 0 (the
// format's 0.1 ns precision; JFR has nanoseconds at best).
func appendTime(b []byte, t format.Time) []byte {
	sec, ns := int64(t)/1e9, int64(t)%1e9
	b = strconv.AppendInt(b, sec, 10)
	b = append(b, '.')
	var d [9]byte
	for i := 8; i >= 0; i-- {
		d[i] = byte('0' + ns%10)
		ns /= 10
	}
	b = append(b, d[:]...)
	return append(b, '0')
}

func appendHex(b []byte, v uint32) []byte {
	const digits = "0123456789ABCDEF"
	for s := 28; s >= 0; s -= 4 {
		b = append(b, digits[v>>s&0xF])
	}
	return b
}

func appendOptional(b []byte, v int64) []byte {
	if v < 0 {
		return b
	}
	return strconv.AppendInt(b, v, 10)
}

// appendText writes a text field, quoted as in RFC 4180 when it holds a
// separator, a quote or a line break (docs/format.md). Invalid UTF-8 is
// replaced: the files are UTF-8.
func appendText(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// appendStackFrame adds ";method;location" to an Orca stack field.
func appendStackFrame(b []byte, m format.MethodID, loc uint32) []byte {
	b = append(b, ';')
	b = appendHex(b, uint32(m))
	b = append(b, ';')
	return appendHex(b, loc)
}

// appendLineTable writes count;location;line;… sorted by location, or -1
// when no frame showed a line.
func appendLineTable(b []byte, lines map[uint32]uint32) []byte {
	if len(lines) == 0 {
		return append(b, "-1"...)
	}
	locs := make([]uint32, 0, len(lines))
	for l := range lines {
		locs = append(locs, l)
	}
	slices.Sort(locs)
	b = strconv.AppendInt(b, int64(len(locs)), 10)
	for _, l := range locs {
		b = append(b, ';')
		b = appendHex(b, l)
		b = append(b, ';')
		b = appendHex(b, lines[l])
	}
	return b
}
