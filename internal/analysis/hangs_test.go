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
	"orca/internal/testrec"
)

// whys returns each thread open at the end with why it is not a hang.
func whys(m *model.Model) map[format.ThreadID]NotHang {
	out := map[format.ThreadID]NotHang{}
	for _, h := range OpenAtEnd(m) {
		out[h.Thread] = h.Why
	}
	return out
}

func hangIDs(m *model.Model) []format.ThreadID {
	var out []format.ThreadID
	for _, h := range Hangs(m) {
		out = append(out, h.Thread)
	}
	return out
}

// TestHangTimedShort (issue 20): a park with a timeout ends by itself, and
// a thread in a state for a few milliseconds at the end of the recording
// (HSQLDB's timer, 54.4 ms into its wait) is not stuck: neither is a hang.
// An untimed park, a wait and a contention that had lasted MinHang are
// stuck: the contention a hang (it waits for its owner), the park and the
// wait, for no thread in particular, alone (others ran after them: Alone).
func TestHangTimedShort(t *testing.T) {
	m := build(t, `
0,ThreadStarted,A,timed-parker
0,ThreadStarted,B,parker
0,ThreadStarted,C,timer
0,ThreadStarted,D,waiter
0,ThreadStarted,E,blocked
0,ThreadStarted,F,owner
1,ThreadPark,A,0,0,5000000000,0
1,ThreadPark,B,0,0,,0
2,ObjectWait,D,D0D0,0
2.5,MonitorContendedEnter,E,E0E0,F,0
4.9456,ObjectWait,C,C0C0,0
5,ThreadSleep,F,0
`)
	want := map[format.ThreadID]NotHang{0xA: Timed, 0xB: Alone, 0xC: Short, 0xD: Alone, 0xE: IsHang}
	if got := whys(m); !reflect.DeepEqual(got, want) {
		t.Errorf("open at the end: got %v, want %v", got, want)
	}
	if got, want := hangIDs(m), []format.ThreadID{0xE}; !reflect.DeepEqual(got, want) {
		t.Errorf("Hangs: got %v, want %v", got, want)
	}
	// Exactly MinHang is enough; 1 ns less is not.
	m = build(t, `
0,ThreadStarted,A,a
0,ThreadStarted,B,b
1,ObjectWait,A,AAAA,0
1.000000001,ObjectWait,B,BBBB,0
2,ThreadStarted,C,c
`)
	if got, want := whys(m), (map[format.ThreadID]NotHang{0xA: Alone, 0xB: Short}); !reflect.DeepEqual(got, want) {
		t.Errorf("at MinHang: got %v, want %v", got, want)
	}
}

// TestHangShutdown (issue 20): ActiveMQ stopped with SIGTERM reported main
// blocked for 223 µs on java.lang.Shutdown's lock, held by the "SIGTERM
// handler" thread: a state entered after the shutdown began is the exit's
// own, not a hang. A thread stuck in an untimed state for seconds before
// the shutdown is still one, and the time that counts is up to the
// shutdown: a wait begun 0.5 s before it is not one, though 1.5 s before
// the end. (The stuck ones wait alone, others ran after them: Alone.)
func TestHangShutdown(t *testing.T) {
	const events = `
0,ThreadStarted,A,main
0,ThreadStarted,B,stuck
0,ThreadStarted,C,before
1,ObjectWait,B,B0B0,0
3.5,ObjectWait,C,C0C0,0
4,ThreadStarted,D,SIGTERM handler
4.9997,MonitorContendedEnter,A,5D5D,D,0
5,ThreadSleep,D,0
`
	m := build(t, events)
	if m.Shutdown != s(4) {
		t.Fatalf("Shutdown = %v, want 4 s (the SIGTERM handler's start)", m.Shutdown)
	}
	want := map[format.ThreadID]NotHang{0xA: InShutdown, 0xB: Alone, 0xC: Short}
	if got := whys(m); !reflect.DeepEqual(got, want) {
		t.Errorf("exited: got %v, want %v", got, want)
	}
	// The same JVM killed during its shutdown (a shutdown that never
	// completed): the end is the last flush, a thread in a state for 1.5 s
	// then is a hang, main's 0.3 ms is open at the kill.
	m = build(t, events)
	m.Unfinished = true
	want = map[format.ThreadID]NotHang{0xA: AtKill, 0xB: Alone, 0xC: Alone}
	if got := whys(m); !reflect.DeepEqual(got, want) {
		t.Errorf("killed in the shutdown: got %v, want %v", got, want)
	}
}

