// Command jfrcmp compares, kind by kind, two recordings of the same JVM over one wall-clock
// window: orca record's and the import (orca import) of the JFR recording made beside it
// (bench/servers.sh with -XX:StartFlightRecording and bench/zero.jfc; bench/jfr-servers.sh).
//
//	go run ./bench/jfrcmp [-from UNIX_S -to UNIX_S] [-groups N] ORCA_PREFIX IMPORT_PREFIX
//
// An interval (MonitorContendedEnter, ObjectWait, ThreadPark, ThreadSleep, ThreadJoin) counts when
// it began at or after -from and ended at or before -to: JFR writes an event when it ends, and
// only if it was enabled when it began, so both captures have every such interval. ThreadStart,
// ThreadEnded count by their instant. Without -from/-to the window is the overlap of the two
// recordings' start_s..end_s (.info), less a second at each end; it never starts before JFR's
// recording did (the import's start_s). Threads of JFR itself (names
// beginning "JFR "), whose events JFR does not record, are left out of both. Per kind: the
// counts, the summed durations, and the thread groups (names with digits as #) that differ most.
//
//	-match KIND   pair KIND's intervals (thread name, overlap within 20 µs): those of one side
//	              only, and the mean offsets of the two captures' ends (for enters, the owners)
//	-owners       check orca's owners: the thread itself, one that had ended, one blocked on or
//	              waiting in the same monitor when the enter began
//	-wakes        how each Object.wait in the window ended, by the two models (orca's: the first
//	              notify sent since to a set of waiters it was in, before its Waited; the import's:
//	              JFR's notifier, HotSpot's own): the waits matched, notified or not by each,
//	              and those that differ, with the notify's time against the wait's timeout
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// kinds compared: the begin kinds of intervals, then the instants.
var intervals = []format.Kind{format.MonitorContendedEnter, format.ObjectWait, format.ThreadPark, format.ThreadSleep, format.ThreadJoin}

// ClassInitWaited: the agent sees a class initialisation's wait only at its end (docs/agent.md,
// "Class initialisation"); JFR records it as a JavaMonitorWait on the init lock, an int[]: both
// count by the end.
var instants = []format.Kind{format.ThreadStart, format.ThreadEnded, format.ClassInitWaited}

type tally struct {
	n   int
	dur float64 // seconds
}

// side is one recording's tallies: per kind and thread group.
type side struct {
	spans   map[format.Kind]map[string][]ival // by thread name, for -match
	byKind  map[format.Kind]*tally
	byGroup map[format.Kind]map[string]*tally
	owners  map[format.Kind][2]int // contended enters with an owner named, and all
}

// ival is one interval, Unix seconds, with its innermost frames (-match).
type ival struct {
	a, b  float64
	where string
	owner string // a contended enter's owner (JFR: previousOwner), "" when none
}

var digits = regexp.MustCompile(`[0-9]+`)

func group(name string) string { return digits.ReplaceAllString(name, "#") }

func origin(r *reader.Recording) (mono, unix int64) {
	mono, _ = strconv.ParseInt(r.Info[format.InfoOriginMonoNS], 10, 64)
	unix, _ = strconv.ParseInt(r.Info[format.InfoOriginUnixNS], 10, 64)
	return
}

// span returns a recording's start_s and end_s as Unix seconds.
func span(r *reader.Recording) (float64, float64) {
	mono, unix := origin(r)
	a, _ := strconv.ParseFloat(r.Info[format.InfoStart], 64)
	b, _ := strconv.ParseFloat(r.Info[format.InfoEnd], 64)
	return a + float64(unix-mono)/1e9, b + float64(unix-mono)/1e9
}

func open(prefix string) *reader.Recording {
	r, err := reader.Open(prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jfrcmp:", err)
		os.Exit(1)
	}
	return r
}

