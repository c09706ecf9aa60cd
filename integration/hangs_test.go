package integration

import (
	"reflect"
	"slices"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/report"
)

// TestWaitTimeouts is issue 20's item 2 on a real JVM (WaitTimeouts.java): the agent writes an
// ObjectWaitTimeout line for every timed Object.wait and none for an untimed one, and the hang
// rule at a clean exit takes from it: a wait(60 000) still waiting for seconds ends by itself (not
// a hang), a wait(0L) through wait(long) is stuck (only the recording's wait_timeouts tells it is
// untimed: no wait() frame) but waits alone (issue 31, item 3: for no thread, none behind it, and
// other threads ran after it began), a consumer in an empty queue's take waits for work: idle
// (item 4), as a pool's idle worker, in no list of threads stuck at the end.
func TestWaitTimeouts(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "WaitTimeouts")
		r := loadComplete(t, prefix)
		r.checkInvariants(t)
		if got := r.info[format.InfoWaitTimeouts]; got != "yes" {
			t.Errorf(".info wait_timeouts=%q, want yes", got)
		}
		objs := map[uint32]string{e.hash(t, "timed"): "timed", e.hash(t, "untimed"): "untimed", e.hash(t, "tick"): "tick"}
		// Each ObjectWait's timeout: the ObjectWaitTimeout line of its thread at its time.
		timeouts := map[format.ThreadID]map[format.Time]int64{}
		for _, ev := range r.events {
			if ev.Kind == format.ObjectWaitTimeout {
				if timeouts[ev.Thread] == nil {
					timeouts[ev.Thread] = map[format.Time]int64{}
				}
				timeouts[ev.Thread][ev.Time] = ev.Timeout
			}
		}
		got := map[string][]int64{}
		ours := map[format.ThreadID]bool{} // the threads that waited on the program's objects
		for _, ev := range r.events {
			if name, ok := objs[uint32(ev.Object)]; ok && ev.Kind == format.ObjectWait {
				ours[ev.Thread] = true
				to, ok := timeouts[ev.Thread][ev.Time]
				if !ok {
					to = -1
				}
				got[name] = append(got[name], to)
			}
		}
		tick := slices.Repeat([]int64{int64(e.int(t, "tick_ns"))}, e.int(t, "ticks"))
		want := map[string][]int64{"timed": {60_000_000_000}, "untimed": {-1}, "tick": tick}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("waits' timeouts (-1: no ObjectWaitTimeout line) %v, want %v", got, want)
		}
		lines := 0
		for th := range ours {
			lines += len(timeouts[th])
		}
		if lines != 1+len(tick) {
			t.Errorf("%d ObjectWaitTimeout lines, want %d (one per timed wait)", lines, 1+len(tick))
		}

		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		var hangs, alone []string
		not := map[string][]string{}
		for _, h := range rep.Hangs {
			if !h.JDK {
				hangs = append(hangs, *h.Name)
			}
		}
		for _, h := range rep.WaitingAlone {
			if !h.JDK {
				alone = append(alone, *h.Name)
			}
		}
		for _, h := range rep.NotHangs {
			if !h.JDK && *h.Name != "main" && *h.Name != "DestroyJavaVM" {
				not[h.Why] = append(not[h.Why], *h.Name)
			}
		}
		if len(hangs) != 0 {
			t.Errorf("hangs %q, want none", hangs)
		}
		if w := []string{"untimed-waiter"}; !reflect.DeepEqual(alone, w) {
			t.Errorf("waiting alone %q, want %q", alone, w)
		}
		if w := map[string][]string{"timed": {"timed-waiter"}}; !reflect.DeepEqual(not, w) {
			t.Errorf("not hangs %q, want %q", not, w)
		}
		for _, th := range built.Model.Threads {
			if th.Name != "consumer" {
				continue
			}
			n := len(th.Intervals)
			if n == 0 || th.Intervals[n-1].State != model.Idle || !th.Intervals[n-1].Open || th.Time[model.Parked] != 0 {
				t.Errorf("consumer: %d intervals, parked %v, want its take idle to the end", n, th.Time[model.Parked])
			}
		}
	})
}
