package model

import (
	"math"
	"slices"
	"strings"

	"orca/internal/format"
	"orca/internal/reader"
)

// Parking (ThreadPark … ThreadUnparked, ThreadUnpark, ObjectClass): a park
// is an interval in state Parked, or Idle for a thread waiting for work (a
// pool's worker, a queue's consumer), on its blocker (a Lock of kind Blocker, whose waits count the
// parks); the unpark that ended it is an edge, as a notify is for a wait.

// park opens a park of ts.
func (b *Builder) park(ts *tstate, ev *reader.Event, stack StackID) {
	if n := len(ts.body.open); n > 0 {
		if s := ts.body.open[n-1].iv.State; s == Acquiring || s == Joining || s == Sleeping {
			// Semaphore.acquire and Thread.join park on some JDKs, and a
			// virtual thread's Thread.sleep parks (JFR records both): the
			// outer state says more.
			ts.body.parkNest++
			return
		}
	}
	st := Parked
	if b.idle != nil && b.idleOf.of(stack, b.frames(), b.idle) {
		st = Idle
	}
	owner := ev.Owner
	if owner == ev.Thread {
		owner = 0 // a reentrant lock it holds: it does not wait for itself
	}
	acquire := st == Parked && ev.Object != 0 && isAcquire(ev.Mode, owner, func() bool {
		if b.acquire == nil || !b.acquireOf.of(stack, b.frames(), b.acquire) {
			return false
		}
		cls := b.classOf(ev.Object)
		return !NotALock(cls) && !(b.shared != nil && b.sharedOf.of(stack, b.frames(), b.shared) && NotASharedLock(cls))
	}, func() bool { return SharedLock(b.classOf(ev.Object)) })
	// A consumer waiting in a queue's take or poll waits for work, as a
	// pool's idle worker does (ThreadPoolExecutor.getTask is one): idle.
	if st == Parked && !acquire && b.take != nil && b.takeOf.of(stack, b.frames(), b.take) {
		st = Idle
	}
	// A shared acquire (a read lock's) may be let in by another reader
	// passing the wake-up on: endParked.
	ts.body.parkShared = acquire && (ev.Mode == format.ModeShared ||
		ev.Mode == format.ModeNone && b.shared != nil && b.sharedOf.of(stack, b.frames(), b.shared))
	kind := Blocker
	var ots *tstate
	if acquire {
		kind = JUCLock
		if owner != 0 {
			ots = b.thread(owner, ev.Time)
		}
	}
	timeout := TimeoutNone // park(): the timeout field is empty
	if ev.Timeout >= 0 {
		timeout = TimeoutSet
	}
	from := b.wf.chainFrom(ts, ots, ev.Time)
	var ls *lstate
	if b.noParkLocks {
		// No lock kept (Options.NoParkLocks): its object is marked a
		// lock's, whose class Model.Class tells.
		b.obj(ev.Object).parked = true
	} else {
		ls = b.lock(ev.Object, kind)
		if !acquire {
			ls.parks++
		}
	}
	if acquire {
		of := b.obj(ev.Object)
		if owner != 0 && of.acqParked > 0 {
			// Others are parked on it: the owner it names holds it now
			// (one that barged in after a hand-off, Model.handOffs).
			b.handOff(ls, ev.Object, ev.Time, owner)
		}
		if of.acqParked < math.MaxUint16 {
			of.acqParked++ // endParked's
		}
		b.parkBegun(ls, ts, ev.Time)
	}
	if acquire && ots != nil && ots.ended {
		// Its owner had ended: it never released the lock (HoldSleep.java's
		// "ghost" locks a ReentrantLock and returns).
		if ls != nil {
			b.leftLocked(&ls.l.LeftLocked, ots)
		} else {
			if b.m.leftLocked == nil {
				b.m.leftLocked = map[format.ObjectID][]LeftLocked{}
			}
			ll := b.m.leftLocked[ev.Object]
			b.leftLocked(&ll, ots)
			b.m.leftLocked[ev.Object] = ll
		}
	}
	o := b.push(ts, Interval{Start: ev.Time, State: st, Object: ev.Object, Stack: stack, First: owner, Acquire: acquire, Timeout: timeout}, ls, waitsNow(ots, from, ev.Time), ev)
	switch {
	case ls == nil:
		// No hold times nor conditions (NoLockFigures) to note.
	case acquire:
		b.parkedOn(o.ls, ts, ev)
	default:
		if cl := b.blockerCondition(o.ls); cl != nil {
			cl.hold.releases(ts.id, ev.Time) // Condition.await released the lock
		}
	}
	b.waitsLate(ts, o, ots, ev.Object, ev.Time, from)
}

