package web

import (
	"encoding/binary"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// An interval's detail at a reopen (docs/web.md, "An interval's detail
// from its range"). The index keeps every interval's times and state
// (its lanes) but not its object, owners, stack, edges and what its
// holders did, which the model alone knows: a hover or a click on an
// interval made the reopen build the whole model (an hour of Tomcat:
// ~2 minutes of two cores and GBs). A state of a thread is the fold of
// the events from its beginning to its end, and a model of a time range
// is the whole recording's clipped to it, each thread in the state it
// was in at the range's start (docs/format.md, "Reading a time range"):
// so the detail of an interval whose state began inside a range is the
// range's model's, read from the range's chunks alone. The answer is
// the whole model's, field for field, but for its stack's number (-1:
// the whole model numbers stacks in the order of the whole fold; its
// frames are given) — TestRangeDetail and TestRangeDetailCases compare
// them on recordings of each kind. Where the range could say otherwise
// than the whole (rangeInterval's rules) the model is built as before.

// RangeModel is a model of a time range of the recording a Server views,
// made for an interval's detail (Server.DetailsFromRanges).
type RangeModel struct {
	Rec *reader.Recording
	Res *model.Result
	// Origin is the time the viewed model's times count from (its
	// Start): the API's times are since it.
	Origin format.Time
	// From is where the range began, in the recording's times: a state
	// that began then or earlier is restated there, not exact, unless
	// the viewed model was itself restated at the same time (AtStart).
	From    format.Time
	AtStart bool
	// FromFirst: the range begins at the recording's first event: nothing
	// before it to miss. ToLast: it ends at the recording's last event:
	// no fact of an object comes after. Both: it knows every class.
	FromFirst, ToLast bool
}

// RangeBuilder builds the model of [from, to] (ns since the viewed
// model's start; to past its end: to its end), or says why not: a
// recording read whole for any range (the seed's text), or a range whose
// chunks are most of the recording (then the whole model is the better
// buy), ErrRangeLarge. It is called one range at a time.
type RangeBuilder func(from, to int64) (*RangeModel, error)

// NewRangeBuilder is the RangeBuilder of a viewer of the recording open
// opens (a Recording of the builder's own, read by one range's build at a
// time: the whole model's build may read the viewer's meanwhile), of the
// range view (nil: the whole recording), each range's model built with
// the options opt gives for that Recording (the viewer's, ModelOptions).
func NewRangeBuilder(open func() (*reader.Recording, error), view *reader.Span, opt func(*reader.Recording) model.Options) RangeBuilder {
	var rec *reader.Recording
	var origin, end format.Time
	return func(from, to int64) (*RangeModel, error) {
		if rec == nil {
			r, err := open()
			if err != nil {
				return nil, err
			}
			first, last, ok, err := r.TimeBounds()
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, ErrRangeLarge // no events: nothing to read
			}
			rec, origin, end = r, first, last
		}
		base := origin
		if view != nil {
			base = view.From
		}
		a, b := base+format.Time(from), base+format.Time(to)
		if view != nil {
			a, b = max(a, view.From), min(b, view.To)
		}
		// Not past the recording's end: the range's model would last
		// to b (Builder.StoppedAt), an open state with it.
		b = min(b, end)
		sp, err := rec.SpanWithin(a, b, origin, end)
		if err != nil {
			return nil, err
		}
		if sp.Whole || sp.Bytes > sp.Total/int64(rangeMost) {
			return nil, ErrRangeLarge
		}
		o := opt(rec)
		o.Span, o.Progress = sp, nil
		res, err := model.Build(rec, o)
		if err != nil {
			return nil, err
		}
		return &RangeModel{Rec: rec, Res: res, Origin: base, From: a, AtStart: view != nil && a == view.From,
			FromFirst: a <= origin, ToLast: b >= end}, nil
	}
}

// rangeMost: a range that reads more than 1/rangeMost of the recording's
// bytes is left to the whole model (a variable for the tests).
var rangeMost = 4

