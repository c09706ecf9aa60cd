package reader

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"orca/internal/format"
)

// Info is PREFIX.info (docs/format.md, ".info"): the key=value lines as
// read, a repeated key's values joined with "\n", with typed accessors for
// the keys the commands read. It is a map so that a key no accessor knows
// stays one index away; nil is a recording without .info. Every reader
// of .info goes through it: the report, the viewer, the exports and orca
// record's summary decide each run fact the same way.
type Info map[string]string

// ReadInfo reads a .info file of key=value lines. A repeated key (such as
// "warning") keeps every value, joined with "\n". Lines without '=' are
// ignored; Open reports them.
func ReadInfo(r io.Reader) Info {
	m, _ := readInfo(r, "")
	return m
}

// LoadInfo reads the .info file at path (orca record reads it before the
// recording can be opened: a JVM that never started has no .orca).
func LoadInfo(path string) (Info, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadInfo(f), nil
}

// readInfo is ReadInfo that also returns the malformed lines. .info is not
// CSV: the agent writes values (options, paths, commands) verbatim up to
// the newline.
func readInfo(r io.Reader, name string) (Info, []error) {
	m := make(Info)
	var errs []error
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return m, append(errs, fmt.Errorf("reading %s: %w", name, err))
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line != "" {
			k, v, ok := strings.Cut(line, "=")
			if !ok || k == "" {
				errs = append(errs, &ParseError{File: name, Line: n, Msg: "want key=value"})
			} else if old, seen := m[k]; seen {
				m[k] = old + "\n" + v
			} else {
				m[k] = v
			}
		}
		if err == io.EOF {
			return m, errs
		}
	}
}

// Int returns the value of an integer key; ok is false when the key is
// absent or not an integer.
func (in Info) Int(key string) (n int64, ok bool) {
	n, err := strconv.ParseInt(in[key], 10, 64)
	return n, err == nil
}

// Count returns the value of a counter, 0 when absent or malformed.
func (in Info) Count(key string) int64 {
	n, _ := in.Int(key)
	return n
}

// Command is sun.java.command: the main class or jar and its arguments.
func (in Info) Command() string { return in[format.InfoCommand] }

// PID is the JVM's process id as written, "" when unknown.
func (in Info) PID() string { return in[format.InfoPID] }

// JavaVersion is the JVM's java.version, written at VMInit: "" for a JVM
// that stopped before it started.
func (in Info) JavaVersion() string { return in[format.InfoJavaVersion] }

// Session is the token of the orca record run that made the recording.
func (in Info) Session() string { return in[format.InfoSession] }

// Refused is why the agent did not record, "" when it did.
func (in Info) Refused() string { return in[format.InfoRefused] }

// Complete says whether the VM ended normally (complete=true); known is
// false when .info does not say (a JVM killed before the agent's first
// write of it, or no .info).
func (in Info) Complete() (complete, known bool) {
	v, known := in[format.InfoComplete]
	return v == "true", known
}

// Incomplete reports whether .info says the VM did not end normally
// (complete=false): killed, crashed, or still running.
func (in Info) Incomplete() bool {
	c, known := in.Complete()
	return known && !c
}

// Dropped is dropped_total, the events the agent did not write; ok is
// false when .info does not say.
func (in Info) Dropped() (n int64, ok bool) { return in.Int(format.InfoDroppedTotal) }

// ClassInitOpen reports whether the agent wrote the class-initialisation
// waits it found still open (class_init_open=yes).
func (in Info) ClassInitOpen() bool { return in[format.InfoClassInitOpen] == "yes" }

// WaitTimeouts reports whether every timed Object.wait has its
// ObjectWaitTimeout line (wait_timeouts=yes), so a wait without one is
// untimed.
func (in Info) WaitTimeouts() bool { return in[format.InfoWaitTimeouts] == "yes" }

// ParksRecorded reports whether the source recorded parks: it counted
// ThreadPark lines, and the agent was not told kinds=seed.
func (in Info) ParksRecorded() bool {
	_, ok := in[format.InfoKindKey(format.InfoEvents, format.ThreadPark)]
	return ok && !strings.Contains(in[format.InfoAgentOptions], "kinds=seed")
}

// Start returns start_s, the first timestamp written.
func (in Info) Start() (format.Time, bool) { return in.time(format.InfoStart) }

// Span returns start_s and end_s, the first and last timestamps written;
// ok is false unless both are times and end is not before start.
func (in Info) Span() (start, end format.Time, ok bool) {
	start, ok1 := in.Start()
	end, ok2 := in.time(format.InfoEnd)
	return start, end, ok1 && ok2 && end >= start
}

