package web

import (
	"container/list"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
)

// data is the model with the indexes the handlers need, built once.
type data struct {
	rec *reader.Recording
	res *model.Result
	m   *model.Model
	all *model.View // the model unfiltered, for its groups

	// origin is the time the API's times count from (rel, abs): the
	// model's Start, or, of a range's model answering for the whole
	// recording's index (rangedetail.go), the whole's.
	origin format.Time
	// whole: of such a range's model, the whole recording's threads, by
	// which the API names them (threadIndex, threadName); nil otherwise.
	whole *wholeThreads
	// runWins, when set, gives a thread's windows of its runnable time
	// for what its holders did (model.DoingInWith): of a range's model,
	// the whole recording's (rangedetail.go).
	runWins func(format.ThreadID) ([]model.RunWindow, error)
	// reusedSeen: a thread named through whole has a hash of more than
	// one thread there (wholeThreads.reused), which a range may rank
	// otherwise.
	reusedSeen bool

	// lockClass is Model.ClassName per lock's object (a Java name, or the
	// words for the JVM's lock of a class being initialised), with the
	// class a java.lang.Class object is as orca report names it
	// ("java.lang.Class (com.acme.HotKey.class)", reader.ClassObject): the
	// model decides which of an object's locks names its class; this only
	// keeps the answer, which every interval of the object shows. Only the
	// Locks': a group's member kept as a record is asked each time
	// (objectClass).
	lockClass map[format.ObjectID]string
	intervals int
	jdkThread []bool // JDK service threads (see jdkThreads)
	deadlocks []model.Deadlock
	reported  []int           // per model deadlock, its index in deadlocks, -1 if not there
	hangs     []analysis.Hang // the hangs and the threads waiting alone (analysis.Alone)

	// ivs keeps the intervals of the threads read last (intervalsOf).
	ivs ivCache
	// modelMu serialises the readers of the model that keep caches of
	// their own in it (Model.OwnerSpans' owner changes, IntervalsOf's
	// count, the filtered Views' intervals: withIntervals): what the
	// handlers ask of the model beyond its in-memory figures. The tiles,
	// the overview and the thread lists read without it.
	modelMu sync.Mutex

	// table: what the lanes' layouts read of each thread (layout.go).
	tableOnce sync.Once
	table     *threadTable

	mu       sync.Mutex
	frames   map[model.StackID][]frameJSON
	overview map[int]*overviewJSON

	// holders is what every contended lock's holders did while others
	// were blocked on it (model.View.HoldersDoingWith of the whole
	// recording: no spans), folded on first use.
	holdersOnce sync.Once
	holders     map[model.LockRef]*model.Doing

	// uses: the objects of the contended locks, their uses (objectUse),
	// made with holders.
	uses map[format.ObjectID]*objUse

	// made: while the index is written, what the holders' fold made for
	// the locks whose details it keeps alone (indexLocks), nil otherwise.
	made atomic.Pointer[lockMade]

	// reports: what the viewer takes of orca report's Report of the
	// recording per thread filter ("" for none), built on first use
	// (report.New): the summary's figures and warnings are its.
	reportMu sync.Mutex
	reports  map[string]*reportFacts
}

// reportFacts is what the viewer reads of a Report (report.New): the
// summary's counts and caveats and the potential deadlocks; not its lists
// of threads and locks nor what the locks' holders did (Options.NoHolders),
// which the viewer makes from the model (c1G: 0.7 GB the Report, kept,
// made the index's build the first open's peak of memory).
type reportFacts struct {
	deadlocks, hangs, waitingAlone, locksTotal int
	notVisible                                 bool
	caveats                                    []string
	potential                                  []report.PotentialDeadlock
	potentialNote                              string
}

func newReportFacts(r *report.Report) *reportFacts {
	f := &reportFacts{
		deadlocks: len(r.Deadlocks), hangs: len(r.Hangs), waitingAlone: len(r.WaitingAlone), locksTotal: r.LocksTotal,
		notVisible: r.Sight != nil && (!r.Sight.HangsVisible || !r.Sight.DeadlocksVisible),
		caveats:    r.Caveats, potential: r.PotentialDeadlocks, potentialNote: r.PotentialNote(),
	}
	return f
}