// ErrRangeLarge is what a RangeBuilder says when the range's reading
// would cost about what the whole model's does.
var ErrRangeLarge = fmt.Errorf("the range is most of the recording")

// DetailsFromRanges has a Server made by NewFromIndex answer an
// interval's detail, until the model is ready, from the model of the
// range the interval's state spans (build), not the whole model's.
func (s *Server) DetailsFromRanges(build RangeBuilder) { s.ranges = build }

// rangeAnswers bounds the range details a Server keeps.
const rangeAnswers = 256

// rangeDetails is a Server's range details: one built at a time, the
// last rangeAnswers kept by their request's path (nil: left to the
// model, not asked of a range again).
type rangeDetails struct {
	wholeOnce sync.Once
	whole     *wholeThreads // the index's threads by id, made once
	build     sync.Mutex
	mu        sync.Mutex
	kept      map[string]*intervalJSON
	order     []string
	built     int            // the ranges' models built, for the tests
	left      map[string]int // why details were left to the model, for the tests
}

func (rd *rangeDetails) note(why string) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if rd.left == nil {
		rd.left = map[string]int{}
	}
	rd.left[why]++
}

// get returns the answer kept for key, nil for one left to the model;
// ok is false when none is kept.
func (rd *rangeDetails) get(key string) (v *intervalJSON, ok bool) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	v, ok = rd.kept[key]
	return v, ok
}

func (rd *rangeDetails) put(key string, v *intervalJSON) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if rd.kept == nil {
		rd.kept = map[string]*intervalJSON{}
	}
	if _, ok := rd.kept[key]; ok {
		return
	}
	if len(rd.order) == rangeAnswers {
		delete(rd.kept, rd.order[0])
		rd.order = rd.order[1:]
	}
	rd.kept[key] = v
	rd.order = append(rd.order, key)
}

// rangeLate is how far past an interval's end its range reads: the
// model's own margin for what is written late (its sealMargin: a sample
// is written up to a flush period after lines of later times).
const rangeLate = 2e9

// rangeBack bounds the blocks of a lane intervalFromRange reads back for
// the first segment of an interval's state: past it, the model.
const rangeBack = 64

// intervalFromRange answers GET /api/intervals/{thread}/{i} from the
// index and the range of the interval's state, nil when it cannot (the
// caller then asks for the model, as before).
func (s *site) intervalFromRange(r *http.Request) (*intervalJSON, error) {
	x := s.idx
	// A wrong request is said as the model's handlers say it
	// (threadParam, intervalParam), without reading the recording.
	v := r.PathValue("thread")
	ti, err := strconv.Atoi(v)
	if err != nil {
		return nil, badRequest("thread %q: want a thread index (0 to %d)", v, x.dir.Threads-1)
	}
	if ti < 0 || ti >= x.dir.Threads {
		return nil, notFound("no thread %d: the recording has %d threads", ti, x.dir.Threads)
	}
	v = r.PathValue("i")
	k, err := strconv.Atoi(v)
	if err != nil {
		return nil, badRequest("interval %q: want an index", v)
	}
	key := r.URL.Path
	if v, ok := s.srv.rd.get(key); ok {
		return v, nil
	}
	tb, err := x.table()
	if err != nil {
		return nil, nil
	}
	rec, src, err := x.laneOf(ti)
	if err != nil {
		return nil, fmt.Errorf("the viewer's index, thread %d's lane: %w", ti, err)
	}
	if n := int(binary.LittleEndian.Uint32(rec[24+12:])); k < 0 || k >= n {
		return nil, notFound("thread %d (%s) has no interval %d: it has %d", ti, tb.name[ti], k, n)
	}
	// The interval, and where its state began: its first segment, the
	// first of the intervals of its state that follow each other with
	// no gap (a later segment of a state is one: its owner changed, or
	// its lock's holders, or a sample split it).
	b := k / laneBlock
	ivs, err := x.laneBlocks(rec, src, b, b+1)
	if err != nil {
		return nil, fmt.Errorf("the viewer's index, thread %d's lane: %w", ti, err)
	}
	j := k - b*laneBlock
	if j >= len(ivs) {
		return nil, fmt.Errorf("the viewer's index, thread %d's lane: %w", ti, errDamaged)
	}
	iv := ivs[j]
	since, ok, err := x.stateSince(rec, src, b, ivs, j)
	if err != nil {
		return nil, fmt.Errorf("the viewer's index, thread %d's lane: %w", ti, err)
	}
	if !ok {
		s.srv.rd.note("large")
		return nil, nil
	}
	s.srv.rd.build.Lock()
	defer s.srv.rd.build.Unlock()
	if v, ok := s.srv.rd.get(key); ok {
		return v, nil // made while this waited
	}
	out, why := s.rangeDetail(since, ti, k, iv, tb)
	if why != "" {
		s.srv.rd.note(why)
	}
	s.srv.rd.put(key, out)
	return out, nil
}