// time parses a key whose value is a time in seconds, as the events write it.
func (in Info) time(key string) (format.Time, bool) {
	v, ok := in[key]
	if !ok {
		return 0, false
	}
	return parseTime([]byte(strings.TrimSpace(v)))
}

// Origin returns origin_unix_ns and origin_mono_ns, the wall clock and
// CLOCK_MONOTONIC at one instant; ok is false unless both are given.
func (in Info) Origin() (unixNS, monoNS int64, ok bool) {
	unixNS, ok1 := in.Int(format.InfoOriginUnixNS)
	monoNS, ok2 := in.Int(format.InfoOriginMonoNS)
	return unixNS, monoNS, ok1 && ok2
}

// Warnings returns the agent's or the import's warnings (the repeatable
// key "warning"), nil when none.
func (in Info) Warnings() []string {
	w, ok := in[format.InfoWarning]
	if !ok {
		return nil
	}
	return strings.Split(w, "\n")
}

// Counters returns the integer values of the keys that start with prefix
// (format.InfoOwnerUnknown+".", format.InfoUnattributedOf, …) by the rest
// of the key; a malformed value is left out.
func (in Info) Counters(prefix string) map[string]int64 {
	out := map[string]int64{}
	for k := range in {
		if name, ok := strings.CutPrefix(k, prefix); ok {
			if n, ok := in.Int(k); ok {
				out[name] = n
			}
		}
	}
	return out
}

// KindCount is one non-zero per-kind counter (events.KIND, dropped.KIND, …).
type KindCount struct {
	Kind  string
	Count int64
}

// KindCounts returns the non-zero counters prefix+KIND (format.InfoEvents,
// format.InfoDropped, …), in the order of the event table, then those of
// kinds this reader does not know, by name.
func (in Info) KindCounts(prefix string) []KindCount {
	var out []KindCount
	seen := map[string]bool{}
	for k := format.Kind(1); k < format.NumKinds; k++ {
		name := k.String()
		seen[name] = true
		if n := in.Count(prefix + name); n != 0 {
			out = append(out, KindCount{name, n})
		}
	}
	var other []KindCount
	for name, n := range in.Counters(prefix) {
		if !seen[name] && n != 0 {
			other = append(other, KindCount{name, n})
		}
	}
	sort.Slice(other, func(i, j int) bool { return other[i].Kind < other[j].Kind })
	return append(out, other...)
}

// Cut is what PREFIX.info says of a recording the agent could not write
// whole (a full disk): the events after At are lost.
type Cut struct {
	// At is cut_s, the last event written completely before the first
	// failed write; 0 when .info names a write error but no cut_s.
	At          format.Time
	Reason      string // write_error ("PREFIX.orca: No space left on device"), or why it is cut
	WriteErrors int64  // write_errors, failed writes
}

// Cut returns the cut of the recording, or nil when .info has neither
// cut_s nor write_error (a recording of a killed JVM is not cut: it is
// incomplete, and what it says up to its end holds).
func (in Info) Cut() *Cut {
	_, hasAt := in[format.InfoCut]
	reason, hasErr := in[format.InfoWriteError]
	if !hasAt && !hasErr {
		return nil
	}
	c := &Cut{Reason: reason}
	if hasAt {
		// A cut_s that is not a time cuts at the last event, as none.
		c.At, _ = in.time(format.InfoCut)
	}
	if c.Reason == "" {
		c.Reason = "a write failed"
	}
	c.WriteErrors = in.Count(format.InfoWriteErrors)
	return c
}

// Bounds is what .info says of a bounded recording (maxsize=, maxage=).
type Bounds struct {
	MaxSize       int64       // bytes, 0 when not bounded by size
	MaxAgeS       float64     // seconds, 0 when not bounded by age
	ChunksDeleted int64       // chunk files deleted past the bounds
	ChunksKept    string      // FIRST-LAST, "" before the first chunk
	KeptFrom      format.Time // the start of the oldest chunk kept (0: unknown)
}

// Bounds returns the bounds of a bounded recording, nil for another.
func (in Info) Bounds() *Bounds {
	size, okS := in.Int(format.InfoMaxSize)
	age, errA := strconv.ParseFloat(in[format.InfoMaxAge], 64)
	if !okS && errA != nil {
		return nil
	}
	b := &Bounds{MaxSize: size, ChunksDeleted: in.Count(format.InfoChunksDeleted), ChunksKept: in[format.InfoChunksKept]}
	if errA == nil {
		b.MaxAgeS = age
	}
	b.KeptFrom, _ = in.time(format.InfoKeptFrom)
	return b
}
