package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"orca/internal/format"
	"orca/internal/reader"
)

// info is a parsed .info file: key=value lines (docs/format.md).
type info struct {
	values   map[string]string
	warnings []string // the repeatable "warning" key
}

func readInfo(path string) (info, error) {
	f, err := os.Open(path)
	if err != nil {
		return info{}, err
	}
	defer f.Close()
	in := info{values: reader.ReadInfo(f)}
	// The reader joins the values of a repeated key with newlines.
	if w, ok := in.values[format.InfoWarning]; ok {
		in.warnings = strings.Split(w, "\n")
		delete(in.values, format.InfoWarning)
	}
	return in, nil
}

// int returns the value of an integer key, 0 when absent or malformed.
func (in info) int(key string) int64 {
	n, _ := strconv.ParseInt(in.values[key], 10, 64)
	return n
}

// kindCount is one events.KIND or dropped.KIND entry.
type kindCount struct {
	kind  string
	count int64
}

// counts returns the non-zero KEYPREFIX.KIND entries, in the order of the
// event table, then any kinds this orca does not know, by name.
func (in info) counts(keyPrefix string) []kindCount {
	var out []kindCount
	seen := map[string]bool{}
	for k := format.Kind(1); k < format.NumKinds; k++ {
		name := k.String()
		seen[name] = true
		if n := in.int(keyPrefix + name); n != 0 {
			out = append(out, kindCount{name, n})
		}
	}
	var other []kindCount
	for key := range in.values {
		name, ok := strings.CutPrefix(key, keyPrefix)
		if ok && !seen[name] {
			if n := in.int(key); n != 0 {
				other = append(other, kindCount{name, n})
			}
		}
	}
	sort.Slice(other, func(i, j int) bool { return other[i].kind < other[j].kind })
	return append(out, other...)
}

// printSummary writes what one JVM recorded and what to do next.
func printSummary(w io.Writer, r recording) {
	var infoPath string
	for _, f := range r.files {
		if strings.HasSuffix(f.path, format.SuffixInfo) {
			infoPath = f.path
		}
	}
	var in info
	var infoErr error
	if infoPath == "" {
		infoErr = fmt.Errorf("%s.info is missing", r.prefix)
	} else {
		in, infoErr = readInfo(infoPath)
	}

	head := "orca: recording " + r.prefix
	if pid := in.values[format.InfoPID]; pid != "" {
		head += " from JVM pid " + pid
	}
	if cmd := in.values[format.InfoCommand]; cmd != "" {
		head += " (" + cmd + ")"
	}
	if d, ok := in.duration(); ok {
		head += fmt.Sprintf(", %.2f s", d)
	}
	fmt.Fprintln(w, head)

	fmt.Fprintln(w, "  files:")
	pw, sw := 0, 0
	for _, f := range r.files {
		pw = max(pw, len(f.path))
		sw = max(sw, len(humanSize(f.size)))
	}
	for _, f := range r.files {
		fmt.Fprintf(w, "    %-*s  %*s\n", pw, f.path, sw, humanSize(f.size))
	}
	if infoErr != nil {
		fmt.Fprintf(w, "  no counters: %v (the JVM ended before the agent's first write of it, or was killed)\n", infoErr)
		fmt.Fprintf(w, "  next: orca report %s\n\n", shellQuote(r.prefix))
		return
	}

	events := in.counts(format.InfoEvents)
	var total int64
	for _, c := range events {
		total += c.count
	}
	fmt.Fprintf(w, "  events: %d\n", total)
	printCounts(w, "    ", events)

	if why := in.values[format.InfoRefused]; why != "" {
		fmt.Fprintf(w, "  REFUSED: %s\n", why)
	}
	if d := in.int(format.InfoDroppedTotal); d != 0 {
		atExit, afterCut := in.int(format.InfoDroppedAtExit), in.int(format.InfoDroppedAfter)
		full := d - atExit - afterCut
		fmt.Fprintf(w, "  DROPPED: %d events were not written:\n", d)
		printCounts(w, "    ", in.counts(format.InfoDropped))
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
	if e := in.values[format.InfoWriteError]; e != "" {
		what := "CUT SHORT"
		if strings.Contains(e, "No space left on device") || strings.Contains(e, "Disk quota exceeded") ||
			strings.Contains(e, "File too large") {
			what = "CUT SHORT, DISK FULL"
		}
		fmt.Fprintf(w, "  %s: the agent could not write %s\n", what, e)
		at := "at its start"
		if c, err := strconv.ParseFloat(in.values[format.InfoCut], 64); err == nil {
			if s, err := strconv.ParseFloat(in.values[format.InfoStart], 64); err == nil && c > s {
				at = fmt.Sprintf("%.2f s after its start (cut_s=%s)", c-s, in.values[format.InfoCut])
			}
		}
		fmt.Fprintf(w, "    the recording ends %s; the %d events after that were dropped\n", at, in.int(format.InfoDroppedAfter))
	} else if n := in.int(format.InfoWriteErrors); n != 0 {
		fmt.Fprintf(w, "  write errors: %d\n", n)
	}
	if n := in.int(format.InfoUnattributed); n != 0 {
		fmt.Fprintf(w, "  unattributed: %d events of virtual threads were not recorded (not told apart from their carriers yet):\n", n)
		printCounts(w, "    ", in.counts(format.InfoUnattributedOf))
	}
	if n := in.int(format.InfoVirtualThreads); n != 0 {
		fmt.Fprintf(w, "  virtual threads: %d\n", n)
	}
	if n := in.int(format.InfoOwnerUnknown); n != 0 {
		// owner_unknown counts every recorded enter, written or dropped.
		fmt.Fprintf(w, "  owner unknown: %d of %d MonitorContendedEnter events have owner 00000000\n",
			n, in.int(format.InfoKindKey(format.InfoEvents, format.MonitorContendedEnter))+in.int(format.InfoKindKey(format.InfoDropped, format.MonitorContendedEnter)))
	}
	if in.values[format.InfoComplete] == "false" {
		fmt.Fprintln(w, "  INCOMPLETE (complete=false): the JVM did not exit normally; the recording holds events up to the last flush")
	}
	for _, s := range in.warnings {
		fmt.Fprintf(w, "  agent warning: %s\n", s)
	}
	fmt.Fprintf(w, "  next: orca report %s\n\n", shellQuote(r.prefix))
}

// duration is end_s - start_s, when both are present.
func (in info) duration() (float64, bool) {
	s, err1 := strconv.ParseFloat(in.values[format.InfoStart], 64)
	e, err2 := strconv.ParseFloat(in.values[format.InfoEnd], 64)
	return e - s, err1 == nil && err2 == nil && e >= s
}

// printCounts writes aligned "Kind  count" lines.
func printCounts(w io.Writer, indent string, cs []kindCount) {
	kw, nw := 0, 0
	for _, c := range cs {
		kw = max(kw, len(c.kind))
		nw = max(nw, len(strconv.FormatInt(c.count, 10)))
	}
	for _, c := range cs {
		fmt.Fprintf(w, "%s%-*s  %*d\n", indent, kw, c.kind, nw, c.count)
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
