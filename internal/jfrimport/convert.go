package jfrimport

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"orca/internal/format"
	"orca/internal/jfr"
)

// The JFR event types the import reads.
const (
	evEnter   = "jdk.JavaMonitorEnter"
	evWait    = "jdk.JavaMonitorWait"
	evPark    = "jdk.ThreadPark"
	evSleep   = "jdk.ThreadSleep"
	evStart   = "jdk.ThreadStart"
	evEnd     = "jdk.ThreadEnd"
	evVStart  = "jdk.VirtualThreadStart"
	evVEnd    = "jdk.VirtualThreadEnd"
	evVPinned = "jdk.VirtualThreadPinned"
	evJVM     = "jdk.JVMInformation" // facts for .info, when the recording has them
	evLoss    = "jdk.DataLoss"       // JFR's own count of what it dropped
	evSetting = "jdk.ActiveSetting"  // the recording's settings: what JFR could see (settings.go)
	// Samples (issue 33, docs/jfr.md "Samples").
	evExec    = "jdk.ExecutionSample"    // a thread running Java code, every period
	evCPUTime = "jdk.CPUTimeSample"      // JDK 25, experimental, Linux: a thread's CPU-time timer fired
	evNative  = "jdk.NativeMethodSample" // a thread in native code, every period
	evCPULost = "jdk.CPUTimeSamplesLost" // JFR's count of jdk.CPUTimeSample it dropped
)

// EventTypes lists the JFR event types that become Orca events.
var EventTypes = []string{evEnter, evWait, evPark, evSleep, evStart, evEnd, evVStart, evVEnd, evVPinned, evExec, evCPUTime, evNative}

// importer holds the identities and tables that live across chunks, and
// the lines of the chunk being converted.
type importer struct {
	res *Result

	threads   map[threadKey]*thread
	threadIDs idSpace[threadKey]
	objectIDs idSpace[objectKey]
	objClass  map[format.ObjectID]string
	announced map[format.ObjectID]bool // its ObjectClass line is written
	classes   map[string]*class
	classIDs  idSpace[string]
	classList []*class
	methods   map[methodKey]*method
	methList  []*method

	// The chunk being converted.
	c          *jfr.Chunk
	chunkStart format.Time
	stacks     map[stackKey]string // JFR stack trace → Orca stack field
	chMethods  map[int64]*method   // JFR method key → method
	recs       []rec
	seq        int
	wrote      bool // a line has been written (res.Start is set)
	// period is the sampling period of jdk.ExecutionSample and
	// jdk.NativeMethodSample (their "period" setting, ns), the least of the
	// settings seen in this chunk or, when it has none, the last chunk's:
	// the weight of their samples (flush).
	period      map[string]int64
	chunkPeriod map[string]int64
	// cpuTime: this chunk has jdk.CPUTimeSample events, whose samples stand
	// for the same CPU time as its jdk.ExecutionSample: those are left out
	// (flush). Not the setting: enabled where the sampler does not exist
	// (not Linux), it samples nothing.
	cpuTime bool
}

func newImporter(res *Result) *importer {
	return &importer{
		res:       res,
		threads:   map[threadKey]*thread{},
		threadIDs: newIDSpace[threadKey](),
		objectIDs: newIDSpace[objectKey](),
		objClass:  map[format.ObjectID]string{},
		announced: map[format.ObjectID]bool{},
		classes:   map[string]*class{},
		classIDs:  newIDSpace[string](),
		methods:   map[methodKey]*method{},
		period:    map[string]int64{},
	}
}

func (im *importer) startChunk(c *jfr.Chunk) {
	im.c = c
	// Methods and classes are dated by the chunk that first names them:
	// events come in file order, not time order.
	im.chunkStart = format.Time(max(0, min(c.Header.TicksToNanos(c.Header.StartTicks), maxTime)))
	im.stacks = map[stackKey]string{}
	im.chMethods = map[int64]*method{}
	im.recs = im.recs[:0]
	im.cpuTime = false
	im.chunkPeriod = map[string]int64{}
}

// add queues a line of the current chunk.
func (im *importer) add(r rec) {
	r.seq = im.seq
	im.seq++
	im.recs = append(im.recs, r)
}