// stateSince is when the state of interval j of ivs (the lane's
// intervals of its block b on) began: the start of its first segment,
// read back over the lane's blocks (rec, src: laneOf); ok is false past
// rangeBack blocks.
func (x *Index) stateSince(rec []byte, src *laneSrc, b int, ivs []model.Interval, j int) (since format.Time, ok bool, err error) {
	for back := 0; ; {
		for j > 0 && ivs[j-1].End == ivs[j].Start && ivs[j-1].State == ivs[j].State {
			j--
		}
		since = ivs[j].Start
		if j > 0 || b == 0 {
			return since, true, nil
		}
		if back++; back > rangeBack {
			return 0, false, nil
		}
		b--
		prev, err := x.laneBlocks(rec, src, b, b+1)
		if err != nil {
			return 0, false, err
		}
		if p := prev[len(prev)-1]; p.End != ivs[j].Start || p.State != ivs[j].State {
			return since, true, nil
		}
		ivs, j = append(prev, ivs[j:]...), len(prev)
	}
}

// stateSinceAt is when the state thread ti (the whole recording's) was
// in at t began (stateSince), from its lane; ok is false when its lane
// has no interval at t or its state began more than rangeBack blocks
// before.
func (x *Index) stateSinceAt(ti int, t format.Time) (since format.Time, ok bool, err error) {
	rec, src, err := x.laneOf(ti)
	if err != nil {
		return 0, false, err
	}
	lt, err := x.laneTable(rec, src)
	if err != nil || lt.blocks == 0 {
		return 0, false, err
	}
	// The last block whose first interval starts at t or before.
	b := sort.Search(lt.blocks, func(i int) bool { return format.Time(lt.ent(i, 0)) > t }) - 1
	if b < 0 {
		return 0, false, nil
	}
	ivs, err := x.laneBlocks(rec, src, b, b+1)
	if err != nil {
		return 0, false, err
	}
	j := sort.Search(len(ivs), func(i int) bool { return ivs[i].Start > t }) - 1
	if j < 0 || ivs[j].End < t {
		return 0, false, nil
	}
	return x.stateSince(rec, src, b, ivs, j)
}

