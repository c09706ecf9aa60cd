package model

import (
	"math/rand"
	"reflect"
	"testing"

	"orca/internal/format"
)

// walkIndex is the blameIndex the entries-only one replaced: a
// blameReader walked with the intervals in order, each contention with
// owner changes and each park (logKind) given the entry of its start it
// meets, if any and of its kind (one of the other kind is passed).
func walkIndex(l *blameLog, ivs []Interval) []int32 {
	var at []int32
	var r blameReader
	r.reset(l)
	for i := range ivs {
		iv := &ivs[i]
		off := int32(-1)
		if k := logKind(iv); k != 0 {
			for r.ok && r.start < iv.Start {
				r.skip()
			}
			if r.ok && r.start == iv.Start {
				if r.park() == (k == 2) {
					off = int32(len(l.b) - len(r.b))
				}
				r.skip()
			}
		}
		at = append(at, off)
	}
	return at
}

// TestBlameIndexAsWalked checks, on random threads with many intervals
// of one start (empty ones), contentions with owner changes and parks in
// acquires not logged, and entries of starts no interval has, of either
// kind, that blameIndex gives each interval the spans of the entry the
// walk in order gives it, and none where the walk finds none. It fails
// with the j-th contention or park of a start not matched to the j-th
// entry of that start (e.g. every one to the first, or the parks not
// counted), an interval without owner changes given an entry, or an
// entry of the other kind read as the interval's.
func TestBlameIndexAsWalked(t *testing.T) {
	rng := rand.New(rand.NewSource(34))
	matched, twins, parks := 0, 0, 0
	for round := 0; round < 3000; round++ {
		var ivs []Interval
		var l blameLog
		at := format.Time(0)
		for n := rng.Intn(40); len(ivs) < n; {
			if rng.Intn(3) > 0 {
				at += format.Time(rng.Intn(5))
			}
			iv := Interval{Start: at, End: at, State: State(rng.Intn(int(NumStates))), First: format.ThreadID(rng.Intn(4))}
			if rng.Intn(2) == 0 {
				iv.State = Blocked
			}
			if rng.Intn(4) > 0 {
				iv.ownFrom, iv.ownTo = 1, 1+uint32(rng.Intn(3))
			}
			if rng.Intn(3) == 0 {
				// A park in an acquire (or, one in eight, an
				// acquire's interval of another state: no entry).
				iv.State, iv.Acquire = Parked, true
				if r := rng.Intn(8); r == 0 {
					iv.State = Runnable
				} else if r < 3 {
					iv.State = Idle
				}
				iv.Other = format.ThreadID(rng.Intn(4))
			}
			if rng.Intn(3) == 0 {
				iv.End = at + format.Time(1+rng.Intn(3)) // then the next ones begin after it
				at = iv.End
			}
			ivs = append(ivs, iv)
			// Its entry, or none, or one of its start for another (an
			// entry no interval takes, or taken by the next of the
			// start), a contention's or a park's.
			ss := []OwnerSpan{{iv.Start, iv.Start + format.Time(rng.Intn(3)), iv.First}}
			if rng.Intn(4) > 1 {
				ss[0].End = iv.Start + 1
				for k := rng.Intn(3); k > 0; k-- {
					e := ss[len(ss)-1].End
					ss = append(ss, OwnerSpan{e, e + format.Time(rng.Intn(4)), format.ThreadID(rng.Intn(6))})
				}
			}
			switch rng.Intn(5) {
			case 0:
			case 1, 2:
				l.add(&iv, ss)
			default:
				// A park's: its ParkOwner first, the last to its end.
				p := iv
				p.End = max(p.End, ss[len(ss)-1].Start)
				ss[0].Owner, ss[len(ss)-1].End = p.ParkOwner(), p.End
				l.addPark(&p, ss)
			}
		}
		want := walkIndex(&l, ivs)
		var x blameIndex
		x.reset(&l, ivs)
		// In order, then again in any order (as the pieces of two locks
		// step back).
		order := make([]int, len(ivs))
		for i := range order {
			order[i] = i
		}
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for n, i := range append(seq(len(ivs)), order...) {
			got, ok := x.spansAt(i, &ivs[i], nil)
			if ok != (want[i] >= 0) {
				t.Fatalf("round %d, interval %d of %+v: found %v, the walk %v", round, i, ivs, ok, want[i] >= 0)
			}
			if !ok {
				continue
			}
			r := blameReader{b: l.b[want[i]:], start: ivs[i].Start, ok: true}
			var w []OwnerSpan
			if logKind(&ivs[i]) == 2 {
				w, _ = r.parkSpans(&ivs[i], nil)
			} else {
				w, _ = r.spans(&ivs[i], nil)
			}
			if len(w) == 0 {
				t.Fatalf("round %d, interval %d: no spans read from its entry", round, i)
			}
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("round %d, interval %d: spans %v, the walk's %v", round, i, got, w)
			}
			if n >= len(ivs) {
				continue // counted in order
			}
			matched++
			if logKind(&ivs[i]) == 2 {
				parks++
			}
			if i > 0 && ivs[i-1].Start == ivs[i].Start {
				twins++
			}
		}
	}
	if matched < 10000 || twins < 1000 || parks < 3000 {
		t.Errorf("only %d intervals matched, %d after one of the same start, %d parks", matched, twins, parks)
	}
}

