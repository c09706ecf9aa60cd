package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"orca/internal/format"
	"orca/internal/reader"
)

const dumpHelp = `Usage: orca dump [--resolve=false] PREFIX

Prints every event of the recording PREFIX (PREFIX.orca with PREFIX.methods and
PREFIX.classtable), one line each: the time in seconds, the event, the thread
with its name, and the event's object (with its class once an ObjectClass
line named it), target thread, owner or name. Stack
frames follow, indented, innermost first, resolved to
class.method(File.java:line) unless --resolve=false, which prints the raw
method IDs and bytecode locations.

At the end it lists the reader's warnings, the malformed lines (file:line),
and whether the last record of PREFIX.orca was cut short, and why: the JVM
is still writing it (it holds the recording's lock), or was killed while
writing it. A file cut after a JVM that ended normally wrote it whole (fewer
events than its .info counts) ends the dump with an error and exit status 1,
as a file that is not a recording does at once. A recording in the compact
encoding prints the same; its malformed records are named by byte offset
(file: byte N), and a file that ends in a chunk without its trailer (killed
between two writes, or copied while written) says so. A chunk file copied
alone, without .methods and .classtable, names its frames by the methods
and classes the chunk defines.

Examples:
  orca dump /tmp/run1 | less
  orca dump build/demo-run | grep -A4 MonitorContendedEnter
  orca dump --resolve=false /tmp/run1-2
`

func runDump(u ui, args []string) error {
	fs := newFlagSet("dump", dumpHelp)
	resolve := fs.Bool("resolve", true, "resolve stack frames to class.method(File.java:line); false: raw method IDs")
	ops, err := parseArgs(u, fs, args)
	if err != nil {
		return err
	}
	if len(ops) != 1 {
		return usagef("dump: want one PREFIX (run 'orca dump --help')")
	}
	rec, err := openRecording("dump", ops[0])
	if err != nil {
		return err
	}
	prefix := rec.Prefix
	evs, closer, err := rec.Events()
	if err != nil {
		return err
	}
	defer closer.Close()

	w := bufio.NewWriterSize(u.stdout, 64<<10)
	defer w.Flush()
	d := dumper{w: w, rec: rec, resolve: *resolve, names: map[format.ThreadID]string{}, classes: map[format.ObjectID]string{}}
	var bad []string
	var last *reader.ParseError
	n := 0
	var read int64 // the events of the file, not a chunk's restated facts
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		var pe *reader.ParseError
		if errors.As(err, &pe) {
			// Guard against a reader that reports the same line forever.
			if last != nil && pe.File == last.File && pe.Line == last.Line && pe.Offset == last.Offset {
				break
			}
			last = pe
			bad = append(bad, pe.Error()) // file:line: msg, or file: byte N: msg (compact)
			continue
		}
		if err != nil {
			w.Flush()
			return fmt.Errorf("reading %s.orca: %w", prefix, err)
		}
		n++
		if !ev.Carried {
			read++
		}
		d.event(ev)
	}
	if err := rec.CheckRead(read, len(bad)); err != nil {
		w.Flush()
		return err
	}

	// Every name and message below may hold what the JVM's user chose (its
	// file names, class and method names): termSafe, as the events' fields.
	fmt.Fprintf(w, "\n# %d events", n)
	if evs.Truncated() {
		fmt.Fprintf(w, "; the last record of %s is cut short (%s) and was skipped", termSafe(rec.LastEventsFile()), termSafe(rec.TruncatedWhy()))
	}
	if evs.Unclosed() {
		fmt.Fprintf(w, "; the last chunk of %s has no trailer (the file ends where its writing stopped)", termSafe(rec.LastEventsFile()))
	}
	fmt.Fprintln(w)
	for _, s := range rec.Warnings {
		fmt.Fprintf(w, "# warning: %s\n", termSafe(s))
	}
	for _, s := range bad {
		fmt.Fprintf(w, "# malformed: %s\n", termSafe(s))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(bad) > 0 {
		fmt.Fprintf(u.stderr, "orca: %d malformed lines in %s.orca (listed at the end of the dump)\n", len(bad), termSafe(prefix))
	}
	return nil
}

