package model_test

import (
	"regexp"
	"testing"

	. "orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/testrec"
)

// loadCase builds the model of testdata/cases/name.txtar.
func loadCase(t *testing.T, name string) *Model {
	t.Helper()
	m := buildCase(t, testrec.Parse(t, "testdata/cases/"+name+".txtar")).Model
	if errs := modeltest.Validate(m); len(errs) > 0 {
		t.Fatalf("%s is invalid before any change: %v", name, errs)
	}
	return m
}

// TestValidateCatches breaks valid models one way at a time: Validate must
// say so, or the cases and the fuzz test prove nothing.
func TestValidateCatches(t *testing.T) {
	for _, c := range []struct {
		name, from string
		breakIt    func(m *Model)
		want       string
	}{
		{"overlap", "kinds", func(m *Model) {
			w := m.Thread(0xB)
			w.Intervals[1].Start = w.Intervals[0].End - 1
		}, `overlaps the previous one`},
		{"outside the thread", "kinds", func(m *Model) {
			w := m.Thread(0xB)
			w.Intervals[2].End = w.End + 1
		}, `ends after the thread`},
		{"wait without end kind", "notify-one", func(m *Model) { m.Thread(0xB).Intervals[0].Wake = WakeNone }, `wait has no end kind`},
		{"notified wait without notifier", "notify-one", func(m *Model) { m.Thread(0xB).Intervals[0].Other = 0 }, `names notifier 00000000`},
		{"split wait disagrees", "wait-reenter", func(m *Model) { m.Thread(0xB).Intervals[0].Wake = WakeTimeout }, `segments of one wait end`},
		{"runnable gap in a split state", "join-blocked", func(m *Model) {
			a := m.Thread(1)
			a.Intervals[1].End -= 100
			a.Time[Blocked] -= 100
			a.Time[Runnable] += 100
		}, `runnable gap`},
		{"state time", "kinds", func(m *Model) { m.Thread(0xB).Time[Sleeping]++ }, `Time\[sleeping\]`},
		{"runnable time", "kinds", func(m *Model) { m.Thread(0xB).Time[Runnable]-- }, `Time\[runnable\]`},
		{"blocked on own monitor", "owner-change", func(m *Model) {
			iv := &m.Thread(0xB).Intervals[0]
			iv.First, iv.Other = 0xB, 0xB
		}, `that it owns`},
		{"two owners at once", "owner-change", func(m *Model) {
			// C's first segment (1.5..3) names D instead of A, while B
			// (blocked 1..3) names A.
			// (The change C's own Enter made to A is left out of its range.)
			iv := &m.Thread(0xC).Intervals[0]
			iv.First = 0xD
			MoveOwnFrom(iv)
		}, `blocked threads name owners`},
		{"contention count", "owner-change", func(m *Model) { m.Lock(0xAAAA, Monitor).Contentions++ }, `2 contentions|3 contentions`},
		{"max blocked", "owner-change", func(m *Model) { m.Lock(0xAAAA, Monitor).MaxBlocked-- }, `max`},
		{"blame", "owner-change", func(m *Model) { m.Lock(0xAAAA, Monitor).Owners[1].Blamed++ }, `owner 0000000B blamed`},
		{"blame missing", "owner-change", func(m *Model) {
			l := m.Lock(0xAAAA, Monitor)
			l.Owners = l.Owners[:1]
		}, `not among the owners`},
		{"site sums", "owner-change", func(m *Model) { m.Lock(0xAAAA, Monitor).Sites[0].Blocked-- }, `sites sum`},
		{"owner unknown", "owner-unknown", func(m *Model) { m.Lock(0xAAAA, Monitor).OwnerUnknown = 0 }, `owner unknown`},
		{"waits", "notify-two-waiters", func(m *Model) { m.Lock(0xC0DE, Monitor).Waits = 3 }, `3 waits`},
		{"wait time", "wait-never", func(m *Model) { m.Lock(0xC0DE, Monitor).WaitTime = 0 }, `waits, 0s waiting|waits, 0 waiting`},
		{"waiters", "owner-change", func(m *Model) {
			l := m.Lock(0xAAAA, Monitor)
			l.Waiters = l.Waiters[:1]
		}, `1 waiters`},
		{"semaphore contention without release", "semaphore", func(m *Model) { m.Lock(0xD1CE, Semaphore).Releases = 0 }, `each needs its own release`},
		{"edge to an unknown thread", "kinds", func(m *Model) { m.Edges[0].To = 0x77 }, `unknown thread`},
		{"edge back in time", "kinds", func(m *Model) { m.Edges[0].FromTime = m.Edges[0].ToTime + 1 }, `goes back in time`},
		{"wake edge from the wrong thread", "notify-one", func(m *Model) { m.Edges[0].From = 0xB }, `unknown thread or one thread twice|no wait`},
		{"wake edge missing", "notify-one", func(m *Model) { m.Edges = nil }, `0 wake edges for 1 waits`},
		{"ambiguous flag", "notify-two-waiters", func(m *Model) { m.Edges[0].Ambiguous = false }, `no wait on`},
		{"join edge before the end", "join", func(m *Model) { m.Edges[0].FromTime-- }, `did not end`},
		{"join edge for a timed-out join", "join", func(m *Model) {
			m.Edges = append(m.Edges, Edge{Kind: EdgeJoin, From: 0xB, To: 1, FromTime: m.Thread(0xB).End, ToTime: m.Thread(0xB).End})
		}, `no join of 0000000B`},
		{"owner edge from the wrong owner", "owner-change", func(m *Model) { m.Edges[1].From = 0xA }, `no contention on`},
		{"release edge", "semaphore", func(m *Model) { m.Edges[0].To = 0xA; m.Edges[0].From = 0xB }, `no acquire`},
		{"start edge", "thread-start", func(m *Model) { m.Thread(0xA).Parent = 0xB }, `the parent of`},
		{"open interval not reaching the end", "wait-never", func(m *Model) { m.Thread(0xB).Intervals[0].End-- }, `open but does not reach`},
		{"open wait not never", "wait-never", func(m *Model) { m.Thread(0xB).Intervals[0].Wake = WakeTimeout }, `open wait ended timeout`},
		{"deadlock of threads not waiting", "deadlock-two-locks", func(m *Model) { m.Deadlocks[0].At = 0 }, `is not waiting for`},
		{"deadlock said to stand at the end", "transient-cycle", func(m *Model) {
			m.Deadlocks[0].AtEnd, m.Deadlocks[0].Resolved = true, 0
		}, `at end, yet`},
		{"deadlock resolved before it formed", "transient-cycle", func(m *Model) { m.Deadlocks[0].Resolved = m.Deadlocks[0].At - 1 }, `resolved`},
		{"deadlock malformed", "deadlock-two-locks", func(m *Model) { m.Deadlocks[0].Objects = nil }, `malformed`},
		{"thread index", "kinds", func(m *Model) { IndexThread(m, 0x55, m.Threads[0]) }, `not in Threads`},
		{"runnable split", "samples", func(m *Model) { m.Thread(1).Run.Other++ }, `runnable .* split into`},
		{"runnable split not RunIn's", "samples", func(m *Model) {
			r := &m.Thread(1).Run
			r.Other, r.Running = r.Other+1, r.Running-1
		}, `RunIn over its life`},
		{"sample outside the life", "samples", func(m *Model) { m.Thread(1).Samples[3].At = m.Thread(1).End + 1 }, `outside its life`},
		{"scheduler times go back", "samples", func(m *Model) { m.Thread(1).Sched[2].CPU = 0 }, `scheduler times go back`},
		{"threads unsorted", "kinds", func(m *Model) { m.Threads[0], m.Threads[1] = m.Threads[1], m.Threads[0] }, `not sorted`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := loadCase(t, c.from)
			c.breakIt(m)
			errs := modeltest.Validate(m)
			re := regexp.MustCompile(c.want)
			for _, e := range errs {
				if re.MatchString(e.Error()) {
					return
				}
			}
			t.Errorf("no violation matching %q; got %v", c.want, errs)
		})
	}
}
