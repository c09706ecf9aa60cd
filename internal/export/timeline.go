package export

import (
	"strconv"

	"orca/internal/format"
	"orca/internal/model"
)

// The timeline formats (Perfetto, Chrome JSON) show a track per thread, a
// slice per interval, and each edge as a flow between two instants: one on
// the track of the thread that acted (the notifier, the parent, the ended
// thread, the releaser, the owner) when it acted, one on the other
// thread's track when it felt it. Instants, not the slices themselves, carry
// the flows because the thread that acts is usually runnable, in no slice.

// tlKind is what a timeline event does.
type tlKind uint8

const (
	tlBegin tlKind = iota
	tlEnd
	tlInstant
)

// tlEvent is one begin, end or instant on a thread's track.
type tlEvent struct {
	ts     format.Time
	kind   tlKind
	thread int             // index into Model.Threads
	iv     *model.Interval // tlBegin, tlEnd
	edge   *model.Edge     // tlInstant
	flow   uint64          // tlInstant: the flow id, shared by the two ends
	source bool            // tlInstant: the acting thread's end (see edgeNames)
	// opens is true for the first end of a flow in time order, which
	// starts it; the other end closes it. It is the source end, unless
	// the two threads' clocks disagree (or an import got the times wrong)
	// and the effect comes first: the flow then still links the two.
	opens bool
}

// timelineEvents makes the events of the intervals of kinds k and of
// their edges, a thread at a time (its intervals read back a piece at a
// time: eachPiece), then the edges', and gives each to add with its key
// (tlKey: at one timestamp, slices that end come first, then instants,
// then slices that begin, so a thread's slices never appear to overlap and
// an instant lands between them rather than inside; an empty slice's end
// stays right after its begin). ev and what it points to are add's until
// it returns. Sorted by key (tlSort), they are the timeline.
func timelineEvents(m *model.Model, k Kinds, opt Options, add func(ev *tlEvent, key tlKey)) {
	index := make(map[format.ThreadID]int, m.NumThreads())
	seq := 0
	// One event and one edge, given to add again and again (add's until
	// it returns): made anew each, they were 1.0 of 35 CPU-s of ten
	// minutes of Tomcat's perfetto export, sampled, with the collector's
	// work on them.
	var ev tlEvent
	var edge model.Edge
	put := func(e tlEvent, key tlKey) {
		key.seq = seq
		seq++
		e.ts = key.ts
		ev = e
		add(&ev, key)
	}
	var w model.IntervalWindow
	nt := m.NumThreads()
	for ti, t := range m.AllThreads() {
		opt.progress(StepTimeline, ti, nt)
		index[t.ID] = ti
		eachPiece(m, t, &w, func(ivs []model.Interval, _ bool) int {
			for i := range ivs {
				iv := &ivs[i]
				if !k.Has(iv.Shown()) {
					continue
				}
				put(tlEvent{kind: tlBegin, thread: ti, iv: iv}, tlKey{ts: iv.Start, phase: 2})
				endPhase := uint8(0)
				if iv.End == iv.Start {
					endPhase = 2
				}
				put(tlEvent{kind: tlEnd, thread: ti, iv: iv}, tlKey{ts: iv.End, phase: endPhase})
			}
			return 0
		})
	}
	ne := m.NumEdges()
	for i, ed := range m.AllEdges() {
		if i%progressEvery == 0 {
			opt.progress(StepEdges, i, ne)
		}
		edge = ed // a copy: the model's edges may be read back from the spill
		e := &edge
		from, ok1 := index[e.From]
		to, ok2 := index[e.To]
		if !ok1 || !ok2 || !k.hasEdge(e.Kind) {
			continue
		}
		// The first end in time order opens the flow (tlEvent.opens): the
		// source's, unless the effect comes first.
		src, dst := tlKey{ts: e.FromTime, phase: 1, seq: seq}, tlKey{ts: e.ToTime, phase: 1, seq: seq + 1}
		opens := src.compare(dst) < 0
		flow := uint64(i) + 1
		put(tlEvent{kind: tlInstant, thread: from, edge: e, flow: flow, source: true, opens: opens}, src)
		put(tlEvent{kind: tlInstant, thread: to, edge: e, flow: flow, opens: !opens}, dst)
	}
}