// event converts one JFR event into .orca and .ext lines.
func (im *importer) event(e jfr.Event) {
	o := im.c.Obj(e)
	name := e.Type.Name
	switch name {
	case evJVM:
		im.jvmInfo(o)
		return
	case evLoss:
		im.res.DataLoss += max(0, o.Field("amount").Int())
		return
	case evSetting: // JDK 25 writes it without a thread
		im.setting(o)
		return
	case evCPULost:
		// JFR dropped these CPU-time samples (its queue of them was full).
		im.res.SamplesLost += max(0, o.Field("lostSamples").Int())
		return
	}
	start, ok := im.time(o.Field("startTime"))
	if !ok {
		im.res.skip(name, "timestamp out of range")
		return
	}
	end := start
	if d := o.Field("duration"); d.Valid() {
		if ns, ok := d.Nanos(); ok && ns > 0 && ns <= math.MaxInt64-int64(start) {
			end = start + format.Time(ns)
		}
	}
	th := im.thread(o.Field("eventThread"))
	switch name {
	case evStart, evEnd, evVStart, evVEnd:
		if t := im.thread(o.Field("thread")); t != nil {
			th = t
		}
	case evExec, evNative: // written by JFR's sampler thread, about another
		th = im.thread(o.Field("sampledThread"))
	}
	if th == nil {
		if name != evStart { // JDK 17 writes a ThreadStart without a thread at shutdown
			im.res.skip(name, "no thread")
		}
		return
	}
	im.res.JFREvents[name]++
	switch name {
	case evEnter:
		obj := im.object(o.Field("monitorClass"), o.Field("address").Int())
		owner := im.thread(o.Field("previousOwner"))
		switch {
		case owner == nil:
			im.res.OwnerUnknown++
			im.res.OwnerNone++
		case owner == th:
			// A thread is not blocked by itself: JFR's previousOwner was
			// stale (the monitor was re-inflated since this thread last
			// released it).
			owner = nil
			im.res.OwnerUnknown++
			im.res.OwnerSelf++
		}
		st := im.stack(o.Field("stackTrace"))
		im.add(rec{t: start, kind: format.MonitorContendedEnter, thread: th, object: obj, other: owner, stack: st})
		im.add(rec{t: end, kind: format.MonitorContendedEntered, thread: th, object: obj, stack: st})
	case evWait:
		notifier := im.thread(o.Field("notifier"))
		stObj := o.Field("stackTrace")
		if notifier != nil && notifier != th && classSig(o.Field("monitorClass")) == "Ljava/lang/Thread;" {
			if at := joinFrame(stObj); at >= 0 {
				// Thread.join waits on the Thread until it ends and notifies
				// (so the notifier is the joined thread). The agent records
				// joins, not the waits inside them; so does the import, with
				// the stack from Thread.join out.
				st := im.stackFrom(stObj, at)
				im.add(rec{t: start, kind: format.ThreadJoin, thread: th, other: notifier, stack: st})
				im.add(rec{t: end, kind: format.ThreadJoined, thread: th, other: notifier, stack: st})
				im.res.JoinsFromWaits++
				return
			}
		}
		obj := im.object(o.Field("monitorClass"), o.Field("address").Int())
		st := im.stack(stObj)
		timeout := int64(-1)
		if ns, ok := o.Field("timeout").Nanos(); ok && ns > 0 {
			timeout = ns // wait(0) waits for ever
		}
		im.add(rec{t: start, kind: format.ObjectWait, thread: th, object: obj, stack: st})
		if notifier != nil && notifier != th {
			// JFR names the thread whose notify ended the wait, not when it
			// notified (some time before): an ObjectNotify just before the
			// ObjectWaited tells readers who woke the wait.
			im.add(rec{t: end, kind: format.ObjectNotify, thread: notifier, object: obj, stack: "0", synthetic: true})
		}
		im.add(rec{t: end, kind: format.ObjectWaited, thread: th, object: obj, stack: st})
		im.add(rec{t: end, ext: format.ExtWaitNotifier, thread: th, object: obj,
			other: notifier, timeout: timeout, timedOut: o.Field("timedOut").Bool()})
	case evPark:
		obj := im.object(o.Field("parkedClass"), o.Field("address").Int())
		st := im.stack(o.Field("stackTrace"))
		timeout, until := int64(-1), int64(-1)
		if ns, ok := o.Field("timeout").Nanos(); ok && ns > 0 {
			timeout = ns // Long.MIN_VALUE: park() without one
		}
		if u := o.Field("until"); u.Valid() && u.Int() > 0 && u.Int() < math.MaxInt64/1_000_000 {
			until = u.Int() * 1e6 // milliseconds since the epoch
		}
		if timeout < 0 && until >= 0 {
			// parkUntil: the time left to the deadline, as the agent writes
			// it (the wall clock at the event from the chunk's).
			timeout = max(0, until-(im.c.Header.StartNanos+int64(start-im.chunkStart)))
		}
		// JFR says neither who unparked nor how the park ended: a timed
		// park that lasted its timeout timed out, any other is unknown.
		how := format.ParkEndUnknown
		if timeout > 0 && int64(end-start) >= timeout {
			how = format.ParkEndTimeout
		}
		im.add(rec{t: start, kind: format.ThreadPark, thread: th, object: obj, timeout: timeout, stack: st})
		im.add(rec{t: end, kind: format.ThreadUnparked, thread: th, object: obj, how: how}) // its stack is the park's
	case evSleep:
		st := im.stack(o.Field("stackTrace"))
		timeout := int64(-1)
		if ns, ok := o.Field("time").Nanos(); ok && ns >= 0 {
			timeout = ns
		}
		im.add(rec{t: start, kind: format.ThreadSleep, thread: th, stack: st})
		im.add(rec{t: start, ext: format.ExtSleepTime, thread: th, timeout: timeout})
		im.add(rec{t: end, kind: format.ThreadSlept, thread: th, stack: st})
	case evStart:
		// JFR commits ThreadStart in the new thread, with the parent's
		// stack at Thread.start (JDK 17 and 25 alike).
		if parent := im.thread(o.Field("parentThread")); parent != nil {
			im.add(rec{t: start, kind: format.ThreadStart, thread: parent, other: th, stack: im.stack(o.Field("stackTrace"))})
		}
		im.add(rec{t: start, kind: format.ThreadStarted, thread: th})
	case evEnd:
		im.add(rec{t: start, kind: format.ThreadEnded, thread: th})
	case evVStart:
		th.virtual = true
		im.add(rec{t: start, kind: format.ThreadStarted, thread: th})
	case evVEnd:
		th.virtual = true
		im.add(rec{t: start, kind: format.ThreadEnded, thread: th})
	case evExec:
		// A thread JFR found running Java code: a CPU sample standing for
		// one period, known at the chunk's end (flush).
		im.add(rec{t: start, kind: format.Sample, thread: th, sampled: format.SampleCPU, weight: -1, jfrType: name, stack: im.stack(o.Field("stackTrace"))})
	case evNative:
		// A thread JFR found in native code (I/O, a JNI call): a wall
		// sample, "other" time, standing for one period.
		im.add(rec{t: start, kind: format.Sample, thread: th, sampled: format.SampleWall, weight: -1, jfrType: name, stack: im.stack(o.Field("stackTrace"))})
	case evCPUTime:
		// The thread's own CPU-time timer fired: a CPU sample standing for
		// the sampling period the event carries. A sample whose stack JFR
		// failed to take still says where the thread's CPU went: it is
		// written without a stack (samples_failed in .info).
		im.cpuTime = true
		weight, ok := o.Field("samplingPeriod").Nanos()
		if !ok || weight < 0 {
			weight = -1 // from the settings, as an ExecutionSample
		}
		st := "0"
		if o.Field("failed").Bool() {
			im.res.SamplesFailed++
		} else {
			st = im.stack(o.Field("stackTrace"))
		}
		im.add(rec{t: start, kind: format.Sample, thread: th, sampled: format.SampleCPU, weight: weight, jfrType: name, stack: st})
	case evVPinned:
		// JFR names no carrier: the line's target is 00000000. The pinned
		// park or sleep is JFR's jdk.ThreadPark or jdk.ThreadSleep of the
		// same thread, when it was long enough to be recorded.
		th.virtual = true
		im.add(rec{t: start, kind: format.VirtualThreadPinned, thread: th})
	}
}

