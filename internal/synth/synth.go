// Package synth writes synthetic Orca recordings shaped like a busy server's:
// a few hundred threads contending on monitors and semaphores, waiting and
// notifying, sleeping, starting and joining workers, with stacks of depth
// 8–16 drawn from a few thousand call paths over ~2000 methods. Every
// thread's events are paired (Enter/Entered, Wait/Waited, …) and in time
// order, and the output depends only on the Options (Seed included), so
// benchmarks and tests get the same bytes on every run.
//
// It imports only internal/format, and writes through format.Writer, so
// reader and model tests can use it.
package synth

import (
	"bufio"
	"container/heap"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"orca/internal/format"
)

// Options shape the recording. Zero fields take the defaults in brackets.
type Options struct {
	Seed       uint64 // [1]
	Threads    int    // long-lived threads [200]
	Monitors   int    // [300]
	Semaphores int    // [40]
	Classes    int    // [250]
	Methods    int    // [2000]
	Stacks     int    // distinct stacks [3000]
	// Size is the .orca file's size in bytes: events are written until it
	// is reached (the last line is complete, so the file is a little
	// larger). [64 MiB]
	Size int64
	// Encoding is the .orca's encoding [format.EncodingSeed, the text].
	Encoding format.Encoding
	// NoSamples leaves out the Sample and ThreadCPU lines (issue 33): the
	// recording is then the one written before they existed, line for
	// line (they draw from a random source of their own).
	NoSamples bool
	// LockOrder adds the MonitorHeld and LockHeld lines of a recording made
	// with orca record --lock-order (issue 36, item 2): after some contended
	// enters, the hottest monitor, held two frames out, and after some of
	// those a read lock. Off, as by default, the
	// recording is the one written before they existed, line for line.
	LockOrder bool
	// Conditions adds ConditionLock lines: some park blockers are named
	// conditions of a lock (the monitor's object plus two), as the agent
	// names a ConditionObject's synchronizer. Off, as by default, the
	// recording is the one written before they existed, line for line.
	Conditions bool
	// Slow makes every duration this many times longer: the same mix of
	// events at 1/Slow the rate (5: ~86 000 events and ~1.1 MB a second
	// compact, a busy broker's; at 1, as by default, ~430 000). Not
	// above 1, the recording is the one written before it existed.
	Slow int
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	def(&o.Threads, 200)
	def(&o.Monitors, 300)
	def(&o.Semaphores, 40)
	def(&o.Classes, 250)
	def(&o.Methods, 2000)
	def(&o.Stacks, 3000)
	if o.Size <= 0 {
		o.Size = 64 << 20
	}
	o.Methods = max(o.Methods, 16)
	o.Classes = max(o.Classes, 4)
	return o
}

// Stats describes what WriteEvents wrote.
type Stats struct {
	Bytes      int64
	Lines      int64
	Start, End format.Time
	Kinds      [format.NumKinds]int64
}

// Generator holds the recording's fixed parts (classes, methods, stacks);
// WriteEvents simulates the threads.
type Generator struct {
	opt     Options
	rng     *rand.Rand
	classes []class
	methods []method
	// Known JDK methods that begin the stacks of each kind of event.
	wait, sleep, join, start, acquire, release, notify, notifyAll, run int
	// stacks are encoded once ("12;0000001F;00000004;…"); sites index
	// them per use.
	stacks []string
	sites  [numSites][]int
	ids    map[uint32]bool
	stats  Stats
	// The samples' own random source, native frames and stacks (a native
	// leaf over application frames, or an application stack).
	srng         *rand.Rand
	natives      []int
	sampleStacks []string
}

type class struct {
	id          uint32
	sig, source string
}

type method struct {
	id          uint32
	class       int
	name, sig   string
	native      bool
	lines       []format.LineEntry // nil for native methods
	maxLocation uint32
}

// Sites: what an event's stack is doing.
const (
	siteMonitor = iota
	siteWait
	siteNotify
	siteSleep
	siteJoin
	siteStart
	siteAcquire
	siteRelease
	numSites
)

// New prepares a generator: classes, methods and stacks.
func New(opt Options) *Generator {
	opt = opt.withDefaults()
	g := &Generator{opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, 0x0DCA)), ids: map[uint32]bool{}}
	g.makeMethods()
	g.makeStacks()
	if !opt.NoSamples {
		g.makeSampleStacks()
	}
	return g
}

