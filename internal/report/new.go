package report

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// maxSamples is how many parse errors and fold problems a report quotes.
const maxSamples = 10

// builder carries what New needs while it fills a Report.
type builder struct {
	rec       *reader.Recording
	m         *model.Model
	opt       Options
	v         *model.View // the model through --thread: threads kept, their locks aggregated once
	frames    map[model.StackID][]string
	leafNamer                          // leaf
	jdk       map[format.ThreadID]bool // JDK service threads (see jdkThreads)
	parks     bool                     // a thread parked
	origin    format.Time              // what times are counted from: the model's start, or the recording's (Options.Span)
	// doing: what the holders of each lock did while the View's threads
	// were blocked on it (View.HoldersDoing), once: the locks' holders
	// and the wait chains both use it.
	doing map[model.LockRef]*model.Doing
}

// foldAllHolders folds the holders of every lock, listed or not, as
// before View.HoldersOf: the tests' reference (the same report).
var foldAllHolders = false

// holdersDoing returns b.v.HoldersDoing(), computed once, without the
// locks' spans by holder (HoldersDoingWith: the union of every lock's,
// which HoldersDoing keeps, were c5G-slow5's live peak, 1.8 GB, in orca
// view's report).
func (b *builder) holdersDoing() map[model.LockRef]*model.Doing {
	if b.doing == nil {
		b.setDoing(b.v.HoldersDoingWith(nil))
	}
	return b.doing
}

// setDoing keeps what the holders did, without each lock's spans by
// holder (Doing.Spans: the viewer's; the report reads none, and they are
// as many as 16 M in a 1 GB recording's report, held to its end), and
// only the first holdersTop of the locks they were blocked on (Doing.On,
// most first: the report lists those; all of them are 70 MB in a 1 GB
// recording's report).
func (b *builder) setDoing(doing map[model.LockRef]*model.Doing) {
	for _, d := range doing {
		d.Spans = nil
		if len(d.On) > holdersTop {
			d.On = slices.Clone(d.On[:holdersTop])
		}
	}
	b.doing = doing
}

// The steps of New that Options.Progress names, besides the holders' and
// the wait chains' (model.StepHolders…, analysis.StepChains…).
const (
	StepDeadlocks = "the deadlocks and hangs"
	StepLists     = "the threads, locks, sites and waits"
	StepCPU       = "the CPU profile"
)

// step tells Options.Progress, if set, that step begins.
func (b *builder) step(step string) {
	if b.opt.Progress != nil {
		b.opt.Progress(step, 0, 0)
	}
}

