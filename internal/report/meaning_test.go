package report

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
)

var hex8 = regexp.MustCompile(`^[0-9A-F]{8}$`)

// near compares seconds decoded from JSON with nanosecond tolerance per term.
func near(a, b float64, terms int) bool { return math.Abs(a-b) <= 1e-9*float64(terms+1) }

// checkMeaning checks what the decoded JSON says against itself, the
// options and the model: invariants of the numbers, and, without a
// thread filter, that the lock and wait figures folded by the report equal
// the model's and the analyses'.
func checkMeaning(t *testing.T, r *Report, m *model.Model, opt Options) {
	t.Helper()
	ids := func(where string, ss ...string) {
		for _, s := range ss {
			if !hex8.MatchString(s) {
				t.Errorf("%s: id %q is not 8 hex digits", where, s)
			}
		}
	}
	opt1 := func(where string, s *string) {
		if s != nil {
			ids(where, *s)
		}
	}
	if !near(r.DurationS, sec(m.End-m.Start), 0) || r.Events != m.Events || r.ThreadsAll != len(m.Threads) {
		t.Errorf("headline %v s %d events %d threads; model %v, %d, %d", r.DurationS, r.Events, r.ThreadsAll, m.End-m.Start, m.Events, len(m.Threads))
	}
	matches := analysis.ThreadFilter(m, opt.Thread)
	matchID := func(where, id string) {
		v, _ := strconv.ParseUint(id, 16, 32)
		if th := m.Thread(format.ThreadID(v)); th == nil || !matches(th) {
			t.Errorf("%s: thread %s does not match --thread %q", where, id, opt.Thread)
		}
	}
	limit := func(what string, n, total int) {
		if total < n || (opt.Top > 0 && n > opt.Top) || (opt.Top == 0 && n != total) {
			t.Errorf("%s: %d listed of %d with --top %d", what, n, total, opt.Top)
		}
	}
	limit("threads", len(r.Threads), r.ThreadsTotal)
	limit("locks", len(r.Locks), r.LocksTotal)
	limit("sites", len(r.Sites), r.SitesTotal)
	limit("waits", len(r.Waits), r.WaitsTotal)

	for _, th := range r.Threads {
		ids("thread", th.ID)
		opt1("thread parent", th.Parent)
		matchID("threads", th.ID)
		s, p := th.StatesS, th.StatesPct
		sum := s.Runnable + s.Blocked + s.Waiting + s.Sleeping + s.Joining + s.Acquiring + s.Parked + s.Idle
		if !near(sum, th.LifeS, 6) {
			t.Errorf("thread %s: states add up to %v s, life is %v s", th.ID, sum, th.LifeS)
		}
		psum := p.Runnable + p.Blocked + p.Waiting + p.Sleeping + p.Joining + p.Acquiring + p.Parked + p.Idle
		if th.LifeS > 0 && math.Abs(psum-100) > 0.05 {
			t.Errorf("thread %s: state percentages add up to %v", th.ID, psum)
		}
		if th.StartS < 0 || th.StartS > th.EndS || th.EndS > r.DurationS+1e-9 || !near(th.EndS-th.StartS, th.LifeS, 2) {
			t.Errorf("thread %s: life %v..%v (%v s) outside the recording (%v s)", th.ID, th.StartS, th.EndS, th.LifeS, r.DurationS)
		}
		// The split of runnable: cpu_s and other_s together, ready_s only
		// with them, never more than runnable.
		if (th.CPUS == nil) != (th.OtherS == nil) || th.ReadyS != nil && th.CPUS == nil {
			t.Errorf("thread %s: cpu_s, ready_s, other_s not all there or all absent", th.ID)
		} else if th.CPUS != nil {
			split := *th.CPUS + *th.OtherS
			if th.ReadyS != nil {
				split += *th.ReadyS
			}
			if th.VirtualCPUS != nil {
				split += *th.VirtualCPUS
			}
			if split > s.Runnable+4e-9 {
				t.Errorf("thread %s: cpu, ready, other, virtual %v s, runnable %v s", th.ID, split, s.Runnable)
			}
		}
	}

	if c := r.CPU; c != nil {
		// Ranks in order, accum the running sum of self, all the samples
		// when no method is cut.
		n := 0
		for i, me := range c.Methods {
			n += me.Samples
			if me.Rank != i+1 || math.Abs(me.AccumPct-pct(format.Time(n), format.Time(c.Samples))) > 0.005 || i > 0 && me.Samples > c.Methods[i-1].Samples {
				t.Errorf("cpu method %d: %+v", i, me)
			}
		}
		if n > c.Samples || len(c.Methods) == c.MethodsTotal && n != c.Samples {
			t.Errorf("cpu: methods have %d samples of %d", n, c.Samples)
		}
	} else if m.Samples > 0 {
		t.Errorf("cpu is null, the model has %d samples", m.Samples)
	}
	for _, l := range r.Locks {
		// What the holders did adds up to the time threads were blocked
		// on it, at most its blocked time; a semaphore has none.
		if l.Kind == "semaphore" && l.HoldersDoing != nil {
			t.Errorf("semaphore %s has holders_doing", l.Object)
		}
		if l.HoldersDoing != nil {
			var sum float64
			for _, s := range l.HoldersDoing {
				sum += s
			}
			if !near(sum, l.HoldersWhileS, len(l.HoldersDoing)) || l.HoldersWhileS > l.BlockedS+l.OpenS+1e-9 {
				t.Errorf("lock %s: holders_doing adds up to %v s, holders_while_s %v s, blocked %v s", l.Object, sum, l.HoldersWhileS, l.BlockedS+l.OpenS)
			}
			for _, f := range l.HoldersFrames {
				if f.State != "running" && f.State != "other" {
					t.Errorf("lock %s: holders frame %q in state %q", l.Object, f.Frame, f.State)
				}
			}
		}
		ids("lock", l.Object)
		ids("lock waiters", l.Waiters...)
		for _, w := range l.Waiters {
			matchID("lock waiters", w)
		}
		var blamed float64
		ownerCont := 0
		for _, o := range l.Owners {
			ids("lock owner", o.Thread)
			blamed += o.BlamedS
			ownerCont += o.Contentions
		}
		if blamed > l.BlockedS+l.OpenS+1e-9*float64(len(l.Owners)+2) {
			t.Errorf("lock %s: owners blamed %v s, more than %v s blocked + %v s open", l.Object, blamed, l.BlockedS, l.OpenS)
		}
		if ownerCont > l.Contentions {
			t.Errorf("lock %s: owners have %d contentions of %d", l.Object, ownerCont, l.Contentions)
		}
		if l.MaxBlockedS > l.BlockedS || l.MeanBlockedS > l.MaxBlockedS ||
			(l.Contentions > 0 && !near(l.MeanBlockedS*float64(l.Contentions), l.BlockedS, l.Contentions)) {
			t.Errorf("lock %s: blocked %v, mean %v, max %v in %d contentions", l.Object, l.BlockedS, l.MeanBlockedS, l.MaxBlockedS, l.Contentions)
		}
		var sc, so int
		var sb float64
		for _, s := range l.Sites {
			sc, so, sb = sc+s.Contentions, so+s.Open, sb+s.BlockedS
		}
		if sc != l.Contentions || so != l.Open || !near(sb, l.BlockedS, len(l.Sites)) {
			t.Errorf("lock %s: sites add up to %d+%d contentions, %v s; lock has %d+%d, %v s", l.Object, sc, so, sb, l.Contentions, l.Open, l.BlockedS)
		}
		if l.Contentions+l.Open == 0 {
			t.Errorf("lock %s listed without contention", l.Object)
		}
	}
	for _, s := range r.Sites {
		ids("site", s.Object)
		if len(s.Frames) == 0 {
			t.Errorf("site on %s has no frames", s.Object)
		}
	}
	for i, d := range r.Deadlocks {
		n := len(d.Threads)
		if n < 2 || len(d.Names) != n || len(d.States) != n || len(d.Objects) != n || len(d.Stacks) != n {
			t.Errorf("deadlock %d: %d threads, %d names, %d states, %d objects, %d stacks", i, n, len(d.Names), len(d.States), len(d.Objects), len(d.Stacks))
		}
		ids("deadlock", d.Threads...)
		for j, o := range d.Objects {
			opt1("deadlock object", o)
			if (o == nil) != (d.States[j] == "joining") {
				t.Errorf("deadlock %d thread %d: state %s with object %v", i, j, d.States[j], o)
			}
		}
		if d.AtEnd != (d.ResolvedS == nil) || (d.AtEnd && !near(d.AtS+d.LastedS, r.DurationS, 3)) {
			t.Errorf("deadlock %d: at_end %v, resolved %v, at %v + lasted %v, duration %v", i, d.AtEnd, d.ResolvedS, d.AtS, d.LastedS, r.DurationS)
		}
	}
	for _, h := range r.Hangs {
		ids("hang", h.Thread)
		opt1("hang object", h.Object)
		opt1("hang other", h.Other)
		matchID("hangs", h.Thread)
		if !near(h.SinceS+h.ForS, r.DurationS, 3) {
			t.Errorf("hang of %s: since %v for %v, recording %v s", h.Thread, h.SinceS, h.ForS, r.DurationS)
		}
		if h.Deadlock != nil && (*h.Deadlock >= len(r.Deadlocks) || !r.Deadlocks[*h.Deadlock].AtEnd) {
			t.Errorf("hang of %s: deadlock %d is not one intact at the end", h.Thread, *h.Deadlock)
		}
	}
	for _, h := range r.NotHangs {
		ids("not a hang", h.Thread)
		matchID("not_hangs", h.Thread)
		if h.Why == "" || h.Why == "cut" || h.Deadlock != nil || h.Timeout == "" || !near(h.SinceS+h.ForS, r.DurationS, 3) {
			t.Errorf("not a hang: %+v (recording %v s)", h, r.DurationS)
		}
	}
	for _, h := range r.Hangs {
		if h.Why != "" || h.Timeout == "set" {
			t.Errorf("hang of %s: why %q, timeout %q", h.Thread, h.Why, h.Timeout)
		}
	}
	for _, w := range r.Waits {
		name := "a group"
		if g := w.Group; g != nil {
			if w.Object != nil {
				t.Errorf("a group of waits on object %s", *w.Object)
			}
			var top float64
			for i, o := range g.Top {
				ids("group member", o.Object)
				if o.Waits > g.MaxWaits || o.WaitS > top && i > 0 {
					t.Errorf("waits of a group: its top objects %+v, at most %d waits each", g.Top, g.MaxWaits)
				}
				top = o.WaitS
			}
			if g.Objects < model.GroupMinObjects || g.MaxWaits > model.GroupMaxWaits || w.Waits < g.Objects || w.Waits > g.Objects*g.MaxWaits ||
				g.Threads < 1 || len(g.Top) != min(groupTop, g.Objects) || g.MaxWaitS > w.WaitS || len(w.Sites) == 0 {
				t.Errorf("waits of a group: %+v, group %+v", w, *g)
			}
		} else if w.Object == nil {
			t.Errorf("waits entry with neither object nor group: %+v", w)
			continue
		} else {
			ids("wait", *w.Object)
			name = *w.Object
		}
		if w.Notified+w.TimedOut+w.StillWaiting != w.Waits || w.Ambiguous > w.Notified {
			t.Errorf("waits on %s: %d = %d notified + %d timed out + %d still?", name, w.Waits, w.Notified, w.TimedOut, w.StillWaiting)
		}
		if w.WokeNobody > w.Notifies+w.NotifyAlls || w.Storm != (w.MaxBurst >= analysis.StormBurst) {
			t.Errorf("waits on %s: %+v", name, w)
		}
	}
	if opt.Thread == "" {
		sameAsModel(t, r, m)
	}
}

