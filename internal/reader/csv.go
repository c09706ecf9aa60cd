package reader

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// The three text files share one record layer: ','-separated fields, RFC 4180
// quoting (a quoted field may span lines), CRLF, blank lines. It also decides
// what a bad record costs: one line, never the rest of the file.

const (
	// maxLine bounds one physical line, so a file without newlines costs an
	// error rather than all memory. The agent's longest line, a stack of
	// 256 frames and a long thread name, is a few KiB; 1 MiB holds a
	// stack of ~58k frames.
	maxLine = 1 << 20
	// maxSkip bounds the bytes skipped looking for the end of an overlong
	// line: past it, the file is not a recording (a link to /dev/full or
	// /dev/zero reads as endless NULs) and reading ends with an error
	// instead of spinning.
	maxSkip = 64 * maxLine
	// maxRecordLines bounds a quoted field that spans lines. Names with newlines
	// are rare and short; a quote still open after this many lines is a stray
	// one, and the lines it swallowed are read again as records.
	maxRecordLines = 64
	// maxFields is how many fields of a record are kept; more are only counted
	// (no record has more than 6), so a line of commas cannot allocate much.
	maxFields = 16
)

var quote = []byte{'"'}

// physLine is one line of the file, without its '\n'.
type physLine struct {
	b        []byte
	nl       bool // ended with '\n'; only the file's last line may not
	overlong bool // longer than maxLine; b is empty
}

// records reads the records of one file.
type records struct {
	name    string
	br      *bufio.Reader
	pending []physLine // lines to read again after a failed multi-line record
	n       int        // number of the last line read
	err     error      // sticky: io.EOF or a read error
	long    []byte     // a line longer than br's buffer
	rec     []byte     // a record that spans lines, joined with '\n'
	fields  [][]byte
	unq     []byte // text of quoted fields, quotes undoubled

	// The current record.
	start    int  // its first line
	nl       bool // its last line ended with '\n'
	firstEnd int  // end of its first line in rec, when multi
	multi    bool // it spans lines (its text is in rec)

	truncated bool // the last record was cut short and skipped
	truncLine int  // its first line

	// For reading one chunk of a file (chunks.go): off counts the bytes
	// taken from br, and next stops with errLimit before a record that
	// would start at or after limit (-1: no limit).
	off   int64
	limit int64
}

// errLimit ends the records of a chunk.
var errLimit = errors.New("chunk limit")

func newRecords(r io.Reader, name string, size int) *records {
	return &records{name: name, br: bufio.NewReaderSize(r, size), fields: make([][]byte, 0, maxFields), limit: -1}
}

// reset makes r read a new source from its first line, keeping its buffers.
func (r *records) reset(src io.Reader, limit int64) {
	r.br.Reset(src)
	*r = records{name: r.name, br: r.br, long: r.long[:0], rec: r.rec[:0], fields: r.fields[:0], unq: r.unq[:0], limit: limit}
}

// readLine returns the next physical line. Its bytes are valid until the next call.
func (r *records) readLine() (physLine, error) {
	if len(r.pending) > 0 {
		l := r.pending[0]
		r.pending = r.pending[1:]
		r.n++
		return l, nil
	}
	if r.err != nil {
		return physLine{}, r.err
	}
	b, err := r.br.ReadSlice('\n')
	r.off += int64(len(b))
	overlong := false
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], b...)
		n := len(b)
		for err == bufio.ErrBufferFull {
			b, err = r.br.ReadSlice('\n')
			r.off += int64(len(b))
			n += len(b)
			if n > maxLine {
				overlong = true // keep reading to the newline, keep nothing
				if n > maxSkip && err == bufio.ErrBufferFull {
					r.err = fmt.Errorf("reading %s: line %d: no newline in %d MiB: not a recording", r.name, r.n+1, maxSkip>>20)
					return physLine{}, r.err
				}
				continue
			}
			r.long = append(r.long, b...)
		}
		b = r.long
	}
	switch err {
	case nil:
	case io.EOF:
		r.err = io.EOF
		if len(b) == 0 && !overlong {
			return physLine{}, io.EOF
		}
	default:
		r.err = fmt.Errorf("reading %s: %w", r.name, err)
		return physLine{}, r.err
	}
	r.n++
	l := physLine{b: b, nl: err == nil, overlong: overlong}
	switch {
	case overlong:
		l.b = nil
	case l.nl:
		l.b = b[:len(b)-1]
	}
	return l, nil
}

