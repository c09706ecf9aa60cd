package model

import (
	"reflect"
	"testing"
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
	a := &lockAgg{}
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
	for _, s := range a.sites.sorted() {
		if s.e.held {
			held = append(held, s.key)
		}
	}
	if !reflect.DeepEqual(held, []uint64{7}) {
		t.Errorf("sites held %v, want [7]", held)
	}
}
