package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"orca/internal/format"
	"orca/internal/reader"
	"orca/internal/report"
)

// printSummary writes what one JVM recorded and what to do next.
func printSummary(w io.Writer, r recording) {
	// The .info's words are the JVM's (its command line, warnings): no escape
	// sequence of theirs reaches the terminal. The file names are its user's
	// too: termSafe, a newline as well (it would start a line of its own).
	tw := newTermSafeWriter(w)
	defer tw.Flush()
	w = tw
	var infoPath string
	for _, f := range r.files {
		if strings.HasSuffix(f.path, format.SuffixInfo) {
			infoPath = f.path
		}
	}
	var in reader.Info
	var infoErr error
	if infoPath == "" {
		infoErr = fmt.Errorf("%s.info is missing", termSafe(r.prefix))
	} else {
		in, infoErr = reader.LoadInfo(infoPath)
	}

	// A .info not complete (the JVM was killed, or runs on) is of the
	// agent's last write of it, each second: the files may hold more.
	var fc *fileCounts
	if infoErr == nil && in.Incomplete() && in.Bounds() == nil {
		fc = countFiles(r.prefix)
	}

	head := "orca: recording " + termSafe(r.prefix)
	if pid := in.PID(); pid != "" {
		head += " from JVM pid " + pid
	}
	if cmd := in.Command(); cmd != "" {
		head += " (" + cmd + ")"
	}
	if start, end, ok := in.Span(); ok {
		if fc != nil && fc.err == nil && fc.last > end {
			end = fc.last
		}
		head += fmt.Sprintf(", %.2f s", (end - start).Seconds())
	}
	fmt.Fprintln(w, head)

	fmt.Fprintln(w, "  files:")
	// A bounded recording's chunk files on one line: the first, the last,
	// how many and their size.
	type row struct{ path, size string }
	var rows []row
	var chunks []recFile
	var chunkBytes int64
	for _, f := range r.files {
		if strings.Contains(f.path[len(r.prefix):], format.SuffixEvents+".") {
			chunks = append(chunks, f)
			chunkBytes += f.size
			continue
		}
		rows = append(rows, row{termSafe(f.path), humanSize(f.size)})
	}
	switch len(chunks) {
	case 0:
	case 1:
		rows = append(rows, row{termSafe(chunks[0].path), humanSize(chunkBytes)})
	default:
		rows = append(rows, row{fmt.Sprintf("%s … %s (%d chunk files)", termSafe(chunks[0].path),
			termSafe(chunks[len(chunks)-1].path[len(r.prefix):]), len(chunks)), humanSize(chunkBytes)})
	}
	pw, sw := 0, 0
	for _, x := range rows {
		pw = max(pw, len(x.path))
		sw = max(sw, len(x.size))
	}
	for _, x := range rows {
		fmt.Fprintf(w, "    %-*s  %*s\n", pw, x.path, sw, x.size)
	}
	if infoErr != nil {
		fmt.Fprintf(w, "  no counters: %v (the JVM ended before the agent's first write of it, or was killed)\n", infoErr)
		fmt.Fprintf(w, "  next: orca report %s\n\n", termSafe(shellQuote(r.prefix)))
		return
	}

	events := in.KindCounts(format.InfoEvents)
	var total int64
	for _, c := range events {
		total += c.Count
	}
	when := "its last write"
	for _, f := range r.files {
		if f.path == infoPath {
			when = "its last write, at " + f.mtime.Format("15:04:05")
		}
	}
	switch {
	case fc != nil && fc.err == nil:
		fmt.Fprintf(w, "  events: %d (counted in the files: .info is not complete, its counts — %d events — are of %s)\n", fc.total, total, when)
		events = fc.kinds
	case in.Incomplete():
		why := "the kept chunk files hold part of the run"
		if fc != nil {
			why = "the files could not be counted: " + fc.err.Error()
		}
		fmt.Fprintf(w, "  events: %d (from .info, not complete: the counts are of %s; %s)\n", total, when, why)
	default:
		fmt.Fprintf(w, "  events: %d\n", total)
	}
	printCounts(w, "    ", events)
	if b := in.Bounds(); b != nil {
		var bounds []string
		if b.MaxSize > 0 {
			bounds = append(bounds, fmt.Sprintf("--max-size %.4g MiB", float64(b.MaxSize)/(1<<20)))
		}
		if b.MaxAgeS > 0 {
			bounds = append(bounds, fmt.Sprintf("--max-age %gs", b.MaxAgeS))
		}
		if b.ChunksDeleted == 0 {
			// "0 older chunk files deleted; … the chunk files kept hold its end"
			// said of a recording kept whole
			fmt.Fprintf(w, "  bounded (%s): nothing deleted, chunk files %s kept\n", strings.Join(bounds, ", "), b.ChunksKept)
		} else {
			fmt.Fprintf(w, "  bounded (%s): %d older chunk files deleted; the counts above are of the whole run, the chunk files kept (%s) hold its end\n",
				strings.Join(bounds, ", "), b.ChunksDeleted, b.ChunksKept)
		}
	}

	if in[format.InfoAttached] == "true" {
		alive, _ := in.Int(format.InfoAliveAtAttach)
		how := "until the JVM ended"
		if in[format.InfoStopped] == "true" {
			how = "stopped while the JVM went on"
			if in[format.InfoStoppedBy] == "lease" {
				how += " (by its lease: the orca record --pid that started it was gone)"
			}
		}
		fmt.Fprintf(w, "  attached: begins at the attach, with the %d threads alive then; %s\n", alive, how)
		if n := in.Count(format.InfoAttachedMissed); n != 0 {
			what := "objects"
			if n == 1 {
				what = "object"
			}
			fmt.Fprintf(w, "  attached: %d %s left unnamed: an attached agent does not get %s (start the JVM with the agent for them)\n",
				n, what, strings.ReplaceAll(in[format.InfoAttachedWithout], ",", " or "))
		}
		// Virtual threads missing from the attach's states would make a stuck JVM look idle.
		if why := in[format.InfoVirtualUnseen]; why != "" {
			fmt.Fprintf(w, "  attached: virtual threads at the attach not all seen: %s\n", why)
		}
		if n := in.Count(format.InfoUnreadAtAttach); n != 0 {
			fmt.Fprintf(w, "  attached: %d %s blocked on a monitor or waiting at the attach whose monitor could not be read: %s state then is not recorded\n",
				n, plural(int(n), "thread", "threads"), plural(int(n), "its", "their"))
		}
		if n := in.Count(format.InfoVirtualSkipped); n != 0 {
			fmt.Fprintf(w, "  attached: %d virtual threads blocked on a monitor or waiting at the attach: their state then is not recorded\n", n)
		}
	}
	if why := in.Refused(); why != "" {
		fmt.Fprintf(w, "  REFUSED: %s\n", why)
	}
	if d, _ := in.Dropped(); d != 0 {
		atExit, afterCut := in.Count(format.InfoDroppedAtExit), in.Count(format.InfoDroppedAfter)
		full := d - atExit - afterCut
		fmt.Fprintf(w, "  DROPPED: %d events were not written:\n", d)
		printCounts(w, "    ", in.KindCounts(format.InfoDropped))
		if full > 0 {
			fmt.Fprintf(w, "    %d because the agent's buffer was full: record again with a larger --buffer (MB, default %d) "+
				"or a shorter --flush (ms, default %d)\n", full, agentDefaultBuffer, agentDefaultFlush)
		}
		if atExit > 0 {
			fmt.Fprintf(w, "    %d at JVM exit: not written within the agent's time limit for its final work (0.5 s)\n", atExit)
		}
		if afterCut > 0 {
			fmt.Fprintf(w, "    %d after the write error below\n", afterCut)
		}
	} else {
		fmt.Fprintln(w, "  dropped: 0")
	}
	if c := in.Cut(); c != nil && in[format.InfoWriteError] != "" {
		e := c.Reason
		what := "CUT SHORT"
		if strings.Contains(e, "No space left on device") || strings.Contains(e, "Disk quota exceeded") ||
			strings.Contains(e, "File too large") {
			what = "CUT SHORT, DISK FULL"
		}
		fmt.Fprintf(w, "  %s: the agent could not write %s\n", what, e)
		at := "at its start"
		if start, ok := in.Start(); ok && c.At > start {
			at = fmt.Sprintf("%.2f s after its start (cut_s=%s)", (c.At - start).Seconds(), in[format.InfoCut])
		}
		fmt.Fprintf(w, "    the recording ends %s; the %d events after that were dropped\n", at, in.Count(format.InfoDroppedAfter))
	} else if n := in.Count(format.InfoWriteErrors); n != 0 {
		fmt.Fprintf(w, "  write errors: %d\n", n)
	}
	if n := in.Count(format.InfoUnattributed); n != 0 {
		fmt.Fprintf(w, "  unattributed: %d events of virtual threads were not recorded (not told apart from their carriers yet):\n", n)
		printCounts(w, "    ", in.KindCounts(format.InfoUnattributedOf))
	}
	if n := in.Count(format.InfoVirtualThreads); n != 0 {
		fmt.Fprintf(w, "  virtual threads: %d\n", n)
	}
	if n := in.Count(format.InfoOwnerUnknown); n != 0 {
		// owner_unknown counts every recorded enter, written or dropped.
		// In words a user knows, as orca report says it ("owner 00000000"
		// is the file's).
		fmt.Fprintf(w, "  owner unknown: %d of %d monitor contentions (a thread blocked entering synchronized) have no known owner%s\n",
			n, in.Count(format.InfoKindKey(format.InfoEvents, format.MonitorContendedEnter))+in.Count(format.InfoKindKey(format.InfoDropped, format.MonitorContendedEnter)),
			report.OwnerUnknownWhy(in.Counters(format.InfoOwnerUnknown+".")))
	}
	if in.Incomplete() {
		fmt.Fprintln(w, "  INCOMPLETE (complete=false): the JVM did not exit normally; the recording holds events up to the last flush")
	}
	for _, s := range in.Warnings() {
		fmt.Fprintf(w, "  agent warning: %s\n", s)
	}
	fmt.Fprintf(w, "  next: orca report %s\n\n", termSafe(shellQuote(r.prefix)))
}