// makeSampleStacks adds a native pseudo-class (format.NativeClassPrefix)
// with a few functions, and the stacks of samples: an application stack,
// or one under a native leaf. It draws from srng only, so the rest of the
// recording is the same with and without samples.
func (g *Generator) makeSampleStacks() {
	g.srng = rand.New(rand.NewPCG(g.opt.Seed, 0x5A3B))
	r := g.srng
	var id uint32
	for id == 0 || g.ids[id] {
		id = r.Uint32() & 0x7FFFFFFF
	}
	g.ids[id] = true
	g.classes = append(g.classes, class{id: id, sig: format.NativeClassPrefix + "libc.so.6>"})
	for _, name := range []string{"read", "write", "epoll_wait", "fsync"} {
		g.methods = append(g.methods, method{id: uint32(len(g.methods) + 1), class: len(g.classes) - 1, name: name, native: true})
		g.natives = append(g.natives, len(g.methods)-1)
	}
	var buf []byte
	for i := range g.opt.Stacks / 4 {
		// The stacks of contentions without their blocking frame: where
		// threads run between their states.
		base := g.stacks[g.sites[siteMonitor][r.IntN(len(g.sites[siteMonitor]))]]
		fr, ok := format.ParseStack(base)
		if !ok || len(fr) < 2 {
			continue
		}
		fr = fr[1:]
		if i%3 == 0 {
			m := &g.methods[g.natives[r.IntN(len(g.natives))]]
			fr = append([]format.Frame{{Method: format.MethodID(m.id), Location: format.NoLocation}}, fr...)
		}
		buf = format.AppendStack(buf[:0], fr)
		g.sampleStacks = append(g.sampleStacks, string(buf))
	}
}

// id returns a new identity hash: 31 bits, non-zero, unique in the recording.
func (g *Generator) id() uint32 {
	for {
		v := g.rng.Uint32() & 0x7FFFFFFF
		if v != 0 && !g.ids[v] {
			g.ids[v] = true
			return v
		}
	}
}

var (
	packages = []string{"com/acme/shop", "com/acme/shop/cart", "com/acme/shop/db", "com/acme/util",
		"org/apache/catalina/core", "org/eclipse/jetty/server", "io/netty/channel", "com/zaxxer/hikari/pool",
		"org/h2/engine", "org/h2/store", "org/springframework/web/servlet", "com/fasterxml/jackson/databind"}
	classWords  = []string{"Order", "Cart", "Session", "Pool", "Cache", "Handler", "Dispatcher", "Store", "Index", "Queue", "Worker", "Registry", "Connection", "Buffer", "Ledger", "Inventory"}
	classSuffix = []string{"", "Service", "Manager", "Impl", "Factory", "Executor", "Repository", "Controller", "$Entry", "$1"}
	verbs       = []string{"get", "put", "load", "save", "process", "handle", "update", "lookup", "flush", "apply", "commit", "visit", "compute", "dispatch", "run", "call"}
	nouns       = []string{"", "Order", "Item", "Entry", "Batch", "Request", "Row", "Page", "Lock", "State", "Value", "All"}
	sigs        = []string{"()V", "(J)V", "(Ljava/lang/Object;)V", "(I)Ljava/lang/Object;", "(Ljava/lang/String;)Z", "()Ljava/util/List;", "(JLjava/util/concurrent/TimeUnit;)Z", "([BII)I"}
)

func (g *Generator) makeMethods() {
	r := g.rng
	addClass := func(sig, src string) int {
		g.classes = append(g.classes, class{id: g.id(), sig: sig, source: src})
		return len(g.classes) - 1
	}
	addMethod := func(cls int, name, sig string, native bool) int {
		m := method{id: uint32(len(g.methods) + 1), class: cls, name: name, sig: sig, native: native}
		if !native {
			n := 1 + r.IntN(30)
			loc, line := uint32(0), uint32(10+r.IntN(400))
			for range n {
				m.lines = append(m.lines, format.LineEntry{Start: loc, Line: line})
				loc += uint32(2 + r.IntN(12))
				line += uint32(1 + r.IntN(3))
			}
			m.maxLocation = loc
		}
		g.methods = append(g.methods, m)
		return len(g.methods) - 1
	}
	object := addClass("Ljava/lang/Object;", "Object.java")
	thread := addClass("Ljava/lang/Thread;", "Thread.java")
	sem := addClass("Ljava/util/concurrent/Semaphore;", "Semaphore.java")
	g.wait = addMethod(object, "wait", "(J)V", true)
	g.notify = addMethod(object, "notify", "()V", true)
	g.notifyAll = addMethod(object, "notifyAll", "()V", true)
	g.sleep = addMethod(thread, "sleep", "(J)V", true)
	g.join = addMethod(thread, "join", "(J)V", false)
	g.start = addMethod(thread, "start", "()V", false)
	g.run = addMethod(thread, "run", "()V", false)
	g.acquire = addMethod(sem, "acquire", "()V", false)
	g.release = addMethod(sem, "release", "()V", false)
	for len(g.classes) < g.opt.Classes {
		// Numbered so names are unique: "Cart12Manager", "Order40$Entry".
		simple := fmt.Sprintf("%s%d%s", classWords[r.IntN(len(classWords))], len(g.classes), classSuffix[r.IntN(len(classSuffix))])
		name := packages[r.IntN(len(packages))] + "/" + simple
		src, _, _ := strings.Cut(simple, "$") // nested classes live in their outer class's file
		src += ".java"
		if r.IntN(40) == 0 {
			src = "" // no SourceFile attribute
		}
		addClass("L"+name+";", src)
	}
	for len(g.methods) < g.opt.Methods {
		cls := 3 + r.IntN(len(g.classes)-3)
		name := verbs[r.IntN(len(verbs))] + nouns[r.IntN(len(nouns))]
		if r.IntN(50) == 0 {
			name = "lambda$" + name + "$" + strconv.Itoa(r.IntN(9))
		}
		addMethod(cls, name, sigs[r.IntN(len(sigs))], r.IntN(30) == 0)
	}
}

