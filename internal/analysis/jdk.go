package analysis

import (
	"strings"

	"orca/internal/format"
	"orca/internal/model"
)

// JDKPrefixes name the packages of the JDK's own classes.
var JDKPrefixes = []string{"java.", "javax.", "jdk.", "sun.", "com.sun."}

// IsJDK reports whether a dotted class (or a resolved frame) is the JDK's.
func IsJDK(name string) bool {
	for _, p := range JDKPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// JDKThreads finds the JDK's service threads (Finalizer, Reference Handler,
// Common-Cleaner…), which idle in Object.wait all run and are not hangs:
// threads none of whose stacks (where they were started, where they
// blocked or waited) has a frame outside the JDK. "main" is never one, and
// when no stack of the recording has an application frame (recorded with
// depth=0), no thread is. className gives a method's dotted class name.
// The result is indexed like m.Threads.
func JDKThreads(m *model.Model, className func(format.MethodID) string) []bool {
	out := make([]bool, len(m.Threads))
	app := make([]bool, len(m.Stacks))
	found := false
	for id, fr := range m.Stacks {
		for _, f := range fr {
			if !IsJDK(className(f.Method) + ".") {
				app[id] = true
				found = true
				break
			}
		}
	}
	if !found {
		return out
	}
	for i, t := range m.Threads {
		jdk := t.Name != "main" && !app[t.StartedAt]
		for k := range t.Intervals {
			jdk = jdk && !app[t.Intervals[k].Stack]
		}
		out[i] = jdk
	}
	return out
}
