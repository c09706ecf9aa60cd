// Package model folds a recording's events, in one streaming pass, into
// threads with non-overlapping state intervals, locks with their
// contention and blame, and the edges between threads (who woke, started,
// joined, released for whom). Analyses and front-ends read the Model; none
// of them reads files.
package model

import (
	"iter"
	"maps"
	"math"
	"math/bits"

	"orca/internal/format"
)

// State is what a thread is doing during an interval.
type State uint8

// Thread states. Runnable is implicit between the other intervals.
const (
	Runnable  State = iota
	Blocked         // waiting to enter a contended monitor
	Waiting         // in Object.wait
	Sleeping        // in Thread.sleep
	Joining         // in Thread.join
	Acquiring       // in Semaphore.acquire
	// Parked in LockSupport.park* (Unsafe.park): a java.util.concurrent
	// lock, condition, latch, future, queue… (Interval.Object is the
	// blocker, 0 for none). Not Waiting: that is Object.wait, the manual's.
	Parked
	// Idle: parked waiting for work, a thread pool's idle worker
	// (IdleStack decides from the stack) or a consumer in a queue's take or
	// poll (TakeStack): not a hang, not a problem.
	Idle
	NumStates
)

var stateNames = [NumStates]string{"runnable", "blocked", "waiting", "sleeping", "joining", "acquiring", "parked", "idle"}

// String returns the lower-case state name used in reports and JSON.
func (s State) String() string {
	if s >= NumStates {
		return "unknown"
	}
	return stateNames[s]
}

// StackID indexes Model.Stacks; 0 is the empty stack.
type StackID uint32

// Wake says how an Object.wait ended.
type Wake uint8

// How a wait ended.
const (
	WakeNone      Wake = iota // not a wait
	WakeNotify                // by a notify of another thread (Interval.Other)
	WakeNotifyAll             // by a notifyAll of another thread (Interval.Other)
	WakeAmbiguous             // a notify woke one of several waiters; Other is the notifier
	WakeTimeout               // no notify reached it: timed out, interrupted or spurious (a park: timed out, or not told how it ended)
	WakeNever                 // still waiting when the recording ended
	WakeUnpark                // a park ended by another thread's unpark (Interval.Other)
	// WakeInterrupted: a park the thread's interrupt ended (the agent's
	// ThreadUnparked says how=interrupted: the thread's interrupt flag was
	// set when Unsafe.park returned). A wait's interrupt is WakeTimeout:
	// JVMTI's MonitorWaited does not say (docs/agent.md, "How a wait
	// ended").
	WakeInterrupted
	// WakeSpurious: a park that returned neither timed out nor
	// interrupted (the agent's how=unparked) with no other thread's unpark
	// recorded before it: a spurious wake-up, which Unsafe.park allows,
	// the thread's own earlier unpark (a permit), or an unparker the agent
	// did not see. A park whose recording does not say how it ended
	// (a JFR import's) is WakeTimeout instead: it may have timed out.
	WakeSpurious
	NumWakes // the number of wake kinds
)

var wakeNames = []string{"", "notify", "notifyAll", "ambiguous", "timeout", "never", "unpark", "interrupted", "spurious"}

// String returns the wake kind's name.
func (w Wake) String() string {
	if int(w) >= len(wakeNames) {
		return "unknown"
	}
	return wakeNames[w]
}

// Timeout says whether a state can end by itself (Interval.Timeout): a
// hang is a thread in a state that cannot (analysis.Hangs).
type Timeout uint8

// What the recording says of a state's timeout.
const (
	// TimeoutUnknown: the recording does not say. An Object.wait(long)
	// call (the agent does not record its argument, which may be 0), a
	// Thread.join.
	TimeoutUnknown Timeout = iota
	// TimeoutNone: it ends only when another thread acts — a contended
	// monitor, Semaphore.acquire, a park without timeout (park()), an
	// Object.wait() (its stack has the frame of wait()).
	TimeoutNone
	// TimeoutSet: it ends by itself — a park with a timeout (parkNanos,
	// parkUntil, a timed await or poll), a sleep.
	TimeoutSet
)

var timeoutNames = [...]string{"unknown", "none", "set"}

// String returns "unknown", "none" or "set".
func (t Timeout) String() string {
	if int(t) >= len(timeoutNames) {
		return "unknown"
	}
	return timeoutNames[t]
}

// Interval is a span of one non-runnable state of one thread. One state
// (one wait, one join, …) can be split into segments around a state
// nested in it (a join blocking on the Thread's monitor); its segments
// share Since. A contention is one interval however often the monitor's
// owner changed while the thread was blocked: the changes are a range of
// the lock's OwnerChanges (Model.OwnerSpans), so that N threads queued on
// one monitor make N intervals per hand-off round, not N².
type Interval struct {
	Start, End format.Time // End is the thread's end when Open
	// Since is when the state began: Start for its first segment, earlier
	// (or equal) for the later segments of a split state.
	Since  format.Time
	Object format.ObjectID // monitor, waited object or semaphore (0 for sleep and join)
	// objNum is Object's number in the build (objFold.num), 0 when none
	// or not kept (Model.ObjectNum): in the room the alignment of Other
	// leaves after Object.
	objNum uint32
	// Other is the thread that matters for the state: the owner a Blocked
	// thread waited for (the latest known: the one whose release let it
	// in), the Joining target, the notifier that woke a Waiting thread,
	// the unparker that ended a park; 0 when unknown.
	Other format.ThreadID
	// First is, for Blocked, the owner when the thread blocked (0 when
	// unknown); the owners after it are in Model.OwnerSpans. For Parked
	// and Idle, the blocker's exclusive owner when the thread parked (an
	// AbstractOwnableSynchronizer's: ReentrantLock, a read-write lock's
	// writer), 0 for none.
	First format.ThreadID
	Stack StackID // where the thread was
	// Blocked: the lock's OwnerChanges[ownFrom:ownTo] are the owner
	// changes the fold saw while the thread was blocked. A park in a
	// j.u.c. lock's acquire (Acquire) has none: one that another thread's
	// unpark ended (WakeUnpark) keeps in them its hand-off's length (End
	// minus HandOff's from; ownFrom the high 32 bits): no cap, no byte more.
	ownFrom, ownTo uint32
	// The small fields come last: a model holds millions of intervals,
	// and this order leaves no padding between its fields (72 bytes).
	State State
	// Cont marks the later segments of a split state (the first has
	// Cont false): one wait is one segment with !Cont and the Cont
	// segments after it with the same Since. A Blocked interval never is.
	Cont bool
	// Open: the recording ended in this state (its last segment). The
	// open segments are the thread's last ones: the innermost state's
	// first, then an empty one at the end for each state around it.
	Open bool
	Wake Wake // for Waiting (the same on every segment of a wait), Parked and Idle
	// Forced: the state's closing event is missing (a problem: the
	// thread ended in it, or an outer state closed); a Blocked interval
	// so ended did not enter its monitor.
	Forced bool
	// Pinned: a Parked, Idle or Sleeping interval of a virtual thread
	// that could not yield and parked its carrier (VirtualThreadPinned).
	Pinned bool
	// SelfJoin: a Joining interval of a thread that joins itself
	// (Thread.currentThread().join()): Other is 0, it waits for no thread.
	// Also a Waiting interval on the thread's own Thread object: the wait
	// inside such a join, seen alone when the join began before the events
	// (an attach's snapshot of it).
	SelfJoin bool
	// Acquire: a Parked interval that is a contended acquire of a
	// java.util.concurrent lock (AcquireStack): Object is the lock's sync
	// (a Lock of kind JUCLock), First its owner when the thread parked.
	Acquire bool
	// BeforeEvents: a Blocked interval whose thread blocked before the
	// events were on (the agent's start, or the gap between an attach's
	// snapshot and its events): the agent writes its Enter 1 ns before its
	// Entered, owner unknown (.info owner_unknown.before_events), so its
	// length is not known, only that it ended at End.
	BeforeEvents bool
	// Restated: the state's begin was a carried record, the state at the
	// start of the events read (a bounded recording's oldest chunk kept,
	// a range's start): it began before them. A continuous push counts
	// it in the push before (export.OTLPOptions.Chained).
	Restated bool
	// Timeout: whether the state can end by itself (the same on every
	// segment of a state).
	Timeout Timeout
}

