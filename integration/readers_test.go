package integration

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/report"
)

// TestReadersPassOn (docs/perf/2026-12-02-unseen-programs.md): ReadersPassOn.java has readers
// held up by a writer of a ReentrantReadWriteLock and of a StampedLock. When the writer lets
// go, it unparks the first reader only; that one unparks the next in its own acquire (AQS's
// signalNextIfShared, StampedLock's cowaiters), which released nothing. Each of those
// contentions was ended by the writer's release: the report counts them on the writer. Before,
// the read-write lock's blame table gave writerA 1 contention (with all 1.2 s of blame) and
// two readers 1 contention and 0 s each, and the StampedLock's readers were not a lock's
// contention at all (parks on a blocker, the threads "parked" rather than blocked).
func TestReadersPassOn(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "ReadersPassOn")
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		hold := float64(e.int(t, "hold_ms")) / 1e3
		writerA, readerB, stampW := hexOf(e, t, "writerA"), hexOf(e, t, "readerB"), hexOf(e, t, "stampW")
		var rw, st *report.Lock
		for i := range rep.Locks {
			l := &rep.Locks[i]
			switch {
			case l.Kind == "juc" && l.Class != nil && strings.HasSuffix(*l.Class, "ReentrantReadWriteLock$NonfairSync;"):
				rw = l
			case l.Object == hexOf(e, t, "stamped"):
				st = l
			}
		}
		if rw == nil || st == nil {
			t.Fatalf("the read-write lock: %v, the StampedLock %s: %v; want both among the report's locks", rw != nil, hexOf(e, t, "stamped"), st != nil)
		}
		owners := func(l *report.Lock) string {
			var b strings.Builder
			for _, o := range l.Owners {
				fmt.Fprintf(&b, "%s:%d:%.3f ", o.Thread, o.Contentions, o.BlamedS)
			}
			return b.String()
		}
		check := func(what string, l *report.Lock, want map[string]int) {
			t.Logf("%s: %s %d contentions, %.3f s; owners %s", what, l.Kind, l.Contentions, l.BlockedS, owners(l))
			n := 0
			for _, c := range want {
				n += c
			}
			if l.Kind != "juc" || l.Contentions != n || l.OwnerUnknown != 0 {
				t.Errorf("%s: %s lock, %d contentions, %d owner unknown; want a juc lock's %d, all with an owner", what, l.Kind, l.Contentions, l.OwnerUnknown, n)
			}
			if len(l.Owners) != len(want) {
				t.Errorf("%s: owners %s; want %v alone", what, owners(l), want)
			}
			for _, o := range l.Owners {
				if c, ok := want[o.Thread]; !ok || o.Contentions != c || o.BlamedS < float64(c)*hold*0.99 {
					t.Errorf("%s: owner %s: %d contentions, %.3f s blamed; want %d, at least %d × %.1f s (owners %s)", what, o.Thread, o.Contentions, o.BlamedS, c, c, hold, owners(l))
				}
			}
		}
		check("ReentrantReadWriteLock", rw, map[string]int{writerA: e.int(t, "readersA"), readerB: 1})
		check("StampedLock", st, map[string]int{stampW: e.int(t, "readersC")})
		for _, th := range rep.Threads {
			if strings.HasPrefix(th.Name, "stR-") && th.StatesS.Blocked < hold*0.99 {
				t.Errorf("thread %s: blocked %.3f s, want at least %.1f s on the StampedLock (states %+v)", th.Name, th.StatesS.Blocked, hold, th.StatesS)
			}
		}
		var txt bytes.Buffer
		if err := report.New(rec, built, report.Options{}).WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		row := regexp.MustCompile(`"writerA" \(` + writerA + `\) +3 `)
		if !row.MatchString(txt.String()) || !strings.Contains(txt.String(), "lock java.util.concurrent.locks.StampedLock "+hexOf(e, t, "stamped")) {
			t.Errorf("the text lacks writerA's 3 contentions or the StampedLock's contention:\n%s", txt.String())
		}
	})
}

// hexOf is the EXPECT line's hash of key as the report prints an object or thread id.
func hexOf(e expect, t *testing.T, key string) string {
	t.Helper()
	return format.ObjectID(e.hash(t, key)).String()
}
