package integration

import (
	"testing"
	"time"

	"orca/internal/format"
	"orca/internal/model"
)

// TestLateNotify: a notify is timed just before it runs, after the agent's stack walk, so a
// notify the OS preempts in that walk is not recorded before the Waited of a wait that timed out
// before it ran (testdata/java/scenarios/LateNotify.java; ORCA_TEST_SLOW_NOTIFY_MS makes the walk
// 200 ms long). The waiter's wait(100) ended by its timeout, and the notify, run ~220 ms after the
// wait began, woke nobody. Before, the notify was timed before the walk, at ~20 ms, and the model
// took the wait for notified by it (Tomcat 25: 26 of 14 940 waits that JFR says timed out;
// docs/agent.md, "How a wait ended").
func TestLateNotify(t *testing.T) {
	t.Setenv("ORCA_TEST_SLOW_NOTIFY_MS", "200")
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "LateNotify")
		if ns := e.nanos(t, "notify.ns")[0]; ns < 200_000_000 {
			t.Fatalf("notify returned %v after the wait began, want after the agent's 200 ms", time.Duration(ns))
		}
		_, built := buildModel(t, prefix)
		m := built.Model
		obj, waiter := format.ObjectID(e.hash(t, "obj")), format.ThreadID(e.hash(t, "waiter"))
		var waits []model.Interval
		for _, iv := range m.Thread(waiter).Intervals {
			if iv.State == model.Waiting && iv.Object == obj && !iv.Cont {
				waits = append(waits, iv)
			}
		}
		if len(waits) != 1 || waits[0].Wake != model.WakeTimeout || waits[0].Other != 0 {
			t.Errorf("the waiter's waits on obj: %+v; want one, ended by its timeout, no notifier", waits)
		}
		if l := m.Lock(obj, model.Monitor); l == nil || l.Notifies != 1 || l.NotifiesWokeNobody != 1 {
			t.Errorf("obj: %+v; want 1 notify, which woke nobody", l)
		}
	})
}
