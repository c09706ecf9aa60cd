package model

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"orca/internal/format"
)

// TestThreadPack packs Threads and unpacks them: each field of a Thread
// that a packed one keeps, set alone and all at once, comes back (a field
// added to Thread and not to packThread fails here), extremes of the
// times and counts too, a long name, list and tail.
func TestThreadPack(t *testing.T) {
	// Not packed: a Thread that holds them is not packable.
	notKept := map[string]bool{"Intervals": true, "Samples": true, "Sched": true, "fold": true}
	// Set apart: the list and the tail are bytes elsewhere.
	list := []byte{0x81, 0x01, 0x02, 0x7f, 0x00}
	tail := appendTail(nil, []Interval{{Start: 1, End: 2, State: Blocked, Object: 9, Open: true}})
	var ths []Thread
	var all Thread
	rt := reflect.TypeOf(Thread{})
	for i := range rt.NumField() {
		fd := rt.Field(i)
		if notKept[fd.Name] {
			continue
		}
		var th Thread
		for _, dst := range []*Thread{&th, &all} {
			switch fd.Name {
			case "spill":
				dst.spill.set(list)
				continue
			case "tail":
				dst.tail = &tail[0]
				continue
			case "tailN":
				dst.tailN = uint32(len(tail))
				continue
			}
			set(t, reflect.NewAt(fd.Type, unsafe.Add(unsafe.Pointer(dst), fd.Offset)).Elem(), i, "Thread."+fd.Name)
		}
		if fd.Name == "tail" || fd.Name == "tailN" {
			th.tail, th.tailN = &tail[0], uint32(len(tail))
		}
		ths = append(ths, th)
	}
	long := Thread{ID: math.MaxUint64, Parent: 1, Name: strings.Repeat("ü-worker-", 200), Start: math.MinInt64, End: math.MaxInt64,
		Events: math.MaxInt64, Carrier: math.MaxUint64, StartedAt: math.MaxUint32, Carriers: math.MinInt32, Pinned: math.MaxInt32,
		nSched: math.MaxInt32, tailAt: math.MinInt32, StackMarks: math.MaxUint8, Ended: true, Virtual: true, tailOK: true, ivsUnsorted: true,
		Run: RunSplit{math.MinInt64, math.MaxInt64, -1, 1, 0}}
	for s := range long.Time {
		long.Time[s] = format.Time(math.MaxInt64 - s)
	}
	longList := make([]byte, 3000)
	for i := range longList {
		longList[i] = byte(i)
	}
	long.spill.set(longList)
	ths = append(ths, all, long, Thread{}, Thread{Start: 5, End: 3}, Thread{Start: math.MaxInt64, End: math.MinInt64})
	for i := range ths {
		in := &ths[i]
		if !packable(in) {
			t.Fatalf("thread %d not packable", i)
		}
		p := packThread([]byte{0xff}, in)
		var out Thread
		unpackThread(&out, append(p[1:], 0xee, 0xdd)) // what follows a record is not read
		if !samePacked(&out, in) {
			t.Errorf("thread %d: %+v back, want %+v", i, out, *in)
		}
		if name := packedName(p[1:]); string(name) != in.Name {
			t.Errorf("thread %d: packedName %q, want %q", i, name, in.Name)
		}
		if n := packedLen(append(p[1:], 0xee, 0xdd)); n != len(p)-1 {
			t.Errorf("thread %d: packedLen %d, want %d", i, n, len(p)-1)
		}
	}
	for name := range notKept {
		th := Thread{}
		f := reflect.ValueOf(&th).Elem().FieldByName(name)
		if f.Kind() == reflect.Pointer {
			th.fold = &threadFold{}
		} else {
			reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.MakeSlice(f.Type(), 0, 0))
		}
		if packable(&th) {
			t.Errorf("a Thread with %s is packable", name)
		}
	}
}