func newData(rec *reader.Recording, res *model.Result) *data {
	m := res.Model
	d := &data{
		rec: rec, res: res, m: m, origin: m.Start,
		lockClass: map[format.ObjectID]string{},
		frames:    map[model.StackID][]frameJSON{},
		overview:  map[int]*overviewJSON{},
		reports:   map[string]*reportFacts{},
	}
	for _, t := range m.AllThreads() {
		d.intervals += m.IntervalCount(t)
	}
	for _, l := range m.Locks {
		if _, done := d.lockClass[l.Object]; !done {
			if c := d.className(l.Object); c != "" {
				d.lockClass[l.Object] = c
			}
		}
	}
	d.all = m.Filter(nil)
	// The holders' fold (holdersDoing) keeps the blame logs: an
	// interval's panel reads its spans from them.
	d.all.KeepBlame = true
	d.jdkThread = analysis.JDKThreads(d.m, d.rec.FrameName)
	d.deadlocks = analysis.Deadlocks(m)
	d.reported = analysis.Reported(m)
	for _, h := range analysis.OpenAtEnd(m) {
		if h.Why == analysis.IsHang || h.Why == analysis.Alone {
			d.hangs = append(d.hangs, h)
		}
	}
	return d
}

// ModelOptions are the options orca view builds the model with, as orca
// report's: the threads' intervals and samples go to a private temporary
// file as the fold goes and the model keeps none it is done with
// (docs/streaming.md); the handlers read a thread's back when they draw
// or detail it (intervalsOf), and the JDK threads' test reads the marks of
// the stacks made as the fold goes. A lock's owners are spilled too, as
// orca report's, and read back for its detail and the lock list's top
// owner (Model.OwnersOf). So are the edges (Model.EdgesFrom for
// /api/edges, EdgesTo for an interval's detail; the start and join edges
// alone stay in memory). An ended thread's Thread is kept packed, as orca
// report's (Options.PackThreads: ~100 bytes, not 304; the handlers read
// the threads through Model.ThreadAt and AllThreads). The answers are
// those of a model built without (TestSpillAnswers).
func ModelOptions(rec *reader.Recording) model.Options {
	return model.Options{Spill: true, DropIntervals: true, SpillOwners: true, SpillEdges: true, PackThreads: true,
		StackMark: analysis.JDKStackMark(rec.FrameName)}
}

// maxReports bounds the reports kept: one per thread filter asked for.
const maxReports = 16

// report returns the facts of orca report's Report of the recording
// through the thread filter want ("" for none, as orca report --thread):
// what the headline of one says, the viewer's summary says, from the same
// function.
func (d *data) report(want string) *reportFacts {
	d.reportMu.Lock()
	defer d.reportMu.Unlock()
	if r, ok := d.reports[want]; ok {
		return r
	}
	var r *report.Report
	d.withIntervals(analysis.ThreadFilter(d.m, want), want != "", func() {
		r = report.New(d.rec, d.res, report.Options{Thread: want, NoThreadLists: true, NoHolders: true})
	})
	if len(d.reports) >= maxReports {
		for k := range d.reports {
			if k != "" {
				delete(d.reports, k)
				break
			}
		}
	}
	f := newReportFacts(r)
	d.reports[want] = f
	return f
}

// holdersDoing returns what the holders of each lock did while others
// were blocked on it, of the whole recording: without each lock's spans by
// holder (HoldersDoingWith), which a lock's detail and its holders' flame
// graph do not read (all of them at once were 1.8 GB live at c5G-slow5).
func (d *data) holdersDoing() map[model.LockRef]*model.Doing {
	d.holdersOnce.Do(func() {
		d.modelMu.Lock()
		defer d.modelMu.Unlock()
		// The one read of every thread's intervals the fold makes
		// gives the uses of the contended locks' objects too (a lock's
		// detail's threads: objectUse), not a read of its own (4.2 s of
		// a first detail's 17.8 at an hour of Tomcat).
		uses := map[format.ObjectID]*objUse{}
		for _, l := range d.m.Locks {
			if l.Contended() {
				uses[l.Object] = &objUse{first: d.m.End, last: d.m.Start}
			}
		}
		add := useAdder(uses)
		ti, tid := -1, format.ThreadID(0)
		d.holders = d.all.HoldersDoingWith(func(t *model.Thread, iv *model.Interval, _ []model.OwnerSpan) {
			if ti < 0 || t.ID != tid {
				ti, tid = d.m.IndexOf(t.ID), t.ID
			}
			add(ti, iv)
		})
		d.uses = uses
	})
	return d.holders
}

