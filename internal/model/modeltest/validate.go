// Package modeltest is the test oracle of the model: Validate checks a
// model.Model against the invariants the fold must keep. Only tests call
// it (the model's, the report's, the exports', the viewer's, the
// importer's and the real-JVM tests of integration/), as Go's trace tests
// call internal/trace/testtrace.
package modeltest

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"sort"

	"orca/internal/format"
	"orca/internal/model"
)

// Validate checks the Model's invariants and returns every violation (at
// most 100). Every test of the model runs it, so it checks each number the
// fold keeps against the intervals it comes from:
//   - threads lie inside the recording; per thread, intervals are sorted,
//     never overlap, lie inside the thread's life, and open ones come
//     last; state times add up to the life;
//   - the segments of one split state leave no gap but for states nested
//     in it; a wait has one end kind, named by all its segments, and a
//     notifier exactly when a notify ended it;
//   - one holder per monitor: threads blocked on one monitor at one time
//     name the same owner (the named owner's own last instants blocked
//     excepted), and no thread blocks on a monitor it owns;
//   - each lock's contentions, blocked and max time, sites, per-owner
//     blame and waits equal what its threads' intervals say;
//   - each lock's hold times add up over its holding sites, and are
//     ended by no more acquisitions than it had (holds);
//   - each group's members are transient locks of its kind, class and
//     site, in no other group, and its figures are their sums; no set of
//     transient locks that would make a group is left out;
//   - each edge joins two known threads, goes forward in time and matches
//     the interval it explains; each notified wait has its wake edge;
//   - each deadlock's threads wait for one another when it forms, and
//     still do at the end if it is AtEnd;
//   - the cycles of the wait-for graph at each instant something changes
//     (WaitGraphAt) are the deadlocks standing then (in a model of at most
//     waitGraphChecks thread-instants).
func Validate(m *model.Model) []error {
	v := &validator{m: m}
	// The checks below were written for contentions split at owner
	// changes; they check the spans the model computes the same way.
	v.segment()
	v.threads()
	v.locks()
	v.aggregate()
	v.holds()
	v.groups()
	v.holders()
	v.doing()
	v.edges()
	v.deadlocks()
	v.waitGraphs(m)
	return v.errs
}

type validator struct {
	m *model.Model
	// segThreads are m's threads with their Blocked intervals split at
	// owner changes (model.Model.Segments); byID is m's index of threads
	// (ThreadIndex) pointing at these copies, wrong entries included: they
	// are among what Validate checks.
	segThreads []*model.Thread
	byID       map[format.ThreadID]*model.Thread
	errs       []error
	occs       []*occurrence
	// by thread
	occOf map[*model.Thread][]*occurrence
}

type occKey struct {
	state model.State
	since format.Time
	obj   format.ObjectID
}

// occurrence is one state of one thread: a wait, a contention, a join,
// made of one or more segments.
type occurrence struct {
	t           *model.Thread
	first, last int // indices of its first and last segments in t.Intervals
	n           int // segments
	end         format.Time
}

func (o *occurrence) iv(i int) *model.Interval { return &o.t.Intervals[i] }
func (o *occurrence) lastIv() *model.Interval  { return o.iv(o.last) }

// owner is the owner a contention (a Blocked occurrence) ended behind:
// its last segment's, or, when that one names no owner because another
// contender named the waiter itself the owner before its own Entered (the
// tail blamed on no one: Model.OwnerSpans), the one before it.
func (o *occurrence) owner() format.ThreadID {
	l := o.lastIv()
	if l.State != model.Blocked || l.Other != 0 {
		return l.Other
	}
	for i := o.last - 1; i >= o.first; i-- {
		if iv := o.iv(i); iv.State == model.Blocked && iv.Since == l.Since && iv.Object == l.Object && iv.Other != 0 {
			return iv.Other
		}
	}
	return 0
}
func (o *occurrence) firstIv() *model.Interval { return o.iv(o.first) }
func (o *occurrence) extent() format.Time {
	return o.end - o.firstIv().Since
}

func (v *validator) bad(f string, args ...any) {
	if len(v.errs) < 100 {
		v.errs = append(v.errs, fmt.Errorf(f, args...))
	}
}

func sec(t format.Time) string { return fmt.Sprintf("%.9f", t.Seconds()) }