// New builds the report of a recording from its model and the analyses.
func New(rec *reader.Recording, res *model.Result, opt Options) *Report {
	m := res.Model
	if opt.Width <= 0 {
		opt.Width = 100
	}
	// Filter, then aggregate once, in the model (Model.Filter): every list
	// below renders the View, as the viewer does for ?thread=.
	var keep func(*model.Thread) bool
	if opt.Thread != "" {
		keep = analysis.ThreadFilter(m, opt.Thread)
	}
	b := &builder{rec: rec, m: m, opt: opt, v: m.Filter(keep), frames: map[model.StackID][]string{}}
	b.leafNamer = leafNamer{rec: rec, m: m, leaves: map[model.StackID]leafFrame{}}
	// The report lists the first holdersTop of each lock's Doing.On: the
	// holders' pass keeps no more (setDoing).
	b.v.OnTop = holdersTop
	b.v.Progress = opt.Progress
	// And the holders of the locks it lists alone (--top; locks): the
	// others' spans are not merged nor folded (~3/4 of the holders' pass
	// of a 1 GB recording at --top 10), and nothing printed reads them.
	if !foldAllHolders {
		b.v.HoldersOf = listedLocks(b.v.Locks, opt.Top)
	}
	b.origin = m.Start
	if sp := opt.Span; sp != nil {
		b.origin = sp.Origin
	}
	b.jdk = b.jdkThreads()
	r := &Report{
		Prefix:            rec.Prefix,
		Command:           nonEmpty(rec.Info.Command()),
		PID:               nonEmpty(rec.Info.PID()),
		Java:              nonEmpty(rec.Info.JavaVersion()),
		OriginS:           b.origin.Seconds(),
		DurationS:         sec(m.End - m.Start),
		Events:            m.Events,
		ThreadsAll:        m.NumThreads(),
		ParseErrors:       res.Malformed,
		ParseErrorSamples: []string{},
		Truncated:         res.Truncated,
		Unclosed:          res.Unclosed,
		lastFile:          rec.LastEventsFile(),
		Problems:          len(m.Problems),
		ProblemSamples:    []string{},
		Warnings:          append([]string{}, rec.Warnings...),
		width:             opt.Width,
		classes:           rec.Classes,
	}
	for _, ci := range m.ClassInits {
		if r.inits == nil {
			r.inits = map[string]string{}
		}
		r.inits[ci.Object.String()] = ci.Class
	}
	for _, e := range res.ParseErrors[:min(maxSamples, len(res.ParseErrors))] {
		r.ParseErrorSamples = append(r.ParseErrorSamples, e.Error())
	}
	r.ProblemSamples = append(r.ProblemSamples, m.Problems[:min(maxSamples, len(m.Problems))]...)
	r.hasInfo = rec.Info != nil
	r.initOpen = rec.Info.ClassInitOpen()
	r.heldMonitors = heldMonitorsFact(rec.Info)
	// The agent records parks unless told kinds=seed (an import from JFR
	// has them too).
	r.parks = rec.Info.ParksRecorded()
	if c, ok := rec.Info.Complete(); ok {
		r.Complete = &c
	}
	if r.Complete == nil || !*r.Complete {
		r.Live = rec.Live()
	}
	if r.Truncated {
		r.TruncatedWhy = rec.TruncatedWhy()
	}
	if bd := rec.Info.Bounds(); bd != nil {
		r.Bounded = &Bounded{MaxSizeBytes: bd.MaxSize, MaxAgeS: bd.MaxAgeS, ChunksKept: bd.ChunksKept, ChunksDeleted: bd.ChunksDeleted, keptS: r.DurationS}
		// A range's span (opt.Span, or the one the model was folded
		// with: the viewer's): what was kept and recorded is the
		// recording's, not the range's.
		sp := opt.Span
		if sp == nil {
			sp = res.Span
		}
		if sp != nil {
			r.Bounded.keptS = sec(sp.End - sp.Origin)
		}
		if c := rec.Chunks; len(c) > 0 {
			// The chunk files read (.info, rewritten once a second, may lag
			// behind a recording still being written).
			r.Bounded.ChunksKept = fmt.Sprintf("%d-%d", c[0].Seq, c[len(c)-1].Seq)
		}
		if start, end, ok := rec.Info.Span(); ok {
			// .info is rewritten once a second: a JVM killed, or a
			// recording still being written, has events after its end_s.
			// With a range, m.End is the range's end: the recording's
			// is the span's.
			end = max(end, m.End)
			if sp != nil {
				end = max(end, sp.End)
			}
			r.Bounded.RecordedS = sec(end - start)
			if bd.ChunksDeleted > 0 && bd.KeptFrom > start {
				r.Bounded.DeletedS = sec(bd.KeptFrom - start)
			}
		}
	}
	if sp := opt.Span; sp != nil {
		r.Range = &Range{FromS: sec(max(sp.From, sp.Origin) - sp.Origin), ToS: sec(min(sp.To, sp.End) - sp.Origin), RecordingS: sec(sp.End - sp.Origin),
			Chunks: sp.Chunks, BytesRead: sp.Bytes, BytesTotal: sp.Total, Whole: sp.Whole}
	}
	if rec.Info[format.InfoAttached] == "true" {
		r.Attached = &Attached{Stopped: rec.Info[format.InfoStopped] == "true", StoppedBy: rec.Info[format.InfoStoppedBy]}
		r.Attached.AliveAtAttach, _ = rec.Info.Int(format.InfoAliveAtAttach)
		r.Attached.Unread, _ = rec.Info.Int(format.InfoUnreadAtAttach)
	}
	infoInt := func(key string) *int64 {
		if n, ok := rec.Info.Int(key); ok {
			return &n
		}
		return nil
	}
	r.DroppedEvents = infoInt(format.InfoDroppedTotal)
	r.DroppedAtExit = infoInt(format.InfoDroppedAtExit)
	r.WrittenLate, _ = rec.Info.Int(format.InfoWrittenLate)
	r.UnattributedEvents = infoInt(format.InfoUnattributed)
	r.VirtualThreads = infoInt(format.InfoVirtualThreads)
	r.Unattributed = rec.Info.Counters(format.InfoUnattributedOf)
	r.OwnerUnknownWhy = rec.Info.Counters(format.InfoOwnerUnknown + ".")
	for why, n := range r.OwnerUnknownWhy {
		if n <= 0 {
			delete(r.OwnerUnknownWhy, why)
		}
	}
	if m.OwnerEnded > 0 {
		// The owners the fold dropped: they had ended (model.Model.OwnerEnded).
		if r.OwnerUnknownWhy == nil {
			r.OwnerUnknownWhy = map[string]int64{}
		}
		r.OwnerUnknownWhy["owner_ended"] += int64(m.OwnerEnded)
	}
	if opt.Thread != "" {
		r.Filter = &Filter{Thread: opt.Thread, Matched: b.v.Len()}
	}
	for i := range b.v.Len() {
		if t := b.v.At(i); t.Pinned > 0 {
			r.Pinned = append(r.Pinned, PinnedThread{Thread: t.ID.String(), Name: t.Name, Pinned: int(t.Pinned)})
			r.PinnedTotal += int(t.Pinned)
		}
	}
	if len(r.Pinned) > 0 {
		slices.SortFunc(r.Pinned, func(x, y PinnedThread) int {
			return cmp.Or(cmp.Compare(y.Pinned, x.Pinned), cmp.Compare(x.Name, y.Name), cmp.Compare(x.Thread, y.Thread))
		})
		r.Pinned, r.PinnedThreads = top(r.Pinned, opt.Top)
	}
	if s := rec.Info.Sight(); s != nil {
		r.Sight = &Sight{Source: s.Source, HangsVisible: !s.EndedOnly, DeadlocksVisible: !s.EndedOnly, Unparkers: !s.ParkEndsUnknown,
			SettingsKnown: s.SettingsKnown, ThresholdsS: map[string]float64{}, NotRecorded: map[string]string{}, NoStacks: map[string]string{}}
		for k, t := range s.Threshold {
			r.Sight.ThresholdsS[k.String()] = sec(t)
		}
		for k, v := range s.NotRecorded {
			r.Sight.NotRecorded[k.String()] = v
		}
		for k, v := range s.NoStacks {
			r.Sight.NoStacks[k.String()] = v
		}
	}

	b.step(StepDeadlocks)
	r.Deadlocks = b.deadlocks()
	r.PotentialDeadlocks = b.potentialDeadlocks()
	r.top = opt.Top
	// One decision (analysis.OpenAtEnd), four lists; the JDK's service
	// threads, idle, among the not hangs (splitJDK).
	var hangs, not, atCut, alone []analysis.Hang
	for _, h := range analysis.OpenAtEnd(b.m) {
		switch h.Why {
		case analysis.IsHang:
			hangs = append(hangs, h)
		case analysis.AtCut:
			atCut = append(atCut, h)
		case analysis.Alone:
			alone = append(alone, h)
		default:
			not = append(not, h)
		}
	}
	r.Hangs, r.NotHangs = b.splitJDK(b.hangs(hangs, r.Deadlocks), b.hangs(not, r.Deadlocks))
	r.WaitingAlone, r.NotHangs = b.splitJDK(b.hangs(alone, r.Deadlocks), r.NotHangs)
	// The owner changes read back for the graph at the end (OpenAtEnd,
	// the deadlocks) are not asked for again, nor, with LetGoTails, the
	// threads' tails: before the wait chains, whose holders' pass and
	// sweep are the report's live peaks (c5G-slow5).
	b.m.LetGoOwnerChanges()
	if opt.LetGoTails {
		b.m.LetGoTails()
		b.m.LetGoHolds()
	}
	if opt.Chains {
		var total int
		r.Chains, r.chainRows, total = b.chains(opt.Top)
		r.ChainsTotal = &total
		b.m.LetGoOwnerChanges() // those the chains' sweep read back
	}
	b.step(StepLists)
	hung := map[string]bool{}
	for _, h := range r.Hangs {
		hung[h.Thread] = true
	}

	// The threads' rows: only those listed are made and kept (a busy
	// server's hour: 1.3 M threads, 0.7 GB of rows), the virtual threads'
	// summed by name as they come.
	ranks := b.rankThreads(hung)
	r.ThreadsTotal = len(ranks)
	if opt.NoThreadLists {
		r.Threads, r.VirtualGroups, r.textThreads = []Thread{}, []VirtualGroup{}, []Thread{}
	} else {
		n := listed(len(ranks), opt.Top)
		// The rows listed: the Report's, or with Streamed the text's
		// alone (none with JSONOnly too), WriteJSON making them again.
		var rows []Thread
		keep := opt.Top
		var lazy *textRows
		if opt.Streamed {
			at := make([]int32, n)
			for j, k := range ranks[:n] {
				at[j] = k.i
			}
			r.threadList = &threadRows{b: b.lean(), at: at}
			if opt.JSONOnly {
				keep = -1
			} else if n == len(ranks) {
				// Every row listed (--top 0): the text's too are made as
				// they are written, none held.
				lazy, keep = &textRows{b: r.threadList.b, at: at}, -1
			}
		}
		if keep >= 0 {
			rows = make([]Thread, 0, n)
			for _, k := range ranks[:n] {
				if madeRow != nil && !opt.Streamed {
					madeRow("threads")
				}
				rows = append(rows, b.thread(b.v.At(int(k.i))))
			}
		}
		if !opt.Streamed {
			r.Threads = rows
		}
		var text []Thread
		switch {
		case lazy != nil:
			lazy.entries, lazy.groups, r.textThreadsTotal, r.VirtualGroups = b.textEntries(ranks, 0)
			if opt.Virtual {
				lazy.entries, lazy.groups, r.textThreadsTotal = nil, nil, r.ThreadsTotal
			}
			r.textLazy = lazy
		default:
			text, r.textThreadsTotal, r.VirtualGroups = b.virtualGroups(ranks, rows, keep)
			if opt.Virtual {
				text, r.textThreadsTotal = rows, r.ThreadsTotal
			}
		}
		r.textThreads = text
	}
	r.parks = r.parks || b.parks
	mlocks := b.v.Locks
	locks := b.locks(mlocks, opt.Top)
	for _, l := range locks {
		if l.Kind == "semaphore" {
			r.SemaphoresTotal++
			r.AcquiringS += l.BlockedS + l.OpenS
		} else {
			r.BlockedS += l.BlockedS
			r.OpenS += l.OpenS
		}
		r.OwnerUnknown += l.OwnerUnknown
		r.OwnerUnknownS += l.OwnerUnknownS
	}
	r.OwnerUnknownS = math.Round(r.OwnerUnknownS*1e9) / 1e9
	r.BlockedS, r.OpenS, r.AcquiringS = math.Round(r.BlockedS*1e9)/1e9, math.Round(r.OpenS*1e9)/1e9, math.Round(r.AcquiringS*1e9)/1e9
	r.jucOwnerUnknown = jucOwnerUnknown(locks)
	r.Locks, r.LocksTotal = top(locks, opt.Top)
	r.Sites, r.SitesTotal = b.sites(locks, opt.Top)
	r.ClassInits = b.classInits()
	if m.Shutdown != 0 {
		v := b.rel(m.Shutdown)
		r.ShutdownS = &v
	}
	if c := m.Cut; c != nil {
		r.Cut = &Cut{AtS: b.rel(c.At), Reason: c.Reason, EventsAfter: c.After,
			WriteErrors: infoInt(format.InfoWriteErrors), UnknownAfter: b.hangs(atCut, r.Deadlocks)}
	}
	waits := b.waits()
	for _, w := range waits {
		if w.Group != nil {
			r.waitGroups++
			r.groupedObjects += w.Group.Objects
			r.waitObjects += w.Group.Objects
		} else {
			r.waitObjects++
		}
	}
	r.Waits, r.WaitsTotal = top(waits, opt.Top)
	r.Edges = b.edges()
	// as every list: --top N, 0 all (it was 20 with --top 0, under a
	// heading that said "--top 0 shows all")
	b.step(StepCPU)
	r.CPU = b.cpu(opt.Top)
	r.Caveats = caveats(r.headEntries(), r.tailEntries())
	return r
}

