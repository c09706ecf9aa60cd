package model

import (
	"math"
	"sort"

	"orca/internal/format"
)

// RunSplit divides runnable time (a thread in no recorded state: Runnable)
// by what the thread did (issue 33; docs/design.md, "Running, ready,
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
	split      RunSplit // of the runnable time in [start, end]; Unsplit 0
}

// runnableIn returns t's runnable time in [a, b]: the time in none of its
// intervals.
func (t *Thread) runnableIn(a, b format.Time) format.Time {
	a, b = max(a, t.Start), min(b, t.End)
	if b <= a {
		return 0
	}
	ivs := t.Intervals
	// Intervals never overlap and are sorted: their ends are sorted too.
	i := sort.Search(len(ivs), func(i int) bool { return ivs[i].End > a })
	busy := format.Time(0)
	for ; i < len(ivs) && ivs[i].Start < b; i++ {
		busy += min(ivs[i].End, b) - max(ivs[i].Start, a)
	}
	return b - a - busy
}

// splitRun sets t.Run and the windows behind RunIn, from the thread's
// ThreadCPU lines (Sched) or, without them, its samples; lent are the cpu
// samples of the virtual threads it carried. The rule (docs/design.md,
// "Running, ready, other"):
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
func (t *Thread) splitRun(lent []lent) {
	run := t.Time[Runnable]
	t.Run, t.wins = RunSplit{Unsplit: run}, nil
	cut := func(want, left format.Time) format.Time { return max(0, min(want, left)) }
	if len(t.Sched) < 2 {
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
		t.wins = []runWin{{t.Start, t.End, sp}}
		t.Run = sp
		return
	}
	t.wins = make([]runWin, 0, len(t.Sched)-1)
	var split format.Time
	li := 0
	for i := 1; i < len(t.Sched); i++ {
		p, q := t.Sched[i-1], t.Sched[i]
		r := t.runnableIn(p.At, q.At)
		var v format.Time
		for ; li < len(lent) && lent[li].at < q.At; li++ {
			if lent[li].at >= p.At {
				v += lent[li].weight
			}
		}
		var sp RunSplit
		cpu := q.CPU - p.CPU
		sp.Virtual = cut(v, min(cpu, r))
		sp.Running = cut(cpu-sp.Virtual, r-sp.Virtual)
		sp.Ready = cut(q.Ready-p.Ready, r-sp.Virtual-sp.Running)
		sp.Other = r - sp.Virtual - sp.Running - sp.Ready
		t.wins = append(t.wins, runWin{p.At, q.At, sp})
		t.Run.Add(sp)
		split += r
	}
	t.Run.Unsplit = run - split
}

// RunIn returns the split of t's runnable time in [from, to]: each
// window's parts spread over its runnable time in proportion (a window's
// whole runnable time gets its parts exactly), the runnable time in no
// window Unsplit. RunIn(t, t.Start, t.End) is t.Run.
func (t *Thread) RunIn(from, to format.Time) RunSplit {
	from, to = max(from, t.Start), min(to, t.End)
	var out RunSplit
	if to <= from {
		return out
	}
	all := t.runnableIn(from, to)
	i := sort.Search(len(t.wins), func(i int) bool { return t.wins[i].end > from })
	for ; i < len(t.wins) && t.wins[i].start < to; i++ {
		w := &t.wins[i]
		a, b := max(from, w.start), min(to, w.end)
		if a >= b {
			continue
		}
		if a == w.start && b == w.end {
			out.Add(w.split)
			continue
		}
		whole := w.split.Total()
		part := t.runnableIn(a, b)
		if whole <= 0 || part <= 0 {
			continue
		}
		f := float64(part) / float64(whole)
		scale := func(d format.Time) format.Time { return format.Time(math.Round(float64(d) * f)) }
		out.Running += scale(w.split.Running)
		out.Ready += scale(w.split.Ready)
		out.Virtual += scale(w.split.Virtual)
		out.Unsplit += scale(w.split.Unsplit)
		out.Other += part - scale(w.split.Running) - scale(w.split.Ready) - scale(w.split.Virtual) - scale(w.split.Unsplit)
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
