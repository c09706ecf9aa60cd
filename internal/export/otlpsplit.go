package export

import (
	"fmt"

	collpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"
	commonpb "go.opentelemetry.io/proto/slim/otlp/common/v1"
	profpb "go.opentelemetry.io/proto/slim/otlp/profiles/v1development"
)

// SplitOTLP returns req as requests of at most max bytes each, encoded
// (AppendOTLP), with their encodings: req itself when it fits; else its
// samples, in order, cut into consecutive runs, each run a request of its
// own with the same resource, scope and profiles (a profile left out of a
// request that has none of its samples) and a dictionary of only what its
// samples and profiles name. The requests' samples together are req's, each
// once, so every sum over them (per lock, owner, thread) is req's. A
// receiver limits a request's size (the collector's otlp receiver: 20 MiB
// by default, max_request_body_size, on the body as decompressed; Grafana
// Pyroscope: 4 MiB a profile): a whole recording of a busy server is
// larger. A single sample larger than max is a request of its own, whatever
// its size. A max of 0 or less splits nothing.
func SplitOTLP(req *collpb.ExportProfilesServiceRequest, max int) (reqs []*collpb.ExportProfilesServiceRequest, raws [][]byte, err error) {
	raw, err := AppendOTLP(nil, req)
	if err != nil {
		return nil, nil, err
	}
	if len(raw) <= max || max <= 0 {
		return []*collpb.ExportProfilesServiceRequest{req}, [][]byte{raw}, nil
	}
	// The samples in request order: resource, scope, profile, sample.
	var all []sampleAt
	for ri, rp := range req.ResourceProfiles {
		for si, sp := range rp.ScopeProfiles {
			for pi, p := range sp.Profiles {
				for _, s := range p.Samples {
					all = append(all, sampleAt{ri, si, pi, s})
				}
			}
		}
	}
	// A first cut into as many even runs as the size asks, each run
	// halved again while its request is too large.
	n := min(len(all), (len(raw)+max-1)/max)
	var cut func(part []sampleAt) error
	cut = func(part []sampleAt) error {
		r := subRequest(req, part)
		b, err := AppendOTLP(nil, r)
		if err != nil {
			return err
		}
		if len(b) > max && len(part) > 1 {
			h := len(part) / 2
			if err := cut(part[:h]); err != nil {
				return err
			}
			return cut(part[h:])
		}
		reqs, raws = append(reqs, r), append(raws, b)
		return nil
	}
	for i := range n {
		if err := cut(all[i*len(all)/n : (i+1)*len(all)/n]); err != nil {
			return nil, nil, fmt.Errorf("splitting the request: %w", err)
		}
	}
	return reqs, raws, nil
}

// sampleAt is a sample and where it is in its request.
type sampleAt struct {
	res, scope, prof int
	s                *profpb.Sample
}

// subRequest is req with only the samples of part (consecutive, in
// req's order), its dictionary made anew of what they name.
func subRequest(req *collpb.ExportProfilesServiceRequest, part []sampleAt) *collpb.ExportProfilesServiceRequest {
	d := newDictMap(req.Dictionary)
	out := &collpb.ExportProfilesServiceRequest{Dictionary: d.out}
	var rp *profpb.ResourceProfiles
	var sp *profpb.ScopeProfiles
	var p *profpb.Profile
	last := sampleAt{res: -1}
	for _, at := range part {
		if at.res != last.res {
			src := req.ResourceProfiles[at.res]
			rp = &profpb.ResourceProfiles{Resource: src.Resource, SchemaUrl: src.SchemaUrl}
			out.ResourceProfiles = append(out.ResourceProfiles, rp)
			sp, p = nil, nil
		}
		if sp == nil || at.scope != last.scope {
			src := req.ResourceProfiles[at.res].ScopeProfiles[at.scope]
			sp = &profpb.ScopeProfiles{Scope: src.Scope, SchemaUrl: src.SchemaUrl}
			rp.ScopeProfiles = append(rp.ScopeProfiles, sp)
			p = nil
		}
		if p == nil || at.prof != last.prof {
			src := req.ResourceProfiles[at.res].ScopeProfiles[at.scope].Profiles[at.prof]
			p = &profpb.Profile{SampleType: d.valueType(src.SampleType), TimeUnixNano: src.TimeUnixNano,
				DurationNano: src.DurationNano, PeriodType: d.valueType(src.PeriodType), Period: src.Period,
				ProfileId: src.ProfileId, DroppedAttributesCount: src.DroppedAttributesCount,
				OriginalPayloadFormat: src.OriginalPayloadFormat, OriginalPayload: src.OriginalPayload,
				AttributeIndices: d.attrs(src.AttributeIndices)}
			sp.Profiles = append(sp.Profiles, p)
		}
		last = at
		s := &profpb.Sample{StackIndex: d.stack(at.s.StackIndex), AttributeIndices: d.attrs(at.s.AttributeIndices),
			LinkIndex: d.link(at.s.LinkIndex), Values: at.s.Values, TimestampsUnixNano: at.s.TimestampsUnixNano}
		p.Samples = append(p.Samples, s)
	}
	return out
}

// dictMap copies the entries of a dictionary another one names into a
// new one, each once, entry 0 of every table its zero value as in the
// original (OTLP's rule).
type dictMap struct {
	in, out                                      *profpb.ProfilesDictionary
	strs, attrsM, stacks, locs, fns, maps, links map[int32]int32
}

