package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// What the report says of samples and scheduler times (issue 33): a CPU
// profile in the spirit of HPROF's cpu=samples, each thread's running,
// ready and other time (model.RunSplit), and under each contended lock
// what its holders did while others were blocked on it
// (model.View.HoldersDoing).

// holdersTop is how many locks and frames a lock's holders_blocked_on and
// holders_frames list (most first: a lock's holders may have blocked on
// hundreds of others for moments).
const holdersTop = 10

// CPU is the CPU profile of the threads shown: their cpu samples by the
// leaf-most Java frame (a native leaf folded into the Java frame that
// called it), most first, as HPROF's cpu=samples ranks its traces.
type CPU struct {
	Samples     int     `json:"samples"`      // cpu samples
	S           float64 `json:"s"`            // the CPU time they stand for (their weights)
	WallSamples int     `json:"wall_samples"` // wall samples: threads in no recorded state, off CPU
	WallS       float64 `json:"wall_s"`       // the time they stand for
	// Lost: .info's samples_lost.REASON, samples not taken or not written.
	Lost         map[string]int64 `json:"lost"`
	Methods      []CPUMethod      `json:"methods"`
	MethodsTotal int              `json:"methods_total"`
	// Clock: .info's sample_cpu_clock, how the CPU samples were timed
	// ("perf", "perf_user", "timer: REASON"); empty in older recordings.
	Clock string `json:"clock,omitempty"`
}

// CPUMethod is one rank of the CPU profile.
type CPUMethod struct {
	Rank     int     `json:"rank"`
	Frame    string  `json:"frame"`     // "package.Class.method(File.java:line)"
	SelfPct  float64 `json:"self_pct"`  // its samples, % of all cpu samples
	AccumPct float64 `json:"accum_pct"` // self_pct summed down to this rank
	Samples  int     `json:"samples"`
	S        float64 `json:"s"`
}

// HolderFrame is the holders' samples at one leaf-most Java frame while
// others were blocked on their lock.
type HolderFrame struct {
	Frame string `json:"frame"`
	// Caller: when Frame is the JDK's (ThreadImpl.getThreadTotalCpuTime0,
	// FileChannelImpl.force), the first frame of the program's code that
	// led to it; absent otherwise.
	Caller  string  `json:"caller,omitempty"`
	State   string  `json:"state"` // "running" (cpu samples) or "other" (wall samples)
	Samples int     `json:"samples"`
	S       float64 `json:"s"`
}

// HolderBlockedOn is time a lock's holders were blocked on another lock.
type HolderBlockedOn struct {
	Object     string  `json:"object"`
	Kind       string  `json:"kind"` // "monitor" or "juc"
	Class      *string `json:"class"`
	Holder     *string `json:"holder"` // that lock's holder then, null when unknown
	HolderName *string `json:"holder_name"`
	S          float64 `json:"s"`
}

// leafFrame is a sample stack's leaf-most Java frame and, when that is the
// JDK's, the first frame of the program's code below it ("" when none).
type leafFrame struct{ frame, caller string }

// leafNamer names sample stacks by their leaf-most Java frames (leaf),
// each stack once.
type leafNamer struct {
	rec    *reader.Recording
	m      *model.Model
	leaves map[model.StackID]leafFrame
}

// leaf returns the leaf-most Java frame of a stack, resolved: native and
// VM frames (format.IsNativeClass) above it are folded into it; a stack of
// native frames only is its innermost frame.
func (b *leafNamer) leaf(id model.StackID) leafFrame {
	if f, ok := b.leaves[id]; ok {
		return f
	}
	out := leafFrame{frame: "(no stack)"}
	if int(id) < len(b.m.Stacks) && len(b.m.Stacks[id]) > 0 {
		st := b.m.Stacks[id]
		out.frame = b.rec.Resolve(st[0])
		native := func(fr format.Frame) bool {
			return strings.HasPrefix(b.rec.ClassName(fr.Method), format.NativeClassPrefix)
		}
		for i, fr := range st {
			if native(fr) {
				continue
			}
			out.frame = b.rec.Resolve(fr)
			if !isJDK(out.frame) {
				break
			}
			for _, c := range st[i+1:] {
				if f := b.rec.Resolve(c); !native(c) && !isJDK(f) {
					out.caller = f
					break
				}
			}
			break
		}
	}
	b.leaves[id] = out
	return out
}

