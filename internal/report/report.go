// Package report turns a built model and its analyses into the report a
// user reads after a recording: deadlocks, hangs, the contended locks with
// the owners to blame and the call sites, wait/notify health and where each
// thread spent its time. One Report value feeds both outputs, WriteText for
// a terminal and WriteJSON for tools (docs/report-json.md describes every
// field), so the two never disagree.
//
// Times are seconds relative to the recording's start (model.Start, the
// first event); ids are the recording's 8-hex-digit identity hashes.
package report

import (
	"orca/internal/format"
	"orca/internal/reader"
)

// Options select what a Report shows.
type Options struct {
	// Progress, if set, is told each step of the analyses as it begins,
	// and how far the long ones have gone (done of total; total 0: not
	// counted): orca report's line on a terminal once the recording is
	// read (model.View.Progress).
	Progress func(step string, done, total int)
	// Top limits the locks, sites, threads and waits lists to their first
	// Top entries after ranking; 0 keeps all.
	Top int
	// Thread, when set, restricts threads, hangs, deadlocks, locks, sites
	// and waits to the events of the threads it matches (exact name or id,
	// else a substring of the name: analysis.ThreadFilter).
	Thread string
	// Width is the text report's target line width (default 100): table
	// columns and thread names are fitted to it; frames are never cut.
	Width int
	// Virtual lists virtual threads one by one in the text report's
	// THREADS table; by default they are one row per name pattern
	// (VirtualGroup). JSON always lists them one by one.
	Virtual bool
	// Span, when the model was built of a time range (model.Options.Span):
	// the report says the range, and its times stay seconds since the
	// recording's first event, as --from and --to take them.
	Span *reader.Span
	// Chains follows the waits to their roots (Report.Chains, issue 36):
	// opt-in for its cost.
	Chains bool
	// JSONOnly: the Report is written once, as JSON (orca report --json):
	// each listed lock's waiters and owners are not made as rows
	// (Lock.Waiters and Lock.Owners stay nil) but written from the Model
	// as WriteJSON goes, the same bytes. A busy server's hour has every
	// thread among its top ten locks' owners and waiters: 2.7 M owners,
	// 0.3 GB of rows held beside the Model at the report's peak. WriteText
	// lists none then.
	JSONOnly bool
	// NoThreadLists leaves the lists of threads out: the threads' rows
	// (Threads and VirtualGroups empty, ThreadsTotal still counted) and
	// each lock's owners and waiters (nil). What orca view reads of a
	// Report needs none, and with Top 0 they are every thread's
	// (c5G-slow5's 1.33 M threads: their rows 0.75 GB, the locks'
	// owners 1.7 GB).
	NoThreadLists bool
	// NoHolders leaves each lock's holders_doing, holders_blocked_on and
	// holders_frames out, and their fold (View.HoldersDoingWith, a read
	// of every thread's intervals) is not made: orca view reads none of
	// them of its report, and its lock details fold the holders
	// themselves (HoldersFrames names their frames as the report would).
	// With Chains the wait chains are made alone (analysis.ChainListOf).
	NoHolders bool
	// Streamed: the wait chains' rows are not made (Chains stays nil) but
	// each made from the analysis' ChainList as WriteJSON or WriteText
	// writes it, and the threads' rows (Threads nil) as WriteJSON writes
	// them, the same bytes; the text's THREADS rows are made unless
	// JSONOnly, when WriteText lists none. With --top 0 both list every
	// thread's: c1G's analysis chains made at once were 0.92 GB, its
	// report's peak.
	Streamed bool
	// LetGoTails: the Model is read by this Report alone (orca report):
	// the threads' tails are let go once the hangs are found
	// (model.Model.LetGoTails), before the wait chains, and the locks'
	// hold times by stack, summed in their Hold already (LetGoHolds). A
	// later reader of the Model that asks for a tail reads the thread's
	// intervals back from the spill; a later View of some threads has no
	// hold times.
	LetGoTails bool
}

