package model

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestDormantFields sets each field of a dormant blocker's Lock and
// aggregate in turn: the blocker is no longer dormant, or its record
// gives the field back. A field added to either and not to the record
// fails here.
func TestDormantFields(t *testing.T) {
	base := func() *lockAgg {
		l := &Lock{Object: 5, Kind: Blocker, Class: "LFoo;", Waits: 2, WaitTime: 30, MaxWait: 20, Notified: 1, TimedOut: 1, Interrupted: 1}
		a := &lockAgg{l: l, src: l, n: 7, ws1On: true, ws1: waitAgg{Stack: 3, Waits: 2, TimedOut: 1, Time: 30}}
		a.waitedBy = []firstAt{{9, 100}}
		a.solo, a.soloTh, a.soloAt = soloOne, 9, 100
		a.unparked.add(4, 10)
		return a
	}
	if !base().dormant() {
		t.Fatal("the base blocker is not dormant")
	}
	if n := unsafe.Sizeof(blkRec{}); n != 80 {
		t.Errorf("a record of %d bytes, want 80", n)
	}
	back := func(a *lockAgg) *lockAgg {
		r := a.record()
		return r.agg(&Lock{Object: a.l.Object, Kind: a.l.Kind, Class: a.l.Class})
	}
	if b := base(); !reflect.DeepEqual(*back(b).l, *b.l) {
		t.Fatalf("the base blocker's record gives %+v, not %+v", *back(b).l, *b.l)
	}
	// bump makes field f (of a struct in memory) not zero, or else
	// different.
	var bump func(f reflect.Value)
	bump = func(f reflect.Value) {
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
		switch f.Kind() {
		case reflect.Int, reflect.Int32, reflect.Int64:
			f.SetInt(f.Int() + 1)
		case reflect.Uint8, reflect.Uint32, reflect.Uint64:
			f.SetUint(f.Uint() + 1)
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Slice:
			f.Set(reflect.Append(f, reflect.New(f.Type().Elem()).Elem()))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type()))
		case reflect.Struct:
			if f.NumField() > 0 {
				bump(f.Field(f.NumField() - 1))
			}
		default:
			t.Fatalf("field of kind %v", f.Kind())
		}
	}
	lt := reflect.TypeOf(Lock{})
	for i := range lt.NumField() {
		if name := lt.Field(i).Name; name == "Object" || name == "Kind" || name == "Class" {
			continue // the record's key, and its class from the fold's object
		}
		a := base()
		bump(reflect.ValueOf(a.l).Elem().Field(i))
		if a.dormant() && !reflect.DeepEqual(*back(a).l, *a.l) {
			t.Errorf("Lock.%s set: dormant, its record gives %+v, not %+v", lt.Field(i).Name, *back(a).l, *a.l)
		}
	}
	at := reflect.TypeOf(lockAgg{})
	for i := range at.NumField() {
		switch at.Field(i).Name {
		case "l", "src", "sp", "ag", "listed":
			continue // made by wakeRec, or the sleep's own
		}
		a := base()
		bump(reflect.ValueOf(a).Elem().Field(i))
		if !a.dormant() {
			continue
		}
		b := back(a)
		b.l, b.src, b.sp, b.ag, b.listed = a.l, a.src, a.sp, a.ag, a.listed
		switch {
		case b.solo == soloMany:
			// Its one thread's first not held (another's is), or more
			// than one thread: the Lock woken holds none (owned firsts).
			b.solo, b.soloTh, b.soloAt = a.solo, a.soloTh, a.soloAt
		case a.solo == soloOne && b.solo == soloOne && b.soloTh == a.soloTh:
			// The thread's first wait: soloAt, or the first it gave as it
			// ended if earlier.
			want := a.soloAt
			for _, f := range a.waitedBy {
				if f.th == a.soloTh {
					want = min(want, f.at)
				}
			}
			if b.soloAt != want {
				t.Errorf("lockAgg.%s set: the record's thread first at %d, want %d", at.Field(i).Name, b.soloAt, want)
			}
			b.soloAt = a.soloAt
		}
		if !reflect.DeepEqual(*b, *a) {
			t.Errorf("lockAgg.%s set: dormant, its record gives %+v, not %+v", at.Field(i).Name, *b, *a)
		}
	}
}