// time converts a startTime (ticks) to the recording's clock; false when it
// is negative or beyond what the files can hold.
func (im *importer) time(o jfr.Obj) (format.Time, bool) {
	if !o.Valid() {
		return 0, false
	}
	ns := im.c.Header.TicksToNanos(o.Int())
	if ns < 0 || ns > maxTime {
		return 0, false
	}
	return format.Time(ns), true
}

// maxTime keeps end times (start + duration) and the reader's parse in range.
const maxTime = math.MaxInt64 / 4

// thread maps a java.lang.Thread constant to its Orca identity.
func (im *importer) thread(o jfr.Obj) *thread {
	if !o.Valid() {
		return nil
	}
	k := threadKey{java: o.Field("javaThreadId").Int(), os: o.Field("osThreadId").Int()}
	if k.java != 0 {
		k.os = 0 // a Java thread is its Java id; the OS id may be reused
	} else if k.os == 0 {
		return nil
	}
	th := im.threads[k]
	if th == nil {
		id, _ := im.threadIDs.get(k, k.hash())
		th = &thread{id: format.ThreadID(id), java: k.java}
		im.threads[k] = th
	}
	if os := o.Field("osThreadId").Int(); os != 0 {
		th.os = os
	}
	if v := o.Field("virtual"); v.Valid() && v.Bool() {
		th.virtual = true // JDK 19+: a virtual thread
	}
	name := o.Field("javaName").Str()
	if name == "" && !th.virtual {
		name = o.Field("osName").Str()
	}
	if name == "" && th.virtual && th.name == "" {
		name = "virtual-" + strconv.FormatInt(k.java, 10) // as the agent names an unnamed one
	}
	if name != "" {
		th.name = name // the name the thread has in this chunk
	}
	return th
}