// Duration returns End-Start.
func (iv Interval) Duration() format.Time { return iv.End - iv.Start }

// Shown is the state every view shows a thread in during iv, and the one
// its time counts in (Thread.Time, states_s, the timeline, filters,
// exports): State, except that a park that is a contended acquire of a
// java.util.concurrent lock (Acquire) is Blocked, like a contended monitor
// enter — a lock is a lock, whichever way the JVM blocks on it. State keeps
// the event's own meaning for the interval's bookkeeping (its unpark).
func (iv *Interval) Shown() State {
	if iv.Acquire {
		return Blocked
	}
	return iv.State
}

// Thread is one java.lang.Thread seen in the recording.
type Thread struct {
	ID     format.ThreadID
	Name   string
	Parent format.ThreadID // the thread that called start(), 0 if unknown
	Start  format.Time     // ThreadStarted, or its first event
	// End is ThreadEnded, or the end of a contention on its own Thread
	// object that followed it (the VM's exit notifies joiners under that
	// monitor), or the recording's end when !Ended or still in that
	// contention.
	End format.Time
	// Intervals are sorted and never overlap; the gaps are Runnable. nil
	// in a Model built with Options.DropIntervals: Model.IntervalsOf
	// reads them.
	Intervals []Interval
	// Time per state over [Start, End], Runnable included.
	Time   [NumStates]format.Time
	Events int
	// Carrier is the last carrier a virtual thread was seen on (Carriers,
	// Pinned: below).
	Carrier format.ThreadID
	// Samples are the thread's samples (issue 33), in time order; Sched
	// its ThreadCPU lines, in time order (none for a virtual thread and
	// in recordings without them: older ones, imports).
	Samples []Sample
	Sched   []SchedTime
	// Run splits Time[Runnable] into running, ready, other (RunSplit,
	// splitRun); RunIn splits a part of it.
	Run RunSplit
	// fold: what the fold keeps of it while it goes (threadFold), nil
	// when none (folded reads it, folding makes it).
	fold *threadFold
	// spill: where its intervals and samples are in Model's spill, if any.
	spill spillRef
	// tail: with Options.DropIntervals, its last intervals (from
	// Intervals' index tailAt on): the open segments at the end and the
	// last one that began before its end, as the readers at the end want
	// them (Model.TailOf); tailOK says they are kept. Packed (tailpack.go),
	// tailN bytes: a pointer and a count, not a slice, 12 bytes, not 24.
	tail *byte
	// The fields of 4 bytes and less last, together: a Thread for every
	// thread ever seen (1.33 M at 5 GB), 32 bytes of padding less.
	StartedAt StackID // the parent's stack at Thread.start
	// Carriers: how many times a virtual thread was seen on a carrier
	// other than its last (Carrier); Pinned: how many of its parks and
	// sleeps parked their carrier.
	Carriers int32
	Pinned   int32
	// nSched: the first of its scheduler times given up to the spill
	// (Options.DropIntervals; Builder.releaseWins as the fold goes, all
	// of them at Finalize): SchedCount.
	nSched int32
	tailAt int32
	tailN  uint32
	Ended  bool
	// Virtual: a virtual thread (JDK 21+: it has VirtualThreadMounted
	// lines).
	Virtual bool
	// StackMarks: the marks (Options.StackMark) of the stacks of its
	// intervals, or-ed: what a reader of their stacks alone needs
	// (analysis.JDKThreads), kept as the fold goes.
	StackMarks uint8
	tailOK     bool
	// ivsUnsorted: its intervals were not added in order of their starts
	// (ivList.unsorted): with Options.DropIntervals, a reader sorts them
	// once all are read back, so none reads them by pieces (ivStream).
	ivsUnsorted bool
}

// threadFold is what a Thread keeps for the fold and the holders' pass
// that read it: for a thread that ended, with Options.DropIntervals, all
// of it in the spill or let go, so that it is one pointer (nil) of each
// Thread of a spilled Model, not 80 bytes (1.33 M threads at 5 GB: 96 MB
// at the fold's end and in the report's making).
type threadFold struct {
	wins []runWin
	// lent: the cpu samples of the virtual threads it carried, in time
	// order: their CPU is the carrier's too (splitRun).
	lent []lent
	// blame: its contentions' blame spans as the fold's aggregator made
	// them (blameLog), read by the holders' pass.
	blame blameLog
}

// noFold is the threadFold of a Thread that has none, to read (never
// written).
var noFold threadFold

// folded returns t's threadFold to read: noFold when it has none.
func (t *Thread) folded() *threadFold {
	if t.fold == nil {
		return &noFold
	}
	return t.fold
}

// folding returns t's threadFold to write, made when it has none.
func (t *Thread) folding() *threadFold {
	if t.fold == nil {
		t.fold = &threadFold{}
	}
	return t.fold
}

// ownFold gives t, a copy of a Thread, a threadFold of its own (a copy of
// the one it shared), to write, and returns it.
func (t *Thread) ownFold() *threadFold {
	f := &threadFold{}
	if t.fold != nil {
		*f = *t.fold
	}
	t.fold = f
	return f
}

// unfold lets go of t's threadFold when it holds nothing but its blame
// log's last start, which it returns (0 when it keeps it).
func (t *Thread) unfold() format.Time {
	f := t.fold
	if f == nil || f.wins != nil || f.lent != nil || f.blame.b != nil {
		return 0
	}
	t.fold = nil
	return f.blame.last
}

// SchedCount is len(t.Sched), of a Model built with Options.DropIntervals
// too, whose threads' scheduler times are in the spill alone once split to
// their end, and their first ones there as the fold goes (Model.ReadRun
// reads them back).
func (t *Thread) SchedCount() int { return int(t.nSched) + len(t.Sched) }

// Life returns End-Start.
func (t *Thread) Life() format.Time { return t.End - t.Start }

// LockKind tells monitors from semaphores and park blockers.
type LockKind uint8

// Lock kinds.
const (
	Monitor   LockKind = iota // entered with synchronized, waited on with Object.wait
	Semaphore                 // java.util.concurrent.Semaphore
	// Blocker is the object a park names (Thread.parkBlocker: a
	// condition, a latch's sync, a FutureTask, …); its parks are counted
	// as its waits. Object 0 gathers the parks without a blocker.
	Blocker
	// JUCLock is a java.util.concurrent lock (ReentrantLock, either lock
	// of a ReentrantReadWriteLock, any AbstractQueuedSynchronizer lock) by
	// its sync: its contended acquires (parks in an acquire, consecutive
	// re-parks of one acquire merged) are contentions like a monitor's.
	JUCLock
)

// String returns "monitor", "semaphore", "blocker" or "juc".
func (k LockKind) String() string {
	switch k {
	case Semaphore:
		return "semaphore"
	case Blocker:
		return "blocker"
	case JUCLock:
		return "juc"
	}
	return "monitor"
}

