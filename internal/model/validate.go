package model

import (
	"fmt"

	"orca/internal/format"
)

// Validate checks the Model's invariants and returns every violation:
// per-thread intervals sorted and never overlapping, inside the thread's
// life; every wait's end known; no thread blocked on a monitor it owns;
// state times adding up to the thread's life; edges between known threads.
// Every test of the model runs it.
func Validate(m *Model) []error {
	var errs []error
	bad := func(f string, args ...any) {
		if len(errs) < 100 {
			errs = append(errs, fmt.Errorf(f, args...))
		}
	}
	if m.End < m.Start {
		bad("recording ends (%v) before it starts (%v)", m.End, m.Start)
	}
	for _, t := range m.Threads {
		if t.End < t.Start {
			bad("thread %v ends before it starts", t.ID)
		}
		var prev format.Time = t.Start
		var sum format.Time
		for i, iv := range t.Intervals {
			if iv.End < iv.Start {
				bad("thread %v interval %d (%s) ends before it starts", t.ID, i, iv.State)
			}
			if iv.Start < prev {
				bad("thread %v interval %d (%s at %.9f) overlaps the previous one (ends %.9f)", t.ID, i, iv.State, iv.Start.Seconds(), prev.Seconds())
			}
			if iv.End > t.End {
				bad("thread %v interval %d (%s) ends after the thread", t.ID, i, iv.State)
			}
			if iv.State == Runnable || iv.State >= NumStates {
				bad("thread %v interval %d has state %s", t.ID, i, iv.State)
			}
			if iv.State == Waiting && iv.Wake == WakeNone {
				bad("thread %v wait at %.9f has no end kind", t.ID, iv.Start.Seconds())
			}
			if iv.State == Blocked && iv.Other == t.ID {
				bad("thread %v blocked on monitor %v that it owns", t.ID, iv.Object)
			}
			if iv.Open && iv.End != t.End {
				bad("thread %v open interval does not reach the thread's end", t.ID)
			}
			prev = iv.End
			sum += iv.Duration()
		}
		var total format.Time
		for _, d := range t.Time {
			total += d
		}
		if sum <= t.Life() && total != t.Life() {
			bad("thread %v: state times add up to %v, life is %v", t.ID, total, t.Life())
		}
	}
	for _, e := range m.Edges {
		if m.Thread(e.From) == nil || m.Thread(e.To) == nil {
			bad("%s edge %v -> %v names an unknown thread", e.Kind, e.From, e.To)
		}
	}
	for _, d := range m.Deadlocks {
		if len(d.Threads) < 2 || len(d.Objects) != len(d.Threads) || len(d.Stacks) != len(d.Threads) {
			bad("deadlock at %.9f is malformed", d.At.Seconds())
		}
	}
	for _, l := range m.Locks {
		var blamed format.Time
		for _, o := range l.Owners {
			blamed += o.Blamed
		}
		if blamed > l.Blocked+1 && l.Kind == Monitor && !hasOpenBlock(m, l.Object) {
			bad("lock %v: owners blamed %v, more than the %v blocked", l.Object, blamed, l.Blocked)
		}
		if l.MaxBlocked > l.Blocked {
			bad("lock %v: max blocked exceeds total", l.Object)
		}
	}
	return errs
}

func hasOpenBlock(m *Model, obj format.ObjectID) bool {
	for _, t := range m.Threads {
		for _, iv := range t.Intervals {
			if iv.Open && iv.State == Blocked && iv.Object == obj {
				return true
			}
		}
	}
	return false
}
