package model

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"orca/internal/format"
)

// Sample is one sample of a thread (a Sample line, issue 33): when, what
// the thread was doing (format.SampleCPU: on a CPU; format.SampleWall: in
// no recorded state and not on a CPU), the nanoseconds of the thread's
// time it stands for, and where it was. The stack is an id: a recording
// has millions of samples and a few thousand stacks. 24 bytes.
type Sample struct {
	At     format.Time
	Weight format.Time
	Stack  StackID
	Kind   format.SampleKind
}

// SchedTime is a ThreadCPU line: the thread's scheduler times so far,
// cumulative since the OS thread began (its first one is the baseline).
type SchedTime struct {
	At    format.Time
	CPU   format.Time // on a CPU
	Ready format.Time // runnable, waiting for a CPU
}

// SamplesIn returns t's samples with from <= At < to (to <= 0: to the
// end), a part of t.Samples.
func (t *Thread) SamplesIn(from, to format.Time) []Sample { return t.samplesIn(from, to, &Cursor{}) }

// samplesIn is SamplesIn with its search started where c says.
func (t *Thread) samplesIn(from, to format.Time, c *Cursor) []Sample {
	s := t.Samples
	i := searchSampleFrom(s, c.smp, from)
	c.smp = i
	j := len(s)
	if to > 0 {
		j = searchSampleFrom(s, i, to)
	}
	return s[i:j]
}

// searchSampleFrom is searchFrom(len(s), from, func(i int) bool { return
// s[i].At >= at }), probe for probe, its test written out (the holders'
// fold searches a holder's samples at each of its spans: searchFrom's
// call through a pointer at each probe).
func searchSampleFrom(s []Sample, from int, at format.Time) int {
	n := len(s)
	from = min(max(from, 0), n)
	lo, hi := from, from
	if from > 0 && s[from-1].At >= at {
		lo, hi = from-1, from-1
		for step := 1; lo > 0; step *= 2 {
			lo = max(hi-step, 0)
			if s[lo].At < at {
				lo++
				break
			}
			hi = lo
		}
	} else {
		for step := 1; hi < n && s[hi].At < at; step *= 2 {
			lo = hi + 1
			hi += step
		}
		hi = min(hi, n)
	}
	i, j := 0, hi-lo
	for i < j {
		h := int(uint(i+j) >> 1)
		if s[lo+h].At < at {
			i = h + 1
		} else {
			j = h
		}
	}
	return lo + i
}

// SampleQuery selects samples (Model.EachSample, Model.SamplesByStack).
type SampleQuery struct {
	Threads  func(*Thread) bool // nil: every thread
	From, To format.Time        // To 0: to the end
	Kind     format.SampleKind  // format.SampleNone: both kinds
}

// EachSample calls f for each sample q selects, thread by thread (in
// Model.Threads' order), each thread's in time order; in a Model built
// with Options.DropIntervals, read back from the spill (SamplesOf).
func (m *Model) EachSample(q SampleQuery, f func(*Thread, *Sample)) {
	var buf []Sample
	var a *spillAhead
	one := func(t *Thread) {
		h := t
		if m.dropped {
			c := *t
			smp, err := spillReadAhead(m.spill, t.spill.of(spillSmp), buf, a)
			if err != nil {
				panic(&SpillError{err}) // as SamplesOf
			}
			c.Samples, buf = smp, smp
			h = &c
		}
		if len(h.Samples) == 0 {
			return
		}
		s := h.SamplesIn(q.From, q.To)
		for i := range s {
			if q.Kind == format.SampleNone || s[i].Kind == q.Kind {
				f(t, &s[i])
			}
		}
	}
	ts := func(yield func(int, *Thread) bool) {
		for i, t := range m.AllThreads() {
			if (q.Threads == nil || q.Threads(t)) && !yield(i, t) {
				return
			}
		}
	}
	if !m.dropped {
		for _, t := range ts {
			one(t)
		}
		return
	}
	// The threads' samples staged many threads' at a time (spillAhead).
	a = &spillAhead{}
	eachAhead(m, ts, a, &[spillKinds]bool{spillSmp: true}, func(_ int, t *Thread) { one(t) })
}

