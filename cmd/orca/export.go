package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"orca/internal/export"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
)

const exportHelp = `Usage: orca export --format FORMAT [--kind KINDS | --profile cpu|wall] [--from T] [--to T] [--last D] [-o FILE] PREFIX

Writes the recording PREFIX in the format of another tool:

  pprof      a gzipped pprof profile of where threads waited: sample types
             contentions (count) and delay (nanoseconds), as in Go's block
             and mutex profiles; labels thread, thread_id, state, lock,
             class, call, owner, open, and the same under orca push's
             OTLP attribute names (thread.name, lock.class, lock.kind,
             lock.owner.thread.name, ...). Open it with go tool pprof or
             speedscope.
             With --profile cpu or wall, of the threads' samples instead.
  perfetto   a Perfetto trace: a track per thread, a slice per state with
             its stack, flows for notify -> wake, owner -> blocked thread,
             release -> acquire, start and join. Open it in ui.perfetto.dev,
             which reads about 512 MB of a trace in a browser (a minute of
             a loaded Tomcat is ~200 MB): export a range of a long recording.
  chrome     the same timeline as Chrome trace-event JSON, for
             chrome://tracing or ui.perfetto.dev (about 256 MB of it).
  collapsed  folded stacks, "frame;frame;frame NANOSECONDS" per line, root
             first, for flamegraph.pl or speedscope.
  seed       the recording itself in the seed's text encoding (one line an
             event, its stack inline; docs/format.md), for tools that read
             the manual's format: OUT.orca, with .methods, .classtable, .info
             (without its encoding key) and .ext copied beside it. A
             recording in the compact encoding (orca record --format
             compact) is converted event for event; one already in text is
             copied byte for byte. -o OUT (a prefix) is required; --kind
             does not apply.

--kind picks the states exported, a comma-separated list of
  monitor    blocked: entering a contended synchronized block or method,
             or acquiring a java.util.concurrent lock (ReentrantLock, a
             read-write lock, a StampedLock: a park in its acquire), as orca
             report's CONTENTION counts them
  wait       in Object.wait
  sleep      in Thread.sleep
  join       in Thread.join
  semaphore  in Semaphore.acquire
  park       parked other than to acquire a lock (LockSupport.park:
             conditions, latches, futures, queues)
  idle       parked waiting for work: a thread pool's idle worker, a
             consumer in a queue's take or poll
  all        all of them
The default is monitor for pprof and collapsed, all for perfetto and
chrome. A state still open when the recording ended counts up to the end.

--profile makes pprof and collapsed weigh the threads' samples (orca record
takes them: --cpu, --wall; orca import converts JFR's) instead of states:
  cpu        the CPU samples: where threads ran on a CPU. pprof: sample
             types samples (count) and cpu (nanoseconds), as Go's CPU
             profile; labels thread, thread_id, sampled.
  wall       every sample, CPU and wall: where threads were when in no
             recorded state, running or not (I/O, native code, the VM);
             wall (nanoseconds). -tagfocus=sampled=wall keeps the time off
             a CPU.
Native frames are named by their symbol, their library as the file.

Without -o, the file is PREFIX.pb.gz, PREFIX.pftrace, PREFIX.trace.json or
PREFIX.folded (with --profile, PREFIX.cpu.pb.gz, PREFIX.wall.folded, ...);
-o - writes to stdout (not pprof or perfetto when it is a terminal: binary).
docs/export.md in the source tree describes each format.

` + rangeHelp + `--format seed writes the whole recording (no range).

Examples:
  orca export --format pprof /tmp/run1 && go tool pprof -http=: /tmp/run1.pb.gz
  orca export --format pprof --kind all -o all.pb.gz /tmp/run1
  orca export --format pprof --profile cpu -o cpu.pb.gz /tmp/run1 && go tool pprof -top cpu.pb.gz
  orca export --format collapsed --profile wall -o - /tmp/run1 | flamegraph.pl > wall.svg
  orca export --format perfetto /tmp/run1      then open /tmp/run1.pftrace in ui.perfetto.dev
  orca export --format collapsed --kind wait,sleep -o - /tmp/run1 | flamegraph.pl > waits.svg
  orca export --format seed -o /tmp/run1-text /tmp/run1
  orca export --format pprof --last 5m -o last5m.pb.gz /tmp/server
  orca export --format perfetto /tmp/run1 --from 120 --to 180
`

