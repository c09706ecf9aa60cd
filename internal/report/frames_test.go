package report

import (
	"slices"
	"strings"
	"testing"
)

func TestCompact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "(no stack)"},
		{"A.a(A.java:1)", "A.a(A.java:1)"},
		// The top frame, the JDK frames below it folded, then application frames.
		{"java.lang.Object.wait(Native Method)|java.lang.Object.wait(Object.java:338)|java.util.Q.take(Q.java:9)|App.run(App.java:5)|java.lang.Thread.run(Thread.java:840)",
			"java.lang.Object.wait(Native Method)|... 2 JDK frames|App.run(App.java:5)|java.lang.Thread.run(Thread.java:840)"},
		// One JDK frame before the application frame is not worth folding.
		{"java.util.concurrent.Semaphore.acquire(Semaphore.java:318)|App.run(App.java:5)",
			"java.util.concurrent.Semaphore.acquire(Semaphore.java:318)|App.run(App.java:5)"},
		// At most 5 frames.
		{"A.a()|B.b()|C.c()|D.d()|E.e()|F.f()|G.g()", "A.a()|B.b()|C.c()|D.d()|E.e()|... 2 more frames"},
		{"jdk.X.a()|sun.Y.b()|javax.Z.c()|com.sun.W.d()|java.V.e()|java.U.f()", "jdk.X.a()|sun.Y.b()|javax.Z.c()|com.sun.W.d()|java.V.e()|... 1 more frame"},
		{"java.A.a()|java.B.b()|java.C.c()|App.d()|App.e()|App.f()|App.g()|App.h()",
			"java.A.a()|... 2 JDK frames|App.d()|App.e()|App.f()|App.g()|... 1 more frame"},
		// The call of a java.util.concurrent class is shown between the folds (issue 31, item 8).
		{"jdk.internal.misc.Unsafe.park(Native Method)|java.util.concurrent.locks.LockSupport.park(LockSupport.java:341)|" +
			"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await(AbstractQueuedSynchronizer.java:1630)|" +
			"java.util.concurrent.ArrayBlockingQueue.put(ArrayBlockingQueue.java:370)|PC.run(PC.java:5)",
			"jdk.internal.misc.Unsafe.park(Native Method)|... 2 JDK frames|java.util.concurrent.ArrayBlockingQueue.put(ArrayBlockingQueue.java:370)|PC.run(PC.java:5)"},
		// A pool's worker, all JDK frames: from its call on.
		{"jdk.internal.misc.Unsafe.park(Native Method)|java.util.concurrent.locks.LockSupport.park(LockSupport.java:341)|" +
			"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await(AbstractQueuedSynchronizer.java:1630)|" +
			"java.util.concurrent.LinkedBlockingQueue.take(LinkedBlockingQueue.java:435)|java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1062)|" +
			"java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1122)|java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:635)|java.lang.Thread.run(Thread.java:840)",
			"jdk.internal.misc.Unsafe.park(Native Method)|... 2 JDK frames|java.util.concurrent.LinkedBlockingQueue.take(LinkedBlockingQueue.java:435)|" +
				"java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1062)|java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1122)|" +
				"java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:635)|... 1 more frame"},
	} {
		var in []string
		if c.in != "" {
			in = strings.Split(c.in, "|")
		}
		if got := strings.Join(compact(in), "|"); got != c.want {
			t.Errorf("compact(%s):\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestDur(t *testing.T) {
	for s, want := range map[float64]string{0: "0 s", 2.125: "2.12 s", 0.0604: "60.4 ms", 0.000085: "85 us", 1: "1.00 s"} {
		if got := dur(s); got != want {
			t.Errorf("dur(%v) = %q, want %q", s, got, want)
		}
	}
}

func TestLabel(t *testing.T) {
	tw := &textWriter{width: 100}
	name, empty, long := "main", "", strings.Repeat("x", 40)
	for _, c := range []struct {
		name *string
		want string
	}{
		{&name, `"main" (0000000A)`},
		{&empty, "thread 0000000A"},
		{nil, "thread 0000000A"},
		{&long, `"` + long + `" (0000000A)`}, // never cut
	} {
		if got := tw.label("0000000A", c.name); got != c.want {
			t.Errorf("label(%v) = %s, want %s", c.name, got, c.want)
		}
	}
}

// TestCompactAmong: two sites whose shown frames are the same (H2's
// INSERTs from H2Bench.java:154 and :167 under the same twelve frames)
// each show the frame where they differ; a site unlike the others, or
// alone, is shown as compact shows it.
func TestCompactAmong(t *testing.T) {
	common := []string{
		"org.h2.schema.Sequence.flush(Sequence.java:519)",
		"org.h2.schema.Sequence.getNext(Sequence.java:428)",
		"org.h2.engine.SessionLocal.getNextValueFor(SessionLocal.java:1017)",
		"org.h2.table.Column.validateConvertUpdateSequence(Column.java:359)",
		"org.h2.table.Table.convertInsertRow(Table.java:926)",
		"org.h2.command.dml.Insert.insertRows(Insert.java:167)",
		"org.h2.command.dml.Insert.update(Insert.java:135)",
	}
	at := func(tail ...string) []string { return append(slices.Clone(common), tail...) }
	a := at("H2Bench$Worker.run(H2Bench.java:154)")
	b := at("H2Bench$Worker.run(H2Bench.java:167)")
	c := at("H2Bench$Worker.run(H2Bench.java:167)", "java.lang.Thread.run(Thread.java:1583)")
	other := []string{"Other.m(Other.java:1)"}
	for _, tc := range []struct {
		name     string
		frames   []string
		siblings [][]string
		want     []string
	}{
		{"alone", a, [][]string{a}, append(slices.Clone(common[:5]), "... 3 more frames")},
		{"unlike", a, [][]string{a, other}, append(slices.Clone(common[:5]), "... 3 more frames")},
		{"differ at the last", a, [][]string{a, b}, append(slices.Clone(common[:5]), "... 2 more frames", "H2Bench$Worker.run(H2Bench.java:154)")},
		{"the other", b, [][]string{a, b}, append(slices.Clone(common[:5]), "... 2 more frames", "H2Bench$Worker.run(H2Bench.java:167)")},
		// c has a frame more: its "... 4 more frames" already tells it
		// from a and b.
		{"longer", c, [][]string{a, b, c}, append(slices.Clone(common[:5]), "... 4 more frames")},
		{"two differences", a, [][]string{a, b, at("X.y(X.java:1)")}, append(slices.Clone(common[:5]), "... 2 more frames", "H2Bench$Worker.run(H2Bench.java:154)")},
	} {
		if got := compactAmong(tc.frames, tc.siblings); !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
	// Where the stacks differ at different depths, each is shown.
	d := append(slices.Clone(common[:6]), "Y.z(Y.java:2)", "H2Bench$Worker.run(H2Bench.java:154)")
	want := append(slices.Clone(common[:5]), "... 1 more frame", "org.h2.command.dml.Insert.update(Insert.java:135)", "H2Bench$Worker.run(H2Bench.java:154)")
	if got := compactAmong(a, [][]string{a, b, d}); !slices.Equal(got, want) {
		t.Errorf("two depths:\n got %q\nwant %q", got, want)
	}
}
