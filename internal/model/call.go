package model

import (
	"strings"

	"orca/internal/format"
)

// lockInternal reports whether a frame of class cls (as Class.getName) and
// method meth is inside the machinery through which java.util.concurrent
// blocks a thread: the park itself (jdk.internal.misc, a virtual thread's
// park), the locks package (LockSupport, the synchronizers, their
// ConditionObject and nodes, the locks a class wraps: ReentrantLock.lock
// inside ArrayBlockingQueue.take), a class's own sync (any inner class
// named …Sync: CountDownLatch$Sync) and, on JDK 17+, ForkJoinPool's
// managedBlock around a condition's wait.
func lockInternal(cls, meth string) bool {
	switch {
	case strings.HasPrefix(cls, "jdk.internal.misc."), cls == "sun.misc.Unsafe",
		cls == "java.lang.VirtualThread", strings.HasPrefix(cls, "java.lang.System$"):
		return true
	case cls == "java.util.concurrent.ForkJoinPool":
		return meth == "managedBlock" || meth == "unmanagedBlock"
	case cls == "java.util.concurrent.LinkedTransferQueue$DualNode":
		// The node LinkedTransferQueue waits in, and on JDK 21+
		// SynchronousQueue (its Transferer is one): their own frames name
		// the call.
		return true
	case !strings.HasPrefix(cls, "java.util.concurrent."):
		return false
	}
	if strings.HasPrefix(cls, "java.util.concurrent.locks.") {
		return true
	}
	_, inner, nested := strings.Cut(cls[strings.LastIndexByte(cls, '.')+1:], "$")
	return nested && strings.HasSuffix(inner, "Sync")
}

// CallIndex returns the index in a stack of n frames (innermost first) of
// the call a thread blocked in when a java.util.concurrent class that
// wraps a lock or a condition blocked it (a queue's put or take, a latch's
// or a barrier's await, a future's get, a pool's queue): going out from the
// top through the lock machinery (lockInternal), the first other frame,
// when it is a class of java.util.concurrent (the program's own
// ReentrantLock.lock is named by the program's frame), extended outwards through the frames
// of the same outer class (FutureTask.awaitDone to FutureTask.get,
// SynchronousQueue$TransferStack.transfer to SynchronousQueue.take,
// CompletableFuture$Signaller.block to CompletableFuture.get, over the
// machinery between). -1
// when there is none: the thread blocked elsewhere, or the program called
// the machinery itself (its own Condition.await: its frame says where).
// name gives frame i's class (as Class.getName) and method, "" when
// unknown.
func CallIndex(n int, name func(i int) (class, method string)) int {
	i := 0
	for ; i < n; i++ {
		cls, meth := name(i)
		if meth == "" {
			return -1
		}
		if !lockInternal(cls, meth) {
			break
		}
	}
	if i == 0 || i == n {
		return -1
	}
	cls, _ := name(i)
	if !strings.HasPrefix(cls, "java.util.concurrent.") {
		return -1
	}
	outer, _, _ := strings.Cut(cls, "$")
	for j := i + 1; j < n; j++ {
		c, m := name(j)
		o, _, _ := strings.Cut(c, "$")
		switch {
		case m == "":
			return i
		case o == outer:
			i = j
		case !lockInternal(c, m):
			return i
		}
		// The machinery between two frames of the class (CompletableFuture's
		// Signaller.block, ForkJoinPool.managedBlock, its waitingGet) is
		// passed over.
	}
	return i
}

// Call returns the call (CallIndex) a thread blocked in at stack, as
// "java.util.concurrent.ArrayBlockingQueue.put", "" when there is none.
// name is as for IdleStack.
func Call(stack []format.Frame, name func(format.Frame) (class, method string)) string {
	i := CallIndex(len(stack), func(i int) (string, string) { return name(stack[i]) })
	if i < 0 {
		return ""
	}
	cls, meth := name(stack[i])
	return cls + "." + meth
}

// LockCall returns the call (Call) of the costliest of l's blocking sites
// that has one, else of its wait or park sites: the name a user knows for
// a lock or condition that a java.util.concurrent class wraps (the
// AbstractQueuedSynchronizer$ConditionObject of an ArrayBlockingQueue is
// parked on in ArrayBlockingQueue.put). "" when none has one.
func (m *Model) LockCall(l *Lock, name func(format.Frame) (class, method string)) string {
	for _, s := range l.Sites {
		if c := Call(m.Stacks[s.Stack], name); c != "" {
			return c
		}
	}
	for _, s := range l.WaitSites {
		if c := Call(m.Stacks[s.Stack], name); c != "" {
			return c
		}
	}
	return ""
}

// CallLabel is how a view names the call (Call) of an object of class (a
// Java name, "" when unknown) beside the object: "in
// ArrayBlockingQueue.put", the call without its package; "" when there is
// no call or the object is of the call's own class (a FutureTask, a
// CountDownLatch$Sync: it names itself). The report's text and the viewer
// both write this.
func CallLabel(class, call string) string {
	if outer, _, _ := strings.Cut(class, "$"); call == "" || class != "" && strings.HasPrefix(call, outer+".") {
		return ""
	}
	m := strings.LastIndexByte(call, '.')
	if m < 0 {
		return "in " + call
	}
	return "in " + call[strings.LastIndexByte(call[:m], '.')+1:]
}