// events reads every event of r (a server's recording: a few million at
// most), exiting on an error.
func events(r *reader.Recording) []reader.Event {
	evs, c, err := r.Events()
	if err != nil {
		fmt.Fprintln(os.Stderr, "jfrcmp:", err)
		os.Exit(1)
	}
	defer c.Close()
	var all []reader.Event
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			return all
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "jfrcmp:", err)
			os.Exit(1)
		}
		all = append(all, ev)
	}
}

func tallies(r *reader.Recording, from, to float64) *side {
	mono, unix := origin(r)
	off := float64(unix-mono) / 1e9 // recording seconds + off = Unix seconds
	s := &side{spans: map[format.Kind]map[string][]ival{}, byKind: map[format.Kind]*tally{}, byGroup: map[format.Kind]map[string]*tally{}, owners: map[format.Kind][2]int{}}
	names := map[format.ThreadID]string{}
	type key struct {
		th format.ThreadID
		k  format.Kind
	}
	type begun struct {
		at    float64
		owner format.ThreadID
		obj   format.ObjectID
		where string
	}
	classes := map[format.ObjectID]string{}
	open := map[key][]begun{}
	add := func(k format.Kind, th format.ThreadID, d float64) {
		name := names[th]
		if strings.HasPrefix(name, "JFR ") {
			return
		}
		t := s.byKind[k]
		if t == nil {
			t = &tally{}
			s.byKind[k] = t
		}
		t.n++
		t.dur += d
		g := s.byGroup[k]
		if g == nil {
			g = map[string]*tally{}
			s.byGroup[k] = g
		}
		gt := g[group(name)]
		if gt == nil {
			gt = &tally{}
			g[group(name)] = gt
		}
		gt.n++
		gt.dur += d
	}
	want := map[format.Kind]bool{}
	for _, k := range intervals {
		want[k] = true
	}
	for _, ev := range events(r) {
		ts := ev.Time.Seconds() + off
		switch k := ev.Kind; {
		case k == format.ThreadStarted:
			if _, ok := names[ev.Thread]; !ok || !ev.Carried {
				names[ev.Thread] = ev.Name
			}
		case k == format.ObjectClass:
			classes[ev.Object] = ev.Class
		case k == format.ThreadStart || k == format.ThreadEnded || k == format.ClassInitWaited:
			if ts >= from && ts <= to {
				add(k, ev.Thread, 0)
			}
		case want[k]:
			kk := key{ev.Thread, k}
			where := ""
			if *match != "" && k.String() == *match {
				for i, fr := range ev.Stack {
					if i == 3 {
						break
					}
					where += " " + r.Resolve(fr)
				}
			}
			open[kk] = append(open[kk], begun{ts, ev.Owner, ev.Object, where})
		case want[k.Begin()]:
			kk := key{ev.Thread, k.Begin()}
			st := open[kk]
			if len(st) == 0 {
				continue
			}
			b := st[len(st)-1]
			open[kk] = st[:len(st)-1]
			if k == format.ObjectWaited && classes[b.obj] == "[I" {
				if ts >= from && ts <= to {
					add(format.ClassInitWaited, ev.Thread, ts-b.at)
				}
				continue
			}
			if b.at >= from && ts <= to {
				add(k.Begin(), ev.Thread, ts-b.at)
				if *match != "" && k.Begin().String() == *match && !strings.HasPrefix(names[ev.Thread], "JFR ") {
					m := s.spans[k.Begin()]
					if m == nil {
						m = map[string][]ival{}
						s.spans[k.Begin()] = m
					}
					m[names[ev.Thread]] = append(m[names[ev.Thread]], ival{b.at, ts, b.where, names[b.owner]})
				}
				if k.Begin() == format.MonitorContendedEnter && !strings.HasPrefix(names[ev.Thread], "JFR ") {
					o := s.owners[k.Begin()]
					o[1]++
					if b.owner != 0 {
						o[0]++
					}
					s.owners[k.Begin()] = o
				}
			}
		}
	}
	return s
}

var match = flag.String("match", "", "a begin kind (ObjectWait…): list its intervals one capture has and the other lacks, matched by thread name and overlap")

