// Package analysis answers the questions a user brings to a recording —
// deadlocks, hangs, which threads are the JDK's idle service threads,
// which threads a --thread filter means — from a model.Model. The figures
// of locks (contention, blame, call sites, waits) are summed once, by the
// model (model.Model.Aggregate), not here. Every number comes from the
// events; nothing is estimated.
package analysis

import (
	"sort"
	"strings"

	"orca/internal/format"
	"orca/internal/model"
)

// MinCycle is how long a wait-for cycle that later broke must have stood to
// be reported as a deadlock. Monitor deadlocks never break; a cycle that
// breaks within microseconds comes from an owner the recording no longer
// knew (see model.Deadlock.Resolved).
const MinCycle = format.Time(100e6) // 100 ms

// Deadlocks returns the cycles that are still intact at the end of the
// recording or stood at least MinCycle, in order of formation.
//
// In a cut recording (model.Model.Cut) what followed the cut is unknown, so
// a cycle intact at the cut counts as a broken one would: only if it had
// stood MinCycle by then. A cycle of threads blocked on monitors cannot
// break, and one that stood that long is not an owner the recording lost,
// so it is a deadlock whatever the lost events said; a younger one is not
// claimed (its threads are in OpenAtCut).
func Deadlocks(m *model.Model) []model.Deadlock {
	var out []model.Deadlock
	for k, i := range Reported(m) {
		if i >= 0 {
			out = append(out, m.Deadlocks[k])
		}
	}
	return out
}

// Reported returns, for each cycle of m.Deadlocks (the fold's: all the
// cycles the wait-for graph had), its index in Deadlocks, -1 when it is
// none (IsDeadlock): how a view of the graph at an instant names the
// deadlock a cycle of it is.
func Reported(m *model.Model) []int {
	out := make([]int, len(m.Deadlocks))
	n := 0
	for k, d := range m.Deadlocks {
		out[k] = -1
		if IsDeadlock(m, d) {
			out[k], n = n, n+1
		}
	}
	return out
}

// MinHang is how long a thread must have been unable to proceed, by the
// end of the recording (or by the start of the JVM's shutdown), to be a
// hang: a thread blocked or waiting for less is what a busy program does
// every moment, and at the end of a recording it is the moment the
// recording stopped, not a thread that stopped.
const MinHang = format.Time(1e9) // 1 s

// NotHang says why a thread in a blocking state at the end of the
// recording is not a hang (Hang.Why).
type NotHang uint8

// Why a thread open at the end is not a hang.
const (
	IsHang NotHang = iota // it is one
	// Timed: its state ends by itself, a park or an Object.wait with a
	// timeout (model.TimeoutSet).
	Timed
	// Short: it had been in it less than MinHang by the end of the
	// recording (by the start of the shutdown when the JVM exited).
	Short
	// InShutdown: it entered it after the JVM's shutdown began
	// (model.Model.Shutdown), and the JVM exited: it was part of the exit.
	InShutdown
	// AtKill: the JVM did not exit normally (model.Model.Unfinished: kill
	// -9, a crash) and the thread had been in it less than MinHang by the
	// recording's last event: the events just after it are lost, so
	// whether it stayed is unknown.
	AtKill
	// AtCut: the recording is cut (model.Model.Cut): what followed is
	// lost, however long it had lasted.
	AtCut
	// JoinsItself: the thread joins itself (Thread.currentThread().join(),
	// a program's way to wait for the JVM's end): it waits for no other
	// thread, by design (model.Interval.SelfJoin).
	JoinsItself
	// Released: parked, and another thread unparked it after it parked
	// (model.Model.Unparked): it was free to run when the recording ended
	// (ActiveMQ's main, released from its latch by the shutdown hook as
	// the JVM exited).
	Released
	// Alone: stuck as a hang is, but waiting alone: for no thread in
	// particular (an Object.wait, a park on a latch or a condition, a
	// semaphore: no owner), and nobody waits behind it (no thread blocked
	// on a lock it holds or joining it, at the end), and other threads ran
	// after it began to wait (Hang.Progress): a server's main parked until
	// the shutdown, a forgotten latch. The program went on without it.
	Alone
	// JoinsWorking: joining a thread that was still at work at the end:
	// alive, in no deadlock and no hang itself (running, or in a state that
	// ends by itself). The join returns when that thread's work is done, as
	// joins are for: a program's main joining its workers when a SIGTERM
	// ended it (DerbyLoad). A thread joining one that is stuck is behind it,
	// a hang.
	JoinsWorking
)

