package export

import (
	"bufio"
	"io"
	"maps"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"orca/internal/model"
	"orca/internal/reader"
)

// Field numbers of Perfetto's trace protos, from github.com/google/perfetto
// at ec5d16b (2026-08-22), protos/perfetto/trace/…. Every message is proto2:
// repeated scalars are written unpacked, one field each, as the trace
// processor's decoders expect.
const (
	// trace.proto, Trace
	fTracePacket = 1 // repeated TracePacket packet

	// trace_packet.proto, TracePacket
	fPacketClockSnapshot   = 6  // ClockSnapshot clock_snapshot
	fPacketTimestamp       = 8  // uint64 timestamp (ns, on timestamp_clock_id's clock)
	fPacketSequenceID      = 10 // uint32 trusted_packet_sequence_id
	fPacketTrackEvent      = 11 // TrackEvent track_event
	fPacketInternedData    = 12 // InternedData interned_data
	fPacketSequenceFlags   = 13 // uint32 sequence_flags
	fPacketTimestampClock  = 58 // uint32 timestamp_clock_id
	fPacketDefaults        = 59 // TracePacketDefaults trace_packet_defaults
	fPacketTrackDescriptor = 60 // TrackDescriptor track_descriptor

	// trace_packet_defaults.proto, TracePacketDefaults
	fDefaultsTimestampClock = 58 // uint32 timestamp_clock_id

	// clock_snapshot.proto, ClockSnapshot and its Clock
	fSnapshotClocks     = 1 // repeated Clock clocks
	fClockID            = 1 // Clock: uint32 clock_id
	fClockTimestamp     = 2 // Clock: uint64 timestamp
	fClockIsIncremental = 3 // Clock: bool is_incremental

	// builtin_clock.proto: BUILTIN_CLOCK_BOOTTIME, the trace's clock when a
	// packet names none; 64 is the first of a sequence's own clocks.
	clockBoottime    = 6
	clockIncremental = 64

	seqIncrementalStateCleared = 1 // TracePacket.SequenceFlags SEQ_INCREMENTAL_STATE_CLEARED
	seqNeedsIncrementalState   = 2 // SEQ_NEEDS_INCREMENTAL_STATE

	// track_event/track_descriptor.proto, TrackDescriptor
	fTrackUUID    = 1 // uint64 uuid
	fTrackProcess = 3 // ProcessDescriptor process
	fTrackThread  = 4 // ThreadDescriptor thread

	// track_event/process_descriptor.proto, ProcessDescriptor
	fProcessPID  = 1 // int32 pid
	fProcessName = 6 // string process_name

	// track_event/thread_descriptor.proto, ThreadDescriptor
	fThreadPID  = 1 // int32 pid
	fThreadTID  = 2 // int64 tid
	fThreadName = 5 // string thread_name

	// track_event/track_event.proto, TrackEvent
	fEventDebugAnnotations   = 4  // repeated DebugAnnotation debug_annotations
	fEventType               = 9  // Type type
	fEventNameIID            = 10 // uint64 name_iid (InternedData.event_names)
	fEventTrackUUID          = 11 // uint64 track_uuid
	fEventFlowIDs            = 47 // repeated fixed64 flow_ids
	fEventTerminatingFlowIDs = 48 // repeated fixed64 terminating_flow_ids
	fEventCallstackIID       = 56 // uint64 callstack_iid (InternedData.callstacks)

	typeSliceBegin = 1 // TrackEvent.Type TYPE_SLICE_BEGIN
	typeSliceEnd   = 2 // TYPE_SLICE_END
	typeInstant    = 3 // TYPE_INSTANT

	// track_event/debug_annotation.proto, DebugAnnotation
	fAnnotationNameIID        = 1  // uint64 name_iid (InternedData.debug_annotation_names)
	fAnnotationStringValue    = 6  // string string_value
	fAnnotationStringValueIID = 17 // uint64 string_value_iid (InternedData.debug_annotation_string_values)

	// interned_data/interned_data.proto, InternedData
	fInternedEventNames       = 2  // repeated EventName event_names
	fInternedAnnotationNames  = 3  // repeated DebugAnnotationName debug_annotation_names
	fInternedFunctionNames    = 5  // repeated InternedString function_names
	fInternedFrames           = 6  // repeated Frame frames
	fInternedCallstacks       = 7  // repeated Callstack callstacks
	fInternedSourcePaths      = 18 // repeated InternedString source_paths
	fInternedAnnotationValues = 29 // repeated InternedString debug_annotation_string_values

	// profiling/profile_common.proto; EventName (track_event.proto) and
	// DebugAnnotationName (debug_annotation.proto) have the same two
	// fields, iid 1 and name 2.
	fStringIID         = 1 // InternedString: uint64 iid
	fStringStr         = 2 // InternedString: bytes str
	fFrameIID          = 1 // Frame: uint64 iid
	fFrameFunctionName = 2 // Frame: uint64 function_name_id
	fFrameSourcePath   = 5 // Frame: uint64 source_path_iid
	fFrameLineNumber   = 6 // Frame: uint32 line_number
	fCallstackIID      = 1 // Callstack: uint64 iid
	fCallstackFrameIDs = 2 // Callstack: repeated uint64 frame_ids, outermost frame first
)

