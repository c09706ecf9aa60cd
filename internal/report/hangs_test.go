package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"orca/internal/testrec"
)

// report builds the report of testdata/CASE.txtar and its text.
func report(t *testing.T, name string) (*Report, string) {
	t.Helper()
	rec, res := load(t, name, testrec.Parse(t, "testdata/"+name+".txtar"))
	r := New(rec, res, Options{})
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return r, b.String()
}

// hangNames returns the names of the program's hangs, and the threads of
// not_hangs by why, with the program's threads of waiting_alone under
// "alone".
func hangNames(r *Report) (hangs []string, not map[string][]string) {
	not = map[string][]string{}
	for _, h := range r.Hangs {
		if !h.JDK {
			hangs = append(hangs, *h.Name)
		}
	}
	for _, h := range r.NotHangs {
		not[h.Why] = append(not[h.Why], *h.Name)
	}
	for _, h := range r.WaitingAlone {
		if h.Why != "alone" {
			panic("waiting alone, why " + h.Why)
		}
		if !h.JDK {
			not[h.Why] = append(not[h.Why], *h.Name)
		}
	}
	return hangs, not
}

// TestHangsCleanStop is issue 20's false hangs after a clean stop
// (testdata/shutdown.txtar): of the threads in a state when a server
// stopped by SIGTERM exited, only the one stuck since long before the
// shutdown is stuck — waiting alone (issue 31: for no thread, none behind
// it, others ran on), no hang; the exit's own, a park with a timeout and a
// wait of 54 ms are not stuck.
func TestHangsCleanStop(t *testing.T) {
	r, text := report(t, "shutdown")
	hangs, not := hangNames(r)
	if len(hangs) != 0 {
		t.Errorf("hangs %q, want none", hangs)
	}
	want := map[string][]string{"timed": {"scheduler"}, "short": {"HSQLDB Timer @3a4b5c"}, "shutdown": {"activemq-shutdown-hook", "main"}, "jdk": {"Finalizer"}, "alone": {"stuck"}}
	if !reflect.DeepEqual(not, want) {
		t.Errorf("not hangs %q, want %q", not, want)
	}
	if r.ShutdownS == nil || *r.ShutdownS != 10 {
		t.Errorf("shutdown_s %v, want 10", r.ShutdownS)
	}
	if !strings.Contains(text, "hangs: 0, waiting alone: 1") || !strings.Contains(text, "WAITING ALONE: 1 thread stuck") ||
		!strings.Contains(text, "entered during the shutdown (from 10.000 s)") || !strings.Contains(text, "other threads ran until 9.946 s") {
		t.Errorf("text:\n%s", text)
	}
}

// TestHangsKill: a JVM killed with kill -9 whose threads park for 1 us at
// a time (testdata/killed.txtar): those are "at the kill", not hangs; the
// waiter stuck for seconds is stuck, alone (the spinners ran on).
func TestHangsKill(t *testing.T) {
	r, text := report(t, "killed")
	hangs, not := hangNames(r)
	if len(hangs) != 0 {
		t.Errorf("hangs %q, want none", hangs)
	}
	if want := (map[string][]string{"kill": {"spinner-1", "spinner-2", "spinner-3"}, "alone": {"waiter"}}); !reflect.DeepEqual(not, want) {
		t.Errorf("not hangs %q, want %q", not, want)
	}
	if !strings.Contains(text, "WAITING ALONE: 1 thread") || !strings.Contains(text, "at the kill") {
		t.Errorf("text:\n%s", text)
	}
}

// TestHangsNoMethods: without .methods the Finalizer and the
// Common-Cleaner are still the JDK's idle threads, not hangs nor in the
// count of those waiting alone (testdata/nomethods.txtar).
func TestHangsNoMethods(t *testing.T) {
	r, text := report(t, "nomethods")
	_, not := hangNames(r)
	if want := []string{"worker"}; !reflect.DeepEqual(not["alone"], want) {
		t.Errorf("waiting alone %q, want %q", not["alone"], want)
	}
	if !strings.Contains(text, "hangs: 0, waiting alone: 1 (+2 JDK threads idle)") {
		t.Errorf("text:\n%s", text)
	}
}

// TestHangsBehindDeadlock (issue 31, item 2): main joining a deadlocked thread 1 ms before the
// end was not a hang ("short"); it is stuck with the deadlock: in hangs, joining "left",
// behind it, in deadlock #1 — in the JSON and the text.
func TestHangsBehindDeadlock(t *testing.T) {
	r, text := report(t, "behind")
	hangs, not := hangNames(r)
	if want := []string{"left", "right", "main"}; !reflect.DeepEqual(hangs, want) {
		t.Errorf("hangs %q (not hangs %q), want %q", hangs, not, want)
	}
	for _, h := range r.Hangs {
		if *h.Name != "main" {
			continue
		}
		if h.State != "joining" || h.Behind == nil || *h.Behind != "0000000A" || h.BehindDeadlock == nil || *h.BehindDeadlock != 0 || h.Why != "" {
			t.Errorf("main: state %s, behind %v, behind_deadlock %v, why %q; want joining, behind 0000000A in deadlock 0", h.State, h.Behind, h.BehindDeadlock, h.Why)
		}
	}
	if want := `stuck behind "left" (0000000A) in deadlock #1`; !strings.Contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}
}

// TestBoundedKilledSpan: a bounded recording's .info is rewritten once a
// second, so a JVM killed (testdata/killed.txtar, as if recorded with
// --max-age) leaves an end_s before its last events: "all N s kept" is
// the events' span, not the .info's.
func TestBoundedKilledSpan(t *testing.T) {
	ar := testrec.Parse(t, "testdata/killed.txtar")
	for i, f := range ar.Files {
		if f.Name == "info" {
			info := strings.Replace(string(f.Data), "end_s=3.0000000000", "end_s=2.5000000000", 1)
			ar.Files[i].Data = []byte(info + "max_age_s=600\n")
		}
	}
	rec, res := load(t, "killed-bounded", ar)
	r := New(rec, res, Options{})
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if r.Bounded == nil || r.Bounded.RecordedS != r.DurationS || r.DurationS != 3 {
		t.Fatalf("bounded %+v, %v s long; want the recording's 3 s kept", r.Bounded, r.DurationS)
	}
	if !strings.Contains(b.String(), "nothing deleted, all 3.00 s kept") {
		t.Errorf("text:\n%s", b.String())
	}
}
