package reader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ianlancetaylor/demangle"

	"orca/internal/format"
)

// Recording is an opened prefix: methods, classes and info are loaded in
// memory (they are small), events are streamed from PREFIX.orca.
type Recording struct {
	Prefix   string
	Methods  map[format.MethodID]*Method
	Classes  map[format.ClassID]*Class
	Info     Info     // PREFIX.info (nil if the file is absent)
	Warnings []string // malformed lines in .methods/.classtable/.info (file:line: msg), missing files
	// Chunks are the chunk files of a bounded recording (maxsize=,
	// maxage=), by number; its events are there, not in PREFIX.orca.
	Chunks []ChunkFile
	// ChunksGone counts chunk files deleted (by the agent, past the
	// bounds) between Open and the reading of the events.
	ChunksGone int

	// dotted caches ClassName per class: exporters resolve the same few
	// hundred classes millions of times. Filled by Open, read-only after.
	dotted map[format.ClassID]string
	// opened is the name Open was given; methodsRead, classesRead how
	// far it read .methods and .classtable: for Reopen.
	opened                   string
	methodsRead, classesRead metaRead
}

// metaRead is how far a metadata file (.methods, .classtable: the agent
// appends to them) was read: Reopen parses what follows only.
type metaRead struct {
	fi    os.FileInfo // the file read (os.SameFile); nil: not read
	off   int64       // the end of its last whole line
	lines int         // the lines before off
	tail  []byte      // the bytes before off (the same file: the same bytes)
	errs  []error     // its malformed lines before off
}

// lineCounter passes a metadata file's bytes on from m.off, counting its
// whole lines up to its first quote: a quoted field may hold a newline (a
// record of several lines, csv.go), so a line's end after one is not
// surely a record's, and what follows is read again by Reopen.
type lineCounter struct {
	r      io.Reader
	n      int64 // the offset of the next byte read
	m      metaRead
	quoted bool
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if b := p[:n]; !c.quoted {
		if q := bytes.IndexByte(b, '"'); q >= 0 {
			b, c.quoted = b[:q], true
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			c.m.lines += bytes.Count(b[:i+1], []byte{'\n'})
			c.m.off = c.n + int64(i) + 1
		}
	}
	c.n += int64(n)
	return n, err
}

// readMeta parses the metadata file f (name) with read, from where prev
// read it to when it is the same file, no shorter (appended to since):
// its lines after, their errors with their lines in the file, and m, how
// far it is read now (with prev's errors before).
func readMeta(f io.Reader, name string, prev metaRead, read func(io.Reader, string) []error) (errs []error, m metaRead, more bool) {
	c := &lineCounter{r: f}
	if fl, ok := f.(*os.File); ok {
		c.m.fi, _ = fl.Stat()
		if prev.fi != nil && c.m.fi != nil && os.SameFile(prev.fi, c.m.fi) && c.m.fi.Size() >= prev.off &&
			sameBytes(fl, prev.off-int64(len(prev.tail)), prev.tail) {
			if _, err := fl.Seek(prev.off, io.SeekStart); err == nil {
				c.n, c.m.off, c.m.lines, more = prev.off, prev.off, prev.lines, true
			}
		}
	}
	errs = read(c, name)
	if fl, ok := f.(*os.File); ok && c.m.off > 0 {
		c.m.tail = make([]byte, min(c.m.off, 64))
		if _, err := fl.ReadAt(c.m.tail, c.m.off-int64(len(c.m.tail))); err != nil {
			c.m.fi = nil // not read again from there
		}
	}
	for _, e := range errs {
		if pe, ok := e.(*ParseError); ok && more {
			pe.Line += prev.lines
		}
	}
	if more {
		errs = append(slices.Clip(prev.errs), errs...)
	}
	// The lines after m.off (a last line cut short: the agent writing
	// it) are read again next time: their errors are not kept.
	c.m.errs = slices.DeleteFunc(slices.Clone(errs), func(e error) bool {
		pe, ok := e.(*ParseError)
		return ok && pe.Line > c.m.lines
	})
	return errs, c.m, more
}

// sameBytes reports whether f holds b at off.
func sameBytes(f *os.File, off int64, b []byte) bool {
	got := make([]byte, len(b))
	_, err := f.ReadAt(got, off)
	return err == nil && bytes.Equal(got, b)
}

// IsChunkPath reports whether path is named as one chunk file of a bounded
// recording (PREFIX.orca.N), which Open reads alone.
func IsChunkPath(path string) bool {
	ok, _ := chunkPath(path)
	return ok
}

// chunkPath reports whether path names one chunk file of a bounded recording
// (PREFIX.orca.N, N a positive decimal number), and N.
func chunkPath(path string) (bool, uint64) {
	i := strings.LastIndex(path, format.SuffixEvents+".")
	if i < 0 {
		return false, 0
	}
	d := path[i+len(format.SuffixEvents)+1:]
	if d == "" || strings.Trim(d, "0123456789") != "" {
		return false, 0
	}
	n, err := strconv.ParseUint(d, 10, 64)
	return err == nil && n > 0, n
}