// perfettoSequence is the one packet sequence of the trace; any non-zero id.
const perfettoSequence = 1

// Track uuids: the process, then one per thread (uuidThread0 + its index
// in Model.Threads).
const (
	uuidProcess = 1
	uuidThread0 = 2
)

// uninternedArg is the annotation whose values are written where they
// are used: an object's identity, of which an hour of a server parks on
// millions, most of them once.
const uninternedArg = "object"

// maxInternedValues bounds the annotations' values interned (each held
// in a map until the trace is written); later new ones are written
// where they are used. The values are classes, calls and threads' names.
// A variable for the tests.
var maxInternedValues = 1 << 20

// internedPacketBytes bounds a packet of interned tables (c1G's are 9.4
// MB in all: 276 773 threads' names): a reader that buffers a packet
// whole, or bounds one, takes them. A variable for the tests.
var internedPacketBytes = 1 << 20

// strTable is one table of interned strings (an InternedData field of
// InternedString's layout), its ids from 1 in the order of first use.
type strTable struct {
	field protowire.Number
	max   int // 0: no bound
	ids   map[string]uint64
}

// id returns s's id, its entry appended to data the first time; 0 when
// s is new and the table holds max strings.
func (t *strTable) id(s string, data *pb) uint64 {
	if iid, ok := t.ids[s]; ok {
		return iid
	}
	if t.ids == nil {
		t.ids = map[string]uint64{}
	}
	if t.max > 0 && len(t.ids) >= t.max {
		return 0
	}
	iid := uint64(len(t.ids) + 1)
	t.ids[s] = iid
	var is pb
	is.uint(fStringIID, iid)
	is.str(fStringStr, s)
	data.msg(t.field, is)
	return iid
}

// pb is a protobuf message being encoded.
type pb []byte

func (b *pb) uint(f protowire.Number, v uint64) {
	*b = protowire.AppendTag(*b, f, protowire.VarintType)
	*b = protowire.AppendVarint(*b, v)
}

func (b *pb) fixed64(f protowire.Number, v uint64) {
	*b = protowire.AppendTag(*b, f, protowire.Fixed64Type)
	*b = protowire.AppendFixed64(*b, v)
}

func (b *pb) str(f protowire.Number, s string) {
	*b = protowire.AppendTag(*b, f, protowire.BytesType)
	*b = protowire.AppendString(*b, s)
}

func (b *pb) msg(f protowire.Number, m pb) {
	*b = protowire.AppendTag(*b, f, protowire.BytesType)
	*b = protowire.AppendBytes(*b, m)
}

