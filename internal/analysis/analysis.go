// Package analysis answers the questions a user brings to a recording —
// deadlocks, hangs, which locks and call sites cost the most and who to
// blame, unhealthy wait/notify — from a model.Model. Every number comes
// from the events; nothing is estimated.
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
	for _, d := range m.Deadlocks {
		if d.AtEnd && m.Cut == nil || d.Lasted(m.End) >= MinCycle {
			out = append(out, d)
		}
	}
	return out
}

// Hang is a thread still blocked, waiting, joining or acquiring when the
// recording ended.
type Hang struct {
	Thread format.ThreadID
	State  model.State
	Object format.ObjectID // monitor, waited object or semaphore
	Other  format.ThreadID // owner or joined thread
	Since  format.Time
	Stack  model.StackID
}

// Hangs lists the threads that ended the recording inside a blocking
// state (sleeping is not a hang), longest first. A cut recording has none:
// it ended because the agent could not write, not because the threads
// stopped (see OpenAtCut).
func Hangs(m *model.Model) []Hang {
	if m.Cut != nil {
		return nil
	}
	return openAtEnd(m)
}

// OpenAtCut lists, in a cut recording, the threads blocked, waiting,
// joining or acquiring at the cut, longest first: how long they stayed is
// unknown. It is empty when the recording is not cut.
func OpenAtCut(m *model.Model) []Hang {
	if m.Cut == nil {
		return nil
	}
	return openAtEnd(m)
}

func openAtEnd(m *model.Model) []Hang {
	var out []Hang
	for _, t := range m.Threads {
		// The open segments are the last ones: the innermost state's
		// first, then empty ones of the states around it (a join around
		// a contention).
		i := len(t.Intervals) - 1
		for i > 0 && t.Intervals[i-1].Open {
			i--
		}
		if i < 0 || !t.Intervals[i].Open || t.Intervals[i].State == model.Sleeping {
			continue
		}
		iv := t.Intervals[i]
		// Since: the start of the whole wait, before any owner change split it.
		out = append(out, Hang{Thread: t.ID, State: iv.State, Object: iv.Object, Other: iv.Other, Since: iv.Since, Stack: iv.Stack})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Since != out[j].Since {
			return out[i].Since < out[j].Since
		}
		return out[i].Thread < out[j].Thread
	})
	return out
}

// SiteRank is a call site where threads blocked, across all locks.
type SiteRank struct {
	Stack       model.StackID
	Lock        format.ObjectID
	Kind        model.LockKind
	Contentions int
	Blocked     format.Time
}

// Sites ranks the blocking call sites of all locks by blocked time.
func Sites(m *model.Model) []SiteRank {
	var out []SiteRank
	for _, l := range m.Locks {
		for _, s := range l.Sites {
			out = append(out, SiteRank{Stack: s.Stack, Lock: l.Object, Kind: l.Kind, Contentions: s.Contentions, Blocked: s.Blocked})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Blocked != out[j].Blocked {
			return out[i].Blocked > out[j].Blocked
		}
		return out[i].Contentions > out[j].Contentions
	})
	return out
}

// WaitHealth summarises Object.wait/notify on one object.
type WaitHealth struct {
	Object       format.ObjectID
	Waits        int
	Notified     int         // ended by a notify or notifyAll (ambiguous ones included)
	Ambiguous    int         // a notify that could have woken another waiter
	TimedOut     int         // ended with no notify: timed out, interrupted or spurious
	StillWaiting int         // the recording ended during the wait
	WaitTime     format.Time // from each wait's start to its end (or the thread's end)
	Notifies     int
	NotifyAlls   int
	WokeNobody   int // notify/notifyAll with no waiter
	MaxBurst     int // most notifyAll within model.NotifyAllStormWindow
}

// StormBurst is how many notifyAll calls within the window make a storm.
const StormBurst = 100

// Waits returns the wait/notify health of every object that was waited on
// or notified, worst first (most waits that no notify ended).
func Waits(m *model.Model) []WaitHealth {
	by := map[format.ObjectID]*WaitHealth{}
	get := func(o format.ObjectID) *WaitHealth {
		w := by[o]
		if w == nil {
			w = &WaitHealth{Object: o}
			by[o] = w
		}
		return w
	}
	for _, t := range m.Threads {
		// A wait can be split around a contention nested in it (taking
		// the monitor back): its later segments are Cont; all carry its
		// end kind.
		var end format.Time // of the latest wait segment
		for i := range t.Intervals {
			iv := &t.Intervals[i]
			if iv.State != model.Waiting {
				continue
			}
			w := get(iv.Object)
			if iv.Cont {
				w.WaitTime += iv.End - end
				end = iv.End
				continue
			}
			end = iv.End
			w.Waits++
			w.WaitTime += iv.Duration()
			switch iv.Wake {
			case model.WakeNotify, model.WakeNotifyAll:
				w.Notified++
			case model.WakeAmbiguous:
				w.Notified++
				w.Ambiguous++
			case model.WakeTimeout:
				w.TimedOut++
			case model.WakeNever:
				w.StillWaiting++
			}
		}
	}
	for _, l := range m.Locks {
		if l.Kind != model.Monitor || (l.Notifies == 0 && l.NotifyAlls == 0) {
			continue
		}
		w := get(l.Object)
		w.Notifies, w.NotifyAlls, w.WokeNobody, w.MaxBurst = l.Notifies, l.NotifyAlls, l.NotifiesWokeNobody, l.MaxNotifyAllBurst
	}
	out := make([]WaitHealth, 0, len(by))
	for _, w := range by {
		out = append(out, *w)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.TimedOut+a.StillWaiting != b.TimedOut+b.StillWaiting {
			return a.TimedOut+a.StillWaiting > b.TimedOut+b.StillWaiting
		}
		if a.WaitTime != b.WaitTime {
			return a.WaitTime > b.WaitTime
		}
		return a.Object < b.Object
	})
	return out
}

// ThreadFilter reports whether a thread matches want: its name exactly or
// its id (hex, any case), or a substring of its name when nothing matches
// exactly (see report --thread).
func ThreadFilter(m *model.Model, want string) func(*model.Thread) bool {
	if want == "" {
		return func(*model.Thread) bool { return true }
	}
	exact := false
	for _, t := range m.Threads {
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
