package integration

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// TestAnonymousOwner is issue 31's item 1: on JDK 25 a third to a half of HSQLDB's monitor blocked
// time had no owner (owner_unknown.anonymous): the contender read an anonymous owner and found the
// object on no thread's lock stack. The holder was inside its fast unlock, between the pop of its
// lock stack and its CAS of the header (which fails: the contender had put the monitor there), or
// inside its fast lock, between its CAS and its push; HotSpot keeps the object then only in the
// lock stack's entry just above the top (docs/agent.md, "The owner of a contended monitor").
// AnonymousOwner.java runs two workers on one synchronized method, the JVM pinned to one CPU so
// that the OS preempts a worker anywhere in its loop, inside those few instructions too. Every
// contended enter must name the other worker, or be `released` (it had let go just before the
// read); no anonymous owner may stay unknown. With lightweight locking, rounds are recorded until
// one names such an owner (.info owner_unlocking: 1 of 30 to 180 contentions in most rounds), 8 at
// most. Before the fix (agent of d7db5d3), in each of 3 runs the first or the second
// round failed: owner_unknown.anonymous=1, an enter with owner 00000000 not released.
func TestAnonymousOwner(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		skipf(t, "no taskset (util-linux): the test pins the JVM to one CPU")
	}
	forEachJDK(t, func(t *testing.T, j jdk) {
		const iters = 30_000_000
		for round := 1; round <= 8; round++ {
			e, r := recordPinned(t, taskset, j, "AnonymousOwner", strconv.Itoa(iters))
			if got := e.int(t, "count"); got != 2*iters {
				t.Fatalf("count=%d, want %d", got, 2*iters)
			}
			lock := format.ObjectID(e.hash(t, "lock"))
			w := [2]format.ThreadID{format.ThreadID(e.hash(t, "worker.0")), format.ThreadID(e.hash(t, "worker.1"))}
			enters := r.sel(format.MonitorContendedEnter, func(_ int, ev reader.Event) bool { return ev.Object == lock })
			entered := r.sel(format.MonitorContendedEntered, func(_ int, ev reader.Event) bool { return ev.Object == lock })
			if len(enters) != len(entered) {
				t.Errorf("round %d: %d MonitorContendedEnter on the lock, %d MonitorContendedEntered", round, len(enters), len(entered))
			}
			unknown := 0
			for _, i := range enters {
				ev := r.events[i]
				var other format.ThreadID
				switch ev.Thread {
				case w[0]:
					other = w[1]
				case w[1]:
					other = w[0]
				default:
					t.Errorf("round %d: %s: not a worker", round, r.describe(i))
					continue
				}
				if ev.Owner == 0 {
					unknown++
				} else if ev.Owner != other {
					t.Errorf("round %d: %s: owner %v, want the other worker %v", round, r.describe(i), ev.Owner, other)
				}
			}
			released, _ := strconv.Atoi(r.info[format.InfoOwnerReleased])
			named, _ := strconv.Atoi(r.info[format.InfoOwnerUnlocking])
			t.Logf("round %d: %d contended enters, %d anonymous owners named (owner_unlocking), %d released, .info owner_unknown=%s anonymous=%q",
				round, len(enters), named, released, r.info[format.InfoOwnerUnknown], r.info[format.InfoOwnerAnonymous])
			if a := r.info[format.InfoOwnerAnonymous]; a != "" {
				t.Errorf("round %d: .info %s=%s, want none: an anonymous owner left unknown", round, format.InfoOwnerAnonymous, a)
			}
			if unknown != released {
				t.Errorf("round %d: %d contended enters with owner 00000000, want the %d released (.info %v)", round, unknown, released, r.info)
			}
			if t.Failed() || named > 0 || !strings.Contains(r.info["hotspot.facts"], "lightweight_locks") {
				return
			}
		}
		t.Errorf("8 rounds and no anonymous owner on no lock stack named (owner_unlocking): the case was not exercised")
	})
}

// recordPinned is recordExpect with the whole of orca record and its JVM on CPU 0.
func recordPinned(t *testing.T, taskset string, j jdk, main string, args ...string) (expect, *recording) {
	t.Helper()
	bin, cls := orcaBin(t), classes(t)
	dir := newDir(t)
	prefix := filepath.Join(dir, "x")
	argv := append([]string{"-c", "0", bin, "record", "-o", prefix, "--"}, j.argv(dir, append([]string{"-cp", cls, main}, args...)...)...)
	res := run(t, dir, taskset, argv...)
	checkNoCrashLog(t, res)
	if res.code != 0 {
		t.Fatalf("orca record failed:\n%s", res)
	}
	e := parseExpect(t, res)
	r := load(t, prefix)
	r.checkParse(t)
	r.checkInfo(t, true, true)
	r.checkInvariants(t)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s\nrecording: %s (set ORCA_KEEP=1 to keep it)", e.line, prefix)
		}
	})
	return e, r
}
