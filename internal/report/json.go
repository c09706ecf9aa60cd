package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"orca/internal/model"
	"orca/internal/termjson"
)

// WriteJSON writes the report as indented JSON (docs/report-json.md).
// Field order is the struct's and every list is ranked, so equal
// recordings give equal bytes.
//
// The bytes are those of a json.Encoder with SetIndent("", "  ") and
// SetEscapeHTML(false) encoding the whole Report (encodeWhole, which
// TestJSONStreamed compares them with on every golden case), C1 control
// characters escaped as \u0080-\u009f (termjson), but written
// as they go: the long lists (the locks, their owners, waiters and sites,
// the threads, the waits) one element at a time, so that the document is
// never in memory whole. Encoded whole, a 1 GB recording's 165 MB of JSON
// was built in one buffer and indented into a second, both grown by
// doubling, at the report's peak of memory (docs/streaming.md).
func (r *Report) WriteJSON(w io.Writer) (err error) {
	// With Options.JSONOnly the locks' waiters and owners are read from
	// the Model's spill as they are written: a read that fails is the
	// error (model.SpillError), as in New.
	defer model.RecoverSpill(&err)
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = bufio.NewWriterSize(w, 64<<10)
	}
	o := newJSONOut(bw)
	o.report(r)
	o.raw("\n")
	if o.err != nil {
		return o.err
	}
	if !ok {
		return bw.Flush()
	}
	return nil
}

// encodeWhole writes r as WriteJSON did before it streamed: the whole
// document encoded at once. WriteJSON must write the same bytes.
func (r *Report) encodeWhole(w io.Writer) error {
	tw := termjson.NewWriter(w)
	enc := json.NewEncoder(tw)
	enc.SetIndent("", "  ")
	// Frames such as "<unknown method 0000002A>" stay readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return err
	}
	return tw.Flush()
}

// jsonOut writes one JSON document as a json.Encoder with the report's
// settings would, piece by piece: a value that begins at nesting depth d
// is encoded alone with the prefix of depth d, which gives the lines of
// the whole document's indentation.
type jsonOut struct {
	w   *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
	esc []byte // write's escaped copy
	row []byte // element's
	err error
}

func newJSONOut(w *bufio.Writer) *jsonOut {
	o := &jsonOut{w: w}
	o.enc = json.NewEncoder(&o.buf)
	o.enc.SetEscapeHTML(false)
	return o
}

// indent is the indentation of a line at depth d.
func indent(d int) string {
	if 2*d <= len(spaces) {
		return spaces[:2*d]
	}
	return strings.Repeat("  ", d)
}

const spaces = "                                "

func (o *jsonOut) raw(s string) {
	if o.err == nil {
		_, o.err = o.w.WriteString(s)
	}
}

// write writes encoded JSON, with its C1 control characters escaped (the
// names are the JVM's: termjson; encoding/json escapes C0 only).
func (o *jsonOut) write(b []byte) {
	if o.err == nil {
		_, o.err = o.w.Write(termjson.Escape(b, &o.esc))
	}
}

// value writes v, which begins at depth d, whole.
func (o *jsonOut) value(v any, d int) {
	if o.err != nil {
		return
	}
	o.buf.Reset()
	o.enc.SetIndent(indent(d), "  ")
	if o.err = o.enc.Encode(v); o.err != nil {
		return
	}
	b := o.buf.Bytes()
	o.write(b[:len(b)-1]) // Encode's newline
}

// list writes a list of n elements at depth d, null when it is nil, each
// element by each(i, d+1) as the encoder lays a list out.
func list[E any](o *jsonOut, l []E, d int, each func(e *E, d int)) {
	switch {
	case l == nil:
		o.raw("null")
		return
	case len(l) == 0:
		o.raw("[]")
		return
	}
	in := "\n" + indent(d+1)
	o.raw("[")
	for i := range l {
		if i > 0 {
			o.raw(",")
		}
		o.raw(in)
		each(&l[i], d+1)
	}
	o.raw("\n" + indent(d) + "]")
}

// values writes a list whose elements are written whole.
func values[E any](o *jsonOut, l []E, d int) {
	list(o, l, d, func(e *E, d int) { o.element(e, d) })
}

