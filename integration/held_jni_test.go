package integration

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/report"
)

// TestHeldJNI: a monitor entered through JNI's MonitorEnter is in no frame, so the read of the
// thread's own frames cannot list it; the agent counts each thread's JNI monitors (its wrappers
// in the JNI function table) and asks JVMTI for the held monitors of a thread that holds one
// (.info held_monitors_jni=1). HeldJNI.java (with testdata/jni/heldjni.c, compiled here with gcc):
// jni-1 holds a through JNI and contends for b in inner, called from the native method; jni-2
// holds b (synchronized, in outer) and contends for a. jni-1's enter lists a (no depth: JVMTI's
// -1), jni-2's b at depth 1, ORCA_HELD_CHECK=1 finds no read different from JVMTI's answer, and
// the report has the one potential deadlock over a and b, jni-1's edge held where no frame says
// ("?"). Before, jni-1's read listed nothing (ORCA_HELD_CHECK: 1 different) and the report none.
func TestHeldJNI(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		skipf(t, "no gcc to build the JNI library: %v", err)
	}
	t.Setenv("ORCA_HELD_CHECK", "1")
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		lib := filepath.Join(dir, "libheldjni.so")
		inc := filepath.Join(j.home, "include")
		if out, err := exec.Command(gcc, "-shared", "-fPIC", "-O2", "-I", inc, "-I", filepath.Join(inc, "linux"), "-o", lib,
			filepath.Join("..", "testdata", "jni", "heldjni.c")).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		res, prefix := recordJVM(t, j, []string{"-Dheldjni.lib=" + lib}, "HeldJNI")
		e, prefix := expectOf(t, res, prefix)
		rec, built := buildModel(t, prefix)
		if got := rec.Info[format.InfoHeldMonitors]; got != "yes" {
			t.Fatalf(".info held_monitors=%q, want yes", got)
		}
		if n, _ := strconv.Atoi(rec.Info[format.InfoHeldJNI]); n != 1 {
			t.Errorf(".info held_monitors_jni=%q, want 1", rec.Info[format.InfoHeldJNI])
		}
		checkHeldCheck(t, res.stderr, false, 1)
		m := built.Model
		names := map[format.ObjectID]string{format.ObjectID(e.hash(t, "a")): "a", format.ObjectID(e.hash(t, "b")): "b"}
		got := map[string][]string{}
		for i := range m.LockOrders {
			o := &m.LockOrders[i]
			th := m.Thread(o.Thread)
			if th == nil || strings.HasPrefix(th.Name, "holder-") {
				continue
			}
			var hs []string
			for _, h := range o.Held {
				hs = append(hs, fmt.Sprintf("%s@%d", names[h.Object], h.Depth))
			}
			got[th.Name] = append(got[th.Name], names[o.Wanted]+"<"+strings.Join(hs, ","))
		}
		want := map[string][]string{"jni-1": {"b<a@-1"}, "jni-2": {"a<b@1"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("held at contended enters %v, want %v", got, want)
		}
		rep := report.New(rec, built, report.Options{})
		cycles := potentialCycles(t, rep, names, false)
		wantCycles := [][]string{{"jni-1: a in ?, b at HeldJNI.inner", "jni-2: b in HeldJNI.outer, a at HeldJNI.inner"}}
		if !reflect.DeepEqual(cycles, wantCycles) {
			t.Errorf("potential deadlocks:\n%q\nwant\n%q", cycles, wantCycles)
		}
		// Where jni-1 held a: in no frame, which the report says.
		var notes []string
		for _, d := range rep.PotentialDeadlocks {
			for _, oe := range d.Edges {
				if oe.Name != nil && strings.HasPrefix(*oe.Name, "jni-") {
					notes = append(notes, *oe.Name+": "+oe.HeldStackNote)
				}
			}
		}
		sort.Strings(notes)
		if want := []string{"jni-1: in no Java frame: entered through JNI's MonitorEnter", "jni-2: "}; !reflect.DeepEqual(notes, want) {
			t.Errorf("held stack notes %q, want %q", notes, want)
		}
	})
}
