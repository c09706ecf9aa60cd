package integration

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
	"orca/internal/testjvm"
)

// TestAttachClassHashes is issue 30's item 4a: on JDK 17 the CDS archive's class mirrors carry
// identity hashes that the application's first hashes repeat (ClassHashes makes some of its
// classes share one with java.lang.Thread and jdk.internal.misc.Unsafe), and a class named by its
// hash named the wrong class in stacks after an attach (`Unsafe.run(Unsafe.java:20)` for
// `ClassHashes$C1.run`). Every park stack of the threads c-I must read Unsafe.park,
// LockSupport.parkNanos, ClassHashes.park, ClassHashes$CI.run, then Thread's own (run; runWith on
// 21+); and the class of each park's blocker (ObjectClass) is its own: ClassHashes$CI, or Thread
// for the thread itself (the agent's cache of class signatures was by the class's hash too).
func TestAttachClassHashes(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		cmd := testjvm.Command(t, dir, j.argv(dir, "-cp", classes(t), "ClassHashes")...)
		a := startAttacheeCmd(t, cmd, dir)
		collisions := a.expectLine(t, "COLLISIONS")
		if j.feature == 17 && !strings.Contains(collisions, "java.lang.Thread") {
			// The hashes are the JDK build's: say so rather than pass without testing anything.
			t.Errorf("JDK 17: no class of ClassHashes shares its identity hash with java.lang.Thread (%q): the test no longer makes the collision", collisions)
		}
		t.Logf("%s", collisions)
		pid := strconv.Itoa(a.cmd.Process.Pid)
		w := filepath.Join(dir, "w")
		o := startOrca(t, dir, "orca: recording pid "+pid+" (ClassHashes) to ", "record", "--pid", pid, "-o", w)
		if _, err := io.WriteString(a.stdin, "go\n"); err != nil {
			t.Fatal(err)
		}
		a.expectLine(t, "DONE")
		if code := o.stop(t); code != 0 {
			t.Fatalf("orca record --pid, then SIGINT: exit %d:\n%s", code, o.stderr)
		}
		io.WriteString(a.stdin, "exit\n")
		r := load(t, w)
		r.logOnFailure(t)
		r.checkParse(t)
		names := map[format.ThreadID]string{}
		for _, i := range r.sel(format.ThreadStarted, nil) {
			names[r.events[i].Thread] = r.events[i].Name
		}
		parks := r.sel(format.ThreadPark, func(_ int, ev reader.Event) bool { return strings.HasPrefix(names[ev.Thread], "c-") })
		if len(parks) != 64*3 {
			t.Errorf("%d parks of the threads c-I, want %d", len(parks), 64*3)
		}
		bad := 0
		for _, i := range parks {
			want := []frame{
				{Class: "Ljdk/internal/misc/Unsafe;", Method: "park"},
				{Class: "Ljava/util/concurrent/locks/LockSupport;", Method: "parkNanos"},
				{Class: "LClassHashes;", Method: "park"},
				{Class: fmt.Sprintf("LClassHashes$C%s;", strings.TrimPrefix(names[r.events[i].Thread], "c-")), Method: "run"},
			}
			st := r.stacks[i]
			ok := len(st) > len(want) && st[len(st)-1].Class == "Ljava/lang/Thread;" && st[len(st)-1].Method == "run"
			for k := 0; ok && k < len(st); k++ {
				if k < len(want) {
					ok = st[k].Class == want[k].Class && st[k].Method == want[k].Method
				} else {
					ok = st[k].Class == "Ljava/lang/Thread;"
				}
			}
			if !ok {
				if bad++; bad <= 3 {
					t.Errorf("a park of %s names the wrong classes, want %v:\n%s", names[r.events[i].Thread], want, r.describe(i))
				}
			}
		}
		if bad > 3 {
			t.Errorf("… and %d more such parks", bad-3)
		}
		classOf := map[format.ObjectID]string{}
		for _, i := range r.sel(format.ObjectClass, nil) {
			classOf[r.events[i].Object] = r.events[i].Class
		}
		bad = 0
		for _, i := range parks {
			ev := r.events[i]
			want := fmt.Sprintf("LClassHashes$C%s;", strings.TrimPrefix(names[ev.Thread], "c-"))
			if uint32(ev.Object) == uint32(ev.Thread) {
				want = "Ljava/lang/Thread;"
			}
			if got := classOf[ev.Object]; got != want {
				if bad++; bad <= 3 {
					t.Errorf("the blocker %v of a park of %s is of class %q, want %q:\n%s", ev.Object, names[ev.Thread], got, want, r.describe(i))
				}
			}
		}
		if bad > 3 {
			t.Errorf("… and %d more such blockers", bad-3)
		}
		// Each class is described once, by its own line; a class that shares its hash with another
		// has an id of its own.
		rec, err := reader.Open(w)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]format.ClassID{}
		for id, c := range rec.Classes {
			if other, ok := seen[c.Signature]; ok {
				t.Errorf("class %s described twice, as %v and %v", c.Signature, other, id)
			}
			seen[c.Signature] = id
		}
	})
}
