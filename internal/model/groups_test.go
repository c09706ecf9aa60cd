package model_test

import (
	"cmp"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
	. "orca/internal/model"
	"orca/internal/testrec"
)

// recorder writes event lines one after the other, each park or wait
// starting 1 ms after the previous one ended, so every number below
// follows from the durations asked for.
type recorder struct {
	b   strings.Builder
	now int64 // ns
}

func (r *recorder) line(f string, args ...any) {
	fmt.Fprintf(&r.b, "%d.%09d,", r.now/1e9, r.now%1e9)
	fmt.Fprintf(&r.b, f+"\n", args...)
}

// park: th parks on obj at stack for ms milliseconds and the worker W's
// unpark ends it.
func (r *recorder) park(th string, obj int, stack string, ms int64) {
	r.line("ThreadPark,%s,%X,0,,%s", th, obj, stack)
	r.now += ms * 1e6
	r.line("ThreadUnpark,%s,%s,0", "57", th)
	r.line("ThreadUnparked,%s,%X,unparked,0", th, obj)
	r.now += 1e6
}

// wait: th waits on obj at stack for ms milliseconds, notified by W.
func (r *recorder) wait(th string, obj int, stack string, ms int64) {
	r.line("ObjectWait,%s,%X,%s", th, obj, stack)
	r.now += ms * 1e6
	r.line("ObjectNotify,57,%X,0", obj)
	r.line("ObjectWaited,%s,%X,%s", th, obj, stack)
	r.now += 1e6
}

const (
	futureTask = "Ljava/util/concurrent/FutureTask;"
	condition  = "Ljava/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject;"
	latch      = "Ljava/util/concurrent/CountDownLatch$Sync;"
	reply      = "Lcom/acme/Reply;"
)

// groupRecording: four client threads C1..C4 and a worker W (57, which
// ends every park and wait).
//   - 500 FutureTasks 10000.. parked once each at s1 (get), by C1..C4 in
//     turn, for 1, 2, 3, 4, 5 ms in turn: 100 × 15 ms = 1.5 s;
//   - the queue's Condition C0DE, parked 30 times by C1 at s2, 2 ms each;
//   - 19 latches 20000.. parked once each by C2 at s3, 1 ms: one short of
//     a group;
//   - 20 FutureTasks 30000.. at s4, 10 by C1 and 10 by C2, 1 ms: a group,
//     just; C1's 10 alone are not;
//   - FutureTask F6 parked 6 times at s1 by C3 (not transient), and
//     FutureTask FC parked once at s1 by C4 and contended as a monitor by
//     C1 (a lock: its identity matters);
//   - 25 Reply objects 40000.. waited on once each by C4 at s5, 4 ms,
//     each notified once.
func groupRecording() string {
	var r recorder
	r.line("ThreadStarted,C1,c1")
	r.line("ThreadStarted,C2,c2")
	r.line("ThreadStarted,C3,c3")
	r.line("ThreadStarted,C4,c4")
	r.line("ThreadStarted,57,w")
	r.now = 1e9
	clients := []string{"C1", "C2", "C3", "C4"}
	for k := range 500 {
		obj := 0x10000 + k
		r.line("ObjectClass,%s,%X,%s", clients[k%4], obj, futureTask)
		r.park(clients[k%4], obj, "1;1;1", int64(k%5+1))
	}
	r.line("ObjectClass,C1,C0DE,%s", condition)
	for range 30 {
		r.park("C1", 0xC0DE, "1;2;2", 2)
	}
	for k := range 19 {
		r.line("ObjectClass,C2,%X,%s", 0x20000+k, latch)
		r.park("C2", 0x20000+k, "1;3;3", 1)
	}
	for k := range 20 {
		th := []string{"C1", "C2"}[k/10]
		r.line("ObjectClass,%s,%X,%s", th, 0x30000+k, futureTask)
		r.park(th, 0x30000+k, "1;4;4", 1)
	}
	r.line("ObjectClass,C3,F6,%s", futureTask)
	for range 6 {
		r.park("C3", 0xF6, "1;1;1", 1)
	}
	r.line("ObjectClass,C4,FC,%s", futureTask)
	r.park("C4", 0xFC, "1;1;1", 1)
	r.line("MonitorContendedEnter,C1,FC,57,1;6;6")
	r.now += 1e6
	r.line("MonitorContendedEntered,C1,FC,1;6;6")
	for k := range 25 {
		r.line("ObjectClass,C4,%X,%s", 0x40000+k, reply)
		r.wait("C4", 0x40000+k, "1;5;5", 4)
	}
	return r.b.String()
}

