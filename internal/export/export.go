// Package export writes a recording's model in the formats of other tools:
// pprof profiles (go tool pprof, speedscope), Perfetto traces
// (ui.perfetto.dev), Chrome trace-event JSON (chrome://tracing) and folded
// stacks (flamegraph.pl, speedscope). One file per format; each reads the
// model and the recording's method tables, never the event file.
package export

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// Kinds is a set of thread states to export, one bit per model.State.
type Kinds uint8

// The kinds a user names on the command line.
const (
	Monitor   = Kinds(1 << model.Blocked)
	Wait      = Kinds(1 << model.Waiting)
	Sleep     = Kinds(1 << model.Sleeping)
	Join      = Kinds(1 << model.Joining)
	Semaphore = Kinds(1 << model.Acquiring)
	Park      = Kinds(1 << model.Parked) // LockSupport.park: java.util.concurrent locks, conditions, latches, futures, queues
	Idle      = Kinds(1 << model.Idle)   // parked waiting for work: a pool's worker, a queue's consumer
	All       = Monitor | Wait | Sleep | Join | Semaphore | Park | Idle
)

var kindNames = []struct {
	name string
	k    Kinds
}{
	{"monitor", Monitor}, {"wait", Wait}, {"sleep", Sleep}, {"join", Join}, {"semaphore", Semaphore},
	{"park", Park}, {"idle", Idle},
}

// KindNames lists the names ParseKinds accepts, "all" last.
func KindNames() []string {
	var s []string
	for _, kn := range kindNames {
		s = append(s, kn.name)
	}
	return append(s, "all")
}

// ParseKinds reads a comma-separated list of kind names ("monitor,wait")
// or "all".
func ParseKinds(s string) (Kinds, error) {
	var k Kinds
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "all" {
			k |= All
			continue
		}
		found := false
		for _, kn := range kindNames {
			if kn.name == part {
				k |= kn.k
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown kind %q (want %s, or a comma-separated list)", part, strings.Join(KindNames(), ", "))
		}
	}
	return k, nil
}

// String returns the kinds as ParseKinds reads them.
func (k Kinds) String() string {
	if k&All == All {
		return "all"
	}
	var s []string
	for _, kn := range kindNames {
		if k&kn.k != 0 {
			s = append(s, kn.name)
		}
	}
	return strings.Join(s, ",")
}

// Has reports whether state s is in the set.
func (k Kinds) Has(s model.State) bool { return s != model.Runnable && k&(1<<s) != 0 }

// edgeKinds says which state an edge belongs to, so that an export of
// some kinds keeps only their edges; a start belongs to every kind.
func (k Kinds) hasEdge(e model.EdgeKind) bool {
	switch e {
	case model.EdgeWake:
		return k.Has(model.Waiting)
	case model.EdgeOwner:
		return k.Has(model.Blocked)
	case model.EdgeRelease:
		return k.Has(model.Acquiring)
	case model.EdgeJoin:
		return k.Has(model.Joining)
	case model.EdgeUnpark:
		return k.Has(model.Parked) || k.Has(model.Idle)
	}
	return true
}

// Options control an export.
type Options struct {
	// Kinds are the states exported; 0 means the format's default
	// (Format.Kinds).
	Kinds Kinds
	// Profile is what a profile (Format.Profiles: pprof, collapsed)
	// weighs: the time in the states of Kinds (ProfileStates, the zero
	// value) or the threads' samples.
	Profile Profile
	// Progress, when not nil, is told how far the timelines (perfetto,
	// chrome) have gone: the step (StepTimeline, StepEdges, StepWriting)
	// and done of total in it, now and then, from the writer's goroutine.
	// It does not change what is written.
	Progress func(step string, done, total int)
}

// The steps of a timeline export that Options.Progress names: each
// thread's states encoded (threads done of all), the edges' ends (edges
// of all), then the events written in time order (events of all).
const (
	StepTimeline = "the threads' states"
	StepEdges    = "the edges"
	StepWriting  = "writing in time order"
)

// progressEvery is how many edges or events a timeline export makes
// between two calls of Options.Progress (threads: each one).
const progressEvery = 1 << 14

// progress tells o.Progress, if any.
func (o Options) progress(step string, done, total int) {
	if o.Progress != nil {
		o.Progress(step, done, total)
	}
}

// Profile is what a profile export weighs (orca export --profile).
type Profile uint8

