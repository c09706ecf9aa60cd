package modeltest

import (
	"slices"

	"orca/internal/format"
	"orca/internal/model"
)

// holds checks each lock's hold times (model.Lock.Hold): a monitor's or a
// j.u.c. lock's only, each ended by a contended acquisition (at most one
// per contention of a monitor, per park in an acquire of a j.u.c. lock),
// taken at a site where a contention entered a monitor (HeldAt); the sites
// add up to the lock (counts and total exactly, max the sites' largest),
// sorted by total and distinct; 0 ≤ p50 ≤ p99 ≤ max ≤ total; and the holds
// of one lock, which follow one another, add up to at most the recording.
func (v *validator) holds() {
	m := v.m
	parks := map[format.ObjectID]int{}
	for _, t := range m.Threads {
		for i := range t.Intervals {
			if iv := &t.Intervals[i]; iv.Acquire {
				parks[iv.Object]++
			}
		}
	}
	figures := func(name string, f model.HoldFigures) {
		// Total ≤ Count × Max, asked without the product: times of a
		// fuzzed recording reach centuries, and the product overflows.
		over := f.Total > 0
		if f.Max > 0 {
			q, r := f.Total/f.Max, f.Total%f.Max
			over = q > format.Time(f.Count) || q == format.Time(f.Count) && r > 0
		}
		if f.Count < 1 || f.P50 < 0 || f.P50 > f.P99 || f.P99 > f.Max || f.Max > f.Total || over {
			v.bad("%s: hold times %+v", name, f)
		}
	}
	for _, l := range m.Locks {
		h := l.Hold
		if h == nil {
			continue
		}
		name := l.Kind.String() + " " + l.Object.String()
		figures(name, h.HoldFigures)
		switch l.Kind {
		case model.Monitor:
			if h.Count > l.Contentions {
				v.bad("%s: %d holds, each ended by a contention; %d contentions", name, h.Count, l.Contentions)
			}
		case model.JUCLock:
			if h.Count > parks[l.Object] {
				v.bad("%s: %d holds, each ended by a park in an acquire; %d parks", name, h.Count, parks[l.Object])
			}
		default:
			v.bad("%s: hold times of a %s", name, l.Kind)
		}
		if h.Total > m.End-m.Start {
			v.bad("%s: holds add up to %s, longer than the recording", name, sec(h.Total))
		}
		var n int
		var total, most format.Time
		seen := map[model.StackID]bool{}
		for i, s := range h.Sites {
			figures(name+" site", s.HoldFigures)
			n, total, most = n+s.Count, total+s.Total, max(most, s.Max)
			if seen[s.Stack] || i > 0 && s.Total > h.Sites[i-1].Total {
				v.bad("%s: hold site s%d repeated or out of order", name, s.Stack)
			}
			seen[s.Stack] = true
			if _, ok := slices.BinarySearch(l.HeldAt, s.Stack); l.Kind == model.Monitor && !ok {
				v.bad("%s: held from site s%d, where no contention entered it", name, s.Stack)
			}
		}
		if n != h.Count || total != h.Total || most != h.Max {
			v.bad("%s: hold sites add up to %d holds, %s, max %s; the lock has %d, %s, %s", name, n, sec(total), sec(most), h.Count, sec(h.Total), sec(h.Max))
		}
	}
}
