package export

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"slices"

	"orca/internal/format"
	"orca/internal/model"
)

// The timelines (Perfetto, Chrome JSON) are written in time order across
// every thread, and a recording of any length has more intervals than
// memory (issue 34: c128's 3.2 M states took 2.8 GB as tlEvents and the
// model's intervals). So their events are made a thread at a time, each
// encoded at once, and sorted outside memory: runs of at most
// tlRunBytes, sorted, written to the model's spill (Model.ScratchWrite),
// then merged. Without a spill the runs stay in memory.

// tlKey orders a timeline's events (newTimeline): by time; at one
// time, slices that end, then instants, then slices that begin (phase);
// then in the order they were made (seq).
type tlKey struct {
	ts    format.Time
	phase uint8
	seq   int
}

func (a tlKey) compare(b tlKey) int {
	if c := cmp.Compare(a.ts, b.ts); c != 0 {
		return c
	}
	if c := cmp.Compare(a.phase, b.phase); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// tlRunBytes is how many bytes of encoded events a run holds before it is
// sorted and written out.
var tlRunBytes = 32 << 20

// tlRec is an event held in memory: its key, a number the writer gives it
// (aux: the Perfetto stack, say) and where its bytes are.
type tlRec struct {
	key      tlKey
	aux      uint64
	off, len int
}

// tlSort is an external sort of a timeline's encoded events.
type tlSort struct {
	m    *model.Model
	recs []tlRec
	data []byte
	runs []model.ScratchRef
	held [][]byte // runs with no spill to go to
}

// add takes an event: its key, aux, and its bytes, the pieces of ps one
// after the other.
func (s *tlSort) add(key tlKey, aux uint64, ps ...[]byte) {
	off := len(s.data)
	for _, p := range ps {
		s.data = append(s.data, p...)
	}
	s.recs = append(s.recs, tlRec{key, aux, off, len(s.data) - off})
	if len(s.data)+len(s.recs)*32 >= tlRunBytes {
		s.spill()
	}
}

func (s *tlSort) sortHeld() {
	slices.SortFunc(s.recs, func(a, b tlRec) int { return a.key.compare(b.key) })
}

// spill writes the events held as a sorted run.
func (s *tlSort) spill() {
	if len(s.recs) == 0 {
		return
	}
	s.sortHeld()
	run := make([]byte, 0, len(s.data)+len(s.recs)*16)
	for _, r := range s.recs {
		run = binary.AppendVarint(run, int64(r.key.ts))
		run = append(run, r.key.phase)
		run = binary.AppendUvarint(run, uint64(r.key.seq))
		run = binary.AppendUvarint(run, r.aux)
		run = binary.AppendUvarint(run, uint64(r.len))
		run = append(run, s.data[r.off:r.off+r.len]...)
	}
	if ref, ok := s.m.ScratchWrite(run); ok {
		s.runs = append(s.runs, ref)
	} else {
		s.held = append(s.held, run)
	}
	s.recs, s.data = s.recs[:0], s.data[:0]
}

// each calls emit for every event in key order; emit's bytes are its own
// until it returns.
func (s *tlSort) each(emit func(key tlKey, aux uint64, b []byte) error) error {
	if len(s.runs) == 0 && len(s.held) == 0 {
		s.sortHeld()
		for _, r := range s.recs {
			if err := emit(r.key, r.aux, s.data[r.off:r.off+r.len]); err != nil {
				return err
			}
		}
		return nil
	}
	s.spill()
	var h tlHeap
	for _, ref := range s.runs {
		h = append(h, &tlRun{m: s.m, ref: ref})
	}
	for _, b := range s.held {
		h = append(h, &tlRun{buf: b, mem: true})
	}
	s.recs, s.data, s.held = nil, nil, nil
	live := h[:0]
	for _, r := range h {
		if r.next() {
			live = append(live, r)
		}
	}
	h = live
	heap.Init(&h)
	for len(h) > 0 {
		r := h[0]
		if err := emit(r.key, r.aux, r.cur); err != nil {
			return err
		}
		if r.next() {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}

// tlRun reads a run back, a window of tlWindow bytes at a time.
type tlRun struct {
	m   *model.Model
	ref model.ScratchRef
	mem bool   // buf is the whole run, held in memory
	buf []byte // the window read
	at  int    // the window's start in the run
	pos int    // the next record's offset in buf
	// The record read: its key, aux and bytes (in buf).
	key tlKey
	aux uint64
	cur []byte
}

var tlWindow = 256 << 10

// next reads the next record; false at the run's end.
func (r *tlRun) next() bool {
	for {
		if key, aux, b, n := tlDecode(r.buf[r.pos:]); n > 0 {
			r.key, r.aux, r.cur = key, aux, b
			r.pos += n
			return true
		}
		// A record cut by the window's end, or none left.
		if r.mem || r.at+len(r.buf) >= r.ref.Len() {
			return false
		}
		rest := len(r.buf) - r.pos
		r.at += r.pos
		size := min(max(tlWindow, 2*rest), r.ref.Len()-r.at)
		r.buf = r.m.ScratchRead(r.ref.Slice(r.at, r.at+size), r.buf)
		r.pos = 0
	}
}

// tlDecode decodes a run's record at b's start: n is 0 when b holds no
// whole one.
func tlDecode(b []byte) (key tlKey, aux uint64, rec []byte, n int) {
	ts, k := binary.Varint(b)
	if k <= 0 || k >= len(b) {
		return key, 0, nil, 0
	}
	key.ts, key.phase = format.Time(ts), b[k]
	k++
	seq, k1 := binary.Uvarint(b[k:])
	if k1 <= 0 {
		return key, 0, nil, 0
	}
	key.seq = int(seq)
	k += k1
	aux, k1 = binary.Uvarint(b[k:])
	if k1 <= 0 {
		return key, 0, nil, 0
	}
	k += k1
	l, k1 := binary.Uvarint(b[k:])
	if k1 <= 0 || uint64(len(b)-k-k1) < l {
		return key, 0, nil, 0
	}
	k += k1
	return key, aux, b[k : k+int(l)], k + int(l)
}

// tlHeap is the runs by their current record's key.
type tlHeap []*tlRun

func (h tlHeap) Len() int           { return len(h) }
func (h tlHeap) Less(i, j int) bool { return h[i].key.compare(h[j].key) < 0 }
func (h tlHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *tlHeap) Push(x any)        { *h = append(*h, x.(*tlRun)) }
func (h *tlHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}
