package report

import (
	"sort"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
)

// waitAcc accumulates the waits on one object, as analysis.Waits does, but
// only of the matching threads, and per wait site.
type waitAcc struct {
	w     Wait
	app   bool // a thread that is not a JDK service thread waited on it
	time  format.Time
	sites map[model.StackID]*waitSiteAcc
}

type waitSiteAcc struct {
	stack model.StackID
	site  WaitSite
	time  format.Time
}

// waits returns the wait/notify health of the objects the matching threads
// waited on (and, without a filter, of the objects only notified), worst
// first: the program's objects before those only JDK service threads
// waited on, then most waits that no notify ended, then most time waiting.
// Notify counts are the object's, by every thread: the model does not
// keep who notified.
func (b *builder) waits() []Wait {
	by := map[format.ObjectID]*waitAcc{}
	get := func(o format.ObjectID) *waitAcc {
		a := by[o]
		if a == nil {
			a = &waitAcc{w: Wait{Object: o.String()}, sites: map[model.StackID]*waitSiteAcc{}}
			by[o] = a
		}
		return a
	}
	for _, t := range b.m.Threads {
		if !b.match(t) {
			continue
		}
		// A wait split around a state nested in it (a contention taking
		// the monitor back) is one wait; its time runs from its start to
		// its last segment's end.
		last := map[occurrence]format.Time{}
		for _, iv := range t.Intervals {
			if iv.State != model.Waiting {
				continue
			}
			a := get(iv.Object)
			s := a.sites[iv.Stack]
			if s == nil {
				s = &waitSiteAcc{stack: iv.Stack}
				a.sites[iv.Stack] = s
			}
			k := occurrence{iv.State, iv.Since, iv.Object}
			if prev, ok := last[k]; ok && iv.Cont {
				a.time += iv.End - prev
				s.time += iv.End - prev
				last[k] = iv.End
				continue
			}
			last[k] = iv.End
			a.app = a.app || !b.jdk[t.ID]
			a.w.Waits++
			s.site.Waits++
			a.time += iv.Duration()
			s.time += iv.Duration()
			switch iv.Wake {
			case model.WakeNotify, model.WakeNotifyAll:
				a.w.Notified++
			case model.WakeAmbiguous:
				a.w.Notified++
				a.w.Ambiguous++
			case model.WakeTimeout:
				a.w.TimedOut++
				s.site.TimedOut++
			case model.WakeNever:
				a.w.StillWaiting++
				s.site.Still++
			}
		}
	}
	if b.opt.Thread == "" {
		for _, l := range b.m.Locks {
			if l.Kind == model.Monitor && (l.Notifies > 0 || l.NotifyAlls > 0) {
				get(l.Object)
			}
		}
	}
	accs := make([]*waitAcc, 0, len(by))
	for o, a := range by {
		if l := b.m.Lock(o, model.Monitor); l != nil {
			w := &a.w
			w.Notifies, w.NotifyAlls, w.WokeNobody, w.MaxBurst = l.Notifies, l.NotifyAlls, l.NotifiesWokeNobody, l.MaxNotifyAllBurst
			w.Storm = l.MaxNotifyAllBurst >= analysis.StormBurst
			if l.Class != "" {
				w.Class = &l.Class
			}
		}
		a.w.JDK = a.w.Waits > 0 && !a.app
		accs = append(accs, a)
	}
	sort.Slice(accs, func(i, j int) bool {
		a, c := accs[i], accs[j]
		if a.w.JDK != c.w.JDK {
			return !a.w.JDK
		}
		if a.w.TimedOut+a.w.StillWaiting != c.w.TimedOut+c.w.StillWaiting {
			return a.w.TimedOut+a.w.StillWaiting > c.w.TimedOut+c.w.StillWaiting
		}
		if a.time != c.time {
			return a.time > c.time
		}
		return a.w.Object < c.w.Object
	})
	out := []Wait{}
	for _, a := range accs {
		a.w.WaitS = sec(a.time)
		a.w.Sites = []WaitSite{}
		var ss []*waitSiteAcc
		for _, s := range a.sites {
			ss = append(ss, s)
		}
		sort.Slice(ss, func(i, j int) bool {
			if ss[i].time != ss[j].time {
				return ss[i].time > ss[j].time
			}
			return ss[i].stack < ss[j].stack
		})
		for _, s := range ss {
			s.site.Frames = b.stack(s.stack)
			s.site.WaitS = sec(s.time)
			a.w.Sites = append(a.w.Sites, s.site)
		}
		out = append(out, a.w)
	}
	return out
}