// arg is one argument of a slice or instant.
type arg struct{ key, value string }

// sliceArgs describes an interval: its object, the other thread (see
// otherKey), how a wait ended, and whether the recording ended in it;
// in a's room (its contents let go).
func sliceArgs(a []arg, m *model.Model, th format.ThreadID, iv *model.Interval, tn threadNames, cs *calls, cc *classCache) []arg {
	a = a[:0]
	if iv.Object != 0 {
		a = append(a, arg{"object", iv.Object.String()})
		if c := cc.of(m, iv.Object); c != "" {
			a = append(a, arg{"class", c})
		}
	}
	if c := cs.call(iv.Stack); c != "" {
		a = append(a, arg{"call", c})
	}
	if iv.Other != 0 {
		a = append(a, arg{otherKey(iv.State), tn.full(iv.Other)})
	}
	if iv.State == model.Blocked {
		// One slice per contention, however often the owner changed: a
		// slice per owner would grow as contentions × waiters. Who held
		// the monitor when is in the report's blame and in the viewer.
		if n := m.OwnerChangesIn(th, iv); n > 0 {
			first := "unknown"
			if iv.First != 0 {
				first = tn.full(iv.First)
			}
			a = append(a, arg{"first_owner", first}, arg{"owner_changes", strconv.Itoa(n)})
		}
	}
	if (iv.State == model.Parked || iv.State == model.Idle) && iv.First != 0 {
		// The blocker's owner when the thread parked (a j.u.c. lock's holder).
		a = append(a, arg{"owner", tn.full(iv.First)})
	}
	if iv.Acquire {
		a = append(a, arg{"lock", "a java.util.concurrent lock's acquire"})
	}
	if iv.Wake != model.WakeNone {
		a = append(a, arg{"wake", iv.Wake.String()})
	}
	if iv.Since != iv.Start {
		a = append(a, arg{"continues", "a state that began earlier (a nested state ended)"})
	}
	if iv.Open {
		if note := cutNote(m); note != "" {
			a = append(a, arg{"open", note})
		} else {
			a = append(a, arg{"open", "still in this state when the recording ended"})
		}
	}
	return a
}

// classCache is Model.ClassName's answers for the objects met lately, a
// slot by a hash of the object: a lock's slices repeat its class, and
// ClassName makes the Java name anew each time (3.0 of 43 CPU-s of ten
// minutes of Tomcat's perfetto export, sampled).
type classCache struct {
	slots [1 << classCacheBits]struct {
		obj  format.ObjectID
		name string
		set  bool
	}
}

// classCacheBits is the bits of a classCache's slot.
const classCacheBits = 12

func (c *classCache) of(m *model.Model, obj format.ObjectID) string {
	s := &c.slots[uint64(obj)*0x9e3779b97f4a7c15>>(64-classCacheBits)]
	if !s.set || s.obj != obj {
		s.obj, s.name, s.set = obj, m.ClassName(obj), true
	}
	return s.name
}

// instantArgs describes one end of an edge: the object and the thread at
// the other end; in a's room, as sliceArgs.
func instantArgs(a []arg, ev *tlEvent, tn threadNames) []arg {
	e := ev.edge
	a = a[:0]
	if e.Object != 0 {
		a = append(a, arg{"object", e.Object.String()})
	}
	if ev.source {
		a = append(a, arg{"to", tn.full(e.To)})
	} else {
		a = append(a, arg{"from", tn.full(e.From)})
	}
	if e.Ambiguous {
		a = append(a, arg{"ambiguous", "another thread could equally be the one"})
	}
	return a
}

// instantName names one end of an edge (see edgeNames).
func instantName(ev *tlEvent) string {
	from, to := edgeNames(ev.edge.Kind)
	if ev.source {
		return from
	}
	return to
}
