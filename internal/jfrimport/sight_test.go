package jfrimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/crash"
	"orca/internal/model"
	"orca/internal/report"

	jt "orca/internal/jfr/jfrtest"
	"orca/internal/testjvm"
)

// deadlockDefault is what JFR's default settings record of a program whose
// threads t1 and t2 deadlock (Deadlock.java's shape): t1 parks on a
// ReentrantLock for 30 ms, t2 blocks 25 ms on a monitor (no previous
// owner), both sleep 100 ms and then block on each other's monitor for
// ever, which JFR never writes; main sleeps 1 s and exits.
func deadlockDefault() []byte {
	c := &jt.Chunk{Classes: jt.JDKClasses(), StartNanos: 1_700_000_000_000_000_000, StartTicks: 0, TicksPerSecond: 1_000_000}
	c.DefaultSettings()
	c.Thread(1, "main", 1, 100)
	c.Thread(2, "t1", 11, 101)
	c.Thread(3, "t2", 12, 102)
	c.Symbol(10, "Deadlock")
	c.Symbol(11, "main")
	c.Symbol(12, "([Ljava/lang/String;)V")
	c.Symbol(13, "run")
	c.Symbol(14, "()V")
	c.Symbol(15, "java/lang/Object")
	c.Symbol(16, "java/util/concurrent/locks/ReentrantLock$NonfairSync")
	c.Class(20, 10)
	c.Class(21, 15)
	c.Class(22, 16)
	c.Method(30, 20, 11, 12, 9)
	c.Method(31, 20, 13, 14, 1)
	c.FrameType(40, "Interpreted")
	c.Stack(50, false, jt.StackFrame{Method: 30, Line: 5, BCI: 1, Type: 40})
	c.Stack(51, false, jt.StackFrame{Method: 31, Line: 9, BCI: 2, Type: 40})
	c.Event(jt.TThreadStart, jt.Varint(1000), jt.Varint(2), jt.Varint(50), jt.Varint(2), jt.Varint(1))
	c.Event(jt.TThreadStart, jt.Varint(1100), jt.Varint(3), jt.Varint(50), jt.Varint(3), jt.Varint(1))
	c.Event(jt.TThreadSleep, jt.Varint(1500), jt.Varint(1_000_000), jt.Varint(1), jt.Varint(50), jt.Varint(1000))
	c.Event(jt.TThreadPark, jt.Varint(2000), jt.Varint(30_000), jt.Varint(2), jt.Varint(51), jt.Varint(22), jt.Varint(math.MinInt64), jt.Varint(math.MinInt64), jt.Varint(0x4000))
	c.Event(jt.TMonitorEnter, jt.Varint(2000), jt.Varint(25_000), jt.Varint(3), jt.Varint(51), jt.Varint(21), jt.Varint(0), jt.Varint(0x7f00))
	c.Event(jt.TThreadSleep, jt.Varint(40_000), jt.Varint(100_000), jt.Varint(2), jt.Varint(51), jt.Varint(100))
	c.Event(jt.TThreadSleep, jt.Varint(40_000), jt.Varint(100_000), jt.Varint(3), jt.Varint(51), jt.Varint(100))
	return c.Bytes()
}

// TestImportDefaultSettings: the report of a default-settings recording of
// a deadlocked program says what JFR could not see, and claims nothing it
// could not know: no "No hangs", no "deadlocks: 0", no park "ended without
// an unpark", no agent.
func TestImportDefaultSettings(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "dl")
	if _, err := Import(bytes.NewReader(deadlockDefault()), -1, prefix, Options{}); err != nil {
		t.Fatal(err)
	}
	txt, r := importReport(t, prefix)
	checkSightText(t, txt)
	for _, want := range []string{
		"JFR recorded only states that lasted 20.0 ms or more: shorter ones are not in the recording",
		"owner unknown for 1 contention, 25.0 ms of 25.0 ms blocked (100.0 %): JFR recorded no previous owner (1)",
		"1 ended (JFR records neither who unparked a park nor whether it timed out)",
		"     (monitor enters, waits, parks and sleeps)\n",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("the report lacks %q:\n%s", want, txt)
		}
	}
	s := r.Sight
	if s == nil || s.Source != "jfr" || s.HangsVisible || s.DeadlocksVisible || s.Unparkers || !s.SettingsKnown ||
		s.ThresholdsS["MonitorContendedEnter"] != 0.02 || s.ThresholdsS["ThreadPark"] != 0.02 || len(s.NotRecorded) != 0 {
		t.Errorf("JSON sight: %+v", s)
	}
}