// Blame is the time others spent blocked while a thread owned a lock.
type Blame struct {
	Thread      format.ThreadID
	Contentions int // ended contentions it ended, releasing the lock
	Blamed      format.Time
	// Open: contentions still going on at the end, blocked by it last (a
	// deadlock's, a hang's); Blamed has their time too.
	Open int
}

// Share is an owner's share of a lock's blame, in percent rounded to the
// hundredth: part of whole (the sum of Blamed over Lock.Owners). The report
// and the viewer print this one figure, not each its own rounding.
func Share(part, whole format.Time) float64 {
	if whole <= 0 {
		return 0
	}
	return math.Round(float64(part)/float64(whole)*1e4) / 100
}

// BlamedTotal is the sum of Blamed over l's owners: the whole a Share is of.
func (l *Lock) BlamedTotal() format.Time {
	if len(l.ownersSpill) > 0 {
		return l.ownersBlamed
	}
	var total format.Time
	for _, bl := range l.Owners {
		total += bl.Blamed
	}
	return total
}

// Site is a stack where threads blocked on a lock: one source line per
// frame (Model.SiteStack), so stacks that differ only in bytecode index
// are one site.
type Site struct {
	Stack       StackID
	Contentions int         // finished contentions
	Blocked     format.Time // their total length
	Open        int         // contentions still going on at the end
	OpenTime    format.Time // their length up to the end
	// BeforeEvents: of Contentions, those begun before the events were on
	// (Interval.BeforeEvents); BeforeAttach: of Contentions and Open,
	// those in progress at the attach (Model.BeforeStart).
	BeforeEvents, BeforeAttach int
}

// WaitSite is a stack where threads called Object.wait on one object.
type WaitSite struct {
	Stack        StackID
	Waits        int
	TimedOut     int
	StillWaiting int
	Time         format.Time // from each wait's start to its end (or the thread's end)
	BeforeAttach int         // of Waits, those in progress when orca attached (Model.BeforeStart): Time counts them from it
}

// Lock is a monitor or semaphore with everything that happened on it.
//
// Its figures of contention and waiting are summed from the threads'
// intervals by Model.Aggregate, the one place that does it: the Model's
// own Locks hold them for every thread, Aggregate with a filter for some
// threads (orca report --thread). The counts of notify and semaphore
// calls and OwnerChanges are the fold's, of every thread.
// LeftLocked is a thread that ended holding a java.util.concurrent lock
// (Lock.LeftLocked): its end, and the parks that named it the owner after
// it.
type LeftLocked struct {
	Thread format.ThreadID
	Ended  format.Time
	Parks  int
}

// maxLeftLocked bounds Lock.LeftLocked: a lock left locked once is
// what it tells.
const maxLeftLocked = 8

// LeftLockedOf returns the threads that ended holding the
// java.util.concurrent lock obj (its Lock.LeftLocked), also of a model
// built without the parks' locks (Options.NoParkLocks: a push's).
func (m *Model) LeftLockedOf(obj format.ObjectID) []LeftLocked {
	if l := m.Lock(obj, JUCLock); l != nil {
		return l.LeftLocked
	}
	return m.leftLocked[obj]
}

type Lock struct {
	Object format.ObjectID
	Kind   LockKind
	Class  string // class signature when known (semaphores, ObjectClass lines), else ""

	// Contention: Blocked intervals (monitors) or Acquiring intervals that
	// lasted (semaphores: an acquire that another thread's release let
	// through; every acquire is counted in Acquires). A contention still
	// going on at the end is counted in Open and OpenTime, not here; its
	// owner is blamed up to the end.
	Contentions  int
	Blocked      format.Time // total
	MaxBlocked   format.Time
	Open         int               // contentions still going on at the end (a deadlock, a hang, a cut)
	OpenTime     format.Time       // their length up to the end
	Waiters      []format.ThreadID // distinct threads that blocked, in order of first block
	Owners       []Blame           // sorted by Blamed, descending
	Sites        []Site            // where threads blocked, most Blocked+OpenTime first
	HeldAt       []StackID         // sites of contentions that entered the monitor: where owners entered it, sorted
	OwnerUnknown int               // contentions (open ones too) whose owner the agent could not name (j.u.c.: nor the releaser that unparked it)
	// NoUnpark: of a JUCLock's finished contentions, those whose last park
	// no other thread's unpark ended: a tryLock(timeout) that timed out, a
	// lockInterruptibly interrupted (the acquire gave up), or a wake-up
	// without an unpark recorded. Counted on the owner when it parked.
	NoUnpark int
	// NoUnparkInterrupted, NoUnparkSpurious: of NoUnpark, those whose
	// last park the thread's interrupt ended (WakeInterrupted: a
	// lockInterruptibly that gave up) and those whose last park returned
	// with no unpark seen (WakeSpurious); the rest timed out (a
	// tryLock(timeout) that gave up) where the recording says how its
	// parks ended.
	NoUnparkInterrupted, NoUnparkSpurious int
	// LeftLocked: the owners its parks named (a java.util.concurrent
	// lock's exclusive owner when a thread parked to acquire it) that had
	// ended before the park: a lock its thread never released (a
	// ReentrantLock locked and not unlocked before the thread's end), in
	// the order the fold met them, at most maxLeftLocked. A fact of the
	// lock's whole recording, as Class.
	LeftLocked   []LeftLocked
	BeforeEvents int // of Contentions, those begun before the events were on (Interval.BeforeEvents): their length is not known
	BeforeAttach int // of Contentions and Open, those the thread was in at the attach (Model.BeforeStart): their length is at least the one counted
	// OwnerUnknownTime is the blocked time (open contentions' too) during
	// which no owner was named, or the waiter itself had been named the
	// owner before its own Entered (OwnerSpans): blamed on no one.
	OwnerUnknownTime format.Time
	// OwnerChanges is the monitor's owner as the fold learnt it while
	// threads were blocked on it, in the order learnt (each
	// MonitorContendedEnter names one, each Entered makes its thread
	// one); Blocked intervals refer into it (Model.OwnerSpans). Once per
	// lock: a copy per interval would grow as contentions × waiters.
	OwnerChanges []OwnerChange
	// With Options.DropIntervals the owner changes no contention still
	// to be folded can read are given up to the spill as the fold goes
	// (Builder.releaseChanges), and all of them at Finalize: ownBase
	// counts those given up (OwnerChanges holds the rest while folding,
	// nil after), ownSpill is where they are. Model.ownerChanges reads
	// them back.
	ownBase  int
	ownSpill []spillBlock
	// With Options.SpansFromLogs, ownSpill holds only the owner changes a
	// reader will read (ownNeed, as the fold goes): ownAt[k] is the
	// number of the first of ownSpill[k]'s (Model.ownerRange).
	ownAt []int
	// ownNeed: the changes of the contentions fed whose blame spans a
	// reader will make from them (Options.SpansFromLogs), not given up
	// yet; nil once the fold is done.
	ownNeed []ownRange
	// With Options.SpillOwners, the owners of a lock of many are in the
	// spill (ownersSpill, Owners nil): ownersN of them, ownersBlamed
	// their Blamed summed. Model.OwnersOf reads them back.
	ownersSpill  []spillBlock
	ownersN      int
	ownersBlamed format.Time
	// spilt: with Options.SpillOwners, the lists of threads (Waiters,
	// WaitedBy) of a lock of many written to the spill, those nil
	// (waiterspill.go): Model.WaitersOf and WaitedByOf read them back.
	spilt *spiltLists

	// Object.wait on this object, or parks on this blocker: Waits =
	// Notified + TimedOut + StillWaiting (for a blocker, Notified are the
	// parks another thread's unpark ended, TimedOut the others).
	Waits     int
	WaitTime  format.Time // from each wait's start to its end (or the thread's end)
	MaxWait   format.Time // the longest of them
	Notified  int         // ended by another thread's notify or notifyAll (Ambiguous ones included)
	Ambiguous int         // ended by a notify that could have woken another waiter
	TimedOut  int         // ended with no notify: timed out, interrupted or spurious
	// Interrupted: of TimedOut, the parks on this blocker that the
	// thread's interrupt ended (WakeInterrupted); 0 for Object.wait, whose
	// interrupts JVMTI does not tell.
	Interrupted int
	// Spurious: of TimedOut, the parks on this blocker that returned with
	// no unpark seen, neither timed out nor interrupted (WakeSpurious).
	Spurious     int
	StillWaiting int               // not ended when the recording did
	WaitSites    []WaitSite        // most Time first
	WaitedBy     []format.ThreadID // distinct threads that waited, in order of first wait
	IdleWaits    int               // of Waits, parks of idle pool workers (state Idle)

	// WaitsBeforeAttach: of Waits, those in progress when orca attached
	// (Model.BeforeStart): WaitTime counts them from it.
	WaitsBeforeAttach int
	// UnparkedBy: for a blocker, the threads whose unpark ended its parks,
	// most parks first (Contentions: parks ended, Blamed: their time).
	UnparkedBy []Blame

	// notify calls on this object, by every thread.
	Notifies, NotifyAlls int
	NotifiesWokeNobody   int // notify/notifyAll with no thread waiting
	MaxNotifyAllBurst    int // most notifyAll calls within NotifyAllStormWindow

	// Semaphore calls, by every thread.
	Acquires, Releases int

	// Hold: how long its holders held it while others waited (hold.go),
	// by every thread; nil when no hold was measured.
	Hold *Hold
}