// cpu builds the CPU profile of the View's threads; nil when the recording
// has no samples and lost none. A part of a recording that has some (a
// time range, the chunks a bounded recording kept) may have none: a
// profile of 0 samples, not "the recording has none".
func (b *builder) cpu(n int) *CPU {
	lost := b.rec.Info.Counters(format.InfoSamplesLost)
	for k, n := range lost {
		if n <= 0 {
			delete(lost, k)
		}
	}
	written := false
	for _, n := range b.rec.Info.Counters(format.InfoSamples) {
		written = written || n > 0
	}
	if b.m.Samples == 0 && len(lost) == 0 && !written {
		return nil
	}
	c := &CPU{Lost: lost, Methods: []CPUMethod{}, Clock: b.rec.Info[format.InfoSampleCPUClock]}
	type acc struct {
		samples int
		w       format.Time
	}
	by := map[string]*acc{}
	var cpuW, wallW format.Time
	b.m.EachSample(model.SampleQuery{Threads: func(t *model.Thread) bool { return b.v.Has(t.ID) }}, func(_ *model.Thread, s *model.Sample) {
		switch s.Kind {
		case format.SampleCPU:
			c.Samples++
			cpuW += s.Weight
			f := b.leaf(s.Stack).frame
			a := by[f]
			if a == nil {
				a = &acc{}
				by[f] = a
			}
			a.samples++
			a.w += s.Weight
		case format.SampleWall:
			c.WallSamples++
			wallW += s.Weight
		}
	})
	c.S, c.WallS = sec(cpuW), sec(wallW)
	for f, a := range by {
		c.Methods = append(c.Methods, CPUMethod{Frame: f, Samples: a.samples, S: sec(a.w)})
	}
	slices.SortFunc(c.Methods, func(x, y CPUMethod) int {
		return cmp.Or(cmp.Compare(y.Samples, x.Samples), cmp.Compare(y.S, x.S), cmp.Compare(x.Frame, y.Frame))
	})
	accum := 0
	for i := range c.Methods {
		m := &c.Methods[i]
		accum += m.Samples
		m.Rank = i + 1
		m.SelfPct = pct(format.Time(m.Samples), format.Time(c.Samples))
		m.AccumPct = pct(format.Time(accum), format.Time(c.Samples))
	}
	c.Methods, c.MethodsTotal = top(c.Methods, n)
	return c
}

// runSplit sets a thread's cpu_s, other_s, ready_s (with scheduler times
// only: samples do not tell it) and a carrier's virtual_cpu_s when its
// runnable time is split.
func runSplit(th *Thread, t *model.Thread) {
	r := t.Run
	if t.SchedCount() < 2 && r.Unsplit == t.Time[model.Runnable] {
		return
	}
	f := func(d format.Time) *float64 { v := sec(d); return &v }
	th.CPUS, th.OtherS = f(r.Running), f(r.Other)
	if t.SchedCount() >= 2 {
		th.ReadyS = f(r.Ready)
	}
	if r.Virtual > 0 {
		th.VirtualCPUS = f(r.Virtual)
	}
}

// DoingParts calls put with each part of what holders did (d) that is
// not 0, by its name in holders_doing: running, ready, other,
// running_virtual, runnable (not split), the recorded states, released
// (in Object.wait on the monitor itself, or in Condition.await on a
// condition of the java.util.concurrent lock itself, or the lock's
// hand-off after an unlock unparked the next owner: let go, the next
// owner not yet in), unknown.
// The viewer names them so too.
func DoingParts(d *model.Doing, put func(name string, t format.Time)) {
	p := func(name string, t format.Time) {
		if t > 0 {
			put(name, t)
		}
	}
	p("running", d.Run.Running)
	p("ready", d.Run.Ready)
	p("other", d.Run.Other)
	p("running_virtual", d.Run.Virtual)
	p("runnable", d.Run.Unsplit)
	for st := model.State(1); st < model.NumStates; st++ {
		p(st.String(), d.Time[st])
	}
	p("released", d.Released)
	p("unknown", d.Unknown)
}

