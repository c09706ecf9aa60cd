package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"orca/internal/format"
)

// TestHoldDist checks the distribution of hold times: exact percentiles
// (nearest rank) up to ExactHolds holds, within HoldAccuracy of the exact
// ones past it (DDSketch), the count, total and max always exact, and
// merging (the sites of a lock into the lock) the same as adding all.
func TestHoldDist(t *testing.T) {
	var d holdDist
	for i := 1; i <= 100; i++ {
		d.add(format.Time(i) * 1e6) // 1..100 ms
	}
	want := HoldFigures{Count: 100, Total: 5050e6, P50: 50e6, P99: 99e6, Max: 100e6}
	if f := d.figures(); f != want {
		t.Errorf("1..100 ms: %+v, want %+v", f, want)
	}

	for _, n := range []int{ExactHolds, ExactHolds + 1, 200_000} {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		vals := make([]format.Time, n)
		var one, a, b holdDist
		var total format.Time
		for i := range vals {
			// Log-uniform from 1 µs to 10 s, some zeros.
			v := format.Time(math.Exp(math.Log(1e3) + r.Float64()*math.Log(1e7)))
			if i%97 == 0 {
				v = 0
			}
			vals[i], total = v, total+v
			one.add(v)
			if i%2 == 0 {
				a.add(v)
			} else {
				b.add(v)
			}
		}
		var merged holdDist
		merged.merge(&a)
		merged.merge(&b)
		slices.Sort(vals)
		exact := func(p int) format.Time { return vals[(p*n+99)/100-1] }
		for _, d := range []*holdDist{&one, &merged} {
			f := d.figures()
			if f.Count != n || f.Total != total || f.Max != vals[n-1] {
				t.Errorf("%d holds: count %d, total %v, max %v; want %d, %v, %v", n, f.Count, f.Total, f.Max, n, total, vals[n-1])
			}
			for _, c := range []struct {
				p   int
				got format.Time
			}{{50, f.P50}, {99, f.P99}} {
				w := exact(c.p)
				if n <= ExactHolds && c.got != w || math.Abs(float64(c.got-w)) > HoldAccuracy*float64(w)+1 {
					t.Errorf("%d holds: p%d %v, exact %v", n, c.p, c.got, w)
				}
			}
		}
		if (one.sk != nil) != (n > ExactHolds) {
			t.Errorf("%d holds: sketched %v, want %v", n, one.sk != nil, n > ExactHolds)
		}
		if f1, f2 := one.figures(), merged.figures(); f1 != f2 {
			t.Errorf("%d holds: added %+v, merged %+v", n, f1, f2)
		}
	}
}

// TestHeldStackNote: where a held lock's stack is empty, the note says why, one reason per case
// (a frame beyond the recorded stack, a JNI monitor, a j.u.c. lock's frame not known).
func TestHeldStackNote(t *testing.T) {
	m := &Model{Stacks: [][]format.Frame{nil, {{Method: 1}, {Method: 2}}}}
	o := &LockOrder{Stack: 1}
	for _, c := range []struct {
		h    Held
		want string
	}{
		{Held{Depth: 1}, ""},
		{Held{Depth: 2}, "in frame 2 of the enter's stack, beyond the 2 recorded (orca record --depth)"},
		{Held{Depth: -1}, "in no Java frame: entered through JNI's MonitorEnter"},
		{Held{Depth: -1, Mode: format.ModeExclusive}, "in a frame not known: the method that called lock returned holding it, or the stack was cut"},
	} {
		if got := m.HeldStackNote(o, c.h); got != c.want {
			t.Errorf("HeldStackNote(%+v) = %q, want %q", c.h, got, c.want)
		}
		if got := len(m.HeldStack(o, c.h)) == 0; got != (c.want != "") {
			t.Errorf("HeldStack(%+v) empty %v, but the note is %q", c.h, got, c.want)
		}
	}
}