func TestGroupWaits(t *testing.T) {
	var m *Model
	// The objects only parked on make no table of contentions
	// (lockAgg.c) nor a monitor's fold state (lstate.lockState); the
	// monitor FC does, and has. Of the 542 blockers, those parked on at
	// most GroupMaxWaits times are records at the end (dormant.go): all
	// but C0DE (30 parks) and F6 (6). Each was parked on by one thread,
	// alive to the end: its record holds the thread's first wait, which
	// the thread lets go as it merges its firsts (owned firsts).
	ft := ContTables(func() { m = foldLines(t, groupRecording()) })
	if ft != (FoldTables{Blockers: 2, Dormant: 500 + 19 + 20 + 1, OwnedMerged: 500 + 19 + 20 + 1, Others: 26, OthersCont: 1}) {
		t.Errorf("fold's tables %+v", ft)
	}
	// Sealed every 64 events, a thread merges firsts (32 waits) before
	// the seal's sleeps: the records' firsts are let go from the firsts
	// merged, not from the log. The same groups.
	var m64 *Model
	ft = ContTables(func() { SealEvery(64, func() { m64 = foldLines(t, groupRecording()) }) })
	if ft != (FoldTables{Blockers: 2, Dormant: 500 + 19 + 20 + 1, OwnedMerged: 500 + 19 + 20 + 1, Others: 26, OthersCont: 1}) {
		t.Errorf("fold's tables sealed every 64 events %+v", ft)
	}
	for i, g := range m.Groups {
		if w := m64.Groups[i]; !reflect.DeepEqual(w.Lock, g.Lock) || w.Site != g.Site || w.MaxWaits != g.MaxWaits || !reflect.DeepEqual(w.Members, g.Members) {
			t.Errorf("sealed every 64 events: group %d %+v, want %+v", i, *w, *g)
		}
	}
	ms := func(n int64) format.Time { return format.Time(n * 1e6) }
	type grp struct {
		kind              LockKind
		class             string
		site              StackID
		objects, maxWaits int
		waits, notified   int
		time, max         format.Time
		notifies          int
		sites             []WaitSite
		by                []format.ThreadID
		unparked          []Blame
	}
	summary := func(gs []*Group) []grp {
		var out []grp
		for _, g := range gs {
			out = append(out, grp{g.Kind, g.Class, g.Site, g.Objects, g.MaxWaits, g.Waits, g.Notified, g.WaitTime, g.MaxWait,
				g.Notifies, g.WaitSites, g.WaitedBy, g.UnparkedBy})
		}
		return out
	}
	// Stacks in order of first sight: 1;1;1 is s1, …, 1;6;6 (the
	// contention) s5, 1;5;5 (the waits) s6.
	want := []grp{
		{Blocker, futureTask, 1, 500, 1, 500, 500, ms(1500), ms(5), 0,
			[]WaitSite{{Stack: 1, Waits: 500, Time: ms(1500)}}, []format.ThreadID{0xC1, 0xC2, 0xC3, 0xC4}, []Blame{{0x57, 500, ms(1500), 0}}},
		{Monitor, reply, 6, 25, 1, 25, 25, ms(100), ms(4), 25,
			[]WaitSite{{Stack: 6, Waits: 25, Time: ms(100)}}, []format.ThreadID{0xC4}, nil},
		{Blocker, futureTask, 4, 20, 1, 20, 20, ms(20), ms(1), 0,
			[]WaitSite{{Stack: 4, Waits: 20, Time: ms(20)}}, []format.ThreadID{0xC1, 0xC2}, []Blame{{0x57, 20, ms(20), 0}}},
	}
	if got := summary(m.Groups); !reflect.DeepEqual(got, want) {
		t.Errorf("groups:\ngot  %+v\nwant %+v", got, want)
	}
	// With the lists in the spill (Options.SpillOwners), the waiters
	// written out as runs once two are held, and a group's of more than
	// one kept there: the same read back.
	prefix := filepath.Join(t.TempDir(), "groups")
	testrec.Write(t, &txtar.Archive{Files: []txtar.File{{Name: "orca", Data: []byte(groupRecording())}}}, prefix)
	var res *Result
	OwnerRuns(2, 1, func() {
		_, res = testrec.OpenWith(t, prefix, Options{Spill: true, SpillDir: t.TempDir(), DropIntervals: true, SpillOwners: true})
	})
	spilt := 0
	for i, g := range res.Model.Groups {
		if g.WaitedBy == nil && g.WaitedByCount() > 0 {
			spilt++
		}
		g.WaitedBy = res.Model.WaitedByOf(&g.Lock)
		if i >= len(want) || !reflect.DeepEqual(summary([]*Group{g})[0], want[i]) {
			t.Errorf("group %d from the spill: %+v", i, summary([]*Group{g}))
		}
	}
	if spilt == 0 {
		t.Errorf("no group's WaitedBy in the spill")
	}
	// The members are the Model's locks, most time first; the others
	// keep their own entries.
	// The group lists its GroupTopMembers first (Members), and
	// GroupMembers yields them all.
	g := m.Groups[0]
	all := slices.SortedFunc(m.GroupMembers(g), func(a, b Member) int {
		if c := cmp.Compare(b.WaitTime, a.WaitTime); c != 0 {
			return c
		}
		return cmp.Compare(a.Object, b.Object)
	})
	if len(all) != g.Objects || len(all) < 500 || len(g.Members) != GroupTopMembers || !slices.Equal(g.Members, all[:GroupTopMembers]) {
		t.Fatalf("%d members listed of %d (%d yielded); want the first %d", len(g.Members), g.Objects, len(all), GroupTopMembers)
	}
	if all[0].Object != 0x10004 || all[0].WaitTime != ms(5) || all[499].Object != 0x101EF {
		t.Errorf("members from %v (%v) to %v, want 00010004 (5 ms) to 000101EF", all[0].Object, all[0].WaitTime, all[499].Object)
	}
	// Each is a Lock of the model's: in Locks, its group named
	// (GroupOf), or kept as a record (dormant.go), its Lock made when
	// asked; all of them here, as they may be records.
	v := m.Filter(nil)
	inLocks := map[*Lock]bool{}
	for _, l := range m.Locks {
		inLocks[l] = true
	}
	recs := 0
	for _, mb := range all {
		l := m.Lock(mb.Object, Blocker)
		if l == nil || l.Waits != mb.Waits || l.WaitTime != mb.WaitTime || inLocks[l] && v.GroupOf(l) != g {
			t.Fatalf("member %v is not the model's lock, or not in its group", mb.Object)
		}
		if !inLocks[l] {
			recs++
		}
	}
	if recs != g.Objects {
		t.Errorf("%d of the group's %d members kept as records", recs, g.Objects)
	}
	alone := map[format.ObjectID]int{} // parks or waits of the ungrouped
	for _, l := range m.Locks {
		if v.GroupOf(l) == nil && l.Waits > 0 {
			alone[l.Object] = l.Waits
		}
	}
	wantAlone := map[format.ObjectID]int{0xC0DE: 30, 0xF6: 6, 0xFC: 1}
	for k := range 19 {
		wantAlone[format.ObjectID(0x20000+k)] = 1
	}
	if !reflect.DeepEqual(alone, wantAlone) {
		t.Errorf("objects on their own: %v, want %v", alone, wantAlone)
	}

	// Filter, then aggregate, then group: C1's objects at s4 are 10, one
	// group fewer; its FutureTasks at s1 are 125, a group of their own.
	c1 := m.Filter(func(t *Thread) bool { return t.ID == 0xC1 })
	want1 := []grp{{Blocker, futureTask, 1, 125, 1, 125, 125, ms(125 * 3), ms(5), 0,
		[]WaitSite{{Stack: 1, Waits: 125, Time: ms(375)}}, []format.ThreadID{0xC1}, []Blame{{0x57, 125, ms(375), 0}}}}
	if got := summary(c1.Groups); !reflect.DeepEqual(got, want1) {
		t.Errorf("groups of C1:\ngot  %+v\nwant %+v", got, want1)
	}
	n := 0
	for _, l := range c1.Locks {
		if c1.GroupOf(l) == nil && l.Kind == Blocker && l.Class == futureTask {
			n++
		}
	}
	if n != 10 {
		t.Errorf("C1: %d FutureTasks on their own, want the 10 at s4", n)
	}
	if m.Groups[0].Members[0].Waits != 1 {
		t.Errorf("the filter changed the model's groups")
	}
}