func (v *validator) threads() {
	m := v.m
	if m.End < m.Start {
		v.bad("recording ends (%s) before it starts (%s)", sec(m.End), sec(m.Start))
	}
	v.occOf = map[*model.Thread][]*occurrence{}
	seen := map[format.ThreadID]bool{}
	for ti, t := range v.segThreads {
		if seen[t.ID] {
			v.bad("thread %v listed twice", t.ID)
		}
		seen[t.ID] = true
		if v.byID[t.ID] != t {
			v.bad("thread %v: Model.Thread returns another thread", t.ID)
		}
		if ti > 0 && (t.Start < v.segThreads[ti-1].Start || t.Start == v.segThreads[ti-1].Start && t.ID < v.segThreads[ti-1].ID) {
			v.bad("thread %v: threads not sorted by start", t.ID)
		}
		if t.Start < m.Start || t.End > m.End || t.End < t.Start {
			v.bad("thread %v lives %s..%s, outside the recording %s..%s or backwards", t.ID, sec(t.Start), sec(t.End), sec(m.Start), sec(m.End))
		}
		prev := t.Start
		var sum [model.NumStates]format.Time
		occs := map[occKey]*occurrence{} // the latest of each key
		nOccs := len(v.occs)
		for i := range t.Intervals {
			iv := &t.Intervals[i]
			where := fmt.Sprintf("thread %v interval %d (%s %s..%s)", t.ID, i, iv.State, sec(iv.Start), sec(iv.End))
			if iv.End < iv.Start {
				v.bad("%s ends before it starts", where)
			}
			if iv.Start < prev {
				v.bad("%s overlaps the previous one or starts before the thread (%s)", where, sec(prev))
			}
			if iv.End > t.End {
				v.bad("%s ends after the thread (%s)", where, sec(t.End))
			}
			if iv.Since > iv.Start {
				v.bad("%s: since %s is after its start", where, sec(iv.Since))
			}
			if iv.State == model.Runnable || iv.State >= model.NumStates {
				v.bad("%s has state %d", where, iv.State)
				continue
			}
			// An ended thread can only be stuck in its exit, blocked on its
			// own Thread object.
			if iv.Open && (iv.End != t.End || t.Ended && (iv.State != model.Blocked || uint32(iv.Object) != uint32(t.ID))) {
				v.bad("%s is open but does not reach the end %s, or the thread ended", where, sec(t.End))
			}
			if i > 0 && t.Intervals[i-1].Open && (!iv.Open || iv.Start != iv.End) {
				v.bad("%s follows an open one: only empty open segments of enclosing states may", where)
			}
			switch iv.State {
			case model.Waiting:
				switch {
				case iv.Wake == model.WakeNone || iv.Wake >= model.NumWakes:
					v.bad("%s: wait has no end kind", where)
				case iv.Wake == model.WakeInterrupted || iv.Wake == model.WakeUnpark:
					v.bad("%s: wait ended %s, a park's end", where, iv.Wake)
				case iv.Wake == model.WakeTimeout || iv.Wake == model.WakeNever:
					if iv.Other != 0 {
						v.bad("%s: wait ended %s names a notifier %v", where, iv.Wake, iv.Other)
					}
				default:
					if iv.Other == 0 || iv.Other == t.ID {
						v.bad("%s: wait ended by %s names notifier %v", where, iv.Wake, iv.Other)
					}
				}
				if iv.Open && iv.Wake != model.WakeNever {
					v.bad("%s: open wait ended %s", where, iv.Wake)
				}
			case model.Blocked:
				if iv.Other == t.ID {
					v.bad("%s: blocked on monitor %v that it owns", where, iv.Object)
				}
			case model.Sleeping:
				if iv.Object != 0 || iv.Other != 0 {
					v.bad("%s: sleep names object %v, thread %v", where, iv.Object, iv.Other)
				}
			case model.Parked, model.Idle:
				switch {
				case iv.Wake != model.WakeUnpark && iv.Wake != model.WakeTimeout && iv.Wake != model.WakeInterrupted && iv.Wake != model.WakeSpurious && iv.Wake != model.WakeNever:
					v.bad("%s: park ended %s", where, iv.Wake)
				case (iv.Wake == model.WakeUnpark) != (iv.Other != 0) || iv.Other == t.ID:
					v.bad("%s: park ended %s names unparker %v", where, iv.Wake, iv.Other)
				case iv.Open != (iv.Wake == model.WakeNever):
					v.bad("%s: park open %v ended %s", where, iv.Open, iv.Wake)
				case iv.Cont:
					v.bad("%s: a park split in segments", where)
				case iv.First == t.ID:
					v.bad("%s: parked on a lock it owns", where)
				}
			case model.Joining, model.Acquiring:
				if iv.Other == t.ID {
					v.bad("%s: waits for itself", where)
				}
				if iv.State == model.Joining && iv.Object != 0 {
					v.bad("%s: join names object %v", where, iv.Object)
				}
			}
			if iv.State != model.Waiting && iv.State != model.Parked && iv.State != model.Idle && iv.Wake != model.WakeNone {
				v.bad("%s has wake kind %s", where, iv.Wake)
			}
			sum[iv.Shown()] += iv.Duration()
			prev = iv.End

			k := occKey{iv.State, iv.Since, iv.Object}
			o := occs[k]
			if !iv.Cont {
				if iv.Start != iv.Since {
					v.bad("%s: first segment does not start at since %s", where, sec(iv.Since))
				}
				o = &occurrence{t: t, first: i}
				occs[k] = o
				v.occs = append(v.occs, o)
			} else if o == nil {
				v.bad("%s continues a state that has no first segment", where)
				o = &occurrence{t: t, first: i}
				occs[k] = o
				v.occs = append(v.occs, o)
			} else {
				p := o.lastIv()
				if (iv.State == model.Waiting || iv.State == model.Joining || iv.State == model.Acquiring) && iv.Other != p.Other {
					v.bad("%s: segments of one %s state name %v and %v", where, iv.State, p.Other, iv.Other)
				}
				if iv.Wake != p.Wake {
					v.bad("%s: segments of one wait end %s and %s", where, p.Wake, iv.Wake)
				}
				if p.Open {
					v.bad("%s follows an open segment of its state", where)
				}
			}
			o.last, o.end = i, iv.End
			o.n++
		}
		// A state split in segments leaves no gap: between them the thread
		// is in states that began inside it.
		for _, o := range v.occs[nOccs:] {
			for i := o.first + 1; i <= o.last; i++ {
				a, b := &t.Intervals[i-1], &t.Intervals[i]
				if b.Start != a.End {
					v.bad("thread %v: %s since %s has a runnable gap %s..%s", t.ID, o.firstIv().State, sec(o.firstIv().Since), sec(a.End), sec(b.Start))
				}
				if b.Since < o.firstIv().Since {
					v.bad("thread %v: %s since %s inside %s since %s", t.ID, b.State, sec(b.Since), o.firstIv().State, sec(o.firstIv().Since))
				}
			}
		}
		v.occOf[t] = v.occs[nOccs:]
		var busy format.Time
		for s := model.State(1); s < model.NumStates; s++ {
			busy += sum[s]
			if t.Time[s] != sum[s] {
				v.bad("thread %v: Time[%s] is %v, its intervals sum to %v", t.ID, s, t.Time[s], sum[s])
			}
		}
		if busy <= t.Life() && t.Time[model.Runnable] != t.Life()-busy {
			v.bad("thread %v: Time[runnable] is %v, life %v less busy %v", t.ID, t.Time[model.Runnable], t.Life(), busy)
		}
		v.samples(t)
	}
	for id, t := range v.byID {
		if !seen[id] || t.ID != id {
			v.bad("Model.Thread(%v) is not in Threads", id)
		}
	}
}

// lockKey is a lock's key in model.Model.Lock.
type lockKey struct {
	obj  format.ObjectID
	kind model.LockKind
}

// groupKey is what the members of a model.Group share.
type groupKey struct {
	kind  model.LockKind
	class string
	site  model.StackID
}

// lockAcc is what a lock's numbers should be, from the intervals.
type lockAcc struct {
	contentions, unknown, waits int
	interrupted                 int // parks an interrupt ended
	spurious                    int // parks ended with no unpark seen (WakeSpurious)
	blocked, max, waitTime      format.Time
	waitMax, unknownTime        format.Time
	open                        int
	openTime                    format.Time
	blamed                      map[format.ThreadID]format.Time
	ownerContentions            map[format.ThreadID]int
	waiters                     map[format.ThreadID]bool
	acquires                    int
}

