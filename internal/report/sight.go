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

// sightFlags flags, in the headline, what the source of an import could
// not see: states still going on at the end, states under a threshold,
// event types it did not record, stacks it did not take.
func (r *Report) sightFlags(t *textWriter, flag func(string, ...any)) {
	s := r.Sight
	if s == nil {
		return
	}
	name := s.sourceName()
	if !s.HangsVisible || !s.DeadlocksVisible {
		flag("%s writes a wait, monitor enter, park or sleep when it ends: a deadlock, a hang, any such", name)
		t.printf("     state still going on at the end is not in the recording\n")
	}
	byThreshold := map[float64][]string{}
	for _, k := range sightKinds {
		if th, ok := s.ThresholdsS[k.kind]; ok {
			byThreshold[th] = append(byThreshold[th], k.what)
		}
	}
	for _, th := range slices.Sorted(maps.Keys(byThreshold)) {
		flag("%s recorded only states that lasted %s or more: shorter ones are not in the recording", name, dur(th))
		t.printf("     (%s)\n", and(byThreshold[th]))
	}
	for _, k := range sightKinds {
		if why, ok := s.NotRecorded[k.kind]; ok {
			flag("%s did not record %s (%s)", name, k.what, why)
		}
	}
	for _, k := range sightKinds {
		if why, ok := s.NoStacks[k.kind]; ok {
			flag("%s recorded %s without stacks (%s)", name, k.what, why)
		}
	}
	if len(byThreshold)+len(s.NotRecorded)+len(s.NoStacks) > 0 && s.Source == "jfr" {
		t.printf("     (record with settings=orca.jfc to see them all: orca import --jfc > orca.jfc writes it)\n")
	}
}

// and joins "a", "b" and "c" as "a, b and c".
func and(ss []string) string {
	if len(ss) < 2 {
		return strings.Join(ss, "")
	}
	return strings.Join(ss[:len(ss)-1], ", ") + " and " + ss[len(ss)-1]
}

// jucOwnerUnknown says whether a listed java.util.concurrent lock has
// contentions without an owner.
func (r *Report) jucOwnerUnknown() bool {
	for _, l := range r.Locks {
		if l.Kind == "juc" && l.OwnerUnknown > 0 {
			return true
		}
	}
	return false
}
