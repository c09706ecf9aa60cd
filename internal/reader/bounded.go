package reader

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"orca/internal/format"
)

// Bounded recordings (docs/format.md, "Bounded recordings"): the agent
// given maxsize= or maxage= writes its events to chunk files PREFIX.orca.N
// (format.ChunkFileName), each a compact .orca of its own that begins with
// the state of every live thread, and deletes the oldest past the bounds.
// PREFIX.orca then holds only the header. The readers read the chunk files
// kept, in order, as one recording; the carried records of the first one
// read stand for the history that was dropped.

// ChunkFile is one chunk file of a bounded recording.
type ChunkFile struct {
	Path string
	Seq  uint64 // N of PREFIX.orca.N
}

// chunkFiles lists the chunk files of prefix, by number.
func chunkFiles(prefix string) ([]ChunkFile, error) {
	dir, base := filepath.Split(prefix)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("listing the chunk files of %s: %w", prefix, err)
	}
	var out []ChunkFile
	lead := base + format.SuffixEvents + "."
	for _, e := range ents {
		d, ok := strings.CutPrefix(e.Name(), lead)
		if !ok || d == "" || strings.Trim(d, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		n, err := strconv.ParseUint(d, 10, 64)
		if err != nil || n == 0 {
			continue
		}
		out = append(out, ChunkFile{Path: prefix + format.SuffixEvents + "." + d, Seq: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

// carryFilter decides which carried records a reader hands on: the
// restated state of threads (ThreadStarted, open intervals and what goes
// with them) only before the first event that is not carried — the start
// of the first chunk read —, and an object's class only when no record
// read so far gave it.
type carryFilter struct {
	events bool
	facts  *factSet
}

// factKey is an object and a kind of fact about it (ObjectClass,
// ClassInitLock, ConditionLock): a word, which a map hashes as plain memory (a struct of
// the two has padding, hashed field by field: a range looks one up for
// every event on an object).
type factKey uint64

func factOf(obj format.ObjectID, kind format.Kind) factKey {
	return factKey(obj)<<8 | factKey(kind)
}

func (c *carryFilter) pass(ev *Event) bool {
	fact := ev.Kind.Fact()
	if !ev.Carried {
		c.events = true
		if fact {
			c.note(ev)
		}
		return true
	}
	ev.Line = 0
	if !fact {
		return !c.events
	}
	if c.facts != nil && c.facts.has(factOf(ev.Object, ev.Kind)) {
		return false
	}
	c.note(ev)
	return true
}

func (c *carryFilter) note(ev *Event) {
	if c.facts == nil {
		c.facts = &factSet{}
	}
	c.facts.add(factOf(ev.Object, ev.Kind))
}

// factSet is carryFilter's set of the facts read: a fact is noted for
// each ObjectClass line (a busy server's chunk file has thousands, one an
// object parked on once) and looked up only for a carried one (a chunk's
// first records: tens). So a fact noted is appended, and the facts noted
// since the last look-up are sorted into a run of their own at the next:
// a map's store of each, at a random place of a table of thousands, was
// 2 % of a push's CPU. A run is merged with the last while that one is not
// twice as long (a binary counter's carries): each fact is merged
// O(log n) times, and a look-up searches O(log n) runs. Merging every new
// fact into all the others at each look-up was 7 % of an hour of a
// loaded Tomcat's report (5.7 M facts, 1 667 look-ups after new ones).
type factSet struct {
	runs [][]factKey // each in order, without repeats; each more than twice the next's length
	tail []factKey   // noted since the last look-up
	tmp  []factKey   // a merge's memory
}

func (s *factSet) add(k factKey) { s.tail = append(s.tail, k) }

func (s *factSet) has(k factKey) bool {
	if len(s.tail) > 0 {
		s.settle()
	}
	for _, r := range s.runs {
		if _, ok := slices.BinarySearch(r, k); ok {
			return true
		}
	}
	return false
}

// settle sorts the facts noted since the last look-up into a run, merged
// with the last runs while they are not twice as long.
func (s *factSet) settle() {
	slices.Sort(s.tail)
	run := slices.Clone(slices.Compact(s.tail))
	s.tail = s.tail[:0]
	for n := len(s.runs); n > 0 && len(s.runs[n-1]) <= 2*len(run); n-- {
		a, b := s.runs[n-1], run
		out := s.tmp[:0]
		if cap(out) < len(a)+len(b) {
			// Made once at its length: grown by append, a merge's run
			// was 1.4 GB of an hour of a loaded Tomcat's allocations.
			out = make([]factKey, 0, len(a)+len(b))
		}
		for len(a) > 0 || len(b) > 0 {
			var k factKey
			if len(b) == 0 || len(a) > 0 && a[0] <= b[0] {
				k, a = a[0], a[1:]
			} else {
				k, b = b[0], b[1:]
			}
			if n := len(out); n == 0 || out[n-1] != k {
				out = append(out, k)
			}
		}
		// The merged run takes the memory of the last one merged (in
		// tmp now) and gives its own to the next merge.
		s.runs[n-1], s.tmp, run = nil, s.runs[n-1][:0], out
		s.runs = s.runs[:n-1]
	}
	s.runs = append(s.runs, run)
}

// reset empties s, its memory kept.
func (s *factSet) reset() {
	clear(s.runs)
	s.runs, s.tail = s.runs[:0], s.tail[:0]
}

// eachChunkFile is EachEvent on a bounded recording's chunk files, in
// order, as one file: event numbers go on from one to the next, and a
// chunk file deleted since Open listed it is skipped (Dropped counts it).
func (r *Recording) eachChunkFile(opt EachOptions, fn func(*Event) error) (truncated bool, err error) {
	cf := &carryFilter{}
	if opt.Columns != nil {
		// One numbering of the threads for all the files: a thread goes
		// on from one to the next.
		opt.dense = newDenseThreads()
	}
	var done int64
	line := 0
	for i, c := range r.Chunks {
		f, err := OpenFile(c.Path)
		if errors.Is(err, fs.ErrNotExist) {
			r.ChunksGone++ // deleted by the agent since Open listed it
			continue
		}
		if err != nil {
			return false, fmt.Errorf("opening events: %w", err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return false, fmt.Errorf("opening events: %w", err)
		}
		o := opt
		if opt.Progress != nil {
			o.Progress = func(d int64) { opt.Progress(done + d) }
		}
		// A file's lines go on from the last one's; a carried record
		// has none (0).
		last := 0
		shift := func(l int) int {
			if l > 0 {
				last = l
				l += line
			}
			return l
		}
		if cols := opt.Columns; cols != nil {
			o.Columns = func(c *Columns) error {
				lines := c.Line[:c.Len()]
				for i, l := range lines {
					lines[i] = shift(l)
				}
				return cols(c)
			}
		} else if batch := opt.Batch; batch != nil {
			o.Batch = func(evs []Event) error {
				for i := range evs {
					evs[i].Line = shift(evs[i].Line)
				}
				return batch(evs)
			}
		}
		t, err := eachEventAt(f, 0, st.Size(), c.Path, o, cf, func(ev *Event) error {
			ev.Line = shift(ev.Line)
			return fn(ev)
		})
		f.Close()
		if err != nil {
			return false, err
		}
		line += last
		done += st.Size()
		truncated = t && i == len(r.Chunks)-1
	}
	return truncated, nil
}

// chunkEvents makes Events read the chunk files one after the other.
func (r *Recording) chunkEvents() (*Events, io.Closer, error) {
	e := &Events{files: r.Chunks, filter: &carryFilter{}}
	if err := e.nextFile(); err != nil {
		return nil, nil, err
	}
	return e, closerFunc(func() error {
		if e.file != nil {
			return e.file.Close()
		}
		return nil
	}), nil
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// nextFile opens the next chunk file that still exists; at the end e.cp
// stays at its end (io.EOF).
func (e *Events) nextFile() error {
	for e.fi < len(e.files) {
		c := e.files[e.fi]
		e.fi++
		f, err := OpenFile(c.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("opening events: %w", err)
		}
		if e.file != nil {
			e.file.Close()
			if e.cp != nil {
				e.lineBase += e.cp.events
			}
		}
		e.file = f
		n := NewEvents(f, c.Path)
		if e.cp != nil && n.cp != nil {
			n.cp.defs = e.cp.defs // the definitions of the chunks read before
		}
		e.rr, e.cp, e.cr = n.rr, n.cp, n.cr
		return nil
	}
	if e.cp == nil && e.rr == nil {
		// Every chunk file is gone: an empty recording.
		e.cp = newCompactRecords("", 64)
		e.cp.reset(strings.NewReader(""), 1, -1, nil)
		e.cr = &countingReader{r: strings.NewReader("")}
	}
	return nil
}

// LastEventsFile returns the file the recording's last events are in:
// PREFIX.orca, or a bounded recording's last chunk file (where a kill
// leaves a record cut or a chunk without its trailer).
func (r *Recording) LastEventsFile() string {
	if n := len(r.Chunks); n > 0 {
		return r.Chunks[n-1].Path
	}
	return r.Prefix + format.SuffixEvents
}

// EventBytes returns the size of the files the events are in: PREFIX.orca,
// or a bounded recording's chunk files (for progress reports).
func (r *Recording) EventBytes() int64 {
	if len(r.Chunks) == 0 {
		if st, err := os.Stat(r.Prefix + format.SuffixEvents); err == nil {
			return st.Size()
		}
		return 0
	}
	var n int64
	for _, c := range r.Chunks {
		if st, err := os.Stat(c.Path); err == nil {
			n += st.Size()
		}
	}
	return n
}

// CompactEvents reports whether the recording's events are in the compact
// encoding (its first event file's header says so): about 20 times denser
// than the seed's text, so that what is made of each event weighs 20 times
// more per byte of the file (orca report's and orca view's room on disk).
func (r *Recording) CompactEvents() bool {
	files, err := r.eventFiles()
	if err != nil {
		return false
	}
	compact := false
	for _, p := range files {
		if err := withFile(p, func(f *os.File, size int64) error {
			compact = compactFile(f, size)
			return errStopFiles
		}); err == errStopFiles {
			break
		}
	}
	return compact
}

// errStopFiles ends CompactEvents' walk at the first event file there is.
var errStopFiles = errors.New("stop")
