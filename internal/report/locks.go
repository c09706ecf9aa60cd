package report

import (
	"sort"

	"orca/internal/format"
	"orca/internal/model"
)

// Lock figures are folded again here from the threads' intervals rather
// than copied from model.Lock, so that --thread can restrict them to the
// contentions of the matching threads. Without a filter they equal the
// model's (a test checks it); contentions still open at the end, which
// the model leaves out of Contentions and Blocked, are counted apart.

// contention is one stretch of a thread blocked on a monitor, or waiting in
// Semaphore.acquire until another thread's release. The model may split it
// into segments (when the owner changes); they share its Since.
type contention struct {
	thread       format.ThreadID
	object       format.ObjectID
	kind         model.LockKind
	stack        model.StackID
	start, end   format.Time
	open         bool
	first, owner format.ThreadID // owner at the start and at the end
	// iv is the Blocked interval (nil for a semaphore): its owner spans
	// are blamed when the lock is folded, not kept per contention, which
	// would grow as contentions × waiters.
	iv *model.Interval
}

// occurrence identifies one state of a thread across its segments, as
// model.Validate does.
type occurrence struct {
	state  model.State
	since  format.Time
	object format.ObjectID
}

// contentions returns the contentions of thread t, in order of start.
func contentions(t *model.Thread) []contention {
	var all []contention
	for k := range t.Intervals {
		iv := &t.Intervals[k]
		if iv.State != model.Blocked && iv.State != model.Acquiring {
			continue
		}
		// A continuation belongs to an earlier contention of the same
		// state, start and object (the model makes none for Blocked, but
		// costs nothing to allow); it is almost always the latest one, so
		// look back instead of keeping a map.
		i, ok := -1, false
		if iv.Cont {
			for j := len(all) - 1; j >= 0; j-- {
				if c := &all[j]; c.start == iv.Since && c.object == iv.Object && (c.kind == model.Semaphore) == (iv.State == model.Acquiring) {
					i, ok = j, true
					break
				}
			}
		}
		if !ok {
			c := contention{thread: t.ID, object: iv.Object, stack: iv.Stack, start: iv.Since, first: iv.Other}
			if iv.State == model.Acquiring {
				c.kind = model.Semaphore
			} else {
				c.first, c.iv = iv.First, iv
			}
			all = append(all, c)
			i = len(all) - 1
		}
		c := &all[i]
		c.end, c.open, c.owner = iv.End, iv.Open, iv.Other
	}
	out := all[:0]
	for _, c := range all {
		// An acquire is a contention only when a release by another thread
		// let it through (the model then names the releaser); an acquire
		// still open at the end has no releaser yet and shows as a hang.
		if c.kind == model.Semaphore && c.owner == 0 {
			continue
		}
		out = append(out, c)
	}
	return out
}

// lockAcc accumulates one lock's contentions.
type lockAcc struct {
	l            *model.Lock
	object       format.ObjectID
	kind         model.LockKind
	contentions  int
	blocked, max format.Time
	open         int
	openT        format.Time
	ownerUnknown int
	waiters      map[format.ThreadID]format.Time // first block
	owners       map[format.ThreadID]*model.Blame
	sites        map[model.StackID]*siteAcc
	held         map[model.StackID]bool
	waits        int
}

type siteAcc struct {
	stack       model.StackID
	contentions int
	blocked     format.Time
	open        int
	openT       format.Time
}

type lockKey struct {
	obj  format.ObjectID
	kind model.LockKind
}

// foldLocks accumulates the contentions and waits of the matching threads.
func (b *builder) foldLocks() []*lockAcc {
	accs := map[lockKey]*lockAcc{}
	get := func(obj format.ObjectID, kind model.LockKind) *lockAcc {
		k := lockKey{obj, kind}
		a := accs[k]
		if a == nil {
			a = &lockAcc{l: b.m.Lock(obj, kind), object: obj, kind: kind,
				waiters: map[format.ThreadID]format.Time{}, owners: map[format.ThreadID]*model.Blame{},
				sites: map[model.StackID]*siteAcc{}, held: map[model.StackID]bool{}}
			accs[k] = a
		}
		return a
	}
	for _, t := range b.m.Threads {
		if !b.match(t) {
			continue
		}
		for _, iv := range t.Intervals {
			if iv.State == model.Waiting && !iv.Cont {
				get(iv.Object, model.Monitor).waits++
			}
		}
		for _, c := range contentions(t) {
			a := get(c.object, c.kind)
			d := c.end - c.start
			if first, ok := a.waiters[c.thread]; !ok || c.start < first {
				a.waiters[c.thread] = c.start
			}
			if c.iv != nil {
				for sp := range b.m.OwnerSpans(c.thread, c.iv) {
					a.blame(sp.Owner, 0, sp.End-sp.Start)
				}
			} else {
				a.blame(c.owner, 0, c.end-c.start)
			}
			if c.kind == model.Monitor && c.first == 0 {
				a.ownerUnknown++
			}
			s := a.sites[c.stack]
			if s == nil {
				s = &siteAcc{stack: c.stack}
				a.sites[c.stack] = s
			}
			if c.open {
				a.open++
				a.openT += d
				s.open++
				s.openT += d
				continue
			}
			a.contentions++
			a.blocked += d
			a.max = max(a.max, d)
			s.contentions++
			s.blocked += d
			a.blame(c.owner, 1, 0)
			if c.kind == model.Monitor {
				a.held[c.stack] = true
			}
		}
	}
	out := make([]*lockAcc, 0, len(accs))
	for _, a := range accs {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		a, c := out[i], out[j]
		if a.blocked+a.openT != c.blocked+c.openT {
			return a.blocked+a.openT > c.blocked+c.openT
		}
		if a.contentions+a.open != c.contentions+c.open {
			return a.contentions+a.open > c.contentions+c.open
		}
		if a.object != c.object {
			return a.object < c.object
		}
		return a.kind < c.kind
	})
	return out
}

