package model_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	. "orca/internal/model"
	"orca/internal/model/modeltest"
)

// foldLines folds event lines into a model that must pass Validate with
// no problems (modeltest.Fold).
func foldLines(t *testing.T, lines string) *Model {
	t.Helper()
	return modeltest.Fold(t, lines)
}

func s2t(s float64) format.Time { return format.Time(s*1e9 + 0.5) }

// Stacks are numbered in order of first sight: 1;1;1 is s1, 1;2;2 s2,
// 1;4;4 s3, 1;3;3 s4.
const contentionLines = `
0,ThreadStarted,A,a
0,ThreadStarted,B,b
0,ThreadStarted,C,c
1,MonitorContendedEnter,B,AAAA,A,1;1;1
4,MonitorContendedEntered,B,AAAA,1;1;1
5,MonitorContendedEnter,B,BBBB,A,1;2;2
10,MonitorContendedEntered,B,BBBB,1;2;2
10,MonitorContendedEnter,C,BBBB,B,1;4;4
11,MonitorContendedEntered,C,BBBB,1;4;4
11,MonitorContendedEnter,C,BBBB,B,1;4;4
12,MonitorContendedEntered,C,BBBB,1;4;4
12,SemaphoreAcquire,C,D1CE,1;3;3
13,SemaphoreRelease,A,D1CE,0
14,SemaphoreAcquired,C,D1CE,1;3;3
15,MonitorContendedEnter,A,CCCC,B,1;1;1
16,MonitorContendedEntered,A,CCCC,1;1;1
20,MonitorContendedEnter,A,DDDD,B,0
21,ThreadSleep,C,0
`

func TestAggregateLocks(t *testing.T) {
	m := foldLines(t, contentionLines)
	type lk struct {
		obj         format.ObjectID
		contentions int
		blocked     format.Time
		open        int
		openTime    format.Time
		sites       []Site
		owners      []Blame
		waiters     []format.ThreadID
	}
	want := []lk{
		// Ranked by time blocked, open contentions included: DDDD's one
		// (A still blocked at the end, for 1 s) ties with CCCC and comes
		// after it by id.
		{0xBBBB, 3, s2t(7), 0, 0, []Site{{Stack: 2, Contentions: 1, Blocked: s2t(5)}, {Stack: 3, Contentions: 2, Blocked: s2t(2)}},
			[]Blame{{0xA, 1, s2t(5), 0}, {0xB, 2, s2t(2), 0}}, []format.ThreadID{0xB, 0xC}},
		{0xAAAA, 1, s2t(3), 0, 0, []Site{{Stack: 1, Contentions: 1, Blocked: s2t(3)}}, []Blame{{0xA, 1, s2t(3), 0}}, []format.ThreadID{0xB}},
		{0xD1CE, 1, s2t(2), 0, 0, []Site{{Stack: 4, Contentions: 1, Blocked: s2t(2)}}, []Blame{{0xA, 1, s2t(2), 0}}, []format.ThreadID{0xC}},
		{0xCCCC, 1, s2t(1), 0, 0, []Site{{Stack: 1, Contentions: 1, Blocked: s2t(1)}}, []Blame{{0xB, 1, s2t(1), 0}}, []format.ThreadID{0xA}},
		{0xDDDD, 0, 0, 1, s2t(1), []Site{{Open: 1, OpenTime: s2t(1)}}, []Blame{{0xB, 0, s2t(1), 1}}, []format.ThreadID{0xA}},
	}
	var got []lk
	for _, l := range m.Locks {
		got = append(got, lk{l.Object, l.Contentions, l.Blocked, l.Open, l.OpenTime, l.Sites, l.Owners, l.Waiters})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("locks:\ngot  %+v\nwant %+v", got, want)
	}
	if l := m.Lock(0xBBBB, Monitor); !reflect.DeepEqual(l.HeldAt, []StackID{2, 3}) {
		t.Errorf("BBBB held at %v, want [2 3]", l.HeldAt)
	}
	if l := m.Lock(0xDDDD, Monitor); len(l.HeldAt) != 0 {
		t.Errorf("DDDD, never entered, held at %v", l.HeldAt)
	}

	// Aggregate(nil) is what the model holds.
	all := m.Aggregate(nil)
	if len(all) != len(m.Locks) {
		t.Fatalf("Aggregate(nil): %d locks, the model %d", len(all), len(m.Locks))
	}
	for i, l := range all {
		if !reflect.DeepEqual(*l, *m.Locks[i]) {
			t.Errorf("Aggregate(nil)[%d] = %+v\nthe model's: %+v", i, *l, *m.Locks[i])
		}
	}

	// Only C's contentions: two on BBBB, one on D1CE; the owners blamed
	// are other threads. The model's locks are left as they were.
	onlyC := m.Aggregate(func(t *Thread) bool { return t.ID == 0xC })
	var objs []format.ObjectID
	for _, l := range onlyC {
		objs = append(objs, l.Object)
	}
	if !reflect.DeepEqual(objs, []format.ObjectID{0xBBBB, 0xD1CE}) {
		t.Fatalf("Aggregate(C): locks %v, want BBBB, D1CE", objs)
	}
	if b := onlyC[0]; b.Contentions != 2 || b.Blocked != s2t(2) || !reflect.DeepEqual(b.Owners, []Blame{{0xB, 2, s2t(2), 0}}) ||
		!reflect.DeepEqual(b.Waiters, []format.ThreadID{0xC}) || !reflect.DeepEqual(b.Sites, []Site{{Stack: 3, Contentions: 2, Blocked: s2t(2)}}) {
		t.Errorf("Aggregate(C): BBBB %+v", *b)
	}
	if s := onlyC[1]; s.Contentions != 1 || s.Acquires != 1 || s.Releases != 1 || s.Kind != Semaphore {
		t.Errorf("Aggregate(C): D1CE %+v", *s)
	}
	if l := m.Lock(0xBBBB, Monitor); l.Contentions != 3 {
		t.Errorf("Aggregate(C) changed the model's BBBB: %d contentions", l.Contentions)
	}
}

