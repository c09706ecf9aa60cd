package report

import (
	"cmp"
	"slices"
	"sort"
	"strconv"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// The report renders the model's figures: Model.Locks, or, with --thread,
// Model.Aggregate of the matching threads (the one fold of contentions,
// blame, sites and waits; the viewer shows the same numbers).

// locks returns the contended locks, most blocked time (open included)
// first, in the model's order. Only the first keep of them (all for keep
// ≤ 0) are listed by the report: the others give their figures to the
// totals and their sites to the sites' ranking, so their lists of threads
// (owners, waiters: up to one a thread, 2.4 M owners, ~250 MB in a 1 GB
// recording's report) are not made, nor what their holders did (the
// holders' pass folds those of listedLocks alone).
func (b *builder) locks(ls []*model.Lock, keep int) []Lock {
	// Counted first: grown by append, the entries (416 bytes each) were
	// 69 MB of ten minutes of a loaded Tomcat's report's allocations.
	n := 0
	for _, ml := range ls {
		if ml.Contended() {
			n++
		}
	}
	out := make([]Lock, 0, n)
	var doing map[model.LockRef]*model.Doing
	for _, ml := range ls {
		if !ml.Contended() {
			continue
		}
		inTop := keep <= 0 || len(out) < keep
		listed := inTop && !b.opt.NoThreadLists
		if doing == nil && !b.opt.NoHolders {
			doing = b.holdersDoing()
		}
		l := Lock{
			Object: ml.Object.String(), Kind: ml.Kind.String(),
			Contentions: ml.Contentions, BlockedS: sec(ml.Blocked), MaxBlockedS: sec(ml.MaxBlocked),
			Open: ml.Open, OpenS: sec(ml.OpenTime), OwnerUnknown: ml.OwnerUnknown, OwnerUnknownS: sec(ml.OwnerUnknownTime), NoUnpark: ml.NoUnpark, NoUnparkInterrupted: ml.NoUnparkInterrupted, NoUnparkSpurious: ml.NoUnparkSpurious, Waits: ml.Waits,
			Notifies: ml.Notifies, NotifyAlls: ml.NotifyAlls, Acquires: ml.Acquires, Releases: ml.Releases,
			Sites: make([]LockSite, 0, len(ml.Sites)), HeldAt: make([][]string, 0, len(ml.HeldAt)),
		}
		if listed && b.opt.JSONOnly {
			l.rows = &lockRows{m: b.m, l: ml}
		} else if listed {
			ws := b.m.WaitersOf(ml)
			l.Waiters, l.Owners = make([]string, 0, len(ws)), b.owners(ml)
			for _, th := range ws {
				l.Waiters = append(l.Waiters, th.String())
			}
		}
		if ml.Contentions > 0 {
			l.MeanBlockedS = sec(ml.Blocked / format.Time(ml.Contentions))
		}
		if ml.Class != "" {
			c := ml.Class
			l.Class = &c
		}
		l.Call = b.m.LockCall(ml, b.rec.FrameName)
		l.BeforeEvents, l.BeforeAttach = ml.BeforeEvents, ml.BeforeAttach
		l.ClassObject = classObject(b.rec.Classes, l.Object, l.Class)
		for _, ll := range ml.LeftLocked {
			l.LeftLocked = append(l.LeftLocked, LeftLocked{Thread: ll.Thread.String(), Name: b.name(ll.Thread), EndedS: b.rel(ll.Ended), Parks: ll.Parks})
		}
		if ci := b.m.InitLock(ml.Object); ci != nil && ml.Kind == model.Monitor {
			c := ci.Class
			l.InitOf = &c
		}
		for _, s := range ml.Sites {
			l.Sites = append(l.Sites, LockSite{Frames: b.stack(s.Stack), Contentions: s.Contentions,
				BlockedS: sec(s.Blocked), Open: s.Open, OpenS: sec(s.OpenTime), BeforeEvents: s.BeforeEvents, BeforeAttach: s.BeforeAttach})
		}
		for _, s := range ml.HeldAt {
			l.HeldAt = append(l.HeldAt, b.stack(s))
		}
		if inTop && doing != nil && (ml.Kind == model.Monitor || ml.Kind == model.JUCLock) {
			b.holders(&l, doing[model.LockRef{Object: ml.Object, Kind: ml.Kind}])
		}
		l.Hold = b.hold(ml)
		out = append(out, l)
	}
	return out
}

// listedLocks returns the monitors and java.util.concurrent locks among
// the first keep contended locks of ls, those locks lists and says what
// their holders did of (View.HoldersOf); nil, all of them, for keep ≤ 0.
func listedLocks(ls []*model.Lock, keep int) map[model.LockRef]bool {
	if keep <= 0 {
		return nil
	}
	out := map[model.LockRef]bool{}
	n := 0
	for _, ml := range ls {
		if n == keep {
			break
		}
		if !ml.Contended() {
			continue
		}
		n++
		if ml.Kind == model.Monitor || ml.Kind == model.JUCLock {
			out[model.LockRef{Object: ml.Object, Kind: ml.Kind}] = true
		}
	}
	return out
}

// owners lists the blamed owners of a lock; pct is of all blamed time.
func (b *builder) owners(l *model.Lock) []Owner {
	os := b.m.OwnersOf(l)
	out := make([]Owner, 0, len(os))
	for _, bl := range os {
		out = append(out, ownerRow(b.m, l, bl))
	}
	return out
}

// ownerRow is the row of owner bl of l.
func ownerRow(m *model.Model, l *model.Lock, bl model.Blame) Owner {
	return Owner{Thread: bl.Thread.String(), Name: nameOf(m, bl.Thread),
		Contentions: bl.Contentions, Open: bl.Open, BlamedS: sec(bl.Blamed), Pct: pct(bl.Blamed, l.BlamedTotal())}
}

// lockRows makes a listed lock's waiters' and owners' rows as they are
// written (Options.JSONOnly), from the Model, which it keeps.
type lockRows struct {
	m *model.Model
	l *model.Lock
}

// waiters yields the waiters' rows, as Lock.Waiters has them.
func (r *lockRows) waiters(yield func(*string)) {
	for _, th := range r.m.WaitersOf(r.l) {
		s := th.String()
		yield(&s)
	}
}

// owners yields the owners' rows, as Lock.Owners has them.
func (r *lockRows) owners(yield func(*Owner)) {
	for _, bl := range r.m.OwnersOf(r.l) {
		o := ownerRow(r.m, r.l, bl)
		yield(&o)
	}
}

// sites ranks the blocking call sites of all contended locks by time
// blocked, open contentions included, then contentions, and returns the
// first n of them (all for n ≤ 0) and how many there are. Only those
// returned are made: the ranking sorts the sites' places, not Site
// values, ties in the locks' order and each lock's (the order of a stable
// sort, by one that is not: a stable sort's merges were 3.3 % of the
// instructions of report --json of a 32 MB recording).
func (b *builder) sites(locks []Lock, n int) ([]Site, int) {
	type place struct {
		time     float64
		count    int
		lock, at int32
	}
	rank := func(a, c place) int {
		return cmp.Or(cmp.Compare(c.time, a.time), cmp.Compare(c.count, a.count), cmp.Compare(a.lock, c.lock), cmp.Compare(a.at, c.at))
	}
	total := 0
	for i := range locks {
		total += len(locks[i].Sites)
	}
	// The first n kept in order as the places come (a place after the
	// n-th is passed by with one comparison; an insert moves at most
	// sitesKeepMax), or every place sorted and the first n cut.
	sortAll := n <= 0 || n > sitesKeepMax || n >= total
	ps := make([]place, 0, min(n, total)+1)
	if sortAll {
		ps = make([]place, 0, total)
	}
	for i := range locks {
		for j := range locks[i].Sites {
			s := &locks[i].Sites[j]
			p := place{s.BlockedS + s.OpenS, s.Contentions + s.Open, int32(i), int32(j)}
			if sortAll {
				ps = append(ps, p)
				continue
			}
			if len(ps) == n && rank(p, ps[n-1]) >= 0 {
				continue
			}
			at, _ := slices.BinarySearchFunc(ps, p, rank)
			ps = slices.Insert(ps, at, p)
			if len(ps) > n {
				ps = ps[:n]
			}
		}
	}
	if sortAll {
		slices.SortFunc(ps, rank)
		if n > 0 && len(ps) > n {
			ps = ps[:n]
		}
	}
	out := make([]Site, 0, len(ps))
	for _, p := range ps {
		l, s := &locks[p.lock], &locks[p.lock].Sites[p.at]
		out = append(out, Site{Frames: s.Frames, Object: l.Object, Kind: l.Kind,
			Contentions: s.Contentions, BlockedS: s.BlockedS, Open: s.Open, OpenS: s.OpenS, Class: l.Class, InitOf: l.InitOf, Call: callOf(s.Frames), BeforeEvents: s.BeforeEvents, BeforeAttach: s.BeforeAttach})
	}
	return out, total
}

// sitesKeepMax is the largest top for which sites keeps the first places
// as they come rather than sorting them all (a var: the tests).
var sitesKeepMax = 256

// groupTop is how many objects of a group the report names.
const groupTop = 5

// waits returns the wait/notify health of the objects the matching threads
// waited on (and, without a filter, of the objects only notified), worst
// first: the program's objects before those only JDK service threads
// waited on, then most waits that no notify ended, then most time waiting.
// The short-lived objects of a group (model.Group) are one entry, ranked
// by its sums, in their place. Notify counts are the object's, by every
// thread: the model does not keep who notified.
func (b *builder) waits() []Wait {
	type ranked struct {
		w    Wait
		time format.Time
	}
	var rs []ranked
	for _, l := range b.v.Locks {
		if l.Kind == model.Semaphore || l.Waits == 0 && (l.Kind == model.Blocker || b.opt.Thread != "" || l.Notifies+l.NotifyAlls == 0) {
			continue
		}
		if b.v.GroupOf(l) != nil {
			continue
		}
		w := b.wait(l)
		w.Object = idPtr(l.Object.String(), true)
		w.Call = b.m.LockCall(l, b.rec.FrameName)
		rs = append(rs, ranked{w, l.WaitTime})
	}
	for _, g := range b.v.Groups {
		w := b.wait(&g.Lock)
		w.Group = &WaitGroup{Objects: g.Objects, Threads: g.WaitedByCount(), MaxWaits: g.MaxWaits, MaxWaitS: sec(g.MaxWait), Top: []GroupMember{}}
		for _, l := range g.Members[:min(groupTop, len(g.Members))] {
			w.Group.Top = append(w.Group.Top, GroupMember{Object: l.Object.String(), Waits: l.Waits, WaitS: sec(l.WaitTime)})
		}
		rs = append(rs, ranked{w, g.WaitTime})
	}
	// Stable: two groups that tie keep the model's order.
	sort.SliceStable(rs, func(i, j int) bool {
		a, c := &rs[i].w, &rs[j].w
		if a.JDK != c.JDK {
			return !a.JDK
		}
		if a.TimedOut+a.StillWaiting != c.TimedOut+c.StillWaiting {
			return a.TimedOut+a.StillWaiting > c.TimedOut+c.StillWaiting
		}
		if rs[i].time != rs[j].time {
			return rs[i].time > rs[j].time
		}
		if (a.Object == nil) != (c.Object == nil) {
			return a.Object == nil
		}
		return a.Object != nil && *a.Object < *c.Object
	})
	out := []Wait{}
	for _, r := range rs {
		out = append(out, r.w)
	}
	return out
}

// wait renders the wait figures of a lock or a group's sums; Object is
// left nil.
func (b *builder) wait(l *model.Lock) Wait {
	w := Wait{Waits: l.Waits, Notified: l.Notified, Ambiguous: l.Ambiguous,
		TimedOut: l.TimedOut, Interrupted: l.Interrupted, Spurious: l.Spurious, StillWaiting: l.StillWaiting, WaitS: sec(l.WaitTime),
		Notifies: l.Notifies, NotifyAlls: l.NotifyAlls, WokeNobody: l.NotifiesWokeNobody, MaxBurst: l.MaxNotifyAllBurst,
		Storm: l.MaxNotifyAllBurst >= analysis.StormBurst, Sites: []WaitSite{}, BeforeAttach: l.WaitsBeforeAttach}
	if l.Class != "" {
		c := l.Class
		w.Class = &c
	}
	app := false
	if l.Waits > 0 {
		for _, th := range b.m.WaitedByOf(l) {
			if !b.jdk[th] {
				app = true
				break
			}
		}
	}
	w.JDK = l.Waits > 0 && !app
	if l.Kind == model.Blocker {
		w.Kind, w.Idle = "park", l.IdleWaits
		// Idle pool workers wait for work by design: ranked with the
		// JDK's service threads.
		w.JDK = w.JDK || l.IdleWaits == l.Waits
		for _, u := range l.UnparkedBy {
			w.UnparkedBy = append(w.UnparkedBy, Unparker{Thread: u.Thread.String(), Name: b.name(u.Thread),
				Parks: u.Contentions, ParkS: sec(u.Blamed)})
		}
	}
	for _, s := range l.WaitSites {
		w.Sites = append(w.Sites, WaitSite{Frames: b.stack(s.Stack), Waits: s.Waits, TimedOut: s.TimedOut,
			Still: s.StillWaiting, WaitS: sec(s.Time), BeforeAttach: s.BeforeAttach})
	}
	return w
}

// classInits lists the JVM's class initialisation locks threads waited on.
func (b *builder) classInits() []ClassInit {
	out := []ClassInit{}
	for _, ci := range b.m.ClassInits {
		if ci.Waits == 0 {
			continue
		}
		c := ClassInit{Object: ci.Object.String(), Class: ci.Class, Waits: ci.Waits, Waiters: []string{}, Sites: [][]string{}}
		c.JDK = true
		for _, t := range ci.Waiters {
			c.Waiters = append(c.Waiters, t.String())
			c.JDK = c.JDK && b.jdk[t]
		}
		for _, s := range ci.Sites {
			c.Sites = append(c.Sites, b.stack(s))
		}
		out = append(out, c)
	}
	return out
}

// classObject is reader.ClassObject of an object as the report writes it
// (its hex id, its class's signature or nil): nil when it names none.
func classObject(classes map[format.ClassID]*reader.Class, object string, class *string) *string {
	if class == nil {
		return nil
	}
	id, err := strconv.ParseUint(object, 16, 32)
	if err != nil {
		return nil
	}
	if c := reader.ClassObject(classes, format.ObjectID(id), *class); c != "" {
		return &c
	}
	return nil
}
