package reader

import (
	"fmt"

	"orca/internal/format"
)

// Columns is a run of events by column (EachOptions.Columns): row i is the
// event an Event would hold, its fields in a few columns of a few bytes
// each, not 152 bytes of one struct (issue 34: the reader's decoding and
// the fold's first reads of each event, docs/streaming.md). Each row has a
// kind, a time, a dense thread number (Threads names it), the object, the
// stack's number in EachOptions.Stacks (Frames holds it), its line, and
// the kind's other fields in Word, Word2 and Aux as the kind's table says
// (wordOf: a thread, a weight, a count of nanoseconds, a text's index in
// Texts; a timeout, a ready time, a depth; a byte's enum, and the Carried
// bit). Event makes a row an Event again.
type Columns struct {
	Kind   []format.Kind
	Time   []format.Time
	Thread []uint32 // Threads[Thread[i]] is the event's thread
	Object []format.ObjectID
	Stack  []uint32 // the stack's number in EachOptions.Stacks, 0 for none
	Word   []uint64 // FTarget, FOwner, FLock, FWeight, FCPU, or a text's index in Texts (FName, FClass)
	Word2  []int64  // FTimeout, FReady, FDepth
	Aux    []uint8  // FHow, FMode, FSampled; auxCarried
	Line   []int
	// Texts holds the rows' names and classes (the rare rows that have
	// one: ThreadStarted, ObjectClass, ClassInitLock), by Word.
	Texts []string
	// Threads are the threads by their dense number: 0, 1, … in order of
	// their first event's row in the file (a thread named only as a
	// target or an owner has none until it has an event of its own), but
	// for a chunk with a malformed record: its threads are numbered as the
	// chunk is read, and those of the rows skipped after the bad one may
	// come before a thread whose rows come first (FuzzCompact's seed 26).
	// Nothing depends on the order. A thread's number is given to another
	// once it has ended (its ThreadEnded delivered, and the chunk's
	// numbers made again: denseThreads.end), so the table is as long as
	// the threads alive at once, not every thread ever seen (1.33 M at
	// 5 GB: the map and table were 58 MB of the report's live heap). A
	// caller that keeps something by number checks it against Threads at
	// each call: Threads[n] is valid during the call.
	Threads []format.ThreadID
	// Frames are the stacks by their number (EachOptions.Stacks.Frames).
	Frames [][]format.Frame
}

// auxCarried, in Aux, is Event.Carried; the kind's byte field is below it.
const auxCarried = 0x80

// Len returns the rows.
func (c *Columns) Len() int { return len(c.Kind) }

// Event sets *ev to row i as an Event (its Stack the table's). It sets
// each field on its own, the texts only where they change (a composite
// literal assigned, the whole Event was built aside and copied over, its
// pointers through the write barrier: most of the view's cost).
func (c *Columns) Event(i int, ev *Event) {
	c.Fields(i, ev)
	ev.Thread, ev.Stack = c.Threads[c.Thread[i]], c.Frames[ev.StackID]
}

// Fields is Event but for ev.Thread and ev.Stack, left as they were: for a
// caller that has the thread by its dense number and the stack by its
// number (model.Build: each a load from a table of a few MB, where the
// thread's and the stack's own state are read anyway).
func (c *Columns) Fields(i int, ev *Event) {
	k := c.Kind[i]
	ev.Kind, ev.Time, ev.Object, ev.Line, ev.StackID = k, c.Time[i], c.Object[i], c.Line[i], c.Stack[i]
	ev.Target, ev.Owner, ev.Weight, ev.CPU = 0, 0, 0, 0
	ev.Timeout, ev.Ready, ev.Depth = 0, 0, 0
	ev.How, ev.Mode, ev.Sampled = 0, 0, 0
	w := &wordOf[k]
	var name, class string
	switch w.word {
	case 0:
	case format.FTarget:
		ev.Target = format.ThreadID(c.Word[i])
	case format.FOwner, format.FLock:
		ev.Owner = format.ThreadID(c.Word[i])
	case format.FWeight:
		ev.Weight = int64(c.Word[i])
	case format.FCPU:
		ev.CPU = int64(c.Word[i])
	case format.FName:
		name = c.Texts[c.Word[i]]
	case format.FClass:
		class = c.Texts[c.Word[i]]
	}
	if name != ev.Name {
		ev.Name = name
	}
	if class != ev.Class {
		ev.Class = class
	}
	switch w.word2 {
	case 0:
	case format.FTimeout:
		ev.Timeout = c.Word2[i]
	case format.FReady:
		ev.Ready = c.Word2[i]
	case format.FDepth:
		ev.Depth = c.Word2[i]
	}
	a := c.Aux[i]
	switch w.aux {
	case 0:
	case format.FHow:
		ev.How = format.ParkEnd(a &^ auxCarried)
	case format.FMode:
		ev.Mode = format.AcquireMode(a &^ auxCarried)
	case format.FSampled:
		ev.Sampled = format.SampleKind(a &^ auxCarried)
	}
	ev.Carried = a&auxCarried != 0
}

// kindWords says which of a kind's fields Columns keeps in Word, Word2 and
// Aux (0: none).
type kindWords struct{ word, word2, aux format.Field }