// conditionOf returns the j.u.c. lock that obj is a condition of (a
// ConditionLock line named it), when threads contended it; else nil.
func (b *Builder) conditionOf(obj format.ObjectID) *lstate {
	if i := condBit(obj); b.condBits[i/64]&(1<<(i%64)) == 0 {
		return nil
	}
	l, ok := b.m.Conditions[obj]
	if !ok {
		return nil
	}
	return b.lockIf(l, JUCLock)
}

// blockerCondition is conditionOf the object of bl, a park's blocker,
// kept in bl until a condition or a j.u.c. lock is added (condGen): a
// pool's workers park on their queue's condition again and again.
func (b *Builder) blockerCondition(bl *lstate) *lstate {
	if bl.condGen != b.condGen {
		bl.cond, bl.condGen = b.conditionOf(bl.l.Object), b.condGen
	}
	return bl.cond
}

// condChanged says a condition or a j.u.c. lock was added: every
// blocker's blockerCondition is asked again.
func (b *Builder) condChanged() {
	if b.condGen++; b.condGen == 0 {
		b.condGen = 1 // 0 is a new lock's
	}
}

// condBits is the size of Builder.condBits, in bits.
const condBits = 1024

// condBit is obj's bit in Builder.condBits.
func condBit(obj format.ObjectID) uint64 {
	return uint64(obj) * 0x9E3779B97F4A7C15 >> 54 // the top 10 bits: condBits
}

// isAcquire decides whether a park on a synchronizer is a lock's contended
// acquire (its blocker a lock, its owner blamed) or a wait on the
// synchronizer, by the mode the agent saw (format.FMode): an exclusive
// acquire is a lock's; a shared one (a latch's await, a semaphore's
// acquire, a read lock's) is a wait, unless an exclusive owner holds the
// synchronizer (a read lock blocked by a writer: that writer is the owner),
// or the synchronizer is a read-write lock's (sharedLock: its class): a
// reader parks with no owner when a writer is queued ahead of it, not yet
// in (a non-fair read lock yields to a writer at the head of the queue, a
// fair one to anyone), and that is a contention of the lock all the same
// (RWStarve.java, docs/perf/2026-12-02-unseen-programs-3.md: three
// readers' parks behind a queued writer were "parked on
// ReentrantReadWriteLock$NonfairSync", not blocked). Any other
// AbstractQueuedSynchronizer comes out right, whatever its class and the
// stack depth recorded. A park that names an owner is a lock's. Without a
// mode or an owner (a park not in an acquire, recordings made before the
// field, imports) byStack decides: frames and class names.
func isAcquire(mode format.AcquireMode, owner format.ThreadID, byStack, sharedLock func() bool) bool {
	switch {
	case mode == format.ModeExclusive:
		return true
	case mode == format.ModeShared:
		return owner != 0 || sharedLock()
	case owner != 0:
		// The agent names an owner only of an AbstractOwnableSynchronizer
		// blocker (its exclusive owner), and writes no mode then: a thread
		// parks on one that another holds only in its acquire.
		return true
	}
	return byStack()
}

// stackCache is a predicate of a stack's frames, computed once per
// stack: by StackID (the stack tables number them densely from 0), 0 not
// asked yet, else 1 + the answer. A park asks three of them: a slice, not
// a map (their look-ups were 2 % of a push's CPU).
type stackCache []uint8

// of returns f(frames[stack]) for stack (frames: Builder.frames), computed
// once per stack: the stack's frames are not read again.
func (c *stackCache) of(stack StackID, frames [][]format.Frame, f func([]format.Frame) bool) bool {
	if int(stack) < len(*c) {
		if v := (*c)[stack]; v != 0 {
			return v == 2
		}
	} else {
		*c = slices.Grow(*c, int(stack)+1-len(*c))
		*c = (*c)[:cap(*c)]
	}
	v := f(frames[stack])
	(*c)[stack] = 1
	if v {
		(*c)[stack] = 2
	}
	return v
}

