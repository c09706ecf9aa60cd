package model_test

import (
	"fmt"
	"reflect"
	"testing"

	. "orca/internal/model"
	"orca/internal/model/modeltest"
)

// TestLockOrdersReused folds contended enters with monitors held, most of
// them one nesting again and again, some new ones among them (a held
// monitor's class told between): the LockOrders an order sealed as one
// already there let go are taken again by the next (Builder.orderFree),
// and the LockOrders are those of a fold that makes each anew.
func TestLockOrdersReused(t *testing.T) {
	var r recorder
	for _, th := range []string{"A", "B", "C"} {
		r.line("ThreadStarted,%s,%s", th, th)
	}
	r.now = 1e9
	const n = 300
	for k := range n {
		th, owner := []string{"A", "B"}[k%2], []string{"B", "A"}[k%2]
		wanted, held := 0x2222, []int{0x1111}
		if k%7 == 0 {
			// A new nesting: another monitor wanted, more held, at
			// other depths.
			wanted, held = 0x3000+k, []int{0x1111, 0x4000 + k, 0x5000 + k}
		}
		if k == 50 {
			r.line("ObjectClass,C,1111,LLock;")
		}
		r.line("MonitorContendedEnter,%s,%X,%s,2;1;1;2;2", th, wanted, owner)
		for d, h := range held {
			r.line("MonitorHeld,%s,%X,%d", th, h, d+1)
		}
		r.now += 1e6
		r.line("MonitorContendedEntered,%s,%X,2;1;1;2;2", th, wanted)
		r.now += 1e6
	}
	for _, th := range []string{"A", "B", "C"} {
		r.line("ThreadEnded,%s", th)
	}
	lines := r.b.String()
	fold := func() (*Model, int) {
		b := New()
		modeltest.Feed(t, b, lines)
		return b.Finalize(), b.OrdersTaken()
	}
	m, taken := fold()
	var m0 *Model
	NoReuse(func() {
		var taken0 int
		if m0, taken0 = fold(); taken0 != 0 {
			t.Errorf("%d LockOrders taken again with none given", taken0)
		}
	})
	if !reflect.DeepEqual(m.LockOrders, m0.LockOrders) {
		t.Errorf("LockOrders:\n%s\nmade anew:\n%s", orders(m), orders(m0))
	}
	// 300 enters: 43 new nestings, 2 of the one made again (a thread
	// each), the other 255 let go and taken again by the next enter.
	if len(m.LockOrders) != 45 || taken < 250 {
		t.Errorf("%d LockOrders, %d taken again; want 45 and 250 at least:\n%s", len(m.LockOrders), taken, orders(m))
	}
	for _, o := range m.LockOrders {
		if o.Wanted != 0x2222 && (len(o.Held) != 3 || o.Held[1].Object != 0x1000+o.Wanted || o.Count != 1) {
			t.Errorf("LockOrder %+v: want 1111, %x and %x held, once", o, 0x1000+o.Wanted, 0x2000+o.Wanted)
		}
	}
}

func orders(m *Model) string {
	s := ""
	for _, o := range m.LockOrders {
		s += fmt.Sprintf("%v %v count %d held %+v\n", o.Thread, o.Wanted, o.Count, o.Held)
	}
	return s
}