// Contended reports whether threads waited to take the lock: a contention
// that ended, or one still going on at the end (a deadlock's). The report, the viewer and the groups of transient locks
// all count a lock as contended by this one test.
func (l *Lock) Contended() bool { return l.Contentions+l.Open > 0 }

// OwnerChange is a moment the fold learnt who owns a monitor.
type OwnerChange struct {
	At    format.Time
	Owner format.ThreadID
}

// OwnerSpan is a stretch of a Blocked interval during which Owner held
// the monitor (0: unknown).
type OwnerSpan struct {
	Start, End format.Time
	Owner      format.ThreadID
}

// ownLen returns the number of l's owner changes, those given up to the
// spill included.
func (l *Lock) ownLen() int { return l.ownBase + len(l.OwnerChanges) }

// OwnerSpans returns the owners thread th waited for during its Blocked
// interval iv, in order: the first from iv.Start, each later one from
// when the fold learnt of it, the last (iv.Other) until iv.End. Its
// blame on the lock (Lock.Owners) is the sum of these spans. The spans
// are computed, not stored, so they cost nothing until asked for; a
// caller that keeps them all brings back the quadratic growth they avoid.
func (m *Model) OwnerSpans(th format.ThreadID, iv *Interval) iter.Seq[OwnerSpan] {
	return func(yield func(OwnerSpan) bool) {
		if iv.State != Blocked {
			return
		}
		var changes []OwnerChange
		base := 0
		switch l := m.Lock(iv.Object, Monitor); {
		case l != nil && m.ownSparse:
			// Its own alone: the others' are not kept.
			var buf []OwnerChange
			changes, base = m.ownerRange(l, int(iv.ownFrom), int(iv.ownTo), &buf)
		case l != nil:
			changes = m.ownerChanges(l, m.ownerCache())
		}
		ownerSpans(th, iv, changes, base, yield)
	}
}

// ownerSpans is OwnerSpans of a Blocked interval on a lock whose owner
// changes from the base-th on are all; yield does not escape (the
// holders' pass calls it for a contention its thread's blame log could
// not hold).
func ownerSpans(th format.ThreadID, iv *Interval, all []OwnerChange, base int, yield func(OwnerSpan) bool) {
	var room [8]OwnerSpan // most contentions' spans: on the stack
	for _, sp := range appendOwnerSpans(room[:0], th, iv, all, base) {
		if !yield(sp) {
			return
		}
	}
}

// appendOwnerSpans appends ownerSpans' spans to dst. The aggregate makes
// every contention's so, in a slice it keeps: through a callback, each
// span was a call of a closure that appended it (~10 instructions a span,
// ~2 spans a contention at 32 MB).
func appendOwnerSpans(dst []OwnerSpan, th format.ThreadID, iv *Interval, all []OwnerChange, base int) []OwnerSpan {
	var changes []OwnerChange
	if from, to := int(iv.ownFrom)-base, int(iv.ownTo)-base; to <= len(all) && to > 0 {
		if from < 0 {
			// Builder.releaseChanges keeps those a contention still to be
			// folded reads.
			panic("model: owner changes given up before a contention that reads them was folded")
		}
		changes = all[from:to]
	}
	cur, start := iv.First, iv.Start
	named := format.Time(math.MinInt64) // when th was named the owner at its end
	for _, c := range changes {
		// As Builder.newOwner: a thread never waits for itself, and
		// lines of two threads can be out of order by a little, so a
		// change never goes back before the span it ends began.
		if c.Owner == th {
			// Another thread named th the owner (its contended enter
			// read it) before th's own MonitorContendedEntered was
			// posted (up to 77 ms later on a loaded Jetty): th owned
			// the monitor from then, and the rest of its contention,
			// the event's delay, is blamed on no one (0) — not on the
			// owner before it — until a later change names another.
			if t := max(c.At, start); cur != 0 && t < iv.End {
				dst = append(dst, OwnerSpan{start, t, cur})
				cur, start = 0, t
			} else if cur != 0 {
				// Named at its end: no span of its own, but, as in the
				// fold (newOwner's namedAt), a later change (a line out
				// of order) comes no earlier (FuzzModelText's
				// named-at-end-then-owned).
				named = max(named, t)
			}
			continue
		}
		if c.Owner == cur {
			continue
		}
		t := max(c.At, start, named)
		dst = append(dst, OwnerSpan{start, t, cur})
		cur, start = c.Owner, t
	}
	return append(dst, OwnerSpan{start, max(iv.End, start), cur})
}

// Releases reports whether iv, an interval of a holder of lock, is its
// release of that lock: an Object.wait on the monitor, or a park on a
// condition of the java.util.concurrent lock (Condition.await fully
// releases it; Conditions). The holder had let it go, and the next owner
// was not in yet: the hand-off. A wait or park on another object (a
// condition of another lock: a nested lockout) is not one: the holder
// still holds the lock then.
func (m *Model) Releases(iv *Interval, lock LockRef) bool {
	r, ok := m.Released(iv)
	return ok && r == lock
}

// Released returns the lock that iv, an interval of a thread, is a release
// of (Releases): the monitor of an Object.wait, the java.util.concurrent
// lock of the condition a park (not an acquire's) is on; false for any
// other interval, and for a park on a condition whose lock is not known.
func (m *Model) Released(iv *Interval) (LockRef, bool) {
	switch {
	case iv.State == Waiting:
		return LockRef{iv.Object, Monitor}, true
	case (iv.State == Parked || iv.State == Idle) && !iv.Acquire && m.Conditions != nil:
		if l, ok := m.Conditions[iv.Object]; ok {
			return LockRef{l, JUCLock}, true
		}
	}
	return LockRef{}, false
}

