package model

import (
	"math"
	"reflect"
	"testing"
	"unsafe"
)

// TestTailPack packs intervals and unpacks them: each field of an
// Interval, set alone and all at once, comes back (a field added to
// Interval and not to packTail fails here), extremes of the times too.
func TestTailPack(t *testing.T) {
	var ivs []Interval
	var all Interval
	rv := reflect.TypeOf(Interval{})
	for i := range rv.NumField() {
		if rv.Field(i).Name == "objNum" {
			// A build's own numbering, kept only with Options.Reuse, which
			// spills nothing: no tail has it (Model.ObjectNum says 0).
			continue
		}
		var iv Interval
		for _, dst := range []*Interval{&iv, &all} {
			f := reflect.NewAt(rv.Field(i).Type, unsafe.Add(unsafe.Pointer(dst), rv.Field(i).Offset)).Elem()
			switch f.Kind() {
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Uint8:
				f.SetUint(uint64(i + 1))
			case reflect.Uint32:
				f.SetUint(math.MaxUint32 - uint64(i))
			case reflect.Uint64:
				f.SetUint(math.MaxUint64 - uint64(i))
			case reflect.Int64:
				f.SetInt(int64(1e15) + int64(i))
			default:
				t.Fatalf("Interval.%s: a %s, which TestTailPack does not set", rv.Field(i).Name, f.Kind())
			}
		}
		ivs = append(ivs, iv)
	}
	ivs = append(ivs, all,
		Interval{Start: math.MinInt64, End: math.MaxInt64, Since: math.MaxInt64},
		Interval{Start: math.MaxInt64, End: math.MinInt64, Since: math.MinInt64},
		Interval{Start: 5, End: 3, Since: 9, State: Parked, Wake: WakeUnpark, Timeout: TimeoutSet, Open: true})
	p := appendTail([]byte{0xff}, ivs)
	got := unpackTail([]Interval{{}}, p[1:])
	if !reflect.DeepEqual(got[1:], ivs) {
		for i := range ivs {
			if i+1 < len(got) && got[i+1] != ivs[i] {
				t.Errorf("interval %d: %+v, want %+v", i, got[i+1], ivs[i])
			}
		}
		t.Fatalf("%d intervals back, want %d", len(got)-1, len(ivs))
	}
	if got[0] != (Interval{}) {
		t.Errorf("dst's first: %+v", got[0])
	}
	if len(unpackTail(nil, appendTail(nil, nil))) != 0 {
		t.Errorf("an empty tail unpacked is not empty")
	}
	// Kept by a Builder: each thread's tail from its own bytes, across
	// blocks.
	b := New()
	ths := make([]Thread, 3*tailBlock/len(p))
	for i := range ths {
		b.keepTail(&ths[i], ivs[i%len(ivs):])
	}
	for i := range ths {
		if got := ths[i].tails(nil); !reflect.DeepEqual(got, ivs[i%len(ivs):]) && len(got)+len(ivs[i%len(ivs):]) > 0 {
			t.Fatalf("thread %d's tail: %d intervals, want %d", i, len(got), len(ivs[i%len(ivs):]))
		}
	}
}
