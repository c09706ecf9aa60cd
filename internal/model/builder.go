package model

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"unsafe"

	"orca/internal/format"
	"orca/internal/reader"
)

// The fold, by concern: this file has the Builder, its threads and the
// dispatch of events; states.go the stack of a thread's states and its
// intervals; locks.go monitors, their owners and semaphores; waits.go
// wait and notify; deadlock.go the wait-for graph; finalize.go the end of
// the fold; aggregate.go the figures of the locks, from the intervals.

// Builder folds events into a Model: New, then Event for each event in
// file order, then Finalize. In-progress state stays private.
type Builder struct {
	// ivSlab, lockSlab: the memory of the intervals' blocks and of the
	// locks, when a series of builds reuses it (Options.Reuse); nil:
	// allocated.
	ivSlab   *slab[Interval]
	lockSlab *slab[lockMem]
	// ivFree: the blocks of intervals given up to the spill (release),
	// for the next (nil with ivSlab: the slab's blocks are the slab's).
	ivFree *ivFree
	// ivsWas, ivsNow: Reuse's (nil without): the threads' intervals at
	// the last build's end, and at this one's.
	ivsWas, ivsNow map[format.ThreadID]int
	reused         *Reuse      // Options.Reuse, nil without
	stoppedAt      format.Time // StoppedAt: the end of a recording stopped while the JVM went on
	// rangeTo: the end of the time range folded (NameAfter), 0 for none:
	// a later event is a ThreadStarted the range's reader hands on for
	// the name of a thread started in the range, nothing else.
	rangeTo    format.Time
	lastThread *tstate // the last thread looked up: events come in runs
	m          *Model
	edges      edgeList // Model.Edges until Finalize
	// th: the threads by ID, and in order of appearance (th.byNum,
	// tstate.num), as Model.Threads until Finalize sorts it: Finalize's
	// walk finds each without a look-up (100 000 threads: a miss of the
	// cache each).
	th *foldIndex
	// near: the threads by their ID's hash, the latest looked up in each
	// slot (threadOf).
	near []*tstate
	// dense: the threads by the reader's dense number (reader.Columns),
	// the latest found for each (event): the reader gives a number to
	// another thread once its own has ended, so each is checked by its ID.
	dense []*tstate
	// slab: tstates not handed out yet, made many at once (100 000
	// threads: 400 allocations, not 100 000 of 1 kB each). All live until
	// Finalize, so a slab keeps nothing alive longer. tslab: their
	// Threads, as many, which the Model keeps.
	slab  []tstate
	tslab []Thread
	// bodies: the tstates' bodies given back by the threads retired, for
	// the next threads (takeBody); bodySlab: bodies not handed out yet.
	bodies   []*tbody
	bodySlab []tbody
	// orders: the index in Model.LockOrders of each distinct one
	// (orderKey), so that a nesting made a million times is one.
	orders map[string]int
	// orderFree: a LockOrder sealed as one already there (sealOrder), its
	// Held's array for the next (monitorHeld): the orders made and let go
	// at once were 193 MB of ten minutes of a loaded Tomcat's 1.66 GB
	// allocated (ordersTaken counts them, for the tests). orderKey:
	// sealOrder's key, made again in place.
	orderFree   *LockOrder
	ordersTaken int
	orderKey    []byte
	// objs: what the fold knows of each object (objFold): its class and
	// its locks; lastObj and lastFold, the one asked for last.
	objs     *probeTab[*objFold]
	objSlab  *slab[objFold]
	objFree  freeList[objFold] // the entries forget let go, for the next objects
	nobjs    int32             // the objects numbered (objFold.num)
	objNear  [objSlots]objNear // objFind's
	lastObj  format.ObjectID
	lastFold *objFold
	stacks   stackTable
	first    bool
	// Pending ThreadStart edges, completed when the target appears: a
	// target's until its ThreadStarted (tstate.started says a thread had
	// its ThreadStart: a map of every thread ever started was 31 MB of
	// c5G-slow5's fold's end).
	starts map[format.ThreadID]int // target -> index in b.edges
	// Joins that returned before the line of their target's ThreadEnded
	// was read (two flushes interleave): the edge is made at ThreadEnded.
	joins map[format.ThreadID][]pendingJoin
	wf    waitFor
	// unparks: the latest unpark of each thread not yet matched to the
	// end of one of its parks (a permit: the next park consumes it).
	unparks map[format.ThreadID]pendingUnpark
	// alias: the ID of the thread an identity hash names now, where a
	// thread started with the hash of one that had ended (Builder.reuse).
	alias map[format.ThreadID]format.ThreadID
	// heldBy: the holder of each monitor a MonitorOwned line named (and
	// when), until the monitor changes hands (Builder.owned).
	heldBy map[format.ObjectID]held
	// condBits: a bit for each object Model.Conditions names, by
	// condBit (a filter: most parks' objects are no condition, told
	// without the map's look-up, which was 2 % of a push's CPU).
	condBits [condBits / 64]uint64
	// condGen numbers the conditions and j.u.c. locks known: one more
	// for each new one (blockerCondition; from 1, a new lock's is 0).
	condGen uint32
	// idle, when set (Build), tells a park of an idle pool worker by its
	// stack (IdleStack); idleOf caches it per stack.
	idle   func([]format.Frame) bool
	idleOf stackCache
	// idleWait, when set (Build), tells an Object.wait of a thread waiting
	// for work by its stack (IdleWaitStack), for Model.IdleWaits;
	// idleWaitOf caches it per stack.
	idleWait   func([]format.Frame) bool
	idleWaitOf stackCache
	// acquire, when set (Build), tells a park in a lock's acquire by its
	// stack (AcquireStack); acquireOf caches it per stack.
	acquire   func([]format.Frame) bool
	acquireOf stackCache
	// shared, when set (Build), tells a park in a shared acquire by its
	// stack (SharedAcquireStack); sharedOf caches it per stack.
	shared   func([]format.Frame) bool
	sharedOf stackCache
	// untimed, when set (Build), tells an Object.wait() by its stack
	// (UntimedWait); untimedOf caches it per stack.
	untimed   func([]format.Frame) bool
	untimedOf stackCache
	// waitTimeouts: every timed wait has its ObjectWaitTimeout line (.info
	// wait_timeouts=yes), so a wait without one is untimed.
	waitTimeouts bool
	// beforeEvents: the agent wrote Enters just before their Entered for
	// threads blocked before the events were on (.info
	// owner_unknown.before_events): its 1 ns contentions are those.
	beforeEvents bool
	// take, when set (Build), tells a consumer's park in a queue's take or
	// poll (TakeStack), which is Idle; takeOf caches it per stack.
	take   func([]format.Frame) bool
	takeOf stackCache
	// shutdown, when set (Build), tells a stack of the JVM's shutdown
	// (ShutdownStack), for Model.Shutdown.
	shutdown func([]format.Frame) bool
	// ext, when set (Build), numbers the stacks instead of b.stacks: the
	// events carry their number in it (reader.Event.StackID).
	ext *reader.StackTable
	// line, when set (Build), names a frame by its source line ("" when
	// unknown), so that Finalize groups call sites by line.
	line func(format.Frame) string
	// The locks' figures are summed as the events come (seal,
	// docs/streaming.md): ag sums the sealed intervals of the threads in
	// feeding, every sealEvery events; sites groups the stacks seen so far
	// by call site for it.
	ag        *aggregator
	deadLocks int // dormant blockers' Locks still in Model.Locks (dropDead)
	// lockFree: the dormant blockers' Locks dropDead took out of
	// Model.Locks; lsFree: their fold states, let go by sleep; for the
	// next locks (Builder.lock).
	lockFree freeList[Lock]
	lsFree   freeList[lstate]
	// dormObjs: the record of each dormant blocker whose object the fold
	// has no entry of (objs; Builder.forget), by object.
	dormObjs  recTab
	sites     *siteGrouper
	feeding   []*tstate
	sealEvery int
	untilSeal int
	// splitting: the threads with ThreadCPU windows to split at the next
	// seal (splitWindows); splitDue: those whose next window is due
	// later, by the time it is due.
	splitting []*tstate
	splitDue  dueHeap

	// noLockFigures: ag sums nothing (Options.NoLockFigures).
	noLockFigures bool
	// noRunSplit: no thread's windows are split (Options.NoRunSplit).
	noRunSplit bool
	// noThreadTimes: no thread's intervals are fed (Options.NoThreadTimes).
	noThreadTimes bool
	// noWaitGraph: the wait-for graph is not kept (Options.NoWaitGraph).
	noWaitGraph bool
	// noParkLocks: the parks' locks are not kept (Options.NoParkLocks):
	// a park's state has no lstate (openIv.ls nil).
	noParkLocks bool
	// spill, when set (Options.Spill), takes the intervals as they are
	// sealed, and the samples at Finalize (spill.go).
	spill *spillFile
	// dropIntervals: Finalize sets Thread.Intervals nil, thread by
	// thread, once they are in the spill (Options.DropIntervals); lost:
	// the spill failed after that, and Build with it.
	dropIntervals bool
	// ownSparse: the owner changes given up are only those a reader reads
	// (Options.SpansFromLogs; giveChanges).
	ownSparse bool
	// packThreads: Options.PackThreads; packBuf its scratch.
	packThreads bool
	packBuf     []byte
	lost        error
	// gaveUp: some thread's intervals were given up during the fold
	// (release): the spill alone has them. held counts the intervals the
	// threads' lists hold, Model.PeakIntervals its most.
	gaveUp bool
	held   int
	// heldSamples counts the samples the threads hold, Model.PeakSamples
	// its most.
	heldSamples int
	// ending: the threads that ended, to be finished (retire) once the
	// fold is sealMargin past their end.
	ending []*tstate
	// owning: the locks with owner changes in memory, which
	// releaseChanges gives up to the spill once no contention still to be
	// folded reads them (Options.DropIntervals).
	owning []*lstate
	// handing: the j.u.c. locks with hand-offs in memory, which
	// releaseHandOffs gives up to the spill once no park still to be
	// aggregated reads them (Options.DropIntervals).
	handing     []*lstate
	heldChanges int // the owner changes in memory, Model.PeakOwnerChanges their most
	// spillBuf: the room a window split again reads its intervals back
	// into (ivsFrom).
	spillBuf []Interval
	// ivPack: the intervals spillFed packs; ivRead: the packed bytes
	// readSpilled reads back.
	ivPack, ivRead []byte
	// tailBuf: the block the threads' tails are packed into, after those
	// packed so far (keepTail); tailScratch: a tail packed before.
	// listBuf: the block the threads' lists of spill blocks are kept in
	// (keep), apart from the tails.
	tailBuf, tailScratch, listBuf []byte
	// shutAt: the start of the first state of a thread at a stack of the
	// JVM's shutdown (findShutdown), noted as its intervals are fed.
	shutAt map[format.ThreadID]format.Time
	// stackMark, when set (Options.StackMark), marks the stacks of the
	// intervals fed into their thread's StackMarks; bits caches, per
	// stack, whether it is one of the shutdown and its mark (stackBits).
	stackMark func([]format.Frame) uint8
	bits      []stackBits
}

