package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

// WriteText writes the report for a terminal: a headline, then DEADLOCKS,
// HANGS, WAITING ALONE (only when a thread is), CONTENTION, CALL SITES, WAIT/NOTIFY, CPU and THREADS, each ranked.
// An empty section is one line ("No deadlocks."). Stacks are shortened as
// compact describes; thread names are quoted and followed by their id.
func (r *Report) WriteText(w io.Writer) error {
	t := &textWriter{w: w, width: r.width, classes: r.classes, inits: r.inits}
	if t.width <= 0 {
		t.width = 100
	}
	r.headline(t)
	r.deadlockSection(t)
	r.potentialSection(t)
	r.hangSection(t)
	r.aloneSection(t)
	r.contentionSection(t)
	r.chainSection(t)
	r.siteSection(t)
	r.waitSection(t)
	r.classInitSection(t)
	r.cpuSection(t)
	r.threadSection(t)
	return t.err
}

// textWriter keeps the first write error so sections need not check.
type textWriter struct {
	w     io.Writer
	width int
	err   error
	// classes: the recording's class table (Report.classes), to name the
	// class a java.lang.Class object is (named).
	classes map[format.ClassID]*reader.Class
	// inits: the JVM's init locks of classes (Report.inits).
	inits map[string]string
}

// initOf is the class whose initialisation the monitor object is the
// JVM's init lock of; ok false when it is no such lock.
func (t *textWriter) initOf(object *string) (string, bool) {
	if object == nil {
		return "", false
	}
	c, ok := t.inits[*object]
	return c, ok
}

// initWait says what a thread blocked on the JVM's init lock of class
// (object) waits for: "waiting for the initialisation of class X (the
// JVM's init lock, int[] H)". Its owner runs the initialiser (a wait the
// agent saw still open: docs/agent.md, "Class initialisation"), or holds
// the lock for a moment to link the class or mark it initialised.
func initWait(object, class string) string {
	if class == "" {
		return "waiting for a class's initialisation (the JVM's init lock, int[] " + object + "; no frame named the class)"
	}
	return "waiting for the initialisation of class " + format.JavaName(class) + " (the JVM's init lock, int[] " + object + ")"
}

// printf writes f with args, as fmt.Fprintf.
//
// A line break in a string argument is shown as \n, as the JSON shows it:
// the text's own line breaks are in f, and the arguments are the
// recording's words — a class, method or source file name may hold any
// character (NlMain.java's class "Q1\nQ2"), a thread name (quoted %q
// already) or the command line too —, whose line break began a line of its
// own, a forged one. (The other control characters are escaped by
// cmd/orca's termSafeWriter, which keeps the text's line breaks.)
func (t *textWriter) printf(f string, args ...any) {
	if t.err != nil {
		return
	}
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = oneLine(s)
		}
	}
	_, t.err = fmt.Fprintf(t.w, f, args...)
}

// oneLine returns s with each line break shown as \n (textWriter.printf).
func oneLine(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(s, "\n", `\n`)
}

// section starts a section: a blank line and its title.
func (t *textWriter) section(title string, args ...any) {
	t.printf("\n"+title+"\n", args...)
}

// frames prints a compacted stack, indented.
func (t *textWriter) frames(indent string, frames []string) {
	for _, f := range compact(frames) {
		t.printf("%s%s\n", indent, f)
	}
}

// siteFrames are the frames of the sites listed.
func siteFrames[S any](sites []S, frames func(S) []string) [][]string {
	out := make([][]string, len(sites))
	for i, s := range sites {
		out[i] = frames(s)
	}
	return out
}

// framesAmong prints frames as frames does, made to differ from the
// siblings listed with them (compactAmong).
func (t *textWriter) framesAmong(indent string, frames []string, siblings [][]string) {
	for _, f := range compactAmong(frames, siblings) {
		t.printf("%s%s\n", indent, f)
	}
}

// table prints rows with columns padded to their widest cell; right[i]
// right-aligns column i (nil: all but the first). A left-aligned last
// column is not padded.
func (t *textWriter) table(indent string, right []bool, rows [][]string) {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			c = oneLine(c) // as printf shows it
			row[i] = c
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			switch {
			case (right == nil && i > 0) || (i < len(right) && right[i]):
				b.WriteString(pad + c)
			case i == len(row)-1:
				b.WriteString(c)
			default:
				b.WriteString(c + pad)
			}
		}
		t.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
}

// dur formats a duration in seconds with a unit that keeps 3 significant
// digits readable: "2.12 s", "60.4 ms", "85 us", "0".
func dur(s float64) string {
	switch {
	case s == 0:
		return "0 s"
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.1f ms", s*1e3)
	default:
		return fmt.Sprintf("%.0f us", s*1e6)
	}
}

// at formats a time since the recording's start.
func at(s float64) string { return fmt.Sprintf("%.3f s", s) }

// label shows a thread as "name" (ID), or thread ID when it has no name.
// A name is never cut: the threads of a pool differ in their last
// characters ("http-nio-18080-exec-1", "http-nio-18080-exec-10"), so a
// table widens for a long name instead.
func (t *textWriter) label(id string, name *string) string { return label(id, name) }

func label(id string, name *string) string {
	if name == nil || *name == "" {
		return "thread " + id
	}
	return fmt.Sprintf("%q (%s)", *name, id)
}

func count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, plural(n, one, many))
}

// shown says how many of total entries a section lists.
func shown(n, total int) string {
	if n == total {
		return ""
	}
	return fmt.Sprintf(" (top %d shown; --top 0 shows all)", n)
}