// Report is everything a report shows, ready to print or encode as JSON.
// Lists are never nil, so they encode as [] rather than null.
type Report struct {
	Prefix     string  `json:"prefix"`
	Command    *string `json:"command"`      // .info command, null without it
	PID        *string `json:"pid"`          // .info pid
	Java       *string `json:"java_version"` // .info java_version
	OriginS    float64 `json:"origin_s"`     // the recording's start on the file's clock (what orca dump prints)
	DurationS  float64 `json:"duration_s"`
	Events     int     `json:"events"`
	ThreadsAll int     `json:"threads_count"`
	Filter     *Filter `json:"filter"`

	ParseErrors       int      `json:"parse_errors"`
	ParseErrorSamples []string `json:"parse_error_samples"`
	Truncated         bool     `json:"truncated"`
	// TruncatedWhy: why the last record is cut short (reader.TruncatedWhy),
	// "" when it is not.
	TruncatedWhy string `json:"truncated_why,omitempty"`
	// Unclosed: a compact .orca ends in a chunk without its trailer
	// (docs/format.md, "The format as a contract"): written up to there.
	Unclosed bool `json:"unclosed,omitempty"`
	// lastFile is the file the last events are in (reader's
	// LastEventsFile): what a cut record or an unclosed chunk is named by.
	lastFile string
	Complete *bool `json:"complete"`
	// Live: a JVM still writes the recording (it holds the lock on
	// PREFIX.orca): complete is false because it runs, not because it was
	// killed.
	Live bool `json:"live"`
	// Bounded: a recording kept within --max-size/--max-age (nil for
	// another): which span is kept, how much was deleted.
	Bounded *Bounded `json:"bounded,omitempty"`
	// Range: the report is of a time range of the recording (--from,
	// --to, --last); nil for the whole.
	Range *Range `json:"range,omitempty"`
	// Attached: the agent was loaded into the running JVM (orca record
	// --pid); nil for a recording that began with the JVM.
	Attached      *Attached `json:"attached,omitempty"`
	DroppedEvents *int64    `json:"dropped_events"`
	DroppedAtExit *int64    `json:"dropped_at_exit"` // .info dropped_at_exit: of DroppedEvents, dropped by the bounded flush at exit
	// WrittenLate: .info written_late, event lines the agent wrote behind
	// later ones (put after the writer had written past their time); 0
	// when none or not said.
	WrittenLate int64 `json:"written_late,omitempty"`
	// Cut is set when the agent could not write the recording whole.
	Cut *Cut `json:"cut"`
	// Events of virtual threads the agent could not attribute to a
	// thread (not recorded): .info unattributed_total and unattributed.KIND.
	UnattributedEvents *int64           `json:"unattributed_events"`
	Unattributed       map[string]int64 `json:"unattributed"`
	VirtualThreads     *int64           `json:"virtual_threads"` // .info virtual_threads: started while recording
	// Pinned: the (matching) virtual threads that pinned their carrier
	// (VirtualThreadPinned: a park or sleep that could not unmount), most
	// pinnings first, the first --top; absent when none. PinnedThreads:
	// how many threads pinned, PinnedTotal: their pinnings.
	Pinned          []PinnedThread   `json:"pinned,omitempty"`
	PinnedThreads   int              `json:"pinned_threads,omitempty"`
	PinnedTotal     int              `json:"pinned_total,omitempty"`
	hasInfo         bool             // PREFIX.info was found
	heldMonitors    string           // .info held_monitors: "yes", "no: WHY", "" when absent
	parks           bool             // the recording has the park kinds (.info events.ThreadPark, or parks)
	OwnerUnknown    int              `json:"owner_unknown"`
	OwnerUnknownS   float64          `json:"owner_unknown_s"`   // how long those contentions lasted
	OwnerUnknownWhy map[string]int64 `json:"owner_unknown_why"` // .info owner_unknown.REASON: why the agent named no owner
	// Sight: what the source of an imported recording could not see
	// (reader.Sight); null for the agent's recordings. When it says hangs
	// or deadlocks are not visible, empty hangs and deadlocks lists do not
	// mean there were none.
	Sight          *Sight   `json:"sight"`
	Problems       int      `json:"problems"`
	ProblemSamples []string `json:"problem_samples"`
	Warnings       []string `json:"warnings"`
	// Caveats: the sentences of the headline that qualify its figures,
	// each flagged one (the text's "!!": the figures are incomplete) and
	// the others (an attach, deleted chunks, a recording still running,
	// owners not known, no .info), in the text's order. orca view shows
	// them as its warnings.
	Caveats []string `json:"caveats"`
	// jucOwnerUnknown: a java.util.concurrent lock has contentions without
	// an owner (of all the locks, not only the listed).
	jucOwnerUnknown bool

	Threads      []Thread `json:"threads"`
	ThreadsTotal int      `json:"threads_total"`
	// VirtualGroups: the virtual threads by name pattern (digits as N), in
	// the threads' ranking; empty without virtual threads.
	VirtualGroups []VirtualGroup `json:"virtual_groups"`
	// The text report's THREADS rows: Threads with virtual threads merged
	// into their groups (unless Options.Virtual).
	textThreads      []Thread
	textThreadsTotal int
	// textLazy, with Options.Streamed and every row listed (--top 0), makes
	// the text's THREADS rows as they are written (textThreads nil).
	textLazy *textRows
	Locks    []Lock `json:"locks"`
	// ClassInits: the JVM's locks of classes being initialised that threads
	// waited on (Model.ClassInits with waits), unfiltered by --thread.
	ClassInits []ClassInit `json:"class_inits"`
	LocksTotal int         `json:"locks_total"`
	// BlockedS and OpenS: the time threads were blocked on monitors and
	// java.util.concurrent locks (the THREADS table's "blocked"), finished
	// and still going on at the end; AcquiringS: on semaphores, waiting for
	// a permit (its "acquiring"), of SemaphoresTotal of the locks.
	BlockedS        float64    `json:"blocked_s"`
	OpenS           float64    `json:"open_s"`
	SemaphoresTotal int        `json:"semaphores_total"`
	AcquiringS      float64    `json:"acquiring_s"`
	Sites           []Site     `json:"sites"`
	SitesTotal      int        `json:"sites_total"`
	Deadlocks       []Deadlock `json:"deadlocks"`
	// PotentialDeadlocks: the lock-order graph's cycles (potentialDeadlocks);
	// empty too when the recording does not say what threads held at their
	// contended enters (.info held_monitors not "yes").
	PotentialDeadlocks []PotentialDeadlock `json:"potential_deadlocks"`
	Hangs              []Hang              `json:"hangs"`
	// Chains: the roots of the threads' waits (analysis.Chains), most
	// time first, the first Top of ChainsTotal; the text shows those with
	// a chain of two steps or more. Both are null unless Options.Chains
	// (orca report --chains): they add a sixth or so to the report's
	// CPU on a big recording (docs/PERFORMANCE.md).
	Chains      []Chain `json:"chains"`
	ChainsTotal *int    `json:"chains_total"`
	// With Options.Streamed, Chains' and Threads' rows as they are
	// written.
	chainRows  *chainRows
	threadList *threadRows
	// NotHangs: the threads in a blocking state at the end that are not
	// hangs (analysis.OpenAtEnd: Why says why); those at a cut are in
	// Cut.UnknownAfter.
	NotHangs []Hang `json:"not_hangs"`
	// WaitingAlone: the threads stuck as hangs are, but waiting alone (for
	// no thread in particular, none behind them, while others ran after
	// they began: analysis.Alone), longest first; not in Hangs.
	WaitingAlone []Hang `json:"waiting_alone"`
	// ShutdownS: when the JVM's shutdown began (model.Model.Shutdown);
	// nil when the recording shows none.
	ShutdownS  *float64 `json:"shutdown_s"`
	Waits      []Wait   `json:"waits"`
	WaitsTotal int      `json:"waits_total"`
	// Of all the waits entries (before --top): the objects, those in
	// groups, and the groups, for the text's title.
	waitObjects, groupedObjects, waitGroups int
	Edges                                   Edges `json:"edges"`
	// CPU: the CPU profile of the threads shown (issue 33); null when the
	// recording has no samples (nor lost any).
	CPU *CPU `json:"cpu"`

	width int // Options.Width, for WriteText
	top   int // Options.Top, for WriteText's wait chains
	// inits: the JVM's init locks of classes (model.Model.ClassInits, by
	// object), for WriteText to name them in every section.
	inits map[string]string
	// initOpen: the agent wrote the class-initialisation waits it found
	// still open (.info class_init_open).
	initOpen bool
	// classes: the recording's class table, for WriteText to name the
	// class a java.lang.Class object is (classObject).
	classes map[format.ClassID]*reader.Class
}

