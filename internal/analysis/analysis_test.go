package analysis

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/testrec"
)

// build folds event lines into a model that must pass modeltest.Validate
// with no problems (modeltest.Fold).
func build(t *testing.T, lines string) *model.Model {
	t.Helper()
	return modeltest.Fold(t, lines)
}

// s is a time in seconds.
func s(sec float64) format.Time { return format.Time(sec*1e9 + 0.5) }

func TestDeadlocks(t *testing.T) {
	m := build(t, `
0,ThreadStarted,A,a
0,ThreadStarted,B,b
0,ThreadStarted,C,c
0,ThreadStarted,D,d
0,ThreadStarted,E,e
0,ThreadStarted,F,f
0,ThreadStarted,10,g
0,ThreadStarted,11,h
0,ThreadStarted,12,i
0,ThreadStarted,13,j
0,ThreadStarted,14,k
1,MonitorContendedEnter,A,AA,B,0
1.5,MonitorContendedEnter,B,BB,A,0
2,MonitorContendedEnter,D,DD,C,0
2.00001,MonitorContendedEnter,C,CC,D,0
2.00002,MonitorContendedEntered,C,CC,0
2.5,MonitorContendedEntered,D,DD,0
3,ThreadJoin,E,F,0
3.1,MonitorContendedEnter,F,EE,E,0
3.2,ThreadJoined,E,F,0
3.3,MonitorContendedEntered,F,EE,0
4,ThreadJoin,10,11,0
4.1,MonitorContendedEnter,11,FF,10,0
4.199999999,ThreadJoined,10,11,0
4.3,MonitorContendedEntered,11,FF,0
5,MonitorContendedEnter,12,CAFE,13,0
5.1,MonitorContendedEnter,13,BEEF,12,0
5.4,MonitorContendedEnter,14,CAFE,13,0
5.5,MonitorContendedEntered,14,CAFE,0
5.6,MonitorContendedEntered,12,CAFE,0
5.7,MonitorContendedEntered,13,BEEF,0
9,ThreadEnded,C
`)
	// The model keeps every cycle, in order of formation.
	if got := len(m.Deadlocks); got != 5 {
		t.Fatalf("model has %d cycles, want 5: %+v", got, m.Deadlocks)
	}
	got := Deadlocks(m)
	// A/B: intact at the end. C/D: stood 10 µs (a stale owner), dropped.
	// E/F: a timed join stood exactly MinCycle (3.1..3.2), kept;
	// 10/11 stood 1 ns less, dropped. 12/13: monitors only, stood 400 ms and
	// broke while both were still blocked (14 entered CAFE, which 12 and 14
	// named 13 as holding: 13 had released it before it blocked, and a
	// thread took it without contention): a monitor cycle cannot break, so
	// it never stood; dropped however long (the stress pass's false
	// "DEADLOCKS: 2", issue 19).
	want := []struct {
		at, resolved format.Time
		atEnd        bool
		threads      []format.ThreadID
	}{
		{s(1.5), 0, true, []format.ThreadID{0xB, 0xA}},
		{s(3.1), s(3.2), false, []format.ThreadID{0xF, 0xE}},
	}
	if len(got) != len(want) {
		t.Fatalf("Deadlocks: got %d, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		d := got[i]
		if d.At != w.at || d.Resolved != w.resolved || d.AtEnd != w.atEnd || !reflect.DeepEqual(d.Threads, w.threads) {
			t.Errorf("deadlock %d: got at=%v resolved=%v atEnd=%v threads=%v, want %+v", i, d.At, d.Resolved, d.AtEnd, d.Threads, w)
		}
	}
	if d := got[1]; d.Lasted(m.End) != MinCycle {
		t.Errorf("E/F lasted %v, want MinCycle", d.Lasted(m.End))
	}
	if d := got[0]; d.Lasted(m.End) != s(9)-s(1.5) {
		t.Errorf("A/B lasted %v, want to the end", d.Lasted(m.End))
	}
}

func TestHangs(t *testing.T) {
	m := build(t, `
0,ThreadStarted,A,joiner
0,ThreadStarted,B,blocked
0,ThreadStarted,C,owner1
0,ThreadStarted,D,blocked2
0,ThreadStarted,E,owner2
0,ThreadStarted,F,waiter
0,ThreadStarted,10,sleeper
0,ThreadStarted,11,done
0.5,ThreadSleep,10,0
1,ThreadJoin,A,B,0
1.5,MonitorContendedEnter,B,AAAA,C,2;1;2;3;4
2,MonitorContendedEnter,A,B,C,0
2.5,MonitorContendedEnter,D,AAAA,E,0
3,ObjectWait,F,C0DE,0
3.5,ObjectWait,11,C0DE,0
3.6,ObjectWaited,11,C0DE,0
5,ThreadEnded,11
`)
	got := Hangs(m)
	stackB := m.Threads[1].Intervals[0].Stack
	if stackB == 0 {
		t.Fatal("B's contention has no stack")
	}
	want := []Hang{
		// B blocked since 1.5 though its interval was split at 2.5, when
		// D's Enter named E as the owner; Other is the latest owner.
		{Thread: 0xB, State: model.Blocked, Object: 0xAAAA, Other: 0xE, Since: s(1.5), Stack: stackB, Timeout: model.TimeoutNone},
		// A is joining B, and inside the join blocked on B's monitor, owned
		// by C (E was named owner of AAAA, another monitor): the innermost
		// state.
		{Thread: 0xA, State: model.Blocked, Object: 0xB, Other: 0xC, Since: s(2), Timeout: model.TimeoutNone},
		{Thread: 0xD, State: model.Blocked, Object: 0xAAAA, Other: 0xE, Since: s(2.5), Timeout: model.TimeoutNone},
		// F waits (its timeout unknown) for no thread, with none behind it,
		// and 11 ran after it began: alone, not a hang. The sleeper (open
		// since 0.5) is not a hang, nor the ended thread.
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Hangs:\ngot  %+v\nwant %+v", got, want)
	}
	f := keep(OpenAtEnd(m), func(h Hang) bool { return h.Thread == 0xF })
	if len(f) != 1 || f[0].Why != Alone || f[0].Progress != s(3.6) {
		t.Errorf("F: %+v, want alone, others seen running until 3.6 s (11's wait's end)", f)
	}
}

// TestHangsSameInstant: a join and a contention inside it that begin at the
// same instant; the join's empty first segment must not be taken for the
// innermost state.
func TestHangsSameInstant(t *testing.T) {
	m := build(t, `
0,ThreadStarted,A,joiner
0,ThreadStarted,B,target
1,ThreadJoin,A,B,0
1,MonitorContendedEnter,A,B,B,0
2,ThreadSleep,B,0
`)
	got := Hangs(m)
	want := []Hang{{Thread: 0xA, State: model.Blocked, Object: 0xB, Other: 0xB, Since: s(1), Timeout: model.TimeoutNone}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Hangs:\ngot  %+v\nwant %+v", got, want)
	}
}

func TestThreadFilter(t *testing.T) {
	m := build(t, `
0,ThreadStarted,A,worker-1
0,ThreadStarted,B,worker-10
0,ThreadStarted,C,main
0,ThreadStarted,D,Worker-2
`)
	names := func(want string) []string {
		keep := ThreadFilter(m, want)
		var out []string
		for _, th := range m.Threads {
			if keep(th) {
				out = append(out, th.Name)
			}
		}
		return out
	}
	for _, c := range []struct {
		want string
		got  []string
	}{
		{"", []string{"worker-1", "worker-10", "main", "Worker-2"}},
		{"worker-1", []string{"worker-1"}},            // exact: not worker-10
		{"worker", []string{"worker-1", "worker-10"}}, // no exact match: substring, case kept
		{"0000000C", []string{"main"}},                // an id
		{"0000000c", []string{"main"}},                // in any case
		{"orker-", []string{"worker-1", "worker-10", "Worker-2"}},
		{"nobody", nil},
	} {
		if got := names(c.want); !reflect.DeepEqual(got, c.got) {
			t.Errorf("ThreadFilter(%q): got %q, want %q", c.want, got, c.got)
		}
	}
}

// TestDeadlockBrokeByUnpark (issue 21, ActiveMQ loaded): a cycle of a monitor and a
// java.util.concurrent lock that stood 200 ms and broke when the parked thread was unparked —
// let through by the lock's release, which the thread the cycle named as its holder could not
// have made while blocked: the owner named at the park was stale; not a deadlock. The same
// cycle broken by the park's timeout (a tryLock(timeout) giving up) is one, resolved.
// TestDeadlockBrokeByOwnerChange: a cycle that breaks with no wait of it
// ending, when another thread's enter names the monitor's new owner — the
// thread the cycle said was waiting for it (ActiveMQ loaded: B, a
// Transport, blocked on a log4j Logger named A its owner; A then parked on
// the ReentrantReadWriteLock B held, 176 ms, though A had released the
// Logger, which C's enter showed B had) is not a deadlock; one whose park
// gave up is (TestDeadlockBrokeByUnpark).
func TestDeadlockBrokeByOwnerChange(t *testing.T) {
	m := build(t, `
0,ThreadStarted,A,task
0,ThreadStarted,B,transport
0,ThreadStarted,C,other
1,MonitorContendedEnter,B,AA,A,0
1.01,ThreadPark,A,5EC,B,,exclusive,0
1.21,MonitorContendedEnter,C,AA,B,0
1.2101,MonitorContendedEntered,B,AA,0
1.3,ThreadUnpark,B,A,0
1.3,ThreadUnparked,A,5EC,unparked,0
1.4,MonitorContendedEntered,C,AA,0
2,ThreadEnded,A
2,ThreadEnded,B
2,ThreadEnded,C
`)
	if len(m.Deadlocks) != 1 || m.Deadlocks[0].AtEnd {
		t.Fatalf("the model has %d cycles, want 1 that broke: %+v", len(m.Deadlocks), m.Deadlocks)
	}
	if d := m.Deadlocks[0]; d.Resolved != format.Time(1.21e9) {
		t.Fatalf("the cycle broke at %v, want 1.21 s (C's enter naming B): %+v", d.Resolved, d)
	}
	if got := Deadlocks(m); len(got) != 0 {
		t.Errorf("%d deadlocks, want 0: %+v", len(got), got)
	}
}

func TestDeadlockBrokeByUnpark(t *testing.T) {
	for _, c := range []struct {
		how  string
		want int
	}{{"unparked", 0}, {"timeout", 1}} {
		// A sleeps twenty times first: from the spill (below), its
		// intervals are read by pieces of two (Model.WindowOf).
		var sleeps strings.Builder
		for k := range 20 {
			fmt.Fprintf(&sleeps, "0.%02d,ThreadSleep,A,0\n0.%02d5,ThreadSlept,A,0\n", 10+k*4, 10+k*4)
		}
		lines := `0,ThreadStarted,A,transport
0,ThreadStarted,B,task
0,ThreadStarted,C,other
` + sleeps.String() + `1,ThreadPark,A,5EC,B,,exclusive,0
1.01,MonitorContendedEnter,B,AA,A,0
1.21,ThreadUnpark,C,A,0
1.21,ThreadUnparked,A,5EC,` + c.how + `,0
1.3,MonitorContendedEntered,B,AA,0
2,ThreadEnded,A
2,ThreadEnded,B
2,ThreadEnded,C
`
		m := build(t, lines)
		if len(m.Deadlocks) != 1 {
			t.Fatalf("%s: the model has %d cycles, want 1: %+v", c.how, len(m.Deadlocks), m.Deadlocks)
		}
		if got := Deadlocks(m); len(got) != c.want {
			t.Errorf("park %s: %d deadlocks, want %d: %+v", c.how, len(got), c.want, got)
		}
		// The same with the intervals in the spill alone: A's park's end
		// found as when read whole.
		prefix := filepath.Join(t.TempDir(), "gaveup")
		testrec.Write(t, &txtar.Archive{Files: []txtar.File{{Name: "orca", Data: []byte(lines)}}}, prefix)
		_, res := testrec.OpenWith(t, prefix, model.Options{NoEdges: true, Spill: true, SpillDir: t.TempDir(), DropIntervals: true})
		sm := res.Model
		if !sm.IntervalsDropped() || len(sm.Deadlocks) != 1 {
			t.Fatalf("%s, spilled: dropped %v, %d cycles, want 1", c.how, sm.IntervalsDropped(), len(sm.Deadlocks))
		}
		most := 0
		for _, th := range sm.Deadlocks[0].Threads {
			most = max(most, sm.IntervalCount(sm.Thread(th)))
		}
		if most < 20 {
			t.Fatalf("%s, spilled: the cycle's threads have at most %d intervals, want A's 20 sleeps and more", c.how, most)
		}
		restore := model.SetIvPiece(2)
		got := Deadlocks(sm)
		restore()
		if len(got) != c.want {
			t.Errorf("park %s, spilled, read by pieces: %d deadlocks, want %d: %+v", c.how, len(got), c.want, got)
		}
	}
}
