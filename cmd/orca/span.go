package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"time"

	"orca/internal/format"
	"orca/internal/reader"
)

// Time ranges: orca report, view and export --from T --to T and --last D
// read the chunks of the range only (reader.Span, docs/format.md, "Reading
// a time range").

// rangeHelp is the help's paragraph on the range flags, for report, view
// and export.
const rangeHelp = `--from T and --to T keep the events between the two times (either may be
left out); --last D the last D of the recording (an always-on one: orca
record --max-size/--max-age). T is
seconds since the recording's first event, as the report prints them (90,
90.5), a duration since it (1m30s), or an RFC 3339 time
(2026-11-28T21:00:00Z, from the .info's clock origin). A compact recording
is read from the chunk that holds T, so a range costs what it holds, not
what the file does; the seed's text .orca has no chunks and is read whole
and filtered. A state that began before the range counts from its start
(the state every thread was in then is restated there, as for a bounded
recording's oldest chunk); one still on at its end lasts to it.
`

// rangeFlags are the --from, --to and --last flags of a command.
type rangeFlags struct {
	cmd            string
	from, to, last *string
}

func addRangeFlags(fs *flag.FlagSet, cmd string) *rangeFlags {
	return &rangeFlags{
		cmd:  cmd,
		from: fs.String("from", "", "keep the events from time `T` on (seconds since the first event, a duration, or an RFC 3339 time)"),
		to:   fs.String("to", "", "keep the events up to time `T` (as --from)"),
		last: fs.String("last", "", "keep the last `D` of the recording (a duration: 30s, 5m, 1h)"),
	}
}

// set reports whether a range was asked for.
func (f *rangeFlags) set() bool { return *f.from != "" || *f.to != "" || *f.last != "" }

// check validates the flags' forms before the recording is opened.
func (f *rangeFlags) check() error {
	if *f.last != "" && (*f.from != "" || *f.to != "") {
		return usagef("%s: --last goes without --from and --to", f.cmd)
	}
	if *f.last != "" {
		if d, err := time.ParseDuration(*f.last); err != nil || d <= 0 {
			return usagef("%s: --last %q: want a duration above 0, like 30s, 5m or 1h", f.cmd, *f.last)
		}
	}
	for _, x := range []struct{ name, v string }{{"from", *f.from}, {"to", *f.to}} {
		if x.v == "" {
			continue
		}
		if _, _, err := parseRangeTime(x.v); err != nil {
			return usagef("%s: --%s %q: %v", f.cmd, x.name, x.v, err)
		}
	}
	return nil
}

// rangeForms is what a T may be, for errors.
const rangeForms = "want seconds since the recording's first event (90, 90.5), a duration since it (1m30s) or an RFC 3339 time (2026-11-28T21:00:00Z)"

// parseRangeTime parses T: an offset from the first event, or a wall
// clock time (abs true, ns since the Unix epoch).
func parseRangeTime(s string) (v int64, abs bool, err error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) || f > math.MaxInt64/1e9 {
			return 0, false, fmt.Errorf("%s", rangeForms)
		}
		return int64(math.Round(f * 1e9)), false, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return 0, false, fmt.Errorf("%s", rangeForms)
		}
		return int64(d), false, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixNano(), true, nil
	}
	return 0, false, fmt.Errorf("%s", rangeForms)
}

// span returns the part of rec to read (nil when no range was asked for).
func (f *rangeFlags) span(rec *reader.Recording) (*reader.Span, error) {
	if !f.set() {
		return nil, nil
	}
	first, last, ok, err := rec.TimeBounds()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: %s has no events: no time range to keep", f.cmd, rec.Prefix)
	}
	from, to := first, format.Time(math.MaxInt64)
	at := func(name, s string) (format.Time, error) {
		v, abs, _ := parseRangeTime(s) // checked
		if !abs {
			return first + format.Time(v), nil
		}
		unix, mono, ok := rec.Info.Origin()
		if !ok {
			return 0, fmt.Errorf("%s: --%s %s: %s.info has no clock origin (origin_unix_ns, origin_mono_ns) to place a wall-clock time; give seconds since the first event", f.cmd, name, s, rec.Prefix)
		}
		return format.Time(v - unix + mono), nil
	}
	if *f.last != "" {
		d, _ := time.ParseDuration(*f.last)
		from = max(first, last-format.Time(d))
	}
	if *f.from != "" {
		if from, err = at("from", *f.from); err != nil {
			return nil, err
		}
	}
	if *f.to != "" {
		if to, err = at("to", *f.to); err != nil {
			return nil, err
		}
	}
	span := fmt.Sprintf("the recording spans 0 to %.3f s", (last - first).Seconds())
	switch {
	case to < from:
		return nil, fmt.Errorf("%s: --to is before --from (%.3f s < %.3f s)", f.cmd, (to - first).Seconds(), (from - first).Seconds())
	case from > last:
		return nil, fmt.Errorf("%s: --from %.3f s is after the last event: %s", f.cmd, (from - first).Seconds(), span)
	case to < first:
		return nil, fmt.Errorf("%s: --to is before the first event: %s", f.cmd, span)
	}
	// The bounds already read: rec.Span would read them again (the first
	// and last chunks decoded twice).
	return rec.SpanWithin(from, to, first, last)
}

// rangeNote is the line a command prints about the range it read.
func rangeNote(sp *reader.Span) string {
	r := fmt.Sprintf("the range %.3f s to %.3f s of %.3f s recorded", (max(sp.From, sp.Origin) - sp.Origin).Seconds(),
		(min(sp.To, sp.End) - sp.Origin).Seconds(), (sp.End - sp.Origin).Seconds())
	if sp.Whole {
		return r + " (the text .orca read whole and filtered)"
	}
	return fmt.Sprintf("%s: %d %s, %d of %d bytes", r, sp.Chunks, plural(sp.Chunks, "chunk", "chunks"), sp.Bytes, sp.Total)
}
