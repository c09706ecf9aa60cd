package format

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The field encoders of docs/format.md, "Common encodings". Each appends to
// b and returns the extended slice; they allocate nothing else. Writer uses
// them; they are exported for writers that build a field once and write it
// many times (EncodeStack).

const hexDigits = "0123456789ABCDEF"

// AppendHex appends v as 8 uppercase hex digits (identities, method ids,
// locations).
func AppendHex(b []byte, v uint32) []byte {
	return append(b, hexDigits[v>>28], hexDigits[v>>24&15], hexDigits[v>>20&15], hexDigits[v>>16&15],
		hexDigits[v>>12&15], hexDigits[v>>8&15], hexDigits[v>>4&15], hexDigits[v&15])
}

// AppendTime appends t as seconds with exactly 10 decimals, the last always
// 0 (the clock has nanoseconds). t must not be negative (Writer checks).
func AppendTime(b []byte, t Time) []byte {
	b = strconv.AppendInt(b, int64(t/1e9), 10)
	ns := int64(t % 1e9)
	b = append(b, '.')
	for d := int64(1e8); d > 0; d /= 10 {
		b = append(b, byte('0'+ns/d%10))
	}
	return append(b, '0')
}

// AppendText appends a text field (a thread, class, method or source file
// name): quoted as in RFC 4180 when it holds a ',', a '"', a CR or a LF;
// invalid UTF-8 replaced by U+FFFD, since the files are UTF-8.
func AppendText(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// AppendStack appends a stack field: depth;methodID;location;… innermost
// first ("0" for no frames).
func AppendStack(b []byte, frames []Frame) []byte {
	b = strconv.AppendInt(b, int64(len(frames)), 10)
	for _, f := range frames {
		b = append(b, ';')
		b = AppendHex(b, uint32(f.Method))
		b = append(b, ';')
		b = AppendHex(b, f.Location)
	}
	return b
}

// EncodeStack returns the stack field of frames, for Event.EncodedStack.
func EncodeStack(frames []Frame) string { return string(AppendStack(nil, frames)) }

// AppendLineTable appends a .methods line table: count;location;line;…
// in the order given (readers sort by location), or -1 for none.
func AppendLineTable(b []byte, lines []LineEntry) []byte {
	if len(lines) == 0 {
		return append(b, "-1"...)
	}
	b = strconv.AppendInt(b, int64(len(lines)), 10)
	for _, l := range lines {
		b = append(b, ';')
		b = AppendHex(b, l.Start)
		b = append(b, ';')
		b = AppendHex(b, l.Line)
	}
	return b
}

// AppendEvent appends e's .orca line, with its newline. e.Kind must be an
// event kind (Writer checks).
func AppendEvent(b []byte, e *Event) []byte {
	spec := &Specs[e.Kind]
	b = AppendTime(b, e.Time)
	b = append(b, ',')
	b = append(b, spec.Name...)
	for _, f := range spec.Fields {
		b = append(b, ',')
		switch f {
		case FThread:
			b = AppendHex(b, uint32(e.Thread))
		case FObject:
			b = AppendHex(b, uint32(e.Object))
		case FTarget:
			b = AppendHex(b, uint32(e.Target))
		case FOwner:
			b = AppendHex(b, uint32(e.Owner))
		case FLock:
			b = AppendHex(b, uint32(e.Lock))
		case FName:
			b = AppendText(b, e.Name)
		case FTimeout:
			b = appendOptional(b, e.Timeout)
		case FHow:
			b = append(b, e.How.String()...)
		case FClass:
			b = AppendText(b, e.Class)
		case FMode:
			b = append(b, e.Mode.String()...)
		case FSampled:
			b = append(b, e.Sampled.String()...)
		case FWeight:
			b = strconv.AppendInt(b, e.Weight, 10)
		case FCPU:
			b = strconv.AppendInt(b, e.CPU, 10)
		case FReady:
			b = strconv.AppendInt(b, e.Ready, 10)
		case FDepth:
			b = appendOptional(b, e.Depth)
		case FStack:
			b = appendStackOf(b, e.EncodedStack, e.Stack)
		}
	}
	return append(b, '\n')
}

// AppendExt appends e's .ext line, with its newline. e.Kind must be a .ext
// kind (Writer checks).
func AppendExt(b []byte, e *ExtEvent) []byte {
	spec := &ExtSpecs[e.Kind]
	b = AppendTime(b, e.Time)
	b = append(b, ',')
	b = append(b, spec.Name...)
	for _, f := range spec.Fields {
		b = append(b, ',')
		switch f {
		case XThread:
			b = AppendHex(b, uint32(e.Thread))
		case XObject:
			b = AppendHex(b, uint32(e.Object))
		case XOther:
			b = AppendHex(b, uint32(e.Other))
		case XClass:
			b = AppendText(b, e.Class)
		case XTimeout:
			b = appendOptional(b, e.Timeout)
		case XUntil:
			b = appendOptional(b, e.Until)
		case XTimedOut:
			b = strconv.AppendBool(b, e.TimedOut)
		case XJavaID:
			b = strconv.AppendInt(b, e.JavaID, 10)
		case XOSID:
			b = strconv.AppendInt(b, e.OSID, 10)
		case XStack:
			b = appendStackOf(b, e.EncodedStack, e.Stack)
		}
	}
	return append(b, '\n')
}

func appendStackOf(b []byte, encoded string, frames []Frame) []byte {
	if encoded != "" {
		return append(b, encoded...)
	}
	return AppendStack(b, frames)
}

// appendOptional writes a duration or deadline, nothing for none (< 0).
func appendOptional(b []byte, v int64) []byte {
	if v < 0 {
		return b
	}
	return strconv.AppendInt(b, v, 10)
}

// AppendMethod appends m's .methods line, first seen at t, with its newline.
func AppendMethod(b []byte, t Time, m *Method) []byte {
	b = AppendTime(b, t)
	b = append(b, ',')
	b = AppendHex(b, uint32(m.ID))
	b = append(b, ',')
	b = AppendText(b, m.Name)
	b = append(b, ',')
	b = AppendText(b, m.Signature)
	b = append(b, ',')
	b = AppendHex(b, uint32(m.Class))
	b = append(b, ',')
	b = AppendLineTable(b, m.Lines)
	return append(b, '\n')
}

// AppendClass appends c's .classtable line, first seen at t, with its newline.
func AppendClass(b []byte, t Time, c *Class) []byte {
	b = AppendTime(b, t)
	b = append(b, ',')
	b = AppendHex(b, uint32(c.ID))
	b = append(b, ',')
	b = AppendText(b, c.Signature)
	b = append(b, ',')
	b = AppendText(b, c.Source)
	return append(b, '\n')
}

// AppendInfo appends a .info line key=value, with its newline. .info is not
// CSV: the value is written verbatim, its line breaks replaced by spaces so
// it stays on its line; invalid UTF-8 is replaced. key must be a valid key
// (Writer checks).
func AppendInfo(b []byte, key, value string) []byte {
	b = append(b, key...)
	b = append(b, '=')
	if !utf8.ValidString(value) {
		value = strings.ToValidUTF8(value, "\uFFFD")
	}
	for i := 0; i < len(value); i++ {
		c := value[i]
		if c == '\n' || c == '\r' {
			c = ' '
		}
		b = append(b, c)
	}
	return append(b, '\n')
}
