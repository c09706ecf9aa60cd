package model

import (
	"encoding/binary"
	"fmt"
	"sort"

	"orca/internal/format"
	"orca/internal/reader"
)

// LockOrder is a contended acquisition of a thread that held other locks
// as it blocked — a monitor's enter, or a park in a java.util.concurrent
// lock's acquire (with orca record --lock-order; the MonitorHeld and
// LockHeld lines after its MonitorContendedEnter or ThreadPark): the raw
// material of the lock-order graph (analysis.PotentialDeadlocks,
// docs/report-json.md "potential_deadlocks"). The acquisitions of one
// thread on one lock with one stack, holding the same locks at the same
// depths, are one LockOrder: Count of them, the first At.
type LockOrder struct {
	Thread format.ThreadID
	At     format.Time
	Count  int
	Wanted format.ObjectID // the lock it blocked on: a monitor, or a j.u.c. lock's synchronizer
	Class  string          // Wanted's class signature, "" when not known
	// Mode: how it wanted it: ModeNone for a monitor, else the park's
	// acquire mode (ModeShared: a read lock).
	Mode  format.AcquireMode
	Stack StackID // where it wanted it: its enter's (park's) stack
	Held  []Held  // the locks it held then, as the agent listed them: monitors, then j.u.c. locks
}

// Held is a lock a thread held at a LockOrder.
type Held struct {
	Object format.ObjectID
	Class  string // its class signature, "" when not known
	// Mode: ModeNone for a monitor (a MonitorHeld line), else how the
	// thread holds the j.u.c. lock (a LockHeld line): ModeShared for a
	// read lock, ModeExclusive for a ReentrantLock or a write lock.
	Mode format.AcquireMode
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

// HeldStackNote says why HeldStack(o, h) is empty, in a few words the
// report and the viewer print in its place; "" when it is not empty.
func (m *Model) HeldStackNote(o *LockOrder, h Held) string {
	st := m.Stacks[o.Stack]
	switch {
	case h.Depth >= 0 && h.Depth < len(st):
		return ""
	case h.Depth >= 0:
		return fmt.Sprintf("in frame %d of the enter's stack, beyond the %d recorded (orca record --depth)", h.Depth, len(st))
	case h.Mode == format.ModeNone:
		return "in no Java frame: entered through JNI's MonitorEnter"
	}
	return "in a frame not known: the method that called lock returned holding it, or the stack was cut"
}

// enterHeld notes a thread's contended enter (or park in an acquire),
// which MonitorHeld and LockHeld lines at its time complete; its previous
// one is complete.
func (b *Builder) enterHeld(ts *tstate, ev *reader.Event, stack StackID) {
	if b.noLockFigures {
		return // no lock order (Options.NoLockFigures)
	}
	b.sealOrder(ts)
	ts.body.enterAt, ts.body.enterObj, ts.body.enterStack, ts.body.enterMode = ev.Time, ev.Object, stack, format.ModeNone
	if ev.Kind == format.ThreadPark {
		ts.body.enterMode = ev.Mode
	}
}

// monitorHeld folds a MonitorHeld or LockHeld line: a lock the thread
// held as its acquisition at the same time began. One of another time (an
// acquisition not recorded) is a problem.
func (b *Builder) monitorHeld(ts *tstate, ev *reader.Event) {
	if b.noLockFigures {
		return
	}
	if ts.body.enterObj == 0 || ts.body.enterAt != ev.Time {
		b.problem(ev, "%s without its thread's MonitorContendedEnter or ThreadPark at the same time", ev.Kind)
		return
	}
	if ev.Object == ts.body.enterObj {
		return // the monitor it enters (a JVM that listed it): not held
	}
	if ts.body.order == nil {
		o := b.orderFree
		var held []Held
		if o != nil {
			b.orderFree, held = nil, o.Held[:0]
			b.ordersTaken++
		} else {
			o = &LockOrder{}
		}
		*o = LockOrder{Thread: ts.id, At: ev.Time, Count: 1, Wanted: ts.body.enterObj, Class: b.classOf(ts.body.enterObj), Mode: ts.body.enterMode, Stack: ts.body.enterStack, Held: held}
		ts.body.order = o
	}
	h := Held{Object: ev.Object, Class: b.classOf(ev.Object), Depth: int(ev.Depth)}
	if ev.Kind == format.LockHeld {
		h.Mode = ev.Mode
		if h.Mode == format.ModeNone {
			h.Mode = format.ModeExclusive // not said: the stricter
		}
	}
	ts.body.order.Held = append(ts.body.order.Held, h)
}

// sealOrder puts the thread's LockOrder in progress into Model.LockOrders,
// or counts it in the same one already there.
func (b *Builder) sealOrder(ts *tstate) {
	if ts.body == &restBody {
		return // retired: sealed then (giveBody)
	}
	o := ts.body.order
	if o == nil {
		return
	}
	ts.body.order = nil
	k := b.orderKey[:0]
	k = binary.LittleEndian.AppendUint32(k, uint32(o.Thread))
	k = binary.LittleEndian.AppendUint32(k, uint32(o.Wanted))
	k = binary.LittleEndian.AppendUint32(k, uint32(o.Stack))
	k = append(k, byte(o.Mode))
	for _, h := range o.Held {
		k = binary.LittleEndian.AppendUint32(k, uint32(h.Object))
		k = binary.LittleEndian.AppendUint32(k, uint32(h.Depth))
		k = append(k, byte(h.Mode))
	}
	if b.orders == nil {
		b.orders = map[string]int{}
	}
	b.orderKey = k
	m := b.m
	if i, ok := b.orders[string(k)]; ok {
		m.LockOrders[i].Count++
		if !noReuse {
			clear(o.Held) // their classes
			b.orderFree = o
		}
		return
	}
	b.orders[string(k)] = len(m.LockOrders)
	m.LockOrders = append(m.LockOrders, *o)
}

// sealOrders seals every thread's LockOrder in progress, and puts them all
// in the order of their first enter.
func (b *Builder) sealOrders() {
	for _, ts := range b.th.byNum {
		if ts != nil { // nil: let go, sealed as it retired
			b.sealOrder(ts)
		}
	}
	sort.SliceStable(b.m.LockOrders, func(i, j int) bool {
		x, y := &b.m.LockOrders[i], &b.m.LockOrders[j]
		return x.At < y.At || x.At == y.At && x.Thread < y.Thread
	})
	b.orders = nil
}

// lockOrderClasses names the classes of the locks of LockOrders that were
// not known at their line: an object's ObjectClass line comes with its
// first contention or its first MonitorHeld, which may be later.
func (b *Builder) lockOrderClasses() {
	b.sealOrders()
	for i := range b.m.LockOrders {
		o := &b.m.LockOrders[i]
		if o.Class == "" {
			o.Class = b.classOf(o.Wanted)
		}
		for j := range o.Held {
			if h := &o.Held[j]; h.Class == "" {
				h.Class = b.classOf(h.Object)
			}
		}
	}
}
