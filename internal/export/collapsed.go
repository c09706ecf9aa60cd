package export

import (
	"bufio"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// foldSafe keeps a frame name from breaking a folded line: ';' separates
// frames and '\n' ends the line. A Java name has neither, but a damaged
// .methods file might.
var foldSafe = strings.NewReplacer(";", ":", "\n", " ")

// Collapsed writes folded stacks, the input of flamegraph.pl and one of
// speedscope's: a line per distinct stack, "root;…;leaf VALUE", frames
// named as in the pprof export ("java.lang.Object.wait", without line
// numbers, so one method is one box), VALUE the nanoseconds threads spent
// in the chosen kinds of states at that stack. A state on an object of
// known class ends with that class as a frame ("java.lang.Object_[i]"; the
// JVM's lock of a class being initialised "class initialisation of
// com.example.Foo_[i]", as the report names it: Model.ClassName).
// Lines are sorted by stack.
//
// With opt.Profile cpu or wall, VALUE is the nanoseconds the threads'
// samples of those kinds stand for at that stack (Model.SamplesByStack),
// with no class leaf.
func Collapsed(w io.Writer, rec *reader.Recording, m *model.Model, opt Options) error {
	k := kinds(opt, Monitor)
	fs := newFrames(rec, m)
	if opt.Profile != ProfileStates {
		byLine := map[string]format.Time{}
		for _, kind := range opt.Profile.sampleKinds() {
			for _, ss := range m.SamplesByStack(model.SampleQuery{Kind: kind}) {
				byLine[foldLine(fs.stack(ss.Stack), "")] += ss.Weight
			}
		}
		return writeFolded(w, byLine)
	}
	// The model's fold of time by stack, as the viewer's flame graph.
	q := model.StackQuery{From: math.MinInt64, To: math.MaxInt64}
	for st := range q.States {
		q.States[st] = k.Has(model.State(st))
	}
	// A thread at a time, its intervals read back a piece at a time from
	// the spill of a Model built with SpilledOptions (eachPiece).
	byStack := map[model.StackClass]*model.StackTimes{}
	var win model.IntervalWindow
	for _, t := range m.AllThreads() {
		h := *t
		eachPiece(m, t, &win, func(ivs []model.Interval, _ bool) int {
			h.Intervals = ivs
			for sc, acc := range (&model.View{Model: m, Threads: []*model.Thread{&h}}).StackClassTime(q) {
				if sum := byStack[sc]; sum != nil {
					for st := range acc {
						sum[st] += acc[st]
					}
				} else {
					byStack[sc] = acc
				}
			}
			return 0
		})
	}
	// Distinct stacks can fold to the same line (frames differing only
	// in bytecode index): add them up.
	byLine := map[string]format.Time{}
	for sc, acc := range byStack {
		var d format.Time
		for _, v := range acc {
			d += format.Time(v)
		}
		byLine[foldLine(fs.stack(sc.Stack), sc.Class)] += d
	}
	return writeFolded(w, byLine)
}

// foldLine is a stack's folded line, root first, with the class of the
// lock, when there is one, as the leaf.
func foldLine(stack []*frame, class string) string {
	names := make([]string, len(stack), len(stack)+1)
	for i, f := range stack {
		names[len(stack)-1-i] = foldSafe.Replace(f.name)
	}
	if class != "" {
		// The lock's class as the leaf, as async-profiler's lock
		// profiles name it ("_[i]": flamegraph.pl colours it apart).
		names = append(names, foldSafe.Replace(class)+"_[i]")
	}
	return strings.Join(names, ";")
}

// writeFolded writes the folded lines sorted by stack, each with its
// nanoseconds.
func writeFolded(w io.Writer, byLine map[string]format.Time) error {
	lines := make([]string, 0, len(byLine))
	for l := range byLine {
		lines = append(lines, l)
	}
	sort.Strings(lines)
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		bw.WriteString(l)
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatInt(int64(byLine[l]), 10))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
