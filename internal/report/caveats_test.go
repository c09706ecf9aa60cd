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
