package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
)

const reportHelp = `Usage: orca report [--json] [--top N] [--thread NAME] [--virtual] [--chains=false] [--from T] [--to T] [--last D] [-o FILE] PREFIX

Reads the recording PREFIX and prints what its threads did to each other:
a headline (duration, threads, events, contended locks, deadlocks, hangs,
and a !! line for anything that makes the numbers incomplete: dropped events,
malformed or cut lines), then, each ranked:

  DEADLOCKS    cycles of threads each waiting for the next: what each waits
               on, who holds it, and where
  POTENTIAL DEADLOCKS
               lock-order inversions that did not deadlock but could: threads
               that nested locks in opposite orders (at contended enters),
               each with where it held the first and wanted the second; in
               a recording made without orca record --lock-order=off (the
               monitors; all locks with --lock-order), else "not looked for"
  HANGS        threads stuck at the end: blocked, waiting, joining, acquiring
               or parked with no timeout, for 1 s or more (before the JVM's
               shutdown, if it exited); the others in a state then are named
               with why they are not hangs (a timeout, too short, entered
               during the shutdown, at a kill)
  CONTENTION   locks by time threads spent blocked on them, with the owners
               blamed for it, what the holders did meanwhile (running,
               ready, other, blocked on which lock; in which methods), the
               sites where threads blocked, and how long the holders held
               it while others waited (p50, p99, max, per site)
  WAIT CHAINS  threads blocked behind a holder that waited itself (on
               another lock, a join, a wait or a park), followed to the
               root thread that waited for no one, per root: the threads
               and time behind it, each step of the chain with its time;
               a deadlock is its own root. On a big recording they add
               about a tenth to the report's CPU time and memory:
               --chains=false leaves them out
  CALL SITES   the blocking call sites across all locks
  WAIT/NOTIFY  per object: waits no notify ended, threads still waiting,
               notifies that found no waiter, notifyAll storms, parks and
               who unparked them; short-lived objects (a future per request)
               are grouped by class and call site
  CPU          the methods threads ran in, by samples (as HPROF's
               cpu=samples: rank, self, accumulated, samples, method with
               line; cut as the others by --top)
  THREADS      time each thread spent in each state, in seconds and %,
               runnable split into cpu, ready and other when recorded
               (virtual threads: one row per name pattern, digits as N,
               unless --virtual)

A file that is not a recording, or one cut after the JVM wrote it whole
(fewer events than its .info counts: "read N of M events: the file is cut"),
is an error: one line, exit status 1. A recording still being written (its
JVM holds the lock on PREFIX.orca) is read as far as it goes, and says live.

Times are seconds since the recording's first event. Stacks show the top
frame, then the first frame of your code (JDK frames in between are folded
into "... N JDK frames"), 5 frames at most; --json has every frame.
--json prints the same report as JSON (docs/report-json.md).

` + rangeHelp + `
On a terminal, reading a large recording shows its progress on stderr (bytes
read of all, events a second), then the step of the analyses after it (what
the lock holders did, the wait chains, ...) and the seconds they have taken;
nothing when stderr is a file or a pipe.

The threads' states and samples are kept, while the report is made, in a
private temporary file (in $TMPDIR, else /tmp; unlinked at once; up to about
3.5 times the compact events read: 3.3 GB for a 1 GB PREFIX.orca; a text
one a twentieth of that), so that memory stays bounded by what is live,
not by the length of the recording; orca report warns when $TMPDIR has less
room. ORCA_REPORT_SPILL=0 keeps them in memory instead (the same
report), for a temporary directory too small or slow. Go's collector is
asked to keep the memory within 768 MiB, or within a quarter above what
is live (and the runtime's own memory beside it) when more is (a 1 GB
recording: 0.8 GB peak RSS, not 2.5-2.8, for a few percent more CPU); GOMEMLIMIT or GOGC set in the environment
decide instead (GOGC=100: Go's default, no limit).

Examples:
  orca report /tmp/run1
  orca report --top 0 /tmp/run1 | less
  orca report --thread worker-3 /tmp/run1
  orca report --chains=false /tmp/run1              (without the wait chains: a little faster)
  orca report --json -o run1.json /tmp/run1
  orca report --last 5m /tmp/server                (an always-on recording's last 5 minutes)
  orca report /tmp/run1 --from 120 --to 180
  orca report --from 2026-11-28T21:00:00Z --to 2026-11-28T21:05:00Z /tmp/server
`

// progressMin is the .orca size from which report shows its progress.
const progressMin = 64 << 20

