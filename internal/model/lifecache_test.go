package model

import (
	"testing"

	"orca/internal/format"
)

// TestLifeCache: the holders' cache of Threads by ID gives each ID's
// thread, those that share a slot in turn, and nil for an unknown one.
func TestLifeCache(t *testing.T) {
	m := &Model{byThread: map[format.ThreadID]*Thread{}}
	var ids []format.ThreadID
	// Three IDs in one slot, one in another.
	slot := threadSlot(1, lifeSlots)
	for id := format.ThreadID(1); len(ids) < 3; id++ {
		if threadSlot(id, lifeSlots) == slot {
			ids = append(ids, id)
		}
	}
	for id := format.ThreadID(2); ; id++ {
		if threadSlot(id, lifeSlots) != slot {
			ids = append(ids, id)
			break
		}
	}
	for i, id := range ids {
		m.byThread[id] = &Thread{ID: id, Start: format.Time(10 * i), End: format.Time(10*i + 5)}
	}
	c := lifeCache{m: m}
	for _, id := range []format.ThreadID{ids[0], ids[1], ids[0], ids[3], ids[2], ids[2], ids[1], 999_999, ids[0]} {
		got := c.of(id)
		if want := m.byThread[id]; got != want {
			t.Errorf("thread %d: %v, want %v", id, got, want)
		}
	}
}
