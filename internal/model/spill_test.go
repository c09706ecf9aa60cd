package model_test

import (
	"bytes"
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"orca/internal/format"
	. "orca/internal/model"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// TestSpill builds every case with the spill (Options.Spill), in a
// temporary directory of its own, both ways the spill is created (O_TMPFILE,
// and a file in a directory of its own where there is none), and checks
// that what the holders did, read back from the spill, is what the model
// without a spill gives; and that the spill is a private file no name
// leads to, which leaves nothing behind.
func TestSpill(t *testing.T) {
	paths, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	spans, lateLet, blameGiven, winsGiven, ownersSpilt, waitersSpilt, edgesSpilt := 0, 0, 0, 0, 0, 0, 0
	changesKept, changesAll := 0, 0
	handOffsSpilt, handOffParks := 0, 0
	defer SetEdgeSpillSizes(3, 2)()
	for _, way := range []string{"tmpfile", "dir", "drop", "chunks"} {
		for _, path := range paths {
			name := strings.TrimSuffix(filepath.Base(path), ".txtar")
			t.Run(way+"/"+name, func(t *testing.T) {
				prefix := filepath.Join(t.TempDir(), name)
				testrec.Write(t, testrec.Parse(t, path), prefix)
				_, mem := testrec.Open(t, prefix)
				tmp := t.TempDir()
				var res *Result
				opt := Options{Spill: true, SpillDir: tmp}
				if way == "drop" || way == "chunks" {
					opt.DropIntervals, opt.StackMark, opt.EndGraphOnly = true, testMark, true
					opt.SpillOwners = way == "chunks"
					opt.SpillEdges = way == "chunks"
					// orca report's: the owner changes of the contentions
					// the blame logs hold not kept (Options.SpansFromLogs).
					opt.SpansFromLogs = way == "chunks"
				}
				build := func() {
					_, res = testrec.OpenWith(t, prefix, opt)
				}
				if way == "chunks" {
					// The locks' owners written out once two are held, and
					// those of a lock of more than one kept there.
					build = func() { OwnerRuns(2, 1, func() { _, res = testrec.OpenWith(t, prefix, opt) }) }
				}
				if way == "dir" {
					SpillNoTmpfile(build)
				} else {
					build()
				}
				m := res.Model
				if !m.Spilled() {
					t.Fatal("built with Options.Spill, the model has no spill")
				}
				checkPrivate(t, SpillFile(m), tmp)
				want := mem.Model.Filter(nil).HoldersDoing()
				var got map[LockRef]*Doing
				if way == "chunks" {
					// The locks' spans written out a span or two at a time,
					// the holders' logs at each span.
					// And the holders' time on other locks written out
					// each entry as it comes.
					SpanChunks(8, func() { OnRuns(0, func() { got = m.Filter(nil).HoldersDoing() }) })
				} else {
					got = m.Filter(nil).HoldersDoing()
				}
				if !reflect.DeepEqual(got, want) {
					for ref, d := range want {
						if !reflect.DeepEqual(got[ref], d) {
							t.Errorf("lock %v %s: from the spill %+v, in memory %+v", ref.Object, ref.Kind, got[ref], *d)
						}
					}
					t.Fatalf("from the spill, %d locks' holders; in memory, %d", len(got), len(want))
				}
				if mem := m.Filter(nil).HoldersDoingInMemory(); !reflect.DeepEqual(got, mem) {
					t.Errorf("the spilled model's holders in memory differ from the spill's")
				}
				// The parks' spans over the hand-offs read back from the
				// spill (Builder.releaseHandOffs), as in memory.
				if n, _ := HandOffsSpilled(m); n > 0 {
					handOffsSpilt += n
					handOffParks += checkParkSpans(t, mem.Model, m)
				}
				if way == "chunks" {
					// The edges in the spill, in runs of 3 (edgespill.go).
					var edges []Edge
					for _, e := range m.AllEdges() {
						edges = append(edges, e)
					}
					if !m.EdgesSpilled() || !slices.Equal(edges, mem.Model.Edges) || m.NumEdges() != len(mem.Model.Edges) {
						t.Errorf("the edges read back (spilled %v) %v, in memory %v", m.EdgesSpilled(), edges, mem.Model.Edges)
					}
					var buf, buf2 []Edge
					for _, th := range mem.Model.Threads {
						if got, want := m.EdgesTo(th.ID, &buf), mem.Model.EdgesTo(th.ID, &buf2); !slices.Equal(got, want) {
							t.Errorf("the edges to %v read back %v, in memory %v", th.ID, got, want)
						}
					}
					edgesSpilt += len(edges)
					if got, want := m.WaitGraphAt(m.End), mem.Model.WaitGraphAt(mem.Model.End); !reflect.DeepEqual(got, want) {
						t.Errorf("the graph at the end: %+v, in memory %+v", got, want)
					}
					for _, l := range m.Locks {
						k, n := OwnerChangesKept(l)
						changesKept, changesAll = changesKept+k, changesAll+n
					}
					for _, l := range mem.Model.Locks {
						ml := m.Lock(l.Object, l.Kind)
						if got := m.OwnersOf(ml); len(got)+len(l.Owners) > 0 && !reflect.DeepEqual(got, l.Owners) {
							t.Errorf("lock %v %s: owners read back %+v, in memory %+v", l.Object, l.Kind, got, l.Owners)
						}
						if l.BlamedTotal() != ml.BlamedTotal() || len(l.Owners) != ml.OwnerCount() {
							t.Errorf("lock %v %s: %d owners blamed %v, in memory %d, %v", l.Object, l.Kind, ml.OwnerCount(), ml.BlamedTotal(), len(l.Owners), l.BlamedTotal())
						}
						if len(l.Owners) > 1 {
							ownersSpilt++
						}
						ws, wb := m.WaitersOf(ml), m.WaitedByOf(ml)
						if !slices.Equal(ws, l.Waiters) || !slices.Equal(wb, l.WaitedBy) || ml.WaiterCount() != len(l.Waiters) || ml.WaitedByCount() != len(l.WaitedBy) {
							t.Errorf("lock %v %s: waiters read back %v, waited by %v (%d, %d); in memory %v, %v",
								l.Object, l.Kind, ws, wb, ml.WaiterCount(), ml.WaitedByCount(), l.Waiters, l.WaitedBy)
						}
						if len(l.Waiters) > 1 || len(l.WaitedBy) > 1 {
							waitersSpilt++
						}
					}
					if len(m.Groups) != len(mem.Model.Groups) {
						t.Fatalf("%d groups, in memory %d", len(m.Groups), len(mem.Model.Groups))
					}
					for i, g := range mem.Model.Groups {
						mg := m.Groups[i]
						if got := m.WaitedByOf(&mg.Lock); !slices.Equal(got, g.WaitedBy) || mg.WaitedByCount() != len(g.WaitedBy) {
							t.Errorf("group %d: waited by %v read back, in memory %v", i, got, g.WaitedBy)
						}
					}
				}
				if way == "drop" {
					bl, wi := checkDropped(t, mem.Model, m)
					blameGiven, winsGiven = blameGiven+bl, winsGiven+wi
					if LateEntries(m) < LateEntries(mem.Model) {
						lateLet++
					}
					got, want := LateAtEnd(m), LateAtEnd(mem.Model)
					if !reflect.DeepEqual(got, want) {
						t.Errorf("the late entries after the end: %+v, in memory %+v", got, want)
					}
				}
				for _, d := range got {
					spans += len(d.Spans)
				}
			})
		}
	}
	if changesKept == 0 || changesKept*2 > changesAll {
		t.Errorf("with Options.SpansFromLogs %d of the locks' %d owner changes kept: want some (the graph at the end reads them), at most half", changesKept, changesAll)
	}
	t.Logf("with Options.SpansFromLogs %d of the locks' %d owner changes kept", changesKept, changesAll)
	if handOffsSpilt == 0 || handOffParks == 0 {
		t.Errorf("%d hand-offs given up to the spill, %d parks read them: their spill is not tested", handOffsSpilt, handOffParks)
	}
	t.Logf("%d hand-offs given up to the spill, %d parks' spans compared", handOffsSpilt, handOffParks)
	if edgesSpilt < 50 {
		t.Errorf("only %d edges in the spill: their spill is little tested", edgesSpilt)
	}
	if ownersSpilt == 0 {
		t.Error("no case has a lock of more than one owner: their spill is not tested")
	}
	if waitersSpilt == 0 {
		t.Error("no case has a lock of more than one waiter: their spill is not tested")
	}
	if spans == 0 {
		t.Error("no case has a lock whose holders did something: the test compares nothing")
	}
	if lateLet == 0 {
		t.Error("no case has a late entry let go (Options.EndGraphOnly): nothing of them is compared")
	}
	if blameGiven == 0 {
		t.Error("no case has a thread that gave its blame log to the spill: nothing of them is compared")
	}
	if winsGiven == 0 {
		t.Error("no case has a thread that gave its windows to the spill: nothing of them is compared")
	}
}

// checkDropped checks that m, built with Options.DropIntervals, keeps no
// intervals, that each thread's read back (and its windows) are mem's, and
// that what the build and the graph at the end made of them is mem's. It
// returns how many threads gave their blame log, and their windows and
// scheduler times, to the spill.
func checkDropped(t *testing.T, mem, m *Model) (blameGiven, winsGiven int) {
	t.Helper()
	if !m.IntervalsDropped() {
		t.Fatal("built with Options.DropIntervals, the model kept its intervals")
	}
	if m.Shutdown != mem.Shutdown {
		t.Errorf("the shutdown at %v, in memory at %v", m.Shutdown, mem.Shutdown)
	}
	var buf, tbuf []Interval
	var sbuf []Sample
	for i, th := range m.Threads {
		if th.Intervals != nil || th.Samples != nil {
			t.Errorf("thread %v kept its intervals or its samples", th.ID)
		}
		if got, want := m.SamplesOf(th, &sbuf), mem.Threads[i].Samples; len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Errorf("thread %v: samples read back %+v, in memory %+v", th.ID, got, want)
		}
		// Its tail: the intervals from at on, with every open segment at
		// the end and the last that began before its end.
		all := mem.Threads[i].Intervals
		tail, at := m.TailOf(th, &tbuf)
		if at < 0 || at > len(all) || !reflect.DeepEqual(tail, all[at:]) && len(tail)+len(all[at:]) > 0 {
			t.Errorf("thread %v: its tail from %d %+v; its intervals %+v", th.ID, at, tail, all)
		} else if at > 0 && (all[at-1].Open || !slices.ContainsFunc(tail, func(iv Interval) bool { return iv.Start < th.End })) {
			t.Errorf("thread %v: its tail from %d misses an open segment or the last that began before its end %v: %+v", th.ID, at, th.End, all)
		}
		if m.StackMarked {
			var mark uint8
			for _, iv := range all {
				mark |= testMark(m.Stacks[iv.Stack])
			}
			if th.StackMarks != mark {
				t.Errorf("thread %v: its stacks marked %b, its intervals' %b", th.ID, th.StackMarks, mark)
			}
		}
		if got, want := BlameBytes(m, th), BlameBytes(mem, mem.Threads[i]); !bytes.Equal(got, want) {
			t.Errorf("thread %v: its blame log %v (%d bytes given to the spill), built keeping its intervals %v", th.ID, got, BlameGiven(th), want)
		} else if BlameGiven(th) > 0 {
			blameGiven++
		}
		sched, wins, given := RunOf(m, th)
		mt := mem.Threads[i]
		if want := mt.RunWindows(); !reflect.DeepEqual(wins, want) {
			t.Errorf("thread %v: windows read back %+v, in memory %+v", th.ID, wins, want)
		} else if len(sched)+len(mt.Sched) > 0 && !reflect.DeepEqual(sched, mt.Sched) || th.SchedCount() != len(mt.Sched) {
			t.Errorf("thread %v: scheduler times read back %+v (%d), in memory %+v", th.ID, sched, th.SchedCount(), mt.Sched)
		} else if given && (len(th.RunWindows()) > 0 || len(th.Sched) > 0) {
			t.Errorf("thread %v kept its windows or scheduler times, given to the spill", th.ID)
		} else if given {
			winsGiven++
		}
		if got, want := Bare(th), Bare(mem.Threads[i]); !reflect.DeepEqual(got, want) {
			t.Errorf("thread %v: %+v, built keeping its intervals %+v", th.ID, got, want)
		}
		if got, want := m.IntervalsOf(th, &buf), mem.Threads[i].Intervals; len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Errorf("thread %v: read back %+v, in memory %+v", th.ID, got, want)
		}
	}
	for _, l := range mem.Locks {
		ml := m.Lock(l.Object, l.Kind)
		if ml == nil {
			t.Errorf("lock %v %s: absent", l.Object, l.Kind)
			continue
		}
		if len(l.OwnerChanges) > 0 && ml.OwnerChanges != nil {
			t.Errorf("lock %v %s: kept its owner changes", l.Object, l.Kind)
		}
		if got := OwnerChangesOf(m, ml); len(got)+len(l.OwnerChanges) > 0 && !reflect.DeepEqual(got, l.OwnerChanges) {
			t.Errorf("lock %v %s: owner changes read back %+v, in memory %+v", l.Object, l.Kind, got, l.OwnerChanges)
		}
	}
	if got, want := m.WaitGraphAt(m.End), mem.WaitGraphAt(mem.End); !reflect.DeepEqual(got, want) {
		t.Errorf("the graph at the end: %+v, in memory %+v", got, want)
	}
	// The tails let go (orca report's, once its hangs are found): a tail
	// asked for is every interval, read back from the spill, and the
	// graph at the end the same.
	m.LetGoTails()
	for i, th := range m.Threads {
		all := mem.Threads[i].Intervals
		if tail, at := m.TailOf(th, &tbuf); at != 0 || len(tail)+len(all) > 0 && !reflect.DeepEqual(tail, all) {
			t.Errorf("thread %v: its tails let go, its tail from %d %+v; its intervals %+v", th.ID, at, tail, all)
		}
	}
	if got, want := m.WaitGraphAt(m.End), mem.WaitGraphAt(mem.End); !reflect.DeepEqual(got, want) {
		t.Errorf("the graph at the end, the tails let go: %+v, in memory %+v", got, want)
	}
	return blameGiven, winsGiven
}

