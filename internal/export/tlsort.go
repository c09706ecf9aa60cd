package export

import (
	"cmp"
	"encoding/binary"
	"math"
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
// sorted and written out, with their records and sort keys (tlRecBytes
// each).
var tlRunBytes = 32 << 20

// tlRecBytes is what a record held takes beside its bytes: the tlRec and
// its two keys in sortRun.
const tlRecBytes = 48 + 2*16

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
	opt    Options // its Progress, told of the writing (StepWriting)
	n      int     // the events added
	recs   []tlRec
	data   []byte // the bytes of recs, since the last run
	runs   [][]model.ScratchRef
	noRuns bool // the spill took no run: every event stays in recs
	// sortRun's keys, kept from run to run.
	ord, ordTmp []tlOrd
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
	s.n++
	if !s.noRuns && len(s.data)+len(s.recs)*tlRecBytes >= tlRunBytes {
		s.spill()
	}
}

// spill writes the events held as a sorted run.
func (s *tlSort) spill() {
	s.sortRun()
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
	s.sortRun()
	s.ord, s.ordTmp = nil, nil
	done := 0
	model.MergeScratchRuns(s.m, s.runs, s.recs, byTLKey, tlDecode, func(r tlRec) {
		if done%progressEvery == 0 {
			s.opt.progress(StepWriting, done, s.n)
		}
		done++
		emit(r.key, r.aux, r.b)
	})
}

// tlOrd is a record's sort key and its place among the records (sortRun).
type tlOrd struct {
	key uint64
	i   uint32
}

// tlRadixBits is the digit of sortRun's radix sort.
const tlRadixBits = 11

// sortRun puts the records held in key order. They are held in the order
// they were made (timelineEvents: seq increasing), so a stable sort by
// time and phase is the key's order: a radix sort (least significant
// digit first, as many passes as the widest key needs) of each record's
// time less the run's least above its phase, then the records moved to
// their places in place. The comparison sort (6.6 of 43 CPU-s of ten minutes of
// Tomcat's perfetto export, sampled) is kept for what the keys cannot
// say: times 2^62 ns apart or more, a phase past 3, records not in the
// order of their seq, more than 2^32 of them.
func (s *tlSort) sortRun() {
	recs := s.recs
	if len(recs) < 2 {
		return
	}
	lo, hi := recs[0].key.ts, recs[0].key.ts
	inOrder := len(recs) <= math.MaxUint32
	for i := range recs {
		k := &recs[i].key
		lo, hi = min(lo, k.ts), max(hi, k.ts)
		if k.phase > 3 || i > 0 && k.seq <= recs[i-1].key.seq {
			inOrder = false
		}
	}
	span := uint64(hi) - uint64(lo)
	if !inOrder || span >= 1<<62 {
		slices.SortFunc(recs, func(a, b tlRec) int { return a.key.compare(b.key) })
		return
	}
	ord, tmp := s.ord[:0], slices.Grow(s.ordTmp[:0], len(recs))[:len(recs)]
	for i := range recs {
		k := &recs[i].key
		ord = append(ord, tlOrd{(uint64(k.ts)-uint64(lo))<<2 | uint64(k.phase), uint32(i)})
	}
	var count [1 << tlRadixBits]int
	for shift := 0; shift < 64 && (span<<2|3)>>shift != 0; shift += tlRadixBits {
		clear(count[:])
		for _, o := range ord {
			count[o.key>>shift&(1<<tlRadixBits-1)]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, o := range ord {
			d := o.key >> shift & (1<<tlRadixBits - 1)
			tmp[count[d]] = o
			count[d]++
		}
		ord, tmp = tmp, ord
	}
	// Each record moved to its place in place, a cycle of the
	// permutation at a time (a place done says itself: ord[k].i = k).
	for j := range recs {
		if ord[j].i == uint32(j) {
			continue
		}
		first, k := recs[j], j
		for {
			from := int(ord[k].i)
			ord[k].i = uint32(k)
			if from == j {
				recs[k] = first
				break
			}
			recs[k] = recs[from]
			k = from
		}
	}
	s.ord, s.ordTmp = ord[:0], tmp[:0]
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
