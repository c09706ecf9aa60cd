package model

import (
	"strings"
	"testing"
)

// TestCallIndex: the call a java.util.concurrent class blocked a thread in is the first frame
// out of the lock machinery, widened to its class's outermost frame; a program's own use of
// the machinery, ReentrantLock's own lock and a monitor have none (issue 31, item 8). The
// stacks are JDK 17's and 25's as the agent records them.
func TestCallIndex(t *testing.T) {
	for _, c := range []struct {
		stack string // innermost first, "class.method" by " < "
		want  string
	}{
		{"jdk.internal.misc.Unsafe.park < java.util.concurrent.locks.LockSupport.park < java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionNode.block < " +
			"java.util.concurrent.ForkJoinPool.unmanagedBlock < java.util.concurrent.ForkJoinPool.managedBlock < " +
			"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await < java.util.concurrent.ArrayBlockingQueue.put < PC.lambda$main$0 < java.lang.Thread.run",
			"java.util.concurrent.ArrayBlockingQueue.put"},
		{"jdk.internal.misc.Unsafe.park < java.util.concurrent.locks.LockSupport.park < java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await < " +
			"java.util.concurrent.LinkedBlockingQueue.take < java.util.concurrent.ThreadPoolExecutor.getTask < java.util.concurrent.ThreadPoolExecutor.runWorker",
			"java.util.concurrent.LinkedBlockingQueue.take"},
		{"jdk.internal.misc.Unsafe.park < java.util.concurrent.locks.LockSupport.park < java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire < " +
			"java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire < java.util.concurrent.locks.ReentrantLock$Sync.lock < java.util.concurrent.locks.ReentrantLock.lock < " +
			"java.util.concurrent.ArrayBlockingQueue.take < Consumer.run",
			"java.util.concurrent.ArrayBlockingQueue.take"},
		{"jdk.internal.misc.Unsafe.park < java.util.concurrent.locks.LockSupport.park < java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire < " +
			"java.util.concurrent.locks.ReentrantLock$Sync.lock < java.util.concurrent.locks.ReentrantLock.lock < App.transfer", ""},
		{"jdk.internal.misc.Unsafe.park < java.util.concurrent.locks.LockSupport.park < java.util.concurrent.FutureTask.awaitDone < java.util.concurrent.FutureTask.get < App.main",
			"java.util.concurrent.FutureTask.get"},
		{"jdk.internal.misc.Unsafe.park < java.util.concurrent.locks.LockSupport.park < java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire < " +
			"java.util.concurrent.locks.AbstractQueuedSynchronizer.acquireSharedInterruptibly < java.util.concurrent.CountDownLatch.await < App.main",
			"java.util.concurrent.CountDownLatch.await"},
		{"jdk.internal.misc.Unsafe.park < java.util.concurrent.locks.LockSupport.park < java.util.concurrent.SynchronousQueue$TransferStack.transfer < " +
			"java.util.concurrent.SynchronousQueue.take < App.run", "java.util.concurrent.SynchronousQueue.take"},
		// JDK 21+: SynchronousQueue waits in LinkedTransferQueue's node (Handoff.java on JDK 25 was
		// "in LinkedTransferQueue$DualNode.await"), as LinkedTransferQueue itself does.
		{"jdk.internal.misc.Unsafe.park < java.util.concurrent.locks.LockSupport.park < java.util.concurrent.LinkedTransferQueue$DualNode.await < " +
			"java.util.concurrent.SynchronousQueue$Transferer.xferLifo < java.util.concurrent.SynchronousQueue.xfer < java.util.concurrent.SynchronousQueue.put < App.run",
			"java.util.concurrent.SynchronousQueue.put"},
		{"jdk.internal.misc.Unsafe.park < java.util.concurrent.locks.LockSupport.park < java.util.concurrent.LinkedTransferQueue$DualNode.await < " +
			"java.util.concurrent.LinkedTransferQueue.xfer < java.util.concurrent.LinkedTransferQueue.take < App.run", "java.util.concurrent.LinkedTransferQueue.take"},
		{"jdk.internal.misc.Unsafe.park < java.util.concurrent.locks.LockSupport.park < java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await < App.await", ""},
		{"jdk.internal.misc.Unsafe.park < java.util.concurrent.locks.LockSupport.park < java.util.concurrent.CompletableFuture$Signaller.block < " +
			"java.util.concurrent.ForkJoinPool.unmanagedBlock < java.util.concurrent.ForkJoinPool.managedBlock < java.util.concurrent.CompletableFuture.waitingGet < " +
			"java.util.concurrent.CompletableFuture.get < App.main", "java.util.concurrent.CompletableFuture.get"},
		{"java.lang.Object.wait < App.run", ""},
		{"App.run", ""},
		{"jdk.internal.misc.Unsafe.park < java.util.concurrent.locks.LockSupport.park", ""},
	} {
		frames := strings.Split(c.stack, " < ")
		i := CallIndex(len(frames), func(i int) (string, string) {
			f := frames[i]
			k := strings.LastIndexByte(f, '.')
			return f[:k], f[k+1:]
		})
		got := ""
		if i >= 0 {
			got = frames[i]
		}
		if got != c.want {
			t.Errorf("%s:\n  call %q, want %q", c.stack, got, c.want)
		}
	}
}
