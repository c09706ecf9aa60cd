package main

import "testing"

func TestMemLimit(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct{ live, other, want uint64 }{
		{0, 0, 768 * mb},
		{300 * mb, 60 * mb, 768 * mb},  // c128's live heap: the floor, never reached
		{400 * mb, 100 * mb, 768 * mb}, // c1G's: the floor
		{800 * mb, 0, 1000 * mb},       // above the floor: the live heap and a quarter again
		{1000 * mb, 0, 1250 * mb},
		{1200 * mb, 0, 1500 * mb},
		// An hour of a loaded Tomcat: the floor left the live heap no
		// room above the runtime's other memory; the quarter is above it.
		{600 * mb, 150 * mb, 900 * mb},
		{1000 * mb, 200 * mb, 1450 * mb},
	} {
		if got := memLimit(c.live, c.other); got != c.want {
			t.Errorf("memLimit(%d MB, %d MB) = %d MB, want %d MB", c.live/mb, c.other/mb, got/mb, c.want/mb)
		}
	}
	env := func(set ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for _, s := range set {
				if s == k {
					return "1", true
				}
			}
			return "", false
		}
	}
	for _, c := range []struct {
		set  []string
		want bool
	}{{nil, false}, {[]string{"GOMEMLIMIT"}, true}, {[]string{"GOGC"}, true}, {[]string{"GODEBUG"}, false}} {
		if got := userSetsMemory(env(c.set...)); got != c.want {
			t.Errorf("userSetsMemory with %v = %v, want %v", c.set, got, c.want)
		}
	}
}
