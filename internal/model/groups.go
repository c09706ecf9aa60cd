package model

import (
	"cmp"
	"iter"
	"slices"

	"orca/internal/format"
)

// Transient wait objects. A server makes a blocker per request — a
// FutureTask, a CompletableFuture's Signaller, a CountDownLatch — and
// parks on it once or twice: a busy server's recording has tens of
// thousands of them, one park each, and a list per object says nothing.
// What matters is the class and the call site: "the request threads
// parked 3.2 s on FutureTask.get at MyServlet.java:42, 15 000 times". So,
// after aggregation, the objects waited or parked on at most GroupMaxWaits
// times, and contended never, are sorted by kind, class and the call site
// where they were waited on most; GroupMinObjects or more of them make one
// Group. A long-lived object (a queue's condition, a pool's lock) has more
// waits and keeps its own entry, and so does every contended lock: its
// identity matters (its owners, its other sites). A thread filter groups
// the filtered figures: filter, aggregate, then group.

// GroupMinObjects is the fewest transient objects of one kind, class and
// call site that are grouped.
const GroupMinObjects = 20

// GroupMaxWaits is the most waits (or parks) an object may have to be
// transient: a future is parked on once by each thread that gets it,
// again only after a spurious wake-up.
const GroupMaxWaits = 5

// Group is the transient objects of one kind, class and call site, their
// wait figures summed. Its Lock has Kind (Blocker or Monitor) and Class of
// its members (Class "" when unknown); Object is 0, for no one object;
// Waits, WaitTime, Notified, Ambiguous, TimedOut, StillWaiting, IdleWaits
// and the notify counts are the members' sums, MaxWait and
// MaxNotifyAllBurst their largest, WaitSites, WaitedBy and UnparkedBy
// theirs merged and ordered as a Lock's; the contention figures are 0.
type Group struct {
	Lock
	// Site is the call site the members share: each was waited on
	// there most (its WaitSites[0]). It is WaitSites[0] of the group.
	Site StackID
	// MaxWaits is the most waits on one member.
	MaxWaits int
	// Objects is how many members the group has.
	Objects int
	// Members are the GroupTopMembers of its objects with the most
	// WaitTime, most first, then by Object: Model.Lock(Object, Kind) is
	// each one's Lock. Most are not in Model.Locks (the fold kept them as
	// records: dormant.go); the others are, and View.GroupOf names their
	// group. Model.GroupMembers yields them all. All of them listed were
	// 24 bytes for each object parked on once (6.3 M in an hour of a
	// loaded Tomcat), of which the report shows 5 and the viewer 100.
	Members []Member
	// fromRecs: some members are the Model's records (dormant.go), not
	// in locks (Model.GroupMembers).
	fromRecs bool
	// locks: the members that are Locks of the View's (GroupOf).
	locks []*Lock
}

// GroupTopMembers is how many members a Group lists (Group.Members).
const GroupTopMembers = 100

// Member is an object of a Group: its waits and their time.
type Member struct {
	Object   format.ObjectID
	Waits    int
	WaitTime format.Time
}

// groupKey is what the members of a Group share.
type groupKey struct {
	kind  LockKind
	class string
	site  StackID
}

// groupWaits groups the transient objects of ag.by (after finish) and
// of its records (dormant blockers), most WaitTime first; loose are the
// records not grouped, to be made Locks, and kept the others (object <<
// 32 | slot each; aggregator.locks). The records are read twice: their
// classes settled as they are counted, then summed.
func (ag *aggregator) groupWaits() (out []*Group, loose, kept []uint64) {
	// The records are counted by key first, then summed into the groups
	// their keys make: no list of candidates per record (millions, an
	// hour of a busy server).
	type recKey struct {
		cls  int32
		site StackID
	}
	var recN map[recKey]int
	var contended []bool // by slot: the object was contended (loose)
	r := ag.recs
	if r != nil {
		recN = map[recKey]int{}
		contended = make([]bool, r.used+1)
		r.each(func(i int32, x *blkRec) bool {
			changed := r.settle(x)
			if contended[i] = ag.contended(x.obj); !contended[i] {
				recN[recKey{x.cls, x.site}]++
			}
			return changed
		})
	}
	var cands map[groupKey][]*lockAgg
	for _, a := range ag.by {
		if ag.transient(a.l) {
			if cands == nil {
				cands = map[groupKey][]*lockAgg{}
			}
			k := groupKey{a.l.Kind, a.l.Class, a.l.WaitSites[0].Stack}
			cands[k] = append(cands[k], a)
		}
	}
	sums := map[groupKey]*groupSum{}
	for k, as := range cands {
		n := len(as)
		if k.kind == Blocker && r != nil {
			if cls := slices.Index(r.classes, k.class); cls >= 0 {
				n += recN[recKey{int32(cls), k.site}]
			}
		}
		if n >= GroupMinObjects {
			s := newGroupSum(k, n)
			for _, a := range as {
				s.addLock(a)
			}
			sums[k] = s
		}
	}
	for rk, n := range recN {
		k := groupKey{Blocker, r.classes[rk.cls], rk.site}
		if _, ok := sums[k]; !ok && n+len(cands[k]) >= GroupMinObjects {
			sums[k] = newGroupSum(k, n)
		}
	}
	if r != nil {
		kept = make([]uint64, 0, r.live())
		r.each(func(i int32, x *blkRec) bool {
			k := uint64(x.obj)<<32 | uint64(i)
			if s := sums[groupKey{Blocker, r.classes[x.cls], x.site}]; s != nil && !contended[i] {
				s.addRec(x)
				kept = append(kept, k)
			} else {
				loose = append(loose, k)
			}
			return false
		})
	}
	for _, s := range sums {
		out = append(out, s.finish(ag.ownerSpill))
	}
	slices.Sort(loose) // woken in the same order each time
	slices.SortFunc(out, func(a, b *Group) int {
		if c := cmp.Compare(b.WaitTime, a.WaitTime); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Class, b.Class); c != 0 {
			return c
		}
		return cmp.Compare(a.Site, b.Site)
	})
	return out, loose, kept
}