var notHangNames = [...]string{"", "timed", "short", "shutdown", "kill", "cut", "self_join", "released", "alone", "joins_working"}

// String returns the word of Hang.Why in the report's JSON ("" for a hang).
func (n NotHang) String() string {
	if int(n) >= len(notHangNames) {
		return "unknown"
	}
	return notHangNames[n]
}

// IsDeadlock reports whether d, a cycle of m's wait-for graph, is one of
// the deadlocks Deadlocks returns: intact at the end (of a recording not
// cut), or it stood MinCycle and broke because a thread of it gave up — the
// wait that ended it ended by a timeout or an interrupt (a tryLock with a
// timeout, a timed join: a real deadlock, resolved). A cycle whose threads
// cannot give up cannot break: one that broke anyway never stood — an owner
// named when a thread blocked or parked had released the monitor or lock
// before, and a thread took it without contention, which records nothing
// (seen under stress: monitor cycles of 186 ms that broke when a third
// thread entered the monitor the cycle said was held; ActiveMQ: a cycle of
// a monitor and a ReentrantReadWriteLock of 194 ms, ended by an unpark).
func IsDeadlock(m *model.Model, d model.Deadlock) bool {
	if d.AtEnd && m.Cut == nil {
		return true
	}
	// Its length first: gaveUp reads its threads' intervals up to where
	// it broke, and most cycles that broke lasted less (an hour of a
	// loaded ActiveMQ: 159 of its report's 470 CPU-s in gaveUp, each
	// cycle's threads read from their start).
	if d.Lasted(m.End) < MinCycle {
		return false
	}
	return d.AtEnd || !monitorsOnly(d) && gaveUp(m, d)
}

// gaveUp reports whether the cycle d, which broke, broke because one of its
// threads stopped waiting by itself: the wait that ended at d.Resolved
// ended by a timeout or an interrupt (a park's model.WakeTimeout or
// WakeInterrupted, or WakeSpurious: no other thread let it through; a join
// that returned while the thread it joined still ran). A monitor's contention cannot; an unparked park or a join whose
// thread ended was let through by a thread that the cycle said could not
// run. No such wait found: false. The cycle broke when the fold learned
// that an owner it named had changed (another thread's enter or park
// naming a new owner, a MonitorOwned line) while every wait of it went on:
// the owner named had released it before (ActiveMQ loaded: 'DEADLOCKS: 1'
// for a ReentrantReadWriteLock and a log4j Logger's monitor, 176 ms, that
// broke when another thread blocked on the Logger named its new owner, the
// very thread the cycle said was waiting for it).
func gaveUp(m *model.Model, d model.Deadlock) bool {
	var w model.IntervalWindow
	for i, th := range d.Threads {
		t := m.Thread(th)
		if t == nil {
			continue
		}
		// Its intervals that end at d.Resolved: a long thread's read by
		// pieces up to there (Model.WindowOf), not whole.
		m.WindowOf(t, &w)
		ivs, _ := w.Cover(d.Resolved-1, d.Resolved+1)
		for _, iv := range ivs {
			if iv.Open || iv.End != d.Resolved || iv.Since > d.At || i < len(d.Objects) && iv.Object != d.Objects[i] && d.Objects[i] != 0 {
				continue
			}
			switch iv.State {
			case model.Parked, model.Idle:
				if iv.Wake == model.WakeTimeout || iv.Wake == model.WakeInterrupted || iv.Wake == model.WakeSpurious {
					return true
				}
			case model.Joining:
				// It returned while the thread it joined still ran: timed out
				// (join(ms)) or interrupted.
				if o := m.Thread(iv.Other); o == nil || !o.Ended || o.End > iv.End {
					return true
				}
			}
		}
	}
	return false
}

// monitorsOnly: every thread of d is blocked on a monitor.
func monitorsOnly(d model.Deadlock) bool {
	for _, st := range d.States {
		if st != model.Blocked {
			return false
		}
	}
	return len(d.States) > 0
}

// Hang is a thread still blocked, waiting, joining, acquiring or parked
// when the recording ended (not sleeping, not idle): a hang when Why is
// IsHang.
type Hang struct {
	Thread format.ThreadID
	State  model.State
	Object format.ObjectID // monitor, waited object or semaphore
	Other  format.ThreadID // owner or joined thread; for a park, the blocker's owner when it parked
	// Acquire: State is Parked in the acquire of a java.util.concurrent
	// lock, a contention, which the views show as blocked
	// (model.Interval.Shown).
	Acquire bool
	Since   format.Time
	Stack   model.StackID
	// Timeout: whether its state could end by itself (an Object.wait's is
	// unknown unless its stack shows wait()).
	Timeout model.Timeout
	Why     NotHang
	// Behind: the thread it waits for at the end (the owner of its monitor
	// or lock, the thread it joins: the wait-for graph's edge, Behind) when
	// that thread cannot proceed either: in a deadlock intact at the end,
	// or a hang. 0 otherwise.
	Behind format.ThreadID
	// Progress, for Alone: the last moment another thread was seen to run
	// after this one began to wait (its last state's start or end, its
	// start or end), before the shutdown when the JVM exited.
	Progress format.Time
}

