package export

import (
	"io"

	"github.com/google/pprof/profile"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// pprofKey is what tells two samples apart, with the owner: one sample per
// stack, thread, object, state, whether the state was still open at the
// end, and owner (a contention whose owner changed is split between the
// owners, Model.BlameSpans, as the report's blame splits it).
type pprofKey struct {
	stack  model.StackID
	thread format.ThreadID
	object format.ObjectID
	state  model.State
	open   bool
}

// pprofBase is what the samples of one pprofKey share, the owner aside:
// a contention in a convoy waits behind hundreds of owners, so the owner
// is looked up in its base's own short list. Its labels are made as its
// first sample is written, not kept (labelsOf): a base each object a
// thread parked on once (a server's hour of requests: millions) was a map
// of labels, ~1 kB, until the thread's end.
type pprofBase struct {
	t      *model.Thread
	iv     model.Interval // its first interval: the labels' state, object and other thread
	open   bool
	locs   []*profile.Location
	owners []*pprofSample
	head   []byte // pprofStream.sampleHead's, once a sample is written
}

// pprofSample is one sample of the blocking profile until it is written.
type pprofSample struct {
	b     *pprofBase
	owner format.ThreadID // the owner it is blamed on, 0 for none
	value [2]int64
}

// maxOwners bounds the owners one thread's time at one stack and lock is
// split between; the owners past them are one sample, otherOwners.
const maxOwners = 16

// otherOwners keys, and otherOwnersLabel labels, the sample of the owners
// past maxOwners (no thread has this id: identity hashes are 32 bits).
const (
	otherOwners      = format.ThreadID(1<<64 - 1)
	otherOwnersLabel = "(other owners of a convoy)"
)

// PProf writes a gzipped profile.proto with the sample types of Go's block
// and mutex profiles, contentions/count and delay/nanoseconds: for each
// interval of the chosen kinds, its duration is delay, and the first
// segment of each state counts one contention. Samples carry the labels
// thread, thread_id, state, lock (the object, when there is one), class
// (Model.ClassName), owner (for a blocked thread, the owner it waited
// behind during the sample's time, "name (ID)") and open ("true" for a state the
// recording ended in, its time counted up to the end).
//
// With opt.Profile cpu or wall it writes the threads' samples instead
// (PProfSamples).
func PProf(w io.Writer, rec *reader.Recording, m *model.Model, opt Options) error {
	if opt.Profile != ProfileStates {
		return PProfSamples(w, rec, m, opt.Profile)
	}
	kind := kinds(opt, Monitor)
	fs := newFrames(rec, m)
	tn := newThreadNames(m)
	cs := newCalls(rec, m)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "contentions", Unit: "count"},
			{Type: "delay", Unit: "nanoseconds"},
		},
		PeriodType:    &profile.ValueType{Type: "contentions", Unit: "count"},
		Period:        1,
		DurationNanos: int64(m.End - m.Start),
		Comments:      []string{"orca export " + rec.Prefix + ", kind " + kind.String()},
	}
	if o, mono, ok := rec.Info.Origin(); ok {
		p.TimeNanos = o + int64(m.Start) - mono
	}
	tab := newPProfTables(p)
	location := tab.location

	// A sample per base (stack, thread, object, state, open) and owner
	// (pprofBase); a stack's locations are looked up once.
	bases := map[pprofKey]*pprofBase{}
	var pending []*pprofSample // the thread's, in the order made
	stackLocs := map[model.StackID][]*profile.Location{}
	baseOf := func(t *model.Thread, iv *model.Interval, open bool) *pprofBase {
		key := pprofKey{iv.Stack, t.ID, iv.Object, iv.Shown(), open}
		if b := bases[key]; b != nil {
			return b
		}
		b := &pprofBase{t: t, iv: *iv, open: open}
		locs, ok := stackLocs[iv.Stack]
		if !ok {
			for _, f := range fs.stack(iv.Stack) {
				locs = append(locs, location(f))
			}
			stackLocs[iv.Stack] = locs
		}
		b.locs = locs
		bases[key] = b
		return b
	}
	// labelsOf makes the labels of b's samples.
	labelsOf := func(b *pprofBase) map[string][]string {
		t, iv := b.t, &b.iv
		labels := map[string][]string{
			"thread":       {t.Name},
			"thread_id":    {t.ID.String()},
			"state":        {iv.Shown().String()},
			AttrThreadName: {t.Name},
			AttrThreadID:   {t.ID.String()},
		}
		if iv.Object != 0 {
			labels["lock"] = []string{iv.Object.String()}
			labels[AttrLockID] = []string{iv.Object.String()}
			if c := m.ClassName(iv.Object); c != "" {
				labels["class"] = []string{c}
				labels[AttrLockClass] = []string{c}
				if c == "java.lang.Class" {
					if co := reader.ClassObject(rec.Classes, iv.Object, m.Class(iv.Object)); co != "" {
						labels[AttrLockClassObject] = []string{format.JavaName(co)}
					}
				}
			}
		}
		if lk := ivLockKind(iv); lk != "" {
			labels[AttrLockKind] = []string{lk}
		}
		if c := cs.call(iv.Stack); c != "" {
			labels["call"] = []string{c}
		}
		if b.open {
			labels["open"] = []string{"true"}
			labels[AttrStateOpen] = []string{"true"}
		}
		if a := otherAttr(iv.State); a != "" && iv.Other != 0 && iv.Shown() != model.Blocked {
			labels[a] = []string{tn.name(iv.Other)}
		}
		return labels
	}
	// ownerLabels makes the labels of a sample of b's blamed on owner
	// (nil for none).
	ownerLabels := func(b *pprofBase, owner format.ThreadID) map[string][]string {
		switch owner {
		case 0:
			return nil
		case otherOwners:
			return map[string][]string{"owner": {otherOwnersLabel}, AttrLockOwnerName: {otherOwnersLabel}}
		}
		l := map[string][]string{"owner": {tn.full(owner)}, AttrLockOwnerID: {owner.String()}}
		if n := tn.name(owner); n != "" {
			l[AttrLockOwnerName] = []string{n}
		}
		// A park in a java.util.concurrent lock's acquire: the threads
		// that ended holding that lock (Model.LeftLockedOf).
		if b.iv.Object != 0 && b.iv.Acquire && leftLockedBy(m.LeftLockedOf(b.iv.Object), owner) {
			l[AttrLockOwnerLeftLocked] = []string{"true"}
		}
		return l
	}
	find := func(b *pprofBase, owner format.ThreadID) *pprofSample {
		for _, s := range b.owners {
			if s.owner == owner {
				return s
			}
		}
		return nil
	}
	sample := func(b *pprofBase, owner format.ThreadID) *pprofSample {
		if s := find(b, owner); s != nil {
			return s
		}
		if len(b.owners) >= maxOwners {
			// A convoy: this thread waited here behind more owners than
			// a profile can split its time between (threads × owners
			// samples: 1 000 threads queued on one monitor made a
			// million, 1.7 GB). The rest goes to one sample.
			owner = otherOwners
			if s := find(b, owner); s != nil {
				return s
			}
		}
		s := &pprofSample{b: b, owner: owner}
		b.owners = append(b.owners, s)
		pending = append(pending, s)
		return s
	}
	// A thread's samples are final once its intervals are read (the
	// bases are by thread): written then, and let go (pprofStream).
	ps := newPProfStream(w)
	write := func() {
		for _, s := range pending {
			b := s.b
			if b.head == nil {
				b.head = ps.sampleHead(nil, b.locs, labelsOf(b))
			}
			ps.sample(b.head, s.value[:], ownerLabels(b, s.owner))
		}
		pending = pending[:0]
	}
	var win model.IntervalWindow
	var c contention
	for _, t := range m.AllThreads() {
		write()
		clear(bases)
		eachPiece(m, t, &win, func(ivs []model.Interval, last bool) (keep int) {
			for k := 0; k < len(ivs); k++ {
				iv := &ivs[k]
				if !kind.Has(iv.Shown()) {
					continue
				}
				if iv.Shown() != model.Blocked {
					s := sample(baseOf(t, iv, iv.Open), 0)
					if first(*iv) {
						s.value[0]++
					}
					s.value[1] += int64(iv.Duration())
					continue
				}
				// A contention's time goes to the owners it waited behind,
				// each for its stretch (Model.BlameSpans, the report's
				// blame), so -tagfocus=owner=X sums to X's blame; the
				// contention counts once, on the owner whose release let the
				// thread in (the last), as the report and orca push count
				// it: a java.util.concurrent acquire parked more than once
				// is one contention, its re-park gaps included
				// (contentionAt).
				j, ok := contentionAt(m, t, ivs, k, &c)
				if !ok {
					continue
				}
				if goesOn(ivs, k, j, last) {
					return len(ivs) - k
				}
				k = j
				b := baseOf(t, iv, c.open)
				var s *pprofSample
				for _, sp := range c.spans {
					s = sample(b, sp.Owner)
					s.value[1] += int64(sp.End - sp.Start)
				}
				if iv.Acquire && c.count != 0 {
					s = sample(b, c.count)
				}
				if s != nil && first(*iv) {
					s.value[0]++
				}
			}
			return 0
		})
	}
	write()
	if note := cutNote(m); note != "" {
		p.Comments = append(p.Comments, note)
	}
	return ps.finish(p)
}