// checkPrivate checks that f is a regular file of this user's alone, with
// no name, and that dir, where it was made, is empty again.
func checkPrivate(t *testing.T, f *os.File, dir string) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o077 != 0 || int(st.Uid) != os.Geteuid() || st.Nlink != 0 {
		t.Errorf("the spill: mode %o, owner %d, links %d; want a regular file, mode 0600 or less, owner %d, no link",
			st.Mode, st.Uid, st.Nlink, os.Geteuid())
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("the spill left %s in its directory", e.Name())
	}
}

// TestSpillPlain checks that the types the spill writes as they are in
// memory hold no pointer: a pointer written out would be read back into
// memory the garbage collector does not know holds it.
func TestSpillPlain(t *testing.T) {
	var plain func(reflect.Type) bool
	plain = func(ty reflect.Type) bool {
		switch ty.Kind() {
		case reflect.Struct:
			for i := range ty.NumField() {
				if !plain(ty.Field(i).Type) {
					t.Errorf("%s.%s is a %s", ty.Name(), ty.Field(i).Name, ty.Field(i).Type)
					return false
				}
			}
			return true
		case reflect.Array:
			return plain(ty.Elem())
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			return true
		}
		return false
	}
	for _, v := range []any{Interval{}, Sample{}, OwnerChange{}, RestState{}} {
		if !plain(reflect.TypeOf(v)) {
			t.Errorf("%T holds a pointer, a slice, a map or a string: the spill (spill.go) cannot write it as it is", v)
		}
	}
}