func (r *Report) headline(t *textWriter) {
	t.printf("orca report: %s", r.Prefix)
	var about []string
	if r.Command != nil {
		about = append(about, *r.Command)
	}
	if r.PID != nil {
		about = append(about, "pid "+*r.PID)
	}
	if r.Java != nil {
		about = append(about, "Java "+*r.Java)
	}
	if len(about) > 0 {
		t.printf(" (%s)", strings.Join(about, ", "))
	}
	t.printf("\n")
	t.printf("  %s recorded, %s, %s\n", dur(r.DurationS), count(r.ThreadsAll, "thread", "threads"), count(r.Events, "event", "events"))
	if g := r.Range; g != nil {
		t.printf("  the range %.3f s to %.3f s of %.3f s recorded (--from, --to, --last): a state begun before it counts from %.3f s\n",
			g.FromS, g.ToS, g.RecordingS, g.FromS)
		if g.Whole {
			t.printf("    read all %s of the text .orca and kept the range\n", BytesText(g.BytesTotal))
		} else {
			t.printf("    read %s of %s in %d %s\n", BytesText(g.BytesRead), BytesText(g.BytesTotal), g.Chunks, plural(g.Chunks, "chunk", "chunks"))
		}
		t.printf("  times are seconds since the recording's first event (%.9f s in orca dump)\n", r.OriginS)
	} else {
		t.printf("  times are seconds since the first event (%.9f s in orca dump)\n", r.OriginS)
	}
	t.entries(r.headEntries())
	if r.Filter != nil {
		t.printf("  --thread %q: %s of %d match; the sections show only their events\n",
			r.Filter.Thread, count(r.Filter.Matched, "thread", "threads"), r.ThreadsAll)
	}
	dl := "deadlocks: 0"
	if n := len(r.Deadlocks); n > 0 {
		dl = fmt.Sprintf("DEADLOCKS: %d", n)
	} else if r.deadlocksHidden() {
		dl = "deadlocks: not visible"
	}
	app, jdk := r.splitHangs()
	hg := "hangs: 0"
	if n := len(app); n > 0 {
		hg = fmt.Sprintf("HANGS: %d", n)
	} else if r.hangsHidden() {
		hg = "hangs: not visible"
	}
	if n := len(r.WaitingAlone); n > 0 {
		hg += fmt.Sprintf(", waiting alone: %d", n)
	}
	if len(jdk) > 0 {
		hg += fmt.Sprintf(" (+%d JDK %s idle)", len(jdk), plural(len(jdk), "thread", "threads"))
	}
	t.printf("  %s   %s\n", dl, hg)
	// Monitors and j.u.c. locks (the THREADS table's "blocked"), then
	// semaphores (its "acquiring"): each figure is a column's sum.
	locks := r.LocksTotal - r.SemaphoresTotal
	cl := fmt.Sprintf("contended locks: %d", locks)
	end := r.end()
	switch {
	case r.OpenS > 0 && r.BlockedS == 0:
		cl += fmt.Sprintf(", %s blocked, all of it by threads still blocked at %s", dur(r.OpenS), end)
	case r.OpenS > 0:
		cl += fmt.Sprintf(", %s blocked (%s of it by threads still blocked at %s)", dur(r.BlockedS+r.OpenS), dur(r.OpenS), end)
	case locks > 0:
		cl += fmt.Sprintf(", %s blocked", dur(r.BlockedS))
	}
	if r.SemaphoresTotal > 0 {
		cl += fmt.Sprintf("; semaphores: %d, %s acquiring a permit", r.SemaphoresTotal, dur(r.AcquiringS))
	}
	t.printf("  %s\n", cl)

	// Anything that makes the numbers below incomplete is flagged with !!.
	t.entries(r.tailEntries())
}

// end names where the recording ended: "the cut" in a cut one, where
// what is still going on may have stopped a moment later.
func (r *Report) end() string {
	if r.Cut != nil {
		return "the cut"
	}
	return "the end"
}

func first(s []string) string {
	if len(s) == 0 {
		return "?"
	}
	return s[0]
}

// waitsFor describes what a thread waits for: "blocked on monitor X held
// by T", "joining T", "waiting on X", "acquiring semaphore X".
// call is the java.util.concurrent call it blocked in (model.CallIndex), ""
// for none.
func (t *textWriter) waitsFor(state string, lock bool, object, class *string, call, other string, otherName *string) string {
	var s string
	switch {
	case state == "blocked" && lock:
		s = "blocked on lock " + t.named(deref(object), class, call)
		if other != "" {
			s += " held by " + t.label(other, otherName)
		} else {
			s += " (owner unknown)"
		}
		return s
	}
	if c, ok := t.initOf(object); ok && state == "blocked" {
		s = initWait(*object, c)
		if other != "" {
			s += ", run by " + t.label(other, otherName)
		} else {
			s += " (initialiser unknown)"
		}
		return s
	}
	switch state {
	case "blocked":
		s = "blocked on monitor " + t.named(deref(object), class, call)
		if other != "" {
			s += " held by " + t.label(other, otherName)
		} else {
			s += " (owner unknown)"
		}
	case "joining":
		s = "joining"
		if other != "" {
			s += " " + t.label(other, otherName)
		}
	case "waiting":
		s = "waiting on " + t.named(deref(object), class, call)
	case "acquiring":
		s = "acquiring semaphore " + deref(object)
	case "parked":
		if object == nil {
			s = "parked (no blocker)"
		} else {
			s = "parked on " + t.named(*object, class, call)
		}
		if other != "" {
			s += " owned by " + t.label(other, otherName)
		}
	default:
		s = state
	}
	return s
}

// classAt is the class of a deadlock's j-th object, nil when unknown.
func classAt(cs []*string, j int) *string {
	if j < len(cs) {
		return cs[j]
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return "?"
	}
	return *s
}

func (r *Report) deadlockSection(t *textWriter) {
	if len(r.Deadlocks) == 0 && r.deadlocksHidden() {
		t.section("Deadlocks: not visible in a %s recording: it writes a monitor enter when the thread gets\n"+
			"the monitor, and a deadlocked thread never does.", r.Sight.sourceName())
		return
	}
	if len(r.Deadlocks) == 0 {
		t.section("No deadlocks.")
		return
	}
	t.section("DEADLOCKS: %d (each thread waits for the next, the last for the first)", len(r.Deadlocks))
	for i, d := range r.Deadlocks {
		switch {
		case d.BeforeAttach && d.AtEnd && r.Cut != nil:
			t.printf("  #%d already deadlocked when orca attached, still there at the cut (≥ %s)\n", i+1, dur(d.LastedS))
		case d.BeforeAttach && d.AtEnd:
			t.printf("  #%d already deadlocked when orca attached, still there at the end (≥ %s)\n", i+1, dur(d.LastedS))
		case d.BeforeAttach:
			t.printf("  #%d already deadlocked when orca attached, broke at %s (after ≥ %s)\n", i+1, at(*d.ResolvedS), dur(d.LastedS))
		case d.AtEnd && r.Cut != nil:
			t.printf("  #%d formed at %s and was still there at the cut, %s later\n", i+1, at(d.AtS), dur(d.LastedS))
		case d.AtEnd:
			t.printf("  #%d formed at %s and was still there at the end, %s later\n", i+1, at(d.AtS), dur(d.LastedS))
		default:
			t.printf("  #%d formed at %s, broke at %s after %s\n", i+1, at(d.AtS), at(*d.ResolvedS), dur(d.LastedS))
		}
		if r.initSeenLate(d.ClassInits) {
			t.printf("     (it may have formed up to two rounds of the agent's walker earlier, 200 ms each by default:\n" +
				"     HotSpot posts no event when a class-initialisation wait begins, the walker sees it at a round)\n")
		}
		for j, th := range d.Threads {
			k := (j + 1) % len(d.Threads)
			t.printf("    %s %s\n", t.label(th, d.Names[j]), t.waitsFor(d.States[j], j < len(d.Locks) && d.Locks[j], d.Objects[j], classAt(d.Classes, j), "", d.Threads[k], d.Names[k]))
			t.frames("        ", d.Stacks[j])
		}
	}
}

// splitHangs returns the hangs and the JDK's service threads that idle at
// the end (in NotHangs, why "jdk"), which they do by design, whether stuck
// as a hang or waiting alone.
func (r *Report) splitHangs() (app, jdk []Hang) {
	for _, h := range r.NotHangs {
		if h.Why == jdkIdle {
			jdk = append(jdk, h)
		}
	}
	return r.Hangs, jdk
}