func (a *lockAcc) blame(owner format.ThreadID, n int, d format.Time) {
	if owner == 0 {
		return
	}
	bl := a.owners[owner]
	if bl == nil {
		bl = &model.Blame{Thread: owner}
		a.owners[owner] = bl
	}
	bl.Contentions += n
	bl.Blamed += d
}

// locks returns the contended locks, most blocked time (open included) first.
func (b *builder) locks() []Lock {
	out := []Lock{}
	for _, a := range b.foldLocks() {
		if a.contentions+a.open == 0 {
			continue
		}
		l := Lock{
			Object: a.object.String(), Kind: a.kind.String(),
			Contentions: a.contentions, BlockedS: sec(a.blocked), MaxBlockedS: sec(a.max),
			Open: a.open, OpenS: sec(a.openT), OwnerUnknown: a.ownerUnknown, Waits: a.waits,
			Waiters: []string{}, Owners: []Owner{}, Sites: []LockSite{}, HeldAt: [][]string{},
		}
		if a.contentions > 0 {
			l.MeanBlockedS = sec(a.blocked / format.Time(a.contentions))
		}
		if a.l != nil {
			if a.l.Class != "" {
				l.Class = &a.l.Class
			}
			l.Notifies, l.NotifyAlls = a.l.Notifies, a.l.NotifyAlls
			l.Acquires, l.Releases = a.l.Acquires, a.l.Releases
		}
		ws := make([]format.ThreadID, 0, len(a.waiters))
		for th := range a.waiters {
			ws = append(ws, th)
		}
		sort.Slice(ws, func(i, j int) bool {
			if a.waiters[ws[i]] != a.waiters[ws[j]] {
				return a.waiters[ws[i]] < a.waiters[ws[j]]
			}
			return ws[i] < ws[j]
		})
		for _, th := range ws {
			l.Waiters = append(l.Waiters, th.String())
		}
		l.Owners = b.owners(a)
		for _, s := range sortedSites(a) {
			l.Sites = append(l.Sites, LockSite{Frames: b.stack(s.stack), Contentions: s.contentions,
				BlockedS: sec(s.blocked), Open: s.open, OpenS: sec(s.openT)})
		}
		var held []model.StackID
		for s := range a.held {
			held = append(held, s)
		}
		sort.Slice(held, func(i, j int) bool { return held[i] < held[j] })
		for _, s := range held {
			l.HeldAt = append(l.HeldAt, b.stack(s))
		}
		out = append(out, l)
	}
	return out
}

// owners ranks the blamed owners of a lock; pct is of all blamed time.
func (b *builder) owners(a *lockAcc) []Owner {
	var bls []model.Blame
	var total format.Time
	for _, bl := range a.owners {
		bls = append(bls, *bl)
		total += bl.Blamed
	}
	sort.Slice(bls, func(i, j int) bool {
		if bls[i].Blamed != bls[j].Blamed {
			return bls[i].Blamed > bls[j].Blamed
		}
		return bls[i].Thread < bls[j].Thread
	})
	out := []Owner{}
	for _, bl := range bls {
		out = append(out, Owner{Thread: bl.Thread.String(), Name: b.name(bl.Thread),
			Contentions: bl.Contentions, BlamedS: sec(bl.Blamed), Pct: pct(bl.Blamed, total)})
	}
	return out
}

func sortedSites(a *lockAcc) []*siteAcc {
	var ss []*siteAcc
	for _, s := range a.sites {
		ss = append(ss, s)
	}
	sort.Slice(ss, func(i, j int) bool {
		if ss[i].blocked+ss[i].openT != ss[j].blocked+ss[j].openT {
			return ss[i].blocked+ss[i].openT > ss[j].blocked+ss[j].openT
		}
		if ss[i].contentions != ss[j].contentions {
			return ss[i].contentions > ss[j].contentions
		}
		return ss[i].stack < ss[j].stack
	})
	return ss
}

// sites ranks the blocking call sites of all contended locks, as
// analysis.Sites does, with the open contentions' time counted too.
func (b *builder) sites(locks []Lock) []Site {
	out := []Site{}
	for _, l := range locks {
		for _, s := range l.Sites {
			out = append(out, Site{Frames: s.Frames, Object: l.Object, Kind: l.Kind,
				Contentions: s.Contentions, BlockedS: s.BlockedS, Open: s.Open, OpenS: s.OpenS})
		}
	}
	// Sort indexes, not the (large) Site values: a stable sort of structs
	// moves them O(n log² n) times.
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		if ti, tj := out[i].BlockedS+out[i].OpenS, out[j].BlockedS+out[j].OpenS; ti != tj {
			return ti > tj
		}
		return out[i].Contentions+out[i].Open > out[j].Contentions+out[j].Open
	})
	sorted := make([]Site, len(out))
	for k, i := range idx {
		sorted[k] = out[i]
	}
	return sorted
}