// unparked ends the park of ts.
func (b *Builder) unparked(ts *tstate, ev *reader.Event) {
	if ts.body.parkNest > 0 {
		ts.body.parkNest--
		// Its unpark is used up all the same: it must not end a later park.
		if u, ok := b.unparkOf(ts); ok && u.at <= ev.Time && ev.How != format.ParkEndTimeout && ev.How != format.ParkEndInterrupted {
			b.dropUnpark(ts)
		}
		return
	}
	n := len(ts.body.open)
	if n == 0 || ts.body.open[n-1].iv.State != Parked && ts.body.open[n-1].iv.State != Idle {
		b.problem(ev, "no %s before it", format.ThreadPark)
		return
	}
	ts.body.parkHow = ev.How
	b.pop(ts, ts.body.open[n-1].iv.State, ev)
}

// setUnpark notes u, the latest unpark of thread th: in its body when it
// has one, else in Builder.unparks.
func (b *Builder) setUnpark(th format.ThreadID, u pendingUnpark) {
	if ts := b.known(th); ts != nil && ts.body != &restBody {
		ts.body.unpark, ts.body.hasUnpark = u, true
		if len(b.unparks) > 0 {
			delete(b.unparks, th) // an older one, noted before it had a body
		}
		return
	}
	b.unparks[th] = u
}

// unparkOf returns the latest unpark of ts not yet matched, ok false for
// none.
func (b *Builder) unparkOf(ts *tstate) (pendingUnpark, bool) {
	if ts.body.hasUnpark {
		return ts.body.unpark, true
	}
	if len(b.unparks) == 0 {
		return pendingUnpark{}, false
	}
	u, ok := b.unparks[ts.id]
	return u, ok
}

// dropUnpark forgets the latest unpark of ts: matched.
func (b *Builder) dropUnpark(ts *tstate) {
	if ts.body.hasUnpark {
		ts.body.hasUnpark = false
		return
	}
	delete(b.unparks, ts.id)
}

// endParked ends a park at at: how, and which unpark ended it. An unpark
// is a permit: it ends the park in progress, or the next one.
func (b *Builder) endParked(ts *tstate, o *openIv, at format.Time, how ending) {
	others := false // other threads still parked in an acquire of its lock
	if o.iv.Acquire {
		if o.ls != nil {
			o.ls.clock = max(o.ls.clock, at) // handOff
			b.parkEnded(o.ls, ts)
		}
		of := b.obj(o.iv.Object)
		if of.acqParked > 0 && of.acqParked < math.MaxUint16 {
			of.acqParked--
		}
		others = of.acqParked > 0
	}
	switch how {
	case endOpen:
		o.iv.Wake = WakeNever
		return
	case endForced:
		o.iv.Wake = WakeTimeout
		return
	}
	o.iv.Wake = WakeTimeout
	switch ts.body.parkHow {
	case format.ParkEndInterrupted:
		o.iv.Wake = WakeInterrupted
		return
	case format.ParkEndTimeout:
		return
	}
	th := ts.id
	if ts.body.parkHow == format.ParkEndUnparked {
		// Returned neither timed out nor interrupted: if no other
		// thread's unpark is found below, a spurious wake-up, its own
		// permit, or an unparker not recorded.
		o.iv.Wake = WakeSpurious
	}
	u, ok := b.unparkOf(ts)
	if !ok || u.at > at {
		return // spurious, or by a thread not recorded (a virtual thread's)
	}
	b.dropUnpark(ts)
	if u.by == th {
		return // its own permit
	}
	o.iv.Wake, o.iv.Other = WakeUnpark, u.by
	if o.iv.Acquire {
		o.iv.setHandOff(u.at, at)
		if ts.body.parkShared {
			if u.passedOn == o.iv.Object && u.passed != th {
				// Its unparker, itself let in by passed's release a moment
				// before, passed the wake-up on in its own acquire (AQS's
				// signalNextIfShared, StampedLock's cowaiters): passed's
				// release let this one in too, and ended its contention.
				o.iv.Other = u.passed
			}
			ts.body.acqEnd = acqEnd{obj: o.iv.Object, by: o.iv.Other, at: at}
		} else if others {
			b.handOff(o.ls, o.iv.Object, at, th)
		}
	}
	b.edges.add(Edge{Kind: EdgeUnpark, From: u.by, To: th, FromTime: u.at, ToTime: at, Object: o.iv.Object})
}

// objectClass records the class of obj, for its locks now and later.
func (b *Builder) objectClass(obj format.ObjectID, class string) {
	o := b.obj(obj)
	o.class = class
	for _, ls := range o.ls {
		if ls != nil {
			ls.l.Class = class
		}
	}
}