// element writes e, an element of a list at depth d, whole: by its own
// appendJSON when it has one, else by the encoder.
func (o *jsonOut) element(e any, d int) {
	if a, ok := e.(appender); ok && o.err == nil {
		var ok bool
		if o.row, ok = a.appendJSON(o.row[:0], d); ok {
			_, o.err = o.w.Write(o.row)
			return
		}
	}
	o.value(e, d)
}

// appender is an element of a long list that appends its own JSON at
// depth d, the bytes the encoder would write (TestAppendJSON), or says
// it cannot (ok false: a string the encoder would escape, a number it
// would refuse). The encoder's reflection was 0.9 s of c1G's report for
// the locks' 2.5 M owners (issue 34).
type appender interface {
	appendJSON(dst []byte, d int) (_ []byte, ok bool)
}

func (e *Owner) appendJSON(b []byte, d int) ([]byte, bool) {
	in := indent(d)
	b = append(b, "{\n"...)
	b = append(append(b, in...), `  "thread": `...)
	b, ok := plainString(b, e.Thread)
	if !ok {
		return b, false
	}
	b = append(append(b, ",\n"...), in...)
	b = append(b, `  "name": `...)
	if e.Name == nil {
		b = append(b, "null"...)
	} else if b, ok = plainString(b, *e.Name); !ok {
		return b, false
	}
	b = append(append(b, ",\n"...), in...)
	b = strconv.AppendInt(append(b, `  "contentions": `...), int64(e.Contentions), 10)
	b = append(append(b, ",\n"...), in...)
	b = strconv.AppendInt(append(b, `  "open": `...), int64(e.Open), 10)
	b = append(append(b, ",\n"...), in...)
	b, okS := jsonFloat(append(b, `  "blamed_s": `...), e.BlamedS)
	b = append(append(b, ",\n"...), in...)
	b, okP := jsonFloat(append(b, `  "pct": `...), e.Pct)
	b = append(append(append(b, '\n'), in...), '}')
	return b, okS && okP
}

// plainString appends s quoted when the encoder would write it as it
// is (printable ASCII but the quote and the backslash; the report's
// encoder does not escape HTML), ok false otherwise.
func plainString(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return b, false
		}
	}
	return append(append(append(b, '"'), s...), '"'), true
}

// jsonFloat appends f as encoding/json writes a float64: the shortest
// form that reads back the same, with an exponent below 1e-6 and from
// 1e21 on (e-07 written e-7); ok false for what it refuses (NaN, ±Inf).
func jsonFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	fmt := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		fmt = 'e'
	}
	b = strconv.AppendFloat(b, f, fmt, -1, 64)
	if fmt == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// valuesOf writes the elements seq yields as values writes a list of them
// (never null).
func valuesOf[E any](o *jsonOut, seq func(yield func(*E)), d int) {
	in := "\n" + indent(d+1)
	n := 0
	seq(func(e *E) {
		if n == 0 {
			o.raw("[")
		} else {
			o.raw(",")
		}
		n++
		o.raw(in)
		o.element(e, d+1)
	})
	if n == 0 {
		o.raw("[]")
		return
	}
	o.raw("\n" + indent(d) + "]")
}

// streamed is a field of an object that jsonOut.object writes apart: its
// key, its depth below the object's (1 for the object's own field, 2 for
// a field of an object in it), and its writer, given the field's depth.
type streamed struct {
	key   string
	below int
	write func(d int)
}

// object writes v, an object at depth d whose streamed fields are empty
// lists in v, encoded whole with each such field's "[]" replaced by what
// its writer writes. A field's line is found by its key at its depth: a
// key of depth d+1 is on a line of d+1 indentations, the deeper lines
// have more and strings no newline, so it is found once.
func (o *jsonOut) object(v any, d int, fields ...streamed) {
	if o.err != nil {
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent(d), "  ")
	if o.err = enc.Encode(v); o.err != nil {
		return
	}
	doc := b.Bytes()
	doc = doc[:len(doc)-1]
	type at struct {
		pos, end int
		f        streamed
	}
	var ats []at
	for _, f := range fields {
		line := []byte("\n" + indent(d+f.below) + `"` + f.key + `": `)
		i := bytes.Index(doc, line)
		if i < 0 || bytes.Index(doc[i+1:], line) >= 0 || !bytes.HasPrefix(doc[i+len(line):], []byte("[]")) {
			o.err = fmt.Errorf("report JSON: field %q not found once as [] at depth %d", f.key, d+f.below)
			return
		}
		ats = append(ats, at{i + len(line), i + len(line) + 2, f})
	}
	sort.Slice(ats, func(i, j int) bool { return ats[i].pos < ats[j].pos })
	from := 0
	for _, a := range ats {
		o.write(doc[from:a.pos])
		a.f.write(d + a.f.below)
		from = a.end
	}
	o.write(doc[from:])
}