// slack: two intervals this close match (s): a park that returns at once lasts 2 µs, and the
// two captures stamp its ends a few µs apart (the agent's callbacks are inside JFR's event).
const slack = 20e-6

// unmatched prints the intervals of one side that overlap none of the other side's, within
// slack, on a thread of the same name (each matched once, in order of start).
func unmatched(k format.Kind, x, y *side, xn, yn string) {
	n, m := 0, 0
	var da, db float64
	var same, differ, xNone, yNone int
	for name, xs := range x.spans[k] {
		ys := y.spans[k][name]
		used := make([]bool, len(ys))
		for _, v := range xs {
			ok := false
			for j, w := range ys {
				if !used[j] && v.a <= w.b+slack && w.a <= v.b+slack {
					used[j], ok = true, true
					m++
					da += v.a - w.a
					db += v.b - w.b
					switch {
					case v.owner == "" && w.owner == "":
					case v.owner == "":
						xNone++
					case w.owner == "":
						yNone++
					case v.owner == w.owner:
						same++
					default:
						differ++
					}
					break
				}
			}
			if !ok {
				n++
				if n <= 40 {
					fmt.Printf("  only %s: %-30q %.6f..%.6f (%.6f s)%s\n", xn, name, v.a, v.b, v.b-v.a, v.where)
				}
			}
		}
	}
	fmt.Printf("  %s intervals only %s has: %d; of the %d matched, %s's begin - %s's %+.1f us, end %+.1f us on average\n",
		k, xn, n, m, xn, yn, 1e6*da/float64(max(m, 1)), 1e6*db/float64(max(m, 1)))
	if k == format.MonitorContendedEnter {
		fmt.Printf("  owners of the matched: the same thread name %d, different %d, none by %s %d, none by %s %d\n", same, differ, xn, xNone, yn, yNone)
	}
}

var ownersShown = flag.Int("owners-shown", 10, "with -owners: how many suspect owners to list")
var ownersCheck = flag.Bool("owners", false, "check orca's owners: a contended enter's owner must not be the thread itself, ended, or blocked on or waiting in the same monitor when the enter began")