// importReport builds the text report and the decoded JSON report of an
// imported recording.
func importReport(t *testing.T, prefix string) (string, *report.Report) {
	t.Helper()
	rec := readBack(t, prefix).rec
	res, err := model.Build(rec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := report.New(rec, res, report.Options{})
	var txt, js bytes.Buffer
	if err := r.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	return txt.String(), &back
}

// checkSightText checks what the report of any import of a deadlocked
// program says of hangs, deadlocks, parks and owners.
func checkSightText(t *testing.T, txt string) {
	t.Helper()
	for _, want := range []string{
		"deadlocks: not visible   hangs: not visible",
		"!! JFR writes a wait, monitor enter, park or sleep when it ends: a deadlock, a hang, any such",
		"\nDeadlocks: not visible in a JFR recording",
		"\nHangs: not visible in a JFR recording",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("the report lacks %q:\n%s", want, txt)
		}
	}
	for _, bad := range []string{"No hangs", "No deadlocks", "deadlocks: 0", "hangs: 0", "without an unpark", "the agent"} {
		if strings.Contains(txt, bad) {
			t.Errorf("the report says %q:\n%s", bad, txt)
		}
	}
}

// TestImportJDKDefault records DeadlockDemo, which deadlocks two threads,
// with JFR's default settings on every JDK present, imports it and checks
// that the report says what JFR could not see.
func TestImportJDKDefault(t *testing.T) {
	testjvm.Each(t, func(t *testing.T, j testjvm.JDK) {
		classes, err := compile()
		crash.Check(t, workDir)
		if errors.Is(err, errNoJDK) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		jfrFile := filepath.Join(dir, "dl.jfr")
		cmd := testjvm.Command(t, workDir, testjvm.Argv(j.Java(), workDir,
			"-XX:StartFlightRecording=filename="+jfrFile, "-Xlog:jfr+startup=warning", "-cp", classes, "DeadlockDemo")...)
		out, err := cmd.CombinedOutput()
		crash.Check(t, workDir)
		if err != nil {
			t.Fatalf("java DeadlockDemo: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "EXPECT deadlocked=true") {
			t.Fatalf("DeadlockDemo did not deadlock:\n%s", out)
		}
		prefix := filepath.Join(dir, "dl")
		if _, err := ImportFile(jfrFile, prefix, Options{}); err != nil {
			t.Fatal(err)
		}
		txt, r := importReport(t, prefix)
		checkSightText(t, txt)
		for _, want := range []string{
			"JFR recorded only states that lasted 20.0 ms or more: shorter ones are not in the recording",
			"ended (JFR records neither who unparked a park nor whether it timed out)",
		} {
			if !strings.Contains(txt, want) {
				t.Errorf("the report lacks %q:\n%s", want, txt)
			}
		}
		if s := r.Sight; s == nil || s.HangsVisible || s.DeadlocksVisible || s.Unparkers || !s.SettingsKnown ||
			s.ThresholdsS["MonitorContendedEnter"] != 0.02 || len(r.Hangs)+len(r.Deadlocks) != 0 {
			t.Errorf("JSON sight %+v, %d hangs, %d deadlocks", s, len(r.Hangs), len(r.Deadlocks))
		}
	})
}
