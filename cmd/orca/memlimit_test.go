package main

import "testing"

func TestMemLimit(t *testing.T) {
	for _, c := range []struct{ live, want uint64 }{
		{0, 768 << 20},
		{300 << 20, 768 << 20},  // c128's live heap: the floor, never reached
		{600 << 20, 768 << 20},  // c1G's: the floor
		{800 << 20, 1000 << 20}, // above the floor: the live heap and a quarter again
		{1000 << 20, 1250 << 20},
		{1200 << 20, 1500 << 20},
	} {
		if got := memLimit(c.live); got != c.want {
			t.Errorf("memLimit(%d MB) = %d MB, want %d MB", c.live>>20, got>>20, c.want>>20)
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