// top keeps the first n entries (all when n is 0) and returns the count
// before the cut. The entries kept are a copy: the Report, held while it
// is written, does not hold the others (all the threads' rows, all the
// locks' sites) through the array they shared.
func top[T any](s []T, n int) ([]T, int) {
	total := len(s)
	if n > 0 && len(s) > n {
		s = slices.Clone(s[:n])
	}
	if s == nil {
		s = []T{}
	}
	return s, total
}

// nonEmpty returns a pointer to s, nil for "" (JSON null: not known).
func nonEmpty(s string) *string {
	if s != "" {
		return &s
	}
	return nil
}

// sec converts a duration or a time to seconds, rounded to the nanosecond
// so JSON shows 0.3 rather than 0.30000000000000004.
func sec(t format.Time) float64 { return math.Round(t.Seconds()*1e9) / 1e9 }

// rel is a time as seconds since the recording's start.
func (b *builder) rel(t format.Time) float64 { return sec(t - b.origin) }

// pct is part's share of whole in percent, rounded to the hundredth
// (model.Share: an owner's share in the viewer is the same figure).
func pct(part, whole format.Time) float64 { return model.Share(part, whole) }

// stack resolves a stack to "Class.method(File.java:line)" frames,
// innermost first.
func (b *builder) stack(id model.StackID) []string {
	if f, ok := b.frames[id]; ok {
		return f
	}
	out := []string{}
	if int(id) < len(b.m.Stacks) {
		for _, fr := range b.m.Stacks[id] {
			out = append(out, b.rec.Resolve(fr))
		}
	}
	b.frames[id] = out
	return out
}