// stackBits is what the fold notes of a stack: its mark
// (Options.StackMark), and whether it is one of the shutdown.
type stackBits struct {
	known, shut bool
	mark        uint8
}

// sealMargin is how far behind the fold's latest time the windows between
// ThreadCPU lines are split: a sample is written up to a flush period
// after lines of later times (docs/format.md, "Order"). One that comes
// later still has its window split again (winState.late): the margin
// saves that work, it does not decide the figures. A variable: the
// model's tests split at once (export_test.go).
var sealMargin = format.Time(2e9)

// sealEvery is how many events the fold takes between two seals: a
// variable, as the model's own tests seal after every event
// (export_test.go), so that every case and fuzz input checks that summing
// as the fold goes gives the figures of summing at the end
// (modeltest.Validate).
var sealEvery = 1 << 16

// SetSealEveryEvent makes every fold seal after each event, with no
// margin, and give up to the spill at once what it gives up in batches
// (samples, windows, blame logs, hand-offs, late entries), and the
// holders' passes read a thread of more than two intervals by pieces
// (ivPiece), and returns a func that restores them: for the tests of the packages that read a
// spilled model (the exports, the viewer), whose small recordings would
// otherwise be sealed once, at the end, so that what the fold gives up as
// it goes, and its readers, would go untried. The model's own tests run
// so always (export_test.go).
func SetSealEveryEvent() (restore func()) {
	s, m, sb, lc, bb, wb, hb := sealEvery, sealMargin, sampleBatch, lateCompactMin, blameBatch, winBatch, handOffBatch
	sealEvery, sealMargin, sampleBatch, lateCompactMin, blameBatch, winBatch, handOffBatch = 1, 0, 1, 1, 1, 1, 1
	pieces := SetIvPiece(2)
	return func() {
		sealEvery, sealMargin, sampleBatch, lateCompactMin, blameBatch, winBatch, handOffBatch = s, m, sb, lc, bb, wb, hb
		pieces()
	}
}

type pendingUnpark struct {
	by format.ThreadID
	at format.Time
	// passed: by unparked in its own shared acquire of lock passedOn, just
	// after passed's release had let it in (tbody.acqEnd): it passed the
	// wake-up on (a read lock's readers, StampedLock's), released nothing.
	passed   format.ThreadID
	passedOn format.ObjectID
}

// acqEnd is the end of a thread's park in a shared acquire of the lock obj
// at at, let in by by's release.
type acqEnd struct {
	obj format.ObjectID
	by  format.ThreadID
	at  format.Time
}

type pendingJoin struct {
	by format.ThreadID
	at format.Time // the ThreadJoined
}

// tstate is a thread being folded. The Thread is in it, not pointed to:
// each event touches both.
type tstate struct {
	// What every event of the thread reads is in one cache line (a
	// tstate is 64 bytes, in slabs):
	// consecutive events are of different threads three times in four
	// (the 128 MB synthetic recording), and a Thread's own fields, read
	// there, were a miss of the cache each (Event: t.Ended, t.Sched).
	// id, start, ended and events are t.ID, t.Start, t.Ended and
	// t.Events (the last written to t by Finalize).
	//
	// tp, its Thread, is in a slab of Threads of its own
	// (Builder.tslab), which the Model keeps after Finalize, not the
	// fold's state around it; with Options.PackThreads one of its own,
	// nil while it is packed (a thread retired: packRetired): the fold
	// reads it through Builder.tOf, which unpacks it.
	tp *Thread
	id format.ThreadID
	// body: its intervals until Finalize puts them in t, its windows'
	// split, its aggregation, the stack of its states (open) and what a
	// thread in a state keeps (tbody), which a thread retired gives back
	// (retire) and revive takes again: ~280 000 threads at 1 GB, a few
	// thousand alive at once. A retired thread's is restBody, never
	// written: in no state, waiting for no one. What revive needs of the
	// body given back is in the spill (restState), not here: a tstate for
	// every thread ever seen (1.33 M at 5 GB) is one cache line, 64 bytes,
	// not 128.
	body *tbody
	last format.Time // time of its latest event, when seen
	// floor is the end of its latest segment. Another thread's event can
	// split a segment later than this thread's next line (lines of two
	// threads may be out of order by a little); that line is folded at
	// floor so segments never overlap.
	floor  format.Time
	start  format.Time
	events int
	num    uint32 // numbers the threads from 0 in order of appearance
	seen   bool   // it has had an event of its own
	// started: it has had a ThreadStart (Builder.starts).
	started bool
	ended   bool
	// retired: it was finished as the fold went (retire), its intervals
	// and samples in the spill alone.
	retired bool
}

// restState is what a thread's body holds that outlives it while the
// thread is retired (giveBody): written to the spill as a block of the
// thread's (spillRest), read back by revive (takeBody), so that the
// tstate of every thread ever seen need not hold it.
type restState struct {
	// ivBase, ivPrev, ivUnsorted: what the thread keeps of ivs (revive
	// adds after them).
	ivBase int
	ivPrev format.Time
	// fed, spilt, busy, schedAt: as tbody's.
	fed, spilt int
	busy       format.Time
	schedAt    format.Time
	// blameLast: its blame log's last start, its Thread's threadFold let
	// go (Thread.unfold).
	blameLast  format.Time
	ivUnsorted bool
	// The tstate's own fields, as it retired: a thread let go (letGo)
	// is made again from them (wakeThread) when nothing held its tstate.
	start, last, floor     format.Time
	events                 int
	seen, started, isEnded bool
}

// newRest is the restState of a thread first seen: no scheduler time.
var newRest = restState{schedAt: math.MinInt64}

// tbody is the part of a tstate that only a thread not retired needs
// (the tstate alone: 64 bytes, 1.33 M threads at 5 GB; a few thousand
// bodies): Builder.bodies recycles those of the threads retired. A
// thread's own lines alone read its fields after the state it opened
// (open, wf, …): a retired thread's are at rest (retire), and its lines
// after its end are a problem, but for its exit's, which revive brings it
// back for, and which set them again.
type tbody struct {
	openBuf [2]openIv
	// fed: the first of its intervals fed to its aggregation (agg,
	// Builder.seal); spilt: the first written to the spill (of the fed
	// ones: spillFed); busy: the length of the intervals fed; schedAt:
	// the time of t.Sched's last, math.MinInt64 for none. A retired
	// thread keeps them in the spill (restState).
	fed     int
	spilt   int
	busy    format.Time
	schedAt format.Time
	// feeding: it is in Builder.feeding; ending: in Builder.ending.
	feeding, ending bool
	// open is the stack of states the thread is in, innermost last (a
	// Joining thread can block on the Thread's monitor: Joining ⊃ Blocked).
	// It starts in openBuf. In the body, not the tstate, as the fields
	// below: a retired thread has none (a tstate for every thread ever
	// seen, 1.33 M at 5 GB: 128 bytes, not 192).
	open []openIv
	// smpGiven: its first samples given up to the spill while it lives
	// (releaseSamples), the last of them at smpLast; all of them read
	// back when a retired thread is brought back (revive).
	smpGiven int
	smpLast  format.Time
	// lentGiven: the first of t.lent given up so, the last at lentLast
	// (a retired thread's, all of them, are in its spill's spillLent
	// blocks: revive reads them back).
	lentGiven int
	lentLast  format.Time
	// wf: what it waits for (see waitFor): tstate.waits for a thread
	// that may be retired.
	wf wfEdge
	// parkNest counts parks inside a state that already says why the
	// thread waits (a Semaphore.acquire, a Thread.join): not intervals.
	parkNest int
	// timedAt: the time of an ObjectWaitTimeout line read before its
	// ObjectWait (the wait that begins then is timed); -1 for none.
	timedAt format.Time
	// lateEntered: a contention on this monitor ended at lateAt by the
	// thread's next line (push), before its MonitorContendedEntered, which
	// is then expected a little later.
	lateAt      format.Time
	lateEntered format.ObjectID
	// enterAt, enterObj, enterStack, enterMode: its latest contended enter
	// (or park in a synchronizer's acquire: enterMode its mode), which the
	// MonitorHeld and LockHeld lines at its time complete into order
	// (lockorder.go), kept until its next one or the end.
	enterObj   format.ObjectID
	enterAt    format.Time
	enterStack StackID
	enterMode  format.AcquireMode
	parkHow    format.ParkEnd // how the park being ended ended (ThreadUnparked)
	// unpark: its latest unpark not yet matched to the end of one of its
	// parks, when hasUnpark (Builder.unparks holds those of the threads
	// without a body: a map's look-up, store and delete a park were 2 %
	// of a push's CPU).
	unpark    pendingUnpark
	hasUnpark bool
	// parkShared: the park open is in a shared acquire of a lock (a read
	// lock's, StampedLock's readLock); acqEnd: its latest park in a shared
	// acquire, ended by the release of acqEnd.by, kept until it opens
	// another state (push): a thread that unparks another on that lock in
	// between passes the wake-up on (pendingUnpark.passed).
	parkShared bool
	acqEnd     acqEnd
	// inits: the class initialisations it waited on (ClassInitWaited),
	// every one since it was first seen when initsAll (a thread brought
	// back has lost those of before: Builder.classInit then asks the
	// class's waiters). A thread waits on a few: these are the sets of
	// the class's waiters, which were a slot of 8 to 16 bytes for every
	// thread ever seen (16 MB of c5G-slow5's fold's live peak).
	inits    []*ClassInit
	initsAll bool
	order    *LockOrder
	ivs      ivList
	// win: how far its windows between ThreadCPU lines are split.
	win winState
	// agg: the aggregation of its intervals (Builder.seal).
	agg threadAgg
	// tail: its spill list's last block when spillFed last added one.
	tail spillTail
}