func TestAggregateWaits(t *testing.T) {
	var b strings.Builder
	b.WriteString(`
0,ThreadStarted,A,notifier
0,ThreadStarted,B,b
0,ThreadStarted,C,c
0,ThreadStarted,D,d
1,ObjectWait,B,1111,1;1;1
1,ObjectWait,C,1111,1;2;2
2,ObjectNotify,A,1111,0
2.5,MonitorContendedEnter,B,1111,A,1;1;1
3,MonitorContendedEntered,B,1111,1;1;1
3.5,ObjectWaited,B,1111,1;1;1
4,ObjectWaited,C,1111,1;2;2
5,ObjectWait,B,1111,1;1;1
6,ObjectNotifyAll,A,1111,0
6.5,ObjectWaited,B,1111,1;1;1
7,ObjectNotify,A,1111,0
1,ObjectWait,D,2222,0
`)
	// 100 notifyAll on 3333 within 9.9 ms, nobody waiting.
	for i := range 100 {
		b.WriteString(strconv.FormatFloat(8+float64(i)*0.0001, 'f', 10, 64) + ",ObjectNotifyAll,A,3333,0\n")
	}
	b.WriteString("10,ThreadSleep,A,0\n")
	m := foldLines(t, b.String())
	type wk struct {
		waits, notified, ambiguous, timedOut, still int
		time                                        format.Time
		notifies, notifyAlls, wokeNobody, burst     int
		sites                                       []WaitSite
		by                                          []format.ThreadID
	}
	got := map[format.ObjectID]wk{}
	for _, l := range m.Locks {
		got[l.Object] = wk{l.Waits, l.Notified, l.Ambiguous, l.TimedOut, l.StillWaiting, l.WaitTime,
			l.Notifies, l.NotifyAlls, l.NotifiesWokeNobody, l.MaxNotifyAllBurst, l.WaitSites, l.WaitedBy}
	}
	want := map[format.ObjectID]wk{
		// B's first wait is split around its contention (2.5..3) and
		// counts once, 1..3.5; it took the notify (ambiguous: C waited
		// too); C timed out; B's second wait was ended by the notifyAll.
		0x1111: {3, 2, 1, 1, 0, s2t(2.5 + 3 + 1.5), 2, 1, 1, 1,
			[]WaitSite{{Stack: 1, Waits: 2, Time: s2t(4)}, {Stack: 2, Waits: 1, TimedOut: 1, Time: s2t(3)}}, []format.ThreadID{0xB, 0xC}},
		// D still waiting at the end (10).
		0x2222: {1, 0, 0, 0, 1, s2t(9), 0, 0, 0, 0, []WaitSite{{Waits: 1, StillWaiting: 1, Time: s2t(9)}}, []format.ThreadID{0xD}},
		0x3333: {0, 0, 0, 0, 0, 0, 0, 100, 100, 100, nil, nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("waits:\ngot  %+v\nwant %+v", got, want)
	}
	// Only C: its one wait; the notify counts stay the object's.
	onlyC := m.Aggregate(func(t *Thread) bool { return t.ID == 0xC })
	if len(onlyC) != 1 || onlyC[0].Object != 0x1111 || onlyC[0].Waits != 1 || onlyC[0].TimedOut != 1 || onlyC[0].WaitTime != s2t(3) || onlyC[0].Notifies != 2 {
		t.Errorf("Aggregate(C): %+v", onlyC)
	}
}

// TestSiteStack checks that stacks at the same source lines are one call
// site, that a frame without a line is its method whatever its bytecode
// index (the index is never printed: two sites would print alike), and
// that a different line is a different site.
func TestSiteStack(t *testing.T) {
	m := foldLines(t, `
0,ThreadStarted,A,a
0,ThreadStarted,B,b
0,ThreadStarted,C,c
0,ThreadStarted,D,d
1,MonitorContendedEnter,B,AAAA,A,2;1;10;2;5
2,MonitorContendedEntered,B,AAAA,2;1;10;2;5
2,MonitorContendedEnter,C,AAAA,A,2;1;11;2;5
3,MonitorContendedEntered,C,AAAA,2;1;11;2;5
3,MonitorContendedEnter,D,AAAA,A,2;1;10;2;6
4,MonitorContendedEntered,D,AAAA,2;1;10;2;6
4,MonitorContendedEnter,A,AAAA,B,2;1;12;2;6
5,MonitorContendedEntered,A,AAAA,2;1;12;2;6
`)
	// Method 1: bytecodes 0x10 and 0x11 are line 7, 0x12 line 8; method 2 has
	// no line table.
	m.GroupSites(func(f format.Frame) string {
		if f.Method == 1 {
			if f.Location == 0x12 {
				return "M.one(M.java:8)"
			}
			return "M.one(M.java:7)"
		}
		return ""
	})
	l := m.Lock(0xAAAA, Monitor)
	want := []Site{{Stack: 1, Contentions: 3, Blocked: s2t(3)}, {Stack: 4, Contentions: 1, Blocked: s2t(1)}}
	if !reflect.DeepEqual(l.Sites, want) {
		t.Errorf("sites %+v, want %+v (stacks 1 to 3 differ only in a bytecode of one line or of a method without lines)", l.Sites, want)
	}
	if got := []StackID{m.SiteStack(1), m.SiteStack(2), m.SiteStack(3), m.SiteStack(4)}; !reflect.DeepEqual(got, []StackID{1, 1, 1, 4}) {
		t.Errorf("SiteStack(1, 2, 3, 4) = %v, want [1 1 1 4]", got)
	}
}
