package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
)

// What orca threads prints: the snapshot's threads, its deadlocks and wait
// chains, decided from the model's wait-for graph at the snapshot's
// instant (model.WaitGraphAt: the edges and the standing cycles, the
// deadlocks the report would name), once, for the text and the JSON.

// nowObject is an object a thread waits on or holds.
type nowObject struct {
	Object string `json:"object"`
	Class  string `json:"class,omitempty"`
	// Kind: monitor, juc_lock (a java.util.concurrent lock's synchronizer),
	// blocker (another park blocker), semaphore.
	Kind string `json:"kind"`
}

// nowThread is one thread at the snapshot.
type nowThread struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Virtual bool   `json:"virtual,omitempty"`
	// State: runnable, in_native, blocked (entering a monitor), waiting
	// (Object.wait), parked, idle (a pool's worker parked for work),
	// sleeping, joining, acquiring (Semaphore.acquire).
	State    string      `json:"state"`
	WaitsOn  *nowObject  `json:"waits_on,omitempty"`
	WaitsFor *nowRef     `json:"waits_for,omitempty"` // the thread holding it, when known
	Holds    []nowObject `json:"holds,omitempty"`
	Stack    []string    `json:"stack"`

	stack model.StackID
	iv    *model.Interval // its state at the snapshot, nil when runnable
	tid   format.ThreadID
	waits model.Wait // State 0 (Runnable): not in the graph
	forID format.ThreadID
}

// nowRef names a thread.
type nowRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// nowDeadlock is a cycle of the wait-for graph.
type nowDeadlock struct {
	// Kind: monitor (every thread blocked on a monitor), juc (every one
	// parked on a j.u.c. lock), mixed.
	Kind    string       `json:"kind"`
	Threads []*nowThread `json:"threads"` // each waits for the next, the last for the first
	Behind  []nowRef     `json:"behind"`  // the other threads that wait, directly or not, for one of them
}

// nowChain is a thread others wait behind, directly or through other
// waiting threads, that waits for no thread itself (issue 36's chains).
type nowChain struct {
	Root      string   `json:"root"`
	RootName  string   `json:"root_name"`
	RootState string   `json:"root_state"`
	Threads   []nowRef `json:"threads"` // behind it, nearest first
	// Links: the chain's steps, each a lock (or a join: no object) and
	// its holder with how many threads wait on it for that holder, in the
	// order first met.
	Links []nowLink `json:"links"`

	links map[nowLinkKey]int
	// released: of Threads, those whose step into the root was a lock the
	// root had released; more than half of them: RootState "released".
	released int
}

type nowLink struct {
	On      nowObject `json:"on"`
	For     nowRef    `json:"for"`
	Threads int       `json:"threads"`
}

type nowLinkKey struct {
	on     string
	holder format.ThreadID
}

// nowGroup is virtual threads doing the same: same state, same object
// and holder, same stack.
type nowGroup struct {
	Count int    `json:"count"`
	State string `json:"state"`
	// What they wait on and the thread that holds it, as nowThread's.
	WaitsOn  *nowObject `json:"waits_on,omitempty"`
	WaitsFor *nowRef    `json:"waits_for,omitempty"`
	Stack    []string   `json:"stack"`
	Threads  []nowRef   `json:"threads"` // each one's id and name
}

// threadsView is the whole answer.
type threadsView struct {
	PID       int           `json:"pid"`
	Command   string        `json:"command"`
	Java      string        `json:"java_version,omitempty"`
	Threads   int           `json:"threads"`
	Platform  int           `json:"platform"`
	Virtual   int           `json:"virtual"`
	TookS     float64       `json:"took_s"`   // the command's time, attach to model
	AgentMS   string        `json:"agent_ms"` // the agent's in the JVM (its Attach Listener thread), ms
	Deadlocks []nowDeadlock `json:"deadlocks"`
	Chains    []nowChain    `json:"chains"`
	List      []*nowThread  `json:"platform_threads"`
	Groups    []*nowGroup   `json:"virtual_threads"`
	// Unseen: virtual threads the agent could not look at, and why (.info).
	Skipped int64 `json:"virtual_skipped,omitempty"`
	// Unread: platform threads listed blocked entering a monitor or in
	// Object.wait whose monitor could not be read then (they had left
	// it: a timed wait of 1 ms under load): shown runnable, with the
	// stack they were listed with (.info monitor_unread_at_attach).
	Unread int64 `json:"monitor_unread,omitempty"`
	// Dropped: records the agent could not write (.info dropped_total):
	// the snapshot misses threads or states.
	Dropped int64  `json:"dropped,omitempty"`
	Unseen  string `json:"virtual_unseen,omitempty"`
}

