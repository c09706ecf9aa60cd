package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"orca/internal/format"
	"orca/internal/jfrimport"
	"orca/internal/reader"
)

const importHelp = `Usage: orca import [-o PREFIX] [--format compact|seed] [--force] [--quiet] RECORDING.jfr
       orca import --jfc > orca.jfc

Converts a JDK Flight Recorder recording into an Orca recording, so that
orca dump, orca report and the rest read it: PREFIX.orca, PREFIX.methods,
PREFIX.classtable, PREFIX.info, and PREFIX.ext for what JFR knows and the
Orca format has no field for (who notified a wait, timeouts, thread ids).
PREFIX.orca is in the compact encoding, as orca record writes it (binary,
each stack and thread written once per chunk; .info says encoding=compact);
--format seed writes the original Orca's text instead, one line an event
with its stack inline. Both hold the same events: orca dump prints either
as text, and orca export --format seed converts a compact one to the text.

It converts these JFR events, recorded with stack traces at a 0 ms threshold
(the JFR settings file orca.jfc does that: it is built into orca, and
orca import --jfc prints it, to save it and pass it to java or jcmd):

  jdk.JavaMonitorEnter  MonitorContendedEnter/Entered (owner: the previous owner)
  jdk.JavaMonitorWait   ObjectWait/Waited, notifier and timeout in PREFIX.ext
  jdk.ThreadSleep       ThreadSleep/Slept
  jdk.ThreadStart/End   ThreadStart, ThreadStarted, ThreadEnded
  jdk.ThreadPark        ThreadPark/Unparked (no owner, no unparker: JFR has none)
  jdk.ExecutionSample   Sample, cpu, weighing the sampling period
  jdk.CPUTimeSample     Sample, cpu (JDK 25, experimental; when present, the
                        ExecutionSample events are left out: the same CPU)
  jdk.NativeMethodSample  Sample, wall (a thread in native code)

orca.jfc leaves the samplers off; for samples add settings=profile before
it (the later file wins where both set a value: orca.jfc after profile keeps
its 0 ms thresholds, profile's 10 ms would win after it):
  java -XX:StartFlightRecording=filename=run.jfr,settings=profile,settings=orca.jfc ...

Other events are skipped. JFR records no notify, join or semaphore events;
joins show as waits on the Thread object. Line numbers resolve; source file
names are not in JFR, so frames print as Class.method(Unknown Source) in
orca dump. Without -o, PREFIX is RECORDING without its .jfr, next to it. "-"
reads the recording from stdin (then -o is needed). orca refuses to replace
an existing PREFIX.orca unless --force. A recording cut short (a JVM killed
while writing) is imported up to its last complete chunk, and orca exits 1
saying how much was lost. docs/jfr.md in the source tree has the details.

Examples:
  orca import --jfc > orca.jfc
  java -XX:StartFlightRecording=filename=run.jfr,settings=orca.jfc -jar app.jar
  orca import run.jfr
  orca report run
  orca import /tmp/app.jfr -o /tmp/app --force
  orca import --format seed run.jfr -o run-text      the text, for tools that read it
  jcmd 4242 JFR.dump name=1 filename=/tmp/now.jfr && orca import /tmp/now.jfr
`

func runImport(u ui, args []string) error {
	fs := newFlagSet("import", importHelp)
	prefix := fs.String("o", "", "output `PREFIX` (default: RECORDING without .jfr)")
	force := fs.Bool("force", false, "replace an existing recording with this prefix")
	quiet := fs.Bool("quiet", false, "print no progress and no summary")
	encName := fs.String("format", "compact", "the encoding of PREFIX.orca: `compact` (binary, as orca record writes it) or seed (the original Orca's text, one line an event), docs/format.md")
	jfc := fs.Bool("jfc", false, "print the JFR settings file orca.jfc (built into orca) that records what the import converts, and exit")
	pos, err := parseArgs(u, fs, args)
	if err != nil {
		return err
	}
	if *jfc {
		if len(pos) != 0 {
			return usagef("import: --jfc prints the settings file and takes no RECORDING (orca import --jfc > orca.jfc)")
		}
		_, err := u.stdout.Write(jfrimport.JFC)
		return err
	}
	if len(pos) != 1 {
		return usagef("import: want one RECORDING.jfr (run 'orca import --help')")
	}
	enc, ok := format.ParseEncoding(*encName)
	if !ok {
		return usagef("import: --format %q: want compact or seed", *encName)
	}
	src := pos[0]
	if fi, serr := os.Stat(src); serr == nil && fi.IsDir() {
		// before -o's default, which would name it ("-o "runs" is a
		// directory" for orca import runs)
		return usagef("import: %s is a directory: want a .jfr file", src)
	}
	if src != "-" && !isJFR(src) {
		// An Orca recording (a prefix or one of its files) needs no import.
		rp := src
		for _, s := range recordingExts {
			rp = strings.TrimSuffix(rp, s)
		}
		if _, err := os.Stat(rp + format.SuffixEvents); err == nil {
			return exitError{2, fmt.Sprintf("import: %s is already an Orca recording: no import needed; read it with orca report %s (or view, dump, export)", src, rp)}
		}
	}
	if *prefix == "" {
		if src == "-" {
			return usagef("import: reading stdin: give the output prefix with -o")
		}
		*prefix = strings.TrimSuffix(src, ".jfr") // the files get extensions: never the input's name
	}
	if err := checkImportPrefix(*prefix); err != nil {
		return err
	}
	if !*force {
		for _, ext := range jfrimport.Exts {
			if _, err := os.Stat(*prefix + ext); err == nil {
				return exitError{2, fmt.Sprintf("%s%s already exists: choose another prefix with -o, or pass --force to replace it", *prefix, ext)}
			}
		}
	}

	opt := jfrimport.Options{Source: src, Encoding: enc}
	if !*quiet && isTerminal(u.stderr) {
		// A line a second is for a person watching, not for a log.
		opt.Progress = u.stderr
	}
	var res *jfrimport.Result
	if src == "-" {
		opt.Source = "stdin"
		res, err = jfrimport.Import(u.stdin, -1, *prefix, opt)
	} else {
		res, err = jfrimport.ImportFile(src, *prefix, opt)
	}
	var de *jfrimport.DamageError
	if err != nil && !errors.As(err, &de) {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("import: %w", err)
		}
		return err
	}
	if !*quiet {
		printImport(u.stderr, opt.Source, *prefix, res)
	}
	if de != nil {
		return exitError{1, fmt.Sprintf("%v; the rest was imported into %s.*", de, *prefix)}
	}
	return nil
}