// waits is what ts waits for (tbody.wf): nothing, for a thread retired;
// to be read, not written (a retired thread's is restBody's). A pointer:
// a copy of the edge, 40 bytes, was made for the one field asked.
func (ts *tstate) waits() *wfEdge { return &ts.body.wf }

// takeBody gives ts a body, recycled when one was given back: open
// empty, no intervals after rs.ivBase, no window split; rs is what it kept
// while retired (newRest for a thread first seen).
func (b *Builder) takeBody(ts *tstate, rs *restState) {
	var bd *tbody
	if n := len(b.bodies); n > 0 {
		bd = b.bodies[n-1]
		b.bodies[n-1] = nil
		b.bodies = b.bodies[:n-1]
	} else {
		if len(b.bodySlab) == 0 {
			b.bodySlab = make([]tbody, min(max(len(b.th.byNum), 1), 256))
		}
		bd = &b.bodySlab[0]
		b.bodySlab = b.bodySlab[1:]
	}
	bd.wf, bd.parkNest, bd.timedAt, bd.lateAt, bd.lateEntered = wfEdge{}, 0, -1, 0, 0
	bd.enterObj, bd.enterAt, bd.enterStack, bd.enterMode, bd.parkHow = 0, 0, 0, 0, 0
	bd.hasUnpark, bd.parkShared, bd.acqEnd = false, false, acqEnd{}
	bd.smpGiven, bd.smpLast, bd.lentGiven, bd.lentLast = 0, 0, 0, 0
	bd.fed, bd.spilt, bd.busy, bd.schedAt = rs.fed, rs.spilt, rs.busy, rs.schedAt
	bd.feeding, bd.ending = false, false
	clear(bd.inits) // their pointers
	bd.inits, bd.initsAll = bd.inits[:0], rs == &newRest
	bd.ivs = ivList{base: rs.ivBase, unsorted: rs.ivUnsorted, prev: rs.ivPrev}
	bd.win = winState{late: math.MaxInt64, gaveEnd: math.MinInt64, maxEnd: math.MinInt64}
	if b.tOf(ts).fold == nil {
		// Its blame log's last start, kept while it had none (retire).
		b.tOf(ts).folding().blame.last = rs.blameLast
	}
	bd.agg = threadAgg{id: ts.id, blame: &b.tOf(ts).fold.blame, acq: bd.agg.acq[:0], juc: bd.agg.juc[:0], firsts: bd.agg.firsts[:0]}
	bd.open = bd.openBuf[:0]
	bd.tail = spillTail{}
	ts.body = bd
}

// giveBody takes back the body of ts, retired: in no state (waiting for
// no one), its intervals given up (finishThread), its windows split, its
// lock order in progress sealed. What revive needs of it goes to the
// spill (restState), a block of its list the last, and the list, complete
// but for a thread brought back, is kept (keep): Finalize drops that
// block in place (~4 bytes of every thread ever seen left in the blocks
// of lists to the report's end; a list kept only at Finalize was the
// rounding and the room of its appends until then, 38 MB at c5G-slow5's
// fold's end, its live peak).
func (b *Builder) giveBody(ts *tstate) {
	b.sealOrder(ts)
	bd := ts.body
	if bd.hasUnpark {
		b.unparks[ts.id] = bd.unpark
	}
	t := b.tOf(ts)
	rs := [1]restState{{ivBase: bd.ivs.base, ivPrev: bd.ivs.prev, ivUnsorted: bd.ivs.unsorted,
		fed: bd.fed, spilt: bd.spilt, busy: bd.busy, schedAt: bd.schedAt, blameLast: t.unfold(),
		start: ts.start, last: ts.last, floor: ts.floor, events: ts.events,
		seen: ts.seen, started: ts.started, isEnded: ts.ended}}
	b.spill.addTo(&t.spill, spillRest, bytesOf(rs[:]))
	t.spill.set(b.keep(t.spill.bytes()))
	bd.openBuf = [2]openIv{} // its pointers
	bd.ivs, bd.win.marks, bd.open, bd.tail = ivList{}, nil, nil, spillTail{}
	ts.body = &restBody
	b.bodies = append(b.bodies, bd)
}

// dropLive drops the blocks of kind k from the list of ts, which has a
// body: the list's last block is found anew at its next spillFed (a drop
// shortens the list in place, and appends of other kinds could make it
// as long again).
func (b *Builder) dropLive(ts *tstate, k spillKind) {
	b.tOf(ts).spill.drop(k)
	ts.body.tail = spillTail{}
}

// unrest reads back what ts, retired, kept of its body (giveBody), and
// drops it from the spill's list.
func (b *Builder) unrest(ts *tstate) *restState {
	rs, err := spillRead(b.spill, b.tOf(ts).spill.of(spillRest), []restState(nil))
	if err != nil {
		panic(&SpillError{err})
	}
	if len(rs) != 1 {
		panic(&SpillError{fmt.Errorf("thread %v: %d records of its state at rest in the spill, want 1", ts.id, len(rs))})
	}
	b.tOf(ts).spill.drop(spillRest)
	return &rs[0]
}

// restBody is the body of every thread retired (giveBody): read, never
// written (in no state, waiting for no one, no unpark, no lock order).
var restBody tbody

// A tstate is 64 bytes, one cache line in a slab, checked here (a
// compile error otherwise: the index is out of range). A field more
// belongs in its body (tbody), and in restState when a retired thread
// must keep it.
var _ = [1]struct{}{}[unsafe.Sizeof(tstate{})-64]

type openIv struct {
	// iv.Since is when the state began; iv.Start is where its current
	// segment begins (it moves when the state is split).
	iv Interval
	// ls is the lock of a Blocked, Waiting or Acquiring state, so that
	// its end need not look it up.
	ls *lstate
	// other is the tstate of the thread a Blocked, Joining or acquiring
	// Parked state waits for (waitee: the monitor's current owner, the
	// joined thread, the j.u.c. lock's owner; nil when unknown), for the
	// wait-for graph.
	other *tstate
	// Blocked: since when the thread waits for its current owner (where
	// its span in Model.OwnerSpans begins).
	spanStart format.Time
	// Blocked: named, since namedAt, when another thread blocked on the
	// monitor named this one its owner (its Entered is late): its span
	// in Model.OwnerSpans from then names no one, whatever iv.Other says
	// (newOwner).
	named   bool
	namedAt format.Time
	// Waiting: the notify tokens this wait can consume start after this.
	seq  int
	segs int // segments emitted so far
}

// New returns an empty Builder.
func New() *Builder {
	b := &Builder{
		condGen: 1,
		m: &Model{
			byObject: map[lockKey]*Lock{},
			Stacks:   [][]format.Frame{nil},
		},
		th:        &foldIndex{},
		objs:      &probeTab[*objFold]{},
		stacks:    newStackTable(),
		starts:    map[format.ThreadID]int{},
		joins:     map[format.ThreadID][]pendingJoin{},
		unparks:   map[format.ThreadID]pendingUnpark{},
		heldBy:    map[format.ObjectID]held{},
		alias:     map[format.ThreadID]format.ThreadID{},
		first:     true,
		shutAt:    map[format.ThreadID]format.Time{},
		wf:        newWaitFor(),
		ivFree:    &ivFree{},
		sealEvery: sealEvery,
		untilSeal: sealEvery,
	}
	b.m.foldTh, b.m.foldObjs = b.th, b.objs
	b.ag = &aggregator{m: b.m, by: map[uint64]*lockAgg{}, all: true, inPlace: true, early: true, fold: b}
	if !noDormant {
		b.ag.recs = newBlkRecs(b) // dormant blockers (dormant.go)
	}
	return b
}

func (b *Builder) problem(ev *reader.Event, format string, args ...any) {
	if len(b.m.Problems) < 1000 {
		b.m.Problems = append(b.m.Problems, fmt.Sprintf("line %d: %s: ", ev.Line, ev.Kind)+fmt.Sprintf(format, args...))
	}
}

// thread returns the thread id, creating it as first seen at at (by its
// own event or as another event's owner, target or joined thread). It
// looks in near first: one load and a compare, not a look-up in th
// (a thread's lines rarely follow each other: three in four are of
// another thread than the line before, in the 128 MB synthetic
// recording; an owner, a target, a joined thread are looked up the same
// way).
func (b *Builder) thread(id format.ThreadID, at format.Time) *tstate {
	if b.lastThread != nil && b.lastThread.id == id {
		return b.lastThread
	}
	if b.near == nil {
		b.near = make([]*tstate, nearSlots)
	}
	slot := &b.near[nearSlot(id)]
	if ts := *slot; ts != nil && ts.id == id {
		b.lastThread = ts
		return ts
	}
	ts, n := b.th.find(id)
	if ts == nil && n >= 0 {
		ts = b.wakeThread(n)
	}
	if ts == nil {
		if b.packThreads {
			// One of its own, let go once retired and packed (letGo).
			ts = new(tstate)
		} else if len(b.slab) == 0 {
			n := min(max(len(b.th.byNum), 1), threadSlab)
			b.slab = make([]tstate, n)
			if !b.packThreads {
				b.tslab = make([]Thread, n)
			}
		}
		// Zero already: its fields set one by one (a whole tstate
		// assigned was a copy of 1 kB through the write barrier).
		if !b.packThreads {
			ts = &b.slab[0]
			b.slab = b.slab[1:]
		}
		if b.packThreads {
			// One of its own: packed as it retires, it is let go, where
			// one in a slab was kept for the slab's others alive.
			ts.tp = new(Thread)
		} else {
			ts.tp = &b.tslab[0]
			b.tslab = b.tslab[1:]
		}
		ts.tp.ID = id
		ts.id, ts.tp.Start, ts.num = id, at, uint32(len(b.m.Threads))
		ts.id, ts.start = id, at
		b.takeBody(ts, &newRest)
		if b.ivsWas != nil {
			ts.body.ivs.hint = b.ivsWas[id]
		}
		b.th.add(ts)
		b.m.Threads = append(b.m.Threads, ts.tp)
	}
	*slot = ts
	b.lastThread = ts
	return ts
}

