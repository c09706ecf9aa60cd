package analysis

import (
	"slices"
	"sort"

	"orca/internal/format"
	"orca/internal/model"
)

// The lock-order graph (issue 36, item 2; docs/report-json.md "potential_deadlocks"):
// a thread that blocked on lock W while it held lock H took them in the
// order H then W, an edge H -> W. Locks are monitors and, with orca record
// --lock-order, java.util.concurrent locks (a ReentrantLock, a
// ReentrantReadWriteLock: its synchronizer, one node for its read and
// write locks), so edges go monitor -> j.u.c., j.u.c. -> monitor and
// j.u.c. -> j.u.c. as well. A cycle in the graph is a lock-order
// inversion: threads that each hold one lock of the cycle and want the next
// would deadlock, if their nestings ran at the same time. The run did not
// have to deadlock for the cycle to be seen.
//
// Nodes are lock instances (their identity hashes), except a lock that
// appears in one contended nesting only (a short-lived object: a lock made
// for one call): it can close no cycle of instances, so its node is its
// class and its acquiring site instead — the method that took it (or
// wanted it) and how many monitors that method's frame had taken before —
// the lock classes of Linux's lockdep narrowed to a site, so that
// short-lived locks taken at the same sites meet in one node. Two plain
// Objects nested in a fixed order in one method are then two nodes (its
// first monitor, its second), never a self-loop.
//
// Left out, as they cannot deadlock:
//   - a cycle whose edges need fewer threads than it has edges: one thread
//     alone never waits for itself, and a thread blocks on one lock at a
//     time, so each edge must be another thread's;
//   - a cycle guarded by a gate lock (JCarder 2.0's rule): a lock, not in
//     the cycle, that each edge's thread held as it made the edge; two of
//     them cannot be inside it at once — so not a read lock that two of
//     them held shared (a gate held shared by at most one of them counts);
//   - read-read of a read-write lock: a cycle in which a thread wanted,
//     shared, a read-write lock the next edge's thread held shared (a read
//     lock wanted where a read lock is held): that thread would get it, so
//     that link cannot block and the cycle cannot close. (Not said: the
//     JDK's ReentrantReadWriteLock makes a new reader wait behind a writer
//     queued first, so a third thread wanting the write lock at that
//     moment can still close it; the rule is the issue's.)

// PotentialDeadlock is a cycle of the lock-order graph: Edges[i] goes from
// the lock Edges[i-1] wanted (the last's for the first) to the one it wanted.
type PotentialDeadlock struct {
	Edges []OrderEdge
}

// OrderEdge is one edge of a potential deadlock, as one thread made it.
type OrderEdge struct {
	Thread format.ThreadID
	At     format.Time // its first contended enter that made it
	Count  int         // how many of its contended enters made it
	// Held and Wanted: the monitors of that first enter (when the edge's
	// node is a class and site, the one instance seen there).
	Held, Wanted           format.ObjectID
	HeldClass, WantedClass string
	// HeldBySite, WantedBySite: the node is the lock's class and site, not
	// the instance (a lock seen in one contended nesting only).
	HeldBySite, WantedBySite bool
	// HeldStack: where the thread held the first lock (the enter's stack
	// from the frame that took it outwards; nil when not known);
	// WantedStack: where it wanted the second.
	HeldStack []format.Frame
	// HeldNote: why HeldStack is nil (model.HeldStackNote); "" when not.
	HeldNote    string
	WantedStack model.StackID
	// HeldMode, WantedMode: ModeNone for a monitor; how the thread held
	// or wanted a j.u.c. lock (ModeShared: a read lock).
	HeldMode, WantedMode format.AcquireMode
}

// orderNode is a node of the graph: an instance, or a class and site.
type orderNode struct {
	obj    format.ObjectID
	class  string
	method format.MethodID
	nth    int // the monitors its method's frame took before it
}

// orderKey is an edge of the graph.
type orderKey struct{ from, to orderNode }