// suffixes are the files of a recording; Open accepts a prefix given with any.
var suffixes = []string{format.SuffixEvents, format.SuffixInfo, format.SuffixMethods, format.SuffixClasses}

// Open loads the metadata of the recording at prefix ("run", "run.orca" or
// "run.info" name the same one). It fails when PREFIX.orca is missing, is
// not a recording (a *NotRecordingError: its first record is not an event)
// or a file cannot be read; malformed metadata become Warnings.
func Open(prefix string) (*Recording, error) {
	return open(prefix, nil)
}

// Reopen opens prev's recording again, for a reader that follows one the
// agent still writes (the pusher, every few seconds): its events' files
// and .info again, and of .methods and .classtable what the agent
// appended since prev read them, added to prev's tables (which the new
// Recording takes over: prev is not to be used after). A metadata file
// replaced or shorter than what was read is read whole, as by Open. The
// tables are Open's, the Warnings too but for their order.
func Reopen(prev *Recording) (*Recording, error) {
	if prev == nil {
		return nil, errors.New("reopening: no recording")
	}
	return open(prev.opened, prev)
}

func open(prefix string, prev *Recording) (*Recording, error) {
	if prev == nil {
		prev = &Recording{}
	}
	opened := prefix
	// One chunk file of a bounded recording named on its own
	// (PREFIX.orca.000012: copied elsewhere, or picked from the rest) is
	// read alone; its chunks name their frames when the metadata files are
	// not beside it (docs/format.md, "Chunks that name their frames").
	alone, seq := chunkPath(prefix)
	chunk := prefix
	if alone {
		prefix = prefix[:strings.LastIndex(prefix, format.SuffixEvents+".")]
	}
	for _, s := range suffixes {
		if p, ok := strings.CutSuffix(prefix, s); ok && !alone {
			prefix = p
			break
		}
	}
	events := prefix + format.SuffixEvents
	if alone {
		events = chunk
	}
	st, err := os.Stat(events)
	if err != nil {
		return nil, fmt.Errorf("opening recording: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("opening recording: %s is a directory", events)
	}
	if !st.Mode().IsRegular() {
		// A device or a pipe has no end to read to (a link to /dev/full
		// reads as endless NULs), and its size says nothing.
		return nil, fmt.Errorf("opening recording: %s is not a regular file", events)
	}
	r := &Recording{Prefix: prefix, opened: opened}
	if alone {
		r.Chunks = []ChunkFile{{Path: events, Seq: seq}}
	} else if r.Chunks, err = chunkFiles(prefix); err != nil {
		return nil, err
	}
	if len(r.Chunks) > 0 {
		events = r.Chunks[0].Path
	}
	if err := checkHead(events); err != nil && (len(r.Chunks) == 0 || !errors.Is(err, fs.ErrNotExist)) {
		// (A bounded recording's oldest chunk may be deleted meanwhile.)
		return nil, err
	}

	var errs []error
	collect := func(es []error) { errs = append(errs, es...) }
	// A metadata file that is not a regular file is left out, with a
	// warning: the events alone still make a report.
	loadMeta := func(path string, read func(io.Reader, string)) (bool, error) {
		found, err := load(path, read)
		if err == errNotRegular {
			r.Warnings = append(r.Warnings, path+": not a regular file; ignored")
			return false, nil
		}
		return found, err
	}
	var newClasses map[format.ClassID]*Class // the classes read now (Reopen: those appended)
	classesMore := false
	foundMethods, err := loadMeta(prefix+format.SuffixMethods, func(f io.Reader, name string) {
		var ms map[format.MethodID]*Method
		es, m, more := readMeta(f, name, prev.methodsRead, func(f io.Reader, name string) (es []error) {
			ms, es = ReadMethods(f, name)
			return es
		})
		if more {
			maps.Copy(prev.Methods, ms)
			ms = prev.Methods
		}
		r.Methods, r.methodsRead = ms, m
		collect(es)
	})
	if err != nil {
		return nil, err
	}
	foundClasses, err := loadMeta(prefix+format.SuffixClasses, func(f io.Reader, name string) {
		var cs map[format.ClassID]*Class
		es, m, more := readMeta(f, name, prev.classesRead, func(f io.Reader, name string) (es []error) {
			cs, es = ReadClasses(f, name)
			return es
		})
		newClasses, classesMore = cs, more
		if more {
			maps.Copy(prev.Classes, cs)
			cs = prev.Classes
		}
		r.Classes, r.classesRead = cs, m
		collect(es)
	})
	if err != nil {
		return nil, err
	}
	if _, err := loadMeta(prefix+format.SuffixInfo, func(f io.Reader, name string) {
		var es []error
		r.Info, es = readInfo(f, name)
		collect(es)
	}); err != nil {
		return nil, err
	}
	for _, e := range errs {
		var pe *ParseError
		if !errors.As(e, &pe) {
			return nil, fmt.Errorf("opening recording: %w", e) // a read error, not a bad line
		}
		r.Warnings = append(r.Warnings, e.Error())
	}
	// Without metadata the events still tell who waited for whom, so a
	// missing file is a warning; frames then resolve as unknown methods,
	// unless the chunks define them (a chunk file copied alone).
	var defMethods map[format.MethodID]*Method
	var defClasses map[format.ClassID]*Class
	if !foundMethods || !foundClasses {
		defMethods, defClasses = r.chunkDefinitions()
	}
	if !foundMethods {
		r.Methods = map[format.MethodID]*Method{}
		if len(defMethods) > 0 {
			r.Methods = defMethods
			r.Warnings = append(r.Warnings, prefix+".methods: missing; stack frames named by the chunks' own definitions")
		} else {
			r.Warnings = append(r.Warnings, prefix+".methods: missing; stack frames cannot be named")
		}
	}
	if !foundClasses {
		r.Classes = map[format.ClassID]*Class{}
		if len(defClasses) > 0 {
			r.Classes = defClasses
			r.Warnings = append(r.Warnings, prefix+".classtable: missing; classes named by the chunks' own definitions")
		} else {
			r.Warnings = append(r.Warnings, prefix+".classtable: missing; classes cannot be named")
		}
	}
	if f, ok := r.Info[format.InfoFormat]; ok && f != format.Version {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s.info: format %q; this reader knows %s", prefix, f, format.Version))
	}
	r.demangleNatives()
	if classesMore && prev.dotted != nil {
		r.dotted = prev.dotted // Reopen's: the classes' before, and those appended
	} else {
		r.dotted = make(map[format.ClassID]string, len(r.Classes))
		newClasses = r.Classes
	}
	for id, c := range newClasses {
		r.dotted[id] = format.JavaName(c.Signature)
	}
	return r, nil
}

// chunkDefinitions reads the events once for the methods and classes their
// chunks define (format.TagMethod, TagClass: docs/format.md), for a
// recording without .methods or .classtable beside it: a chunk file copied
// alone. Nil when the events are not compact or define none.
func (r *Recording) chunkDefinitions() (map[format.MethodID]*Method, map[format.ClassID]*Class) {
	ev, c, err := r.Events()
	if err != nil {
		return nil, nil
	}
	defer c.Close()
	if ev.cp == nil {
		return nil, nil
	}
	for {
		_, err := ev.Next()
		if err == io.EOF {
			break
		}
		if _, ok := err.(*ParseError); err != nil && !ok {
			break // a read error: Events tells it again
		}
	}
	ms, cs, errs := ev.Definitions()
	for _, e := range errs {
		r.Warnings = append(r.Warnings, e.Error())
	}
	return ms, cs
}

// errNotRegular is load's answer for a file it will not read.
var errNotRegular = errors.New("not a regular file")

// load opens path and hands it to read, reporting whether the file exists.
func load(path string, read func(io.Reader, string)) (found bool, err error) {
	f, err := OpenFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if errors.Is(err, errNotRegular) {
		return false, errNotRegular
	}
	if err != nil {
		return false, fmt.Errorf("opening recording: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		// As for PREFIX.orca: reading it might never end. The caller
		// treats it as missing, with this error as a warning.
		return false, errNotRegular
	}
	read(f, path)
	return true, nil
}

// Events opens PREFIX.orca for streaming. The caller closes the Closer.
func (r *Recording) Events() (*Events, io.Closer, error) {
	if len(r.Chunks) > 0 {
		return r.chunkEvents()
	}
	name := r.Prefix + format.SuffixEvents
	f, err := OpenFile(name)
	if err != nil {
		return nil, nil, fmt.Errorf("opening events: %w", err)
	}
	return NewEvents(f, name), f, nil
}

// demangleNatives gives the C++ functions of native and VM frames (the
// agent names them by their symbols, mangled: libjvm's from its .symtab)
// the names their programmers read, without their parameters, as pprof
// and async-profiler print them: "_ZN13ObjectMonitor5enterEP10JavaThread"
// is "ObjectMonitor::enter". A Java method is never touched (its class is
// not native), nor a symbol that does not demangle (C's: "read").
func (r *Recording) demangleNatives() {
	for _, m := range r.Methods {
		if !strings.HasPrefix(m.Name, "_Z") {
			continue
		}
		if c := r.Classes[m.Class]; c != nil && format.IsNativeClass(c.Signature) {
			m.Name = demangle.Filter(m.Name, demangle.NoParams, demangle.NoClones)
		}
	}
}
