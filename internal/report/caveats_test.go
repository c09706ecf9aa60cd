package report

import (
	"strings"
	"testing"
)

// TestOwnerUnknownWhyWhole: the agent's reasons for an unknown owner are
// counts of its whole run; a report of part of it (a range, a thread
// filter, a bounded recording's kept span) says so, where the counts
// (110) would not add up to its contentions (13).
func TestOwnerUnknownWhyWhole(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(r *Report)
		want string
	}{
		{"whole", func(*Report) {}, "blocked (0.0 %): the owner had released the monitor when the thread blocked (110)"},
		{"range", func(r *Report) { r.Range = &Range{} }, ": in the whole recording, the owner had released the monitor when the thread blocked (110)"},
		{"thread", func(r *Report) { r.Filter = &Filter{Thread: "x"} }, ": in the whole recording, the owner had released"},
		{"bounded", func(r *Report) { r.Bounded = &Bounded{ChunksDeleted: 35} }, ": in the whole recording, the owner had released"},
		{"bounded-whole", func(r *Report) { r.Bounded = &Bounded{} }, "blocked (0.0 %): the owner had released"},
	} {
		r := &Report{OwnerUnknown: 13, OwnerUnknownS: 64e-6, BlockedS: 0.6931, OwnerUnknownWhy: map[string]int64{"released": 110}}
		c.set(r)
		var got []string
		for _, e := range r.tailEntries() {
			got = append(got, strings.Join(e.lines, " "))
		}
		if s := strings.Join(got, "\n"); !strings.Contains(s, c.want) {
			t.Errorf("%s: %q, want %q in it", c.name, s, c.want)
		}
	}
}

// TestInfoCountsWhole: the events dropped, the virtual threads' events not
// attributed, the virtual threads started and the samples lost are .info's
// counts of the agent's whole run; a partial report says so, as it does for
// the owners' reasons above.
func TestInfoCountsWhole(t *testing.T) {
	seven := int64(7)
	wants := []string{
		"7 events DROPPED by the agent in the whole recording (buffer full)",
		"7 events of virtual threads not attributed (not recorded) in the whole recording",
		"7 virtual threads started while recording in the whole recording",
		"7 samples lost in the whole recording (timer 7)",
	}
	for _, c := range []struct {
		name  string
		set   func(r *Report)
		whole bool
	}{
		{"whole", func(*Report) {}, false},
		{"range", func(r *Report) { r.Range = &Range{} }, true},
		{"thread", func(r *Report) { r.Filter = &Filter{Thread: "x"} }, true},
		{"bounded", func(r *Report) { r.Bounded = &Bounded{ChunksDeleted: 2} }, true},
	} {
		r := &Report{DroppedEvents: &seven, UnattributedEvents: &seven, VirtualThreads: &seven,
			CPU: &CPU{Lost: map[string]int64{"timer": 7}}}
		c.set(r)
		var got []string
		for _, e := range r.tailEntries() {
			got = append(got, strings.Join(e.lines, " "))
		}
		s := strings.Join(got, "\n")
		for _, w := range wants {
			if !c.whole {
				w = strings.Replace(w, " in the whole recording", "", 1)
			}
			if !strings.Contains(s, w) {
				t.Errorf("%s: %q, want %q in it", c.name, s, w)
			}
		}
	}
}

// TestOwnerEndedPartial: in a partial report the agent's reasons for no
// owner are its whole run's, but owner_ended (the fold's) is the part's:
// the text says each where it belongs.
func TestOwnerEndedPartial(t *testing.T) {
	for _, c := range []struct {
		name    string
		why     map[string]int64
		partial bool
		want    string
	}{
		{"whole", map[string]int64{"released": 3, "owner_ended": 2}, false,
			": the owner had released the monitor when the thread blocked (3); the thread named as the owner had ended before"},
		{"both", map[string]int64{"released": 3, "owner_ended": 2}, true,
			": in the whole recording, the owner had released the monitor when the thread blocked (3); in this report, the thread named as the owner had ended before"},
		{"ended alone", map[string]int64{"owner_ended": 2}, true,
			"blocked (100.0 %): the thread named as the owner had ended before"},
		{"agent alone", map[string]int64{"released": 3}, true,
			": in the whole recording, the owner had released the monitor when the thread blocked (3)"},
	} {
		r := &Report{OwnerUnknown: 5, OwnerUnknownS: 1, BlockedS: 1, OwnerUnknownWhy: c.why}
		if c.partial {
			r.Range = &Range{}
		}
		var got []string
		for _, e := range r.tailEntries() {
			got = append(got, strings.Join(e.lines, " "))
		}
		s := strings.Join(got, "\n")
		if !strings.Contains(s, c.want) {
			t.Errorf("%s: %q, want %q in it", c.name, s, c.want)
		}
		if c.name == "agent alone" && strings.Contains(s, "in this report") {
			t.Errorf("%s: %q says in this report with no owner_ended", c.name, s)
		}
	}
}