// The rule, in one place (OpenAtEnd decides; Hangs, OpenAtCut and the
// report's lists take from it). A hang is a thread that cannot proceed, for
// long enough to matter:
//
//   - It ended the recording in a state it cannot leave by itself: blocked
//     on a monitor or a java.util.concurrent lock, waiting, joining,
//     acquiring a semaphore, parked without a timeout. Not sleeping, not an
//     idle pool worker (state idle), nor java.util.Timer's thread waiting
//     for its next task (model.Model.IdleWaits), not a park or a wait with
//     a timeout (Timed: a wait's from its ObjectWaitTimeout line; in
//     recordings made before it, a wait(long)'s timeout is unknown and
//     counts as none), not a consumer parked in a queue's take or poll
//     (a consumer in a queue's take or poll is idle: model.TakeStack).
//   - It had been in it for MinHang by the end of the recording, or, when the
//     JVM exited normally and its shutdown was seen (model.Model.Shutdown:
//     a SIGTERM handler, System.exit, the end of main), by the start of the
//     shutdown: a state entered after it (InShutdown) was the exit's own,
//     and the exit completed. A thread stuck for seconds before the
//     shutdown is a hang all the same.
//   - When the JVM did not exit (kill -9, a crash: model.Model.Unfinished),
//     the end is the agent's last flush: a state shorter than MinHang then
//     is open "at the kill" (AtKill), its end perhaps among the lost
//     events. One that had lasted MinHang by then is a hang: the JVM is
//     often killed because it hung. A thread stuck during a shutdown that
//     never completed is a hang too.
//   - A cut recording (a failed write) has none: the JVM ran on after the
//     cut, for an unknown time (AtCut).
//   - A thread in a deadlock intact at the end (Deadlocks) is a hang
//     however short: it can never proceed.
//   - So is a thread behind one that cannot proceed, however short its own
//     state (not one that ends by itself, was entered in the shutdown or is
//     at a cut): blocked on a monitor or a java.util.concurrent lock whose
//     owner, or joining a thread that, is in such a deadlock or is a hang
//     itself (Behind; a chain is followed to its end). main joining a
//     deadlocked thread just before the end is stuck with it.
//   - A thread waiting alone is not a hang (Alone): stuck untimed, for
//     long enough, but waiting for no thread in particular (an Object.wait,
//     a park on a latch or a condition, a semaphore) with no thread waiting
//     behind it at the end (the wait-for graph has no edge from or to it),
//     while other threads ran after it began to wait. A server's
//     main parked until its shutdown, ActiveMQ's main on its latch,
//     Jetty's server.join(), and a forgotten latch too: the report lists
//     them apart (waiting alone), not among the hangs. A thread others
//     wait behind stays a hang: it holds them up.
//   - Nor is a thread joining one still at work at the end (JoinsWorking):
//     alive, in no deadlock, no hang itself. The join returns when that
//     thread is done, which is what a join waits for (a program's main
//     joining its workers when a SIGTERM stopped it). Joining a stuck
//     thread is being behind it: a hang.

// Hangs lists the threads that cannot proceed at the end of the recording,
// longest first (the rule above). A cut recording has none: it ended
// because the agent could not write, not because the threads stopped (see
// OpenAtCut).
func Hangs(m *model.Model) []Hang {
	return keep(OpenAtEnd(m), func(h Hang) bool { return h.Why == IsHang })
}

// OpenAtCut lists, in a cut recording, the threads blocked, waiting,
// joining or acquiring at the cut, longest first: how long they stayed is
// unknown. It is empty when the recording is not cut.
func OpenAtCut(m *model.Model) []Hang {
	return keep(OpenAtEnd(m), func(h Hang) bool { return h.Why == AtCut })
}

func keep(hs []Hang, f func(Hang) bool) []Hang {
	var out []Hang
	for _, h := range hs {
		if f(h) {
			out = append(out, h)
		}
	}
	return out
}