// Sight is what the source of an imported recording (orca import of a JFR
// file) could not see, from its .info (reader.Sight).
type Sight struct {
	Source string `json:"source"` // .info source: "jfr"
	// HangsVisible, DeadlocksVisible: false when the source records a
	// state only when it ends, so a hang or a deadlock still going on at
	// the end is not in the recording.
	HangsVisible     bool `json:"hangs_visible"`
	DeadlocksVisible bool `json:"deadlocks_visible"`
	// Unparkers: false when no park says who unparked it or how it ended
	// (a park entry's timed_out then counts the parks that ended, how
	// unknown).
	Unparkers bool `json:"unparkers"`
	// SettingsKnown: the source's settings were found; without them the
	// three maps are empty and what the source skipped is unknown.
	SettingsKnown bool `json:"settings_known"`
	// ThresholdsS: per kind that starts a state (MonitorContendedEnter,
	// ObjectWait, ThreadPark, ThreadSleep, VirtualThreadPinned), the
	// shortest state the source recorded; shorter ones are missing.
	ThresholdsS map[string]float64 `json:"thresholds_s"`
	NotRecorded map[string]string  `json:"not_recorded"` // per kind: not recorded at all, and why
	NoStacks    map[string]string  `json:"no_stacks"`    // per kind: recorded without stacks, and why
}