// StackSamples is the samples of one stack, summed.
type StackSamples struct {
	Stack   StackID
	Samples int
	Weight  format.Time // the nanoseconds they stand for
}

// SamplesByStack sums the samples q selects by stack: most Weight first,
// then most samples, then by StackID. The flame graphs, the CPU profile
// and the exports aggregate here, once.
func (m *Model) SamplesByStack(q SampleQuery) []StackSamples {
	idx := map[StackID]int{}
	var out []StackSamples
	m.EachSample(q, func(_ *Thread, s *Sample) {
		i, ok := idx[s.Stack]
		if !ok {
			i = len(out)
			idx[s.Stack] = i
			out = append(out, StackSamples{Stack: s.Stack})
		}
		out[i].Samples++
		out[i].Weight += s.Weight
	})
	SortStackSamples(out)
	return out
}

// SortStackSamples sorts as SamplesByStack returns them.
func SortStackSamples(s []StackSamples) {
	slices.SortFunc(s, func(a, b StackSamples) int {
		return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(b.Samples, a.Samples), cmp.Compare(a.Stack, b.Stack))
	})
}

// sample folds a Sample line of ts.
func (b *Builder) sample(ts *tstate, at format.Time, kind format.SampleKind, weight int64, stack StackID) {
	b.m.Samples++
	if b.heldSamples++; b.heldSamples > b.m.PeakSamples {
		b.m.PeakSamples = b.heldSamples
	}
	// In time order as they come: one written ahead of a line held back
	// (builder.go) goes in its place, and a window of ThreadCPU lines
	// already split that it falls in is split again.
	if ts.body.smpGiven > 0 && at < ts.body.smpLast {
		b.unspillSamples(ts) // it goes among those given up
	}
	b.tOf(ts).Samples = insertAt(b.tOf(ts).Samples, Sample{At: at, Weight: format.Time(weight), Stack: stack, Kind: kind}, at, func(s *Sample) format.Time { return s.At })
	b.lateSample(ts, at)
	if t := b.tOf(ts); t.Virtual && t.Carrier != 0 && kind == format.SampleCPU {
		// The CPU a virtual thread used is its carrier's too (the carrier's
		// scheduler times count it): the split of the carrier's time takes
		// it out of the carrier's own running.
		if c := b.known(t.Carrier); c != nil {
			if c.retired {
				b.revive(c) // finished: its windows are split again
			}
			if c.body.lentGiven > 0 && at < c.body.lentLast {
				b.unspillLent(c) // it goes among those given up
			}
			f := b.tOf(c).folding()
			f.lent = insertAt(f.lent, lent{at, format.Time(weight)}, at, func(l *lent) format.Time { return l.at })
			b.lateSample(c, at)
		}
	}
}

// insertAt adds x, at xAt, to s, which is in the order of at, after the
// elements with at no later than its: at the end, but for one that comes
// late. x is not passed to at: its address given to a function value
// made it escape, an allocation a sample.
func insertAt[E any](s []E, x E, xAt format.Time, at func(*E) format.Time) []E {
	i := len(s)
	for i > 0 && at(&s[i-1]) > xAt {
		i--
	}
	s = append(s, x)
	if i < len(s)-1 {
		copy(s[i+1:], s[i:])
		s[i] = x
	}
	return s
}

// lateSample notes a sample at at of ts that falls in a window already
// split (splitTo splits it again).
func (b *Builder) lateSample(ts *tstate, at format.Time) {
	ws := &ts.body.win
	if at >= ws.maxEnd {
		return // after every window split
	}
	end := ws.gaveEnd
	if n := len(b.tOf(ts).folded().wins); n > 0 {
		end = b.tOf(ts).folded().wins[n-1].end
	}
	if at < end {
		ws.late = min(ws.late, at)
		b.splitSoon(ts)
	}
}