// PProfSamples writes a gzipped profile.proto of the threads' samples
// (issue 33) with the sample types of Go's CPU profile: samples/count and
// cpu/nanoseconds (ProfileWall: wall/nanoseconds), the period the
// sampling interval (.info sample_cpu_ns). Each sample is one stack of
// one thread and kind, as the model sums them (Thread.SamplesByStack), with
// the labels thread, thread_id and sampled (cpu or wall).
func PProfSamples(w io.Writer, rec *reader.Recording, m *model.Model, prof Profile) error {
	unit := "cpu"
	if prof == ProfileWall {
		unit = "wall"
	}
	period, _ := rec.Info.Int(format.InfoSampleCPU)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "samples", Unit: "count"},
			{Type: unit, Unit: "nanoseconds"},
		},
		PeriodType:    &profile.ValueType{Type: unit, Unit: "nanoseconds"},
		Period:        period,
		DurationNanos: int64(m.End - m.Start),
		Comments:      []string{"orca export " + rec.Prefix + ", profile " + prof.String()},
	}
	if o, mono, ok := rec.Info.Origin(); ok {
		p.TimeNanos = o + int64(m.Start) - mono
	}
	tab := newPProfTables(p)
	fs := newFrames(rec, m)
	ps := newPProfStream(w)
	var locs []*profile.Location
	var buf []model.Sample
	for _, t := range m.AllThreads() {
		// A Model built with Options.DropIntervals keeps them in its spill.
		h := *t
		if h.Samples = m.SamplesOf(t, &buf); len(h.Samples) == 0 {
			continue
		}
		for _, k := range prof.sampleKinds() {
			for _, ss := range h.SamplesByStack(k) {
				locs = locs[:0]
				for _, f := range fs.stack(ss.Stack) {
					locs = append(locs, tab.location(f))
				}
				ps.sample(ps.sampleHead(nil, locs, map[string][]string{
					"thread": {t.Name}, "thread_id": {t.ID.String()}, "sampled": {k.String()},
				}), []int64{int64(ss.Samples), int64(ss.Weight)}, nil)
			}
		}
	}
	if note := cutNote(m); note != "" {
		p.Comments = append(p.Comments, note)
	}
	return ps.finish(p)
}

