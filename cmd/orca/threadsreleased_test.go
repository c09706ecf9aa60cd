package main

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/testrec"
)

// TestThreadsReleased: at the snapshot, a thread blocked on a monitor whose
// named owner is in Object.wait on it, and one parked to acquire a j.u.c.
// lock whose named owner is parked in Condition.await on a condition of
// that lock (ConditionLock), are behind a root that had released the lock:
// root_state "released", as the report's chains say (model.Model.Releases).
// A holder in Object.wait on another monitor still holds the lock: its
// state, "waiting". Before, the first two said "waiting" and "parked".
func TestThreadsReleased(t *testing.T) {
	ar := txtar.Parse([]byte(`-- orca --
0.0000000000,ThreadStarted,00000001,holder-m
0.0000000000,ThreadStarted,00000002,waiter-m
0.0000000000,ThreadStarted,00000003,holder-j
0.0000000000,ThreadStarted,00000004,waiter-j
0.0000000000,ThreadStarted,00000005,holder-n
0.0000000000,ThreadStarted,00000006,waiter-n
0.1000000000,MonitorContendedEnter,00000002,0000AAAA,00000001,0
0.1000000000,ObjectClass,00000004,0000BEEF,Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;
0.1000000000,ThreadPark,00000004,0000BEEF,00000003,,exclusive,1;00000001;FFFFFFFF
0.1000000000,MonitorContendedEnter,00000006,0000DDDD,00000005,0
0.2000000000,ObjectWait,00000001,0000AAAA,0
0.2000000000,ObjectClass,00000003,0000C0DE,Ljava/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject;
0.2000000000,ConditionLock,00000003,0000C0DE,0000BEEF
0.2000000000,ThreadPark,00000003,0000C0DE,00000000,,,1;00000001;FFFFFFFF
0.2000000000,ObjectWait,00000005,0000EEEE,0
1.0000000000,ThreadStarted,00000007,main
-- methods --
0.0000000000,00000001,park,(ZJ)V,00000C01,-1
-- classtable --
0.0000000000,00000C01,Ljdk/internal/misc/Unsafe;,Unsafe.java
`))
	prefix := filepath.Join(t.TempDir(), "snap")
	testrec.Write(t, ar, prefix)
	s := &snapshot{pid: 1, command: "test"}
	if err := s.read(prefix); err != nil {
		t.Fatal(err)
	}
	v := newThreadsView(s)
	var got []string
	for _, c := range v.Chains {
		got = append(got, c.RootName+" "+c.RootState)
	}
	want := "holder-m released, holder-j released, holder-n waiting"
	if g := strings.Join(got, ", "); g != want {
		t.Errorf("chains' roots: %s, want %s", g, want)
	}
}
