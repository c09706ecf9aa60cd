package model_test

import (
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
	. "orca/internal/model"
	"orca/internal/testrec"
)

// sharedParks: three parks without an acquire mode or an owner, as `orca import` writes JFR's
// jdk.ThreadPark: A in a shared acquire of a latch of the program's own (HSQLDB's
// CountUpDownLatch$Sync, whose parks the agent records with mode shared: a wait), B in a
// shared acquire of a read-write lock's sync (a read lock: a lock), C in an exclusive acquire
// of a sync of the program's own (a lock).
const sharedParks = `-- orca --
0.0000000000,ThreadStarted,0000000A,a
0.0000000000,ThreadStarted,0000000B,b
0.0000000000,ThreadStarted,0000000C,c
1.0000000000,ObjectClass,0000000A,0000A1A1,Lorg/hsqldb/lib/CountUpDownLatch$Sync;
1.0000000000,ThreadPark,0000000A,0000A1A1,00000000,,,4;00000001;00000000;00000002;00000000;00000003;00000000;00000004;00000000
1.0000000000,ObjectClass,0000000B,0000B1B1,Ljava/util/concurrent/locks/ReentrantReadWriteLock$NonfairSync;
1.0000000000,ThreadPark,0000000B,0000B1B1,00000000,,,4;00000001;00000000;00000002;00000000;00000005;00000000;00000006;00000000
1.0000000000,ObjectClass,0000000C,0000C1C1,Lorg/acme/Gate$Sync;
1.0000000000,ThreadPark,0000000C,0000C1C1,00000000,,,3;00000001;00000000;00000002;00000000;00000007;00000000
2.0000000000,ThreadUnparked,0000000A,0000A1A1,timeout,0
2.0000000000,ThreadUnparked,0000000B,0000B1B1,timeout,0
2.0000000000,ThreadUnparked,0000000C,0000C1C1,timeout,0
-- methods --
0.0010000000,00000001,park,(ZJ)V,0000D00D,-1
0.0010000000,00000002,acquire,(Ljava/util/concurrent/locks/AbstractQueuedSynchronizer$Node;IZZZJ)I,0000A0A0,-1
0.0010000000,00000003,acquireSharedInterruptibly,(I)V,0000A0A0,-1
0.0010000000,00000004,a,()V,0000CAFE,-1
0.0010000000,00000005,acquireShared,(I)V,0000A0A0,-1
0.0010000000,00000006,b,()V,0000CAFE,-1
0.0010000000,00000007,c,()V,0000CAFE,-1
-- classtable --
0.0010000000,0000CAFE,LApp;,App.java
0.0010000000,0000D00D,Ljdk/internal/misc/Unsafe;,Unsafe.java
0.0010000000,0000A0A0,Ljava/util/concurrent/locks/AbstractQueuedSynchronizer;,AbstractQueuedSynchronizer.java
-- info --
format=orca-1
source=jfr
complete=true
`

// TestSharedAcquireWithoutMode: a park without a mode (an import from JFR) in a shared acquire
// is a lock's contended acquire only on a read-write lock's sync. HSQLDB's JFR import showed
// 38 CountUpDownLatch$Sync "locks" with 38 s "blocked" that orca's own recording of the same
// JVM (mode shared) calls waits (docs/perf/2026-12-02-jfr-servers.md).
func TestSharedAcquireWithoutMode(t *testing.T) {
	_, res := testrec.Build(t, txtar.Parse([]byte(sharedParks)), "shared")
	m := res.Model
	for _, c := range []struct {
		th      format.ThreadID
		acquire bool
	}{{0xA, false}, {0xB, true}, {0xC, true}} {
		th := m.Thread(c.th)
		if th == nil {
			t.Fatalf("no thread %s", c.th)
		}
		found := false
		for _, iv := range th.Intervals {
			if iv.State != Parked && iv.State != Idle {
				continue
			}
			found = true
			if iv.Acquire != c.acquire {
				t.Errorf("thread %s's park on %s: Acquire %v, want %v", c.th, iv.Object, iv.Acquire, c.acquire)
			}
		}
		if !found {
			t.Errorf("thread %s: no park (%+v)", c.th, th.Intervals)
		}
	}
}
