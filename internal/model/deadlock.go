package model

import (
	"math"
	"slices"
	"sort"
	"strings"

	"orca/internal/format"
)

// waitFor is the wait-for graph while folding: each blocked or joining
// thread points at the thread it waits for (tstate.wf). A cycle is a
// deadlock; it is recorded when it forms and marked AtEnd if it is still
// there at the end.
type waitFor struct {
	n      int            // threads that wait for one
	active map[string]int // cycle key -> index in Model.Deadlocks
	path   []*tstate      // reused by set
	// late: per thread held to have entered late (set), its span's index
	// in Model.lateEntries, open until the thread's wait changes.
	late map[*tstate]int
	// lateBits: a bit for each thread in late, by tstate.num: most
	// changes of a wait (each park and its end) are of a thread not in
	// late, told without the map's look-up.
	lateBits []uint64
	// hidden: per thread whose wait is left out of the graph at an
	// instant until a later time (hideWait), its entry's index in
	// Model.lateEntries, cut short when its wait changes before then
	// (endHidden), and kept past its end until the thread's next one. By
	// id, not tstate: the fold may let go of the thread's state
	// meanwhile. Rare (a line behind the chain it waits on), so most
	// changes of a wait see it empty.
	hidden map[format.ThreadID]int
	// members: the threads of each active cycle, by its index.
	members map[int][]*tstate
	// endOnly: the late entries are asked at the end alone
	// (Options.EndGraphOnly): those that end before are let go
	// (compactLate), closed counting the ones ended since the last time.
	endOnly bool
	closed  int
	// void: the cycles broken before they formed, left out at the end
	// (finish).
	void []int
	// past: per thread, the cycles it was in that another thread's wait
	// broke, while its own wait has not changed since (a line behind can
	// still change it before they broke: unbreak).
	past map[*tstate][]int
	// cycled: every thread ever in a cycle (members), which the fold does
	// not let go (holds).
	cycled map[*tstate]bool
}

// holds reports whether the graph's maps hold ts: a thread of a cycle,
// one held to have entered late, one whose cycle another broke. Their
// fields (floor) are changed through them, so the fold keeps them
// (Builder.letGo): one made again from its state at rest would miss it.
func (w *waitFor) holds(ts *tstate) bool {
	if w.cycled[ts] {
		return true
	}
	if _, ok := w.late[ts]; ok {
		return true
	}
	_, ok := w.past[ts]
	return ok
}

// lateEntry is a span in which the fold held Thread, blocked on Object
// in the recording, to have entered it: from From (another thread named
// it the owner) to To (its wait changed; the end of time when it did not).
// Or one in which the fold did not see Thread's wait on Object (0: a
// join): from its line's time to the start of the state of the thread it
// waits for when it was read (Builder.waitsLate).
type lateEntry struct {
	Thread   format.ThreadID
	Object   format.ObjectID
	From, To format.Time
}

// wfEdge is what a thread waits for.
type wfEdge struct {
	to    *tstate // nil: it waits for no one
	obj   format.ObjectID
	kind  LockKind // obj's: Monitor (blocked on it), JUCLock (parked to acquire it)
	stack StackID
	// since: when it began to wait for to; with to nil, when it last
	// stopped waiting (chainFrom).
	since format.Time
}

func newWaitFor() waitFor {
	return waitFor{active: map[string]int{}, members: map[int][]*tstate{}, late: map[*tstate]int{}, past: map[*tstate][]int{}}
}

