package model_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"golang.org/x/tools/txtar"

	. "orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/testrec"
)

// dormantRecording has what a dormant blocker's record must keep or give
// back: objects parked on once, woken by a park again after many events
// (the model's tests seal at each), parked on by a thread that ends long
// after (its first wait given to the record), with a class told after
// the park, timed out, still parked at the end, unparked by three
// threads (not a record), contended as a monitor after (a Lock at the
// end), grouped and not.
func dormantRecording() string {
	var r recorder
	for _, th := range []string{"C1", "C2", "C3", "57", "58", "59"} {
		r.line("ThreadStarted,%s,%s", th, th)
	}
	r.now = 1e9
	for k := range 30 {
		obj := 0x50000 + k
		if k%3 == 0 {
			r.line("ObjectClass,C1,%X,%s", obj, futureTask)
		}
		r.park([]string{"C1", "C2"}[k%2], obj, "1;1;1", int64(k%4+1))
		if k%3 != 0 {
			r.line("ObjectClass,C1,%X,%s", obj, futureTask) // after its park
		}
	}
	// Timed out, and two parks then a third by another unparker.
	r.line("ThreadPark,C3,60001,0,1000000,1;2;2")
	r.now += 2e6
	r.line("ThreadUnparked,C3,60001,timeout,0")
	for i, by := range []string{"57", "58", "59"} {
		r.line("ThreadPark,C%d,60002,0,,1;2;2", i+1)
		r.now += 1e6
		r.line("ThreadUnpark,%s,C%d,0", by, i+1)
		r.line("ThreadUnparked,C%d,60002,unparked,0", i+1)
	}
	// Parked on again, long after: a Lock again, then a record again.
	for k := range 5 {
		r.park("C2", 0x50000+3*k, "1;1;1", 1)
	}
	// Parked on once, then contended as a monitor.
	r.park("C1", 0x60003, "1;3;3", 1)
	r.line("MonitorContendedEnter,C2,60003,C1,1;6;6")
	r.now += 1e6
	r.line("MonitorContendedEntered,C2,60003,1;6;6")
	r.line("ThreadEnded,C1")
	// Still parked at the end.
	r.line("ThreadPark,C3,60004,0,,1;2;2")
	r.now += 1e6
	return r.b.String()
}

// manyRecording parks on more objects, once each, than the fold keeps
// the dead Locks of (dropDead: over 1024, and half of Model.Locks), for
// other lengths, with other ends, classes and sites, so that the dormant
// ones' memory is taken again by the next (Builder.blkFree,
// aggregator.aggFree); then parks again on some made dormant, and waits
// on others (a monitor).
func manyRecording() string {
	var r recorder
	ths := []string{"C1", "C2", "C3"}
	for _, th := range append(ths, "57") {
		r.line("ThreadStarted,%s,%s", th, th)
	}
	r.now = 1e9
	const n = 3000
	for k := 0; k < n; k += len(ths) {
		// The threads park on one object each at once: the blockers'
		// memory is live together.
		for j, th := range ths {
			obj := 0x100000 + k + j
			if (k+j)%4 == 0 {
				r.line("ObjectClass,C1,%X,%s", obj, futureTask)
			}
			if (k+j)%5 == 0 {
				r.line("ThreadPark,%s,%X,0,1000000,1;2;2", th, obj)
			} else {
				r.line("ThreadPark,%s,%X,0,,%s", th, obj, []string{"1;1;1", "1;3;3"}[(k+j)%2])
			}
			r.now += 1e6
		}
		for j, th := range ths {
			obj := 0x100000 + k + j
			r.now += int64((k+j)%7+1) * 1e6
			if (k+j)%5 == 0 {
				r.line("ThreadUnparked,%s,%X,timeout,0", th, obj)
				continue
			}
			r.line("ThreadUnpark,57,%s,0", th)
			r.line("ThreadUnparked,%s,%X,unparked,0", th, obj)
		}
	}
	for k := 0; k < n; k += 13 {
		r.park("C2", 0x100000+k, "1;1;1", 2)
	}
	for k := 0; k < n; k += 97 {
		r.wait("C3", 0x100000+k, "1;4;4", 1)
	}
	return r.b.String()
}