// orderUse is one thread's way of making an edge: the first of its
// enters that made it, with the other monitors it held (the gates).
type orderUse struct {
	thread format.ThreadID
	order  *model.LockOrder
	held   int // index in order.Held
	gates  []format.ObjectID
	shared []format.ObjectID // of gates, those held shared (read locks)
	count  int
	from   orderNode
	to     orderNode
}

// Limits of the search: cycles longer than maxCycle locks, and cycles
// past maxCycles, are not looked for (a deadlock of five threads is rare,
// and the search of every cycle is exponential); a cycle's choice of one
// use per edge stops after maxChoices tries.
const (
	maxCycle   = 4
	maxCycles  = 1000
	maxChoices = 10000
)

// PotentialDeadlocks returns the lock-order graph's cycles that could
// deadlock, in order of their first edge's time.
func PotentialDeadlocks(m *model.Model) []PotentialDeadlock {
	if len(m.LockOrders) == 0 {
		return nil
	}
	seen := map[format.ObjectID]int{}
	for i := range m.LockOrders {
		o := &m.LockOrders[i]
		seen[o.Wanted]++
		for _, h := range o.Held {
			seen[h.Object]++
		}
	}
	// A short-lived lock's site is the method that took it (or wants it)
	// and how many monitors that method's frame had taken before it: the
	// line that took a held one is not recorded (its frame is at the line
	// it had reached), and HotSpot lists a frame's monitors in the order
	// it took them.
	node := func(obj format.ObjectID, class string, stack []format.Frame, nth int) orderNode {
		if seen[obj] > 1 || len(stack) == 0 {
			return orderNode{obj: obj}
		}
		return orderNode{class: class, method: stack[0].Method, nth: nth}
	}
	uses := map[orderKey][]*orderUse{}
	var keys []orderKey
	for i := range m.LockOrders {
		o := &m.LockOrders[i]
		inFrame := map[int]int{} // per depth, the held monitors listed so far
		nth := make([]int, len(o.Held))
		for j, h := range o.Held {
			nth[j] = inFrame[h.Depth]
			inFrame[h.Depth]++
		}
		to := node(o.Wanted, o.Class, m.Stacks[o.Stack], inFrame[0])
		for j, h := range o.Held {
			if h.Object == o.Wanted {
				continue
			}
			from := node(h.Object, h.Class, m.HeldStack(o, h), nth[j])
			if from == to {
				continue
			}
			var gates, shared []format.ObjectID
			for k, g := range o.Held {
				if k != j && g.Object != h.Object {
					gates = append(gates, g.Object)
					if g.Mode == format.ModeShared {
						shared = append(shared, g.Object)
					}
				}
			}
			slices.Sort(gates)
			gates = slices.Compact(gates)
			slices.Sort(shared)
			shared = slices.Compact(shared)
			k := orderKey{from, to}
			us, found := uses[k]
			if !found {
				keys = append(keys, k)
			}
			dup := false
			for _, u := range us {
				if u.thread == o.Thread && slices.Equal(u.gates, gates) && slices.Equal(u.shared, shared) &&
					u.order.Held[u.held].Mode == h.Mode && u.order.Mode == o.Mode {
					u.count += o.Count
					dup = true
					break
				}
			}
			if !dup {
				uses[k] = append(us, &orderUse{thread: o.Thread, order: o, held: j, gates: gates, shared: shared, count: o.Count, from: from, to: to})
			}
		}
	}
	// The nodes, numbered in order of first sight, and their edges.
	index := map[orderNode]int{}
	var adj [][]int
	num := func(n orderNode) int {
		i, ok := index[n]
		if !ok {
			i = len(adj)
			index[n] = i
			adj = append(adj, nil)
		}
		return i
	}
	edge := map[[2]int]orderKey{}
	for _, k := range keys {
		f, t := num(k.from), num(k.to)
		adj[f] = append(adj[f], t)
		edge[[2]int{f, t}] = k
	}
	var out []PotentialDeadlock
	for _, cyc := range cycles(adj) {
		ks := make([]orderKey, len(cyc))
		for i := range cyc {
			ks[i] = edge[[2]int{cyc[i], cyc[(i+1)%len(cyc)]}]
		}
		chosen := choose(ks, uses)
		if chosen == nil {
			continue
		}
		var d PotentialDeadlock
		for _, u := range chosen {
			o := u.order
			h := o.Held[u.held]
			d.Edges = append(d.Edges, OrderEdge{Thread: u.thread, At: o.At, Count: u.count, Held: h.Object, Wanted: o.Wanted,
				HeldClass: h.Class, WantedClass: o.Class, HeldBySite: u.from.obj == 0, WantedBySite: u.to.obj == 0,
				HeldStack: m.HeldStack(o, h), HeldNote: m.HeldStackNote(o, h), WantedStack: o.Stack, HeldMode: h.Mode, WantedMode: o.Mode})
		}
		// The edge first made first, the cycle's order kept.
		first := 0
		for i, e := range d.Edges {
			if e.At < d.Edges[first].At {
				first = i
			}
		}
		d.Edges = append(d.Edges[first:], d.Edges[:first]...)
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Edges[0].At < out[j].Edges[0].At })
	return out
}

