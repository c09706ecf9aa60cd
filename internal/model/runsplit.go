package model

import (
	"fmt"
	"math"
	"sort"

	"orca/internal/format"
)

// RunSplit divides runnable time (a thread in no recorded state: Runnable)
// by what the thread did (issue 33; docs/report-json.md, "Running, ready,
// other"). Its parts add up to the runnable time it splits.
type RunSplit struct {
	Running format.Time // on a CPU, for itself
	Ready   format.Time // runnable, waiting for a CPU
	// Other: neither on a CPU nor waiting for one, nor in a recorded state:
	// I/O, a native call, the VM.
	Other format.Time
	// Virtual: a carrier's time on a CPU running virtual threads (their
	// cpu samples' weight): theirs, not the carrier's own Running.
	Virtual format.Time
	// Unsplit: runnable time no scheduler times or samples cover (before
	// a thread's first ThreadCPU line or after its last, a recording
	// without them): runnable, as before issue 33.
	Unsplit format.Time
}

// Total returns the runnable time r splits.
func (r RunSplit) Total() format.Time { return r.Running + r.Ready + r.Other + r.Virtual + r.Unsplit }

// Sub takes o's parts from r's.
func (r *RunSplit) Sub(o RunSplit) {
	r.Running -= o.Running
	r.Ready -= o.Ready
	r.Other -= o.Other
	r.Virtual -= o.Virtual
	r.Unsplit -= o.Unsplit
}

// Add adds o's parts to r's.
func (r *RunSplit) Add(o RunSplit) {
	r.Running += o.Running
	r.Ready += o.Ready
	r.Other += o.Other
	r.Virtual += o.Virtual
	r.Unsplit += o.Unsplit
}

// runWin is a window of a thread's life over which its runnable time is
// split by one rule: between two ThreadCPU lines (a poll window), or the
// whole life of a thread without them. Within it, each part is spread
// over the runnable time in proportion (RunIn).
type runWin struct {
	start, end format.Time
	split      RunSplit // of the runnable time in [start, end]
	// cpu, wall: the weights of the thread's samples of each kind in its
	// runnable time in the window, which place running and other inside
	// it (RunIn).
	cpu, wall format.Time
	// over: the ready time its closing line gave beyond the room it had
	// (lagReady: the window before's); lag: the ready time it took from
	// the window after's over (in split.Ready, out of split.Other).
	over, lag format.Time
}

// lagReady gives the ready time next's closing line gave beyond next's
// room (over) to prev, the window before, out of its other time, as far
// as that goes, and returns how much. The kernel adds a wait on a run
// queue to the thread's ready time (schedstat's run_delay) when the wait
// ends, when the thread gets a CPU; and the agent writes a ThreadCPU line
// only when the thread's times changed since its last, that is when it
// ran: so a wait spans at most one line, and what a window's line says of
// ready beyond the window's room began before it, in the window before.
// Without this, a thread starved of a CPU on a loaded machine had the
// wait over its line as "other" (neither running nor ready) in the window
// before, and the window after's cut to its length (WallStarved's
// deflater: 3.0 s ready by the kernel, 0.56 s of it "other").
func lagReady(prev, next *runWin) format.Time {
	g := min(next.over, prev.split.Other)
	if g <= 0 {
		return 0
	}
	prev.split.Other -= g
	prev.split.Ready += g
	prev.lag += g
	return g
}

// unlagReady takes back from w the ready time lagReady gave it, when the
// window after it is split again; it returns how much.
func unlagReady(w *runWin) format.Time {
	g := w.lag
	w.split.Ready -= g
	w.split.Other += g
	w.lag = 0
	return g
}

// RunWindow is a window of a thread's runnable-time split as RunIn uses
// it (its runnable time's split, the weights of its cpu and wall samples):
// what the viewer's index keeps of a thread to split a part of it again
// without the model (RunWindows, SetRunWindows).
type RunWindow struct {
	Start, End format.Time
	Split      RunSplit
	CPU, Wall  format.Time
}

// RunWindows are t's windows, in time order.
func (t *Thread) RunWindows() []RunWindow {
	wins := t.folded().wins
	out := make([]RunWindow, len(wins))
	for i, w := range wins {
		out[i] = RunWindow{w.start, w.end, w.split, w.cpu, w.wall}
	}
	return out
}

