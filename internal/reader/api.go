// Package reader reads an Orca recording (PREFIX.orca, .methods, .classtable
// and the optional .info) into typed events, streaming: the .orca file is
// never held in memory whole.
package reader

import (
	"orca/internal/format"
)

// Event is one line of the .orca file. Fields the kind does not carry
// (see format.Specs) are zero. The fields are in order of size, the bytes
// last: 152 bytes, not the 176 of their order by field number with its
// padding (EachEvent writes a chunk's events, 65 000 in a MB of a server's
// compact recording, and the fold reads them back).
type Event struct {
	Time   format.Time
	Thread format.ThreadID
	Target format.ThreadID // FTarget: started or joined thread
	// FOwner: owner of a contended monitor, 0 if unknown. FLock (a
	// ConditionLock's synchronizer, an object) is kept here too, in the
	// low 32 bits (no kind has both; an Event does not grow): Lock.
	Owner format.ThreadID
	Name  string         // FName: thread name
	Stack []format.Frame // FStack: innermost first
	// FTimeout: a park's timeout in nanoseconds, -1 for none; 0 for
	// kinds without the field.
	Timeout int64
	Class   string // FClass: a class signature (ObjectClass)
	Weight  int64  // FWeight: the nanoseconds a Sample stands for
	CPU     int64  // FCPU: a ThreadCPU's cumulative nanoseconds on a CPU
	Ready   int64  // FReady: … runnable, waiting for a CPU
	// FDepth: a MonitorHeld's frame depth in its enter's stack, -1 when
	// not known.
	Depth int64
	// Line is the 1-based line number in the .orca file; in a compact
	// .orca, the event's number (its line in the text when no name
	// holds a line break).
	Line   int
	Object format.ObjectID // FObject: monitor or semaphore
	// StackID is Stack's number in EachOptions.Stacks when EachEvent is
	// given one (0 for no frames), else 0.
	StackID uint32
	Kind    format.Kind
	How     format.ParkEnd // FHow: how a park ended
	// FMode: how a park acquires its synchronizer (ModeNone in recordings
	// made before the field existed).
	Mode    format.AcquireMode
	Sampled format.SampleKind // FSampled: what a Sample is
	// Carried: a compact chunk's restatement of an earlier chunk's fact (a
	// live thread's ThreadStarted, an interval it was in at the chunk's
	// start, an object's class: docs/format.md, "Chunks and the state at
	// their start"), not an event of its own. The Recording's readers hand
	// one on only where the events read so far lack that fact (the first
	// chunk kept of a bounded recording); its Line is 0.
	Carried bool
}

// Lock returns the FLock field: a ConditionLock's synchronizer (0 for
// kinds without the field).
func (e *Event) Lock() format.ObjectID {
	if !e.Kind.Has(format.FLock) {
		return 0
	}
	return format.ObjectID(e.Owner.Hash())
}

// Method is one line of the .methods file (without its timestamp).
type Method = format.Method

// LineEntry maps a start location to a source line.
type LineEntry = format.LineEntry

// Class is one line of the .classtable file (without its timestamp).
type Class = format.Class
