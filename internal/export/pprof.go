package export

import (
	"fmt"
	"io"

	"github.com/google/pprof/profile"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// pprofKey is what tells two samples apart: one sample per stack, thread,
// object, state and owner (a contention whose owner changed is split
// between the owners, as the model splits it), and whether the state was
// still open at the end.
type pprofKey struct {
	stack  model.StackID
	thread format.ThreadID
	object format.ObjectID
	state  model.State
	other  format.ThreadID
	open   bool
}

// PProf writes a gzipped profile.proto with the sample types of Go's block
// and mutex profiles, contentions/count and delay/nanoseconds: for each
// interval of the chosen kinds, its duration is delay, and the first
// segment of each state counts one contention. Samples carry the labels
// thread, thread_id, state, lock (the object, when there is one), owner
// (a blocked thread's owner, "name (ID)") and open ("true" for a state the
// recording ended in, its time counted up to the end).
func PProf(w io.Writer, rec *reader.Recording, m *model.Model, opt Options) error {
	k := kinds(opt, Monitor)
	fs := newFrames(rec, m)
	tn := threadNames{m}
	cs := newCalls(rec, m)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "contentions", Unit: "count"},
			{Type: "delay", Unit: "nanoseconds"},
		},
		PeriodType:    &profile.ValueType{Type: "contentions", Unit: "count"},
		Period:        1,
		DurationNanos: int64(m.End - m.Start),
		Comments:      []string{"orca export " + rec.Prefix + ", kind " + k.String()},
	}
	if o, mono, ok := rec.Info.Origin(); ok {
		p.TimeNanos = o + int64(m.Start) - mono
	}
	// Every location gets the one mapping, which says the functions are
	// already known, so pprof does not look for a binary to symbolize.
	mapping := &profile.Mapping{ID: 1, File: "java", HasFunctions: true, HasFilenames: true, HasLineNumbers: true}
	p.Mapping = []*profile.Mapping{mapping}

	// Frames of one method share their function: pprof aggregates by
	// function and lists the lines within it.
	type funcKey struct{ name, sig, file string }
	funcs := map[funcKey]*profile.Function{}
	// One location per line of a function: bytecode indexes mean nothing
	// to pprof's users.
	type locKey struct {
		fn   funcKey
		line int
	}
	locs := map[locKey]*profile.Location{}
	location := func(f *frame) *profile.Location {
		fk := funcKey{f.name, f.sig, f.file}
		lk := locKey{fk, f.line}
		if l := locs[lk]; l != nil {
			return l
		}
		fn := funcs[fk]
		if fn == nil {
			fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: f.name, Filename: f.file}
			// A SystemName that differs from Name tells pprof the name is
			// demangled already: its C++ heuristics would strip the <…>
			// of "<unknown method 0000002A>".
			if f.sig != "" {
				fn.SystemName = f.name + f.sig
			}
			p.Function = append(p.Function, fn)
			funcs[fk] = fn
		}
		if f.line > 0 && (fn.StartLine == 0 || int64(f.line) < fn.StartLine) {
			fn.StartLine = int64(f.line)
		}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: mapping,
			Line: []profile.Line{{Function: fn, Line: int64(f.line)}}}
		p.Location = append(p.Location, l)
		locs[lk] = l
		return l
	}

	samples := map[pprofKey]*profile.Sample{}
	for _, t := range m.Threads {
		for _, iv := range t.Intervals {
			if !k.Has(iv.Shown()) {
				continue
			}
			key := pprofKey{iv.Stack, t.ID, iv.Object, iv.Shown(), 0, iv.Open}
			switch {
			case iv.Acquire:
				// A java.util.concurrent lock: its owner when the thread parked.
				key.other = iv.First
			case iv.State == model.Blocked:
				// The owner whose release let the thread in: one sample
				// per contention at most, where a sample per owner it
				// waited behind would grow as contentions × waiters.
				key.other = iv.Other
			}
			s := samples[key]
			if s == nil {
				s = &profile.Sample{Value: []int64{0, 0}, Label: map[string][]string{
					"thread":    {t.Name},
					"thread_id": {t.ID.String()},
					"state":     {iv.Shown().String()},
				}}
				if iv.Object != 0 {
					s.Label["lock"] = []string{iv.Object.String()}
					if c := m.Class(iv.Object); c != "" {
						s.Label["class"] = []string{format.JavaName(c)}
					}
				}
				if c := cs.call(iv.Stack); c != "" {
					s.Label["call"] = []string{c}
				}
				if key.other != 0 {
					s.Label["owner"] = []string{tn.full(key.other)}
				}
				if iv.Open {
					s.Label["open"] = []string{"true"}
				}
				for _, f := range fs.stack(iv.Stack) {
					s.Location = append(s.Location, location(f))
				}
				samples[key] = s
				p.Sample = append(p.Sample, s)
			}
			if first(iv) {
				s.Value[0]++
			}
			s.Value[1] += int64(iv.Duration())
		}
	}
	if note := cutNote(m); note != "" {
		p.Comments = append(p.Comments, note)
	}
	if err := p.CheckValid(); err != nil {
		return fmt.Errorf("building the pprof profile: %w", err)
	}
	return p.Write(w)
}
