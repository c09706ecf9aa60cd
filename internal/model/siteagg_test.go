package model

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"orca/internal/format"
)

// TestSiteAgg checks that the aggregation's site figures (siteAgg and the
// rare ones, siteRare) come out as the Site of every figure added, and
// that Site has no field siteList does not set: one added to Site alone
// would be left zero in Lock.Sites.
func TestSiteAgg(t *testing.T) {
	var names []string
	st := reflect.TypeFor[Site]()
	for i := range st.NumField() {
		names = append(names, st.Field(i).Name)
	}
	if want := []string{"Stack", "Contentions", "Blocked", "Open", "OpenTime", "BeforeEvents", "BeforeAttach"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("Site's fields %v, siteList sets %v", names, want)
	}
	a := &lockAgg{l: &Lock{}}
	a.contention(7, 10, false, true)
	a.before(7, true, false)
	a.contention(7, 20, true, false)
	a.before(7, true, true)
	a.contention(9, 5, false, false)
	a.contention(7, 1, false, false)
	a.contention(7<<20, 3, true, false)
	got := map[StackID]Site{}
	for _, s := range a.siteList() {
		got[s.Stack] = s
	}
	want := map[StackID]Site{
		7:       {Stack: 7, Contentions: 2, Blocked: 11, Open: 1, OpenTime: 20, BeforeEvents: 1, BeforeAttach: 2},
		9:       {Stack: 9, Contentions: 1, Blocked: 5},
		7 << 20: {Stack: 7 << 20, Open: 1, OpenTime: 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sites\ngot  %+v\nwant %+v", got, want)
	}
	// held: the site of a contention that entered the monitor, kept by
	// the contentions there after it.
	var held []uint64
	for _, s := range a.c.sites.sorted() {
		if s.e.held {
			held = append(held, s.key)
		}
	}
	if !reflect.DeepEqual(held, []uint64{7}) {
		t.Errorf("sites held %v, want [7]", held)
	}
}

// TestBlameContention checks blameContention against each span blamed on
// its owner and the contention on its owner at the end, apart: the same
// owners' figures, zeros too, and the time of no owner, whether the last
// span's owner is the one at the end or not, ended or open.
func TestBlameContention(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	got := &aggregator{m: &Model{}, by: map[uint64]*lockAgg{}, all: true}
	want := &aggregator{m: &Model{}, by: map[uint64]*lockAgg{}, all: true}
	for range 2000 {
		obj := format.ObjectID(1 + r.IntN(3))
		ss := make([]OwnerSpan, 1+r.IntN(3))
		at := format.Time(r.IntN(100))
		for i := range ss {
			d := format.Time(r.IntN(4)) // empty spans too
			ss[i] = OwnerSpan{at, at + d, format.ThreadID(r.IntN(4))}
			at += d
		}
		other := format.ThreadID(r.IntN(4))
		n, open := 1, 0
		if r.IntN(4) == 0 {
			n, open = 0, 1
		}
		got.get(obj, Monitor).blameContention(ss, other, n, open)
		w := want.get(obj, Monitor)
		for _, sp := range ss {
			w.blame(sp.Owner, 0, sp.End-sp.Start)
			if sp.Owner == 0 {
				w.l.OwnerUnknownTime += sp.End - sp.Start
			}
		}
		w.addBlame(other, n, 0, open)
	}
	gl, _ := got.locks()
	wl, _ := want.locks()
	if !reflect.DeepEqual(gl, wl) {
		t.Errorf("locks\ngot  %+v\nwant %+v", gl, wl)
	}
	for _, l := range gl {
		if l.OwnerUnknownTime == 0 || len(l.Owners) != 3 {
			t.Errorf("lock %v: %d owners, unknown time %d: the test's spans are not all kinds", l.Object, len(l.Owners), l.OwnerUnknownTime)
		}
	}
}

// TestWaitSites: a lock's waits at one site are kept beside it (ws1),
// at more in its table, ws1 moved there at the second site: finish
// lists each site's sums, one at most or many, most time first.
func TestWaitSites(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, sites := range []int{1, 1, 2, 3, 40} {
		a := &lockAgg{l: &Lock{}}
		want := map[StackID]WaitSite{}
		for range 50 {
			st := StackID(1 + r.IntN(sites))
			d := format.Time(1 + r.IntN(1000))
			ws := a.waitSite(st)
			ws.Waits++
			ws.Time += d
			w := want[st]
			w.Stack, w.Waits, w.Time = st, w.Waits+1, w.Time+d
			if r.IntN(3) == 0 {
				ws.TimedOut++
				w.TimedOut++
			}
			want[st] = w
		}
		got := a.finish().WaitSites
		if len(got) != len(want) {
			t.Fatalf("%d sites: %d listed, want %d", sites, len(got), len(want))
		}
		for i, w := range got {
			if w != want[w.Stack] || i > 0 && (got[i-1].Time < w.Time || got[i-1].Time == w.Time && got[i-1].Stack > w.Stack) {
				t.Errorf("%d sites: site %d %+v, want %+v in order of time", sites, i, w, want[w.Stack])
			}
		}
		if a.ws1On != (len(want) == 1) {
			t.Errorf("%d sites: ws1 used %v for %d", sites, a.ws1On, len(want))
		}
	}
}