// threadSlab is how many Threads (and tstates) a slab of Builder.thread
// holds once the threads are many: a slab is larger than 32 kB, so an
// allocation of whole pages of 8 kB, and as many as make whole pages
// (512 Threads of 304 bytes: 19 pages), not 256, which were 77 824 bytes
// in 81 920: 5 % of the Threads kept to the report's end (1.33 M
// threads at 5 GB: ~20 MB).
var threadSlab = slabOfPages(int(unsafe.Sizeof(Thread{})), 256)

// slabOfPages returns the fewest elements of size bytes, at least lo,
// that fill whole pages of 8 kB.
func slabOfPages(size, lo int) int {
	const page = 8 << 10
	a, b := size, page
	for b != 0 {
		a, b = b, a%b
	}
	n := page / a // size*n is a multiple of page
	return (lo + n - 1) / n * n
}

// known returns the thread id, nil when none was seen: as thread, without
// creating it.
func (b *Builder) known(id format.ThreadID) *tstate {
	if b.near != nil {
		if ts := b.near[nearSlot(id)]; ts != nil && ts.id == id {
			return ts
		}
	}
	ts, n := b.th.find(id)
	if ts == nil && n >= 0 {
		ts = b.wakeThread(n)
	}
	return ts
}

// letGo lets go of ts, retired and packed: the fold's index keeps a weak
// pointer to it (foldIndex.wk), its fields are in its state at rest
// (restState, giveBody). What still holds it — a semaphore's kept
// release, another thread's open state that waits for it, heldBy, a
// stale entry of splitDue — keeps it the thread's (wakeThread finds the same
// tstate again, so a comparison of pointers is as before); what holds it
// no more lets the collector have it. None of those changes its fields;
// the wait-for graph's maps do (floor), so a thread they hold is kept
// (waitFor.holds).
func (b *Builder) letGo(ts *tstate) {
	if b.wf.holds(ts) {
		return
	}
	x := b.th
	if x.ids == nil {
		x.ids = &b.m.packed.ids
	}
	x.keepWeak(ts)
	x.byNum[ts.num] = nil
	if b.lastThread == ts {
		b.lastThread = nil
	}
	if b.near != nil {
		if s := &b.near[nearSlot(ts.id)]; *s == ts {
			*s = nil
		}
	}
	for i, d := range b.dense {
		if d == ts {
			b.dense[i] = nil
		}
	}
	b.m.LetGoThreads++
}

// wakeThread returns the thread of number n, let go (letGo): its tstate when
// something still held it, else one made again from its state at rest,
// the same fields (tstate has none but those). Either is the index's
// again until the end.
func (b *Builder) wakeThread(n int) *tstate {
	x := b.th
	if wakeGC {
		runtime.GC()
	}
	ts := x.weakOf(n)
	if ts == nil || checkWake {
		t := b.m.ThreadAt(n)
		if err := b.spill.flush(); err != nil {
			panic(&SpillError{err})
		}
		rs, err := spillRead(b.spill, t.spill.of(spillRest), []restState(nil))
		if err != nil {
			panic(&SpillError{err})
		}
		if len(rs) != 1 {
			panic(&SpillError{fmt.Errorf("thread %v: %d records of its state at rest in the spill, want 1", t.ID, len(rs))})
		}
		r := &rs[0]
		w := &tstate{id: t.ID, body: &restBody, last: r.last, floor: r.floor, start: r.start,
			events: r.events, num: uint32(n), seen: r.seen, started: r.started, ended: r.isEnded, retired: true}
		if ts == nil {
			ts = w
			b.m.WokenThreads++
		} else if *ts != *w {
			panic(fmt.Sprintf("thread %v let go: %+v, made again %+v", t.ID, *ts, *w))
		}
	}
	x.byNum[n] = ts
	return ts
}

// checkWake has wakeThread make a thread let go again from its state at rest
// even when its tstate is still held, and compare the two (the tests).
var checkWake = false

// wakeGC has wakeThread collect the garbage first (the tests: a tstate
// nothing holds is then made again).
var wakeGC = false

// threadOf returns the thread of ev's line (thread).
func (b *Builder) threadOf(ev *reader.Event) *tstate { return b.thread(ev.Thread, ev.Time) }

// nearSlots is the size of Builder.near, a cache of the threads by their
// ID's hash: the threads alive at once hold a few thousand slots at most,
// the ended ones are overwritten.
const nearSlots = 1 << 16

// nearSlot returns the slot of Builder.near for id: its identity hash
// (random, HotSpot's default) and rank mixed.
func nearSlot(id format.ThreadID) uint32 {
	return (uint32(id) ^ uint32(id>>32)*0x9E3779B1) & (nearSlots - 1)
}

// CutAt says the recording was cut at at (0: at its last event) because
// of reason; call it before the first Event. Later events are counted in
// Model.Cut.After, not folded.
func (b *Builder) CutAt(at format.Time, reason string) {
	b.m.Cut = &Cut{At: at, Reason: reason}
}

// StoppedAt says the recording was stopped at at while the JVM went on
// (orca record --pid): it lasted to then, whatever its last event, and a
// state still open was still on at that time.
func (b *Builder) StoppedAt(at format.Time) { b.stoppedAt = at }

// NameAfter says the events folded are a time range's that ends at to:
// an event after it is a ThreadStarted that gives the name of a thread
// the range started (reader.EachOptions.Span), and only that is taken
// of it.
func (b *Builder) NameAfter(to format.Time) { b.rangeTo = to }

// Event folds one event. Events must come in file order.
func (b *Builder) Event(ev *reader.Event) { b.event(ev, -1) }