// class returns the class of an object, as a lock of any kind knows it; nil
// when unknown.
// initOf is the class whose initialisation the JVM's init lock o is of
// (model.Model.InitLock), nil when o is no such lock.
func (b *builder) initOf(o format.ObjectID) *string {
	if ci := b.m.InitLock(o); ci != nil {
		c := ci.Class
		return &c
	}
	return nil
}

func (b *builder) class(o format.ObjectID) *string {
	if c := b.m.Class(o); c != "" {
		return &c
	}
	return nil
}

// name returns a thread's name, nil when the thread has no events.
func (b *builder) name(id format.ThreadID) *string { return nameOf(b.m, id) }

// nameOf is builder.name of m.
func nameOf(m *model.Model, id format.ThreadID) *string {
	// The Thread's own field (or the Model's string of a packed one),
	// not a copy of the string's header: a name for each owner of each
	// lock listed, each thread behind a chain (16 bytes each, 67 MB of
	// c5G-slow5's report at its peak, the owners made).
	return m.NameOf(id)
}

func idPtr(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}

// matches reports whether the thread id passes --thread.
func (b *builder) matches(id format.ThreadID) bool { return b.v.Has(id) }

// listed is how many of n rows a list cut to its first top (0: all)
// shows.
func listed(n, top int) int {
	if top > 0 {
		return min(n, top)
	}
	return n
}