// aloneSection lists the program's threads waiting alone
// (analysis.Alone): stuck as a hang is, for no thread in particular, with
// none behind them, while the program went on. Nothing when there are none.
func (r *Report) aloneSection(t *textWriter) {
	alone := r.WaitingAlone
	if len(alone) == 0 {
		return
	}
	t.section("WAITING ALONE: %s stuck for %s or more at the end, for no thread in particular\n"+
		"and with no thread behind them, while other threads ran on (not hangs), longest first",
		count(len(alone), "thread", "threads"), dur(analysis.MinHang.Seconds()))
	for _, h := range alone {
		t.printf("  %s %s\n", t.label(h.Thread, h.Name), t.waitsFor(h.State, h.Lock, h.Object, h.Class, h.Call, "", nil))
		s := stuckFor(h, r.initSeenLate([]*string{h.ClassInit}))
		if h.OthersRanUntilS != nil {
			s += fmt.Sprintf("; other threads ran until %s", at(*h.OthersRanUntilS))
		}
		t.printf("%s\n", s)
		t.frames("      ", h.Frames)
	}
}

// initSeenLate: one of inits (a deadlock's threads' classes, Deadlock.ClassInits)
// is a class's initialisation that the agent's walker found still open
// (.info class_init_open): such a wait is written when the walker sees it,
// up to two of its rounds after it began, so the times said of it are
// upper bounds of its start.
func (r *Report) initSeenLate(inits []*string) bool {
	if !r.initOpen {
		return false
	}
	for _, c := range inits {
		if c != nil {
			return true
		}
	}
	return false
}

// stuckFor says how long a stuck thread (a hang, one waiting alone) had
// been in its state at the end: "    for 2.50 s (since 0.500 s), never
// notified"; "for at least" when it was in it at the attach, when it began
// not recorded, or when it waits for a class's initialisation that the
// agent's walker found (late: Report.initSeenLate).
func stuckFor(h Hang, late bool) string {
	s := fmt.Sprintf("    for %s (since %s)", dur(h.ForS), at(h.SinceS))
	if late {
		s = fmt.Sprintf("    for at least %s (since %s or up to two walker rounds before)", dur(h.ForS), at(h.SinceS))
	}
	if h.BeforeAttach {
		s = fmt.Sprintf("    for at least %s (since before the attach)", dur(h.ForS))
	}
	switch h.State {
	case "waiting":
		s += ", never notified"
		if h.Timeout == "unknown" {
			s += " (whether it has a timeout is not recorded)"
		}
	case "parked":
		s += ", never unparked"
	}
	return s
}

func (r *Report) hangSection(t *textWriter) {
	app, jdk := r.splitHangs()
	least := dur(analysis.MinHang.Seconds())
	if r.Cut != nil {
		t.section("No hangs: the recording is cut at %s; the %s in a state then are unknown after it.",
			at(r.Cut.AtS), count(len(r.Cut.UnknownAfter), "thread", "threads"))
	} else if len(app) == 0 && r.hangsHidden() {
		t.section("Hangs: not visible in a %s recording: it writes a wait, monitor enter, park or sleep\n"+
			"when it ends, and a thread stuck at the end is still in it.", r.Sight.sourceName())
	} else if n := len(r.WaitingAlone); len(app) == 0 && n > 0 {
		t.section("No hangs: the %s of the program stuck for %s or more at the end %s alone (below).",
			plural(n, "thread", "threads"), least, plural(n, "waits", "wait"))
	} else if len(app) == 0 {
		t.section("No hangs: no thread of the program was stuck for %s or more at the end.", least)
	} else {
		// A thread in a deadlock, or behind a deadlock or a hang, is one
		// however short its wait so far: say so when one is shorter (a
		// deadlock formed 0.4 s before the end was "stuck for 1.00 s or
		// more").
		inDeadlock, behindOne := false, false
		for _, h := range app {
			if h.ForS < analysis.MinHang.Seconds() {
				inDeadlock = inDeadlock || h.Deadlock != nil
				behindOne = behindOne || h.Deadlock == nil && h.Behind != nil
			}
		}
		behind := ""
		switch {
		case inDeadlock && behindOne:
			behind = " (or in a deadlock, or behind one or a hang)"
		case inDeadlock:
			behind = " (or in a deadlock)"
		case behindOne:
			behind = " (or behind one that is: a deadlock, a hang)"
		}
		t.section("HANGS: %s stuck for %s or more at the end%s, longest first", count(len(app), "thread", "threads"), least, behind)
	}
	switch {
	case len(app) == 0 || r.Complete == nil || !*r.Complete:
	case r.Truncated:
		// The JVM ended normally, but the file ends in a cut record: it was
		// cut after it was written (a .info without counts did not let the
		// reader refuse it), and what came after is unknown.
		t.printf("  (stuck where the file ends: it was cut after the JVM wrote it, and what followed is unknown)\n")
	case r.Attached != nil && r.Attached.Stopped:
		// orca stop, or orca record --pid's end: the JVM went on, and so may they.
		t.printf("  (stuck when the recording stopped; the JVM went on, and they may still be)\n")
	case r.ShutdownS != nil:
		// The shutdown ended them: daemon threads at the end of main, any
		// thread at System.exit or a signal (a server's non-daemon main
		// joined forever, stopped by SIGTERM).
		t.printf("  (stuck before the JVM's shutdown began at %s, and the JVM exited with them still\n"+
			"  stuck: daemon threads, or System.exit or a signal such as SIGTERM ended them)\n", at(*r.ShutdownS))
	default:
		t.printf("  (the JVM exited with these threads still stuck: they were daemon threads,\n" +
			"  or System.exit or a signal such as Ctrl-C ended it)\n")
	}
	for _, h := range app {
		other := ""
		if h.Other != nil {
			other = *h.Other
		}
		t.printf("  %s %s\n", t.label(h.Thread, h.Name), t.waitsFor(h.State, h.Lock, h.Object, h.Class, h.Call, other, h.OtherName))
		s := stuckFor(h, r.initSeenLate([]*string{h.ClassInit}))
		if h.Deadlock != nil {
			s += fmt.Sprintf(", in deadlock #%d", *h.Deadlock+1)
		}
		if h.Behind != nil {
			s += ", stuck behind " + t.label(*h.Behind, h.BehindName)
			if h.BehindDeadlock != nil {
				s += fmt.Sprintf(" in deadlock #%d", *h.BehindDeadlock+1)
			} else {
				s += ", itself stuck"
			}
		}
		t.printf("%s\n", s)
		t.frames("      ", h.Frames)
	}
	if len(jdk) > 0 {
		var ss []string
		for _, h := range jdk {
			ss = append(ss, t.label(h.Thread, h.Name))
		}
		t.printf("  JDK service threads idle at the end (not hangs): %s\n", strings.Join(ss, ", "))
	}
	r.notHangs(t)
}