// schedTime folds a ThreadCPU line of ts. A line that goes back (a
// counter that is not cumulative) is a problem and not kept.
func (b *Builder) schedTime(ts *tstate, at format.Time, cpu, ready int64) bool {
	st := &b.tOf(ts).Sched
	if n := len(*st); n > 0 && (format.Time(cpu) < (*st)[n-1].CPU || format.Time(ready) < (*st)[n-1].Ready) {
		return false
	}
	b.m.SchedTimes = true
	*st = append(*st, SchedTime{At: at, CPU: format.Time(cpu), Ready: format.Time(ready)})
	ts.body.schedAt = at
	if ws := &ts.body.win; b.tOf(ts).SchedCount() >= 2 && !b.noRunSplit && ws.where == splitIdle {
		// Its next window is the one this line ends: due once the seal
		// is past it (a thread that waits already has an earlier one).
		ws.splitting, ws.where = true, splitLater
		b.splitDue.push(at, ts)
	}
	return true
}

// lent is CPU time a virtual thread's sample took on its carrier.
type lent struct {
	at     format.Time
	weight format.Time
}

// sampleBatch is the fewest samples of a thread alive releaseSamples gives
// up at once: a write to the spill and a copy of the rest each time (the
// model's tests give up every one: export_test.go). Each thread alive
// keeps room for a batch and more (its array grown past one): 4096, 100
// to 150 kB a thread alive the whole run, were 23 to 31 MB of the fold's
// live peak at c128, c1G and c5G-slow5; 1024, a quarter, the same CPU.
var sampleBatch = 1024

// releaseSamples gives up to the spill the samples of ts, a thread alive,
// that its windows between ThreadCPU lines are split past (Options.
// DropIntervals, with the spill): the split reads none of them again. The
// threads alive the whole run hold most samples (docs/streaming.md). A
// sample that comes later among them, a window split again that reads
// them, or an end before them reads them back (unspillSamples); Finalize
// adds the rest after them (finishThread).
func (b *Builder) releaseSamples(ts *tstate) {
	if !b.dropIntervals || b.spill.err != nil {
		return
	}
	t, ws := b.tOf(ts), &ts.body.win
	f := t.folded()
	if n := len(f.wins); n > 0 {
		end := f.wins[n-1].end
		if q := sort.Search(len(f.lent), func(j int) bool { return f.lent[j].at >= end }); q >= sampleBatch {
			b.giveLent(ts, q)
		}
	}
	p := ws.smp
	if p < sampleBatch {
		return
	}
	b.spill.addTo(&t.spill, spillSmp, bytesOf(t.Samples[:p]))
	ts.body.smpGiven += p
	ts.body.smpLast = t.Samples[p-1].At
	// The rest moved to the front of the same array: it grew to hold a
	// batch and will again before the next (a new one of 64 grown by
	// doubling was ~0.6 s of c1G's growslice, and its garbage).
	t.Samples = t.Samples[:copy(t.Samples, t.Samples[p:])]
	ws.smp -= p
	for i := range ws.marks {
		ws.marks[i].smp -= p
	}
	b.heldSamples -= p
}

// winBatch is the fewest windows between ThreadCPU lines of a thread
// alive releaseWins gives up at once (the model's tests give up every
// one: export_test.go).
var winBatch = 256

// releaseWins gives up to the spill the windows between ThreadCPU lines
// of ts, a thread alive, that end sealMargin behind the fold's seal at w,
// and the scheduler times that begin them (Options.DropIntervals, with
// the spill): a thread alive an hour has ~4 700 of each, 72 + 24 bytes
// and a mark of 16. Only a late sample walks back over windows split
// (splitTo), within a flush period; one that falls among those given up
// has them all read back and split again (unspillWins). Finalize adds
// the rest after them (finishThread); t.nSched counts those given up.
func (b *Builder) releaseWins(ts *tstate, w format.Time) {
	if !b.dropIntervals || b.spill.err != nil {
		return
	}
	t, ws := b.tOf(ts), &ts.body.win
	f := t.folding()
	// Never the last lagWins: the next windows' splits may give them ready
	// time (lagReady).
	k := min(sort.Search(len(f.wins), func(i int) bool { return f.wins[i].end > w-sealMargin }), len(f.wins)-lagWins)
	if k < winBatch {
		return
	}
	// Window i is between t.Sched[i] and t.Sched[i+1]: the scheduler
	// times given up are those that begin the windows given up.
	b.spill.addTo(&t.spill, spillWins, bytesOf(f.wins[:k]))
	b.spill.addTo(&t.spill, spillSched, bytesOf(t.Sched[:k]))
	t.nSched += int32(k)
	ws.gaveEnd = f.wins[k-1].end
	f.wins = append(make([]runWin, 0, max(2*(len(f.wins)-k), 16)), f.wins[k:]...)
	t.Sched = append(make([]SchedTime, 0, max(2*(len(t.Sched)-k), 16)), t.Sched[k:]...)
	ws.marks = append(make([]mark, 0, max(2*(len(ws.marks)-k), 16)), ws.marks[k:]...)
	b.gaveUp = true
}

