package integration

import (
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// TestManyOwners is issue 12's item 9: with more live threads than the agent's table of threads
// (agent/owner.c) held, the owners of contended monitors silently became 00000000. ManyOwners.java
// keeps 400 threads alive, each holding a lock, and makes a thread contend on the lock of the
// first and of the last one started. "grow": the table grows past its first chunk and both owners
// are named. "full": ORCA_TEST_OWNER_SLOTS=300 caps the table (the same code as the production
// limit, which takes 16 500 threads and 30 s to reach: measured once by hand, the last owner named
// after the fix): the first owner is named, the last is 00000000, and .info counts the threads
// left out (owner_table_full) and warns. Before the fix (agent c53b949) "full" failed: no
// owner_table_full, no warning, the cap ignored.
func TestManyOwners(t *testing.T) {
	t.Parallel()
	for _, variant := range []struct {
		name string
		cap  int
	}{{"grow", 0}, {"full", 300}} {
		t.Run(variant.name, func(t *testing.T) {
			if variant.cap > 0 {
				withEnv(t, "ORCA_TEST_OWNER_SLOTS="+strconv.Itoa(variant.cap))
			}
			forEachJDK(t, func(t *testing.T, j jdk) {
				e, prefix := recordExpect(t, j, "ManyOwners", "400")
				r := load(t, prefix)
				r.checkParse(t)
				r.checkInfo(t, true, true)
				r.checkInvariants(t)
				n := e.int(t, "threads")
				c := counter{t, r}
				for _, which := range []string{"first", "last"} {
					lock, owner := format.ObjectID(e.hash(t, "lock."+which)), format.ThreadID(e.hash(t, "owner."+which))
					idx := r.sel(format.MonitorContendedEnter, func(_ int, ev reader.Event) bool { return ev.Object == lock })
					c.want("MonitorContendedEnter on the lock of the "+which+" holder", idx, 1)
					if len(idx) != 1 {
						continue
					}
					want := owner
					if variant.cap > 0 && which == "last" {
						want = 0 // not in the table: unknown, and counted
					}
					if got := r.events[idx[0]].Owner; got != want {
						t.Errorf("the %s holder's lock: owner %v, want %v", which, got, want)
					}
				}
				full, _ := strconv.Atoi(r.info["owner_table_full"])
				if variant.cap == 0 {
					if full != 0 {
						t.Errorf(".info: owner_table_full=%d, want 0", full)
					}
					return
				}
				// The JVM's own threads take a few slots too.
				if full < n-variant.cap {
					t.Errorf(".info: owner_table_full=%d, want at least %d", full, n-variant.cap)
				}
				if !strings.Contains(r.info["warning"], "live threads") {
					t.Errorf(".info: no warning about the full table: warning=%q", r.info["warning"])
				}
			})
		})
	}
}