// event is Event of an event whose thread has the dense number d in the
// reader's Columns (-1: none): its thread is found by it in dense, a
// slice, not by its ID in near or th (a cold miss an event).
func (b *Builder) event(ev *reader.Event, d int) {
	m := b.m
	if b.rangeTo != 0 && ev.Time > b.rangeTo {
		if ev.Kind == format.ThreadStarted {
			if ts := b.known(ev.Thread); ts != nil && ts.started && !ts.seen {
				b.tOf(ts).Name = ev.Name
			}
		}
		return
	}
	if m.Cut != nil && m.Cut.At != 0 && ev.Time > m.Cut.At {
		m.Cut.After++
		return
	}
	m.Events++
	if b.untilSeal--; b.untilSeal <= 0 {
		b.untilSeal = b.sealEvery
		b.seal()
	}
	switch {
	case b.first:
		m.Start, m.End, b.first = ev.Time, ev.Time, false
	case ev.Time < m.Start:
		m.Start = ev.Time // not after m.End either
	case ev.Time > m.End:
		m.End = ev.Time
	}
	if ev.Thread == 0 || ev.Object == 0 && ev.Kind.Has(format.FObject) && ev.Kind != format.ThreadPark && ev.Kind != format.ThreadUnparked {
		// No identity hash is 0: 00000000 stands for "unknown".
		b.problem(ev, "thread %v, object %v: 00000000 names no thread or object", ev.Thread, ev.Object)
		return
	}
	switch ev.Kind {
	case format.ThreadStarted:
		b.reuse(ev.Thread)
	case format.ThreadStart:
		b.reuse(ev.Target)
	}
	if len(b.alias) > 0 {
		ev = b.aliased(ev)
	}
	var ts *tstate
	if d >= 0 {
		if d < len(b.dense) {
			if c := b.dense[d]; c != nil && c.id == ev.Thread {
				ts = c // its ID unchanged: not a thread's again (reuse, aliased)
			}
		}
		if ts == nil {
			ts = b.threadOf(ev)
			for d >= len(b.dense) {
				b.dense = append(b.dense, nil)
			}
			b.dense[d] = ts
		}
	} else {
		ts = b.threadOf(ev)
	}
	t := b.tOf(ts)
	ts.events++
	if ts.ended {
		// After posting ThreadEnd, HotSpot's thread exit (ensure_join) locks
		// the Thread object to notify its joiners, and can block on it (the
		// starter may still be in synchronized Thread.start): the thread
		// lives until then. Nothing else may follow; an identity hash
		// shared by two threads looks like this.
		// The ObjectClass line of that enter names the Thread object's class.
		exit := (ev.Kind == format.MonitorContendedEnter || ev.Kind == format.MonitorContendedEntered ||
			ev.Kind == format.ObjectClass) && uint32(ev.Object) == uint32(ev.Thread)
		if ts.retired && (exit || ev.Kind == format.Sample && ev.Time <= t.End) {
			b.revive(ts)
		}
		if ev.Kind == format.Sample && ev.Time <= t.End {
			// A sample taken before the end and written after its line
			// (docs/format.md, "Order"): an instant of the thread's life.
			b.sample(ts, max(ev.Time, ts.start), ev.Sampled, ev.Weight, b.stackOf(ev))
			return
		}
		if !exit {
			b.problem(ev, "event after ThreadEnded of %v", ev.Thread)
			return
		}
		t.End = max(t.End, ev.Time, ts.last)
	}
	if ev.Kind == format.Sample && ts.seen {
		// A sample is an instant of the thread, not a change of its state,
		// and does not move the thread's clock: one the agent wrote ahead
		// of a line of its thread that it held back (a wait's deferred
		// record, when its writer's carry was full: .info written_early)
		// keeps its own time, and the line held back is not out of order.
		// The thread's samples are put in order at the end (finalize.go).
		b.sample(ts, max(ev.Time, ts.start), ev.Sampled, ev.Weight, b.stackOf(ev))
		return
	}
	if ev.Kind == format.ThreadCPU && ts.seen {
		// A thread's scheduler times are an instant of it too, and do not
		// move its clock: the agent's writer reads them every
		// thread_cpu_period_ms, not the thread, and its line can land
		// before one the thread stamped earlier and committed after it
		// (preempted in between: seen 12 ms behind, TestFrameCache at
		// load 30). That line is then not out of order; a window between
		// ThreadCPU lines already split past it is split again
		// (splitWindows, lateSample).
		at := max(ev.Time, ts.start, ts.body.schedAt) // the windows follow each other
		if !b.schedTime(ts, at, ev.CPU, ev.Ready) {
			b.problem(ev, "cpu %d, ready %d: less than the thread's previous line's", ev.CPU, ev.Ready)
		}
		return
	}
	if ts.seen && ev.Time < ts.last {
		// Lines of one thread are always in order; fold this one at the
		// thread's latest time so its intervals cannot overlap.
		b.problem(ev, "time goes back %.9fs on thread %v", (ts.last - ev.Time).Seconds(), ev.Thread)
		e := *ev
		e.Time = ts.last
		ev = &e
	}
	if ev.Time < ts.floor {
		e := *ev
		e.Time = ts.floor
		ev = &e
	}
	if ev.Time < ts.body.schedAt {
		// A line behind the thread's latest ThreadCPU line (above): the
		// windows split past it are split again.
		b.lateSample(ts, ev.Time)
	}
	if ev.Kind == format.ThreadStarted && !ts.seen || ev.Time < ts.start {
		t.Start, ts.start = ev.Time, ev.Time
	}
	ts.seen, ts.last = true, ev.Time
	if ev.Kind == format.MonitorContendedEnter || ev.Kind == format.MonitorContendedEntered || ev.Kind == format.ObjectWait {
		// A contention that begins or ends behind the monitor's latest
		// change of hands, folded at it: the intervals already ended on
		// the monitor named its owners up to then (their segments are
		// sealed), and this one must not name another over them. The
		// thread's later lines fold after it, as after a segment (floor);
		// lines of two threads out of order by a little are how a
		// recording is, so no problem is said.
		at := ev.Time
		if ev.Kind != format.ObjectWait {
			if ls := b.lockIf(ev.Object, Monitor); ls != nil {
				at = max(at, ls.clock)
			}
		}
		if n := len(ts.body.open); n > 0 {
			// A thread blocked on a monitor that blocks on another, or
			// waits on this one, had entered it (push): that change of
			// hands too comes no earlier than the monitor's latest.
			// FuzzModelText's virtual-owner-carrier-blocked: D's enter of
			// AA0A, behind B's forced end on AAAA, named D AAAA's owner
			// over B's sealed span for C. An Entered of another monitor
			// ends the contention too (pop, its problem said):
			// entered-other-behind-clock.
			if o := &ts.body.open[n-1]; o.iv.State == Blocked && (ev.Kind != format.ObjectWait || o.iv.Object == ev.Object) {
				at = max(at, o.ls.clock)
			}
		}
		if at > ev.Time {
			e := *ev
			e.Time = at
			ev = &e
			ts.floor = max(ts.floor, e.Time)
		}
	}
	if ts.ended {
		// The exit's line after ThreadEnded, folded later than its time
		// (the thread's floor, the monitor's clock): the thread lives
		// until then, as its interval does (FuzzModelText's
		// 5bcb7daad5c5e5fa: A's block on its Thread object at 1.5001,
		// owned by main, whose lines begin at 6666, waited from then, and
		// its Entered at 1.5003 closed the interval at 6666, after A's end).
		t.End = max(t.End, ev.Time)
	}
	stack := b.stackOf(ev)

	switch ev.Kind {
	case format.ThreadStarted:
		t.Name = ev.Name
		if i, ok := b.starts[ev.Thread]; ok {
			if i >= 0 {
				e := b.edges.at(i)
				e.ToTime = max(t.Start, e.FromTime)
			}
			// A second ThreadStarted would set the same.
			delete(b.starts, ev.Thread)
		}
	case format.ThreadEnded:
		for len(ts.body.open) > 0 {
			b.problem(ev, "thread %v ended while %s", ev.Thread, ts.body.open[len(ts.body.open)-1].iv.State)
			b.end(ts, ev.Time, endForced)
		}
		t.End, t.Ended, ts.ended = ev.Time, true, true
		b.splitSoon(ts) // its last windows end by its end
		if ts.body.smpGiven > 0 && ev.Time < ts.body.smpLast {
			b.unspillSamples(ts) // clamped below
		}
		for i := range t.Samples {
			// A sample is taken while its thread runs, before its end: one
			// later than the end is a clock gone wrong, kept at the end.
			if s := &t.Samples[i]; s.At > ev.Time {
				b.problem(ev, "thread %v has a sample at %.9fs, after its end", ev.Thread, s.At.Seconds())
				s.At = ev.Time
			}
		}
		b.wf.clear(ts, ev.Time, m)
		for _, j := range b.joins[ev.Thread] {
			if j.at >= ev.Time {
				b.edges.add(Edge{Kind: EdgeJoin, From: ev.Thread, To: j.by, FromTime: ev.Time, ToTime: j.at})
			}
		}
		delete(b.joins, ev.Thread)
		if b.dropIntervals && !ts.body.ending {
			ts.body.ending = true
			b.ending = append(b.ending, ts)
		}
	case format.ThreadStart:
		if ev.Target == 0 || ev.Target == ev.Thread {
			b.problem(ev, "thread %v starts thread %v", ev.Thread, ev.Target)
			break
		}
		if tt := b.known(ev.Target); tt != nil && tt.started {
			// Started again while it lives (reuse tells a thread that
			// ended apart): the first start stands.
			b.problem(ev, "thread %v starts thread %v, started by %v before", ev.Thread, ev.Target, b.tOf(b.known(ev.Target)).Parent)
			break
		}
		tt := b.thread(ev.Target, ev.Time)
		b.tOf(tt).Parent, b.tOf(tt).StartedAt, tt.started = ev.Thread, stack, true
		to := ev.Time
		if tt.seen {
			to = max(b.tOf(tt).Start, ev.Time)
		}
		b.starts[ev.Target] = b.edges.add(Edge{Kind: EdgeStart, From: ev.Thread, To: ev.Target, FromTime: ev.Time, ToTime: to})
	case format.ThreadSleep:
		b.push(ts, Interval{Start: ev.Time, State: Sleeping, Stack: stack, Timeout: TimeoutSet}, nil, nil, ev)
	case format.ThreadJoin:
		// A thread that joins itself (Thread.currentThread().join(): a way
		// to wait for the JVM's end) waits for no thread: no target, no
		// wait-for edge, no problem.
		target, self := ev.Target, ev.Target == ev.Thread
		if self {
			target = 0
		}
		var tts *tstate
		if target != 0 {
			tts = b.thread(target, ev.Time)
		}
		from := b.wf.chainFrom(ts, tts, ev.Time)
		o := b.push(ts, Interval{Start: ev.Time, State: Joining, Other: target, Stack: stack, SelfJoin: self}, nil, waitsNow(tts, from, ev.Time), ev)
		b.waitsLate(ts, o, tts, 0, ev.Time, from)
	case format.SemaphoreAcquire:
		ls := b.lock(ev.Object, Semaphore)
		ls.l.Acquires++
		b.push(ts, Interval{Start: ev.Time, State: Acquiring, Object: ev.Object, Stack: stack, Timeout: TimeoutNone}, ls, nil, ev)
	case format.SemaphoreRelease:
		ls := b.lock(ev.Object, Semaphore)
		ls.l.Releases++
		ls.released(ts, ev.Time)
	case format.MonitorContendedEnter:
		b.enterHeld(ts, ev, stack)
		ls := b.lock(ev.Object, Monitor)
		owner := ev.Owner
		if owner == ev.Thread {
			b.problem(ev, "thread %v blocks on monitor %v that it owns", ev.Thread, ev.Object)
			owner = 0
		}
		if owner != 0 && uint32(ev.Object) != uint32(owner) {
			if o := b.known(owner); o != nil && o.ended && o.last < ev.Time {
				b.m.OwnerEnded++ // it holds nothing (Model.OwnerEnded)
				owner = 0
			}
		}
		var ots *tstate
		if owner != 0 {
			ots = b.thread(owner, ev.Time)
		} else if h := b.ownerUnknown(ev.Object, ts); h.ts != nil {
			if h.at > ev.Time {
				// A line behind the MonitorOwned line, whose word holds
				// from its time: the owner is unknown until then, when
				// newOwner names it (another thread blocked here may
				// name another owner before).
				b.push(ts, Interval{Start: ev.Time, State: Blocked, Object: ev.Object, Stack: stack, Timeout: TimeoutNone}, ls, nil, ev)
				ls.block(ts)
				b.newOwner(ls, h.ts, h.at)
				break
			}
			ots, owner = h.ts, h.ts.id
		}
		// The owner's state at this line's time may be past for the fold
		// (waitsFrom); the others blocked here wait for it from then too.
		from := waitsFrom(ots, ev.Time)
		first := owner
		if from > ev.Time {
			// The word on the owner holds from then, for this thread as
			// for the others blocked here (newOwner below): until then it
			// waits for the owner they wait for.
			switch cur := ls.namedOwner(); cur {
			case 0:
			case ev.Thread:
				first = 0 // their word on the owner is stale: unknown
			default:
				first = cur
			}
		}
		// In the wait-for graph, from the states of the threads it waits
		// for, directly or not (chainFrom).
		gfrom := max(from, b.wf.chainFrom(ts, ots, ev.Time))
		o := b.push(ts, Interval{Start: ev.Time, State: Blocked, Object: ev.Object, Other: first, Stack: stack, Timeout: TimeoutNone}, ls, waitsNow(ots, gfrom, ev.Time), ev)
		ls.block(ts)
		b.waitsLate(ts, o, ots, ev.Object, ev.Time, gfrom)
		if ots != nil {
			// The freshest word on who owns the monitor: the threads
			// already blocked on it wait for that one now.
			b.newOwner(ls, ots, from)
		}
	case format.ObjectWait:
		ls := b.lock(ev.Object, Monitor)
		b.changedHands(ev.Object, ts)
		ls.waiting.add(ev.Thread)
		ls.hold.releases(ts.id, ev.Time) // its hold ends here if the next one comes in
		// Its ObjectWaitTimeout line says it is timed; without one, the
		// recording says it is untimed when the agent writes them all, and
		// otherwise only the frame of Object.wait() (which calls wait(0)) says so.
		timeout := TimeoutUnknown
		switch {
		case ts.body.timedAt == ev.Time:
			timeout = TimeoutSet
		case b.waitTimeouts || b.untimed != nil && b.untimedOf.of(stack, b.frames(), b.untimed):
			timeout = TimeoutNone
		}
		ts.body.timedAt = -1
		// Decided once per stack (idleWaitOf): IdleWaits keeps only the
		// stacks that are, and a server's waits are mostly on the others.
		if b.idleWait != nil && b.idleWaitOf.of(stack, b.frames(), b.idleWait) && !b.m.IdleWaits[stack] {
			if b.m.IdleWaits == nil {
				b.m.IdleWaits = map[StackID]bool{}
			}
			b.m.IdleWaits[stack] = true
		}
		// On its own Thread object: the wait of Thread.currentThread().join()
		// (Thread.join waits on the joined thread), its ThreadJoin not
		// recorded (it began before the events: an attach's snapshot).
		self := uint32(ev.Object) == uint32(ev.Thread)
		b.push(ts, Interval{Start: ev.Time, State: Waiting, Object: ev.Object, Stack: stack, Timeout: timeout, SelfJoin: self}, ls, nil, ev).seq = ls.nextSeq
	case format.ObjectWaitTimeout:
		// With its ObjectWait, before or after it (the same time). A wait of
		// a century or more (wait(Long.MAX_VALUE)) is one for ever.
		if ev.Timeout < 0 || format.Time(ev.Timeout) >= ForeverWait {
			break
		}
		if n := len(ts.body.open); n > 0 && ts.body.open[n-1].iv.State == Waiting && ts.body.open[n-1].iv.Since == ev.Time {
			ts.body.open[n-1].iv.Timeout = TimeoutSet
		} else {
			ts.body.timedAt = ev.Time
		}
	case format.ObjectNotify, format.ObjectNotifyAll:
		b.changedHands(ev.Object, ts)
		b.notify(b.lock(ev.Object, Monitor), ev)
	case format.MonitorOwned:
		b.owned(ts, ev)
	case format.MonitorHeld, format.LockHeld:
		b.monitorHeld(ts, ev)
	case format.ObjectClass:
		b.objectClass(ev.Object, ev.Class)
	case format.ConditionLock:
		if l := ev.Lock(); l != 0 && ev.Object != 0 {
			if b.m.Conditions == nil {
				b.m.Conditions = map[format.ObjectID]format.ObjectID{}
			}
			b.m.Conditions[ev.Object] = l
			b.condBits[condBit(ev.Object)/64] |= 1 << (condBit(ev.Object) % 64)
			b.condChanged()
		}
	case format.ClassInitLock, format.ClassInitWaited:
		b.classInit(ts, ev, stack)
	case format.ThreadUnpark:
		// A self-unpark too: it sets the thread's own permit.
		if ev.Target != 0 {
			u := pendingUnpark{by: ev.Thread, at: ev.Time}
			if e := ts.body.acqEnd; e.obj != 0 && e.at <= ev.Time {
				u.passed, u.passedOn = e.by, e.obj
			}
			b.setUnpark(ev.Target, u)
		}
	case format.VirtualThreadMounted:
		t.Virtual, t.Carrier = true, ev.Target
		t.Carriers++
	case format.VirtualThreadPinned:
		t.Virtual, t.Carrier = true, ev.Target
		t.Pinned++
		if n := len(ts.body.open); n > 0 {
			switch iv := &ts.body.open[n-1].iv; iv.State {
			case Parked, Idle, Sleeping:
				iv.Pinned = true
			}
		}
		// Outside a park or sleep (an import: JFR's jdk.VirtualThreadPinned
		// of a park below its threshold) it is only counted.
	case format.Sample:
		b.sample(ts, ev.Time, ev.Sampled, ev.Weight, stack)
	case format.ThreadCPU:
		if !b.schedTime(ts, ev.Time, ev.CPU, ev.Ready) {
			b.problem(ev, "cpu %d, ready %d: less than the thread's previous line's", ev.CPU, ev.Ready)
		}
	case format.ThreadPark:
		if ev.Mode != format.ModeNone {
			b.enterHeld(ts, ev, stack) // a lock's acquire: LockHeld lines may follow
		}
		b.park(ts, ev, stack)
	case format.ThreadUnparked:
		b.unparked(ts, ev)
	default:
		// The end of an interval: the event table pairs it with its begin
		// (format.Specs, End), which opened the state beganState names.
		if ev.Kind == format.MonitorContendedEntered && ts.body.lateEntered == ev.Object && ev.Time-ts.body.lateAt <= LateEntered {
			ts.body.lateEntered = 0 // its contention was ended by the thread's next line (push)
			break
		}
		if begin := ev.Kind.Begin(); begin != format.KindNone && !b.pop(ts, beganState[begin], ev) {
			b.problem(ev, "no %s before it", begin)
		}
	}
}

