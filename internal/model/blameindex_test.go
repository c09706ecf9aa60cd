package model

import (
	"math/rand"
	"reflect"
	"testing"

	"orca/internal/format"
)

// walkIndex is the blameIndex the entries-only one replaced: a
// blameReader walked with the intervals in order, each contention with
// owner changes given the entry of its start it meets, if any.
func walkIndex(l *blameLog, ivs []Interval) []int32 {
	var at []int32
	var r blameReader
	r.reset(l)
	for i := range ivs {
		iv := &ivs[i]
		off := int32(-1)
		if iv.State == Blocked && iv.ownTo > iv.ownFrom {
			for r.ok && r.start < iv.Start {
				r.skip()
			}
			if r.ok && r.start == iv.Start {
				off = int32(len(l.b) - len(r.b))
				r.skip()
			}
		}
		at = append(at, off)
	}
	return at
}

// TestBlameIndexAsWalked checks, on random threads with many intervals
// of one start (empty ones), contentions with owner changes not logged,
// and entries of starts no interval has, that blameIndex gives each
// interval the spans of the entry the walk in order gives it, and none
// where the walk finds none. It fails with the j-th contention of a start
// not matched to the j-th entry of that start (e.g. every one to the
// first), or an interval without owner changes given an entry.
func TestBlameIndexAsWalked(t *testing.T) {
	rng := rand.New(rand.NewSource(34))
	matched, twins := 0, 0
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
				iv.End = at + format.Time(1+rng.Intn(3)) // then the next ones begin after it
				at = iv.End
			}
			ivs = append(ivs, iv)
			// Its entry, or none, or one of its start for another (an
			// entry no interval takes, or taken by the next of the start).
			switch rng.Intn(4) {
			case 0:
			case 1:
				l.add(&iv, []OwnerSpan{{iv.Start, iv.Start + format.Time(rng.Intn(3)), iv.First}})
			default:
				ss := []OwnerSpan{{iv.Start, iv.Start + 1, iv.First}}
				for k := rng.Intn(3); k > 0; k-- {
					e := ss[len(ss)-1].End
					ss = append(ss, OwnerSpan{e, e + format.Time(rng.Intn(4)), format.ThreadID(rng.Intn(6))})
				}
				l.add(&iv, ss)
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
			w, _ := r.spans(&ivs[i], nil)
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("round %d, interval %d: spans %v, the walk's %v", round, i, got, w)
			}
			if n >= len(ivs) {
				continue // counted in order
			}
			matched++
			if i > 0 && ivs[i-1].Start == ivs[i].Start {
				twins++
			}
		}
	}
	if matched < 10000 || twins < 1000 {
		t.Errorf("only %d intervals matched, %d after one of the same start", matched, twins)
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