// set makes th wait for to (on obj of kind, 0 for a join) and looks for
// a cycle through th.
// A thread waiting for nobody known (to == nil) waits for no one.
//
// A wait set at at, behind the latest change the fold saw on the chain
// of threads to waits for (chainFrom: a line of another thread out of
// order, an owner named from a line behind), waits for to from then in
// the fold, and the wait-for graph at an instant leaves it out until
// then (a late entry): the fold never paired it with the states of the
// chain before, and its cycles are the ones the graph closes. Each way a
// wait is set goes through here: a state opening (waitsLate), an owner
// named for the threads blocked on a monitor (newOwner), a MonitorOwned
// line (owned). FuzzModelText's deadlock-late-owner-named-cycle: B
// blocked on 1 at 0, A on 2 owned by B at 1; C's line at 6 names A the
// owner of 2 (A no longer waits); then D's line at 0 names A the owner
// of 1: B waits for A from 1 in its owner spans, and the intervals closed
// A, B at 1, a deadlock the fold had not found.
func (w *waitFor) set(th, to *tstate, obj format.ObjectID, kind LockKind, stack StackID, at format.Time, m *Model) {
	if to == nil || to == th {
		w.clear(th, at, m)
		return
	}
	if e := th.waits(); e.to == to && e.obj == obj && e.kind == kind {
		return // the same wait: a cycle through it still stands
	}
	// The line's time: when it says to holds obj (entered, below).
	named := at
	if n := len(th.body.open); n > 0 {
		// th's wait is its innermost state's, which began then: a line
		// behind that names its owner (a MonitorOwned line, an owner named
		// by another thread blocked there) makes it wait from the state's
		// start, no earlier. From earlier, its late span (lateWait) on the
		// same object hid the state before in the graph at an instant: B
		// parked for AA, owned by E, in a deadlock with E from 0; B
		// blocked on monitor AA at 7; a MonitorOwned line at 0 named D its
		// owner, and the span 0..7 hid B's park (FuzzModelLines'
		// 688c550614271f28).
		at = max(at, th.body.open[n-1].iv.Start)
	}
	w.endHidden(th, at, m)
	if w.isLate(th) {
		w.endLate(th, at, m)
	}
	w.breakCycles(th, at, m)
	if th.waits().to == nil {
		w.n++
	}
	w.ownerEntered(to, obj, kind, named, m)
	if from := w.chainFrom(th, to, at); from > at {
		w.lateWait(th, obj, at, from, m)
		at = from
	}
	th.body.wf = wfEdge{to, obj, kind, stack, at}
	path := append(w.path[:0], th)
	for u := to; ; {
		if u == th {
			w.found(path, at, m)
			break
		}
		if u.waits().to == nil || len(path) > w.n {
			break
		}
		path = append(path, u)
		u = u.waits().to
	}
	w.path = path[:0]
}

// ownerEntered is the rule for a line that names to the owner of obj
// (of kind) at at while the fold still sees to blocked on that lock: the
// VM names as owner a thread it has let acquire it, whose
// MonitorContendedEntered (or unpark) is late (posted after the
// acquisition; a safepoint or a busy CPU can delay it by milliseconds),
// so to no longer waits, and holds obj from the line's time — not from
// the naming thread's state's (FuzzModelLines' f9943a6838707507: B
// blocked on 2 in a deadlock from 0; A blocked on 2 at 7; a MonitorOwned
// line at 0 names B: B entered at 0), nor from when the fold makes a late
// line's wait begin (0bd9b8366dcc7a3f: B blocked on AA in a deadlock with
// A from 0; E's line at 0 names B the owner of AA while A's state is
// known from 7: B entered at 0, not 7). The same lock only: a j.u.c.
// lock's sync a monitor too is two locks (FuzzModelText's
// deadlock-juc-lock-named-monitor-owner); and a wait of to's that began
// after at is not the one the line saw (e67e19d9fd9e6b91: C parked for 2
// at 0 and again at 2; D's line at 0 names C the owner of 2). Both ways a
// wait is named come here: waitFor.set and Builder.waitsLate.
func (w *waitFor) ownerEntered(to *tstate, obj format.ObjectID, kind LockKind, at format.Time, m *Model) {
	if e := to.waits(); e.to != nil && obj != 0 && e.obj == obj && e.kind == kind && e.since <= at {
		w.entered(to, obj, at, m)
	}
}

