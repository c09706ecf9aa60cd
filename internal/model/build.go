package model

import (
	"math"

	"orca/internal/format"
	"orca/internal/reader"
)

// Options control Build.
type Options struct {
	// Progress, if set, is called now and then with the events folded so
	// far and the bytes read of the .orca file.
	Progress func(events int, bytes int64)
	// Workers is the number of goroutines decoding the .orca file while
	// the fold runs; 0 means GOMAXPROCS (see reader.EachOptions).
	Workers int
	// Span, if set, folds only the events of a time range
	// (reader.Recording.Span): the state at its start is restated there,
	// as a bounded recording's at its oldest chunk kept, and a state
	// still on at its end lasts to it, as in a recording stopped then.
	Span *reader.Span
	// NoEdges keeps only the count of the edges by kind (Model.EdgeCounts),
	// not the edges themselves (a fifth of the model's memory): for orca
	// report without --thread, which prints the counts alone.
	NoEdges bool
	// NoLockFigures leaves the locks' figures (Lock's counts and times,
	// Owners, Groups: the aggregation, a fifth of a build) unset, for a
	// reader of the threads' intervals, the locks' owner changes
	// (BlameSpans) and samples alone: export.OTLP of a push (cmd/orca's
	// pushloop). Nor are the stacks grouped by call site (SiteStack: each
	// stack is its own), nor the lock order (LockOrders), the hold times
	// or the notifyAll bursts (Lock.MaxNotifyAllBurst) made.
	NoLockFigures bool
	// NoRunSplit leaves each thread's runnable time unsplit between
	// running and ready (Thread.Run zero: the windows between its
	// ThreadCPU lines are not split as the fold goes), for a reader of the
	// intervals and samples alone: export.OTLP of a push.
	NoRunSplit bool
	// NoThreadTimes, with NoLockFigures and without Spill, leaves each
	// thread's time in each state (Thread.Time) and StackMarks unset, and
	// Model.Shutdown found from the threads' names and starts alone: the
	// fold does not walk the intervals a second time as it seals them
	// (a read of each back from memory: 2 % of a push's CPU), for a reader
	// of the intervals and samples alone: export.OTLP of a push.
	NoThreadTimes bool
	// NoWaitGraph leaves the wait-for graph unkept: Model.Deadlocks,
	// WaitGraphAt and the spans of late entries are empty or partial, for
	// a reader of the intervals and samples alone: export.OTLP of a push
	// (the graph's upkeep at each change of a thread's wait was ~2 % of a
	// push's CPU). The intervals are the same.
	NoWaitGraph bool
	// NoParkLocks, with NoLockFigures and Reuse, keeps no Lock of a park's
	// blocker nor of a j.u.c. lock a park acquires (Model.Lock nil for
	// them, none in Model.Locks): without the figures nothing reads them
	// (their hold times and conditions are the figures'), and a busy
	// server's push parks on thousands of objects once (a request's
	// future), a Lock and its fold state of 768 bytes cleared for each.
	// Their classes are kept (Model.Class, Object). For a reader of the
	// intervals and samples alone: export.OTLP of a push.
	NoParkLocks bool
	// Spill writes the threads' intervals, as the fold seals them, and
	// their samples to a private temporary file (in SpillDir, "" for
	// os.TempDir()), unlinked at once, from which View.HoldersDoing reads
	// each holder's back (docs/streaming.md): orca report's. A spill that
	// cannot be created or written is given up, the Model read from
	// memory.
	Spill    bool
	SpillDir string
	// DropIntervals, with Spill, keeps no Thread.Intervals nor
	// Thread.Samples once they are in the spill (a thread's as it ends,
	// the others' at Finalize; a spill that fails after that fails
	// Build): Model.IntervalsOf and Model.SamplesOf read a thread's
	// back (orca report's analyses: what the holders did, the
	// hangs, the graph at the end, the JDK's threads). Only for readers
	// that go through IntervalsOf; without a spill the intervals are kept.
	DropIntervals bool
	// SpillOwners, with DropIntervals, keeps the locks' owners in the
	// spill as the fold goes, and at Finalize those of a lock of many
	// (Lock.Owners nil): Model.OwnersOf reads them back (orca report's,
	// for the locks it lists; ownerspill.go).
	SpillOwners bool
	// SpillEdges, with DropIntervals, writes the edges but the start and
	// join ones to the spill as the fold makes them (Model.Edges nil): the
	// readers go through Model.EdgesFrom, EdgesTo and StartJoinEdges
	// (edgespill.go). Orca view's.
	SpillEdges bool
	// PackThreads, with DropIntervals, keeps the Threads of the threads
	// that ended packed once the fold is done (threadpack.go): Model.Threads
	// has nil in their place, and the readers go through Model.ThreadAt,
	// AllThreads, Thread and View.At, All (orca report's).
	PackThreads bool
	// SpansFromLogs, with DropIntervals: the contentions' blame spans are
	// read by the holders' pass alone, from the logs the aggregation made
	// of them (View.HoldersDoing, HoldersDoingWith: blameLog), and the
	// owners of those still blocked at the end by WaitGraphAt at the end
	// (orca report's). The fold gives to the spill only the locks' owner
	// changes these read: those of a contention whose spans its thread's
	// log could not hold, and of one still open at the end (c1G's were
	// 205 MB, 142 MB of them never read). Model.OwnerSpans (BlameSpans,
	// OwnerAt, Segments) of another contention panics, and so does
	// Model.DoingIn.
	SpansFromLogs bool
	// EndGraphOnly: WaitGraphAt is asked at the end alone (orca report's
	// analyses), not at earlier instants (the viewer's): the fold lets go
	// of the late entries it will not read (waitFor.compactLate).
	EndGraphOnly bool
	// Stacks, if set, is the table the stacks are numbered in (Model.Stacks
	// is its Frames): a series of builds of one recording's consecutive
	// ranges (the pushes of export.OTLPCache) that share one gives each
	// stack the same StackID in all. Nil: a table of this build's own.
	Stacks *reader.StackTable
	// Buffers, if set, are the decoding's batches and decoders, kept for
	// the next build (reader.Buffers): the pushes of one orca record
	// --otlp.
	Buffers *reader.Buffers
	// Reuse, if set, is memory the builds of a series hand out again
	// (Reuse): the model built before with it must be dead.
	Reuse *Reuse
	// StackMark, if set, marks a stack with frames (a few bits; the empty
	// stack has none); each thread's
	// StackMarks or-es the marks of its intervals' stacks, as the fold
	// goes: a reader of those alone (analysis.JDKThreads) need not read
	// the intervals back.
	StackMark func([]format.Frame) uint8
	// Threads, if set, is about how many threads the recording has
	// (orca threads: the snapshot's .info alive_at_attach): the tables of
	// the threads are made that large at once, not grown by doubling
	// (100 000 threads: 17 rehashes of two maps).
	Threads int
	// Collapse, for a snapshot (orca threads), folds one virtual thread of
	// each set whose events are the same but for the thread's id and name
	// (100 000 virtual threads parked on one lock at one stack: one), and
	// lists the others in Result.Collapsed (collapse.go).
	Collapse bool
	// ReadEvents: the fold reads the reader's Events (EachOptions.Batch),
	// not its Columns (reader.Columns): the old path, for the tests that
	// hold the two to the same model (TestColumnsOracle).
	ReadEvents bool
}