// TestSpillGivenUp builds with a spill that cannot be created: the model
// is built all the same, without one, and gives the same holders.
func TestSpillGivenUp(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "holder-doing")
	testrec.Write(t, testrec.Parse(t, "testdata/cases/holder-doing.txtar"), prefix)
	_, mem := testrec.Open(t, prefix)
	_, res := testrec.OpenWith(t, prefix, Options{Spill: true, SpillDir: filepath.Join(t.TempDir(), "absent")})
	if res.Model.Spilled() {
		t.Fatal("a spill in a directory that does not exist")
	}
	if got, want := res.Model.Filter(nil).HoldersDoing(), mem.Model.Filter(nil).HoldersDoing(); !reflect.DeepEqual(got, want) || len(want) == 0 {
		t.Errorf("without the spill it could not make, %d locks' holders; built without one, %d", len(got), len(want))
	}
}

// TestSpillBounded folds a synthetic recording shaped like a busy server's
// (internal/synth: long-lived threads, every event paired) with the spill
// and Options.DropIntervals: the fold must give up each thread's intervals
// once they are in the spill and behind the split of its windows, so that
// it never holds more than a few blocks a thread alive (Model.PeakIntervals),
// and the model must be the one built keeping them.
func TestSpillBounded(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "synth")
	if _, err := synth.WriteRecording(prefix, synth.Options{Seed: 7, Threads: 8, Monitors: 12, Semaphores: 4, Size: 8 << 20, Encoding: format.EncodingCompact}); err != nil {
		t.Fatal(err)
	}
	_, mem := testrec.Open(t, prefix)
	_, res := testrec.OpenWith(t, prefix, Options{Spill: true, SpillDir: t.TempDir(), DropIntervals: true, StackMark: testMark})
	m := res.Model
	// tails counts the threads whose tail the model kept, short of all
	// their intervals; checkDropped lets go of them (LetGoTails).
	tails := func() int {
		n := 0
		var buf []Interval
		for _, th := range m.Threads {
			if _, at := m.TailOf(th, &buf); at > 0 {
				n++
			}
		}
		return n
	}
	if n := tails(); n < len(m.Threads)/2 {
		t.Errorf("the tails of %d threads of %d kept: the readers at the end read the others back", n, len(m.Threads))
	}
	checkDropped(t, mem.Model, m)
	if n := tails(); n > 0 {
		t.Errorf("the tails of %d threads kept after LetGoTails", n)
	}
	if got, want := m.Filter(nil).HoldersDoing(), mem.Model.Filter(nil).HoldersDoing(); !reflect.DeepEqual(got, want) {
		t.Errorf("what the holders did, from the spill, differs from the model's in memory")
	}
	// The most threads alive at once: each holds its own blocks.
	total, alive := 0, 0
	// aliveSamples: the most samples the threads alive at once have in
	// all.
	type change struct {
		at      format.Time
		d       int // +1: a thread starts, -1: one ends
		samples int
	}
	var lives []change
	for _, th := range mem.Model.Threads {
		total += len(th.Intervals)
		n := len(th.Samples)
		lives = append(lives, change{th.Start, 1, n}, change{th.End + 1, -1, -n})
	}
	slices.SortStableFunc(lives, func(a, b change) int { return cmp.Compare(a.at, b.at) })
	aliveSamples := 0
	for n, s, i := 0, 0, 0; i < len(lives); i++ {
		n += lives[i].d
		s += lives[i].samples
		alive = max(alive, n)
		aliveSamples = max(aliveSamples, s)
	}
	if mem.Model.PeakIntervals != total {
		t.Errorf("kept, the fold held at most %d intervals of %d", mem.Model.PeakIntervals, total)
	}
	t.Logf("%d intervals, %d threads (at most %d alive at once): at most %d held with the spill", total, len(m.Threads), alive, m.PeakIntervals)
	// A thread alive holds at most its last blocks: the one being filled
	// and the one before it, behind the split of its windows (a ThreadCPU
	// line's period) or its open states'.
	if bound := 2 * MaxIvBlock * alive; m.PeakIntervals > bound || m.PeakIntervals*10 > total {
		t.Errorf("with the spill, the fold held up to %d of the %d intervals at once; want at most %d, and a tenth", m.PeakIntervals, total, bound)
	}
	// The owner changes no contention still to be folded reads are given
	// up (Builder.releaseChanges).
	changes := 0
	for _, l := range mem.Model.Locks {
		changes += len(l.OwnerChanges)
	}
	t.Logf("%d owner changes: at most %d held with the spill", changes, m.PeakOwnerChanges)
	if mem.Model.PeakOwnerChanges != changes || changes == 0 || m.PeakOwnerChanges*10 > changes {
		t.Errorf("the fold held up to %d of the %d owner changes at once, %d keeping them; want at most a tenth", m.PeakOwnerChanges, changes, mem.Model.PeakOwnerChanges)
	}
	// A thread that ended gives up its samples (Builder.retire): the fold
	// holds at most those of the threads alive at once (the model's tests
	// seal at every event), not those of every thread.
	if mem.Model.PeakSamples != mem.Model.Samples || mem.Model.Samples == 0 {
		t.Errorf("kept, the fold held at most %d samples of %d", mem.Model.PeakSamples, mem.Model.Samples)
	}
	t.Logf("%d samples, at most %d of the threads alive at once: at most %d held with the spill", m.Samples, aliveSamples, m.PeakSamples)
	if m.PeakSamples > aliveSamples || aliveSamples >= m.Samples {
		t.Errorf("with the spill, the fold held up to %d of the %d samples at once; want at most the %d of the threads alive at once", m.PeakSamples, m.Samples, aliveSamples)
	}
	// And a thread alive gives up those its windows between ThreadCPU
	// lines are split past (Builder.releaseSamples): 69 525 held before,
	// its 8 long-lived threads' all.
	if m.PeakSamples*100 > m.Samples {
		t.Errorf("with the spill, the fold held up to %d of the %d samples at once; want at most a hundredth", m.PeakSamples, m.Samples)
	}
}