func newThreadsView(s *snapshot) *threadsView {
	m := s.m
	v := &threadsView{PID: s.pid, Command: s.command, Java: s.rec.Info[format.InfoJavaVersion], TookS: s.took.Seconds(),
		AgentMS:   s.agentMS,
		Deadlocks: []nowDeadlock{}, Chains: []nowChain{}, List: []*nowThread{}, Groups: []*nowGroup{}}
	v.Skipped, _ = s.rec.Info.Int(format.InfoVirtualSkipped)
	v.Unread, _ = s.rec.Info.Int(format.InfoUnreadAtAttach)
	v.Unseen = s.rec.Info[format.InfoVirtualUnseen]
	v.Dropped, _ = s.rec.Info.Int(format.InfoDroppedTotal)
	at := m.End
	g := m.WaitGraphAt(at)
	// Sized at once, and what many threads share made once and pointed to
	// by all (100 000 virtual threads parked on one lock: one object, one
	// holder).
	stacks := map[model.StackID][]string{}
	resolve := func(id model.StackID) []string {
		if f, ok := stacks[id]; ok {
			return f
		}
		out := []string{}
		if int(id) < len(m.Stacks) {
			for _, fr := range m.Stacks[id] {
				out = append(out, s.rec.Resolve(fr))
			}
		}
		stacks[id] = out
		return out
	}
	type objectKey struct {
		o    format.ObjectID
		kind model.LockKind
	}
	objects := map[objectKey]*nowObject{}
	object := func(o format.ObjectID, kind model.LockKind) *nowObject {
		k := objectKey{o, kind}
		if no := objects[k]; no != nil {
			return no
		}
		no := &nowObject{Object: o.String(), Class: m.ClassName(o), Kind: lockKinds[kind]}
		objects[k] = no
		return no
	}
	// The live threads' entries in one allocation (100 000 threads: one
	// slab, not 100 000 objects for the collector to find), in the order
	// of the Model's threads (by start, then id) with the virtual threads
	// the fold left out (s.collapsed: each in its place by its start,
	// which is the thread's it repeats, and its id).
	type entry struct {
		t  *model.Thread
		id format.ThreadID
		c  *model.Collapsed // a thread left out; t is the one it repeats
	}
	extra := make([]entry, 0, len(s.collapsed))
	var rep *model.Thread
	for i := range s.collapsed {
		c := &s.collapsed[i]
		if rep == nil || rep.ID != c.Rep {
			rep = m.Thread(c.Rep)
		}
		if rep != nil && !rep.Ended {
			extra = append(extra, entry{rep, c.ID, c})
		}
	}
	byStart := func(a, b entry) int { return cmp.Or(cmp.Compare(a.t.Start, b.t.Start), cmp.Compare(a.id, b.id)) }
	slices.SortFunc(extra, byStart)
	live := len(extra)
	for _, t := range m.Threads {
		if !t.Ended {
			live++
		}
	}
	seq := make([]entry, 0, live)
	for _, t := range m.Threads {
		if t.Ended {
			continue
		}
		e := entry{t: t, id: t.ID}
		for len(extra) > 0 && byStart(extra[0], e) < 0 {
			seq, extra = append(seq, extra[0]), extra[1:]
		}
		seq = append(seq, e)
	}
	seq = append(seq, extra...)
	// all: each live thread's entry, in that order; for a thread left out,
	// the entry of the one it repeats (what it does is that one's: no
	// thread waits for it, it holds nothing: model.Collapsed). self: each
	// one's own id and name, tids its id.
	slab := make([]nowThread, live-len(s.collapsed))
	byID := make(map[format.ThreadID]*nowThread, len(slab))
	all := make([]*nowThread, 0, live)
	self := make([]nowRef, 0, live)
	tids := make([]format.ThreadID, 0, live)
	n := 0
	for _, e := range seq {
		t := e.t
		tids = append(tids, e.id)
		if e.c != nil {
			all = append(all, nil) // the one it repeats', once made
			self = append(self, nowRef{e.id.String(), e.c.Name})
			continue
		}
		nt := &slab[n]
		n++
		all = append(all, nt)
		*nt = nowThread{ID: t.ID.String(), Name: t.Name, Virtual: t.Virtual, tid: t.ID}
		self = append(self, nowRef{nt.ID, nt.Name})
		if k := t.IntervalAt(at); k >= 0 {
			iv := &t.Intervals[k]
			nt.State, nt.stack, nt.iv = iv.State.String(), iv.Stack, iv
		} else {
			nt.State = "runnable"
			if n := len(t.Samples); n > 0 {
				nt.stack = t.Samples[n-1].Stack
				if t.Samples[n-1].Kind == format.SampleWall {
					nt.State = "in_native"
				}
			}
		}
		nt.Stack = resolve(nt.stack)
		byID[t.ID] = nt
	}
	for i, e := range seq {
		if e.c != nil {
			all[i] = byID[e.c.Rep]
		}
	}
	// What each waits on and for, from the graph (a thread is in it once).
	for _, w := range g.Waits {
		nt := byID[w.Thread]
		if nt == nil {
			continue
		}
		nt.waits = w
		if w.Object != 0 {
			nt.WaitsOn = object(w.Object, w.Kind)
		}
		nt.forID = w.For
	}
	ref := func(id format.ThreadID) nowRef {
		if t := byID[id]; t != nil {
			return nowRef{t.ID, t.Name}
		}
		return nowRef{ID: id.String()}
	}
	holders := map[format.ThreadID]*nowRef{}
	for _, nt := range all {
		// (A thread left out repeats its entry: the same holds, in
		// the order first met.)
		if nt.forID == 0 {
			continue
		}
		if holders[nt.forID] == nil {
			r := ref(nt.forID)
			holders[nt.forID] = &r
		}
		nt.WaitsFor = holders[nt.forID]
		// What a thread waits for on a lock, its owner holds: known only
		// so (HotSpot offers an attached agent no can_get_owned_monitor_info;
		// the agent reads the owner of the locks threads wait on).
		if h := byID[nt.forID]; h != nil && nt.WaitsOn != nil && !slices.ContainsFunc(h.Holds, func(o nowObject) bool { return o.Object == nt.WaitsOn.Object }) {
			h.Holds = append(h.Holds, *nt.WaitsOn)
		}
	}

	// Deadlocks: the cycles standing at the snapshot.
	reported := analysis.Reported(m)
	inCycle := map[format.ThreadID]int{}
	for _, c := range g.Cycles {
		if reported[c.Deadlock] < 0 {
			continue
		}
		d := nowDeadlock{Behind: []nowRef{}}
		blocked, parked := 0, 0
		for _, id := range c.Threads {
			nt := byID[id]
			if nt == nil {
				nt = &nowThread{ID: id.String(), tid: id}
			}
			d.Threads = append(d.Threads, nt)
			inCycle[id] = len(v.Deadlocks) + 1
			switch nt.waits.Kind {
			case model.Monitor:
				blocked++
			case model.JUCLock:
				parked++
			}
		}
		switch {
		case blocked == len(c.Threads):
			d.Kind = "monitor"
		case parked == len(c.Threads):
			d.Kind = "juc"
		default:
			d.Kind = "mixed"
		}
		v.Deadlocks = append(v.Deadlocks, d)
	}

	// Chains: follow each waiting thread's waits-for to a thread that waits
	// for nobody (its root) or into a cycle (behind that deadlock).
	// First each waiting thread's root, counted, so that each chain's list
	// of threads is made at its size (100 000 behind one root).
	// A thread blocked on a lock its root had released (the root in
	// Object.wait on that monitor, parked in Condition.await on a
	// condition of that j.u.c. lock: model.Model.Releases, the report's
	// rule) is behind a root in state "released" (released[i]).
	rootOf := make([]format.ThreadID, len(all))
	released := make([]bool, len(all))
	behind := map[format.ThreadID]int{}
	for i, nt := range all {
		if nt.forID == 0 || inCycle[tids[i]] > 0 {
			continue
		}
		// At most one step a thread: a cycle not reported (none stands
		// at a snapshot: analysis.IsDeadlock) ends the walk anywhere.
		u, last := nt.forID, nt
		for steps := 0; steps < len(all); steps++ {
			next := byID[u]
			if next == nil || next.forID == 0 || inCycle[u] > 0 || u == tids[i] {
				break
			}
			u, last = next.forID, next
		}
		rootOf[i] = u
		behind[u]++
		if r := byID[u]; r != nil && r.iv != nil && last.iv != nil && inCycle[u] == 0 {
			ref := model.LockRef{Object: last.waits.Object, Kind: last.waits.Kind}
			released[i] = (ref.Kind == model.Monitor || ref.Kind == model.JUCLock) && m.Releases(r.iv, ref)
		}
	}
	roots := map[format.ThreadID]*nowChain{}
	var order []format.ThreadID
	for i, nt := range all {
		u := rootOf[i]
		if u == 0 {
			continue
		}
		if k := inCycle[u]; k > 0 {
			v.Deadlocks[k-1].Behind = append(v.Deadlocks[k-1].Behind, self[i])
			continue
		}
		c := roots[u]
		if c == nil {
			r := byID[u]
			c = &nowChain{Root: ref(u).ID, RootName: ref(u).Name, Threads: make([]nowRef, 0, behind[u]), Links: []nowLink{},
				links: map[nowLinkKey]int{}}
			if r != nil {
				c.RootState = r.State
			}
			roots[u] = c
			order = append(order, u)
		}
		c.Threads = append(c.Threads, self[i])
		if released[i] {
			c.released++
		}
		var on nowObject
		if nt.WaitsOn != nil {
			on = *nt.WaitsOn
		}
		k := nowLinkKey{on.Object, nt.forID}
		i, ok := c.links[k]
		if !ok {
			i = len(c.Links)
			c.links[k] = i
			c.Links = append(c.Links, nowLink{On: on, For: ref(nt.forID)})
		}
		c.Links[i].Threads++
	}
	for _, u := range order {
		c := roots[u]
		if 2*c.released > len(c.Threads) {
			c.RootState = "released"
		}
		v.Chains = append(v.Chains, *c)
	}
	slices.SortStableFunc(v.Chains, func(a, b nowChain) int { return cmp.Compare(len(b.Threads), len(a.Threads)) })

	// Platform threads one by one; virtual ones grouped.
	type key struct {
		state, on, forID string
		stack            model.StackID
	}
	// Counted first, then each group's list made at its size.
	groups := map[key]*nowGroup{}
	groupOf := make([]*nowGroup, len(all))
	for i, nt := range all {
		v.Threads++
		if !nt.Virtual {
			v.Platform++
			v.List = append(v.List, nt)
			continue
		}
		v.Virtual++
		k := key{state: nt.State, stack: nt.stack}
		if nt.WaitsOn != nil {
			k.on = nt.WaitsOn.Object
		}
		if nt.WaitsFor != nil {
			k.forID = nt.WaitsFor.ID
		}
		gr := groups[k]
		if gr == nil {
			gr = &nowGroup{State: nt.State, WaitsOn: nt.WaitsOn, WaitsFor: nt.WaitsFor, Stack: nt.Stack}
			groups[k] = gr
			v.Groups = append(v.Groups, gr)
		}
		gr.Count++
		groupOf[i] = gr
	}
	for i := range all {
		if gr := groupOf[i]; gr != nil {
			if gr.Threads == nil {
				gr.Threads = make([]nowRef, 0, gr.Count)
			}
			gr.Threads = append(gr.Threads, self[i])
		}
	}
	slices.SortStableFunc(v.List, func(a, b *nowThread) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID)) })
	slices.SortStableFunc(v.Groups, func(a, b *nowGroup) int { return cmp.Compare(b.Count, a.Count) })
	return v
}

