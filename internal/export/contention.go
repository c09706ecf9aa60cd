package export

import (
	"orca/internal/format"
	"orca/internal/model"
)

// contention is one contention of a thread, as the report counts and
// blames it (model's aggregator): a contended monitor enter (one Blocked
// interval), or an acquire of a java.util.concurrent lock (its consecutive
// parks, model.Reparked: one contention).
type contention struct {
	first *model.Interval // its first interval: where it blocked, and on what
	open  bool            // the recording ended in it
	// count is the owner the contention counts on: the one whose release
	// let the thread in, the last one for an open contention (Blame
	// Contentions, Open); 0 when unknown.
	count format.ThreadID
	// spans are its stretches and the owner blamed for each (0: unknown);
	// they add up to its length, each to the owner's Blamed.
	spans []model.OwnerSpan
	// hands: the locks' hand-offs read back for the parks, kept from
	// contention to contention (model.HandOffs); made at the first.
	hands *model.HandOffs
}

// eachPiece calls f with t's intervals in order: a piece at a time when
// the Model reads t by pieces (model.IntervalWindow), else whole; last
// says that no piece follows. f returns how many of the last intervals it
// was given to be given again, first, with the next piece: a contention
// that may go on there (goesOn), read whole then. An export so holds a
// piece of a server's long-lived thread at a time, not its life (one
// Tomcat worker's hour was 490 MB of intervals). w is the reader, reused
// from thread to thread.
func eachPiece(m *model.Model, t *model.Thread, w *model.IntervalWindow, f func(ivs []model.Interval, last bool) (keep int)) {
	m.WindowOf(t, w)
	keep := 0
	for {
		ivs, ok := w.NextKeeping(keep)
		if !ok {
			return
		}
		keep = f(ivs, w.Last())
	}
}

// goesOn reports whether the contention that begins at ivs[i] and ends,
// so far, at ivs[j] (contentionAt) may go on into the next piece: a
// java.util.concurrent acquire's parks up to the piece's last interval,
// with a piece after it (not last).
func goesOn(ivs []model.Interval, i, j int, last bool) bool {
	return !last && ivs[i].Acquire && j == len(ivs)-1
}

// eachContention calls f for each of t's contentions, in time order. A
// monitor's is its Model.BlameSpans; a java.util.concurrent acquire's are
// its parks, each with the gap before it, on the park's owner
// (Interval.ParkOwner), and it counts on the last park's unparker (or its
// owner), as the report's blame (model's jucContention): Lock.Owners'
// figures are the sums of these. The spans slice is reused between calls.
// ivs are t's intervals, or a piece of them (eachPiece: last says none
// follows): a contention that may go on into the next piece is not given
// to f, and the number of intervals from its first on is returned, to be
// given again (0: none). c is the caller's, reused (contentionAt).
func eachContention(m *model.Model, t *model.Thread, ivs []model.Interval, last bool, c *contention, f func(c *contention)) (keep int) {
	for i := 0; i < len(ivs); i++ {
		if j, ok := contentionAt(m, t, ivs, i, c); ok {
			if goesOn(ivs, i, j, last) {
				return len(ivs) - i
			}
			f(c)
			i = j
		}
	}
	return 0
}

// contentionAt sets c to the contention that begins at ivs[i] (a Blocked
// interval, or the first park of a java.util.concurrent acquire), reusing
// c's spans and hand-offs read back, and returns the index of its last
// interval; false when ivs[i] begins none.
func contentionAt(m *model.Model, t *model.Thread, ivs []model.Interval, i int, c *contention) (int, bool) {
	iv := &ivs[i]
	if c.hands == nil {
		c.hands = new(model.HandOffs)
	}
	switch {
	case iv.State == model.Blocked:
		*c = contention{first: iv, open: iv.Open, count: iv.Other, spans: c.spans[:0], hands: c.hands}
		for sp := range m.BlameSpans(t.ID, iv) {
			c.spans = append(c.spans, sp)
		}
		return i, true
	case iv.Acquire:
		*c = contention{first: iv, spans: c.spans[:0], hands: c.hands}
		from, last, end := iv.Start, iv, i
		for j := i; j < len(ivs); j++ {
			p := &ivs[j]
			if j > i && !m.Reparked(last, p) {
				break
			}
			m.ParkSpansIn(c.hands, t.ID, from, p, func(sp model.OwnerSpan) bool {
				c.spans = append(c.spans, sp)
				return true
			})
			from, last, end = p.End, p, j
		}
		c.open = last.Open
		c.count = last.Other
		if c.count == 0 {
			c.count = last.First
			if n := len(c.spans); c.open && n > 0 && c.spans[n-1].Owner != 0 {
				// Still parked at the end: on the owner it waits for
				// now, a hand-off's since it parked (the report's,
				// model's jucContention).
				c.count = c.spans[n-1].Owner
			}
		}
		return end, true
	}
	return i, false
}
