package jfrimport

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"orca/internal/format"
	"orca/internal/jfr"
)

// Setting is what JFR's settings (jdk.ActiveSetting events) say of one
// event type over the whole recording, the least it saw winning: a type
// disabled in one chunk missed events there, and the largest threshold is
// the one below which a state may be missing.
type Setting struct {
	Enabled, Disabled bool  // "enabled" was true, false, somewhere
	Threshold         int64 // the largest "threshold", ns; -1 when none was given
	Stacks, NoStacks  bool  // "stackTrace" was true, false, somewhere
	// Period is a sampled type's largest "period" (jdk.ExecutionSample,
	// jdk.NativeMethodSample) or "throttle" given as a time
	// (jdk.CPUTimeSample: "10ms"; not a rate, "500/s"), ns; -1 when none.
	Period int64
}

// kindOf is the Orca kind (the start of a state, or the line) each JFR
// event type the import reads becomes, for the .info keys that say what
// the source could not see. Virtual thread starts and ends are left out:
// a virtual thread is introduced by its first line without them.
var kindOf = map[string]format.Kind{
	evEnter:   format.MonitorContendedEnter,
	evWait:    format.ObjectWait,
	evPark:    format.ThreadPark,
	evSleep:   format.ThreadSleep,
	evVPinned: format.VirtualThreadPinned,
	evStart:   format.ThreadStart,
	evEnd:     format.ThreadEnded,
}

// setting folds one jdk.ActiveSetting into the settings of the event type
// it names (its id is the type's id in the chunk's metadata).
func (im *importer) setting(o jfr.Obj) {
	t := im.c.Types[o.Field("id").Int()]
	if t == nil || !slices.Contains(EventTypes, t.Name) {
		return
	}
	s := im.res.Settings[t.Name]
	if s == nil {
		s = &Setting{Threshold: -1, Period: -1}
		im.res.Settings[t.Name] = s
	}
	v := strings.TrimSpace(o.Field("value").Str())
	switch o.Field("name").Str() {
	case "enabled":
		s.Enabled, s.Disabled = s.Enabled || v == "true", s.Disabled || v != "true"
	case "period", "throttle":
		// The sampler runs at the shortest period any recording asks
		// for: that is what a sample of this chunk stands for.
		if ns, ok := parseSpan(v); ok && ns > 0 && ns < math.MaxInt64 {
			s.Period = max(s.Period, ns)
			if p, seen := im.chunkPeriod[t.Name]; !seen || ns < p {
				im.chunkPeriod[t.Name] = ns
			}
		}
	case "threshold":
		if ns, ok := parseSpan(v); ok {
			s.Threshold = max(s.Threshold, ns)
		}
	case "stackTrace":
		s.Stacks, s.NoStacks = s.Stacks || v == "true", s.NoStacks || v != "true"
	}
}

// parseSpan reads a JFR timespan setting ("20 ms", "0 ns", "1s",
// "infinity") as nanoseconds.
func parseSpan(v string) (int64, bool) {
	if v == "infinity" {
		return math.MaxInt64, true
	}
	i := strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	if i <= 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(v[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	units := map[string]int64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "d": 86400e9}
	u, ok := units[strings.TrimSpace(v[i:])]
	if !ok {
		return 0, false
	}
	if n > math.MaxInt64/u {
		return math.MaxInt64, true
	}
	return n * u, true
}

// both renders a setting that may have varied: "true", "false", or
// "partly" when it was each in part of the recording.
func both(yes, no bool) string {
	switch {
	case yes && no:
		return "partly"
	case yes:
		return "true"
	}
	return "false"
}

// writeSight writes to .info what JFR could not see (docs/jfr.md,
// "What an import cannot show"): it records a state when the state ends,
// names no unparker, and, per its settings, skips states shorter than a
// threshold, event types disabled, and stacks turned off.
func writeSight(kv func(string, any), settings map[string]*Setting) {
	kv(format.InfoEndedOnly, true)
	kv(format.InfoParkEnds, "unknown")
	if len(settings) == 0 {
		kv(format.InfoSourceSettings, "unknown")
		kv(format.InfoWarning, "the JFR file has no jdk.ActiveSetting events: which events JFR recorded, and above which thresholds, is unknown")
		return
	}
	kv(format.InfoSourceSettings, "known")
	for _, typ := range EventTypes {
		s := settings[typ]
		if s == nil {
			continue
		}
		var b strings.Builder
		if s.Enabled || s.Disabled {
			b.WriteString(" enabled=" + both(s.Enabled, s.Disabled))
		}
		if s.Threshold >= 0 {
			b.WriteString(" threshold=" + time.Duration(s.Threshold).String())
		}
		if s.Stacks || s.NoStacks {
			b.WriteString(" stackTrace=" + both(s.Stacks, s.NoStacks))
		}
		if s.Period > 0 {
			b.WriteString(" period=" + time.Duration(s.Period).String())
		}
		if b.Len() > 0 {
			kv(format.InfoJFRSettings+typ, b.String()[1:])
		}
		k, ok := kindOf[typ]
		if !ok {
			continue
		}
		switch {
		case s.Disabled && s.Enabled:
			kv(format.InfoKindKey(format.InfoNotRecorded, k), typ+" disabled in part of the recording")
		case s.Disabled:
			kv(format.InfoKindKey(format.InfoNotRecorded, k), typ+" disabled")
		}
		if s.Enabled && s.Threshold > 0 {
			kv(format.InfoKindKey(format.InfoThresholdNS, k), s.Threshold)
		}
		if s.Enabled && s.NoStacks {
			kv(format.InfoKindKey(format.InfoNoStacks, k), typ+" stackTrace="+both(s.Stacks, s.NoStacks))
		}
	}
}