// TestHangKill (issue 20): a recording of a JVM killed with kill -9 listed
// as hangs the threads that park for 1 µs at a time: their last park's
// ThreadUnparked was after the last flush, lost. They are open at the kill
// (AtKill), not hangs; a thread that had waited for seconds by then (Hang's
// waiter) is stuck, alone (the spinners ran after it began).
func TestHangKill(t *testing.T) {
	m := build(t, `
0,ThreadStarted,A,spinner-1
0,ThreadStarted,B,spinner-2
0,ThreadStarted,C,waiter
0.5,ObjectWait,C,C0C0,0
2.999998,ThreadPark,A,0,0,,0
2.999999,ThreadUnparked,A,0,unparked,0
2.9999985,ThreadPark,B,0,0,,0
2.9999995,ThreadUnparked,B,0,unparked,0
3,ThreadPark,A,0,0,,0
3,ThreadPark,B,0,0,,0
`)
	m.Unfinished = true
	want := map[format.ThreadID]NotHang{0xA: AtKill, 0xB: AtKill, 0xC: Alone}
	if got := whys(m); !reflect.DeepEqual(got, want) {
		t.Errorf("killed: got %v, want %v", got, want)
	}
}

// TestHangDeadlockShort: the threads of a deadlock intact at the end are
// hangs however young the cycle: they can never proceed.
func TestHangDeadlockShort(t *testing.T) {
	m := build(t, `
0,ThreadStarted,A,a
0,ThreadStarted,B,b
1,MonitorContendedEnter,A,AAAA,B,0
1.1,MonitorContendedEnter,B,BBBB,A,0
1.2,ThreadStarted,C,c
`)
	if got, want := hangIDs(m), []format.ThreadID{0xA, 0xB}; !reflect.DeepEqual(got, want) {
		t.Errorf("Hangs: got %v, want %v", got, want)
	}
}

// TestHangSelfJoin (issue 20): a thread that joins itself
// (Thread.currentThread().join(), how a server's main waits for the JVM's
// end: seen in a Lucene load program stopped with SIGTERM) waits for no
// thread by design: not a hang, not a model problem, no wait-for edge. A
// join on another thread that is stuck (parked for good) is still a hang,
// behind it; one on a thread still at work (asleep here) is not
// (joins_working: a program's main joining its workers, DerbyLoad stopped
// with SIGTERM). The same join
// seen by an attach (it began before the events) is only its Object.wait on
// the thread's own Thread object (Thread.join waits on the joined thread),
// no ThreadJoin (the Lucene load program's main, attached to, was reported
// hung); a wait on another object that nobody notifies is still a hang.
func TestHangSelfJoin(t *testing.T) {
	for name, rec := range map[string]string{"join": `
0,ThreadStarted,A,main
0,ThreadStarted,B,joiner
0,ThreadStarted,C,worker
1,ThreadJoin,A,A,0
1,ThreadJoin,B,C,0
1,ThreadPark,C,CCCC,0,,shared,0
9,ThreadStarted,D,late
`, "attached": `
0,ThreadStarted,A,main
0,ThreadStarted,B,waiter
0,ObjectWait,A,A,0
0,ObjectWait,B,C,0
9,ThreadStarted,D,late
`} {
		m := build(t, rec)
		if len(m.Problems) != 0 {
			t.Errorf("%s: problems: %v", name, m.Problems)
		}
		want, hangs := map[format.ThreadID]NotHang{0xA: JoinsItself, 0xB: IsHang}, []format.ThreadID{0xB}
		if name == "join" {
			want[0xC], hangs = IsHang, []format.ThreadID{0xB, 0xC}
		}
		if got := whys(m); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: open at the end: got %v, want %v", name, got, want)
		}
		if got := hangIDs(m); !reflect.DeepEqual(got, hangs) {
			t.Errorf("%s: Hangs: got %v, want %v", name, got, hangs)
		}
		if len(m.Deadlocks) != 0 {
			t.Errorf("%s: a self-join made a wait-for cycle: %+v", name, m.Deadlocks)
		}
	}
}