// reuse is called when the thread raw starts (its ThreadStart or
// ThreadStarted). Two objects can share an identity hash, and a recording
// with tens of thousands of virtual threads has a few pairs of threads that
// do (Tomcat with virtual threads: one pair in 60 000). A compact recording
// of the agent tells them apart (format.ThreadID's rank), the seed's text
// and older recordings do not: when the thread the ID names has ended, this
// one is another thread: from now on the ID names it, under the ID of the
// next rank free (raw's hash, "0000000A#2": format.ThreadID.String). One
// that starts while the thread of the ID lives is not told apart (the
// events that cannot be placed are problems).
func (b *Builder) reuse(raw format.ThreadID) {
	cur, ok := b.alias[raw]
	if !ok {
		cur = raw
	}
	ts := b.known(cur)
	if ts == nil || !b.tOf(ts).Ended || len(ts.body.open) > 0 {
		return
	}
	id := cur + 1<<32
	for _, n := b.th.find(id); n >= 0 && id > cur; _, n = b.th.find(id) {
		id += 1 << 32
	}
	if id < cur {
		return // every rank taken
	}
	b.alias[raw] = id
	if b.lastThread == ts {
		b.lastThread = nil
	}
}

// aliased returns ev with its threads named by their current IDs (reuse).
func (b *Builder) aliased(ev *reader.Event) *reader.Event {
	th, ok1 := b.alias[ev.Thread]
	ow, ok2 := b.alias[ev.Owner]
	tg, ok3 := b.alias[ev.Target]
	if !ok1 && !ok2 && !ok3 {
		return ev
	}
	e := *ev
	if ok1 {
		e.Thread = th
	}
	if ok2 {
		e.Owner = ow
	}
	if ok3 {
		e.Target = tg
	}
	return &e
}

// beganState is the state each interval-beginning kind opens (the cases
// above that push); format.Kind.Begin finds the begin of an end.
var beganState = [format.NumKinds]State{
	format.ThreadSleep:           Sleeping,
	format.ThreadJoin:            Joining,
	format.SemaphoreAcquire:      Acquiring,
	format.MonitorContendedEnter: Blocked,
	format.ObjectWait:            Waiting,
	format.ThreadPark:            Parked, // or Idle (Builder.unparked)
}

// stackOf returns the id of ev's stack: the reader's own (an external
// stack table) or interned here.
func (b *Builder) stackOf(ev *reader.Event) StackID {
	if b.ext != nil {
		return StackID(ev.StackID)
	}
	return b.stacks.intern(ev.Stack, &b.m.Stacks)
}

// frames returns the stacks folded so far, by StackID.
func (b *Builder) frames() [][]format.Frame {
	if b.ext != nil {
		return b.ext.Frames
	}
	return b.m.Stacks
}

// seal sums the intervals no later event can change into the locks'
// figures (docs/streaming.md): a thread's interval is final once added,
// except the segments of a state still open (its end tells the earlier
// ones how it ended), and the fold reads nothing of other threads when it
// sums one (a lock's owner changes are only added to; the attach's
// instant, which can still move earlier, is settled at the end:
// aggregator.settle).
func (b *Builder) seal() {
	w := b.m.End - sealMargin
	b.feedSealed()
	b.sleepBlockers()
	b.releaseChanges()
	b.releaseHandOffs(w)
	b.splitWindows(w)
	b.retire(w)
}

// releaseChanges gives up to the spill, with Options.DropIntervals, the
// owner changes of each lock that no contention still to be folded reads:
// before the first a contention not fed yet (an open one, or a closed one
// behind an open state of its thread) reads on that lock. The aggregation
// reads a contention's when it is fed; the readers after Finalize read
// them back (Model.ownerChanges).
func (b *Builder) releaseChanges() {
	if !b.dropIntervals || b.spill.err != nil || len(b.owning) == 0 {
		return
	}
	// need: per lock, the first change a contention not fed yet reads.
	need := map[*Lock]int{}
	note := func(l *Lock, from uint32) {
		if n, ok := need[l]; !ok || int(from) < n {
			need[l] = int(from)
		}
	}
	for _, ls := range b.owning {
		for _, ts := range ls.blocked {
			for i := range ts.body.open {
				if o := &ts.body.open[i]; o.iv.State == Blocked && o.ls != nil {
					note(o.ls.l, o.iv.ownFrom)
				}
			}
		}
	}
	for _, ts := range b.feeding {
		for i := range ts.body.open {
			if o := &ts.body.open[i]; o.iv.State == Blocked && o.ls != nil {
				note(o.ls.l, o.iv.ownFrom)
			}
		}
		ts.body.ivs.each(ts.body.fed, func(blk []Interval) bool {
			for i := range blk {
				if iv := &blk[i]; iv.State == Blocked {
					if ls := b.lockIf(iv.Object, Monitor); ls != nil {
						note(ls.l, iv.ownFrom)
					}
				}
			}
			return true
		})
	}
	keep := b.owning[:0]
	for _, ls := range b.owning {
		l := ls.l
		n := len(l.OwnerChanges)
		if from, ok := need[l]; ok {
			n = min(n, from-l.ownBase)
		}
		if n > 0 {
			b.giveChanges(l, n)
			l.ownBase += n
			b.heldChanges -= n
			ls.ownRoom = len(l.OwnerChanges)
			l.OwnerChanges = keepRest(l.OwnerChanges, n)
		}
		if len(l.OwnerChanges) > 0 {
			keep = append(keep, ls)
		}
	}
	clear(b.owning[len(keep):])
	b.owning = keep
}

