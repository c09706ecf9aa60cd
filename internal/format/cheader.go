package format

import (
	"bytes"
	"fmt"
	"strings"
)

// fieldFlag names the C bit for each field in agent/events.h.
var fieldFlag = map[Field]string{
	FThread: "ORCA_F_THREAD", FObject: "ORCA_F_OBJECT", FTarget: "ORCA_F_TARGET",
	FOwner: "ORCA_F_OWNER", FName: "ORCA_F_NAME", FStack: "ORCA_F_STACK",
}

// CHeader returns agent/events.h: the event table as the C agent sees it.
// The agent's writer formats each line from these flags, so writer and reader
// share one definition (TestCHeaderUpToDate keeps the file in sync).
func CHeader() []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated from internal/format/events.go by `make gen`; DO NOT EDIT.\n")
	b.WriteString("#ifndef ORCA_EVENTS_H\n#define ORCA_EVENTS_H\n\n")
	b.WriteString("// Fields of an event line after the timestamp and the name, in this order.\n")
	for i, f := range []Field{FThread, FObject, FTarget, FOwner, FName, FStack} {
		fmt.Fprintf(&b, "#define %s 0x%02x\n", fieldFlag[f], 1<<i)
	}
	b.WriteString("\nenum orca_event {\n  ORCA_EV_NONE = 0,\n")
	for k := Kind(1); k < NumKinds; k++ {
		fmt.Fprintf(&b, "  ORCA_EV_%s = %d,\n", upperSnake(Specs[k].Name), k)
	}
	fmt.Fprintf(&b, "  ORCA_EV_COUNT = %d\n};\n\n", NumKinds)
	b.WriteString("typedef struct { const char *name; unsigned fields; } orca_event_spec;\n\n")
	b.WriteString("static const orca_event_spec orca_events[ORCA_EV_COUNT] = {\n  {\"\", 0},\n")
	for k := Kind(1); k < NumKinds; k++ {
		var flags []string
		for _, f := range Specs[k].Fields {
			flags = append(flags, fieldFlag[f])
		}
		fmt.Fprintf(&b, "  {%q, %s},\n", Specs[k].Name, strings.Join(flags, " | "))
	}
	b.WriteString("};\n\n#endif\n")
	return b.Bytes()
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