// next returns the fields of the next non-blank record (at most maxFields of
// them) and how many it has. It returns io.EOF at the end, a *ParseError for a
// record that cannot be split, or a read error.
func (r *records) next() (fields [][]byte, n int, err error) {
	for {
		b, quoted, err := r.nextRecord()
		if err != nil {
			return nil, 0, err
		}
		n, msg := r.split(b, quoted)
		if msg == "" {
			return r.fields, n, nil
		}
		if err := r.fail(msg); err != nil {
			return nil, 0, err
		}
	}
}

// nextRecord returns the text of the next non-blank record, not split
// into fields, and whether it has quotes (without them, a field is what
// lies between two commas). Errors are as next's; split then cuts the
// record, or the caller does.
func (r *records) nextRecord() ([]byte, bool, error) {
	for {
		if r.limit >= 0 && r.off >= r.limit && len(r.pending) == 0 {
			return nil, false, errLimit
		}
		l, err := r.readLine()
		if err != nil {
			return nil, false, err
		}
		r.start, r.nl, r.multi = r.n, l.nl, false
		msg, quoted := "", false
		b := l.b
		if l.overlong {
			msg = fmt.Sprintf("line longer than %d MiB", maxLine>>20)
		} else if q := bytes.IndexByte(b, '"'); q >= 0 {
			quoted = true
			if bytes.Count(b[q:], quote)%2 == 1 {
				if b, msg, err = r.join(b); err != nil {
					return nil, false, err
				}
			}
		}
		if msg == "" {
			if len(b) > 0 && b[len(b)-1] == '\r' {
				b = b[:len(b)-1]
			}
			if len(b) == 0 {
				continue
			}
			return b, quoted, nil
		}
		if err := r.fail(msg); err != nil {
			return nil, false, err
		}
	}
}

// join reads the lines of a quoted field that spans lines, until the
// quotes balance. first is the record's first line.
func (r *records) join(first []byte) (rec []byte, msg string, err error) {
	r.rec = append(r.rec[:0], first...)
	r.firstEnd = len(first)
	r.multi = true
	for lines := 1; ; lines++ {
		if !r.nl {
			return nil, "quoted field not closed at end of file", nil
		}
		if lines == maxRecordLines {
			return nil, fmt.Sprintf("quoted field not closed within %d lines", maxRecordLines), nil
		}
		l, err := r.readLine()
		if err == io.EOF {
			return nil, "quoted field not closed at end of file", nil
		}
		if err != nil {
			return nil, "", err
		}
		if l.overlong || len(r.rec)+1+len(l.b) > maxLine {
			// Keep the line out of rec but queue it to be read after the
			// ones pushBack will queue, so it is reported on its own.
			r.pending = append([]physLine{{b: append([]byte(nil), l.b...), nl: l.nl, overlong: l.overlong}}, r.pending...)
			r.n--
			return nil, fmt.Sprintf("quoted field longer than %d MiB", maxLine>>20), nil
		}
		r.rec = append(r.rec, '\n')
		r.rec = append(r.rec, l.b...)
		r.nl = l.nl
		if bytes.Count(l.b, quote)%2 == 1 {
			return r.rec, "", nil
		}
	}
}

