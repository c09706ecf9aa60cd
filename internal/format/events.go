// Package format is the single source of truth for the Orca recording format
// and its two-way codec: the event table shared by the Go reader and the C
// agent (agent/core/events.h is generated from it, `make gen`), the .ext table,
// the .info keys, the format and agent versions, the text encodings of the
// fields, and Writer, through which every Go program that writes a
// recording (orca import, the synthetic generator, tests) writes it.
// internal/reader is the reader of the same files.
package format

// Kind identifies an event kind of the .orca file.
type Kind uint8

// The event kinds of the Orca back-end manual §3.2, in the order the agent
// numbers them, then Orca's own kinds (parking, object classes; docs/format.md,
// "Beyond the manual"). Zero is reserved for "no event".
const (
	KindNone Kind = iota
	ObjectWait
	ObjectWaited
	ObjectNotify
	ObjectNotifyAll
	ThreadStart
	ThreadJoin
	ThreadJoined
	ThreadSleep
	ThreadSlept
	SemaphoreAcquire
	SemaphoreAcquired
	SemaphoreRelease
	MonitorContendedEnter
	MonitorContendedEntered
	ThreadStarted
	ThreadEnded
	// Orca's kinds beyond the manual's 16 (SeedKinds): the agent's kinds=seed
	// option leaves them out.
	ThreadPark     // Unsafe.park (every LockSupport.park*) began
	ThreadUnparked // … and returned, with how
	ThreadUnpark   // Unsafe.unpark of another thread
	ObjectClass    // the class of an object (park blocker, monitor), at its first sight
	// Virtual threads (JDK 21+): facts about a virtual thread, which is
	// otherwise a thread like any other (its own identity and name).
	VirtualThreadMounted // a virtual thread seen on a carrier (target) other than the last: it is virtual
	VirtualThreadPinned  // a virtual thread blocks pinned to its carrier (target): its open park or sleep parks the carrier
	// MonitorOwned: the thread holds the monitor object, which another
	// thread inflated while it held it fast-locked unmounted (JDK 24+): the
	// owner the blocked threads' MonitorContendedEnter could not name.
	MonitorOwned
	// Class initialisation (JDK 17, 22+: HotSpot's init lock, an int[] in
	// the class's mirror, docs/agent.md "Class initialisation"):
	// ClassInitLock names an object the JVM locks to link or initialise a
	// class (the class the thread's frame asked for, "" when no frame names
	// one), before the first line of the thread about it; ClassInitWaited:
	// the thread's wait for another thread's initialisation of that class
	// ended (HotSpot posts no event when it begins: its start is not seen).
	ClassInitLock
	ClassInitWaited
	// ObjectWaitTimeout: the thread's Object.wait that begins at the same
	// time (its ObjectWait line) waits at most this long, in nanoseconds
	// (wait(ms)). Written only for a timed wait, with the ObjectWait; an
	// untimed wait (wait(), wait(0)) has none when the recording's .info
	// says wait_timeouts=yes.
	ObjectWaitTimeout
	// Sample: the thread was interrupted by the agent's sampler (issue 33,
	// docs/format.md "Samples"): its stack at that instant (innermost first;
	// native and VM frames as methods of a native pseudo-class,
	// NativeClassPrefix), what kind of sample (FSampled) and how many
	// nanoseconds of the thread's time it stands for (FWeight). A mounted
	// virtual thread's sample is the virtual thread's. Begins no interval.
	Sample
	// ThreadCPU: the thread's scheduler times so far (Linux schedstat):
	// nanoseconds on a CPU (FCPU) and runnable waiting for one (FReady),
	// cumulative since the OS thread began. Written for every thread at the
	// recording's start or the thread's first event (its baseline), then
	// periodically when they changed, and last by the thread itself at its
	// end (before its ThreadEnded). The model takes differences.
	ThreadCPU
	// MonitorHeld: a monitor the thread held when its contended enter of
	// another began (the MonitorContendedEnter of the same thread at the
	// same time, which it follows), taken in the frame at FDepth of that
	// enter's stack (0: the innermost; empty when not known: a JNI
	// MonitorEnter, or a frame past the stack's depth). One line a monitor
	// held, outermost first; none when it held none. The potential
	// deadlocks' lock-order graph is made of them (docs/report-json.md,
	// "Potential deadlocks").
	MonitorHeld
	// LockHeld: a java.util.concurrent lock (a ReentrantLock, either lock of
	// a ReentrantReadWriteLock: FObject their synchronizer, the object a park
	// on it names) the thread held when a contended acquisition of another
	// lock began: its MonitorContendedEnter, or its ThreadPark in the acquire
	// of such a lock, of the same thread at the same time, which it follows
	// (after that acquisition's MonitorHeld lines). FMode: exclusive (a
	// ReentrantLock, a write lock) or shared (a read lock); FDepth: the
	// frame of that acquisition's stack that took it (the innermost frame of
	// the method that called lock), empty when not known. One line a lock
	// held (a lock held twice, reentered, once); none when it held none.
	// Written with orca record --lock-order only (.info held_locks).
	LockHeld
	// ConditionLock: the condition FObject (an AbstractQueuedSynchronizer's
	// or AbstractQueuedLongSynchronizer's ConditionObject, a park blocker)
	// belongs to the synchronizer FLock (its this$0: a ReentrantLock's
	// sync, the object a park in the lock's acquire names). A fact about
	// the object, as ObjectClass: written once, with its ObjectClass, before
	// the first line that names the condition (its ThreadPark). A thread
	// parked on it in Condition.await had released that lock
	// (docs/report-json.md, "What the holders did").
	ConditionLock
	NumKinds
)