// frame picks a location inside m (a native frame's is FFFFFFFF).
func (g *Generator) frame(m int) format.Frame {
	mt := &g.methods[m]
	if mt.native {
		return format.Frame{Method: format.MethodID(mt.id), Location: format.NoLocation}
	}
	return format.Frame{Method: format.MethodID(mt.id), Location: uint32(g.rng.IntN(int(mt.maxLocation) + 1))}
}

// makeStacks builds call paths the way servers have them: a few hundred
// outer paths (thread run loops, request dispatch) shared by many stacks,
// application frames in the middle, and at the top the JDK method that
// produced the event.
func (g *Generator) makeStacks() {
	r := g.rng
	app := func() int { return g.run + 3 + r.IntN(len(g.methods)-g.run-3) }
	bases := make([][]format.Frame, 150)
	for i := range bases {
		n := 3 + r.IntN(5)
		b := make([]format.Frame, 0, n+1)
		for range n {
			b = append(b, g.frame(app()))
		}
		bases[i] = append(b, g.frame(g.run)) // outermost: Thread.run
	}
	top := [numSites][]int{
		siteWait:    {g.wait},
		siteNotify:  {g.notify, g.notifyAll},
		siteSleep:   {g.sleep},
		siteJoin:    {g.join},
		siteStart:   {g.start},
		siteAcquire: {g.acquire},
		siteRelease: {g.release},
	}
	// Share of the stacks per site, roughly as events use them.
	weights := [numSites]int{siteMonitor: 40, siteWait: 12, siteNotify: 10, siteSleep: 10, siteJoin: 4, siteStart: 4, siteAcquire: 12, siteRelease: 8}
	seen := map[string]bool{}
	var buf []byte
	for site := range numSites {
		n := max(1, g.opt.Stacks*weights[site]/100)
		for range n {
			depth := 8 + r.IntN(9)
			var fr []format.Frame
			if ms := top[site]; ms != nil {
				fr = append(fr, g.frame(ms[r.IntN(len(ms))]))
			}
			base := bases[int(math.Pow(r.Float64(), 2)*float64(len(bases)))] // a few hot bases
			for len(fr) < depth-len(base) {
				fr = append(fr, g.frame(app()))
			}
			fr = append(fr, base...)
			fr = fr[:depth]
			buf = format.AppendStack(buf[:0], fr)
			if seen[string(buf)] {
				continue
			}
			seen[string(buf)] = true
			g.stacks = append(g.stacks, string(buf))
			g.sites[site] = append(g.sites[site], len(g.stacks)-1)
		}
	}
}

// origin is the time of the generated recording's first line, and of
// every method and class (all seen at the start).
const origin format.Time = 1_000_000_000_000