// The profiles.
const (
	// ProfileStates: the time threads spent in the states of Kinds.
	ProfileStates Profile = iota
	// ProfileCPU: the CPU samples (sampled=cpu), each weighing the CPU
	// time it stands for: where the threads ran.
	ProfileCPU
	// ProfileWall: every sample, CPU and wall, each weighing the time it
	// stands for: where the threads were when in no recorded state,
	// running or not (I/O, native code, the VM). Label sampled tells which.
	ProfileWall
)

var profileNames = []string{"states", "cpu", "wall"}

// ParseProfile reads a --profile: cpu, wall (or states, the default).
func ParseProfile(s string) (Profile, error) {
	for i, n := range profileNames {
		if n == s {
			return Profile(i), nil
		}
	}
	return 0, fmt.Errorf("unknown profile %q (want cpu or wall)", s)
}

// String returns the profile as ParseProfile reads it.
func (p Profile) String() string {
	if int(p) < len(profileNames) {
		return profileNames[p]
	}
	return "?"
}

// sampleKinds are the kinds of samples a profile weighs, nil for
// ProfileStates.
func (p Profile) sampleKinds() []format.SampleKind {
	switch p {
	case ProfileCPU:
		return []format.SampleKind{format.SampleCPU}
	case ProfileWall:
		return []format.SampleKind{format.SampleCPU, format.SampleWall}
	}
	return nil
}

// SampleTotals counts what an export of profile p holds: samples and the
// time they stand for (0, 0 for ProfileStates).
func SampleTotals(m *model.Model, p Profile) (samples int, total format.Time) {
	for _, k := range p.sampleKinds() {
		m.EachSample(model.SampleQuery{Kind: k}, func(_ *model.Thread, s *model.Sample) {
			samples++
			total += s.Weight
		})
	}
	return samples, total
}

// Format is one export format.
type Format struct {
	Name     string
	Ext      string // the file name suffix written by default, with its dot
	Kinds    Kinds  // the states exported when Options.Kinds is 0
	Write    func(w io.Writer, rec *reader.Recording, m *model.Model, opt Options) error
	Profiles bool // it writes sample profiles too (Options.Profile)
}

// Formats lists the export formats.
var Formats = []Format{
	{"pprof", ".pb.gz", Monitor, PProf, true},
	{"perfetto", ".pftrace", All, Perfetto, false},
	{"chrome", ".trace.json", All, Chrome, false},
	{"collapsed", ".folded", Monitor, Collapsed, true},
}