func (v *validator) locks() {
	m := v.m
	acc := map[lockKey]*lockAcc{}
	get := func(k lockKey) *lockAcc {
		a := acc[k]
		if a == nil {
			a = &lockAcc{blamed: map[format.ThreadID]format.Time{}, ownerContentions: map[format.ThreadID]int{}, waiters: map[format.ThreadID]bool{}}
			acc[k] = a
		}
		return a
	}
	for _, o := range v.occs {
		f, l := o.firstIv(), o.lastIv()
		switch f.State {
		case model.Blocked:
			a := get(lockKey{f.Object, model.Monitor})
			a.waiters[o.t.ID] = true
			if f.Other == 0 {
				a.unknown++
			}
			for i := o.first; i <= o.last; i++ {
				iv := o.iv(i)
				if iv.State == model.Blocked && iv.Since == f.Since && iv.Object == f.Object {
					if iv.Other != 0 {
						a.blamed[iv.Other] += iv.Duration()
					} else {
						a.unknownTime += iv.Duration()
					}
				}
			}
			if l.Open {
				a.open++
				a.openTime += o.extent()
				continue
			}
			a.contentions++
			a.blocked += o.extent()
			a.max = max(a.max, o.extent())
			if w := o.owner(); w != 0 {
				a.ownerContentions[w]++
			}
		case model.Waiting:
			a := get(lockKey{f.Object, model.Monitor})
			a.waits++
			a.waitTime += o.extent()
			a.waitMax = max(a.waitMax, o.extent())
		case model.Parked, model.Idle:
			if f.Acquire {
				a := get(lockKey{f.Object, model.JUCLock})
				a.acquires++ // parks in an acquire
				a.waitTime += o.extent()
				a.waiters[o.t.ID] = true
				continue
			}
			a := get(lockKey{f.Object, model.Blocker})
			a.waits++
			switch l.Wake {
			case model.WakeInterrupted:
				a.interrupted++
			case model.WakeSpurious:
				a.spurious++
			}
			a.waitTime += o.extent()
			a.waitMax = max(a.waitMax, o.extent())
		case model.Acquiring:
			a := get(lockKey{f.Object, model.Semaphore})
			a.acquires++
			if l.Other == 0 || l.Open {
				continue
			}
			a.waiters[o.t.ID] = true
			a.contentions++
			a.blocked += o.extent()
			a.max = max(a.max, o.extent())
			a.ownerContentions[l.Other]++
			a.blamed[l.Other] += o.extent()
		}
	}
	seen := map[lockKey]bool{}
	// The Locks, then the groups' members that are not among them (kept
	// as records: Model.Lock makes theirs).
	locks := m.Locks[:len(m.Locks):len(m.Locks)]
	in := map[*model.Lock]bool{}
	for _, l := range m.Locks {
		in[l] = true
	}
	for _, g := range m.Groups {
		for mb := range m.GroupMembers(g) {
			if l := m.Lock(mb.Object, g.Kind); l != nil && !in[l] {
				locks = append(locks, l)
			}
		}
	}
	if len(locks) != m.NumLocks() {
		v.bad("%d locks and groups' members, NumLocks says %d", len(locks), m.NumLocks())
	}
	for i, l := range locks {
		k := lockKey{l.Object, l.Kind}
		if seen[k] {
			v.bad("%s %v listed twice", l.Kind, l.Object)
		}
		seen[k] = true
		if own := m.Lock(l.Object, l.Kind); i < len(m.Locks) && own != l || own == nil {
			v.bad("%s %v: Model.Lock returns another lock", l.Kind, l.Object)
		}
		if i > 0 && i < len(m.Locks) && l.Blocked+l.OpenTime > m.Locks[i-1].Blocked+m.Locks[i-1].OpenTime {
			v.bad("%s %v: locks not sorted by blocked time", l.Kind, l.Object)
		}
		a := get(k)
		name := fmt.Sprintf("%s %v", l.Kind, l.Object)
		// A j.u.c. lock's contentions merge re-parks (Aggregate): checked
		// against its parks below.
		juc := l.Kind == model.JUCLock
		if !juc && (l.Contentions != a.contentions || l.Blocked != a.blocked || l.MaxBlocked != a.max) {
			v.bad("%s: %d contentions, %v blocked, %v max; its intervals say %d, %v, %v", name, l.Contentions, l.Blocked, l.MaxBlocked, a.contentions, a.blocked, a.max)
		}
		if !juc && (l.Open != a.open || l.OpenTime != a.openTime) {
			v.bad("%s: %d contentions open at the end, for %v; its intervals say %d, %v", name, l.Open, l.OpenTime, a.open, a.openTime)
		}
		var sc, so int
		var sb, sot format.Time
		for _, s := range l.Sites {
			if s.Contentions+s.Open < 1 {
				v.bad("%s: site with no contention", name)
			}
			sc, so = sc+s.Contentions, so+s.Open
			sb, sot = sb+s.Blocked, sot+s.OpenTime
		}
		if sc != l.Contentions || sb != l.Blocked || so != l.Open || sot != l.OpenTime {
			v.bad("%s: sites sum to %d contentions, %v (%d open, %v); the lock has %d, %v (%d, %v)", name, sc, sb, so, sot, l.Contentions, l.Blocked, l.Open, l.OpenTime)
		}
		owners := map[format.ThreadID]bool{}
		los := m.OwnersOf(l)
		if len(los) != l.OwnerCount() {
			v.bad("%s: %d owners, counted %d", name, len(los), l.OwnerCount())
		}
		var blamed format.Time
		for _, o := range los {
			blamed += o.Blamed
		}
		if blamed != l.BlamedTotal() {
			v.bad("%s: owners blamed %v, the total %v", name, blamed, l.BlamedTotal())
		}
		for _, o := range los {
			if o.Thread == 0 || owners[o.Thread] {
				v.bad("%s: owner %v is unknown or listed twice", name, o.Thread)
			}
			owners[o.Thread] = true
			if !juc && (o.Blamed != a.blamed[o.Thread] || o.Contentions != a.ownerContentions[o.Thread]) {
				v.bad("%s: owner %v blamed %v for %d contentions; the intervals say %v, %d", name, o.Thread, o.Blamed, o.Contentions, a.blamed[o.Thread], a.ownerContentions[o.Thread])
			}
		}
		for th, d := range a.blamed {
			if !juc && !owners[th] && d > 0 {
				v.bad("%s: %v was waited for %v but is not among the owners", name, th, d)
			}
		}
		if !sort.SliceIsSorted(los, func(i, j int) bool { return los[i].Blamed > los[j].Blamed }) {
			v.bad("%s: owners not sorted by blame", name)
		}
		waiters := map[format.ThreadID]bool{}
		lws := m.WaitersOf(l)
		if len(lws) != l.WaiterCount() || len(m.WaitedByOf(l)) != l.WaitedByCount() {
			v.bad("%s: %d waiters, %d waited by; counted %d, %d", name, len(lws), len(m.WaitedByOf(l)), l.WaiterCount(), l.WaitedByCount())
		}
		for _, w := range lws {
			if waiters[w] {
				v.bad("%s: waiter %v listed twice", name, w)
			}
			waiters[w] = true
		}
		if len(waiters) != len(a.waiters) {
			v.bad("%s: %d waiters, the intervals show %d threads blocked", name, len(waiters), len(a.waiters))
		}
		if l.NotifiesWokeNobody > l.Notifies+l.NotifyAlls || l.MaxNotifyAllBurst > l.NotifyAlls || (l.NotifyAlls > 0) != (l.MaxNotifyAllBurst > 0) {
			v.bad("%s: %d notifies, %d notifyAlls, %d woke nobody, burst %d", name, l.Notifies, l.NotifyAlls, l.NotifiesWokeNobody, l.MaxNotifyAllBurst)
		}
		if !slices.IsSorted(l.HeldAt) || len(slices.Compact(slices.Clone(l.HeldAt))) != len(l.HeldAt) {
			v.bad("%s: HeldAt not sorted or repeated", name)
		}
		switch l.Kind {
		case model.Monitor:
			if l.OwnerUnknown != a.unknown || l.OwnerUnknownTime != a.unknownTime {
				v.bad("%s: %d contentions with owner unknown for %v; the intervals show %d for %v", name, l.OwnerUnknown, l.OwnerUnknownTime, a.unknown, a.unknownTime)
			}
			if l.Waits != a.waits || l.WaitTime != a.waitTime || l.MaxWait != a.waitMax {
				v.bad("%s: %d waits, %v waiting, %v the longest; the intervals say %d, %v, %v", name, l.Waits, l.WaitTime, l.MaxWait, a.waits, a.waitTime, a.waitMax)
			}
			if l.Acquires != 0 || l.Releases != 0 {
				v.bad("%s: a monitor with semaphore calls", name)
			}
		case model.Semaphore:
			if l.Acquires != a.acquires {
				v.bad("%s: %d acquires; the intervals show %d", name, l.Acquires, a.acquires)
			}
			if l.Contentions > l.Releases {
				v.bad("%s: %d contentions, each needs its own release; %d releases", name, l.Contentions, l.Releases)
			}
			if l.Waits != 0 || l.Notifies != 0 || l.NotifyAlls != 0 || l.OwnerUnknown != 0 || len(l.HeldAt) != 0 {
				v.bad("%s: a semaphore with monitor figures", name)
			}
		case model.JUCLock:
			// Consecutive re-parks of one acquire are one contention, and
			// the gaps between them count: between one contention per
			// park and one in all, at least the parks' time.
			if n := l.Contentions + l.Open; n < 1 || n > a.acquires || l.Blocked+l.OpenTime < a.waitTime || l.OwnerUnknown > n {
				v.bad("%s: %d contentions (%d open) for %v, %d owner unknown; its parks: %d for %v", name, l.Contentions, l.Open,
					l.Blocked+l.OpenTime, l.OwnerUnknown, a.acquires, a.waitTime)
			}
			if l.NoUnpark > l.Contentions || l.NoUnparkInterrupted+l.NoUnparkSpurious > l.NoUnpark {
				v.bad("%s: %d contentions, %d ended by no unpark, %d of them interrupted, %d spurious", name, l.Contentions, l.NoUnpark, l.NoUnparkInterrupted, l.NoUnparkSpurious)
			}
			if l.Waits != 0 || l.Acquires != 0 || l.Notifies != 0 || l.NotifyAlls != 0 || len(l.HeldAt) != 0 {
				v.bad("%s: a j.u.c. lock with wait or semaphore figures", name)
			}
		case model.Blocker:
			if l.Waits != a.waits || l.WaitTime != a.waitTime || l.MaxWait != a.waitMax {
				v.bad("%s: %d parks, %v parked, %v the longest; the intervals say %d, %v, %v", name, l.Waits, l.WaitTime, l.MaxWait, a.waits, a.waitTime, a.waitMax)
			}
			if l.Waits != l.Notified+l.TimedOut+l.StillWaiting || l.IdleWaits > l.Waits {
				v.bad("%s: %d parks, %d unparked, %d not, %d still parked, %d idle", name, l.Waits, l.Notified, l.TimedOut, l.StillWaiting, l.IdleWaits)
			}
			if l.Interrupted != a.interrupted || l.Interrupted > l.TimedOut {
				v.bad("%s: %d parks interrupted of %d not unparked; the intervals say %d", name, l.Interrupted, l.TimedOut, a.interrupted)
			}
			if l.Spurious != a.spurious || l.Interrupted+l.Spurious > l.TimedOut {
				v.bad("%s: %d parks with no unpark seen, %d interrupted, of %d not unparked; the intervals say %d", name, l.Spurious, l.Interrupted, l.TimedOut, a.spurious)
			}
			if l.Contentions != 0 || l.Open != 0 || l.Acquires != 0 || l.Notifies != 0 || l.NotifyAlls != 0 {
				v.bad("%s: a blocker with lock figures", name)
			}
		default:
			v.bad("%s: kind %d", name, l.Kind)
		}
	}
	for k, a := range acc {
		if !seen[k] && (a.contentions > 0 || a.waits > 0 || a.acquires > 0 || len(a.waiters) > 0) {
			v.bad("%s %v has intervals but no Lock", k.kind, k.obj)
		}
	}
}

