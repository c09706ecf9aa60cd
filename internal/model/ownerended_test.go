package model_test

import (
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
	. "orca/internal/model"
	"orca/internal/testrec"
)

// ownerEnded: D ended at 1.0; C blocks on monitor 0000E0E0 at 1.5 naming D as its owner (as
// the agent did on JDK 25 with a virtual thread's id left in the monitor's owner word), and at
// 2.5 on D's own Thread object (its identity hash is D's id: HotSpot's thread exit locks it to
// notify the joiners, after ThreadEnd), naming D; E blocks at 3.5 naming F, which ends at 4.0,
// after.
const ownerEnded = `-- orca --
0.0000000000,ThreadStarted,0000000C,c
0.0000000000,ThreadStarted,0000000D,d
0.0000000000,ThreadStarted,0000000E,e
0.0000000000,ThreadStarted,0000000F,f
1.0000000000,ThreadEnded,0000000D
1.5000000000,MonitorContendedEnter,0000000C,0000E0E0,0000000D,0
1.6000000000,MonitorContendedEntered,0000000C,0000E0E0,0
2.5000000000,MonitorContendedEnter,0000000C,0000000D,0000000D,0
2.6000000000,MonitorContendedEntered,0000000C,0000000D,0
3.5000000000,MonitorContendedEnter,0000000E,0000F0F0,0000000F,0
3.6000000000,MonitorContendedEntered,0000000E,0000F0F0,0
4.0000000000,ThreadEnded,0000000F
-- methods --
-- classtable --
-- info --
format=orca-1
complete=true
`

// TestOwnerEnded: a contended enter whose named owner had ended before it began has its owner
// unknown (a thread that ended holds nothing), counted in Model.OwnerEnded; the enter of the
// owner's own Thread object keeps it, and so does one whose owner ended after.
func TestOwnerEnded(t *testing.T) {
	_, res := testrec.Build(t, txtar.Parse([]byte(ownerEnded)), "ended")
	m := res.Model
	first := func(th format.ThreadID, obj format.ObjectID) format.ThreadID {
		for _, iv := range m.Thread(th).Intervals {
			if iv.State == Blocked && iv.Object == obj {
				return iv.First
			}
		}
		t.Fatalf("thread %s: no contention on %s", th, obj)
		return 0
	}
	if o := first(0xC, 0xE0E0); o != 0 {
		t.Errorf("C's enter on E0E0 names %s, which had ended; want unknown", o)
	}
	if o := first(0xC, 0xD); o != 0xD {
		t.Errorf("C's enter on D's Thread object names %s, want D (its exit)", o)
	}
	if o := first(0xE, 0xF0F0); o != 0xF {
		t.Errorf("E's enter names %s, want F (ended after)", o)
	}
	if m.OwnerEnded != 1 {
		t.Errorf("OwnerEnded %d, want 1", m.OwnerEnded)
	}
}