// transient reports whether l's object may be grouped: an object of
// Object.wait or a park blocker (not the parks without one), waited on
// at most GroupMaxWaits times and contended by no thread as a monitor or
// a java.util.concurrent lock. (A dormant blocker's record is the first
// two by construction: dormant.)
func (ag *aggregator) transient(l *Lock) bool {
	if l.Waits == 0 || l.Waits > GroupMaxWaits || len(l.WaitSites) == 0 {
		return false
	}
	if l.Kind != Monitor && (l.Kind != Blocker || l.Object == 0) {
		return false
	}
	return !ag.contended(l.Object)
}

// contended reports whether threads contended obj as a monitor or a
// java.util.concurrent lock.
func (ag *aggregator) contended(obj format.ObjectID) bool {
	for _, k := range []LockKind{Monitor, JUCLock} {
		// The whole recording's figures, also under a thread filter: a lock
		// other threads contended is a lock.
		var c *Lock
		if ag.all {
			if x := ag.by[uint64(obj)<<2|uint64(k)]; x != nil {
				c = x.l
			}
		} else {
			c = ag.m.byObject[lockOf(obj, k)]
		}
		if c != nil && c.Contended() {
			return true
		}
	}
	return false
}

// groupSum is a Group being summed from its members.
type groupSum struct {
	g        *Group
	site     StackID
	waitedBy map[format.ThreadID]format.Time
	unparked map[format.ThreadID]Blame
	sites    map[StackID]WaitSite
	// worst: with cut, the last of the top Members kept when they were
	// last cut to GroupTopMembers (member).
	worst Member
	cut   bool
}

// newGroupSum starts the group of key k, of n members.
func newGroupSum(k groupKey, n int) *groupSum {
	g := &Group{Site: k.site, Members: make([]Member, 0, min(n, 2*GroupTopMembers))}
	g.Kind, g.Class = k.kind, k.class
	return &groupSum{g: g, site: k.site, waitedBy: map[format.ThreadID]format.Time{},
		unparked: map[format.ThreadID]Blame{}, sites: map[StackID]WaitSite{}}
}

func (s *groupSum) first(f firstAt) {
	if first, ok := s.waitedBy[f.th]; !ok || f.at < first {
		s.waitedBy[f.th] = f.at
	}
}

func (s *groupSum) unpark(th format.ThreadID, u unparkAgg) {
	b := s.unparked[th]
	b.Thread, b.Contentions, b.Blamed = th, b.Contentions+u.n, b.Blamed+u.blamed
	s.unparked[th] = b
}

func (s *groupSum) waitSite(ws WaitSite) {
	w := s.sites[ws.Stack]
	w.Stack = ws.Stack
	w.Waits += ws.Waits
	w.TimedOut += ws.TimedOut
	w.StillWaiting += ws.StillWaiting
	w.Time += ws.Time
	s.sites[ws.Stack] = w
}

// addLock adds the member a, a lock's aggregate (finished).
func (s *groupSum) addLock(a *lockAgg) {
	l := a.l
	s.g.locks = append(s.g.locks, l)
	for _, f := range a.waitedBy {
		s.first(f)
	}
	for th, u := range a.unparked.all {
		s.unpark(th, u)
	}
	for _, ws := range l.WaitSites {
		s.waitSite(ws)
	}
	s.add(l)
}

