package web

import (
	"net/http"
	"sort"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
)

// The wait chain from one interval at one instant (issue 36, item 1):
// analysis.ChainAt, the walk per waiter orca report's chains agree with, asked per click,
// so that the viewer pays for it only when the user looks at a chain.

// chainJSON answers GET /api/chain/{thread}/{i}?t=T.
type chainJSON struct {
	T     int64           `json:"t"` // the instant, ns (the interval's middle when t is not given)
	Links []chainLinkJSON `json:"links"`
	Root  chainRootJSON   `json:"root"`
}

// chainLinkJSON is one step: thread waited for to, how, on object.
type chainLinkJSON struct {
	threadRefJSON
	// How: "monitor", "lock" (a java.util.concurrent lock's acquire),
	// "join", "wait" (to notified it), "park" (to unparked it),
	// "semaphore" (to released it): analysis.Link's.
	How      string `json:"how"`
	State    string `json:"state"`    // the thread's interval then, as the timeline shows it
	Interval int    `json:"interval"` // that interval's index
	// Start, End: that interval's, ns; Since when it entered its state.
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	Since  int64  `json:"since"`
	Object string `json:"object,omitempty"`
	// LockKind is the object's kind as /api/locks names it (monitor, juc,
	// semaphore, blocker); absent for a join.
	LockKind string        `json:"lockKind,omitempty"`
	Class    string        `json:"class,omitempty"`
	To       threadRefJSON `json:"to"`
	Frames   []frameJSON   `json:"frames"`
}

// chainRootJSON is the thread the chain ends at.
type chainRootJSON struct {
	threadRefJSON
	// State: analysis.Path's RootState: a state (runnable, sleeping, an
	// ownerless waiting or parked, …), "cycle" (a deadlock: the last
	// link's to is a thread of the chain), "ended", "not_started", "unknown" or
	// "released" (the last link's lock, which the root had released: in
	// Object.wait on that monitor, Condition.await on a condition of it).
	State    string `json:"state"`
	Interval int    `json:"interval"` // its interval at the instant, -1 when none (runnable, or not seen)
	Shown    string `json:"shown,omitempty"`
	// Start, End, Since: the interval's, as a link's.
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	Since  int64  `json:"since"`
	Object string `json:"object,omitempty"`
	Class  string `json:"class,omitempty"`
	// Run: for a runnable root, its stretch of runnable time around the
	// instant (between two intervals, within one scheduler window) and
	// the model's split of it (model.Thread.RunIn), as the timeline draws
	// it; absent when its runnable time is not split.
	Run    *chainRunJSON `json:"run,omitempty"`
	Frames []frameJSON   `json:"frames"`
}

type chainRunJSON struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	runJSON
}

// lockKindOf names the object of a chain's step as /api/locks does.
var lockKindOf = map[string]string{"monitor": "monitor", "lock": "juc", "wait": "monitor", "park": "blocker", "semaphore": "semaphore"}

// intervalAt is the index of t's interval at instant at, -1 when none
// (runnable, or outside its life).
func intervalAt(t *model.Thread, at format.Time) int { return intervalIn(t.Intervals, at) }

// intervalIn is intervalAt in ivs, a thread's intervals (data.intervalsOf).
func intervalIn(ivs []model.Interval, at format.Time) int {
	i := sort.Search(len(ivs), func(i int) bool { return ivs[i].End > at })
	if i < len(ivs) && ivs[i].Start <= at {
		return i
	}
	return -1
}