// Result is a built model with what reading the files reported.
type Result struct {
	Model       *Model
	ParseErrors []error // malformed .orca lines (file:line), at most 1000 kept
	Malformed   int     // all malformed lines
	Truncated   bool    // the last line was cut short (kill -9)
	Unclosed    bool    // a compact file ended in a chunk without its trailer (reader.EachOptions.Unclosed)
	// Span is the time range folded (Options.Span), nil for the whole
	// recording: what a reader of the result that was not given it (the
	// viewer's report) needs to tell the range from what was recorded.
	Span *reader.Span
	// Collapsed: the virtual threads Options.Collapse left out of the
	// Model, in the order of their runs in the file.
	Collapsed []Collapsed
}

// Build reads rec's events in one streaming pass and folds them. Chunks
// of the file are decoded in parallel; the fold takes the events in file
// order (reader.Recording.EachEvent).
func Build(rec *reader.Recording, opt Options) (*Result, error) {
	if opt.Collapse {
		res, err := build(rec, opt, true)
		if err != errCollapse {
			return res, err
		}
		// A thread left out is named by another's event, or its events
		// are not in one run: the fold of all of them.
		opt.Collapse = false
	}
	return build(rec, opt, false)
}

func build(rec *reader.Recording, opt Options, collapse bool) (_ *Result, err error) {
	// A read of the spill that fails while folding (a window split again
	// reads its intervals back) fails the build.
	defer RecoverSpill(&err)
	b := New()
	if opt.Threads > 0 && !collapse {
		b.th.grow(opt.Threads)
	}
	b.ext = opt.Stacks
	if b.ext == nil {
		b.ext = reader.NewStackTable()
	}
	if opt.Reuse != nil && !opt.Spill {
		opt.Reuse.start(b)
	}
	b.edges.drop = opt.NoEdges
	b.noLockFigures = opt.NoLockFigures
	// No reader of a model without the locks' figures walks byObject (the
	// aggregation's, the spill's): with the objects kept, Lock finds a
	// lock there.
	b.m.locksInObjs = opt.NoLockFigures && b.m.objs != nil
	b.noRunSplit = opt.NoRunSplit
	b.noThreadTimes = opt.NoThreadTimes && opt.NoLockFigures && !opt.Spill
	b.wf.endOnly = opt.EndGraphOnly
	b.noWaitGraph = opt.NoWaitGraph
	b.noParkLocks = opt.NoParkLocks && b.m.locksInObjs // the classes kept in the objects'
	if b.noLockFigures || b.noParkLocks || b.lockSlab != nil {
		// No dormant blockers (dormant.go): no figures, or Locks from
		// Reuse's slab (whose objects the Model keeps, Model.objs).
		b.ag.recs = nil
	}
	if opt.Spill {
		if r := b.ag.recs; r != nil && !r.toFile {
			// The older records to a file of their own (blkRecs).
			r.toFile, r.dir = true, opt.SpillDir
		}
		b.spill, _ = openSpill(opt.SpillDir)
		b.dropIntervals = opt.DropIntervals && b.spill != nil
		if opt.SpillOwners && b.dropIntervals {
			b.ag.ownerSpill = b.spill
		}
		b.packThreads = opt.PackThreads && b.dropIntervals
		b.ag.listJuc = b.dropIntervals // releaseHandOffs
		b.ag.handSpill = b.spill
		// Without the figures no aggregation logs the spans: every
		// change is kept.
		b.ownSparse = opt.SpansFromLogs && b.dropIntervals && !opt.NoLockFigures
		b.ag.ownNeed = b.ownSparse
		if opt.SpillEdges && b.dropIntervals && !opt.NoEdges {
			b.edges.sp = &edgeSpill{s: b.spill}
		}
	}
	name := rec.FrameName
	b.idle = func(st []format.Frame) bool { return IdleStack(st, name) }
	b.acquire = func(st []format.Frame) bool { return AcquireStack(st, name) }
	b.shared = func(st []format.Frame) bool { return SharedAcquireStack(st, name) }
	b.idleWait = func(st []format.Frame) bool { return IdleWaitStack(st, name) }
	b.take = func(st []format.Frame) bool { return TakeStack(st, name) }
	b.untimed = func(st []format.Frame) bool {
		return UntimedWait(st, func(f format.Frame) (string, string, string) {
			if m := rec.Methods[f.Method]; m != nil {
				return rec.ClassName(f.Method), m.Name, m.Signature
			}
			return "", "", ""
		})
	}
	b.shutdown = func(st []format.Frame) bool { return ShutdownStack(st, name) }
	b.stackMark = opt.StackMark
	b.m.StackMarked = opt.StackMark != nil
	b.m.Unfinished = rec.Info.Incomplete()
	b.m.Attached = rec.Info[format.InfoAttached] == "true"
	b.m.parkEndsUnknown = rec.Info[format.InfoParkEnds] == "unknown"
	if n, _ := rec.Info.Int(format.InfoOwnerBefore); n > 0 {
		b.beforeEvents = true
	}
	b.waitTimeouts = rec.Info.WaitTimeouts()
	if !opt.NoLockFigures {
		// The call sites (Model.SiteStack) are the locks' figures' alone:
		// grouping them resolves every stack's frames.
		b.line = func(f format.Frame) string {
			if _, line := rec.Line(f); line > 0 {
				return rec.Resolve(f) // class, method, file and line
			}
			return ""
		}
	}
	if c := rec.Info.Cut(); c != nil {
		b.CutAt(c.At, c.Reason)
	}
	if _, end, ok := rec.Info.Span(); ok && rec.Info[format.InfoStopped] == "true" {
		b.StoppedAt(end)
	}
	if sp := opt.Span; sp != nil {
		if sp.To < sp.End {
			b.StoppedAt(sp.To)
		}
		b.NameAfter(sp.To)
	}
	res := &Result{Span: opt.Span}
	n := 0
	eo := reader.EachOptions{
		Workers: opt.Workers,
		Stacks:  b.ext,
		Malformed: func(pe *reader.ParseError) {
			res.Malformed++
			if len(res.ParseErrors) < 1000 {
				res.ParseErrors = append(res.ParseErrors, pe)
			}
		},
		Unclosed: func() { res.Unclosed = true },
		Span:     opt.Span,
		Buffers:  opt.Buffers,
	}
	if opt.Progress != nil {
		eo.Progress = func(done int64) { opt.Progress(n, done) }
	}
	var read int64 // the events of the file, not the restated facts of a chunk (Carried)
	var c *collapser
	if collapse {
		c = newCollapser(opt.Threads)
	}
	// The events a run at a time (EachOptions.Columns): one call of a
	// function value a few thousand events, not one an event, each row
	// seen through one Event (in the cache, where a batch of 152-byte
	// Events was written to memory and read back) and its thread found
	// by its dense number. The view's Stack stays nil: the fold reads a
	// stack's frames by its number (Builder.frames). The collapser's fold reads Events a run at a
	// time (EachOptions.Batch); so does buildEvents, the old path the
	// tests hold this one to.
	var view reader.Event
	if c == nil && !opt.ReadEvents {
		eo.Columns = func(cols *reader.Columns) error {
			th := cols.Thread
			for i := range th {
				// The view's thread from the fold's own table, its stack
				// not read (Builder.frames has it, stackCache.of).
				cols.Fields(i, &view)
				// The reader gives a number again once its thread has
				// ended: its table is as long as the threads alive at
				// once, in the cache.
				view.Thread = cols.Threads[th[i]]
				n++
				if !view.Carried {
					read++
				}
				b.event(&view, int(th[i]))
			}
			return nil
		}
	}
	eo.Batch = func(evs []reader.Event) error {
		for i := range evs {
			ev := &evs[i]
			n++
			if !ev.Carried {
				read++
			}
			if c != nil {
				if err := c.event(ev, b.Event); err != nil {
					return err
				}
				continue
			}
			b.Event(ev)
		}
		return nil
	}
	truncated, err := rec.EachEvent(eo, nil)
	if err == nil && c != nil {
		err = c.finish(b.Event)
	}
	if err == errCollapse {
		return nil, err
	}
	if err != nil {
		return nil, err // names the file already
	}
	if c != nil {
		res.Collapsed = c.out
	}
	if opt.Span != nil {
		read = math.MaxInt64 // a part of the file: .info's counts are of all of it
	}
	if err := rec.CheckRead(read, res.Malformed); err != nil {
		return nil, err // a file cut after it was written whole: its report would claim what its lost half may contradict
	}
	res.Truncated = truncated
	res.Model = b.Finalize()
	if b.lost != nil {
		return nil, b.lost // the intervals dropped are nowhere
	}
	return res, nil
}