func runReport(u ui, args []string) error {
	fs := newFlagSet("report", reportHelp)
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	top := fs.Int("top", 10, "list at most `N` locks, sites, threads and wait objects; 0: all")
	thread := fs.String("thread", "", "only the events of the threads named `NAME` (or with that id; if none is, those whose name contains it)")
	chains := fs.Bool("chains", true, "follow the waits to their roots (WAIT CHAINS, JSON chains); --chains=false leaves them out (about a tenth of the report's CPU and memory on a big recording)")
	virtual := fs.Bool("virtual", false, "list virtual threads one by one in the THREADS table (by default one row per name pattern)")
	out := fs.String("o", "", "write the report to `FILE` instead of stdout")
	rf := addRangeFlags(fs, "report")
	ops, err := parseArgs(u, fs, args)
	if err != nil {
		return err
	}
	if len(ops) != 1 {
		return usagef("report: want one PREFIX (run 'orca report --help')")
	}
	if *top < 0 {
		return usagef("report: --top %d: want 0 or more", *top)
	}
	if err := rf.check(); err != nil {
		return err
	}
	rec, err := openRecording("report", ops[0])
	if err == nil && *out != "" {
		// before the work, not after it
		err = checkOutFile("report: -o "+*out, *out, "nothing was read")
	}
	if err != nil {
		return err
	}
	// ORCA_REPORT_SPILL=0 keeps the threads' states in memory, not in a
	// temporary file (the same report; report.BuildOptions).
	spill := os.Getenv("ORCA_REPORT_SPILL") != "0"
	opt := report.BuildOptions(rec, *thread, spill)
	if opt.Span, err = rf.span(rec); err != nil {
		return err
	}
	size := readBytes(rec, opt.Span)
	if spill {
		warnRoom(u.stderr, "report", "the report's temporary file", os.TempDir(), diskNeed(rec, size, reportSpillPerByte),
			"set TMPDIR to a directory with more room, or ORCA_REPORT_SPILL=0 to keep it in memory (more memory)")
	}
	if size > progressMin {
		opt.Progress = newProgress(u.stderr, rec.Prefix+format.SuffixEvents, size)
	}
	boundMemory()
	prof := startReportProfile()
	defer prof.stop()
	if prof.heap != "" {
		show := opt.Progress
		opt.Progress = func(events int, bytes int64) {
			if show != nil {
				show(events, bytes)
			}
			if bytes == size {
				prof.heapAt("fold")
			}
		}
	}
	res, err := model.Build(rec, opt)
	if opt.Progress != nil {
		opt.Progress(-1, 0)
	}
	if err != nil {
		return spillAdvice(err)
	}
	prof.heapAt("build")
	ropt := report.Options{Top: *top, Thread: *thread, Width: 100, Virtual: *virtual, Span: opt.Span, Chains: *chains, JSONOnly: *asJSON, Streamed: true, LetGoTails: true}
	var steps *stepLine
	if opt.Progress != nil && isTerminal(u.stderr) { // not ORCA_REPORT_HEAPPROFILE's alone
		// The analyses after the read are a quarter of the report's time:
		// their steps shown on the same line, with the time they take.
		steps = newStepLine(u.stderr, "analysing", rec.Prefix, time.Now)
		ropt.Progress = steps.show
	}
	if prof.fine {
		ropt.Progress = prof.showStep(ropt.Progress)
	}
	r, err := newReport(rec, res, ropt)
	steps.end()
	if err != nil {
		return spillAdvice(err)
	}
	prof.heapAt("report")
	if *thread != "" && r.Filter.Matched == 0 {
		return fmt.Errorf("report: no thread named %q or with %q in its name in %s", *thread, *thread, rec.Prefix)
	}

	w := u.stdout
	var f *os.File
	if *out != "" {
		// -o names the file (it may be an existing one of orca's user, as a
		// shell's >, but no name another user planted: openOutput); a new one
		// is its user's alone, as the recording it describes.
		if f, err = openOutput(*out); err != nil {
			return err
		}
		w = f
	}
	// The text shows names the JVM gave (threads, classes, methods): no escape
	// sequence of theirs reaches the terminal (termSafe; JSON escapes them).
	var tw *termSafeWriter
	if !*asJSON {
		tw = newTermSafeWriter(w)
		w = tw
	}
	// 64 kB, not 4: fewer writes (report --json of 128 MB is 4 MB).
	bw := bufio.NewWriterSize(w, 64<<10)
	if *asJSON {
		err = r.WriteJSON(bw)
	} else {
		err = r.WriteText(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && tw != nil {
		err = tw.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return spillAdvice(fmt.Errorf("writing report: %w", err))
	}
	return nil
}

// newReport is report.New, with a failed read of the model's temporary
// file (model.SpillError: the analyses read the intervals and samples
// back from it) its error.
func newReport(rec *reader.Recording, res *model.Result, opt report.Options) (_ *report.Report, err error) {
	defer model.RecoverSpill(&err)
	return report.New(rec, res, opt), nil
}

// spillAdvice adds to a failed read of the model's temporary file, or to a
// full disk, what avoids it.
func spillAdvice(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		// A write of the model's temporary file (Build's error) or of the
		// report (-o).
		return fullAdvice("report", reportSpillPerByte, "ORCA_REPORT_SPILL", err)
	}
	var se *model.SpillError
	if errors.As(err, &se) {
		return fmt.Errorf("report: %w (ORCA_REPORT_SPILL=0 keeps the threads' states in memory instead of that file)", err)
	}
	return err
}

// newProgress returns a model.Options.Progress that reports reading name
// (size bytes of events) on w, one line rewritten in place, when w is a
// terminal; else nil: a log file or a pipe gets no progress lines. A call
// with events < 0 ends the report.
func newProgress(w io.Writer, name string, size int64) func(events int, bytes int64) {
	if !isTerminal(w) {
		return nil
	}
	start := time.Now()
	return progressLine(w, termSafe(name), size, func() time.Duration { return time.Since(start) })
}

// progressLine is newProgress's line on a terminal: the bytes read of all,
// the events folded and their rate since the start (elapsed says the time
// since it). It is rewritten when the percentage changes or half a second
// passed, not at each chunk.
func progressLine(w io.Writer, name string, size int64, elapsed func() time.Duration) func(events int, bytes int64) {
	last, shown := -1, time.Duration(0)
	return func(events int, bytes int64) {
		if events < 0 {
			if last >= 0 {
				fmt.Fprint(w, "\r\033[K")
			}
			return
		}
		pct := 100
		if size > 0 {
			pct = int(min(bytes*100/size, 100))
		}
		now := elapsed()
		if pct == last && now-shown < time.Second/2 {
			return
		}
		last, shown = pct, now
		rate := ""
		if s := now.Seconds(); s > 0 {
			rate = ", " + countText(float64(events)/s) + " events/s"
		}
		fmt.Fprintf(w, "\rreading %s: %s of %s (%d%%), %s events%s\033[K", name, report.BytesText(bytes), report.BytesText(size), pct, countText(float64(events)), rate)
	}
}

// stepLine is the line orca report shows on a terminal while it analyses
// what it read (report.Options.Progress): the step, how far it has gone
// when counted, and the seconds since the analyses began, rewritten when
// the step changes, at most twice a second otherwise, and each second by
// a ticker while a long step says nothing.
type stepLine struct {
	mu          sync.Mutex
	w           io.Writer
	verb        string // analysing, exporting
	name        string
	now         func() time.Time
	start       time.Time
	step        string
	done, total int
	shown       time.Time
	ended       bool
	stop        chan struct{}
}

// newStepLine starts the step line of the work verb does (analysing,
// exporting) on recording name, on w (a terminal), now the clock. The
// name is shown termSafe, as the progress line's: a prefix another user
// chose.
func newStepLine(w io.Writer, verb, name string, now func() time.Time) *stepLine {
	l := &stepLine{w: w, verb: verb, name: termSafe(name), now: now, start: now(), stop: make(chan struct{})}
	go l.tick(time.Second)
	return l
}

// show is report.Options.Progress.
func (l *stepLine) show(step string, done, total int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return
	}
	changed := step != l.step
	l.step, l.done, l.total = step, done, total
	if now := l.now(); changed || now.Sub(l.shown) >= time.Second/2 {
		l.draw(now)
	}
}

