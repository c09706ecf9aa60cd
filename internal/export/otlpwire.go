package export

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"slices"
	"unicode/utf8"

	collpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"
	commonpb "go.opentelemetry.io/proto/slim/otlp/common/v1"
	profpb "go.opentelemetry.io/proto/slim/otlp/profiles/v1development"
	respb "go.opentelemetry.io/proto/slim/otlp/resource/v1"
)

// AppendOTLP appends the protobuf encoding of req to buf: the bytes
// proto.Marshal writes, byte for byte (every field in the order of its
// number, a scalar left out when zero, a oneof's member written when set,
// repeated scalars packed), in one pass over the messages and without
// the generated code's size pass. A push's request is ~25 000 samples of
// ~200 000 values: the generated marshalling sized each message before
// writing it, through the protobuf runtime's tables, 11 % of a push
// (docs/perf/2026-11-30-issue-35-push-fold.md). A nested message's
// length is written as one byte before it and, when the message turns
// out longer than 127 bytes, the message is moved up by the length's
// other bytes (most messages of a request are samples, locations and
// attributes of a few bytes). TestAppendOTLPSameBytes compares it with
// proto.Marshal on every model case's requests and on messages with
// every field set. Like proto.Marshal, a string that is not valid UTF-8
// is an error.
//
// It knows the messages of OTLP profiles v1development (profiles
// v0.4.1, common and resource v1.11.1); a field added by a newer
// version of these modules must be added here (the test's every-field
// message fails until it is).
func AppendOTLP(buf []byte, req *collpb.ExportProfilesServiceRequest) ([]byte, error) {
	return appendOTLP(buf, req, nil)
}

// appendOTLP is AppendOTLP; set, when not nil, changes the hinted sizes of
// the large messages (wire.hints), for the tests: the bytes are the same
// whatever they are.
func appendOTLP(buf []byte, req *collpb.ExportProfilesServiceRequest, set func(hint []int)) ([]byte, error) {
	e := wire{}
	n := e.hints(req)
	if set != nil {
		set(e.hint)
	}
	if cap(buf)-len(buf) < n {
		// Grown once to about the request's size, not by doubling from
		// what buf had (the generated code sized it exactly: grown by
		// doubling, a series' first pushes allocated 7 % more and
		// collected a third more often).
		buf = slices.Grow(buf, n)
	}
	e.b = buf
	for _, rp := range req.ResourceProfiles {
		m, k := e.openSized(1)
		e.resourceProfiles(rp)
		e.closeSized(m, k)
	}
	if d := req.Dictionary; d != nil {
		m, k := e.openSized(2)
		e.dictionary(d)
		e.closeSized(m, k)
	}
	if e.bad {
		return buf, errInvalidUTF8
	}
	return e.b, nil
}

// sizeHint is about the size of req's encoding, a little over it for a
// push's (wire.hints).
func sizeHint(req *collpb.ExportProfilesServiceRequest) int {
	var e wire
	return e.hints(req)
}

// hints returns about the size of req's encoding, a little over it for a
// push's: 6 bytes a value (a delay in ns is 4-5), 8 a timestamp, 2 an
// attribute's index, the dictionary's entries by their kind; one pass
// over the samples' headers, not their values. It keeps that of each of
// the large messages (a resource's profiles, a scope's, a profile, the
// dictionary) in e.hint, in the order openSized opens them, so that the
// bytes of a message's length are reserved before it is written: a
// message written after a length of one byte was moved up by the
// length's other bytes at its end, and a profile's bytes were moved three
// times (at its own end, its scope's, its resource's).
func (e *wire) hints(req *collpb.ExportProfilesServiceRequest) int {
	e.hint, e.next = e.hint[:0], 0
	n := 64
	for _, rp := range req.ResourceProfiles {
		r := len(e.hint)
		e.hint = append(e.hint, 0)
		rn := 512
		if rp != nil {
			for _, sp := range rp.ScopeProfiles {
				s := len(e.hint)
				e.hint = append(e.hint, 0)
				sn := 64
				if sp != nil {
					for _, p := range sp.Profiles {
						pn := 64
						if p != nil {
							for _, s := range p.Samples {
								if s != nil {
									pn += 12 + 6*len(s.Values) + 8*len(s.TimestampsUnixNano) + 2*len(s.AttributeIndices)
								}
							}
						}
						e.hint = append(e.hint, pn)
						sn += pn
					}
				}
				e.hint[s] = sn
				rn += sn
			}
		}
		e.hint[r] = rn
		n += rn
	}
	if d := req.Dictionary; d != nil {
		dn := 12*len(d.LocationTable) + 14*len(d.FunctionTable) + 16*len(d.AttributeTable) + 8*len(d.StackTable)
		for _, s := range d.StringTable {
			dn += 3 + len(s)
		}
		for _, st := range d.StackTable {
			if st != nil {
				dn += 2 * len(st.LocationIndices)
			}
		}
		e.hint = append(e.hint, dn)
		n += dn
	}
	return n
}