// pprofTables hold a profile's mapping, functions and locations, shared by
// its samples: the blocking profiles and the sample profiles name frames
// alike.
type pprofTables struct {
	p       *profile.Profile
	mapping *profile.Mapping
	funcs   map[pprofFunc]*profile.Function
	locs    map[pprofLoc]*profile.Location
}

// Frames of one method share their function: pprof aggregates by function
// and lists the lines within it. One location per line of a function:
// bytecode indexes mean nothing to pprof's users.
type pprofFunc struct{ name, sig, file string }

type pprofLoc struct {
	fn   pprofFunc
	line int
}

func newPProfTables(p *profile.Profile) *pprofTables {
	// Every location gets the one mapping, which says the functions are
	// already known, so pprof does not look for a binary to symbolize.
	mapping := &profile.Mapping{ID: 1, File: "java", HasFunctions: true, HasFilenames: true, HasLineNumbers: true}
	p.Mapping = []*profile.Mapping{mapping}
	return &pprofTables{p: p, mapping: mapping, funcs: map[pprofFunc]*profile.Function{}, locs: map[pprofLoc]*profile.Location{}}
}

// location returns the location of f's line, adding it and its function
// at first sight.
func (tab *pprofTables) location(f *frame) *profile.Location {
	p := tab.p
	fk := pprofFunc{f.name, f.sig, f.file}
	lk := pprofLoc{fk, f.line}
	if l := tab.locs[lk]; l != nil {
		return l
	}
	fn := tab.funcs[fk]
	if fn == nil {
		fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: f.name, Filename: f.file}
		// A SystemName that differs from Name tells pprof the name is
		// demangled already: its C++ heuristics would strip the <…>
		// of "<unknown method 0000002A>".
		if f.sig != "" {
			fn.SystemName = f.name + f.sig
		}
		p.Function = append(p.Function, fn)
		tab.funcs[fk] = fn
	}
	if f.line > 0 && (fn.StartLine == 0 || int64(f.line) < fn.StartLine) {
		fn.StartLine = int64(f.line)
	}
	l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: tab.mapping,
		Line: []profile.Line{{Function: fn, Line: int64(f.line)}}}
	p.Location = append(p.Location, l)
	tab.locs[lk] = l
	return l
}
