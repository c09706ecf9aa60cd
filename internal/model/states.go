package model

import (
	"orca/internal/format"
	"orca/internal/reader"
)

// push starts an interval, splitting the enclosing one so intervals never
// overlap. Only a contention nests in another state (Thread.join and
// Object.wait take a monitor back before they return; Semaphore.acquire can
// block on a class initialisation), and not in a sleep or a park: a thread
// blocks on a monitor only once it runs again. Any other state opening in
// one means the open one's closing event was lost: it ends here, with a
// problem (a park cut so is one interval, never segments around the
// contention, and ended by no unpark).
func (b *Builder) push(ts *tstate, iv Interval, ls *lstate, other *tstate, ev *reader.Event) *openIv {
	if n := len(ts.body.open); n > 0 && ts.body.open[n-1].iv.State == Blocked && (iv.State == Blocked || iv.State == Waiting && iv.Object == ts.body.open[n-1].iv.Object) {
		// A thread blocked on a monitor that blocks on another, or waits on
		// this one (which it must own), had entered it: its Entered, timed
		// from HotSpot's clock of contended enters, can come up to a few
		// nanoseconds after this line (the two clocks' conversion, Tomcat:
		// 8-12 a run). The contention ends here; that Entered is expected.
		ts.body.lateEntered, ts.body.lateAt = ts.body.open[n-1].iv.Object, iv.Start
		b.end(ts, iv.Start, endNormal)
	}
	for n := len(ts.body.open); n > 0; n-- {
		if top := ts.body.open[n-1].iv.State; iv.State == Blocked && top != Blocked && top != Sleeping && top != Parked && top != Idle {
			break
		}
		b.problem(ev, "thread %v still %s: its end is missing", ev.Thread, ts.body.open[n-1].iv.State)
		b.end(ts, iv.Start, endForced)
	}
	iv.Since, iv.Restated = iv.Start, ev.Carried
	ts.body.acqEnd.obj = 0 // it passes on no wake-up from here (endParked)
	if iv.Object != 0 && b.m.byNum != nil {
		// Its object's number, for Model.ObjectNum: the object the fold
		// asked for last (its lock, just now), else looked up.
		o := b.lastFold
		if o == nil || b.lastObj != iv.Object {
			o = b.objFind(iv.Object)
		}
		if o != nil {
			iv.objNum = uint32(o.num)
		}
	}
	if n := len(ts.body.open); n > 0 {
		outer := &ts.body.open[n-1]
		b.segment(ts, outer, iv.Start, false)
		outer.iv.Start = iv.Start // resumes when the inner one ends
	}
	// Its state set in place, every field: a new openIv (128 bytes)
	// zeroed, filled and copied in was ~18 instructions a push.
	n := len(ts.body.open)
	if n < cap(ts.body.open) {
		ts.body.open = ts.body.open[:n+1]
	} else {
		ts.body.open = append(ts.body.open, openIv{})
	}
	o := &ts.body.open[n]
	o.iv, o.ls, o.other, o.spanStart = iv, ls, other, iv.Start
	o.named, o.namedAt, o.seq, o.segs = false, 0, 0, 0
	if iv.State == Blocked {
		o.iv.First = iv.Other
		o.iv.ownFrom = uint32(ls.l.ownLen())
	}
	b.rewait(ts, iv.Start)
	return o
}

// segment appends a segment of state o ending at end. An empty one is
// kept too: it says who was waited for at that instant, or how the state
// ended.
// beforeEventsMax is the longest a contention the agent's Enter of a
// thread blocked before the events were on can seem (segment): 1 ns
// apart as written, 6-16 ns by HotSpot's timer, 116 ns once on a loaded
// machine (TestAttachBlockInGap on 25, load 4-6: "1 contention, 0 us"
// where 100 ns was the bound). A real contention is longer: its Enter's
// time is taken before the callback's stack walk, and the shortest in a
// Jetty recording beside JFR was 3.6 µs; only an owner-unknown contention
// of a recording whose agent wrote such Enters is taken for one.
const beforeEventsMax = 1000

func (b *Builder) segment(ts *tstate, o *openIv, end format.Time, open bool) {
	end = max(end, o.iv.Start)
	iv := ts.body.ivs.slot(o.iv.Start, b.ivSlab, b.ivFree)
	*iv = o.iv
	iv.End, iv.Open, iv.Cont = end, open, o.segs > 0
	o.segs++
	if b.beforeEvents && iv.State == Blocked && iv.Other == 0 && !iv.Open && iv.Start == iv.Since && iv.Duration() <= beforeEventsMax {
		// The agent's Enter of a thread blocked before the events were
		// on, 1 ns before its Entered (pending.c), which HotSpot's timer
		// puts a few ns off (its ticks turned back into ns: 6-16 ns seen
		// on one machine): no real contention is that short, the agent's
		// own Enter callback between the two takes longer.
		iv.BeforeEvents = true
	}
	if b.held++; b.held > b.m.PeakIntervals {
		b.m.PeakIntervals = b.held
	}
	if !ts.body.feeding && !b.noThreadTimes {
		ts.body.feeding = true
		b.feeding = append(b.feeding, ts)
	}
	ts.floor = max(ts.floor, end)
}

