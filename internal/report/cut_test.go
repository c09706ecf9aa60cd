package report

import (
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestCut is issue 12's "never invent hangs from a cut recording": on a
// full disk the report claimed 47 hangs and 129 s blocked. testdata/cut.txtar
// is cut at 3 s with two threads in a wait-for cycle, one waiting and one
// blocked: no hang, no deadlock, the recording and the blocked time end at
// the cut. The same events without the cut (a JVM killed with kill -9:
// complete=false, no write_error) keep their hangs and their deadlock.
func TestCut(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/cut.txtar")
	if err != nil {
		t.Fatal(err)
	}
	rec, res := load(t, "cut", ar)
	r := New(rec, res, Options{})
	if len(r.Hangs) != 0 || len(r.Deadlocks) != 0 || r.DurationS != 3 || r.OpenS != 4 || r.BlockedS != 0 || r.Events != 10 {
		t.Errorf("cut: %d hangs, %d deadlocks, %v s long, %v s open, %v s blocked, %d events; want 0, 0, 3, 4, 0, 10",
			len(r.Hangs), len(r.Deadlocks), r.DurationS, r.OpenS, r.BlockedS, r.Events)
	}
	if c := r.Cut; c == nil || c.AtS != 3 || c.Reason != "PREFIX.orca: No space left on device" || len(c.UnknownAfter) != 4 || c.EventsAfter != 2 {
		t.Errorf("cut = %+v", c)
	}

	for i, f := range ar.Files {
		if f.Name == "info" {
			var keep []string
			for _, l := range strings.Split(string(f.Data), "\n") {
				if !strings.HasPrefix(l, "cut_s=") && !strings.HasPrefix(l, "write_error") && !strings.HasPrefix(l, "complete=") {
					keep = append(keep, l)
				}
			}
			ar.Files[i].Data = []byte(strings.Join(keep, "\n") + "complete=false\n")
		}
	}
	rec, res = load(t, "killed", ar)
	r = New(rec, res, Options{})
	if len(r.Hangs) != 3 || len(r.Deadlocks) != 1 || r.DurationS != 9 || r.Cut != nil {
		t.Errorf("killed: %d hangs, %d deadlocks, %v s long, cut %+v; want 3 (a, b, d: c's wait ended), 1, 9, none",
			len(r.Hangs), len(r.Deadlocks), r.DurationS, r.Cut)
	}
}