// notHangs says which threads of the program were in a state at the end
// without being hangs, and why (analysis.OpenAtEnd).
func (r *Report) notHangs(t *textWriter) {
	by := map[string][]string{}
	n := 0
	for _, h := range r.NotHangs {
		if !h.JDK {
			by[h.Why] = append(by[h.Why], t.label(h.Thread, h.Name))
			n++
		}
	}
	if n == 0 {
		return
	}
	least := dur(analysis.MinHang.Seconds())
	t.printf("  not hangs: %s blocked, waiting, joining, acquiring or parked at the end\n", count(n, "thread", "threads"))
	line := func(why, what string) {
		names := by[why]
		if len(names) == 0 {
			return
		}
		const most = 4
		list := strings.Join(names[:min(most, len(names))], ", ")
		if len(names) > most {
			list += fmt.Sprintf(", ... %d more", len(names)-most)
		}
		t.printf("    %d %s:\n      %s\n", len(names), what, list)
	}
	line("timed", "in a park or a wait with a timeout (it ends by itself)")
	line("released", "parked, but unparked by another thread before the end (free to run)")
	line("self_join", "joining itself (Thread.currentThread().join(): waits for the JVM's end by design)")
	line("joins_working", "joining a thread still at work at the end (the join returns when it is done)")
	// As analysis.OpenAtEnd: the shutdown counts unless the JVM did not exit.
	exited := r.ShutdownS != nil && (r.Complete == nil || *r.Complete)
	if exited {
		line("shutdown", fmt.Sprintf("entered during the shutdown (from %s)", at(*r.ShutdownS)))
	}
	if exited {
		line("short", fmt.Sprintf("in it for less than %s when the shutdown began", least))
	} else {
		line("short", fmt.Sprintf("in it for less than %s at the end", least))
	}
	line("kill", fmt.Sprintf("in it for less than %s at the kill (whether they stayed is unknown)", least))
}

func (r *Report) contentionSection(t *textWriter) {
	if len(r.Locks) == 0 && r.parks {
		t.section("No lock contention: no thread blocked on a monitor or a java.util.concurrent lock, or waited for a semaphore permit.")
		return
	}
	if len(r.Locks) == 0 {
		t.section("No lock contention: no thread blocked on a monitor or waited for a semaphore permit.")
		return
	}
	what := count(r.LocksTotal, "contended lock", "contended locks")
	if s := r.SemaphoresTotal; s > 0 {
		what = count(r.LocksTotal-s, "contended lock", "contended locks") + " and " + count(s, "semaphore", "semaphores")
	}
	t.section("CONTENTION: %s by time threads were blocked on them%s", what, shown(len(r.Locks), r.LocksTotal))
	monitorSplit := false
	defer func() {
		if monitorSplit {
			// docs/report-json.md, "What the holders did".
			t.printf("  (a monitor's exit is not recorded: what its holder was doing includes the hand-off, from\n" +
				"  the holder's exit to the next owner's entry, told as what the holder did then)\n")
		}
	}()
	for i, l := range r.Locks {
		what := t.lockNamed(l.Kind, l.Object, l.Class, l.InitOf, l.Call)
		var more []string
		if l.Contentions > 0 && l.BeforeEvents == l.Contentions && l.Open == 0 {
			// All begun before the events: their length is not known.
			t.printf("  #%d %s: %s by %s, %s\n", i+1, what, count(l.Contentions, "contention", "contentions"),
				count(len(l.Waiters), "thread", "threads"), beforeEvents(l.Contentions, l.BeforeEvents))
		} else if l.Contentions > 0 {
			t.printf("  #%d %s: %s blocked, %s by %s\n", i+1, what, dur(l.BlockedS),
				count(l.Contentions, "contention", "contentions"), count(len(l.Waiters), "thread", "threads"))
			more = append(more, fmt.Sprintf("mean %s, max %s", dur(l.MeanBlockedS), dur(l.MaxBlockedS)))
			if l.Open > 0 {
				more = append(more, stillBlocked(l.Open, l.OpenS, r.end()))
			}
		} else {
			t.printf("  #%d %s: %s\n", i+1, what, stillBlocked(l.Open, l.OpenS, r.end()))
		}
		if l.OwnerUnknown > 0 && l.BeforeEvents == l.Contentions+l.Open {
			more = append(more, "owner unknown") // and how long, as their lengths
		} else if l.OwnerUnknown > 0 {
			more = append(more, fmt.Sprintf("owner unknown for %s (%s)", count(l.OwnerUnknown, "contention", "contentions"), dur(l.OwnerUnknownS)))
		}
		if l.NoUnpark > 0 {
			more = append(more, fmt.Sprintf("%s ended by no release's unpark (%s)", count(l.NoUnpark, "contention", "contentions"), r.noUnpark(&l)))
		}
		if l.BeforeEvents > 0 && l.BeforeEvents < l.Contentions+l.Open {
			more = append(more, beforeEvents(l.Contentions, l.BeforeEvents))
		}
		if l.BeforeAttach > 0 {
			more = append(more, beforeAttach(l.Contentions+l.Open, l.BeforeAttach))
		}
		if len(more) > 0 {
			t.printf("     %s\n", strings.Join(more, "; "))
		}
		for _, ll := range l.LeftLocked {
			t.printf("     left locked: %s ended at %s holding it, and %s named it the owner after (it never released it)\n",
				t.label(ll.Thread, ll.Name), at(ll.EndedS), count(ll.Parks, "park", "parks"))
		}
		if len(l.Owners) > 0 {
			if l.Kind == "semaphore" {
				t.printf("     blamed (released the permit a blocked thread then got):\n")
			} else {
				t.printf("     blamed owners (held it while others were blocked):\n")
			}
			// Contentions that ended and those still going on at the
			// end are two columns: "608 +2 still blocked" read as one
			// number. The second is there only when some owner has any.
			open := false
			for _, o := range l.Owners[:min(5, len(l.Owners))] {
				open = open || o.Open > 0
			}
			head := []string{"owner", "contentions", "blamed", "share"}
			right := []bool{false, true, true, true}
			if open {
				head = []string{"owner", "contentions", "still blocked", "blamed", "share"}
				right = []bool{false, true, true, true, true}
			}
			rows := [][]string{head}
			for j, o := range l.Owners {
				if j == 5 {
					rows = append(rows, []string{fmt.Sprintf("... %d more", len(l.Owners)-j)})
					break
				}
				row := []string{t.label(o.Thread, o.Name), strconv.Itoa(o.Contentions)}
				if open {
					row = append(row, strconv.Itoa(o.Open))
				}
				rows = append(rows, append(row, dur(o.BlamedS), Percent(o.Pct)))
			}
			t.table("       ", right, rows)
		}
		if holdersText(t, &l) && l.Kind == "monitor" && l.Contentions > 0 {
			monitorSplit = true
		}
		t.printf("     blocked at:\n")
		for j, s := range l.Sites {
			if j == 3 {
				t.printf("       ... %s\n", count(len(l.Sites)-j, "more site", "more sites"))
				break
			}
			t.printf("       %s:\n", siteSummary(s.Contentions, s.BlockedS, s.Open, s.OpenS, s.BeforeEvents, s.BeforeAttach))
			t.framesAmong("         ", s.Frames, siteFrames(l.Sites[:min(3, len(l.Sites))], func(s LockSite) []string { return s.Frames }))
		}
		holdText(t, &l)
	}
}

