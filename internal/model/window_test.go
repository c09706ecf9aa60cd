package model

import (
	"testing"

	"orca/internal/format"
)

// TestWindowBlocks splits windows from intervals in blocks, some read
// back (front) and the rest in an ivList's blocks, as the fold does, and
// from all of them in one slice, as CheckSplit does: the same windows and
// cursors, and no allocation for the walk over the blocks (its counters
// moved to the heap when it was a function given to the blocks' walk).
func TestWindowBlocks(t *testing.T) {
	th := &Thread{Start: 0, End: 1000}
	var all []Interval
	for s := format.Time(5); s < 990; s += 20 {
		all = append(all, Interval{Start: s, End: s + 10, Since: s})
	}
	for at := format.Time(1); at < 1000; at += 7 {
		kind := format.SampleCPU
		if at%3 == 0 {
			kind = format.SampleWall
		}
		th.Samples = append(th.Samples, Sample{At: at, Weight: 2, Kind: kind})
	}
	for at := format.Time(0); at <= 1000; at += 125 {
		th.Sched = append(th.Sched, SchedTime{At: at, CPU: at / 3, Ready: at / 7})
	}
	lents := []lent{{at: 130, weight: 4}, {at: 600, weight: 9}}
	// The first 7 intervals given up (read back), the rest in blocks of
	// 4, 8, 16, … as ivList.add makes them.
	const base = 7
	l := &ivList{base: base}
	for _, iv := range all[base:] {
		l.add(iv, nil, nil)
	}
	var c1, c2 Cursor
	var front []Interval
	var wall format.Time
	for n := 1; n < len(th.Sched); n++ {
		p, q := th.Sched[n-1], th.Sched[n]
		blocks := ivBlocks{l: l, from: c1.iv - base}
		if c1.iv < base {
			front = append(front[:0], all[c1.iv:base]...)
			blocks.front, blocks.from = front, 0
		}
		got := th.window(p, q, th.End, &blocks, &c1, lents)
		one := ivBlocks{front: all[c2.iv:]}
		want := th.window(p, q, th.End, &one, &c2, lents)
		if got != want || c1 != c2 {
			t.Errorf("window %d: in blocks %+v (cursor %+v), at once %+v (%+v)", n, got, c1, want, c2)
		}
		if want.cpu == 0 || want.split.Total() == 0 {
			t.Errorf("window %d: %+v, want cpu samples and runnable time", n, want)
		}
		wall += want.wall
	}
	if wall == 0 {
		t.Errorf("no window with wall samples")
	}
	if c1.iv < base {
		t.Errorf("cursor at interval %d after every window, want past the %d read back", c1.iv, base)
	}
	c := Cursor{iv: base}
	if n := testing.AllocsPerRun(100, func() {
		blocks := ivBlocks{l: l, from: c.iv - base}
		th.window(th.Sched[3], th.Sched[4], th.End, &blocks, &c, lents)
		c.iv, c.smp = base, 0
	}); n != 0 {
		t.Errorf("%v allocations a window, want none", n)
	}
}