// TestHangReleased (issue 21, ActiveMQ loaded): main parks on a latch at 1 and waits for the
// broker's end; the shutdown hook counts the latch down at 9.9, which unparks main, and the JVM
// exits before main runs: its park is open at the end but it was free to run — not a hang
// ("released"). A thread parked just as long that nobody unparked is stuck (alone: the hook
// ran after it parked).
func TestHangReleased(t *testing.T) {
	m := build(t, `
0,ThreadStarted,1,main
0,ThreadStarted,2,stuck
0,ThreadStarted,3,hook
1,ThreadPark,1,1A7C,0,,shared,0
1,ThreadPark,2,2B8D,0,,shared,0
9.9,ThreadUnpark,3,1,0
10,ThreadSleep,3,0
10.01,ThreadSlept,3,0
`)
	got := map[format.ThreadID]NotHang{}
	for _, h := range OpenAtEnd(m) {
		got[h.Thread] = h.Why
	}
	if got[1] != Released || got[2] != Alone {
		t.Errorf("main %v, stuck %v; want released, alone", got[1], got[2])
	}
}

// TestHangBehind (issue 31, item 2): a thread stuck behind a stuck thread is stuck, whatever
// its own duration: main joining a deadlocked thread just before the end is a hang, behind
// it; a thread blocked on a monitor whose owner is a hang is one, behind the owner, and so is
// one behind that one (a chain); a timed park and a join of a running thread stay what they were.
func TestHangBehind(t *testing.T) {
	m := build(t, `
0,ThreadStarted,A,alpha
0,ThreadStarted,B,beta
0,ThreadStarted,C,main
0,ThreadStarted,D,waiter
0,ThreadStarted,E,contender
0,ThreadStarted,F,second
0,ThreadStarted,10,timed
0,ThreadStarted,11,joiner
0,ThreadStarted,12,runner
1,MonitorContendedEnter,A,AAAA,B,0
1.1,MonitorContendedEnter,B,BBBB,A,0
1,ObjectWait,D,D0D0,0
4.99,MonitorContendedEnter,E,DDDD,D,0
4.995,MonitorContendedEnter,F,EEEE,E,0
4.999,ThreadJoin,C,A,0
4.999,ThreadJoin,11,12,0
4.999,ThreadPark,10,0,0,5000000000,0
5,ThreadSleep,12,0
`)
	want := map[format.ThreadID]NotHang{0xA: IsHang, 0xB: IsHang, 0xC: IsHang, 0xD: IsHang, 0xE: IsHang, 0xF: IsHang, 0x10: Timed, 0x11: Short}
	if got := whys(m); !reflect.DeepEqual(got, want) {
		t.Errorf("open at the end: got %v, want %v", got, want)
	}
	behindOf := map[format.ThreadID]format.ThreadID{}
	for _, h := range OpenAtEnd(m) {
		if h.Behind != 0 {
			behindOf[h.Thread] = h.Behind
		}
	}
	if want := (map[format.ThreadID]format.ThreadID{0xC: 0xA, 0xE: 0xD, 0xF: 0xE}); !reflect.DeepEqual(behindOf, want) {
		t.Errorf("behind: got %v, want %v", behindOf, want)
	}
}