func objectID(s string) format.ObjectID {
	v, _ := strconv.ParseUint(s, 16, 32)
	return format.ObjectID(v)
}

// sameAsModel checks that the report renders the model's figures of
// locks, sites and waits (model.Lock, summed by Model.Aggregate).
func sameAsModel(t *testing.T, r *Report, m *model.Model) {
	t.Helper()
	listed := map[string]bool{}
	for _, l := range r.Locks {
		kind := model.Monitor
		switch l.Kind {
		case "semaphore":
			kind = model.Semaphore
		case "juc":
			kind = model.JUCLock
		}
		listed[l.Kind+l.Object] = true
		ml := m.Lock(objectID(l.Object), kind)
		if ml == nil {
			t.Errorf("lock %s %s is not in the model", l.Kind, l.Object)
			continue
		}
		if l.Contentions != ml.Contentions || !near(l.BlockedS, ml.Blocked.Seconds(), 1) || l.Open != ml.Open || !near(l.OpenS, ml.OpenTime.Seconds(), 1) ||
			!near(l.MaxBlockedS, ml.MaxBlocked.Seconds(), 1) || l.OwnerUnknown != ml.OwnerUnknown || l.Waits != ml.Waits {
			t.Errorf("lock %s: report %d contentions %v s, %d open %v s, max %v, unknown %d, %d waits; model %+v", l.Object,
				l.Contentions, l.BlockedS, l.Open, l.OpenS, l.MaxBlockedS, l.OwnerUnknown, l.Waits, *ml)
		}
		if len(l.Owners) != len(ml.Owners) {
			t.Errorf("lock %s: %d owners, model %d", l.Object, len(l.Owners), len(ml.Owners))
		}
		for i := range min(len(l.Owners), len(ml.Owners)) {
			o, mo := l.Owners[i], ml.Owners[i]
			if o.Thread != mo.Thread.String() || o.Contentions != mo.Contentions || !near(o.BlamedS, mo.Blamed.Seconds(), 1) {
				t.Errorf("lock %s owner %d: %+v, model %+v", l.Object, i, o, mo)
			}
		}
		if h, mh := l.Hold, ml.Hold; (h == nil) != (mh == nil) || h != nil && (h.Count != mh.Count || len(h.Sites) != len(mh.Sites) ||
			!near(h.P50S, mh.P50.Seconds(), 1) || !near(h.P99S, mh.P99.Seconds(), 1) || !near(h.MaxS, mh.Max.Seconds(), 1) || !near(h.MeanS, mh.Mean().Seconds(), 1)) {
			t.Errorf("lock %s: hold %+v, model %+v", l.Object, h, mh)
		} else if h != nil {
			n := 0
			for _, s := range h.Sites {
				n += s.Count
			}
			if n != h.Count {
				t.Errorf("lock %s: hold sites add up to %d holds, the lock has %d", l.Object, n, h.Count)
			}
		}
		var got, want []string
		for _, s := range l.Sites {
			got = append(got, strconv.Itoa(s.Contentions)+"+"+strconv.Itoa(s.Open)+"/"+strconv.FormatFloat(s.BlockedS, 'f', 9, 64))
		}
		for _, s := range ml.Sites {
			want = append(want, strconv.Itoa(s.Contentions)+"+"+strconv.Itoa(s.Open)+"/"+strconv.FormatFloat(sec(s.Blocked), 'f', 9, 64))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("lock %s sites: %v, model %v", l.Object, got, want)
		}
	}
	contended := 0
	for _, ml := range m.Locks {
		if ml.Contentions+ml.Open > 0 {
			contended++
			if r.LocksTotal == len(r.Locks) && !listed[ml.Kind.String()+ml.Object.String()] {
				t.Errorf("contended lock %v %v missing from the report", ml.Kind, ml.Object)
			}
		}
	}
	if r.LocksTotal != contended {
		t.Errorf("%d contended locks, the model %d", r.LocksTotal, contended)
	}
	if r.SitesTotal == len(r.Sites) {
		n := 0
		for _, ml := range m.Locks {
			n += len(ml.Sites)
		}
		if r.SitesTotal != n {
			t.Errorf("%d sites, the model %d", r.SitesTotal, n)
		}
	}
	// Waits: the objects waited on, notified or parked on, a group in
	// place of its members.
	v := m.Filter(nil)
	waited := len(m.Groups)
	for _, ml := range m.Locks {
		if v.GroupOf(ml) == nil && (ml.Kind == model.Monitor && ml.Waits+ml.Notifies+ml.NotifyAlls > 0 || ml.Kind == model.Blocker && ml.Waits > 0) {
			waited++
		}
	}
	for _, w := range r.Waits {
		kind := model.Monitor
		if w.Kind == "park" {
			kind = model.Blocker
		}
		var a *model.Lock
		name := "a group"
		if w.Group != nil {
			// The group of its costliest object.
			if g := v.GroupOf(m.Lock(objectID(w.Group.Top[0].Object), kind)); g != nil {
				a = &g.Lock
				members := len(slices.Collect(v.Model.GroupMembers(g)))
				if members != w.Group.Objects || len(g.WaitedBy) != w.Group.Threads || g.MaxWaits != w.Group.MaxWaits ||
					!near(w.Group.MaxWaitS, g.MaxWait.Seconds(), 1) {
					t.Errorf("group %+v, model %d members, %d threads, %d waits at most, %v the longest", *w.Group, members, len(g.WaitedBy), g.MaxWaits, g.MaxWait)
				}
				for i, o := range w.Group.Top {
					if o.Object != g.Members[i].Object.String() {
						t.Errorf("group: top object %d is %s, model %v", i, o.Object, g.Members[i].Object)
					}
				}
			}
		} else {
			a = m.Lock(objectID(*w.Object), kind)
			name = *w.Object
		}
		if a == nil || w.Waits != a.Waits || w.Notified != a.Notified || w.Ambiguous != a.Ambiguous || w.TimedOut != a.TimedOut ||
			w.StillWaiting != a.StillWaiting || !near(w.WaitS, a.WaitTime.Seconds(), a.Waits) || w.Notifies != a.Notifies ||
			w.NotifyAlls != a.NotifyAlls || w.WokeNobody != a.NotifiesWokeNobody || w.MaxBurst != a.MaxNotifyAllBurst {
			t.Errorf("waits on %s: %+v, model %+v", name, w, a)
		}
	}
	if r.WaitsTotal != waited {
		t.Errorf("%d wait objects, the model %d", r.WaitsTotal, waited)
	}
}