// report writes r: its lists element by element, a lock's long lists
// too.
func (o *jsonOut) report(r *Report) {
	c := *r
	c.Threads, c.VirtualGroups, c.Locks, c.ClassInits = []Thread{}, []VirtualGroup{}, []Lock{}, []ClassInit{}
	c.Sites, c.Deadlocks, c.PotentialDeadlocks, c.Hangs = []Site{}, []Deadlock{}, []PotentialDeadlock{}, []Hang{}
	c.Chains, c.NotHangs, c.WaitingAlone, c.Waits = []Chain{}, []Hang{}, []Hang{}, []Wait{}
	o.object(&c, 0,
		streamed{"threads", 1, func(d int) {
			if r.threadList != nil {
				valuesOf(o, r.threadList.all, d)
			} else {
				values(o, r.Threads, d)
			}
		}},
		streamed{"virtual_groups", 1, func(d int) { values(o, r.VirtualGroups, d) }},
		streamed{"locks", 1, func(d int) { list(o, r.Locks, d, o.lock) }},
		streamed{"class_inits", 1, func(d int) { list(o, r.ClassInits, d, o.classInit) }},
		streamed{"sites", 1, func(d int) { values(o, r.Sites, d) }},
		streamed{"deadlocks", 1, func(d int) { values(o, r.Deadlocks, d) }},
		streamed{"potential_deadlocks", 1, func(d int) { values(o, r.PotentialDeadlocks, d) }},
		streamed{"hangs", 1, func(d int) { values(o, r.Hangs, d) }},
		streamed{"chains", 1, func(d int) {
			if r.chainRows != nil {
				valuesOf(o, r.chainRows.all, d)
			} else {
				values(o, r.Chains, d)
			}
		}},
		streamed{"not_hangs", 1, func(d int) { values(o, r.NotHangs, d) }},
		streamed{"waiting_alone", 1, func(d int) { values(o, r.WaitingAlone, d) }},
		streamed{"waits", 1, func(d int) { list(o, r.Waits, d, o.wait) }},
	)
}

// lock writes l with its waiters, owners, sites, the stacks it was held
// at and its hold's sites element by element: on a big recording a lock's
// waiters and owners are every thread that touched it.
func (o *jsonOut) lock(l *Lock, d int) {
	c := *l
	c.Waiters, c.Owners, c.Sites, c.HeldAt = []string{}, []Owner{}, []LockSite{}, [][]string{}
	fields := []streamed{
		{"waiters", 1, func(d int) { values(o, l.Waiters, d) }},
		{"owners", 1, func(d int) { values(o, l.Owners, d) }},
	}
	if r := l.rows; r != nil {
		fields = []streamed{
			{"waiters", 1, func(d int) { valuesOf(o, r.waiters, d) }},
			{"owners", 1, func(d int) { valuesOf(o, r.owners, d) }},
		}
	}
	fields = append(fields, []streamed{
		{"sites", 1, func(d int) { values(o, l.Sites, d) }},
		{"held_at", 1, func(d int) { values(o, l.HeldAt, d) }},
	}...)
	if l.Hold != nil {
		h := *l.Hold
		h.Sites = []HoldSite{}
		c.Hold = &h
		fields = append(fields, streamed{"sites", 2, func(d int) { values(o, l.Hold.Sites, d) }})
	}
	o.object(&c, d, fields...)
}

// classInit writes ci with its waiters and sites element by element.
func (o *jsonOut) classInit(ci *ClassInit, d int) {
	c := *ci
	c.Waiters, c.Sites = []string{}, [][]string{}
	o.object(&c, d,
		streamed{"waiters", 1, func(d int) { values(o, ci.Waiters, d) }},
		streamed{"sites", 1, func(d int) { values(o, ci.Sites, d) }})
}

// wait writes w with its sites element by element.
func (o *jsonOut) wait(w *Wait, d int) {
	c := *w
	c.Sites = []WaitSite{}
	o.object(&c, d, streamed{"sites", 1, func(d int) { values(o, w.Sites, d) }})
}
