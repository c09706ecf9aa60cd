package reader

import (
	"sort"
	"strconv"
	"strings"

	"orca/internal/format"
)

// Resolve renders a frame the way a Java stack trace does, so users meet the
// text they know: "java.lang.Object.wait(Object.java:338)",
// "java.lang.Thread.sleep(Native Method)", "Foo.bar(Unknown Source)" without
// a source file, "Foo.bar(Foo.java)" without a line, and
// "<unknown method 0000002A>" for an id missing from .methods. A frame of a
// method with a line table whose location is NoLocation (a sample's, where
// the agent could not tell its bytecode) is not native: "Foo.bar(Foo.java)",
// its file without a line. A native or
// VM frame of a sample (format.NativeClassPrefix) is its symbol and library:
// "read [libc.so.6]".
func (r *Recording) Resolve(f format.Frame) string {
	m := r.Methods[f.Method]
	if m == nil {
		return "<unknown method " + f.Method.String() + ">"
	}
	cls := r.ClassName(f.Method)
	if lib, ok := strings.CutPrefix(cls, format.NativeClassPrefix); ok {
		lib = "[" + strings.TrimSuffix(lib, ">") + "]"
		if m.Name == "" {
			return lib // a function of the library without a symbol the agent could read (libjvm.so's hidden ones)
		}
		return m.Name + " " + lib
	}
	if cls == "" {
		cls = "<unknown class " + m.Class.String() + ">"
	}
	var b strings.Builder
	b.Grow(len(cls) + len(m.Name) + 32)
	b.WriteString(cls)
	b.WriteByte('.')
	b.WriteString(m.Name)
	b.WriteByte('(')
	// The same precedence as StackTraceElement.toString.
	file, line := r.Line(f)
	switch {
	case f.Location == format.NoLocation && m.Lines == nil:
		b.WriteString("Native Method")
	case f.Location == format.NoLocation && file == "":
		// A method with a line table is not native: a sample's frame
		// whose bytecode the agent could not tell (a compiled method's
		// prolog or epilog stepped over, docs/agent.md "The sample
		// path") is written with location -1, as a native one. ActiveMQ's
		// IndirectMessageReference.getRegionDestination read "(Native
		// Method)".
		b.WriteString("Unknown Source")
	case file == "" && line > 0:
		// Recordings imported from JFR know lines but not files.
		b.WriteString("Unknown Source:")
		b.WriteString(strconv.Itoa(line))
	case file == "":
		b.WriteString("Unknown Source")
	case line == 0:
		b.WriteString(file)
	default:
		b.WriteString(file)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(line))
	}
	b.WriteByte(')')
	return b.String()
}

// Line returns the source file and line of a frame ("" and 0 when unknown;
// the file alone for native frames and methods without a line table).
func (r *Recording) Line(f format.Frame) (file string, line int) {
	m := r.Methods[f.Method]
	if m == nil {
		return "", 0
	}
	if c := r.Classes[m.Class]; c != nil {
		file = c.Source
	}
	if f.Location == format.NoLocation {
		return file, 0
	}
	// The entry with the greatest Start <= location; Lines is sorted by
	// ReadMethods, and the first of equal starts wins, as in HotSpot.
	i := sort.Search(len(m.Lines), func(i int) bool { return m.Lines[i].Start > f.Location }) - 1
	if i < 0 {
		return file, 0
	}
	for i > 0 && m.Lines[i-1].Start == m.Lines[i].Start {
		i--
	}
	return file, int(m.Lines[i].Line)
}

// ClassName returns the dotted name of the class declaring m
// ("java.lang.Object"), or "" when the method or its class is unknown.
func (r *Recording) ClassName(m format.MethodID) string {
	meth := r.Methods[m]
	if meth == nil {
		return ""
	}
	if s, ok := r.dotted[meth.Class]; ok {
		return s
	}
	// A Recording built by hand rather than by Open has no cache.
	if c := r.Classes[meth.Class]; c != nil {
		return format.JavaName(c.Signature)
	}
	return ""
}

// FrameName returns the dotted class ("java.lang.Object") and the name of a
// frame's method, "" and "" when the method is unknown.
func (r *Recording) FrameName(f format.Frame) (class, method string) {
	if m := r.Methods[f.Method]; m != nil {
		return r.ClassName(f.Method), m.Name
	}
	return "", ""
}