// Filter is the --thread restriction in force.
type Filter struct {
	Thread  string `json:"thread"`
	Matched int    `json:"threads_matched"`
}

// States holds one number per thread state, in model.State order.
type States struct {
	Runnable  float64 `json:"runnable"`
	Blocked   float64 `json:"blocked"`
	Waiting   float64 `json:"waiting"`
	Sleeping  float64 `json:"sleeping"`
	Joining   float64 `json:"joining"`
	Acquiring float64 `json:"acquiring"`
	// Parks (recordings with the park kinds): absent when zero, so the
	// reports of recordings without them are unchanged.
	Parked float64 `json:"parked,omitempty"`
	Idle   float64 `json:"idle,omitempty"`
}

// Thread is one thread's life and time per state.
type Thread struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Parent     *string `json:"parent"`
	ParentName *string `json:"parent_name"`
	StartS     float64 `json:"start_s"`
	EndS       float64 `json:"end_s"`
	Ended      bool    `json:"ended"`
	LifeS      float64 `json:"life_s"`
	Events     int     `json:"events"`
	JDK        bool    `json:"jdk"`
	StatesS    States  `json:"states_s"`
	StatesPct  States  `json:"states_pct"`
	// Virtual threads (JDK 21+): virtual, the last carrier it was seen on
	// (its id), how often it was seen on a carrier other than the last,
	// and how many of its parks and sleeps were pinned to their carrier.
	// Absent for platform threads.
	Virtual  bool    `json:"virtual,omitempty"`
	Carrier  *string `json:"carrier,omitempty"`
	Carriers int     `json:"carriers,omitempty"`
	Pinned   int     `json:"pinned,omitempty"`
	// BeforeAttach: the thread was alive when orca attached (an attached
	// recording's thread alive at the attach): start_s is the attach, and
	// its life and its time in each state are at least life_s and
	// states_s. Absent otherwise.
	BeforeAttach bool `json:"before_attach,omitempty"`
	// CPUS, ReadyS, OtherS: its runnable time (states_s.runnable) split by
	// its scheduler times and samples (model.RunSplit): on a CPU, waiting
	// for one (known from scheduler times only), and neither (I/O, native
	// code, the VM); VirtualCPUS: a carrier's time running virtual threads.
	// The rest of runnable is not split. Absent when none of it is (no
	// ThreadCPU lines nor samples).
	CPUS        *float64 `json:"cpu_s,omitempty"`
	ReadyS      *float64 `json:"ready_s,omitempty"`
	OtherS      *float64 `json:"other_s,omitempty"`
	VirtualCPUS *float64 `json:"virtual_cpu_s,omitempty"`
	group       int      // a text row of group virtual threads (VirtualGroup)
}

// VirtualGroup is the virtual threads whose names have one pattern (each
// run of digits as N: "virtual-N" for the unnamed), summed: their time per
// state and, in StatesPct, its share of their summed lives.
type VirtualGroup struct {
	Pattern   string  `json:"pattern"`
	Threads   int     `json:"threads"`
	LifeS     float64 `json:"life_s"`
	Events    int     `json:"events"`
	Pinned    int     `json:"pinned"`
	StatesS   States  `json:"states_s"`
	StatesPct States  `json:"states_pct"`
}

// Owner is a thread blamed for the time others spent blocked on a lock.
type Owner struct {
	Thread      string  `json:"thread"`
	Name        *string `json:"name"`
	Contentions int     `json:"contentions"`
	Open        int     `json:"open"` // contentions still going on at the end that it held up last
	BlamedS     float64 `json:"blamed_s"`
	Pct         float64 `json:"pct"`
}

// LockSite is a stack where threads blocked on one lock.
type LockSite struct {
	Frames      []string `json:"frames"`
	Contentions int      `json:"contentions"`
	BlockedS    float64  `json:"blocked_s"`
	Open        int      `json:"open"`
	OpenS       float64  `json:"open_s"`
	// BeforeEvents, BeforeAttach: as Lock's, of this site's contentions.
	BeforeEvents int `json:"before_events,omitempty"`
	BeforeAttach int `json:"before_attach,omitempty"`
}