// Percent prints a share (Owner.Pct) as the report does, "99.7%"; the
// viewer shows this string (JavaScript's toFixed rounds 19.25 up where Go
// rounds it to even: two roundings of one figure).
func Percent(pct float64) string { return fmt.Sprintf("%.1f%%", pct) }

// stillBlocked says how many threads were still blocked on a lock at end
// and for how long: one thread's time, or several threads' time added up,
// said so ("2 threads STILL BLOCKED at the end, 8.68 s in all so far", not
// "for 8.68 s", which reads as each thread's).
func stillBlocked(n int, s float64, end string) string {
	if n == 1 {
		return fmt.Sprintf("1 thread STILL BLOCKED at %s, for %s so far", end, dur(s))
	}
	return fmt.Sprintf("%d threads STILL BLOCKED at %s, %s in all so far", n, end, dur(s))
}

// blockedSummary says how many contentions, how long, and how many
// still open: "4 contentions, 700.0 ms; 1 still blocked, 2.50 s so far".
func blockedSummary(n int, s float64, open int, openS float64) string {
	var parts []string
	if n > 0 {
		parts = append(parts, fmt.Sprintf("%s, %s", count(n, "contention", "contentions"), dur(s)))
	}
	switch {
	case open == 1:
		parts = append(parts, fmt.Sprintf("1 still blocked, %s so far", dur(openS)))
	case open > 1:
		parts = append(parts, fmt.Sprintf("%d still blocked, %s in all so far", open, dur(openS)))
	}
	return strings.Join(parts, "; ")
}

// beforeEvents says that before of n contentions began before the events
// were on (Lock.BeforeEvents): what is known of them is their end.
func beforeEvents(n, before int) string {
	what := "begun before the events were on (at the attach or the agent's start): its length not recorded"
	if before > 1 {
		what = "begun before the events were on (at the attach or the agent's start): their lengths not recorded"
	}
	if before == n {
		return what
	}
	return fmt.Sprintf("%d of them %s", before, what)
}

// beforeAttach says that before of n contentions (finished and open) were
// in progress when orca attached (Lock.BeforeAttach): their time, counted
// from the attach, is a lower bound.
func beforeAttach(n, before int) string {
	if before == n {
		return fmt.Sprintf("%s since before the attach: at least that long", plural(n, "blocked", "all blocked"))
	}
	return fmt.Sprintf("%d of them blocked since before the attach: at least that long", before)
}

// waitsBeforeAttach says that n waits or parks (what: "waiting",
// "parked") were in progress when orca attached (Wait.BeforeAttach).
func waitsBeforeAttach(n int, what string) string {
	return fmt.Sprintf("%d %s since before the attach: at least that long", n, what)
}

// siteSummary is blockedSummary of a site, saying which of its
// contentions began before the events were on (their length unknown) or
// before the attach (their length at least the one counted).
func siteSummary(n int, s float64, open int, openS float64, before, attach int) string {
	out := blockedSummary(n, s, open, openS)
	switch {
	case before == n && open == 0 && before > 0:
		out = count(n, "contention", "contentions") + ", " + beforeEvents(n, before)
	case before > 0:
		out += " (" + beforeEvents(n, before) + ")"
	}
	if attach > 0 {
		out += " (" + beforeAttach(n+open, attach) + ")"
	}
	return out
}

// named is an object as the text report names it: the Java name of its
// class before its hash ("org.h2.mvstore.db.MVTable 618B19AD", "int[]
// 0000BEEF"), as JFR and jstack name locks; the hash alone when the class
// is unknown.
func (t *textWriter) named(object string, class *string, call string) string {
	s, cls := object, ""
	if class != nil && *class != "" {
		cls = format.JavaName(*class)
		s = cls + " " + object
	}
	if c := classObject(t.classes, object, class); c != nil {
		// The Class object of a class: a synchronized static method's
		// lock, or synchronized (Foo.class).
		s += " (" + format.JavaName(*c) + ".class)"
	}
	// The lock or condition a java.util.concurrent class wraps (an
	// AbstractQueuedSynchronizer$ConditionObject): its call names it
	// (issue 31, item 8).
	if in := model.CallLabel(cls, call); in != "" {
		s += " " + in
	}
	return s
}

// lockNamed names a lock the same way in every section (CONTENTION, CALL
// SITES): its kind's word, its class and hash ("monitor java.util.HashMap
// 2C629B6E"), or the JVM's lock of a class being initialised in its own
// words, which say what it is ("class initialisation of com.example.Foo
// (the JVM's init lock, int[] 0BDD0C10)").
func (t *textWriter) lockNamed(kind, object string, class, initOf *string, call string) string {
	if kind == "monitor" && initOf != nil {
		return initNamed(object, *initOf)
	}
	if c, ok := t.initOf(&object); ok && kind == "monitor" {
		return initNamed(object, c)
	}
	return kindWord(kind) + " " + t.named(object, class, call)
}

func (r *Report) siteSection(t *textWriter) {
	if len(r.Sites) == 0 {
		t.section("No blocking call sites.")
		return
	}
	t.section("CALL SITES: where threads blocked on any lock, by time blocked%s", shown(len(r.Sites), r.SitesTotal))
	for i, s := range r.Sites {
		t.printf("  #%d %s: %s\n", i+1, t.lockNamed(s.Kind, s.Object, s.Class, s.InitOf, s.Call), siteSummary(s.Contentions, s.BlockedS, s.Open, s.OpenS, s.BeforeEvents, s.BeforeAttach))
		// Told apart from the sites of the same lock listed (a site of
		// another lock is told apart by its lock).
		var same [][]string
		for _, o := range r.Sites {
			if o.Object == s.Object && o.Kind == s.Kind {
				same = append(same, o.Frames)
			}
		}
		t.framesAmong("       ", s.Frames, same)
	}
}

