// Package format is the single source of truth for the Orca recording format
// and its two-way codec: the event table shared by the Go reader and the C
// agent (agent/events.h is generated from it, `make gen`), the .ext table,
// the .info keys, the format and agent versions, the text encodings of the
// fields, and Writer, through which every Go program that writes a
// recording (orca import, the synthetic generator, tests) writes it.
// internal/reader is the reader of the same files.
package format

// Kind identifies an event kind of the .orca file.
type Kind uint8

// The event kinds of the Orca back-end manual §3.2, in the order the agent
// numbers them. Zero is reserved for "no event".
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
	NumKinds
)

// Field is the meaning of one event argument after the timestamp and name.
type Field uint8

// Fields an event can carry, in the order they appear on a line.
const (
	FThread Field = iota + 1 // hash code of the current thread
	FObject                  // hash code of the object (monitor, semaphore)
	FTarget                  // hash code of another thread (started, joined)
	FOwner                   // hash code of the owner thread, 00000000 if unknown
	FName                    // thread name, text
	FStack                   // stack trace: depth;methodID;location;…
)

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
}

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
	for _, g := range Specs[k].Fields {
		if g == f {
			return true
		}
	}
	return false
}

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