// testMark marks a stack (Options.StackMark) by its depth; the empty
// stack, which is never asked, with nothing.
func testMark(fr []format.Frame) uint8 {
	if len(fr) == 0 {
		return 0
	}
	return 1 << (len(fr) % 8)
}

// TestSpillReadFails makes every read of the spill fail: a build that
// reads it back while folding fails with a *SpillError, and so does a
// reader after it (what the holders did) for RecoverSpill, where both
// panicked with a string that only a stack trace showed.
func TestSpillReadFails(t *testing.T) {
	fault := errors.New("input/output error")
	build := func(name string, faulty bool) (*Result, error) {
		prefix := filepath.Join(t.TempDir(), name)
		testrec.Write(t, testrec.Parse(t, "testdata/cases/"+name+".txtar"), prefix)
		rec, _ := testrec.Open(t, prefix)
		opt := Options{Spill: true, SpillDir: t.TempDir(), DropIntervals: true}
		if !faulty {
			return Build(rec, opt)
		}
		var res *Result
		var err error
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s: the build panicked: %v", name, r)
			}
		}()
		SpillReadFault(fault, func() { res, err = Build(rec, opt) })
		return res, err
	}
	var se *SpillError
	// Its late sample brings a finished thread back, which reads its
	// samples back as the fold goes.
	if _, err := build("sample-after-end", true); !errors.As(err, &se) || !errors.Is(err, fault) {
		t.Errorf("sample-after-end: built with a spill that cannot be read: %v; want a *SpillError", err)
	}
	res, err := build("holder-doing", false)
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer RecoverSpill(&err)
		SpillReadFault(fault, func() { res.Model.Filter(nil).HoldersDoing() })
	}()
	if !errors.As(err, &se) || !errors.Is(err, fault) || !strings.Contains(err.Error(), "temporary file") {
		t.Errorf("holder-doing: what the holders did, from a spill that cannot be read: %v; want a *SpillError", err)
	}
}

// checkParkSpans checks that m's ParkSpans of each park in an acquire of
// a j.u.c. lock (its hand-offs read back from the spill) are mem's, and
// returns how many parks it compared.
func checkParkSpans(t *testing.T, mem, m *Model) int {
	t.Helper()
	n := 0
	for _, th := range mem.Threads {
		for i := range th.Intervals {
			iv := &th.Intervals[i]
			if !iv.Acquire || iv.State != Parked && iv.State != Idle {
				continue
			}
			var got, want []OwnerSpan
			m.ParkSpans(th.ID, iv.Start, iv, func(sp OwnerSpan) bool { got = append(got, sp); return true })
			mem.ParkSpans(th.ID, iv.Start, iv, func(sp OwnerSpan) bool { want = append(want, sp); return true })
			if !slices.Equal(got, want) {
				t.Errorf("thread %v, park at %d on %v: spans %v from the spill, in memory %v", th.ID, iv.Start, iv.Object, got, want)
			}
			n++
		}
	}
	return n
}