// SetRunWindows gives t the windows ws (RunWindows of a thread, or the
// part of them over a span, shifted as its times are): RunIn of a span of
// a Thread made of the parts of another's intervals, samples and windows
// over the span is that of the other.
func (t *Thread) SetRunWindows(ws []RunWindow) {
	f := t.ownFold()
	f.wins = make([]runWin, len(ws))
	for i, w := range ws {
		f.wins[i] = runWin{start: w.Start, end: w.End, split: w.Split, cpu: w.CPU, wall: w.Wall}
	}
}

// inState reports whether t is in a recorded state at at: in one of its
// intervals, [Start, End).
func (t *Thread) inState(at format.Time, c *Cursor) bool {
	ivs := t.Intervals
	i := searchFrom(len(ivs), c.iv, func(i int) bool { return ivs[i].End > at })
	c.iv = i
	return i < len(ivs) && ivs[i].Start <= at
}

// Cursor keeps where a thread's last search of its intervals, samples and
// windows ended: a caller that asks about one thread's time in order (the
// holders' spans, a timeline's tiles) finds each next place a step or two
// on (searchFrom) instead of by a search of the whole. Its zero value
// starts at the beginning; any order of questions gives the same answers.
type Cursor struct {
	iv, smp, win int
	blame        *blameIndex // the holder's contentions' spans (HoldersDoing's fold)
}

// searchFrom is sort.Search(n, f) started at from, where the answer
// usually is or is near: it gallops from there (1, 2, 4, … steps) forward,
// or back when the answer is before it, and searches the last step.
// O(log d) for an answer d places away.
func searchFrom(n, from int, f func(int) bool) int {
	from = min(max(from, 0), n)
	if from > 0 && f(from-1) {
		// f(hi) holds; every index below lo is false.
		lo, hi, step := from-1, from-1, 1
		for lo > 0 {
			lo = max(hi-step, 0)
			if !f(lo) {
				lo++
				break
			}
			hi, step = lo, step*2
		}
		return lo + sort.Search(hi-lo, func(i int) bool { return f(lo + i) })
	}
	lo, hi, step := from, from, 1
	for hi < n && !f(hi) {
		lo = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi, n)
	return lo + sort.Search(hi-lo, func(i int) bool { return f(lo + i) })
}

// sampled returns the weights of t's cpu and wall samples in [a, b) taken
// in its runnable time.
func (t *Thread) sampled(a, b format.Time, c *Cursor) (cpu, wall format.Time) {
	return t.sampledOf(t.samplesIn(a, b, c), c)
}

// sampledOf is sampled of ss, t's samples in [a, b).
func (t *Thread) sampledOf(ss []Sample, c *Cursor) (cpu, wall format.Time) {
	for _, s := range ss {
		if s.Kind != format.SampleCPU && s.Kind != format.SampleWall || t.inState(s.At, c) {
			continue
		}
		if s.Kind == format.SampleCPU {
			cpu += s.Weight
		} else {
			wall += s.Weight
		}
	}
	return cpu, wall
}

// runnableIn returns t's runnable time in [a, b]: the time in none of its
// intervals.
func (t *Thread) runnableIn(a, b format.Time, c *Cursor) format.Time {
	a, b = max(a, t.Start), min(b, t.End)
	if b <= a {
		return 0
	}
	ivs := t.Intervals
	// Intervals never overlap and are sorted: their ends are sorted too.
	i := searchFrom(len(ivs), c.iv, func(i int) bool { return ivs[i].End > a })
	c.iv = i
	busy := format.Time(0)
	for ; i < len(ivs) && ivs[i].Start < b; i++ {
		busy += min(ivs[i].End, b) - max(ivs[i].Start, a)
	}
	return b - a - busy
}