// WriteClasses writes the .classtable file.
func (g *Generator) WriteClasses(w io.Writer) error {
	bw := bufio.NewWriter(w)
	out := format.NewWriter(format.Files{Classes: bw})
	for _, c := range g.classes {
		out.Class(origin, &format.Class{ID: format.ClassID(c.id), Signature: c.sig, Source: c.source})
	}
	if err := out.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteMethods writes the .methods file.
func (g *Generator) WriteMethods(w io.Writer) error {
	bw := bufio.NewWriter(w)
	out := format.NewWriter(format.Files{Methods: bw})
	for _, m := range g.methods {
		out.Method(origin, &format.Method{ID: format.MethodID(m.id), Name: m.name, Signature: m.sig,
			Class: format.ClassID(g.classes[m.class].id), Lines: m.lines})
	}
	if err := out.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteInfo writes the .info file for what WriteEvents wrote.
func (g *Generator) WriteInfo(w io.Writer) error {
	bw := bufio.NewWriter(w)
	out := format.NewWriter(format.Files{Info: bw})
	out.Info(format.InfoFormat, format.Version)
	if g.opt.Encoding != format.EncodingSeed {
		out.Info(format.InfoEncoding, g.opt.Encoding.String())
	}
	out.Info(format.InfoAgentVersion, "synth")
	out.Info(format.InfoCommand, fmt.Sprintf("orca-gen -seed %d -size %d", g.opt.Seed, g.opt.Size))
	out.Info(format.InfoComplete, true)
	out.Info(format.InfoStart, g.stats.Start)
	out.Info(format.InfoEnd, g.stats.End)
	for k := format.Kind(1); k < format.NumKinds; k++ {
		out.Info(format.InfoKindKey(format.InfoEvents, k), g.stats.Kinds[k])
	}
	out.Info(format.InfoMethods, len(g.methods))
	out.Info(format.InfoClasses, len(g.classes))
	if err := out.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteRecording writes PREFIX.orca, .methods, .classtable and .info.
func WriteRecording(prefix string, opt Options) (Stats, error) {
	g := New(opt)
	return g.writeRecording(prefix, g.WriteEvents)
}

// WriteConvoyRecording writes PREFIX.* with the events of WriteConvoy
// (opt shapes the methods and stacks).
func WriteConvoyRecording(prefix string, opt Options, c Convoy) (Stats, error) {
	g := New(opt)
	return g.writeRecording(prefix, func(w io.Writer) (Stats, error) { return g.WriteConvoy(w, c) })
}

func (g *Generator) writeRecording(prefix string, events func(io.Writer) (Stats, error)) (Stats, error) {
	write := func(suffix string, fn func(io.Writer) error) error {
		f, err := os.Create(prefix + suffix)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			f.Close()
			return fmt.Errorf("writing %s%s: %w", prefix, suffix, err)
		}
		return f.Close()
	}
	if err := write(format.SuffixEvents, func(w io.Writer) error { _, err := events(w); return err }); err != nil {
		return Stats{}, err
	}
	for _, f := range []struct {
		suffix string
		fn     func(io.Writer) error
	}{{format.SuffixMethods, g.WriteMethods}, {format.SuffixClasses, g.WriteClasses}, {format.SuffixInfo, g.WriteInfo}} {
		if err := write(f.suffix, f.fn); err != nil {
			return Stats{}, err
		}
	}
	return g.stats, nil
}

// ---- the simulation ---------------------------------------------------------

// A thread alternates running with one blocking operation at a time. Each
// step emits one line; the heap orders steps by time, so the file is in
// global time order and every thread's lines are too.

type tstate uint8

const (
	tNew       tstate = iota // ThreadStarted next
	tRunning                 // picks an operation next
	tBlocked                 // MonitorContendedEntered next
	tWaiting                 // ObjectWaited next (on notify or timeout)
	tSleeping                // ThreadSlept next
	tStartJoin               // ThreadJoin of the worker it just started next
	tJoining                 // ThreadJoined next, once the target ended
	tAcquiring               // SemaphoreAcquired next
	tHolding                 // SemaphoreRelease next
	tParked                  // ThreadUnparked next (after another thread's ThreadUnpark, mostly)
	tEnded
)

type thread struct {
	id     uint32
	name   string
	state  tstate
	obj    uint32 // monitor or semaphore of the current operation
	stack  int
	target int    // joined thread (index)
	joiner int    // thread joining this one, -1 if none
	steps  int    // operations left before ThreadEnded; -1: forever
	woken  bool   // waiting, and a notify already picked it
	gen    uint32 // bumped at each schedule: an older step of the thread is stale
	// Scheduler times so far (ThreadCPU), and runs since the last line.
	cpu, ready format.Time
	runs       int
}

type step struct {
	at  format.Time
	seq uint64
	th  int
	gen uint32
}

type steps []step

func (h steps) Len() int { return len(h) }
func (h steps) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h steps) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *steps) Push(x any)   { *h = append(*h, x.(step)) }
func (h *steps) Pop() any {
	old := *h
	s := old[len(old)-1]
	*h = old[:len(old)-1]
	return s
}

type sim struct {
	g        *Generator
	threads  []thread
	live     []int // long-lived and worker threads not ended
	monitors []uint32
	sems     []uint32
	waiters  map[uint32][]int // monitor -> waiting threads, in wait order
	classed  map[uint32]bool  // blockers whose ObjectClass was written
	heap     steps
	seq      uint64
	now      format.Time
	workers  int
	out      *format.Writer
}