// lockMade is what the holders' fold made for some locks alone
// (model.View.HoldersOf): their Doings, and their objects' uses, made as
// it read every thread's intervals.
type lockMade struct {
	of      map[model.LockRef]bool // the locks folded
	holders map[model.LockRef]*model.Doing
	uses    map[format.ObjectID]*objUse
}

// foldFor folds the holders of locks alone, and the uses of their objects
// (contended or not): the index's build, for the details it keeps, which
// would otherwise fold every lock's holders (an hour of Tomcat: 171 414
// contended locks; the index keeps indexLocks). Their Doings and uses are
// those holdersDoing and objectUse give (TestIndexAnswers).
func (d *data) foldFor(locks []*model.Lock) *lockMade {
	refs := map[model.LockRef]bool{}
	made := &lockMade{of: refs, uses: map[format.ObjectID]*objUse{}}
	for _, l := range locks {
		if l.Kind == model.Monitor || l.Kind == model.JUCLock {
			refs[model.LockRef{Object: l.Object, Kind: l.Kind}] = true
		}
		made.uses[l.Object] = &objUse{first: d.m.End, last: d.m.Start}
	}
	v := *d.all // KeepBlame too: the whole fold, later, reads the logs
	v.HoldersOf = refs
	add := useAdder(made.uses)
	ti, tid := -1, format.ThreadID(0)
	d.locked(func() {
		made.holders = v.HoldersDoingWith(func(t *model.Thread, iv *model.Interval, _ []model.OwnerSpan) {
			if ti < 0 || t.ID != tid {
				ti, tid = d.m.IndexOf(t.ID), t.ID
			}
			add(ti, iv)
		})
	})
	return made
}

// lockHolders returns what the holders of lock ref did (nil: none were
// blocked), from what foldFor made when it has it, else from the fold of
// every lock (holdersDoing).
func (d *data) lockHolders(ref model.LockRef) *model.Doing {
	if made := d.made.Load(); made != nil && made.of[ref] {
		return made.holders[ref]
	}
	return d.holdersDoing()[ref]
}

// objUse is what the threads' intervals say of an object: those of the
// threads with an interval on it (their indexes, in order) and the first
// start and last end of those intervals (first > last when none).
type objUse struct {
	threads     []int32
	first, last format.Time
}

