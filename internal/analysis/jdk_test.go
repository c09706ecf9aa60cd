package analysis

import (
	"testing"

	"orca/internal/format"
	"orca/internal/model"
)

func TestJDKThreads(t *testing.T) {
	// Method 1 is the application's, 2 the JDK's.
	class := func(f format.Frame) (string, string) {
		if f.Method == 1 {
			return "com.acme.App", "run"
		}
		return "java.lang.Object", "wait"
	}
	app := []format.Frame{{Method: 1}}
	jdk := []format.Frame{{Method: 2, Location: format.NoLocation}}
	m := &model.Model{
		Stacks: [][]format.Frame{nil, jdk, app},
		Threads: []*model.Thread{
			{ID: 1, Name: "Finalizer", Intervals: []model.Interval{{State: model.Waiting, Stack: 1}}},
			{ID: 2, Name: "worker", Intervals: []model.Interval{{State: model.Waiting, Stack: 1}, {State: model.Blocked, Stack: 2}}},
			{ID: 3, Name: "main", Intervals: []model.Interval{{State: model.Waiting, Stack: 1}}},
			{ID: 4, Name: "started-by-app", StartedAt: 2},
		},
	}
	got := JDKThreads(m, class)
	want := []bool{true, false, false, false}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("thread %q: JDK %v, want %v", m.Threads[i].Name, got[i], want[i])
		}
	}
	// Recorded without application frames (depth=0): no thread is the JDK's.
	m.Stacks = [][]format.Frame{nil, jdk, jdk}
	for i, j := range JDKThreads(m, class) {
		if j {
			t.Errorf("no application frame anywhere, yet %q is a JDK thread", m.Threads[i].Name)
		}
	}
	// Without .methods (issue 20: HANGS: 2, the Finalizer and the
	// Common-Cleaner): no frame can be named, so the JDK's threads are
	// known by their names, and the others are not the JDK's.
	unknown := func(format.Frame) (string, string) { return "", "" }
	m.Stacks = [][]format.Frame{nil, jdk, app}
	m.Threads = append(m.Threads, &model.Thread{ID: 5, Name: "Common-Cleaner", Intervals: []model.Interval{{State: model.Parked, Stack: 1}}})
	got = JDKThreads(m, unknown)
	want = []bool{true, false, false, false, true}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("without .methods, thread %q: JDK %v, want %v", m.Threads[i].Name, got[i], want[i])
		}
	}
	// A thread seen in no stack is the JDK's by its name only.
	m.Threads = append(m.Threads, &model.Thread{ID: 6, Name: "worker-7"}, &model.Thread{ID: 7, Name: "Signal Dispatcher"}, &model.Thread{ID: 8, Name: "SIGTERM handler"})
	got = JDKThreads(m, class)
	want = []bool{true, false, false, false, true, false, true, true}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("thread %q: JDK %v, want %v", m.Threads[i].Name, got[i], want[i])
		}
	}
	if !IsJDK("java.lang.Thread.run(Thread.java:840)") || IsJDK("javafx.Foo") || IsJDK("com.acme.X") {
		t.Error("IsJDK prefixes")
	}
}

// TestJDKThreadsPoolWorkers (issue 21): a pool's worker runs the
// application's tasks, so it is no JDK service thread even when every frame
// it was seen in is the JDK's: a common pool worker idle between tasks,
// started by another worker (Fj.java's parallel stream, JDK 25), a
// ThreadPoolExecutor's worker (an application's, named as it likes).
func TestJDKThreadsPoolWorkers(t *testing.T) {
	frames := []struct{ class, method string }{
		{"com.acme.App", "main"}, // an application frame somewhere in the recording
		{"jdk.internal.misc.Unsafe", "park"},
		{"java.util.concurrent.ForkJoinPool", "awaitWork"},
		{"java.util.concurrent.ForkJoinPool", "runWorker"},
		{"java.util.concurrent.ForkJoinWorkerThread", "run"},
		{"java.lang.Thread", "start"},
		{"jdk.internal.vm.SharedThreadContainer", "start"},
		{"java.util.concurrent.ForkJoinPool", "createWorker"},
		{"java.util.concurrent.ForkJoinPool", "signalWork"},
		{"java.util.concurrent.ThreadPoolExecutor", "getTask"},
		{"java.util.concurrent.ThreadPoolExecutor", "runWorker"},
		{"java.util.concurrent.ThreadPoolExecutor$Worker", "run"},
		{"java.util.concurrent.ThreadPoolExecutor", "addWorker"},
		{"java.lang.ref.Finalizer$FinalizerThread", "run"},
	}
	name := func(f format.Frame) (string, string) { return frames[f.Method].class, frames[f.Method].method }
	stack := func(ms ...format.MethodID) []format.Frame {
		var out []format.Frame
		for _, m := range ms {
			out = append(out, format.Frame{Method: m})
		}
		return out
	}
	m := &model.Model{
		Stacks: [][]format.Frame{nil,
			stack(0),                // 1: main
			stack(1, 2, 3, 4),       // 2: a common pool worker idle
			stack(5, 6, 7, 8, 3, 4), // 3: a worker starting another (cut at depth)
			stack(1, 9, 10, 11),     // 4: a ThreadPoolExecutor's worker idle
			stack(5, 12, 10, 11),    // 5: a worker starting another
			stack(1, 13),            // 6: the Finalizer
		},
		Threads: []*model.Thread{
			{ID: 1, Name: "main", Intervals: []model.Interval{{State: model.Sleeping, Stack: 1}}},
			{ID: 2, Name: "ForkJoinPool.commonPool-worker-1", Intervals: []model.Interval{{State: model.Idle, Stack: 2}}},
			{ID: 3, Name: "ForkJoinPool.commonPool-worker-2", StartedAt: 3},
			{ID: 4, Name: "org.example.scheduler.BackgroundRefreshService-worker-12", Intervals: []model.Interval{{State: model.Idle, Stack: 4}}},
			{ID: 5, Name: "pool-1-thread-2", StartedAt: 5},
			{ID: 6, Name: "Finalizer", Intervals: []model.Interval{{State: model.Waiting, Stack: 6}}},
		},
	}
	got := JDKThreads(m, name)
	want := []bool{false, false, false, false, false, true}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("thread %q: JDK %v, want %v", m.Threads[i].Name, got[i], want[i])
		}
	}
}