// groups checks m.Groups against m.Locks.
func (v *validator) groups() {
	m := v.m
	contended := map[format.ObjectID]bool{}
	for _, l := range m.Locks {
		if (l.Kind == model.Monitor || l.Kind == model.JUCLock) && l.Contended() {
			contended[l.Object] = true
		}
	}
	transient := func(l *model.Lock) bool {
		return l.Waits > 0 && l.Waits <= model.GroupMaxWaits && len(l.WaitSites) > 0 && !contended[l.Object] &&
			(l.Kind == model.Monitor || l.Kind == model.Blocker && l.Object != 0)
	}
	in := map[lockKey]bool{}
	for i, g := range m.Groups {
		name := fmt.Sprintf("group of %d %s %q at s%d", g.Objects, g.Kind, g.Class, g.Site)
		if i > 0 && g.WaitTime > m.Groups[i-1].WaitTime {
			v.bad("%s: groups not sorted by wait time", name)
		}
		if g.Objects < model.GroupMinObjects || g.Object != 0 || g.Contentions+g.Open != 0 || len(g.WaitSites) == 0 || g.WaitSites[0].Stack != g.Site {
			v.bad("%s: object %v, %d contentions, sites %+v", name, g.Object, g.Contentions+g.Open, g.WaitSites)
		}
		// Every member (GroupMembers), sorted as Members, whose first
		// GroupTopMembers Members are.
		all := slices.Collect(m.GroupMembers(g))
		slices.SortFunc(all, func(a, b model.Member) int {
			if c := cmp.Compare(b.WaitTime, a.WaitTime); c != 0 {
				return c
			}
			return cmp.Compare(a.Object, b.Object)
		})
		if len(all) != g.Objects || !slices.Equal(g.Members, all[:min(len(all), model.GroupTopMembers)]) {
			v.bad("%s: %d members listed, %d in all; the top ones %v, of all %v", name, len(g.Members), len(all),
				g.Members[:min(len(g.Members), 3)], all[:min(len(all), 3)])
		}
		var sum model.Lock
		maxWaits, threads := 0, map[format.ThreadID]bool{}
		for j, mb := range all {
			l := m.Lock(mb.Object, g.Kind)
			if l == nil || in[lockKey{mb.Object, g.Kind}] {
				v.bad("%s: member %s %v is in another group or not the model's", name, g.Kind, mb.Object)
				continue
			}
			in[lockKey{mb.Object, g.Kind}] = true
			if l.Waits != mb.Waits || l.WaitTime != mb.WaitTime {
				v.bad("%s: member %v: %d waits for %v; its lock has %d, %v", name, mb.Object, mb.Waits, mb.WaitTime, l.Waits, l.WaitTime)
			}
			if !transient(l) || l.Kind != g.Kind || l.Class != g.Class || l.WaitSites[0].Stack != g.Site {
				v.bad("%s: member %s %v (%d waits, class %q) does not belong", name, l.Kind, l.Object, l.Waits, l.Class)
				continue
			}
			if j > 0 && l.WaitTime > all[j-1].WaitTime {
				v.bad("%s: members not sorted by wait time", name)
			}
			sum.Waits, sum.WaitTime, sum.Notified, sum.TimedOut, sum.StillWaiting = sum.Waits+l.Waits, sum.WaitTime+l.WaitTime,
				sum.Notified+l.Notified, sum.TimedOut+l.TimedOut, sum.StillWaiting+l.StillWaiting
			sum.Interrupted += l.Interrupted
			sum.Spurious += l.Spurious
			sum.MaxWait, maxWaits = max(sum.MaxWait, l.MaxWait), max(maxWaits, l.Waits)
			for _, th := range m.WaitedByOf(l) {
				threads[th] = true
			}
		}
		if g.Waits != sum.Waits || g.WaitTime != sum.WaitTime || g.Notified != sum.Notified || g.TimedOut != sum.TimedOut || g.Interrupted != sum.Interrupted || g.Spurious != sum.Spurious ||
			g.StillWaiting != sum.StillWaiting || g.MaxWait != sum.MaxWait || g.MaxWaits != maxWaits || len(m.WaitedByOf(&g.Lock)) != len(threads) || g.WaitedByCount() != len(threads) {
			v.bad("%s: %d waits, %v, %d/%d/%d, max %v, %d at most, %d threads; its members sum to %d, %v, %d/%d/%d, max %v, %d, %d",
				name, g.Waits, g.WaitTime, g.Notified, g.TimedOut, g.StillWaiting, g.MaxWait, g.MaxWaits, g.WaitedByCount(),
				sum.Waits, sum.WaitTime, sum.Notified, sum.TimedOut, sum.StillWaiting, sum.MaxWait, maxWaits, len(threads))
		}
		sw, st := 0, format.Time(0)
		for _, s := range g.WaitSites {
			sw, st = sw+s.Waits, st+s.Time
		}
		if sw != g.Waits || st != g.WaitTime {
			v.bad("%s: sites sum to %d waits, %v; the group has %d, %v", name, sw, st, g.Waits, g.WaitTime)
		}
	}
	left := map[groupKey]int{}
	for _, l := range m.Locks {
		if !in[lockKey{l.Object, l.Kind}] && transient(l) {
			left[groupKey{l.Kind, l.Class, l.WaitSites[0].Stack}]++
		}
	}
	for k, n := range left {
		if n >= model.GroupMinObjects {
			v.bad("%d transient %s objects of %q at s%d are not grouped", n, k.kind, k.class, k.site)
		}
	}
}