// entered ends the wait of th, blocked on obj, at at: it was named the
// owner of obj then, it has entered it, and its end is late. The wait-for
// graph at an instant leaves it out from then until its wait changes
// (a late entry, open until endLate).
func (w *waitFor) entered(th *tstate, obj format.ObjectID, at format.Time, m *Model) {
	w.clear(th, at, m)
	w.late[th] = len(m.lateEntries)
	if i := int(th.num / 64); i >= len(w.lateBits) {
		w.lateBits = append(w.lateBits, make([]uint64, i+1-len(w.lateBits))...)
	}
	w.lateBits[th.num/64] |= 1 << (th.num % 64)
	m.lateEntries = append(m.lateEntries, lateEntry{Thread: th.id, Object: obj, From: at, To: math.MaxInt64})
}

// lateWait leaves th's wait on obj (0: a join), set at at, out of the
// wait-for graph at an instant until from, when the fold makes it wait
// (chainFrom). Its later lines fold after from, as after a segment.
func (w *waitFor) lateWait(th *tstate, obj format.ObjectID, at, from format.Time, m *Model) {
	w.hideWait(th, obj, at, from, m)
	th.floor = max(th.floor, from)
}

// hideWait leaves th's wait on obj out of the wait-for graph at an
// instant from at until from: the fold made it wait from then.
func (w *waitFor) hideWait(th *tstate, obj format.ObjectID, at, from format.Time, m *Model) {
	if from <= at {
		return
	}
	if !w.endOnly || from > m.End {
		if w.hidden == nil {
			w.hidden = map[format.ThreadID]int{}
		}
		w.hidden[th.id] = len(m.lateEntries)
		m.lateEntries = append(m.lateEntries, lateEntry{Thread: th.id, Object: obj, From: at, To: from})
	} else {
		m.lateFloor = max(m.lateFloor, from) // of no use at the end (compactLate)
	}
}

// endHidden ends, at at, the span in which th's wait is left out of the
// graph at an instant (hideWait), if it is in one: its wait changes. The
// span was of that wait alone; left to its end, it hid the next wait of
// th on the same object (every join's is 0). FuzzModelLines'
// b3b8ef8ce7ee4d16: A's join of C, resumed at 5 when its block on a
// monitor was ended, hidden until 7 (C's state began then), and A's
// join of D from 5 closed a deadlock with D at 5: the graph at 5 and 6
// left the join of D out, and had the deadlock without its edges.
func (w *waitFor) endHidden(th *tstate, at format.Time, m *Model) {
	if len(w.hidden) == 0 {
		return
	}
	i, ok := w.hidden[th.id]
	if !ok {
		return
	}
	// At or past the span's end (the late wait's own set, at from, is
	// one) the span stays known: a line behind, naming a new owner of
	// the lock th is still blocked on, still cuts it at its time, before
	// the end (FuzzModelLines' 2db76cc31b03ba5a: E blocked on monitor 1
	// naming B at 0, hidden until 4, B's chain's state; D's line at 0
	// names D the owner: E waits for D from 0, in a deadlock with D
	// parked on a lock E owns, and the span left E's wait out of the
	// graph at 0..4). The next hideWait of th replaces it.
	if e := &m.lateEntries[i]; at < e.To {
		e.To = max(e.From, at)
		delete(w.hidden, th.id)
	}
}

// clear ends th's wait.
func (w *waitFor) clear(th *tstate, at format.Time, m *Model) {
	w.endHidden(th, at, m)
	if w.isLate(th) {
		w.endLate(th, at, m)
	}
	if th.waits().to == nil {
		return
	}
	w.breakCycles(th, at, m)
	th.body.wf = wfEdge{since: at}
	w.n--
}

func cycleKey(ids []format.ThreadID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}

