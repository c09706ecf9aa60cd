package model

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// The spill's counters (issue 34, for measuring it; orca report's
// ORCA_SPILL_STATS=FILE): the bytes each kind of writer added and each
// reader read back, the writes and reads of the file and their sizes, and
// how many of the bytes read had been read before. Off, they cost a test
// of a bool at each read and write of the file.

// spillStats is the counters, when on.
var spillStats *spillCounts

type spillCount struct{ calls, bytes int64 }

type spillCounts struct {
	mu      sync.Mutex
	added   map[string]*spillCount // by writer (kind)
	reads   map[string]*spillCount // by reader (its callers)
	writes  spillCount             // the file's writes
	punched spillCount             // the holes punched (spillFile.punch)
	sizes   [24]int64              // the reads by size, as log2
	pages   []uint8                // reads of each 4 KiB page (255: or more)
	again   int64                  // pages read a second time or more
	read1   int64                  // pages read at all
	// trace: every add and read in order (ORCA_SPILL_TRACE), for the
	// spill's liveness (docs/perf/2026-12-02-spill-pages.md); nil: off.
	trace  []spillEvent
	labels map[string]uint16
	names  []string
}

// spillEvent is an add (w) or a read of the spill in the trace.
type spillEvent struct {
	off   int64
	n     int32
	label uint16
	w     bool
}

// EnableSpillTrace makes the counters keep every add and read too.
func EnableSpillTrace() {
	if spillStats != nil {
		spillStats.trace = []spillEvent{}
		spillStats.labels = map[string]uint16{}
	}
}

func (c *spillCounts) traceNote(what string, off int64, n int, w bool) {
	l, ok := c.labels[what]
	if !ok {
		l = uint16(len(c.names))
		c.labels[what] = l
		c.names = append(c.names, what)
	}
	c.trace = append(c.trace, spillEvent{off, int32(n), l, w})
}

// WriteSpillTrace writes the trace, a line each: W or R, offset, length,
// label.
func WriteSpillTrace(w io.Writer) {
	c := spillStats
	if c == nil || c.trace == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	bw := bufio.NewWriterSize(w, 1<<20)
	for _, e := range c.trace {
		op := byte('R')
		if e.w {
			op = 'W'
		}
		fmt.Fprintf(bw, "%c %d %d %d\n", op, e.off, e.n, e.label)
	}
	for i, n := range c.names {
		fmt.Fprintf(bw, "L %d %s\n", i, n)
	}
	bw.Flush()
}

// EnableSpillStats starts counting the spill's I/O.
func EnableSpillStats() {
	spillStats = &spillCounts{added: map[string]*spillCount{}, reads: map[string]*spillCount{}}
}

// SpillStatsReads is the reads of the spill's file counted since
// EnableSpillStats (the tests'), and stops counting.
func SpillStatsReads() int64 {
	c := spillStats
	if c == nil {
		return 0
	}
	spillStats = nil
	var n int64
	for _, e := range c.reads {
		n += e.calls
	}
	return n
}

func (c *spillCounts) count(m map[string]*spillCount, key string, n int) {
	e := m[key]
	if e == nil {
		e = &spillCount{}
		m[key] = e
	}
	e.calls++
	e.bytes += int64(n)
}

// noteAdd counts n bytes added by writer what.
func (c *spillCounts) noteAdd(what string, off int64, n int) {
	c.mu.Lock()
	c.count(c.added, what, n)
	if c.trace != nil {
		c.traceNote(what, off, n, true)
	}
	c.mu.Unlock()
}

// noteWrite counts a write of the file of n bytes.
func (c *spillCounts) noteWrite(n int) {
	c.mu.Lock()
	c.writes.calls++
	c.writes.bytes += int64(n)
	c.mu.Unlock()
}

// noteRead counts a read of n bytes at off, by its callers.
func (c *spillCounts) noteRead(off int64, n int) {
	var pcs [6]uintptr
	k := runtime.Callers(3, pcs[:])
	fr := runtime.CallersFrames(pcs[:k])
	var names []string
	for {
		f, more := fr.Next()
		name := f.Function[strings.LastIndexByte(f.Function, '/')+1:]
		names = append(names, name)
		if !more || len(names) == 3 {
			break
		}
	}
	key := strings.Join(names, " < ")
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count(c.reads, key, n)
	if c.trace != nil {
		c.traceNote(key, off, n, false)
	}
	b := 0
	for v := n; v > 1; v >>= 1 {
		b++
	}
	c.sizes[min(b, len(c.sizes)-1)]++
	if n == 0 {
		return
	}
	first, last := int(off>>12), int((off+int64(n)-1)>>12)
	if last >= len(c.pages) {
		c.pages = slices.Grow(c.pages, last+1-len(c.pages))[:last+1]
	}
	for p := first; p <= last; p++ {
		switch c.pages[p] {
		case 0:
			c.read1++
		case 1:
			c.again++
		}
		if c.pages[p] < 255 {
			c.pages[p]++
		}
	}
}

// WriteSpillStats writes the counters to w.
func WriteSpillStats(w io.Writer) {
	c := spillStats
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	list := func(title string, m map[string]*spillCount) {
		type kv struct {
			k string
			v spillCount
		}
		var all []kv
		var tot spillCount
		for k, v := range m {
			all = append(all, kv{k, *v})
			tot.calls += v.calls
			tot.bytes += v.bytes
		}
		slices.SortFunc(all, func(a, b kv) int { return cmp.Compare(b.v.bytes, a.v.bytes) })
		fmt.Fprintf(w, "%s: %d calls, %d bytes\n", title, tot.calls, tot.bytes)
		for _, e := range all {
			fmt.Fprintf(w, "  %12d calls %14d bytes  %s\n", e.v.calls, e.v.bytes, e.k)
		}
	}
	list("added", c.added)
	fmt.Fprintf(w, "file writes: %d calls, %d bytes\n", c.writes.calls, c.writes.bytes)
	list("reads", c.reads)
	fmt.Fprintf(w, "reads by size (log2 bytes: count):")
	for i, n := range c.sizes {
		if n > 0 {
			fmt.Fprintf(w, " %d:%d", i, n)
		}
	}
	var reads int64
	for _, p := range c.pages {
		reads += int64(p)
	}
	fmt.Fprintf(w, "\npages (4 KiB) read: %d distinct, %d read again, %d page-reads (capped at 255 a page)\n", c.read1, c.again, reads)
}

// callerName is the function skip frames above its caller.
func callerName(skip int) string {
	pc, _, _, _ := runtime.Caller(skip + 1)
	f := runtime.FuncForPC(pc).Name()
	return f[strings.LastIndexByte(f, '/')+1:]
}