// HandOff returns, for a park in a java.util.concurrent lock's acquire
// (Acquire) that another thread's unpark ended (WakeUnpark: the releaser,
// Other), when that unpark came, or the park's Start if it came before
// (a permit): from then to End the lock was being handed off to this
// thread — its releaser had let it go (AQS's release unparks the next
// waiter after it frees the lock), and this thread was not in yet. ok is
// false for any other interval. The fold knows the unpark when the park
// ends (Builder.endParked); the holders' pass counts the hand-off as
// released (Doing.Released), whoever the contentions name the holder.
func (iv *Interval) HandOff() (from format.Time, ok bool) {
	if !iv.Acquire || iv.Wake != WakeUnpark {
		return 0, false
	}
	return iv.End - format.Time(uint64(iv.ownFrom)<<32|uint64(iv.ownTo)), true
}

// setHandOff notes that the park iv (Acquire), ending at end, was
// unparked by another thread at u: HandOff.
func (iv *Interval) setHandOff(u, end format.Time) {
	d := uint64(max(end-max(u, iv.Start), 0))
	iv.ownFrom, iv.ownTo = uint32(d>>32), uint32(d)
}

// ParkOwner is the thread a park in a java.util.concurrent lock's acquire
// (Interval.Acquire) is blamed on: the lock's owner when the thread parked,
// or, unknown, the thread whose unpark ended the park; 0 when neither is
// known.
func (iv *Interval) ParkOwner() format.ThreadID {
	if iv.First != 0 {
		return iv.First
	}
	return iv.Other
}

// BlameSpans returns whom thread th's interval iv is blamed on, and for
// which stretch of it: a monitor contention's OwnerSpans, or a park in a
// java.util.concurrent lock's acquire its ParkSpans (its ParkOwner, then
// each waiter the lock was handed to meanwhile); nothing
// for another state. Lock.Owners' Blamed is the sum of these spans (and,
// for a lock acquired in several parks, of the gaps of at most ReparkGap
// between them), so an export that sums them per owner gives the report's
// blame.
func (m *Model) BlameSpans(th format.ThreadID, iv *Interval) iter.Seq[OwnerSpan] {
	return m.BlameSpansIn(nil, th, iv)
}

// ParkSpans yields whom thread th's park iv, in a java.util.concurrent
// lock's acquire (Interval.Acquire), waited for from from (its start, or
// the end of the park before it in the same acquire) to its end: its
// ParkOwner, then each thread that got the lock in a hand-off meanwhile
// (Model.handOffs: a waiter before it in the queue, let in by the release
// of the owner before). It returns false when yield did.
func (m *Model) ParkSpans(th format.ThreadID, from format.Time, iv *Interval, yield func(OwnerSpan) bool) bool {
	var w handOffWindow
	return parkSpans(th, from, iv.End, iv.ParkOwner(), m.handOffsOver(iv.Object, from, iv.End, &w), yield)
}

// HandOffs keeps the locks' hand-offs a reader of every park read back
// last (ParkSpansIn, BlameSpansIn), and where each park found its place in
// them: the holders' pass's cursor (parkCursor), the next park on a lock
// most often within the window read for the last (a thread's parks come
// in order of time). ParkSpans reads a window of each park's lock anew:
// an export of an hour of Tomcat spent 178 of its 480 CPU-s reading and
// allocating them. The zero HandOffs is empty; one reader's, for one
// Model.
type HandOffs struct {
	pc parkCursor
}

// Reset empties h for another Model's reader, its rooms kept.
func (h *HandOffs) Reset() { h.pc.reset() }

// ParkSpansIn is ParkSpans with the hand-offs read back into h's windows,
// kept for the next park.
func (m *Model) ParkSpansIn(h *HandOffs, th format.ThreadID, from format.Time, iv *Interval, yield func(OwnerSpan) bool) bool {
	i, hs := h.pc.find(m, iv.Object, from, iv.End)
	return parkSpansAt(th, i, from, iv.End, iv.ParkOwner(), hs, yield)
}

// BlameSpansIn is BlameSpans with a park's hand-offs read back into h's
// windows (ParkSpansIn); nil h: a window of the park's own (ParkSpans).
func (m *Model) BlameSpansIn(h *HandOffs, th format.ThreadID, iv *Interval) iter.Seq[OwnerSpan] {
	return func(yield func(OwnerSpan) bool) {
		switch {
		case iv.State == Blocked:
			for sp := range m.OwnerSpans(th, iv) {
				if !yield(sp) {
					return
				}
			}
		case iv.Acquire && h == nil:
			m.ParkSpans(th, iv.Start, iv, yield)
		case iv.Acquire:
			m.ParkSpansIn(h, th, iv.Start, iv, yield)
		}
	}
}

// HandOffIn says whether the java.util.concurrent lock obj was handed off
// (Model.handOffs) at a time after from and before end.
func (m *Model) HandOffIn(obj format.ObjectID, from, end format.Time) bool {
	var w handOffWindow
	hs := m.handOffsOver(obj, from, end, &w)
	i := handOffAfter(hs, from)
	return i < len(hs) && hs[i].At < end
}

// parkSpans is ParkSpans of a park of th from from to end whose owner when
// it parked is owner, on a lock whose hand-offs are hs.
func parkSpans(th format.ThreadID, from, end format.Time, owner format.ThreadID, hs []OwnerChange, yield func(OwnerSpan) bool) bool {
	return parkSpansAt(th, handOffAfter(hs, from), from, end, owner, hs, yield)
}