// rangeDetail builds the model of the range of interval k of thread ti
// (since: when its state began; iv: its times and state, from the lane)
// and makes its detail there (rangeInterval), or says why not. A range
// that cannot be read (a chunk file deleted since the index was written,
// the model's temporary file) leaves it to the model, which says why.
func (s *site) rangeDetail(since format.Time, ti, k int, iv model.Interval, tb *threadTable) (out *intervalJSON, why string) {
	defer func() {
		if e := recover(); e != nil {
			if _, ok := e.(*model.SpillError); !ok {
				panic(e)
			}
			out, why = nil, "error"
		}
	}()
	// From just before the state began: its beginning is then one of
	// the range's events, not the state restated at the range's start.
	// To rangeLate past its end: a sample of a holder inside its spans
	// (which places its running time), or a line of another thread, may
	// be written in a chunk that begins after the end (docs/format.md,
	// "Order").
	s.srv.rd.wholeOnce.Do(func() { s.srv.rd.whole = newWholeThreads(tb) })
	whole := s.srv.rd.whole
	from := int64(since) - 1
	for round := 0; ; round++ {
		rm, err := s.srv.ranges(from, int64(iv.End)+rangeLate)
		if err == ErrRangeLarge {
			return nil, "large"
		}
		if err != nil {
			return nil, "error"
		}
		s.srv.rd.mu.Lock()
		s.srv.rd.built++
		s.srv.rd.mu.Unlock()
		out, why, waiters := rangeInterval(s.idx, rm, whole, ti, k, iv)
		if waiters == nil && beforeRange[why] && round < rangeWiden && !rm.FromFirst {
			// What the range lacks happened before it, when is not
			// known (a monitor's owner named by a line before it, a
			// permit given before a park, a hand-off before it): the
			// range begins again as far again before (its length
			// doubled), up to rangeWiden times and rangeMost of the
			// recording, and not before its first event (-1: as a
			// state begun at 0).
			from = max(from-max(int64(iv.End)+rangeLate-from, int64(time.Millisecond)), -1)
			continue
		}
		if waiters == nil || round == rangeWiden {
			if waiters != nil {
				why += ", every range"
			}
			return out, why
		}
		// Other threads were blocked on the lock (or on a lock its
		// holders were blocked on) at the range's start: the range
		// begins again where the first of them blocked, so that the
		// lock's waiters and owners from then on are the range's
		// events (ActiveMQ's j.u.c. locks: an acquire's detail is half
		// of those asked).
		earlier := from
		for _, id := range waiters {
			wi := whole.index(id)
			if wi < 0 {
				return nil, why + ", a thread not in the index"
			}
			at, ok, err := s.idx.stateSinceAt(wi, format.Time(from+1))
			if err != nil || !ok {
				return nil, why + ", its lane"
			}
			earlier = min(earlier, int64(at)-1)
		}
		if earlier >= from {
			return nil, why + ", not earlier"
		}
		from = earlier
	}
}

// rangeWiden bounds the times rangeDetail begins a range again earlier,
// where another thread blocked on the lock, or twice as long (beforeRange).
const rangeWiden = 8

// beforeRange: the reasons of rangeInterval's that something before the
// range may change, found again in a range begun earlier.
var beforeRange = map[string]bool{
	"owner unknown":                        true,
	"another's unpark not seen":            true,
	"hand-off before the range":            true,
	"a holder's hand-off before the range": true,
	"no unpark or end seen":                true,
}

