// Package format is the single source of truth for the Orca recording format:
// the event table shared by the Go reader and the C agent (agent/events.h is
// generated from it), and the text encodings of the fields.
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
}

var (
	thrObjStack = []Field{FThread, FObject, FStack}
	thrTgtStack = []Field{FThread, FTarget, FStack}
	thrStack    = []Field{FThread, FStack}
)

// Specs is the event table, indexed by Kind.
var Specs = [NumKinds]Spec{
	ObjectWait:              {ObjectWait, "ObjectWait", thrObjStack},
	ObjectWaited:            {ObjectWaited, "ObjectWaited", thrObjStack},
	ObjectNotify:            {ObjectNotify, "ObjectNotify", thrObjStack},
	ObjectNotifyAll:         {ObjectNotifyAll, "ObjectNotifyAll", thrObjStack},
	ThreadStart:             {ThreadStart, "ThreadStart", thrTgtStack},
	ThreadJoin:              {ThreadJoin, "ThreadJoin", thrTgtStack},
	ThreadJoined:            {ThreadJoined, "ThreadJoined", thrTgtStack},
	ThreadSleep:             {ThreadSleep, "ThreadSleep", thrStack},
	ThreadSlept:             {ThreadSlept, "ThreadSlept", thrStack},
	SemaphoreAcquire:        {SemaphoreAcquire, "SemaphoreAcquire", thrObjStack},
	SemaphoreAcquired:       {SemaphoreAcquired, "SemaphoreAcquired", thrObjStack},
	SemaphoreRelease:        {SemaphoreRelease, "SemaphoreRelease", thrObjStack},
	MonitorContendedEnter:   {MonitorContendedEnter, "MonitorContendedEnter", []Field{FThread, FObject, FOwner, FStack}},
	MonitorContendedEntered: {MonitorContendedEntered, "MonitorContendedEntered", thrObjStack},
	ThreadStarted:           {ThreadStarted, "ThreadStarted", []Field{FThread, FName}},
	ThreadEnded:             {ThreadEnded, "ThreadEnded", []Field{FThread}},
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

// NoLocation is the location written for native frames (jlocation -1).
const NoLocation = 0xFFFFFFFF