// threadRank is a thread's place in the threads' ranking (rankThreads):
// its keys, not its row (thread), which only the rows listed need.
type threadRank struct {
	// i: its index in the View's threads (View.At: a packed Thread is
	// unpacked for the rows listed alone).
	i                        int32
	jdk, hung, virtual       bool
	contended, offCPU, start format.Time
}

// rankThreads ranks the matching threads: the program's before the JDK's;
// then the hung (hung, by id: HANGS lists them, so the THREADS table's top
// rows have them too); then lock contention first: it is what a
// concurrency profile is for; then time in any recorded state, then order
// of start.
func (b *builder) rankThreads(hung map[string]bool) []threadRank {
	rs := make([]threadRank, b.v.Len())
	for i, t := range b.v.All() {
		if t.Time[model.Parked]+t.Time[model.Idle] > 0 {
			b.parks = true
		}
		// Blocked counts java.util.concurrent locks' contentions too (Interval.Shown).
		rs[i] = threadRank{i: int32(i), virtual: t.Virtual, jdk: b.jdk[t.ID], contended: t.Time[model.Blocked] + t.Time[model.Acquiring],
			offCPU: t.Life() - t.Time[model.Runnable], start: t.Start}
		if len(hung) > 0 {
			rs[i].hung = hung[t.ID.String()]
		}
	}
	// Ties by place in the View last: the order of a stable sort, by a
	// sort that is not (a stable one's merges were most of the ranking).
	slices.SortFunc(rs, func(a, c threadRank) int {
		if a.jdk != c.jdk {
			if !a.jdk {
				return -1
			}
			return 1
		}
		if a.hung != c.hung {
			if a.hung {
				return -1
			}
			return 1
		}
		if a.contended != c.contended {
			return cmp.Compare(c.contended, a.contended)
		}
		if a.offCPU != c.offCPU {
			return cmp.Compare(c.offCPU, a.offCPU)
		}
		if a.start != c.start {
			return cmp.Compare(a.start, c.start)
		}
		return cmp.Compare(a.i, c.i)
	})
	return rs
}

// lean is a builder of the rows Options.Streamed makes as they are
// written (threadRows, chainRows): without what New alone needs (the
// stacks resolved, what the holders did).
func (b *builder) lean() *builder {
	return &builder{rec: b.rec, m: b.m, opt: b.opt, v: b.v, jdk: b.jdk, origin: b.origin}
}

// threadRows makes the threads' rows as WriteJSON writes them
// (Options.Streamed): at, the listed threads' indexes in the View, in
// rank order (4 bytes a thread, where a row is ~200).
type threadRows struct {
	b  *builder
	at []int32
}