// dur returns an exponentially distributed duration with the given mean.
func (s *sim) dur(mean format.Time) format.Time {
	return s.slow(1000 + format.Time(s.g.rng.ExpFloat64()*float64(mean)))
}

// slow returns d made Options.Slow times longer.
func (s *sim) slow(d format.Time) format.Time {
	if s.g.opt.Slow > 1 {
		d *= format.Time(s.g.opt.Slow)
	}
	return d
}

// skewed picks an index in [0,n) with a few hot values, as lock use is.
func (s *sim) skewed(n int) int {
	return int(math.Pow(s.g.rng.Float64(), 3) * float64(n))
}

func (s *sim) schedule(th int, at format.Time) {
	t := &s.threads[th]
	t.gen++
	s.seq++
	heap.Push(&s.heap, step{at: at, seq: s.seq, th: th, gen: t.gen})
}

func (s *sim) site(site int) int {
	ss := s.g.sites[site]
	return ss[s.skewed(len(ss))]
}

var longNames = []string{"pool-1-thread-%d", "http-nio-8080-exec-%d", "ForkJoinPool.commonPool-worker-%d", "H2 Log Writer %d", "grpc-default-executor-%d"}

func (s *sim) newThread(name string, steps int) int {
	s.threads = append(s.threads, thread{id: s.g.id(), name: name, joiner: -1, steps: steps})
	i := len(s.threads) - 1
	s.live = append(s.live, i)
	return i
}

// WriteEvents writes the .orca file: events until Options.Size bytes.
func (g *Generator) WriteEvents(w io.Writer) (Stats, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	s := &sim{g: g, waiters: map[uint32][]int{}, classed: map[uint32]bool{}, now: origin, out: format.NewWriterOptions(format.Files{Events: bw}, format.Options{Encoding: g.opt.Encoding})}
	for range g.opt.Monitors {
		s.monitors = append(s.monitors, g.id())
	}
	for range g.opt.Semaphores {
		s.sems = append(s.sems, g.id())
	}
	g.stats = Stats{Start: s.now}
	for i := range g.opt.Threads {
		name := fmt.Sprintf(longNames[i%len(longNames)], 1+i/len(longNames))
		switch i {
		case 0:
			name = "main"
		case 7:
			name = `worker "A", the first`
		}
		th := s.newThread(name, -1)
		s.schedule(th, s.now+s.slow(format.Time(i)*2000))
	}
	for g.stats.Bytes < g.opt.Size && len(s.heap) > 0 {
		st := heap.Pop(&s.heap).(step)
		t := &s.threads[st.th]
		if st.gen != t.gen || t.state == tEnded {
			continue // superseded (a wait's timeout after its notify)
		}
		s.now = st.at
		s.step(st.th)
		if err := s.out.Err(); err != nil {
			return g.stats, err
		}
	}
	g.stats.End = s.now
	if err := s.out.Close(); err != nil { // the last chunk's trailer
		return g.stats, err
	}
	return g.stats, bw.Flush()
}

// emit writes one event line: timestamp, name, thread, then the given
// hex fields in the order of the kind's fields (object, target, owner),
// then the stack (when stack >= 0).
func (s *sim) emit(k format.Kind, th int, stack int, hex ...uint32) {
	e := format.Event{Time: s.now, Kind: k, Thread: format.ThreadID(s.threads[th].id), Timeout: -1}
	i := 0
	for _, f := range format.Specs[k].Fields {
		switch f {
		case format.FObject:
			e.Object = format.ObjectID(hex[i])
		case format.FTarget:
			e.Target = format.ThreadID(hex[i])
		case format.FOwner:
			e.Owner = format.ThreadID(hex[i])
		default:
			continue
		}
		i++
	}
	if stack >= 0 {
		e.EncodedStack = s.g.stacks[stack]
	}
	s.write(&e)
}

// write writes e and counts it (an error sticks in s.out).
func (s *sim) write(e *format.Event) {
	if s.out.Event(e) != nil {
		return
	}
	st := &s.g.stats
	st.Bytes = s.out.Written.EventBytes
	st.Lines++
	st.Kinds[e.Kind]++
}

// owner returns a running thread other than th to own a monitor th
// blocks on, or -1. (Owners that are blocked themselves would make
// wait-for cycles, deadlocks that real servers rarely have.)
func (s *sim) owner(th int) int {
	for range 8 {
		o := s.live[s.g.rng.IntN(len(s.live))]
		if st := s.threads[o].state; o != th && (st == tRunning || st == tHolding) {
			return o
		}
	}
	return -1
}

