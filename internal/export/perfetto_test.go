package export

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"orca/internal/format"
	"orca/internal/model"
)

// The test decodes traces generically (field number → values) and reads
// them with its own table of Perfetto's field numbers, written down from
// the .proto files independently of perfetto.go's constants.

// pbMsg is a decoded protobuf message: each field's values in order, a
// varint or fixed number in n, length-delimited bytes in b.
type pbMsg map[protowire.Number][]pbVal

type pbVal struct {
	typ protowire.Type
	n   uint64
	b   []byte
}

func decodePB(b []byte) (pbMsg, error) {
	m := pbMsg{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		v := pbVal{typ: typ}
		switch typ {
		case protowire.VarintType:
			v.n, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			v.n, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(b)
			v.n = uint64(x)
		case protowire.BytesType:
			v.b, n = protowire.ConsumeBytes(b)
		default:
			return nil, fmt.Errorf("field %d: unexpected wire type %d", num, typ)
		}
		if n < 0 {
			return nil, fmt.Errorf("field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		m[num] = append(m[num], v)
	}
	return m, nil
}

// mustMsg decodes a submessage field (the last one, as protobuf merges).
func (m pbMsg) msg(t *testing.T, f protowire.Number) pbMsg {
	t.Helper()
	vs := m[f]
	if len(vs) == 0 {
		return nil
	}
	v := vs[len(vs)-1]
	if v.typ != protowire.BytesType {
		t.Fatalf("field %d: wire type %d, want bytes", f, v.typ)
	}
	sub, err := decodePB(v.b)
	if err != nil {
		t.Fatalf("field %d: %v", f, err)
	}
	return sub
}

func (m pbMsg) uint(f protowire.Number) uint64 {
	if vs := m[f]; len(vs) > 0 {
		return vs[len(vs)-1].n
	}
	return 0
}

func (m pbMsg) str(f protowire.Number) string {
	if vs := m[f]; len(vs) > 0 {
		return string(vs[len(vs)-1].b)
	}
	return ""
}

func (m pbMsg) has(f protowire.Number) bool { return len(m[f]) > 0 }

// Perfetto's field numbers, protos/perfetto/trace/: trace.proto,
// trace_packet.proto, track_event/{track_descriptor,thread_descriptor,
// process_descriptor,track_event,debug_annotation}.proto,
// interned_data/interned_data.proto, profiling/profile_common.proto.
const (
	pTracePacket = 1

	pTimestamp, pSeqID, pTrackEvent, pInterned, pSeqFlags, pTrackDescriptor = 8, 10, 11, 12, 13, 60
	pClockSnapshot, pTimestampClock, pDefaults                              = 6, 58, 59

	pDefTimestampClock                                = 58 // TracePacketDefaults
	pSnapClocks, pClkID, pClkTimestamp, pClkIncrement = 1, 1, 2, 3
	pBoottime                                         = 6 // BUILTIN_CLOCK_BOOTTIME

	pTDUUID, pTDProcess, pTDThread      = 1, 3, 4
	pProcPID, pProcName                 = 1, 6
	pThreadPID, pThreadTID, pThreadName = 1, 2, 5
	pTEAnnotations, pTEType, pTETrack   = 4, 9, 11
	pTEName, pTEFlows, pTETermFlows     = 23, 47, 48
	pTENameIID, pTECallstackIID         = 10, 56
	pDAName, pDAString                  = 10, 6
	pDANameIID, pDAStringIID            = 1, 17
	pIDEventNames, pIDAnnotationNames   = 2, 3
	pIDFunctionNames, pIDFrames         = 5, 6
	pIDCallstacks, pIDSourcePaths       = 7, 18
	pIDAnnotationValues                 = 29
	pISIID, pISStr                      = 1, 2
	pFrIID, pFrFunc, pFrSource, pFrLine = 1, 2, 5, 6
	pCSIID, pCSFrames                   = 1, 2
)

// pfTrace is a decoded Perfetto export.
type pfTrace struct {
	threads map[uint64]pfThread // by track uuid
	process pbMsg
	spans   []pfSpan
	flows   map[uint64][]pfInstant // by flow id: [source, destination]
	stacks  map[uint64][]string    // callstack iid → "function file:line", outermost first
	// The interned strings: event names, annotations' names and values,
	// by iid; the stacks' function names, source paths and frames.
	eventNames, argNames, argValues map[uint64]string
	funcs, paths, frames            map[uint64]string
	// internedPackets counts the packets with interned data.
	internedPackets int
	// absolute counts the packets whose timestamp names BOOTTIME, not
	// the defaults' clock.
	absolute int
	// inline counts the strings written where they are used, not
	// interned: events' names, annotations' names, and values by name.
	inline map[string]int
}

type pfThread struct {
	pid, tid uint64
	name     string
}

type pfSpan struct {
	track      uint64
	name       string
	start, end uint64
	args       map[string]string
	stack      []string
}

type pfInstant struct {
	track  uint64
	name   string
	ts     uint64
	source bool
}

// readPerfetto decodes a trace and checks its structure: the sequence
// flags, sorted timestamps, begin/end pairs on each track.
func readPerfetto(t *testing.T, data []byte) *pfTrace {
	t.Helper()
	trace, err := decodePB(data)
	if err != nil {
		t.Fatalf("perfetto: %v", err)
	}
	if len(trace) != 1 || !trace.has(pTracePacket) {
		t.Fatalf("perfetto: a Trace with fields other than packet (1)")
	}
	tr := &pfTrace{threads: map[uint64]pfThread{}, flows: map[uint64][]pfInstant{}, stacks: map[uint64][]string{},
		eventNames: map[uint64]string{}, argNames: map[uint64]string{}, argValues: map[uint64]string{}, inline: map[string]int{}}
	// The clocks: a packet's timestamp is on its timestamp_clock_id's, or
	// the defaults', or BOOTTIME (the trace's, in which times are kept);
	// a clock of the sequence's own (64–127) is defined by a snapshot,
	// beside BOOTTIME; an incremental one's timestamps are each the delta
	// from the one before on it (the first from the snapshot's)
	// (clock_snapshot.proto, trace_packet.proto).
	type seqClock struct {
		incremental bool
		last        uint64 // its own time: the snapshot's, then the last packet's
		boot        int64  // BOOTTIME − its time
	}
	clocks := map[uint64]*seqClock{}
	defaultClock := uint64(pBoottime)
	timeOf := func(i int, p pbMsg) uint64 {
		clk := defaultClock
		if p.has(pTimestampClock) {
			clk = p.uint(pTimestampClock)
		}
		ts := p.uint(pTimestamp)
		if clk == pBoottime {
			if p.has(pTimestampClock) {
				tr.absolute++
			}
			return ts
		}
		c := clocks[clk]
		if c == nil {
			t.Errorf("perfetto: packet %d: timestamp on clock %d, which no snapshot defined", i, clk)
			return ts
		}
		if c.incremental {
			c.last += ts
			ts = c.last
		}
		return uint64(int64(ts) + c.boot)
	}
	open := map[uint64][]int{} // track → stack of open spans
	var last uint64
	cleared := false
	for i, v := range trace[pTracePacket] {
		p, err := decodePB(v.b)
		if err != nil {
			t.Fatalf("perfetto: packet %d: %v", i, err)
		}
		if p.uint(pSeqID) != 1 {
			t.Errorf("perfetto: packet %d: sequence id %d, want 1", i, p.uint(pSeqID))
		}
		flags := p.uint(pSeqFlags)
		if flags&1 != 0 {
			if i != 0 {
				t.Errorf("perfetto: packet %d clears the incremental state, only the first should", i)
			}
			cleared = true
		}
		if p.has(pDefaults) {
			if d := p.msg(t, pDefaults); d.has(pDefTimestampClock) {
				defaultClock = d.uint(pDefTimestampClock)
			}
		}
		if p.has(pClockSnapshot) {
			snap := p.msg(t, pClockSnapshot)
			var boot uint64
			haveBoot := false
			for _, v := range snap[pSnapClocks] {
				c, _ := decodePB(v.b)
				if c.uint(pClkID) == pBoottime {
					boot, haveBoot = c.uint(pClkTimestamp), true
				}
			}
			if !haveBoot {
				t.Errorf("perfetto: packet %d: a clock snapshot without BOOTTIME", i)
			}
			for _, v := range snap[pSnapClocks] {
				c, _ := decodePB(v.b)
				if id := c.uint(pClkID); id >= 64 && id < 128 {
					clocks[id] = &seqClock{incremental: c.uint(pClkIncrement) != 0, last: c.uint(pClkTimestamp), boot: int64(boot - c.uint(pClkTimestamp))}
				}
			}
		}
		ts := timeOf(i, p)
		if p.has(pInterned) {
			tr.internedPackets++
			tr.intern(t, p.msg(t, pInterned))
		}
		if p.has(pTrackDescriptor) {
			td := p.msg(t, pTrackDescriptor)
			uuid := td.uint(pTDUUID)
			if th := td.msg(t, pTDThread); th != nil {
				if _, dup := tr.threads[uuid]; dup {
					t.Errorf("perfetto: track %d described twice", uuid)
				}
				tr.threads[uuid] = pfThread{th.uint(pThreadPID), th.uint(pThreadTID), th.str(pThreadName)}
			} else if pr := td.msg(t, pTDProcess); pr != nil {
				tr.process = pr
			}
		}
		if !p.has(pTrackEvent) {
			continue
		}
		if !cleared || flags&2 == 0 {
			t.Errorf("perfetto: packet %d: a track event without valid incremental state (flags %d)", i, flags)
		}
		if ts < last {
			t.Errorf("perfetto: packet %d: timestamp %d before %d", i, ts, last)
		}
		last = ts
		te := p.msg(t, pTrackEvent)
		track := te.uint(pTETrack)
		if _, ok := tr.threads[track]; !ok {
			t.Errorf("perfetto: packet %d: event on undescribed track %d", i, track)
		}
		args := map[string]string{}
		for _, a := range te[pTEAnnotations] {
			da, err := decodePB(a.b)
			if err != nil {
				t.Fatal(err)
			}
			name := tr.lookup(t, i, da, pDANameIID, pDAName, tr.argNames, "annotation name")
			args[name] = tr.lookup(t, i, da, pDAStringIID, pDAString, tr.argValues, "annotation value "+name)
		}
		name := tr.lookup(t, i, te, pTENameIID, pTEName, tr.eventNames, "event name")
		switch te.uint(pTEType) {
		case 1: // TYPE_SLICE_BEGIN
			s := pfSpan{track: track, name: name, start: ts, args: args}
			if te.has(pTECallstackIID) {
				st, ok := tr.stacks[te.uint(pTECallstackIID)]
				if !ok {
					t.Errorf("perfetto: packet %d: callstack iid %d not interned", i, te.uint(pTECallstackIID))
				}
				s.stack = st
			}
			open[track] = append(open[track], len(tr.spans))
			tr.spans = append(tr.spans, s)
		case 2: // TYPE_SLICE_END
			st := open[track]
			if len(st) == 0 {
				t.Errorf("perfetto: packet %d: end without begin on track %d", i, track)
				continue
			}
			tr.spans[st[len(st)-1]].end = ts
			open[track] = st[:len(st)-1]
		case 3: // TYPE_INSTANT
			for _, f := range te[pTEFlows] {
				if f.typ != protowire.Fixed64Type {
					t.Errorf("perfetto: flow id wire type %d, want fixed64", f.typ)
				}
				tr.flows[f.n] = append(tr.flows[f.n], pfInstant{track, name, ts, true})
			}
			for _, f := range te[pTETermFlows] {
				tr.flows[f.n] = append(tr.flows[f.n], pfInstant{track, name, ts, false})
			}
		default:
			t.Errorf("perfetto: packet %d: event type %d", i, te.uint(pTEType))
		}
	}
	for track, st := range open {
		if len(st) > 0 {
			t.Errorf("perfetto: track %d: %d slices never end", track, len(st))
		}
	}
	return tr
}

// lookup is message m's string of field f, or the string of the table
// named by its iid field fiid; what, for the errors. A string written in
// place is counted in tr.inline (by what).
func (tr *pfTrace) lookup(t *testing.T, packet int, m pbMsg, fiid, f protowire.Number, table map[uint64]string, what string) string {
	t.Helper()
	if !m.has(fiid) {
		if m.has(f) {
			tr.inline[what]++
		}
		return m.str(f)
	}
	if m.has(f) {
		t.Errorf("perfetto: packet %d: %s both interned and in place", packet, what)
	}
	s, ok := table[m.uint(fiid)]
	if !ok {
		t.Errorf("perfetto: packet %d: %s iid %d not interned", packet, what, m.uint(fiid))
	}
	return s
}

// intern reads InternedData: frames and callstacks, event names,
// annotations' names and values, by iid. An iid given twice is an error
// (Perfetto forbids it, even with another value).
func (tr *pfTrace) intern(t *testing.T, id pbMsg) {
	for f, table := range map[protowire.Number]map[uint64]string{pIDEventNames: tr.eventNames, pIDAnnotationNames: tr.argNames, pIDAnnotationValues: tr.argValues} {
		for _, v := range id[f] {
			is, err := decodePB(v.b)
			if err != nil {
				t.Fatal(err)
			}
			iid := is.uint(pISIID)
			if _, dup := table[iid]; dup || iid == 0 {
				t.Errorf("perfetto: interned table %d: iid %d given twice or 0", f, iid)
			}
			table[iid] = is.str(pISStr)
		}
	}
	strs := func(f protowire.Number) map[uint64]string {
		out := map[uint64]string{}
		for _, v := range id[f] {
			is, err := decodePB(v.b)
			if err != nil {
				t.Fatal(err)
			}
			out[is.uint(pISIID)] = is.str(pISStr)
		}
		return out
	}
	// Function names, source paths and frames add to those of the
	// packets before (the tables may be split over packets).
	if tr.funcs == nil {
		tr.funcs, tr.paths, tr.frames = map[uint64]string{}, map[uint64]string{}, map[uint64]string{}
	}
	maps.Copy(tr.funcs, strs(pIDFunctionNames))
	maps.Copy(tr.paths, strs(pIDSourcePaths))
	funcs, paths, frames := tr.funcs, tr.paths, tr.frames
	for _, v := range id[pIDFrames] {
		fr, _ := decodePB(v.b)
		fn, ok := funcs[fr.uint(pFrFunc)]
		if !ok {
			t.Errorf("perfetto: frame %d: function name %d not interned", fr.uint(pFrIID), fr.uint(pFrFunc))
		}
		if fr.has(pFrSource) {
			if _, ok := paths[fr.uint(pFrSource)]; !ok {
				t.Errorf("perfetto: frame %d: source path %d not interned", fr.uint(pFrIID), fr.uint(pFrSource))
			}
		}
		frames[fr.uint(pFrIID)] = fmt.Sprintf("%s %s:%d", fn, paths[fr.uint(pFrSource)], fr.uint(pFrLine))
	}
	for _, v := range id[pIDCallstacks] {
		cs, _ := decodePB(v.b)
		var st []string
		for _, f := range cs[pCSFrames] {
			if f.typ != protowire.VarintType {
				t.Errorf("perfetto: callstack frame ids must be unpacked varints (proto2)")
			}
			fr, ok := frames[f.n]
			if !ok {
				t.Errorf("perfetto: callstack %d: frame %d not interned", cs.uint(pCSIID), f.n)
			}
			st = append(st, fr)
		}
		tr.stacks[cs.uint(pCSIID)] = st
	}
}

// checkPerfetto decodes a Perfetto export and checks it against the model:
// a track per thread with its name, the intervals as slices, the edges as
// flows from the acting thread's track to the other's.
func checkPerfetto(t *testing.T, data []byte, m *model.Model, k Kinds) *pfTrace {
	t.Helper()
	tr := readPerfetto(t, data)
	checkInterned(t, tr)
	if tr.process == nil {
		t.Errorf("perfetto: no process track")
	}
	byID := map[format.ThreadID]uint64{}
	if len(tr.threads) != m.NumThreads() {
		t.Errorf("perfetto: %d thread tracks, the model has %d threads", len(tr.threads), m.NumThreads())
	}
	for uuid, th := range tr.threads {
		mt := m.Thread(format.ThreadID(th.tid))
		if mt == nil || mt.Name != th.name {
			t.Errorf("perfetto: track %d: thread %d %q is not in the model", uuid, th.tid, th.name)
			continue
		}
		if th.pid != tr.process.uint(pProcPID) {
			t.Errorf("perfetto: thread %q: pid %d, the process's is %d", th.name, th.pid, tr.process.uint(pProcPID))
		}
		byID[mt.ID] = uuid
	}
	var got []span
	for _, s := range tr.spans {
		got = append(got, span{format.ThreadID(tr.threads[s.track].tid), s.name, format.Time(s.start), format.Time(s.end)})
		if len(s.stack) == 0 {
			t.Errorf("perfetto: slice %s at %d has no callstack", s.name, s.start)
		}
	}
	sortSpans(got)
	want := wantSpans(m, k)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("perfetto: slices\n%v\nwant (the model's intervals)\n%v", got, want)
	}
	// Flows: one per edge of the kinds, from From's track at FromTime to
	// To's track at ToTime (or the other way if ToTime is earlier).
	type flow struct {
		from, to         uint64
		fromTime, toTime uint64
	}
	var gotFlows, wantFlows []flow
	for id, ends := range tr.flows {
		if len(ends) != 2 || !ends[0].source || ends[1].source {
			t.Errorf("perfetto: flow %d: ends %v, want a source then a destination", id, ends)
			continue
		}
		gotFlows = append(gotFlows, flow{ends[0].track, ends[1].track, ends[0].ts, ends[1].ts})
	}
	for _, e := range m.Edges {
		if k.hasEdge(e.Kind) && m.Thread(e.From) != nil && m.Thread(e.To) != nil {
			f := flow{byID[e.From], byID[e.To], uint64(e.FromTime), uint64(e.ToTime)}
			if e.ToTime < e.FromTime { // the flow goes from the earlier end
				f = flow{f.to, f.from, f.toTime, f.fromTime}
			}
			wantFlows = append(wantFlows, f)
		}
	}
	sortFlows := func(f []flow) string {
		s := make([]string, len(f))
		for i, x := range f {
			s[i] = fmt.Sprint(x)
		}
		sortStrings(s)
		return strings.Join(s, "\n")
	}
	if g, w := sortFlows(gotFlows), sortFlows(wantFlows); g != w {
		t.Errorf("perfetto: flows\n%s\nwant (the model's edges)\n%s", g, w)
	}
	return tr
}

// checkInterned checks that every string of a trace but an object's is
// interned, each once.
func checkInterned(t *testing.T, tr *pfTrace) {
	t.Helper()
	for what, n := range tr.inline {
		if what != "annotation value "+uninternedArg {
			t.Errorf("perfetto: %d of %s written in place, not interned", n, what)
		}
	}
	for what, table := range map[string]map[uint64]string{"event names": tr.eventNames, "annotation names": tr.argNames, "annotation values": tr.argValues} {
		seen := map[string]uint64{}
		for iid, s := range table {
			if other, dup := seen[s]; dup {
				t.Errorf("perfetto: %s: %q interned twice, iids %d and %d", what, s, other, iid)
			}
			seen[s] = iid
		}
	}
}

// TestPerfettoInternBound checks the bound of the annotations' values
// interned: past it, new values are written in place, and the trace
// reads the same.
func TestPerfettoInternBound(t *testing.T) {
	got, want := withKnob(t, &maxInternedValues, 2)
	if len(got.argValues) != 2 || len(want.argValues) <= 2 {
		t.Errorf("%d values interned with a bound of 2, %d without", len(got.argValues), len(want.argValues))
	}
	inline := 0
	for what, n := range got.inline {
		if what != "annotation value "+uninternedArg {
			inline += n
		}
	}
	if inline == 0 {
		t.Errorf("no value past the bound written in place: %v", got.inline)
	}
	sameTrace(t, "with the bound", got, want)
}

// withKnob reads the Perfetto export of loadAll's recording with *knob
// set to v (got) and as it is (want).
func withKnob(t *testing.T, knob *int, v int) (got, want *pfTrace) {
	t.Helper()
	rec, m := loadAll(t)
	want = readPerfetto(t, export(t, "perfetto", rec, m, All))
	defer func(n int) { *knob = n }(*knob)
	*knob = v
	return readPerfetto(t, export(t, "perfetto", rec, m, All)), want
}

// sameTrace checks that trace got reads as want: its slices (their
// arguments and stacks) and its flows.
func sameTrace(t *testing.T, what string, got, want *pfTrace) {
	t.Helper()
	if g, w := fmt.Sprint(got.spans), fmt.Sprint(want.spans); g != w {
		t.Errorf("slices %s\n%s\nwant\n%s", what, g, w)
	}
	if g, w := fmt.Sprint(got.flows), fmt.Sprint(want.flows); g != w {
		t.Errorf("flows %s\n%s\nwant\n%s", what, g, w)
	}
}

// TestPerfettoInternedPackets checks the interned tables split over
// packets at their entries' boundaries: the same trace read.
func TestPerfettoInternedPackets(t *testing.T) {
	got, want := withKnob(t, &internedPacketBytes, 64)
	if want.internedPackets != 1 || got.internedPackets < 10 {
		t.Errorf("interned tables in %d packets, %d with packets of 64 bytes", want.internedPackets, got.internedPackets)
	}
	sameTrace(t, "with the tables split", got, want)
	for _, c := range [][2]any{{got.stacks, want.stacks}, {got.argValues, want.argValues}} {
		if g, w := fmt.Sprint(c[0]), fmt.Sprint(c[1]); g != w {
			t.Errorf("split tables read\n%s\nwant\n%s", g, w)
		}
	}
}

func TestPerfetto(t *testing.T) {
	rec, m := loadAll(t)
	for _, k := range []Kinds{0, Monitor, Wait | Join, All} {
		want := k
		if k == 0 {
			want = All
		}
		checkPerfetto(t, export(t, "perfetto", rec, m, k), m, want)
	}
	tr := checkPerfetto(t, export(t, "perfetto", rec, m, All), m, All)
	// An object's identity is written in place (millions in an hour of a
	// server: not held in the interned tables).
	if tr.inline["annotation value object"] == 0 || slices.Contains(slices.Collect(maps.Values(tr.argValues)), "0000C0DE") {
		t.Errorf("objects not written in place: %d in place, values interned %v", tr.inline["annotation value object"], tr.argValues)
	}
	if tr.process.uint(pProcPID) != 4242 || tr.process.str(pProcName) != "com.example.Work" {
		t.Errorf("process %d %q, want 4242 com.example.Work", tr.process.uint(pProcPID), tr.process.str(pProcName))
	}
	names := map[uint64]string{}
	for uuid, th := range tr.threads {
		names[uuid] = th.name
	}
	// The notify: from worker-b's track at 2.5 s to worker-a's at 2.6 s.
	found := false
	for _, ends := range tr.flows {
		if names[ends[0].track] == "worker-b" && names[ends[1].track] == "worker-a" && ends[0].name == "notify" {
			found = true
			if ends[0].ts != uint64(sec(2.5)) || ends[1].ts != uint64(sec(2.6)) || ends[1].name != "woken" {
				t.Errorf("wake flow %v", ends)
			}
		}
	}
	if !found {
		t.Errorf("no notify flow from worker-b to worker-a")
	}
	// Slices carry their arguments and stacks.
	for _, s := range tr.spans {
		who := names[s.track]
		switch {
		case who == "worker-a" && s.name == "waiting":
			if s.args["object"] != "0000C0DE" || s.args["notifier"] != "worker-b (0000000B)" || s.args["wake"] != "notify" {
				t.Errorf("worker-a's wait: args %v", s.args)
			}
			if got := strings.Join(s.stack, " > "); got != "com.example.Work.run com/example/Work.java:10 > com.example.Work.transfer com/example/Work.java:20 > java.lang.Object.wait java/lang/Object.java:0" {
				t.Errorf("worker-a's wait: stack %s", got)
			}
		case who == "worker-b" && s.name == "blocked" && s.start == uint64(sec(4.5)):
			if s.args["owner"] != "main (00000001)" || s.args["open"] == "" || s.end != uint64(sec(5)) {
				t.Errorf("worker-b's open contention: %+v", s)
			}
		case who == "worker-c" && s.start == uint64(sec(1.1)):
			// One slice for the contention, its owner change as arguments.
			if s.args["owner"] != "worker-b (0000000B)" || s.args["first_owner"] != "worker-a (0000000A)" ||
				s.args["owner_changes"] != "1" || s.args["continues"] != "" || s.end != uint64(sec(1.4)) {
				t.Errorf("worker-c's contention: %+v", s)
			}
		case who == "worker-c" && s.start == uint64(sec(1.3)):
			t.Errorf("worker-c's contention split at its owner change: %+v", s)
		}
	}
}

// TestPerfettoBeforeStart checks the timestamps of events before the
// recording's start (the incremental clock's origin): written whole on
// the trace's clock, the later ones as deltas again.
func TestPerfettoBeforeStart(t *testing.T) {
	rec, m := loadAll(t)
	var starts []format.Time
	for _, th := range m.Threads {
		for _, iv := range th.Intervals {
			starts = append(starts, iv.Start)
		}
	}
	slices.Sort(starts)
	m.Start = starts[2] + 1 // the first three slices begin before it
	tr := checkPerfetto(t, export(t, "perfetto", rec, m, All), m, All)
	if tr.absolute < 3 {
		t.Errorf("%d packets on BOOTTIME, want the first three slices' at least", tr.absolute)
	}
}

// TestTimelineOrder checks the order of events at one timestamp: a slice
// that ends, then instants, then slices that begin, an empty slice's end
// right after its begin; and that a flow whose effect comes before its
// cause (clocks disagree) opens at the earlier end.
func TestTimelineOrder(t *testing.T) {
	m := &model.Model{
		Threads: []*model.Thread{
			{ID: 1, Name: "a", Intervals: []model.Interval{
				{Start: 10, End: 20, Since: 10, State: model.Sleeping},
				{Start: 20, End: 20, Since: 20, State: model.Blocked},
				{Start: 20, End: 30, Since: 20, State: model.Waiting},
				{Start: 30, End: 30, Since: 30, State: model.Joining},
			}},
			{ID: 2, Name: "b"},
		},
		Edges: []model.Edge{
			{Kind: model.EdgeWake, From: 2, To: 1, FromTime: 20, ToTime: 30},
			{Kind: model.EdgeStart, From: 1, To: 2, FromTime: 25, ToTime: 24},
		},
	}
	sorted := &tlSort{m: m}
	timelineEvents(m, All, Options{}, func(ev *tlEvent, key tlKey) {
		var s string
		switch ev.kind {
		case tlBegin:
			s = "begin " + ev.iv.Shown().String()
		case tlEnd:
			s = "end " + ev.iv.Shown().String()
		case tlInstant:
			s = instantName(ev)
			if ev.opens {
				s += " opens"
			}
		}
		sorted.add(key, 0, []byte(fmt.Sprintf("%d %s", ev.ts, s)))
	})
	var got []string
	sorted.each(func(_ tlKey, _ uint64, b []byte) {
		got = append(got, string(b))
	})
	want := []string{
		"10 begin sleeping",
		"20 end sleeping",
		"20 notify opens",
		"20 begin blocked", "20 end blocked",
		"20 begin waiting",
		"24 started opens",
		"25 start",
		"30 end waiting",
		"30 woken",
		"30 begin joining", "30 end joining",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTimelineProgress checks what the timelines tell Options.Progress:
// their steps in order, each's done up to its total (the model's threads,
// its edges, the events written), and the same bytes as without it.
func TestTimelineProgress(t *testing.T) {
	rec, m := loadAll(t)
	defer func(r int) { tlRunBytes = r }(tlRunBytes)
	tlRunBytes = 300 // runs on the spill, merged
	for _, name := range []string{"perfetto", "chrome"} {
		f, _ := Lookup(name)
		var want, got bytes.Buffer
		if err := f.Write(&want, rec, m, Options{}); err != nil {
			t.Fatal(err)
		}
		type call struct {
			step        string
			done, total int
		}
		var calls []call
		opt := Options{Progress: func(step string, done, total int) { calls = append(calls, call{step, done, total}) }}
		if err := f.Write(&got, rec, m, opt); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: other bytes with Progress", name)
		}
		steps := []string{StepTimeline, StepEdges, StepWriting}
		totals := map[string]int{StepTimeline: m.NumThreads(), StepEdges: m.NumEdges()}
		seen := map[string]int{}
		at := 0
		for _, c := range calls {
			for at < len(steps) && steps[at] != c.step {
				at++
			}
			if at == len(steps) {
				t.Fatalf("%s: step %q out of order in %v", name, c.step, calls)
			}
			seen[c.step]++
			if w, ok := totals[c.step]; ok && c.total != w || c.done < 0 || c.done >= c.total {
				t.Errorf("%s: %+v, want done below total %d", name, c, totals[c.step])
			}
		}
		if seen[StepTimeline] != m.NumThreads() || seen[StepEdges] == 0 || seen[StepWriting] == 0 {
			t.Errorf("%s: steps told %v, want one a thread (%d) and the others", name, seen, m.NumThreads())
		}
	}
}
