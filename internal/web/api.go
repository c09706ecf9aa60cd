package web

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
)

// ---- parameters ----------------------------------------------------------

// intParam reads an integer query parameter within [lo, hi]; def when absent.
func intParam(r *http.Request, name string, def, lo, hi int64) (int64, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, badRequest("%s=%q: want an integer", name, s)
	}
	if v < lo || v > hi {
		return 0, badRequest("%s=%d: want %d to %d", name, v, lo, hi)
	}
	return v, nil
}

// timeRange reads t0 and t1 (ns since the recording's start); absent, they
// are the whole recording.
func (s *site) timeRange(r *http.Request) (t0, t1 int64, err error) {
	dur := s.d.rel(s.d.m.End)
	if t0, err = intParam(r, "t0", 0, -1<<53, 1<<53); err != nil {
		return
	}
	if t1, err = intParam(r, "t1", dur, -1<<53, 1<<53); err != nil {
		return
	}
	if t1 < t0 {
		err = badRequest("t1=%d is before t0=%d", t1, t0)
	}
	return
}

// threadParam resolves a thread index given in the path.
func (s *site) threadParam(r *http.Request, name string) (int, *model.Thread, error) {
	v := r.PathValue(name)
	i, err := strconv.Atoi(v)
	if err != nil {
		return 0, nil, badRequest("thread %q: want a thread index (0 to %d)", v, s.d.m.NumThreads()-1)
	}
	if i < 0 || i >= s.d.m.NumThreads() {
		return 0, nil, notFound("no thread %d: the recording has %d threads", i, s.d.m.NumThreads())
	}
	return i, s.d.m.ThreadAt(i), nil
}

