package model

import (
	"os"
	"testing"

	"orca/internal/reader"
)

func TestAdhoc(t *testing.T) {
	p := os.Getenv("ORCA_PREFIX")
	if p == "" {
		t.Skip()
	}
	rec, err := reader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Build(rec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Model
	for _, e := range Validate(m) {
		t.Error(e)
	}
	t.Logf("events %d threads %d locks %d edges %d deadlocks %d problems %v", m.Events, len(m.Threads), len(m.Locks), len(m.Edges), len(m.Deadlocks), m.Problems)
	for _, l := range m.Locks[:min(5, len(m.Locks))] {
		t.Logf("lock %v %s cont=%d blocked=%v max=%v owners=%+v waits=%d notifies=%d/%d woke-nobody=%d", l.Object, l.Kind, l.Contentions, l.Blocked, l.MaxBlocked, l.Owners, l.Waits, l.Notifies, l.NotifyAlls, l.NotifiesWokeNobody)
	}
	for _, d := range m.Deadlocks {
		t.Logf("deadlock %+v", d)
	}
	for _, th := range m.Threads {
		t.Logf("thread %v %q parent=%v life=%v times=%v n=%d", th.ID, th.Name, th.Parent, th.Life(), th.Time, len(th.Intervals))
	}
}