// holders checks that threads blocked on one monitor at one time name the
// same owner. The named owner may itself still show as blocked: it took
// the monitor, and its MonitorContendedEntered comes a moment later.
func (v *validator) holders() {
	type seg struct {
		th          format.ThreadID
		start, end  format.Time
		other       format.ThreadID
		interval, t int
	}
	by := map[format.ObjectID][]seg{}
	for ti, t := range v.segThreads {
		for i, iv := range t.Intervals {
			if iv.State == model.Blocked && iv.Other != 0 && iv.End > iv.Start {
				by[iv.Object] = append(by[iv.Object], seg{t.ID, iv.Start, iv.End, iv.Other, i, ti})
			}
		}
	}
	objs := make([]format.ObjectID, 0, len(by))
	for o := range by {
		objs = append(objs, o)
	}
	slices.Sort(objs)
	for _, obj := range objs {
		segs := by[obj]
		var times []format.Time
		for _, s := range segs {
			times = append(times, s.start, s.end)
		}
		slices.Sort(times)
		times = slices.Compact(times)
		sort.Slice(segs, func(i, j int) bool { return segs[i].start < segs[j].start })
		var active []seg
		next := 0
		for i := 0; i+1 < len(times); i++ {
			lo, hi := times[i], times[i+1]
			k := 0
			for _, s := range active {
				if s.end > lo {
					active[k] = s
					k++
				}
			}
			active = active[:k]
			for next < len(segs) && segs[next].start <= lo {
				if segs[next].end > lo {
					active = append(active, segs[next])
				}
				next++
			}
			named := map[format.ThreadID]bool{}
			for _, s := range active {
				named[s.other] = true
			}
			var owner format.ThreadID
			for _, s := range active {
				if named[s.th] {
					continue // the owner's own last instants blocked
				}
				if owner != 0 && s.other != owner {
					v.bad("monitor %v during %s..%s: blocked threads name owners %v and %v", obj, sec(lo), sec(hi), owner, s.other)
					break
				}
				owner = s.other
			}
		}
	}
}

