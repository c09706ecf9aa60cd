package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/reader"
)

// TestRangeOfRecording is issue 34's time range on a real JVM's recording (one compact file of
// several 1 MB chunks, each after the first restating the state at its start, written by the
// agent): Bounded blocks a monitor's contender, a lock's parker and a waiter behind a holder,
// floods 400 000 notifies, then a tail thread sleeps 300 times and all are let go. A range that
// begins inside the flood reads from the chunk that holds its start, not the file's first, and
// places the three blocked threads there with their owner; to the end it holds each of them once,
// all 300 sleeps, and exactly the notifies of the whole recording at or after its start; a range
// inside the flood ends with them still blocked. Every thread's time in each state is the whole
// recording's within the range.
func TestRangeOfRecording(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		bin, cls := orcaBin(t), classes(t)
		dir := newDir(t)
		prefix := filepath.Join(dir, "r")
		r := run(t, dir, bin, "record", "-o", prefix, "--", j.java(), "-cp", cls, "Bounded", "400000", "300")
		checkNoCrashLog(t, r)
		if r.code != 0 {
			t.Fatalf("orca record failed:\n%s", r)
		}
		e := parseExpect(t, r)
		rec, whole := buildModel(t, prefix)
		w := whole.Model
		flag := format.ObjectID(e.hash(t, "flag"))
		var notifies []format.Time
		if _, err := rec.EachEvent(reader.EachOptions{}, func(ev *reader.Event) error {
			if ev.Kind == format.ObjectNotify && ev.Object == flag {
				notifies = append(notifies, ev.Time)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(notifies) != e.int(t, "notifies") {
			t.Fatalf("%d notifies recorded, want %d", len(notifies), e.int(t, "notifies"))
		}
		holder := format.ThreadID(e.hash(t, "holder"))
		blocked := map[string]struct {
			state model.State
			obj   format.ObjectID
		}{
			"blocked": {model.Blocked, format.ObjectID(e.hash(t, "mon"))},
			"parker":  {model.Blocked, 0}, // the ReentrantLock, whose hash Bounded does not print
			"waiter":  {model.Waiting, format.ObjectID(e.hash(t, "w"))},
		}
		for _, c := range []struct {
			name     string
			from, to format.Time
		}{
			{"to the end", notifies[len(notifies)/2], w.End},
			{"inside the flood", notifies[len(notifies)/2], notifies[len(notifies)*3/4]},
		} {
			sp, err := rec.Span(c.from, c.to)
			if err != nil {
				t.Fatal(err)
			}
			if sp.Chunks < 1 || sp.Bytes >= sp.Total*3/4 {
				t.Errorf("%s: read %d chunks, %d of %d bytes: want a part of the file", c.name, sp.Chunks, sp.Bytes, sp.Total)
			}
			res, err := model.Build(rec, model.Options{Span: sp})
			if err != nil {
				t.Fatal(err)
			}
			m := res.Model
			for _, err := range modeltest.Validate(m) {
				t.Errorf("%s: %v", c.name, err)
			}
			if len(m.Problems) > 0 || m.Start != c.from || m.End != c.to {
				t.Errorf("%s: %d problems (%v), spans %v to %v, want %v to %v", c.name, len(m.Problems), m.Problems[:min(3, len(m.Problems))], m.Start, m.End, c.from, c.to)
			}
			atEnd := c.to != w.End
			for key, b := range blocked {
				th := m.Thread(format.ThreadID(e.hash(t, key)))
				if th == nil {
					t.Errorf("%s: no thread %s", c.name, key)
					continue
				}
				var ivs []string
				for _, iv := range th.Intervals {
					if iv.Shown() == b.state && (b.obj == 0 || iv.Object == b.obj) {
						ivs = append(ivs, fmt.Sprintf("%v from %v open %v owner %v", iv.Shown(), iv.Start, iv.Open, iv.First))
					}
				}
				owner := holder
				if b.state == model.Waiting {
					owner = 0
				}
				want := fmt.Sprintf("%v from %v open %v owner %v", b.state, c.from, atEnd, owner)
				if len(ivs) != 1 || ivs[0] != want {
					t.Errorf("%s: thread %s: %q, want [%s]", c.name, key, ivs, want)
				}
			}
			n := 0
			for _, at := range notifies {
				if at >= c.from && at <= c.to {
					n++
				}
			}
			var got, sleeps int
			if _, err := rec.EachEvent(reader.EachOptions{Span: sp}, func(ev *reader.Event) error {
				if ev.Kind == format.ObjectNotify && ev.Object == flag {
					got++
				}
				if ev.Kind == format.ThreadSlept && ev.Thread == format.ThreadID(e.hash(t, "tail")) {
					sleeps++
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if got != n || n == 0 {
				t.Errorf("%s: %d notifies in the range, the whole recording has %d there", c.name, got, n)
			}
			if !atEnd && sleeps != e.int(t, "sleeps") {
				t.Errorf("%s: %d sleeps, want all %d", c.name, sleeps, e.int(t, "sleeps"))
			}
			// Each thread's time in each state: the whole's within the range.
			for _, th := range w.Threads {
				var want [model.NumStates]format.Time
				for _, iv := range th.Intervals {
					want[iv.Shown()] += max(0, min(iv.End, c.to)-max(iv.Start, c.from))
				}
				var have [model.NumStates]format.Time
				if g := m.Thread(th.ID); g != nil {
					for _, iv := range g.Intervals {
						have[iv.Shown()] += iv.End - iv.Start
					}
				}
				if have != want {
					t.Errorf("%s: thread %v %q: %v in each state, the whole's within the range %v", c.name, th.ID, th.Name, have, want)
				}
			}
		}
		// The Go rule of what a chunk restates (format.LiveState, which the range's start and the Go
		// writer use) is the agent's: tracking the events before each chunk gives the records the
		// agent restated at its start.
		raw, err := os.ReadFile(prefix + format.SuffixEvents)
		if err != nil {
			t.Fatal(err)
		}
		var starts []int
		for i := bytes.Index(raw, []byte(format.ChunkMarker)); i >= 0; {
			starts = append(starts, i)
			k := bytes.Index(raw[i+1:], []byte(format.ChunkMarker))
			if k < 0 {
				break
			}
			i += 1 + k
		}
		if len(starts) < 3 {
			t.Fatalf("%d chunks, want 3 or more", len(starts))
		}
		key := func(ev *reader.Event) string {
			return fmt.Sprintf("%v %v %v %v %v %d %v %q %q %d", ev.Kind, ev.Thread, ev.Object, ev.Target, ev.Owner, ev.Timeout, ev.Mode, ev.Name, ev.Class, len(ev.Stack))
		}
		restated := 0
		for c := 1; c < len(starts); c++ {
			live := format.NewLiveState(func(ev *reader.Event) (format.Kind, format.ThreadID, format.ObjectID) {
				return ev.Kind, ev.Thread, ev.Object
			})
			before := raw[:starts[c]]
			if _, err := reader.EachEventAt(bytes.NewReader(before), int64(len(before)), "before", reader.EachOptions{}, func(ev *reader.Event) error {
				k := *ev
				k.Stack = slices.Clone(ev.Stack)
				live.Track(&k)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			var want, got []string
			live.Restate(func(th format.ThreadID, ev *reader.Event) {
				if ev.Kind.Fact() {
					ev.Thread = th // the agent restates a class as the live thread's whose state names it
				}
				want = append(want, key(ev))
			})
			alone := append([]byte(format.CompactHeader), raw[starts[c]:]...)
			events := 0
			var facts []reader.Event // carried classes just before the first event
			if _, err := reader.EachEventAt(bytes.NewReader(alone), int64(len(alone)), "alone", reader.EachOptions{}, func(ev *reader.Event) error {
				switch {
				case ev.Carried && events == 0 && (ev.Kind == format.ObjectClass || ev.Kind == format.ClassInitLock):
					facts = append(facts, *ev)
				case ev.Carried && events == 0:
					for _, f := range facts {
						got = append(got, key(&f))
					}
					facts = facts[:0]
					got = append(got, key(ev))
				case !ev.Carried && events == 0:
					// The classes right before the first event that are of its object
					// restate that event's object (docs/format.md), not the state.
					for _, f := range facts {
						if f.Object != ev.Object || f.Thread != ev.Thread {
							got = append(got, key(&f))
						}
					}
					events++
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(want, got) {
				t.Errorf("chunk %d: LiveState restates\n%s\nthe agent restated\n%s", c+1, strings.Join(want, "\n"), strings.Join(got, "\n"))
			}
			restated += len(got)
		}
		if restated == 0 {
			t.Errorf("no chunk restated anything")
		}

		// The command says the range; T in seconds since the first event.
		from := (notifies[len(notifies)/2] - w.Start).Seconds()
		out := run(t, dir, bin, "report", prefix, "--from", fmt.Sprintf("%.9f", from))
		if out.code != 0 || !strings.Contains(out.stdout, fmt.Sprintf("  the range %.3f s to ", from)) {
			t.Errorf("orca report --from %.9f: exit %d:\n%s", from, out.code, out.stdout[:min(800, len(out.stdout))])
		}
	})
}

// TestRangeClassLetGo (ClassChurn.java, stop 100): the Keeper k's class is written at "early"'s
// contention, then three new objects' classes, of k's set in the compact encoder's table and not
// of its slot in the agent's set of objects named, let it go from the table (what a later chunk
// restates); after a flood of notifies (later chunks) "late" blocks on k. A range begun at late's
// contention reads from a later chunk, not the file's first, and names k's class as the whole
// recording does (before stop 100: no class, the agent did not write it again).
func TestRangeClassLetGo(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "ClassChurn", "300000")
		rec, whole := buildModel(t, prefix)
		w := whole.Model
		k := format.ObjectID(e.hash(t, "keeper"))
		const want = "ClassChurn$Keeper"
		if got := w.ClassName(k); got != want {
			t.Fatalf("the whole recording names k (%v) %q, want %q", k, got, want)
		}
		for _, c := range e.hashes(t, "churned") {
			if got := w.ClassName(format.ObjectID(c)); got != "ClassChurn$Churn" {
				t.Errorf("churned object %08X: class %q, want ClassChurn$Churn", c, got)
			}
		}
		// The Keeper's class written again (the encoder let it go, the agent
		// forgot it): two lines or more. One alone is a test that no longer
		// tests (ClassChurn's copies of the agent's hash functions no longer
		// the agent's: nothing let the Keeper go), or an agent that forgets
		// nothing.
		classLines := 0
		if _, err := rec.EachEvent(reader.EachOptions{}, func(ev *reader.Event) error {
			if ev.Kind == format.ObjectClass && ev.Object == k && !ev.Carried {
				classLines++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if classLines < 2 {
			t.Errorf("k's class written %d times, want 2 or more: nothing let it go, or it was not written again", classLines)
		}
		late := w.Thread(format.ThreadID(e.hash(t, "late")))
		var at format.Time
		if late != nil {
			for _, iv := range late.Intervals {
				if iv.State == model.Blocked && iv.Object == k {
					at = iv.Start
				}
			}
		}
		if at == 0 {
			t.Fatalf("no contention of late's on k in the whole recording")
		}
		sp, err := rec.Span(at-1, w.End)
		if err != nil {
			t.Fatal(err)
		}
		if sp.Bytes >= sp.Total*3/4 {
			t.Errorf("the range from late's contention reads %d of %d bytes: want the later chunks alone", sp.Bytes, sp.Total)
		}
		res, err := model.Build(rec, model.Options{Span: sp})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Model.ClassName(k); got != want {
			t.Errorf("the range from late's contention (%d of %d bytes) names k %q, want %q: its class, let go of by the encoder's table, not written again",
				sp.Bytes, sp.Total, got, want)
		}
	})
}