// cycles returns the graph's simple cycles of at most maxCycle nodes (at
// most maxCycles of them), each once: from its smallest node, through
// larger ones only.
func cycles(adj [][]int) [][]int {
	var out [][]int
	var path []int
	on := make([]bool, len(adj))
	var walk func(s, v int)
	walk = func(s, v int) {
		for _, w := range adj[v] {
			if len(out) >= maxCycles {
				return
			}
			switch {
			case w == s:
				out = append(out, slices.Clone(path))
			case w > s && !on[w] && len(path) < maxCycle:
				on[w] = true
				path = append(path, w)
				walk(s, w)
				path = path[:len(path)-1]
				on[w] = false
			}
		}
	}
	for s := range adj {
		path = append(path[:0], s)
		on[s] = true
		walk(s, s)
		on[s] = false
	}
	return out
}

// choose picks one use for each edge of a cycle such that the threads
// differ, no gate lock is common to all and no link is read-read; nil when
// there is none (within maxChoices tries).
func choose(ks []orderKey, uses map[orderKey][]*orderUse) []*orderUse {
	pick := make([]*orderUse, len(ks))
	tries := 0
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(ks) {
			return !gated(pick) && !readRead(pick)
		}
		for _, u := range uses[ks[i]] {
			if tries++; tries > maxChoices {
				return false
			}
			if slices.ContainsFunc(pick[:i], func(p *orderUse) bool { return p.thread == u.thread }) {
				continue
			}
			pick[i] = u
			if try(i + 1) {
				return true
			}
		}
		return false
	}
	if !try(0) {
		return nil
	}
	return pick
}

// gated reports whether a lock was held by every use as it made its edge,
// by at most one of them shared: two threads inside a gate each holding it
// as a read lock are in it at once.
func gated(us []*orderUse) bool {
	common := us[0].gates
	for _, u := range us[1:] {
		var both []format.ObjectID
		for _, g := range common {
			if _, ok := slices.BinarySearch(u.gates, g); ok {
				both = append(both, g)
			}
		}
		common = both
	}
	for _, g := range common {
		shared := 0
		for _, u := range us {
			if _, ok := slices.BinarySearch(u.shared, g); ok {
				shared++
			}
		}
		if shared <= 1 {
			return true
		}
	}
	return false
}

// readRead reports whether a use of a cycle wanted shared the lock the
// next use held shared (a read lock where a read lock is held): it would
// not wait, so the cycle cannot close.
func readRead(us []*orderUse) bool {
	for i, u := range us {
		next := us[(i+1)%len(us)]
		if u.order.Mode == format.ModeShared && next.order.Held[next.held].Mode == format.ModeShared {
			return true
		}
	}
	return false
}
