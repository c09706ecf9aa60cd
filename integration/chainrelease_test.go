package integration

import (
	"fmt"
	"strings"
	"testing"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/model"
)

// TestChainRelease (ChainRelease.java): a wait chain ends at a holder that had released the lock
// its waiter is blocked on — holder-m in Object.wait on the monitor waiter-m is blocked on,
// holder-j parked in Condition.await on a condition of the lock the waiter-j-N park to acquire —
// and never goes on through that wait or park to the thread that ended it (notifier-m, main).
// Each holder is a root whose time through the program's locks (the JDK's own, which its threads
// may contend briefly on 17, left out) is exactly the blame the waiters' contentions put on it (no
// waiter waits behind another on them), computed from the contentions' blame spans, not from the
// sweep. After holder-j's await the contenders take the lock one after the other, each holding
// it HOLD_MS asleep while those after it stay parked: the first is a root with 2 behind it, the
// second with 1, sleeping, 3 HOLD_MS in all (each park waits for the waiter let in before it
// from that hand-off on: docs/perf/2026-12-02-unseen-programs-2.md; before, every park named
// holder-j to its end, and those 3 HOLD_MS were holder-j's, "released", though the contenders
// held the lock then). Before the rule the chains went on to notifier-m (the hand-off after
// holder-m's wait) and to main (the contenders' time after holder-j's await).
func TestChainRelease(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "ChainRelease")
		_, built := buildModel(t, prefix)
		m := built.Model
		byName := map[string]*model.Thread{}
		for _, th := range m.Threads {
			byName[th.Name] = th
		}
		id := func(name string) format.ThreadID {
			th := byName[name]
			if th == nil {
				t.Fatalf("no thread %q in the recording", name)
			}
			return th.ID
		}
		holderM, holderJ, notifierM, mainID := id("holder-m"), id("holder-j"), id("notifier-m"), id("main")
		// The blame on each holder: every contention's spans naming it, within the waiter's life,
		// on the program's locks (own, below: the JDK's monitors left out).
		monitor := format.ObjectID(e.hash(t, "monitor"))
		blamed := map[format.ThreadID]format.Time{}
		for _, th := range m.Threads {
			for i := range th.Intervals {
				iv := &th.Intervals[i]
				if iv.State != model.Blocked && !iv.Acquire || !iv.Acquire && iv.Object != monitor {
					continue
				}
				for sp := range m.BlameSpans(th.ID, iv) {
					if a, b := max(sp.Start, th.Start, iv.Start), min(sp.End, th.End, iv.End); b > a && sp.Owner != th.ID {
						blamed[sp.Owner] += b - a
					}
				}
			}
		}
		_, chains, _ := analysis.HoldersAndChains(m.Filter(nil), 0)
		roots := map[format.ThreadID]analysis.Chain{}
		var all []string
		for _, c := range chains {
			roots[c.Root] = c
			all = append(all, fmt.Sprintf("%v %s %.6f s depth %d %v links %+v", c.Root, c.RootState, c.Time.Seconds(), c.Depth, c.Threads, c.Links))
			for _, l := range c.Links {
				// Not a contention on one of the JDK's monitors (below: its
				// threads also contend on them briefly, e.g. holder-j's exit
				// on its own Thread object while main, inside join, holds it:
				// CI on 25 at load had that step, 220 µs, a real one).
				if (l.From == holderM || l.From == holderJ) && !(l.How == "monitor" && l.Object != monitor) {
					t.Errorf("root %v: a step from holder %v (%s on %v to %v): the chain went on through a released lock's holder", c.Root, l.From, l.How, l.Object, l.To)
				}
			}
		}
		// The chains through ChainRelease's own locks: on 17 its threads also contend,
		// briefly, on the JDK's (LockSupport's class initialisation at the waiters' first
		// park, a Thread's monitor in join and in Thread.exit), real steps of the chains
		// that add to a root's time what no blame on the program's locks has.
		own := func(c analysis.Chain) format.Time {
			d := c.Time
			for _, l := range c.Links {
				if l.How != "lock" && l.Object != monitor {
					d -= l.Time
				}
			}
			return d
		}
		show := strings.Join(all, "\n  ")
		t.Logf("roots:\n  %s", show)
		for _, h := range []struct {
			name  string
			id    format.ThreadID
			state string
			least format.Time
		}{
			{"holder-m", holderM, "", format.Time(e.int(t, "hold_ns")) / 10},
			{"holder-j", holderJ, "", 0},
		} {
			c, ok := roots[h.id]
			switch {
			case !ok:
				t.Errorf("%s (%v) is no root:\n  %s", h.name, h.id, show)
			case own(c) != blamed[h.id]:
				t.Errorf("%s: %v behind it on the program's locks, want the blame on it, %v:\n  %s", h.name, own(c), blamed[h.id], show)
			case c.Time < h.least:
				t.Errorf("%s: %v behind it, want at least %v:\n  %s", h.name, c.Time, h.least, show)
			case h.state != "" && c.RootState != h.state:
				t.Errorf("%s: root state %s, want %s:\n  %s", h.name, c.RootState, h.state, show)
			}
		}
		// Each contender's first park is for the lock holder-j holds until its await: the
		// agent read that owner (its first parks on a synchronizer class came together, and
		// the threads that came while one resolved the class's owner field once parked with
		// no owner: waiter-j-1 and -2 on 17 at load, and the chain and the blame then told
		// two stories).
		for _, th := range m.Threads {
			if !strings.HasPrefix(th.Name, "waiter-j-") {
				continue
			}
			for i := range th.Intervals {
				if iv := &th.Intervals[i]; iv.State == model.Parked && iv.Acquire {
					if iv.First != holderJ {
						t.Errorf("%s: its first park on the lock names owner %v, want holder-j %v", th.Name, iv.First, holderJ)
					}
					break
				}
			}
		}
		// The contenders that held the lock while others stayed parked: roots, asleep, 3 HOLD_MS
		// behind them in all, each exactly its blame.
		var behind format.Time
		for _, th := range m.Threads {
			c, ok := roots[th.ID]
			if !ok || !strings.HasPrefix(th.Name, "waiter-j-") || own(c) == 0 && blamed[th.ID] == 0 {
				// Not a root on the program's locks: one only through the JDK's (at load on 17,
				// waiter-j-0 a runnable root with nothing behind it on the lock: its first park's
				// class initialisation, which another contender waited for).
				continue
			}
			behind += own(c)
			if own(c) != blamed[th.ID] || c.RootState != "sleeping" {
				t.Errorf("%s: %v behind it on the program's locks, root state %s; want its blame %v, sleeping:\n  %s", th.Name, own(c), c.RootState, blamed[th.ID], show)
			}
		}
		if least := format.Time(3 * e.int(t, "hold_ns")); behind < least {
			t.Errorf("the contenders: %v behind them, want at least %v:\n  %s", behind, least, show)
		}
		for _, x := range []format.ThreadID{notifierM, mainID} {
			if c, ok := roots[x]; ok && own(c) > 0 {
				t.Errorf("%v is a root (%s, %v): nobody waits behind it:\n  %s", x, c.RootState, c.Time, show)
			}
		}
	})
}