// find returns the closed occurrence of state s of thread th on obj that
// ends at end naming other, or nil.
func (v *validator) find(th format.ThreadID, s model.State, obj format.ObjectID, end format.Time, other format.ThreadID) *occurrence {
	t := v.byID[th]
	if t == nil {
		return nil
	}
	for _, o := range v.occOf[t] {
		if l := o.lastIv(); l.State == s && o.end == end && l.Object == obj && o.owner() == other && !l.Open {
			return o
		}
	}
	return nil
}

// passedOn reports whether unpark edge e passed a shared acquire's
// wake-up on: e.To's park on e.Object ending at e.ToTime names another
// thread, x, whose release let in e.From, itself parked in an acquire of
// e.Object whose park ended at or before e.FromTime naming x (AQS's
// signalNextIfShared: a reader let in by a writer's release unparks the
// next reader; the model blames that release, Builder.endParked).
func (v *validator) passedOn(e model.Edge) bool {
	to, from := v.byID[e.To], v.byID[e.From]
	if to == nil || from == nil {
		return false
	}
	for _, o := range v.occOf[to] {
		l := o.lastIv()
		if l.State != model.Parked || !l.Acquire || l.Object != e.Object || o.end != e.ToTime || l.Open {
			continue
		}
		x := o.owner()
		for _, p := range v.occOf[from] {
			if pl := p.lastIv(); pl.State == model.Parked && pl.Acquire && pl.Object == e.Object && p.end <= e.FromTime && p.owner() == x && x != 0 {
				return true
			}
		}
	}
	return false
}

func (v *validator) edges() {
	m := v.m
	wakes, releases, notified, contended, unparks, unparked := 0, 0, 0, 0, 0, 0
	for _, o := range v.occs {
		switch l := o.lastIv(); l.State {
		case model.Waiting:
			if l.Wake == model.WakeNotify || l.Wake == model.WakeNotifyAll || l.Wake == model.WakeAmbiguous {
				notified++
			}
		case model.Parked, model.Idle:
			if l.Wake == model.WakeUnpark {
				unparked++
			}
		}
	}
	for _, l := range m.Locks {
		if l.Kind == model.Semaphore {
			contended += l.Contentions
		}
	}
	// The counts by kind are of every edge, kept (here) or not.
	var counts [model.NumEdgeKinds]int
	var all []model.Edge // Model.Edges, or read back from the spill
	for _, e := range m.AllEdges() {
		all = append(all, e)
	}
	for _, e := range all {
		if int(e.Kind) < len(counts) {
			counts[e.Kind]++
		}
	}
	if counts != m.EdgeCounts {
		v.bad("edges by kind %v, counted as the fold went %v", counts, m.EdgeCounts)
	}
	for i, e := range all {
		name := fmt.Sprintf("%s edge %v -> %v (%s..%s)", e.Kind, e.From, e.To, sec(e.FromTime), sec(e.ToTime))
		from, to := v.byID[e.From], v.byID[e.To]
		if from == nil || to == nil || e.From == e.To {
			v.bad("%s names an unknown thread or one thread twice", name)
			continue
		}
		if e.FromTime > e.ToTime {
			v.bad("%s goes back in time", name)
		}
		if i > 0 && e.ToTime < all[i-1].ToTime {
			v.bad("%s: edges not sorted by ToTime", name)
		}
		if e.Ambiguous && e.Kind != model.EdgeWake {
			v.bad("%s is ambiguous", name)
		}
		switch e.Kind {
		case model.EdgeWake:
			wakes++
			o := v.find(e.To, model.Waiting, e.Object, e.ToTime, e.From)
			if o == nil || e.Ambiguous != (o.lastIv().Wake == model.WakeAmbiguous) {
				v.bad("%s: %v has no wait on %v ending then, woken by %v (ambiguous %v)", name, e.To, e.Object, e.From, e.Ambiguous)
			}
		case model.EdgeJoin:
			if v.find(e.To, model.Joining, 0, e.ToTime, e.From) == nil {
				v.bad("%s: %v has no join of %v ending then", name, e.To, e.From)
			}
			if !from.Ended || e.FromTime != min(from.End, e.ToTime) {
				v.bad("%s: %v did not end at %s", name, e.From, sec(e.FromTime))
			}
		case model.EdgeRelease:
			releases++
			if v.find(e.To, model.Acquiring, e.Object, e.ToTime, e.From) == nil {
				v.bad("%s: %v has no acquire of %v ending then, released by %v", name, e.To, e.Object, e.From)
			}
		case model.EdgeOwner:
			o := v.find(e.To, model.Blocked, e.Object, e.ToTime, e.From)
			if o == nil {
				v.bad("%s: %v has no contention on %v ending then with owner %v", name, e.To, e.Object, e.From)
			} else if e.FromTime < o.firstIv().Since {
				v.bad("%s starts before the contention (%s)", name, sec(o.firstIv().Since))
			}
		case model.EdgeUnpark:
			unparks++
			if v.find(e.To, model.Parked, e.Object, e.ToTime, e.From) == nil && v.find(e.To, model.Idle, e.Object, e.ToTime, e.From) == nil && !v.passedOn(e) {
				v.bad("%s: %v has no park on %v ending then, unparked by %v", name, e.To, e.Object, e.From)
			}
		case model.EdgeStart:
			if to.Parent != e.From {
				v.bad("%s: the parent of %v is %v", name, e.To, to.Parent)
			}
		default:
			v.bad("%s: unknown kind", name)
		}
	}
	if wakes != notified {
		v.bad("%d wake edges for %d waits ended by a notify", wakes, notified)
	}
	if unparks != unparked {
		v.bad("%d unpark edges for %d parks ended by an unpark", unparks, unparked)
	}
	if releases != contended {
		v.bad("%d release edges for %d semaphore contentions", releases, contended)
	}
}

