package reader

import (
	"strconv"
	"strings"

	"orca/internal/format"
)

// Sight is what the source of an imported recording could not see, as
// its .info says (orca import writes it: docs/jfr.md, "What an import
// cannot show"). The report and the viewer say it where their figures
// stand, rather than print "no hangs" for a source that could not see one.
type Sight struct {
	Source string // .info source ("jfr"); "" when not given
	// EndedOnly: the source records a state when it ends, so one still
	// going on at the end — a hang, a deadlock — is not in the recording.
	EndedOnly bool
	// ParkEndsUnknown: no park says who unparked it or how it ended.
	ParkEndsUnknown bool
	// SettingsKnown: the source's settings were found; the maps below then
	// say what they left out. Without them, that is unknown.
	SettingsKnown bool
	Threshold     map[format.Kind]format.Time // per kind that starts a state: only states this long were recorded
	NotRecorded   map[format.Kind]string      // per kind: not recorded, and why ("jdk.ThreadPark disabled")
	NoStacks      map[format.Kind]string      // per kind: recorded without stacks, and why
}

// Sight returns what the recording's source could not see, or nil when
// .info says nothing of it (the agent's recordings: it sees every state
// from its start).
func (in Info) Sight() *Sight {
	s := &Sight{Source: in[format.InfoSource], EndedOnly: in[format.InfoEndedOnly] == "true",
		ParkEndsUnknown: in[format.InfoParkEnds] == "unknown", SettingsKnown: in[format.InfoSourceSettings] == "known",
		Threshold: map[format.Kind]format.Time{}, NotRecorded: map[format.Kind]string{}, NoStacks: map[format.Kind]string{}}
	for k, v := range in {
		kind := func(prefix string) (format.Kind, bool) {
			name, ok := strings.CutPrefix(k, prefix)
			kd, known := format.KindByName[name]
			return kd, ok && known
		}
		if kd, ok := kind(format.InfoThresholdNS); ok {
			if ns, err := strconv.ParseInt(v, 10, 64); err == nil && ns > 0 {
				s.Threshold[kd] = format.Time(ns)
			}
		}
		if kd, ok := kind(format.InfoNotRecorded); ok {
			s.NotRecorded[kd] = v
		}
		if kd, ok := kind(format.InfoNoStacks); ok {
			s.NoStacks[kd] = v
		}
	}
	if !s.EndedOnly && !s.ParkEndsUnknown && !s.SettingsKnown && len(s.Threshold)+len(s.NotRecorded)+len(s.NoStacks) == 0 {
		return nil
	}
	return s
}

// Name is how a report names the source: "JFR", or "the source".
func (s *Sight) Name() string {
	if s.Source == "jfr" {
		return "JFR"
	}
	return "the source"
}