// OpenAtEnd lists every thread that ended the recording in a state other
// than sleeping or idle, longest first, each with why it is not a hang
// (Why; IsHang for a hang).
func OpenAtEnd(m *model.Model) []Hang {
	var out []Hang
	deadlocked := map[format.ThreadID]bool{}
	if m.Cut == nil {
		for _, d := range Deadlocks(m) {
			if d.AtEnd {
				for _, th := range d.Threads {
					deadlocked[th] = true
				}
			}
		}
	}
	var buf []model.Interval
	for _, t := range m.AllThreads() {
		// The open segments are the last ones: the innermost state's
		// first, then empty ones of the states around it (a join around
		// a contention). The thread's tail has them all.
		ivs, _ := m.TailOf(t, &buf)
		i := len(ivs) - 1
		for i > 0 && ivs[i-1].Open {
			i--
		}
		// Nor is an idle pool worker waiting for work, parked or, as
		// java.util.Timer's thread, in Object.wait.
		if i < 0 || !ivs[i].Open || ivs[i].State == model.Sleeping || ivs[i].State == model.Idle ||
			ivs[i].State == model.Waiting && m.IdleWaits[ivs[i].Stack] {
			continue
		}
		iv := ivs[i]
		// Since: the start of the whole wait, before any owner change split it.
		h := Hang{Thread: t.ID, State: iv.State, Object: iv.Object, Other: iv.Other, Since: iv.Since, Stack: iv.Stack, Timeout: iv.Timeout, Acquire: iv.Acquire}
		if iv.State == model.Parked {
			h.Other = iv.First
		}
		h.Why = why(m, h, deadlocked[t.ID])
		if iv.SelfJoin && h.Why == IsHang {
			h.Why = JoinsItself
		}
		if at, ok := m.Unparked[t.ID]; ok && iv.State == model.Parked && at >= iv.Since && h.Why == IsHang && !deadlocked[t.ID] {
			h.Why = Released
		}
		out = append(out, h)
	}
	if m.Cut == nil && len(out) > 0 {
		g := m.WaitGraphAt(m.End)
		behind(out, g, deadlocked)
		alone(m, out, g, deadlocked)
		joinsWorking(m, out, deadlocked)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Since != out[j].Since {
			return out[i].Since < out[j].Since
		}
		return out[i].Thread < out[j].Thread
	})
	return out
}

// behind applies the rule's last clause to hs, the threads open at the end:
// each that waits for a thread that cannot proceed (deadlocked, or a hang,
// also one made so by this rule) gets Behind, and, when its own state was
// too short to count (Short, AtKill), is a hang. The edges are the wait-for
// graph's at the end (Model.WaitGraphAt: Wait.For), the one definition of
// "waits for" that the deadlocks and the viewer use.
func behind(hs []Hang, g *model.WaitGraph, deadlocked map[format.ThreadID]bool) {
	waitsFor := map[format.ThreadID]format.ThreadID{}
	for _, w := range g.Waits {
		if w.For != 0 {
			waitsFor[w.Thread] = w.For
		}
	}
	at := make(map[format.ThreadID]int, len(hs))
	for i, h := range hs {
		at[h.Thread] = i
	}
	stuck := func(id format.ThreadID) bool {
		i, ok := at[id]
		return deadlocked[id] || ok && hs[i].Why == IsHang
	}
	// Until nothing changes: a chain's links are made hangs from its end.
	for changed := true; changed; {
		changed = false
		for i := range hs {
			h := &hs[i]
			w, ok := waitsFor[h.Thread]
			if !ok || h.Behind != 0 || deadlocked[h.Thread] || !stuck(w) {
				continue
			}
			switch h.Why {
			case Short, AtKill:
				h.Why = IsHang
			case IsHang:
			default:
				continue
			}
			h.Behind = w
			changed = true
		}
	}
}