// Lookup returns the format called name.
func Lookup(name string) (Format, bool) {
	for _, f := range Formats {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

func kinds(opt Options, def Kinds) Kinds {
	if opt.Kinds == 0 {
		return def
	}
	return opt.Kinds
}

// SpilledOptions are the model.Options for a build that the profile
// formats (pprof, collapsed, OTLP) read in memory bounded by what is live,
// not by the events (issue 34): each thread's intervals and samples go to
// the model's spill as the fold goes and are read back a thread at a time
// (Model.IntervalsOf, Model.SamplesOf), the locks' owner tables go there
// too, and no edges are kept. The same bytes as from a Model in memory
// (TestSpilledSameBytes). The timelines (perfetto, chrome) hold every
// interval and edge at once, sorted by time: not for them. An ended
// thread's Thread is kept packed (Options.PackThreads: the exporters read
// the threads through Model.AllThreads and ThreadIDAt).
func SpilledOptions() model.Options {
	return model.Options{NoEdges: true, Spill: true, DropIntervals: true, SpillOwners: true, PackThreads: true}
}

// TimelineOptions are SpilledOptions with the edges kept, for the
// timelines (Perfetto, Chrome JSON): their flows, in the spill too
// (model.Options.SpillEdges), read back in order (Model.AllEdges) as the
// events are made, which the timeline's sort keeps encoded, not the edges.
func TimelineOptions() model.Options {
	o := SpilledOptions()
	o.NoEdges, o.SpillEdges = false, true
	return o
}

// PushOptions are SpilledOptions for orca push of a recording: OTLP reads
// neither the locks' figures (lock order, hold times) nor the runnable
// time's split either.
func PushOptions() model.Options {
	o := SpilledOptions()
	o.NoLockFigures, o.NoRunSplit = true, true
	return o
}

// Totals counts what an export of kinds holds: states (a state split into
// segments counts once) and the time threads spent in them.
func Totals(m *model.Model, k Kinds) (states int, total format.Time) {
	var w model.IntervalWindow
	for _, t := range m.AllThreads() {
		eachPiece(m, t, &w, func(ivs []model.Interval, _ bool) int {
			for _, iv := range ivs {
				if k.Has(iv.Shown()) {
					total += iv.Duration()
					if first(iv) {
						states++
					}
				}
			}
			return 0
		})
	}
	return states, total
}

// PProfTotals counts what a pprof export of kinds holds, its contentions
// and delay: as Totals, but a java.util.concurrent acquire parked more than
// once is one contention, the gaps between its parks included, as orca
// report counts its contentions and blocked time (contentionAt).
func PProfTotals(m *model.Model, k Kinds) (states int, total format.Time) {
	var w model.IntervalWindow
	var c contention
	for _, t := range m.AllThreads() {
		eachPiece(m, t, &w, func(ivs []model.Interval, last bool) int {
			for i := 0; i < len(ivs); i++ {
				iv := &ivs[i]
				if !k.Has(iv.Shown()) {
					continue
				}
				if iv.Acquire {
					j, _ := contentionAt(m, t, ivs, i, &c)
					if goesOn(ivs, i, j, last) {
						return len(ivs) - i
					}
					i = j
					total += c.spans[len(c.spans)-1].End - iv.Start
				} else {
					total += iv.Duration()
				}
				if first(*iv) {
					states++
				}
			}
			return 0
		})
	}
	return states, total
}

// cutNote describes the cut of a cut recording, "" for another.
func cutNote(m *model.Model) string {
	if m.Cut == nil {
		return ""
	}
	return fmt.Sprintf("recording cut at %.3f s (%s): the states open then are unknown after it, not hangs",
		(m.Cut.At - m.Start).Seconds(), m.Cut.Reason)
}

// cutSuffix is added to the process's name in the timelines, where a user
// looks first: " [recording cut at 3.000 s: …]".
func cutSuffix(m *model.Model) string {
	if note := cutNote(m); note != "" {
		return " [" + note + "]"
	}
	return ""
}

// first reports whether iv is the first segment of its state (later
// segments of a split state began before their Start).
func first(iv model.Interval) bool { return iv.Since == iv.Start }

// frame is a resolved stack frame.
type frame struct {
	name string // "java.lang.Object.wait"
	sig  string // "(J)V"
	file string // "java/lang/Object.java", "" when unknown
	line int    // 0 when unknown
	text string // as a Java stack trace prints it: "java.lang.Object.wait(Object.java:338)"; frames.text makes it
	at   format.Frame
	// partial: its method or its class was not in the recording's tables
	// yet (a push's: the agent writes them as it goes), so it may resolve
	// better later (frames.keep).
	partial bool
}

// frames resolves and caches frames and stacks.
type frames struct {
	rec    *reader.Recording
	m      *model.Model
	frames map[format.Frame]*frame
	stacks map[model.StackID][]*frame
	// keep: the cache outlives the recording read now (OTLPCache: a
	// series of pushes, whose method tables grow), so a frame or stack
	// that is partial is resolved again each time, not kept.
	keep bool
}

func newFrames(rec *reader.Recording, m *model.Model) *frames {
	return &frames{rec: rec, m: m, frames: map[format.Frame]*frame{}, stacks: map[model.StackID][]*frame{}}
}

// frame resolves f. The name is the class's name and the method's, the way
// Java profilers print them; the file is the source file under its
// package's directory ("java/lang/Object.java"), the path below a source
// root, so pprof's -source_path finds it.
func (fs *frames) frame(f format.Frame) *frame {
	if r := fs.frames[f]; r != nil {
		return r
	}
	r := &frame{at: f}
	if meth := fs.rec.Methods[f.Method]; meth == nil {
		r.name = "<unknown method " + f.Method.String() + ">"
		r.partial = true
	} else if cls := fs.rec.ClassName(f.Method); format.IsNativeClass(cls) {
		// A native or VM frame of a sample: its symbol, and its library
		// as the file ("read" in "libc.so.6"), as pprof names C frames.
		r.file = strings.TrimSuffix(strings.TrimPrefix(cls, format.NativeClassPrefix), ">")
		r.name = cmp.Or(meth.Name, "["+r.file+"]") // unnamed: the library, as Resolve says
	} else {
		if cls == "" {
			cls = "<unknown class " + meth.Class.String() + ">"
			r.partial = true
		}
		r.name = cls + "." + meth.Name
		r.sig = meth.Signature
		var src string
		src, r.line = fs.rec.Line(f)
		if src != "" {
			if i := strings.LastIndexByte(cls, '.'); i >= 0 {
				src = strings.ReplaceAll(cls[:i], ".", "/") + "/" + src
			}
			r.file = src
		}
	}
	if !r.partial || !fs.keep {
		fs.frames[f] = r
	}
	return r
}

// text returns r's text (frame.text), made at the first call: only the
// Chrome trace prints it.
func (fs *frames) text(r *frame) string {
	if r.text == "" {
		r.text = fs.rec.Resolve(r.at)
	}
	return r.text
}

// noStack stands for the frames of an event recorded without a stack
// (depth 0), so its time is still shown somewhere.
var noStack = &frame{name: "(no stack)", text: "(no stack)"}

// stack returns a stack's frames, innermost first; never empty.
func (fs *frames) stack(id model.StackID) []*frame {
	if s, ok := fs.stacks[id]; ok {
		return s
	}
	var s []*frame
	partial := false
	if int(id) < len(fs.m.Stacks) {
		for _, f := range fs.m.Stacks[id] {
			r := fs.frame(f)
			s = append(s, r)
			partial = partial || r.partial
		}
	}
	if len(s) == 0 {
		s = []*frame{noStack}
	}
	if !partial || !fs.keep {
		fs.stacks[id] = s
	}
	return s
}

// threadNames labels threads "name" and, in running text, "name (ID)".
type threadNames struct {
	m *model.Model
	// names: each thread's name and full name once looked up, kept as
	// long as the export: a packed thread is unpacked by each
	// Model.Thread, and its Name kept the unpacked copy alive (an hour of
	// Tomcat's pprof held 415 MB of them, a copy per owner a sample
	// named); now two strings a thread however many samples name it.
	names map[format.ThreadID][2]string
}

func newThreadNames(m *model.Model) threadNames {
	return threadNames{m: m, names: map[format.ThreadID][2]string{}}
}

// both returns thread id's name and "name (ID)" (the ID alone for an
// unnamed thread).
func (tn threadNames) both(id format.ThreadID) [2]string {
	if n, ok := tn.names[id]; ok {
		return n
	}
	var n [2]string
	if t := tn.m.Thread(id); t != nil {
		n[0] = strings.Clone(t.Name)
	}
	n[1] = id.String()
	if n[0] != "" {
		n[1] = n[0] + " (" + n[1] + ")"
	}
	if tn.names != nil {
		tn.names[id] = n
	}
	return n
}

// calls gives each stack's java.util.concurrent call (model.Call: the
// "call" label and argument, as the report's JSON call), computed once per
// stack.
type calls struct {
	rec *reader.Recording
	m   *model.Model
	of  map[model.StackID]string
}

func newCalls(rec *reader.Recording, m *model.Model) *calls {
	return &calls{rec: rec, m: m, of: map[model.StackID]string{}}
}

func (c *calls) call(st model.StackID) string {
	s, ok := c.of[st]
	if !ok && int(st) < len(c.m.Stacks) {
		s = model.Call(c.m.Stacks[st], c.rec.FrameName)
		c.of[st] = s
	}
	return s
}

func (tn threadNames) name(id format.ThreadID) string { return tn.both(id)[0] }

// full returns "name (ID)", or the ID alone for an unnamed thread.
func (tn threadNames) full(id format.ThreadID) string { return tn.both(id)[1] }

// otherKey names Interval.Other for each state: who a thread blocked on,
// who woke it, whom it joined, whose release let its acquire through.
func otherKey(s model.State) string {
	switch s {
	case model.Blocked:
		return "owner"
	case model.Waiting:
		return "notifier"
	case model.Joining:
		return "target"
	case model.Acquiring:
		return "releaser"
	case model.Parked, model.Idle:
		return "unparker"
	}
	return ""
}

// edgeNames names the two ends of an edge, as the instants that carry
// the flow between two threads' tracks.
func edgeNames(e model.EdgeKind) (from, to string) {
	switch e {
	case model.EdgeWake:
		return "notify", "woken"
	case model.EdgeStart:
		return "start", "started"
	case model.EdgeJoin:
		return "ended", "joined"
	case model.EdgeRelease:
		return "release", "acquired"
	case model.EdgeOwner:
		return "holds", "entered"
	case model.EdgeUnpark:
		return "unpark", "unparked"
	}
	return e.String(), e.String()
}

// pid returns the JVM's process id from .info, or 1.
func pid(rec *reader.Recording) int64 {
	if n, err := strconv.ParseInt(rec.Info.PID(), 10, 32); err == nil && n > 0 {
		return n
	}
	return 1
}

// processName returns the JVM's main class or jar (sun.java.command's
// first word), or "java".
func processName(rec *reader.Recording) string {
	if f := strings.Fields(rec.Info.Command()); len(f) > 0 {
		return f[0]
	}
	return "java"
}