// SeedKinds is the number of kinds the manual defines: kinds 1..SeedKinds.
const SeedKinds = 16

// Seed reports whether k is one of the manual's 16 kinds.
func (k Kind) Seed() bool { return k >= 1 && k <= SeedKinds }

// Field is the meaning of one event argument after the timestamp and name.
type Field uint8

// Fields an event can carry, in the order they appear on a line.
const (
	FThread  Field = iota + 1 // hash code of the current thread
	FObject                   // hash code of the object (monitor, semaphore)
	FTarget                   // hash code of another thread (started, joined)
	FOwner                    // hash code of the owner thread, 00000000 if unknown
	FName                     // thread name, text
	FStack                    // stack trace: depth;methodID;location;…
	FTimeout                  // a park's or a wait's timeout: decimal nanoseconds, empty for none
	FHow                      // how a park ended: unparked, timeout, interrupted, empty when unknown
	FClass                    // a class signature, "Ljava/lang/Object;" (text)
	// FMode: how a park acquires its blocker, an AbstractQueuedSynchronizer
	// (or its Long twin): exclusive, shared, or empty when the park is not in
	// such an acquire or the agent could not tell. Lines written before it
	// existed have one field fewer; readers take both.
	FMode
	// FSampled: what a Sample is (SampleKind): cpu (a CPU-time timer of the
	// thread fired: it was running) or wall (the wall-clock sampler signalled
	// a thread that was in no recorded state and not on a CPU: "other").
	FSampled
	// FWeight: the nanoseconds of the thread's time a Sample stands for (the
	// CPU interval; a wall sample: the wall interval times the threads that
	// were eligible per thread signalled). Decimal in the text.
	FWeight
	// FCPU, FReady: a ThreadCPU's cumulative nanoseconds on a CPU and
	// runnable but waiting for one. Decimal in the text.
	FCPU
	FReady
	// FDepth: a MonitorHeld's frame depth in its enter's stack, decimal;
	// empty when not known.
	FDepth
	// FLock: the identity hash of an object that is a lock (a
	// ConditionLock's synchronizer), 8 hex digits as FObject.
	FLock
)

// SampleKind is what a Sample is (FSampled).
type SampleKind uint8

// Sample kinds.
const (
	SampleNone SampleKind = iota // not known (written empty)
	SampleCPU                    // the thread was on a CPU (its CPU-time timer fired)
	SampleWall                   // the thread was runnable in no recorded state and not on a CPU ("other": I/O, native, the VM)
	NumSampleKinds
)

var sampleKindNames = [NumSampleKinds]string{"", "cpu", "wall"}

// String returns the word written in the FSampled field ("" for none).
func (s SampleKind) String() string { return word(sampleKindNames[:], s) }

// ParseSampleKind returns the SampleKind written as s.
func ParseSampleKind(s string) (SampleKind, bool) {
	return parseWord[SampleKind](sampleKindNames[:], s)
}

// NativeClassPrefix begins the signature of the pseudo-class of a native
// (C, C++) or VM frame in a Sample's stack: "<native:libjvm.so>" is the
// class of the functions of libjvm.so ("<native:?>" when the library is
// not known). The method's name is the symbol ("" when none), its
// signature empty, the frame's location NoLocation. No Java type
// descriptor begins with '<'.
const NativeClassPrefix = "<native:"

// IsNativeClass reports whether sig is a native pseudo-class's signature.
func IsNativeClass(sig string) bool {
	return len(sig) > len(NativeClassPrefix) && sig[:len(NativeClassPrefix)] == NativeClassPrefix
}

