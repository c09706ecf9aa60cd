package export

import (
	"cmp"
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
// tlRunBytes, sorted, written to the model's spill (model.ScratchRun),
// then merged. Without a spill the events stay in memory.

// tlKey orders a timeline's events (timelineEvents): by time; at one
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

// tlRec is an event: its key, a number the writer gives it (aux: the
// Perfetto stack, say) and its bytes.
type tlRec struct {
	key tlKey
	aux uint64
	b   []byte
}

func byTLKey(a, b *tlRec) int { return a.key.compare(b.key) }

// tlSort is an external sort of a timeline's encoded events: the model's
// runs (model.ScratchRun, MergeScratchRuns).
type tlSort struct {
	m      *model.Model
	recs   []tlRec
	data   []byte // the bytes of recs, since the last run
	runs   [][]model.ScratchRef
	noRuns bool // the spill took no run: every event stays in recs
}

// add takes an event: its key, aux, and its bytes, the pieces of ps one
// after the other.
func (s *tlSort) add(key tlKey, aux uint64, ps ...[]byte) {
	off := len(s.data)
	for _, p := range ps {
		s.data = append(s.data, p...)
	}
	// A slice of data as it is now: a later append that moves data
	// leaves the bytes where this slice sees them.
	s.recs = append(s.recs, tlRec{key, aux, s.data[off:len(s.data):len(s.data)]})
	if !s.noRuns && len(s.data)+len(s.recs)*48 >= tlRunBytes {
		s.spill()
	}
}

// spill writes the events held as a sorted run.
func (s *tlSort) spill() {
	slices.SortFunc(s.recs, func(a, b tlRec) int { return a.key.compare(b.key) })
	run, ok := model.ScratchRun(s.m, s.recs, func(b []byte, r, _ *tlRec) []byte {
		b = binary.AppendVarint(b, int64(r.key.ts))
		b = append(b, r.key.phase)
		b = binary.AppendUvarint(b, uint64(r.key.seq))
		b = binary.AppendUvarint(b, r.aux)
		b = binary.AppendUvarint(b, uint64(len(r.b)))
		return append(b, r.b...)
	})
	if !ok {
		s.noRuns = true
		return
	}
	s.runs = append(s.runs, run)
	s.recs, s.data = s.recs[:0], s.data[:0]
}

// each calls emit for every event in key order; emit's bytes are its own
// until it returns.
func (s *tlSort) each(emit func(key tlKey, aux uint64, b []byte)) {
	slices.SortFunc(s.recs, func(a, b tlRec) int { return a.key.compare(b.key) })
	model.MergeScratchRuns(s.m, s.runs, s.recs, byTLKey, tlDecode, func(r tlRec) { emit(r.key, r.aux, r.b) })
}

// tlDecode unpacks a record spill packed (n 0: b holds no whole one).
func tlDecode(b []byte, _ *tlRec) (r tlRec, n int) {
	ts, k := binary.Varint(b)
	if k <= 0 || k >= len(b) {
		return r, 0
	}
	r.key.ts, r.key.phase = format.Time(ts), b[k]
	k++
	seq, k1 := binary.Uvarint(b[k:])
	if k1 <= 0 {
		return r, 0
	}
	r.key.seq = int(seq)
	k += k1
	if r.aux, k1 = binary.Uvarint(b[k:]); k1 <= 0 {
		return r, 0
	}
	k += k1
	l, k1 := binary.Uvarint(b[k:])
	if k1 <= 0 || uint64(len(b)-k-k1) < l {
		return r, 0
	}
	k += k1
	r.b = b[k : k+int(l)]
	return r, k + int(l)
}