func (s *sim) step(th int) {
	t := &s.threads[th]
	switch t.state {
	case tNew:
		s.write(&format.Event{Time: s.now, Kind: format.ThreadStarted, Thread: format.ThreadID(t.id), Name: t.name})
		s.threadCPU(th)
		t.state = tRunning
		s.schedule(th, s.now+s.dur(200_000))
	case tRunning:
		if t.steps == 0 {
			s.threadCPU(th)
			s.emit(format.ThreadEnded, th, -1)
			t.state = tEnded
			for i, l := range s.live {
				if l == th {
					s.live = append(s.live[:i], s.live[i+1:]...)
					break
				}
			}
			if t.joiner >= 0 && s.threads[t.joiner].state == tJoining {
				s.schedule(t.joiner, s.now+s.dur(5_000))
			}
			s.workers--
			return
		}
		if t.steps > 0 {
			t.steps--
		}
		s.operation(th)
	case tBlocked:
		s.emit(format.MonitorContendedEntered, th, t.stack, t.obj)
		s.running(th)
	case tWaiting:
		ws := s.waiters[t.obj]
		for i, w := range ws {
			if w == th {
				s.waiters[t.obj] = append(ws[:i], ws[i+1:]...)
				break
			}
		}
		s.emit(format.ObjectWaited, th, t.stack, t.obj)
		s.running(th)
	case tSleeping:
		s.emit(format.ThreadSlept, th, t.stack)
		s.running(th)
	case tStartJoin:
		t.stack = s.site(siteJoin)
		s.emit(format.ThreadJoin, th, t.stack, s.threads[t.target].id)
		t.state = tJoining
		if s.threads[t.target].state == tEnded {
			s.schedule(th, s.now+s.dur(5_000))
		}
	case tJoining:
		s.emit(format.ThreadJoined, th, t.stack, s.threads[t.target].id)
		s.running(th)
	case tAcquiring:
		s.emit(format.SemaphoreAcquired, th, t.stack, t.obj)
		t.state = tHolding
		s.schedule(th, s.now+s.dur(300_000))
	case tHolding:
		s.emit(format.SemaphoreRelease, th, s.site(siteRelease), t.obj)
		s.running(th)
	case tParked:
		how := format.ParkEndTimeout
		if o := s.owner(th); o >= 0 && s.g.rng.IntN(4) != 0 {
			s.emit(format.ThreadUnpark, o, s.site(siteNotify), t.id)
			how = format.ParkEndUnparked
		}
		s.write(&format.Event{Time: s.now, Kind: format.ThreadUnparked, Thread: format.ThreadID(t.id), Object: format.ObjectID(t.obj),
			How: how}) // its stack is the park's
		s.running(th)
	}
}

// running puts th back to running for a while.
func (s *sim) running(th int) {
	s.threads[th].state = tRunning
	d := s.dur(400_000)
	s.schedule(th, s.now+d)
	s.sample(th, d)
}

// sample writes, when the recording has samples, a sample of th now,
// about one run in three (cpu mostly, wall some: the stack under a
// native leaf), and th's ThreadCPU line every 32 runs: of a run of d, 60 %
// on a CPU and 10 % ready.
func (s *sim) sample(th int, d format.Time) {
	g := s.g
	if g.srng == nil || len(g.sampleStacks) == 0 {
		return
	}
	t := &s.threads[th]
	t.cpu += d * 6 / 10
	t.ready += d / 10
	r := g.srng
	if r.IntN(3) == 0 {
		kind, weight := format.SampleCPU, int64(10_000_000)
		if r.IntN(5) == 0 {
			kind, weight = format.SampleWall, 50_000_000
		}
		st := g.sampleStacks[int(math.Pow(r.Float64(), 2)*float64(len(g.sampleStacks)))]
		s.write(&format.Event{Time: s.now, Kind: format.Sample, Thread: format.ThreadID(t.id), Timeout: -1,
			Sampled: kind, Weight: weight, EncodedStack: st})
	}
	if t.runs++; t.runs%32 == 0 {
		s.threadCPU(th)
	}
}

// threadCPU writes th's scheduler times so far, when the recording has
// samples.
func (s *sim) threadCPU(th int) {
	if s.g.srng == nil {
		return
	}
	t := &s.threads[th]
	s.write(&format.Event{Time: s.now, Kind: format.ThreadCPU, Thread: format.ThreadID(t.id), Timeout: -1, CPU: int64(t.cpu), Ready: int64(t.ready)})
}