// Perfetto writes a Perfetto trace (the protobuf of trace.proto) of the
// intervals of the chosen kinds: a process track for the JVM, a thread
// track per thread, a slice per interval named after its state, with its
// stack (interned callstacks, which the UI shows and turns into flame
// graphs) and arguments (object, owner/notifier/target/releaser, wake,
// open; names and values interned), and the model's edges as flows
// between instants. Times are the recording's, in nanoseconds, each
// packet's written as the delta from the packet before.
func Perfetto(w io.Writer, rec *reader.Recording, m *model.Model, opt Options) error {
	k := kinds(opt, All)
	bw := bufio.NewWriter(w)
	var out []byte
	packet := func(p pb) {
		out = protowire.AppendTag(out[:0], fTracePacket, protowire.BytesType)
		out = protowire.AppendBytes(out, p)
		bw.Write(out) // a bufio.Writer keeps its first error for Flush
	}
	fs := newFrames(rec, m)
	tn := newThreadNames(m)
	cs := newCalls(rec, m)
	cc := &classCache{}

	// Every string but an object's is interned: the events' names, the
	// annotations' names and values (a slice's class, call and threads
	// repeat through the trace: written in place they were two thirds
	// of its bytes), and the stacks' function names and source paths.
	// Each table's entries go to the InternedData of the packet that
	// starts the sequence, numbered in the order of their first use
	// here (threads in order, then the edges: the same for a spilled
	// model and one in memory).
	var interned pb
	eventNames := strTable{field: fInternedEventNames}
	argNames := strTable{field: fInternedAnnotationNames}
	argValues := strTable{field: fInternedAnnotationValues, max: maxInternedValues}

	// The events first, a thread at a time, each encoded but for its
	// stack (interned below, numbered in the order of their first use):
	// aux is the slice's stack+1 above the place it goes in its bytes.
	var te, da pb
	var as []arg // sliceArgs' and instantArgs' room
	annotations := func(args []arg) {
		for _, a := range args {
			da = da[:0]
			da.uint(fAnnotationNameIID, argNames.id(a.key, &interned))
			var iid uint64
			if a.key != uninternedArg {
				iid = argValues.id(a.value, &interned)
			}
			if iid != 0 {
				da.uint(fAnnotationStringValueIID, iid)
			} else {
				da.str(fAnnotationStringValue, a.value)
			}
			te.msg(fEventDebugAnnotations, da)
		}
	}
	sorted := &tlSort{m: m, opt: opt}
	firstUse := map[model.StackID]tlKey{}
	timelineEvents(m, k, opt, func(ev *tlEvent, key tlKey) {
		te = te[:0]
		te.uint(fEventTrackUUID, uuidThread0+uint64(ev.thread))
		var aux uint64
		switch ev.kind {
		case tlBegin:
			te.uint(fEventType, typeSliceBegin)
			te.uint(fEventNameIID, eventNames.id(ev.iv.Shown().String(), &interned))
			aux = uint64(ev.iv.Stack+1)<<32 | uint64(len(te))
			as = sliceArgs(as, m, m.ThreadIDAt(ev.thread), ev.iv, tn, cs, cc)
			annotations(as)
			if f, ok := firstUse[ev.iv.Stack]; !ok || key.compare(f) < 0 {
				firstUse[ev.iv.Stack] = key
			}
		case tlEnd:
			te.uint(fEventType, typeSliceEnd)
		case tlInstant:
			te.uint(fEventType, typeInstant)
			te.uint(fEventNameIID, eventNames.id(instantName(ev), &interned))
			as = instantArgs(as, ev, tn)
			annotations(as)
			if ev.opens {
				te.fixed64(fEventFlowIDs, ev.flow)
			} else {
				te.fixed64(fEventTerminatingFlowIDs, ev.flow)
			}
		}
		sorted.add(key, aux, te)
	})

	// The stacks next, in the same packet: every stack a slice refers to.
	callstacks := make(map[model.StackID]uint64, len(firstUse))
	funcNames := strTable{field: fInternedFunctionNames}
	sourcePaths := strTable{field: fInternedSourcePaths}
	frameIDs := map[*frame]uint64{}
	stacks := slices.SortedFunc(maps.Keys(firstUse), func(a, b model.StackID) int { return firstUse[a].compare(firstUse[b]) })
	for _, st := range stacks {
		stack := fs.stack(st)
		var cs pb
		cs.uint(fCallstackIID, uint64(len(callstacks)+1))
		for i := len(stack) - 1; i >= 0; i-- {
			f := stack[i]
			id, ok := frameIDs[f]
			if !ok {
				id = uint64(len(frameIDs) + 1)
				frameIDs[f] = id
				var fr pb
				fr.uint(fFrameIID, id)
				fr.uint(fFrameFunctionName, funcNames.id(f.name, &interned))
				if f.file != "" {
					fr.uint(fFrameSourcePath, sourcePaths.id(f.file, &interned))
				}
				if f.line > 0 {
					fr.uint(fFrameLineNumber, uint64(f.line))
				}
				interned.msg(fInternedFrames, fr)
			}
			cs.uint(fCallstackFrameIDs, id)
		}
		callstacks[st] = uint64(len(callstacks) + 1)
		interned.msg(fInternedCallstacks, cs)
	}
	// The timestamps: each packet's the nanoseconds since the one before,
	// on a clock of the sequence's own (clockIncremental) that the first
	// packet defines (its defaults name it, its snapshot puts it at the
	// recording's start on the trace's clock), as Perfetto's SDK writes
	// them: a time takes 7 bytes, a delta 1.9 on average (30 s of a
	// loaded Tomcat). A time before the one before (none in time order but
	// events before the recording's start) is written whole on the
	// trace's clock.
	last := uint64(m.Start)
	stamp := func(p *pb, ts uint64) {
		if ts < last {
			p.uint(fPacketTimestamp, ts)
			p.uint(fPacketTimestampClock, clockBoottime)
			return
		}
		p.uint(fPacketTimestamp, ts-last)
		last = ts
	}
	var p, clocks, clock, defaults pb
	defaults.uint(fDefaultsTimestampClock, clockIncremental)
	clock.uint(fClockID, clockBoottime)
	clock.uint(fClockTimestamp, last)
	clocks.msg(fSnapshotClocks, clock)
	clock = clock[:0]
	clock.uint(fClockID, clockIncremental)
	clock.uint(fClockTimestamp, last)
	clock.uint(fClockIsIncremental, 1)
	clocks.msg(fSnapshotClocks, clock)
	// The interned tables go in packets of at most internedPacketBytes,
	// cut at their entries' boundaries (a string is added before what
	// names it): the first starts the sequence's state, with the
	// defaults and the clocks, the others add to it.
	for first := true; first || len(interned) > 0; first = false {
		n := 0
		for n < len(interned) {
			_, _, k := protowire.ConsumeField(interned[n:])
			if n > 0 && n+k > internedPacketBytes {
				break
			}
			n += k
		}
		p = p[:0]
		stamp(&p, last)
		p.uint(fPacketSequenceID, perfettoSequence)
		if first {
			p.uint(fPacketSequenceFlags, seqIncrementalStateCleared|seqNeedsIncrementalState)
			p.msg(fPacketDefaults, defaults)
			p.msg(fPacketClockSnapshot, clocks)
		} else {
			p.uint(fPacketSequenceFlags, seqNeedsIncrementalState)
		}
		p.msg(fPacketInternedData, interned[:n])
		packet(p)
		interned = interned[n:]
	}

	// The tracks, at the recording's start.
	jvm := uint64(pid(rec))
	var proc, td pb
	proc.uint(fProcessPID, jvm)
	proc.str(fProcessName, processName(rec)+cutSuffix(m))
	td.uint(fTrackUUID, uuidProcess)
	td.msg(fTrackProcess, proc)
	p = p[:0]
	stamp(&p, uint64(m.Start))
	p.uint(fPacketSequenceID, perfettoSequence)
	p.uint(fPacketSequenceFlags, seqNeedsIncrementalState)
	p.msg(fPacketTrackDescriptor, td)
	packet(p)
	for i, t := range m.AllThreads() {
		var th pb
		th.uint(fThreadPID, jvm)
		th.uint(fThreadTID, uint64(t.ID))
		th.str(fThreadName, t.Name)
		td = td[:0]
		td.uint(fTrackUUID, uuidThread0+uint64(i))
		td.msg(fTrackThread, th)
		p = p[:0]
		stamp(&p, uint64(m.Start))
		p.uint(fPacketSequenceID, perfettoSequence)
		p.uint(fPacketSequenceFlags, seqNeedsIncrementalState)
		p.msg(fPacketTrackDescriptor, td)
		packet(p)
	}

	// The events in time order, each slice's stack put in.
	sorted.each(func(key tlKey, aux uint64, b []byte) {
		te = te[:0]
		if aux == 0 {
			te = append(te, b...)
		} else {
			split := int(uint32(aux))
			te = append(te, b[:split]...)
			te.uint(fEventCallstackIID, callstacks[model.StackID(aux>>32-1)])
			te = append(te, b[split:]...)
		}
		p = p[:0]
		stamp(&p, uint64(key.ts))
		p.uint(fPacketSequenceID, perfettoSequence)
		p.uint(fPacketSequenceFlags, seqNeedsIncrementalState)
		p.msg(fPacketTrackEvent, te)
		packet(p)
	})
	return bw.Flush()
}