// threadList parses "0,3,7-12" into thread indexes (at most max).
func (s *site) threadList(v string, max int) ([]int, error) {
	var out []int
	n := s.threadCount()
	for part := range strings.SplitSeq(v, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || b < a {
			return nil, badRequest("threads=%q: %q is not an index or a range like 3-9", v, part)
		}
		if a < 0 || b >= n {
			return nil, notFound("threads=%q: %q is outside 0-%d", v, part, n-1)
		}
		if len(out)+(b-a+1) > max {
			return nil, badRequest("threads=%q: more than %d threads in one request", v, max)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// objectParam reads an 8-hex-digit object id.
func objectParam(name, v string) (format.ObjectID, error) {
	u, err := strconv.ParseUint(v, 16, 32)
	if err != nil || v == "" {
		return 0, badRequest("%s=%q: want an object id of 8 hex digits, like 1A2B3C4D", name, v)
	}
	return format.ObjectID(u), nil
}

// ---- summary and threads ---------------------------------------------------

type summaryJSON struct {
	Prefix string `json:"prefix"`
	// Follow: orca view --follow reads the recording again as it grows;
	// Generation numbers the model answered from (as /api/version).
	Follow     bool    `json:"follow"`
	Generation int     `json:"generation"`
	Duration   int64   `json:"duration"` // ns
	Origin     float64 `json:"origin"`   // the first event's time, in the files' seconds
	Threads    int     `json:"threads"`
	Intervals  int     `json:"intervals"`
	Events     int     `json:"events"`
	Locks      int     `json:"locks"`
	Contended  int     `json:"contended"`
	Edges      int     `json:"edges"`
	Deadlocks  int     `json:"deadlocks"`
	Hangs      int     `json:"hangs"` // JDK service threads idling at the end are not hangs
	// Potential: the potential deadlocks orca report lists (lock-order
	// cycles of a run that did not deadlock), counted in the Deadlocks
	// tab's badge beside the deadlocks and hangs.
	Potential int `json:"potential"`
	// WaitingAlone: the program's threads waiting alone at the end
	// (analysis.Alone: stuck, for no thread, none behind them), not hangs.
	WaitingAlone int `json:"waitingAlone"`
	// NotVisible: the recording's source (an import from JFR) writes a
	// state when it ends, so deadlocks and hangs still going on at the end
	// are not in it: 0 deadlocks and 0 hangs mean "not visible", not none.
	NotVisible bool `json:"notVisible"`
	// Source names who recorded an import as a sentence says it ("JFR",
	// "the source"); absent for the agent's recordings. The viewer says
	// "the agent" only when it is absent.
	Source   string            `json:"source,omitempty"`
	States   []string          `json:"states"`
	Warnings []string          `json:"warnings"`
	Info     map[string]string `json:"info"`
	// Cut is set when the agent could not write the recording whole: it
	// ends at At (ns from the start), and the threads' states then are
	// unknown after it, not hangs.
	Cut *cutJSON `json:"cut,omitempty"`
}

type cutJSON struct {
	At     int64  `json:"at"`
	Reason string `json:"reason"`
}

// view is the model through the request's thread filter (?thread=NAME,
// matched as orca report --thread matches it), nil when there is none.
func (s *site) view(r *http.Request) *model.View {
	want := r.URL.Query().Get("thread")
	if want == "" {
		return nil
	}
	keep := analysis.ThreadFilter(s.d.m, want)
	var v *model.View
	s.d.withIntervals(keep, true, func() { v = s.d.m.Filter(keep) })
	return v
}

// summary answers GET /api/summary; with ?thread= its contended locks,
// deadlocks and hangs are those orca report --thread lists. Its counts and
// warnings are the report's headline (report.New; its caveats): the viewer
// and orca report say the same of a recording.
func (s *site) summary(r *http.Request) (any, error) {
	d := s.d
	m := d.m
	rep := d.report(r.URL.Query().Get("thread"))
	out := summaryJSON{
		Prefix: d.rec.Prefix, Follow: s.opt.Follow, Generation: s.gen, Duration: d.rel(m.End), Origin: m.Start.Seconds(),
		Threads: m.NumThreads(), Intervals: d.intervals, Events: m.Events, Locks: m.NumLocks(),
		Edges:     m.NumEdges(),
		Deadlocks: rep.deadlocks, Hangs: rep.hangs, Potential: len(rep.potential), WaitingAlone: rep.waitingAlone, Contended: rep.locksTotal,
		NotVisible: rep.notVisible,
		Warnings:   rep.caveats, Info: map[string]string{},
	}
	for i := model.State(0); i < model.NumStates; i++ {
		out.States = append(out.States, i.String())
	}
	info := d.rec.Info
	if c := m.Cut; c != nil {
		out.Cut = &cutJSON{At: d.rel(c.At), Reason: c.Reason}
	}
	if src := info[format.InfoSource]; src != "" {
		out.Source = (&reader.Sight{Source: src}).Name()
	}
	for _, k := range []string{format.InfoCommand, format.InfoJavaVersion, format.InfoJavaVM, format.InfoPID, format.InfoComplete,
		format.InfoDroppedTotal, format.InfoOriginUnixNS, format.InfoOriginMonoNS, format.InfoAgentVersion, format.InfoCut,
		format.InfoWriteError, format.InfoWriteErrors, format.InfoUnattributed, format.InfoVirtualThreads, format.InfoDroppedAtExit, format.InfoClassInitOpen} {
		if v, ok := info[k]; ok {
			out.Info[k] = v
		}
	}
	return out, nil
}

type threadJSON struct {
	I         int     `json:"i"`
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Start     int64   `json:"start"`
	End       int64   `json:"end"`
	Ended     bool    `json:"ended"`
	Parent    int     `json:"parent"` // thread index, -1 if unknown
	Intervals int     `json:"intervals"`
	Events    int     `json:"events"`
	Time      []int64 `json:"time"` // ns per state, in summary.states order
	JDK       bool    `json:"jdk"`  // a JDK service thread (Finalizer, Reference Handler, …)
	// Virtual: a virtual thread (JDK 21+); Carrier its last carrier's
	// index (-1 if unknown), Pinned its parks and sleeps pinned to it.
	Virtual bool `json:"virtual,omitempty"`
	Carrier *int `json:"carrier,omitempty"`
	Pinned  int  `json:"pinned,omitempty"`
	// Run: its runnable time (time[0]) split (model.Thread.Run: the
	// report's cpu_s, ready_s, other_s); absent when the recording has
	// neither scheduler times nor samples of it.
	Run *runJSON `json:"run,omitempty"`
}

// runJSON is a split of runnable time (model.RunSplit), ns.
type runJSON struct {
	Running int64 `json:"running"`
	Ready   int64 `json:"ready"`
	Other   int64 `json:"other"`
	Virtual int64 `json:"virtual"` // a carrier's CPU running virtual threads
	Unsplit int64 `json:"unsplit"` // runnable time no scheduler times nor samples cover
}

func (s *site) threadJSON(i int) threadJSON {
	t := s.d.m.ThreadAt(i)
	tj := threadJSON{
		I: i, ID: t.ID.String(), Name: t.Name, Start: s.d.rel(t.Start), End: s.d.rel(t.End), Ended: t.Ended,
		Parent: -1, Intervals: s.d.m.IntervalCount(t), Events: t.Events, Time: make([]int64, model.NumStates),
		JDK: s.d.jdkThread[i],
	}
	if t.Parent != 0 {
		tj.Parent = s.d.threadIndex(t.Parent)
	}
	if t.Virtual {
		tj.Virtual, tj.Pinned = true, int(t.Pinned)
		if t.Carrier != 0 {
			c := s.d.threadIndex(t.Carrier)
			tj.Carrier = &c
		}
	}
	for k := range tj.Time {
		tj.Time[k] = int64(t.Time[k])
	}
	if hasSplit(t) {
		r := t.Run
		tj.Run = &runJSON{int64(r.Running), int64(r.Ready), int64(r.Other), int64(r.Virtual), int64(r.Unsplit)}
	}
	return tj
}

func (s *site) threads(r *http.Request) (any, error) {
	return jsonList{s.d.m.NumThreads(), func(i int) any { return s.threadJSON(i) }}, nil
}

type threadDetailJSON struct {
	threadJSON
	StartedAt []frameJSON `json:"startedAt"` // the parent's stack at Thread.start
	Edges     []edgeJSON  `json:"edges"`     // start edges to and from this thread
}

func (s *site) thread(r *http.Request) (any, error) {
	i, t, err := s.threadParam(r, "thread")
	if err != nil {
		return nil, err
	}
	out := threadDetailJSON{threadJSON: s.threadJSON(i), StartedAt: s.d.stackFrames(t.StartedAt), Edges: []edgeJSON{}}
	// Those to it, then those from it, each by ToTime (an edge joins two
	// threads).
	sj := s.d.m.StartJoinEdges()
	for _, to := range []bool{true, false} {
		for _, ed := range sj {
			if (to && ed.To == t.ID) || (!to && ed.From == t.ID) {
				out.Edges = append(out.Edges, s.edgeJSON(ed))
			}
		}
	}
	return out, nil
}

// ---- intervals and stacks ----------------------------------------------------

type intervalJSON struct {
	Thread      int    `json:"thread"`
	Index       int    `json:"index"`
	State       string `json:"state"`
	Start       int64  `json:"start"`
	End         int64  `json:"end"`
	Since       int64  `json:"since"` // when the state began (earlier than start for a later segment)
	Open        bool   `json:"open"`
	Object      string `json:"object,omitempty"`
	ObjectClass string `json:"objectClass,omitempty"`
	Other       int    `json:"other"` // thread index, -1 if none or unknown
	OtherID     string `json:"otherId,omitempty"`
	OtherName   string `json:"otherName,omitempty"`
	Wake        string `json:"wake,omitempty"`
	// Acquire: a park in the acquire of a java.util.concurrent lock (the
	// object is a lock of kind juc; its state is blocked).
	Acquire bool `json:"acquire,omitempty"`
	Pinned  bool `json:"pinned,omitempty"` // a virtual thread's park or sleep that parked its carrier
	// FirstOwner is the lock's owner when the thread blocked (a monitor
	// or a j.u.c. lock) or parked (a blocker's exclusive owner); absent
	// when unknown or none. Other is the last one, when known.
	FirstOwner *threadRefJSON `json:"firstOwner,omitempty"`
	// LeftLocked: of a park in a juc lock's acquire whose owner (the
	// first or the last) ended before the park did, holding the lock
	// (the lock's model.Lock.LeftLocked names it): that owner, when it
	// ended, and the parks on the lock that named it after its end.
	LeftLocked *leftLockedJSON `json:"leftLocked,omitempty"`
	Stack      int             `json:"stack"`
	Frames     []frameJSON     `json:"frames"`
	Edges      []edgeJSON      `json:"edges"`
	// Owners are, for a contention, the owners it waited behind in
	// order (the first maxOwnerSpans; OwnersTotal counts them all).
	Owners      []ownerSpanJSON `json:"owners,omitempty"`
	OwnersTotal int             `json:"ownersTotal,omitempty"`
	// Holders: for a contention (blocked), what the threads it waited for
	// did meanwhile, with Spans, whom it waited for when (the first
	// maxOwnerSpans of model.Doing.Spans).
	Holders *doingJSON `json:"holders,omitempty"`
}

// threadRefJSON names a thread: its index (-1 when the recording never
// saw it), id and name.
type threadRefJSON struct {
	Thread int    `json:"thread"`
	ID     string `json:"id"`
	Name   string `json:"name"`
}

type ownerSpanJSON struct {
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	Thread int    `json:"thread"` // index, -1 if unknown
	ID     string `json:"id"`
	Name   string `json:"name,omitempty"`
}

// maxOwnerSpans bounds the owners of one interval in its answer: a thread
// queued behind thousands of others would otherwise make it megabytes.
const maxOwnerSpans = 1000

// intervalParam resolves the thread index and interval index given in
// the path ({thread}/{i}).
func (s *site) intervalParam(r *http.Request) (int, *model.Thread, int, error) {
	ti, t, err := s.threadParam(r, "thread")
	if err != nil {
		return 0, nil, 0, err
	}
	v := r.PathValue("i")
	k, err := strconv.Atoi(v)
	if err != nil {
		return 0, nil, 0, badRequest("interval %q: want an index", v)
	}
	if n := s.d.m.IntervalCount(t); k < 0 || k >= n {
		return 0, nil, 0, notFound("thread %d (%s) has no interval %d: it has %d", ti, t.Name, k, n)
	}
	return ti, t, k, nil
}

func (s *site) interval(r *http.Request) (any, error) {
	ti, t, k, err := s.intervalParam(r)
	if err != nil {
		return nil, err
	}
	return s.intervalOf(ti, t, k)
}

// intervalOf is thread t's (index ti) k-th interval's detail.
func (s *site) intervalOf(ti int, t *model.Thread, k int) (intervalJSON, error) {
	iv := s.d.interval(ti, k)
	out := intervalJSON{
		Thread: ti, Index: k, State: iv.Shown().String(), Start: s.d.rel(iv.Start), End: s.d.rel(iv.End),
		Since: s.d.rel(iv.Since), Open: iv.Open, Other: -1, Stack: int(iv.Stack),
		Frames: s.d.stackFrames(iv.Stack), Edges: []edgeJSON{},
	}
	if iv.Wake != model.WakeNone {
		out.Wake = iv.Wake.String()
	}
	if iv.First != 0 && (iv.State == model.Blocked || iv.State == model.Parked || iv.State == model.Idle) {
		out.FirstOwner = &threadRefJSON{Thread: s.d.threadIndex(iv.First), ID: iv.First.String(), Name: s.d.threadName(iv.First)}
	}
	out.Acquire = iv.Acquire
	out.Pinned = iv.Pinned
	if iv.Acquire {
		if l := s.d.m.Lock(iv.Object, model.JUCLock); l != nil {
			for i, ll := range l.LeftLocked {
				if (ll.Thread == iv.First || ll.Thread == iv.Other) && ll.Ended <= iv.End {
					out.LeftLocked = &s.leftLocked(l)[i]
					break
				}
			}
		}
	}
	if iv.Object != 0 {
		out.Object = iv.Object.String()
		out.ObjectClass = s.d.objectClass(iv.Object)
	}
	if iv.Other != 0 {
		out.Other = s.d.threadIndex(iv.Other)
		out.OtherID = iv.Other.String()
		out.OtherName = s.d.threadName(iv.Other)
	}
	var spans []model.OwnerSpan
	if iv.State == model.Blocked || iv.Acquire {
		// What the holders did while this thread waited for them: the
		// lock's fold (model.Doing) over this contention's blame spans.
		lock := model.LockRef{Object: iv.Object, Kind: model.Monitor}
		if iv.Acquire {
			lock.Kind = model.JUCLock
		}
		var dg *model.Doing
		s.d.locked(func() { spans = slices.Collect(s.d.m.BlameSpans(t.ID, &iv)) })
		holders := map[format.ThreadID]bool{}
		for _, sp := range spans {
			holders[sp.Owner] = true
		}
		// Its own hand-off (a park's unparked by the releaser): released.
		var hand []model.OwnerSpan
		if from, ok := iv.HandOff(); ok {
			hand = append(hand, model.OwnerSpan{Start: from, End: iv.End})
		}
		var wins map[format.ThreadID][]model.RunWindow
		if s.d.runWins != nil {
			wins = map[format.ThreadID][]model.RunWindow{}
			for id := range holders {
				ws, err := s.d.runWins(id)
				if err != nil {
					return intervalJSON{}, err
				}
				wins[id] = ws
			}
		}
		s.d.withIntervals(func(t *model.Thread) bool { return holders[t.ID] }, true, func() { dg = s.d.m.DoingInWith(lock, spans, hand, wins) })
		if out.Holders = s.doingOf(dg); out.Holders != nil {
			for _, sp := range dg.Spans[:min(len(dg.Spans), maxOwnerSpans)] {
				out.Holders.Spans = append(out.Holders.Spans, ownerSpanJSON{Start: s.d.rel(sp.Start), End: s.d.rel(sp.End),
					Thread: s.d.threadIndex(sp.Owner), ID: sp.Owner.String(), Name: s.d.threadName(sp.Owner)})
			}
		}
	}
	if iv.State == model.Blocked {
		s.d.locked(func() {
			for sp := range s.d.m.OwnerSpans(t.ID, &iv) {
				if out.OwnersTotal++; len(out.Owners) < maxOwnerSpans {
					out.Owners = append(out.Owners, ownerSpanJSON{Start: s.d.rel(sp.Start), End: s.d.rel(sp.End),
						Thread: s.d.threadIndex(sp.Owner), ID: sp.Owner.String(), Name: s.d.threadName(sp.Owner)})
				}
			}
		})
	}
	// The edges that explain this segment: for a block, who owned the
	// monitor from the segment's start (an owner edge begins when its
	// owner became the one waited for); for a wait, join or acquire, the
	// notify, end or release that ended it.
	want := map[model.State]model.EdgeKind{model.Blocked: model.EdgeOwner, model.Waiting: model.EdgeWake, model.Joining: model.EdgeJoin, model.Acquiring: model.EdgeRelease,
		model.Parked: model.EdgeUnpark, model.Idle: model.EdgeUnpark}
	kind, ok := want[iv.State]
	var to []model.Edge
	if ok {
		to = s.d.edgesTo(ti)
	}
	for _, ed := range to {
		if !ok || ed.Kind != kind || (ed.Object != 0 && iv.Object != 0 && ed.Object != iv.Object) {
			continue
		}
		var in bool
		if kind == model.EdgeOwner {
			in = ed.FromTime >= iv.Start && (ed.FromTime < iv.End || ed.FromTime == iv.Start)
		} else {
			in = ed.ToTime >= iv.Since && ed.ToTime <= iv.End
		}
		if in {
			out.Edges = append(out.Edges, s.edgeJSON(ed))
		}
	}
	// The model keeps one owner edge per contention, from its last owner;
	// an earlier segment's owner is in the interval itself.
	if iv.State == model.Blocked && iv.Other != 0 && len(out.Edges) == 0 {
		out.Edges = append(out.Edges, s.edgeJSON(model.Edge{Kind: model.EdgeOwner, From: iv.Other, To: t.ID, FromTime: iv.Start, ToTime: iv.End, Object: iv.Object}))
	}
	return out, nil
}

type stackJSON struct {
	ID     int         `json:"id"`
	Frames []frameJSON `json:"frames"`
}

func (s *site) stack(r *http.Request) (any, error) {
	v := r.PathValue("id")
	id, err := strconv.Atoi(v)
	if err != nil {
		return nil, badRequest("stack %q: want a stack id", v)
	}
	if id < 0 || id >= len(s.d.m.Stacks) {
		return nil, notFound("no stack %d: the recording has %d", id, len(s.d.m.Stacks))
	}
	return stackJSON{id, s.d.stackFrames(model.StackID(id))}, nil
}

// ---- edges -----------------------------------------------------------------

type edgeJSON struct {
	Kind      string `json:"kind"`
	From      int    `json:"from"` // thread index, -1 if unknown
	To        int    `json:"to"`
	FromTime  int64  `json:"fromTime"`
	ToTime    int64  `json:"toTime"`
	Object    string `json:"object,omitempty"`
	Ambiguous bool   `json:"ambiguous,omitempty"`
}

func (s *site) edgeJSON(e model.Edge) edgeJSON {
	out := edgeJSON{Kind: e.Kind.String(), From: s.d.threadIndex(e.From), To: s.d.threadIndex(e.To),
		FromTime: s.d.rel(e.FromTime), ToTime: s.d.rel(e.ToTime), Ambiguous: e.Ambiguous}
	if e.Object != 0 {
		out.Object = e.Object.String()
	}
	return out
}

type edgesJSON struct {
	Edges     []edgeJSON `json:"edges"`
	Truncated bool       `json:"truncated"` // more edges matched than limit
}

var edgeKinds = map[string]model.EdgeKind{"wake": model.EdgeWake, "start": model.EdgeStart, "join": model.EdgeJoin, "release": model.EdgeRelease, "owner": model.EdgeOwner, "unpark": model.EdgeUnpark}

func (s *site) edges(r *http.Request) (any, error) {
	t0, t1, err := s.timeRange(r)
	if err != nil {
		return nil, err
	}
	limit, err := intParam(r, "limit", 5000, 1, 100000)
	if err != nil {
		return nil, err
	}
	var kinds [8]bool
	if v := r.URL.Query().Get("kinds"); v != "" {
		for k := range strings.SplitSeq(v, ",") {
			ek, ok := edgeKinds[k]
			if !ok {
				return nil, badRequest("kinds=%q: %q is not one of wake, start, join, release, owner, unpark", v, k)
			}
			kinds[ek] = true
		}
	} else {
		kinds = [8]bool{true, true, true, true, true}
	}
	var only map[int]bool
	if v := r.URL.Query().Get("threads"); v != "" {
		list, err := s.threadList(v, 100000)
		if err != nil {
			return nil, err
		}
		only = map[int]bool{}
		for _, i := range list {
			only[i] = true
		}
	}
	a0, a1 := s.d.abs(t0), s.d.abs(t1)
	out := edgesJSON{Edges: []edgeJSON{}}
	// From the first edge that ends at a0 or later (they are by ToTime):
	// those that begin after a1 are not wanted.
	for _, e := range s.d.m.EdgesFrom(a0, a1) {
		if !kinds[e.Kind] || min(e.FromTime, e.ToTime) > a1 || max(e.FromTime, e.ToTime) < a0 {
			continue
		}
		if only != nil && !only[s.d.threadIndex(e.From)] && !only[s.d.threadIndex(e.To)] {
			continue
		}
		if len(out.Edges) == int(limit) {
			out.Truncated = true
			break
		}
		out.Edges = append(out.Edges, s.edgeJSON(e))
	}
	return out, nil
}

// ---- locks -------------------------------------------------------------------

type lockJSON struct {
	Object       string `json:"object"`
	Kind         string `json:"kind"`
	Class        string `json:"class,omitempty"`
	Contentions  int    `json:"contentions"`
	Blocked      int64  `json:"blocked"`
	MaxBlocked   int64  `json:"maxBlocked"`
	Open         int    `json:"open"`        // contentions still going on at the end
	OpenBlocked  int64  `json:"openBlocked"` // their length up to the end
	Contended    bool   `json:"contended"`   // model.Lock.Contended: the viewer counts these, as orca report does
	Waiters      int    `json:"waiters"`
	TopOwner     int    `json:"topOwner"` // thread index of the most blamed owner, -1 if none
	OwnerUnknown int    `json:"ownerUnknown"`
	Waits        int    `json:"waits"`
	WaitTime     int64  `json:"waitTime"`
	Notifies     int    `json:"notifies"`
	NotifyAlls   int    `json:"notifyAlls"`
	WokeNobody   int    `json:"wokeNobody"`
	Acquires     int    `json:"acquires"`
	Releases     int    `json:"releases"`
	// Rank is the lock's place in the model's ranking, the report's
	// CONTENTION order (most blocked time first, the time of contentions
	// still going on at the end included): the Locks table's default sort.
	Rank int `json:"rank"`
	// Group is the index in /api/groups of the group of short-lived
	// objects this one is in (model.Group); absent when none.
	Group *int `json:"group,omitempty"`
	// Call: the java.util.concurrent call threads blocked, waited or
	// parked on it in (model.LockCall), as the report's JSON call;
	// CallLabel: how the report's text names it beside the object
	// (model.CallLabel: "in ArrayBlockingQueue.put"). Absent when none.
	Call      string `json:"call,omitempty"`
	CallLabel string `json:"callLabel,omitempty"`
	// BeforeEvents: of Contentions, those begun before the events were on
	// (model.Interval.BeforeEvents): their length is not known.
	BeforeEvents int `json:"beforeEvents,omitempty"`
	// BeforeAttach: of Contentions and Open, those in progress when orca
	// attached (model.Model.BeforeStart): their time a lower bound.
	BeforeAttach int `json:"beforeAttach,omitempty"`
	// WaitsBeforeAttach: of Waits, those in progress when orca attached.
	WaitsBeforeAttach int `json:"waitsBeforeAttach,omitempty"`
	// NoUnpark: of a juc lock's Contentions, those no release's unpark
	// ended (model.Lock.NoUnpark: a tryLock's timeout, an interrupt), as
	// the report's no_unpark.
	NoUnpark int `json:"noUnpark,omitempty"`
	// NoUnparkInterrupted, NoUnparkSpurious: of NoUnpark, those an
	// interrupt ended and those that woke with no unpark seen (the
	// report's no_unpark_interrupted, no_unpark_spurious).
	NoUnparkInterrupted int `json:"noUnparkInterrupted,omitempty"`
	NoUnparkSpurious    int `json:"noUnparkSpurious,omitempty"`
	// LeftLocked: of a juc lock, the owners its parks named that had
	// ended before the park: a lock its thread never released
	// (model.Lock.LeftLocked, the report's left_locked); absent when none.
	LeftLocked []leftLockedJSON `json:"leftLocked,omitempty"`
}

// leftLockedJSON is a thread that ended holding a juc lock others then
// parked on (model.LeftLocked): the thread, when it ended (ns since the
// recording's start) and the parks that named it the owner after.
type leftLockedJSON struct {
	Thread int    `json:"thread"` // index, -1 if the recording never saw it
	ID     string `json:"id"`
	Name   string `json:"name"`
	Ended  int64  `json:"ended"`
	Parks  int    `json:"parks"`
}

// leftLocked returns the lock's owners that ended holding it.
func (s *site) leftLocked(l *model.Lock) []leftLockedJSON {
	var out []leftLockedJSON
	for _, ll := range l.LeftLocked {
		out = append(out, leftLockedJSON{s.d.threadIndex(ll.Thread), ll.Thread.String(), s.d.threadName(ll.Thread), s.d.rel(ll.Ended), ll.Parks})
	}
	return out
}

func (s *site) lockJSON(l *model.Lock) lockJSON {
	out := lockJSON{
		Object: l.Object.String(), Kind: l.Kind.String(), Class: s.d.objectClass(l.Object), Contentions: l.Contentions,
		Blocked: int64(l.Blocked), MaxBlocked: int64(l.MaxBlocked), Open: l.Open, OpenBlocked: int64(l.OpenTime),
		Contended: l.Contended(), Waiters: l.WaiterCount(), TopOwner: -1,
		OwnerUnknown: l.OwnerUnknown, Waits: l.Waits, WaitTime: int64(l.WaitTime), Notifies: l.Notifies,
		NotifyAlls: l.NotifyAlls, WokeNobody: l.NotifiesWokeNobody, Acquires: l.Acquires, Releases: l.Releases, NoUnpark: l.NoUnpark, NoUnparkInterrupted: l.NoUnparkInterrupted, NoUnparkSpurious: l.NoUnparkSpurious,
	}
	if l.OwnerCount() > 0 {
		out.TopOwner = s.d.threadIndex(s.d.m.OwnersOf(l)[0].Thread)
	}
	out.Call = s.d.m.LockCall(l, s.d.rec.FrameName)
	out.CallLabel = model.CallLabel(out.Class, out.Call)
	out.BeforeEvents, out.BeforeAttach, out.WaitsBeforeAttach = l.BeforeEvents, l.BeforeAttach, l.WaitsBeforeAttach
	out.LeftLocked = s.leftLocked(l)
	return out
}

// viewOrAll is the request's View (?thread=), or the unfiltered one.
func (s *site) viewOrAll(r *http.Request) *model.View {
	if v := s.view(r); v != nil {
		return v
	}
	return s.d.all
}

// locks answers GET /api/locks: every lock's figures, or with ?thread=
// those of the matching threads (the model's View, as orca report --thread);
// a lock in a group of short-lived objects names it.
func (s *site) locks(r *http.Request) (any, error) {
	v := s.viewOrAll(r)
	index := make(map[*model.Group]int, len(v.Groups))
	for i, g := range v.Groups {
		index[g] = i
	}
	out := make([]lockJSON, len(v.Locks))
	for i, l := range v.Locks {
		out[i] = s.lockJSON(l)
		out[i].Rank = i
		if g := v.GroupOf(l); g != nil {
			gi := index[g]
			out[i].Group = &gi
		}
	}
	return out, nil
}

// maxMembers bounds the objects a group lists (it may have tens of
// thousands).
const maxMembers = 100

type groupJSON struct {
	Kind         string         `json:"kind"`            // its objects' kind: blocker or monitor
	Class        string         `json:"class,omitempty"` // Java name
	Objects      int            `json:"objects"`
	Threads      int            `json:"threads"` // that waited
	Waits        int            `json:"waits"`
	WaitTime     int64          `json:"waitTime"`
	MaxWait      int64          `json:"maxWait"`  // the longest wait
	MaxWaits     int            `json:"maxWaits"` // the most waits on one object
	Notified     int            `json:"notified"`
	TimedOut     int            `json:"timedOut"`
	Interrupted  int            `json:"interrupted"` // of TimedOut, parks an interrupt ended (model.Lock.Interrupted)
	Spurious     int            `json:"spurious"`    // of TimedOut, parks with no unpark seen (model.Lock.Spurious)
	StillWaiting int            `json:"stillWaiting"`
	Idle         int            `json:"idle"`
	Notifies     int            `json:"notifies"`
	NotifyAlls   int            `json:"notifyAlls"`
	WokeNobody   int            `json:"wokeNobody"`
	Sites        []waitSiteJSON `json:"sites"`      // the first maxSites; sites[0] is the group's
	UnparkedBy   []unparkerJSON `json:"unparkedBy"` // whose unparks ended the parks, most first
	Members      []memberJSON   `json:"members"`    // the first maxMembers, most time first
}

type waitSiteJSON struct {
	Stack    int         `json:"stack"`
	Frames   []frameJSON `json:"frames"`
	Waits    int         `json:"waits"`
	WaitTime int64       `json:"waitTime"`
}

type unparkerJSON struct {
	Thread int    `json:"thread"` // index, -1 if unknown
	ID     string `json:"id"`
	Name   string `json:"name"`
	Parks  int    `json:"parks"`
	Time   int64  `json:"time"` // of those parks
}

type memberJSON struct {
	Object   string `json:"object"`
	Waits    int    `json:"waits"`
	WaitTime int64  `json:"waitTime"`
}

// groups answers GET /api/groups: the groups of short-lived objects waited
// or parked on (model.Group), of the matching threads with ?thread=, in
// the model's order (most time first).
func (s *site) groups(r *http.Request) (any, error) {
	v := s.viewOrAll(r)
	out := make([]groupJSON, 0, len(v.Groups))
	for _, g := range v.Groups {
		gj := groupJSON{Kind: g.Kind.String(), Objects: g.Objects, Threads: g.WaitedByCount(), Waits: g.Waits,
			WaitTime: int64(g.WaitTime), MaxWait: int64(g.MaxWait), MaxWaits: g.MaxWaits, Notified: g.Notified, TimedOut: g.TimedOut,
			Interrupted: g.Interrupted, Spurious: g.Spurious, StillWaiting: g.StillWaiting, Idle: g.IdleWaits, Notifies: g.Notifies, NotifyAlls: g.NotifyAlls, WokeNobody: g.NotifiesWokeNobody,
			Sites: []waitSiteJSON{}, UnparkedBy: []unparkerJSON{}, Members: []memberJSON{}}
		if g.Class != "" {
			gj.Class = format.JavaName(g.Class)
		}
		for _, st := range g.WaitSites[:min(len(g.WaitSites), maxSites)] {
			gj.Sites = append(gj.Sites, waitSiteJSON{int(st.Stack), s.d.stackFrames(st.Stack), st.Waits, int64(st.Time)})
		}
		for _, u := range g.UnparkedBy {
			gj.UnparkedBy = append(gj.UnparkedBy, unparkerJSON{s.d.threadIndex(u.Thread), u.Thread.String(), s.d.threadName(u.Thread), u.Contentions, int64(u.Blamed)})
		}
		for _, l := range g.Members[:min(len(g.Members), maxMembers)] {
			gj.Members = append(gj.Members, memberJSON{l.Object.String(), l.Waits, int64(l.WaitTime)})
		}
		out = append(out, gj)
	}
	return out, nil
}

type ownerJSON struct {
	Thread      int    `json:"thread"` // index, -1 if unknown
	ID          string `json:"id"`
	Name        string `json:"name"`
	Contentions int    `json:"contentions"`
	Open        int    `json:"open"` // contentions still going on at the end it held up last
	Blamed      int64  `json:"blamed"`
	// Pct is its share of the lock's blame (model.Share), and Share that
	// figure as orca report prints it (report.Percent), which the page
	// shows as it is.
	Pct   float64 `json:"pct"`
	Share string  `json:"share"`
}

type siteJSON struct {
	Stack       int         `json:"stack"`
	Frames      []frameJSON `json:"frames"`
	Contentions int         `json:"contentions"`
	Blocked     int64       `json:"blocked"`
	Open        int         `json:"open"`
	OpenBlocked int64       `json:"openBlocked"`
}

// maxSites bounds the call sites a lock's detail lists (a busy lock of a
// big recording has thousands).
const maxSites = 100

type lockDetailJSON struct {
	lockJSON
	Owners  []ownerJSON `json:"owners"`  // the first maxLockThreads, most blamed first
	Waiters []int       `json:"waiters"` // thread indexes, in order of first block: the first maxLockThreads
	Sites   []siteJSON  `json:"sites"`   // the first maxSites, most blocked first
	HeldAt  []siteJSON  `json:"heldAt"`  // where owners entered it (contentions and blocked are 0)
	// OwnersTotal, WaitersTotal, SitesTotal and HeldAtTotal count them
	// all.
	OwnersTotal  int   `json:"ownersTotal"`
	BlamedTotal  int64 `json:"blamedTotal"` // ns, of every owner (model.Lock.BlamedTotal)
	WaitersTotal int   `json:"waitersTotal"`
	SitesTotal   int   `json:"sitesTotal"`
	HeldAtTotal  int   `json:"heldAtTotal"`
	// Threads are every thread with an interval on this object, and its
	// owners: the lanes the timeline shows for it, as ranges of indexes
	// as /api/lanes' only takes them ("0-3,7,9-12"; ThreadCount counts
	// them). A list of them was most of a detail: at c5G-slow5 (1.33 M
	// threads) the busiest lock's had 1.2 M.
	Threads     string `json:"threads"`
	ThreadCount int    `json:"threadCount"`
	// First and Last bound the intervals on this object (0 when none).
	First int64 `json:"first"`
	Last  int64 `json:"last"`
	// Holders: what its holders did while threads were blocked on it
	// (model.View.HoldersDoing, the report's holders_*); absent for a
	// lock without contentions of known length or without holders.
	Holders *doingJSON `json:"holders,omitempty"`
}

// doingJSON is what a lock's holders did while threads were blocked on it
// (model.Doing): of a lock, or of one contention (an interval's).
type doingJSON struct {
	While int64 `json:"while"` // ns: the time at least one thread was blocked
	// Doing: ns of it by what the holder did, named as the report's JSON
	// names them (holders_doing): running, ready, other, running_virtual,
	// runnable (not split), the recorded states, unknown; no zeros.
	Doing     map[string]int64 `json:"doing"`
	BlockedOn []heldOnJSON     `json:"blockedOn"` // the first maxHeldOn locks the holders were blocked on, most first
	// BlockedOnTotal: how many locks they were blocked on in all (the
	// busiest monitor of an hour of Tomcat: 6 003, nearly all of its 1.1 MB
	// detail).
	BlockedOnTotal int `json:"blockedOnTotal"`
	// Frames: the report's holders_frames (the samples by leaf-most Java
	// frame: report.HoldersFrames), of a lock only: most samples first.
	Frames []report.HolderFrame `json:"frames,omitempty"`
	// Spans: of an interval only, its holders in time order.
	Spans []ownerSpanJSON `json:"spans,omitempty"`
}

type heldOnJSON struct {
	Object string `json:"object"`
	Kind   string `json:"kind"` // monitor or juc
	Class  string `json:"class,omitempty"`
	Holder int    `json:"holder"` // that lock's holder's index, -1 if unknown or never seen
	ID     string `json:"id,omitempty"`
	Name   string `json:"name,omitempty"`
	Time   int64  `json:"time"`
}

// maxLockThreads bounds the owners and the waiters a lock's detail lists
// (the page shows the first 25 owners and 60 waiters): at c5G-slow5 the
// busiest lock's were 1.2 M owners, 147 MB of its JSON.
var maxLockThreads = 100

// maxHeldOn bounds the locks a holders' detail lists that they were
// blocked on (the page shows them all, most first).
var maxHeldOn = 25

// doingOf renders what holders did (nil when no one was blocked).
func (s *site) doingOf(dg *model.Doing) *doingJSON {
	if dg == nil || dg.Blocked == 0 {
		return nil
	}
	out := &doingJSON{While: int64(dg.Blocked), Doing: map[string]int64{}, BlockedOn: []heldOnJSON{}, BlockedOnTotal: len(dg.On)}
	report.DoingParts(dg, func(name string, t format.Time) { out.Doing[name] = int64(t) })
	for _, on := range dg.On[:min(len(dg.On), maxHeldOn)] {
		h := heldOnJSON{Object: on.Lock.Object.String(), Kind: on.Lock.Kind.String(), Class: s.d.objectClass(on.Lock.Object), Holder: -1, Time: int64(on.Time)}
		if on.Owner != 0 {
			h.Holder, h.ID, h.Name = s.d.threadIndex(on.Owner), on.Owner.String(), s.d.threadName(on.Owner)
		}
		out.BlockedOn = append(out.BlockedOn, h)
	}
	return out
}

func (s *site) lock(r *http.Request) (any, error) {
	kind := model.Monitor
	switch k := r.PathValue("kind"); k {
	case "monitor":
	case "semaphore":
		kind = model.Semaphore
	case "blocker":
		kind = model.Blocker
	case "juc":
		kind = model.JUCLock
	default:
		return nil, badRequest("lock kind %q: want monitor, semaphore, blocker or juc", k)
	}
	obj, err := objectParam("object", r.PathValue("object"))
	if err != nil {
		return nil, err
	}
	l := s.d.m.Lock(obj, kind)
	if l == nil {
		return nil, notFound("no %s %s in this recording", kind, obj)
	}
	out := lockDetailJSON{lockJSON: s.lockJSON(l), Owners: []ownerJSON{}, Waiters: []int{}, Sites: []siteJSON{}, HeldAt: []siteJSON{}}
	total := l.BlamedTotal()
	owners := s.d.m.OwnersOf(l)
	out.OwnersTotal, out.BlamedTotal = len(owners), int64(total)
	for _, o := range owners[:min(len(owners), maxLockThreads)] {
		out.Owners = append(out.Owners, ownerJSON{s.d.threadIndex(o.Thread), o.Thread.String(), s.d.threadName(o.Thread), o.Contentions, o.Open,
			int64(o.Blamed), model.Share(o.Blamed, total), report.Percent(model.Share(o.Blamed, total))})
	}
	waiters := s.d.m.WaitersOf(l)
	out.WaitersTotal = len(waiters)
	for _, w := range waiters[:min(len(waiters), maxLockThreads)] {
		out.Waiters = append(out.Waiters, s.d.threadIndex(w))
	}
	out.SitesTotal, out.HeldAtTotal = len(l.Sites), len(l.HeldAt)
	for _, st := range l.Sites[:min(len(l.Sites), maxSites)] {
		out.Sites = append(out.Sites, siteJSON{int(st.Stack), s.d.stackFrames(st.Stack), st.Contentions, int64(st.Blocked), st.Open, int64(st.OpenTime)})
	}
	for _, st := range l.HeldAt[:min(len(l.HeldAt), maxSites)] {
		out.HeldAt = append(out.HeldAt, siteJSON{Stack: int(st), Frames: s.d.stackFrames(st)})
	}
	u, err := s.d.objectUse(obj, l.Contended())
	if err != nil {
		return nil, err
	}
	n := s.d.m.NumThreads()
	involved := make([]bool, n)
	for _, i := range u.threads {
		involved[i] = true
	}
	for _, o := range owners {
		if i := s.d.threadIndex(o.Thread); i >= 0 {
			involved[i] = true
		}
	}
	var threads []byte
	for i := 0; i < n; i++ {
		if !involved[i] {
			continue
		}
		j := i
		for j+1 < n && involved[j+1] {
			j++
		}
		if len(threads) > 0 {
			threads = append(threads, ',')
		}
		threads = strconv.AppendInt(threads, int64(i), 10)
		if j > i {
			threads = strconv.AppendInt(append(threads, '-'), int64(j), 10)
		}
		out.ThreadCount += j - i + 1
		i = j
	}
	out.Threads = string(threads)
	if u.first <= u.last {
		out.First, out.Last = s.d.rel(u.first), s.d.rel(u.last)
	}
	if kind == model.Monitor || kind == model.JUCLock {
		dg := s.d.lockHolders(model.LockRef{Object: obj, Kind: kind})
		if out.Holders = s.doingOf(dg); out.Holders != nil {
			out.Holders.Frames = report.HoldersFrames(s.d.rec, s.d.m, dg)
		}
	}
	return out, nil
}

// ---- deadlocks and hangs -------------------------------------------------------

type deadlockJSON struct {
	At       int64    `json:"at"`
	Resolved int64    `json:"resolved"` // -1 when the cycle stood to the end
	AtEnd    bool     `json:"atEnd"`
	Lasted   int64    `json:"lasted"`
	Threads  []int    `json:"threads"` // each waits for the next, the last for the first
	Objects  []string `json:"objects"` // what each waits on ("" for a join)
	Classes  []string `json:"classes"` // their classes, Java names ("" when unknown)
	Stacks   []int    `json:"stacks"`
	// BeforeAttach: already there when orca attached (model.BeforeStart):
	// At is the attach, Lasted a lower bound.
	BeforeAttach bool `json:"beforeAttach,omitempty"`
}

type hangJSON struct {
	Thread int    `json:"thread"`
	JDK    bool   `json:"jdk"`   // a JDK service thread idling, as they do: not counted as a hang
	State  string `json:"state"` // as the timeline shows it: blocked for a park in a j.u.c. lock's acquire
	// Acquire: a park in a j.u.c. lock's acquire (Object is the lock).
	Acquire bool `json:"acquire,omitempty"`
	// Alone: waiting alone (analysis.Alone), not a hang.
	Alone  bool   `json:"alone,omitempty"`
	Object string `json:"object,omitempty"`
	Class  string `json:"class,omitempty"` // the object's, a Java name
	Other  int    `json:"other"`
	Since  int64  `json:"since"`
	Stack  int    `json:"stack"`
	// BeforeAttach: in this state when orca attached (model.BeforeStart):
	// Since is the attach, the time in it a lower bound.
	BeforeAttach bool `json:"beforeAttach,omitempty"`
	// Call, CallLabel: as lockJSON's, of the hang's stack (model.Call).
	Call      string `json:"call,omitempty"`
	CallLabel string `json:"callLabel,omitempty"`
}

type deadlocksJSON struct {
	Deadlocks []deadlockJSON `json:"deadlocks"`
	Hangs     []hangJSON     `json:"hangs"`
	// Potential: orca report's potential deadlocks (potential.go);
	// PotentialNote its line when it lists none: none found, or not
	// looked for and why ("" when it says nothing).
	Potential     []potentialJSON `json:"potential"`
	PotentialNote string          `json:"potentialNote,omitempty"`
}

func (s *site) deadlocks(r *http.Request) (any, error) {
	d := s.d
	out := deadlocksJSON{Deadlocks: []deadlockJSON{}, Hangs: []hangJSON{}}
	for _, dl := range d.deadlocks {
		j := deadlockJSON{At: d.rel(dl.At), Resolved: -1, AtEnd: dl.AtEnd, Lasted: int64(dl.Lasted(d.m.End)), BeforeAttach: d.m.BeforeStart(dl.At)}
		if !dl.AtEnd {
			j.Resolved = d.rel(dl.Resolved)
		}
		for k, t := range dl.Threads {
			j.Threads = append(j.Threads, d.threadIndex(t))
			o, c := "", ""
			if k < len(dl.Objects) && dl.Objects[k] != 0 {
				o, c = dl.Objects[k].String(), d.objectClass(dl.Objects[k])
			}
			j.Objects = append(j.Objects, o)
			j.Classes = append(j.Classes, c)
			st := 0
			if k < len(dl.Stacks) {
				st = int(dl.Stacks[k])
			}
			j.Stacks = append(j.Stacks, st)
		}
		out.Deadlocks = append(out.Deadlocks, j)
	}
	for _, h := range d.hangs {
		ti := d.threadIndex(h.Thread)
		st := h.State
		if h.Acquire {
			st = model.Blocked // as the timeline shows it (Interval.Shown)
		}
		j := hangJSON{Thread: ti, JDK: ti >= 0 && d.jdkThread[ti], State: st.String(), Acquire: h.Acquire, Alone: h.Why == analysis.Alone,
			Other: -1, Since: d.rel(h.Since), Stack: int(h.Stack), BeforeAttach: d.m.BeforeStart(h.Since)}
		if h.Object != 0 {
			j.Object, j.Class = h.Object.String(), d.objectClass(h.Object)
		}
		if h.Other != 0 {
			j.Other = d.threadIndex(h.Other)
		}
		j.Call = model.Call(d.m.Stacks[h.Stack], d.rec.FrameName)
		j.CallLabel = model.CallLabel(j.Class, j.Call)
		out.Hangs = append(out.Hangs, j)
	}
	s.potential(&out)
	return out, nil
}
