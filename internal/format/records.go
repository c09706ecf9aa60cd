package format

// The values of the lines of each file: what Writer writes and the reader
// reads back.

// Event is what a .orca line says. Fields its kind does not carry
// (Specs[Kind].Fields) are not written.
type Event struct {
	Time   Time
	Kind   Kind
	Thread ThreadID
	Object ObjectID // FObject: monitor or semaphore
	Target ThreadID // FTarget: started or joined thread
	Owner  ThreadID // FOwner: owner of a contended monitor, 0 if unknown
	Name   string   // FName: thread name
	Stack  []Frame  // FStack: innermost first
	// FTimeout: a park's timeout in nanoseconds, -1 for none (written empty).
	Timeout int64
	How     ParkEnd     // FHow: how a park ended
	Class   string      // FClass: a class signature
	Mode    AcquireMode // FMode: how a park acquires its synchronizer
	Sampled SampleKind  // FSampled: what a Sample is
	Weight  int64       // FWeight: the nanoseconds a Sample stands for
	CPU     int64       // FCPU: a ThreadCPU's cumulative nanoseconds on a CPU
	Ready   int64       // FReady: … runnable, waiting for a CPU
	Depth   int64       // FDepth: a MonitorHeld's frame depth, -1 when not known (written empty)
	Lock    ObjectID    // FLock: a ConditionLock's synchronizer
	// EncodedStack, when not empty, is written as the stack instead of
	// Stack: the field as EncodeStack makes it. Writers that write a few
	// stacks many times (imports, generators) encode each once.
	EncodedStack string
}

// ExtEvent is what a .ext line says. Fields its kind does not carry
// (ExtSpecs[Kind].Fields) are not written.
type ExtEvent struct {
	Time     Time
	Kind     ExtKind
	Thread   ThreadID
	Object   ObjectID
	Other    ThreadID // WaitNotifier: the notifier, 0 when none (timeout, interrupt, spurious)
	Class    string   // ObjectClass
	Timeout  int64    // ns; -1 when none (a wait or park without timeout)
	Until    int64    // ns since the Unix epoch; -1 when none
	TimedOut bool
	JavaID   int64
	OSID     int64
	Stack    []Frame
	// EncodedStack, when not empty, is written instead of Stack (Event.EncodedStack).
	EncodedStack string
}

// Method is one line of the .methods file, without its timestamp.
type Method struct {
	ID        MethodID
	Name      string // e.g. "run"
	Signature string // e.g. "()V"
	Class     ClassID
	Lines     []LineEntry // nil when the line table is missing (written as count -1)
}

// LineEntry maps a start location to a source line.
type LineEntry struct {
	Start uint32
	Line  uint32
}

// Class is one line of the .classtable file, without its timestamp.
type Class struct {
	ID        ClassID
	Signature string // e.g. "Ljava/lang/Object;"
	Source    string // e.g. "Object.java", "" when unknown
}