// TestDormant folds recordings with dormant blockers and with every
// blocker a Lock: the same locks (the groups' members kept as records
// made Locks by Model.Lock), the same groups, the same classes.
func TestDormant(t *testing.T) {
	same := func(t *testing.T, name string, with, without *Model) {
		t.Helper()
		if with.NumLocks() != without.NumLocks() || len(with.Groups) != len(without.Groups) {
			t.Fatalf("%s: %d locks, %d groups; without records %d, %d", name, with.NumLocks(), len(with.Groups), without.NumLocks(), len(without.Groups))
		}
		for _, l := range without.Locks {
			if w := with.Lock(l.Object, l.Kind); w == nil || !reflect.DeepEqual(*w, *l) {
				t.Errorf("%s: %s %v: %+v; without records %+v", name, l.Kind, l.Object, w, *l)
			}
			if c, c0 := with.Class(l.Object), without.Class(l.Object); c != c0 {
				t.Errorf("%s: %v's class %q, without records %q", name, l.Object, c, c0)
			}
		}
		for i, g := range without.Groups {
			w := with.Groups[i]
			if !reflect.DeepEqual(w.Lock, g.Lock) || w.Site != g.Site || w.MaxWaits != g.MaxWaits || !reflect.DeepEqual(w.Members, g.Members) {
				t.Errorf("%s: group %d: %+v; without records %+v", name, i, *w, *g)
			}
		}
	}
	var records, cold int
	fold := func(t *testing.T, name, lines string) {
		var with, without, inFile *Model
		with = foldLines(t, lines)
		NoDormant(func() { without = foldLines(t, lines) })
		RecsCold(t.TempDir(), func() { inFile = foldLines(t, lines) })
		same(t, name, with, without)
		same(t, name+" (records in a file)", inFile, without)
		records += with.NumLocks() - len(with.Locks)
		cold += inFile.ColdRecs()
		// A chunk written out is the next one's memory: with one kept in
		// memory (RecsCold), one made at all.
		if made, all := inFile.RecChunks(); inFile.ColdRecs() > 0 && made != 1 {
			t.Errorf("%s: %d chunks of records made for %d, %d written out", name, made, all, inFile.ColdRecs())
		}
	}
	fold(t, "groups", groupRecording())
	fold(t, "dormant", dormantRecording())
	many := manyRecording()
	fold(t, "many", many)
	// The many's dormant blockers' memory was taken again, and the same
	// blockers are kept as Locks at the end as with all of it new.
	build := func() (m *Model, locks, states, aggs, objs int) {
		b := New()
		modeltest.Feed(t, b, many)
		// While the fold goes its locks and their aggregates are found by
		// object (indexLocks): nothing in the maps by lock, and Lock and
		// Class answer from the fold's objects.
		if n, a, fm := b.Indexed(); n != 0 || a != 0 {
			t.Errorf("many: %d locks and %d aggregates indexed by lock before Finalize, want none", n, a)
		} else if l := fm.Lock(0x100000+97, Monitor); l == nil || l.Object != 0x100000+97 || l.Kind != Monitor || fm.Class(0x100000) != futureTask {
			t.Errorf("many: before Finalize, the monitor %x is %+v, %x's class %q", 0x100000+97, l, 0x100000, fm.Class(0x100000))
		}
		locks, states, aggs, objs = b.Reused()
		m = b.Finalize()
		if n, _, _ := b.Indexed(); n != len(m.Locks) {
			t.Errorf("many: %d locks indexed by lock after Finalize, %d Locks", n, len(m.Locks))
		}
		return m, locks, states, aggs, objs
	}
	m, locks, states, aggs, objs := build()
	if locks < 1000 || states < 1000 || aggs < 1000 || objs < 1000 {
		t.Errorf("many: %d Locks, %d fold states, %d aggregates and %d objects' entries of dormant blockers taken again, want 1000 each at least", locks, states, aggs, objs)
	}
	var m0 *Model
	NoReuse(func() { m0, locks, states, aggs, objs = build() })
	if locks+states+aggs+objs != 0 {
		t.Errorf("many: %d Locks, %d fold states, %d aggregates and %d objects' entries taken again with none given", locks, states, aggs, objs)
	}
	if m.NumLocks() != m0.NumLocks() || len(m.Locks) != len(m0.Locks) {
		t.Errorf("many: %d locks, %d Locks; made anew %d, %d", m.NumLocks(), len(m.Locks), m0.NumLocks(), len(m0.Locks))
	}
	same(t, "many (made anew)", m, m0)
	// The report's and the model's cases, folded as orca report does.
	paths, _ := filepath.Glob("../report/testdata/*.txtar")
	cases, _ := filepath.Glob("testdata/cases/*.txtar")
	for _, p := range append(paths, cases...) {
		ar := testrec.Parse(t, p)
		dir := t.TempDir()
		prefix := filepath.Join(dir, "r")
		testrec.Write(t, &txtar.Archive{Files: ar.Files}, prefix)
		opt := Options{Spill: true, SpillDir: dir, DropIntervals: true, SpillOwners: true}
		_, with := testrec.OpenWith(t, prefix, opt)
		var without, inFile *Result
		NoDormant(func() { _, without = testrec.OpenWith(t, prefix, opt) })
		RecsCold(dir, func() { _, inFile = testrec.OpenWith(t, prefix, opt) })
		same(t, p, with.Model, without.Model)
		same(t, p+" (records in a file)", inFile.Model, without.Model)
		records += with.Model.NumLocks() - len(with.Model.Locks)
		cold += inFile.Model.ColdRecs()
	}
	if records == 0 || cold == 0 {
		t.Errorf("%d groups' members kept as records, %d chunks of them in a file", records, cold)
	}
	t.Logf("%d groups' members kept as records, %d chunks of them in a file", records, cold)
}