// set sets f, field i of a struct, to a value other than zero, at the
// edge of its kind.
func set(t *testing.T, f reflect.Value, i int, name string) {
	switch f.Kind() {
	case reflect.Bool:
		f.SetBool(true)
	case reflect.Uint8:
		f.SetUint(math.MaxUint8 - uint64(i))
	case reflect.Uint32:
		f.SetUint(math.MaxUint32 - uint64(i))
	case reflect.Uint64:
		f.SetUint(math.MaxUint64 - uint64(i))
	case reflect.Int32:
		f.SetInt(math.MinInt32 + int64(i))
	case reflect.Int64, reflect.Int:
		f.SetInt(int64(-1e15) - int64(i))
	case reflect.String:
		f.SetString("thread-" + strings.Repeat("x", i))
	case reflect.Array:
		for k := range f.Len() {
			set(t, f.Index(k), i+k, name)
		}
	case reflect.Struct:
		for k := range f.NumField() {
			set(t, f.Field(k), i+k, name+"."+f.Type().Field(k).Name)
		}
	default:
		t.Fatalf("%s: a %s, which TestThreadPack does not set", name, f.Kind())
	}
}

// samePacked reports whether a, unpacked, is b: the list and the tail
// by their bytes.
func samePacked(a, b *Thread) bool {
	if string(a.spill.bytes()) != string(b.spill.bytes()) || string(unsafe.Slice(a.tail, a.tailN)) != string(unsafe.Slice(b.tail, b.tailN)) {
		return false
	}
	x, y := *a, *b
	x.spill, y.spill, x.tail, y.tail = spillRef{}, spillRef{}, nil, nil
	return reflect.DeepEqual(x, y)
}

// TestThreadPackUpdateKeepsNames: a packed thread's name that a reader
// holds (a copy's from ThreadAt, NameOf's: strings into the packed block)
// stays its name when the thread is packed again, whether its tail was
// let go (its record shorter after the name) or a field before the name
// changed (the record packed anew). An ActiveMQ recording's deadlocked
// threads were reported as "ctiveMQ … Task-8\x10" when LetGoTails
// shortened the varint of where their tail began, before the name.
func TestThreadPackUpdateKeepsNames(t *testing.T) {
	tail := appendTail(nil, []Interval{{Start: 1, End: 2, State: Blocked, Object: 9}, {Start: 2, End: 3, State: Waiting}})
	th := Thread{ID: 0x49EE40F8, Name: "ActiveMQ BrokerService[localhost] Task-8", Start: 1e9, End: 2e9, Ended: true,
		Events: 5, tailAt: 100_000, tail: &tail[0], tailN: uint32(len(tail))}
	th.spill.set([]byte{0x81, 0x01, 0x02, 0x7f, 0x00})
	tp := &threadPack{}
	var scratch []byte
	loc, ok := tp.add(&th, &scratch)
	if !ok {
		t.Fatal("not packed")
	}
	tp.loc = []uint32{loc}
	m := &Model{Threads: []*Thread{nil}, packed: tp}
	held := m.ThreadAt(0).Name
	check := func(when string, want *Thread) {
		t.Helper()
		if held != th.Name {
			t.Errorf("%s: the name held reads %q, want %q", when, held, th.Name)
		}
		if got := m.ThreadAt(0); !samePacked(got, want) {
			t.Errorf("%s: %+v back, want %+v", when, *got, *want)
		}
	}
	c := m.ThreadAt(0)
	c.tail, c.tailN, c.tailAt, c.tailOK = nil, 0, 0, false // LetGoTails
	m.updateThread(0, c)
	check("tail let go", c)
	c = m.ThreadAt(0)
	c.Events = 1 << 40 // a field before the name, longer
	m.updateThread(0, c)
	check("head changed", c)
	c = m.ThreadAt(0)
	c.Events = 3 // shorter
	m.updateThread(0, c)
	check("head shorter", c)
}