// fail reports the current record as malformed: a *ParseError at its first
// line, or nil when the record is the file's cut-off last line, which is
// skipped and noted instead. A record that spanned lines most likely began
// with a stray quote, so the lines after its first are read again.
func (r *records) fail(msg string) error {
	if !r.nl {
		r.truncated, r.truncLine = true, r.start
		return nil
	}
	if r.multi {
		r.pushBack()
	}
	return &ParseError{File: r.name, Line: r.start, Msg: msg}
}

// pushBack queues the lines of the current record after its first, so they
// are read again (they all ended with '\n': fail checked the last one).
func (r *records) pushBack() {
	var q []physLine
	if len(r.rec) > r.firstEnd {
		rest := append([]byte(nil), r.rec[r.firstEnd+1:]...)
		for _, b := range bytes.Split(rest, []byte{'\n'}) {
			q = append(q, physLine{b: b, nl: true})
		}
	}
	r.pending = append(q, r.pending...)
	r.n = r.start
	r.multi = false
}

// split cuts a record into fields, undoing RFC 4180 quoting; quoted
// says whether the record has quotes.
func (r *records) split(b []byte, quoted bool) (n int, msg string) {
	r.fields = r.fields[:0]
	if !quoted {
		// The common case: no quotes, fields are slices of the line.
		for {
			if len(r.fields) == maxFields {
				return maxFields + bytes.Count(b, []byte{','}) + 1, ""
			}
			i := bytes.IndexByte(b, ',')
			if i < 0 {
				r.fields = append(r.fields, b)
				return len(r.fields), ""
			}
			r.fields = append(r.fields, b[:i])
			b = b[i+1:]
		}
	}
	r.unq = r.unq[:0]
	n = 0
	for {
		n++
		var f []byte
		if len(b) > 0 && b[0] == '"' {
			start := len(r.unq)
			i := 1
			for {
				j := bytes.IndexByte(b[i:], '"')
				if j < 0 {
					return n, fmt.Sprintf("field %d: quoted field not closed", n)
				}
				r.unq = append(r.unq, b[i:i+j]...)
				i += j + 1
				if i < len(b) && b[i] == '"' {
					r.unq = append(r.unq, '"')
					i++
					continue
				}
				break
			}
			f, b = r.unq[start:len(r.unq):len(r.unq)], b[i:]
			if len(b) > 0 && b[0] != ',' {
				return n, fmt.Sprintf("field %d: text after closing quote", n)
			}
		} else {
			i := bytes.IndexByte(b, ',')
			if i < 0 {
				i = len(b)
			}
			f, b = b[:i], b[i:]
			if bytes.IndexByte(f, '"') >= 0 {
				return n, fmt.Sprintf("field %d: quote inside unquoted field", n)
			}
		}
		if len(r.fields) < maxFields {
			r.fields = append(r.fields, f)
		}
		if len(b) == 0 {
			return n, ""
		}
		b = b[1:] // the ','
	}
}

// errorf returns a *ParseError at the current record's first line.
func (r *records) errorf(format string, args ...any) *ParseError {
	return &ParseError{File: r.name, Line: r.start, Msg: fmt.Sprintf(format, args...)}
}

// readTable reads every record of a metadata file. parse returns msg for a
// record to skip, or warn for one kept with a defect. I/O errors end the
// reading; everything else is collected.
func readTable(r io.Reader, name string, parse func(f [][]byte, n int) (msg, warn string)) []error {
	rr := newRecords(r, name, 64<<10)
	var errs []error
	for {
		f, n, err := rr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, err)
			if _, ok := err.(*ParseError); ok {
				continue
			}
			return errs
		}
		msg, warn := parse(f, n)
		if msg != "" {
			if err := rr.fail(msg); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if warn != "" {
			errs = append(errs, rr.errorf("%s", warn))
		}
	}
	if rr.truncated {
		errs = append(errs, &ParseError{File: name, Line: rr.truncLine, Msg: "last line cut short (no newline); skipped"})
	}
	return errs
}
