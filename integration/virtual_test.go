package integration

import (
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// TestVirtualContention records testdata/java/scenarios/VirtualContention.java: once the agent
// trusts HotSpot's timer of contended enters, virtual threads contend. Their enters are timed on
// the carrier, so the first must switch the agent back to its Entered callback; every recorded
// blocked time must still lie between what the program measured.
func TestVirtualContention(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "VirtualContention")
		if e.str(t, "virtual") == "no" {
			t.Skipf("%s has no virtual threads", j.name)
		}
		r := load(t, prefix)
		r.checkParse(t)
		// Not checkInfo: on virtual threads AsyncGetCallTrace and GetStackTrace disagree on a few
		// stacks (docs/agent.md, known limits); the stacks are not what this test is about.
		if r.info["complete"] != "true" {
			t.Errorf(".info: complete=%q, want true", r.info["complete"])
		}
		checkEnteredTimer(t, r, "stopped: a virtual thread contends")
		c := counter{t, r}
		lock, n := e.hash(t, "lock"), e.int(t, "contentions")
		onLock := func(_ int, ev reader.Event) bool { return ev.Object == format.ObjectID(lock) }
		enters, entered := r.sel(format.MonitorContendedEnter, onLock), r.sel(format.MonitorContendedEntered, onLock)
		c.want("MonitorContendedEnter on lock", enters, n)
		c.want("MonitorContendedEntered on lock", entered, n)
		if t.Failed() {
			return
		}
		// One virtual thread at a time: the file alternates Enter, Entered on lock.
		ends := map[format.Time]format.Time{}
		for i := range enters {
			ends[r.events[enters[i]].Time] = r.events[entered[i]].Time
		}
		checkBlockedTimes(t, ends, e.nanos(t, "contend.held.ns"), e.nanos(t, "contend.enter.ns"))
	})
}