// How a state ends.
type ending uint8

const (
	endNormal ending = iota // by its closing event
	endForced               // the closing event is missing (ThreadEnded, or an outer state closed)
	endOpen                 // still in it when the recording ended
)

// pop ends the innermost open state s of ts at the event. States opened inside
// it lost their closing events: they end too, each with a problem. It
// returns false when the thread is not in state s.
func (b *Builder) pop(ts *tstate, s State, ev *reader.Event) bool {
	i := len(ts.body.open) - 1
	for i >= 0 && ts.body.open[i].iv.State != s {
		i--
	}
	if i < 0 {
		return false
	}
	for len(ts.body.open)-1 > i {
		b.problem(ev, "thread %v still %s: its end is missing", ev.Thread, ts.body.open[len(ts.body.open)-1].iv.State)
		b.end(ts, ev.Time, endForced)
	}
	o := &ts.body.open[i].iv // read before end alone: no copy
	if ev.Kind.Has(format.FObject) && o.Object != ev.Object {
		b.problem(ev, "thread %v ends %s on %v but was %s on %v", ev.Thread, s, ev.Object, s, o.Object)
	}
	if ev.Kind.Has(format.FTarget) && o.Other != ev.Target && !(o.SelfJoin && ev.Target == ev.Thread) {
		b.problem(ev, "thread %v ends joining %v but was joining %v", ev.Thread, ev.Target, o.Other)
	}
	b.end(ts, ev.Time, endNormal)
	return true
}

// end closes the innermost open state of ts at at: the bookkeeping of its
// kind, its last segment; the enclosing state, if any, resumes.
func (b *Builder) end(ts *tstate, at format.Time, how ending) {
	n := len(ts.body.open)
	// In place: nothing below opens a state of ts, which would write
	// over it (a copy of its 128 bytes was ~9 instructions an end).
	o := &ts.body.open[n-1]
	ts.body.open = ts.body.open[:n-1]
	if n == 1 && ts.body.win.where == splitOpen {
		b.splitSoon(ts)
	}
	if at < o.iv.Start {
		at = o.iv.Start
	}
	switch o.iv.State {
	case Blocked:
		at = b.endBlocked(ts, o, at, how)
	case Waiting:
		b.endWaiting(ts, o, at, how)
		if o.ls != nil {
			o.ls.hold.retakes(ts.id) // back in the monitor
		}
	case Acquiring:
		if how == endNormal {
			b.endAcquiring(ts, o, at)
		}
	case Joining:
		if how == endNormal {
			b.endJoining(ts, o, at)
		}
	case Parked, Idle:
		b.endParked(ts, o, at, how)
		if o.ls == nil {
			break // no lock kept (Options.NoParkLocks)
		}
		if o.iv.Acquire {
			b.unparkedFrom(ts, o, at, how) // its unparker known
		} else if ls := b.blockerCondition(o.ls); ls != nil {
			ls.hold.retakes(ts.id) // it takes the lock back, or parks in its acquire (blocks)
		}
	}
	o.iv.Forced = how == endForced
	// At the end of the recording, the innermost state's open segment
	// comes first, then the empty ones of the states around it.
	b.segment(ts, o, at, how == endOpen)
	if (o.iv.State == Waiting || o.iv.State == Acquiring) && o.segs > 1 {
		// The earlier segments of a split wait learn how it ended (its
		// last, just added, has it: one alone needs no walk).
		ts.body.ivs.back(func(iv *Interval) bool {
			if iv.End < o.iv.Since {
				return false
			}
			if iv.State == o.iv.State && iv.Since == o.iv.Since && iv.Object == o.iv.Object {
				iv.Wake, iv.Other = o.iv.Wake, o.iv.Other
				return iv.Cont
			}
			return true
		})
	}
	if n > 1 {
		ts.body.open[n-2].iv.Start = at
	}
	if how != endOpen {
		b.rewait(ts, at)
	}
}

// endJoining ends a join that returned at at.
func (b *Builder) endJoining(ts *tstate, o *openIv, at format.Time) {
	if o.iv.Other == 0 {
		return
	}
	// A join returns because its target ended, or because it timed
	// out or was interrupted: only the first is an edge.
	if tt := b.known(o.iv.Other); tt != nil && b.tOf(tt).Ended {
		if b.tOf(tt).End <= at {
			b.edges.add(Edge{Kind: EdgeJoin, From: o.iv.Other, To: ts.id, FromTime: b.tOf(tt).End, ToTime: at})
		}
	} else {
		b.joins[o.iv.Other] = append(b.joins[o.iv.Other], pendingJoin{ts.id, at})
	}
}
