package model

import (
	"reflect"
	"testing"
)

// TestCompactLate checks that compactLate keeps the late entries still
// open or ending after the fold's latest time, in their order, and that
// the open ones' indexes (waitFor.late) follow them; and that WaitGraphAt
// is refused before the latest end let go.
func TestCompactLate(t *testing.T) {
	m := &Model{End: 100}
	a, b := &tstate{}, &tstate{}
	m.lateEntries = []lateEntry{
		{Thread: 1, From: 1, To: 5},
		{Thread: 2, From: 2, To: 1<<63 - 1},
		{Thread: 3, From: 3, To: 100},
		{Thread: 4, From: 4, To: 101},
		{Thread: 5, From: 5, To: 50},
		{Thread: 6, From: 6, To: 1<<63 - 1},
	}
	w := waitFor{late: map[*tstate]int{a: 1, b: 5}, endOnly: true}
	w.compactLate(m)
	want := []lateEntry{{Thread: 2, From: 2, To: 1<<63 - 1}, {Thread: 4, From: 4, To: 101}, {Thread: 6, From: 6, To: 1<<63 - 1}}
	if !reflect.DeepEqual(m.lateEntries, want) {
		t.Errorf("kept %+v, want %+v", m.lateEntries, want)
	}
	if w.late[a] != 0 || w.late[b] != 2 {
		t.Errorf("the open entries' indexes %d, %d; want 0, 2", w.late[a], w.late[b])
	}
	if m.lateFloor != 100 {
		t.Errorf("the latest end let go %d, want 100", m.lateFloor)
	}
	defer func() {
		if recover() == nil {
			t.Error("WaitGraphAt before the latest end let go: no panic")
		}
	}()
	m.WaitGraphAt(99)
}