func (r *Report) waitSection(t *textWriter) {
	if len(r.Waits) == 0 {
		t.section("No Object.wait or notify.")
		return
	}
	objects, grouped, groups := r.waitObjects, r.groupedObjects, r.waitGroups
	if objects == 0 { // a Report not made by New (decoded from JSON): what it lists
		objects = r.WaitsTotal
		for _, w := range r.Waits {
			if w.Group != nil {
				objects += w.Group.Objects - 1
				grouped += w.Group.Objects
				groups++
			}
		}
	}
	if r.parks {
		t.section("WAIT/NOTIFY/PARK: %s that threads waited or parked on, or notified; first those with waits or parks that no notify or unpark ended, then by time%s",
			count(objects, "object", "objects"), shown(len(r.Waits), r.WaitsTotal))
	} else {
		t.section("WAIT/NOTIFY: %s that threads waited on or notified; first those with waits that no notify ended, then by time%s",
			count(objects, "object", "objects"), shown(len(r.Waits), r.WaitsTotal))
	}
	if groups > 0 {
		t.printf("  (%d short-lived objects shown as %s, each of one class and call site:\n"+
			"  %d or more objects of at most %d waits or parks each)\n",
			grouped, count(groups, "group", "groups"), model.GroupMinObjects, model.GroupMaxWaits)
	}
	var jdk []string
	var idle []string
	for _, w := range r.Waits {
		if w.JDK && w.Kind == "park" && w.Idle == w.Waits {
			idle = append(idle, fmt.Sprintf("%s (%s)", t.waitedOn(w), count(w.Waits, "park", "parks")))
			continue
		}
		if w.JDK {
			jdk = append(jdk, fmt.Sprintf("%s (%s)", t.waitedOn(w), count(w.Waits, "wait", "waits")))
			continue
		}
		if w.Kind == "park" {
			r.parkWait(t, w)
			continue
		}
		what := t.waitedOn(w)
		var ends []string
		if w.Notified > 0 {
			s := fmt.Sprintf("%d notified", w.Notified)
			if w.Ambiguous > 0 {
				s += fmt.Sprintf(" (%d by a notify that could have woken another waiter)", w.Ambiguous)
			}
			ends = append(ends, s)
		}
		if w.TimedOut > 0 {
			ends = append(ends, fmt.Sprintf("%d ended without a notify (timeout, interrupt or spurious)", w.TimedOut))
		}
		if w.StillWaiting > 0 {
			ends = append(ends, fmt.Sprintf("%d STILL WAITING at %s", w.StillWaiting, r.end()))
		}
		if w.BeforeAttach > 0 {
			ends = append(ends, waitsBeforeAttach(w.BeforeAttach, "waiting"))
		}
		if w.Waits == 0 {
			t.printf("  %s: never waited on\n", what)
		} else {
			t.printf("  %s: %s, %s waiting%s\n", what, count(w.Waits, "wait", "waits"), dur(w.WaitS), byThreads(w))
			if len(ends) > 0 {
				t.printf("     %s\n", strings.Join(ends, "; "))
			}
		}
		var calls []string
		if w.Notifies > 0 {
			calls = append(calls, count(w.Notifies, "notify", "notifies"))
		}
		if w.NotifyAlls > 0 {
			calls = append(calls, count(w.NotifyAlls, "notifyAll", "notifyAlls"))
		}
		if len(calls) > 0 {
			t.printf("     %s", strings.Join(calls, " and "))
			if w.WokeNobody > 0 {
				t.printf("; %d found no thread waiting", w.WokeNobody)
			}
			t.printf("\n")
		}
		if w.Storm {
			t.printf("     !! notifyAll STORM: %d calls within 10 ms\n", w.MaxBurst)
		}
		t.group(w, "wait", "waits")
		for j, s := range w.Sites {
			if j == 2 {
				t.printf("     ... %s\n", count(len(w.Sites)-j, "more wait site", "more wait sites"))
				break
			}
			if len(w.Sites) == 1 {
				t.printf("     waited at:\n")
			} else {
				note := ""
				if s.TimedOut > 0 {
					note += fmt.Sprintf(", %d without notify", s.TimedOut)
				}
				if s.Still > 0 {
					note += fmt.Sprintf(", %d still waiting", s.Still)
				}
				t.printf("     %s, %s%s, at:\n", count(s.Waits, "wait", "waits"), dur(s.WaitS), note)
			}
			t.framesAmong("       ", s.Frames, siteFrames(w.Sites[:min(2, len(w.Sites))], func(s WaitSite) []string { return s.Frames }))
		}
	}
	if len(jdk) > 0 {
		t.printf("  waited on only by JDK service threads: %s\n", strings.Join(jdk, ", "))
	}
	if len(idle) > 0 {
		t.printf("  idle threads waiting for work, pool workers or queue consumers (not a problem): %s\n", strings.Join(idle, ", "))
	}
}

// waitedOn names the object of a waits entry: "java.util.concurrent.FutureTask
// 0000BEEF"; "no blocker" for the parks without one; for a group, its
// objects: "3000 java.util.concurrent.FutureTask objects".
func (t *textWriter) waitedOn(w Wait) string {
	if g := w.Group; g != nil {
		if w.Class == nil || *w.Class == "" {
			return fmt.Sprintf("%d objects of unknown class", g.Objects)
		}
		return fmt.Sprintf("%d %s objects", g.Objects, format.JavaName(*w.Class))
	}
	o := deref(w.Object)
	if w.Kind == "park" && o == "00000000" {
		return "no blocker"
	}
	return t.named(o, w.Class, w.Call)
}

// byThreads says how many threads waited, for a group: ", by 8 threads".
func byThreads(w Wait) string {
	if w.Group == nil {
		return ""
	}
	return ", by " + count(w.Group.Threads, "thread", "threads")
}

// group prints what a group adds: its objects' most waits and longest
// wait, and its costliest objects (3; the JSON has groupTop).
func (t *textWriter) group(w Wait, one, many string) {
	g := w.Group
	if g == nil {
		return
	}
	t.printf("     short-lived: at most %s per object, the longest %s\n", count(g.MaxWaits, one, many), dur(g.MaxWaitS))
	var top []string
	for i, o := range g.Top {
		if i == 3 {
			break
		}
		top = append(top, fmt.Sprintf("%s %s", o.Object, dur(o.WaitS)))
	}
	if g.Objects > len(top) {
		top = append(top, "…")
	}
	t.printf("     costliest: %s\n", strings.Join(top, ", "))
}

// parkWait prints the parks on one blocker, or a group of blockers, and
// who unparked them.
func (r *Report) parkWait(t *textWriter, w Wait) {
	t.printf("  parked on %s: %s, %s parked%s\n", t.waitedOn(w), count(w.Waits, "park", "parks"), dur(w.WaitS), byThreads(w))
	if w.BeforeAttach > 0 {
		t.printf("     %s\n", waitsBeforeAttach(w.BeforeAttach, "parked"))
	}
	var ends []string
	if w.Notified > 0 {
		if len(w.UnparkedBy) == 1 { // "3 unparked by T", not "3 unparked by T 3"
			u := w.UnparkedBy[0]
			ends = append(ends, fmt.Sprintf("%d unparked by %s", w.Notified, t.label(u.Thread, u.Name)))
		} else {
			var by []string
			for i, u := range w.UnparkedBy {
				if i == 3 {
					by = append(by, "…")
					break
				}
				by = append(by, fmt.Sprintf("%d by %s", u.Parks, t.label(u.Thread, u.Name)))
			}
			ends = append(ends, fmt.Sprintf("%d unparked: %s", w.Notified, strings.Join(by, ", ")))
		}
	}
	switch {
	case w.TimedOut == 0:
	case r.Sight != nil && !r.Sight.Unparkers:
		ends = append(ends, fmt.Sprintf("%d ended (%s records neither who unparked a park nor whether it timed out)",
			w.TimedOut, r.Sight.sourceName()))
	default:
		// The recording says how each park ended (the agent's how): the
		// rest of those no unpark ended timed out (or lost their end: a
		// problem the report's head counts).
		ends = append(ends, fmt.Sprintf("%d ended without an unpark: %s", w.TimedOut, parkEnds(w)))
	}
	if w.StillWaiting > 0 {
		ends = append(ends, fmt.Sprintf("%d STILL PARKED at %s", w.StillWaiting, r.end()))
	}
	if w.Idle > 0 {
		ends = append(ends, fmt.Sprintf("%d of idle pool workers", w.Idle))
	}
	if len(ends) > 0 {
		t.printf("     %s\n", strings.Join(ends, "; "))
	}
	t.group(w, "park", "parks")
	for j, s := range w.Sites {
		if j == 2 {
			t.printf("     ... %s\n", count(len(w.Sites)-j, "more park site", "more park sites"))
			break
		}
		t.printf("     %s, %s, at:\n", count(s.Waits, "park", "parks"), dur(s.WaitS))
		t.framesAmong("       ", s.Frames, siteFrames(w.Sites[:min(2, len(w.Sites))], func(s WaitSite) []string { return s.Frames }))
	}
}