// PinnedThread is a virtual thread whose parks or sleeps pinned its
// carrier, and how often (Thread.Pinned).
type PinnedThread struct {
	Thread string `json:"thread"`
	Name   string `json:"name"`
	Pinned int    `json:"pinned"`
}

// LeftLocked is a thread that ended holding a juc lock others then
// parked on: its id, name, end (seconds since the recording's start) and
// the parks that named it the owner after its end.
type LeftLocked struct {
	Thread string  `json:"thread"`
	Name   *string `json:"name"`
	EndedS float64 `json:"ended_s"`
	Parks  int     `json:"parks"`
}

// Lock is a contended monitor or semaphore.
type Lock struct {
	Object string  `json:"object"`
	Kind   string  `json:"kind"`
	Class  *string `json:"class"`
	// InitOf: set when the lock is the JVM's own lock of a class being
	// linked or initialised (HotSpot's init lock, an int[]): the class a
	// blocked thread's frame asked for, "" when none named one. Absent for
	// the application's locks.
	InitOf *string `json:"class_init,omitempty"`
	// ClassObject: for a monitor on a java.lang.Class object — the lock of
	// a synchronized static method, or of synchronized (Foo.class) —, the
	// class it is ("LFoo;"), when the recording's class table names it (a
	// class's id is its Class object's identity hash). Absent otherwise.
	ClassObject   *string  `json:"class_object,omitempty"`
	Contentions   int      `json:"contentions"`
	BlockedS      float64  `json:"blocked_s"`
	MaxBlockedS   float64  `json:"max_blocked_s"`
	MeanBlockedS  float64  `json:"mean_blocked_s"`
	Open          int      `json:"open"`
	OpenS         float64  `json:"open_s"`
	Waiters       []string `json:"waiters"`
	OwnerUnknown  int      `json:"owner_unknown"`
	OwnerUnknownS float64  `json:"owner_unknown_s"`
	// NoUnpark: of a juc lock's contentions, those whose last park no
	// release's unpark ended (model.Lock.NoUnpark); absent when none.
	NoUnpark int `json:"no_unpark,omitempty"`
	// NoUnparkInterrupted, NoUnparkSpurious: of NoUnpark, those an
	// interrupt ended and those that woke with no unpark seen
	// (model.Lock's); absent when none.
	NoUnparkInterrupted int `json:"no_unpark_interrupted,omitempty"`
	NoUnparkSpurious    int `json:"no_unpark_spurious,omitempty"`
	// LeftLocked: the owners a juc lock's parks named that had ended
	// before the park: a lock its thread never released (model.Lock.LeftLocked);
	// absent when none.
	LeftLocked []LeftLocked `json:"left_locked,omitempty"`
	Owners     []Owner      `json:"owners"`
	Sites      []LockSite   `json:"sites"`
	HeldAt     [][]string   `json:"held_at"`
	Waits      int          `json:"waits"`
	Notifies   int          `json:"notifies"`
	NotifyAlls int          `json:"notify_alls"`
	Acquires   int          `json:"acquires"`
	Releases   int          `json:"releases"`
	// Call: the java.util.concurrent call its costliest blocking site that
	// has one blocked in, else its costliest wait or park site's
	// (model.LockCall): "java.util.concurrent.ArrayBlockingQueue.put" for the
	// condition or lock a queue wraps. Absent when none has one.
	Call string `json:"call,omitempty"`
	// BeforeEvents: of contentions, those begun before the events were on
	// (the agent's start, or between an attach's snapshot and its events:
	// model.Interval.BeforeEvents): their length is not known, and
	// blocked_s counts each as 1 ns. Absent when none.
	BeforeEvents int `json:"before_events,omitempty"`
	// BeforeAttach: of contentions and open, those the thread was already
	// in when orca attached (model.Model.BeforeStart): counted from the
	// attach, they lasted at least that long. Absent when none.
	BeforeAttach int `json:"before_attach,omitempty"`
	// What the holders did while at least one thread was blocked on the
	// lock (model.View.HoldersDoing; monitors and java.util.concurrent
	// locks): HoldersWhileS is that time, HoldersDoing splits it by state,
	// HoldersBlockedOn names the locks the holders were blocked on in it,
	// HoldersFrames their samples in it by leaf-most Java frame. Absent for
	// a semaphore and a lock whose contentions all began before the events.
	HoldersWhileS    float64            `json:"holders_while_s,omitempty"`
	HoldersDoing     map[string]float64 `json:"holders_doing,omitempty"`
	HoldersBlockedOn []HolderBlockedOn  `json:"holders_blocked_on,omitempty"`
	HoldersFrames    []HolderFrame      `json:"holders_frames,omitempty"`
	// Hold: how long its holders held it while others waited (hold.go);
	// absent when none was measured (a semaphore, a read-write lock, a
	// lock no holder took while others waited).
	Hold *LockHold `json:"hold,omitempty"`
	// rows, with Options.JSONOnly: the waiters' and owners' rows, made
	// as WriteJSON writes them.
	rows *lockRows
}

