package model_test

import (
	"strings"
	"testing"

	"orca/internal/format"
	. "orca/internal/model"
)

// TestIdleStack: the idle rule on stacks as the JDK, Tomcat and Jetty make them (innermost
// first, "Class.method"), and the acquire rule.
func TestIdleStack(t *testing.T) {
	park := []string{"jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.LockSupport.park"}
	cases := []struct {
		stack         []string
		idle, acquire bool
		take          bool // TakeStack
	}{
		{[]string{"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await", "java.util.concurrent.LinkedBlockingQueue.take",
			"java.util.concurrent.ThreadPoolExecutor.getTask", "java.util.concurrent.ThreadPoolExecutor.runWorker"}, true, false, true},
		{[]string{"java.util.concurrent.SynchronousQueue$TransferStack.transfer", "java.util.concurrent.SynchronousQueue.poll",
			"java.util.concurrent.ThreadPoolExecutor.getTask"}, true, false, true},
		{[]string{"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.awaitNanos", "java.util.concurrent.LinkedBlockingQueue.poll",
			"org.apache.tomcat.util.threads.TaskQueue.poll", "org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask"}, true, false, true},
		{[]string{"java.util.concurrent.ForkJoinPool.awaitWork", "java.util.concurrent.ForkJoinPool.runWorker"}, true, false, false},
		{[]string{"org.eclipse.jetty.util.BlockingArrayQueue.poll", "org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll"}, true, false, true},
		{[]string{"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await", "java.lang.ref.ReferenceQueue.remove",
			"jdk.internal.ref.CleanerImpl.run"}, true, false, false},
		{[]string{"jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.LockSupport.parkNanos", "java.util.concurrent.DelayScheduler.loop",
			"java.util.concurrent.DelayScheduler.run"}, true, false, false},
		// A task that blocks inside a pool's worker is not idle.
		{[]string{"java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire", "java.util.concurrent.locks.ReentrantLock.lock",
			"app.Task.run", "java.util.concurrent.ThreadPoolExecutor.runWorker"}, false, true, false},
		{[]string{"java.util.concurrent.CompletableFuture$Signaller.block", "java.util.concurrent.ForkJoinPool.managedBlock",
			"java.util.concurrent.CompletableFuture.join", "app.Step.apply", "java.util.concurrent.ForkJoinPool.runWorker"}, false, false, false},
		{[]string{"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await", "app.Main.main"}, false, false, false},
		{[]string{"java.util.concurrent.locks.AbstractQueuedSynchronizer.acquireShared", "java.util.concurrent.CountDownLatch.await", "app.Main.main"}, false, true, false},
		{nil, false, false, false},
		// A consumer of the program's own waiting for an element: no pool's (IdleStack), but it
		// waits for work (TakeStack), through any queue's inner methods: its park is Idle too.
		{[]string{"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await", "java.util.concurrent.ArrayBlockingQueue.take",
			"app.Consumer.run"}, false, false, true},
		{[]string{"java.util.concurrent.LinkedTransferQueue$DualNode.await", "java.util.concurrent.LinkedTransferQueue.xfer",
			"java.util.concurrent.SynchronousQueue.take", "app.Consumer.run"}, false, false, true},
		{[]string{"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionNode.block", "java.util.concurrent.ForkJoinPool.unmanagedBlock",
			"java.util.concurrent.ForkJoinPool.managedBlock", "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await",
			"java.util.concurrent.LinkedBlockingDeque.takeFirst", "app.Consumer.run"}, false, false, true}, // JDK 17
		// A StampedLock's readLock and writeLock are a lock's acquires (its tryOptimisticRead parks not).
		{[]string{"java.util.concurrent.locks.StampedLock.acquireRead", "java.util.concurrent.locks.StampedLock.readLock", "app.Cache.get"}, false, true, false},
		{[]string{"java.util.concurrent.locks.StampedLock.acquireWrite", "java.util.concurrent.locks.StampedLock.writeLock", "app.Cache.put"}, false, true, false},
		// A put into a full queue waits for a consumer: a producer blocked, not waiting for work.
		{[]string{"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await", "java.util.concurrent.ArrayBlockingQueue.put",
			"app.Producer.run"}, false, false, false},
		// Nor one that waits for a future inside the pool's machinery.
		{[]string{"java.util.concurrent.CompletableFuture$Signaller.block", "java.util.concurrent.ForkJoinPool.managedBlock",
			"java.util.concurrent.CompletableFuture.get", "app.Main.main"}, false, false, false},
		// A queue of the program's own or a library's (an event loop's task queue) is told by
		// its name, as the first frame out of the locks.
		{[]string{"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await", "app.MyQueue.take"}, false, false, true},
		{[]string{"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.awaitNanos", "org.eclipse.jetty.util.BlockingArrayQueue.poll",
			"app.Loop.run"}, false, false, true},
		// But not past a frame of the program's: a take further out is what its task waits in.
		{[]string{"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await", "app.Gate.pass", "app.MyQueue.take"}, false, false, false},
	}
	for _, c := range cases {
		names := append(append([]string{}, park...), c.stack...)
		frames := make([]format.Frame, len(names))
		for i := range names {
			frames[i] = format.Frame{Method: format.MethodID(i + 1)}
		}
		name := func(f format.Frame) (string, string) {
			s := names[f.Method-1]
			i := strings.LastIndex(s, ".")
			return s[:i], s[i+1:]
		}
		if got := IdleStack(frames, name); got != c.idle {
			t.Errorf("IdleStack(%v) = %v, want %v", c.stack, got, c.idle)
		}
		if got := AcquireStack(frames, name); got != c.acquire {
			t.Errorf("AcquireStack(%v) = %v, want %v", c.stack, got, c.acquire)
		}
		if got := TakeStack(frames, name); got != c.take {
			t.Errorf("TakeStack(%v) = %v, want %v", c.stack, got, c.take)
		}
	}
	if !NotALock("Ljava/util/concurrent/CountDownLatch$Sync;") || !NotALock("Ljava/util/concurrent/Semaphore$NonfairSync;") ||
		NotALock("Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;") {
		t.Error("NotALock")
	}
}

// TestIdleWaitStack (issue 20): java.util.Timer's thread waiting for its next task (ActiveMQ's
// "InactivityMonitor ReadCheckTimer", idle after a clean stop) waits for work, as JDK 17 and 21+
// make the stack; a program's own Object.wait does not, nor a task that waits inside the timer.
func TestIdleWaitStack(t *testing.T) {
	cases := []struct {
		stack []string
		idle  bool
	}{
		{[]string{"java.lang.Object.wait", "java.util.TimerThread.mainLoop", "java.util.TimerThread.run"}, true},
		{[]string{"java.lang.Object.wait0", "java.lang.Object.wait", "java.lang.Object.wait", "java.util.TimerThread.mainLoop"}, true},
		{[]string{"java.lang.Object.wait", "app.Task.run", "java.util.TimerThread.mainLoop"}, false},
		{[]string{"java.lang.Object.wait", "app.Main.main"}, false},
		{[]string{"java.lang.Object.wait"}, false},
		{nil, false},
	}
	for _, c := range cases {
		frames := make([]format.Frame, len(c.stack))
		for i := range frames {
			frames[i] = format.Frame{Method: format.MethodID(i + 1)}
		}
		name := func(f format.Frame) (string, string) {
			s := c.stack[f.Method-1]
			i := strings.LastIndex(s, ".")
			return s[:i], s[i+1:]
		}
		if got := IdleWaitStack(frames, name); got != c.idle {
			t.Errorf("IdleWaitStack(%v) = %v, want %v", c.stack, got, c.idle)
		}
	}
}