// stateNames are the THREADS columns, in States order.
var stateNames = []string{"runnable", "blocked", "waiting", "sleeping", "joining", "acquiring", "parked", "idle"}

func stateValue(s States, i int) float64 {
	return [...]float64{s.Runnable, s.Blocked, s.Waiting, s.Sleeping, s.Joining, s.Acquiring, s.Parked, s.Idle}[i]
}

// textThreadRows yields the THREADS table's rows (made as they are, with
// Report.textLazy) and says how many.
func (r *Report) textThreadRows() (func(yield func(*Thread) bool), int) {
	if r.textLazy != nil {
		return r.textLazy.all, r.textLazy.len()
	}
	if r.textThreads == nil { // a Report not made by New (decoded from JSON)
		r.textThreads, r.textThreadsTotal = r.Threads, r.ThreadsTotal
	}
	return func(yield func(*Thread) bool) {
		for i := range r.textThreads {
			if !yield(&r.textThreads[i]) {
				return
			}
		}
	}, len(r.textThreads)
}

// threadCells are a THREADS row's cells: its label, life, each state's
// seconds and percentage of the life (stateNames' order; "-" for none),
// then cpu, ready and other, the split of runnable ("-" where not split).
func threadCells(th *Thread) []string {
	name := th.Name
	lbl := label(th.ID, &name)
	if th.group > 0 {
		lbl = fmt.Sprintf("%d virtual %q", th.group, th.Name)
	}
	life := fmt.Sprintf("%.3f", th.LifeS)
	if th.BeforeAttach {
		life = "≥ " + life // alive at the attach: born before it
	}
	row := []string{lbl, life}
	for c := range stateNames {
		s, p := stateValue(th.StatesS, c), stateValue(th.StatesPct, c)
		if s == 0 {
			row = append(row, "-")
			continue
		}
		row = append(row, fmt.Sprintf("%.3f %3.0f%%", s, p))
	}
	for _, v := range []*float64{th.CPUS, th.ReadyS, th.OtherS} {
		if v == nil || *v == 0 {
			row = append(row, "-")
			continue
		}
		row = append(row, fmt.Sprintf("%.3f %3.0f%%", *v, pct(format.Time(*v*1e9), format.Time(th.LifeS*1e9))))
	}
	return row
}

