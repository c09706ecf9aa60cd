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
}

// eachContention calls f for each of t's contentions, in time order. A
// monitor's is its Model.BlameSpans; a java.util.concurrent acquire's are
// its parks, each with the gap before it, on the park's owner
// (Interval.ParkOwner), and it counts on the last park's unparker (or its
// owner), as the report's blame (model's jucContention): Lock.Owners'
// figures are the sums of these. The spans slice is reused between calls.
// ivs are t's intervals (Model.IntervalsOf).
func eachContention(m *model.Model, t *model.Thread, ivs []model.Interval, f func(c *contention)) {
	var c contention
	for i := 0; i < len(ivs); i++ {
		if j, ok := contentionAt(m, t, ivs, i, &c); ok {
			f(&c)
			i = j
		}
	}
}

// contentionAt sets c to the contention that begins at ivs[i] (a Blocked
// interval, or the first park of a java.util.concurrent acquire), reusing
// c's spans, and returns the index of its last interval; false when
// ivs[i] begins none.
func contentionAt(m *model.Model, t *model.Thread, ivs []model.Interval, i int, c *contention) (int, bool) {
	iv := &ivs[i]
	switch {
	case iv.State == model.Blocked:
		*c = contention{first: iv, open: iv.Open, count: iv.Other, spans: c.spans[:0]}
		for sp := range m.BlameSpans(t.ID, iv) {
			c.spans = append(c.spans, sp)
		}
		return i, true
	case iv.Acquire:
		*c = contention{first: iv, spans: c.spans[:0]}
		from, last, end := iv.Start, iv, i
		for j := i; j < len(ivs); j++ {
			p := &ivs[j]
			if j > i && !m.Reparked(last, p) {
				break
			}
			m.ParkSpans(t.ID, from, p, func(sp model.OwnerSpan) bool {
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