// TestBlameLogOffered checks, on random threads whose contentions with
// owner changes and parks in acquires are all offered to the log in
// order (as the aggregation does), many of one start and some refused
// (spans not from the interval's start), that a reader walking the
// intervals in order finds an entry for exactly those add and addPark
// logged: Options.SpansFromLogs gives to the spill the owner changes of
// the others alone. It fails with an interval logged at the start of one
// refused before it (the reader gives the refused one its entry, and
// falls back to owner changes not kept for the one logged).
func TestBlameLogOffered(t *testing.T) {
	rng := rand.New(rand.NewSource(166))
	logged, refused, twins := 0, 0, 0
	for round := 0; round < 3000; round++ {
		var ivs []Interval
		var ok []bool
		var l blameLog
		at := format.Time(0)
		for n := rng.Intn(30); len(ivs) < n; {
			if rng.Intn(3) == 0 {
				at += format.Time(1 + rng.Intn(3))
			}
			iv := Interval{Start: at, End: at + format.Time(rng.Intn(3)), State: Blocked, First: format.ThreadID(1 + rng.Intn(3)), ownFrom: 1, ownTo: 2}
			if rng.Intn(3) == 0 {
				iv.State, iv.Acquire, iv.Other = Parked, true, format.ThreadID(1+rng.Intn(3))
			}
			first := iv.First
			if iv.Acquire {
				first = iv.ParkOwner()
			}
			ss := []OwnerSpan{{iv.Start, iv.End, first}}
			if rng.Intn(4) == 0 {
				ss[0].Start-- // not from its start: refused
			}
			var a bool
			if iv.Acquire {
				a = l.addPark(&iv, ss)
			} else {
				a = l.add(&iv, ss)
			}
			ivs, ok = append(ivs, iv), append(ok, a)
		}
		found := walkIndex(&l, ivs)
		for i := range ivs {
			if (found[i] >= 0) != ok[i] {
				t.Fatalf("round %d, interval %d of %+v: logged %v, the reader finds an entry %v", round, i, ivs, ok[i], found[i] >= 0)
			}
			if ok[i] {
				logged++
			} else {
				refused++
			}
			if i > 0 && ivs[i-1].Start == ivs[i].Start && !ok[i-1] {
				twins++
			}
		}
	}
	if logged < 5000 || refused < 5000 || twins < 1000 {
		t.Errorf("only %d intervals logged, %d refused, %d after a refused one of the same start", logged, refused, twins)
	}
}

// seq is 0, 1, …, n-1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