// rangeInterval is the detail of interval k of thread ti (iv: its times,
// ns since the viewed model's start, and shown state, from the lane),
// from the range's model rm; or why not, when rm could hold it otherwise
// than the whole model does (the rules below).
//
// waiters: when the answer is left to the model because other threads
// were blocked at the range's start on the interval's lock or on a lock
// its holders were blocked on (restatedOn), those threads.
func rangeInterval(x *Index, rm *RangeModel, whole *wholeThreads, ti, k int, iv model.Interval) (_ *intervalJSON, why string, waiters []format.ThreadID) {
	d := newData(rm.Rec, rm.Res)
	d.origin = rm.Origin
	d.whole = whole
	if h, _, _ := strings.Cut(whole.tb.id[ti], "#"); whole.reused[h] {
		return nil, "thread hash reused", nil
	}
	rti := -1
	for i, t := range d.m.AllThreads() {
		if t.ID.String() == whole.tb.id[ti] {
			rti = i
			break
		}
	}
	if rti < 0 {
		return nil, "not found", nil
	}
	riv, rk := d.intervalAt(rti, d.abs(int64(iv.Start)))
	if rk < 0 || d.rel(riv.Start) != int64(iv.Start) || d.rel(riv.End) != int64(iv.End) || riv.Shown() != iv.State || riv.Open != iv.Open {
		return nil, "not found", nil
	}
	if !rangeExact(rm, &riv) {
		return nil, "restated", nil
	}
	// A holder's runnable time is split by the windows between its
	// ThreadCPU lines; one that began before the range is not the
	// range's: the holders' windows are the whole recording's, from
	// their lanes (RunIn of a span is then the whole's: the window's
	// split, CPU and wall, the span's runnable time and samples).
	d.runWins = func(id format.ThreadID) ([]model.RunWindow, error) {
		wi := whole.index(id)
		if wi < 0 {
			return nil, nil
		}
		rec, src, err := x.laneOf(wi)
		if err != nil {
			return nil, err
		}
		part, _, _, err := x.lanePart(rec, src, format.Time(d.rel(d.m.Start)), format.Time(d.rel(d.m.End)))
		if err != nil {
			return nil, err
		}
		ws := part.RunWindows()
		for i := range ws {
			ws[i].Start, ws[i].End = d.abs(int64(ws[i].Start)), d.abs(int64(ws[i].End))
		}
		return ws, nil
	}
	st := &site{d: d}
	out, err := st.intervalOf(rti, d.m.ThreadAt(rti), rk)
	switch {
	case err != nil:
		return nil, "the index's windows", nil
	case d.reusedSeen:
		return nil, "thread hash reused", nil
	case !(rm.FromFirst && rm.ToLast) && !classesKnown(&out):
		// A class given after the chunks the range read, or before
		// them and not restated in its first chunk (a chunk restates
		// the classes of the objects live at its start: ActiveMQ's
		// monitor contended in the last second of a minute).
		return nil, "class unknown", nil
	case !(rm.FromFirst && rm.ToLast) && !holdersClassed(d, &out):
		// A holder parked or blocked, in its spans, on an object whose
		// class the range did not see: a park is an acquire by its
		// object's class (ActiveMQ: a holder's park on a read-write
		// lock, restated at the range's start without its class, which
		// the agent no longer remembered, was a park, not an acquire).
		return nil, "class unknown", nil
	case rm.FromFirst:
		// Read from the recording's first event: the rules below are
		// of what happened before the range.
	case func() bool { waiters = restatedOn(d, &riv, &out); return waiters != nil }():
		// Who released a lock to whom (an acquire's: a semaphore's, a
		// j.u.c. lock's) and who owned it follow from its waiters
		// before (TestRangeDetail found the releaser, and a holder's
		// span, named otherwise): the caller begins the range again
		// where they blocked.
		return nil, "blocked at the range's start", waiters
	case riv.Acquire && !lockEndsSeen(d, riv.Object, riv.Start, riv.End):
		// Another park on the lock ended in this one with no unpark
		// the range saw: its hand-off is the whole model's alone.
		return nil, "another's unpark not seen", nil
	case !handedOffKnown(d, &riv):
		// A j.u.c. lock handed off during the park (its holders'
		// spans), and not in the range before it.
		return nil, "hand-off before the range", nil
	case !eachHolderState(d, &out, func(iv *model.Interval) bool {
		return handedOffKnown(d, iv) && (!iv.Acquire || lockEndsSeen(d, iv.Object, iv.Start, iv.End))
	}):
		// The same of a holder's park on a j.u.c. lock (the lock's
		// owner, which the detail names).
		return nil, "a holder's hand-off before the range", nil
	case !ownersKnown(&out):
		// An owner the range did not see take the lock (before its
		// start): the whole model may know it.
		return nil, "owner unknown", nil
	case !enderSeen(&riv, &out):
		return nil, "no unpark or end seen", nil
	case !holdersAlive(x, &out):
		return nil, "holder not alive", nil
	}
	// An owner that ended holding a j.u.c. lock (out.LeftLocked, whose
	// parks are counted over the whole recording) is an acquire's only:
	// left to the model above.
	out.Thread, out.Index, out.Stack = ti, k, -1
	return &out, "", nil
}

// classesKnown says whether the classes a detail names are known: its
// object's and those of the locks its holders were blocked on.
func classesKnown(out *intervalJSON) bool {
	if out.Object != "" && out.ObjectClass == "" {
		return false
	}
	if h := out.Holders; h != nil {
		for _, on := range h.BlockedOn {
			if on.Class == "" {
				return false
			}
		}
	}
	return true
}

