package format

import (
	"bytes"
	"fmt"
	"strings"
)

// fieldFlag names the C bit for each field in agent/core/events.h.
var fieldFlag = map[Field]string{
	FThread: "ORCA_F_THREAD", FObject: "ORCA_F_OBJECT", FTarget: "ORCA_F_TARGET",
	FOwner: "ORCA_F_OWNER", FName: "ORCA_F_NAME", FStack: "ORCA_F_STACK",
	FTimeout: "ORCA_F_TIMEOUT", FHow: "ORCA_F_HOW", FClass: "ORCA_F_CLASS", FMode: "ORCA_F_MODE",
	FSampled: "ORCA_F_SAMPLED", FWeight: "ORCA_F_WEIGHT", FCPU: "ORCA_F_CPU", FReady: "ORCA_F_READY",
	FDepth: "ORCA_F_DEPTH", FLock: "ORCA_F_LOCK",
}

// CHeader returns agent/core/events.h: the format as the C agent sees it — the
// versions, the event table with its begin/end pairs, the .info keys. The
// agent's writer formats each line from these flags, so writer and reader
// share one definition (TestCHeaderUpToDate keeps the file in sync).
func CHeader() []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated from internal/format by `make gen`; DO NOT EDIT.\n")
	b.WriteString("#ifndef ORCA_EVENTS_H\n#define ORCA_EVENTS_H\n\n")
	b.WriteString("// The format of the files (.info \"format\") and the agent's version (\"agent_version\").\n")
	fmt.Fprintf(&b, "#define ORCA_FORMAT %q\n#define ORCA_VERSION %q\n\n", Version, AgentVersion)
	b.WriteString("// Fields of an event line after the timestamp and the name, in this order.\n")
	for i, f := range []Field{FThread, FObject, FTarget, FOwner, FName, FStack, FTimeout, FHow, FClass, FMode, FSampled, FWeight, FCPU, FReady, FDepth, FLock} {
		fmt.Fprintf(&b, "#define %s 0x%02x\n", fieldFlag[f], 1<<i)
	}
	b.WriteString("// ORCA_F_MODE: the record's mode byte, written as these words (a park's acquire mode).\n")
	for m := AcquireMode(1); m < NumModes; m++ {
		fmt.Fprintf(&b, "#define ORCA_MODE_%s %d\n", strings.ToUpper(m.String()), m)
	}
	var modes []string
	for m := AcquireMode(0); m < NumModes; m++ {
		modes = append(modes, fmt.Sprintf("%q", m.String()))
	}
	fmt.Fprintf(&b, "#define ORCA_MODE_NAMES {%s}\n", strings.Join(modes, ", "))
	b.WriteString("// ORCA_F_HOW: how a park ended, the words of the text encoding; the compact encoding writes the index.\n")
	var hows []string
	for p := ParkEnd(0); p < NumParkEnds; p++ {
		hows = append(hows, fmt.Sprintf("%q", p.String()))
	}
	fmt.Fprintf(&b, "#define ORCA_HOW_NAMES {%s}\n", strings.Join(hows, ", "))
	b.WriteString("// ORCA_F_SAMPLED: what a Sample is, the words of the text encoding; the compact encoding writes the index.\n")
	var sampled []string
	for s := SampleKind(0); s < NumSampleKinds; s++ {
		sampled = append(sampled, fmt.Sprintf("%q", s.String()))
		if s > 0 {
			fmt.Fprintf(&b, "#define ORCA_SAMPLED_%s %d\n", strings.ToUpper(s.String()), s)
		}
	}
	fmt.Fprintf(&b, "#define ORCA_SAMPLED_NAMES {%s}\n", strings.Join(sampled, ", "))
	fmt.Fprintf(&b, "// The pseudo-class of native and VM frames in a sample's stack: \"%slibjvm.so>\".\n#define ORCA_NATIVE_CLASS_PREFIX %q\n", NativeClassPrefix, NativeClassPrefix)
	b.WriteString("// The fields written from a record's text bytes (at most one a kind, after the owner, before the stack).\n")
	var text []string
	for _, f := range TextFields {
		text = append(text, fieldFlag[f])
	}
	fmt.Fprintf(&b, "#define ORCA_F_TEXT (%s)\n", strings.Join(text, " | "))
	fmt.Fprintf(&b, "// The manual's kinds are 1..ORCA_EV_SEED (the agent's kinds=seed records only those).\n#define ORCA_EV_SEED %d\n", SeedKinds)
	b.WriteString("\nenum orca_event {\n  ORCA_EV_NONE = 0,\n")
	for k := Kind(1); k < NumKinds; k++ {
		fmt.Fprintf(&b, "  ORCA_EV_%s = %d,\n", upperSnake(Specs[k].Name), k)
	}
	fmt.Fprintf(&b, "  ORCA_EV_COUNT = %d\n};\n\n", NumKinds)
	b.WriteString("// end: the event that ends the interval this one begins (ObjectWait: ObjectWaited);\n")
	b.WriteString("// begin: the event whose interval this one ends. ORCA_EV_NONE when there is none.\n")
	b.WriteString("typedef struct {\n  const char *name;\n  unsigned fields;\n  enum orca_event end, begin;\n} orca_event_spec;\n\n")
	b.WriteString("static const orca_event_spec orca_events[ORCA_EV_COUNT] = {\n  {\"\", 0, ORCA_EV_NONE, ORCA_EV_NONE},\n")
	ev := func(k Kind) string {
		if k == KindNone {
			return "ORCA_EV_NONE"
		}
		return "ORCA_EV_" + upperSnake(Specs[k].Name)
	}
	for k := Kind(1); k < NumKinds; k++ {
		var flags []string
		for _, f := range Specs[k].Fields {
			flags = append(flags, fieldFlag[f])
		}
		fmt.Fprintf(&b, "  {%q, %s, %s, %s},\n", Specs[k].Name, strings.Join(flags, " | "), ev(k.End()), ev(k.Begin()))
	}
	b.WriteString("};\n\n")
	cWire(&b)
	b.WriteString("// The keys of PREFIX.info (docs/format.md); the _PREFIX ones are followed by a kind's name.\n")
	for _, k := range InfoKeys {
		fmt.Fprintf(&b, "#define ORCA_INFO_%s %q\n", infoMacro(k), k)
	}
	for _, p := range InfoPrefixes {
		fmt.Fprintf(&b, "#define ORCA_INFO_%s_PREFIX %q\n", infoMacro(strings.TrimSuffix(p, ".")), p)
	}
	b.WriteString("\n#endif\n")
	return b.Bytes()
}