// object maps a monitor or blocker (class and address) to an ObjectID;
// 0 when JFR gives neither (a park without a blocker).
func (im *importer) object(cls jfr.Obj, addr int64) format.ObjectID {
	sig := classSig(cls)
	if sig == "" && addr == 0 {
		return 0
	}
	k := objectKey{sig, addr}
	id, isNew := im.objectIDs.get(k, k.hash())
	if isNew {
		im.objClass[format.ObjectID(id)] = sig
	}
	return format.ObjectID(id)
}

// symbol returns the text of a jdk.types.Symbol (or of a plain string).
func symbol(o jfr.Obj) string {
	if o.IsString() {
		return o.Str()
	}
	return o.Field("string").Str()
}

// classSig returns the signature of a java.lang.Class constant
// ("Ljava/lang/Object;"); JFR names classes with '/' already.
func classSig(cls jfr.Obj) string {
	if !cls.Valid() {
		return ""
	}
	name := symbol(cls.Field("name"))
	if name == "" || name[0] == '[' {
		return name
	}
	return "L" + name + ";"
}

func (im *importer) class(sig string) *class {
	c := im.classes[sig]
	if c == nil {
		id, _ := im.classIDs.get(sig, classHash(sig))
		c = &class{id: format.ClassID(id), sig: sig, first: im.chunkStart}
		im.classes[sig] = c
		im.classList = append(im.classList, c)
	}
	return c
}

// method maps a jdk.types.Method constant to a compact MethodID.
func (im *importer) method(o jfr.Obj) *method {
	key, isRef := o.Ref()
	if isRef {
		if m := im.chMethods[key]; m != nil {
			return m
		}
	}
	mk := methodKey{name: "<unknown>"}
	if o.Valid() {
		mk = methodKey{classSig(o.Field("type")), symbol(o.Field("name")), symbol(o.Field("descriptor"))}
	}
	m := im.methods[mk]
	if m == nil {
		m = &method{id: format.MethodID(len(im.methList) + 1), key: mk, first: im.chunkStart, lines: map[uint32]uint32{},
			class: im.class(mk.class).id, native: o.Field("modifiers").Int()&accNative != 0}
		im.methods[mk] = m
		im.methList = append(im.methList, m)
	}
	if isRef {
		im.chMethods[key] = m
	}
	return m
}

const accNative = 0x0100

// stack converts a jdk.types.StackTrace to an Orca stack field, recording
// each frame's bytecode index → line in its method's line table.
func (im *importer) stack(st jfr.Obj) string { return im.stackFrom(st, 0) }