// AcquireMode is how a park acquires its synchronizer (FMode).
type AcquireMode uint8

// Acquire modes.
const (
	ModeNone      AcquireMode = iota // not an acquire of a synchronizer, or not known (written empty)
	ModeExclusive                    // an exclusive acquire: a lock (ReentrantLock, a write lock, any AQS's acquire)
	ModeShared                       // a shared acquire: a latch's await, a semaphore's or a read lock's acquire
	NumModes
)

var modeNames = [NumModes]string{"", "exclusive", "shared"}

// String returns the word written in the FMode field ("" for none).
func (m AcquireMode) String() string { return word(modeNames[:], m) }

// ParseAcquireMode returns the AcquireMode written as s.
func ParseAcquireMode(s string) (AcquireMode, bool) { return parseWord[AcquireMode](modeNames[:], s) }

// TextFields are the fields the agent writes from a record's text bytes
// (a thread name, a class, a timeout, how a park ended): a kind has at most
// one, after its thread, object and owner and before its stack.
var TextFields = []Field{FName, FTimeout, FHow, FClass, FDepth}

// ParkEnd says how a park ended (FHow).
type ParkEnd uint8

// How a park ended.
const (
	ParkEndUnknown     ParkEnd = iota // not known (written empty)
	ParkEndUnparked                   // returned with neither timeout nor interrupt: an unpark (or a spurious wake-up)
	ParkEndTimeout                    // its timeout elapsed
	ParkEndInterrupted                // the thread was interrupted
	NumParkEnds
)

var parkEndNames = [NumParkEnds]string{"", "unparked", "timeout", "interrupted"}

// String returns the word written in the FHow field ("" for unknown).
func (p ParkEnd) String() string { return word(parkEndNames[:], p) }

// ParseParkEnd returns the ParkEnd written as s.
func ParseParkEnd(s string) (ParkEnd, bool) { return parseWord[ParkEnd](parkEndNames[:], s) }

// word returns the word of v among names, the words of a byte field (how,
// mode, sampled) by value; "" for a value past them.
func word[T ~uint8](names []string, v T) string {
	if int(v) >= len(names) {
		return ""
	}
	return names[v]
}

// parseWord returns the value whose word among names is s.
func parseWord[T ~uint8](names []string, s string) (T, bool) {
	for i, n := range names {
		if n == s {
			return T(i), true
		}
	}
	return 0, false
}

// Spec describes one event kind: its name on the line and its fields.
type Spec struct {
	Kind   Kind
	Name   string
	Fields []Field
	// End is the kind that ends the interval this kind begins
	// (ObjectWait: ObjectWaited), KindNone when it begins none. The two
	// lines of a pair are written by the same thread, and the end carries
	// the same object (or target) as its begin.
	End Kind
}

var (
	thrObjStack = []Field{FThread, FObject, FStack}
	thrTgtStack = []Field{FThread, FTarget, FStack}
	thrStack    = []Field{FThread, FStack}
)