func (s *site) chain(r *http.Request) (any, error) {
	d := s.d
	ti, t, k, err := s.intervalParam(r)
	if err != nil {
		return nil, err
	}
	ivk := d.interval(ti, k)
	iv := &ivk
	// The instant, within the interval and the thread's life (an open
	// interval's end is the recording's).
	lo, hi := max(iv.Start, t.Start), min(iv.End, t.End)
	if hi <= lo {
		return nil, notFound("interval %d of thread %d (%s) lasts no time", k, ti, t.Name)
	}
	at := lo + (hi-lo)/2
	if q := r.URL.Query().Get("t"); q != "" {
		ns, err := intParam(r, "t", 0, -1<<53, 1<<53)
		if err != nil {
			return nil, err
		}
		if a := d.abs(ns); a < lo || a >= hi {
			return nil, badRequest("t=%d: outside interval %d of thread %d, %d to %d", ns, k, ti, d.rel(lo), d.rel(hi))
		} else {
			at = a
		}
	}
	var p analysis.Path
	d.locked(func() { p = analysis.ChainAt(d.m, t.ID, at) })
	out := chainJSON{T: d.rel(at), Links: []chainLinkJSON{}}
	ref := func(id format.ThreadID) threadRefJSON {
		return threadRefJSON{Thread: d.threadIndex(id), ID: id.String(), Name: d.threadName(id)}
	}
	for _, l := range p.Links {
		j := chainLinkJSON{threadRefJSON: ref(l.From), How: l.How, Interval: -1, LockKind: lockKindOf[l.How], To: ref(l.To), Frames: []frameJSON{}}
		if l.Object != 0 {
			j.Object, j.Class = l.Object.String(), d.objectClass(l.Object)
		}
		if j.Thread >= 0 {
			ivs, from := d.intervalsAt(j.Thread, at)
			if i := intervalIn(ivs, at); i >= 0 {
				x := &ivs[i]
				j.Interval, j.State, j.Frames = from+i, x.Shown().String(), d.stackFrames(x.Stack)
				j.Start, j.End, j.Since = d.rel(x.Start), d.rel(x.End), d.rel(x.Since)
			}
		}
		out.Links = append(out.Links, j)
	}
	out.Root = chainRootJSON{threadRefJSON: ref(p.Root), State: p.RootState, Interval: -1, Frames: []frameJSON{}}
	if ri := out.Root.Thread; ri >= 0 {
		th := d.m.ThreadAt(ri)
		ivs, from := d.intervalsAt(ri, at)
		if i := intervalIn(ivs, at); i >= 0 {
			x := &ivs[i]
			out.Root.Interval, out.Root.Shown, out.Root.Frames = from+i, x.Shown().String(), d.stackFrames(x.Stack)
			out.Root.Start, out.Root.End, out.Root.Since = d.rel(x.Start), d.rel(x.End), d.rel(x.Since)
			if x.Object != 0 {
				out.Root.Object, out.Root.Class = x.Object.String(), d.objectClass(x.Object)
			}
		} else if at >= th.Start && at < th.End && hasSplit(th) {
			out.Root.Run = runStretch(d, d.runOf(ri), ivs, at)
		}
	}
	return out, nil
}

// runStretch is thread t's stretch of runnable time around at (no
// interval there): between its intervals, cut at its scheduler times as
// the timeline cuts it (runPieces), with the model's split.
// ivs is a window of t's intervals that holds the first that ends after
// at and the one before it (data.intervalsAt).
func runStretch(d *data, t *model.Thread, ivs []model.Interval, at format.Time) *chainRunJSON {
	a, b := t.Start, t.End
	i := sort.Search(len(ivs), func(i int) bool { return ivs[i].End > at })
	if i > 0 {
		a = max(a, ivs[i-1].End)
	}
	if i < len(ivs) {
		b = min(b, ivs[i].Start)
	}
	sc := t.Sched
	if j := sort.Search(len(sc), func(j int) bool { return sc[j].At > at }); j < len(sc) {
		b = min(b, sc[j].At)
		if j > 0 {
			a = max(a, sc[j-1].At)
		}
	} else if j > 0 {
		a = max(a, sc[j-1].At)
	}
	sp := t.RunIn(a, b)
	return &chainRunJSON{Start: d.rel(a), End: d.rel(b),
		runJSON: runJSON{int64(sp.Running), int64(sp.Ready), int64(sp.Other), int64(sp.Virtual), int64(sp.Unsplit)}}
}