// dumper prints events, remembering thread names from ThreadStarted and
// object classes from ObjectClass. The JVM's user chose every name (thread,
// class, method and source file names; a class name may hold any character
// but . ; [ /): a thread's is %q-quoted, the others termSafe, so that no
// control character of theirs reaches the terminal of whoever reads, root's
// when orca runs as root (a newline neither: it would forge an event).
type dumper struct {
	w       io.Writer
	rec     *reader.Recording
	resolve bool
	names   map[format.ThreadID]string
	classes map[format.ObjectID]string // Java names
}

func (d *dumper) event(ev reader.Event) {
	// Name the thread from its next event on: here name= shows it.
	if ev.Kind == format.ThreadStarted {
		defer func() { d.names[ev.Thread] = ev.Name }()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", seconds(ev.Time), ev.Kind, d.thread(ev.Thread))
	k := ev.Kind
	if k.Has(format.FObject) {
		fmt.Fprintf(&b, " object=%s", ev.Object)
		if c := d.classes[ev.Object]; c != "" && k != format.ObjectClass {
			fmt.Fprintf(&b, " (%s)", termSafe(c))
		}
	}
	if k.Has(format.FTarget) {
		fmt.Fprintf(&b, " target=%s", d.thread(ev.Target))
	}
	if k.Has(format.FOwner) {
		if ev.Owner == 0 && k == format.ThreadPark {
			b.WriteString(" owner=none") // not a lock, a free one, or JFR's (which has none)
		} else if ev.Owner == 0 {
			b.WriteString(" owner=unknown")
		} else {
			fmt.Fprintf(&b, " owner=%s", d.thread(ev.Owner))
		}
	}
	if k.Has(format.FLock) {
		fmt.Fprintf(&b, " lock=%s", ev.Lock())
		if c := d.classes[ev.Lock()]; c != "" {
			fmt.Fprintf(&b, " (%s)", termSafe(c))
		}
	}
	if k.Has(format.FName) {
		fmt.Fprintf(&b, " name=%q", ev.Name)
	}
	if k.Has(format.FTimeout) && ev.Timeout >= 0 {
		fmt.Fprintf(&b, " timeout=%dns", ev.Timeout)
	}
	if k.Has(format.FHow) && ev.How != format.ParkEndUnknown {
		fmt.Fprintf(&b, " how=%s", ev.How)
	}
	if k.Has(format.FSampled) && ev.Sampled != format.SampleNone {
		fmt.Fprintf(&b, " sampled=%s", ev.Sampled)
	}
	if k.Has(format.FWeight) {
		fmt.Fprintf(&b, " weight=%dns", ev.Weight)
	}
	if k.Has(format.FCPU) {
		fmt.Fprintf(&b, " cpu=%dns ready=%dns", ev.CPU, ev.Ready)
	}
	if k.Has(format.FDepth) && ev.Depth >= 0 {
		fmt.Fprintf(&b, " taken_at_frame=%d", ev.Depth)
	}
	if k.Has(format.FMode) && ev.Mode != format.ModeNone {
		fmt.Fprintf(&b, " mode=%s", ev.Mode)
	}
	if k.Has(format.FClass) {
		fmt.Fprintf(&b, " class=%s", termSafe(ev.Class))
		if ev.Object != 0 && ev.Class != "" {
			d.classes[ev.Object] = format.JavaName(ev.Class)
		}
	}
	if ev.Carried {
		// A bounded recording's first kept chunk restating a thread's
		// state at its start (docs/format.md).
		b.WriteString(" (carried)")
	}
	b.WriteByte('\n')
	for _, f := range ev.Stack {
		if d.resolve {
			fmt.Fprintf(&b, "    %s\n", termSafe(d.rec.Resolve(f)))
		} else {
			fmt.Fprintf(&b, "    method=%s location=%s\n", f.Method, format.Hex(f.Location))
		}
	}
	io.WriteString(d.w, b.String())
}

// thread formats a thread as its hash code and, once known, its name.
func (d *dumper) thread(t format.ThreadID) string {
	if name, ok := d.names[t]; ok {
		return fmt.Sprintf("%s %q", t, name)
	}
	return t.String()
}

// seconds formats a time like the files do, without the always-zero last digit.
func seconds(t format.Time) string {
	sign := ""
	if t < 0 {
		sign, t = "-", -t
	}
	return fmt.Sprintf("%s%d.%09d", sign, int64(t)/1e9, int64(t)%1e9)
}