// binaryFormats are the export formats not written to a terminal.
var binaryFormats = map[string]bool{"pprof": true, "perfetto": true}

// openHints say how to look at an export, by format.
var openHints = map[string]string{
	"pprof":     "view it with: go tool pprof -http=: %s   (or open it in speedscope)",
	"perfetto":  "view it: open %s at https://ui.perfetto.dev (the browser reads the file, nothing is uploaded)",
	"chrome":    "view it: open %s in chrome://tracing or at https://ui.perfetto.dev",
	"collapsed": "view it with: flamegraph.pl %s > flame.svg   (or open it in speedscope)",
}

func runExport(u ui, args []string) error {
	fs := newFlagSet("export", exportHelp)
	var names []string
	for _, f := range export.Formats {
		names = append(names, f.Name)
	}
	names = append(names, "seed")
	formatName := fs.String("format", "", "the output format: `FORMAT` is "+strings.Join(names, ", "))
	kindList := fs.String("kind", "", "the states exported: `KINDS` from "+strings.Join(export.KindNames(), ", ")+" (default monitor for pprof and collapsed, all for the others)")
	profileName := fs.String("profile", "", "pprof and collapsed: weigh the threads' samples, `PROFILE` cpu or wall, instead of the time in states")
	out := fs.String("o", "", "write to `FILE` (default PREFIX and the format's suffix; - for stdout; seed: the output's prefix, required)")
	rf := addRangeFlags(fs, "export")
	ops, err := parseArgs(u, fs, args)
	if err != nil {
		return err
	}
	if len(ops) != 1 {
		return usagef("export: want one PREFIX (run 'orca export --help')")
	}
	if *formatName == "" {
		return usagef("export: --format is required: %s", strings.Join(names, ", "))
	}
	// The output's directory, before the work: -o's, or, by default, the
	// recording's (when it is there at all: else openRecording says so).
	switch dir := filepath.Dir(ops[0]); {
	case *out == "-", *out == "" && *formatName == "seed":
	case *out != "" && *formatName == "seed":
		if err := checkOutDir("export: -o "+*out, *out, "nothing was written"); err != nil {
			return err
		}
	case *out != "":
		if err := checkOutFile("export: -o "+*out, *out, "nothing was read"); err != nil {
			return err
		}
	default:
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			if err := checkOutDir("export: the output beside "+ops[0], ops[0], "nothing was read"); err != nil {
				return err
			}
		}
	}
	if *formatName == "seed" {
		if *profileName != "" {
			return usagef("export: --profile does not apply to --format seed (the whole recording is written)")
		}
		if *kindList != "" {
			return usagef("export: --kind does not apply to --format seed (the whole recording is written)")
		}
		if rf.set() {
			return usagef("export: --from, --to and --last do not apply to --format seed (the whole recording is written)")
		}
		rec, err := openRecording("export", ops[0])
		if err != nil {
			return err
		}
		return exportSeed(u, rec.Prefix, *out)
	}
	f, ok := export.Lookup(*formatName)
	if !ok {
		return usagef("export: unknown format %q: want %s", *formatName, strings.Join(names, ", "))
	}
	if *out == "-" && binaryFormats[f.Name] && isTerminal(u.stdout) {
		// Its strings (the JVM's names) are raw bytes among the binary: on
		// a terminal, escape sequences of the JVM's user; as gzip does.
		return usagef("export: --format %s is binary: not written to a terminal; redirect stdout (-o - > FILE) or give -o FILE", f.Name)
	}
	opt := export.Options{Kinds: f.Kinds}
	if *profileName != "" {
		p, err := export.ParseProfile(*profileName)
		if err != nil {
			return usagef("export: --profile: %v", err)
		}
		switch {
		case !f.Profiles:
			return usagef("export: --profile applies to the profiles, pprof and collapsed, not to %s", f.Name)
		case *kindList != "" && p != export.ProfileStates:
			return usagef("export: --kind does not apply to --profile %s (samples are taken outside the states --kind picks)", p)
		}
		opt.Profile = p
	}
	if *kindList != "" {
		k, err := export.ParseKinds(*kindList)
		if err != nil {
			return usagef("export: --kind: %v", err)
		}
		opt.Kinds = k
	}

	// The profiles read a thread at a time from the model's spill; the
	// timelines too, their events sorted by time in runs on the spill
	// (they keep the edges, their flows).
	mo := export.TimelineOptions()
	if f.Profiles {
		mo = export.SpilledOptions()
	}
	// ORCA_REPORT_HEAPPROFILE and the others measure an export as they do
	// a report (reportprof.go): its peaks, PREFIX.build and PREFIX.export.
	prof := startReportProfile()
	defer prof.stop()
	rec, res, err := buildRange(u, "export", ops[0], rf, mo)
	if err != nil {
		return err
	}
	prof.heapAt("build")
	m := res.Model
	what, count, noun := opt.Kinds.String(), 0, "state"
	var total format.Time
	if opt.Profile != export.ProfileStates {
		what, noun = opt.Profile.String(), "sample"
		count, total = export.SampleTotals(m, opt.Profile)
		if count == 0 {
			fmt.Fprintf(u.stderr, "orca: warning: %s has no %s samples: the export is empty (orca record samples by default, --cpu and --wall; a JFR recording needs its samplers: docs/jfr.md)\n", termSafe(rec.Prefix), opt.Profile)
		}
	} else {
		count, total = export.Totals(m, opt.Kinds)
		if f.Name == "pprof" {
			// a java.util.concurrent acquire parked several times is one
			// contention there, as in orca report
			count, total = export.PProfTotals(m, opt.Kinds)
		}
		if count == 0 {
			fmt.Fprintf(u.stderr, "orca: warning: %s has no %s states: the export is empty (try --kind all)\n", termSafe(rec.Prefix), opt.Kinds)
		}
	}

	// A long timeline's making and sorting after the read (ten minutes of
	// a loaded Tomcat: ~25 s) shows its steps on the terminal, as the
	// report's analyses do.
	var steps *stepLine
	if isTerminal(u.stderr) {
		steps = newStepLine(u.stderr, "exporting", rec.Prefix, time.Now)
		opt.Progress = steps.show
	}
	defer steps.end()

	path := *out
	if path == "" {
		path = rec.Prefix + f.Ext
		if opt.Profile != export.ProfileStates {
			// Beside the blocking profile, not over it: run1.cpu.pb.gz.
			path = rec.Prefix + "." + opt.Profile.String() + f.Ext
		}
	}
	if path == "-" {
		// A terminal shows the text formats' names (the JVM's) escaped,
		// as report's text; a pipe or a file gets them as they are.
		out := u.stdout
		var tw *termSafeWriter
		if isTerminal(u.stdout) {
			tw = newTermSafeWriter(u.stdout)
			out = tw
		}
		bw := bufio.NewWriter(out)
		if err := f.Write(bw, rec, m, opt); err != nil {
			return fmt.Errorf("exporting %s: %w", rec.Prefix, err)
		}
		if err := bw.Flush(); err != nil || tw == nil {
			return err
		}
		return tw.Flush()
	}
	var size int64 // the file's, from its descriptor
	if err := writeAtomically(path, func(file *os.File) error {
		if err := f.Write(file, rec, m, opt); err != nil {
			return err
		}
		if fi, err := file.Stat(); err == nil {
			size = fi.Size()
		}
		return nil
	}); err != nil {
		return fmt.Errorf("exporting %s: %w", rec.Prefix, err)
	}
	prof.heapAt("export")
	steps.end()
	fmt.Fprintf(u.stdout, "wrote %s: %s, %s: %d %s, %s s\n", path, f.Name, what,
		count, plural(count, noun, noun+"s"), strconv.FormatFloat(total.Seconds(), 'f', 3, 64))
	fmt.Fprintf(u.stdout, openHints[f.Name]+"\n", shellQuote(path))
	if max, ok := browserMax[f.Name]; ok && size > max {
		fmt.Fprintf(u.stdout, "note: %s is %s; a browser reads about %s of a %s trace: export a range of it (--from, --to, --last)%s\n",
			shellQuote(path), sizeMB(size), sizeMB(max), f.Name, largeHints[f.Name])
	}
	return nil
}