// fileCounts are the events a recording's files hold, per kind.
type fileCounts struct {
	kinds []reader.KindCount // in the event table's order, zero counts left out
	total int64
	last  format.Time // the latest event's time
	err   error
}

// countFiles counts the events of the recording at prefix, for a summary
// whose .info is not complete (a JVM killed with kill -9: its .info is of
// the agent's last write of it, up to a second before the end).
func countFiles(prefix string) *fileCounts {
	fc := &fileCounts{}
	rec, err := reader.Open(prefix)
	if err != nil {
		fc.err = err
		return fc
	}
	var n [format.NumKinds]int64
	_, fc.err = rec.EachEvent(reader.EachOptions{}, func(e *reader.Event) error {
		if e.Kind > 0 && e.Kind < format.NumKinds {
			n[e.Kind]++
		}
		fc.last = max(fc.last, e.Time)
		return nil
	})
	for k := format.Kind(1); k < format.NumKinds; k++ {
		if n[k] != 0 {
			fc.kinds = append(fc.kinds, reader.KindCount{Kind: k.String(), Count: n[k]})
			fc.total += n[k]
		}
	}
	return fc
}

// printCounts writes aligned "Kind  count" lines.
func printCounts(w io.Writer, indent string, cs []reader.KindCount) {
	kw, nw := 0, 0
	for _, c := range cs {
		kw = max(kw, len(c.Kind))
		nw = max(nw, len(strconv.FormatInt(c.Count, 10)))
	}
	for _, c := range cs {
		fmt.Fprintf(w, "%s%-*s  %*d\n", indent, kw, c.Kind, nw, c.Count)
	}
}

// humanSize formats a byte count with one decimal in kB, MB or GB.
func humanSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	default:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:+@%=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