func (w *waitFor) found(path []*tstate, at format.Time, m *Model) {
	ids := make([]format.ThreadID, len(path))
	for i, ts := range path {
		ids[i] = ts.id
	}
	key := cycleKey(ids)
	if _, ok := w.active[key]; ok {
		return
	}
	// It formed when its last wait began: at, the line that closed it,
	// unless a line out of order put a wait of it later (a thread's line
	// before another's earlier one is folded at the later time).
	d := Deadlock{At: at, Threads: ids}
	for _, ts := range path {
		d.At = max(d.At, ts.waits().since)
		if n := len(ts.body.open); n > 0 {
			d.At = max(d.At, ts.body.open[n-1].iv.Start)
		}
	}
	for _, ts := range path {
		// Its threads' later lines fold after it (as after a segment, see
		// tstate.floor): one behind the line that put a wait of it later
		// must not end the deadlock before it formed.
		ts.floor = max(ts.floor, d.At)
		d.Objects = append(d.Objects, ts.waits().obj)
		d.Stacks = append(d.Stacks, ts.waits().stack)
		st := Blocked
		if n := len(ts.body.open); n > 0 {
			st = ts.body.open[n-1].iv.State
		}
		d.States = append(d.States, st)
	}
	w.active[key] = len(m.Deadlocks)
	w.members[len(m.Deadlocks)] = slices.Clone(path)
	if w.cycled == nil {
		w.cycled = map[*tstate]bool{}
	}
	for _, ts := range path {
		w.cycled[ts] = true
	}
	m.Deadlocks = append(m.Deadlocks, d)
}

// current returns when the thread's current state began (runnable too):
// the start of the innermost open state's current segment, or the end of
// its latest segment.
func (ts *tstate) current() format.Time {
	at := ts.floor
	if n := len(ts.body.open); n > 0 {
		at = max(at, ts.body.open[n-1].iv.Start)
	}
	return at
}

// waitsFrom returns when the fold makes a thread whose line at at says it
// waits for other (a contention's owner, a j.u.c. lock's, a joined
// thread) wait for it: at, or, when the line is behind other's (lines of
// two threads may be out of order by a little), the start of other's
// current state. The fold knows only that state of other, and its
// deadlock detection must not pair the wait with an earlier one it never
// saw.
func waitsFrom(other *tstate, at format.Time) format.Time {
	if other == nil {
		return at
	}
	return max(at, other.current())
}

// chainFrom returns when the fold makes th, whose line (or owner named)
// at at says it waits for other, wait for it in the wait-for graph:
// waitsFrom, or later, when at is behind the latest change the fold saw
// on the chain from other: the current state of a thread other waits
// for, directly or not, or the latest change of the wait of one
// (wfEdge.since: a thread named the owner of the monitor it is blocked
// on stops waiting then, its state unchanged). The fold knows only those
// states and waits: a line folded after one that changed a wait on the
// chain (its thread's, to the thread whose line this is) must not close,
// in the graph of the intervals, a cycle the fold never saw.
// FuzzModelText's chain-behind-ended-wait: C blocked on a monitor E owns,
// A on one C owns; C's Entered at 7; then E's park at 0 on a lock A owns:
// A's state began at 0, but C's at 7, and the intervals closed A, C, E
// at 0, a deadlock the fold had not found. And deadlock-late-enter-cycle:
// E blocked on A at 0, then on B owned by C at 1 (it had entered A); D's
// line at 7 names E the owner of B (E no longer waits: waitFor.set);
// then C's line at 6 blocks on A naming E: E's wait changed at 7, and the
// intervals closed C, E at 6, a deadlock the fold had not found.
func (w *waitFor) chainFrom(th, other *tstate, at format.Time) format.Time {
	from := waitsFrom(other, at)
	if other == nil {
		return from
	}
	// At most the threads waiting: a cycle on the chain ends the walk.
	// The walk stops at th, whose old wait is the one that changes (a
	// state of th opening ends it): through it, a change on that old
	// chain made the new wait late: B parked for a lock D owns, A for one
	// B owns; D's lines at 7 and 8; B's at 2 parks again (the first park's
	// end lost) for a lock A owns: A and B deadlock at 2, which the fold
	// put at 8, D's latest state (cases/deadlock-chain-old-wait, found by
	// comparing two walks over FuzzModelLines' lines).
	for u, n := other, 0; u != nil && u != th && n <= w.n; u, n = u.waits().to, n+1 {
		from = max(from, u.current(), u.waits().since)
	}
	return from
}