func newDictMap(in *profpb.ProfilesDictionary) *dictMap {
	out := &profpb.ProfilesDictionary{StringTable: []string{""}}
	if len(in.MappingTable) > 0 {
		out.MappingTable = []*profpb.Mapping{in.MappingTable[0]}
	}
	if len(in.LocationTable) > 0 {
		out.LocationTable = []*profpb.Location{in.LocationTable[0]}
	}
	if len(in.FunctionTable) > 0 {
		out.FunctionTable = []*profpb.Function{in.FunctionTable[0]}
	}
	if len(in.LinkTable) > 0 {
		out.LinkTable = []*profpb.Link{in.LinkTable[0]}
	}
	if len(in.AttributeTable) > 0 {
		out.AttributeTable = []*profpb.KeyValueAndUnit{in.AttributeTable[0]}
	}
	if len(in.StackTable) > 0 {
		out.StackTable = []*profpb.Stack{in.StackTable[0]}
	}
	return &dictMap{in: in, out: out, strs: map[int32]int32{}, attrsM: map[int32]int32{}, stacks: map[int32]int32{},
		locs: map[int32]int32{}, fns: map[int32]int32{}, maps: map[int32]int32{}, links: map[int32]int32{}}
}

// index returns i's entry in the new table: 0 stays 0 (the zero entry),
// another is added at its first use (add appends it and returns its
// index).
func index(m map[int32]int32, i int32, add func() int32) int32 {
	if i == 0 {
		return 0
	}
	if j, ok := m[i]; ok {
		return j
	}
	j := add()
	m[i] = j
	return j
}

func (d *dictMap) str(i int32) int32 {
	return index(d.strs, i, func() int32 {
		d.out.StringTable = append(d.out.StringTable, d.in.StringTable[i])
		return int32(len(d.out.StringTable) - 1)
	})
}

func (d *dictMap) valueType(v *profpb.ValueType) *profpb.ValueType {
	if v == nil {
		return nil
	}
	return &profpb.ValueType{TypeStrindex: d.str(v.TypeStrindex), UnitStrindex: d.str(v.UnitStrindex)}
}

func (d *dictMap) attrs(is []int32) []int32 {
	if is == nil {
		return nil
	}
	out := make([]int32, len(is))
	for k, i := range is {
		out[k] = index(d.attrsM, i, func() int32 {
			a := d.in.AttributeTable[i]
			d.out.AttributeTable = append(d.out.AttributeTable, &profpb.KeyValueAndUnit{KeyStrindex: d.str(a.KeyStrindex),
				Value: d.anyValue(a.Value), UnitStrindex: d.str(a.UnitStrindex)})
			return int32(len(d.out.AttributeTable) - 1)
		})
	}
	return out
}

// anyValue is v with a string it names by index in the string table
// (string_value_strindex) named in the new one.
func (d *dictMap) anyValue(v *commonpb.AnyValue) *commonpb.AnyValue {
	if sv, ok := v.GetValue().(*commonpb.AnyValue_StringValueStrindex); ok {
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValueStrindex{StringValueStrindex: d.str(sv.StringValueStrindex)}}
	}
	return v
}

func (d *dictMap) stack(i int32) int32 {
	return index(d.stacks, i, func() int32 {
		src := d.in.StackTable[i].LocationIndices
		li := make([]int32, len(src))
		for k, l := range src {
			li[k] = d.loc(l)
		}
		d.out.StackTable = append(d.out.StackTable, &profpb.Stack{LocationIndices: li})
		return int32(len(d.out.StackTable) - 1)
	})
}

func (d *dictMap) loc(i int32) int32 {
	return index(d.locs, i, func() int32 {
		src := d.in.LocationTable[i]
		l := &profpb.Location{MappingIndex: d.mapping(src.MappingIndex), Address: src.Address, AttributeIndices: d.attrs(src.AttributeIndices)}
		for _, ln := range src.Lines {
			l.Lines = append(l.Lines, &profpb.Line{FunctionIndex: d.fn(ln.FunctionIndex), Line: ln.Line, Column: ln.Column})
		}
		d.out.LocationTable = append(d.out.LocationTable, l)
		return int32(len(d.out.LocationTable) - 1)
	})
}

func (d *dictMap) fn(i int32) int32 {
	return index(d.fns, i, func() int32 {
		src := d.in.FunctionTable[i]
		d.out.FunctionTable = append(d.out.FunctionTable, &profpb.Function{NameStrindex: d.str(src.NameStrindex),
			SystemNameStrindex: d.str(src.SystemNameStrindex), FilenameStrindex: d.str(src.FilenameStrindex), StartLine: src.StartLine})
		return int32(len(d.out.FunctionTable) - 1)
	})
}

func (d *dictMap) mapping(i int32) int32 {
	return index(d.maps, i, func() int32 {
		src := d.in.MappingTable[i]
		d.out.MappingTable = append(d.out.MappingTable, &profpb.Mapping{MemoryStart: src.MemoryStart, MemoryLimit: src.MemoryLimit,
			FileOffset: src.FileOffset, FilenameStrindex: d.str(src.FilenameStrindex), AttributeIndices: d.attrs(src.AttributeIndices)})
		return int32(len(d.out.MappingTable) - 1)
	})
}

func (d *dictMap) link(i int32) int32 {
	return index(d.links, i, func() int32 {
		d.out.LinkTable = append(d.out.LinkTable, d.in.LinkTable[i])
		return int32(len(d.out.LinkTable) - 1)
	})
}