// holdersClassed says whether the range's model knows the class of each
// object the holders of a detail's spans were in a state on (parked,
// blocked, waiting) during their spans.
func holdersClassed(d *data, out *intervalJSON) bool {
	return eachHolderState(d, out, func(iv *model.Interval) bool { return iv.Object == 0 || d.objectClass(iv.Object) != "" })
}

// handedOffKnown says whether the hand-offs of the j.u.c. lock of a park
// in its acquire, iv, are the whole model's over the park: the model
// keeps a hand-off only where the lock's owner changes from its last
// one, which may be before the range, so one in the park with none in
// the range before it may be one the whole did not keep (TestRangeDetail:
// a holder's span the whole did not cut).
func handedOffKnown(d *data, iv *model.Interval) bool {
	return !iv.Acquire || !d.m.HandOffIn(iv.Object, iv.Start, iv.End) || d.m.HandOffIn(iv.Object, d.m.Start-1, iv.Start+1)
}

// lockEndsSeen says whether every park in an acquire of the j.u.c. lock
// obj that ended after a and by b, in the range's model, ended by an
// unpark the range saw: a hand-off to it (Model.handOffs) is made only
// then, and an unpark before the range (a permit given before the park)
// is one the whole model saw (ActiveMQ: a waiter unparked during a park
// named its taker only in the whole).
func lockEndsSeen(d *data, obj format.ObjectID, a, b format.Time) bool {
	for _, th := range d.m.AllThreads() {
		seen := true
		err := d.m.EachIntervalIn(th, a, b, func(ivs []model.Interval, _ int) bool {
			for i := range ivs {
				iv := &ivs[i]
				if iv.Acquire && iv.Object == obj && iv.End > a && iv.End <= b && !iv.Open && (iv.Wake == model.WakeSpurious || iv.Wake == model.WakeNone) {
					seen = false
					return false
				}
			}
			return true
		})
		if err != nil || !seen {
			return false
		}
	}
	return true
}

// eachHolderState says whether ok holds of every interval of the holders
// of a detail's spans, in the range's model, during their spans.
func eachHolderState(d *data, out *intervalJSON, ok func(iv *model.Interval) bool) bool {
	if out.Holders == nil {
		return true
	}
	for _, sp := range out.Holders.Spans {
		id, err := strconv.ParseUint(sp.ID, 16, 32)
		if err != nil {
			return false
		}
		th := d.m.Thread(format.ThreadID(id))
		if th == nil {
			continue // not in the range: did nothing there
		}
		a, b := d.abs(sp.Start), d.abs(sp.End)
		all := true
		err = d.m.EachIntervalIn(th, a, b, func(ivs []model.Interval, _ int) bool {
			for i := range ivs {
				if iv := &ivs[i]; iv.End >= a && iv.Start <= b && !ok(iv) {
					all = false
					return false
				}
			}
			return true
		})
		if err != nil || !all {
			return false
		}
	}
	return true
}

// ownersKnown says whether every owner a detail names is known: the
// first and each later owner of a contention, each holder of its spans,
// the owner of each lock its holders were blocked on, a monitor (a
// j.u.c. lock's or a semaphore's follows from its history).
func ownersKnown(out *intervalJSON) bool {
	const none = "00000000"
	if out.State == "blocked" && out.FirstOwner == nil {
		return false
	}
	for _, o := range out.Owners {
		if o.ID == none {
			return false
		}
	}
	if h := out.Holders; h != nil {
		if h.Doing["unknown"] > 0 {
			return false
		}
		for _, sp := range h.Spans {
			if sp.ID == none {
				return false
			}
		}
		for _, on := range h.BlockedOn {
			// A semaphore's holder follows from its releases; a j.u.c.
			// lock's owner from its history, as an acquire's: known
			// when the range began with no waiter of it restated
			// (restatedOn) and saw its hand-offs (handedOffKnown; a
			// holder blocked on a read-write lock of ActiveMQ's was
			// named with another owner without these rules).
			if on.ID == "" || on.ID == none || on.Kind != "monitor" && on.Kind != "juc" {
				return false
			}
		}
	}
	return true
}