// threadTable writes the THREADS table: a header, then per thread its
// label, life and, for each state column a thread listed was in, seconds
// and the percentage of the thread's life; cpu, ready and other when a
// thread listed has the split. The rows are gone through twice, each made
// again the second time (with Report.textLazy, every thread of a long
// recording's: none is held): once for the columns and their widths (a
// column's cells do not depend on the others'), once to write them.
func (r *Report) threadTable(t *textWriter, rows func(yield func(*Thread) bool)) (beforeAttach, split bool) {
	header := append([]string{"thread", "life s"}, stateNames...)
	header = append(header, "cpu", "ready", "other")
	widths := make([]int, len(header))
	used := make([]bool, len(header))
	for th := range rows {
		for i, c := range threadCells(th) {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
		for i := range stateNames {
			used[2+i] = used[2+i] || stateValue(th.StatesS, i) > 0
		}
		split = split || th.CPUS != nil
		beforeAttach = beforeAttach || th.BeforeAttach
	}
	// A state no listed thread was in gets no column; runnable always.
	used[0], used[1], used[2] = true, true, true
	for i := len(header) - 3; i < len(header); i++ {
		used[i] = split
	}
	var cols []int
	for i, u := range used {
		if u {
			cols = append(cols, i)
			widths[i] = max(widths[i], utf8.RuneCountInString(header[i]))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("  ")
		for j, i := range cols {
			c := cells[i]
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if j == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		t.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
	line(header)
	for th := range rows {
		line(threadCells(th))
	}
	return beforeAttach, split
}

func (r *Report) threadSection(t *textWriter) {
	rows, n := r.textThreadRows()
	if n == 0 {
		t.section("No threads.")
		return
	}
	// The hung rank first (Report.Threads), said when there are any.
	order := " by time blocked on locks, then time not runnable"
	if len(r.Hangs) > 0 {
		order = ", those in HANGS first, then by time blocked on locks, then time not runnable"
	}
	if len(r.VirtualGroups) > 0 && r.textThreadsTotal != r.ThreadsTotal {
		t.section("THREADS: %s (virtual threads grouped by name, digits as N; --virtual lists each)%s%s",
			count(r.ThreadsTotal, "thread", "threads"), order, shown(n, r.textThreadsTotal))
	} else {
		t.section("THREADS: %s%s%s",
			count(r.ThreadsTotal, "thread", "threads"), order, shown(n, r.textThreadsTotal))
	}
	beforeAttach, split := r.threadTable(t, rows)
	if beforeAttach {
		t.printf("  (≥: alive when orca attached; its life and states before the attach are not recorded)\n")
	}
	if len(r.VirtualGroups) > 0 {
		t.printf("  (a group of virtual threads: its threads' seconds summed, %% of their summed lives)\n")
	}
	if split {
		t.printf("  (cpu, ready, other: the runnable time split by the thread's scheduler times and samples:\n" +
			"  on a CPU, waiting for one, neither (I/O, native code, the VM); - where not split)\n")
	}
	if s := r.Sight; s != nil {
		t.printf("  (seconds and %% of each thread's life; runnable is time in none of the recorded states:\n"+
			"  running, blocked in ways %s does not see such as I/O, or in a state it did not record:\n"+
			"  shorter than its threshold, or still going on at the end)\n", s.sourceName())
	} else if r.parks {
		t.printf("  (seconds and %% of each thread's life; runnable is time in none of the recorded states:\n" +
			"  running, or blocked in ways the agent does not see such as I/O; blocked: on a monitor or\n" +
			"  a java.util.concurrent lock; acquiring: a semaphore's permit; parked: other\n" +
			"  LockSupport.park; idle: parked waiting for work, a pool's worker or a queue's consumer)\n")
	} else {
		t.printf("  (seconds and %% of each thread's life; runnable is time in none of the recorded states:\n" +
			"  running, or blocked in ways the agent does not see such as I/O or LockSupport.park;\n" +
			"  acquiring: a semaphore's permit)\n")
	}
}

// kindWord is the word the text uses for a lock kind of the JSON: a
// java.util.concurrent lock ("juc", named by its sync) is a "lock", the
// blocker of other parks a "park" object.
func kindWord(kind string) string {
	switch kind {
	case "juc":
		return "lock"
	case "blocker":
		return "park"
	}
	return kind
}

// share is part's share of whole, "0.0 %" when whole is 0.
func share(part, whole float64) string {
	if whole <= 0 {
		return "0.0 %"
	}
	return fmt.Sprintf("%.1f %%", 100*part/whole)
}

// OwnerUnknownWhy says, in the report's words, why the agent named no
// owner of some contended monitor enters, from .info's owner_unknown.REASON
// counts: ": the owner had released the monitor when the thread blocked
// (3)". The record summary says it as the report does.
func OwnerUnknownWhy(why map[string]int64) string { return unknownWhy(why, nil, false) }

// unknownWhy says why the agent, or the source of an import, named no
// owner, from .info's owner_unknown.REASON counts (monitor enters; a
// j.u.c. park names none when the lock was released just as it parked).
// juc: a java.util.concurrent lock's contention is among them.
func unknownWhy(why map[string]int64, s *Sight, juc bool) string {
	texts := []struct{ key, text string }{
		{"released", "the owner had released the monitor when the thread blocked"},
		{"anonymous", "an anonymous owner (lightweight locking) was on no thread's lock stack"},
		{"not_in_table", "the owner was a thread the agent did not know"},
		{"unreadable", "the monitor could not be read"},
		{"before_events", "the thread blocked before the events were on (at an attach or the JVM's start; when it began is not known)"},
		{"no_previous_owner", "JFR recorded no previous owner"},
		{"self", "JFR's previous owner was the blocked thread itself"},
		{"ended", "JFR's previous owner had ended before"},
		{"owner_ended", "the thread named as the owner had ended before (taken for unknown: a thread that ended holds nothing)"},
	}
	var parts []string
	for _, x := range texts {
		if n := why[x.key]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s (%d)", x.text, n))
		}
	}
	switch {
	case s != nil && juc:
		parts = append(parts, fmt.Sprintf("%s names no owner of a java.util.concurrent lock", s.sourceName()))
	case len(parts) > 0:
	case s != nil:
		return fmt.Sprintf(": %s named no owner", s.sourceName())
	default:
		return ": the owner had left before the agent could name it"
	}
	return ": " + strings.Join(parts, "; ")
}

// initNamed names the JVM's lock of a class being initialised: what it is,
// then the object as the JVM made it ("class initialisation of
// com.example.Foo (the JVM's init lock, int[] 0BDD0C10)").
func initNamed(object, class string) string {
	return model.InitName(class) + " (the JVM's init lock, int[] " + object + ")"
}

// classInitSection lists the waits for other threads' class
// initialisation, and says what the JVM does not show of them.
func (r *Report) classInitSection(t *textWriter) {
	if len(r.ClassInits) == 0 {
		return
	}
	t.section("CLASS INITIALISATION: threads that waited for another thread to initialise a class (the JVM's own waits)")
	var jdk []string
	program := 0
	for _, c := range r.ClassInits {
		if c.JDK {
			jdk = append(jdk, initNamed(c.Object, c.Class)+" ("+count(c.Waits, "wait", "waits")+")")
			continue
		}
		program++
		t.printf("  %s: %s by %s ended\n", initNamed(c.Object, c.Class), count(c.Waits, "wait", "waits"),
			count(len(c.Waiters), "thread", "threads"))
		for _, s := range c.Sites {
			for _, f := range s {
				t.printf("      %s\n", f)
			}
			t.printf("\n")
		}
	}
	if len(jdk) > 0 {
		t.printf("  waited on only by JDK service threads: %s\n", strings.Join(jdk, ", "))
	}
	if program == 0 {
		return
	}
	if r.initOpen {
		t.printf("  HotSpot posts no event when such a wait begins: the agent looks for the waits still open\n" +
			"  at each round of its walker (every flush period, 200 ms by default), and one seen in two rounds\n" +
			"  running is shown from then on as a contention of the class's init lock, waiting for the\n" +
			"  thread whose stack runs the class's <clinit> (DEADLOCKS, HANGS, CONTENTION): it began up to\n" +
			"  two rounds earlier. A shorter wait shows only its end (until then the thread shows as\n" +
			"  running). JDK 21 waits on a native monitor (JDK-8288064) and shows none of it.\n")
		return
	}
	t.printf("  Only their ends are seen: HotSpot posts no event when such a wait begins, and clears the\n" +
		"  initialiser before it wakes the waiters, so how long they waited and for which thread is not\n" +
		"  known (until then the threads show as running). JDK 21 waits on a native monitor (JDK-8288064)\n" +
		"  and shows none of it.\n")
}

// BytesText is n bytes in kB, MB or GB (powers of 1000), for a reader
// (the report's range, the commands' progress).
func BytesText(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// parkEnds says how the parks of w that no unpark ended did end: "all
// timed out", "2 timed out, 1 interrupted, 1 spurious (…)".
func parkEnds(w Wait) string {
	return shares(w.TimedOut, "all ",
		part{w.TimedOut - w.Interrupted - w.Spurious, "timed out"},
		part{w.Interrupted, "interrupted"},
		part{w.Spurious, "spurious (returned with no unpark seen: a spurious wake-up, the thread's own permit, or an unparker not recorded)"})
}

// noUnpark says how a juc lock's contentions that no release's unpark
// ended did end, as their last parks said: "2 a tryLock's timeout, 1
// interrupted: the acquire gave up". A recording that does not say how its
// parks ended gets the three ways it could have.
func (r *Report) noUnpark(l *Lock) string {
	if r.Sight != nil && !r.Sight.Unparkers {
		return "a tryLock's timeout, an interrupt: the acquire gave up; or a wake-up without one"
	}
	gaveUp := l.NoUnpark - l.NoUnparkSpurious
	s := shares(l.NoUnpark, "",
		part{gaveUp - l.NoUnparkInterrupted, "a tryLock's timeout"},
		part{l.NoUnparkInterrupted, "interrupted"})
	if gaveUp > 0 {
		s += ": the acquire gave up"
	}
	switch {
	case l.NoUnparkSpurious == 0:
	case gaveUp == 0:
		s = "a wake-up with no unpark seen"
	default:
		s += fmt.Sprintf("; %d a wake-up with no unpark seen", l.NoUnparkSpurious)
	}
	return s
}

// A part is a part of a count, said by shares.
type part struct {
	n    int
	what string
}

// shares says the non-empty parts of total: "2 timed out, 1 interrupted",
// or, when one part is all of it, its words alone, after all when total is
// more than one ("all timed out").
func shares(total int, all string, ps ...part) string {
	var out []string
	for _, p := range ps {
		switch {
		case p.n == total && total > 1:
			return all + p.what
		case p.n == total:
			return p.what
		case p.n > 0:
			out = append(out, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return strings.Join(out, ", ")
}
