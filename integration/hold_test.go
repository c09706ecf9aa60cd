package integration

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model/modeltest"
	"orca/internal/report"
)

// TestHoldTimes is issue 36's item 3 on a real JVM (HoldTimes.java): holders take a monitor and
// a fair ReentrantLock after waiting, from two sites each, and hold them HOLD_MS (a sleep) while
// the others wait. The report's locks[].hold has, per lock, exactly the holds begun while others
// waited (all but the last holder of each round), and per site the program's own counts; its
// p50 and max are those of the lengths the program measured (from one holder's acquisition to
// the next's) within 5 ms + 1 % (the program notes the time just after the JVM's event of the
// acquisition: a few µs, more on a loaded machine), and at least HOLD_MS.
func TestHoldTimes(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "HoldTimes")
		rec, built := buildModel(t, prefix)
		for _, err := range modeltest.Validate(built.Model) {
			t.Errorf("model: %v", err)
		}
		rep := report.New(rec, built, report.Options{})
		holdMS := e.int(t, "hold_ms")
		mon, juc := holdLocks(t, rep, format.ObjectID(e.hash(t, "monitor")).String())
		check := func(name string, l *report.Lock, key, siteA, siteB string) {
			h := l.Hold
			if h == nil {
				t.Errorf("%s: no hold times", name)
				return
			}
			ns := e.nanos(t, key+".ns")
			slices.Sort(ns)
			show := fmt.Sprintf("%s: hold %+v; the program's holds (ns) %v", name, *h, ns)
			t.Log(show)
			if h.Count != len(ns) {
				t.Errorf("%s: %d holds, want %d (all but the last holder of each round)", show, h.Count, len(ns))
			}
			near := func(what string, got float64, want int64) {
				w := float64(want) / 1e9
				if math.Abs(got-w) > 0.005+0.01*w {
					t.Errorf("%s: %s %.6f s, the program's %.6f s", show, what, got, w)
				}
				if got < float64(holdMS)/1e3*0.99 {
					t.Errorf("%s: %s %.6f s, shorter than the %d ms each holder slept holding it", show, what, got, holdMS)
				}
			}
			near("p50", h.P50S, ns[(len(ns)+1)/2-1])
			near("max", h.MaxS, ns[len(ns)-1])
			var sum int64
			for _, n := range ns {
				sum += n
			}
			near("mean", h.MeanS, sum/int64(len(ns)))
			want := map[string]int{siteA: e.int(t, key+".a"), siteB: e.int(t, key+".b")}
			got := map[string]int{}
			for _, s := range h.Sites {
				for _, f := range s.Frames {
					if strings.HasPrefix(f, "HoldTimes.") && !strings.HasPrefix(f, "HoldTimes.round") && !strings.HasPrefix(f, "HoldTimes.lambda") {
						name, _, _ := strings.Cut(f, "(")
						got[name] += s.Count
						break
					}
				}
			}
			for site, n := range want {
				if got[site] != n {
					t.Errorf("%s: %d holds taken at %s, want %d (sites %v)", show, got[site], site, n, got)
				}
			}
		}
		check("monitor", mon, "mon", "HoldTimes.siteA", "HoldTimes.siteB")
		check("ReentrantLock", juc, "juc", "HoldTimes.jucA", "HoldTimes.jucB")
		if mon.Hold == nil {
			return
		}
		var txt bytes.Buffer
		if err := rep.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("held while others waited: %d holds, mean ", mon.Hold.Count); !strings.Contains(txt.String(), want) {
			t.Errorf("the text report has no %q:\n%s", want, txt.String())
		}
	})
}

// holdLocks returns HoldTimes' monitor and fair ReentrantLock among the report's locks.
func holdLocks(t *testing.T, rep *report.Report, monitor string) (mon, juc *report.Lock) {
	t.Helper()
	for i := range rep.Locks {
		switch l := &rep.Locks[i]; {
		case l.Object == monitor && l.Kind == "monitor":
			mon = l
		case l.Kind == "juc" && l.Class != nil && strings.HasSuffix(*l.Class, "ReentrantLock$FairSync;"):
			juc = l
		}
	}
	if mon == nil || juc == nil {
		t.Fatalf("monitor %s: %v, the fair ReentrantLock: %v; want both among the report's locks", monitor, mon != nil, juc != nil)
	}
	return mon, juc
}
