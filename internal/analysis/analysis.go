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
	for _, d := range m.Deadlocks {
		if IsDeadlock(m, d) {
			out = append(out, d)
		}
	}
	return out
}

// IsDeadlock reports whether d, a cycle of m's wait-for graph, is one of
// the deadlocks Deadlocks returns.
func IsDeadlock(m *model.Model, d model.Deadlock) bool {
	return d.AtEnd && m.Cut == nil || d.Lasted(m.End) >= MinCycle
}

// Hang is a thread still blocked, waiting, joining, acquiring or parked
// when the recording ended (not sleeping, not idle).
type Hang struct {
	Thread format.ThreadID
	State  model.State
	Object format.ObjectID // monitor, waited object or semaphore
	Other  format.ThreadID // owner or joined thread; for a park, the blocker's owner when it parked
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
		// Nor is an idle pool worker waiting for work.
		if i < 0 || !t.Intervals[i].Open || t.Intervals[i].State == model.Sleeping || t.Intervals[i].State == model.Idle {
			continue
		}
		iv := t.Intervals[i]
		// Since: the start of the whole wait, before any owner change split it.
		h := Hang{Thread: t.ID, State: iv.State, Object: iv.Object, Other: iv.Other, Since: iv.Since, Stack: iv.Stack}
		if iv.State == model.Parked {
			h.Other = iv.First
		}
		out = append(out, h)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Since != out[j].Since {
			return out[i].Since < out[j].Since
		}
		return out[i].Thread < out[j].Thread
	})
	return out
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