// browserMax is the largest trace of a timeline format a browser reads:
// Perfetto's UI runs its trace processor in the page, in ~2 GB of memory,
// a proto trace taking 2–4 times its size as read
// (perfetto.dev/docs/visualization/large-traces); chrome://tracing and
// the UI's JSON import fail past a few hundred MB of JSON. A variable for
// the tests.
var browserMax = map[string]int64{"perfetto": 512 << 20, "chrome": 256 << 20}

// largeHints end that note, by format.
var largeHints = map[string]string{
	"perfetto": ",\n      or open it through Perfetto's trace_processor --httpd, which reads it outside the browser for the UI",
	"chrome":   ",\n      or export --format perfetto, several times smaller",
}

// sizeMB is n bytes in MB, as the note above says them.
func sizeMB(n int64) string { return strconv.FormatInt(n>>20, 10) + " MB" }

// buildRange opens the recording arg names for cmd (export, push), builds
// the model of the range rf asks for (the whole recording without one),
// and says on u.stderr which range it read, its progress when large, and
// what makes the model miss events.
// buildRange builds the model of PREFIX arg (a range of it, rf) with
// options mo, its progress on a terminal, in memory bounded as orca
// report's (boundMemory).
func buildRange(u ui, cmd, arg string, rf *rangeFlags, mo model.Options) (*reader.Recording, *model.Result, error) {
	if err := rf.check(); err != nil {
		return nil, nil, err
	}
	rec, err := openRecording(cmd, arg)
	if err != nil {
		return nil, nil, err
	}
	if mo.Span, err = rf.span(rec); err != nil {
		return nil, nil, err
	}
	if mo.Span != nil {
		fmt.Fprintf(u.stderr, "orca: %s\n", rangeNote(mo.Span))
	}
	if size := readBytes(rec, mo.Span); size > progressMin {
		mo.Progress = newProgress(u.stderr, rec.Prefix+format.SuffixEvents, size)
	}
	boundMemory()
	res, err := model.Build(rec, mo)
	if mo.Progress != nil {
		mo.Progress(-1, 0)
	}
	if err != nil {
		return nil, nil, err
	}
	if w := incomplete(rec, res); w != "" {
		fmt.Fprintf(u.stderr, "orca: warning: %s\n", termSafe(w))
	}
	return rec, res, nil
}