// splitRun sets t.Run and the windows behind RunIn, from the thread's
// ThreadCPU lines (Sched) or, without them, its samples. The rule
// (docs/report-json.md, "Running, ready, other"):
//   - a window between two ThreadCPU lines: the differences of cpu and
//     ready are its running and ready time, each cut to the runnable time
//     left in the window (a thread also runs inside recorded states: a
//     monitor's spin, the park's own code); the rest of its runnable time
//     is other. A carrier's running is less the weight of the cpu samples
//     of the virtual threads it carried in the window (Virtual);
//   - a thread without them (a virtual thread, an import): one window, its
//     life: running is the weight of its cpu samples, other that of its
//     wall samples, each cut as above; the rest stays Unsplit;
//   - runnable time in no window is Unsplit.
//
// The windows between ThreadCPU lines are split as the fold goes
// (Builder.splitWindows), each once its inputs are final; splitRun ends
// it: the windows left, then what no window covers.
func (t *Thread) splitRun(ws *winState) {
	run := t.Time[Runnable]
	if t.SchedCount() < 2 {
		t.Run = RunSplit{Unsplit: run}
		if t.fold != nil {
			t.fold.wins = nil
		}
		var cpu, wall format.Time
		for i := range t.Samples {
			switch s := &t.Samples[i]; s.Kind {
			case format.SampleCPU:
				cpu += s.Weight
			case format.SampleWall:
				wall += s.Weight
			}
		}
		if cpu+wall == 0 || run == 0 {
			return
		}
		var sp RunSplit
		sp.Running = cut(cpu, run)
		sp.Other = cut(wall, run-sp.Running)
		sp.Unsplit = run - sp.Running - sp.Other
		w := runWin{start: t.Start, end: t.End, split: sp}
		w.cpu, w.wall = t.sampled(t.Start, t.End+1, &Cursor{})
		t.folding().wins = []runWin{w}
		t.Run = sp
		return
	}
	t.Run.Unsplit = run - ws.split
}

// addSample adds s's weight to cpu or wall, by its kind.
func addSample(s *Sample, cpu, wall format.Time) (format.Time, format.Time) {
	switch s.Kind {
	case format.SampleCPU:
		cpu += s.Weight
	case format.SampleWall:
		wall += s.Weight
	}
	return cpu, wall
}

// ivBlocks gives a thread's intervals from an index on, a block at a time
// (next), to Thread.window: front first (the ones given up, read back from
// the spill; or all of them), then l's blocks in memory from its index
// from on.
type ivBlocks struct {
	front []Interval
	l     *ivList
	k     int // l's next block
	from  int // the index in it
}

// next returns the next block, empty at the end.
func (r *ivBlocks) next() []Interval {
	if f := r.front; len(f) > 0 {
		r.front = nil
		return f
	}
	if r.l == nil {
		return nil
	}
	for ; r.k <= len(r.l.full); r.k++ {
		blk := r.l.cur
		if r.k < len(r.l.full) {
			blk = r.l.full[r.k]
		}
		if r.from >= len(blk) {
			r.from -= len(blk)
			continue
		}
		blk, r.from = blk[r.from:], 0
		r.k++
		return blk
	}
	return nil
}

// cut is want, at most left and at least 0.
func cut(want, left format.Time) format.Time { return max(0, min(want, left)) }

// winState is where a thread's windows between ThreadCPU lines are split
// to (Builder.splitWindows): t.wins holds the first done of them, split is
// their runnable time; iv and smp are where their intervals and samples
// were read to; late is the earliest time of a sample or a virtual
// thread's cpu sample that came after the window it falls in was split
// (that window and the later ones are split again), MaxInt64 for none.
type winState struct {
	split   format.Time
	iv, smp int
	late    format.Time
	// splitting: it has windows to split, now or once they are due
	// (where says where it waits: Builder.splitWindows).
	splitting bool
	where     splitWhere
	marks     []mark // iv and smp before each window split
	// gaveEnd: the end of the last window given up to the spill
	// (releaseWins), math.MinInt64 for none.
	gaveEnd format.Time
	// maxEnd: the latest end of the windows split (splitTo), none later
	// (a window split again ends no later): a sample at it or after is
	// in no window split, told without reading the windows (lateSample:
	// a miss of the cache a sample).
	maxEnd format.Time
}

type mark struct{ iv, smp int }