// operation starts th's next blocking operation (or a notify, or a start).
func (s *sim) operation(th int) {
	r := s.g.rng
	t := &s.threads[th]
	switch p := r.IntN(100); {
	case p < 38: // contended monitor
		t.obj = s.monitors[s.skewed(len(s.monitors))]
		t.stack = s.site(siteMonitor)
		owner := uint32(0)
		o := s.owner(th)
		if o >= 0 && r.IntN(25) != 0 {
			owner = s.threads[o].id
		}
		if t.obj%7 == 0 {
			// Some monitors are the JVM's locks of classes being initialised
			// (HotSpot's init lock): named, and a wait on it that ended.
			id := format.ThreadID(s.threads[th].id)
			s.write(&format.Event{Time: s.now, Kind: format.ClassInitLock, Thread: id, Object: format.ObjectID(t.obj), Class: "Lsynth/Init;"})
			s.write(&format.Event{Time: s.now, Kind: format.ClassInitWaited, Thread: id, Object: format.ObjectID(t.obj)})
		}
		s.emit(format.MonitorContendedEnter, th, t.stack, t.obj, owner)
		if held := s.monitors[0]; s.g.opt.LockOrder && t.obj%5 == 0 && held != t.obj {
			// What the thread held as it blocked (orca record --lock-order):
			// the hottest monitor, taken two frames out (chosen by the
			// object: the generator's draws stay the same).
			s.write(&format.Event{Time: s.now, Kind: format.MonitorHeld, Thread: format.ThreadID(s.threads[th].id), Object: format.ObjectID(held), Depth: 2, Timeout: -1})
			if t.obj%3 == 0 {
				// And a j.u.c. lock's read lock, taken where not known
				// (a LockHeld line; its object is the monitor's plus one).
				s.write(&format.Event{Time: s.now, Kind: format.LockHeld, Thread: format.ThreadID(s.threads[th].id), Object: format.ObjectID(held + 1), Depth: -1, Mode: format.ModeShared, Timeout: -1})
			}
		}
		if o >= 0 && owner == 0 && t.obj%2 == 0 {
			// The unknown owner says it holds the monitor (an unmounted
			// virtual thread's fast lock, JDK 24+), mostly at once.
			s.write(&format.Event{Time: s.now, Kind: format.MonitorOwned, Thread: format.ThreadID(s.threads[o].id), Object: format.ObjectID(t.obj)})
		}
		t.state = tBlocked
		s.schedule(th, s.now+s.dur(150_000))
	case p < 52: // wait, woken by a notify or timing out
		t.obj = s.monitors[s.skewed(len(s.monitors))]
		t.stack = s.site(siteWait)
		if t.obj%3 == 0 {
			// A timed wait (wait(ms)): its timeout on a line of its own
			// (chosen by the object, not the generator: its draws stay the same).
			s.write(&format.Event{Time: s.now, Kind: format.ObjectWaitTimeout, Thread: format.ThreadID(t.id), Timeout: 20_000_000})
		}
		s.emit(format.ObjectWait, th, t.stack, t.obj)
		s.waiters[t.obj] = append(s.waiters[t.obj], th)
		t.state, t.woken = tWaiting, false
		s.schedule(th, s.now+s.dur(20_000_000))
	case p < 64: // notify a monitor that has waiters, mostly
		obj := s.monitors[s.skewed(len(s.monitors))]
		for range 3 {
			if len(s.waiters[obj]) > 0 {
				break
			}
			obj = s.monitors[s.skewed(len(s.monitors))]
		}
		all := r.IntN(5) == 0
		k := format.ObjectNotify
		if all {
			k = format.ObjectNotifyAll
		}
		s.emit(k, th, s.site(siteNotify), obj)
		for _, w := range s.waiters[obj] {
			if wt := &s.threads[w]; wt.state == tWaiting && !wt.woken {
				wt.woken = true
				s.schedule(w, s.now+s.dur(30_000))
				if !all {
					break
				}
			}
		}
		s.running(th)
	case p < 75: // park on a monitor's object as blocker (a lock's sync, say), its owner named
		t.obj = s.monitors[s.skewed(len(s.monitors))]
		t.stack = s.site(siteWait)
		if !s.classed[t.obj] {
			s.classed[t.obj] = true
			s.write(&format.Event{Time: s.now, Kind: format.ObjectClass, Thread: format.ThreadID(t.id), Object: format.ObjectID(t.obj),
				Class: "Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;"})
			if s.g.opt.Conditions && t.obj%11 == 0 {
				// Chosen by the object: the generator's draws stay the same.
				s.write(&format.Event{Time: s.now, Kind: format.ConditionLock, Thread: format.ThreadID(t.id), Object: format.ObjectID(t.obj),
					Lock: format.ObjectID(t.obj + 2)})
			}
		}
		owner := uint32(0)
		if o := s.owner(th); o >= 0 {
			owner = s.threads[o].id
		}
		s.write(&format.Event{Time: s.now, Kind: format.ThreadPark, Thread: format.ThreadID(t.id), Object: format.ObjectID(t.obj),
			Owner: format.ThreadID(owner), Timeout: -1, EncodedStack: s.g.stacks[t.stack]})
		t.state = tParked
		s.schedule(th, s.now+s.dur(1_000_000))
	case p < 78: // sleep
		t.stack = s.site(siteSleep)
		s.emit(format.ThreadSleep, th, t.stack)
		if th != 0 && r.IntN(16) == 0 { // as a virtual thread on thread 0 as its carrier, pinned
			carrier := format.ThreadID(s.threads[0].id)
			s.write(&format.Event{Time: s.now, Kind: format.VirtualThreadMounted, Thread: format.ThreadID(t.id), Target: carrier})
			s.write(&format.Event{Time: s.now, Kind: format.VirtualThreadPinned, Thread: format.ThreadID(t.id), Target: carrier})
		}
		t.state = tSleeping
		s.schedule(th, s.now+s.dur(2_000_000))
	case p < 94: // semaphore
		t.obj = s.sems[s.skewed(len(s.sems))]
		t.stack = s.site(siteAcquire)
		s.emit(format.SemaphoreAcquire, th, t.stack, t.obj)
		t.state = tAcquiring
		d := s.slow(2_000)
		if r.IntN(3) == 0 {
			d = s.dur(500_000)
		}
		s.schedule(th, s.now+d)
	default: // start a short-lived worker, and join it half the time
		if s.workers >= s.g.opt.Threads/4 {
			s.running(th)
			return
		}
		s.workers++
		name := fmt.Sprintf("worker-%d", len(s.threads))
		if len(s.threads)%97 == 0 {
			name = fmt.Sprintf("batch\nworker-%d", len(s.threads)) // a name with a newline: a record on two lines
		}
		c := s.newThread(name, 3+r.IntN(40))
		t = &s.threads[th] // newThread may move the slice
		s.emit(format.ThreadStart, th, s.site(siteStart), s.threads[c].id)
		s.schedule(c, s.now+s.dur(20_000))
		if r.IntN(2) == 0 {
			t.target = c
			s.threads[c].joiner = th
			t.state = tStartJoin
			s.schedule(th, s.now+s.slow(1000))
			return
		}
		s.running(th)
	}
}

