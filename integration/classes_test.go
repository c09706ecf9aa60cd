package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/report"
)

// Scenario's objects of known classes (Scenario.java): the recording names
// them with ObjectClass lines (issue 14, item 4).
var scenarioObjClasses = map[string]string{
	"lock":     "LScenario$Lock;",
	"warmLock": "[I",
	"waitObj":  "Ljava/lang/String;",
	"sem":      "Ljava/util/concurrent/Semaphore;", // its ObjectClass line since issue 20 (item 5)
}

// checkScenarioClasses: every contended monitor is named by its class no
// later than its first MonitorContendedEnter, every waited object by its
// class (the agent names a wait's object with the Wait, or with the Waited
// when the walker wrote the Wait: docs/format.md), and Scenario's own
// objects by their classes.
func checkScenarioClasses(t *testing.T, r *recording, e expect) {
	t.Helper()
	class := map[format.ObjectID]string{}
	for i, ev := range r.events {
		switch ev.Kind {
		case format.ObjectClass:
			class[ev.Object] = ev.Class
		case format.MonitorContendedEnter:
			if ev.Object != 0 && class[ev.Object] == "" {
				t.Errorf("MonitorContendedEnter on %v before any ObjectClass of it: %s", ev.Object, r.describe(i))
			}
		}
	}
	for _, i := range r.sel(format.ObjectWait, nil) {
		if o := r.events[i].Object; o != 0 && class[o] == "" {
			t.Errorf("ObjectWait on %v and no ObjectClass of it: %s", o, r.describe(i))
		}
	}
	for key, want := range scenarioObjClasses {
		if got := class[format.ObjectID(e.hash(t, key))]; got != want {
			t.Errorf("the class of %s (%08X) is %q, want %q", key, e.hash(t, key), got, want)
		}
	}
}

// TestScenarioClasses: the report names Scenario's monitors and waited
// object by their classes, in text (Java names) and JSON (signatures); with
// --kinds seed no ObjectClass line is written and the report names none.
func TestScenarioClasses(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "Scenario")
		r := load(t, prefix)
		r.checkParse(t)
		checkScenarioClasses(t, r, e)

		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		var txt strings.Builder
		if err := rep.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"monitor Scenario$Lock " + format.Hex(e.hash(t, "lock")),
			"monitor int[] " + format.Hex(e.hash(t, "warmLock")),
			"java.lang.String " + format.Hex(e.hash(t, "waitObj")),
			"semaphore java.util.concurrent.Semaphore " + format.Hex(e.hash(t, "sem")),
		} {
			if !strings.Contains(txt.String(), want) {
				t.Errorf("the text report does not show %q:\n%s", want, txt.String())
			}
		}
		var js bytes.Buffer
		if err := rep.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Locks []struct {
				Object string
				Class  *string
			}
			Waits []struct {
				Object string
				Class  *string
			}
		}
		if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		// Every lock and every wait names its class (issue 20 item 5): a semaphore had none, an
		// object only notified (ThreadGroup.threadTerminated's notifyAll) had none.
		classOf := map[string]string{}
		for _, l := range doc.Locks {
			if l.Class == nil {
				t.Errorf("JSON: lock %s has no class", l.Object)
				continue
			}
			classOf[l.Object] = *l.Class
		}
		for _, w := range doc.Waits {
			if w.Class == nil {
				if w.Object != "00000000" { // parks on no blocker: no object
					t.Errorf("JSON: waits entry %s has no class", w.Object)
				}
				continue
			}
			classOf[w.Object] = *w.Class
		}
		for key, want := range scenarioObjClasses {
			if got := classOf[format.Hex(e.hash(t, key))]; got != want {
				t.Errorf("JSON: the class of %s is %q, want %q", key, got, want)
			}
		}

		// kinds=seed, format=seed: the original Orca's format exactly — the manual's kinds only
		// (so no class), as text lines.
		dir := newDir(t)
		seed := dir + "/seed"
		res := run(t, dir, orcaBin(t), append([]string{"record", "-o", seed, "--kinds", "seed", "--format", "seed", "--"}, j.argv(dir, "-cp", classes(t), "Scenario")...)...)
		if res.code != 0 {
			t.Fatalf("orca record --kinds seed --format seed failed:\n%s", res)
		}
		if b, err := os.ReadFile(seed + ".orca"); err != nil || len(b) == 0 || b[0] < '0' || b[0] > '9' || bytes.Contains(b, []byte{0}) {
			t.Errorf("--format seed: %s.orca is not text lines (%v)", seed, err)
		}
		rs := load(t, seed)
		if n := len(rs.sel(format.ObjectClass, nil)); n != 0 {
			t.Errorf("kinds=seed: %d ObjectClass lines, want none", n)
		}
		if len(rs.sel(format.MonitorContendedEnter, nil)) == 0 {
			t.Errorf("kinds=seed: no MonitorContendedEnter: %s", rs.kindCounts())
		}
	})
}
