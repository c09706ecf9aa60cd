package report

import (
	"maps"
	"slices"
	"strings"
)

// sightKinds are the kinds a source's settings speak of (reader.Sight), in
// the order the report lists them, with what the text calls them.
var sightKinds = []struct{ kind, what string }{
	{"MonitorContendedEnter", "monitor enters"},
	{"ObjectWait", "waits"},
	{"ThreadPark", "parks"},
	{"ThreadSleep", "sleeps"},
	{"VirtualThreadPinned", "pinnings of virtual threads"},
	{"ThreadStart", "thread starts"},
	{"ThreadEnded", "thread ends"},
}

// sourceName names the source of an import in the text: "JFR".
func (s *Sight) sourceName() string {
	if s.Source == "jfr" {
		return "JFR"
	}
	return "the source"
}

// hangsHidden says whether an empty hangs list means "not visible".
func (r *Report) hangsHidden() bool { return r.Sight != nil && !r.Sight.HangsVisible }

// deadlocksHidden says whether an empty deadlocks list means "not visible".
func (r *Report) deadlocksHidden() bool { return r.Sight != nil && !r.Sight.DeadlocksVisible }

// sightEntries flags, in the headline, what the source of an import could
// not see: states still going on at the end, states under a threshold,
// event types it did not record, stacks it did not take.
func (r *Report) sightEntries(es []headEntry) []headEntry {
	s := r.Sight
	if s == nil {
		return es
	}
	name := s.sourceName()
	if !s.HangsVisible || !s.DeadlocksVisible {
		es = add(es, flagged, "%s writes a wait, monitor enter, park or sleep when it ends: a deadlock, a hang, any such", name)
		more(es, " ", "state still going on at the end is not in the recording")
	}
	byThreshold := map[float64][]string{}
	for _, k := range sightKinds {
		if th, ok := s.ThresholdsS[k.kind]; ok {
			byThreshold[th] = append(byThreshold[th], k.what)
		}
	}
	for _, th := range slices.Sorted(maps.Keys(byThreshold)) {
		es = add(es, flagged, "%s recorded only states that lasted %s or more: shorter ones are not in the recording", name, dur(th))
		more(es, " ", "(%s)", and(byThreshold[th]))
	}
	for _, k := range sightKinds {
		if why, ok := s.NotRecorded[k.kind]; ok {
			es = add(es, flagged, "%s did not record %s (%s)", name, k.what, why)
		}
	}
	for _, k := range sightKinds {
		if why, ok := s.NoStacks[k.kind]; ok {
			es = add(es, flagged, "%s recorded %s without stacks (%s)", name, k.what, why)
		}
	}
	if len(byThreshold)+len(s.NotRecorded)+len(s.NoStacks) > 0 && s.Source == "jfr" {
		// orca.jfc last: JFR's later settings file wins, and profile's
		// 10 ms thresholds after it replace its 0 ms
		more(es, " ", "(record with settings=orca.jfc to see them all, last when beside another, as in settings=profile,settings=orca.jfc: orca import --jfc > orca.jfc writes it)")
	}
	return es
}

// and joins "a", "b" and "c" as "a, b and c".
func and(ss []string) string {
	if len(ss) < 2 {
		return strings.Join(ss, "")
	}
	return strings.Join(ss[:len(ss)-1], ", ") + " and " + ss[len(ss)-1]
}

// jucOwnerUnknown says whether a java.util.concurrent lock of locks has
// contentions without an owner (all of them, not the --top listed: the
// headline does not change with --top).
func jucOwnerUnknown(locks []Lock) bool {
	for _, l := range locks {
		if l.Kind == "juc" && l.OwnerUnknown > 0 {
			return true
		}
	}
	return false
}