// Specs is the event table, indexed by Kind.
var Specs = [NumKinds]Spec{
	ObjectWait:              {ObjectWait, "ObjectWait", thrObjStack, ObjectWaited},
	ObjectWaited:            {ObjectWaited, "ObjectWaited", thrObjStack, KindNone},
	ObjectNotify:            {ObjectNotify, "ObjectNotify", thrObjStack, KindNone},
	ObjectNotifyAll:         {ObjectNotifyAll, "ObjectNotifyAll", thrObjStack, KindNone},
	ThreadStart:             {ThreadStart, "ThreadStart", thrTgtStack, KindNone},
	ThreadJoin:              {ThreadJoin, "ThreadJoin", thrTgtStack, ThreadJoined},
	ThreadJoined:            {ThreadJoined, "ThreadJoined", thrTgtStack, KindNone},
	ThreadSleep:             {ThreadSleep, "ThreadSleep", thrStack, ThreadSlept},
	ThreadSlept:             {ThreadSlept, "ThreadSlept", thrStack, KindNone},
	SemaphoreAcquire:        {SemaphoreAcquire, "SemaphoreAcquire", thrObjStack, SemaphoreAcquired},
	SemaphoreAcquired:       {SemaphoreAcquired, "SemaphoreAcquired", thrObjStack, KindNone},
	SemaphoreRelease:        {SemaphoreRelease, "SemaphoreRelease", thrObjStack, KindNone},
	MonitorContendedEnter:   {MonitorContendedEnter, "MonitorContendedEnter", []Field{FThread, FObject, FOwner, FStack}, MonitorContendedEntered},
	MonitorContendedEntered: {MonitorContendedEntered, "MonitorContendedEntered", thrObjStack, KindNone},
	ThreadStarted:           {ThreadStarted, "ThreadStarted", []Field{FThread, FName}, KindNone},
	ThreadEnded:             {ThreadEnded, "ThreadEnded", []Field{FThread}, KindNone},
	ThreadPark:              {ThreadPark, "ThreadPark", []Field{FThread, FObject, FOwner, FTimeout, FMode, FStack}, ThreadUnparked},
	ThreadUnparked:          {ThreadUnparked, "ThreadUnparked", []Field{FThread, FObject, FHow, FStack}, KindNone},
	ThreadUnpark:            {ThreadUnpark, "ThreadUnpark", thrTgtStack, KindNone},
	ObjectClass:             {ObjectClass, "ObjectClass", []Field{FThread, FObject, FClass}, KindNone},
	VirtualThreadMounted:    {VirtualThreadMounted, "VirtualThreadMounted", []Field{FThread, FTarget}, KindNone},
	VirtualThreadPinned:     {VirtualThreadPinned, "VirtualThreadPinned", []Field{FThread, FTarget}, KindNone},
	MonitorOwned:            {MonitorOwned, "MonitorOwned", []Field{FThread, FObject}, KindNone},
	ClassInitLock:           {ClassInitLock, "ClassInitLock", []Field{FThread, FObject, FClass}, KindNone},
	ClassInitWaited:         {ClassInitWaited, "ClassInitWaited", thrObjStack, KindNone},
	ObjectWaitTimeout:       {ObjectWaitTimeout, "ObjectWaitTimeout", []Field{FThread, FTimeout}, KindNone},
	Sample:                  {Sample, "Sample", []Field{FThread, FSampled, FWeight, FStack}, KindNone},
	ThreadCPU:               {ThreadCPU, "ThreadCPU", []Field{FThread, FCPU, FReady}, KindNone},
	MonitorHeld:             {MonitorHeld, "MonitorHeld", []Field{FThread, FObject, FDepth}, KindNone},
	LockHeld:                {LockHeld, "LockHeld", []Field{FThread, FObject, FDepth, FMode}, KindNone},
	ConditionLock:           {ConditionLock, "ConditionLock", []Field{FThread, FObject, FLock}, KindNone},
}

// Fact reports whether k states a fact about its object, not an event of
// its thread (ObjectClass, ClassInitLock, ConditionLock): a chunk restates
// it, carried, before its first record that names the object when an
// earlier chunk gave it (docs/format.md, "Chunks and the state at their
// start").
func (k Kind) Fact() bool { return k == ObjectClass || k == ClassInitLock || k == ConditionLock }

// String returns the event's name as written in the .orca file.
func (k Kind) String() string {
	if k == KindNone || k >= NumKinds {
		return "Unknown"
	}
	return Specs[k].Name
}

// KindByName maps a name on an .orca line to its Kind.
var KindByName = func() map[string]Kind {
	m := make(map[string]Kind, NumKinds)
	for k := Kind(1); k < NumKinds; k++ {
		m[Specs[k].Name] = k
	}
	return m
}()

// Has reports whether events of kind k carry field f.
func (k Kind) Has(f Field) bool {
	if k == KindNone || k >= NumKinds {
		return false
	}
	if f < 64 {
		return kindFields[k]&(1<<f) != 0
	}
	for _, g := range Specs[k].Fields {
		if g == f {
			return true
		}
	}
	return false
}

// kindFields is Specs' fields of each kind as bits (1<<Field): a fold
// asks Has a few times an event.
var kindFields = func() (t [NumKinds]uint64) {
	for k := range Specs {
		for _, f := range Specs[k].Fields {
			if f < 64 {
				t[k] |= 1 << f
			}
		}
	}
	return t
}()

// End returns the kind that ends the interval k begins (ThreadSleep:
// ThreadSlept), or KindNone.
func (k Kind) End() Kind {
	if k >= NumKinds {
		return KindNone
	}
	return Specs[k].End
}

// Begin returns the kind whose interval k ends (ThreadSlept: ThreadSleep),
// or KindNone.
func (k Kind) Begin() Kind {
	if k >= NumKinds {
		return KindNone
	}
	return beginOf[k]
}

var beginOf = func() (b [NumKinds]Kind) {
	for k := Kind(1); k < NumKinds; k++ {
		if e := Specs[k].End; e != KindNone {
			b[e] = k
		}
	}
	return b
}()

// NoLocation is the location written for native frames (jlocation -1).
const NoLocation = 0xFFFFFFFF