// idleFrames are the methods in which a thread that parks waits for work:
// a pool's worker between tasks. "Class.method", the class as Class.getName
// gives it; a class without a package matches any package (see IdleStack).
var idleFrames = []string{
	// java.util.concurrent.ThreadPoolExecutor (fixed, cached and scheduled
	// pools: LinkedBlockingQueue, SynchronousQueue, DelayedWorkQueue) and
	// Tomcat's copy of it (org.apache.tomcat.util.threads).
	"ThreadPoolExecutor.getTask",
	"java.util.concurrent.ForkJoinPool.awaitWork", // ForkJoinPool, the common pool, CompletableFuture's async
	"org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll",
	"org.eclipse.jetty.util.thread.QueuedThreadPool.idleJobPoll",
	"org.eclipse.jetty.util.thread.ReservedThreadExecutor$ReservedThread.reservedWait",
	"jdk.internal.ref.CleanerImpl.run", // Common-Cleaner and other Cleaners (JDK 21+ park)
	// ForkJoinPool's timer thread (JDK 25: ForkJoinPool-1-delayScheduler, the
	// timeouts of virtual threads' parks and sleeps): waits for the next delay.
	"java.util.concurrent.DelayScheduler.loop",
}

// machinery are the packages and classes a thread waiting for work parks
// through, between Unsafe.park and the pool's method: the locks and queues.
var machinery = []string{
	"jdk.internal.misc.", "java.util.concurrent.", "java.lang.ref.ReferenceQueue",
	"org.eclipse.jetty.util.BlockingArrayQueue", "org.apache.tomcat.util.threads.TaskQueue",
}

// IdleStack reports whether a park at stack (innermost first) is a pool
// worker waiting for work. The rule: going out from the park, the first
// frame that is not a lock's or a queue's (machinery) is one of
// idleFrames. So a task that blocks inside a pool's worker — its own frames
// between the park and the pool — is not idle, even though the pool's
// run loop is further out on its stack. A class in idleFrames matches in
// full, or by its simple name for "ThreadPoolExecutor.getTask" (Tomcat's
// copy). name gives a frame's class (as Class.getName) and method, "" when
// unknown.
func IdleStack(stack []format.Frame, name func(format.Frame) (class, method string)) bool {
	for _, f := range stack {
		cls, meth := name(f)
		if meth == "" {
			return false
		}
		for _, w := range idleFrames {
			c, m, _ := cutLast(w, ".")
			if m == meth && (cls == c || !strings.Contains(c, ".") && strings.HasSuffix(cls, "."+c)) {
				return true
			}
		}
		inner := false
		for _, p := range machinery {
			inner = inner || strings.HasPrefix(cls, p)
		}
		if !inner {
			return false
		}
	}
	return false
}

// TakeStack reports whether a park at stack (innermost first) is a
// consumer's wait for an element of a queue: going out from the park
// through the locks' machinery (jdk.internal.misc, j.u.c.locks, on JDK 17
// ForkJoinPool.managedBlock) and java.util.concurrent's own inner methods, a
// frame of a take or poll (any variant: takeFirst, pollLast) of a class
// whose simple name ends in Queue or Deque — java.util.concurrent's
// (ArrayBlockingQueue, LinkedBlockingDeque, SynchronousQueue,
// LinkedTransferQueue, DelayQueue, …) or a library's (Jetty's
// BlockingArrayQueue, an event loop's task queue) — before any other frame.
// Such a thread waits for work, whoever calls it: its park is Idle, as a
// pool's idle worker's is. name is as for IdleStack.
func TakeStack(stack []format.Frame, name func(format.Frame) (class, method string)) bool {
	for _, f := range stack {
		cls, meth := name(f)
		switch {
		case meth == "":
			return false
		case strings.HasPrefix(cls, "jdk.internal.misc.") || strings.HasPrefix(cls, "java.util.concurrent.locks."):
			continue
		}
		simple := cls[strings.LastIndexByte(cls, '.')+1:]
		if i := strings.IndexByte(simple, '$'); i >= 0 {
			simple = simple[:i] // SynchronousQueue$TransferStack, a queue's nodes
		}
		queue := strings.HasSuffix(simple, "Queue") || strings.HasSuffix(simple, "Deque")
		if queue && (strings.HasPrefix(meth, "take") || strings.HasPrefix(meth, "poll")) {
			return true
		}
		if !strings.HasPrefix(cls, "java.util.concurrent.") {
			return false
		}
	}
	return false
}

