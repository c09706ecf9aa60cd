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

// jdkNames are the names of the JDK's service threads that have events
// (they wait or park), by which a thread none of whose frames can be named
// is recognised (JDKThreads).
var jdkNames = map[string]bool{
	"Finalizer": true, "Reference Handler": true, "Common-Cleaner": true,
	"Signal Dispatcher": true, "Notification Thread": true, "Attach Listener": true,
}

// JDKThreads finds the JDK's service threads (Finalizer, Reference Handler,
// Common-Cleaner…), which idle in Object.wait all run and are not hangs:
// threads none of whose stacks (where they were started, where they
// blocked or waited) has a frame outside the JDK. "main" is never one, and
// when no stack of the recording has an application frame (recorded with
// depth=0), no thread is. A frame whose class is unknown (no .methods
// file, or a method it lacks) is neither the JDK's nor the application's:
// a thread whose stacks have frames, none of which can be named, is one by
// its name (jdkNames: the JDK's own, which an application seldom gives its
// threads) — without .methods, the Finalizer would otherwise be a hang.
// className gives a method's dotted class name, "" when unknown. The
// result is indexed like m.Threads.
func JDKThreads(m *model.Model, className func(format.MethodID) string) []bool {
	out := make([]bool, len(m.Threads))
	app := make([]bool, len(m.Stacks))
	named := make([]bool, len(m.Stacks))   // a frame's class is known
	unnamed := make([]bool, len(m.Stacks)) // a frame's class is not
	found := false
	for id, fr := range m.Stacks {
		for _, f := range fr {
			c := className(f.Method)
			if c == "" {
				unnamed[id] = true
				continue
			}
			named[id] = true
			if !IsJDK(c + ".") {
				app[id] = true
				found = true
				break
			}
		}
	}
	for i, t := range m.Threads {
		isApp, isNamed, isUnnamed := app[t.StartedAt], named[t.StartedAt], unnamed[t.StartedAt]
		for k := range t.Intervals {
			st := t.Intervals[k].Stack
			isApp, isNamed, isUnnamed = isApp || app[st], isNamed || named[st], isUnnamed || unnamed[st]
		}
		switch {
		case t.Name == "main" || isApp:
		case isUnnamed && !isNamed:
			out[i] = jdkNames[t.Name]
		default:
			out[i] = found
		}
	}
	return out
}