// infoMacro turns an .info key into the tail of its C macro: "cut_s" is CUT_S.
func infoMacro(key string) string {
	return strings.ToUpper(strings.NewReplacer(".", "_").Replace(key))
}

func upperSnake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteString(strings.ToUpper(string(r)))
	}
	return b.String()
}

// fieldName names each field in the C macros of its code (ORCA_FIELD_THREAD).
var fieldName = map[Field]string{
	FThread: "THREAD", FObject: "OBJECT", FTarget: "TARGET", FOwner: "OWNER", FName: "NAME", FStack: "STACK",
	FTimeout: "TIMEOUT", FHow: "HOW", FClass: "CLASS", FMode: "MODE",
	FSampled: "SAMPLED", FWeight: "WEIGHT", FCPU: "CPU", FReady: "READY", FDepth: "DEPTH", FLock: "LOCK",
}

// wireName names each wire type in C (ORCA_W_UV).
var wireName = [NumWires]string{WireUV: "UV", WireSV: "SV", WireU32: "U32", WireByte: "BYTE", WireText: "TEXT"}

// cWire writes the compact encoding's table (wire.go) for the agent: the
// field codes and wire types, each kind's layout (its fields and their
// wire types, in order) and its descriptor record's bytes. The agent's
// encoder writes a record by its kind's layout, and its descriptor before
// the kind's first record in a chunk.
func cWire(b *bytes.Buffer) {
	b.WriteString("// The compact encoding (docs/format.md): the fields' codes (in descriptors) and wire types.\n")
	for f := FThread; int(f) < len(FieldWire); f++ {
		fmt.Fprintf(b, "#define ORCA_FIELD_%s %d\n", fieldName[f], f)
	}
	for w := Wire(1); w < NumWires; w++ {
		fmt.Fprintf(b, "#define ORCA_W_%s %d\n", wireName[w], w)
	}
	fmt.Fprintf(b, "// A kind's descriptor record's tag, a chunk's trailer's.\n#define ORCA_TAG_DESCRIPTOR 0x%02x\n#define ORCA_TAG_TRAILER 0x%02x\n", TagDescriptor, TagTrailer)
	fmt.Fprintf(b, "// A method's and a class's definition records' tags (a uv length and its line).\n#define ORCA_TAG_METHOD 0x%02x\n#define ORCA_TAG_CLASS 0x%02x\n", TagMethod, TagClass)
	most := 0
	for k := Kind(1); k < NumKinds; k++ {
		most = max(most, len(Specs[k].Fields))
	}
	fmt.Fprintf(b, "// Each kind's fields in the order written: {field code, wire type}, n of them.\n#define ORCA_LAYOUT_MAX %d\n", most)
	b.WriteString("typedef struct {\n  unsigned char n;\n  unsigned char f[ORCA_LAYOUT_MAX][2];\n} orca_layout;\n\n")
	b.WriteString("static const orca_layout orca_layouts[ORCA_EV_COUNT] = {\n  {0, {{0, 0}}},\n")
	for k := Kind(1); k < NumKinds; k++ {
		var fs []string
		for _, f := range Specs[k].Fields {
			fs = append(fs, fmt.Sprintf("{ORCA_FIELD_%s, ORCA_W_%s}", fieldName[f], wireName[FieldWire[f]]))
		}
		fmt.Fprintf(b, "  {%d, {%s}},   // %s\n", len(fs), strings.Join(fs, ", "), Specs[k].Name)
	}
	b.WriteString("};\n")
	b.WriteString("// ORCA_EV_EACH(X) is X(kind) for every kind: a switch of a case a kind, in which the kind's layout is a constant.\n#define ORCA_EV_EACH(X)")
	for k := Kind(1); k < NumKinds; k++ {
		fmt.Fprintf(b, " X(ORCA_EV_%s)", upperSnake(Specs[k].Name))
	}
	b.WriteString("\n\n")
	b.WriteString("// Each kind's descriptor record (format.KindDescriptor), len bytes.\n")
	b.WriteString("typedef struct {\n  unsigned char len;\n  const char *bytes;\n} orca_descriptor;\n\n")
	b.WriteString("static const orca_descriptor orca_descriptors[ORCA_EV_COUNT] = {\n  {0, \"\"},\n")
	for k := Kind(1); k < NumKinds; k++ {
		d := KindDescriptor(k)
		var lit strings.Builder
		for _, c := range d {
			fmt.Fprintf(&lit, "\\%03o", c)
		}
		fmt.Fprintf(b, "  {%d, \"%s\"},\n", len(d), lit.String())
	}
	b.WriteString("};\n\n")
}
