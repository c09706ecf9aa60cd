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
// (they wait or park) or are seen without a stack, by which a thread none of
// whose frames can be named, or that has none, is recognised (JDKThreads).
var jdkNames = map[string]bool{
	"Finalizer": true, "Reference Handler": true, "Common-Cleaner": true,
	"Signal Dispatcher": true, "Notification Thread": true, "Attach Listener": true,
	"DestroyJavaVM": true, "JFR Recorder Thread": true, "JFR Periodic Tasks": true, "JFR Shutdown Hook": true,
}

// jdkName reports whether a thread's name is one of the JDK's service
// threads': jdkNames, or a signal's handler (jdk.internal.misc.Signal
// names it "SIGTERM handler").
func jdkName(name string) bool {
	return jdkNames[name] || strings.HasPrefix(name, "SIG") && strings.HasSuffix(name, " handler")
}

// workerFrames are the run loops of a pool's worker ("Class.method", a
// class without a package matching any package: Tomcat's copy of
// ThreadPoolExecutor), and creatorFrames the methods that start one (the
// innermost frames of its StartedAt after java.lang.Thread's and the
// thread container's). A pool worker runs the application's tasks: it is
// not a JDK service thread, even when every frame it was seen in is the
// JDK's (a common pool worker started by another, idle between tasks).
var (
	workerFrames  = []string{"java.util.concurrent.ForkJoinPool.runWorker", "ThreadPoolExecutor.runWorker"}
	creatorFrames = []string{"java.util.concurrent.ForkJoinPool.createWorker", "ThreadPoolExecutor.addWorker"}
)

// JDKThreads finds the JDK's service threads (Finalizer, Reference Handler,
// Common-Cleaner…), which idle in Object.wait all run and are not hangs:
// threads none of whose stacks (where they were started, where they
// blocked or waited) has a frame outside the JDK, and that are not a
// pool's workers (workerFrames, creatorFrames: a pool, the JDK's common
// pool too, runs the application's tasks). "main" is never one, and when
// no stack of the recording has an application frame (recorded with
// depth=0), no thread is. A frame whose class is unknown (no .methods
// file, or a method it lacks) is neither the JDK's nor the application's:
// a thread whose stacks have frames, none of which can be named, or that
// was seen in no stack at all, is one by its name (jdkNames: the JDK's
// own, which an application seldom gives its threads) — without
// .methods, the Finalizer would otherwise be a hang, and a thread that
// never blocked would be the JDK's for want of a frame. name gives a
// frame's class (dotted) and method, "" when unknown. The result is
// indexed like m.Threads.
func JDKThreads(m *model.Model, name func(format.Frame) (class, method string)) []bool {
	out := make([]bool, m.NumThreads())
	marks := make([]uint8, len(m.Stacks))
	found := false
	for id, fr := range m.Stacks {
		marks[id] = stackMark(fr, name)
		found = found || marks[id]&markApp != 0
	}
	var win model.IntervalWindow
	for i, t := range m.AllThreads() {
		mark := marks[t.StartedAt]
		if startedByPool(m.Stacks[t.StartedAt], name) {
			mark |= markWorker
		}
		if m.StackMarked {
			// The fold or-ed its intervals' stacks' marks (JDKStackMark).
			mark |= t.StackMarks
		} else {
			m.WindowOf(t, &win)
			for ivs, ok := win.Next(); ok; ivs, ok = win.Next() {
				for k := range ivs {
					mark |= marks[ivs[k].Stack]
				}
			}
		}
		switch {
		case t.Name == "main" || mark&(markApp|markWorker) != 0:
		case mark&markNamed == 0:
			out[i] = jdkName(t.Name)
		default:
			out[i] = found
		}
	}
	return out
}

// What JDKThreads notes of a stack: a frame of the application's, a frame
// whose class is known, a pool worker's run loop.
const (
	markApp uint8 = 1 << iota
	markNamed
	markWorker
)

// stackMark is what JDKThreads notes of the stack fr.
func stackMark(fr []format.Frame, name func(format.Frame) (class, method string)) uint8 {
	var mark uint8
	for _, f := range fr {
		c, meth := name(f)
		if c == "" {
			continue
		}
		mark |= markNamed
		if matchFrame(workerFrames, c, meth) {
			mark |= markWorker
		}
		if !IsJDK(c + ".") {
			mark |= markApp
		}
	}
	return mark
}

// JDKStackMark is the mark of a stack that JDKThreads reads of a thread's
// intervals (model.Options.StackMark): a model built with it keeps, per
// thread, the marks of its intervals' stacks, and JDKThreads reads those
// instead of the intervals.
func JDKStackMark(name func(format.Frame) (class, method string)) func([]format.Frame) uint8 {
	return func(fr []format.Frame) uint8 { return stackMark(fr, name) }
}

// startedByPool reports whether a thread's StartedAt shows a pool creating
// it as a worker: going out from Thread.start through java.lang and the
// thread container (jdk.internal.vm), the first other frame is one of
// creatorFrames.
func startedByPool(stack []format.Frame, name func(format.Frame) (class, method string)) bool {
	for _, f := range stack {
		c, meth := name(f)
		if strings.HasPrefix(c, "java.lang.") || strings.HasPrefix(c, "jdk.internal.vm.") {
			continue
		}
		return matchFrame(creatorFrames, c, meth)
	}
	return false
}

// matchFrame reports whether class.method is one of list's
// "Class.method"s, a class without a package matching in any package.
func matchFrame(list []string, class, method string) bool {
	for _, w := range list {
		i := strings.LastIndexByte(w, '.')
		c, m := w[:i], w[i+1:]
		if m == method && (class == c || !strings.Contains(c, ".") && strings.HasSuffix(class, "."+c)) {
			return true
		}
	}
	return false
}
