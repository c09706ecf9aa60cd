package report

import (
	"strings"
	"testing"

	"orca/internal/testrec"
)

// TestCut is issue 12's "never invent hangs from a cut recording": on a
// full disk the report claimed 47 hangs and 129 s blocked. testdata/cut.txtar
// is cut at 3 s with two wait-for cycles, one that stood 1.5 s (a
// deadlock: monitor cycles never break) and one 50 ms old (not claimed),
// one thread waiting and one blocked: no hang, the recording and the
// blocked time end at the cut. The same events without the cut (a JVM killed with kill -9:
// complete=false, no write_error) keep their hangs and their deadlock.
func TestCut(t *testing.T) {
	ar := testrec.Parse(t, "testdata/cut.txtar")
	rec, res := load(t, "cut", ar)
	r := New(rec, res, Options{})
	if len(r.Hangs) != 0 || len(r.Deadlocks) != 1 || r.DurationS != 3 || r.OpenS != 4.15 || r.BlockedS != 0 || r.Events != 14 {
		t.Errorf("cut: %d hangs, %d deadlocks, %v s long, %v s open, %v s blocked, %d events; want 0, 1, 3, 4.15, 0, 14",
			len(r.Hangs), len(r.Deadlocks), r.DurationS, r.OpenS, r.BlockedS, r.Events)
	}
	if c := r.Cut; c == nil || c.AtS != 3 || c.Reason != "PREFIX.orca: No space left on device" || len(c.UnknownAfter) != 6 || c.EventsAfter != 2 {
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
	if len(r.Hangs) != 5 || len(r.Deadlocks) != 2 || r.DurationS != 9 || r.Cut != nil {
		t.Errorf("killed: %d hangs, %d deadlocks, %v s long, cut %+v; want 5 (a, b, d, e, f: c's wait ended), 2, 9, none",
			len(r.Hangs), len(r.Deadlocks), r.DurationS, r.Cut)
	}
}
