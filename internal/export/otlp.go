package export

import (
	"fmt"
	"slices"
	"strconv"
	"unsafe"

	collpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"
	commonpb "go.opentelemetry.io/proto/slim/otlp/common/v1"
	profpb "go.opentelemetry.io/proto/slim/otlp/profiles/v1development"
	respb "go.opentelemetry.io/proto/slim/otlp/resource/v1"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// OTLP profiles (orca push, docs/otlp.md): the messages are the
// go.opentelemetry.io/proto/slim/otlp modules' (profiles/v1development
// v0.4.1, the OTLP proto 1.10 that the collector's pdata v1.71.0 reads),
// written by AppendOTLP (otlpwire.go: the generated code's bytes, cheaper).

// The attribute names orca sets (docs/otlp.md). Where OpenTelemetry's
// semantic conventions name the thing (thread.name, thread.id,
// service.name, host.name, process.*) their name is used; where they have
// none (locks) the names follow OTel's naming rules: lowercase, dotted
// namespaces, the thread of a lock's owner as the thread.* attributes
// under lock.owner.
const (
	AttrThreadName    = "thread.name"
	AttrThreadID      = "thread.id" // the identity hash orca names threads by, as a string
	AttrLockClass     = "lock.class"
	AttrLockKind      = "lock.kind" // monitor, juc, semaphore, blocker (model.LockKind)
	AttrLockID        = "lock.id"   // the lock's identity hash, as orca report prints it
	AttrLockOwnerName = "lock.owner.thread.name"
	AttrLockOwnerID   = "lock.owner.thread.id"
	// AttrLockClassObject: of a monitor on a java.lang.Class object (a
	// synchronized static method's lock), the class it is, a Java name
	// (reader.ClassObject; orca report's class_object).
	AttrLockClassObject = "lock.class_object"
	// AttrLockOwnerLeftLocked: true on a java.util.concurrent lock's
	// samples whose owner ended holding the lock, never releasing it
	// (model.Lock.LeftLocked; orca report's left_locked).
	AttrLockOwnerLeftLocked = "lock.owner.left_locked"
	AttrWaitNotifier        = "wait.notifier.thread.name"      // the thread whose notify ended a wait
	AttrJoinTarget          = "join.target.thread.name"        // the thread a join waited for
	AttrParkUnparker        = "park.unparker.thread.name"      // the thread whose unpark ended a park
	AttrSemReleaser         = "semaphore.releaser.thread.name" // the thread whose release let an acquire through
	AttrStateOpen           = "orca.state.open"                // true: the recording (or range) ended in this state
	AttrSampled             = "orca.sampled"                   // cpu or wall: how a sample was taken
	AttrProfileKind         = "orca.profile.kind"              // a Profile's kind of blocking (OTLPKinds) or cpu, wall
	AttrRecordingPrefix     = "orca.recording"                 // the recording's prefix, where it was pushed from
)

// otlpKind is one kind of blocking pushed as a pair of Profiles
// (contentions/count and delay/nanoseconds).
type otlpKind struct {
	name  string
	kinds Kinds // the export kind it belongs to, for OTLPOptions.Kinds
	has   func(iv *model.Interval) bool
}

// otlpKinds are the kinds of blocking, in the order pushed: a contended
// monitor and a contended java.util.concurrent lock are both the report's
// contentions (Interval.Shown Blocked) but two profiles, as Pyroscope's
// mutex and block are two.
var otlpKinds = [...]otlpKind{
	{"monitor", Monitor, func(iv *model.Interval) bool { return iv.Shown() == model.Blocked && !iv.Acquire }},
	{"juc", Monitor, func(iv *model.Interval) bool { return iv.Acquire }},
	{"wait", Wait, func(iv *model.Interval) bool { return iv.State == model.Waiting }},
	{"sleep", Sleep, func(iv *model.Interval) bool { return iv.State == model.Sleeping }},
	{"join", Join, func(iv *model.Interval) bool { return iv.State == model.Joining }},
	{"semaphore", Semaphore, func(iv *model.Interval) bool { return iv.State == model.Acquiring }},
	{"park", Park, func(iv *model.Interval) bool { return iv.State == model.Parked && !iv.Acquire }},
	{"idle", Idle, func(iv *model.Interval) bool { return iv.State == model.Idle && !iv.Acquire }},
}

// OTLPOptions control an OTLP request.
type OTLPOptions struct {
	Kinds   Kinds  // the states pushed; 0: All
	Samples bool   // push the threads' CPU and wall samples too (when the recording has them)
	Service string // service.name; "" for the JVM's main class or jar
	Host    string // host.name; "" for none
	// Version is the instrumentation scope's version (orca's).
	Version string
	// From, when not 0, is the start of the model's range (model.Options
	// Span) in a series of pushes of consecutive ranges: a state that
	// began before it (restated at From) was counted by the push before,
	// so only its delay from From on is pushed, no contention. Partial
	// says the range is not the series' last: a contention (monitor, juc)
	// still on at its end is counted by the push it ends in, on the owner
	// that let it in, as the whole recording counts it (and so, one
	// restated at From is counted there).
	From    format.Time
	Partial bool
	// Chained, with From: the model is of the chunk files after those
	// of the push before (reader.Recording.SpanChunks), which folded each
	// event once: the states restated at From (Interval.Restated) were
	// counted by the push before, every other state and every sample is
	// this one's, whatever its time (a state may begin at From exactly).
	Chained bool
	// Cache, if set, keeps what a series of requests of one recording
	// share (OTLPCache): every model given with it must be built with its
	// Stacks() (model.Options.Stacks).
	Cache *OTLPCache
}

// OTLPCache keeps, between the requests of a series (orca record --otlp's
// pushes of one recording), what one push would otherwise work out anew
// for each: the stacks' numbers (one reader.StackTable for every model of
// the series, so a stack is the same StackID in all), each frame resolved
// to its function, file and line, and each stack's locations. A push then
// resolves only the frames and stacks it is the first to see, and numbers
// the entries of its request's dictionary by arrays, not maps. Each
// request is the same as without the cache: a dictionary of its own
// samples' entries alone, in the same order (the collector keeps no
// dictionary between requests). A frame whose method or class the
// recording's tables do not have yet is resolved again each time
// (frames.keep). Not safe for concurrent use.
type OTLPCache struct {
	stacks *reader.StackTable
	fs     *frames
	// The locations and functions seen, numbered in order of first
	// sight: locs[g] is location g, locFn[g] its function's number;
	// stackLocs[id] stack id's locations (nil: not worked out, or
	// partial).
	locOf     map[fnLine]int32
	locs      []pprofLoc
	locFn     []int32
	funcOf    map[pprofFunc]int32
	funcs     []pprofFunc // by number
	sysNames  []string    // by number: the name with the signature, "" for none
	stackLocs [][]int32
	// frameLocs: a frame's location; methods: a method's function.
	frameLocs map[format.Frame]int32
	methods   map[format.MethodID]methodFn
	noStack   int32 // the location of a stack without frames plus one, 0 before its first

	// A request's index of a location, function and stack in its
	// dictionary's tables: locIdx[g] where locGen[g] is gen, the
	// request's number.
	gen                       uint32
	locGen, funcGen, stackGen []uint32
	locIdx, funcIdx, stackIdx []int32
	// kept: the last request's builder, whose maps, arenas and
	// dictionary's tables the next request reuses (reuse): the request
	// OTLP returned before with the cache must be dead (marshalled and
	// dropped) when the next is built. A push's maps grown from empty
	// and its arenas made anew were a fifth of its OTLP building and a
	// third of its allocations (docs/perf/2026-11-30-issue-35-lean-push.md).
	kept *otlpBuilder
}

// NewOTLPCache returns an empty cache for a series of requests.
func NewOTLPCache() *OTLPCache {
	return &OTLPCache{stacks: reader.NewStackTable(), locOf: map[fnLine]int32{}, funcOf: map[pprofFunc]int32{},
		frameLocs: map[format.Frame]int32{}, methods: map[format.MethodID]methodFn{},
		fs: &frames{frames: map[format.Frame]*frame{}, stacks: map[model.StackID][]*frame{}, keep: true}}
}

// Stacks is the stack table every model of the series is built with
// (model.Options.Stacks).
func (c *OTLPCache) Stacks() *reader.StackTable { return c.stacks }

// locations returns stack id's locations, by the cache's numbers. A
// frame is numbered once (frameLocs), and a method's function once
// (methods): a location's strings are made and looked up at its method's
// first sight, not for each of its frames in every stack.
func (c *OTLPCache) locations(id model.StackID) []int32 {
	if int(id) < len(c.stackLocs) && c.stackLocs[id] != nil {
		return c.stackLocs[id]
	}
	var fr []format.Frame
	if int(id) < len(c.fs.m.Stacks) {
		fr = c.fs.m.Stacks[id]
	}
	if len(fr) == 0 {
		// noStack is every exporter's: numbered here, not in it.
		if c.noStack == 0 {
			c.noStack = c.locAt(c.fn(noStack), noStack) + 1
		}
		return []int32{c.noStack - 1}
	}
	out := make([]int32, len(fr))
	partial := false
	for i, f := range fr {
		g, ok := c.frameLocs[f]
		if !ok {
			var p bool
			g, p = c.frameLoc(f)
			if !p {
				c.frameLocs[f] = g
			}
			partial = partial || p
		}
		out[i] = g
	}
	if !partial {
		for int(id) >= len(c.stackLocs) {
			c.stackLocs = append(c.stackLocs, nil)
		}
		c.stackLocs[id] = out
	}
	return out
}

// methodFn is a method's function number in OTLPCache.methods; lines:
// its frames have source lines (a Java method's, not a native one's).
type methodFn struct {
	fn    int32
	lines bool
}

// frameLoc returns the number of f's location; partial: f's method or
// class is not in the recording's tables yet (frame.partial), so it is
// not kept.
func (c *OTLPCache) frameLoc(f format.Frame) (int32, bool) {
	mf, ok := c.methods[f.Method]
	if !ok {
		r := c.fs.frame(f)
		fn := c.fn(r)
		if r.partial {
			return c.locAt(fn, r), true
		}
		cls := c.fs.rec.ClassName(f.Method)
		mf = methodFn{fn: fn, lines: !format.IsNativeClass(cls)}
		c.methods[f.Method] = mf
		return c.locAt(fn, r), false
	}
	line := 0
	if mf.lines {
		_, line = c.fs.rec.Line(f)
	}
	return c.locAt(mf.fn, &frame{line: line}), false
}

// fn returns the number of f's function, numbering it at first sight.
func (c *OTLPCache) fn(f *frame) int32 {
	k := pprofFunc{f.name, f.sig, f.file}
	fn, ok := c.funcOf[k]
	if !ok {
		fn = int32(len(c.funcs))
		c.funcOf[k] = fn
		c.funcs = append(c.funcs, k)
		sys := ""
		if k.sig != "" {
			sys = k.name + k.sig
		}
		c.sysNames = append(c.sysNames, sys)
		c.funcGen, c.funcIdx = append(c.funcGen, 0), append(c.funcIdx, 0)
	}
	return fn
}

// locAt returns the number of the location of function fn at f's line,
// numbering it at first sight.
func (c *OTLPCache) locAt(fn int32, f *frame) int32 {
	k := fnLine{fn, int32(f.line)}
	g, ok := c.locOf[k]
	if !ok {
		g = int32(len(c.locs))
		c.locOf[k] = g
		c.locs, c.locFn = append(c.locs, pprofLoc{c.funcs[fn], f.line}), append(c.locFn, fn)
		c.locGen, c.locIdx = append(c.locGen, 0), append(c.locIdx, 0)
	}
	return g
}

// fnLine is a location: a function's number and a line.
type fnLine struct{ fn, line int32 }

// OTLP builds one OTLP profiles export request of the model: per kind of
// blocking with states in it, a Profile of contentions/count and one of
// delay/nanoseconds; with opt.Samples, the CPU samples (samples/count,
// cpu/nanoseconds) and all samples (samples/count, wall/nanoseconds) as
// PProfSamples weighs them. A sample is a stack, a thread, a lock and, for
// a contention, the owner it waited behind: a contention whose owner
// changed is split between its owners (Model.BlameSpans), so that the delay
// of the samples of lock.owner.thread.name X is X's blame in orca report,
// as in orca export --format pprof, but without pprof's limit of
// maxOwners owners per thread, stack and lock: each owner's stretch is a
// value of its own here anyway, so a convoy's samples are no more than its
// values. Each value has its timestamp (the state's or the owner's
// stretch's start) when the recording has a clock origin.
func OTLP(rec *reader.Recording, m *model.Model, opt OTLPOptions) (*collpb.ExportProfilesServiceRequest, error) {
	b := newOTLPBuilder(rec, m, opt.Cache)
	b.from, b.partial, b.chained = opt.From, opt.Partial, opt.Chained
	kinds := opt.Kinds
	if kinds == 0 {
		kinds = All
	}
	profiles := b.states(kinds)
	if opt.Samples {
		for _, p := range []Profile{ProfileCPU, ProfileWall} {
			profiles = append(profiles, b.samples(p)...)
		}
	}
	service := opt.Service
	if service == "" {
		service = processName(rec)
	}
	res := &respb.Resource{Attributes: []*commonpb.KeyValue{
		strKV("service.name", service),
		intKV("process.pid", pid(rec)),
		strKV("process.runtime.name", rec.Info[format.InfoJavaVM]),
		strKV("process.runtime.version", rec.Info.JavaVersion()),
		strKV("process.command_line", rec.Info.Command()),
		strKV(AttrRecordingPrefix, rec.Prefix),
	}}
	if opt.Host != "" {
		res.Attributes = append(res.Attributes, strKV("host.name", opt.Host))
	}
	res.Attributes = slices.DeleteFunc(res.Attributes, func(kv *commonpb.KeyValue) bool {
		s, ok := kv.Value.Value.(*commonpb.AnyValue_StringValue)
		return ok && s.StringValue == ""
	})
	return &collpb.ExportProfilesServiceRequest{
		ResourceProfiles: []*profpb.ResourceProfiles{{
			Resource: res,
			ScopeProfiles: []*profpb.ScopeProfiles{{
				Scope:    &commonpb.InstrumentationScope{Name: "orca", Version: opt.Version},
				Profiles: profiles,
			}},
		}},
		Dictionary: b.dict,
	}, nil
}

func strKV(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func intKV(k string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}

// otlpBuilder fills the request's one dictionary: every table's entry 0 is
// its zero value, as the proto requires.
type otlpBuilder struct {
	rec  *reader.Recording
	m    *model.Model
	dict *profpb.ProfilesDictionary
	fs   *frames
	tn   threadNames
	c    *OTLPCache // OTLPOptions.Cache
	// ivWin reads a thread's intervals back from a Model built with
	// Options.DropIntervals, a piece at a time (eachPiece).
	ivWin model.IntervalWindow
	cont  contention // eachContention's

	strs   map[string]int32
	funcs  map[pprofFunc]int32
	locs   map[pprofLoc]int32
	stacks map[model.StackID]int32
	attrs  map[otlpAttr]int32
	// A thread's attributes (name, id), a lock's (id, class) and an
	// owner's (name, id), by their ids: a push has many samples of each,
	// and their strings cost more to make and look up than the samples
	// (BenchmarkPushLoop).
	threads map[format.ThreadID][]int32
	owners  map[format.ThreadID][]int32
	// objs: what the request knows of each lock object (objEntry), by
	// its number in the model (Model.Object); objects: by its id, an
	// index in more, for a model that numbers none.
	objs    []objEntry
	objects map[format.ObjectID]int32
	more    []objEntry
	objNear [256]objNearEntry // object's
	// The lock.class attribute by the class as the model has it
	// (Model.Class), and a state's attribute naming its other thread
	// (otherAttr) by the state and that thread: a push has a lock object
	// of its own for most of its parks (a FutureTask, a condition), all
	// of a few classes, and many states naming one other thread.
	classes map[string]int32
	// lastClass: the class asked for last and its attribute (the objects
	// of a push are mostly of one class: a 50-byte key hashed each).
	lastClass     string
	lastClassAttr int32
	others        map[otherThreadKey]int32
	// The lock.kind attribute by kind and the orca.state.open one, once a
	// request (0: not made yet; entry 0 of the table is no attribute).
	kindAttrs [model.JUCLock + 1]int32
	openAttr  int32

	// from: states that began at or before it are not counted
	// (OTLPOptions.From); 0 counts every state. partial: contentions
	// still on at the end are not (OTLPOptions.Partial).
	from    format.Time
	partial bool
	chained bool // OTLPOptions.Chained

	// Arenas: the samples' first values and timestamps (add), their
	// attribute lists (ints), the pairs of samples (states), the
	// attributes' messages (newAttr).
	vals      arena[int64]
	stamps    arena[uint64]
	intArena  arena[int32]
	attrBuf   []int32
	pairArena arena[statePair]
	attrArena arena[attrMsgs]
	// The dictionary's stacks, locations and functions (cachedStack): a
	// push's first sight of each is a message of its own.
	stackArena arena[profpb.Stack]
	locArena   arena[locMsgs]
	funcArena  arena[profpb.Function]
	// The kinds' pairs of samples by key (states), by otlpKinds' index,
	// and the samples' (samples): kept with the builder (OTLPCache.kept).
	kindPairs   []pairTab
	samplePairs map[sampleKey]samplePair

	// origin converts the model's times to Unix ns; ok false when the
	// recording has no clock origin (then no timestamps).
	origin int64
	timed  bool
}

type otlpAttr struct {
	key, str string
	b        bool
}

type otherThreadKey struct {
	th    format.ThreadID
	state model.State
}

func newOTLPBuilder(rec *reader.Recording, m *model.Model, c *OTLPCache) *otlpBuilder {
	var b *otlpBuilder
	if c != nil && c.kept != nil {
		b = c.kept
		b.reuse(rec, m)
	} else {
		b = &otlpBuilder{rec: rec, m: m, fs: newFrames(rec, m), tn: newThreadNames(m), c: c,
			dict: newOTLPDict(nil),
			strs: map[string]int32{"": 0}, funcs: map[pprofFunc]int32{}, locs: map[pprofLoc]int32{},
			stacks: map[model.StackID]int32{}, attrs: map[otlpAttr]int32{},
			threads: map[format.ThreadID][]int32{}, objects: map[format.ObjectID]int32{},
			owners: map[format.ThreadID][]int32{}, classes: map[string]int32{}, others: map[otherThreadKey]int32{},
			kindPairs: make([]pairTab, len(otlpKinds)), samplePairs: map[sampleKey]samplePair{},
			attrBuf: make([]int32, 0, 16)}
		b.vals.size, b.stamps.size, b.intArena.size, b.pairArena.size, b.attrArena.size = 16384, 16384, 4096, 256, 256
		b.vals.dirty, b.stamps.dirty = true, true // appendArena's alone
		b.stackArena.size, b.locArena.size, b.funcArena.size = 256, 256, 256
		if c != nil {
			c.kept = b
		}
	}
	if o, mono, ok := rec.Info.Origin(); ok {
		b.origin, b.timed = o-mono, true
	}
	if c != nil {
		c.fs.rec, c.fs.m = rec, m
		c.gen++
		if c.gen == 0 { // wrapped: every index is stale
			clear(c.locGen)
			clear(c.funcGen)
			clear(c.stackGen)
			c.gen = 1
		}
	}
	return b
}

// newOTLPDict returns a dictionary of the zero entries alone, in the
// tables' memory of old (the last request's, dead) when not nil.
func newOTLPDict(old *profpb.ProfilesDictionary) *profpb.ProfilesDictionary {
	if old == nil {
		return &profpb.ProfilesDictionary{
			MappingTable:   []*profpb.Mapping{{}},
			LocationTable:  []*profpb.Location{{}},
			FunctionTable:  []*profpb.Function{{}},
			LinkTable:      []*profpb.Link{{TraceId: make([]byte, 16), SpanId: make([]byte, 8)}},
			StringTable:    []string{""},
			AttributeTable: []*profpb.KeyValueAndUnit{{}},
			StackTable:     []*profpb.Stack{{}},
		}
	}
	// The zero entries are new messages: the old ones carry the last
	// marshalling's cached sizes, harmless, but nothing of the last
	// request is written to.
	return &profpb.ProfilesDictionary{
		MappingTable:   append(old.MappingTable[:0], &profpb.Mapping{}),
		LocationTable:  append(old.LocationTable[:0], &profpb.Location{}),
		FunctionTable:  append(old.FunctionTable[:0], &profpb.Function{}),
		LinkTable:      append(old.LinkTable[:0], &profpb.Link{TraceId: make([]byte, 16), SpanId: make([]byte, 8)}),
		StringTable:    append(old.StringTable[:0], ""),
		AttributeTable: append(old.AttributeTable[:0], &profpb.KeyValueAndUnit{}),
		StackTable:     append(old.StackTable[:0], &profpb.Stack{}),
	}
}

// reuse readies a kept builder (OTLPCache.kept) for the next request of
// its series: its maps emptied (their memory kept), its arenas handed out
// from their start again, its dictionary's tables from empty.
func (b *otlpBuilder) reuse(rec *reader.Recording, m *model.Model) {
	b.rec, b.m, b.fs, b.tn = rec, m, newFrames(rec, m), newThreadNames(m)
	// The hand-offs' windows are the last Model's (its locks' slices):
	// not this one's, though its objects have the same ids.
	if b.cont.hands != nil {
		b.cont.hands.Reset()
	}
	b.dict = newOTLPDict(b.dict)
	clear(b.strs)
	b.strs[""] = 0
	clear(b.funcs)
	clear(b.locs)
	clear(b.stacks)
	clear(b.attrs)
	clear(b.threads)
	clear(b.objects)
	clear(b.objs) // the last request's pairs and attributes, dead
	clear(b.more)
	b.objs, b.more = b.objs[:0], b.more[:0]
	clear(b.objNear[:])
	clear(b.owners)
	clear(b.classes)
	b.lastClass, b.lastClassAttr = "", 0
	clear(b.others)
	clear(b.samplePairs)
	for i := range b.kindPairs {
		b.kindPairs[i].reset()
	}
	b.from, b.partial, b.chained = 0, false, false
	b.origin, b.timed = 0, false
	b.kindAttrs, b.openAttr = [len(b.kindAttrs)]int32{}, 0
	b.vals.reset()
	b.stamps.reset()
	b.intArena.reset()
	b.pairArena.reset()
	b.attrArena.reset()
	b.stackArena.reset()
	b.locArena.reset()
	b.funcArena.reset()
}

// arena hands out slices of T, zeroed, from blocks of size it keeps:
// reset hands them out again from the first (the slices handed out
// before must be dead). A request makes hundreds of thousands of small
// slices and messages; a series of them (OTLPCache) allocates their
// memory once.
type arena[T any] struct {
	size   int
	blocks [][]T // those of size, kept
	next   int   // blocks[next:] not handed out since reset
	cur    []T   // the rest of the block handing out
	// dirty: a block handed out again is not cleared, its slices hold
	// the last request's values. For appendArena's alone, which reads
	// none it has not written: the samples' values and timestamps, a
	// block of 128 kB cleared each 16 384 of them.
	dirty bool
}

// arenaKeep bounds the memory an arena keeps between requests: a
// request's blocks beyond it are left to the collector.
const arenaKeep = 16 << 20

func (a *arena[T]) take(n int) []T {
	if len(a.cur) < n {
		switch {
		case n > a.size/2:
			return make([]T, n) // not kept
		case a.next < len(a.blocks):
			a.cur = a.blocks[a.next]
			if !a.dirty {
				clear(a.cur)
			}
		default:
			a.cur = make([]T, a.size)
			var t T
			if (len(a.blocks)+1)*a.size*int(unsafe.Sizeof(t)) <= arenaKeep {
				a.blocks = append(a.blocks, a.cur)
			}
		}
		a.next++
	}
	out := a.cur[:n:n]
	a.cur = a.cur[n:]
	return out
}

func (a *arena[T]) reset() { a.next, a.cur = 0, nil }

func (b *otlpBuilder) str(s string) int32 {
	if i, ok := b.strs[s]; ok {
		return i
	}
	i := int32(len(b.dict.StringTable))
	b.dict.StringTable = append(b.dict.StringTable, s)
	b.strs[s] = i
	return i
}

func (b *otlpBuilder) attr(key, val string) int32 {
	return b.attrOf(otlpAttr{key: key, str: val})
}

func (b *otlpBuilder) boolAttr(key string, val bool) int32 {
	return b.attrOf(otlpAttr{key: key, b: val, str: boolAttr})
}

// threadAttrs returns the indexes of t's attributes: its name and id.
func (b *otlpBuilder) threadAttrs(t *model.Thread) []int32 {
	a, ok := b.threads[t.ID]
	if !ok {
		a = []int32{b.attr(AttrThreadName, t.Name), b.attr(AttrThreadID, t.ID.String())}
		b.threads[t.ID] = a
	}
	return a
}

// ownerAttrs returns the indexes of the attributes of a contention's
// owner, the thread th: its name (when known) and id.
func (b *otlpBuilder) ownerAttrs(th format.ThreadID) []int32 {
	a, ok := b.owners[th]
	if !ok {
		if n := b.tn.name(th); n != "" {
			a = append(a, b.attr(AttrLockOwnerName, n))
		}
		a = append(a, b.attr(AttrLockOwnerID, th.String()))
		b.owners[th] = a
	}
	return a
}

// objEntry is what a request knows of a lock object: its attributes
// (lock.id, lock.class), made at its first sample key, and that key's
// pair of samples (of kind kind, otlpKinds' index). Most objects of a
// push are parked on once (a request's own future): their one key is
// kept here, not in the kind's map of pairs (a look-up of a 32-byte key
// that misses and a store, for each). A key is in one of the two: first
// when it was its object's first, the map's otherwise.
type objEntry struct {
	attrs []int32
	kind  int32
	key   stateKey
	first *statePair
	// class: the object's class (Model.Object's), when known is true.
	class string
	known bool
}

// objectIn returns the entry of iv's object (not 0), made at first
// sight: by the number the model gave it in iv (Model.ObjectNum), when
// it numbers its objects, without a look-up of the object.
func (b *otlpBuilder) objectIn(iv *model.Interval) *objEntry {
	num := b.m.ObjectNum(iv)
	if num == 0 {
		return b.object(iv.Object)
	}
	e := b.numbered(num)
	if !e.known {
		e.kind, e.class, e.known = -1, b.m.ObjectClass(iv.Object, num), true
	}
	return e
}

// numbered returns the entry of the object numbered num in the model
// (b.objs grown to it).
func (b *otlpBuilder) numbered(num int) *objEntry {
	if num >= len(b.objs) {
		n, old := max(num+1, 2*len(b.objs)), len(b.objs)
		if n > cap(b.objs) {
			clear(b.objNear[:]) // its pointers are into the old array
		}
		b.objs = slices.Grow(b.objs, n-old)[:n]
		clear(b.objs[old:])
	}
	return &b.objs[num]
}

// object returns obj's entry (not 0), made at first sight.
func (b *otlpBuilder) object(obj format.ObjectID) *objEntry {
	// The objects asked for lately by a hash of the id: the hot ones (a
	// pool's queue) are asked at each key the ring misses, and the
	// model's map of thousands is out of the caches.
	n := &b.objNear[uint32(obj)*0x9E3779B1>>24]
	if n.e != nil && n.id == obj {
		return n.e
	}
	e := b.objectOf(obj)
	*n = objNearEntry{obj, e}
	return e
}

// objNearEntry is an entry of otlpBuilder.objNear.
type objNearEntry struct {
	id format.ObjectID
	e  *objEntry
}

// objectOf is object without objNear.
func (b *otlpBuilder) objectOf(obj format.ObjectID) *objEntry {
	if num, class := b.m.Object(obj); num > 0 {
		e := b.numbered(num)
		if !e.known {
			e.kind, e.class, e.known = -1, class, true
		}
		return e
	}
	if i, ok := b.objects[obj]; ok {
		return &b.more[i]
	}
	b.objects[obj] = int32(len(b.more))
	if len(b.more) == cap(b.more) {
		clear(b.objNear[:]) // its pointers are into the old array
	}
	b.more = append(b.more, objEntry{kind: -1})
	return &b.more[len(b.more)-1]
}

// objectAttrs returns the indexes of the attributes of the lock obj, of
// entry e: its id and class, made at the first sample key with it.
func (b *otlpBuilder) objectAttrs(e *objEntry, obj format.ObjectID) []int32 {
	if e.attrs == nil {
		// The lock.id attribute is obj's alone (ids print distinct), and
		// it is made once: added without looking it up.
		a := b.intArena.take(2) // a push has thousands of objects
		a[0] = b.newAttr(otlpAttr{key: AttrLockID, str: obj.String()})
		a = a[:1]
		c, sig := b.className(obj, e)
		if c >= 0 {
			a = append(a, c)
		}
		if co := reader.ClassObject(b.rec.Classes, obj, sig); co != "" {
			// A synchronized static method's lock: the class it is.
			a = append(a, b.attr(AttrLockClassObject, format.JavaName(co)))
		}
		e.attrs = a
	}
	return e.attrs
}

// className returns the index of obj's lock.class attribute
// (Model.ClassName), -1 when its class is unknown, and the class's
// signature ("" for the JVM's lock of a class being initialised); e is
// obj's entry, whose class is the model's when known.
func (b *otlpBuilder) className(obj format.ObjectID, e *objEntry) (int32, string) {
	if b.m.InitLock(obj) != nil {
		return b.attr(AttrLockClass, b.m.ClassName(obj)), ""
	}
	c := e.class
	if !e.known {
		c = b.m.Class(obj)
	}
	if c == "" {
		return -1, ""
	}
	if c == b.lastClass && b.lastClassAttr > 0 {
		return b.lastClassAttr, c
	}
	i, ok := b.classes[c]
	if !ok {
		i = b.attr(AttrLockClass, format.JavaName(c))
		b.classes[c] = i
	}
	b.lastClass, b.lastClassAttr = c, i
	return i, c
}

// leftLocked reports whether th ended holding the java.util.concurrent
// lock obj (its Lock.LeftLocked names it): asked once a sample key.
func (b *otlpBuilder) leftLocked(obj format.ObjectID, th format.ThreadID) bool {
	return leftLockedBy(b.m.LeftLockedOf(obj), th)
}

// leftLockedBy reports whether ls, a lock's LeftLocked, names th.
func leftLockedBy(ls []model.LeftLocked, th format.ThreadID) bool {
	for _, ll := range ls {
		if ll.Thread == th {
			return true
		}
	}
	return false
}

// otherThread returns the index of the attribute naming a state's other
// thread th (otherAttr(s)'s), -1 for none.
func (b *otlpBuilder) otherThread(s model.State, th format.ThreadID) int32 {
	k := otherThreadKey{th, s}
	i, ok := b.others[k]
	if !ok {
		i = -1
		if a := otherAttr(s); a != "" {
			i = b.attr(a, b.tn.name(th))
		}
		b.others[k] = i
	}
	return i
}

// boolAttr is otlpAttr.str of a bool attribute.
const boolAttr = "\x00bool"

// attrOf returns the attribute table's index of k, adding it at first
// sight.
func (b *otlpBuilder) attrOf(k otlpAttr) int32 {
	if i, ok := b.attrs[k]; ok {
		return i
	}
	i := b.newAttr(k)
	b.attrs[k] = i
	return i
}

// newAttr appends k to the attribute table without looking it up: for an
// attribute attrOf cannot have seen. Its messages come from an arena: a
// push adds one for each lock object of its states.
func (b *otlpBuilder) newAttr(k otlpAttr) int32 {
	m := &b.attrArena.take(1)[0]
	if k.str == boolAttr {
		m.b.BoolValue = k.b
		m.v.Value = &m.b
	} else {
		m.s.StringValue = k.str
		m.v.Value = &m.s
	}
	m.kv.KeyStrindex, m.kv.Value = b.str(k.key), &m.v
	i := int32(len(b.dict.AttributeTable))
	b.dict.AttributeTable = append(b.dict.AttributeTable, &m.kv)
	return i
}

// attrMsgs are the messages of one attribute, allocated together.
type attrMsgs struct {
	kv profpb.KeyValueAndUnit
	v  commonpb.AnyValue
	s  commonpb.AnyValue_StringValue
	b  commonpb.AnyValue_BoolValue
}

// stack returns the stack table's index of id: its frames, innermost
// first, one location per source line of a function, as in pprof.
func (b *otlpBuilder) stack(id model.StackID) int32 {
	if c := b.c; c != nil {
		return b.cachedStack(id)
	}
	if i, ok := b.stacks[id]; ok {
		return i
	}
	st := &profpb.Stack{}
	for _, f := range b.fs.stack(id) {
		st.LocationIndices = append(st.LocationIndices, b.location(f))
	}
	i := int32(len(b.dict.StackTable))
	b.dict.StackTable = append(b.dict.StackTable, st)
	b.stacks[id] = i
	return i
}

func (b *otlpBuilder) location(f *frame) int32 {
	fk := pprofFunc{f.name, f.sig, f.file}
	lk := pprofLoc{fk, f.line}
	if i, ok := b.locs[lk]; ok {
		return i
	}
	fi, ok := b.funcs[fk]
	if !ok {
		fn := &profpb.Function{NameStrindex: b.str(f.name), FilenameStrindex: b.str(f.file)}
		if f.sig != "" {
			fn.SystemNameStrindex = b.str(f.name + f.sig)
		}
		fi = int32(len(b.dict.FunctionTable))
		b.dict.FunctionTable = append(b.dict.FunctionTable, fn)
		b.funcs[fk] = fi
	}
	if fn := b.dict.FunctionTable[fi]; f.line > 0 && (fn.StartLine == 0 || int64(f.line) < fn.StartLine) {
		fn.StartLine = int64(f.line)
	}
	i := int32(len(b.dict.LocationTable))
	b.dict.LocationTable = append(b.dict.LocationTable, &profpb.Location{
		Lines: []*profpb.Line{{FunctionIndex: fi, Line: int64(f.line)}}})
	b.locs[lk] = i
	return i
}

// cachedStack is stack with the cache (OTLPOptions.Cache): the same
// entries, in the same order, as stack and location add.
func (b *otlpBuilder) cachedStack(id model.StackID) int32 {
	c := b.c
	for int(id) >= len(c.stackGen) {
		c.stackGen, c.stackIdx = append(c.stackGen, 0), append(c.stackIdx, 0)
	}
	if c.stackGen[id] == c.gen {
		return c.stackIdx[id]
	}
	locs := c.locations(id)
	st := &b.stackArena.take(1)[0]
	st.LocationIndices = b.intArena.take(len(locs))
	for i, g := range locs {
		if c.locGen[g] == c.gen {
			st.LocationIndices[i] = c.locIdx[g]
			continue
		}
		lk, fn := c.locs[g], c.locFn[g]
		if c.funcGen[fn] != c.gen {
			f := &b.funcArena.take(1)[0]
			f.NameStrindex, f.FilenameStrindex = b.str(lk.fn.name), b.str(lk.fn.file)
			if sys := c.sysNames[fn]; sys != "" {
				f.SystemNameStrindex = b.str(sys)
			}
			c.funcGen[fn], c.funcIdx[fn] = c.gen, int32(len(b.dict.FunctionTable))
			b.dict.FunctionTable = append(b.dict.FunctionTable, f)
		}
		fi := c.funcIdx[fn]
		if f := b.dict.FunctionTable[fi]; lk.line > 0 && (f.StartLine == 0 || int64(lk.line) < f.StartLine) {
			f.StartLine = int64(lk.line)
		}
		c.locGen[g], c.locIdx[g] = c.gen, int32(len(b.dict.LocationTable))
		lm := &b.locArena.take(1)[0]
		lm.line.FunctionIndex, lm.line.Line = fi, int64(lk.line)
		lm.lines[0] = &lm.line
		lm.loc.Lines = lm.lines[:]
		b.dict.LocationTable = append(b.dict.LocationTable, &lm.loc)
		st.LocationIndices[i] = c.locIdx[g]
	}
	c.stackGen[id], c.stackIdx[id] = c.gen, int32(len(b.dict.StackTable))
	b.dict.StackTable = append(b.dict.StackTable, st)
	return c.stackIdx[id]
}

// locMsgs are the messages of a location of one line, allocated together.
type locMsgs struct {
	loc   profpb.Location
	line  profpb.Line
	lines [1]*profpb.Line
}

// at returns t as Unix ns.
func (b *otlpBuilder) at(t format.Time) uint64 { return uint64(b.origin + int64(t)) }

// profile returns an empty Profile of the kind and sample type.
func (b *otlpBuilder) profile(kind, typ, unit, periodType, periodUnit string, period int64) *profpb.Profile {
	p := &profpb.Profile{
		SampleType:       &profpb.ValueType{TypeStrindex: b.str(typ), UnitStrindex: b.str(unit)},
		PeriodType:       &profpb.ValueType{TypeStrindex: b.str(periodType), UnitStrindex: b.str(periodUnit)},
		Period:           period,
		DurationNano:     uint64(b.m.End - b.m.Start),
		AttributeIndices: []int32{b.attr(AttrProfileKind, kind)},
	}
	if b.timed {
		p.TimeUnixNano = b.at(b.m.Start)
	}
	return p
}

// add appends a value and its timestamp to s.
//
// Most samples of a push have one value (a park on an object of its own,
// a FutureTask's: its key is new), some thousands (a pool's worker parked
// again and again): the values and timestamps come from arenas, grown by
// doubling there (their growth by append was a sixth of a push's
// allocations).
func (b *otlpBuilder) add(s *profpb.Sample, v int64, at format.Time) {
	s.Values = appendArena(&b.vals, s.Values, v)
	if b.timed {
		s.TimestampsUnixNano = appendArena(&b.stamps, s.TimestampsUnixNano, b.at(at))
	}
}

// appendArena is append, the memory from a (a sample of a push may have
// thousands of values: grown by doubling there, not by the collector's).
// It reads only what it wrote: a may be dirty.
func appendArena[T any](a *arena[T], s []T, v T) []T {
	if len(s) == cap(s) {
		n := a.take(max(2*len(s), 1))
		copy(n, s)
		s = n[:len(s)]
	}
	return append(s, v)
}

// ints returns a copy of a, from an arena (a push makes a list of
// attributes for each of its thousands of sample keys).
func (b *otlpBuilder) ints(a []int32) []int32 {
	out := b.intArena.take(len(a))
	copy(out, a)
	return out
}

// otherAttr names Interval.Other's attribute for the states that are not
// contentions (a contention's is lock.owner.*, split by BlameSpans).
func otherAttr(s model.State) string {
	switch s {
	case model.Waiting:
		return AttrWaitNotifier
	case model.Joining:
		return AttrJoinTarget
	case model.Acquiring:
		return AttrSemReleaser
	case model.Parked, model.Idle:
		return AttrParkUnparker
	}
	return ""
}

// stateKey is a pair of samples of a kind of blocking: the attributes
// follow from it. It has no padding (open is a word), so that the map
// hashes it as plain memory: a push looks up a key per value.
type stateKey struct {
	thread, other format.ThreadID
	stack         model.StackID
	object        format.ObjectID
	open          uint64
}

// statePair is a key's samples, one allocation for both.
type statePair struct{ count, delay profpb.Sample }

// newPair is a count and delay sample of stack st and attributes attrs,
// taken from the builder's arena (a push makes many of them).
func (b *otlpBuilder) newPair(st int32, attrs []int32) *statePair {
	p := &b.pairArena.take(1)[0]
	p.count.StackIndex, p.count.AttributeIndices = st, attrs
	p.delay.StackIndex, p.delay.AttributeIndices = st, attrs
	return p
}

// kindProfiles is what states builds of a kind of blocking: its two
// Profiles and their samples by key.
type kindProfiles struct {
	k            otlpKind
	index        int32 // k's in otlpKinds
	count, delay *profpb.Profile
	pairs        *pairTab
	// The pairs of the last keys asked for (the latest at recent[next-1],
	// round the ring): a thread's states come in runs of one key (a
	// contention's owners), or of a few taking turns (a pool's worker
	// parked in its queue between parks on each task's own future),
	// looked up in the map once a run.
	recent [recentPairs]recentPair
	next   int
}

// recentPairs is the size of kindProfiles.recent.
const recentPairs = 4

// recentPair is a key and its pair of samples, nil for none.
type recentPair struct {
	key stateKey
	p   *statePair
}

// get returns the pair of samples of thread t's interval iv, open or not,
// whose other thread is other (a contention's owner when blocked).
func (b *otlpBuilder) get(kp *kindProfiles, t *model.Thread, iv *model.Interval, open bool, other format.ThreadID, blocked bool) *statePair {
	kk := stateKey{thread: t.ID, other: other, stack: iv.Stack, object: iv.Object}
	if open {
		kk.open = 1
	}
	for i := range kp.recent {
		if r := &kp.recent[i]; r.p != nil && r.key == kk {
			return r.p
		}
	}
	var oe *objEntry
	if iv.Object != 0 {
		oe = b.objectIn(iv)
		if oe.first != nil && oe.kind == kp.index && oe.key == kk {
			kp.remember(kk, oe.first)
			return oe.first
		}
	}
	if oe == nil || oe.first != nil {
		if p := kp.pairs.get(kk); p != nil {
			kp.remember(kk, p)
			return p
		}
	}
	attrs := append(b.attrBuf[:0], b.threadAttrs(t)...)
	if oe != nil {
		attrs = append(attrs, b.objectAttrs(oe, iv.Object)...)
	}
	if lk, ok := ivLockKindOf(iv); ok {
		attrs = append(attrs, b.lockKindAttr(lk))
	}
	if open {
		if b.openAttr == 0 {
			b.openAttr = b.boolAttr(AttrStateOpen, true)
		}
		attrs = append(attrs, b.openAttr)
	}
	switch {
	case other != 0 && blocked:
		attrs = append(attrs, b.ownerAttrs(other)...)
		if iv.Acquire && b.leftLocked(iv.Object, other) {
			attrs = append(attrs, b.boolAttr(AttrLockOwnerLeftLocked, true))
		}
	case other != 0:
		if a := b.otherThread(iv.State, other); a >= 0 {
			attrs = append(attrs, a)
		}
	}
	b.attrBuf = attrs
	attrs = b.ints(attrs)
	p := b.newPair(b.stack(iv.Stack), attrs)
	kp.count.Samples = append(kp.count.Samples, &p.count)
	kp.delay.Samples = append(kp.delay.Samples, &p.delay)
	if oe != nil && oe.first == nil {
		oe.kind, oe.key, oe.first = kp.index, kk, p
	} else {
		kp.pairs.put(kk, p)
	}
	kp.remember(kk, p)
	return p
}

// remember puts key k and its pair p in kp.recent, in place of the
// oldest.
func (kp *kindProfiles) remember(k stateKey, p *statePair) {
	kp.recent[kp.next] = recentPair{k, p}
	kp.next = (kp.next + 1) % recentPairs
}

// states returns the two Profiles of each kind of blocking in kinds, in
// the order of otlpKinds, none for a kind no interval is of: one walk
// over the threads' intervals for all of them.
func (b *otlpBuilder) states(kinds Kinds) []*profpb.Profile {
	var all []*kindProfiles
	var monitor, juc *kindProfiles // the contentions' (eachContention)
	var others []*kindProfiles     // the other kinds, by their intervals
	// The other kinds by otlpKinds' index (otherKind), nil for those
	// not pushed: an interval is of one kind at most.
	var byKind [len(otlpKinds) + 1]*kindProfiles
	for i, k := range otlpKinds {
		if kinds&k.kinds == 0 {
			continue
		}
		kp := &kindProfiles{k: k, index: int32(i), pairs: &b.kindPairs[i],
			count: b.profile(k.name, "contentions", "count", "contentions", "count", 1),
			delay: b.profile(k.name, "delay", "nanoseconds", "contentions", "count", 1)}
		all = append(all, kp)
		switch k.name {
		case "monitor":
			monitor = kp
		case "juc":
			juc = kp
		default:
			others = append(others, kp)
			byKind[i] = kp
		}
	}
	var t *model.Thread
	// A contention's delay goes to the owners it waited behind, each for
	// its stretch, and it counts on the owner whose release let the thread
	// in: the report's blame (eachContention).
	contentions := func(ivs []model.Interval, last bool) int {
		if monitor == nil && juc == nil {
			return 0
		}
		return eachContention(b.m, t, ivs, last, &b.cont, func(c *contention) {
			kp := monitor
			if c.first.Acquire {
				kp = juc
			}
			if kp == nil || !kp.k.has(c.first) {
				return
			}
			for _, sp := range c.spans {
				b.add(&b.get(kp, t, c.first, c.open, sp.Owner, true).delay, int64(sp.End-sp.Start), sp.Start)
			}
			if !c.open || !b.partial {
				b.add(&b.get(kp, t, c.first, c.open, c.count, true).count, 1, c.first.Start)
			}
		})
	}
	otherStates := func(ivs []model.Interval, _ bool) int {
		for i := range ivs {
			iv := &ivs[i]
			kp := byKind[otherKind(iv)]
			if kp == nil {
				continue
			}
			p := b.get(kp, t, iv, iv.Open, iv.Other, false)
			if first(*iv) && b.counts(iv) {
				b.add(&p.count, 1, iv.Start)
			}
			b.add(&p.delay, int64(iv.Duration()), iv.Start)
		}
		return 0
	}
	for _, t = range b.m.AllThreads() {
		// The contentions first, then the other states, each over the
		// whole thread: the dictionary's entries made in the same order
		// as from a Model in memory. A thread read by pieces is read
		// twice.
		if b.m.WindowOf(t, &b.ivWin); !b.ivWin.ByPieces() {
			ivs, _ := b.ivWin.Next()
			contentions(ivs, true)
			if len(others) > 0 {
				otherStates(ivs, true)
			}
			continue
		}
		eachPiece(b.m, t, &b.ivWin, contentions)
		if len(others) > 0 {
			eachPiece(b.m, t, &b.ivWin, otherStates)
		}
	}
	var out []*profpb.Profile
	for _, kp := range all {
		if len(kp.count.Samples) == 0 {
			continue
		}
		// An owner's stretch that was not the last of its contention has
		// a delay and no count, the owner a contention counts on may have
		// no stretch: a sample holds at least one value.
		empty := func(s *profpb.Sample) bool { return len(s.Values) == 0 }
		kp.count.Samples = slices.DeleteFunc(kp.count.Samples, empty)
		kp.delay.Samples = slices.DeleteFunc(kp.delay.Samples, empty)
		// A later push of a series may have delays and no count (its
		// contentions still open, counted where they end): a profile
		// without samples is left out, not sent empty.
		for _, p := range []*profpb.Profile{kp.count, kp.delay} {
			if len(p.Samples) > 0 {
				out = append(out, p)
			}
		}
	}
	return out
}

// otherKind returns the index in otlpKinds of the kind other than
// the contentions' that iv is of (its has true), len(otlpKinds) for none:
// the kinds are of distinct states, decided by one switch, not by each
// kind's has in turn (a push has hundreds of thousands of intervals).
func otherKind(iv *model.Interval) int {
	switch iv.State {
	case model.Waiting:
		return kindWait
	case model.Sleeping:
		return kindSleep
	case model.Joining:
		return kindJoin
	case model.Acquiring:
		return kindSemaphore
	case model.Parked:
		if !iv.Acquire {
			return kindPark
		}
	case model.Idle:
		if !iv.Acquire {
			return kindIdle
		}
	}
	return len(otlpKinds)
}

// The indexes of otlpKinds' kinds other than the contentions'.
const (
	kindWait = iota + 2
	kindSleep
	kindJoin
	kindSemaphore
	kindPark
	kindIdle
)

// counts reports whether iv's state (not a contention: eachContention's
// are counted where they end) counts here: not when it was on at From,
// counted by the push before.
func (b *otlpBuilder) counts(iv *model.Interval) bool {
	if b.chained {
		return !iv.Restated
	}
	return b.from == 0 || iv.Start > b.from
}

// ivLockKind names the kind of lock an interval is on (model.LockKind), ""
// for a state on none (sleep, join, a park without a blocker).
func ivLockKind(iv *model.Interval) string {
	if k, ok := ivLockKindOf(iv); ok {
		return k.String()
	}
	return ""
}

// ivLockKindOf is the kind of lock an interval is on, ok false for none.
func ivLockKindOf(iv *model.Interval) (model.LockKind, bool) {
	switch {
	case iv.Acquire:
		return model.JUCLock, true
	case iv.State == model.Blocked, iv.State == model.Waiting:
		return model.Monitor, true
	case iv.State == model.Acquiring:
		return model.Semaphore, true
	case (iv.State == model.Parked || iv.State == model.Idle) && iv.Object != 0:
		return model.Blocker, true
	}
	return 0, false
}

// lockKindAttr returns the index of the lock.kind attribute of k, made
// once a request (a push makes thousands of sample keys, each with one).
func (b *otlpBuilder) lockKindAttr(k model.LockKind) int32 {
	if int(k) >= len(b.kindAttrs) {
		return b.attr(AttrLockKind, k.String())
	}
	if b.kindAttrs[k] == 0 {
		b.kindAttrs[k] = b.attr(AttrLockKind, k.String())
	}
	return b.kindAttrs[k]
}

// samples returns profile p's two Profiles (samples/count and
// cpu/nanoseconds or wall/nanoseconds), none without samples.
func (b *otlpBuilder) samples(prof Profile) []*profpb.Profile {
	unit := "cpu"
	if prof == ProfileWall {
		unit = "wall"
	}
	period, _ := b.rec.Info.Int(format.InfoSampleCPU)
	count := b.profile(unit, "samples", "count", unit, "nanoseconds", period)
	weight := b.profile(unit, unit, "nanoseconds", unit, "nanoseconds", period)
	pairs := b.samplePairs
	clear(pairs) // the CPU profile's, for the wall's
	for _, sk := range prof.sampleKinds() {
		b.m.EachSample(model.SampleQuery{Kind: sk}, func(t *model.Thread, s *model.Sample) {
			if b.from != 0 && !b.chained && s.At <= b.from {
				return // in the push before (a range includes both its ends)
			}
			kk := sampleKey{s.Stack, t.ID, s.Kind}
			p, ok := pairs[kk]
			if !ok {
				attrs := b.ints(append(append(b.attrBuf[:0], b.threadAttrs(t)...), b.attr(AttrSampled, s.Kind.String())))
				sp := b.newPair(b.stack(s.Stack), attrs)
				p = samplePair{&sp.count, &sp.delay}
				count.Samples = append(count.Samples, p.count)
				weight.Samples = append(weight.Samples, p.weight)
				pairs[kk] = p
			}
			b.add(p.count, 1, s.At)
			b.add(p.weight, int64(s.Weight), s.At)
		})
	}
	if len(count.Samples) == 0 {
		return nil
	}
	return []*profpb.Profile{count, weight}
}

// sampleKey is a pair of samples of a profile of samples (cpu, wall).
type sampleKey struct {
	stack  model.StackID
	thread format.ThreadID
	kind   format.SampleKind
}

type samplePair struct{ count, weight *profpb.Sample }

// OTLPTotals counts a request's profiles: per profile kind and sample
// type, the sum of the values, for orca push's summary.
func OTLPTotals(req *collpb.ExportProfilesServiceRequest) []OTLPTotal {
	var out []OTLPTotal
	d := req.Dictionary
	for _, rp := range req.ResourceProfiles {
		for _, sp := range rp.ScopeProfiles {
			for _, p := range sp.Profiles {
				t := OTLPTotal{Type: d.StringTable[p.SampleType.TypeStrindex], Unit: d.StringTable[p.SampleType.UnitStrindex]}
				for _, ai := range p.AttributeIndices {
					if a := d.AttributeTable[ai]; d.StringTable[a.KeyStrindex] == AttrProfileKind {
						t.Kind = a.Value.GetStringValue()
					}
				}
				for _, s := range p.Samples {
					t.Samples++
					for _, v := range s.Values {
						t.Sum += v
					}
				}
				out = append(out, t)
			}
		}
	}
	return out
}

// OTLPTotal is one Profile's sum (OTLPTotals).
type OTLPTotal struct {
	Kind, Type, Unit string
	Samples          int
	Sum              int64
}

func (t OTLPTotal) String() string {
	return fmt.Sprintf("%s %s/%s: %s in %d samples", t.Kind, t.Type, t.Unit, strconv.FormatInt(t.Sum, 10), t.Samples)
}