// checkOwners reads a recording and counts the contended enters whose owner cannot hold the
// monitor at that instant, with the first few.
func checkOwners(r *reader.Recording) {
	type tm struct {
		th  format.ThreadID
		obj format.ObjectID
	}
	// when each open state began (the last one): a wait's ObjectWait is written before the
	// thread releases the monitor, a contended enter's Entered after it got it, so an owner seen
	// waiting or blocked for a few microseconds still held the monitor
	blocked, waiting := map[tm]int{}, map[tm]int{}
	since := map[tm]format.Time{}
	const slack = 200 * format.Time(1000)      // ns
	ended := map[format.ThreadID]format.Time{} // when each thread ended
	names := map[format.ThreadID]string{}
	var n, self, gone, inEnter, inWait, justWaiting int
	// an owner blocked entering the monitor: how long after the enter's time its own Entered came
	pendingIn := map[tm][]format.Time{}
	var inGaps []format.Time
	// the agent writes each thread's events in order, two threads' by their flushes: sorted by time
	var all []reader.Event
	for _, ev := range events(r) {
		switch ev.Kind {
		case format.ThreadStarted, format.ThreadEnded, format.ObjectWait, format.ObjectWaited, format.MonitorContendedEnter, format.MonitorContendedEntered:
			ev.Stack = nil
			all = append(all, ev)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time < all[j].Time })
	for _, ev := range all {
		switch ev.Kind {
		case format.ThreadStarted:
			names[ev.Thread] = ev.Name
			delete(ended, ev.Thread)
		case format.ThreadEnded:
			ended[ev.Thread] = ev.Time
		case format.ObjectWait:
			waiting[tm{ev.Thread, ev.Object}]++
			since[tm{ev.Thread, ev.Object}] = ev.Time
		case format.ObjectWaited:
			if waiting[tm{ev.Thread, ev.Object}] > 0 {
				waiting[tm{ev.Thread, ev.Object}]--
			}
		case format.MonitorContendedEntered:
			if blocked[tm{ev.Thread, ev.Object}] > 0 {
				blocked[tm{ev.Thread, ev.Object}]--
			}
			for _, at := range pendingIn[tm{ev.Thread, ev.Object}] {
				inGaps = append(inGaps, ev.Time-at)
			}
			delete(pendingIn, tm{ev.Thread, ev.Object})
		case format.MonitorContendedEnter:
			o := ev.Owner
			if o != 0 {
				n++
				bad := ""
				switch {
				case o == ev.Thread:
					self++
					bad = "the thread itself"
				case ended[o] != 0:
					gone++
					bad = fmt.Sprintf("ended %v ns before", ev.Time-ended[o])
				case blocked[tm{o, ev.Object}] > 0:
					inEnter++
					bad = "itself blocked entering it"
					pendingIn[tm{o, ev.Object}] = append(pendingIn[tm{o, ev.Object}], ev.Time)
				case waiting[tm{o, ev.Object}] > 0 && ev.Time-since[tm{o, ev.Object}] > slack:
					inWait++
					bad = fmt.Sprintf("waiting in it for %v", ev.Time-since[tm{o, ev.Object}])
				case waiting[tm{o, ev.Object}] > 0:
					justWaiting++
				}
				if bad != "" && self+gone+inEnter+inWait <= *ownersShown {
					fmt.Printf("  line %d: %s blocked on %s, owner %s (%q) %s\n", ev.Line, names[ev.Thread], ev.Object, o, names[o], bad)
				}
			}
			blocked[tm{ev.Thread, ev.Object}]++
		}
	}
	fmt.Printf("owners checked: %d contended enters with an owner; the owner was the thread itself %d, ended %d, blocked entering the same monitor %d, waiting in it %d (and %d within 200 us of its ObjectWait: still releasing it)\n",
		n, self, gone, inEnter, inWait, justWaiting)
	if len(inGaps) > 0 {
		slices.Sort(inGaps)
		fmt.Printf("  an owner blocked entering it got it (its Entered) after the enter's time by: median %v, max %v\n", inGaps[len(inGaps)/2], inGaps[len(inGaps)-1])
	}
}

var wakesCheck = flag.Bool("wakes", false, "compare how each Object.wait in the window ended, by orca's model and by JFR's notifier (the import's model)")

// wait is one Object.wait of a model, Unix seconds: its wake kind, the notifier's name and the
// notify's time (0 when none), its timeout (ns; 0: none or not known).
type wait struct {
	a, b     float64
	wake     model.Wake
	by       string
	notifyAt float64
	timeout  int64
	timedOut bool // JFR's timedOut (HotSpot's park timed out), from the import's .ext
}

