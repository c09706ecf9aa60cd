package integration

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"orca/internal/report"
)

// TestChain3 (Chain3.java, docs/perf/2026-12-03-unseen-programs.md): three nested monitors, "b"
// blocked on C behind "c" sleeping, "a" on B behind b, "d" on A behind a; then c lets go and b
// sleeps holding B. Each lock's time is the time its waiter measured; the chains have root "c"
// (sleeping, depth 3, b, a and d behind it) and then root "b" (sleeping, depth 2, a and d); the
// step from b to c carries the time of all three threads behind c, nearly three times what b
// itself waited (each root's time as the threads' own clocks tell it), and the text says under the chains that a step's time is not its thread's own
// wait (before, "b blocked on monitor C held by c 1.78 s" for b's 597 ms read as b's).
func TestChain3(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "Chain3")
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{Chains: true})
		us := func(key string) float64 { return float64(e.int(t, key)) / 1e6 }
		onC, onB, onA := us("b_on_C_us"), us("a_on_B_us"), us("d_on_A_us")
		// The threads' time behind each root by the program's clocks, which start
		// before each enter and stop after it: a few hundred us more than the agent's.
		behindC, behindB := us("c_behind_us"), us("b_behind_us")
		for _, w := range []struct {
			obj, owner string
			s          float64
		}{{"C", "c", onC}, {"B", "b", onB}, {"A", "a", onA}} {
			var lock *report.Lock
			for i := range rep.Locks {
				if rep.Locks[i].Object == hexOf(e, t, w.obj) {
					lock = &rep.Locks[i]
				}
			}
			if lock == nil {
				t.Fatalf("no contention of monitor %s (%s) in the report", w.obj, hexOf(e, t, w.obj))
			}
			// The program's clock starts before the enter and stops after it: never
			// less than the agent's (both CLOCK_MONOTONIC; the program's truncated to
			// the us), and more by what ran between (the callbacks' stacks, a busy
			// machine's scheduling: 3.1 ms once in CI, so a bound of slack, not a match).
			if lock.Contentions != 1 || !clockBounds(lock.BlockedS, w.s, 1) || len(lock.Owners) != 1 || lock.Owners[0].Thread != hexOf(e, t, w.owner) {
				t.Errorf("monitor %s: %d contentions, %.4f s, owners %+v; want 1, %.4f s (the waiter's own clock), all blamed on %s",
					w.obj, lock.Contentions, lock.BlockedS, lock.Owners, w.s, w.owner)
			}
		}
		root := func(name string) *report.Chain {
			for i := range rep.Chains {
				if c := &rep.Chains[i]; c.Root == hexOf(e, t, name) {
					return c
				}
			}
			t.Fatalf("no chain with root %q in %+v", name, rep.Chains)
			return nil
		}
		names := func(c *report.Chain) []string {
			var out []string
			for _, th := range c.Threads {
				if th.Name != nil {
					out = append(out, *th.Name)
				}
			}
			slices.Sort(out)
			return out
		}
		c, b := root("c"), root("b")
		t.Logf("root c: %s depth %d %.4f s %v; root b: %s depth %d %.4f s %v", c.RootState, c.Depth, c.S, names(c), b.RootState, b.Depth, b.S, names(b))
		if c.RootState != "sleeping" || c.Depth != 3 || !slices.Equal(names(c), []string{"a", "b", "d"}) || !clockBounds(c.S, behindC, 3) || c.S < 2.5*onC {
			t.Errorf("root c: %s, depth %d, threads %v, %.4f s; want sleeping, 3, [a b d], %.4f s (by the threads' clocks)", c.RootState, c.Depth, names(c), c.S, behindC)
		}
		if len(c.Links) == 0 || c.Links[0].From.ID != hexOf(e, t, "b") || c.Links[0].S != c.S {
			t.Errorf("root c's first step %+v; want b's to c with all of the root's %.4f s", c.Links, c.S)
		}
		if b.RootState != "sleeping" || b.Depth != 2 || !slices.Equal(names(b), []string{"a", "d"}) || !clockBounds(b.S, behindB, 2) {
			t.Errorf("root b: %s, depth %d, threads %v, %.4f s; want sleeping, 2, [a d], %.4f s (by the threads' clocks)",
				b.RootState, b.Depth, names(b), b.S, behindB)
		}
		var txt bytes.Buffer
		if err := rep.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if want := "(a step's time: the time of the threads behind the root that went through it"; !strings.Contains(txt.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, txt.String())
		}
	})
}

// clockBounds: the agent's time of n threads' waits (s) against the program's clocks around
// them (clocks): the program's never less (less the us it truncates a thread), nor more by
// over 25 ms a thread — what a busy 2-core machine may put between a clock and a callback,
// two orders below the waits the test tells apart (0.3 s and more).
func clockBounds(s, clocks float64, n int) bool {
	return s <= clocks+float64(n)*5e-6 && clocks-s <= float64(n)*25e-3
}