// waitsNow is whom the fold makes the thread wait for as its state opens
// at at (other, or nobody until from: waitsLate).
func waitsNow(other *tstate, from, at format.Time) *tstate {
	if from > at {
		return nil
	}
	return other
}

// waitsLate makes the state o of ts, opened at at, wait for other from
// from when its line was behind other's (waitsFrom). The interval keeps
// its recorded times, its owner and blame; the wait-for graph at an
// instant, from the intervals, leaves the wait out until from, as the fold
// did (Model.lateEntries). The thread's later lines fold after from, as
// after a segment.
func (b *Builder) waitsLate(ts *tstate, o *openIv, other *tstate, obj format.ObjectID, at, from format.Time) {
	if from <= at {
		return
	}
	if other != nil {
		// The line names other the owner of obj at at, though ts waits for
		// it only from from.
		kind := Monitor
		if o.iv.State == Parked {
			kind = JUCLock
		}
		b.wf.ownerEntered(other, obj, kind, at, b.m)
	}
	b.wf.lateWait(ts, obj, at, from, b.m)
	o.other = other
	b.rewait(ts, from)
}

// endLate ends th's span of a late entry, if it is in one: its wait
// changes at at. Its callers ask isLate first, inlined: most changes of
// a wait are of a thread in none.
func (w *waitFor) endLate(th *tstate, at format.Time, m *Model) {
	if i, ok := w.late[th]; ok {
		m.lateEntries[i].To = at
		delete(w.late, th)
		w.lateBits[th.num/64] &^= 1 << (th.num % 64)
		if w.endOnly {
			if w.closed++; w.closed >= lateCompactMin && 2*w.closed > len(m.lateEntries) {
				w.compactLate(m)
			}
		}
	}
}

// isLate reports whether th's bit in lateBits is set: it may be in a
// span of a late entry (endLate).
func (w *waitFor) isLate(th *tstate) bool {
	i := int(th.num / 64)
	return i < len(w.lateBits) && w.lateBits[i]&(1<<(th.num%64)) != 0
}

// lateCompactMin is how many late entries end before compactLate lets
// them go: a variable, as the model's own tests compact at each
// (export_test.go).
var lateCompactMin = 4096

// compactLate lets go, with Options.EndGraphOnly, the late entries that
// end by the fold's latest time: WaitGraphAt, asked at the end alone, has
// no use of them (1 GB: ~1.9 M entries, 60 MB). The others keep their
// order.
func (w *waitFor) compactLate(m *Model) {
	w.closed = 0
	at := make([]int32, len(m.lateEntries))
	k := 0
	for i, e := range m.lateEntries {
		at[i] = int32(k)
		if e.To <= m.End {
			m.lateFloor = max(m.lateFloor, e.To)
			continue
		}
		m.lateEntries[k] = e
		k++
	}
	for th, i := range w.late {
		w.late[th] = int(at[i])
	}
	for id, i := range w.hidden {
		// Kept when the next entry's new place is past its own.
		next := int32(k)
		if i+1 < len(at) {
			next = at[i+1]
		}
		if at[i] < next {
			w.hidden[id] = int(at[i])
		} else {
			delete(w.hidden, id) // let go: it ended by the latest time
		}
	}
	m.lateEntries = slices.Clip(m.lateEntries[:k])
	if k < cap(m.lateEntries)/4 {
		m.lateEntries = slices.Clone(m.lateEntries)
	}
}