// waitsOf folds r and returns its waits that began at or after from and ended at or before to,
// by thread name (JFR's own threads left out).
func waitsOf(r *reader.Recording, from, to float64) map[string][]wait {
	built, err := model.Build(r, model.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "jfrcmp:", err)
		os.Exit(1)
	}
	m := built.Model
	mono, unix := origin(r)
	off := float64(unix-mono) / 1e9
	names := map[format.ThreadID]string{}
	for _, th := range m.Threads {
		names[th.ID] = th.Name
	}
	type tk struct {
		to format.ThreadID
		at format.Time
	}
	notifyAt := map[tk]format.Time{}
	for _, e := range m.AllEdges() {
		if e.Kind == model.EdgeWake {
			notifyAt[tk{e.To, e.ToTime}] = e.FromTime
		}
	}
	// the timeouts, by thread and the wait's begin (ObjectWaitTimeout comes with its ObjectWait)
	timeouts := map[tk]int64{}
	for _, ev := range events(r) {
		if ev.Kind == format.ObjectWaitTimeout {
			timeouts[tk{ev.Thread, ev.Time}] = ev.Timeout
		}
	}
	// an import's: JFR's timedOut, at the wait's end
	timedOut := map[tk]bool{}
	if x, c, err := r.Ext(); err == nil && x != nil {
		for {
			ev, err := x.Next()
			if err != nil {
				break
			}
			if ev.Kind == format.ExtWaitNotifier {
				timedOut[tk{ev.Thread, ev.Time}] = ev.TimedOut
			}
		}
		c.Close()
	}
	out := map[string][]wait{}
	var buf []model.Interval
	for _, th := range m.Threads {
		if strings.HasPrefix(th.Name, "JFR ") {
			continue
		}
		byStart := map[format.Time]*wait{}
		var order []format.Time
		for _, iv := range m.IntervalsOf(th, &buf) {
			if iv.State != model.Waiting {
				continue
			}
			w := byStart[iv.Since]
			if w == nil {
				w = &wait{a: iv.Since.Seconds() + off, wake: iv.Wake, by: names[iv.Other], timeout: timeouts[tk{th.ID, iv.Since}]}
				byStart[iv.Since] = w
				order = append(order, iv.Since)
			}
			w.b = iv.End.Seconds() + off
			w.timedOut = timedOut[tk{th.ID, iv.End}]
			if at, ok := notifyAt[tk{th.ID, iv.End}]; ok {
				w.notifyAt = at.Seconds() + off
			}
		}
		for _, since := range order {
			if w := byStart[since]; w.a >= from && w.b <= to && w.wake != model.WakeNever {
				out[th.Name] = append(out[th.Name], *w)
			}
		}
	}
	return out
}