// holders fills a lock's holders_doing, holders_blocked_on and
// holders_frames from what its holders did (d; nil for a semaphore).
func (b *builder) holders(l *Lock, d *model.Doing) {
	if d == nil || d.Blocked == 0 {
		return
	}
	l.HoldersDoing = map[string]float64{}
	DoingParts(d, func(name string, t format.Time) { l.HoldersDoing[name] = sec(t) })
	l.HoldersWhileS = sec(d.Blocked)
	l.HoldersBlockedOn = []HolderBlockedOn{}
	for _, on := range d.On[:min(len(d.On), holdersTop)] {
		h := HolderBlockedOn{Object: on.Lock.Object.String(), Kind: on.Lock.Kind.String(), Class: b.class(on.Lock.Object), S: sec(on.Time)}
		if on.Owner != 0 {
			h.Holder, h.HolderName = idPtr(on.Owner.String(), true), b.name(on.Owner)
		}
		l.HoldersBlockedOn = append(l.HoldersBlockedOn, h)
	}
	l.HoldersFrames = holdersFrames(d, &b.leafNamer)
}

// HoldersFrames returns a lock's holders_frames (Lock.HoldersFrames: the
// samples of its holders while others were blocked on it, d, by leaf-most
// Java frame, most first, the first holdersTop) as orca report gives them
// for a lock it lists: nil when d says nothing (nil, or no time blocked).
// What orca view's lock detail shows (its report is made without them:
// Options.NoHolders).
func HoldersFrames(rec *reader.Recording, m *model.Model, d *model.Doing) []HolderFrame {
	if d == nil || d.Blocked == 0 {
		return nil
	}
	return holdersFrames(d, &leafNamer{rec: rec, m: m, leaves: map[model.StackID]leafFrame{}})
}

// holdersFrames is HoldersFrames of d, its stacks named by b.
func holdersFrames(d *model.Doing, b *leafNamer) []HolderFrame {
	type key struct {
		leafFrame
		kind format.SampleKind
	}
	by := map[key]*HolderFrame{}
	var w = map[key]format.Time{}
	for _, s := range d.Samples {
		if s.Kind != format.SampleCPU && s.Kind != format.SampleWall {
			continue
		}
		k := key{b.leaf(s.Stack), s.Kind}
		hf := by[k]
		if hf == nil {
			state := "running"
			if s.Kind == format.SampleWall {
				state = "other"
			}
			hf = &HolderFrame{Frame: k.frame, Caller: k.caller, State: state}
			by[k] = hf
		}
		hf.Samples += s.Samples
		w[k] += s.Weight
	}
	out := []HolderFrame{}
	for k, hf := range by {
		hf.S = sec(w[k])
		out = append(out, *hf)
	}
	slices.SortFunc(out, func(x, y HolderFrame) int {
		return cmp.Or(cmp.Compare(y.Samples, x.Samples), cmp.Compare(y.S, x.S), cmp.Compare(x.Frame, y.Frame),
			cmp.Compare(x.Caller, y.Caller), cmp.Compare(x.State, y.State))
	})
	return out[:min(len(out), holdersTop)]
}

// holdersText prints under a contended lock what its holders did while
// others were blocked on it, each part's share of that time, most first:
// running and other with the frame most of their samples were in, a lock
// the holders blocked on with its holder. Nothing when all of it is
// runnable time the recording cannot split and no sample says more (an
// older recording): "runnable 100 %" would say nothing. It reports
// whether it printed.
func holdersText(t *textWriter, l *Lock) bool {
	d := l.HoldersDoing
	says := len(l.HoldersFrames) > 0
	for name := range d {
		says = says || name != "runnable" && name != "unknown"
	}
	if !says {
		return false
	}
	whole := l.HoldersWhileS
	type part struct {
		name string
		s    float64
	}
	var parts []part
	for name, s := range d {
		parts = append(parts, part{name, s})
	}
	slices.SortFunc(parts, func(a, b part) int { return cmp.Or(cmp.Compare(b.s, a.s), cmp.Compare(a.name, b.name)) })
	who := "its holders were"
	if len(l.Owners) == 1 {
		who = "its holder was"
	}
	t.printf("     while others were blocked (%s), %s:\n", dur(whole), who)
	for _, p := range parts {
		pc := model.Share(format.Time(p.s*1e9), format.Time(whole*1e9))
		if pc < 0.05 {
			continue // "0.0%": the JSON has it
		}
		share := Percent(pc)
		word := p.name
		switch p.name {
		case "other":
			word = "other (I/O, native, VM)"
		case "running_virtual":
			word = "running virtual threads"
		case "runnable":
			word = "runnable (not split: no scheduler times)"
		case "unknown":
			word = "holder unknown"
		case "released":
			word = "released (in Object.wait on it, the next owner not in yet)"
			if l.Kind == "juc" {
				word = "released (unparked the next owner, or in Condition.await on its condition; the next owner not in yet)"
			}
		}
		line := fmt.Sprintf("%s %s (%s)", word, share, dur(p.s))
		switch p.name {
		case "running", "other":
			if top, n, all := topFrame(l.HoldersFrames, p.name); n > 0 {
				in := top.Frame
				if top.Caller != "" {
					in = top.Caller + " → " + top.Frame
				}
				line += fmt.Sprintf(", most in %s (%d of %s)", in, n, count(all, "sample", "samples"))
			}
		case "blocked":
			for i, on := range l.HoldersBlockedOn {
				if i == 2 {
					line += ", and others"
					break
				}
				if i > 0 {
					line += ","
				}
				line += " on " + t.lockNamed(on.Kind, on.Object, on.Class, nil, "")
				if on.Holder != nil {
					line += " held by " + label(*on.Holder, on.HolderName)
				}
				if len(l.HoldersBlockedOn) > 1 {
					line += " (" + dur(on.S) + ")"
				}
			}
		}
		t.printf("       %s\n", line)
	}
	return true
}

