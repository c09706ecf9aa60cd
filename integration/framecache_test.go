package integration

import (
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// TestFrameCache is issue 23 item 4's check of the walker's frame cache (walk.c): one notifyAll
// site and one park site, each reached through one shared middle method from two callers,
// interleaved (FrameCache.java), with site and middle out of line (the same return addresses
// whichever caller) and with the JIT's own inlining. Every ObjectNotifyAll on the box and every
// ThreadPark on the blocker has exactly the stack of the call that made it — notifyAll or park,
// site, middle, then viaA or viaB, run, main — and the counts per caller are the program's. A
// cache keyed by the site (the caller's method and bci, or the native frame's return address)
// that reused the frames below it would give one caller's stack to the other's calls. Every fast
// walk is also checked against GetStackTrace (ORCA_VERIFY_STACKS=1, TestMain): none may differ.
// ORCA_TIME_STACKS=1 makes the agent say how many compiled frames came from the cache: most
// must, or the test would not test it.
func TestFrameCache(t *testing.T) {
	t.Setenv("ORCA_TIME_STACKS", "1")
	variants := []struct {
		name string
		args []string
	}{
		{"outofline", []string{"-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,FrameCache::site",
			"-XX:CompileCommand=dontinline,FrameCache::middle"}},
		{"inlined", nil},
	}
	forEachJDK(t, func(t *testing.T, j jdk) {
		for _, v := range variants {
			t.Run(v.name, func(t *testing.T) {
				res, prefix := recordJVM(t, j, v.args, "FrameCache")
				if res.code != 0 {
					t.Fatalf("orca record failed:\n%s", res)
				}
				e := parseExpect(t, res)
				r := load(t, prefix)
				r.logOnFailure(t)
				checkVerified(t, r, "FrameCache")
				r.checkInvariants(t)
				checkFrameCacheUsed(t, res, r.info["hotspot.walker"] == "yes")
				box := e.hash(t, "box")
				notifies := r.sel(format.ObjectNotifyAll, func(_ int, ev reader.Event) bool { return uint32(ev.Object) == box })
				checkCallers(t, r, "ObjectNotifyAll", notifies, []string{"notifyAll", "site", "middle"},
					e.int(t, "notifies.a"), e.int(t, "notifies.b"))
				parks := r.sel(format.ThreadPark, func(i int, _ reader.Event) bool { return r.hasMethod(i, "LFrameCache;", "site") })
				checkCallers(t, r, "ThreadPark", parks, []string{"park", "parkNanos", "site", "middle"},
					e.int(t, "parks.a"), e.int(t, "parks.b"))
			})
		}
	})
}

// checkCallers requires each event of evs to have the stack top, then viaA or viaB, run and main
// of FrameCache, and wantA and wantB of them through each caller.
func checkCallers(t *testing.T, r *recording, what string, evs []int, top []string, wantA, wantB int) {
	t.Helper()
	a, b, bad := 0, 0, 0
	for _, i := range evs {
		st := r.stacks[i]
		var names []string
		for _, f := range st {
			names = append(names, f.Method)
		}
		want := len(top) + 3
		ok := len(st) >= want
		for k := 0; ok && k < len(top); k++ {
			ok = st[k].Method == top[k]
		}
		if ok {
			for _, f := range st[len(top)-2 : want] {
				ok = ok && f.Class == "LFrameCache;"
			}
			ok = ok && st[len(top)+1].Method == "run" && st[len(top)+2].Method == "main"
		}
		switch {
		case ok && st[len(top)].Method == "viaA":
			a++
		case ok && st[len(top)].Method == "viaB":
			b++
		default:
			if bad++; bad <= 3 {
				t.Errorf("%s with the wrong stack (want %s, viaA|viaB, run, main):\n%s", what, strings.Join(top, ", "), r.describe(i))
			}
		}
	}
	t.Logf("%s: %d through viaA, %d through viaB, %d other", what, a, b, bad)
	if a != wantA || b != wantB || bad != 0 {
		t.Errorf("%s: %d through viaA, %d through viaB, %d with another stack; want %d, %d, 0", what, a, b, bad, wantA, wantB)
	}
}

// checkFrameCacheUsed requires the agent's "frame cache" line (ORCA_TIME_STACKS=1) to say that
// most compiled frames came from the cache, where the own walker runs (walker: JDK 11-18, 25).
func checkFrameCacheUsed(t *testing.T, res *result, walker bool) {
	t.Helper()
	for _, l := range strings.Split(res.stderr, "\n") {
		if !strings.HasPrefix(l, "orca: frame cache: ") {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(l, "orca: frame cache: "))
		hits, _ := strconv.Atoi(f[0])
		decoded, _ := strconv.Atoi(f[6])
		t.Log(l)
		if hits < 10000 || hits < 10*decoded {
			t.Errorf("the frame cache was hardly used: %s", l)
		}
		return
	}
	if walker {
		t.Errorf("the own walker runs but the agent printed no frame cache line:\n%s", tail(res.stderr, 2000))
	} else {
		t.Logf("no frame cache: the own walker does not run on this JDK")
	}
}
