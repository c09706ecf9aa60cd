package model

import (
	"encoding/binary"
	"errors"

	"orca/internal/format"
	"orca/internal/reader"
)

// Options.Collapse: a snapshot of 100 000 virtual threads parked on one
// lock at one stack (orca threads) is 100 000 runs of the same events but
// for the thread's id and name. The fold takes the first run of each kind
// and leaves the others out (Result.Collapsed names each with the thread
// whose run it repeats), so that the Model has a few threads, not 100 000
// fold states and Threads (a kilobyte each, most of orca threads' time).
//
// What the fold of the whole file would say of each thread left out is
// what it says of the thread it repeats, and the rest of the Model is the
// same, as long as
//   - its events are one run (no other thread's event between them), the
//     run of a virtual thread (it has a VirtualThreadMounted) that starts
//     with its ThreadStarted;
//   - every field of every event of it is the run's it repeats but the
//     thread and its ThreadStarted's name (the times too: the fold of an
//     event is the same at the same time);
//   - no event names it (an owner, a target, an object with its identity
//     hash): nothing waits for it, it is in no cycle, it holds nothing.
// A run that breaks the first or a thread left out that breaks the third
// makes Build fold the whole file again, without leaving any out.

// Collapsed is a virtual thread Options.Collapse left out of the Model:
// its events were Rep's but for its id and name.
type Collapsed struct {
	ID   format.ThreadID
	Name string
	Rep  format.ThreadID
}

// errCollapse: the file breaks a condition of Options.Collapse.
var errCollapse = errors.New("model: a thread left out is named or its events are not one run")

// run states of a thread in collapser.done.
const (
	runFed       = 1 // folded, repeated by no thread left out: later events are folded
	runRep       = 2 // folded, the first of its kind
	runCollapsed = 3 // left out
)

type collapser struct {
	has     bool            // a run is buffered
	cur     format.ThreadID // its thread
	buf     []reader.Event
	done    map[format.ThreadID]uint8
	kinds   map[string]format.ThreadID // a run's key -> the thread folded for it
	repeats map[format.ThreadID]bool   // a folded run some thread repeats
	refs    map[uint32]bool            // the ids events name (owners, targets, objects)
	last    [3]uint32                  // the latest of those added to refs
	key     []byte
	out     []Collapsed
}

// newCollapser: threads is about how many (Options.Threads), 0 unknown.
func newCollapser(threads int) *collapser {
	return &collapser{done: make(map[format.ThreadID]uint8, threads), kinds: map[string]format.ThreadID{},
		repeats: map[format.ThreadID]bool{}, refs: map[uint32]bool{}, out: make([]Collapsed, 0, threads)}
}

// event takes the next event of the file; feed folds one.
func (c *collapser) event(ev *reader.Event, feed func(*reader.Event)) error {
	for i, id := range [3]uint32{uint32(ev.Target), uint32(ev.Owner), uint32(ev.Object)} {
		if id != 0 && id != c.last[i] {
			c.refs[id], c.last[i] = true, id
		}
	}
	if c.has && ev.Thread == c.cur {
		c.buf = append(c.buf, *ev) // its Stack is the table's (EachOptions.Stacks): kept as it is
		return nil
	}
	if c.has {
		c.close(feed)
	}
	switch c.done[ev.Thread] {
	case 0:
		c.has, c.cur = true, ev.Thread
		c.buf = append(c.buf[:0], *ev)
		return nil
	case runFed:
	case runRep:
		if c.repeats[ev.Thread] {
			return errCollapse
		}
		// No thread repeats its run so far, and none may now: it is longer.
		delete(c.kinds, string(c.keyOf(c.buf[:0], ev.Thread)))
		c.done[ev.Thread] = runFed
	default:
		return errCollapse
	}
	feed(ev)
	return nil
}

// finish ends the file: the last run, and whether a thread left out was
// named.
func (c *collapser) finish(feed func(*reader.Event)) error {
	if c.has {
		c.close(feed)
	}
	for _, t := range c.out {
		if c.refs[uint32(t.ID)] {
			return errCollapse
		}
	}
	return nil
}

// close ends the run buffered: folded, or left out when a run folded
// before had the same events.
func (c *collapser) close(feed func(*reader.Event)) {
	c.has = false
	run := c.buf
	virtual := false
	for i := range run {
		if run[i].Kind == format.VirtualThreadMounted {
			virtual = true
		}
	}
	if !virtual || run[0].Kind != format.ThreadStarted {
		c.done[c.cur] = runFed
		c.feed(run, feed)
		return
	}
	c.key = c.keyOf(run, 0)
	if rep, ok := c.kinds[string(c.key)]; ok {
		c.done[c.cur] = runCollapsed
		c.repeats[rep] = true
		c.out = append(c.out, Collapsed{ID: c.cur, Name: run[0].Name, Rep: rep})
		return
	}
	c.kinds[string(c.key)] = c.cur
	c.done[c.cur] = runRep
	c.feed(run, feed)
}

func (c *collapser) feed(run []reader.Event, feed func(*reader.Event)) {
	for i := range run {
		feed(&run[i])
	}
}

// keyOf is run's key: every field of its events but the thread, the line
// and the ThreadStarted's name. With run empty, the key of the run kept
// for the thread rep (c.kinds' key whose value is rep), "" when none.
func (c *collapser) keyOf(run []reader.Event, rep format.ThreadID) []byte {
	if len(run) == 0 {
		for k, t := range c.kinds {
			if t == rep {
				return []byte(k)
			}
		}
		return nil
	}
	k := c.key[:0]
	u := func(v uint64) { k = binary.AppendUvarint(k, v) }
	s := func(v string) { u(uint64(len(v))); k = append(k, v...) }
	for i := range run {
		ev := &run[i]
		u(uint64(ev.Kind))
		u(uint64(ev.Time))
		u(uint64(ev.Target))
		u(uint64(ev.Owner))
		if ev.Kind != format.ThreadStarted {
			s(ev.Name)
		}
		u(uint64(ev.StackID))
		if ev.StackID == 0 {
			// No table number: the frames themselves.
			u(uint64(len(ev.Stack)))
			for _, f := range ev.Stack {
				u(uint64(f.Method))
				u(uint64(f.Location))
			}
		}
		u(uint64(ev.Timeout))
		s(ev.Class)
		u(uint64(ev.Weight))
		u(uint64(ev.CPU))
		u(uint64(ev.Ready))
		u(uint64(ev.Depth))
		u(uint64(ev.Object))
		u(uint64(ev.How))
		u(uint64(ev.Mode))
		u(uint64(ev.Sampled))
		if ev.Carried {
			u(1)
		} else {
			u(0)
		}
	}
	return k
}