// Site is a blocking call site ranked across all locks.
type Site struct {
	Frames      []string `json:"frames"`
	Object      string   `json:"object"`
	Kind        string   `json:"kind"`
	Contentions int      `json:"contentions"`
	BlockedS    float64  `json:"blocked_s"`
	Open        int      `json:"open"`
	OpenS       float64  `json:"open_s"`
	// Class: the lock's class signature (Lock.Class), absent when unknown.
	Class *string `json:"class,omitempty"`
	// InitOf: as Lock.InitOf.
	InitOf *string `json:"class_init,omitempty"`
	// Call: the java.util.concurrent call blocked in at this site
	// (model.Call), as Lock.Call; absent when none.
	Call string `json:"call,omitempty"`
	// BeforeEvents, BeforeAttach: as Lock's, of this site's contentions.
	BeforeEvents int `json:"before_events,omitempty"`
	BeforeAttach int `json:"before_attach,omitempty"`
}

// ClassInit is the JVM's lock of a class being initialised (model.ClassInit)
// with the waits on it that ended: their start, length and initialiser are
// not known (the JVM posts only a wait's end).
type ClassInit struct {
	Object  string     `json:"object"`
	Class   string     `json:"class"` // the class a frame asked to initialise, "" when none named
	Waits   int        `json:"waits"`
	Waiters []string   `json:"waiters"`
	Sites   [][]string `json:"sites"` // where the waits ended
	// JDK: only JDK service threads waited (the Reference Handler at the
	// JVM's start, for a class the launcher's thread initialised).
	JDK bool `json:"jdk"`
}

// Deadlock is a wait-for cycle: each thread waits for the next, the last
// for the first.
type Deadlock struct {
	AtS       float64   `json:"at_s"`
	AtEnd     bool      `json:"at_end"`
	ResolvedS *float64  `json:"resolved_s"`
	LastedS   float64   `json:"lasted_s"`
	Threads   []string  `json:"threads"`
	Names     []*string `json:"names"`
	States    []string  `json:"states"` // "blocked" (on a monitor or a java.util.concurrent lock) or "joining", per thread
	// Locks: per thread, whether it is blocked on a java.util.concurrent
	// lock (a park in its acquire) rather than a monitor.
	Locks   []bool     `json:"locks"`
	Objects []*string  `json:"objects"` // the monitor each thread waits on, null for a join
	Stacks  [][]string `json:"stacks"`
	// Classes: each object's class signature (null when unknown or for a
	// join); absent when no class of the cycle is known.
	Classes []*string `json:"classes,omitempty"`
	// ClassInits: per thread, when its object is the JVM's init lock of a
	// class (model.Model.InitLock), the class whose initialisation it waits
	// for ("" when no frame named it; null otherwise): its "owner" is the
	// thread that runs the class's initialiser. Absent when none is.
	ClassInits []*string `json:"class_inits,omitempty"`
	// BeforeAttach: the cycle was already there when orca attached (every
	// thread of it was in its state at the attach): when it formed is not
	// known, at_s is the attach and lasted_s is at least that long.
	// Absent otherwise.
	BeforeAttach bool `json:"before_attach,omitempty"`
}