func (v *validator) deadlocks() {
	m := v.m
	covers := func(th format.ThreadID, at format.Time, obj format.ObjectID, other format.ThreadID) bool {
		t := v.byID[th]
		if t == nil {
			return false
		}
		for _, iv := range t.Intervals {
			if iv.Start <= at && at <= iv.End && (iv.Other == other &&
				(obj == 0 && iv.State == model.Joining || obj != 0 && iv.State == model.Blocked && iv.Object == obj) ||
				iv.State == model.Parked && iv.Acquire && iv.Object == obj && iv.First == other) {
				return true
			}
		}
		return false
	}
	for _, d := range m.Deadlocks {
		name := fmt.Sprintf("deadlock at %s", sec(d.At))
		n := len(d.Threads)
		if n < 2 || len(d.Objects) != n || len(d.Stacks) != n || len(d.States) != n {
			v.bad("%s is malformed", name)
			continue
		}
		if len(slices.Compact(slices.Sorted(slices.Values(d.Threads)))) != n {
			v.bad("%s names a thread twice", name)
		}
		if d.At < m.Start || d.At > m.End || d.AtEnd && d.Resolved != 0 || !d.AtEnd && (d.Resolved < d.At || d.Resolved > m.End) {
			v.bad("%s: resolved %s, at end %v, recording %s..%s", name, sec(d.Resolved), d.AtEnd, sec(m.Start), sec(m.End))
		}
		for i, th := range d.Threads {
			next := d.Threads[(i+1)%n]
			if !covers(th, d.At, d.Objects[i], next) {
				v.bad("%s: %v is not waiting for %v on %v then", name, th, next, d.Objects[i])
			}
			if d.AtEnd && !stillWaiting(v.byID[th], d.Objects[i], next) {
				v.bad("%s: at end, yet %v is not still waiting for %v", name, th, next)
			}
		}
	}
}

// stillWaiting reports whether t's innermost state at the end (its first
// open segment) waits for other, on monitor obj or (obj 0) by a join.
func stillWaiting(t *model.Thread, obj format.ObjectID, other format.ThreadID) bool {
	if t == nil {
		return false
	}
	i := len(t.Intervals) - 1
	for i > 0 && t.Intervals[i-1].Open {
		i--
	}
	if i < 0 || !t.Intervals[i].Open {
		return false
	}
	iv := t.Intervals[i]
	if iv.State == model.Parked && iv.Acquire {
		return iv.Object == obj && iv.First == other
	}
	return iv.Other == other && (obj == 0 && iv.State == model.Joining || obj != 0 && iv.State == model.Blocked && iv.Object == obj)
}

// segment fills v.segThreads and v.byID.
func (v *validator) segment() {
	m := v.m
	v.segThreads = make([]*model.Thread, len(m.Threads))
	v.byID = map[format.ThreadID]*model.Thread{}
	copies := make(map[*model.Thread]*model.Thread, len(m.Threads))
	for i, t := range m.Threads {
		ct := *t
		ct.Intervals = slices.Collect(m.Segments(t))
		v.segThreads[i] = &ct
		copies[t] = &ct
	}
	for id, t := range m.ThreadIndex() {
		if ct := copies[t]; ct != nil {
			t = ct
		}
		v.byID[id] = t
	}
}

// waitGraphChecks bounds the work of validator.waitGraphs: instants times
// threads. Above it only the instants of the deadlocks are checked.
const waitGraphChecks = 1e6

// waitGraphs checks that the cycles of the wait-for graph are the
// deadlocks standing, at each instant the graph can change: where an
// interval or owner span begins or ends, a thread starts or ends, a
// deadlock forms or breaks (the graph holds between them).
func (v *validator) waitGraphs(m *model.Model) {
	var at []format.Time
	for _, d := range m.Deadlocks {
		at = append(at, d.At, d.Resolved, d.At+(d.Lasted(m.End))/2)
		if d.Resolved > d.At {
			at = append(at, d.Resolved-1)
		}
	}
	n := 0
	for _, t := range m.Threads {
		n += len(t.Intervals)
	}
	if (n+len(m.Threads))*len(m.Threads) <= waitGraphChecks {
		for _, t := range m.Threads {
			at = append(at, t.Start, t.End)
			for i := range t.Intervals {
				iv := &t.Intervals[i]
				at = append(at, iv.Start, iv.End)
				for sp := range m.OwnerSpans(t.ID, iv) {
					at = append(at, sp.Start)
				}
			}
		}
	}
	slices.Sort(at)
	for _, T := range slices.Compact(at) {
		if T < m.Start || T > m.End {
			continue
		}
		g := m.WaitGraphAt(T)
		standing := map[string]bool{}
		for _, d := range m.Deadlocks {
			if d.At <= T && (d.AtEnd || T < d.Resolved) {
				standing[cycleKey(d.Threads)] = true
			}
		}
		shown := map[string]bool{}
		for _, c := range g.Cycles {
			shown[cycleKey(c.Threads)] = true
			if d := m.Deadlocks[c.Deadlock]; cycleKey(c.Threads) != cycleKey(d.Threads) || !standing[cycleKey(d.Threads)] {
				v.bad("wait-for graph at %s: its cycle %v is not the deadlock %d standing then (%v)", sec(T), c.Threads, c.Deadlock, d.Threads)
			}
		}
		for key := range standing {
			if !shown[key] {
				v.bad("wait-for graph at %s: no cycle of the deadlock of %s standing then", sec(T), key)
			}
		}
		// The graph's edges close exactly these cycles: the instant's
		// graph and the fold decide "waits for" alike.
		found := map[string]bool{}
		for _, c := range waitCycles(g.Waits) {
			found[cycleKey(c)] = true
			if !standing[cycleKey(c)] {
				v.bad("wait-for graph at %s: its edges close the cycle %v, no deadlock standing then", sec(T), c)
			}
		}
		for k, d := range m.Deadlocks {
			if d.At <= T && (d.AtEnd || T < d.Resolved) && !found[cycleKey(d.Threads)] {
				v.bad("wait-for graph at %s: its edges close no cycle of the deadlock %d of %v formed at %s", sec(T), k, d.Threads, sec(d.At))
			}
		}
	}
}