// objectUse returns the use of object obj (a lock's detail: its threads
// and the span of its intervals). Those of every contended lock's object
// are made by the holders' fold (holdersDoing, which a monitor's or a
// j.u.c. lock's detail makes anyway) as it reads every thread's
// intervals, and kept: a lock's detail asked again, or another's, reads
// nothing (each read every thread's intervals before: 2.5 s at an hour
// of Tomcat). Another object's is read for it alone, from every thread's
// intervals, a thread at a time, a run of the spill's blocks at a time
// (not kept: the cache is for the timeline's lanes; a Tomcat poller of an
// hour read whole was 839 MB).
func (d *data) objectUse(obj format.ObjectID, contended bool) (*objUse, error) {
	if made := d.made.Load(); made != nil && made.uses[obj] != nil {
		return made.uses[obj], nil
	}
	if contended {
		d.holdersDoing()
		if u := d.uses[obj]; u != nil {
			return u, nil
		}
	}
	u := &objUse{first: d.m.End, last: d.m.Start}
	add := useAdder(map[format.ObjectID]*objUse{obj: u})
	for i, t := range d.m.AllThreads() {
		err := d.m.EachIntervalIn(t, math.MinInt64, math.MaxInt64, func(ivs []model.Interval, _ int) bool {
			for k := range ivs {
				add(i, &ivs[k])
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	return u, nil
}

// useCacheBits: useAdder's cache of objects has 1<<useCacheBits slots;
// its filter 1<<useFilterBits bits (512 KB).
const (
	useCacheBits  = 12
	useFilterBits = 22
)

// useAdder returns a function that adds interval iv of thread i, given
// thread by thread in order, to the use of its object in uses, if there
// (object 0, of a park without a blocker and of every state without an
// object, when uses has it).
func useAdder(uses map[format.ObjectID]*objUse) func(i int, iv *model.Interval) {
	zero := uses[0] != nil
	// The objects met lately, found or not, in a cache before the map
	// (an hour of Tomcat: 85 M intervals on 171 414 contended locks'
	// objects and 6.3 M others; the map's look-ups were 2.2 s).
	type slot struct {
		obj format.ObjectID
		u   *objUse
		set bool
	}
	near := make([]slot, 1<<useCacheBits)
	// And a filter before both: a bit for each object of uses, by hash (the
	// objects parked on once, 6.3 M at the hour, missed the cache and the
	// map each: 1.5 s).
	filter := make([]uint64, 1<<(useFilterBits-6))
	bit := func(o format.ObjectID) uint64 { return uint64(o) * 0x9e3779b97f4a7c15 >> (64 - useFilterBits) }
	for o := range uses {
		filter[bit(o)>>6] |= 1 << (bit(o) & 63)
	}
	return func(i int, iv *model.Interval) {
		if iv.Object == 0 && !zero {
			return
		}
		if b := bit(iv.Object); filter[b>>6]&(1<<(b&63)) == 0 {
			return
		}
		sl := &near[uint64(iv.Object)*0xc2b2ae3d27d4eb4f>>(64-useCacheBits)]
		if !sl.set || sl.obj != iv.Object {
			*sl = slot{iv.Object, uses[iv.Object], true}
		}
		if u := sl.u; u != nil {
			if n := len(u.threads); n == 0 || u.threads[n-1] != int32(i) {
				u.threads = append(u.threads, int32(i))
			}
			u.first, u.last = min(u.first, iv.Start), max(u.last, iv.End)
		}
	}
}

// locked runs f with d.modelMu held: a reader of the model's caches
// (Model.OwnerSpans, BlameSpans, DoingIn, WaitGraphAt, analysis.ChainAt).
func (d *data) locked(f func()) {
	d.modelMu.Lock()
	defer d.modelMu.Unlock()
	f()
}

// ivCacheMax bounds the intervals and samples the cache of threads read
// back holds (about 72 bytes each), and the edges to them (32).
const ivCacheMax = 1 << 19

// ivCache keeps the threads read back from the model's spill last (a
// model built with Options.DropIntervals keeps no intervals nor samples in
// memory): a tile over the same threads, panned or zoomed, reads none
// again. The least recently used threads go first.
type ivCache struct {
	mu  sync.Mutex
	by  map[int]*list.Element // thread index → its entry in lru
	lru list.List             // of *ivEntry, most recently used first
	n   int                   // intervals and samples held
}

type ivEntry struct {
	ti int
	t  *model.Thread
	// edges: the edges to it, once asked (edgesTo), hasEdges then.
	edges    []model.Edge
	hasEdges bool
}

// size is what e counts in ivCache.n.
func (e *ivEntry) size() int { return len(e.t.Intervals) + len(e.t.Samples) + len(e.edges) }

// threadWith returns thread ti with its intervals and samples, not to be
// changed: what the model's readers of Thread.Intervals and Samples
// (RunIn, IntervalAt) read. In a model built with Options.DropIntervals
// it is a copy, from the cache or read back from the spill. Any
// goroutine may call it; a spill that cannot be read panics with its
// *model.SpillError, as the model's own readers do.
func (d *data) threadWith(ti int) *model.Thread {
	if !d.m.IntervalsDropped() {
		return d.m.ThreadAt(ti)
	}
	c := &d.ivs
	c.mu.Lock()
	if e, ok := c.by[ti]; ok {
		c.lru.MoveToFront(e)
		h := e.Value.(*ivEntry).t
		c.mu.Unlock()
		return h
	}
	c.mu.Unlock()
	h := d.readBack(d.m.ThreadAt(ti))
	n := len(h.Intervals) + len(h.Samples)
	if n > ivCacheMax/4 {
		return h // too large to keep: read each time
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[int]*list.Element{}
	}
	if _, ok := c.by[ti]; !ok {
		c.by[ti] = c.lru.PushFront(&ivEntry{ti: ti, t: h})
		c.n += n
		for c.n > ivCacheMax {
			e := c.lru.Back().Value.(*ivEntry)
			c.lru.Remove(c.lru.Back())
			delete(c.by, e.ti)
			c.n -= e.size()
		}
	}
	return h
}

// edgesTo returns the edges to thread ti, by ToTime, not to be changed:
// with the edges in the model's spill (Options.SpillEdges), read back
// and kept beside its intervals in the cache while they are (an
// interval's detail asks a thread's edges after its intervals).
func (d *data) edgesTo(ti int) []model.Edge {
	id := d.m.ThreadIDAt(ti)
	if !d.m.EdgesSpilled() {
		return d.m.EdgesTo(id, new([]model.Edge))
	}
	c := &d.ivs
	c.mu.Lock()
	if e, ok := c.by[ti]; ok && e.Value.(*ivEntry).hasEdges {
		c.lru.MoveToFront(e)
		edges := e.Value.(*ivEntry).edges
		c.mu.Unlock()
		return edges
	}
	c.mu.Unlock()
	edges := slices.Clip(d.m.EdgesTo(id, new([]model.Edge)))
	if len(edges) > ivCacheMax/4 {
		return edges // too large to keep: read each time
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.by[ti]; ok && !e.Value.(*ivEntry).hasEdges {
		ent := e.Value.(*ivEntry)
		ent.edges, ent.hasEdges = edges, true
		c.n += len(edges)
		c.lru.MoveToFront(e)
		for c.n > ivCacheMax && c.lru.Len() > 1 {
			old := c.lru.Back().Value.(*ivEntry)
			c.lru.Remove(c.lru.Back())
			delete(c.by, old.ti)
			c.n -= old.size()
		}
	}
	return edges
}

// intervalsAt returns a window of thread ti's intervals around instant at
// (model.ReadIntervalsAt: those that hold it, the first that ends after it
// and the one before), not to be changed, and the index of its first
// among the thread's: of a model built with Options.DropIntervals, the
// spill's blocks that hold them, not the thread (a Tomcat worker of an
// hour, 3.17 M intervals, was read whole at each click). A spill that
// cannot be read panics with its *model.SpillError, as threadWith.
func (d *data) intervalsAt(ti int, at format.Time) ([]model.Interval, int) {
	if !d.m.IntervalsDropped() {
		return d.m.ThreadAt(ti).Intervals, 0
	}
	ivs, from, err := d.m.ReadIntervalsAt(d.m.ThreadAt(ti), at, nil)
	if err != nil {
		panic(&model.SpillError{Err: err})
	}
	return ivs, from
}

// intervalAt returns thread ti's interval at instant at
// (model.Thread.IntervalAt) and its index, -1 when it has none then.
func (d *data) intervalAt(ti int, at format.Time) (model.Interval, int) {
	ivs, from := d.intervalsAt(ti, at)
	if k := d.m.ThreadAt(ti).IntervalAtIn(ivs, at); k >= 0 {
		return ivs[k], from + k
	}
	return model.Interval{}, -1
}

// interval returns thread ti's k-th interval (0 <= k < its
// model.IntervalCount): of a model built with Options.DropIntervals, read
// back from the spill's block that holds it (model.ReadInterval).
func (d *data) interval(ti, k int) model.Interval {
	iv, err := d.m.ReadInterval(d.m.ThreadAt(ti), k)
	if err != nil {
		panic(&model.SpillError{Err: err})
	}
	return iv
}

// withIntervals runs f, with d.modelMu held, while the threads keep
// accepts have their Thread.Intervals and Samples set (read back from the
// spill), when filtered: the model's Filter aggregates a View's locks
// again from its threads' intervals (orca report --thread keeps them in
// memory for that), and DoingIn folds what the holders it is given did
// from theirs. An unfiltered View reads none. Nothing else reads
// Thread.Intervals or Samples of a model built with
// Options.DropIntervals (the handlers go through threadWith), so setting
// them under modelMu races with no reader. A packed thread (the model's
// ended ones, Options.PackThreads) is a copy of its own: lent to the
// model for f (Model.Lend), which its readers then read. The locks' owner
// changes are read back for f too (Model.WithOwnerChanges: the
// aggregation reads them in memory).
func (d *data) withIntervals(keep func(*model.Thread) bool, filtered bool, f func()) {
	d.modelMu.Lock()
	defer d.modelMu.Unlock()
	if !filtered || !d.m.IntervalsDropped() {
		f()
		return
	}
	var set []*model.Thread
	defer func() {
		for _, t := range set {
			t.Intervals, t.Samples = nil, nil
		}
	}()
	lent := map[int]*model.Thread{}
	for i, t := range d.m.AllThreads() {
		if keep(t) {
			ivs, err := d.m.ReadIntervals(t, nil)
			if err != nil {
				panic(&model.SpillError{Err: err})
			}
			var smp []model.Sample
			t.Intervals, t.Samples = ivs, d.m.SamplesOf(t, &smp)
			set = append(set, t)
			lent[i] = t
		}
	}
	defer d.m.Lend(lent)()
	d.m.WithOwnerChanges(f)
}

// rel turns a model time into the API's: nanoseconds since the recording's
// first event.
func (d *data) rel(t format.Time) int64 { return int64(t - d.origin) }

// abs is rel's inverse.
func (d *data) abs(ns int64) format.Time { return d.origin + format.Time(ns) }

// threadIndex returns the index of id, or -1 when the recording never
// saw that thread (an owner named by a contention only).
func (d *data) threadIndex(id format.ThreadID) int {
	if d.whole != nil {
		d.noteReused(id)
		return d.whole.index(id)
	}
	return d.m.IndexOf(id)
}

// noteReused notes a thread named through whole whose hash is reused.
func (d *data) noteReused(id format.ThreadID) {
	if d.whole.reused[format.Hex(id.Hash())] {
		d.reusedSeen = true
	}
}

// frameJSON is one resolved frame.
type frameJSON struct {
	Frame string `json:"frame"` // "Class.method(File.java:line)"
	JDK   bool   `json:"jdk"`   // a frame of the JDK's own classes
}

// isJDK reports whether a resolved frame is a JDK class's (shown dimmed).
func isJDK(frame string) bool { return analysis.IsJDK(frame) }

// stackFrames resolves a stack, innermost first, once per stack.
func (d *data) stackFrames(id model.StackID) []frameJSON {
	d.mu.Lock()
	defer d.mu.Unlock()
	if f, ok := d.frames[id]; ok {
		return f
	}
	var out []frameJSON
	if int(id) < len(d.m.Stacks) {
		for _, fr := range d.m.Stacks[id] {
			s := d.rec.Resolve(fr)
			out = append(out, frameJSON{s, isJDK(s)})
		}
	}
	if out == nil {
		out = []frameJSON{}
	}
	d.frames[id] = out
	return out
}

// resolveFrame names one frame (for the flame graph, which sees each
// distinct frame many times; the caller caches).
func (d *data) resolveFrame(f format.Frame) string { return d.rec.Resolve(f) }

// objectClass is the name of an object's class (Model.ClassName), "" when
// unknown.
func (d *data) objectClass(o format.ObjectID) string {
	if c, ok := d.lockClass[o]; ok {
		return c
	}
	// A group's member kept as a record (Model.Lock), or no lock: asked
	// of the model each time, not kept for millions of members.
	return d.className(o)
}

// className is Model.ClassName of o's locks, with the class a
// java.lang.Class object is as orca report names it.
func (d *data) className(o format.ObjectID) string {
	c := d.m.ClassName(o)
	if c == "" {
		return ""
	}
	if co := reader.ClassObject(d.rec.Classes, o, d.m.Class(o)); co != "" {
		// A java.lang.Class object (a synchronized static method's
		// lock) named as orca report names it.
		c += " (" + format.JavaName(co) + ".class)"
	}
	return c
}

// threadName returns the name of a thread id, or its hex id.
func (d *data) threadName(id format.ThreadID) string {
	if d.whole != nil {
		d.noteReused(id)
		return d.whole.name(id)
	}
	if i := d.m.IndexOf(id); i >= 0 {
		return d.m.ThreadAt(i).Name
	}
	return id.String()
}