// idleWaitFrames are the methods in which a thread that calls Object.wait
// waits for work, "Class.method" as in idleFrames: java.util.Timer's thread
// waiting for its next task — wait() while its queue is empty, wait(long)
// until the next task is due (ActiveMQ's InactivityMonitor timers idle
// there once the connections that scheduled tasks have closed).
var idleWaitFrames = []string{"java.util.TimerThread.mainLoop"}

// IdleWaitStack reports whether an Object.wait at stack (innermost first)
// is a thread waiting for work: going out from the wait, the first frame
// not of java.lang.Object (wait, wait0) is one of idleWaitFrames. name is
// as for IdleStack.
func IdleWaitStack(stack []format.Frame, name func(format.Frame) (class, method string)) bool {
	for _, f := range stack {
		cls, meth := name(f)
		if cls == "java.lang.Object" {
			continue
		}
		return slices.Contains(idleWaitFrames, cls+"."+meth)
	}
	return false
}

// AcquireStack reports whether a park at stack (innermost first) is in
// the acquire of a java.util.concurrent lock: a frame of
// AbstractQueuedSynchronizer (or its Long twin) or StampedLock whose
// method's name starts with "acquire" — ReentrantLock.lock, both locks of
// a read-write lock, StampedLock's readLock and writeLock (acquireRead,
// acquireWrite), and the re-acquire after Condition.await, but not the
// await itself (ConditionObject's park). Latches and semaphores acquire too: NotALock
// tells them by the blocker's class. name is as for IdleStack.
func AcquireStack(stack []format.Frame, name func(format.Frame) (class, method string)) bool {
	for _, f := range stack {
		cls, meth := name(f)
		if (cls == "java.util.concurrent.locks.AbstractQueuedSynchronizer" || cls == "java.util.concurrent.locks.AbstractQueuedLongSynchronizer" ||
			cls == "java.util.concurrent.locks.StampedLock") && strings.HasPrefix(meth, "acquire") {
			return true
		}
	}
	return false
}

// SharedAcquireStack reports whether a park at stack (innermost first) is
// in a shared acquire of an AbstractQueuedSynchronizer (or its Long twin):
// a frame of it whose method's name starts with "acquireShared" — a
// latch's await, a semaphore's acquire, a read lock's lock — or
// StampedLock.acquireRead (its readLock). name is as for IdleStack.
func SharedAcquireStack(stack []format.Frame, name func(format.Frame) (class, method string)) bool {
	for _, f := range stack {
		cls, meth := name(f)
		if (cls == "java.util.concurrent.locks.AbstractQueuedSynchronizer" || cls == "java.util.concurrent.locks.AbstractQueuedLongSynchronizer") &&
			strings.HasPrefix(meth, "acquireShared") || cls == "java.util.concurrent.locks.StampedLock" && meth == "acquireRead" {
			return true
		}
	}
	return false
}

// NotASharedLock tells, for a park in a shared acquire without a mode (an
// import from JFR, a StampedLock's), a synchronizer that is no lock: any
// but a read-write lock's sync or a StampedLock, whose read lock is one (a latch of the program's own, such as
// HSQLDB's CountUpDownLatch, waits for a count, as the agent's mode shows).
// A class not known (empty) is taken for a lock, as before.
func NotASharedLock(class string) bool {
	return class != "" && !strings.Contains(class, "ReadWriteLock$") && !strings.Contains(class, "/StampedLock;")
}

// SharedLock tells, by its class signature, a synchronizer whose shared
// acquire is a lock's: a read-write lock's sync (ReentrantReadWriteLock's
// and the like: a nested class of a ...ReadWriteLock) or a StampedLock. A
// class not known (empty) is not one: a shared acquire with no owner is
// then taken for a wait (a latch's await).
func SharedLock(class string) bool {
	return class != "" && !NotASharedLock(class)
}

// NotALock tells the synchronizers that acquire without being locks (a
// permit or a count, no owner): CountDownLatch's and Semaphore's syncs, by
// class signature. Only for parks without a mode (isAcquire).
func NotALock(class string) bool {
	return strings.Contains(class, "/CountDownLatch$") || strings.Contains(class, "/Semaphore$")
}