// waitCycles finds the cycles of waits on their own: each thread waits for
// at most one, so a walk from each thread ends in a cycle, at a thread
// that waits for no one, or on a walk already done.
func waitCycles(waits []model.Wait) [][]format.ThreadID {
	next := make(map[format.ThreadID]format.ThreadID, len(waits))
	for _, w := range waits {
		if w.For != 0 {
			next[w.Thread] = w.For
		}
	}
	walk := make(map[format.ThreadID]int, len(next)) // the walk that reached a thread, from 1
	var out [][]format.ThreadID
	for i, w := range waits {
		id := w.Thread
		for walk[id] == 0 {
			walk[id] = i + 1
			n, ok := next[id]
			if !ok {
				break
			}
			id = n
		}
		if walk[id] != i+1 || next[id] == 0 {
			continue // it ended outside this walk, or at a thread waiting for no one
		}
		c := []format.ThreadID{id}
		for u := next[id]; u != id; u = next[u] {
			c = append(c, u)
		}
		out = append(out, c)
	}
	return out
}

// cycleKey names a cycle by its threads, whatever the one it starts at.
func cycleKey(ids []format.ThreadID) string {
	return fmt.Sprint(slices.Sorted(slices.Values(ids)))
}

// samples checks a thread's samples and scheduler times: in time order,
// inside its life, of a known kind and a stack the model has; the
// scheduler times cumulative (never going back); its runnable time's
// split (Thread.Run) adds up to it, no part negative, and RunIn of its
// whole life is that split (so the states and the parts of runnable add
// up to its life).
func (v *validator) samples(t *model.Thread) {
	for i := range t.Samples {
		s := &t.Samples[i]
		switch {
		case i > 0 && s.At < t.Samples[i-1].At:
			v.bad("thread %v sample %d at %s: before the previous one", t.ID, i, sec(s.At))
		case s.At < t.Start || s.At > t.End:
			v.bad("thread %v sample %d at %s: outside its life %s..%s", t.ID, i, sec(s.At), sec(t.Start), sec(t.End))
		case s.Kind >= format.NumSampleKinds || s.Weight < 0 || int(s.Stack) >= len(v.m.Stacks):
			v.bad("thread %v sample %d: kind %d, weight %d, stack %d", t.ID, i, s.Kind, s.Weight, s.Stack)
		}
	}
	r := t.Run
	if r.Total() != t.Time[model.Runnable] || r.Running < 0 || r.Ready < 0 || r.Other < 0 || r.Virtual < 0 || r.Unsplit < 0 {
		v.bad("thread %v: runnable %v split into %+v", t.ID, t.Time[model.Runnable], r)
	}
	if in := t.RunIn(t.Start, t.End); in != r {
		v.bad("thread %v: RunIn over its life %+v, its Run %+v", t.ID, in, r)
	}
	if err := t.CheckSplit(); err != nil {
		v.bad("thread %v: %v", t.ID, err)
	}
	for i := 1; i < len(t.Sched); i++ {
		a, b := t.Sched[i-1], t.Sched[i]
		if b.At < a.At || b.CPU < a.CPU || b.Ready < a.Ready {
			v.bad("thread %v: scheduler times go back: %+v then %+v", t.ID, a, b)
		}
	}
}

// doing checks what the holders of each lock did while threads were
// blocked on it (View.HoldersDoing): the holders' time by state and the
// unknown add up to the blocked time, the runnable part to its split, and
// the spans are disjoint, in order, inside the recording.
func (v *validator) doing() {
	all := v.m.Filter(nil)
	holders := all.HoldersDoing()
	if v.m.Spilled() {
		// Read back from the spill, the holders' intervals and samples
		// give what they give in memory.
		if mem := all.HoldersDoingInMemory(); !reflect.DeepEqual(holders, mem) {
			v.bad("what the holders did, from the spill, differs from the fold in memory")
			for ref, d := range mem {
				if !reflect.DeepEqual(d, holders[ref]) {
					v.bad("lock %v %s: in memory %+v, from the spill %+v", ref.Object, ref.Kind, *d, holders[ref])
				}
			}
		}
	}
	// The pass read the contentions' and parks' blame spans the fold
	// logged: they are BlameSpans'.
	if err := v.m.CheckBlameLogs(); err != nil {
		v.bad("%v", err)
	}
	for ref, d := range holders {
		sum := d.Unknown + d.Released
		for _, t := range d.Time {
			sum += t
		}
		if sum != d.Blocked {
			v.bad("lock %v %s: its holders' states add up to %v, blocked %v", ref.Object, ref.Kind, sum, d.Blocked)
		}
		if d.Run.Total() != d.Time[model.Runnable] {
			v.bad("lock %v %s: its holders' runnable %v split into %+v", ref.Object, ref.Kind, d.Time[model.Runnable], d.Run)
		}
		for i, sp := range d.Spans {
			if sp.End <= sp.Start || sp.Start < v.m.Start || sp.End > v.m.End || i > 0 && sp.Start < d.Spans[i-1].End {
				v.bad("lock %v %s: holder span %d %s..%s", ref.Object, ref.Kind, i, sec(sp.Start), sec(sp.End))
			}
		}
	}
}

// aggregate checks that the locks' figures, summed as the fold went
// (docs/streaming.md), are those of summing every thread's intervals now.
func (v *validator) aggregate() {
	again := v.m.Aggregate(nil)
	if len(again) != v.m.NumLocks() {
		v.bad("the fold summed %d locks, the intervals give %d", v.m.NumLocks(), len(again))
		return
	}
	// The groups' members the model keeps as records (not in Locks) are
	// among them, in their place: each asked of Model.Lock.
	i := 0
	for _, a := range again {
		l := v.m.Lock(a.Object, a.Kind)
		if i < len(v.m.Locks) && v.m.Locks[i] == l {
			i++
		}
		if l == nil || !reflect.DeepEqual(*l, *a) {
			v.bad("lock %v (%v): the fold's figures %+v, the intervals' %+v", a.Object, a.Kind, l, *a)
		}
	}
	if i != len(v.m.Locks) {
		v.bad("the fold's locks are not those the intervals give, in their order (%d of %d)", i, len(v.m.Locks))
	}
}