// window splits t's window from its ThreadCPU line p to the next one, q,
// within its life to end: ivs are t's intervals from c.iv (the first that
// may end after p.At) on, lent the cpu samples of the virtual threads it
// carried, in time order.
func (t *Thread) window(p, q SchedTime, end format.Time, ivs *ivBlocks, c *Cursor, lent []lent) runWin {
	// The runnable time in [p, q] and the samples in [p, q) taken in it:
	// one walk over the intervals there, the samples met as it goes. A
	// loop over the blocks, not a function given to their walk: its
	// counters would be moved to the heap (1.08 M allocations of the
	// 128 MB synthetic recording's fold).
	a, b := max(p.At, t.Start), min(q.At, end)
	busy := format.Time(0)
	smp := t.Samples
	i := searchFrom(len(smp), c.smp, func(i int) bool { return smp[i].At >= p.At })
	var cpu, wall format.Time
blocks:
	for blk := ivs.next(); len(blk) > 0; blk = ivs.next() {
		for k := range blk {
			iv := &blk[k]
			if iv.End <= a && iv.End <= p.At {
				c.iv++
				continue
			}
			if iv.Start >= q.At && iv.Start >= b {
				break blocks
			}
			if b > a {
				if x, y := max(iv.Start, a), min(iv.End, b); y > x {
					busy += y - x
				}
			}
			// The samples before this interval are in runnable time; the
			// ones in it ([Start, End)) are not.
			for ; i < len(smp) && smp[i].At < min(iv.Start, q.At); i++ {
				cpu, wall = addSample(&smp[i], cpu, wall)
			}
			for ; i < len(smp) && smp[i].At < min(iv.End, q.At); i++ {
			}
		}
	}
	for ; i < len(smp) && smp[i].At < q.At; i++ {
		cpu, wall = addSample(&smp[i], cpu, wall)
	}
	c.smp = i
	r := max(b-a, 0) - busy
	var v format.Time
	j := sort.Search(len(lent), func(j int) bool { return lent[j].at >= p.At })
	for ; j < len(lent) && lent[j].at < q.At; j++ {
		v += lent[j].weight
	}
	var sp RunSplit
	d := q.CPU - p.CPU
	sp.Virtual = cut(v, min(d, r))
	sp.Running = cut(d-sp.Virtual, r-sp.Virtual)
	sp.Ready = cut(q.Ready-p.Ready, r-sp.Virtual-sp.Running)
	sp.Other = r - sp.Virtual - sp.Running - sp.Ready
	return runWin{start: p.At, end: q.At, split: sp, cpu: cpu, wall: wall, over: max(0, q.Ready-p.Ready-sp.Ready)}
}

// RunIn returns the split of t's runnable time in [from, to]. A window
// inside it gives its parts whole; a part of a window gets a share of
// them: of running, the share of the window's cpu samples (their weight,
// in its runnable time) that fall in the part, of other the share of its
// wall samples, and without such samples, as ready and the rest, the
// share of the window's runnable time in the part. Each is cut to the
// part's runnable time, and what they leave of it is other. The runnable
// time in no window is Unsplit. RunIn(t, t.Start, t.End) is t.Run.
func (t *Thread) RunIn(from, to format.Time) RunSplit { return t.RunInFrom(from, to, &Cursor{}) }

// RunInFrom is RunIn with its searches started where c says, and c moved
// to where they ended.
func (t *Thread) RunInFrom(from, to format.Time, c *Cursor) RunSplit {
	from, to = max(from, t.Start), min(to, t.End)
	if to <= from {
		return RunSplit{}
	}
	return t.runIn(from, to, t.runnableIn(from, to, c), nil, false, c)
}

// runIn is RunInFrom of [from, to], inside t's life and not empty, whose
// runnable time all is known (runnableIn's); with in, smps are t's samples
// in it (samplesIn's): the holders' fold (foldSpan) has both from its own
// walks, and a span mostly lies inside one window (99 % of the 1.9 M of
// the 128 MB synthetic recording), whose part is then [from, to] itself,
// not walked again.
func (t *Thread) runIn(from, to, all format.Time, smps []Sample, in bool, c *Cursor) RunSplit {
	var out RunSplit
	wins := t.folded().wins
	i := searchFrom(len(wins), c.win, func(i int) bool { return wins[i].end > from })
	c.win = i
	for ; i < len(wins) && wins[i].start < to; i++ {
		w := &wins[i]
		a, b := max(from, w.start), min(to, w.end)
		if a >= b {
			continue
		}
		if a == w.start && b == w.end {
			out.Add(w.split)
			continue
		}
		whole := w.split.Total()
		span := a == from && b == to
		part := all
		if !span {
			part = t.runnableIn(a, b, c)
		}
		if whole <= 0 || part <= 0 {
			continue
		}
		// place gives the part its share of a window's d: the samples
		// (weight smp in the window's runnable time, smpPart of it in the
		// part's) place as much of d as they stand for, the rest is spread
		// in proportion to runnable time; never more than the part holds
		// nor less than the rest of the window cannot.
		var cpu, wall format.Time
		if span && in {
			cpu, wall = t.sampledOf(smps, c)
		} else {
			cpu, wall = t.sampled(a, b, c)
		}
		place := func(d, smp, smpPart format.Time) format.Time {
			est := 0.0
			if smp > 0 {
				est = float64(min(smp, d)) * float64(smpPart) / float64(smp)
			}
			est += float64(d-min(smp, d)) * float64(part) / float64(whole)
			return max(d-(whole-part), 0, min(format.Time(math.Round(est)), d, part))
		}
		sp := RunSplit{
			Running: place(w.split.Running, w.cpu, cpu),
			Other:   place(w.split.Other, w.wall, wall),
			Ready:   place(w.split.Ready, 0, 0),
			Virtual: place(w.split.Virtual, 0, 0),
			Unsplit: place(w.split.Unsplit, 0, 0),
		}
		// Cut to the part: running (measured and placed by samples)
		// first, other last.
		left := part
		for _, d := range []*format.Time{&sp.Running, &sp.Virtual, &sp.Ready, &sp.Unsplit, &sp.Other} {
			*d = max(0, min(*d, left))
			left -= *d
		}
		sp.fill(w.split, left)
		out.Add(sp)
	}
	// What no window covers stays runnable, unsplit; rounding never
	// makes the parts more than the whole.
	if rest := all - out.Total(); rest >= 0 {
		out.Unsplit += rest
	} else {
		out.Other = max(0, out.Other+rest)
	}
	return out
}

