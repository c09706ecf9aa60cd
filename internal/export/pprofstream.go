package export

import (
	"io"
	"slices"

	"github.com/google/pprof/profile"
	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"
)

// pprofStream writes a gzipped profile.proto as it goes: each sample as
// soon as it is final (a thread's, once its intervals are read), the
// profile's other fields and its string table at the end. Protobuf lets a
// message's fields come in any order, and a repeated field's entries add
// up wherever they are, so every reader of profile.proto (google/pprof's
// Parse, go tool pprof, the protobuf runtimes) reads it as if the samples
// came second. Its memory is the tables (strings, functions, locations),
// not the samples: github.com/google/pprof's Profile holds every sample,
// each with its own map of labels (~800 bytes), until Write, and a 128 MB
// recording's 1.9 M contended states made 12 GB of them. The fields are
// google/pprof's, zero values left out. gzip is klauspost/compress's (as
// orca push's), at its default level: a third of the standard library's
// time for this file.
type pprofStream struct {
	zw   *gzip.Writer
	buf  []byte
	strs strTab
	msg  []byte // a sample's room
	err  error
}

func newPProfStream(w io.Writer) *pprofStream {
	s := &pprofStream{zw: gzip.NewWriter(w)}
	s.str("") // index 0, as the format requires
	return s
}

// str returns v's index in the string table, adding it at first sight.
func (s *pprofStream) str(v string) int64 { return s.strs.index(v) }

// The fields of profile.proto (github.com/google/pprof/proto/profile.proto).
const (
	ppSampleType = 1
	ppSample     = 2
	ppMapping    = 3
	ppLocation   = 4
	ppFunction   = 5
	ppStrings    = 6
	ppTime       = 9
	ppDuration   = 10
	ppPeriodType = 11
	ppPeriod     = 12
	ppComment    = 13
)

// sampleHead encodes what samples share: the locations' IDs and labels
// (keys in sorted order), to give sample as head.
func (s *pprofStream) sampleHead(dst []byte, locs []*profile.Location, labels map[string][]string) []byte {
	if len(locs) > 0 {
		var ids []byte
		for _, l := range locs {
			ids = protowire.AppendVarint(ids, l.ID)
		}
		dst = protowire.AppendTag(dst, 1, protowire.BytesType)
		dst = protowire.AppendBytes(dst, ids)
	}
	return s.labels(dst, labels)
}

// labels encodes a sample's labels, keys in sorted order.
func (s *pprofStream) labels(dst []byte, labels map[string][]string) []byte {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range labels[k] {
			var l [24]byte
			b := appendInt(appendInt(l[:0], 1, s.str(k)), 2, s.str(v))
			dst = protowire.AppendTag(dst, 3, protowire.BytesType)
			dst = protowire.AppendBytes(dst, b)
		}
	}
	return dst
}

// sample writes one sample: head (sampleHead's), its values and more
// labels (nil for none).
func (s *pprofStream) sample(head []byte, values []int64, more map[string][]string) {
	m := append(s.msg[:0], head...)
	if len(values) > 0 {
		var vs [40]byte
		b := vs[:0]
		for _, v := range values {
			b = protowire.AppendVarint(b, uint64(v))
		}
		m = protowire.AppendTag(m, 2, protowire.BytesType)
		m = protowire.AppendBytes(m, b)
	}
	m = s.labels(m, more)
	s.msg = m
	s.message(ppSample, m)
}

// message writes field num of the profile, a message m.
func (s *pprofStream) message(num protowire.Number, m []byte) {
	s.buf = protowire.AppendTag(s.buf, num, protowire.BytesType)
	s.buf = protowire.AppendBytes(s.buf, m)
	if len(s.buf) >= 64<<10 {
		s.flush()
	}
}

func (s *pprofStream) flush() {
	if s.err == nil && len(s.buf) > 0 {
		_, s.err = s.zw.Write(s.buf)
	}
	s.buf = s.buf[:0]
}

// appendInt appends field num, v, unless v is 0 (proto3's default).
func appendInt(b []byte, num protowire.Number, v int64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return appendInt(b, num, 1)
}

func (s *pprofStream) valueType(num protowire.Number, vt *profile.ValueType) {
	var m []byte
	m = appendInt(m, 1, s.str(vt.Type))
	m = appendInt(m, 2, s.str(vt.Unit))
	s.message(num, m)
}

// finish writes p's fields but its samples (written by sample), then the
// string table, and ends the gzip stream.
func (s *pprofStream) finish(p *profile.Profile) error {
	for _, vt := range p.SampleType {
		s.valueType(ppSampleType, vt)
	}
	for _, mp := range p.Mapping {
		var m []byte
		m = appendInt(m, 1, int64(mp.ID))
		m = appendInt(m, 2, int64(mp.Start))
		m = appendInt(m, 3, int64(mp.Limit))
		m = appendInt(m, 4, int64(mp.Offset))
		m = appendInt(m, 5, s.str(mp.File))
		m = appendInt(m, 6, s.str(mp.BuildID))
		m = appendBool(m, 7, mp.HasFunctions)
		m = appendBool(m, 8, mp.HasFilenames)
		m = appendBool(m, 9, mp.HasLineNumbers)
		m = appendBool(m, 10, mp.HasInlineFrames)
		s.message(ppMapping, m)
	}
	for _, l := range p.Location {
		var m []byte
		m = appendInt(m, 1, int64(l.ID))
		if l.Mapping != nil {
			m = appendInt(m, 2, int64(l.Mapping.ID))
		}
		m = appendInt(m, 3, int64(l.Address))
		for _, ln := range l.Line {
			var lm []byte
			if ln.Function != nil {
				lm = appendInt(lm, 1, int64(ln.Function.ID))
			}
			lm = appendInt(lm, 2, ln.Line)
			lm = appendInt(lm, 3, ln.Column)
			m = protowire.AppendTag(m, 4, protowire.BytesType)
			m = protowire.AppendBytes(m, lm)
		}
		m = appendBool(m, 5, l.IsFolded)
		s.message(ppLocation, m)
	}
	for _, f := range p.Function {
		var m []byte
		m = appendInt(m, 1, int64(f.ID))
		m = appendInt(m, 2, s.str(f.Name))
		m = appendInt(m, 3, s.str(f.SystemName))
		m = appendInt(m, 4, s.str(f.Filename))
		m = appendInt(m, 5, f.StartLine)
		s.message(ppFunction, m)
	}
	s.buf = appendInt(s.buf, ppTime, p.TimeNanos)
	s.buf = appendInt(s.buf, ppDuration, p.DurationNanos)
	if p.PeriodType != nil {
		s.valueType(ppPeriodType, p.PeriodType)
	}
	s.buf = appendInt(s.buf, ppPeriod, p.Period)
	for _, c := range p.Comments {
		s.buf = protowire.AppendTag(s.buf, ppComment, protowire.VarintType)
		s.buf = protowire.AppendVarint(s.buf, uint64(s.str(c)))
	}
	// Last: every string the fields above and the samples named.
	for n := range s.strs.len() {
		s.buf = protowire.AppendTag(s.buf, ppStrings, protowire.BytesType)
		s.buf = protowire.AppendBytes(s.buf, s.strs.bytes(n))
		if len(s.buf) >= 64<<10 {
			s.flush()
		}
	}
	s.flush()
	if err := s.zw.Close(); s.err == nil {
		s.err = err
	}
	return s.err
}