// TestWaitingAlone (issue 31, item 3): a thread stuck untimed for no thread in particular, that
// nobody waits behind, while others ran after it began, waits alone — a server's main parked
// until its end, a forgotten latch — and is not a hang. One that a thread is blocked behind (on a
// monitor it holds) or joining stays a hang, and the rule behind a stuck thread wins over this
// one (the joiner of a hang, the contender behind the waiter). Others' events after the
// shutdown's start do not count: main parked at 1, and nothing else ran before the SIGTERM
// handler at 4, is a hang (the whole program stood still).
func TestWaitingAlone(t *testing.T) {
	m := build(t, `
0,ThreadStarted,1,main
0,ThreadStarted,2,worker
0,ThreadStarted,3,holder
0,ThreadStarted,4,contender
0,ThreadStarted,5,joined
0,ThreadStarted,6,joiner
0,ThreadStarted,7,latch
1,ThreadPark,1,1A7C,0,,shared,0
1,ObjectWait,3,3333,0
1.5,ThreadPark,5,5A5A,0,,shared,0
2,ThreadJoin,6,5,0
2.5,ThreadPark,7,7A7A,0,,shared,0
3,ThreadSleep,2,0
3.5,ThreadSlept,2,0
4.5,MonitorContendedEnter,4,4444,3,0
5,ThreadSleep,2,0
`)
	want := map[format.ThreadID]NotHang{1: Alone, 3: IsHang, 4: IsHang, 5: IsHang, 6: IsHang, 7: Alone}
	if got := whys(m); !reflect.DeepEqual(got, want) {
		t.Errorf("open at the end: got %v, want %v", got, want)
	}
	for _, h := range OpenAtEnd(m) {
		// The worker's sleep at 5, the end, is no later than it: the last seen
		// is the contender's block at 4.5.
		if h.Why == Alone && h.Progress != s(4.5) {
			t.Errorf("%v: others seen running until %v, want 4.5 s", h.Thread, h.Progress)
		}
		if h.Thread == 4 && h.Behind != 3 || h.Thread == 6 && h.Behind != 5 {
			t.Errorf("%v: behind %v", h.Thread, h.Behind)
		}
	}
	m = build(t, `
0,ThreadStarted,1,main
0,ThreadStarted,2,worker
0.5,ThreadSleep,2,0
0.6,ThreadSlept,2,0
1,ThreadPark,1,1A7C,0,,shared,0
4,ThreadStarted,3,SIGTERM handler
5,ThreadSleep,3,0
`)
	if got, want := whys(m), (map[format.ThreadID]NotHang{1: IsHang}); !reflect.DeepEqual(got, want) {
		t.Errorf("nothing ran before the shutdown: got %v, want %v", got, want)
	}
}

// TestHangJoinsWorking: a thread joining one still at work at the end —
// running, asleep, or parked with a timeout — is not a hang (joins_working:
// DerbyLoad's main joining its workers when SIGTERM stopped it was its
// report's one hang); joining one that is stuck (a wait nobody ends, here
// with a thread blocked behind it too) is, behind it, and so is joining
// one in a deadlock.
func TestHangJoinsWorking(t *testing.T) {
	m := build(t, `
0,ThreadStarted,1,main
0,ThreadStarted,2,running
0.1,ThreadStarted,3,sleeper
0.1,ThreadSleep,3,0
0.2,ThreadStarted,4,timed
0.2,ThreadPark,4,4444,0,5000000000,,0
0.3,ThreadStarted,5,stuck
0.3,ObjectWait,5,5555,0
0.4,ThreadStarted,6,j-running
0.4,ThreadJoin,6,2,0
0.5,ThreadStarted,7,j-sleeper
0.5,ThreadJoin,7,3,0
0.6,ThreadStarted,8,j-timed
0.6,ThreadJoin,8,4,0
0.7,ThreadStarted,9,j-stuck
0.7,ThreadJoin,9,5,0
0.8,ThreadStarted,A,left
0.8,ThreadStarted,B,right
0.9,ThreadStarted,C,j-deadlock
0.9,ThreadJoin,C,A,0
1.1,MonitorContendedEnter,A,BBBB,B,0
1.1,MonitorContendedEnter,B,AAAA,A,0
9,ThreadStarted,D,late
`)
	got := whys(m)
	for th, want := range map[format.ThreadID]NotHang{6: JoinsWorking, 7: JoinsWorking, 8: JoinsWorking, 9: IsHang, 5: IsHang, 0xC: IsHang} {
		if got[th] != want {
			t.Errorf("thread %v: %q, want %q (all: %v)", th, got[th], want, got)
		}
	}
}