// handOffAfter returns the index of the first of hs (in order of At) after
// t: a binary search written out, where slices.BinarySearchFunc called its
// comparison through a pointer at each step (1.6 of c1G's CPU-s, the
// holders' pass and the aggregation's).
func handOffAfter(hs []OwnerChange, t format.Time) int {
	lo, hi := 0, len(hs)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if hs[h].At <= t {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// parkSpansAt is parkSpans with i, the first hand-off after from
// (handOffAfter).
func parkSpansAt(th format.ThreadID, i int, from, end format.Time, owner format.ThreadID, hs []OwnerChange, yield func(OwnerSpan) bool) bool {
	cur, start := owner, from
	for ; i < len(hs) && hs[i].At < end; i++ {
		h := hs[i]
		if h.Owner == th || h.Owner == cur {
			continue
		}
		if !yield(OwnerSpan{start, h.At, cur}) {
			return false
		}
		cur, start = h.Owner, h.At
	}
	return yield(OwnerSpan{start, max(end, start), cur})
}

// OwnerChangesIn returns how many times the owner thread th waited for
// changed during its Blocked interval iv (its spans less one).
func (m *Model) OwnerChangesIn(th format.ThreadID, iv *Interval) int {
	n := -1
	for range m.OwnerSpans(th, iv) {
		n++
	}
	return max(n, 0)
}

// OwnerAt returns the owner thread th waited for at at during its Blocked
// interval iv.
func (m *Model) OwnerAt(th format.ThreadID, iv *Interval, at format.Time) format.ThreadID {
	owner := iv.First
	for sp := range m.OwnerSpans(th, iv) {
		if sp.Start > at {
			break
		}
		owner = sp.Owner
	}
	return owner
}

// Segments returns the intervals of t with each Blocked interval split at
// its owner changes, as the model stored them before owner changes were
// kept once per lock: the later segments of a contention are Cont with
// its Since, each names its owner in Other. It is for checks and tests;
// a front end that shows every segment grows as contentions × waiters.
func (m *Model) Segments(t *Thread) iter.Seq[Interval] {
	return func(yield func(Interval) bool) {
		for i := range t.Intervals {
			iv := &t.Intervals[i]
			if iv.State != Blocked {
				if !yield(*iv) {
					return
				}
				continue
			}
			// A span is yielded when the next is known: only the last
			// one is Open.
			var prev Interval
			n := 0
			for sp := range m.OwnerSpans(t.ID, iv) {
				if n > 0 && !yield(prev) {
					return
				}
				prev = *iv
				prev.Start, prev.End, prev.Other, prev.Cont, prev.Open = sp.Start, sp.End, sp.Owner, n > 0, false
				n++
			}
			prev.Open = iv.Open
			if !yield(prev) {
				return
			}
		}
	}
}

// EdgeKind names a relation between two threads.
type EdgeKind uint8

// Edge kinds.
const (
	EdgeWake    EdgeKind = iota // From's notify/notifyAll ended To's wait
	EdgeStart                   // From started To
	EdgeJoin                    // To's join returned because From ended
	EdgeRelease                 // From's release let To's acquire finish
	EdgeOwner                   // To blocked on a monitor From owned
	EdgeUnpark                  // From's unpark ended To's park
	NumEdgeKinds
)

var edgeNames = []string{"wake", "start", "join", "release", "owner", "unpark"}

// String returns the edge kind's name.
func (k EdgeKind) String() string {
	if int(k) >= len(edgeNames) {
		return "unknown"
	}
	return edgeNames[k]
}

// Edge links an event of one thread to an event of another.
type Edge struct {
	// FromTime is the notify, the start, the target's end, the release, the unpark, or
	// (owner) when To began waiting for From (the contention's start, or
	// the owner change that made From the one waited for).
	FromTime format.Time
	ToTime   format.Time // the wake-up, first event, join return, acquire return or entry
	From, To format.ThreadID
	Object   format.ObjectID
	// Kind and the flag come last: 32 bytes an edge instead of 40.
	Kind      EdgeKind
	Ambiguous bool // another thread could equally be the one
}

// Deadlock is a cycle in the wait-for graph (thread -> monitor owner,
// thread -> j.u.c. lock owner, thread -> joined thread): Model.WaitGraphAt
// shows it at every instant it stood.
type Deadlock struct {
	At      format.Time       // when the cycle formed
	Threads []format.ThreadID // the cycle, each waits for the next (and the last for the first)
	Objects []format.ObjectID // what each thread waits on (0 for a join)
	Stacks  []StackID         // where each thread waits
	States  []State           // what each thread does: Blocked (a monitor), Joining, Parked (a j.u.c. lock)
	AtEnd   bool              // the recording ended with the cycle intact (a hang)
	// Resolved is when the cycle broke (0 if AtEnd). A monitor deadlock never
	// breaks; a cycle that does came from a timed join or from an owner the
	// recording no longer knew (the owner released the monitor and another
	// thread took it without contention, which records nothing).
	Resolved format.Time
}

// Lasted returns how long the cycle stood (to the end of the recording if AtEnd).
func (d Deadlock) Lasted(end format.Time) format.Time {
	if d.AtEnd {
		return end - d.At
	}
	return d.Resolved - d.At
}

// Model is the folded recording.
type Model struct {
	// handOffs: per java.util.concurrent lock (its blocker object), the
	// parks in its exclusive acquire that got it (an unpark by its
	// releaser ended them) while other threads stayed parked on it, in
	// time order: the owner from then (At, the park's end), for the parks
	// of those others (ParkSpans). A fair lock's convoy blamed every
	// waiter's whole park on the owner when it parked, the first holder,
	// though the waiters before it held the lock in turn (Convoy.java).
	handOffs map[format.ObjectID][]OwnerChange
	// handSpill: per lock, its hand-offs before those in handOffs, given
	// up to the spill (Builder.releaseHandOffs; handOffsOver reads them).
	handSpill  map[format.ObjectID]*handOffSpill
	Start, End format.Time
	Threads    []*Thread // sorted by Start, then ID
	// Locks: sorted by Blocked+OpenTime, then Contentions+Open
	// (descending), then Object, Kind. The members of Groups that the
	// fold kept as records (dormant blockers, dormant.go) are not among
	// them: Lock makes theirs when asked, NumLocks counts them.
	Locks []*Lock
	// ClassInits: the JVM's locks of classes being initialised (ClassInitLock
	// lines), in the order first named, with the waits on them that ended.
	ClassInits []*ClassInit
	// Groups are the transient objects of Locks waited or parked on, one
	// per class and call site (groups.go), most WaitTime first.
	Groups []*Group
	Edges  []Edge // sorted by ToTime; none when built with Options.NoEdges
	// EdgeCounts counts the edges by kind, kept or not.
	EdgeCounts [NumEdgeKinds]int
	// edges: where the edges are in the spill (Options.SpillEdges; Edges
	// is then nil), read by EdgesFrom, EdgesTo and StartJoinEdges;
	// memEdges: their index of Edges otherwise.
	edges     *spilledEdges
	memEdges  *memEdges
	Deadlocks []Deadlock
	// LockOrders: the contended monitor enters of threads that held other
	// monitors then, the same ones once with their count, in the order of
	// their first (MonitorHeld lines; lockorder.go).
	LockOrders []LockOrder
	// lateEntries are the spans in which the fold held a thread, still
	// blocked in the recording, to have entered its monitor (or lock):
	// another thread named it the owner (waitFor.set); and those in which
	// a thread's line came behind that of the thread it waits for (the
	// fold paired the wait only with that thread's later state:
	// Builder.waitsLate). WaitGraphAt leaves its wait out then, as the
	// fold's deadlock detection did.
	lateEntries []lateEntry
	// lateFloor: the latest end of a late entry let go
	// (Options.EndGraphOnly): WaitGraphAt is not asked before it.
	lateFloor format.Time
	// Stacks holds every distinct stack; Stacks[0] is empty.
	Stacks [][]format.Frame
	Events int
	// PeakIntervals is the most intervals the fold held in memory at once:
	// all of them, but with Options.DropIntervals, which gives up those
	// fed to the spill and behind the split of the threads' windows
	// (docs/streaming.md).
	PeakIntervals int
	// IntervalsRead counts the intervals read back from the spill (each
	// read of a thread's counts them all): the fold's, for a window split
	// again, and the analyses' after it (TestHoldersAndChainsRead).
	IntervalsRead int
	// PeakSamples is the most samples the fold held in memory at once: all
	// of them, but with Options.DropIntervals, which gives up a thread's
	// once it has ended (Builder.retire) and puts them in the spill.
	PeakSamples int
	// LetGoThreads counts the threads whose fold state the fold let go
	// as they retired (Builder.letGo, with Options.PackThreads), and
	// WokenThreads those made again from their state at rest after,
	// nothing having held the one let go (Builder.wakeThread).
	LetGoThreads, WokenThreads int
	// PeakOwnerChanges is the most owner changes (Lock.OwnerChanges) the
	// fold held in memory at once: all of them, but with
	// Options.DropIntervals (Builder.releaseChanges).
	PeakOwnerChanges int
	// ownCache: the owner changes OwnerSpans read back from the spill.
	ownCache ownerCache
	// ivRoom: the packed bytes IntervalsOf reads a thread's intervals
	// back into (readIntervals), kept for the next call.
	ivRoom []byte
	// ownSparse: the locks' owner changes in the spill are those a reader
	// reads alone (Options.SpansFromLogs; Lock.ownAt).
	ownSparse bool
	// StackMarked: the threads' StackMarks are set (Options.StackMark).
	StackMarked bool
	// Samples counts the threads' samples; SchedTimes is set when the
	// recording has ThreadCPU lines (the threads' scheduler times).
	Samples    int
	SchedTimes bool
	// Cut is set when the agent could not write the recording whole (a
	// full disk): the recording ends at Cut.At, and the states threads
	// were in then are unknown after it, not hangs (their intervals are
	// Open, to Cut.At).
	Cut *Cut
	// Shutdown is the first sign that the JVM was shutting down (0: none):
	// the start of the thread the JDK runs a SIGTERM or SIGINT handler in
	// ("SIGTERM handler", which calls System.exit), or the earliest state
	// or thread start whose stack has a frame of java.lang.Shutdown
	// (System.exit, the end of main through DestroyJavaVM, the shutdown
	// hooks) — ShutdownStack. States entered after it are the exit's own.
	Shutdown format.Time
	// IdleWaits are the stacks of Object.wait calls of threads waiting for
	// work (IdleWaitStack: java.util.Timer's thread between tasks); nil when
	// none. Such a wait is Waiting, with its notify accounting, but open at
	// the end it is no hang, as an Idle park is not (analysis.OpenAtEnd).
	IdleWaits map[StackID]bool
	// Conditions: the synchronizer each condition belongs to, by the
	// condition (a ConditionLock line: a ConditionObject park blocker and
	// its this$0, a ReentrantLock's sync); nil when none. A thread parked
	// on one in Condition.await has released that lock (Releases).
	Conditions map[format.ObjectID]format.ObjectID
	// Unparked: threads unparked by another thread (ThreadUnpark) whose
	// park did not end by the end of the recording, and when: a park still
	// open at the end that began before it was released (the JVM exited
	// before the thread ran; analysis.Released).
	Unparked map[format.ThreadID]format.Time
	// Unfinished: the JVM did not end normally (.info has complete=false:
	// killed, crashed, or still running when the recording was read). The
	// recording ends at the agent's last flush; the events of the moments
	// after it (up to a flush period, 200 ms by default) are lost, so a
	// state open at the end may have ended unrecorded just after it.
	Unfinished bool
	// Attached: the recording began with an attach to the running JVM
	// (.info attached=true, orca record --pid): the threads alive then and
	// the states they were in begin at Start, but began at or before it,
	// when is not known (BeforeStart).
	Attached bool
	// parkEndsUnknown: the recording does not say how parks ended (.info
	// park_ends=unknown: a JFR import), each is WakeTimeout (Reparked).
	parkEndsUnknown bool
	// Problems are events the fold could not place (a Waited without its
	// Wait, an event after ThreadEnded, …), with the line they came from.
	Problems []string
	// OwnerEnded counts the contended monitor enters whose named owner had
	// ended before the thread blocked: a thread that ended holds nothing, so
	// the fold takes the owner for unknown. The agent wrote such enters until
	// 2026-12-02 (TestOwnerLeft): one timed after its reading of the held
	// monitors kept the owner read before it, which could have let the
	// monitor go and ended meanwhile (Tomcat 25 with virtual threads: 19 of
	// 6 368 enters, docs/perf/2026-12-02-jfr-servers.md). Not the exit of a
	// thread that locks its own Thread object to notify its joiners.
	OwnerEnded int
	// siteOf maps a stack to the first stack with the same source line in
	// every frame (SiteStack); nil: each stack is its own.
	siteOf []StackID
	// byThread: a test's index of the threads by ID (IndexThread);
	// foldTh: the fold's (Builder.th, the Threads by their tstate's t),
	// not an index of its own beside it (a map was ~30 bytes a thread at
	// the fold's end: 38 MB of c5G-slow5's); thIdx: the index of Threads
	// by ID once the fold is done (indexThreads), the two nil.
	byThread map[format.ThreadID]*Thread
	foldTh   *foldIndex
	thIdx    []uint32
	byObject map[lockKey]*Lock
	// objs: the fold's objects (objFold), when built with Options.Reuse
	// (kept with it, as the Locks are): Class from their dense slab, not
	// from each Lock (a push's thousands of objects were a miss of the
	// cache each).
	objs *probeTab[*objFold]
	// byNum: the fold's objects by their number (objFold.num; byNum[0]
	// nil), when objs is kept: Model.ObjectNum's.
	byNum []*objFold
	// locksInObjs: byObject is empty, Lock answers from objs (a push's
	// build: Options.Reuse and NoLockFigures, whose readers find a lock by
	// Lock alone; a store in byObject for each new lock, most of them a
	// park's once, was 2 % of a push's CPU).
	locksInObjs bool
	// foldObjs: while the fold goes (Builder), its objects, and byObject
	// empty: Lock and Class answer from these, and Finalize fills
	// byObject from the Locks alive then (indexLocks). A store and a
	// delete in byObject for each of the millions of objects a server's
	// hour parks on once, most of them dormant soon after (dormant.go).
	foldObjs *probeTab[*objFold]
	// recs: the dormant blockers grouped (Groups' members not in Locks),
	// their objects and slots in recs (object<<32 | slot) sorted in recBy
	// (Lock, Class).
	recs  *blkRecs
	recBy []uint64
	// holds: the locks' hold times as the fold made them (Lock.Hold).
	holds map[lockKey]*lockHolds
	// initLocks: the ClassInits by object (Model.InitLock).
	initLocks map[format.ObjectID]*ClassInit
	// leftLocked: Lock.LeftLocked of the locks a build without the
	// parks' locks (Options.NoParkLocks, a push's) did not keep, by
	// object (LeftLockedOf).
	leftLocked map[format.ObjectID][]LeftLocked
	// spill: the threads' intervals and samples in a temporary file
	// (Options.Spill, spill.go), nil when built without.
	spill *spillFile
	// dropped: the threads' intervals are in the spill alone
	// (Options.DropIntervals).
	dropped bool
	// packed: the Threads packed (Options.PackThreads), nil when none.
	packed *threadPack
}

// lockKey is a lock's object and kind: a word, which a map hashes as
// plain memory (a struct of the two has padding, hashed field by field).
type lockKey uint64

func lockOf(obj format.ObjectID, kind LockKind) lockKey {
	return lockKey(obj)<<8 | lockKey(kind)
}

// Cut is where and why a recording was cut.
type Cut struct {
	At     format.Time // the last event written before the first failed write; the recording's End
	Reason string      // the failed write ("PREFIX.orca: No space left on device")
	// After counts the events in the file after At: written by a later
	// write that succeeded, they follow a gap and are not folded.
	After int
}

// BeforeStart reports whether something seen to begin at t began before
// the recording, at an unknown time: in an attached recording (Attached),
// what begins at Start is what the attach's snapshot found (a thread
// alive, a state it was in), begun at or before it. Its duration from
// Start is a lower bound.
func (m *Model) BeforeStart(t format.Time) bool { return m.Attached && t <= m.Start }

// Thread returns the thread with id, or nil.
func (m *Model) Thread(id format.ThreadID) *Thread {
	if m.byThread != nil || m.thIdx == nil {
		if m.byThread == nil && m.foldTh != nil {
			ts, n := m.foldTh.find(id)
			if ts != nil && ts.tp != nil {
				return ts.tp
			}
			if n >= 0 {
				return m.ThreadAt(n) // a copy: packed (let go or not)
			}
			return nil
		}
		return m.byThread[id]
	}
	if i := m.threadIndex(id); i >= 0 {
		return m.ThreadAt(i)
	}
	return nil
}

// threadIndex returns the index in Threads of the thread id, -1 when
// none, once the fold is done (thIdx).
func (m *Model) threadIndex(id format.ThreadID) int {
	for i := threadSlot(id, len(m.thIdx)); ; i = (i + 1) & (len(m.thIdx) - 1) {
		x := m.thIdx[i]
		if x == 0 {
			return -1
		}
		if m.ThreadIDAt(int(x-1)) == id {
			return int(x - 1)
		}
	}
}

// ThreadIndexWith returns the index in Threads of the thread id, -1 when
// none, by the Model's index of its threads, with ids the threads' IDs by
// index (a caller's copy: ThreadIDAt reads a thread's record, one more
// miss of the cache a probe); ok false when the Model has no such index
// (one not built as orca report's: Thread's map). The wait chains find
// their nodes so, not by an index of their own as large (16 MB of
// c5G-slow5's report at its peaks).
func (m *Model) ThreadIndexWith(id format.ThreadID, ids []format.ThreadID) (_ int, ok bool) {
	if m.byThread != nil || m.thIdx == nil {
		return -1, false
	}
	for i := threadSlot(id, len(m.thIdx)); ; i = (i + 1) & (len(m.thIdx) - 1) {
		x := m.thIdx[i]
		if x == 0 {
			return -1, true
		}
		if ids[x-1] == id {
			return int(x - 1), true
		}
	}
}

// threadSlot is id's first slot in an index of n slots (a power of 2),
// by probeTab's hash.
func threadSlot(id format.ThreadID, n int) int {
	return probeHash(uint64(id), uint8(64-bits.TrailingZeros(uint(n))))
}

// indexThreads replaces the fold's map of the threads by ID with thIdx,
// once Threads is in its final order: a table of their indexes (+1, 0 for
// none) by their IDs' hash, probed in turn, at least twice as many slots
// as threads: 4 to 8 bytes a thread where the map took ~40 (1.3 M threads
// at 5 GB).
func (m *Model) indexThreads() {
	n := 16
	for n < 2*len(m.Threads) {
		n *= 2
	}
	m.thIdx = make([]uint32, n)
	for k := range m.Threads {
		i := threadSlot(m.ThreadIDAt(k), n)
		for m.thIdx[i] != 0 {
			i = (i + 1) & (n - 1)
		}
		m.thIdx[i] = uint32(k + 1)
	}
	m.byThread, m.foldTh = nil, nil
}

// ThreadIndex yields the entries of the index behind Thread, in no order,
// for a validator to check against Threads (modeltest.Validate).
func (m *Model) ThreadIndex() iter.Seq2[format.ThreadID, *Thread] {
	if m.byThread == nil && m.thIdx == nil && m.foldTh != nil {
		return func(yield func(format.ThreadID, *Thread) bool) {
			for n, ts := range m.foldTh.byNum {
				var t *Thread
				if ts != nil {
					t = ts.tp
				}
				if t == nil {
					t = m.ThreadAt(n)
				}
				if !yield(m.foldTh.idOf(n), t) {
					return
				}
			}
		}
	}
	if m.byThread != nil || m.thIdx == nil {
		return maps.All(m.byThread)
	}
	return func(yield func(format.ThreadID, *Thread) bool) {
		for _, x := range m.thIdx {
			if x != 0 && !yield(m.ThreadIDAt(int(x-1)), m.ThreadAt(int(x-1))) {
				return
			}
		}
	}
}

// Lock returns the lock of that kind on obj, or nil. A group's member the
// model keeps as a record (not in Locks) is made a Lock at each call: a
// value of its own, what the aggregation would have finished.
func (m *Model) Lock(obj format.ObjectID, kind LockKind) *Lock {
	var l *Lock
	switch {
	case m.locksInObjs || m.foldObjs != nil:
		if o := m.objFold(obj); o != nil && o.ls[kind] != nil {
			l = o.ls[kind].l
		}
		if m.locksInObjs {
			return l
		}
	default:
		l = m.byObject[lockOf(obj, kind)]
	}
	if l != nil || kind != Blocker {
		return l
	}
	return m.recLock(obj)
}

// NumLocks is how many locks the model has: Locks, and the members of
// Groups kept as records (Lock makes their Locks when asked).
func (m *Model) NumLocks() int { return len(m.Locks) + len(m.recBy) }

// Class returns the class signature of an object as its locks know it (an
// ObjectClass line, a semaphore's), "" when unknown: the name of the
// monitor, waited object, semaphore or park blocker of an interval.
//
// The locks of an object that know a class all know the same (the fold
// gives each the object's ObjectClass line, and a later one to all; a
// semaphore's own name only while the object has none), so the order
// asked in is the cheapest: a blocker (most objects of a push are a
// park's alone: one look-up), then a monitor.
func (m *Model) Class(obj format.ObjectID) string {
	if obj == 0 {
		return ""
	}
	return m.classOf(obj, m.objFold(obj))
}

// Object returns obj's number in the model and its class (Class). The
// objects a state or an ObjectClass line named are numbered from 1 in
// the order the fold met them, densely, so that a reader of many (a
// push's OTLP builder: one object a request's future) keeps what it
// knows of each in a slice by number, not in a map by id, and learns
// the class in the same look-up. num is 0, and class "", when obj is
// unknown, or the model was built without Options.Reuse (the fold's
// objects are not kept then: Class tells the class).
func (m *Model) Object(obj format.ObjectID) (num int, class string) {
	if m.objs == nil {
		return 0, "" // not kept: Class tells the class
	}
	o := m.objFold(obj)
	if o == nil {
		return 0, ""
	}
	return int(o.num), m.classOf(obj, o)
}

// ObjectNum returns the number of iv's object in the model (Object's num)
// without a look-up of the object, 0 when the model numbers none, or
// iv is on no object. ObjectClass tells its class.
func (m *Model) ObjectNum(iv *Interval) int {
	if n := int(iv.objNum); n > 0 && n < len(m.byNum) {
		return n
	}
	return 0
}

// ObjectClass returns the class (Class) of obj, whose number in the
// model is num (ObjectNum, Object).
func (m *Model) ObjectClass(obj format.ObjectID, num int) string {
	if num > 0 && num < len(m.byNum) {
		return m.classOf(obj, m.byNum[num])
	}
	return m.Class(obj)
}

// objFold returns the fold's entry of obj, nil when none was kept.
func (m *Model) objFold(obj format.ObjectID) *objFold {
	objs := m.objs
	if m.foldObjs != nil {
		objs = m.foldObjs
	}
	if objs == nil {
		return nil
	}
	if p := objs.lookup(uint64(obj)); p != nil {
		return *p
	}
	return nil
}

// classOf is Class of obj, whose fold entry is o (nil: none kept).
func (m *Model) classOf(obj format.ObjectID, o *objFold) string {
	if o != nil && o.class != "" {
		if o.parked {
			return o.class // a park's lock, not kept (Options.NoParkLocks)
		}
		for _, ls := range o.ls {
			if ls != nil {
				return o.class // every lock of it knows it
			}
		}
		return ""
	}
	for _, k := range []LockKind{Blocker, Monitor, JUCLock, Semaphore} {
		var l *Lock
		switch {
		case !m.locksInObjs && m.foldObjs == nil:
			l = m.byObject[lockOf(obj, k)]
		case o != nil && o.ls[k] != nil:
			l = o.ls[k].l
		}
		if l != nil && l.Class != "" {
			return l.Class
		}
	}
	if r, ok := m.rec(obj); ok {
		return m.recs.classes[r.cls]
	}
	return ""
}

// NotifyAllStormWindow is the span within which repeated notifyAll calls on
// one object count as a burst.
const NotifyAllStormWindow = format.Time(10e6) // 10 ms
