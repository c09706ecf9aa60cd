package model

import (
	"cmp"
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
	// Members are the objects, most WaitTime first, then by Object.
	Members []*Lock
}

// groupKey is what the members of a Group share.
type groupKey struct {
	kind  LockKind
	class string
	site  StackID
}

// groupWaits groups the transient objects of ag.by (after finish), most
// WaitTime first.
func (ag *aggregator) groupWaits() []*Group {
	var cands map[groupKey][]*lockAgg
	for _, a := range ag.by {
		if !ag.transient(a) {
			continue
		}
		if cands == nil {
			cands = map[groupKey][]*lockAgg{}
		}
		k := groupKey{a.l.Kind, a.l.Class, a.l.WaitSites[0].Stack}
		cands[k] = append(cands[k], a)
	}
	var out []*Group
	for k, as := range cands {
		if len(as) >= GroupMinObjects {
			out = append(out, newGroup(k, as, ag.ownerSpill))
		}
	}
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
	return out
}

// transient reports whether a's object may be grouped: an object of
// Object.wait or a park blocker (not the parks without one), waited on
// at most GroupMaxWaits times and contended by no thread as a monitor or
// a java.util.concurrent lock.
func (ag *aggregator) transient(a *lockAgg) bool {
	l := a.l
	if l.Waits == 0 || l.Waits > GroupMaxWaits || len(l.WaitSites) == 0 {
		return false
	}
	if l.Kind != Monitor && (l.Kind != Blocker || l.Object == 0) {
		return false
	}
	for _, k := range []LockKind{Monitor, JUCLock} {
		// The whole recording's figures, also under a thread filter: a lock
		// other threads contended is a lock.
		var c *Lock
		if ag.all {
			if x := ag.by[uint64(l.Object)<<2|uint64(k)]; x != nil {
				c = x.l
			}
		} else {
			c = ag.m.byObject[lockOf(l.Object, k)]
		}
		if c != nil && c.Contended() {
			return false
		}
	}
	return true
}

// newGroup sums the members as into a Group; with a spill (sp), a long
// WaitedBy is written to it (putThreads).
func newGroup(k groupKey, as []*lockAgg, sp *spillFile) *Group {
	g := &Group{Site: k.site, Members: make([]*Lock, 0, len(as))}
	g.Kind, g.Class = k.kind, k.class
	waitedBy := map[format.ThreadID]format.Time{}
	unparked := map[format.ThreadID]Blame{}
	sites := map[StackID]WaitSite{}
	for _, a := range as {
		l := a.l
		g.Members = append(g.Members, l)
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
		for _, f := range a.waitedBy {
			if first, ok := waitedBy[f.th]; !ok || f.at < first {
				waitedBy[f.th] = f.at
			}
		}
		for th, u := range a.unparked.all {
			s := unparked[th]
			s.Thread, s.Contentions, s.Blamed = th, s.Contentions+u.n, s.Blamed+u.blamed
			unparked[th] = s
		}
		for _, ws := range l.WaitSites {
			s := sites[ws.Stack]
			s.Stack = ws.Stack
			s.Waits += ws.Waits
			s.TimedOut += ws.TimedOut
			s.StillWaiting += ws.StillWaiting
			s.Time += ws.Time
			sites[ws.Stack] = s
		}
	}
	slices.SortFunc(g.Members, func(a, b *Lock) int {
		if c := cmp.Compare(b.WaitTime, a.WaitTime); c != 0 {
			return c
		}
		return cmp.Compare(a.Object, b.Object)
	})
	putWaiters(&g.Lock, nil, byFirst(waitedBy), sp)
	for _, u := range unparked {
		g.UnparkedBy = append(g.UnparkedBy, u)
	}
	sortUnparkers(g.UnparkedBy)
	for _, s := range sites {
		g.WaitSites = append(g.WaitSites, s)
	}
	// Each member has the most time at Site, so Site has the most of
	// all; on a tie it comes first all the same.
	slices.SortFunc(g.WaitSites, func(a, b WaitSite) int {
		if c := cmp.Compare(b.Time, a.Time); c != 0 {
			return c
		}
		switch k.site {
		case a.Stack:
			return -1
		case b.Stack:
			return 1
		}
		return cmp.Compare(a.Stack, b.Stack)
	})
	return g
}