// stackFrom is stack without the innermost skip frames.
func (im *importer) stackFrom(st jfr.Obj, skip int) string {
	if !st.Valid() {
		return "0"
	}
	key, isRef := st.Ref()
	ck := stackKey{key, skip}
	if isRef {
		if s, ok := im.stacks[ck]; ok {
			return s
		}
	}
	frames := st.Field("frames")
	n := max(frames.Len()-skip, 0)
	b := strconv.AppendInt(make([]byte, 0, 2+18*n), int64(n), 10)
	for i := range n {
		fr := frames.Index(skip + i)
		m := im.method(fr.Field("method"))
		bci, line := fr.Field("bytecodeIndex").Int(), fr.Field("lineNumber").Int()
		ft := fr.Field("type")
		kind := ft.Str()
		if !ft.IsString() {
			kind = ft.Field("description").Str()
		}
		// Native by its type or its method only: JFR writes bytecode index
		// -1 for some compiled frames too ("JIT compiled", "Inlined"), with
		// their line (issue 31, item 8: such a frame was "(Native Method)",
		// one call site split in two).
		loc := uint32(format.NoLocation)
		hasLine := line > 0 && line < math.MaxUint32
		switch {
		case m.native || kind == "Native":
		case bci >= 0 && bci < 0x10000:
			loc = uint32(bci)
			if hasLine {
				m.note(loc, uint32(line))
			}
		case hasLine:
			loc = m.lineLocation(uint32(line))
		}
		b = appendStackFrame(b, m.id, loc)
	}
	if st.Field("truncated").Bool() && skip == 0 {
		im.res.TruncatedStacks++
	}
	s := string(b)
	if isRef {
		im.stacks[ck] = s
	}
	return s
}

// stackKey identifies a converted stack within a chunk.
type stackKey struct {
	key  int64 // JFR's stack trace id
	skip int   // innermost frames left out
}

// joinFrame returns the index of the java.lang.Thread.join frame among the
// innermost few of a stack (above it: Object.wait and its overloads), or -1.
func joinFrame(st jfr.Obj) int {
	frames := st.Field("frames")
	for i := range min(frames.Len(), 6) {
		m := frames.Index(i).Field("method")
		if symbol(m.Field("name")) == "join" && classSig(m.Field("type")) == "Ljava/lang/Thread;" {
			return i
		}
	}
	return -1
}

// jvmInfo keeps jdk.JVMInformation's facts for .info.
func (im *importer) jvmInfo(o jfr.Obj) {
	set := func(k, v string) {
		if v != "" {
			im.res.Info[k] = v
		}
	}
	set(format.InfoJavaVM, o.Field("jvmName").Str())
	// jvmVersion is HotSpot's long version string, "OpenJDK 64-Bit Server
	// VM (17.0.15+6-Debian-1deb12u1) for linux-amd64 JRE
	// (17.0.15+6-Debian-1deb12u1), built on …": java_version is
	// java.version, as the agent writes it ("17.0.15"), java_vm_version
	// the runtime's whole version.
	vm, java := jvmVersions(o.Field("jvmVersion").Str())
	set(format.InfoJavaVersion, java)
	set(format.InfoJavaVMVersion, vm)
	set(format.InfoJVMArguments, o.Field("jvmArguments").Str())
	set(format.InfoCommand, o.Field("javaArguments").Str())
	if pid := o.Field("pid").Int(); pid > 0 {
		set(format.InfoPID, strconv.FormatInt(pid, 10))
	}
}

// jvmVersionRE finds the runtime's version in jdk.JVMInformation's
// jvmVersion: the JRE's, else the VM's, in parentheses.
var jvmVersionRE = regexp.MustCompile(`JRE \(([^()\s]+)\)|^[^(]*\(([^()\s]+)\)`)

// jvmVersions returns the runtime's version in jdk.JVMInformation's
// jvmVersion ("17.0.15+6-Debian-1deb12u1") and java.version, the part before
// its build number ("17.0.15"); a string of another form is returned as
// java.version, whole, with no runtime version.
func jvmVersions(s string) (vm, java string) {
	m := jvmVersionRE.FindStringSubmatch(s)
	if m == nil {
		return "", s
	}
	vm = m[1]
	if vm == "" {
		vm = m[2]
	}
	java, _, _ = strings.Cut(vm, "+")
	return vm, java
}