// wordOf is kindWords by kind, from format.Specs: no kind has two fields
// for one place (init checks).
var wordOf = func() (w [format.NumKinds]kindWords) {
	for k := format.Kind(1); k < format.NumKinds; k++ {
		for _, f := range format.Specs[k].Fields {
			var p *format.Field
			switch f {
			case format.FThread, format.FObject, format.FStack:
				continue
			case format.FTarget, format.FOwner, format.FLock, format.FWeight, format.FCPU, format.FName, format.FClass:
				p = &w[k].word
			case format.FTimeout, format.FReady, format.FDepth:
				p = &w[k].word2
			case format.FHow, format.FMode, format.FSampled:
				p = &w[k].aux
			default:
				panic(fmt.Sprintf("reader: %s's field %d has no place in Columns", k, f))
			}
			if *p != 0 {
				panic(fmt.Sprintf("reader: %s has fields %d and %d for one place in Columns", k, *p, f))
			}
			*p = f
		}
	}
	return w
}()

// grow makes room for n more rows at the end of c's columns (their
// capacity), not adding them.
func (c *Columns) grow(n int) {
	if cap(c.Kind)-len(c.Kind) >= n {
		return
	}
	l := len(c.Kind)
	m := max(l+n, 2*cap(c.Kind))
	c.Kind = append(make([]format.Kind, 0, m), c.Kind...)
	c.Time = append(make([]format.Time, 0, m), c.Time...)
	c.Thread = append(make([]uint32, 0, m), c.Thread...)
	c.Object = append(make([]format.ObjectID, 0, m), c.Object...)
	c.Stack = append(make([]uint32, 0, m), c.Stack...)
	c.Word = append(make([]uint64, 0, m), c.Word...)
	c.Word2 = append(make([]int64, 0, m), c.Word2...)
	c.Aux = append(make([]uint8, 0, m), c.Aux...)
	c.Line = append(make([]int, 0, m), c.Line...)
}

// setLen sets the rows to n (within the capacity).
func (c *Columns) setLen(n int) {
	c.Kind, c.Time, c.Thread, c.Object = c.Kind[:n], c.Time[:n], c.Thread[:n], c.Object[:n]
	c.Stack, c.Word, c.Word2, c.Aux, c.Line = c.Stack[:n], c.Word[:n], c.Word2[:n], c.Aux[:n], c.Line[:n]
}

// reset empties c's rows and texts.
func (c *Columns) reset() {
	c.setLen(0)
	clear(c.Texts) // let go of the strings
	c.Texts = c.Texts[:0]
}

// slice returns rows [i, j) of c in *s (the texts, threads and frames
// shared).
func (c *Columns) slice(i, j int, s *Columns) {
	*s = Columns{Kind: c.Kind[i:j], Time: c.Time[i:j], Thread: c.Thread[i:j], Object: c.Object[i:j],
		Stack: c.Stack[i:j], Word: c.Word[i:j], Word2: c.Word2[i:j], Aux: c.Aux[i:j], Line: c.Line[i:j],
		Texts: c.Texts, Threads: c.Threads, Frames: c.Frames}
}

// add appends ev as a row, its thread numbered th and its stack
// ev.StackID.
func (c *Columns) add(ev *Event, th uint32) {
	c.grow(1)
	n := len(c.Kind)
	c.setLen(n + 1)
	c.Kind[n], c.Time[n], c.Thread[n], c.Object[n], c.Stack[n], c.Line[n] = ev.Kind, ev.Time, th, ev.Object, ev.StackID, ev.Line
	var word uint64
	var word2 int64
	var aux uint8
	w := &wordOf[ev.Kind]
	switch w.word {
	case format.FTarget:
		word = uint64(ev.Target)
	case format.FOwner, format.FLock:
		word = uint64(ev.Owner)
	case format.FWeight:
		word = uint64(ev.Weight)
	case format.FCPU:
		word = uint64(ev.CPU)
	case format.FName:
		word = uint64(len(c.Texts))
		c.Texts = append(c.Texts, ev.Name)
	case format.FClass:
		word = uint64(len(c.Texts))
		c.Texts = append(c.Texts, ev.Class)
	}
	switch w.word2 {
	case format.FTimeout:
		word2 = ev.Timeout
	case format.FReady:
		word2 = ev.Ready
	case format.FDepth:
		word2 = ev.Depth
	}
	switch w.aux {
	case format.FHow:
		aux = uint8(ev.How)
	case format.FMode:
		aux = uint8(ev.Mode)
	case format.FSampled:
		aux = uint8(ev.Sampled)
	}
	if ev.Carried {
		aux |= auxCarried
	}
	c.Word[n], c.Word2[n], c.Aux[n] = word, word2, aux
}

// chunkThreads numbers the threads of one chunk's events (a piece of
// parallelPieces', a batch of parse's), 0, 1, … in order of their first
// event there: EachEvent's delivery makes them the file's dense numbers,
// looking each up once a chunk.
type chunkThreads struct {
	ids []format.ThreadID // by number
	num map[format.ThreadID]uint32
}

// reset empties t.
func (t *chunkThreads) reset() {
	t.ids = t.ids[:0:0] // a piece in flight may still read the old array
	clear(t.num)
}

// number returns id's number, numbering it when new.
func (t *chunkThreads) number(id format.ThreadID) uint32 {
	if n, ok := t.num[id]; ok {
		return n
	}
	if t.num == nil {
		t.num = map[format.ThreadID]uint32{}
	}
	n := uint32(len(t.ids))
	t.ids = append(t.ids, id)
	t.num[id] = n
	return n
}