// writeAtomically writes path through a temporary file in its directory,
// renamed over it once whole: an export that fails leaves no half file. The
// temporary's name is random and it is created exclusively (never through a
// name another user planted), mode 0600: an export holds the recording's
// stacks and thread names, which only its user reads unless they share it.
// A path that names a device or a FIFO (-o /dev/null) is written into
// (openOutput's checks): a file renamed over it would replace the device,
// /dev/null a regular file of root's that no other user could write.
func writeAtomically(path string, write func(*os.File) error) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&(fs.ModeDevice|fs.ModeNamedPipe) != 0 {
		f, err := openOutput(path)
		if err != nil {
			return err
		}
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// incomplete says what makes the model, and so the export, miss events:
// "" when nothing does.
func incomplete(rec *reader.Recording, res *model.Result) string {
	var why []string
	if n, _ := rec.Info.Dropped(); n > 0 {
		why = append(why, fmt.Sprintf("the agent dropped %d events", n))
	}
	if res.Malformed > 0 {
		why = append(why, fmt.Sprintf("%d malformed lines were skipped", res.Malformed))
	}
	if res.Truncated {
		why = append(why, "the last line was cut short")
	}
	if n := len(res.Model.Problems); n > 0 {
		why = append(why, fmt.Sprintf("%d events could not be placed (orca report lists them)", n))
	}
	if len(why) == 0 {
		return ""
	}
	return "the recording is incomplete: " + strings.Join(why, ", ")
}

// plural picks the singular or plural noun for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