// ownRange is the owner changes of a lock from the from-th to the to-th.
type ownRange struct{ from, to int }

// ownerChangeSize is the bytes of an OwnerChange in the spill.
const ownerChangeSize = int(unsafe.Sizeof(OwnerChange{}))

// giveChanges gives up to the spill the first n of l's owner changes in
// memory (from the ownBase-th): with Options.SpansFromLogs, those of them
// a reader reads alone (Lock.ownNeed), in runs by number (Lock.ownAt).
func (b *Builder) giveChanges(l *Lock, n int) {
	if !b.ownSparse {
		b.spill.add(&l.ownSpill, bytesOf(l.OwnerChanges[:n]))
		return
	}
	base, end := l.ownBase, l.ownBase+n
	slices.SortFunc(l.ownNeed, func(a, b ownRange) int { return cmp.Compare(a.from, b.from) })
	keep := l.ownNeed[:0]
	at := base // the changes before at are given up or not needed
	for _, r := range l.ownNeed {
		if from, to := max(r.from, at), min(r.to, end); from < to {
			b.putChanges(l, from, l.OwnerChanges[from-base:to-base])
			at = to
		}
		if r.to > end {
			keep = append(keep, ownRange{max(r.from, end), r.to})
		}
	}
	clear(l.ownNeed[len(keep):])
	l.ownNeed = keep
	if len(keep) == 0 {
		l.ownNeed = nil
	}
}

// putChanges writes l's owner changes cs, the from-th on, to the spill
// (Options.SpansFromLogs): a run of l's grows when they follow it, in
// number and in the file.
func (b *Builder) putChanges(l *Lock, from int, cs []OwnerChange) {
	var blk []spillBlock
	b.spill.add(&blk, bytesOf(cs))
	if len(blk) == 0 {
		return // the spill failed: Build fails
	}
	if k := len(l.ownSpill) - 1; k >= 0 && l.ownAt[k]+int(l.ownSpill[k].len)/ownerChangeSize == from &&
		l.ownSpill[k].off+l.ownSpill[k].len == blk[0].off {
		l.ownSpill[k].len += blk[0].len
		return
	}
	l.ownSpill = append(l.ownSpill, blk[0])
	l.ownAt = append(l.ownAt, from)
}

// keepRest returns s without its first n, given up: moved to the front of
// its array, which goes on filling without growing again (a copy of the
// rest alone, exactly sized, was grown again by doubling after each seal:
// newOwner's growslice, ~2 % of orca report at 128 MB). An array emptied
// is let go (nil: the lock has none in memory), and so is one much larger
// than the rest (a burst's room).
func keepRest[E any](s []E, n int) []E {
	rest := s[n:]
	switch {
	case len(rest) == 0:
		return nil
	case cap(s) > 256 && cap(s) > 4*len(rest):
		return append(make([]E, 0, 2*len(rest)), rest...)
	}
	return s[:copy(s, rest)]
}

// feedSealed feeds the intervals of the threads in feeding that no later
// event can change (seal).
func (b *Builder) feedSealed() {
	if len(b.feeding) == 0 {
		return
	}
	if b.line != nil {
		if b.sites == nil {
			b.sites = newSiteGrouper(b.line)
		}
		b.sites.extend(b.m, b.frames())
	}
	keep := b.feeding[:0]
	for _, ts := range b.feeding {
		limit := format.Time(math.MaxInt64)
		if len(ts.body.open) > 0 {
			limit = ts.body.open[0].iv.Since
		}
		sorted := !ts.body.ivs.unsorted
		ts.body.ivs.each(ts.body.fed, func(blk []Interval) bool {
			// The intervals before the first that starts at limit or
			// later: all of them without an open state; in a list in
			// order of their starts, found from the end (those after
			// the limit are the open state's few segments), not by
			// reading every interval once more before the aggregation.
			n := len(blk)
			switch {
			case limit == math.MaxInt64:
			case sorted:
				for n > 0 && blk[n-1].Start >= limit {
					n--
				}
			default:
				n = 0
				for n < len(blk) && blk[n].Start < limit {
					n++
				}
			}
			b.feed(ts, blk[:n])
			return n == len(blk)
		})
		if ts.body.feeding = len(ts.body.open) > 0 || ts.body.fed < ts.body.ivs.len(); ts.body.feeding {
			keep = append(keep, ts)
		}
		b.release(ts)
		if b.dropIntervals && len(b.tOf(ts).folded().blame.b) >= blameBatch {
			b.giveBlame(b.tOf(ts))
		}
	}
	clear(b.feeding[len(keep):])
	b.feeding = keep
}

// retire finishes, with Options.DropIntervals, the threads that ended by
// w, in no state, their intervals fed and their windows split
// (finishThread): their intervals and samples go to the spill, and the
// fold holds no more of them than of the threads alive. An event of such a
// thread that can still come (a sample taken before its end and written
// later, its exit blocked on its Thread object) brings it back (revive).
func (b *Builder) retire(w format.Time) {
	keep := b.ending[:0]
	for _, ts := range b.ending {
		switch t := b.tOf(ts); {
		case b.spill.err != nil:
			// Given up: Finalize keeps them all in memory.
			ts.body.ending = false
		case !t.Ended || len(ts.body.open) > 0 || ts.body.feeding || ts.body.win.splitting || t.End > w || ts.body.wf.to != nil:
			keep = append(keep, ts)
			continue
		default:
			b.finishThread(ts)
			b.giveLent(ts, len(t.folded().lent)) // read back if it is brought back
			ts.retired = true
			ts.body.ending = false
			b.giveBody(ts)
			if b.packThreads {
				b.packRetired(ts)
				if ts.tp == nil {
					b.letGo(ts)
				}
			}
		}
	}
	clear(b.ending[len(keep):])
	b.ending = keep
}

// revive brings back a thread retire finished, for an event of its that
// came later: its samples read back, its windows to be split again from
// the first (the same split: CheckSplit), its tail to be taken again.
func (b *Builder) revive(ts *tstate) {
	t := b.tOf(ts)
	ts.retired = false
	if err := b.spill.flush(); err != nil {
		panic(&SpillError{err})
	}
	b.takeBody(ts, b.unrest(ts))
	smp, err := spillRead(b.spill, t.spill.of(spillSmp), []Sample(nil))
	if err != nil {
		panic(&SpillError{err})
	}
	t.Samples = smp
	b.dropLive(ts, spillSmp) // spilled again when it is finished again
	if t.spill.has(spillLent) {
		b.unspillLent(ts)
	}
	b.heldSamples += len(smp)
	b.m.PeakSamples = max(b.m.PeakSamples, b.heldSamples)
	if t.tailOK {
		ts.body.ivs.last = t.tails(nil)
	}
	t.tail, t.tailN, t.tailAt, t.tailOK = nil, 0, 0, false
	t.Run, t.fold.wins, t.Time[Runnable] = RunSplit{}, nil, 0 // takeBody made t.fold
	b.dropLive(ts, spillWins)
	if t.spill.has(spillSched) {
		sched, err := spillRead(b.spill, t.spill.of(spillSched), []SchedTime(nil))
		if err != nil {
			panic(&SpillError{err})
		}
		t.Sched, t.nSched = sched, 0
		b.dropLive(ts, spillSched)
	}
	if len(t.Sched) >= 2 {
		ts.body.win.splitting = true
		b.splitSoon(ts)
	}
	ts.body.ending = true
	b.ending = append(b.ending, ts)
}

// splitWindows splits the windows between ThreadCPU lines of the threads
// in splitting that end by w, and by the time up to which the thread's
// intervals are final (seal); a window a late sample fell in is split
// again, with the ones after it. A thread with nothing to split waits
// out of splitting (splitWhere) until something is: a seal visits the
// threads it splits windows of, not every thread with ThreadCPU lines
// (~3 000 a seal at 128 MB, two in three with nothing to do: a miss of
// the cache each, 1 % of orca report at 1 GB).
func (b *Builder) splitWindows(w format.Time) {
	for len(b.splitDue) > 0 && b.splitDue[0].at <= w {
		if ts := b.splitDue.pop(); ts.body.win.where == splitLater {
			b.splitSoon(ts)
		}
	}
	keep := b.splitting[:0]
	for _, ts := range b.splitting {
		// Up to the thread's latest line, or its latest ThreadCPU line
		// (an instant that does not move its clock): a line of it that
		// comes behind one has the windows after it split again.
		t, ws := b.tOf(ts), &ts.body.win
		h := min(w, max(ts.last, t.Sched[len(t.Sched)-1].At))
		if len(ts.body.open) > 0 {
			h = min(h, ts.body.open[0].iv.Since)
		}
		if t.Ended {
			h = min(h, t.End)
		}
		b.splitTo(ts, h, math.MaxInt64)
		n := len(t.folded().wins) + 1 // the next window ends at t.Sched[n]
		ws.splitting = !t.Ended || n < len(t.Sched)
		switch {
		case !ws.splitting || n >= len(t.Sched):
			ws.where = splitIdle // until a ThreadCPU line, a late sample or its end
		case t.Sched[n].At > w:
			ws.where = splitLater
			b.splitDue.push(t.Sched[n].At, ts)
		case len(ts.body.open) > 0 && ts.body.open[0].iv.Since < t.Sched[n].At:
			ws.where = splitOpen // until the state ends (Builder.end)
		default:
			keep = append(keep, ts)
		}
		b.release(ts)
		b.releaseWins(ts, w)
		b.releaseSamples(ts)
	}
	clear(b.splitting[len(keep):])
	b.splitting = keep
}