// UntimedWait reports whether an Object.wait at stack (innermost first)
// is a call of Object.wait(), which waits until notified: among the
// frames of java.lang.Object at the top of the stack (the native wait,
// and on JDK 19+ wait(long) around wait0), one is wait with signature
// ()V. A call of wait(long) or wait(long, int) may have any timeout,
// 0 (none) included: the agent does not record it. name gives a frame's
// class (as Class.getName), method and signature, "" when unknown.
func UntimedWait(stack []format.Frame, name func(format.Frame) (class, method, signature string)) bool {
	for _, f := range stack {
		cls, meth, sig := name(f)
		if cls != "java.lang.Object" {
			return false
		}
		if meth == "wait" && sig == "()V" {
			return true
		}
	}
	return false
}

// ShutdownStack reports whether a stack is the JVM's shutdown: it has a
// frame of java.lang.Shutdown (Runtime.exit and System.exit call
// Shutdown.exit, DestroyJavaVM Shutdown.shutdown at the end of main, and
// both run the shutdown hooks from Shutdown.runHooks). name is as for
// IdleStack.
func ShutdownStack(stack []format.Frame, name func(format.Frame) (class, method string)) bool {
	for _, f := range stack {
		if cls, _ := name(f); cls == "java.lang.Shutdown" {
			return true
		}
	}
	return false
}

// ShutdownThread reports whether a thread's name is that of the thread in
// which the JDK runs its SIGTERM or SIGINT handler (jdk.internal.misc.Signal
// names it "SIGTERM handler"): the handler calls System.exit. Other
// signals' handlers are the application's (a SIGHUP may reload a
// configuration) and are not taken for a shutdown.
func ShutdownThread(name string) bool {
	return name == "SIGTERM handler" || name == "SIGINT handler"
}

// cutLast splits s at its last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// ForeverWait: an Object.wait whose timeout is this long or longer (a
// century: wait(Long.MAX_VALUE), a JDK idiom for "until notified") is
// untimed: it cannot end by itself.
const ForeverWait format.Time = 100 * 365 * 24 * 3600 * 1_000_000_000

// LateEntered is how long after the line that ended its contention (push)
// a MonitorContendedEntered is still taken as that contention's.
const LateEntered format.Time = 1_000_000

// leftLocked notes in ls, a lock's LeftLocked, a park that named ots, a
// thread that had ended, the owner.
func (b *Builder) leftLocked(ls *[]LeftLocked, ots *tstate) {
	for i := range *ls {
		if ll := &(*ls)[i]; ll.Thread == ots.id {
			ll.Parks++
			return
		}
	}
	if len(*ls) < maxLeftLocked {
		*ls = append(*ls, LeftLocked{Thread: ots.id, Ended: b.tOf(ots).End, Parks: 1})
	}
}

// handOff notes that th holds the j.u.c. lock obj from at while other
// threads are parked on it: got in a hand-off (its releaser's unpark
// ended its park), or named the owner by a park (a thread that barged in,
// taking it without a park of its own). Their parks wait for th from then
// (Model.handOffs, ParkSpans). Kept in time order (a line behind another
// thread's goes before the later ones); nothing is noted when th held it
// already. Not before the latest end of a park in an acquire of ls (its
// clock; ls is nil when the parks' locks are not kept): that park's blame
// may be summed already (aggregator.jucContention), and a line behind it
// (two threads' lines out of order by a little) must not name another
// owner over it: as a monitor's owner named behind its clock (owned), the
// word holds from then (FuzzModelText's handoff-behind-park-end).
func (b *Builder) handOff(ls *lstate, obj format.ObjectID, at format.Time, th format.ThreadID) {
	m := b.m
	if ls != nil {
		at = max(at, ls.clock)
	}
	sp := m.handSpill[obj]
	if sp != nil {
		// Not before those given up to the spill (releaseHandOffs):
		// the parks that read them are fed, as a park's behind ls.clock.
		at = max(at, sp.last.At)
	}
	if m.handOffs == nil {
		m.handOffs = map[format.ObjectID][]OwnerChange{}
	}
	hs := m.handOffs[obj]
	i := len(hs)
	for i > 0 && hs[i-1].At > at {
		i--
	}
	if i > 0 && hs[i-1].Owner == th || i == 0 && sp != nil && sp.last.Owner == th {
		return
	}
	m.handOffs[obj] = slices.Insert(hs, i, OwnerChange{At: at, Owner: th})
	if ls != nil && !ls.handing && b.dropIntervals {
		ls.handing = true
		b.handing = append(b.handing, ls) // releaseHandOffs
	}
}