// enderSeen says whether the range saw what ended a park or a join when
// that may have come before the state began: an unpark gives a permit
// that a later park takes at once, a join on a thread that had ended
// returns at once (an hour of Tomcat's pool parks of a few hundred ns
// were woken so, their unparks before them). Without it the range would
// say spurious, or no edge, where the whole recording names the
// unparker or the thread joined.
func enderSeen(iv *model.Interval, out *intervalJSON) bool {
	switch iv.State {
	case model.Parked, model.Idle:
		return iv.Wake != model.WakeSpurious && iv.Wake != model.WakeNone
	case model.Joining:
		return len(out.Edges) > 0
	}
	return true
}

// holdersAlive says whether each holder of a contention's spans was
// alive over its spans in the whole recording (its lane's start and end):
// one that had ended (a worker blamed after its end while it held a
// Thread object's monitor) did nothing the whole recording knows, while
// a range that began after its end knows no end of it.
func holdersAlive(x *Index, out *intervalJSON) bool {
	h := out.Holders
	if h == nil {
		return true
	}
	if len(h.Spans) >= maxOwnerSpans {
		return false // not all of them listed
	}
	le := binary.LittleEndian
	for _, sp := range h.Spans {
		if sp.Thread < 0 {
			return false
		}
		rec, _, err := x.laneOf(sp.Thread)
		if err != nil {
			return false
		}
		if start, end := int64(le.Uint64(rec)), int64(le.Uint64(rec[8:])); start > sp.Start || end < sp.End {
			return false
		}
	}
	return true
}

// restatedOn is the threads of the range's model blocked at its start,
// their state restated there, on the lock of a contention or an acquire
// iv or on a lock its holders were blocked on: the range did not see
// them block, and the owners of such a lock, who released it to whom,
// may then follow otherwise than in the whole recording (TestRangeDetail
// found an owner left out, a semaphore's releaser named otherwise).
func restatedOn(d *data, iv *model.Interval, out *intervalJSON) []format.ThreadID {
	if iv.State != model.Blocked && iv.State != model.Acquiring && !iv.Acquire {
		return nil
	}
	objs := map[format.ObjectID]bool{iv.Object: true}
	if out.Holders != nil {
		for _, on := range out.Holders.BlockedOn {
			if o, err := objectParam("object", on.Object); err == nil {
				objs[o] = true
			}
		}
	}
	var ids []format.ThreadID
	for i, th := range d.m.AllThreads() {
		r, k := d.intervalAt(i, d.m.Start)
		if k >= 0 && r.Restated && objs[r.Object] && (r.State == model.Blocked || r.State == model.Acquiring || r.Acquire) {
			ids = append(ids, th.ID)
		}
	}
	return ids
}

// rangeExact says whether the range's model holds interval iv as the
// whole model does: its state began inside the range (not restated at
// its start), or the viewed model restated it at the same time.
func rangeExact(rm *RangeModel, iv *model.Interval) bool {
	return iv.Since > rm.From || rm.AtStart && iv.Since == rm.From
}

// laneTable is the block table of a lane's intervals' column.
type laneTable struct {
	tab          []byte
	blocks, recs int
	end          int64 // where the column's blocks end: the table's offset
}

// ent is field f of block i's entry (0: its first interval's start, 1:
// its intervals' last end, 2: its offset; entry blocks: past the last).
func (t *laneTable) ent(i, f int) int64 { return int64(binary.LittleEndian.Uint64(t.tab[24*i+8*f:])) }