var errInvalidUTF8 = errors.New("otlp: string field contains invalid UTF-8")

// wire is AppendOTLP's encoder: b the bytes so far.
type wire struct {
	b   []byte
	bad bool // a string was not valid UTF-8
	// hint: about the sizes of the large messages, in the order
	// openSized opens them (hints); next: the next one's.
	hint []int
	next int
}

// Wire types.
const (
	wVarint  = 0
	wFixed64 = 1
	wBytes   = 2
)

func (e *wire) tag(num, typ int) { e.varint(uint64(num)<<3 | uint64(typ)) }

func (e *wire) varint(v uint64) {
	if v < 0x80 {
		e.b = append(e.b, byte(v))
		return
	}
	e.b = appendVarint(e.b, v)
}

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// grow makes room for n more bytes.
func (e *wire) grow(n int) {
	if cap(e.b)-len(e.b) < n {
		e.b = slices.Grow(e.b, n)
	}
}

// putVarints writes v's varints into room grown for them (a value's
// varint is ten bytes at most).
func (e *wire) putVarints(v []int64) {
	e.grow(10 * len(v))
	b := e.b
	n := len(b)
	b = b[:cap(b)]
	for _, x := range v {
		u := uint64(x)
		for u >= 0x80 {
			b[n] = byte(u) | 0x80
			u >>= 7
			n++
		}
		b[n] = byte(u)
		n++
	}
	e.b = b[:n]
}

// open starts a message (or packed list) of field num: its length is
// written by close.
func (e *wire) open(num int) int {
	e.tag(num, wBytes)
	e.b = append(e.b, 0)
	return len(e.b)
}

// close writes the length of the message open returned start of,
// moving it up when the length takes more than one byte.
func (e *wire) close(start int) {
	n := len(e.b) - start
	if n < 0x80 {
		e.b[start-1] = byte(n)
		return
	}
	k := varintLen(uint64(n))
	e.b = append(e.b, zeros[:k-1]...)
	copy(e.b[start+k-1:], e.b[start:start+n])
	putVarintAt(e.b, start-1, uint64(n))
}

// putVarintAt writes v as a varint into b from p, over the bytes
// reserved for it.
func putVarintAt(b []byte, p int, v uint64) {
	for v >= 0x80 {
		b[p] = byte(v) | 0x80
		v >>= 7
		p++
	}
	b[p] = byte(v)
}

// openSized is open of a large message (wire.hints): as many bytes as
// its hinted size's length takes are reserved for its length (k).
func (e *wire) openSized(num int) (start, k int) {
	e.tag(num, wBytes)
	k = 1
	if e.next < len(e.hint) {
		k = varintLen(uint64(e.hint[e.next]))
		e.next++
	}
	e.b = append(e.b, zeros[:k]...)
	return len(e.b), k
}

// closeSized is close of a message openSized opened, with k bytes for its
// length: the message is moved only when its length takes another number
// of bytes, up or down.
func (e *wire) closeSized(start, k int) {
	n := len(e.b) - start
	need := varintLen(uint64(n))
	switch {
	case need > k:
		e.b = append(e.b, zeros[:need-k]...)
		copy(e.b[start+need-k:], e.b[start:start+n])
	case need < k:
		copy(e.b[start-k+need:], e.b[start:start+n])
		e.b = e.b[:start-k+need+n]
	}
	putVarintAt(e.b, start-k, uint64(n))
}

var zeros [10]byte

func varintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

func (e *wire) uvarintField(num int, v uint64) {
	if v != 0 {
		e.tag(num, wVarint)
		e.varint(v)
	}
}