// ---- a convoy ---------------------------------------------------------------

// Convoy shapes WriteConvoy's recording: Threads threads queued on one
// monitor, handed from one to the next Handoffs times.
type Convoy struct {
	Threads  int // [1000]
	Handoffs int // [10 × Threads]
}

// WriteConvoy writes the events of a lock convoy, the worst case for a
// fold that splits a blocked interval at each owner change: thread 0
// owns one monitor and all the others block on it; at each hand-off the
// head of the queue enters, and the thread that let go blocks again at
// the back, naming the new owner. So every hand-off changes the owner
// that Threads-1 blocked threads wait for, while it adds 2 events. Then
// the queue drains and every thread ends. The stacks come from g.
func (g *Generator) WriteConvoy(w io.Writer, c Convoy) (Stats, error) {
	n := c.Threads
	if n <= 0 {
		n = 1000
	}
	n = max(n, 2)
	handoffs := c.Handoffs
	if handoffs <= 0 {
		handoffs = 10 * n
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	s := &sim{g: g, now: origin, out: format.NewWriterOptions(format.Files{Events: bw}, format.Options{Encoding: g.opt.Encoding})}
	for i := range n {
		s.newThread(fmt.Sprintf("convoy-%d", i), -1)
	}
	g.stats = Stats{Start: s.now}
	monitor := g.id()
	stack := s.site(siteMonitor)
	for th := range n {
		s.now += 1000
		s.step(th) // ThreadStarted
	}
	queue := make([]int, 0, n)
	owner := 0
	for th := 1; th < n; th++ {
		s.now += 1000
		s.emit(format.MonitorContendedEnter, th, stack, monitor, s.threads[owner].id)
		queue = append(queue, th)
	}
	hand := func(again bool) {
		s.now += 50_000 // 50 µs in the monitor
		next := queue[0]
		queue = queue[1:]
		s.emit(format.MonitorContendedEntered, next, stack, monitor)
		if again {
			s.now += 1000
			s.emit(format.MonitorContendedEnter, owner, stack, monitor, s.threads[next].id)
			queue = append(queue, owner)
		}
		owner = next
	}
	for range handoffs {
		hand(true)
		if err := s.out.Err(); err != nil {
			return g.stats, err
		}
	}
	for len(queue) > 0 {
		hand(false)
	}
	for th := range n {
		s.now += 1000
		s.emit(format.ThreadEnded, th, -1)
	}
	g.stats.End = s.now
	if err := s.out.Close(); err != nil { // the last chunk's trailer
		return g.stats, err
	}
	return g.stats, bw.Flush()
}