// alone applies the rule's clause on threads waiting alone to hs, after
// behind: a hang that is behind no stuck thread, in no deadlock, with no
// edge of g (the wait-for graph at the end) from or to it, is Alone when
// another thread was seen to run after it began to wait (Progress). The
// events after the shutdown's start do not count when the JVM exited: the
// exit is the JVM's, not the program going on.
func alone(m *model.Model, hs []Hang, g *model.WaitGraph, deadlocked map[format.ThreadID]bool) {
	// A thread with an edge, either way, waits with another: for it (the
	// owner of its lock, the thread it joins) or that one for it.
	edged := map[format.ThreadID]bool{}
	for _, w := range g.Waits {
		if w.For != 0 {
			edged[w.For], edged[w.Thread] = true, true
		}
	}
	until := m.End
	if m.Shutdown != 0 && !m.Unfinished {
		until = m.Shutdown
	}
	var first, second lastSeen // the two threads seen last, so that each hang finds another
	var buf []model.Interval
	var w model.IntervalWindow
	for _, t := range m.AllThreads() {
		ivs, from := m.TailOf(t, &buf)
		at, whole := lastEvent(t, ivs, until)
		if !whole && from > 0 {
			// Its events before until are before its tail (a shutdown
			// that began earlier, as a server stopped by SIGTERM): all of
			// them, a piece at a time (a thread of an hour's whole was
			// 490 MB). The last event before until is in the last piece
			// that has an interval begun before it: lastEvent's walk back
			// stops at that interval.
			at, _ = lastEvent(t, nil, until)
			m.WindowOf(t, &w)
			for ivs, ok := w.Next(); ok; ivs, ok = w.Next() {
				if last, whole := lastEvent(t, ivs, until); whole {
					at = last
				}
			}
		}
		switch {
		case at > first.at:
			first, second = lastSeen{t.ID, at}, first
		case at > second.at:
			second = lastSeen{t.ID, at}
		}
	}
	for i := range hs {
		h := &hs[i]
		if h.Why != IsHang || h.Behind != 0 || deadlocked[h.Thread] || edged[h.Thread] {
			continue
		}
		other := first
		if other.thread == h.Thread {
			other = second
		}
		if other.at > h.Since {
			h.Why, h.Progress = Alone, other.at
		}
	}
}

// joinsWorking applies the rule's clause on joins to hs, after behind and
// alone: a hang joining a thread that is alive at the end, in no deadlock
// and no hang itself, and behind no stuck thread (behind would have named
// it), joins a thread still at work (JoinsWorking).
func joinsWorking(m *model.Model, hs []Hang, deadlocked map[format.ThreadID]bool) {
	stuck := map[format.ThreadID]bool{}
	for _, h := range hs {
		if h.Why == IsHang {
			stuck[h.Thread] = true
		}
	}
	for i := range hs {
		h := &hs[i]
		if h.Why != IsHang || h.State != model.Joining || h.Behind != 0 || deadlocked[h.Thread] {
			continue
		}
		j := m.Thread(h.Other)
		if j == nil || j.Ended || deadlocked[j.ID] || stuck[j.ID] {
			continue
		}
		h.Why = JoinsWorking
	}
}

type lastSeen struct {
	thread format.ThreadID
	at     format.Time
}

// lastEvent returns the time of t's last event before until: its start or
// end, a state's start or end (of ivs, its intervals, or its last ones:
// Model.TailOf); 0 when none. whole: ivs reach back to one that began
// before until, so no interval before them changes the answer.
func lastEvent(t *model.Thread, ivs []model.Interval, until format.Time) (last format.Time, whole bool) {
	see := func(at format.Time) {
		if at < until && at > last {
			last = at
		}
	}
	see(t.Start)
	if t.Ended {
		see(t.End)
	}
	for i := len(ivs) - 1; i >= 0; i-- {
		iv := &ivs[i]
		if !iv.Open {
			see(iv.End)
		}
		see(iv.Start)
		if iv.Start < until {
			return last, true // the ones before ended before it began
		}
	}
	return last, false
}

// why applies the rule (above) to a thread open at the end.
func why(m *model.Model, h Hang, deadlocked bool) NotHang {
	switch {
	case m.Cut != nil:
		return AtCut
	case deadlocked:
		return IsHang
	case h.Timeout == model.TimeoutSet:
		return Timed
	}
	end := m.End
	if s := m.Shutdown; s != 0 && !m.Unfinished {
		if h.Since >= s {
			return InShutdown
		}
		end = s
	}
	if end-h.Since >= MinHang {
		return IsHang
	}
	if m.Unfinished {
		return AtKill
	}
	return Short
}

// StormBurst is how many notifyAll calls within the window make a storm.
const StormBurst = 100

// ThreadFilter reports whether a thread matches want: its name exactly or
// its id (hex, any case), or a substring of its name when nothing matches
// exactly (see report --thread).
func ThreadFilter(m *model.Model, want string) func(*model.Thread) bool {
	if want == "" {
		return func(*model.Thread) bool { return true }
	}
	exact := false
	for _, t := range m.AllThreads() {
		if t.Name == want || strings.EqualFold(t.ID.String(), want) {
			exact = true
		}
	}
	return func(t *model.Thread) bool {
		if exact {
			return t.Name == want || strings.EqualFold(t.ID.String(), want)
		}
		return strings.Contains(t.Name, want)
	}
}