// topFrame returns the frame of state with most samples, its samples, and
// the samples of the state.
func topFrame(fs []HolderFrame, state string) (HolderFrame, int, int) {
	var top HolderFrame
	n, all := 0, 0
	for _, f := range fs {
		if f.State != state {
			continue
		}
		all += f.Samples
		if f.Samples > n {
			top, n = f, f.Samples
		}
	}
	return top, n, all
}

// cpuSection prints the CPU profile as HPROF's cpu=samples does: rank,
// self and accumulated share of the samples, samples, the time they stand
// for, the method with its line. A recording without samples says so once.
func (r *Report) cpuSection(t *textWriter) {
	c := r.CPU
	if c == nil {
		t.section("No samples: the recording has none (sampling off, an agent or an import without it).")
		return
	}
	if c.Samples == 0 {
		t.section("CPU: no cpu samples.")
		if c.WallSamples > 0 {
			t.printf("  (%s, %s of threads off a CPU in no recorded state: I/O, native code, the VM)\n", count(c.WallSamples, "wall sample", "wall samples"), dur(c.WallS))
		}
		return
	}
	t.section("CPU: %s (%s on a CPU) by the Java method they ran in%s",
		count(c.Samples, "sample", "samples"), dur(c.S), shown(len(c.Methods), c.MethodsTotal))
	rows := [][]string{{"rank", "self", "accum", "samples", "cpu", "method"}}
	for _, m := range c.Methods {
		rows = append(rows, []string{strconv.Itoa(m.Rank), Percent(m.SelfPct), Percent(m.AccumPct), strconv.Itoa(m.Samples), dur(m.S), m.Frame})
	}
	t.table("  ", []bool{true, true, true, true, true, false}, rows)
	t.printf("  (self: the samples in the method itself, a native frame counted for the Java method that\n" +
		"  called it; accum: self summed down the ranks")
	if c.WallSamples > 0 {
		t.printf(";\n  and %s, %s of threads off a CPU in no recorded state: I/O, native code, the VM",
			count(c.WallSamples, "wall sample", "wall samples"), dur(c.WallS))
	}
	t.printf(")\n")
}

// lostEntry is the caveat of samples lost (samples_lost.REASON), and of
// CPU samples timed by POSIX timers because the task clock was refused.
func (r *Report) lostEntry(es []headEntry) []headEntry {
	if c := r.CPU; c != nil && c.Samples > 0 {
		if why, ok := strings.CutPrefix(c.Clock, "timer: "); ok && why != "cpu_clock=timer" {
			es = add(es, caveat, "CPU samples timed by POSIX timers (%s): where threads waited for a CPU their count falls short, their weights still add up to the CPU", why)
		}
	}
	if r.CPU == nil || len(r.CPU.Lost) == 0 {
		return es
	}
	var n int64
	var why []string
	for _, k := range slices.Sorted(maps.Keys(r.CPU.Lost)) {
		n += r.CPU.Lost[k]
		why = append(why, fmt.Sprintf("%s %d", k, r.CPU.Lost[k]))
	}
	return add(es, caveat, "%s lost%s (%s): the CPU profile and the holders' frames miss them", count(int(n), "sample", "samples"), r.whole(), strings.Join(why, ", "))
}
