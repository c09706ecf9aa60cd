package analysis

import (
	"testing"

	"orca/internal/format"
	"orca/internal/model"
)

func TestJDKThreads(t *testing.T) {
	// Method 1 is the application's, 2 the JDK's.
	class := func(m format.MethodID) string {
		if m == 1 {
			return "com.acme.App"
		}
		return "java.lang.Object"
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
	unknown := func(format.MethodID) string { return "" }
	m.Stacks = [][]format.Frame{nil, jdk, app}
	m.Threads = append(m.Threads, &model.Thread{ID: 5, Name: "Common-Cleaner", Intervals: []model.Interval{{State: model.Parked, Stack: 1}}})
	got = JDKThreads(m, unknown)
	want = []bool{true, false, false, false, true}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("without .methods, thread %q: JDK %v, want %v", m.Threads[i].Name, got[i], want[i])
		}
	}
	if !IsJDK("java.lang.Thread.run(Thread.java:840)") || IsJDK("javafx.Foo") || IsJDK("com.acme.X") {
		t.Error("IsJDK prefixes")
	}
}
