package integration

import (
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// TestHotSpotFaults is issue 22 item 3: beyond the walker (TestWalkFault), every read of HotSpot's
// memory is fault-safe. ORCA_TEST_FAULTS=SITE:N makes one in N reads of a site (agent/hotspot/
// vmstructs.c: the owner lookup, the lock stacks, the contended-enter timer) read an inaccessible
// page, as a structure the table describes wrongly would. FaultContention.java makes 30 contended
// enters on known locks with known owners (and, on 21+, virtual threads that block holding a
// monitor). For each site: the JVM finishes, the recording is complete (every enter recorded once,
// with its Entered; nothing dropped), the faults are recovered and counted (.info hotspot.faults),
// and a read that faulted falls back — an owner is the holder or unknown (00000000), never another
// thread; the timer is given up and the Entered callback times the enters. Without the guarded
// reads the first injected fault kills the JVM with SIGSEGV.
func TestHotSpotFaults(t *testing.T) {
	t.Parallel()
	for _, site := range []struct{ name, every string }{{"owner", "3"}, {"lock_stack", "2"}, {"timer", "2"}} {
		t.Run(site.name, func(t *testing.T) {
			withEnv(t, "ORCA_TEST_FAULTS="+site.name+":"+site.every)
			forEachJDK(t, func(t *testing.T, j jdk) {
				e, prefix := recordExpect(t, j, "FaultContention")
				r := load(t, prefix)
				r.checkParse(t)
				r.checkInfo(t, true, true)
				r.checkInvariants(t)
				if !strings.HasPrefix(r.info["hotspot.safe_read"], "fault handler") {
					skipf(t, "no fault handler on this JDK (hotspot.safe_read=%s)", r.info["hotspot.safe_read"])
				}
				locks, owners := e.hashes(t, "locks"), e.hashes(t, "owners")
				if len(locks) != e.int(t, "rounds") || len(owners) != len(locks) {
					t.Fatalf("EXPECT: %d locks and %d owners for %d rounds", len(locks), len(owners), e.int(t, "rounds"))
				}
				c := counter{t, r}
				named := 0
				for i, lock := range locks {
					idx := r.sel(format.MonitorContendedEnter, func(_ int, ev reader.Event) bool { return ev.Object == format.ObjectID(lock) })
					c.want("MonitorContendedEnter on lock "+strconv.Itoa(i), idx, 1)
					if len(idx) != 1 {
						continue
					}
					switch got := r.events[idx[0]].Owner; got {
					case format.ThreadID(owners[i]):
						named++
					case 0:
					default:
						t.Errorf("lock %d: owner %v, want %08X or unknown", i, got, owners[i])
					}
				}
				faults, _ := strconv.Atoi(r.info["hotspot.faults"])
				unreadable, _ := strconv.Atoi(r.info["owner_unknown.unreadable"])
				t.Logf("hotspot.faults=%d owners named %d of %d owner_unknown=%s (unreadable %d, anonymous %s) entered_timer=%q virtual=%d",
					faults, named, len(locks), r.info["owner_unknown"], unreadable, r.info["owner_unknown.anonymous"],
					r.info["entered_timer"], e.int(t, "virtual"))
				switch site.name {
				case "owner":
					// Three or four reads an enter (the pending monitor and its owner; for the
					// monitor's hash, the pending monitor and the header where it is kept):
					// one in three faults. A faulted owner read is unknown, a faulted hash
					// read is JVMTI's (the enters above were found by their locks' hashes).
					if faults < len(locks)/2 {
						t.Errorf(".info: hotspot.faults=%d, want at least %d (one in three owner reads of %d enters)", faults, len(locks)/2, len(locks))
					}
					if unreadable == 0 || named == 0 {
						t.Errorf("owners named %d of %d, owner_unknown.unreadable=%d: want both the faulted reads unknown and the others named",
							named, len(locks), unreadable)
					}
				case "lock_stack":
					// Lock stacks are read for an anonymous owner (lightweight locking, 23+) and a
					// virtual thread's own as it blocks and resumes (24+); 17 has none.
					if !strings.Contains(r.info["hotspot.facts"], "lightweight_locks") {
						if faults != 0 {
							t.Errorf(".info: hotspot.faults=%d without lock stacks, want 0", faults)
						}
						return
					}
					// An anonymous owner's lock stack is looked for among every live thread's.
					if faults < len(locks) || named == 0 {
						t.Errorf(".info: hotspot.faults=%d, owners named %d: want at least %d faults (one in two lock-stack reads), the others named",
							faults, named, len(locks))
					}
				case "timer":
					// The first fault gives the timer up: the Entered callback times the rest.
					if faults < 1 || !strings.Contains(r.info["entered_timer"], "stopped: a read of the timer faulted") {
						t.Errorf(".info: hotspot.faults=%d entered_timer=%q: want the fault counted and the timer given up",
							faults, r.info["entered_timer"])
					}
					if named != len(locks) {
						t.Errorf("owners named %d of %d: the timer's faults must not touch the owner lookup", named, len(locks))
					}
				}
			})
		})
	}
}