// addRec adds the member of record r: what its Lock would be (agg),
// read from the record.
func (s *groupSum) addRec(r *blkRec) {
	var l Lock
	r.figures(&l)
	for _, f := range r.firsts[:r.nFirst] {
		s.first(f)
	}
	for j := range r.nUnp {
		s.unpark(r.unpTh[j], unparkAgg{int(r.unpN[j]), r.unpT[j]})
	}
	s.waitSite(r.waitSite(&l))
	l.Object = r.obj
	s.g.fromRecs = true
	s.add(&l)
}

// add sums the figures of the member l.
func (s *groupSum) add(l *Lock) {
	g := s.g
	g.Objects++
	s.member(Member{l.Object, l.Waits, l.WaitTime})
	g.MaxWaits = max(g.MaxWaits, l.Waits)
	g.Waits += l.Waits
	g.WaitTime += l.WaitTime
	g.MaxWait = max(g.MaxWait, l.MaxWait)
	g.Notified += l.Notified
	g.Ambiguous += l.Ambiguous
	g.TimedOut += l.TimedOut
	g.Interrupted += l.Interrupted
	g.Spurious += l.Spurious
	g.StillWaiting += l.StillWaiting
	g.IdleWaits += l.IdleWaits
	g.Notifies += l.Notifies
	g.NotifyAlls += l.NotifyAlls
	g.NotifiesWokeNobody += l.NotifiesWokeNobody
	g.MaxNotifyAllBurst = max(g.MaxNotifyAllBurst, l.MaxNotifyAllBurst)
}

// memberOrder is the order of Group.Members: most WaitTime first, then
// by Object (a group's objects are distinct: a total order).
func memberOrder(a, b Member) int {
	if c := cmp.Compare(b.WaitTime, a.WaitTime); c != 0 {
		return c
	}
	return cmp.Compare(a.Object, b.Object)
}

// member adds mb to the group's Members when it may be among the top
// ones: those after the GroupTopMembers-th of the ones kept (s.worst,
// once they were cut) never are. Kept to twice as many, then cut.
func (s *groupSum) member(mb Member) {
	g := s.g
	if s.cut && memberOrder(mb, s.worst) > 0 {
		return
	}
	g.Members = append(g.Members, mb)
	if len(g.Members) == 2*GroupTopMembers {
		s.topMembers()
	}
}

// topMembers sorts the group's Members and keeps the GroupTopMembers
// first.
func (s *groupSum) topMembers() {
	g := s.g
	slices.SortFunc(g.Members, memberOrder)
	if len(g.Members) >= GroupTopMembers {
		g.Members = g.Members[:GroupTopMembers]
		s.worst, s.cut = g.Members[GroupTopMembers-1], true
	}
}

// finish orders the group's lists and returns it; with a spill (sp), a
// long WaitedBy is written to it (putThreads).
func (s *groupSum) finish(sp *spillFile) *Group {
	g, waitedBy, unparked, sites := s.g, s.waitedBy, s.unparked, s.sites
	s.topMembers()
	putWaiters(&g.Lock, nil, byFirst(waitedBy), sp)
	for _, u := range unparked {
		g.UnparkedBy = append(g.UnparkedBy, u)
	}
	sortUnparkers(g.UnparkedBy)
	for _, w := range sites {
		g.WaitSites = append(g.WaitSites, w)
	}
	// Each member has the most time at Site, so Site has the most of
	// all; on a tie it comes first all the same.
	slices.SortFunc(g.WaitSites, func(a, b WaitSite) int {
		if c := cmp.Compare(b.Time, a.Time); c != 0 {
			return c
		}
		switch s.site {
		case a.Stack:
			return -1
		case b.Stack:
			return 1
		}
		return cmp.Compare(a.Stack, b.Stack)
	})
	return g
}

// GroupMembers yields every member of g, a group of m's or of a View of
// it, in no order (Group.Members lists the top ones): its members that
// are Locks, then those the model keeps as records.
func (m *Model) GroupMembers(g *Group) iter.Seq[Member] {
	return func(yield func(Member) bool) {
		for _, l := range g.locks {
			if !yield(Member{l.Object, l.Waits, l.WaitTime}) {
				return
			}
		}
		if !g.fromRecs || m.recs == nil {
			return
		}
		for _, k := range m.recBy {
			r := m.recs.get(int32(uint32(k)))
			if r.site != g.Site || m.recs.classes[r.cls] != g.Class {
				continue
			}
			var l Lock
			r.figures(&l)
			if !yield(Member{r.obj, l.Waits, l.WaitTime}) {
				return
			}
		}
	}
}