// Hang is a thread still blocked, waiting, joining, acquiring or parked at
// the end: a hang, or in NotHangs one that is not, and why.
type Hang struct {
	Thread    string   `json:"thread"`
	Name      *string  `json:"name"`
	State     string   `json:"state"`
	Object    *string  `json:"object"`
	Other     *string  `json:"other"`
	OtherName *string  `json:"other_name"`
	SinceS    float64  `json:"since_s"`
	ForS      float64  `json:"for_s"`
	Deadlock  *int     `json:"deadlock"` // index in Deadlocks when the thread is in one
	JDK       bool     `json:"jdk"`      // the thread is a JDK service thread (Thread.JDK)
	Frames    []string `json:"frames"`
	// Class: the class signature of Object (the monitor, the waited
	// object, the park blocker) when known; absent otherwise.
	Class *string `json:"class,omitempty"`
	// Lock: the state is "blocked" on a java.util.concurrent lock (a park in
	// its acquire, Object its sync), not on a monitor.
	Lock bool `json:"lock,omitempty"`
	// ClassInit: Object is the JVM's init lock of this class (as
	// Lock.InitOf): the thread waits for its initialisation, Other runs it.
	// Absent otherwise.
	ClassInit *string `json:"class_init,omitempty"`
	// Timeout: "none" (the state cannot end by itself), "set" (it can: a
	// park or a wait with a timeout) or "unknown" (an Object.wait(long) in
	// a recording without wait_timeouts, a join).
	Timeout string `json:"timeout"`
	// Why it is not a hang (analysis.NotHang): "timed", "short",
	// "shutdown", "kill", "cut", "self_join", "released", "joins_working",
	// "alone" (in WaitingAlone); absent on a hang.
	Why string `json:"why,omitempty"`
	// Behind: the thread it waits for (the owner of its monitor or lock,
	// the thread it joins) when that thread cannot proceed either: in a
	// deadlock intact at the end (BehindDeadlock, its index in Deadlocks)
	// or a hang itself. Such a thread is a hang however short its own
	// state (analysis.Hang.Behind). Absent otherwise.
	Behind         *string `json:"behind,omitempty"`
	BehindName     *string `json:"behind_name,omitempty"`
	BehindDeadlock *int    `json:"behind_deadlock,omitempty"`
	// OthersRanUntilS, for a thread waiting alone: the last moment another
	// thread was seen to run after it began to wait (before the shutdown
	// when the JVM exited); absent otherwise.
	OthersRanUntilS *float64 `json:"others_ran_until_s,omitempty"`
	// BeforeAttach: the thread was already in this state when orca
	// attached: when it began is not known, since_s is the attach and
	// for_s is at least that long. Absent otherwise.
	BeforeAttach bool `json:"before_attach,omitempty"`
	// Call: the java.util.concurrent call it is blocked, waiting or parked
	// in (model.Call), as Lock.Call; absent when none.
	Call string `json:"call,omitempty"`
}

// WaitSite is a stack where threads called Object.wait on one object.
type WaitSite struct {
	Frames   []string `json:"frames"`
	Waits    int      `json:"waits"`
	TimedOut int      `json:"timed_out"`
	Still    int      `json:"still_waiting"`
	WaitS    float64  `json:"wait_s"`
	// BeforeAttach: as Wait.BeforeAttach, of this site's waits.
	BeforeAttach int `json:"before_attach,omitempty"`
}

// Wait is the wait/notify health of one object, or of a group of
// short-lived objects of one class waited on at one call site (Group set,
// Object nil): model.Group.
type Wait struct {
	Object    *string `json:"object"`
	Class     *string `json:"class"`
	Waits     int     `json:"waits"`
	Notified  int     `json:"notified"`
	Ambiguous int     `json:"ambiguous"`
	TimedOut  int     `json:"timed_out"`
	// Interrupted: of TimedOut, the parks the thread's interrupt ended
	// (model.Lock.Interrupted); absent when none, and for Object.wait
	// (JVMTI does not tell a wait's interrupt).
	Interrupted int `json:"interrupted,omitempty"`
	// Spurious: of TimedOut, the parks that returned neither timed out
	// nor interrupted with no other thread's unpark recorded
	// (model.Lock.Spurious); absent when none, and for Object.wait.
	Spurious     int        `json:"spurious,omitempty"`
	StillWaiting int        `json:"still_waiting"`
	WaitS        float64    `json:"wait_s"`
	Notifies     int        `json:"notifies"`
	NotifyAlls   int        `json:"notify_alls"`
	WokeNobody   int        `json:"woke_nobody"`
	MaxBurst     int        `json:"max_notify_all_burst"`
	Storm        bool       `json:"storm"`
	JDK          bool       `json:"jdk"` // only JDK service threads waited on it
	Sites        []WaitSite `json:"sites"`
	// Kind is "park" for a park blocker (its waits are parks, notified
	// those another thread's unpark ended); absent for Object.wait.
	Kind string `json:"kind,omitempty"`
	// Idle: of the parks, those of threads waiting for work (idle pool
	// workers, queue consumers).
	Idle int `json:"idle,omitempty"`
	// UnparkedBy: the threads whose unpark ended the parks, most first.
	UnparkedBy []Unparker `json:"unparked_by,omitempty"`
	// Group is set on an entry that sums short-lived objects; absent on
	// one object's.
	Group *WaitGroup `json:"group,omitempty"`
	// Call: the java.util.concurrent call threads waited or parked on the
	// object in (model.LockCall), as Lock.Call; absent when none and for a
	// group.
	Call string `json:"call,omitempty"`
	// BeforeAttach: of waits, those in progress when orca attached
	// (model.Model.BeforeStart): wait_s counts them from the attach, so
	// they lasted at least that long. Absent when none.
	BeforeAttach int `json:"before_attach,omitempty"`
}

