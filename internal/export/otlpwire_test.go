package export

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	collpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"
	commonpb "go.opentelemetry.io/proto/slim/otlp/common/v1"
	profpb "go.opentelemetry.io/proto/slim/otlp/profiles/v1development"
	respb "go.opentelemetry.io/proto/slim/otlp/resource/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"orca/internal/model"
)

// sameWire fails unless AppendOTLP writes req as proto.Marshal does,
// after a prefix of its own (it appends).
func sameWire(t *testing.T, name string, req *collpb.ExportProfilesServiceRequest) {
	t.Helper()
	want, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	// The large messages' lengths reserved as hinted, in one byte each
	// (moved up at their end when longer), in five (moved down).
	for _, h := range []struct {
		name string
		set  func([]int)
	}{
		{"", nil},
		{" (hinted 1 byte)", func(h []int) { clear(h) }},
		{" (hinted 5 bytes)", func(h []int) {
			for i := range h {
				h[i] = 1 << 30
			}
		}},
	} {
		prefix := []byte("prefix")
		got, err := appendOTLP(prefix[:len(prefix):len(prefix)], req, h.set)
		if err != nil {
			t.Fatalf("%s%s: %v", name, h.name, err)
		}
		if !bytes.HasPrefix(got, prefix) {
			t.Fatalf("%s%s: the prefix is lost", name, h.name)
		}
		got = got[len(prefix):]
		if !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s%s: AppendOTLP wrote %d bytes, proto.Marshal %d; the first difference at byte %d", name, h.name, len(got), len(want), i)
		}
	}
}

// TestAppendOTLPSameBytes: the hand-written encoder writes every model
// and report case's requests (whole and a later range, with the
// samples) as the generated code does, byte for byte.
func TestAppendOTLPSameBytes(t *testing.T) {
	for _, path := range casePaths(t) {
		rec, m := load(t, path)
		lean, err := model.Build(rec, model.Options{NoEdges: true, NoLockFigures: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []OTLPOptions{{Samples: true, Host: "h", Version: "v"}, {Samples: true, From: m.Start + (m.End-m.Start)/3, Partial: true}} {
			req, err := OTLP(rec, lean.Model, o)
			if err != nil {
				t.Fatal(err)
			}
			sameWire(t, fmt.Sprintf("%s from=%d", path, o.From), req)
		}
	}
	sameWire(t, "an empty request", &collpb.ExportProfilesServiceRequest{})
}

// TestAppendOTLPEveryField: a request with every field of every message
// set (each member of AnyValue's oneof in turn, negative int32s, lists
// long enough for lengths of one, two and three bytes, nil entries of
// repeated messages) is written as proto.Marshal writes it. It is filled
// by reflection: a field a newer version of the modules adds is set too,
// and fails here until AppendOTLP writes it.
func TestAppendOTLPEveryField(t *testing.T) {
	req := &collpb.ExportProfilesServiceRequest{}
	seen := map[protoreflect.FullName]bool{}
	fill(req.ProtoReflect(), 0, 0, seen)
	for _, m := range []proto.Message{&profpb.Sample{}, &profpb.Mapping{}, &profpb.Link{}, &commonpb.EntityRef{},
		&commonpb.KeyValueList{}, &commonpb.ArrayValue{}, &profpb.Line{}, &profpb.Stack{}} {
		if n := m.ProtoReflect().Descriptor().FullName(); !seen[n] {
			t.Errorf("%s not filled", n)
		}
	}
	sameWire(t, "every field", req)
}

// bigLists counts fill's lists of 3 000 scalars (a few are enough).
var bigLists int

// fill sets every field of m: variant picks a oneof's member and the
// values; depth bounds AnyValue's recursion.
func fill(m protoreflect.Message, depth, variant int, seen map[protoreflect.FullName]bool) {
	seen[m.Descriptor().FullName()] = true
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if o := fd.ContainingOneof(); o != nil {
			if o.Fields().Get(variant%o.Fields().Len()) != fd {
				continue
			}
		}
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			n := 3
			if fd.Message() != nil {
				if depth >= 4 {
					continue
				}
				n = 9 // each member of AnyValue's oneof
				for j := range n {
					if j == 1 && depth > 0 {
						// An entry that is an empty message.
						l.Append(protoreflect.ValueOfMessage(l.NewElement().Message()))
						continue
					}
					e := l.NewElement().Message()
					fill(e, depth+1, variant+j, seen)
					l.Append(protoreflect.ValueOfMessage(e))
				}
				continue
			}
			if fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.BytesKind && variant%9 == 0 && bigLists < 40 {
				bigLists++
				n = 3000 // packed: lengths of two and three bytes
			}
			for j := range n {
				l.Append(scalar(fd, variant+j))
			}
		case fd.Message() != nil:
			if depth >= 4 {
				continue
			}
			fill(m.Mutable(fd).Message(), depth+1, variant, seen)
		default:
			m.Set(fd, scalar(fd, variant))
		}
	}
}

// scalar is a value of fd's kind, picked by v: zero, small, negative,
// large; strings and bytes of 0, 1, 200 and 600 bytes.
func scalar(fd protoreflect.FieldDescriptor, v int) protoreflect.Value {
	big := []int64{0, 1, -5, 1 << 40, 300, -1 << 62}[v%6]
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(v%2 == 1)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(big))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(big))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(big)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(big))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(big) / 3)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(strings.Repeat("é", []int{0, 1, 100, 300}[v%4]))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(bytes.Repeat([]byte{byte(v)}, []int{0, 1, 200, 600}[v%4]))
	}
	panic(fd.Kind().String())
}

// TestAppendOTLPInvalidUTF8: a string that is not UTF-8 is an error, as
// proto.Marshal's.
func TestAppendOTLPInvalidUTF8(t *testing.T) {
	req := &collpb.ExportProfilesServiceRequest{Dictionary: &profpb.ProfilesDictionary{StringTable: []string{"ok", "bad \xff"}}}
	if _, err := proto.Marshal(req); err == nil {
		t.Fatal("proto.Marshal took invalid UTF-8")
	}
	if _, err := AppendOTLP(nil, req); err == nil {
		t.Error("AppendOTLP took invalid UTF-8")
	}
	kv := &commonpb.KeyValue{Key: "k", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "\xc3"}}}
	req = &collpb.ExportProfilesServiceRequest{ResourceProfiles: []*profpb.ResourceProfiles{{Resource: &respb.Resource{Attributes: []*commonpb.KeyValue{kv}}}}}
	if _, err := proto.Marshal(req); err == nil {
		t.Fatal("proto.Marshal took an attribute of invalid UTF-8")
	}
	if _, err := AppendOTLP(nil, req); err == nil {
		t.Error("AppendOTLP took an attribute of invalid UTF-8")
	}
}

// TestSizeHint: sizeHint is about a push's request's size (within -10 %
// and +50 %: over it, the buffer is grown once, not twice).
func TestSizeHint(t *testing.T) {
	rec, m := loadAll(t)
	req, err := OTLP(rec, m, OTLPOptions{Samples: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := AppendOTLP(nil, req)
	if err != nil {
		t.Fatal(err)
	}
	if h := sizeHint(req); float64(h) < 0.9*float64(len(b)) || float64(h) > 1.5*float64(len(b)) {
		t.Errorf("sizeHint %d for %d bytes", h, len(b))
	}
}