// fill gives r, a part's split of window w's, the left of the part its
// placing left. It is what pieces of the window placed elsewhere took
// beyond their share: mostly other, cut last when a piece's parts are
// more than it holds, so it is other as far as w has other r has not
// taken; beyond that (a holding with no cpu sample in it, in a window
// whose samples fell in short holdings that could not take all they stand
// for: 30 % of an HSQLDB lock's holders were "other" while its threads
// had none) the rest goes to w's running, ready and the others in
// proportion to what r has not taken of each.
func (r *RunSplit) fill(w RunSplit, left format.Time) {
	if left <= 0 {
		return
	}
	o := min(left, max(0, w.Other-r.Other))
	r.Other += o
	if left -= o; left == 0 {
		return
	}
	parts := [...]*format.Time{&r.Running, &r.Virtual, &r.Ready, &r.Unsplit}
	whole := [...]format.Time{w.Running, w.Virtual, w.Ready, w.Unsplit}
	var room [len(parts)]format.Time
	var sum format.Time
	for k, d := range parts {
		room[k] = max(0, whole[k]-*d)
		sum += room[k]
	}
	if sum <= 0 {
		r.Other += left // no room: rounding
		return
	}
	given, most, mostAdd := format.Time(0), 0, format.Time(-1)
	for k, d := range parts {
		add := min(room[k], format.Time(math.Round(float64(left)*float64(room[k])/float64(sum))))
		*d += add
		given += add
		if add > mostAdd || add == mostAdd && room[k] > room[most] {
			most, mostAdd = k, add
		}
	}
	*parts[most] += left - given // the rounding's few ns
}

// CheckSplit splits t's runnable time again, at once, from its whole
// intervals, samples and ThreadCPU lines, by the rule of splitRun, and
// says where that differs from the split the fold made as it went: the
// validator's check (modeltest.Validate). nil when they agree.
func (t *Thread) CheckSplit() error {
	if len(t.Sched) < 2 {
		return nil // made at the end, at once
	}
	var out RunSplit
	var c Cursor
	f := t.folded()
	if len(f.wins) != len(t.Sched)-1 {
		return fmt.Errorf("%d windows between %d ThreadCPU lines", len(f.wins), len(t.Sched))
	}
	wins := make([]runWin, 0, len(t.Sched)-1)
	for n := 1; n < len(t.Sched); n++ {
		var ivs ivBlocks
		if c.iv < len(t.Intervals) {
			ivs.front = t.Intervals[c.iv:]
		}
		w := t.window(t.Sched[n-1], t.Sched[n], t.End, &ivs, &c, f.lent)
		if len(wins) > 0 {
			lagReady(&wins[len(wins)-1], &w)
		}
		wins = append(wins, w)
	}
	for n, w := range wins {
		if w != f.wins[n] {
			return fmt.Errorf("window %d split as the fold went %+v, at once %+v", n+1, f.wins[n], w)
		}
		out.Add(w.split)
	}
	out.Unsplit = t.Time[Runnable] - out.Total()
	if out != t.Run {
		return fmt.Errorf("runnable time split as the fold went %+v, at once %+v", t.Run, out)
	}
	return nil
}