// lockKinds names model.LockKinds as nowObject.Kind does.
var lockKinds = map[model.LockKind]string{model.Monitor: "monitor", model.JUCLock: "juc_lock", model.Blocker: "blocker", model.Semaphore: "semaphore"}

// describe says what a thread does, in one line: its state, what it
// waits on and who holds that.
func describe(state string, on *nowObject, holder *nowRef) string {
	s := state
	switch state {
	case "blocked":
		s = "blocked entering"
	case "waiting":
		s = "waiting (Object.wait) on"
	case "parked", "idle":
		s = state + " on"
	case "acquiring":
		s = "acquiring"
	}
	if on == nil {
		if state == "parked" || state == "idle" {
			return state
		}
		return s
	}
	s += " " + objectText(*on)
	if holder != nil {
		s += fmt.Sprintf(" held by %q", holder.Name)
	}
	return s
}

func objectText(o nowObject) string {
	kind := map[string]string{"monitor": "monitor", "juc_lock": "lock", "blocker": "", "semaphore": "semaphore"}[o.Kind]
	c := o.Class
	if c == "" {
		c = "?"
	}
	if kind == "" {
		return c + "@" + o.Object
	}
	return kind + " " + c + "@" + o.Object
}

func (v *threadsView) writeText(w io.Writer) error {
	// A line break in a string argument (a frame's class, method or file
	// name, an object's class, the command line: the JVM's words) is shown
	// as \n, as the thread names quoted %q and the JSON show it: it began a
	// line of its own (TestNewlineNames). The text's own are in format.
	p := func(format string, a ...any) {
		for i, x := range a {
			if s, ok := x.(string); ok && strings.Contains(s, "\n") {
				a[i] = strings.ReplaceAll(s, "\n", `\n`)
			}
		}
		fmt.Fprintf(w, format, a...)
	}
	java := ""
	if v.Java != "" {
		java = ", Java " + v.Java
	}
	p("orca threads: pid %d (%s%s): %d threads (%d platform, %d virtual), snapshot in %.0f ms\n",
		v.PID, v.Command, java, v.Threads, v.Platform, v.Virtual, v.TookS*1000)
	if v.Skipped > 0 {
		p("(%d virtual threads blocked on a monitor or in Object.wait, unmounted, are counted but their state is not known)\n", v.Skipped)
	}
	if v.Unread > 0 {
		p("(%d %s listed blocked on a monitor or in Object.wait whose monitor could not be read (left by then, or the read failed): shown runnable, with the stack %s listed with)\n",
			v.Unread, plural(int(v.Unread), "thread", "threads"), plural(int(v.Unread), "it was", "they were"))
	}
	if v.Dropped > 0 {
		p("(INCOMPLETE: the agent could not write %d records of the snapshot: some threads or states are missing)\n", v.Dropped)
	}
	if v.Unseen != "" {
		p("(not every virtual thread could be looked at: %s)\n", v.Unseen)
	}
	p("\n")
	if len(v.Deadlocks) == 0 {
		p("No deadlock.\n\n")
	}
	for i, d := range v.Deadlocks {
		names := make([]string, len(d.Threads))
		for k, t := range d.Threads {
			names[k] = fmt.Sprintf("%q", t.Name)
		}
		p("DEADLOCK #%d (%s): %s\n", i+1, map[string]string{"monitor": "monitors", "juc": "j.u.c. locks", "mixed": "monitors and j.u.c. locks"}[d.Kind],
			strings.Join(names, ", "))
		for _, t := range d.Threads {
			p("  deadlock #%d: %q %s\n", i+1, t.Name, describe(t.State, t.WaitsOn, t.WaitsFor))
			for _, f := range t.Stack {
				p("      at %s\n", f)
			}
		}
		if len(d.Behind) > 0 {
			p("  behind deadlock #%d: %d threads: %s\n", i+1, len(d.Behind), refNames(d.Behind, 10))
		}
		p("\n")
	}
	if len(v.Chains) > 0 {
		p("WAIT CHAINS (threads others wait behind)\n")
		for _, c := range v.Chains {
			p("  %q (%s): %d threads behind it: %s\n", c.RootName, c.RootState, len(c.Threads), refNames(c.Threads, 10))
			for _, l := range c.Links {
				if l.On.Object == "" {
					p("    %d waiting for %q to end\n", l.Threads, l.For.Name)
					continue
				}
				p("    %d waiting on %s held by %q\n", l.Threads, objectText(l.On), l.For.Name)
			}
		}
		p("\n")
	}
	p("THREADS\n")
	for _, t := range v.List {
		p("%q %s %s\n", t.Name, t.ID, describe(t.State, t.WaitsOn, t.WaitsFor))
		for _, f := range t.Stack {
			p("    at %s\n", f)
		}
		for _, o := range t.Holds {
			p("    - holds %s\n", objectText(o))
		}
		p("\n")
	}
	if len(v.Groups) > 0 {
		p("VIRTUAL THREADS (%d, in %d groups by state and stack)\n", v.Virtual, len(v.Groups))
		for _, g := range v.Groups {
			p("%d virtual threads %s: %s\n", g.Count, describe(g.State, g.WaitsOn, g.WaitsFor), refNames(g.Threads, 5))
			for _, f := range g.Stack {
				p("    at %s\n", f)
			}
			p("\n")
		}
	}
	return nil
}

// refNames lists at most n threads' names, and how many more.
func refNames(rs []nowRef, n int) string {
	var out []string
	for i, r := range rs {
		if i == n {
			out = append(out, fmt.Sprintf("… %d more", len(rs)-n))
			break
		}
		out = append(out, fmt.Sprintf("%q", r.Name))
	}
	return strings.Join(out, ", ")
}