// int32 and int64 fields: a negative int32 is sign-extended to ten
// bytes, as protobuf's.
func (e *wire) int32Field(num int, v int32) { e.uvarintField(num, uint64(int64(v))) }
func (e *wire) int64Field(num int, v int64) { e.uvarintField(num, uint64(v)) }

func (e *wire) fixed64Field(num int, v uint64) {
	if v != 0 {
		e.tag(num, wFixed64)
		e.b = binary.LittleEndian.AppendUint64(e.b, v)
	}
}

func (e *wire) stringField(num int, s string) {
	if s != "" {
		e.str(num, s)
	}
}

// str writes s whatever it is (a repeated string's empty ones too).
func (e *wire) str(num int, s string) {
	if !e.bad && !utf8.ValidString(s) {
		e.bad = true
	}
	e.tag(num, wBytes)
	e.varint(uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *wire) bytesField(num int, s []byte) {
	if len(s) != 0 {
		e.tag(num, wBytes)
		e.varint(uint64(len(s)))
		e.b = append(e.b, s...)
	}
}

func (e *wire) packedInt32(num int, v []int32) {
	if len(v) == 0 {
		return
	}
	m := e.open(num)
	for _, x := range v {
		e.varint(uint64(int64(x)))
	}
	e.close(m)
}

func (e *wire) packedInt64(num int, v []int64) {
	if len(v) == 0 {
		return
	}
	m := e.open(num)
	e.putVarints(v)
	e.close(m)
}

func (e *wire) packedFixed64(num int, v []uint64) {
	if len(v) == 0 {
		return
	}
	e.tag(num, wBytes)
	e.varint(uint64(8 * len(v)))
	e.grow(8 * len(v))
	n := len(e.b)
	b := e.b[:n+8*len(v)]
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[n+8*i:], x)
	}
	e.b = b
}

func (e *wire) resourceProfiles(rp *profpb.ResourceProfiles) {
	if rp == nil {
		return
	}
	if rp.Resource != nil {
		m := e.open(1)
		e.resource(rp.Resource)
		e.close(m)
	}
	for _, sp := range rp.ScopeProfiles {
		m, k := e.openSized(2)
		e.scopeProfiles(sp)
		e.closeSized(m, k)
	}
	e.stringField(3, rp.SchemaUrl)
}

func (e *wire) resource(r *respb.Resource) {
	for _, kv := range r.Attributes {
		m := e.open(1)
		e.keyValue(kv)
		e.close(m)
	}
	e.uvarintField(2, uint64(r.DroppedAttributesCount))
	for _, er := range r.EntityRefs {
		m := e.open(3)
		if er != nil {
			e.stringField(1, er.SchemaUrl)
			e.stringField(2, er.Type)
			for _, s := range er.IdKeys {
				e.str(3, s)
			}
			for _, s := range er.DescriptionKeys {
				e.str(4, s)
			}
		}
		e.close(m)
	}
}

func (e *wire) keyValue(kv *commonpb.KeyValue) {
	if kv == nil {
		return
	}
	e.stringField(1, kv.Key)
	if kv.Value != nil {
		m := e.open(2)
		e.anyValue(kv.Value)
		e.close(m)
	}
	e.int32Field(3, kv.KeyStrindex)
}

func (e *wire) anyValue(v *commonpb.AnyValue) {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		e.str(1, x.StringValue)
	case *commonpb.AnyValue_BoolValue:
		e.tag(2, wVarint)
		if x.BoolValue {
			e.b = append(e.b, 1)
		} else {
			e.b = append(e.b, 0)
		}
	case *commonpb.AnyValue_IntValue:
		e.tag(3, wVarint)
		e.varint(uint64(x.IntValue))
	case *commonpb.AnyValue_DoubleValue:
		e.tag(4, wFixed64)
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x.DoubleValue))
	case *commonpb.AnyValue_ArrayValue:
		m := e.open(5)
		if x.ArrayValue != nil {
			for _, a := range x.ArrayValue.Values {
				n := e.open(1)
				if a != nil {
					e.anyValue(a)
				}
				e.close(n)
			}
		}
		e.close(m)
	case *commonpb.AnyValue_KvlistValue:
		m := e.open(6)
		if x.KvlistValue != nil {
			for _, kv := range x.KvlistValue.Values {
				n := e.open(1)
				e.keyValue(kv)
				e.close(n)
			}
		}
		e.close(m)
	case *commonpb.AnyValue_BytesValue:
		e.tag(7, wBytes)
		e.varint(uint64(len(x.BytesValue)))
		e.b = append(e.b, x.BytesValue...)
	case *commonpb.AnyValue_StringValueStrindex:
		e.tag(8, wVarint)
		e.varint(uint64(int64(x.StringValueStrindex)))
	}
}