// unspillWins reads back the windows and scheduler times releaseWins gave
// up of ts, and has its windows split again from the first, as revive
// does: the same split (CheckSplit).
func (b *Builder) unspillWins(ts *tstate) {
	t, ws := b.tOf(ts), &ts.body.win
	if err := b.spill.flush(); err != nil {
		panic(&SpillError{err})
	}
	sched, err := spillRead(b.spill, t.spill.of(spillSched), make([]SchedTime, 0, int(t.nSched)+len(t.Sched)))
	if err != nil {
		panic(&SpillError{err})
	}
	t.Sched, t.nSched = append(sched, t.Sched...), 0
	b.dropLive(ts, spillSched)
	b.dropLive(ts, spillWins)
	if ts.body.smpGiven > 0 {
		b.unspillSamples(ts)
	}
	if ts.body.lentGiven > 0 {
		b.unspillLent(ts)
	}
	t.Run = RunSplit{}
	if t.fold != nil {
		t.fold.wins = nil
	}
	ws.split, ws.iv, ws.smp, ws.marks, ws.gaveEnd = 0, 0, 0, nil, math.MinInt64
}

// giveLent gives up to the spill the first n of the cpu samples of the
// virtual threads ts carried (t.lent), those of its windows split: a
// carrier alive the whole run holds them all (docs/streaming.md). A
// window split again over them, or a later one among them, reads them
// back (unspillLent).
func (b *Builder) giveLent(ts *tstate, n int) {
	t := b.tOf(ts)
	if n == 0 || !b.dropIntervals || b.spill.err != nil {
		return
	}
	f := t.fold
	b.spill.addTo(&t.spill, spillLent, bytesOf(f.lent[:n]))
	ts.body.lentGiven += n
	ts.body.lentLast = f.lent[n-1].at
	// The rest stays where it is, not copied into an array of its own:
	// a carrier's windows lag its virtual threads' samples (c128's one
	// carrier: ~60 000 after its last window at each seal, ~5 000 given
	// up), and a copy at each seal was 4 % of the fold. The next append
	// that finds the array full copies the rest alone, once.
	f.lent = f.lent[n:]
	if len(f.lent) == 0 {
		f.lent = nil
	}
}

// unspillLent reads back the carried samples giveLent gave up of ts,
// before the others.
func (b *Builder) unspillLent(ts *tstate) {
	t := b.tOf(ts)
	f := t.folding()
	if err := b.spill.flush(); err != nil {
		panic(&SpillError{err})
	}
	l, err := spillRead(b.spill, t.spill.of(spillLent), make([]lent, 0, ts.body.lentGiven+len(f.lent)))
	if err != nil {
		panic(&SpillError{err})
	}
	f.lent = append(l, f.lent...)
	b.dropLive(ts, spillLent)
	ts.body.lentGiven, ts.body.lentLast = 0, 0
}

// unspillSamples reads the samples releaseSamples gave up of ts back
// before the others: all its samples are in memory again, in order.
func (b *Builder) unspillSamples(ts *tstate) {
	t, ws := b.tOf(ts), &ts.body.win
	if err := b.spill.flush(); err != nil {
		panic(&SpillError{err})
	}
	smp, err := spillRead(b.spill, t.spill.of(spillSmp), make([]Sample, 0, ts.body.smpGiven+len(t.Samples)))
	if err != nil {
		panic(&SpillError{err})
	}
	p := len(smp)
	t.Samples = append(smp, t.Samples...)
	b.dropLive(ts, spillSmp)
	ws.smp += p
	for i := range ws.marks {
		ws.marks[i].smp += p
	}
	b.heldSamples += p
	b.m.PeakSamples = max(b.m.PeakSamples, b.heldSamples)
	ts.body.smpGiven, ts.body.smpLast = 0, 0
}