// breakCycles forgets the active cycles through th (its wait changes).
func (w *waitFor) breakCycles(th *tstate, at format.Time, m *Model) {
	// Inlined: most waits change with no cycle active nor broken.
	if len(w.past) > 0 || len(w.active) > 0 {
		w.breakCyclesOf(th, at, m)
	}
}

// breakCyclesOf is breakCycles when some cycle is active or broken.
func (w *waitFor) breakCyclesOf(th *tstate, at format.Time, m *Model) {
	w.unbreak(th, at, m)
	if len(w.active) == 0 {
		return
	}
	id := th.id.String()
	for key, i := range w.active {
		if strings.Contains(key, id) {
			m.Deadlocks[i].Resolved = at
			if at < m.Deadlocks[i].At {
				// A line behind the ones that closed the cycle (the
				// owner of a monitor named by a late contention, from
				// before the cycle formed) says one of its waits was
				// on another thread by then: it never formed.
				w.void = append(w.void, i)
			}
			delete(w.active, key)
			// As when it formed (found): its threads' later lines fold
			// after its end, so that a line behind the one that ended it
			// cannot take a thread out of it before.
			for _, ts := range w.members[i] {
				ts.floor = max(ts.floor, at)
				if ts != th {
					w.past[ts] = append(w.past[ts], i)
				}
			}
			delete(w.members, i)
		}
	}
}

// unbreak: th's wait changes at at, before a cycle it was in broke by
// another thread's wait (past): the cycle broke at at then, or, before it
// formed, never formed. The later lines of th fold after the cycle's end
// (floor), but a line of another thread can still change th's wait
// earlier: the owner a late contention names for the monitor th is
// blocked on (newOwner), from its line's time on. FuzzModelText's
// deadlock-unbroken-late-owner: E blocked on AAAA waits for B, which
// entered it; B blocks on 1 owned by E: a cycle at 0; B enters 1 at 10;
// then a thread's line at 0 names 2 the owner of AAAA, and E's interval
// waits for 2 from 0: the cycle the model kept from 0 to 10 is in none
// of its wait-for graphs.
func (w *waitFor) unbreak(th *tstate, at format.Time, m *Model) {
	past, ok := w.past[th]
	if !ok {
		return
	}
	delete(w.past, th) // its wait in them changes now: a later change is of another
	for _, i := range past {
		d := &m.Deadlocks[i]
		switch {
		case at < d.At:
			w.void = append(w.void, i)
		case at < d.Resolved:
			d.Resolved = at
		}
	}
}

// finish marks the cycles still intact at the end of the recording.
func (w *waitFor) finish(m *Model) {
	for _, i := range w.active {
		m.Deadlocks[i].AtEnd = true
	}
	slices.Sort(w.void)
	w.void = slices.Compact(w.void) // two of its threads can void a cycle
	for _, i := range slices.Backward(w.void) {
		m.Deadlocks = slices.Delete(m.Deadlocks, i, i+1)
	}
}

// rewait points the thread's wait-for edge at what its innermost state
// waits for (waitsOn, waitee): the owner of the monitor it blocks on or of
// the j.u.c. lock it parks to acquire, or the thread it joins. o.other is
// that thread (waitee's, with the monitor's current owner).
func (b *Builder) rewait(ts *tstate, at format.Time) {
	if b.noWaitGraph {
		return
	}
	if n := len(ts.body.open); n > 0 {
		o := &ts.body.open[n-1]
		if obj, ok := waitsOn(&o.iv); ok {
			kind := Monitor
			if o.iv.State == Parked {
				kind = JUCLock
			}
			b.wf.set(ts, o.other, obj, kind, o.iv.Stack, at, b.m)
			return
		}
	}
	b.wf.clear(ts, at, b.m)
}