// all yields the rows in order, each made then.
func (tr *threadRows) all(yield func(*Thread)) {
	for _, i := range tr.at {
		if madeRow != nil {
			madeRow("threads")
		}
		th := tr.b.thread(tr.b.v.At(int(i)))
		yield(&th)
	}
}

// thread is t's row in the threads' list.
func (b *builder) thread(t *model.Thread) Thread {
	th := Thread{
		ID: t.ID.String(), Name: t.Name,
		Parent: idPtr(t.Parent.String(), t.Parent != 0), ParentName: nil,
		StartS: b.rel(t.Start), EndS: b.rel(t.End), Ended: t.Ended, LifeS: sec(t.Life()), Events: t.Events,
		BeforeAttach: b.m.BeforeStart(t.Start), JDK: b.jdk[t.ID],
		Virtual: t.Virtual, Carriers: int(t.Carriers), Pinned: int(t.Pinned),
	}
	if t.Virtual && t.Carrier != 0 {
		th.Carrier = idPtr(t.Carrier.String(), true)
	}
	if t.Parent != 0 {
		th.ParentName = b.name(t.Parent)
	}
	runSplit(&th, t)
	s, p := &th.StatesS, &th.StatesPct
	for st, d := range t.Time {
		*field(s, model.State(st)) = sec(d)
		*field(p, model.State(st)) = pct(d, t.Life())
	}
	return th
}

// field returns the member of s for state st.
func field(s *States, st model.State) *float64 {
	switch st {
	case model.Blocked:
		return &s.Blocked
	case model.Waiting:
		return &s.Waiting
	case model.Sleeping:
		return &s.Sleeping
	case model.Joining:
		return &s.Joining
	case model.Acquiring:
		return &s.Acquiring
	case model.Parked:
		return &s.Parked
	case model.Idle:
		return &s.Idle
	}
	return &s.Runnable
}

// deadlocks lists analysis.Deadlocks, those with a matching thread.
func (b *builder) deadlocks() []Deadlock {
	out := []Deadlock{}
	for _, d := range analysis.Deadlocks(b.m) {
		keep := false
		for _, th := range d.Threads {
			keep = keep || b.matches(th)
		}
		if !keep {
			continue
		}
		r := Deadlock{AtS: b.rel(d.At), AtEnd: d.AtEnd, LastedS: sec(d.Lasted(b.m.End)), BeforeAttach: b.m.BeforeStart(d.At)}
		if !d.AtEnd {
			v := b.rel(d.Resolved)
			r.ResolvedS = &v
		}
		for i, th := range d.Threads {
			r.Threads = append(r.Threads, th.String())
			r.Names = append(r.Names, b.name(th))
			if d.Objects[i] == 0 {
				r.States = append(r.States, model.Joining.String())
				r.Locks = append(r.Locks, false)
				r.Objects = append(r.Objects, nil)
			} else {
				// Blocked on a monitor or, parked in its acquire, on a
				// java.util.concurrent lock: both are "blocked" (the
				// report's and the viewer's word), Locks tells them apart.
				r.States = append(r.States, model.Blocked.String())
				r.Locks = append(r.Locks, i < len(d.States) && d.States[i] == model.Parked)
				r.Objects = append(r.Objects, idPtr(d.Objects[i].String(), true))
			}
			r.Stacks = append(r.Stacks, b.stack(d.Stacks[i]))
		}
		classes := make([]*string, len(d.Objects))
		known := false
		for j, o := range d.Objects {
			classes[j] = b.class(o)
			known = known || classes[j] != nil
		}
		if known {
			r.Classes = classes
		}
		inits := make([]*string, len(d.Objects))
		known = false
		for j, o := range d.Objects {
			if o != 0 && (j >= len(d.States) || d.States[j] != model.Parked) {
				inits[j] = b.initOf(o)
			}
			known = known || inits[j] != nil
		}
		if known {
			r.ClassInits = inits
		}
		out = append(out, r)
	}
	return out
}