// draw writes the line; l.mu held.
func (l *stepLine) draw(now time.Time) {
	l.shown = now
	count := ""
	if l.total > 0 {
		count = fmt.Sprintf(" (%s of %s)", countText(float64(l.done)), countText(float64(l.total)))
	}
	fmt.Fprintf(l.w, "\r%s %s: %s%s, %.0f s\033[K", l.verb, l.name, l.step, count, now.Sub(l.start).Seconds())
}

// tick redraws the line every d until end.
func (l *stepLine) tick(d time.Duration) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.mu.Lock()
			if !l.ended && l.step != "" {
				l.draw(l.now())
			}
			l.mu.Unlock()
		}
	}
}

// end erases the line and stops the ticker (nil: none was shown).
func (l *stepLine) end() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return
	}
	l.ended = true
	close(l.stop)
	if l.step != "" {
		fmt.Fprint(l.w, "\r\033[K")
	}
}

// countText is n, with k or M past ten thousand.
func countText(n float64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f M", n/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.0f k", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}

// isTerminal reports whether w is a terminal (not a file, a pipe or
// /dev/null).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTTY(f)
}

// readBytes is what reading the recording's events (or its span) reads.
func readBytes(rec *reader.Recording, sp *reader.Span) int64 {
	if sp != nil {
		return sp.Bytes
	}
	return rec.EventBytes()
}
