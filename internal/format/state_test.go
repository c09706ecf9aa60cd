package format

import "testing"

// TestLiveStatePinnedClass: a park's object whose class the kept facts
// forgot (more than maxLiveFacts objects' classes since) is restated with
// its class all the same, from what the park kept as it began, once
// however many parks are on it — the agent's rule (compact_thread.pin).
func TestLiveStatePinnedClass(t *testing.T) {
	s := NewLiveState(func(e *Event) (Kind, ThreadID, ObjectID) { return e.Kind, e.Thread, e.Object })
	const lock, sync = ObjectID(0x77), "Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;"
	for _, e := range []Event{
		{Kind: ThreadStarted, Thread: 1, Name: "a"},
		{Kind: ThreadStarted, Thread: 2, Name: "b"},
		{Kind: ObjectClass, Thread: 1, Object: lock, Class: sync},
		{Kind: ThreadPark, Thread: 1, Object: lock, Owner: 3, Timeout: -1},
		{Kind: ThreadPark, Thread: 2, Object: lock, Owner: 3, Timeout: -1},
	} {
		s.Track(&e)
	}
	for i := range maxLiveFacts + 1 {
		s.Track(&Event{Kind: ObjectClass, Thread: 2, Object: ObjectID(0x1000000 + i), Class: "Ljava/lang/Object;"})
	}
	if s.HasFacts(lock) {
		t.Fatalf("the lock's class is still kept after %d others: the test needs it forgotten", maxLiveFacts+1)
	}
	var got []string
	s.Restate(func(th ThreadID, e *Event) {
		if e.Object == lock {
			got = append(got, e.Kind.String()+" "+e.Class)
		}
	})
	want := []string{"ObjectClass " + sync, "ThreadPark ", "ThreadPark "}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("restated on the lock %q, want %q", got, want)
	}
}