// splitWhere is where a thread with windows between ThreadCPU lines
// waits for a seal to split them (splitWindows).
type splitWhere uint8

const (
	splitIdle  splitWhere = iota // none to split
	splitNow                     // in Builder.splitting: at the next seal
	splitLater                   // in Builder.splitDue: once its next window is due
	splitOpen                    // its next window ends after the start of its state
)

// splitSoon has ts's windows split at the next seal: it has a ThreadCPU
// line more, a late sample, an end, or its state that held the split
// back ended.
func (b *Builder) splitSoon(ts *tstate) {
	if ws := &ts.body.win; ws.splitting && ws.where != splitNow {
		ws.where = splitNow
		b.splitting = append(b.splitting, ts)
	}
}

// dueHeap is the threads whose next window between ThreadCPU lines is
// due later, by the time it is (a min-heap). A thread called to the next
// seal before (splitSoon) leaves its entry behind: splitWindows skips it.
type dueHeap []dueAt

type dueAt struct {
	at format.Time
	ts *tstate
}

func (h *dueHeap) push(at format.Time, ts *tstate) {
	*h = append(*h, dueAt{at, ts})
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p].at <= s[i].at {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *dueHeap) pop() *tstate {
	s := *h
	ts := s[0].ts
	n := len(s) - 1
	s[0] = s[n]
	s[n] = dueAt{}
	s = s[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && s[c+1].at < s[c].at {
			c++
		}
		if s[i].at <= s[c].at {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	*h = s
	return ts
}

// splitTo splits ts's windows between ThreadCPU lines that end by h (end:
// the thread's end, or later when it is not known yet), after undoing
// those a late sample fell in.
func (b *Builder) splitTo(ts *tstate, h, end format.Time) {
	t, ws := b.tOf(ts), &ts.body.win
	f := t.folding()
	if ws.late < ws.gaveEnd {
		b.unspillWins(ts) // a late sample in a window given up: all split again
	}
	if ws.late != math.MaxInt64 {
		k := len(f.wins)
		for k > 0 && f.wins[k-1].end > ws.late {
			k--
			sp := f.wins[k].split
			t.Run.Sub(sp)
			ws.split -= sp.Total()
		}
		if k < len(f.wins) && ws.marks[k].smp < 0 {
			b.unspillSamples(ts) // the window's samples were given up
		}
		if k < len(f.wins) && ts.body.lentGiven > 0 && ts.body.lentLast >= f.wins[k].start {
			b.unspillLent(ts) // and the virtual threads' it carried
		}
		if k < len(f.wins) {
			// The windows before keep their splits, but for the ready time
			// the ones split again gave them.
			g := unlagReady(f.wins, k)
			t.Run.Ready -= g
			t.Run.Other += g
			ws.iv, ws.smp = ws.marks[k].iv, ws.marks[k].smp
			f.wins, ws.marks = f.wins[:k], ws.marks[:k]
		}
		ws.late = math.MaxInt64
	}
	c := Cursor{iv: ws.iv, smp: ws.smp}
	for n := len(f.wins) + 1; n < len(t.Sched) && t.Sched[n].At <= h; n++ {
		ws.marks = append(ws.marks, mark{iv: c.iv, smp: c.smp})
		ivs := b.ivsFrom(ts, c.iv)
		w := t.window(t.Sched[n-1], t.Sched[n], min(end, t.Sched[n].At), &ivs, &c, f.lent)
		f.wins = append(f.wins, w)
		g := lagReady(f.wins)
		t.Run.Ready += g
		t.Run.Other -= g
		ws.maxEnd = max(ws.maxEnd, w.end)
		t.Run.Add(w.split)
		ws.split += w.split.Total()
	}
	ws.iv, ws.smp = c.iv, c.smp
}

// feed sums the next final intervals of ts, ivs: its time per state, the
// locks' figures.
func (b *Builder) feed(ts *tstate, ivs []Interval) {
	t := b.tOf(ts)
	for i := range ivs {
		d := ivs[i].Duration()
		t.Time[ivs[i].Shown()] += d
		ts.body.busy += d
	}
	if !b.noLockFigures {
		b.ag.feed(&ts.body.agg, ivs)
	}
	if b.shutdown != nil || b.stackMark != nil {
		// The first state at a stack of the shutdown: the earliest Since
		// of those intervals (a state's first segment begins at its
		// Since, so none begins before the one first by its start).
		for i := range ivs {
			iv := &ivs[i]
			sb := b.stackBits(iv.Stack)
			t.StackMarks |= sb.mark
			if sb.shut {
				if at, ok := b.shutAt[t.ID]; !ok || iv.Since < at {
					b.shutAt[t.ID] = iv.Since
				}
			}
		}
	}
	ts.body.fed += len(ivs)
	if ts.body.fed-ts.body.spilt >= spillBatch {
		b.spillFed(ts)
	}
}

// spillBatch is how many fed intervals of a thread the fold lets gather
// before it writes them to the spill (spillFed): a block of the ivList.
// Written at each seal, a thread's intervals were a few hundred bytes a
// block in the spill (a median of 576 at 128 MB), and the report read
// them back a system call a block (~270 000 at 128 MB).
const spillBatch = maxIvBlock

// spillFed writes ts's fed intervals not yet in the spill. Fed, an
// interval is final: the fold changes only the segments of a state still
// open, which seal does not feed. They are written before the fold gives
// them up (release) or reads them back (finishThread).
func (b *Builder) spillFed(ts *tstate) {
	n := ts.body.fed - ts.body.spilt
	if b.spill == nil || n == 0 {
		return
	}
	t := b.tOf(ts)
	// Packed (ivcodec.go), in one chunk.
	b.ivPack = binary.AppendUvarint(b.ivPack[:0], uint64(n))
	prevEnd, left := format.Time(0), n
	ts.body.ivs.each(ts.body.spilt, func(blk []Interval) bool {
		blk = blk[:min(len(blk), left)]
		for i := range blk {
			b.ivPack = appendIv(b.ivPack, &blk[i], prevEnd)
			prevEnd = blk[i].End
		}
		left -= len(blk)
		return left > 0
	})
	b.spill.addTail(&t.spill, spillIvs, b.ivPack, int64(n), &ts.body.tail)
	ts.body.spilt = ts.body.fed
}

// stackBits returns what the fold notes of stack id, cached.
func (b *Builder) stackBits(id StackID) stackBits {
	if int(id) >= len(b.bits) {
		b.bits = append(b.bits, make([]stackBits, int(id)+1-len(b.bits))...)
	}
	sb := &b.bits[id]
	if !sb.known {
		sb.known = true
		if fr := b.frames(); int(id) < len(fr) && len(fr[id]) > 0 {
			sb.shut = b.shutdown != nil && b.shutdown(fr[id])
			if b.stackMark != nil {
				sb.mark = b.stackMark(fr[id])
			}
		}
	}
	return *sb
}

// release gives up the blocks of ts's intervals that no part of the fold
// reads again (Options.DropIntervals, with the spill): fed, so in the
// spill, and behind the split of its windows between ThreadCPU lines. A
// window split again for a late sample reads them back (ivsFrom), and so
// do the readers after Finalize (Model.IntervalsOf).
func (b *Builder) release(ts *tstate) {
	if !b.dropIntervals || b.spill.err != nil {
		return
	}
	upto := ts.body.fed
	if ts.body.win.splitting {
		upto = min(upto, ts.body.win.iv)
	}
	if upto > ts.body.spilt && ts.body.ivs.firstEnd() <= upto {
		b.spillFed(ts) // a block is given up: the spill must have it
	}
	if n := ts.body.ivs.dropFront(upto, b.ivFree); n > 0 {
		b.held -= n
		b.gaveUp = true
	}
}

// ivsFrom is ts's intervals for Thread.window: from index from on, a block
// at a time; those given up (release) read back from the spill.
func (b *Builder) ivsFrom(ts *tstate, from int) ivBlocks {
	r := ivBlocks{l: &ts.body.ivs, from: from - ts.body.ivs.base}
	if base := ts.body.ivs.base; from < base {
		b.spillBuf = b.readSpilled(b.tOf(ts), from, base, b.spillBuf)
		r.front, r.from = b.spillBuf, 0
	}
	return r
}

// readSpilled reads t's intervals [from, to), in the order the fold added
// them, back from the spill while it is being written, into dst's room.
// Only a thread whose intervals were given up asks, and they are nowhere
// else: a read that fails panics, as Model.IntervalsOf's.
func (b *Builder) readSpilled(t *Thread, from, to int, dst []Interval) []Interval {
	dst = slices.Grow(dst[:0], to-from)
	err := b.spill.err
	if err == nil && spillReadFault != nil && to > from {
		err = spillReadFault
	}
	// Each block that holds some of them read whole, and decoded from its
	// start: packed, an interval is where those before it end. Not
	// flushed first: the bytes still in the write buffer are copied from
	// it (readBuffered). A flush a read was c1G's 55 818 writes of 67 kB,
	// not ~3 700 of 1 MB.
	at := 0 // where each block begins among t's intervals
	for i, end := 0, int64(0); err == nil && i < int(t.spill.n) && at < to; {
		off, n, k, c, j := t.spill.next(i, end)
		i, end = j, off+n
		if k != spillIvs {
			continue
		}
		if a, z := max(from, at), min(to, at+int(c)); a < z {
			b.ivRead = slices.Grow(b.ivRead[:0], int(n))[:n]
			if err = b.spill.readBuffered(b.ivRead, off); err == nil {
				dst, err = decodeIvs(dst, b.ivRead, a-at, z-a)
			}
		}
		at += int(c)
	}
	if err != nil {
		dst = dst[:0]
	}
	if err == nil && len(dst) != to-from {
		err = fmt.Errorf("%d intervals of thread %v read back, %d asked", len(dst), t.ID, to-from)
	}
	if err != nil {
		panic(&SpillError{err})
	}
	return dst
}