// TestHangShutdownPieces: a server stopped by SIGTERM, whose busy thread
// went on after the shutdown began: the thread's last event before the
// shutdown is behind the tail the spilled model keeps, found by reading
// its intervals a piece at a time (Model.WindowOf, pieces of two here),
// not whole (a worker's hour of them was 490 MB). The stuck thread is
// Alone, the busy one's last event before the shutdown its Progress,
// as in the model in memory.
func TestHangShutdownPieces(t *testing.T) {
	var lines strings.Builder
	lines.WriteString("0,ThreadStarted,A,busy\n0,ThreadStarted,B,stuck\n1,ObjectWait,B,B0B0,0\n")
	for k := range 15 { // sleeps from 1.1 s to 3.9 s, the last one's end
		fmt.Fprintf(&lines, "%.1f,ThreadSleep,A,0\n%.2f,ThreadSlept,A,0\n", 1.1+0.2*float64(k), 1.15+0.2*float64(k))
	}
	lines.WriteString("4,ThreadStarted,D,SIGTERM handler\n")
	for k := range 30 { // and on after the shutdown began
		fmt.Fprintf(&lines, "%.2f,ThreadSleep,A,0\n%.3f,ThreadSlept,A,0\n", 4.1+0.02*float64(k), 4.105+0.02*float64(k))
	}
	lines.WriteString("5,ThreadSleep,D,0\n")
	progress := func(m *model.Model) (NotHang, format.Time) {
		for _, h := range OpenAtEnd(m) {
			if h.Thread == 0xB {
				return h.Why, h.Progress
			}
		}
		return Short, 0
	}
	m := build(t, lines.String())
	if m.Shutdown != s(4) {
		t.Fatalf("Shutdown = %v, want 4 s", m.Shutdown)
	}
	if why, at := progress(m); why != Alone || at != s(3.95) {
		t.Fatalf("in memory: B is %v, progress %v; want Alone, 3.95 s (A's last before the shutdown)", why, at)
	}
	// Sealed at every event, in blocks of two intervals: A's are read
	// in pieces of two.
	defer model.SetSealEveryEvent()()
	defer model.SetIvBlockMax(2)()
	prefix := filepath.Join(t.TempDir(), "shutdown")
	testrec.Write(t, &txtar.Archive{Files: []txtar.File{{Name: "orca", Data: []byte(lines.String())}}}, prefix)
	_, res := testrec.OpenWith(t, prefix, model.Options{NoEdges: true, Spill: true, SpillDir: t.TempDir(), DropIntervals: true})
	sm := res.Model
	a := sm.Thread(0xA)
	if tail, from := sm.TailOf(a, new([]model.Interval)); !sm.IntervalsDropped() || from == 0 || tail[0].Start < s(4) {
		t.Fatalf("spilled: dropped %v, A's tail from its %d-th interval; want one after the shutdown's start", sm.IntervalsDropped(), from)
	}
	if why, at := progress(sm); why != Alone || at != s(3.95) {
		t.Errorf("spilled, by pieces: B is %v, progress %v; want Alone, 3.95 s", why, at)
	}
}