// laneTable reads the block table of a lane's intervals' column (rec,
// src: laneOf).
func (x *Index) laneTable(rec []byte, src *laneSrc) (*laneTable, error) {
	lo, hi := x.dir.LaneData[0], x.dir.LaneData[1]
	le := binary.LittleEndian
	p := rec[24:]
	t := &laneTable{end: int64(le.Uint64(p)), blocks: int(le.Uint32(p[8:])), recs: int(le.Uint32(p[12:]))}
	if (t.recs+laneBlock-1)/laneBlock != t.blocks || t.end < lo || t.end+int64(t.blocks+1)*24 > hi {
		return nil, errDamaged
	}
	var err error
	if t.tab, err = src.read(t.end, (t.blocks+1)*24); err != nil {
		return nil, err
	}
	return t, nil
}

// laneBlocks decodes the intervals of blocks [b0, b1) of a lane's
// intervals' column (rec, src: laneOf), their times ns since the
// recording's start, their state the shown one.
func (x *Index) laneBlocks(rec []byte, src *laneSrc, b0, b1 int) ([]model.Interval, error) {
	lt, err := x.laneTable(rec, src)
	if err != nil {
		return nil, err
	}
	recs := lt.recs
	b1 = min(b1, lt.blocks)
	if b0 >= b1 {
		return nil, nil
	}
	from, to := lt.ent(b0, 2), lt.ent(b1, 2)
	if from < x.dir.LaneData[0] || to > lt.end || to < from {
		return nil, errDamaged
	}
	bs, err := src.read(from, int(to-from))
	if err != nil {
		return nil, err
	}
	var out []model.Interval
	next := func() (format.Time, bool) {
		v, n := binary.Varint(bs)
		if n <= 0 {
			return 0, false
		}
		bs = bs[n:]
		return format.Time(v), true
	}
	for i := b0; i < b1; i++ {
		var prev format.Time
		for range min(laneBlock, recs-i*laneBlock) {
			ds, ok1 := next()
			de, ok2 := next()
			if !ok1 || !ok2 || len(bs) == 0 {
				return nil, errDamaged
			}
			st := bs[0]
			bs = bs[1:]
			s := prev + ds
			prev = s
			out = append(out, model.Interval{Start: s, End: s + de, State: model.State(st &^ (flagOpen | flagHighlight)), Open: st&flagOpen != 0})
		}
	}
	if len(bs) != 0 {
		return nil, errDamaged
	}
	return out, nil
}

// wholeThreads names the whole recording's threads by their ids, from an
// index's thread table: a range's model's threads are named by them.
type wholeThreads struct {
	tb   *threadTable
	byID []int32 // the table's threads sorted by id (the first of an id first)
	// reused: the hashes of more than one thread ("0000000A" and
	// "0000000A#2"): a recording whose events carry no ranks (the seed's
	// text, a compact one written from it) has its model rank them in
	// the order it sees them, and a range's sees fewer.
	reused map[string]bool
}

func newWholeThreads(tb *threadTable) *wholeThreads {
	w := &wholeThreads{tb: tb, byID: make([]int32, tb.len()), reused: map[string]bool{}}
	for i := range w.byID {
		w.byID[i] = int32(i)
		if h, _, ok := strings.Cut(tb.id[i], "#"); ok {
			w.reused[h] = true
		}
	}
	slices.SortStableFunc(w.byID, func(a, b int32) int {
		switch {
		case tb.id[a] < tb.id[b]:
			return -1
		case tb.id[a] > tb.id[b]:
			return 1
		}
		return 0
	})
	return w
}

// index is id's index in the whole recording, -1 when it has none (an
// owner named by a contention only), as Model.IndexOf.
func (w *wholeThreads) index(id format.ThreadID) int {
	s := id.String()
	i, ok := slices.BinarySearchFunc(w.byID, s, func(e int32, s string) int {
		switch {
		case w.tb.id[e] < s:
			return -1
		case w.tb.id[e] > s:
			return 1
		}
		return 0
	})
	if !ok {
		return -1
	}
	return int(w.byID[i])
}

// name is id's name in the whole recording, its id when it has none.
func (w *wholeThreads) name(id format.ThreadID) string {
	if i := w.index(id); i >= 0 {
		return w.tb.name[i]
	}
	return id.String()
}