// compareWakes matches orca's waits with the import's (thread name, overlap within slack) and
// counts how each ended by both: notified (notify, notifyAll, ambiguous) or not (timeout).
func compareWakes(o, f *reader.Recording, from, to float64) {
	ow, fw := waitsOf(o, from, to), waitsOf(f, from, to)
	notified := func(w model.Wake) bool {
		return w == model.WakeNotify || w == model.WakeNotifyAll || w == model.WakeAmbiguous
	}
	var both, neither, onlyOrca, onlyJFR, unmatchedN, shown int
	var jfrNotifiedTimedOut, jfrTimedOutOrcaNotified int
	var late [2]int // orca's notified with JFR's timedOut whose notify orca timed after the wait's timeout: [JFR not notified, notified]
	names := make([]string, 0, len(ow))
	for name := range ow {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ys := fw[name]
		used := make([]bool, len(ys))
		for _, v := range ow[name] {
			j := -1
			for k, w := range ys {
				if !used[k] && v.a <= w.b+slack && w.a <= v.b+slack {
					j = k
					break
				}
			}
			if j < 0 {
				unmatchedN++
				continue
			}
			used[j] = true
			w := ys[j]
			a, b := notified(v.wake), notified(w.wake)
			if b && w.timedOut {
				jfrNotifiedTimedOut++
			}
			if a && w.timedOut {
				jfrTimedOutOrcaNotified++
				if v.timeout > 0 && v.notifyAt-v.a >= float64(v.timeout)/1e9 {
					late[btoi(b)]++
				}
			}
			switch {
			case a && b:
				both++
			case !a && !b:
				neither++
			case a:
				onlyOrca++
			default:
				onlyJFR++
			}
			if a != b && shown < *ownersShown {
				shown++
				at := func(x wait) string {
					if x.notifyAt == 0 {
						return "no notify"
					}
					return fmt.Sprintf("notify by %q at +%.6f s", x.by, x.notifyAt-x.a)
				}
				fmt.Printf("  %-30q %.6f..%.6f (%.6f s, timeout %s): orca %s (%s), JFR %s (%s; timedOut %v)\n", name, v.a, v.b, v.b-v.a,
					cmp.Or(map[bool]string{true: fmt.Sprintf("%.6f s", float64(v.timeout)/1e9)}[v.timeout > 0], "none"),
					v.wake, at(v), w.wake, at(w), w.timedOut)
			}
		}
	}
	fmt.Printf("waits matched %d (orca's not matched %d): notified by both %d, by neither %d, by orca only %d, by JFR only %d\n",
		both+neither+onlyOrca+onlyJFR, unmatchedN, both, neither, onlyOrca, onlyJFR)
	fmt.Printf("  JFR's timedOut (the park timed out): of JFR's notified %d, of orca's notified %d (orca's notify after the wait's timeout: %d of those JFR notified, %d of the others)\n",
		jfrNotifiedTimedOut, jfrTimedOutOrcaNotified, late[1], late[0])
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func main() {
	from := flag.Float64("from", 0, "window start, Unix seconds")
	to := flag.Float64("to", 0, "window end, Unix seconds")
	groups := flag.Int("groups", 5, "thread groups listed per kind that differs")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: jfrcmp [-from S -to S] ORCA_PREFIX IMPORT_PREFIX")
		os.Exit(2)
	}
	o, f := open(flag.Arg(0)), open(flag.Arg(1))
	if *ownersCheck {
		checkOwners(open(flag.Arg(0)))
	}
	oa, ob := span(o)
	fa, fb := span(f)
	if *from == 0 && *to == 0 {
		*from, *to = max(oa, fa)+1, min(ob, fb)-1
	}
	// JFR records from its first chunk's start, late in the JVM's start-up: a window from before
	// it (an in-JVM load's, bench/servers.sh derby and lucene) starts there
	if *from < fa {
		fmt.Printf("window start moved %.3f s later, to JFR's start\n", fa-*from)
		*from = fa
	}
	fmt.Printf("window %.3f..%.3f (%.1f s)\n", *from, *to, *to-*from)
	so, sf := tallies(o, *from, *to), tallies(f, *from, *to)
	fmt.Printf("%-22s %9s %9s %7s %11s %11s\n", "kind", "orca", "JFR", "diff", "orca_s", "JFR_s")
	for _, k := range append(append([]format.Kind{}, intervals...), instants...) {
		a, b := so.byKind[k], sf.byKind[k]
		if a == nil {
			a = &tally{}
		}
		if b == nil {
			b = &tally{}
		}
		fmt.Printf("%-22s %9d %9d %7d %11.3f %11.3f\n", k, a.n, b.n, a.n-b.n, a.dur, b.dur)
		if a.n == b.n {
			continue
		}
		type gd struct {
			g    string
			a, b tally
		}
		var ds []gd
		seen := map[string]bool{}
		for _, m := range []map[string]*tally{so.byGroup[k], sf.byGroup[k]} {
			for g := range m {
				if seen[g] {
					continue
				}
				seen[g] = true
				var x, y tally
				if t := so.byGroup[k][g]; t != nil {
					x = *t
				}
				if t := sf.byGroup[k][g]; t != nil {
					y = *t
				}
				if x.n != y.n {
					ds = append(ds, gd{g, x, y})
				}
			}
		}
		abs := func(v int) int {
			if v < 0 {
				return -v
			}
			return v
		}
		sort.Slice(ds, func(i, j int) bool { return abs(ds[i].a.n-ds[i].b.n) > abs(ds[j].a.n-ds[j].b.n) })
		for i := 0; i < len(ds) && i < *groups; i++ {
			fmt.Printf("    %-40q %7d %7d %11.3f %11.3f\n", ds[i].g, ds[i].a.n, ds[i].b.n, ds[i].a.dur, ds[i].b.dur)
		}
	}
	if *match != "" {
		for k := format.Kind(1); k < format.NumKinds; k++ {
			if k.String() == *match {
				unmatched(k, so, sf, "orca", "JFR")
				unmatched(k, sf, so, "JFR", "orca")
			}
		}
	}
	if *wakesCheck {
		compareWakes(o, f, *from, *to)
	}
	oo, fo := so.owners[format.MonitorContendedEnter], sf.owners[format.MonitorContendedEnter]
	fmt.Printf("contended enters with an owner: orca %d of %d, JFR (previousOwner) %d of %d\n", oo[0], oo[1], fo[0], fo[1])
}
