package model

import (
	"orca/internal/format"
	"orca/internal/reader"
)

// LockOrder is one contended monitor enter of a thread that held other
// monitors as it blocked (the MonitorHeld lines after its
// MonitorContendedEnter): the raw material of the lock-order graph
// (analysis.PotentialDeadlocks, docs/report-json.md "potential_deadlocks").
type LockOrder struct {
	Thread format.ThreadID
	At     format.Time
	Wanted format.ObjectID // the monitor it blocked on
	Class  string          // Wanted's class signature, "" when not known
	Stack  StackID         // where it wanted it: its enter's stack
	Held   []Held          // the monitors it held then, as the agent listed them
}

// Held is a monitor a thread held at a LockOrder.
type Held struct {
	Object format.ObjectID
	Class  string // its class signature, "" when not known
	// Depth is the frame of the enter's stack that took it (0: the
	// innermost, the one entering the wanted monitor); -1 when not known
	// (a JNI MonitorEnter, or a frame the recorded stack does not reach).
	Depth int
}

// HeldStack returns the frames of the stack where o held h: the enter's
// stack from h's frame outwards (that frame at the line it had reached,
// not the line that took h); nil when not known.
func (m *Model) HeldStack(o *LockOrder, h Held) []format.Frame {
	st := m.Stacks[o.Stack]
	if h.Depth < 0 || h.Depth >= len(st) {
		return nil
	}
	return st[h.Depth:]
}

// enterHeld notes a thread's contended enter, which MonitorHeld lines at its
// time complete.
func (b *Builder) enterHeld(ts *tstate, ev *reader.Event, stack StackID) {
	ts.enterAt, ts.enterObj, ts.enterStack, ts.order = ev.Time, ev.Object, stack, -1
}

// monitorHeld folds a MonitorHeld line: a monitor the thread held as its
// enter at the same time began. One of another time (an enter not
// recorded) is a problem.
func (b *Builder) monitorHeld(ts *tstate, ev *reader.Event) {
	if ts.enterObj == 0 || ts.enterAt != ev.Time {
		b.problem(ev, "MonitorHeld without its thread's MonitorContendedEnter at the same time")
		return
	}
	if ev.Object == ts.enterObj {
		return // the monitor it enters (a JVM that listed it): not held
	}
	m := b.m
	if ts.order < 0 {
		ts.order = len(m.LockOrders)
		m.LockOrders = append(m.LockOrders, LockOrder{Thread: ts.t.ID, At: ev.Time, Wanted: ts.enterObj,
			Class: b.classes[ts.enterObj], Stack: ts.enterStack})
	}
	o := &m.LockOrders[ts.order]
	o.Held = append(o.Held, Held{Object: ev.Object, Class: b.classes[ev.Object], Depth: int(ev.Depth)})
}

// lockOrderClasses names the classes of the locks of LockOrders that were
// not known at their line: an object's ObjectClass line comes with its
// first contention or its first MonitorHeld, which may be later.
func (b *Builder) lockOrderClasses() {
	for i := range b.m.LockOrders {
		o := &b.m.LockOrders[i]
		if o.Class == "" {
			o.Class = b.classes[o.Wanted]
		}
		for j := range o.Held {
			if h := &o.Held[j]; h.Class == "" {
				h.Class = b.classes[h.Object]
			}
		}
	}
}