// WaitGroup is what a Wait of a group adds: the objects it sums and the
// costliest of them. The Wait's figures are the objects' sums, its sites
// theirs merged (sites[0] is the call site the group is of).
type WaitGroup struct {
	Objects  int           `json:"objects"`
	Threads  int           `json:"threads"`    // distinct threads that waited
	MaxWaits int           `json:"max_waits"`  // the most waits on one object
	MaxWaitS float64       `json:"max_wait_s"` // the longest single wait
	Top      []GroupMember `json:"top"`        // the groupTop objects with most time waiting
}

// GroupMember is one object of a group.
type GroupMember struct {
	Object string  `json:"object"`
	Waits  int     `json:"waits"`
	WaitS  float64 `json:"wait_s"`
}

// Unparker is a thread that ended parks on a blocker.
type Unparker struct {
	Thread string  `json:"thread"`
	Name   *string `json:"name"`
	Parks  int     `json:"parks"`
	ParkS  float64 `json:"park_s"` // the time of those parks
}

// Edges counts the relations between threads by kind.
type Edges struct {
	Wake    int `json:"wake"`
	Start   int `json:"start"`
	Join    int `json:"join"`
	Release int `json:"release"`
	Owner   int `json:"owner"`
	Unpark  int `json:"unpark,omitempty"` // an unpark ended another thread's park
}

// Cut says where and why a recording was cut (the agent could not write:
// a full disk). The recording ends at the cut; threads in a state then are
// listed in UnknownAfter, not in hangs or deadlocks: what followed is lost.
type Cut struct {
	AtS          float64 `json:"at_s"`
	Reason       string  `json:"reason"`
	WriteErrors  *int64  `json:"write_errors"`
	EventsAfter  int     `json:"events_after"` // lines after the cut in the file (a later write that succeeded), not read
	UnknownAfter []Hang  `json:"unknown_after"`
}

// Attached says that a recording began with an attach to the running JVM:
// its threads' lives begin at the attach for those alive then, and
// whatever they did before is not in it.
type Attached struct {
	AliveAtAttach int64 `json:"alive_at_attach"` // threads alive at the attach (their ThreadStarted at its start)
	Stopped       bool  `json:"stopped"`         // stopped while the JVM went on (else it ended with the JVM, or is running)
	// StoppedBy is .info's stopped_by: "stop" (orca record --pid's end,
	// orca stop) or "lease" (the orca record --pid that started it was
	// gone: docs/attach.md, "The lease").
	StoppedBy string `json:"stopped_by,omitempty"`
	// Unread: .info's monitor_unread_at_attach, the threads blocked on a
	// monitor or waiting in Object.wait at the attach whose monitor could
	// not be read: their state then is not in the recording.
	Unread int64 `json:"monitor_unread_at_attach,omitempty"`
}

// Range is the time range a report covers (orca report --from, --to,
// --last: docs/report-json.md, "Time ranges"). Times are seconds since
// the recording's first event (origin_s), as every time of the report.
type Range struct {
	FromS float64 `json:"from_s"`
	ToS   float64 `json:"to_s"`
	// RecordingS: the whole recording's span, first to last event.
	RecordingS float64 `json:"recording_s"`
	// What was read for it: chunks (0 for a text .orca, read whole and
	// filtered) and bytes, of the bytes of the whole recording's events.
	Chunks     int   `json:"chunks_read"`
	BytesRead  int64 `json:"bytes_read"`
	BytesTotal int64 `json:"bytes_total"`
	Whole      bool  `json:"read_whole,omitempty"`
}

// Bounded is what a bounded recording kept (docs/format.md, "Bounded
// recordings").
type Bounded struct {
	MaxSizeBytes  int64   `json:"max_size_bytes,omitempty"`
	MaxAgeS       float64 `json:"max_age_s,omitempty"`
	ChunksKept    string  `json:"chunks_kept"`    // FIRST-LAST, the chunk files' numbers
	ChunksDeleted int64   `json:"chunks_deleted"` // chunk files deleted past the bounds
	// RecordedS: the whole run's span (the agent's start_s to end_s);
	// DeletedS: the part of it before the kept span began (0 when
	// nothing was deleted).
	RecordedS float64 `json:"recorded_s"`
	DeletedS  float64 `json:"deleted_s"`
	keptS     float64 // the kept chunk files' span: first event to last, of the whole (not a range's)
}