// checkImportPrefix rejects a prefix that names a directory.
func checkImportPrefix(p string) error {
	if strings.HasSuffix(p, "/") || filepath.Base(p) == "." || filepath.Base(p) == ".." {
		return usagef("import: -o %q: want a file name prefix, not a directory (e.g. %s)", p, filepath.Join(p, "run1"))
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return usagef("import: -o %q is a directory: want a file name prefix (e.g. %s)", p, filepath.Join(p, "run1"))
	}
	return checkOutDir("import: "+p, p, "nothing was imported")
}

// printImport says what was imported, in the shape of orca record's summary.
func printImport(w io.Writer, src, prefix string, res *jfrimport.Result) {
	// The JFR file's words (the event types it skipped) are its maker's:
	// no escape sequence of theirs reaches the terminal.
	tw := newTermSafeWriter(w)
	defer tw.Flush()
	w = tw
	size := ""
	if res.Size >= 0 {
		size = ", " + humanSize(res.Size)
	}
	plural := "s"
	if res.Chunks == 1 {
		plural = ""
	}
	fmt.Fprintf(w, "orca: imported %s (%d JFR chunk%s%s), %.2f s of events\n", src, res.Chunks, plural, size, (res.End - res.Start).Seconds())
	fmt.Fprintln(w, "  files:")
	for _, ext := range jfrimport.Exts {
		n := int64(0)
		if fi, err := os.Stat(prefix + ext); err == nil {
			n = fi.Size()
		}
		fmt.Fprintf(w, "    %s%-11s  %s\n", prefix, ext, humanSize(n))
	}
	var evs, exts []reader.KindCount
	var total int64
	for k := format.Kind(1); k < format.NumKinds; k++ {
		if n := res.Events[k]; n > 0 {
			evs = append(evs, reader.KindCount{Kind: k.String(), Count: int64(n)})
			total += int64(n)
		}
	}
	for k := format.ExtKind(1); k < format.NumExtKinds; k++ {
		if n := res.Ext[k]; n > 0 {
			exts = append(exts, reader.KindCount{Kind: k.String(), Count: int64(n)})
		}
	}
	fmt.Fprintf(w, "  events: %d\n", total)
	printCounts(w, "    ", evs)
	if len(exts) > 0 {
		fmt.Fprintf(w, "  in %s.ext:\n", prefix)
		printCounts(w, "    ", exts)
	}
	if total == 0 {
		fmt.Fprintln(w, "  NO EVENTS: the recording has none of jdk.JavaMonitorEnter, JavaMonitorWait, ThreadSleep,")
		fmt.Fprintln(w, "  ThreadStart, ThreadEnd; record with settings=orca.jfc (orca import --jfc > orca.jfc writes it)")
	}
	if res.OwnerUnknown > 0 {
		fmt.Fprintf(w, "  owner unknown: %d MonitorContendedEnter without a previous owner in JFR\n", res.OwnerUnknown)
	}
	if res.TruncatedStacks > 0 {
		fmt.Fprintf(w, "  %d stacks cut at JFR's stackdepth (raise it: -XX:FlightRecorderOptions:stackdepth=128)\n", res.TruncatedStacks)
	}
	for s, n := range res.Skipped {
		typ, why, _ := strings.Cut(s, ": ")
		fmt.Fprintf(w, "  skipped: %d %s events (%s)\n", n, typ, why)
	}
	fmt.Fprintf(w, "  next: orca report %s\n", shellQuote(prefix))
}