// hangs lists the entries of matching threads, marking those in a
// deadlock that is intact at the end.
func (b *builder) hangs(hs []analysis.Hang, dls []Deadlock) []Hang {
	out := []Hang{}
	for _, h := range hs {
		if !b.matches(h.Thread) {
			continue
		}
		r := Hang{
			Thread: h.Thread.String(), Name: b.name(h.Thread), State: h.State.String(), Lock: h.Acquire,
			Object: idPtr(h.Object.String(), h.Object != 0),
			Other:  idPtr(h.Other.String(), h.Other != 0),
			SinceS: b.rel(h.Since), ForS: sec(b.m.End - h.Since), BeforeAttach: b.m.BeforeStart(h.Since), Frames: b.stack(h.Stack),
			JDK: b.jdk[h.Thread], Timeout: h.Timeout.String(), Why: h.Why.String(),
		}
		if h.Acquire {
			r.State = model.Blocked.String() // a park in a lock's acquire: blocked on the lock
		}
		if h.Other != 0 {
			r.OtherName = b.name(h.Other)
		}
		r.Class = b.class(h.Object)
		if h.State == model.Blocked && !h.Acquire && h.Object != 0 {
			r.ClassInit = b.initOf(h.Object)
		}
		if h.Why == analysis.Alone {
			v := b.rel(h.Progress)
			r.OthersRanUntilS = &v
		}
		r.Call = model.Call(b.m.Stacks[h.Stack], b.rec.FrameName)
		if h.Behind != 0 {
			r.Behind, r.BehindName = idPtr(h.Behind.String(), true), b.name(h.Behind)
		}
		for i, d := range dls {
			for _, th := range d.Threads {
				if d.AtEnd && th == r.Thread {
					r.Deadlock = &i
				}
				if d.AtEnd && r.Behind != nil && th == *r.Behind {
					r.BehindDeadlock = &i
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// jdkIdle is the why of a JDK service thread in a blocking state at the
// end: it idles there by design (Finalizer in Object.wait), and is no hang.
const jdkIdle = "jdk"

// splitJDK moves the JDK service threads out of hangs into not (why
// jdkIdle), keeping not longest first: the JSON's hangs are then the
// headline's "HANGS: N", as the viewer counts them (it said 6 with
// Finalizer where the text said 5).
func (b *builder) splitJDK(hangs, not []Hang) ([]Hang, []Hang) {
	app := []Hang{}
	for _, h := range hangs {
		if h.JDK {
			h.Why = jdkIdle
			not = append(not, h)
		} else {
			app = append(app, h)
		}
	}
	sort.SliceStable(not, func(i, j int) bool { return not[i].ForS > not[j].ForS })
	return app, not
}

// jdkThreads finds the JDK's service threads (Finalizer, Reference
// Handler, Common-Cleaner, …), which idle in Object.wait for the whole run
// and would otherwise top the hangs and the thread table: threads none of
// whose stacks (where they were started, where they blocked or waited)
// has a frame outside the JDK. "main" is never one, and when no stack of
// the recording has an application frame (recorded with depth=0), no
// thread is.
func (b *builder) jdkThreads() map[format.ThreadID]bool {
	out := map[format.ThreadID]bool{}
	for i, jdk := range analysis.JDKThreads(b.m, b.rec.FrameName) {
		if jdk {
			out[b.m.ThreadAt(i).ID] = true
		}
	}
	return out
}

// edges counts the edges that touch a matching thread: without a filter,
// every edge (each ends at a thread of the model), which the model counts
// whether it keeps them or not (model.Options.NoEdges).
func (b *builder) edges() Edges {
	if !b.v.Filtered {
		c := &b.m.EdgeCounts
		return Edges{Wake: c[model.EdgeWake], Start: c[model.EdgeStart], Join: c[model.EdgeJoin],
			Release: c[model.EdgeRelease], Owner: c[model.EdgeOwner], Unpark: c[model.EdgeUnpark]}
	}
	var e Edges
	for _, ed := range b.m.AllEdges() {
		if !b.matches(ed.From) && !b.matches(ed.To) {
			continue
		}
		switch ed.Kind {
		case model.EdgeWake:
			e.Wake++
		case model.EdgeStart:
			e.Start++
		case model.EdgeJoin:
			e.Join++
		case model.EdgeRelease:
			e.Release++
		case model.EdgeOwner:
			e.Owner++
		case model.EdgeUnpark:
			e.Unpark++
		}
	}
	return e
}

// digits matches a run of digits in a thread's name.
var digits = regexp.MustCompile(`[0-9]+`)

// virtualGroups returns the text's THREADS rows (textEntries) made: the
// listed rows (those of the first ranked) where they are, the others made;
// listed itself when no thread is virtual.
func (b *builder) virtualGroups(ranked []threadRank, listed []Thread, keep int) ([]Thread, int, []VirtualGroup) {
	entries, groupRows, n, groups := b.textEntries(ranked, keep)
	if entries == nil {
		return listed, n, groups
	}
	rows := make([]Thread, 0, len(entries))
	for _, e := range entries {
		switch {
		case e < 0:
			rows = append(rows, groupRows[^e])
		case int(e) < len(listed):
			rows = append(rows, listed[e])
		default:
			rows = append(rows, b.thread(b.v.At(int(ranked[e].i))))
		}
	}
	return rows, n, groups
}

// textEntries lists the text's THREADS rows: the ranked threads with the
// virtual ones summed by name pattern (digits as N) into one row each, in
// the ranking of their first; the first keep of n rows (keep 0: all).
// Each entry is a rank (≥ 0: ranked's) or ^g, groupRows[g]. entries is
// nil when no thread is virtual: the rows are the ranked threads'.
func (b *builder) textEntries(ranked []threadRank, keep int) (entries []int32, groupRows []Thread, n int, groups []VirtualGroup) {
	groups = []VirtualGroup{}
	virtual := false
	for i := range ranked {
		virtual = virtual || ranked[i].virtual
	}
	if !virtual {
		return nil, nil, len(ranked), groups
	}
	entries = []int32{}
	at := map[string]int{}
	row := map[string]int{} // a pattern's row in groupRows, -1: not kept
	for i, k := range ranked {
		if !k.virtual {
			if keep == 0 || n < keep {
				entries = append(entries, int32(i))
			}
			n++
			continue
		}
		th := b.thread(b.v.At(int(k.i)))
		p := digits.ReplaceAllString(th.Name, "N")
		gi, ok := at[p]
		if !ok {
			gi = len(groups)
			at[p] = gi
			groups = append(groups, VirtualGroup{Pattern: p})
			row[p] = -1
			if keep == 0 || n < keep {
				row[p] = len(groupRows)
				entries = append(entries, ^int32(len(groupRows)))
				groupRows = append(groupRows, Thread{Name: p, Virtual: true})
			}
			n++
		}
		g := &groups[gi]
		g.Threads++
		g.LifeS += th.LifeS
		g.Events += th.Events
		g.Pinned += th.Pinned
		for st := model.State(0); st < model.NumStates; st++ {
			*field(&g.StatesS, st) += *field(&th.StatesS, st)
		}
		if row[p] < 0 {
			continue // not kept
		}
		r := &groupRows[row[p]]
		for _, f := range []struct{ sum, v **float64 }{{&r.CPUS, &th.CPUS}, {&r.ReadyS, &th.ReadyS}, {&r.OtherS, &th.OtherS}} {
			if *f.v != nil {
				if *f.sum == nil {
					*f.sum = new(float64)
				}
				**f.sum += **f.v
			}
		}
	}
	for i := range groups {
		g := &groups[i]
		g.LifeS = math.Round(g.LifeS*1e9) / 1e9
		for st := model.State(0); st < model.NumStates; st++ {
			v := field(&g.StatesS, st)
			*v = math.Round(*v*1e9) / 1e9
			if g.LifeS > 0 {
				*field(&g.StatesPct, st) = math.Round(*v/g.LifeS*1e4) / 100
			}
		}
		if j := row[g.Pattern]; j >= 0 {
			r := &groupRows[j]
			r.group, r.LifeS, r.Events, r.Pinned, r.StatesS, r.StatesPct = g.Threads, g.LifeS, g.Events, g.Pinned, g.StatesS, g.StatesPct
		}
	}
	return entries, groupRows, n, groups
}

// textRows makes the text's THREADS rows as WriteText writes them
// (Options.Streamed, every row listed: --top 0): at, the ranked threads'
// indexes in the View; entries and groups as textEntries gives them (nil:
// at's in order). A few bytes a thread, where a row is ~200 and its
// table's strings as many again.
type textRows struct {
	b       *builder
	at      []int32
	entries []int32
	groups  []Thread
}

// len is the number of rows.
func (tr *textRows) len() int {
	if tr.entries == nil {
		return len(tr.at)
	}
	return len(tr.entries)
}

// all yields the rows in order, each made then.
func (tr *textRows) all(yield func(*Thread) bool) {
	for i := range tr.len() {
		var th Thread
		switch {
		case tr.entries == nil:
			th = tr.b.thread(tr.b.v.At(int(tr.at[i])))
		case tr.entries[i] < 0:
			th = tr.groups[^tr.entries[i]]
		default:
			th = tr.b.thread(tr.b.v.At(int(tr.at[tr.entries[i]])))
		}
		if madeRow != nil {
			madeRow("text threads")
		}
		if !yield(&th) {
			return
		}
	}
}