func (e *wire) scopeProfiles(sp *profpb.ScopeProfiles) {
	if sp == nil {
		return
	}
	if s := sp.Scope; s != nil {
		m := e.open(1)
		e.stringField(1, s.Name)
		e.stringField(2, s.Version)
		for _, kv := range s.Attributes {
			n := e.open(3)
			e.keyValue(kv)
			e.close(n)
		}
		e.uvarintField(4, uint64(s.DroppedAttributesCount))
		e.close(m)
	}
	for _, p := range sp.Profiles {
		m, k := e.openSized(2)
		e.profile(p)
		e.closeSized(m, k)
	}
	e.stringField(3, sp.SchemaUrl)
}

func (e *wire) valueType(num int, v *profpb.ValueType) {
	if v == nil {
		return
	}
	m := e.open(num)
	e.int32Field(1, v.TypeStrindex)
	e.int32Field(2, v.UnitStrindex)
	e.close(m)
}

func (e *wire) profile(p *profpb.Profile) {
	if p == nil {
		return
	}
	e.valueType(1, p.SampleType)
	for _, s := range p.Samples {
		m := e.open(2)
		if s != nil {
			e.int32Field(1, s.StackIndex)
			e.packedInt32(2, s.AttributeIndices)
			e.int32Field(3, s.LinkIndex)
			e.packedInt64(4, s.Values)
			e.packedFixed64(5, s.TimestampsUnixNano)
		}
		e.close(m)
	}
	e.fixed64Field(3, p.TimeUnixNano)
	e.uvarintField(4, p.DurationNano)
	e.valueType(5, p.PeriodType)
	e.int64Field(6, p.Period)
	e.bytesField(7, p.ProfileId)
	e.uvarintField(8, uint64(p.DroppedAttributesCount))
	e.stringField(9, p.OriginalPayloadFormat)
	e.bytesField(10, p.OriginalPayload)
	e.packedInt32(11, p.AttributeIndices)
}

func (e *wire) dictionary(d *profpb.ProfilesDictionary) {
	for _, mp := range d.MappingTable {
		m := e.open(1)
		if mp != nil {
			e.uvarintField(1, mp.MemoryStart)
			e.uvarintField(2, mp.MemoryLimit)
			e.uvarintField(3, mp.FileOffset)
			e.int32Field(4, mp.FilenameStrindex)
			e.packedInt32(5, mp.AttributeIndices)
		}
		e.close(m)
	}
	for _, l := range d.LocationTable {
		m := e.open(2)
		if l != nil {
			e.int32Field(1, l.MappingIndex)
			e.uvarintField(2, l.Address)
			for _, ln := range l.Lines {
				n := e.open(3)
				if ln != nil {
					e.int32Field(1, ln.FunctionIndex)
					e.int64Field(2, ln.Line)
					e.int64Field(3, ln.Column)
				}
				e.close(n)
			}
			e.packedInt32(4, l.AttributeIndices)
		}
		e.close(m)
	}
	for _, f := range d.FunctionTable {
		m := e.open(3)
		if f != nil {
			e.int32Field(1, f.NameStrindex)
			e.int32Field(2, f.SystemNameStrindex)
			e.int32Field(3, f.FilenameStrindex)
			e.int64Field(4, f.StartLine)
		}
		e.close(m)
	}
	for _, l := range d.LinkTable {
		m := e.open(4)
		if l != nil {
			e.bytesField(1, l.TraceId)
			e.bytesField(2, l.SpanId)
		}
		e.close(m)
	}
	for _, s := range d.StringTable {
		e.str(5, s)
	}
	for _, a := range d.AttributeTable {
		m := e.open(6)
		if a != nil {
			e.int32Field(1, a.KeyStrindex)
			if a.Value != nil {
				n := e.open(2)
				e.anyValue(a.Value)
				e.close(n)
			}
			e.int32Field(3, a.UnitStrindex)
		}
		e.close(m)
	}
	for _, s := range d.StackTable {
		m := e.open(7)
		if s != nil {
			e.packedInt32(1, s.LocationIndices)
		}
		e.close(m)
	}
}
