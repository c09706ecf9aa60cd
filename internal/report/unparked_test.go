package report

import (
	"strings"
	"testing"
)

// TestParkWaitUnparkers: who ended the parks on a blocker is said once per thread, its count
// beside its name only when there are several ("1 unparked by T 1" read as a stray number).
func TestParkWaitUnparkers(t *testing.T) {
	a, b := "pool-1-thread-1", "pool-1-thread-2"
	cls := "java.util.concurrent.FutureTask"
	for _, c := range []struct {
		by   []Unparker
		want string
	}{
		{[]Unparker{{Thread: "0000000A", Name: &a, Parks: 3}}, `3 unparked by "pool-1-thread-1" (0000000A)` + "\n"},
		{[]Unparker{{Thread: "0000000A", Name: &a, Parks: 2}, {Thread: "0000000B", Name: &b, Parks: 1}},
			`3 unparked: 2 by "pool-1-thread-1" (0000000A), 1 by "pool-1-thread-2" (0000000B)` + "\n"},
	} {
		var out strings.Builder
		r := &Report{}
		r.parkWait(&textWriter{w: &out, width: 100}, Wait{Object: idPtr("043F0744", true), Class: &cls, Kind: "park", Waits: 3, Notified: 3, UnparkedBy: c.by})
		if !strings.Contains(out.String(), "     "+c.want) {
			t.Errorf("parked on a FutureTask, %d unparkers:\n%s\nwant the line %q", len(c.by), out.String(), c.want)
		}
	}
}
